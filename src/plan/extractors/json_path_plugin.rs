//! The jmeter-plugins JSON Path Extractor (`com.atlantbh...JSONPathExtractor`): one
//! JSONPath over the sample's body or a variable, into one variable.
//!
//! The path is read as Jayway's `JsonPath.read` (see [`JsonPath::read_text`]). An array
//! (what an indefinite path found, or an array value) stores its JSON text in the
//! variable, each element in `name_1..name_n` and the count in `name_matchNr`; any other
//! value is stored as `objectToString` prints it. A missing path, an empty array, text
//! that is not JSON or an unset source variable store the default and a count of `0`.
//! Unlike JMeter's JSON Extractor there are no match numbers, and a single value leaves
//! `name_matchNr` and `name_1..` as they were, as the plugin does.

use super::utf8_text;
use crate::expr::Template;
use crate::plan::response_forms::json_index;
use crate::plan::{BuildContext, PostProcessor};
use crate::query::json_tape::TapeIndex;
use crate::query::json_text::object_text;
use crate::query::jsonpath::JsonPath;
use crate::sample::SampleResult;
use crate::user_state::UserState;
use serde_json::Value;

/// The element's class.
pub const CLASS: &str = "com.atlantbh.jmeter.plugins.jsonutils.jsonpathextractor.JSONPathExtractor";

pub struct JsonPathPluginExtractor {
    name: Template,
    path: Template,
    /// The path compiled at plan time, when constant.
    compiled: Option<JsonPath>,
    default: Template,
    /// `SUBJECT` = `VAR`: the variable to read instead of the body.
    source_variable: Option<Template>,
}

impl JsonPathPluginExtractor {
    pub fn build(cx: &mut BuildContext<'_>) -> JsonPathPluginExtractor {
        let path = cx.template("JSONPATH");
        let compiled = path
            .as_literal()
            .and_then(|text| match JsonPath::compile(text) {
                Ok(compiled) => Some(compiled),
                Err(err) => {
                    cx.error(format!("invalid JSON path {text:?}: {err}"));
                    None
                }
            });
        let from_variable = cx.raw("SUBJECT").is_some_and(|subject| subject == "VAR");
        JsonPathPluginExtractor {
            name: cx.template("VAR"),
            path,
            compiled,
            default: cx.template("DEFAULT"),
            source_variable: from_variable.then(|| cx.template("VARIABLE")),
        }
    }

    /// What `JsonPath.read` gives, `None` where the plugin catches an exception. `index`
    /// is the text's JSON index when it is the sample's body (shared with the sample's
    /// other elements).
    fn read(
        &self,
        text: Option<&str>,
        index: Option<&TapeIndex>,
        path_text: &str,
    ) -> Option<Value> {
        let text = text?;
        let compiled;
        let path = match &self.compiled {
            Some(path) => path,
            None => {
                compiled = JsonPath::compile(path_text).ok()?;
                &compiled
            }
        };
        match index {
            Some(index) => path.read_text_with(text, Some(index)),
            None => path.read_text(text),
        }
        .ok()?
        .ok()
    }
}

/// Removes `name_1`, `name_2`, ... up to the first one that is not set.
fn clear_numbered(user: &mut UserState, name: &str) {
    let mut k = 1;
    while user.vars.remove(&format!("{name}_{k}")).is_some() {
        k += 1;
    }
}

impl PostProcessor for JsonPathPluginExtractor {
    fn process(&self, result: &mut SampleResult, user: &mut UserState) {
        let (name, path_text, source) = {
            let mut cx = user.eval("");
            let source = self.source_variable.as_ref().map(|v| v.eval(&mut cx));
            (self.name.eval(&mut cx), self.path.eval(&mut cx), source)
        };
        let (text, index) = match &source {
            Some(variable) => (user.vars.get(variable).map(str::to_string), None),
            None => (
                Some(utf8_text(&result.response_data).into_owned()),
                Some(json_index(result)),
            ),
        };
        let index = index.as_deref().and_then(Option::as_ref);
        match self.read(text.as_deref(), index, &path_text) {
            Some(Value::Array(items)) if !items.is_empty() => {
                user.vars
                    .put(name.as_str(), object_text(&Value::Array(items.clone())));
                user.vars
                    .put(format!("{name}_matchNr"), items.len().to_string());
                clear_numbered(user, &name);
                for (i, item) in items.iter().enumerate() {
                    user.vars
                        .put(format!("{name}_{}", i + 1), object_text(item));
                }
            }
            Some(value) if !matches!(value, Value::Array(_)) => {
                user.vars.put(name.as_str(), object_text(&value));
            }
            _ => {
                let default = {
                    let mut cx = user.eval("");
                    self.default.eval(&mut cx)
                };
                user.vars.put(name.as_str(), default);
                user.vars.put(format!("{name}_matchNr"), "0");
                clear_numbered(user, &name);
            }
        }
    }
}
