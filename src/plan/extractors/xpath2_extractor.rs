//! XPath2 Extractor (`XPath2Extractor`, reference §10.7): an XPath 2 expression over the
//! response parsed as namespace-aware XML, prefixes declared in `namespaces` (lines of
//! `prefix=uri`). jmxr evaluates the XPath 1 language plus the XPath 2 parts listed in
//! [`crate::query::xpath_parse`]; an expression outside them is a plan error naming the part.
//!
//! Variables as JMeter's `XPath2Extractor`: `ref` = default, `ref_matchNr` = 0 first;
//! match number `n` keeps the n-th item, 0 a random one, negative all; values are string
//! values (an element's whole text), or with `fragment` the serialised node. As in
//! JMeter, a sample scope evaluates the main sample's response once per sample in scope.
//! A document that is not well-formed adds a failed assertion result.

use std::sync::Arc;

use rand::Rng;

use super::xpath_extractor::{add_failure, match_number, start_extraction, store_matches};
use super::xpath_query::Query;
use super::{Field, Scope};
use crate::expr::Template;
use crate::plan::assertions::saxon_parse_message;
use crate::plan::{BuildContext, PostProcessor, Setting};
use crate::query::xml_dom::{parse_xml, Dom};
use crate::query::xml_load::parse_namespace_lines;
use crate::query::xpath::{format_number, node_string, NodeRef, Value, XPath};
use crate::query::xpath_parse::Version;
use crate::sample::SampleResult;
use crate::user_state::UserState;

pub struct XPath2Extractor {
    name: Arc<str>,
    scope: Scope,
    refname: Template,
    /// `None` for an empty query, which JMeter only logs.
    query: Option<Query>,
    default: Template,
    match_number: Setting,
    fragment: bool,
    namespaces: Vec<(String, String)>,
}

impl XPath2Extractor {
    pub fn build(cx: &mut BuildContext<'_>) -> XPath2Extractor {
        let namespaces = parse_namespace_lines(cx.raw("XPathExtractor2.namespaces").unwrap_or(""));
        let empty = cx
            .raw("XPathExtractor2.xpathQuery")
            .unwrap_or("")
            .is_empty();
        let query = (!empty).then(|| {
            Query::build(
                cx,
                "XPathExtractor2.xpathQuery",
                "",
                Version::Two,
                &namespaces,
            )
        });
        XPath2Extractor {
            name: Arc::from(cx.element.name.as_str()),
            scope: Scope::build(cx),
            refname: cx.template("XPathExtractor2.refname"),
            query,
            default: cx.template("XPathExtractor2.default"),
            match_number: cx.setting("XPathExtractor2.matchNumber", "0"),
            fragment: cx.flag("XPathExtractor2.fragment", false),
            namespaces,
        }
    }

    fn values(
        &self,
        xpath: &XPath,
        text: &str,
        number: i64,
        user: &mut UserState,
    ) -> Result<Vec<Option<String>>, String> {
        let dom = parse_xml(text, true).map_err(|e| saxon_parse_message(&e))?;
        let items = match xpath.evaluate(&dom, &self.namespaces)? {
            Value::Nodes(nodes) => nodes.into_iter().map(Item::Node).collect(),
            Value::Items(values) => values.into_iter().map(Item::Atomic).collect(),
            single => vec![Item::Atomic(single)],
        };
        let render = |item: &Item| Some(item.render(&dom, self.fragment));
        if number < 0 {
            return Ok(items.iter().map(render).collect());
        }
        // JMeter reads item `n` (or a random one for 0) only when it exists.
        let index = match number {
            0 if !items.is_empty() => user.rng.gen_range(0..items.len()),
            n if n >= 1 && n as usize <= items.len() => n as usize - 1,
            _ => return Ok(Vec::new()),
        };
        Ok(vec![render(&items[index])])
    }
}

enum Item {
    Node(NodeRef),
    Atomic(Value),
}

impl Item {
    /// Saxon's `getStringValue()`, or `toString()` for a fragment.
    fn render(&self, dom: &Dom, fragment: bool) -> String {
        match self {
            Item::Node(node) if fragment && node.is_attribute() => {
                let attr = &dom.node(node.node).attrs[node.attr - 1];
                format!("{}=\"{}\"", attr.name.qname, attr.value)
            }
            Item::Node(node) if fragment => dom.serialize_with_namespaces(node.node),
            Item::Node(node) => node_string(dom, *node),
            Item::Atomic(Value::Number(n)) => format_number(*n),
            Item::Atomic(Value::Boolean(b)) => b.to_string(),
            Item::Atomic(Value::String(s)) => s.clone(),
            Item::Atomic(_) => String::new(),
        }
    }
}

impl PostProcessor for XPath2Extractor {
    fn process(&self, result: &mut SampleResult, user: &mut UserState) {
        let (refname, previous) = start_extraction(user, &self.refname, &self.default);
        let number = match_number(&self.match_number, 0, user);
        let Some(query) = &self.query else {
            return store_matches(user, &refname, &[], previous);
        };
        let mut slot = None;
        let xpath = match query.get(&mut user.eval(""), &mut slot) {
            Ok(xpath) => xpath,
            Err(message) => return add_failure(result, &self.name, &message, false),
        };
        let inputs: Vec<String> = match &self.scope {
            Scope::Variable(_) => self
                .scope
                .inputs(result, user, |r| Field::Body.input(r))
                .into_iter()
                .filter(|text| !text.is_empty())
                .map(|text| text.into_owned())
                .collect(),
            scope => {
                let samples = scope.inputs(result, user, |r| Field::Body.input(r)).len();
                let body = String::from_utf8_lossy(&result.response_data).into_owned();
                vec![body; samples]
            }
        };
        let mut matches = Vec::new();
        for text in inputs {
            match self.values(xpath, &text, number, user) {
                Ok(values) => matches.extend(values),
                Err(message) => return add_failure(result, &self.name, &message, false),
            }
        }
        store_matches(user, &refname, &matches, previous);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::extractors::test_support::*;

    const XML: &str = r#"<e xmlns:t="urn:t"><t:F Id="a1"/><t:F Id="b2"><x>in</x></t:F></e>"#;

    fn extractor(props: &[(&str, &str)]) -> XPath2Extractor {
        let el = extractor_element("XPath2Extractor", props);
        with_build(&el, XPath2Extractor::build)
    }

    #[test]
    fn namespaces_match_numbers_and_xpath2_functions() {
        let all = extractor(&[
            ("XPathExtractor2.refname", "id"),
            ("XPathExtractor2.xpathQuery", "//t:F/@Id"),
            ("XPathExtractor2.namespaces", "t=urn:t"),
            ("XPathExtractor2.matchNumber", "-1"),
        ]);
        let mut user = user();
        all.process(&mut body(XML), &mut user);
        assert_eq!(var(&user, "id_matchNr"), Some("2"));
        assert_eq!(var(&user, "id_2"), Some("b2"));
        let upper = extractor(&[
            ("XPathExtractor2.refname", "u"),
            (
                "XPathExtractor2.xpathQuery",
                "//t:F[2]/string(upper-case(.))",
            ),
            ("XPathExtractor2.namespaces", "t=urn:t"),
            ("XPathExtractor2.matchNumber", "1"),
        ]);
        upper.process(&mut body(XML), &mut user);
        assert_eq!(var(&user, "u"), Some("IN"));
        let joined = extractor(&[
            ("XPathExtractor2.refname", "j"),
            ("XPathExtractor2.xpathQuery", "string-join(//*:F/@Id, '+')"),
            ("XPathExtractor2.default", "D"),
        ]);
        joined.process(&mut body(XML), &mut user);
        assert_eq!(var(&user, "j"), Some("a1+b2"));
    }

    #[test]
    fn undeclared_prefix_fails_at_run_time_and_unsupported_constructs_are_plan_errors() {
        let el = extractor_element(
            "XPath2Extractor",
            &[
                ("XPathExtractor2.xpathQuery", "//t:F"),
                ("XPathExtractor2.refname", "v"),
            ],
        );
        let diagnostics = build_diagnostics(&el, |cx| {
            XPath2Extractor::build(cx);
        });
        assert!(diagnostics[0].contains("prefix 't'"), "{diagnostics:?}");
        let (ex, _) = crate::plan::assertions::test_support::build_with_diagnostics(
            &el,
            XPath2Extractor::build,
        );
        let mut result = body(XML);
        ex.process(&mut result, &mut user());
        assert_eq!(
            result.assertions[0].failure_message.as_deref(),
            Some("Namespace prefix 't' has not been declared\nSee log file for further details.")
        );
        let el = extractor_element(
            "XPath2Extractor",
            &[("XPathExtractor2.xpathQuery", "for $f in //F return $f")],
        );
        let diagnostics = build_diagnostics(&el, |cx| {
            XPath2Extractor::build(cx);
        });
        assert!(
            diagnostics[0].contains("'for' expressions"),
            "{diagnostics:?}"
        );
    }
}
