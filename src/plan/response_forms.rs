//! The parsed forms of a sample's body that extractors and assertions share: the JSON
//! index, the JSON tree, the XML tree (one per set of parser options) and the HTML tree.
//! Each is built by the first element of the sample that needs it and kept on the
//! sample (`SampleResult::parsed`) for the others, so five JSON Extractors index the
//! body once; the engine drops them when the sample is recorded.
//!
//! Text from a variable (an element whose scope is a JMeter variable) is parsed by the
//! element itself each time: it belongs to no sample.

use std::sync::Arc;

use serde_json::Value;

use super::extractors::utf8_text;
use crate::query::html_parse::{parse_html, HtmlDocument};
use crate::query::json_tape::TapeIndex;
use crate::query::xml_dom::Dom;
use crate::query::xml_load::{load, LoadError, ParseOptions};
use crate::sample::SampleResult;

/// The index of the body read as text (see `utf8_text`), `None` when it cannot be
/// indexed (not JSON, or a document only `serde_json` reads for certain).
pub fn json_index(result: &SampleResult) -> Arc<Option<TapeIndex>> {
    result.parsed(0, |body| TapeIndex::build(&utf8_text(body)))
}

/// The body as a JSON tree, or `serde_json`'s message when it is not JSON.
pub fn json_tree(result: &SampleResult) -> Arc<Result<Value, String>> {
    result.parsed(0, |body| {
        serde_json::from_str(&utf8_text(body)).map_err(|e| e.to_string())
    })
}

/// The body as JMeter's XPath elements build their document with `options`.
pub fn xml_document(result: &SampleResult, options: ParseOptions) -> Arc<Result<Dom, LoadError>> {
    let variant = u64::from(options.tolerant)
        | u64::from(options.namespace) << 1
        | u64::from(options.report_errors) << 2;
    result.parsed(variant, |body| load(&utf8_text(body), options))
}

/// The body parsed as HTML, as a browser would.
pub fn html_document(result: &SampleResult) -> Arc<HtmlDocument> {
    result.parsed(0, |body| parse_html(&utf8_text(body)))
}
