//! Groovy's JSON: `new JsonSlurper().parseText(text)` gives Rhai maps and arrays (so
//! `json.items[0].id` reads as in Groovy), `JsonOutput.toJson(value)` and
//! `JsonOutput.prettyPrint(text)` write JSON back.

use rhai::{Array, Dynamic, Engine, ImmutableString, Map, INT};
use serde_json::Value;

use super::func;
use super::{error, java_string, Class, ShimResult};

/// `new JsonSlurper()`.
#[derive(Clone, Copy)]
pub(crate) struct JsonSlurper;

pub(crate) fn to_dynamic(value: Value) -> Dynamic {
    match value {
        Value::Null => Dynamic::UNIT,
        Value::Bool(b) => Dynamic::from(b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Dynamic::from(i),
            None => Dynamic::from(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Dynamic::from(s),
        Value::Array(items) => Dynamic::from(items.into_iter().map(to_dynamic).collect::<Array>()),
        Value::Object(entries) => {
            let map: Map = entries
                .into_iter()
                .map(|(k, v)| (k.into(), to_dynamic(v)))
                .collect();
            Dynamic::from(map)
        }
    }
}

pub(crate) fn to_json(value: &Dynamic) -> Value {
    if value.is_unit() {
        return Value::Null;
    }
    if let Ok(b) = value.as_bool() {
        return Value::Bool(b);
    }
    if let Ok(n) = value.as_int() {
        return Value::from(n);
    }
    if let Ok(f) = value.as_float() {
        return Value::from(f);
    }
    if let Some(items) = value.read_lock::<Array>() {
        return Value::Array(items.iter().map(to_json).collect());
    }
    if let Some(map) = value.read_lock::<Map>() {
        return Value::Object(
            map.iter()
                .map(|(k, v)| (k.to_string(), to_json(v)))
                .collect(),
        );
    }
    Value::String(java_string(value))
}

fn parse_text(text: &str) -> ShimResult<Dynamic> {
    serde_json::from_str::<Value>(text)
        .map(to_dynamic)
        .or_else(|e| error(format!("JsonException: {e}")))
}

fn pretty(text: &str) -> ShimResult<String> {
    let value: Value =
        serde_json::from_str(text).or_else(|e| error(format!("JsonException: {e}")))?;
    serde_json::to_string_pretty(&value).or_else(|e| error(e.to_string()))
}

pub(crate) fn classes() -> Vec<Class> {
    let mut slurper = Class::new("JsonSlurper");
    func!(slurper, "create", || JsonSlurper);
    let mut output = Class::new("JsonOutput");
    func!(output, "toJson", |v: Dynamic| to_json(&v).to_string());
    func!(output, "prettyPrint", |t: &str| pretty(t));
    // minimal-json (`com.eclipsesource.json`), which BeanShell scripts use: values are
    // Rhai values, and its `asString()`-style accessors convert.
    let mut json_object = Class::new("JsonObject");
    func!(json_object, "readFrom", |t: &str| parse_text(t));
    func!(json_object, "create", Map::new);
    let mut json_array = Class::new("JsonArray");
    func!(json_array, "readFrom", |t: &str| parse_text(t));
    func!(json_array, "create", Array::new);
    let mut json = Class::new("Json");
    func!(json, "parse", |t: &str| parse_text(t));
    vec![slurper, output, json_object, json_array, json]
}

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_type_with_name::<JsonSlurper>("JsonSlurper")
        .register_fn("parseText", |_: &mut JsonSlurper, t: &str| parse_text(t))
        .register_fn(
            "parseText",
            |_: &mut JsonSlurper, _t: ()| -> ShimResult<Dynamic> {
                error("IllegalArgumentException: Text must not be null or empty")
            },
        )
        .register_fn("parse", |_: &mut JsonSlurper, t: ImmutableString| {
            parse_text(&t)
        })
        .register_fn("toJson", |v: Dynamic| to_json(&v).to_string())
        .register_fn("asString", |v: Dynamic| java_string(&v))
        .register_fn("asInt", |v: Dynamic| super::conversions::as_int(&v))
        .register_fn("asLong", |v: Dynamic| super::conversions::as_int(&v))
        .register_fn("asDouble", |v: Dynamic| super::conversions::as_double(&v))
        .register_fn("asBoolean", |v: Dynamic| super::conversions::truthy(&v))
        .register_fn("asObject", |v: Map| v)
        .register_fn("asArray", |v: Array| v)
        .register_fn("isNull", |v: Dynamic| v.is_unit())
        .register_fn("length", |a: &mut Array| a.len() as INT);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip() {
        let value = parse_text(r#"{"a":[1,2.5,"x",null,true]}"#).unwrap();
        assert_eq!(
            to_json(&value).to_string(),
            r#"{"a":[1,2.5,"x",null,true]}"#
        );
    }
}
