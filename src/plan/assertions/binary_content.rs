//! Binary Response Assertion of the WebSocket samplers plugin
//! (`eu.luminis.jmeter.assertions.BinaryContentAssertion`): the response bytes equal,
//! contain or start with a value written in the plugin's hex notation, or do not.
//! The notation's reader and printer live here too; the WebSocket samplers use them
//! for binary request data.

use std::sync::Arc;

use crate::user_state::EvalContext;

use crate::expr::Template;
use crate::plan::{Assertion, BuildContext};
use crate::sample::AssertionResult;
use crate::sample::SampleResult;

use super::{failure, passed, threw, Check, Scope};

/// Bytes written in the plugin's notation (`BinaryUtils.parseBinaryString`): elements
/// separated by single spaces, each either `0x..` (one number, its low byte kept) or
/// hex digits taken two at a time. The error is the digits that do not read.
pub fn parse_binary(text: &str) -> Result<Vec<u8>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut bytes = Vec::new();
    for element in text.split(' ') {
        if let Some(hex) = element.strip_prefix("0x") {
            let value = parse_java_int(hex).ok_or_else(|| hex.to_string())?;
            bytes.push(value as u8);
            continue;
        }
        let chars: Vec<char> = element.chars().collect();
        for pair in chars.chunks(2) {
            let digits: String = pair.iter().collect();
            let value = parse_java_int(&digits).ok_or(digits)?;
            bytes.push(value as u8);
        }
    }
    Ok(bytes)
}

/// `Integer.parseInt(text, 16)`: an optional sign, then hex digits.
fn parse_java_int(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let value = i64::from_str_radix(digits, 16).ok()?;
    Some(if negative { -value } else { value })
}

/// Bytes as `0xca 0xfe ...`, at most `max` of them, then `suffix` when cut
/// (`BinaryUtils.formatBinary`).
pub fn format_binary(bytes: &[u8], max: usize, suffix: &str) -> String {
    let shown = &bytes[..bytes.len().min(max)];
    let mut out = shown
        .iter()
        .map(|b| format!("{b:#04x}"))
        .collect::<Vec<_>>()
        .join(" ");
    if shown.len() < bytes.len() {
        out.push_str(suffix);
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comparison {
    Equals,
    Contains,
    StartsWith,
    NotEquals,
    NotContains,
    NotStartsWith,
}

pub struct BinaryContentAssertion {
    name: Arc<str>,
    comparison: Comparison,
    value: Template,
    scope: Scope,
}

impl BinaryContentAssertion {
    pub fn build(cx: &mut BuildContext<'_>) -> BinaryContentAssertion {
        let comparison = match cx.raw("comparisonType").map(str::trim).unwrap_or("") {
            "" | "Contains" => Comparison::Contains,
            "Equals" => Comparison::Equals,
            "StartsWith" => Comparison::StartsWith,
            "NotEquals" => Comparison::NotEquals,
            "NotContains" => Comparison::NotContains,
            "NotStartsWith" => Comparison::NotStartsWith,
            other => {
                cx.error(format!(
                    "comparison type {other:?} is not one the Binary Response Assertion knows"
                ));
                Comparison::Contains
            }
        };
        let value = cx.template("compareValue");
        if value.is_constant() {
            if let Err(digits) = parse_binary(value.raw()) {
                cx.error(format!(
                    "compare value {:?} is not binary ({digits:?} is not hex): the assertion \
                     fails every sample",
                    value.raw()
                ));
            }
        }
        BinaryContentAssertion {
            name: Arc::from(cx.element.name.as_str()),
            comparison,
            value,
            scope: Scope::build(cx),
        }
    }
}

impl Check for BinaryContentAssertion {
    fn name(&self) -> &Arc<str> {
        &self.name
    }

    fn check(&self, sample: &mut SampleResult, cx: &mut EvalContext<'_>) -> AssertionResult {
        let expected = match parse_binary(&self.value.eval(cx)) {
            Ok(bytes) => bytes,
            Err(digits) => {
                return threw(format!(
                    "java.lang.NumberFormatException: For input string: \"{digits}\" under radix 16"
                ))
            }
        };
        let data = &sample.response_data;
        let (held, words) = match self.comparison {
            Comparison::Equals | Comparison::NotEquals => (*data == expected, "equal"),
            Comparison::Contains | Comparison::NotContains => (
                !expected.is_empty() && data.windows(expected.len()).any(|w| w == expected),
                "contain",
            ),
            Comparison::StartsWith | Comparison::NotStartsWith => {
                (data.starts_with(&expected), "start with")
            }
        };
        let negated = matches!(
            self.comparison,
            Comparison::NotEquals | Comparison::NotContains | Comparison::NotStartsWith
        );
        if held != negated {
            return passed(&self.name);
        }
        let not = if negated { "not " } else { "" };
        let all = |bytes: &[u8]| format_binary(bytes, usize::MAX, "");
        failure(
            &self.name,
            format!(
                "Response expected {not}to {words} {}\nResponse was: {}",
                all(&expected),
                all(data)
            ),
        )
    }
}

impl Assertion for BinaryContentAssertion {
    fn apply(&self, result: &mut SampleResult, cx: &mut EvalContext<'_>) {
        self.scope.apply(self, result, cx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    #[test]
    fn binary_notation_reads_as_the_plugin_reads_it() {
        assert_eq!(parse_binary("0xca 0xfe").unwrap(), vec![0xca, 0xfe]);
        assert_eq!(parse_binary("cafe BA").unwrap(), vec![0xca, 0xfe, 0xba]);
        assert_eq!(parse_binary("0x1ff").unwrap(), vec![0xff], "low byte kept");
        assert_eq!(parse_binary("abc").unwrap(), vec![0xab, 0x0c]);
        assert_eq!(parse_binary("  ").unwrap(), Vec::<u8>::new());
        assert_eq!(parse_binary("01  02").unwrap(), vec![1, 2], "double space");
        assert_eq!(parse_binary("zz").unwrap_err(), "zz");
        assert_eq!(parse_binary("0x").unwrap_err(), "");
        assert_eq!(format_binary(&[0, 0xab, 7], 2, " ..."), "0x00 0xab ...");
        assert_eq!(format_binary(&[], 2, " ..."), "");
    }

    fn verdict(comparison: &str, value: &str, body: &[u8]) -> (bool, Option<String>) {
        let el = element(
            "eu.luminis.jmeter.assertions.BinaryContentAssertion",
            "Binary",
            vec![
                str_prop("comparisonType", comparison),
                str_prop("compareValue", value),
            ],
        );
        let assertion = with_cx(&el, BinaryContentAssertion::build);
        let mut result = sample(1);
        result.set_success(true);
        result.response_data = body.to_vec();
        run(&assertion, &mut result);
        (result.success, result.assertions[0].failure_message.clone())
    }

    #[test]
    fn compares_bytes_with_the_plugins_messages() {
        assert_eq!(verdict("Equals", "0xca 0xfe", &[0xca, 0xfe]), (true, None));
        assert_eq!(verdict("", "fe", &[0xca, 0xfe]), (true, None), "Contains");
        assert_eq!(verdict("StartsWith", "ca", &[0xca, 0xfe]), (true, None));
        assert_eq!(
            verdict("Equals", "0xca", &[0xca, 0xfe]),
            (
                false,
                Some("Response expected to equal 0xca\nResponse was: 0xca 0xfe".into())
            )
        );
        assert_eq!(
            verdict("NotContains", "fe", &[0xca, 0xfe]),
            (
                false,
                Some("Response expected not to contain 0xfe\nResponse was: 0xca 0xfe".into())
            )
        );
        assert_eq!(verdict("NotStartsWith", "fe", &[0xca, 0xfe]), (true, None));
    }
}
