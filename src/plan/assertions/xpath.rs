//! XPath Assertion (`XPathAssertion`, reference §11.6) and XPath2 Assertion
//! (`XPath2Assertion`, §11.7): the expression must select at least one node, or
//! evaluate to true; "negate" inverts. Messages are those of JMeter's `XPathUtil`
//! (`computeAssertionResult`, `computeAssertionResultUsingSaxon`).
//!
//! The XPath 1 assertion parses as JMeter's XPath Extractor does (XML, or HTML when
//! tolerant; see `extractors::xml_load`); the XPath2 one always parses namespace-aware
//! XML and resolves prefixes only from its `XPath.namespaces` setting, as Saxon does.

use std::borrow::Cow;
use std::sync::Arc;

use super::{Check, Scope, RESPONSE_WAS_NULL};
use crate::plan::extractors::utf8_text;
use crate::plan::extractors::xpath_query::Query;
use crate::plan::response_forms::xml_document;
use crate::plan::{Assertion, BuildContext};
use crate::query::xml_dom::{parse_xml, Dom};
use crate::query::xml_load::{
    configured_namespaces, load, parse_namespace_lines, LoadError, ParseOptions,
};
use crate::query::xpath::{Value, XPath};
use crate::query::xpath_parse::Version;
use crate::sample::AssertionResult;
use crate::sample::SampleResult;
use crate::user_state::EvalContext;

pub struct XPathAssertion {
    name: Arc<str>,
    scope: Scope,
    text: String,
    /// `None` for an empty XPath2 query.
    query: Option<Query>,
    negate: bool,
    version: Version,
    options: ParseOptions,
    namespaces: Vec<(String, String)>,
}

impl XPathAssertion {
    pub fn build(cx: &mut BuildContext<'_>, version: Version) -> XPathAssertion {
        let text = cx.raw("XPath.xpath").unwrap_or("/").to_string();
        let namespaces = match version {
            Version::One => configured_namespaces(cx.properties),
            Version::Two => parse_namespace_lines(cx.raw("XPath.namespaces").unwrap_or("")),
        };
        // JMeter only logs an empty XPath2 query, and the assertion passes.
        let query = (version == Version::One || !text.is_empty())
            .then(|| Query::build(cx, "XPath.xpath", "/", version, &namespaces));
        XPathAssertion {
            name: Arc::from(cx.element.name.as_str()),
            scope: Scope::build(cx),
            text,
            query,
            negate: cx.flag("XPath.negate", false),
            version,
            options: ParseOptions {
                tolerant: cx.flag("XPath.tolerant", false),
                namespace: cx.flag("XPath.namespace", false),
                report_errors: cx.flag("XPath.report_errors", false),
            },
            namespaces,
        }
    }

    fn result(&self, failure: bool, error: bool, message: impl Into<String>) -> AssertionResult {
        AssertionResult {
            name: self.name.clone(),
            failure,
            error,
            failure_message: Some(message.into()),
        }
    }

    /// JMeter's `XPathAssertion.getResult` after the input was read.
    fn judge_xpath1(&self, xpath: &XPath, document: &Result<Dom, LoadError>) -> AssertionResult {
        let dom = match document {
            Ok(dom) => dom,
            Err(LoadError::Xml(message)) => {
                return self.result(false, true, format!("SAXException: {message}"))
            }
            Err(tidy) => return self.result(false, true, tidy.message()),
        };
        if dom.document_element().is_none() {
            return self.result(false, true, "Document is null, probably not parsable");
        }
        let text = &self.text;
        match xpath.evaluate(dom, &self.namespaces) {
            Err(message) => self.expression_failed(&message),
            Ok(Value::Nodes(nodes)) if nodes.is_empty() => {
                self.result(!self.negate, false, format!("No Nodes Matched {text}"))
            }
            Ok(Value::Nodes(_)) if self.negate => self.result(
                true,
                false,
                "Specified XPath was found... Turn off negate if this is not desired",
            ),
            Ok(Value::Nodes(_)) => self.result(false, false, ""),
            Ok(Value::Boolean(found)) => self.boolean_result(found),
            Ok(_) => self.result(true, false, format!("Cannot understand: {text}")),
        }
    }

    /// JMeter's `computeAssertionResultUsingSaxon`.
    fn judge_xpath2(&self, xpath: &XPath, input: &str) -> AssertionResult {
        let dom = match parse_xml(input, true) {
            Ok(dom) => dom,
            Err(error) => return self.expression_failed(&saxon_parse_message(&error)),
        };
        let found = match xpath.evaluate(&dom, &self.namespaces) {
            Ok(Value::Boolean(b)) => b,
            Ok(Value::Nodes(nodes)) => !nodes.is_empty(),
            Ok(Value::Items(items)) => !items.is_empty(),
            Ok(_) => true,
            Err(message) => return self.expression_failed(&message),
        };
        self.boolean_result(found)
    }

    /// An expression that cannot be evaluated: an error, worded as each version's.
    fn expression_failed(&self, message: &str) -> AssertionResult {
        let text = &self.text;
        self.result(
            false,
            true,
            match self.version {
                Version::One => format!("TransformerException: {message} for: {text}"),
                Version::Two => format!(
                    "Exception occurred computing assertion with XPath:{text}, error:{message}"
                ),
            },
        )
    }

    fn boolean_result(&self, found: bool) -> AssertionResult {
        let text = &self.text;
        let message = if self.negate {
            format!("Nodes Matched for {text}")
        } else {
            format!("No Nodes Matched for {text}")
        };
        self.result(found == self.negate, false, message)
    }
}

/// How Saxon reports a document that is not well-formed (the SAX exception's text).
pub fn saxon_parse_message(error: &roxmltree::Error) -> String {
    let pos = error.pos();
    format!(
        "org.xml.sax.SAXParseException; lineNumber: {}; columnNumber: {}; {}",
        pos.row,
        pos.col,
        crate::query::xml_load::xerces_message(error)
    )
}

impl Check for XPathAssertion {
    fn name(&self) -> &Arc<str> {
        &self.name
    }

    fn check(&self, sample: &mut SampleResult, cx: &mut EvalContext<'_>) -> AssertionResult {
        let from_variable = self.scope.variable_name(cx).map(|name| {
            cx.vars
                .get(&name)
                .filter(|v| !v.is_empty())
                .map(str::to_string)
        });
        let reads_body = from_variable.is_none();
        let input: Option<Cow<'_, str>> = match from_variable {
            Some(text) => text.map(Cow::Owned),
            None if self.version == Version::One && sample.response_data.is_empty() => None,
            None => Some(utf8_text(&sample.response_data)),
        };
        let Some(input) = input else {
            return self.result(true, false, RESPONSE_WAS_NULL);
        };
        let Some(query) = &self.query else {
            return self.result(false, false, "");
        };
        let mut slot = None;
        let xpath = match query.get(cx, &mut slot) {
            Ok(xpath) => xpath,
            Err(message) => return self.expression_failed(&message),
        };
        let mut result = match self.version {
            // The body's document is shared with the sample's other XPath elements.
            Version::One if reads_body => {
                self.judge_xpath1(xpath, &xml_document(sample, self.options))
            }
            Version::One => self.judge_xpath1(xpath, &load(&input, self.options)),
            Version::Two => self.judge_xpath2(xpath, &input),
        };
        // JMeter leaves its message on a passing result too (a negated miss, any
        // boolean), and `.jtl` files show it; an empty one is no message.
        if result.failure_message.as_deref() == Some("") {
            result.failure_message = None;
        }
        result
    }
}

impl Assertion for XPathAssertion {
    fn apply(&self, result: &mut SampleResult, cx: &mut EvalContext<'_>) {
        self.scope.apply(self, result, cx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    fn check(
        version: Version,
        props: Vec<crate::jmx::Property>,
        body: &str,
    ) -> (bool, Option<String>) {
        let el = element("XPathAssertion", "XA", props);
        let assertion = with_cx(&el, |cx| XPathAssertion::build(cx, version));
        let mut result = sample(1);
        result.set_success(true);
        result.response_data = body.as_bytes().to_vec();
        run(&assertion, &mut result);
        (result.success, result.assertions[0].failure_message.clone())
    }

    #[test]
    fn node_sets_booleans_negation_and_messages() {
        let xml = "<r><a/><a/><a/></r>";
        assert_eq!(
            check(Version::One, vec![str_prop("XPath.xpath", "//a")], xml),
            (true, None)
        );
        assert_eq!(
            check(Version::One, vec![str_prop("XPath.xpath", "//b")], xml),
            (false, Some("No Nodes Matched //b".into()))
        );
        assert_eq!(
            check(
                Version::One,
                vec![
                    str_prop("XPath.xpath", "//a"),
                    bool_prop("XPath.negate", true)
                ],
                xml
            ),
            (
                false,
                Some("Specified XPath was found... Turn off negate if this is not desired".into())
            )
        );
        // A passing boolean keeps JMeter's message, which `.jtl` files show.
        assert_eq!(
            check(
                Version::One,
                vec![str_prop("XPath.xpath", "count(//a) > 2")],
                xml
            ),
            (true, Some("No Nodes Matched for count(//a) > 2".into()))
        );
        assert_eq!(
            check(
                Version::One,
                vec![
                    str_prop("XPath.xpath", "//b"),
                    bool_prop("XPath.negate", true)
                ],
                xml
            ),
            (true, Some("No Nodes Matched //b".into()))
        );
        assert_eq!(
            check(
                Version::One,
                vec![str_prop("XPath.xpath", "count(//a) > 5")],
                xml
            ),
            (false, Some("No Nodes Matched for count(//a) > 5".into()))
        );
        assert_eq!(
            check(
                Version::One,
                vec![str_prop("XPath.xpath", "count(//a)")],
                xml
            ),
            (false, Some("Cannot understand: count(//a)".into()))
        );
        assert_eq!(
            check(Version::One, vec![], "oops"),
            (
                false,
                Some("SAXException: Content is not allowed in prolog.".into())
            )
        );
        assert_eq!(
            check(Version::One, vec![], ""),
            (false, Some("Response was null".into()))
        );
    }

    #[test]
    fn xpath2_uses_its_declared_namespaces() {
        let xml = r#"<e xmlns="urn:x"><m>NoError</m></e>"#;
        let props = || {
            vec![
                str_prop("XPath.xpath", "//x:m[text()='NoError']"),
                str_prop("XPath.namespaces", "x=urn:x"),
            ]
        };
        assert_eq!(
            check(Version::Two, props(), xml),
            (
                true,
                Some("No Nodes Matched for //x:m[text()='NoError']".into())
            )
        );
        assert_eq!(
            check(Version::Two, vec![str_prop("XPath.xpath", "//m")], xml),
            (false, Some("No Nodes Matched for //m".into()))
        );
        assert!(
            check(
                Version::Two,
                vec![str_prop(
                    "XPath.xpath",
                    "lower-case(string(/*)) eq 'noerror'"
                )],
                xml
            )
            .0
        );
    }
}
