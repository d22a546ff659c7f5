//! JSON Assertion (`JSONPathAssertion`, reference §11.4): a JSONPath must exist in the
//! response and, with "additionally assert value", its value must equal (as JSON) or
//! fully match (as a regular expression) the expected value, or be null.
//!
//! The path is read as Jayway's `JsonPath.read` does: a definite path gives its value
//! (an error naming the path when it is missing), an indefinite one the array of what it
//! found, and for an array any element that matches passes. Values are compared as text
//! the way JMeter prints them (`objectToString`: decimals with at least one fraction
//! digit and never an exponent). Failure messages are JMeter's. The path and a constant
//! regular expression are compiled at plan time.
//!
//! The jmeter-plugins JSON Path Assertion (`com.atlantbh...JSONPathAssertion`), the
//! element JMeter's was taken from, has the same properties; its differences are kept:
//! values compare as the text `objectToString` prints (decimals as numbers), a path
//! without value check passes on an empty array, and its messages do not name the path.

use std::sync::Arc;

use fancy_regex::Regex;
use serde_json::Value;

use crate::user_state::EvalContext;

use crate::expr::Template;
use crate::plan::extractors::utf8_text;
use crate::plan::response_forms::json_index;
use crate::plan::{Assertion, BuildContext};
use crate::query::json_tape::TapeIndex;
use crate::query::json_text::object_text;
use crate::query::jsonpath::JsonPath;
use crate::sample::AssertionResult;
use crate::sample::SampleResult;

use super::RESPONSE_WAS_NULL;

pub struct JsonPathAssertion {
    name: Arc<str>,
    path: Option<JsonPath>,
    path_text: String,
    expected: Template,
    /// The expected value compiled as a regular expression, when constant.
    expected_regex: Option<Regex>,
    validate: bool,
    expect_null: bool,
    invert: bool,
    regex: bool,
    /// The jmeter-plugins element rather than JMeter's.
    plugin: bool,
}

/// Class of the jmeter-plugins JSON Path Assertion.
pub const PLUGIN_CLASS: &str =
    "com.atlantbh.jmeter.plugins.jsonutils.jsonpathassertion.JSONPathAssertion";

impl JsonPathAssertion {
    pub fn build(cx: &mut BuildContext<'_>) -> JsonPathAssertion {
        let path_text = cx.raw("JSON_PATH").unwrap_or("").to_string();
        let path = match JsonPath::compile(&path_text) {
            Ok(path) => Some(path),
            Err(err) => {
                cx.error(format!("invalid JSON path {path_text:?}: {err}"));
                None
            }
        };
        let expected = cx.template("EXPECTED_VALUE");
        let validate = cx.flag("JSONVALIDATION", false);
        let regex = cx.flag("ISREGEX", true);
        let mut expected_regex = None;
        if validate && regex && expected.is_constant() {
            match Regex::new(&format!("^(?:{})$", expected.raw())) {
                Ok(compiled) => expected_regex = Some(compiled),
                Err(err) => cx.error(format!(
                    "invalid regular expression {:?}: {err}",
                    expected.raw()
                )),
            }
        }
        JsonPathAssertion {
            name: Arc::from(cx.element.name.as_str()),
            path,
            path_text,
            expected,
            expected_regex,
            validate,
            expect_null: cx.flag("EXPECT_NULL", false),
            invert: cx.flag("INVERT", false),
            regex,
            plugin: cx.element.class == PLUGIN_CLASS,
        }
    }

    /// JMeter's `doAssert`: `Err` holds the failure message. `index` is the body's JSON
    /// index, shared with the sample's other elements.
    fn check(&self, body: &str, index: Option<&TapeIndex>, expected: &str) -> Result<(), String> {
        let path = self.path.as_ref().ok_or("invalid JSON path")?;
        let value = path
            .read_text_with(body, index)
            .map_err(|e| format!("Invalid JSON: {e}"))??;
        if !self.validate {
            return match &value {
                _ if self.plugin => Ok(()),
                Value::Array(items) if items.is_empty() && !path.is_definite() => Err(format!(
                    "JSONPath '{}' is indefinite and the extracted Value is an empty Array. Please use an assertion value, to be sure to get a correct result. Expected value was '{expected}'",
                    self.path_text
                )),
                _ => Ok(()),
            };
        }
        let matched = match &value {
            Value::Array(items) => {
                (items.is_empty() && expected == "[]")
                    || items.iter().any(|item| {
                        (item.is_null() && self.expect_null) || self.equals(item, expected)
                    })
                    || self.equals(&value, expected)
            }
            other => (self.expect_null && other.is_null()) || self.equals(other, expected),
        };
        if matched {
            return Ok(());
        }
        let shown = object_text(&value);
        if self.plugin {
            return Err(if self.expect_null {
                format!("Value expected to be null, but found '{shown}'")
            } else if self.regex {
                format!(
                    "Value expected to match regexp '{expected}', but it did not match: '{shown}'"
                )
            } else {
                format!("Value expected to be '{expected}', but found '{shown}'")
            });
        }
        Err(if self.expect_null {
            format!(
                "Value in json path '{}' expected to be null, but found '{shown}'",
                self.path_text
            )
        } else if self.regex {
            format!(
                "Value in json path '{}' expected to match regexp '{expected}', but it did not match: '{shown}'",
                self.path_text
            )
        } else {
            format!(
                "Value in json path '{}' expected to be '{expected}', but found '{shown}'",
                self.path_text
            )
        })
    }

    fn equals(&self, value: &Value, expected: &str) -> bool {
        if self.regex {
            let text = object_text(value);
            return match &self.expected_regex {
                Some(regex) => regex.is_match(&text).unwrap_or(false),
                None => Regex::new(&format!("^(?:{expected})$"))
                    .and_then(|r| r.is_match(&text))
                    .unwrap_or(false),
            };
        }
        if self.plugin {
            // The plugin compares printed text, and decimals as numbers.
            return match value {
                Value::Number(n) if !(n.is_i64() || n.is_u64()) => expected
                    .trim()
                    .parse::<f64>()
                    .is_ok_and(|wanted| n.as_f64() == Some(wanted)),
                _ => object_text(value) == expected,
            };
        }
        let wanted = serde_json::from_str::<Value>(expected)
            .unwrap_or_else(|_| Value::String(expected.trim().to_string()));
        &wanted == value
    }
}

impl Assertion for JsonPathAssertion {
    fn apply(&self, result: &mut SampleResult, cx: &mut EvalContext<'_>) {
        let body = utf8_text(&result.response_data);
        let mut verdict = AssertionResult {
            name: self.name.clone(),
            ..AssertionResult::default()
        };
        if body.is_empty() {
            verdict.failure = true;
            verdict.failure_message = Some(RESPONSE_WAS_NULL.to_string());
        } else {
            let expected = self.expected.eval(cx);
            let index = json_index(result);
            match (
                self.check(&body, index.as_ref().as_ref(), &expected),
                self.invert,
            ) {
                (Err(message), false) => {
                    verdict.failure = true;
                    verdict.failure_message = Some(message);
                }
                (Ok(()), true) => {
                    verdict.failure = true;
                    verdict.failure_message = Some(if !self.validate {
                        format!("Failed that JSONPath not exists: {}", self.path_text)
                    } else if self.expect_null {
                        format!("Failed that JSONPath {} not matches null", self.path_text)
                    } else {
                        format!(
                            "Failed that JSONPath {} not matches {expected}",
                            self.path_text
                        )
                    });
                }
                _ => {}
            }
        }
        let ok = result.success && !verdict.failure;
        result.set_success(ok);
        result.assertions.push(verdict);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    fn assertion(props: Vec<crate::jmx::Property>) -> JsonPathAssertion {
        let el = element("JSONPathAssertion", "J", props);
        with_cx(&el, JsonPathAssertion::build)
    }

    fn verdict(a: &JsonPathAssertion, body: &str) -> Option<String> {
        let mut result = sample(1);
        result.response_data = body.as_bytes().to_vec();
        result.set_success(true);
        run(a, &mut result);
        result.assertions[0]
            .failure_message
            .clone()
            .filter(|_| result.assertions[0].failure)
    }

    const DOC: &str = r#"{"a":{"b":1.5,"s":"x"},"list":[1,2],"n":null}"#;

    #[test]
    fn existence_and_messages() {
        let a = assertion(vec![str_prop("JSON_PATH", "$.a.b")]);
        assert_eq!(verdict(&a, DOC), None);
        let a = assertion(vec![str_prop("JSON_PATH", "$.a.nope")]);
        assert_eq!(
            verdict(&a, DOC).as_deref(),
            Some("No results for path: $['a']['nope']")
        );
        let a = assertion(vec![str_prop("JSON_PATH", "$.x.y")]);
        assert_eq!(
            verdict(&a, DOC).as_deref(),
            Some("Missing property in path $['x']")
        );
        assert_eq!(verdict(&a, "").as_deref(), Some("Response was null"));
        let a = assertion(vec![str_prop("JSON_PATH", "$..zzz")]);
        assert!(verdict(&a, DOC)
            .unwrap()
            .starts_with("JSONPath '$..zzz' is indefinite"));
    }

    #[test]
    fn values_regex_equality_null_and_invert() {
        let value = |path: &str, expected: &str, regex: bool| {
            assertion(vec![
                str_prop("JSON_PATH", path),
                str_prop("EXPECTED_VALUE", expected),
                bool_prop("JSONVALIDATION", true),
                bool_prop("ISREGEX", regex),
            ])
        };
        assert_eq!(verdict(&value("$.a.b", "1.5", false), DOC), None);
        assert_eq!(verdict(&value("$.a.b", "1\\.\\d", true), DOC), None);
        assert_eq!(verdict(&value("$.list[*]", "2", false), DOC), None);
        assert_eq!(verdict(&value("$.a.s", "x", false), DOC), None);
        assert_eq!(
            verdict(&value("$.a.b", "2", false), DOC).as_deref(),
            Some("Value in json path '$.a.b' expected to be '2', but found '1.5'")
        );
        assert_eq!(
            verdict(&value("$.a.s", "y.*", true), DOC).as_deref(),
            Some("Value in json path '$.a.s' expected to match regexp 'y.*', but it did not match: 'x'")
        );
        let null = assertion(vec![
            str_prop("JSON_PATH", "$.n"),
            bool_prop("JSONVALIDATION", true),
            bool_prop("EXPECT_NULL", true),
        ]);
        assert_eq!(verdict(&null, DOC), None);
        let inverted = assertion(vec![
            str_prop("JSON_PATH", "$.a"),
            bool_prop("INVERT", true),
        ]);
        assert_eq!(
            verdict(&inverted, DOC).as_deref(),
            Some("Failed that JSONPath not exists: $.a")
        );
    }
}
