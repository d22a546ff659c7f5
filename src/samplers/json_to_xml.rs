//! jp@gc - JSON to XML Converter (`com.atlantbh.jmeter.plugins.jsontoxmlconverter.
//! JSONToXMLConverter`): a sampler without network activity whose response is its
//! `JSONINPUT` text converted to XML the way json-lib 2.4's `XMLSerializer` writes it with
//! the plugin's settings (root element `xmlOutput`, type hints off), serialized by XOM.
//!
//! The layout, as json-lib builds it and XOM prints it:
//! - `<?xml version="1.0" encoding="UTF-8"?>`, CRLF, the root element, CRLF; no indent.
//! - An object's members become child elements named after their keys, in order; a key
//!   starting with `@` is an attribute of the enclosing element, `#text` its text.
//! - An array's items become `<e>` elements; an empty object or array an empty element.
//! - `null` is an empty element with `null="true"`; other scalars are text (numbers as
//!   Java prints the `Integer`, `Long` or `Double` json-lib parsed).
//!
//! As in the plugin, the input must start with `{` or `[` (or be `null`); an empty input
//! makes an unsuccessful sample with no response, a conversion error an unsuccessful
//! sample whose response is the error's message.

use std::fmt::Write;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::foundation::java_format::java_double;
use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::{SampleResult, Stopwatch};

use super::new_result;

pub const CLASS: &str = "com.atlantbh.jmeter.plugins.jsontoxmlconverter.JSONToXMLConverter";

/// The root element name the plugin gives json-lib.
const ROOT_NAME: &str = "xmlOutput";
/// json-lib's name for array items.
const ARRAY_ITEM_NAME: &str = "e";
/// XOM's default line separator.
const CRLF: &str = "\r\n";

pub struct JsonToXmlConverter {
    json_input: Setting,
}

pub(super) fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    Arc::new(JsonToXmlConverter {
        json_input: cx.setting("JSONINPUT", ""),
    })
}

#[async_trait]
impl Sampler for JsonToXmlConverter {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        let mut result = new_result(cx, cx.label.clone());
        let input = {
            let mut eval = cx.user.eval(&cx.label);
            self.json_input.text(&mut eval)
        };
        result.data_type = "text";
        result.data_encoding = "UTF-8".into();
        let watch = Stopwatch::start();
        // The plugin never marks an empty input successful: SampleResult starts failed.
        let mut success = false;
        if !input.is_empty() {
            match json_to_xml(&input) {
                Ok(xml) => {
                    result.response_data = xml.into_bytes();
                    success = true;
                }
                Err(message) => result.response_data = message.into_bytes(),
            }
        }
        watch.stop(&mut result);
        result.sampler_data = input;
        result.set_success(success);
        Some(Arc::new(result))
    }
}

/// `XMLSerializer.write(JSONSerializer.toJSON(input))` with the plugin's settings, or the
/// message of the exception json-lib or XOM would throw.
pub fn json_to_xml(input: &str) -> Result<String, String> {
    // JSONSerializer.toJSON looks at the first character only, without trimming.
    let root = if input.starts_with('[') || input.starts_with('{') {
        serde_json::from_str::<Value>(input).map_err(|err| tokener_message(&err, input))?
    } else if input == "null" {
        Value::Null
    } else {
        return Err("Invalid JSON String".to_string());
    };
    let mut out = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>{CRLF}");
    let mut root_element = XmlElement::new(ROOT_NAME);
    match &root {
        Value::Null => root_element.attributes.push(("null".into(), "true".into())),
        Value::Array(items) => fill_array(&mut root_element, items)?,
        Value::Object(members) => fill_object(&mut root_element, members)?,
        _ => unreachable!("only containers and null get past the first character"),
    }
    root_element.write(&mut out);
    out.push_str(CRLF);
    Ok(out)
}

/// The message of json-lib's `JSONTokener.syntaxError`: what went wrong, then where.
fn tokener_message(err: &serde_json::Error, input: &str) -> String {
    let text = err.to_string();
    let what = text.split(" at line ").next().unwrap_or(&text);
    let offset: usize = input
        .lines()
        .take(err.line().saturating_sub(1))
        .map(|line| line.chars().count() + 1)
        .sum::<usize>()
        + err.column();
    format!("{what} at character {offset} of {input}")
}

/// One XOM element: its name, attributes in insertion order, and children.
struct XmlElement {
    name: String,
    attributes: Vec<(String, String)>,
    children: Vec<XmlNode>,
}

enum XmlNode {
    Element(XmlElement),
    Text(String),
}

impl XmlElement {
    fn new(name: &str) -> XmlElement {
        XmlElement {
            name: name.to_string(),
            attributes: Vec::new(),
            children: Vec::new(),
        }
    }

    /// XOM's `Serializer`: an element without children is an empty-element tag, even when
    /// it had an empty text (which XOM keeps as a child, so `<a></a>`).
    fn write(&self, out: &mut String) {
        out.push('<');
        out.push_str(&self.name);
        for (name, value) in &self.attributes {
            let _ = write!(out, " {name}=\"");
            escape(out, value, true);
            out.push('"');
        }
        if self.children.is_empty() {
            out.push_str("/>");
            return;
        }
        out.push('>');
        for child in &self.children {
            match child {
                XmlNode::Element(element) => element.write(out),
                XmlNode::Text(text) => escape(out, text, false),
            }
        }
        let _ = write!(out, "</{}>", self.name);
    }
}

/// `processJSONArray`: each item as an `<e>` child of `target`.
fn fill_array(target: &mut XmlElement, items: &[Value]) -> Result<(), String> {
    for item in items {
        let mut element = XmlElement::new(ARRAY_ITEM_NAME);
        fill_value(&mut element, item)?;
        target.children.push(XmlNode::Element(element));
    }
    Ok(())
}

/// `processJSONObject`: attributes from `@` keys, text from `#text`, one child per other key.
fn fill_object(
    target: &mut XmlElement,
    members: &serde_json::Map<String, Value>,
) -> Result<(), String> {
    for (name, value) in members {
        if let Some(attribute) = name.strip_prefix('@') {
            check_name(attribute)?;
            target
                .attributes
                .push((attribute.to_string(), java_string_of(value)));
        } else if name == "#text" {
            let text = match value {
                // JSONArray.join("", true): items side by side, strings without quotes.
                Value::Array(items) => items.iter().map(java_string_of).collect(),
                other => java_string_of(other),
            };
            check_text(&text)?;
            target.children.push(XmlNode::Text(text));
        } else {
            check_name(name)?;
            let mut element = XmlElement::new(name);
            fill_value(&mut element, value)?;
            target.children.push(XmlNode::Element(element));
        }
    }
    Ok(())
}

/// `processJSONValue` with type hints off.
fn fill_value(target: &mut XmlElement, value: &Value) -> Result<(), String> {
    match value {
        Value::Null => target.attributes.push(("null".into(), "true".into())),
        Value::Array(items) => fill_array(target, items)?,
        Value::Object(members) => fill_object(target, members)?,
        scalar => {
            let text = java_string_of(scalar);
            check_text(&text)?;
            target.children.push(XmlNode::Text(text));
        }
    }
    Ok(())
}

/// `String.valueOf` of what json-lib holds for a value: numbers as Java prints the
/// `Integer`/`Long` or `Double` it parsed, containers as compact JSON.
fn java_string_of(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
        Value::Number(n) => java_double(n.as_f64().unwrap_or(0.0)),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// XOM refuses element and attribute names that are not XML names.
fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return Err("NCNames cannot be empty".to_string());
    };
    if !(first.is_alphabetic() || first == '_' || first == ':') {
        return Err(format!(
            "0x{:x} is not a legal NCName start character",
            first as u32
        ));
    }
    match chars.find(|&c| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '\u{b7}'))) {
        Some(bad) => Err(format!(
            "0x{:x} is not a legal NCName character",
            bad as u32
        )),
        None => Ok(()),
    }
}

/// XOM refuses text with characters XML 1.0 cannot hold.
fn check_text(text: &str) -> Result<(), String> {
    match text
        .chars()
        .find(|&c| c < ' ' && !matches!(c, '\t' | '\n' | '\r'))
    {
        Some(bad) => Err(format!("0x{:x} is not allowed in XML content", bad as u32)),
        None => Ok(()),
    }
}

/// XOM's escaping: `&`, `<`, `>` and CR always; in attributes also `"`, tab and LF.
fn escape(out: &mut String, text: &str, attribute: bool) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#x0D;"),
            '"' if attribute => out.push_str("&quot;"),
            '\t' if attribute => out.push_str("&#x09;"),
            '\n' if attribute => out.push_str("&#x0A;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(xml: &str) -> String {
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n{xml}\r\n")
    }

    #[test]
    fn objects_arrays_and_scalars() {
        assert_eq!(
            json_to_xml(r#"{"name":"a&b","n":1,"d":1.50,"ok":true,"none":null,"list":[1,"x",{"k":2}],"empty":{},"s":""}"#)
                .unwrap(),
            body(
                "<xmlOutput><name>a&amp;b</name><n>1</n><d>1.5</d><ok>true</ok>\
                 <none null=\"true\"/><list><e>1</e><e>x</e><e><k>2</k></e></list><empty/>\
                 <s></s></xmlOutput>"
            )
        );
    }

    #[test]
    fn roots_other_than_objects() {
        assert_eq!(
            json_to_xml("[1,[2]]").unwrap(),
            body("<xmlOutput><e>1</e><e><e>2</e></e></xmlOutput>")
        );
        assert_eq!(
            json_to_xml("null").unwrap(),
            body("<xmlOutput null=\"true\"/>")
        );
        assert_eq!(json_to_xml("{}").unwrap(), body("<xmlOutput/>"));
    }

    #[test]
    fn attributes_and_text_keys() {
        assert_eq!(
            json_to_xml(r##"{"a":{"@id":"7","#text":"hi"}}"##).unwrap(),
            body("<xmlOutput><a id=\"7\">hi</a></xmlOutput>")
        );
    }

    #[test]
    fn errors_carry_json_lib_and_xom_messages() {
        assert_eq!(json_to_xml(" {}").unwrap_err(), "Invalid JSON String");
        assert_eq!(json_to_xml("42").unwrap_err(), "Invalid JSON String");
        assert!(json_to_xml("{\"a\":}")
            .unwrap_err()
            .ends_with(" at character 6 of {\"a\":}"));
        assert_eq!(
            json_to_xml(r#"{"1a":1}"#).unwrap_err(),
            "0x31 is not a legal NCName start character"
        );
    }
}
