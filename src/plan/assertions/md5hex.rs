//! MD5Hex Assertion (`MD5HexAssertion`, reference §11.8): the MD5 of the response body
//! must equal the expected hex string (case ignored). Messages are JMeter's.

use std::sync::Arc;

use crate::expr::hashes::{digest, hex};
use crate::expr::Template;
use crate::plan::{Assertion, BuildContext};
use crate::sample::AssertionResult;
use crate::sample::SampleResult;
use crate::user_state::EvalContext;

use super::RESPONSE_WAS_NULL;

pub struct Md5HexAssertion {
    name: Arc<str>,
    expected: Template,
}

impl Md5HexAssertion {
    pub fn build(cx: &mut BuildContext<'_>) -> Md5HexAssertion {
        Md5HexAssertion {
            name: Arc::from(cx.element.name.as_str()),
            expected: cx.template("MD5HexAssertion.size"),
        }
    }

    fn failure(&self, result: &SampleResult, cx: &mut EvalContext<'_>) -> Option<String> {
        if result.response_data.is_empty() {
            return Some(RESPONSE_WAS_NULL.to_string());
        }
        let expected = self.expected.eval(cx);
        if expected.is_empty() {
            return Some("MD5Hex to test against is empty".to_string());
        }
        let actual = hex(&digest("MD5", &result.response_data).unwrap_or_default());
        (!actual.eq_ignore_ascii_case(&expected)).then(|| {
            format!("Error asserting MD5 sum : got {actual} but should have been {expected}")
        })
    }
}

impl Assertion for Md5HexAssertion {
    fn apply(&self, result: &mut SampleResult, cx: &mut EvalContext<'_>) {
        let message = self.failure(result, cx);
        let failed = message.is_some();
        result.set_success(result.success && !failed);
        result.assertions.push(AssertionResult {
            name: self.name.clone(),
            failure: failed,
            error: false,
            failure_message: message,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    fn check(expected: &str, body: &str) -> Option<String> {
        let el = element(
            "MD5HexAssertion",
            "M",
            vec![str_prop("MD5HexAssertion.size", expected)],
        );
        let assertion = with_cx(&el, Md5HexAssertion::build);
        let mut result = sample(1);
        result.set_success(true);
        result.response_data = body.as_bytes().to_vec();
        run(&assertion, &mut result);
        assert_eq!(
            result.success,
            result.assertions[0].failure_message.is_none()
        );
        result.assertions[0].failure_message.clone()
    }

    #[test]
    fn compares_the_body_digest_ignoring_case() {
        assert_eq!(check("900150983CD24FB0D6963F7D28E17F72", "abc"), None);
        assert_eq!(
            check("00", "abc").as_deref(),
            Some("Error asserting MD5 sum : got 900150983cd24fb0d6963f7d28e17f72 but should have been 00")
        );
        assert_eq!(
            check("", "abc").as_deref(),
            Some("MD5Hex to test against is empty")
        );
        assert_eq!(check("00", "").as_deref(), Some("Response was null"));
    }
}
