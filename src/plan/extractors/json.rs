//! JSON Extractor (`JSONPostProcessor`, reference §10.2): JSONPath expressions over the
//! JSON responses in scope, into variables.
//!
//! Names, expressions and defaults are `;`-separated lists split as Java's
//! `String.split` does (names and expressions trimmed and trailing empty items
//! dropped; defaults as JMeter 5.6.3 or a later version splits them, see
//! `default_values`). Constant lists are checked and their paths compiled
//! at plan time: a bad path or lists of different lengths are plan errors. For each
//! expression the previous `name_1..` and `name_matchNr` are removed, the values of all
//! non-blank responses are collected, and JMeter's rules pick what is stored: match
//! number `0` a random value, `n` the n-th (the default past the end), `-1` all of them
//! as `name_1..name_n` (and `name_ALL` joined by `,` with "compute concatenation").
//! A response that is not JSON stores the default.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::sync::Arc;

use rand::Rng;

use super::{utf8_text, Scope, Source};
use crate::expr::Template;
use crate::plan::response_forms::json_index;
use crate::plan::{BuildContext, PostProcessor};
use crate::query::json_tape::TapeIndex;
use crate::query::json_text::extracted_text;
use crate::query::jsonpath::JsonPath;
use crate::sample::SampleResult;
use crate::user_state::UserState;

pub struct JsonExtractor {
    scope: Scope,
    names: Template,
    expressions: Template,
    defaults: Template,
    match_numbers: Template,
    concat: bool,
    /// The compiled paths when the expressions are constant.
    compiled: Option<Vec<JsonPath>>,
}

/// One expression's settings for this sample.
struct Item<'a> {
    name: &'a str,
    default: &'a str,
    number: i64,
}

impl JsonExtractor {
    pub fn build(cx: &mut BuildContext<'_>) -> JsonExtractor {
        let names = cx.template("JSONPostProcessor.referenceNames");
        let expressions = cx.template("JSONPostProcessor.jsonPathExprs");
        let defaults = cx.template("JSONPostProcessor.defaultValues");
        let mut compiled = None;
        if expressions.is_constant() {
            let mut paths = Vec::new();
            for text in java_split(expressions.raw(), true) {
                match JsonPath::compile(&text) {
                    Ok(path) => paths.push(path),
                    Err(err) => cx.error(format!("invalid JSON path {text:?}: {err}")),
                }
            }
            compiled = Some(paths);
            if names.is_constant() && defaults.is_constant() {
                let count = java_split(names.raw(), true).len();
                let paths = java_split(expressions.raw(), true).len();
                if count != paths || default_values(defaults.raw(), count).is_none() {
                    cx.error(format!(
                        "JSON Extractor needs as many names, expressions and default values, separated by ';' (found {count}, {paths} and {})",
                        java_split(defaults.raw(), false).len()
                    ));
                }
            }
        }
        JsonExtractor {
            scope: Scope::build(cx),
            names,
            expressions,
            defaults,
            match_numbers: cx.template("JSONPostProcessor.match_numbers"),
            concat: cx.flag("JSONPostProcessor.compute_concat", false),
            compiled,
        }
    }

    /// The values of `path` in every response; `None` when one is not JSON. The paths of
    /// all the JSON elements of a sample run over one index of its body, built by the
    /// first that needs it: even a path of plain names costs less over the index than a
    /// pass over the text, which must check the whole document.
    fn extract(documents: &[JsonDocument<'_>], path: &JsonPath) -> Option<Vec<Option<String>>> {
        let mut out = Vec::new();
        for document in documents {
            let index = document.index();
            let values = path.select_text_with(&document.text, index.as_ref().as_ref())?;
            out.extend(values.iter().map(extracted_text));
        }
        Some(out)
    }

    fn store(&self, user: &mut UserState, item: &Item<'_>, values: Vec<Option<String>>) {
        let Item {
            name,
            default,
            number,
        } = *item;
        let text = |v: &Option<String>| v.clone().unwrap_or_else(|| default.to_string());
        if values.is_empty() {
            user.vars.put(name, default);
            user.vars.put(format!("{name}_matchNr"), "0");
            if number < 0 && self.concat {
                user.vars.put(format!("{name}_ALL"), "");
            }
            return;
        }
        if number < 0 {
            let texts: Vec<String> = values.iter().map(text).collect();
            for (i, value) in texts.iter().enumerate() {
                user.vars.put(format!("{name}_{}", i + 1), value.clone());
            }
            if self.concat {
                user.vars.put(format!("{name}_ALL"), texts.join(","));
            }
        } else if values.len() == 1 {
            user.vars.put(name, text(&values[0]));
        } else if number == 0 {
            let i = user.rng.gen_range(0..values.len());
            user.vars.put(name, text(&values[i]));
        } else if number as usize > values.len() {
            user.vars.put(name, default);
        } else {
            user.vars.put(name, text(&values[number as usize - 1]));
        }
        if number != 0 {
            user.vars
                .put(format!("{name}_matchNr"), values.len().to_string());
        }
    }

    /// The documents in scope: non-blank response bodies (borrowed when they are UTF-8),
    /// or the scope variable.
    fn documents<'r>(
        &self,
        result: &'r SampleResult,
        user: &mut UserState,
    ) -> Option<Vec<JsonDocument<'r>>> {
        let sources = self.scope.sources(result, user);
        // An unset variable makes the extraction fail: the default is stored.
        if matches!(self.scope, Scope::Variable(_)) && sources.is_empty() {
            return None;
        }
        let documents = sources.into_iter().filter_map(|source| match source {
            Source::Sample(sample) => {
                let text = utf8_text(&sample.response_data);
                (!text.trim().is_empty()).then_some(JsonDocument {
                    text,
                    sample: Some(sample),
                    own_index: OnceCell::new(),
                })
            }
            Source::Variable(text) => Some(JsonDocument {
                text: Cow::Owned(text),
                sample: None,
                own_index: OnceCell::new(),
            }),
        });
        Some(documents.collect())
    }
}

/// One JSON text in scope and where its index comes from.
struct JsonDocument<'r> {
    text: Cow<'r, str>,
    /// The sample whose body this is: its index is shared with the sample's other
    /// elements. `None` for a variable's text, indexed here on first use.
    sample: Option<&'r SampleResult>,
    own_index: OnceCell<Arc<Option<TapeIndex>>>,
}

impl JsonDocument<'_> {
    fn index(&self) -> Arc<Option<TapeIndex>> {
        match self.sample {
            Some(sample) => json_index(sample),
            None => self
                .own_index
                .get_or_init(|| Arc::new(TapeIndex::build(&self.text)))
                .clone(),
        }
    }
}

impl PostProcessor for JsonExtractor {
    fn process(&self, result: &mut SampleResult, user: &mut UserState) {
        let (names, expressions, defaults, numbers) = {
            let mut cx = user.eval("");
            (
                java_split(&self.names.eval(&mut cx), true),
                java_split(&self.expressions.eval(&mut cx), true),
                self.defaults.eval(&mut cx),
                self.match_numbers.eval(&mut cx),
            )
        };
        if names.len() != expressions.len() {
            return;
        }
        let Some(defaults) = default_values(&defaults, names.len()) else {
            return;
        };
        let numbers: Vec<i64> = if numbers.trim().is_empty() {
            vec![0; names.len()]
        } else {
            java_split(&numbers, true)
                .iter()
                .map(|n| n.trim().parse().unwrap_or(0))
                .collect()
        };
        let documents = self.documents(result, user);
        for (i, (name, expression)) in names.iter().zip(&expressions).enumerate() {
            let item = Item {
                name,
                default: &defaults[i],
                number: numbers.get(i).copied().unwrap_or(0),
            };
            clear_old(user, name);
            let compiled = match &self.compiled {
                Some(paths) => paths.get(i).map(Cow::Borrowed),
                None => JsonPath::compile(expression).ok().map(Cow::Owned),
            };
            let values = match (&documents, compiled) {
                (Some(documents), _) if documents.is_empty() => {
                    user.vars.put(name.as_str(), item.default);
                    continue;
                }
                (Some(documents), Some(path)) => Self::extract(documents, &path),
                _ => None,
            };
            match values {
                Some(values) => self.store(user, &item, values),
                None => user.vars.put(name.as_str(), item.default),
            }
        }
    }
}

fn clear_old(user: &mut UserState, name: &str) {
    user.vars.remove(&format!("{name}_matchNr"));
    let mut i = 1;
    while user.vars.remove(&format!("{name}_{i}")).is_some() {
        i += 1;
    }
}

/// Java's `text.split(";")` (trailing empty items dropped when `drop_trailing`, as
/// without a limit; kept as with limit -1); names and paths are trimmed by the caller's
/// choice of `drop_trailing`.
fn java_split(text: &str, drop_trailing: bool) -> Vec<String> {
    if text.is_empty() {
        return vec![String::new()];
    }
    let mut items: Vec<String> = text.split(';').map(str::to_string).collect();
    if drop_trailing {
        while items.last().is_some_and(|s| s.is_empty()) {
            items.pop();
        }
        for item in &mut items {
            *item = item.trim().to_string();
        }
    }
    items
}

/// The default values for `count` names. JMeter 5.6.3 splits them as Java's
/// `split(";")` does, dropping trailing empty values (`NOT_FOUND;` is one value); later
/// versions keep them (`x;` is two: `x` and an empty one). Whichever reading gives one
/// value per name is taken, so plans written for either version run.
fn default_values(text: &str, count: usize) -> Option<Vec<String>> {
    let mut values = java_split(text, false);
    if values.len() == count {
        return Some(values);
    }
    while values.len() > 1 && values.last().is_some_and(String::is_empty) {
        values.pop();
    }
    (values.len() == count).then_some(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::extractors::test_support::*;

    #[test]
    fn default_values_of_jmeter_5_6_3_and_of_later_versions() {
        // 5.6.3 drops trailing empty values, later versions keep them.
        assert_eq!(default_values("NOT_FOUND;", 1).unwrap(), ["NOT_FOUND"]);
        assert_eq!(default_values("x;", 2).unwrap(), ["x", ""]);
        assert_eq!(default_values("x;;", 1).unwrap(), ["x"]);
        assert_eq!(default_values(" a ; b", 2).unwrap(), [" a ", " b"]);
        assert_eq!(default_values("", 1).unwrap(), [""]);
        assert!(default_values("", 2).is_none());
        assert!(default_values("a;b;c", 2).is_none());
    }

    #[test]
    fn split_follows_java() {
        assert_eq!(java_split("a; b;", true), ["a", "b"]);
        assert!(java_split(";", true).is_empty());
        assert_eq!(java_split("x;", false), ["x", ""]);
        assert_eq!(java_split("", true), [""]);
    }

    fn extractor(
        names: &str,
        paths: &str,
        numbers: &str,
        defaults: &str,
        concat: bool,
    ) -> JsonExtractor {
        let el = extractor_element(
            "JSONPostProcessor",
            &[
                ("JSONPostProcessor.referenceNames", names),
                ("JSONPostProcessor.jsonPathExprs", paths),
                ("JSONPostProcessor.match_numbers", numbers),
                ("JSONPostProcessor.defaultValues", defaults),
                (
                    "JSONPostProcessor.compute_concat",
                    if concat { "true" } else { "false" },
                ),
            ],
        );
        with_build(&el, JsonExtractor::build)
    }

    #[test]
    fn match_numbers_defaults_and_concatenation() {
        let ex = extractor(
            "id;all;none;third",
            "$.items[*].id;$.items[*].id;$.nope;$.items[*].id",
            "1;-1;1;3",
            "D1;D2;ND;D3",
            true,
        );
        let mut user = user();
        ex.process(&mut body(r#"{"items":[{"id":7},{"id":8}]}"#), &mut user);
        assert_eq!(var(&user, "id"), Some("7"));
        assert_eq!(var(&user, "id_matchNr"), Some("2"));
        assert_eq!(var(&user, "all_2"), Some("8"));
        assert_eq!(var(&user, "all_ALL"), Some("7,8"));
        assert_eq!(var(&user, "none"), Some("ND"));
        assert_eq!(var(&user, "none_matchNr"), Some("0"));
        assert_eq!(var(&user, "third"), Some("D3"));
        ex.process(&mut body("not json"), &mut user);
        assert_eq!(var(&user, "id"), Some("D1"));
        assert_eq!(var(&user, "all_1"), None);
    }

    #[test]
    fn list_mismatch_and_bad_path_are_plan_errors() {
        let el = extractor_element(
            "JSONPostProcessor",
            &[
                ("JSONPostProcessor.referenceNames", "a;b"),
                ("JSONPostProcessor.jsonPathExprs", "$.a;$.b[?(@.x ==]"),
                ("JSONPostProcessor.defaultValues", "x"),
            ],
        );
        let messages = build_diagnostics(&el, |cx| {
            JsonExtractor::build(cx);
        });
        assert_eq!(messages.len(), 2, "{messages:?}");
    }
}
