//! JSON JMESPath Extractor (`JMESPathExtractor`, reference §10.3): a JMESPath
//! expression over the JSON responses in scope (or a variable), into a variable.
//!
//! An array result is split into its elements and a `null` result contributes nothing;
//! text is stored without quotes, anything else as compact JSON. Match numbers, the
//! default and `name_matchNr` / `name_1..` follow the JSON Extractor, as in JMeter. The
//! expression is compiled at plan time; an invalid one is a plan error.

use std::sync::Arc;

use rand::Rng;
use serde_json::Value;

use super::{utf8_text, Scope, Source};
use crate::expr::Template;
use crate::plan::response_forms::json_tree;
use crate::plan::{BuildContext, PostProcessor};
use crate::query::jmespath::JmesPath;
use crate::sample::SampleResult;
use crate::user_state::UserState;

pub struct JmesPathExtractor {
    scope: Scope,
    refname: Template,
    expression: Template,
    compiled: Option<JmesPath>,
    match_number: Template,
    default: Template,
}

impl JmesPathExtractor {
    pub fn build(cx: &mut BuildContext<'_>) -> JmesPathExtractor {
        let expression = cx.template("JMESExtractor.jmesPathExpr");
        let mut compiled = None;
        if expression.is_constant() {
            match JmesPath::compile(expression.raw().trim()) {
                Ok(path) => compiled = Some(path),
                Err(err) => cx.error(format!(
                    "invalid JMESPath expression {:?}: {err}",
                    expression.raw()
                )),
            }
        }
        JmesPathExtractor {
            scope: Scope::build(cx),
            refname: cx.template("JMESExtractor.referenceName"),
            expression,
            compiled,
            match_number: cx.template("JMESExtractor.matchNumber"),
            default: cx.template("JMESExtractor.defaultValue"),
        }
    }

    /// The texts found in every response; `None` when one is not JSON.
    fn extract(&self, path: &JmesPath, documents: &[JsonTree]) -> Option<Vec<String>> {
        let mut out = Vec::new();
        for document in documents {
            let document = document.as_ref().as_ref().ok()?;
            match path.search(document) {
                Value::Null => {}
                Value::Array(items) => out.extend(items.iter().map(text)),
                other => out.push(text(&other)),
            }
        }
        Some(out)
    }
}

/// A response as a JSON tree, or why it is not JSON.
type JsonTree = Arc<Result<Value, String>>;

fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl PostProcessor for JmesPathExtractor {
    fn process(&self, result: &mut SampleResult, user: &mut UserState) {
        let (name, default, number, expression) = {
            let mut cx = user.eval("");
            (
                self.refname.eval(&mut cx),
                self.default.eval(&mut cx),
                self.match_number.eval(&mut cx),
                self.expression.eval(&mut cx),
            )
        };
        let number: i64 = number.trim().parse().unwrap_or(0);
        user.vars.remove(&format!("{name}_matchNr"));
        let mut i = 1;
        while user.vars.remove(&format!("{name}_{i}")).is_some() {
            i += 1;
        }
        // A sample's tree is shared with the sample's other elements; a variable's text
        // is parsed here.
        let responses: Vec<JsonTree> =
            self.scope
                .sources(result, user)
                .into_iter()
                .filter_map(|source| match source {
                    Source::Sample(sample) => (!utf8_text(&sample.response_data).trim().is_empty())
                        .then(|| json_tree(sample)),
                    Source::Variable(text) => Some(Arc::new(
                        serde_json::from_str(&text).map_err(|e| e.to_string()),
                    )),
                })
                .collect();
        if responses.is_empty() {
            user.vars.put(name, default);
            return;
        }
        let compiled;
        let path = match &self.compiled {
            Some(path) => Some(path),
            None => {
                compiled = JmesPath::compile(expression.trim()).ok();
                compiled.as_ref()
            }
        };
        let Some(values) = path.and_then(|p| self.extract(p, &responses)) else {
            user.vars.put(name, default);
            return;
        };
        let count = values.len();
        match count {
            0 => user.vars.put(name.clone(), default),
            1 if number < 0 => user.vars.put(format!("{name}_1"), values[0].clone()),
            1 => user.vars.put(name.clone(), values[0].clone()),
            _ if number < 0 => {
                for (i, value) in values.iter().enumerate() {
                    user.vars.put(format!("{name}_{}", i + 1), value.clone());
                }
            }
            _ if number == 0 => {
                let i = user.rng.gen_range(0..count);
                user.vars.put(name.clone(), values[i].clone());
            }
            _ if number as usize > count => user.vars.put(name.clone(), default),
            _ => user
                .vars
                .put(name.clone(), values[number as usize - 1].clone()),
        }
        user.vars.put(format!("{name}_matchNr"), count.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::extractors::test_support::*;

    #[test]
    fn arrays_split_into_matches_and_defaults_apply() {
        let el = extractor_element(
            "JMESPathExtractor",
            &[
                ("JMESExtractor.referenceName", "v"),
                ("JMESExtractor.jmesPathExpr", "items[?ok].id"),
                ("JMESExtractor.matchNumber", "-1"),
                ("JMESExtractor.defaultValue", "D"),
            ],
        );
        let ex = with_build(&el, JmesPathExtractor::build);
        let mut user = user();
        ex.process(
            &mut body(
                r#"{"items":[{"id":"a","ok":true},{"id":2,"ok":false},{"id":{"x":1},"ok":true}]}"#,
            ),
            &mut user,
        );
        assert_eq!(var(&user, "v_matchNr"), Some("2"));
        assert_eq!(var(&user, "v_1"), Some("a"));
        assert_eq!(var(&user, "v_2"), Some(r#"{"x":1}"#));
        ex.process(&mut body("not json"), &mut user);
        assert_eq!(var(&user, "v"), Some("D"));
        assert_eq!(var(&user, "v_1"), None);
    }
}
