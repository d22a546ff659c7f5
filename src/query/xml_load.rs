//! Turning a response into a [`Dom`] the way JMeter's `XPathUtil.makeDocument` does for
//! the XPath Extractor, the XPath Assertion and `__XPath`: strict XML by default, or
//! "tolerant" HTML (JMeter runs Tidy; jmxr parses with an HTML5 parser and counts its
//! complaints as Tidy warnings, and elements Tidy does not know as Tidy errors).
//!
//! Also the namespace prefixes configured for XPath 1 (`xpath.namespace.config`, a
//! properties file of `prefix=uri`), read once at plan time.

use std::collections::HashMap;
use std::path::Path;

use super::html_parse::parse_html;
use super::xml_dom::{looks_like_xml, parse_xml, Dom, NodeKind};

/// The parser settings of JMeter's XPath elements.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseOptions {
    /// Parse as HTML ("Use Tidy").
    pub tolerant: bool,
    /// Names get their namespace URI (`namespace`); off by default, as in JMeter.
    pub namespace: bool,
    /// With `tolerant`: any Tidy error makes the document unusable (`report_errors`).
    pub report_errors: bool,
}

/// Why a document could not be built.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadError {
    /// Not well-formed XML: the parser's message in Xerces' words where known.
    Xml(String),
    /// Tolerant parsing with `report_errors` found errors: JMeter's `TidyException`.
    Tidy { errors: usize, warnings: usize },
}

impl LoadError {
    pub fn message(&self) -> String {
        match self {
            LoadError::Xml(message) => message.clone(),
            LoadError::Tidy { errors, warnings } => {
                format!("tidy: {errors} errors, {warnings} warnings")
            }
        }
    }
}

pub fn load(text: &str, options: ParseOptions) -> Result<Dom, LoadError> {
    if !options.tolerant {
        if text.trim().is_empty() {
            return Err(LoadError::Xml("Premature end of file.".into()));
        }
        return parse_xml(text, options.namespace).map_err(|e| LoadError::Xml(xerces_message(&e)));
    }
    // Tidy reads a document that starts with an XML declaration as XML.
    if looks_like_xml(text) {
        if let Ok(dom) = parse_xml(text, false) {
            return Ok(dom);
        }
    }
    let html = parse_html(text);
    if options.report_errors {
        let errors = unknown_elements(&html.dom);
        if errors > 0 {
            return Err(LoadError::Tidy {
                errors,
                warnings: html.errors.len(),
            });
        }
    }
    Ok(html.dom)
}

/// Elements Tidy reports as "not recognized": anything outside HTML 4 and the
/// proprietary tags it knows.
pub fn unknown_elements(dom: &Dom) -> usize {
    dom.nodes
        .iter()
        .filter(|n| n.kind == NodeKind::Element && !is_tidy_tag(&n.name.local))
        .count()
}

/// Whether Tidy knows the element `name`.
pub fn is_tidy_tag(name: &str) -> bool {
    TIDY_TAGS.contains(&name)
}

const TIDY_TAGS: &[&str] = &[
    "a",
    "abbr",
    "acronym",
    "address",
    "applet",
    "area",
    "b",
    "base",
    "basefont",
    "bdo",
    "big",
    "blockquote",
    "body",
    "br",
    "button",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "dfn",
    "dir",
    "div",
    "dl",
    "dt",
    "em",
    "fieldset",
    "font",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "ins",
    "isindex",
    "kbd",
    "label",
    "legend",
    "li",
    "link",
    "map",
    "menu",
    "meta",
    "noframes",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "pre",
    "q",
    "s",
    "samp",
    "script",
    "select",
    "small",
    "span",
    "strike",
    "strong",
    "style",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "tt",
    "u",
    "ul",
    "var",
    "blink",
    "marquee",
    "nobr",
    "wbr",
    "embed",
    "layer",
    "ilayer",
    "nolayer",
    "spacer",
    "server",
    "multicol",
    "bgsound",
    "comment",
    "keygen",
    "xmp",
    "listing",
    "plaintext",
    "noembed",
    "align",
];

/// The `prefix=uri` pairs of the file named by `xpath.namespace.config`, if any. A
/// missing or unreadable file gives none, as JMeter only logs it.
/// A relative name is read from the working folder, as JMeter's `findFile` does.
pub fn configured_namespaces(properties: &HashMap<String, String>) -> Vec<(String, String)> {
    let Some(name) = properties
        .get("xpath.namespace.config")
        .filter(|n| !n.trim().is_empty())
    else {
        return Vec::new();
    };
    let path = Path::new(name.trim());
    match std::fs::read_to_string(path) {
        Ok(text) => crate::foundation::properties_file::parse(&text),
        Err(err) => {
            crate::runlog::error(&format!(
                "Cannot read XPath namespace configuration {}: {err}",
                path.display()
            ));
            Vec::new()
        }
    }
}

/// Parses XPath2 namespace settings: lines (or whitespace-separated words) of
/// `prefix=uri`, as JMeter's XPath2 elements read them.
pub fn parse_namespace_lines(text: &str) -> Vec<(String, String)> {
    text.split_whitespace()
        .filter_map(|word| word.split_once('='))
        .map(|(p, uri)| (p.to_string(), uri.to_string()))
        .collect()
}

/// Xerces' message for the errors plans meet most.
pub fn xerces_message(error: &roxmltree::Error) -> String {
    match error {
        roxmltree::Error::UnknownToken(_) | roxmltree::Error::NoRootNode => "Content is not allowed in prolog.".into(),
        roxmltree::Error::UnexpectedCloseTag(expected, _, _) => format!(
            "The element type \"{expected}\" must be terminated by the matching end-tag \"</{expected}>\"."
        ),
        roxmltree::Error::UnclosedRootNode => {
            "XML document structures must start and end within the same entity.".into()
        }
        roxmltree::Error::UnknownEntityReference(name, _) => {
            format!("The entity \"{name}\" was referenced, but not declared.")
        }
        other => other.to_string(),
    }
}
