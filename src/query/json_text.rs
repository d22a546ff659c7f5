//! JSON values as text the way JMeter's JSON Extractor writes them (Jayway JsonPath on
//! json-smart): strings without quotes, numbers as Java prints them (`1.5`, `100.0`,
//! `1.0E10`), `null` as no value, objects and arrays as compact JSON with `/` escaped
//! as `\/`. A top-level object is copied by JMeter into a `java.util.HashMap`, so its
//! keys come out in that map's bucket order; nested objects keep document order.

use serde_json::{Map, Number, Value};

use crate::foundation::java_format::java_double;

/// The text of one extracted value; `None` for JSON `null`.
pub fn extracted_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Object(map) => {
            let mut out = String::new();
            write_object(&mut out, hash_map_order(map));
            Some(out)
        }
        other => {
            let mut out = String::new();
            write_value(&mut out, other);
            Some(out)
        }
    }
}

/// `objectToString` of JMeter's JSON Assertion and of the jmeter-plugins JSON Path
/// elements: `null`, decimals as `#.#` with one fraction digit at least (never an
/// exponent), everything else as [`extracted_text`] prints it.
pub fn object_text(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Number(n) if !(n.is_i64() || n.is_u64()) => {
            let f = n.as_f64().unwrap_or(0.0);
            let text = format!("{f}");
            if text.contains('.') {
                text
            } else {
                text + ".0"
            }
        }
        other => extracted_text(other).unwrap_or_default(),
    }
}

/// The entries of `map` in the iteration order of a `java.util.HashMap` built from it.
fn hash_map_order(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let wanted = (map.len() as f32 / 0.75 + 1.0) as usize;
    let capacity = wanted.next_power_of_two().max(1);
    let mut entries: Vec<(usize, usize, (&String, &Value))> = map
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let h = java_hash(entry.0);
            let spread = h ^ (h >> 16);
            ((spread as usize) & (capacity - 1), i, entry)
        })
        .collect();
    entries.sort_by_key(|(bucket, i, _)| (*bucket, *i));
    entries.into_iter().map(|(_, _, e)| e).collect()
}

/// Java's `String.hashCode` over UTF-16 code units.
fn java_hash(text: &str) -> u32 {
    text.encode_utf16()
        .fold(0u32, |h, unit| h.wrapping_mul(31).wrapping_add(unit as u32))
}

fn write_object<'a>(out: &mut String, entries: impl IntoIterator<Item = (&'a String, &'a Value)>) {
    out.push('{');
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(out, key);
        out.push(':');
        write_value(out, value);
    }
    out.push('}');
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&java_number(n)),
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => write_object(out, map.iter()),
    }
}

/// A quoted string with json-smart's escapes (including `\/`).
fn write_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20
                || (0x7f..=0x9f).contains(&(c as u32))
                || (0x2000..=0x20ff).contains(&(c as u32)) =>
            {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Integers as written; other numbers as Java's `Double.toString`.
pub fn java_number(n: &Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    java_double(n.as_f64().unwrap_or(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(json: &str) -> Option<String> {
        extracted_text(&serde_json::from_str(json).unwrap())
    }

    #[test]
    fn scalars_print_as_java_does() {
        assert_eq!(text("\"a/b\"").as_deref(), Some("a/b"));
        assert_eq!(text("12").as_deref(), Some("12"));
        assert_eq!(text("1.50").as_deref(), Some("1.5"));
        assert_eq!(text("100.0").as_deref(), Some("100.0"));
        assert_eq!(text("1e10").as_deref(), Some("1.0E10"));
        assert_eq!(text("0.0001").as_deref(), Some("1.0E-4"));
        assert_eq!(text("null"), None);
        assert_eq!(text("true").as_deref(), Some("true"));
    }

    #[test]
    fn containers_are_compact_with_escaped_slashes() {
        assert_eq!(
            text(r#"[{"u":"http://x","n":null},2]"#).as_deref(),
            Some(r#"[{"u":"http:\/\/x","n":null},2]"#)
        );
    }

    #[test]
    fn top_level_object_keys_follow_java_hash_map_order() {
        // Three keys make an 8-bucket HashMap: "a" (97) → 1, "b" (98) → 2, "id" (3355) → 3.
        assert_eq!(
            text(r#"{"id":1,"b":2,"a":3}"#).as_deref(),
            Some(r#"{"a":3,"b":2,"id":1}"#)
        );
        assert_eq!(
            text(r#"{"z":{"y":1,"x":2}}"#).as_deref(),
            Some(r#"{"z":{"y":1,"x":2}}"#)
        );
    }
}
