//! CSS Selector Extractor (`HtmlExtractor`, reference §10.5): elements a selector
//! (jsoup's syntax, see [`crate::query::css_select`]) picks in the response parsed as HTML,
//! giving an attribute's value or the element's text.
//!
//! As JMeter's `HtmlExtractor`: the default is stored first when not empty (or "use
//! empty default"); matches are gathered across the samples in scope, stopping at the
//! n-th for match number `n`; `n` stores the n-th, 0 a random one, negative all of them
//! as `ref_1..` with `ref_matchNr`; leftovers of a previous extraction are removed. The
//! JODD implementation differs only in the text it gives (the raw text, trimmed).

use std::sync::Arc;

use rand::Rng;

use super::{take_match_count, Scope, Source};
use crate::expr::Template;
use crate::plan::response_forms::html_document;
use crate::plan::{BuildContext, PostProcessor, Setting};
use crate::query::css_select::{attribute_value, Selector};
use crate::query::css_text::text;
use crate::query::html_parse::parse_html;
use crate::query::xml_dom::NodeKind;
use crate::sample::SampleResult;
use crate::user_state::UserState;

pub struct CssExtractor {
    scope: Scope,
    refname: Template,
    selector: SelectorSource,
    attribute: Template,
    match_number: Setting,
    default: Template,
    empty_default: bool,
    jodd: bool,
    /// An implementation JMeter does not know: it then extracts nothing.
    unknown_impl: bool,
}

enum SelectorSource {
    Parsed(Selector),
    Dynamic(Template),
    Invalid,
}

impl CssExtractor {
    pub fn build(cx: &mut BuildContext<'_>) -> CssExtractor {
        let expr = cx.template("HtmlExtractor.expr");
        let selector = if !expr.is_constant() {
            SelectorSource::Dynamic(expr)
        } else {
            match Selector::parse(expr.raw()) {
                Ok(selector) => SelectorSource::Parsed(selector),
                Err(err) => {
                    cx.error(format!("invalid CSS selector {:?}: {err}", expr.raw()));
                    SelectorSource::Invalid
                }
            }
        };
        let implementation = cx.raw("HtmlExtractor.extractor_impl").unwrap_or("");
        let unknown_impl = !matches!(implementation, "" | "JSOUP" | "JODD");
        if unknown_impl {
            cx.warn(format!(
                "extractor implementation {implementation:?} is unknown: JMeter then extracts nothing"
            ));
        }
        CssExtractor {
            scope: Scope::build(cx),
            refname: cx.template("HtmlExtractor.refname"),
            jodd: implementation == "JODD",
            selector,
            attribute: cx.template("HtmlExtractor.attribute"),
            match_number: cx.setting("HtmlExtractor.match_number", "0"),
            default: cx.template("HtmlExtractor.default"),
            empty_default: cx.flag("HtmlExtractor.default_empty_value", false),
            unknown_impl,
        }
    }

    /// The values found, at most `number` when it is positive.
    fn matches(
        &self,
        selector: &Selector,
        attribute: &str,
        number: i64,
        result: &SampleResult,
        user: &mut UserState,
    ) -> Vec<String> {
        // A sample's document is shared with the sample's other CSS elements; a
        // variable's text is parsed here (an empty one ends the search).
        let documents =
            self.scope
                .sources(result, user)
                .into_iter()
                .map_while(|source| match source {
                    Source::Sample(sample) => Some(html_document(sample)),
                    Source::Variable(text) if text.is_empty() => None,
                    Source::Variable(text) => Some(Arc::new(parse_html(&text))),
                });
        let limit = if number > 0 {
            number as usize
        } else {
            usize::MAX
        };
        let mut out = Vec::new();
        for document in documents {
            let dom = &document.dom;
            for id in selector.select(dom) {
                if out.len() >= limit {
                    return out;
                }
                out.push(if !attribute.trim().is_empty() {
                    attribute_value(dom, id, attribute)
                } else if self.jodd {
                    raw_text(dom, id)
                } else {
                    text(dom, id)
                });
            }
            if out.len() >= limit {
                break;
            }
        }
        out
    }
}

/// Jodd's `getTextContent()`, trimmed: every descendant text, unchanged.
fn raw_text(dom: &crate::query::xml_dom::Dom, id: usize) -> String {
    dom.descendants(id)
        .filter(|&d| dom.node(d).kind == NodeKind::Text)
        .map(|d| dom.node(d).value.as_str())
        .collect::<String>()
        .trim()
        .to_string()
}

impl PostProcessor for CssExtractor {
    fn process(&self, result: &mut SampleResult, user: &mut UserState) {
        let (refname, number, default, attribute) = {
            let mut cx = user.eval("");
            (
                self.refname.eval(&mut cx),
                self.match_number.i64(&mut cx),
                self.default.eval(&mut cx),
                self.attribute.eval(&mut cx),
            )
        };
        if !default.is_empty() || self.empty_default {
            user.vars.put(refname.clone(), default);
        }
        if self.unknown_impl {
            return;
        }
        let dynamic;
        let selector = match &self.selector {
            SelectorSource::Parsed(selector) => selector,
            SelectorSource::Invalid => return,
            SelectorSource::Dynamic(template) => {
                match Selector::parse(&template.eval(&mut user.eval(""))) {
                    Ok(selector) => {
                        dynamic = selector;
                        &dynamic
                    }
                    // jsoup's parse exception is only logged.
                    Err(_) => return,
                }
            }
        };
        let mut matches = self.matches(selector, &attribute, number, result, user);
        let previous = take_match_count(user, &refname);
        let mut count = 0;
        if number >= 0 {
            let chosen = match number {
                _ if matches.is_empty() || number as usize > matches.len() => None,
                0 => Some(user.rng.gen_range(0..matches.len())),
                n => Some(n as usize - 1),
            };
            if let Some(i) = chosen {
                user.vars.put(refname.clone(), matches.swap_remove(i));
            }
        } else {
            count = matches.len();
            user.vars
                .put(format!("{refname}_matchNr"), count.to_string());
            for (i, value) in matches.into_iter().enumerate() {
                user.vars.put(format!("{refname}_{}", i + 1), value);
            }
        }
        for i in count + 1..=previous {
            user.vars.remove(&format!("{refname}_{i}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::extractors::test_support::*;

    fn extractor(props: &[(&str, &str)]) -> CssExtractor {
        let el = extractor_element("HtmlExtractor", props);
        with_build(&el, CssExtractor::build)
    }

    const PAGE: &str =
        r#"<ul><li><a href="/1">One</a></li><li><a href="/2">Two  <b>2</b></a></li></ul>"#;

    #[test]
    fn attributes_texts_match_numbers_and_defaults() {
        let all = extractor(&[
            ("HtmlExtractor.refname", "h"),
            ("HtmlExtractor.expr", "li > a"),
            ("HtmlExtractor.attribute", "href"),
            ("HtmlExtractor.match_number", "-1"),
        ]);
        let mut user = user();
        all.process(&mut body(PAGE), &mut user);
        assert_eq!(var(&user, "h_matchNr"), Some("2"));
        assert_eq!(var(&user, "h_2"), Some("/2"));
        let second = extractor(&[
            ("HtmlExtractor.refname", "t"),
            ("HtmlExtractor.expr", "a"),
            ("HtmlExtractor.match_number", "2"),
        ]);
        second.process(&mut body(PAGE), &mut user);
        assert_eq!(var(&user, "t"), Some("Two 2"));
        let missing = extractor(&[
            ("HtmlExtractor.refname", "m"),
            ("HtmlExtractor.expr", "a:contains(three)"),
            ("HtmlExtractor.match_number", "1"),
            ("HtmlExtractor.default", "NONE"),
        ]);
        missing.process(&mut body(PAGE), &mut user);
        assert_eq!(var(&user, "m"), Some("NONE"));
        all.process(&mut body("<p/>"), &mut user);
        assert_eq!(var(&user, "h_matchNr"), Some("0"));
        assert_eq!(var(&user, "h_1"), None);
    }

    #[test]
    fn invalid_selector_is_a_plan_error() {
        let el = extractor_element("HtmlExtractor", &[("HtmlExtractor.expr", "a:bogus(1)")]);
        let diagnostics = build_diagnostics(&el, |cx| {
            CssExtractor::build(cx);
        });
        assert!(
            diagnostics[0].contains("invalid CSS selector"),
            "{diagnostics:?}"
        );
    }
}
