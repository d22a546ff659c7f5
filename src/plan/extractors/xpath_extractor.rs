//! XPath Extractor (`XPathExtractor`, reference §10.6): XPath 1.0 over the response
//! parsed as XML, or as HTML when `tolerant` (see [`crate::query::xml_load`]).
//!
//! Variables follow JMeter's `XPathExtractor.process`: `ref` is first set to the default
//! (even an empty one) and `ref_matchNr` to 0; then every selected value is collected
//! (match number `n` keeps the n-th node of each document, 0 a random one, negative all),
//! `ref` takes the first, `ref_1..` each, and leftovers of a previous, longer extraction
//! are removed. A node's value is JMeter's: for an element the data of its first child
//! (nothing when that child is an element), for others their own value; with
//! `fragment` an element is serialised instead. A document that does not parse, or an
//! expression that fails (an unbound prefix), adds a failed assertion result to the
//! sample; a Tidy error (with `report_errors`) also fails the sample.

use std::sync::Arc;

use rand::Rng;

use super::xpath_query::Query;
use super::{take_match_count, Field, Scope, Source};
use crate::expr::Template;
use crate::plan::response_forms::xml_document;
use crate::plan::{BuildContext, PostProcessor, Setting};
use crate::query::xml_dom::Dom;
use crate::query::xml_load::{configured_namespaces, load, LoadError, ParseOptions};
use crate::query::xpath::{format_number, Value, XPath};
use crate::query::xpath_parse::Version;
use crate::sample::AssertionResult;
use crate::sample::SampleResult;
use crate::user_state::UserState;

pub struct XPathExtractor {
    name: Arc<str>,
    scope: Scope,
    refname: Template,
    query: Query,
    default: Template,
    match_number: Setting,
    fragment: bool,
    options: ParseOptions,
    namespaces: Vec<(String, String)>,
}

impl XPathExtractor {
    pub fn build(cx: &mut BuildContext<'_>) -> XPathExtractor {
        XPathExtractor {
            name: Arc::from(cx.element.name.as_str()),
            scope: Scope::build(cx),
            refname: cx.template("XPathExtractor.refname"),
            query: Query::build(cx, "XPathExtractor.xpathQuery", "", Version::One, &[]),
            default: cx.template("XPathExtractor.default"),
            match_number: cx.setting("XPathExtractor.matchNumber", "-1"),
            fragment: cx.flag("XPathExtractor.fragment", false),
            options: ParseOptions {
                tolerant: cx.flag("XPathExtractor.tolerant", false),
                namespace: cx.flag("XPathExtractor.namespace", false),
                report_errors: cx.flag("XPathExtractor.report_errors", false),
            },
            namespaces: configured_namespaces(cx.properties),
        }
    }

    /// Every value the expression selects in `document`, for match number `number`.
    fn values(
        &self,
        xpath: &XPath,
        document: &Result<Dom, LoadError>,
        number: i64,
        user: &mut UserState,
    ) -> Result<Vec<Option<String>>, Failure> {
        let dom = document.as_ref().map_err(|e| Failure::Load(e.clone()))?;
        let value = xpath
            .evaluate(dom, &self.namespaces)
            .map_err(Failure::Expression)?;
        Ok(selected_values(dom, value, number, self.fragment, user))
    }
}

/// What stops an extraction, and how JMeter reports it.
enum Failure {
    Load(LoadError),
    Expression(String),
}

/// The values JMeter's `putValuesForXPathInList` collects from one document.
pub fn selected_values(
    dom: &Dom,
    value: Value,
    number: i64,
    fragment: bool,
    user: &mut UserState,
) -> Vec<Option<String>> {
    match value {
        Value::Nodes(nodes) => {
            let wanted = if number == 0 && !nodes.is_empty() {
                user.rng.gen_range(0..nodes.len()) as i64 + 1
            } else {
                number
            };
            nodes
                .iter()
                .enumerate()
                .filter(|(i, _)| wanted < 0 || wanted == *i as i64 + 1)
                .map(|(_, &node)| crate::query::xpath::node_value(dom, node, fragment))
                .collect()
        }
        Value::Boolean(b) => vec![Some(b.to_string())],
        Value::Number(n) => vec![Some(format_number(n))],
        Value::String(s) => vec![Some(s)],
        Value::Items(items) => items
            .into_iter()
            .map(|item| match item {
                Value::Number(n) => Some(format_number(n)),
                Value::Boolean(b) => Some(b.to_string()),
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect(),
    }
}

/// Stores JMeter's extractor variables for `matches` (`None`: a match with no value).
pub fn store_matches(
    user: &mut UserState,
    refname: &str,
    matches: &[Option<String>],
    previous: usize,
) {
    user.vars
        .put(format!("{refname}_matchNr"), matches.len().to_string());
    if let Some(Some(first)) = matches.first() {
        user.vars.put(refname.to_string(), first.clone());
    }
    for (i, value) in matches.iter().enumerate() {
        if let Some(value) = value {
            user.vars.put(format!("{refname}_{}", i + 1), value.clone());
        }
    }
    user.vars
        .remove(&format!("{refname}_{}", matches.len() + 1));
    for i in matches.len() + 2..=previous {
        user.vars.remove(&format!("{refname}_{i}"));
    }
}

/// JMeter's `addAssertionFailure`: a failed result named after the extractor.
pub fn add_failure(result: &mut SampleResult, name: &Arc<str>, message: &str, fail_sample: bool) {
    result.assertions.push(AssertionResult {
        name: name.clone(),
        failure: true,
        error: false,
        failure_message: Some(format!("{message}\nSee log file for further details.")),
    });
    if fail_sample {
        result.set_success(false);
    }
}

/// The texts to read: a variable's value (nothing when unset or empty), else the bodies
/// of the samples in scope.
pub fn scoped_inputs(scope: &Scope, result: &SampleResult, user: &mut UserState) -> Vec<String> {
    let inputs = scope.inputs(result, user, |r| Field::Body.input(r));
    let from_variable = matches!(scope, Scope::Variable(_));
    inputs
        .into_iter()
        .filter(|text| !(from_variable && text.is_empty()))
        .map(|text| text.into_owned())
        .collect()
}

/// JMeter's `getPropertyAsInt(name, default)`: an empty value is the default.
/// What both XPath extractors do before matching: the default value goes in, the last
/// sample's `_matchNr` and `_1` are cleared. Returns the variable name and how many
/// numbered matches the last sample left (for `store_matches` to remove).
pub fn start_extraction(
    user: &mut UserState,
    refname: &Template,
    default: &Template,
) -> (String, usize) {
    let (refname, default) = {
        let mut cx = user.eval("");
        (refname.eval(&mut cx), default.eval(&mut cx))
    };
    user.vars.put(refname.clone(), default);
    let previous = take_match_count(user, &refname);
    user.vars.put(format!("{refname}_matchNr"), "0");
    user.vars.remove(&format!("{refname}_1"));
    (refname, previous)
}

pub fn match_number(setting: &Setting, absent: i64, user: &mut UserState) -> i64 {
    let text = setting.text(&mut user.eval(""));
    if text.is_empty() {
        absent
    } else {
        text.trim().parse().unwrap_or(0)
    }
}

impl PostProcessor for XPathExtractor {
    fn process(&self, result: &mut SampleResult, user: &mut UserState) {
        let (refname, previous) = start_extraction(user, &self.refname, &self.default);
        let number = match_number(&self.match_number, -1, user);
        let mut slot = None;
        let xpath = match self.query.get(&mut user.eval(""), &mut slot) {
            Ok(xpath) => xpath,
            Err(message) => return add_failure(result, &self.name, &message, false),
        };
        let mut matches = Vec::new();
        // A sample's document is shared with the sample's other XPath elements; a
        // variable's text is parsed here.
        let documents: Vec<_> = match self.scope {
            Scope::Variable(_) => scoped_inputs(&self.scope, result, user)
                .iter()
                .map(|text| Arc::new(load(text, self.options)))
                .collect(),
            _ => self
                .scope
                .sources(result, user)
                .into_iter()
                .filter_map(|source| match source {
                    Source::Sample(sample) => Some(xml_document(sample, self.options)),
                    Source::Variable(_) => None,
                })
                .collect(),
        };
        for document in &documents {
            match self.values(xpath, document, number, user) {
                Ok(values) => matches.extend(values),
                Err(Failure::Load(error @ LoadError::Tidy { .. })) => {
                    return add_failure(result, &self.name, &error.message(), true);
                }
                Err(Failure::Load(error)) => {
                    return add_failure(result, &self.name, &error.message(), false)
                }
                Err(Failure::Expression(message)) => {
                    return add_failure(result, &self.name, &message, false)
                }
            }
        }
        store_matches(user, &refname, &matches, previous);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::extractors::test_support::*;

    fn extractor(props: &[(&str, &str)]) -> XPathExtractor {
        let el = extractor_element("XPathExtractor", props);
        with_build(&el, XPathExtractor::build)
    }

    const XML: &str = r#"<r><a id="1">one</a><a id="2"><b>two</b></a><a id="3">three<i/></a></r>"#;

    #[test]
    fn all_matches_first_child_values_and_leftovers() {
        let ex = extractor(&[
            ("XPathExtractor.refname", "v"),
            ("XPathExtractor.xpathQuery", "//a"),
            ("XPathExtractor.default", "NF"),
        ]);
        let mut user = user();
        ex.process(&mut body(XML), &mut user);
        assert_eq!(var(&user, "v_matchNr"), Some("3"));
        assert_eq!(var(&user, "v"), Some("one"));
        assert_eq!(var(&user, "v_1"), Some("one"));
        // An element whose first child is an element has no value.
        assert_eq!(var(&user, "v_2"), None);
        assert_eq!(var(&user, "v_3"), Some("three"));
        ex.process(&mut body("<r/>"), &mut user);
        assert_eq!(var(&user, "v_matchNr"), Some("0"));
        assert_eq!(var(&user, "v"), Some("NF"));
        assert_eq!(var(&user, "v_3"), None);
    }

    #[test]
    fn nth_match_fragment_and_scalar_results() {
        let ex = extractor(&[
            ("XPathExtractor.refname", "v"),
            ("XPathExtractor.xpathQuery", "//a"),
            ("XPathExtractor.matchNumber", "2"),
            ("XPathExtractor.fragment", "true"),
        ]);
        let mut user = user();
        ex.process(&mut body(XML), &mut user);
        assert_eq!(var(&user, "v"), Some(r#"<a id="2"><b>two</b></a>"#));
        assert_eq!(var(&user, "v_matchNr"), Some("1"));
        let count = extractor(&[
            ("XPathExtractor.refname", "n"),
            ("XPathExtractor.xpathQuery", "count(//a)"),
        ]);
        count.process(&mut body(XML), &mut user);
        assert_eq!(var(&user, "n"), Some("3"));
    }

    #[test]
    fn malformed_xml_adds_a_failed_result_but_tolerant_parses_html() {
        let ex = extractor(&[
            ("XPathExtractor.refname", "v"),
            ("XPathExtractor.xpathQuery", "//p"),
        ]);
        let mut user = user();
        let mut result = body("<p>one<br><p>two");
        result.set_success(true);
        ex.process(&mut result, &mut user);
        assert!(result.success);
        assert_eq!(
            result.assertions[0].failure_message.as_deref(),
            Some("XML document structures must start and end within the same entity.\nSee log file for further details.")
        );
        let tolerant = extractor(&[
            ("XPathExtractor.refname", "v"),
            ("XPathExtractor.xpathQuery", "//p"),
            ("XPathExtractor.tolerant", "true"),
        ]);
        tolerant.process(&mut body("<p>one<br><p>two"), &mut user);
        assert_eq!(var(&user, "v_matchNr"), Some("2"));
        assert_eq!(var(&user, "v_2"), Some("two"));
    }

    #[test]
    fn invalid_expression_is_a_plan_error() {
        let el = extractor_element("XPathExtractor", &[("XPathExtractor.xpathQuery", "//a[")]);
        let diagnostics = build_diagnostics(&el, |cx| {
            XPathExtractor::build(cx);
        });
        assert!(
            diagnostics[0].contains("invalid XPath expression"),
            "{diagnostics:?}"
        );
    }
}
