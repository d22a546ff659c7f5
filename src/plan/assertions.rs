//! Assertions: Response, Duration, Size, JSON, JSON Schema (plugin), JMESPath, MD5Hex,
//! XML, XPath, XPath2 and HTML Assertions, and the WebSocket plugin's Binary Response Assertion.
//!
//! Each element is built once from its `jmx` element (patterns compiled, settings turned
//! into templates) and then judges samples through the [`Assertion`] trait. JMeter's
//! engine decides which samples an assertion sees ("Apply to": parent, children, all,
//! variable); here the trait gets only the main sample, so [`Scope::apply`] reproduces
//! that walk for every assertion kind: the element itself only knows how to judge one
//! sample ([`Check`]).
//!
//! Failure messages are JMeter's texts, byte for byte, because they end up in the
//! `failureMessage` column of `.jtl` files that users diff against JMeter's.

mod binary_content;
mod duration;
mod equals_diff;
mod html;
mod jmespath;
mod json_path;
mod json_schema;
mod md5hex;
mod pattern;
mod response;
mod size;
mod xml;
mod xpath;

use std::sync::Arc;

use super::{Assertion, BuildContext};
use crate::expr::Template;
use crate::query::xpath_parse::Version;
use crate::sample::AssertionResult;
use crate::sample::SampleResult;
use crate::user_state::EvalContext;

pub use binary_content::{format_binary, parse_binary, BinaryContentAssertion};
pub use duration::DurationAssertion;
pub use html::HtmlAssertion;
pub use jmespath::JmesPathAssertion;
pub use json_path::JsonPathAssertion;
pub use json_schema::JsonSchemaAssertion;
pub use md5hex::Md5HexAssertion;
pub use response::ResponseAssertion;
pub use size::SizeAssertion;
pub use xml::XmlAssertion;
pub use xpath::{saxon_parse_message, XPathAssertion};

/// Builds the assertion for `class`, or `None` when the class is not an assertion jmxr runs.
pub fn build(class: &str, cx: &mut BuildContext<'_>) -> Option<Arc<dyn Assertion>> {
    let built: Arc<dyn Assertion> = match short_class(class) {
        "ResponseAssertion" => Arc::new(ResponseAssertion::build(cx)),
        "DurationAssertion" => Arc::new(DurationAssertion::build(cx)),
        "SizeAssertion" => Arc::new(SizeAssertion::build(cx)),
        // JMeter's and the jmeter-plugins element share the short name.
        "JSONPathAssertion" => Arc::new(JsonPathAssertion::build(cx)),
        // The third-party JSON Schema plugin (its class sits in JMeter's package).
        "JSONSchemaAssertion" => Arc::new(JsonSchemaAssertion::build(cx)),
        "MD5HexAssertion" => Arc::new(Md5HexAssertion::build(cx)),
        "XMLAssertion" => Arc::new(XmlAssertion::build(cx)),
        "JMESPathAssertion" => Arc::new(JmesPathAssertion::build(cx)),
        "XPathAssertion" => Arc::new(XPathAssertion::build(cx, Version::One)),
        "HTMLAssertion" => Arc::new(HtmlAssertion::build(cx)),
        "XPath2Assertion" => Arc::new(XPathAssertion::build(cx, Version::Two)),
        "BinaryContentAssertion" => Arc::new(BinaryContentAssertion::build(cx)),
        _ => return None,
    };
    Some(built)
}

/// `org.apache.jmeter.assertions.SizeAssertion` → `SizeAssertion`: plans may carry either.
fn short_class(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

/// Name JMeter gives the result when an assertion throws instead of answering.
const THREW_NAME: &str = "Assertion failed! See log file.";
/// Message JMeter's engine adds to a parent whose sub-samples failed an assertion.
const SUB_SAMPLES_FAILED: &str = "One or more sub-samples failed";
/// Message of `AssertionResult.setResultForNull`.
const RESPONSE_WAS_NULL: &str = "Response was null";

/// Judges one sample. `apply_one` records the verdict; [`Scope`] decides which samples.
pub(crate) trait Check {
    /// The element's name, used for results the scope walk adds itself.
    fn name(&self) -> &Arc<str>;
    /// Judges `sample`. May change it (Response Assertion's "Ignore status").
    fn check(&self, sample: &mut SampleResult, cx: &mut EvalContext<'_>) -> AssertionResult;
}

/// "Apply to" (`Assertion.scope` + `Scope.variable`).
#[derive(Debug, Clone)]
pub(crate) enum Scope {
    /// The main sample only (the default when the property is absent).
    Parent,
    /// Sub-samples only, recursively.
    Children,
    /// Main sample, then sub-samples.
    All,
    /// The named variable is judged instead of a field; the verdict goes on the main sample.
    Variable(Template),
    /// A value JMeter does not recognise: its engine then runs the assertion on nothing.
    Nowhere,
}

/// How deep JMeter's engine walks sub-results (the level counts down from 3 to 0).
const CHILD_LEVELS: i32 = 3;

impl Scope {
    /// Reads `Assertion.scope` and, for `variable`, `Scope.variable`.
    pub(crate) fn build(cx: &mut BuildContext<'_>) -> Scope {
        match cx.raw("Assertion.scope") {
            None | Some("parent") => Scope::Parent,
            Some("children") => Scope::Children,
            Some("all") => Scope::All,
            Some("variable") => Scope::Variable(cx.template("Scope.variable")),
            Some(other) => {
                cx.warn(format!(
                    "Assertion.scope {other:?} is not parent, children, all or variable: \
                     JMeter then checks no sample"
                ));
                Scope::Nowhere
            }
        }
    }

    /// The variable to judge instead of a sample field, evaluated now.
    pub(crate) fn variable_name(&self, cx: &mut EvalContext<'_>) -> Option<String> {
        match self {
            Scope::Variable(name) => Some(name.eval(cx)),
            _ => None,
        }
    }

    /// Runs `check` on the samples this scope selects, as JMeter's engine does.
    pub(crate) fn apply(
        &self,
        check: &impl Check,
        result: &mut SampleResult,
        cx: &mut EvalContext<'_>,
    ) {
        if matches!(self, Scope::Parent | Scope::All | Scope::Variable(_)) {
            apply_one(check, result, cx);
        }
        if matches!(self, Scope::Children | Scope::All) {
            apply_children(check, result, cx, CHILD_LEVELS);
        }
    }
}

/// Records one verdict: the sample stays successful only if it was and the check passed.
fn apply_one(check: &impl Check, sample: &mut SampleResult, cx: &mut EvalContext<'_>) {
    let verdict = check.check(sample, cx);
    let ok = sample.success && !(verdict.failure || verdict.error);
    sample.set_success(ok);
    sample.assertions.push(verdict);
}

/// Checks every sub-result (and theirs, `level` more times); a parent that was fine but
/// has a failed child is failed with an extra result, as JMeter's engine does.
fn apply_children(
    check: &impl Check,
    parent: &mut SampleResult,
    cx: &mut EvalContext<'_>,
    level: i32,
) {
    if level < 0 {
        return;
    }
    let mut child_failed = false;
    for child in parent.subresults.iter_mut() {
        apply_one(check, child, cx);
        apply_children(check, child, cx, level - 1);
        child_failed |= !child.success;
    }
    if child_failed && parent.success {
        parent
            .assertions
            .push(failure(check.name(), SUB_SAMPLES_FAILED));
        parent.set_success(false);
    }
}

/// A passing result named `name`.
fn passed(name: &Arc<str>) -> AssertionResult {
    AssertionResult {
        name: name.clone(),
        ..AssertionResult::default()
    }
}

/// A failed (not errored) result.
fn failure(name: &Arc<str>, message: impl Into<String>) -> AssertionResult {
    AssertionResult {
        name: name.clone(),
        failure: true,
        error: false,
        failure_message: Some(message.into()),
    }
}

/// The result JMeter's engine records when an assertion throws: a fixed name, an error,
/// and the exception's `toString()` as message.
fn threw(message: impl Into<String>) -> AssertionResult {
    AssertionResult {
        name: Arc::from(THREW_NAME),
        failure: false,
        error: true,
        failure_message: Some(message.into()),
    }
}

/// Formats an integer as `java.text.MessageFormat` does for `{0}` with a `Long` argument
/// in an English locale: grouped by thousands with commas.
fn grouped(value: i64) -> String {
    let digits = value.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if value < 0 {
        out.push('-');
    }
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Java's `Long.parseLong`: no trimming, optional sign; the error is the exception text.
fn java_parse_long(text: &str) -> Result<i64, String> {
    text.parse::<i64>()
        .map_err(|_| format!("java.lang.NumberFormatException: For input string: \"{text}\""))
}

#[cfg(test)]
pub(crate) mod test_support;

#[cfg(test)]
mod tests {
    use super::test_support::*;
    use super::*;

    #[test]
    fn groups_thousands_like_message_format() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1234567), "1,234,567");
        assert_eq!(grouped(-1234), "-1,234");
    }

    #[test]
    fn java_long_parsing_is_strict() {
        assert_eq!(java_parse_long("+12"), Ok(12));
        assert!(java_parse_long(" 12").is_err());
        assert_eq!(
            java_parse_long("").unwrap_err(),
            "java.lang.NumberFormatException: For input string: \"\""
        );
    }

    #[test]
    fn builds_only_known_classes() {
        let el = element("ResponseAssertion", "RA", vec![]);
        assert!(with_cx(&el, |cx| build("ResponseAssertion", cx)).is_some());
        let el = element("X", "x", vec![]);
        assert!(with_cx(&el, |cx| build(
            "org.apache.jmeter.assertions.DurationAssertion",
            cx
        ))
        .is_some());
        assert!(with_cx(&el, |cx| build("NoSuchAssertion", cx)).is_none());
    }

    #[test]
    fn unknown_scope_checks_nothing_and_warns() {
        let el = element(
            "DurationAssertion",
            "D",
            vec![
                str_prop("DurationAssertion.duration", "1"),
                str_prop("Assertion.scope", "x"),
            ],
        );
        let (assertion, diagnostics) =
            build_with_diagnostics(&el, |cx| build("DurationAssertion", cx));
        assert_eq!(diagnostics.len(), 1);
        let mut result = sample(50);
        run(&*assertion.unwrap(), &mut result);
        assert!(result.assertions.is_empty());
        assert!(result.success);
    }

    #[test]
    fn children_scope_fails_parent_with_extra_result() {
        let el = element(
            "DurationAssertion",
            "D",
            vec![
                str_prop("DurationAssertion.duration", "10"),
                str_prop("Assertion.scope", "children"),
            ],
        );
        let assertion = with_cx(&el, |cx| build("DurationAssertion", cx)).unwrap();
        let mut parent = sample(5);
        parent.subresults.push(sample(5));
        parent.subresults.push(sample(50));
        run(&*assertion, &mut parent);
        assert!(!parent.success);
        assert_eq!(parent.error_count, 1);
        assert_eq!(parent.assertions.len(), 1);
        assert_eq!(
            parent.assertions[0].failure_message.as_deref(),
            Some(SUB_SAMPLES_FAILED)
        );
        assert_eq!(&*parent.assertions[0].name, "D");
        assert!(parent.subresults[0].success);
        assert!(!parent.subresults[1].success);
    }

    #[test]
    fn all_scope_checks_parent_then_nested_children() {
        let el = element(
            "DurationAssertion",
            "D",
            vec![
                str_prop("DurationAssertion.duration", "10"),
                str_prop("Assertion.scope", "all"),
            ],
        );
        let assertion = with_cx(&el, |cx| build("DurationAssertion", cx)).unwrap();
        let mut parent = sample(5);
        let mut child = sample(5);
        child.subresults.push(sample(20));
        parent.subresults.push(child);
        run(&*assertion, &mut parent);
        // Parent's own check, then the added "sub-samples failed" result.
        assert_eq!(parent.assertions.len(), 2);
        assert!(!parent.success);
        assert!(!parent.subresults[0].success);
        assert!(!parent.subresults[0].subresults[0].success);
    }
}
