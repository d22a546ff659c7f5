//! The jp@gc JSON and XML Format Post Processors: they replace the sample's response body
//! with the same document pretty-printed, so that what a listener saves (or a later
//! Regular Expression Extractor sees) is one value per line.
//!
//! - **JSON** (`JSONFormatter`) prints as the plugin's json-lib does with an indent of 4:
//!   an object or array of one entry stays on one line (`{"a": 1}`), larger ones put
//!   each entry on its own line; a nested larger container also starts with as many
//!   spaces as its depth's indent (json-lib's quirk, kept because users' extractors
//!   match the text). Keys keep their order; decimals print as Java's `Double` does with
//!   trailing zeros shaved (`1.50` → `1.5`, `1e2` → `100.0`).
//! - **XML** (`XMLFormatPostProcessor`) prints as the JDK's XSLT identity transform with
//!   `indent=yes` and an indent of 2: the declaration with `standalone="no"` and the root
//!   element right after it, one element per line, text kept inside its element,
//!   attributes sorted by name as the DOM stores them, whitespace-only text dropped.
//!
//! A body that does not parse is left as it was, with a warning in the run log, as the
//! plugins do.

use std::fmt::Write;

use serde_json::Value;

use crate::foundation::java_format::java_double;
use crate::plan::{BuildContext, PostProcessor};
use crate::runlog;
use crate::sample::SampleResult;
use crate::user_state::UserState;

pub const JSON_CLASS: &str = "com.atlantbh.jmeter.plugins.jsonutils.jsonformatter.JSONFormatter";
pub const XML_CLASS: &str = "com.atlantbh.jmeter.plugins.xmlformatter.XMLFormatPostProcessor";

/// The indent json-lib is asked for.
const JSON_INDENT: usize = 4;

pub struct JsonFormatter;

impl JsonFormatter {
    pub fn build(_cx: &mut BuildContext<'_>) -> JsonFormatter {
        JsonFormatter
    }
}

impl PostProcessor for JsonFormatter {
    fn process(&self, result: &mut SampleResult, _user: &mut UserState) {
        let text = String::from_utf8_lossy(&result.response_data);
        match serde_json::from_str::<Value>(&text) {
            Ok(value @ (Value::Object(_) | Value::Array(_))) => {
                result.response_data = format_json(&value).into_bytes();
            }
            Ok(_) => runlog::warn(
                "Failed to format JSON: A JSONObject text must begin with '{' or an array with '['",
            ),
            Err(err) => runlog::warn(&format!("Failed to format JSON: {err}")),
        }
    }
}

/// `value` as json-lib's `toString(4)` writes it.
pub fn format_json(value: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, value, 0);
    out
}

fn write_json(out: &mut String, value: &Value, indent: usize) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&json_lib_number(n)),
        Value::String(s) => quote(out, s),
        Value::Object(map) if map.is_empty() => out.push_str("{}"),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Object(map) if map.len() == 1 => {
            let (key, value) = map.iter().next().expect("one entry");
            out.push('{');
            quote(out, key);
            out.push_str(": ");
            write_json(out, value, indent);
            out.push('}');
        }
        Value::Array(items) if items.len() == 1 => {
            out.push('[');
            write_json(out, &items[0], indent);
            out.push(']');
        }
        Value::Object(map) => {
            let inner = indent + JSON_INDENT;
            spaces(out, indent);
            out.push('{');
            for (i, (key, value)) in map.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                spaces(out, inner);
                quote(out, key);
                out.push_str(": ");
                write_json(out, value, inner);
            }
            out.push('\n');
            spaces(out, indent);
            out.push('}');
        }
        Value::Array(items) => {
            let inner = indent + JSON_INDENT;
            spaces(out, indent);
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                spaces(out, inner);
                write_json(out, item, inner);
            }
            out.push('\n');
            spaces(out, indent);
            out.push(']');
        }
    }
}

fn spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Integers as written; decimals as Java's `Double.toString`, trailing zeros shaved to
/// one after the point (json-lib's `numberToString`).
fn json_lib_number(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    let text = java_double(n.as_f64().unwrap_or(0.0));
    if text.contains('.') && !text.contains(['e', 'E']) {
        let shaved = text.trim_end_matches('0');
        return if shaved.ends_with('.') {
            format!("{shaved}0")
        } else {
            shaved.to_string()
        };
    }
    text
}

/// json-lib's string quoting: `\"`, `\\`, `<\/`, the short escapes, `\uXXXX` for other
/// control characters.
fn quote(out: &mut String, text: &str) {
    out.push('"');
    let mut previous = '\0';
    for c in text.chars() {
        match c {
            '\\' | '"' => {
                out.push('\\');
                out.push(c);
            }
            '/' if previous == '<' => out.push_str("\\/"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if c < ' ' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
        previous = c;
    }
    out.push('"');
}

pub struct XmlFormatter;

impl XmlFormatter {
    pub fn build(_cx: &mut BuildContext<'_>) -> XmlFormatter {
        XmlFormatter
    }
}

impl PostProcessor for XmlFormatter {
    fn process(&self, result: &mut SampleResult, _user: &mut UserState) {
        let text = String::from_utf8_lossy(&result.response_data);
        let options = roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        };
        match roxmltree::Document::parse_with_options(&text, options) {
            Ok(doc) => result.response_data = format_xml(&doc).into_bytes(),
            Err(err) => runlog::info(&format!("Error while formating response xml - {err}")),
        }
    }
}

/// `doc` as the JDK's identity transform with indenting writes it.
pub fn format_xml(doc: &roxmltree::Document) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>");
    let mut first = true;
    for node in doc.root().children() {
        if node.is_text() {
            continue;
        }
        if !first {
            out.push('\n');
        }
        first = false;
        write_node(&mut out, node, 0);
    }
    out.push('\n');
    out
}

fn write_node(out: &mut String, node: roxmltree::Node, depth: usize) {
    match node.node_type() {
        roxmltree::NodeType::Element => write_element(out, node, depth),
        roxmltree::NodeType::Text => escape(out, node.text().unwrap_or(""), false),
        roxmltree::NodeType::Comment => {
            out.push_str("<!--");
            out.push_str(node.text().unwrap_or(""));
            out.push_str("-->");
        }
        roxmltree::NodeType::PI => {
            if let Some(pi) = node.pi() {
                out.push_str("<?");
                out.push_str(pi.target);
                if let Some(value) = pi.value {
                    out.push(' ');
                    out.push_str(value);
                }
                out.push_str("?>");
            }
        }
        roxmltree::NodeType::Root => {}
    }
}

fn write_element(out: &mut String, node: roxmltree::Node, depth: usize) {
    let name = qualified_name(node);
    out.push('<');
    out.push_str(&name);
    let mut attributes: Vec<(String, String)> = node
        .namespaces()
        .filter(|ns| declared_here(node, ns))
        .map(|ns| match ns.name() {
            Some(prefix) => (format!("xmlns:{prefix}"), ns.uri().to_string()),
            None => ("xmlns".to_string(), ns.uri().to_string()),
        })
        .collect();
    attributes.extend(node.attributes().map(|a| {
        let prefix = a
            .namespace()
            .and_then(|uri| node.lookup_prefix(uri))
            .filter(|p| !p.is_empty());
        let name = match prefix {
            Some(p) => format!("{p}:{}", a.name()),
            None => a.name().to_string(),
        };
        (name, a.value().to_string())
    }));
    attributes.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, value) in &attributes {
        out.push(' ');
        out.push_str(name);
        out.push_str("=\"");
        escape(out, value, true);
        out.push('"');
    }
    let children: Vec<roxmltree::Node> = node
        .children()
        .filter(|c| !(c.is_text() && c.text().is_some_and(|t| t.trim().is_empty())))
        .collect();
    if children.is_empty() {
        out.push_str("/>");
        return;
    }
    out.push('>');
    let only_text = children.iter().all(|c| c.is_text());
    for child in &children {
        if !only_text && !child.is_text() {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', (depth + 1) * 2));
        }
        write_node(out, *child, depth + 1);
    }
    if !only_text {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', depth * 2));
    }
    out.push_str("</");
    out.push_str(&name);
    out.push('>');
}

/// Whether namespace `ns` is declared on `node` itself (not inherited from its parent).
fn declared_here(node: roxmltree::Node, ns: &roxmltree::Namespace) -> bool {
    if ns.name() == Some("xml") {
        return false;
    }
    match node.parent_element() {
        Some(parent) => !parent
            .namespaces()
            .any(|p| p.name() == ns.name() && p.uri() == ns.uri()),
        None => true,
    }
}

fn qualified_name(node: roxmltree::Node) -> String {
    let tag = node.tag_name();
    match tag
        .namespace()
        .and_then(|uri| node.lookup_prefix(uri))
        .filter(|p| !p.is_empty())
    {
        Some(prefix) => format!("{prefix}:{}", tag.name()),
        None => tag.name().to_string(),
    }
}

fn escape(out: &mut String, text: &str, attribute: bool) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> String {
        format_json(&serde_json::from_str(text).unwrap())
    }

    #[test]
    fn json_lib_layout_with_its_nested_container_quirk() {
        assert_eq!(json(r#"{"a":1}"#), r#"{"a": 1}"#);
        assert_eq!(json(r#"[{"id":7}]"#), r#"[{"id": 7}]"#);
        assert_eq!(json("{}"), "{}");
        assert_eq!(
            json(r#"{"b":[1,2.50,1e2],"a":{"x":null,"y":"</p>"},"c":true}"#),
            "{\n    \"b\":     [\n        1,\n        2.5,\n        100.0\n    ],\n    \
             \"a\":     {\n        \"x\": null,\n        \"y\": \"<\\/p>\"\n    },\n    \
             \"c\": true\n}"
        );
        assert_eq!(
            json(r#"["a\tb","\u0001"]"#),
            "[\n    \"a\\tb\",\n    \"\\u0001\"\n]"
        );
    }

    fn xml(text: &str) -> String {
        format_xml(&roxmltree::Document::parse(text).unwrap())
    }

    #[test]
    fn xml_indented_by_two_with_sorted_attributes() {
        assert_eq!(
            xml("<?xml version=\"1.0\"?><r z=\"1\" a=\"x&amp;y\"><c>text</c>\n  <d/><e><f>1</f></e></r>"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?><r a=\"x&amp;y\" z=\"1\">\n  \
             <c>text</c>\n  <d/>\n  <e>\n    <f>1</f>\n  </e>\n</r>\n"
        );
        assert_eq!(
            xml("<s:Envelope xmlns:s=\"urn:s\"><s:Body x=\"1\"/></s:Envelope>"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?><s:Envelope xmlns:s=\"urn:s\">\n  \
             <s:Body x=\"1\"/>\n</s:Envelope>\n"
        );
    }
}
