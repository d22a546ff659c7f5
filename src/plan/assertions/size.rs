//! Size Assertion: compares a size (bytes of the response, its headers or body, or the
//! length of the code or message) with an expected number.

use std::sync::Arc;

use super::{failure, grouped, java_parse_long, passed, threw, Check, Scope};
use crate::expr::Template;
use crate::plan::{Assertion, BuildContext, Setting};
use crate::sample::AssertionResult;
use crate::sample::SampleResult;
use crate::user_state::EvalContext;

/// What is measured (`Assertion.test_field`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// Headers + body, JMeter's `getBytesAsLong` (the default for any other value).
    NetworkSize,
    Headers,
    Body,
    /// Length of the response code, in Java `char`s.
    Code,
    /// Length of the response message, in Java `char`s.
    Message,
}

impl Field {
    fn parse(text: Option<&str>) -> Field {
        match text {
            Some("SizeAssertion.response_headers") => Field::Headers,
            Some("SizeAssertion.response_data") => Field::Body,
            Some("SizeAssertion.response_code") => Field::Code,
            Some("SizeAssertion.response_message") => Field::Message,
            _ => Field::NetworkSize,
        }
    }

    fn measure(self, sample: &SampleResult) -> i64 {
        match self {
            Field::NetworkSize => sample.bytes(),
            Field::Headers => sample.headers_size,
            // JMeter's `getBodySizeAsLong`: a body size of 0 means "use the data length".
            Field::Body => match sample.body_size {
                Some(size) if size != 0 => size,
                _ => sample.response_data.len() as i64,
            },
            Field::Code => java_length(&sample.response_code),
            Field::Message => java_length(&sample.response_message),
        }
    }
}

/// `String.length()` in Java: UTF-16 code units.
fn java_length(text: &str) -> i64 {
    text.encode_utf16().count() as i64
}

/// `SizeAssertion.operator`: the words complete "but should have … <size> bytes".
fn expectation(operator: i64, actual: i64, expected: i64) -> Option<&'static str> {
    let (holds, words) = match operator {
        1 => (actual == expected, "been equal to"),
        2 => (actual != expected, "not been equal to"),
        3 => (actual > expected, "been greater than"),
        4 => (actual < expected, "been less than"),
        5 => (actual >= expected, "been greater or equal to"),
        6 => (actual <= expected, "been less than or equal to"),
        _ => (false, "ERROR - invalid condition"),
    };
    (!holds).then_some(words)
}

pub struct SizeAssertion {
    name: Arc<str>,
    /// `SizeAssertion.size`, parsed strictly at use (a bad number is an assertion error).
    size: Template,
    operator: Setting,
    field: Field,
    scope: Scope,
}

impl SizeAssertion {
    pub fn build(cx: &mut BuildContext<'_>) -> SizeAssertion {
        SizeAssertion {
            name: Arc::from(cx.element.name.as_str()),
            size: cx.template("SizeAssertion.size"),
            operator: cx.setting("SizeAssertion.operator", "0"),
            field: Field::parse(cx.raw("Assertion.test_field")),
            scope: Scope::build(cx),
        }
    }

    /// The size to judge, or the failure JMeter reports for a variable that is no number.
    fn actual(
        &self,
        sample: &SampleResult,
        cx: &mut EvalContext<'_>,
    ) -> Result<i64, AssertionResult> {
        let Some(variable) = self.scope.variable_name(cx) else {
            return Ok(self.field.measure(sample));
        };
        let value = cx.vars.get(&variable);
        match value.map(str::parse::<i64>) {
            Some(Ok(size)) => Ok(size),
            _ => Err(failure(
                &self.name,
                format!(
                    "Error parsing variable name: {variable} value: {}",
                    value.unwrap_or("null")
                ),
            )),
        }
    }
}

impl Check for SizeAssertion {
    fn name(&self) -> &Arc<str> {
        &self.name
    }

    fn check(&self, sample: &mut SampleResult, cx: &mut EvalContext<'_>) -> AssertionResult {
        let actual = match self.actual(sample, cx) {
            Ok(size) => size,
            Err(result) => return result,
        };
        let expected = match java_parse_long(&self.size.eval(cx)) {
            Ok(size) => size,
            Err(exception) => return threw(exception),
        };
        match expectation(self.operator.i64(cx), actual, expected) {
            None => passed(&self.name),
            Some(words) => failure(
                &self.name,
                format!(
                    "The result was the wrong size: It was {} bytes, but should have {words} {} bytes.",
                    grouped(actual),
                    grouped(expected)
                ),
            ),
        }
    }
}

impl Assertion for SizeAssertion {
    fn apply(&self, result: &mut SampleResult, cx: &mut EvalContext<'_>) {
        self.scope.apply(self, result, cx);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;
    use crate::jmx::Property;

    fn size_assertion(size: &str, operator: i64, extra: Vec<Property>) -> SizeAssertion {
        let mut props = vec![
            str_prop("SizeAssertion.size", size),
            int_prop("SizeAssertion.operator", operator),
        ];
        props.extend(extra);
        let el = element("SizeAssertion", "Size", props);
        with_cx(&el, SizeAssertion::build)
    }

    fn body(len: usize) -> SampleResult {
        let mut result = sample(1);
        result.response_data = vec![b'x'; len];
        result
    }

    fn message_of(result: &SampleResult) -> Option<&str> {
        result.assertions[0].failure_message.as_deref()
    }

    #[test]
    fn every_operator_and_its_message() {
        let cases = [
            (1, 5, 5, None),
            (1, 4, 5, Some("been equal to")),
            (2, 4, 5, None),
            (2, 5, 5, Some("not been equal to")),
            (3, 6, 5, None),
            (3, 5, 5, Some("been greater than")),
            (4, 4, 5, None),
            (4, 5, 5, Some("been less than")),
            (5, 5, 5, None),
            (5, 4, 5, Some("been greater or equal to")),
            (6, 5, 5, None),
            (6, 6, 5, Some("been less than or equal to")),
            (0, 5, 5, Some("ERROR - invalid condition")),
        ];
        for (operator, len, expected, words) in cases {
            let mut result = body(len);
            run(
                &size_assertion(&expected.to_string(), operator, vec![]),
                &mut result,
            );
            let want = words.map(|w| {
                format!(
                    "The result was the wrong size: It was {len} bytes, but should have {w} {expected} bytes."
                )
            });
            assert_eq!(message_of(&result), want.as_deref(), "operator {operator}");
            assert_eq!(result.success, words.is_none());
        }
    }

    #[test]
    fn large_numbers_are_grouped() {
        let mut result = body(2000);
        run(&size_assertion("1000", 1, vec![]), &mut result);
        assert_eq!(
            message_of(&result),
            Some("The result was the wrong size: It was 2,000 bytes, but should have been equal to 1,000 bytes.")
        );
    }

    #[test]
    fn fields() {
        let mut result = body(10);
        result.headers_size = 7;
        result.response_code = "200".into();
        result.response_message = "OK".into();
        let cases = [
            (None, 17),
            (Some("SizeAssertion.response_network_size"), 17),
            (Some("SizeAssertion.response_headers"), 7),
            (Some("SizeAssertion.response_data"), 10),
            (Some("SizeAssertion.response_code"), 3),
            (Some("SizeAssertion.response_message"), 2),
        ];
        for (field, expected) in cases {
            let extra = field
                .map(|f| vec![str_prop("Assertion.test_field", f)])
                .unwrap_or_default();
            let mut judged = result.clone();
            run(
                &size_assertion(&expected.to_string(), 1, extra),
                &mut judged,
            );
            assert!(judged.success, "{field:?}: {:?}", judged.assertions);
        }
    }

    #[test]
    fn body_size_zero_falls_back_to_data_length() {
        let mut result = body(4);
        result.body_size = Some(0);
        let extra = vec![str_prop(
            "Assertion.test_field",
            "SizeAssertion.response_data",
        )];
        run(&size_assertion("4", 1, extra), &mut result);
        assert!(result.success);
    }

    #[test]
    fn bad_expected_size_is_an_error_named_like_jmeter() {
        let mut result = body(4);
        run(&size_assertion("", 1, vec![]), &mut result);
        let verdict = &result.assertions[0];
        assert!(verdict.error && !verdict.failure);
        assert_eq!(&*verdict.name, "Assertion failed! See log file.");
        assert_eq!(
            verdict.failure_message.as_deref(),
            Some("java.lang.NumberFormatException: For input string: \"\"")
        );
        assert!(!result.success);
    }

    #[test]
    fn variable_scope_parses_the_variable() {
        let extra = || {
            vec![
                str_prop("Assertion.scope", "variable"),
                str_prop("Scope.variable", "len"),
            ]
        };
        let mut user = user();
        let mut result = body(0);
        run_as(&size_assertion("3", 1, extra()), &mut result, &mut user);
        assert_eq!(
            message_of(&result),
            Some("Error parsing variable name: len value: null")
        );

        user.vars.put("len", "3");
        let mut result = body(0);
        run_as(&size_assertion("3", 1, extra()), &mut result, &mut user);
        assert!(result.success);

        user.vars.put("len", "three");
        let mut result = body(0);
        run_as(&size_assertion("3", 1, extra()), &mut result, &mut user);
        assert_eq!(
            message_of(&result),
            Some("Error parsing variable name: len value: three")
        );
    }
}
