//! Query engines over response documents: the XML/HTML tree and XPath 1/2, CSS
//! selectors with jsoup's meaning, JSONPath as Jayway reads it (over `serde_json` values
//! or a borrowed index of the JSON text), and JMESPath.
//!
//! Extractors and assertions in `plan`, and functions in `expr` (`__XPath`), compile their
//! expressions here once at plan time and evaluate them per sample. Nothing here knows of
//! elements, users or samples: a query takes a document and gives values.
//!
//! * XML and HTML: [`xml_dom`] is the tree, [`xml_load`] turns a response into one as
//!   JMeter's `XPathUtil` does (tolerant or strict, namespaces), [`html_parse`] parses HTML
//!   as a browser does; [`xpath`] evaluates what [`xpath_parse`] (over [`xpath_lexer`])
//!   compiled, with [`xpath_functions`].
//! * CSS: [`css_select`] matches selectors over the tree; [`css_text`] gives jsoup's texts.
//! * JSON: [`jsonpath`] (with [`jsonpath_filter`] and [`jsonpath_node`], the document
//!   interface) runs over `serde_json` values or the [`json_tape`] index; [`json_text`] writes values as JMeter writes them;
//!   [`jmespath`] with [`jmespath_functions`].

pub mod css_select;
pub mod css_text;
pub mod html_parse;
pub mod jmespath;
pub mod jmespath_functions;
pub mod json_tape;
pub mod json_text;
pub mod jsonpath;
pub mod jsonpath_filter;
pub mod jsonpath_node;
pub mod xml_dom;
pub mod xml_load;
pub mod xpath;
pub mod xpath_functions;
pub mod xpath_lexer;
pub mod xpath_parse;

#[cfg(test)]
pub(crate) mod test_support;
