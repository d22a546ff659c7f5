//! JSON JMESPath Assertion (`JMESPathAssertion`, reference §11.5): a JMESPath
//! expression must give a non-null result, or with "additionally assert value" a
//! result equal to (as text or as JSON) or fully matching the expected value, or null.
//! Failure messages are JMeter's; a response that is not JSON is an error whose message
//! comes from jmxr's parser. The expression is compiled at plan time.

use std::sync::Arc;

use fancy_regex::Regex;
use serde_json::Value;

use crate::user_state::EvalContext;

use crate::expr::Template;
use crate::plan::response_forms::json_tree;
use crate::plan::{Assertion, BuildContext};
use crate::query::jmespath::JmesPath;
use crate::sample::AssertionResult;
use crate::sample::SampleResult;

use super::RESPONSE_WAS_NULL;

pub struct JmesPathAssertion {
    name: Arc<str>,
    path: Option<JmesPath>,
    path_text: String,
    expected: Template,
    /// The expected value as a whole-text regex, compiled once when it is constant (a bad
    /// one stays a per-check error, as before).
    expected_regex: Option<Regex>,
    validate: bool,
    expect_null: bool,
    invert: bool,
    regex: bool,
}

impl JmesPathAssertion {
    pub fn build(cx: &mut BuildContext<'_>) -> JmesPathAssertion {
        let path_text = cx.raw("JMES_PATH").unwrap_or("").to_string();
        let path = match JmesPath::compile(&path_text) {
            Ok(path) => Some(path),
            Err(err) => {
                cx.error(format!("invalid JMESPath expression {path_text:?}: {err}"));
                None
            }
        };
        let expected = cx.template("EXPECTED_VALUE");
        let regex = cx.flag("ISREGEX", true);
        let expected_regex = (regex && expected.is_constant())
            .then(|| whole_text_regex(expected.raw()).ok())
            .flatten();
        JmesPathAssertion {
            name: Arc::from(cx.element.name.as_str()),
            path,
            path_text,
            expected,
            expected_regex,
            validate: cx.flag("JSONVALIDATION", false),
            expect_null: cx.flag("EXPECT_NULL", false),
            invert: cx.flag("INVERT", false),
            regex,
        }
    }

    /// Whether the result holds, or the error message.
    fn holds(&self, document: &Result<Value, String>, expected: &str) -> Result<bool, String> {
        let document = document.as_ref().map_err(String::clone)?;
        let path = self.path.as_ref().ok_or("invalid JMESPath expression")?;
        let value = path.search(document);
        if !self.validate {
            return Ok(!value.is_null());
        }
        if self.expect_null {
            return Ok(value.is_null());
        }
        let text = match &value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if self.regex {
            let compiled;
            let regex = match &self.expected_regex {
                Some(regex) => regex,
                None => {
                    compiled = whole_text_regex(expected).map_err(|e| e.to_string())?;
                    &compiled
                }
            };
            return regex.is_match(&text).map_err(|e| e.to_string());
        }
        if text == expected {
            return Ok(true);
        }
        let wanted: Value = serde_json::from_str(expected).map_err(|e| e.to_string())?;
        Ok(wanted == value)
    }

    fn message(&self, expected: &str) -> String {
        let not = if self.invert { " not" } else { "" };
        if !self.validate {
            format!("JMESPATH {} expected{not} to exist", self.path_text)
        } else if self.expect_null {
            format!("Value expected{not} to be null")
        } else if self.regex {
            format!("Value expected{not} to match {expected}")
        } else {
            format!("Value expected{not} to be equal to {expected}")
        }
    }
}

/// Java's `matches`: the regex must cover the whole text.
fn whole_text_regex(expected: &str) -> Result<Regex, fancy_regex::Error> {
    Regex::new(&format!("^(?:{expected})$"))
}

impl Assertion for JmesPathAssertion {
    fn apply(&self, result: &mut SampleResult, cx: &mut EvalContext<'_>) {
        let empty = result.response_data.is_empty();
        let mut verdict = AssertionResult {
            name: self.name.clone(),
            ..AssertionResult::default()
        };
        if empty {
            verdict.failure = true;
            verdict.failure_message = Some(RESPONSE_WAS_NULL.to_string());
        } else {
            let expected = self.expected.eval(cx);
            match self.holds(&json_tree(result), &expected) {
                Ok(holds) if holds == self.invert => {
                    verdict.failure = true;
                    verdict.failure_message = Some(self.message(&expected));
                }
                Ok(_) => {}
                Err(message) if !self.invert => {
                    verdict.error = true;
                    verdict.failure_message = Some(message);
                }
                Err(_) => {}
            }
        }
        let ok = result.success && !(verdict.failure || verdict.error);
        result.set_success(ok);
        result.assertions.push(verdict);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    fn verdict(props: Vec<crate::jmx::Property>, body: &str) -> Option<String> {
        let el = element("JMESPathAssertion", "J", props);
        let assertion = with_cx(&el, JmesPathAssertion::build);
        let mut result = sample(1);
        result.set_success(true);
        result.response_data = body.as_bytes().to_vec();
        run(&assertion, &mut result);
        let a = &result.assertions[0];
        (a.failure || a.error).then(|| a.failure_message.clone().unwrap_or_default())
    }

    const DOC: &str = r#"{"a":{"b":[1,2]},"s":"x","n":null}"#;

    #[test]
    fn existence_values_and_messages() {
        assert_eq!(verdict(vec![str_prop("JMES_PATH", "a.b")], DOC), None);
        assert_eq!(
            verdict(vec![str_prop("JMES_PATH", "a.c")], DOC).as_deref(),
            Some("JMESPATH a.c expected to exist")
        );
        let value = |path: &str, expected: &str, regex: bool| {
            vec![
                str_prop("JMES_PATH", path),
                str_prop("EXPECTED_VALUE", expected),
                bool_prop("JSONVALIDATION", true),
                bool_prop("ISREGEX", regex),
            ]
        };
        assert_eq!(verdict(value("a.b", "[1,2]", false), DOC), None);
        assert_eq!(verdict(value("s", "x", false), DOC), None);
        assert_eq!(verdict(value("s", "[a-z]", true), DOC), None);
        assert_eq!(
            verdict(value("a.b", "[2]", false), DOC).as_deref(),
            Some("Value expected to be equal to [2]")
        );
        // An expected value that is neither equal text nor JSON is an error, as the
        // JSON parser throws in JMeter too.
        assert!(verdict(value("s", "y", false), DOC).is_some());
        let inverted = vec![str_prop("JMES_PATH", "s"), bool_prop("INVERT", true)];
        assert_eq!(
            verdict(inverted, DOC).as_deref(),
            Some("JMESPATH s expected not to exist")
        );
    }
}
