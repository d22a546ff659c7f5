//! XML Assertion (`XMLAssertion`, reference §11.10): the response must be well-formed
//! XML. A malformed one is an error and a failure, as in JMeter.
//!
//! Difference from JMeter: the message comes from jmxr's parser. The commonest cases
//! use Xerces' wording ([`xerces_message`]) (content before the root element, a mismatched end tag, a
//! document cut short, an undefined entity); others keep the parser's own text. DTDs are
//! allowed, as Xerces allows them.

use std::sync::Arc;

use roxmltree::{Document, ParsingOptions};

use crate::plan::{Assertion, BuildContext};
use crate::query::xml_load::xerces_message;
use crate::sample::AssertionResult;
use crate::sample::SampleResult;
use crate::user_state::EvalContext;

use super::RESPONSE_WAS_NULL;

pub struct XmlAssertion {
    name: Arc<str>,
}

impl XmlAssertion {
    pub fn build(cx: &mut BuildContext<'_>) -> XmlAssertion {
        XmlAssertion {
            name: Arc::from(cx.element.name.as_str()),
        }
    }
}

impl Assertion for XmlAssertion {
    fn apply(&self, result: &mut SampleResult, _cx: &mut EvalContext<'_>) {
        let body = String::from_utf8_lossy(&result.response_data);
        let mut verdict = AssertionResult {
            name: self.name.clone(),
            ..AssertionResult::default()
        };
        if body.is_empty() {
            verdict.failure = true;
            verdict.failure_message = Some(RESPONSE_WAS_NULL.to_string());
        } else {
            let options = ParsingOptions {
                allow_dtd: true,
                ..ParsingOptions::default()
            };
            if let Err(error) = Document::parse_with_options(&body, options) {
                verdict.error = true;
                verdict.failure = true;
                verdict.failure_message = Some(xerces_message(&error));
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

    fn check(body: &str) -> Option<String> {
        let el = element("XMLAssertion", "X", vec![]);
        let assertion = with_cx(&el, XmlAssertion::build);
        let mut result = sample(1);
        result.set_success(true);
        result.response_data = body.as_bytes().to_vec();
        run(&assertion, &mut result);
        result.assertions[0].failure_message.clone()
    }

    #[test]
    fn well_formed_passes_and_errors_use_xerces_words() {
        assert_eq!(check("<?xml version=\"1.0\"?><a><b/></a>"), None);
        assert_eq!(
            check("oops").as_deref(),
            Some("Content is not allowed in prolog.")
        );
        assert_eq!(
            check("<a><b></a>").as_deref(),
            Some("The element type \"b\" must be terminated by the matching end-tag \"</b>\".")
        );
        assert_eq!(
            check("<a>").as_deref(),
            Some("XML document structures must start and end within the same entity.")
        );
        assert_eq!(check("").as_deref(), Some("Response was null"));
    }
}
