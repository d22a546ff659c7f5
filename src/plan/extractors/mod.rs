//! Post-processors (reference §10): the Regular Expression, Boundary, JSON, JSON
//! JMESPath, XPath, XPath2 and CSS Selector Extractors, which pull values out of a
//! sample into variables, and the Debug PostProcessor. The query languages they speak
//! live in `query`.
//!
//! Each is built once at plan time (expressions compiled, a bad one reported with its
//! location) and runs through [`PostProcessor`] after its sampler, before assertions.
//! What they share lives here: the "field to check" ([`Field`]), the "apply to" scope
//! ([`Scope`]: main sample, sub-samples, both, or a variable) and JMeter's choice of one
//! match among several ([`pick`]).

mod boundary;
mod css_extractor;
mod debug;
mod jmespath_extractor;
mod json;
mod json_path_plugin;
mod regex;
mod xpath2_extractor;
pub(crate) mod xpath_extractor;
pub(crate) mod xpath_query;

use std::borrow::Cow;
use std::sync::Arc;

use rand::Rng;

use super::{BuildContext, PostProcessor};
use crate::expr::Template;
use crate::sample::SampleResult;
use crate::user_state::UserState;

pub use self::boundary::BoundaryExtractor;
pub use self::css_extractor::CssExtractor;
pub use self::debug::DebugPostProcessor;
pub use self::jmespath_extractor::JmesPathExtractor;
pub use self::json::JsonExtractor;
pub use self::regex::RegexExtractor;
pub use self::xpath2_extractor::XPath2Extractor;
pub use self::xpath_extractor::XPathExtractor;

/// Builds the post-processor `class`, or `None` when it is not one of these.
pub fn build(class: &str, cx: &mut BuildContext<'_>) -> Option<Arc<dyn PostProcessor>> {
    Some(match class {
        "RegexExtractor" => Arc::new(RegexExtractor::build(cx)),
        "BoundaryExtractor" => Arc::new(BoundaryExtractor::build(cx)),
        "JSONPostProcessor" => Arc::new(JsonExtractor::build(cx)),
        "DebugPostProcessor" => Arc::new(DebugPostProcessor::build(cx)),
        "JMESPathExtractor" => Arc::new(JmesPathExtractor::build(cx)),
        "XPathExtractor" => Arc::new(XPathExtractor::build(cx)),
        "HtmlExtractor" => Arc::new(CssExtractor::build(cx)),
        "XPath2Extractor" => Arc::new(XPath2Extractor::build(cx)),
        super::fifo::PUT_CLASS => Arc::new(super::fifo::FifoPut::build(cx)),
        json_path_plugin::CLASS => Arc::new(json_path_plugin::JsonPathPluginExtractor::build(cx)),
        _ => return None,
    })
}

/// What part of a sample an extractor reads (`*.useHeaders`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Body,
    /// The body with HTML entities decoded.
    Unescaped,
    /// Text extracted from a document; jmxr reads the body as text.
    Document,
    Headers,
    RequestHeaders,
    Url,
    Code,
    Message,
}

impl Field {
    pub fn parse(text: &str) -> Field {
        match text {
            "true" => Field::Headers,
            "request_headers" => Field::RequestHeaders,
            "unescaped" => Field::Unescaped,
            "as_document" => Field::Document,
            "URL" => Field::Url,
            "code" => Field::Code,
            "message" => Field::Message,
            _ => Field::Body,
        }
    }

    pub fn input<'r>(&self, result: &'r SampleResult) -> Cow<'r, str> {
        match self {
            Field::Body | Field::Document => utf8_text(&result.response_data),
            Field::Unescaped => Cow::Owned(crate::expr::unescape_html4(&utf8_text(
                &result.response_data,
            ))),
            Field::Headers => Cow::Borrowed(&result.response_headers),
            Field::RequestHeaders => Cow::Borrowed(&result.request_headers),
            Field::Url => Cow::Borrowed(result.url.as_deref().unwrap_or("")),
            Field::Code => Cow::Borrowed(&result.response_code),
            Field::Message => Cow::Borrowed(&result.response_message),
        }
    }

    /// The field as bytes: the body undecoded (a search for a literal finds the same
    /// matches in it as in its lossy decoding, without checking the whole body first),
    /// any other field as its text.
    pub fn input_bytes<'r>(&self, result: &'r SampleResult) -> Cow<'r, [u8]> {
        match self {
            Field::Body | Field::Document => Cow::Borrowed(&result.response_data),
            _ => match self.input(result) {
                Cow::Borrowed(text) => Cow::Borrowed(text.as_bytes()),
                Cow::Owned(text) => Cow::Owned(text.into_bytes()),
            },
        }
    }
}

/// Which samples (or which variable) an extractor reads (`Sample.scope`).
pub enum Scope {
    Parent,
    Children,
    All,
    Variable(Template),
}

impl Scope {
    pub fn build(cx: &mut BuildContext<'_>) -> Scope {
        match cx.raw("Sample.scope").unwrap_or("parent") {
            "children" => Scope::Children,
            "all" => Scope::All,
            "variable" => Scope::Variable(cx.template("Scope.variable")),
            _ => Scope::Parent,
        }
    }

    /// The texts to read, in JMeter's order (main sample, then sub-samples depth
    /// first). A variable scope naming an unset variable gives nothing.
    pub fn inputs<'r>(
        &self,
        result: &'r SampleResult,
        user: &mut UserState,
        field: impl Fn(&'r SampleResult) -> Cow<'r, str>,
    ) -> Vec<Cow<'r, str>> {
        self.collect(result, user, field, |value| value.to_string())
    }

    /// The samples in scope in JMeter's order, or the scope variable's text: for elements
    /// that read the body through a parsed form shared with the sample's other elements
    /// (`response_forms`).
    pub fn sources<'r>(&self, result: &'r SampleResult, user: &mut UserState) -> Vec<Source<'r>> {
        let mut out = Vec::new();
        match self {
            Scope::Variable(name) => {
                let name = name.eval(&mut user.eval(""));
                if let Some(value) = user.vars.get(&name) {
                    out.push(Source::Variable(value.to_string()));
                }
            }
            Scope::Parent => out.push(Source::Sample(result)),
            Scope::Children => push_child_samples(result, &mut out),
            Scope::All => {
                out.push(Source::Sample(result));
                push_child_samples(result, &mut out);
            }
        }
        out
    }

    /// [`Scope::inputs`] as bytes, for searches that read the body undecoded.
    pub fn byte_inputs<'r>(
        &self,
        result: &'r SampleResult,
        user: &mut UserState,
        field: impl Fn(&'r SampleResult) -> Cow<'r, [u8]>,
    ) -> Vec<Cow<'r, [u8]>> {
        self.collect(result, user, field, |value| value.as_bytes().to_vec())
    }

    fn collect<'r, T: ?Sized + ToOwned>(
        &self,
        result: &'r SampleResult,
        user: &mut UserState,
        field: impl Fn(&'r SampleResult) -> Cow<'r, T>,
        variable: impl FnOnce(&str) -> T::Owned,
    ) -> Vec<Cow<'r, T>> {
        let mut out = Vec::new();
        match self {
            Scope::Variable(name) => {
                let name = name.eval(&mut user.eval(""));
                if let Some(value) = user.vars.get(&name) {
                    out.push(Cow::Owned(variable(value)));
                }
            }
            Scope::Parent => out.push(field(result)),
            Scope::Children => push_children(result, &field, &mut out),
            Scope::All => {
                out.push(field(result));
                push_children(result, &field, &mut out);
            }
        }
        out
    }
}

/// Where an element reads a response from.
pub enum Source<'r> {
    Sample(&'r SampleResult),
    Variable(String),
}

fn push_child_samples<'r>(result: &'r SampleResult, out: &mut Vec<Source<'r>>) {
    for sub in &result.subresults {
        out.push(Source::Sample(sub));
        push_child_samples(sub, out);
    }
}

fn push_children<'r, T: ?Sized + ToOwned>(
    result: &'r SampleResult,
    field: &impl Fn(&'r SampleResult) -> Cow<'r, T>,
    out: &mut Vec<Cow<'r, T>>,
) {
    for sub in &result.subresults {
        out.push(field(sub));
        push_children(sub, field, out);
    }
}

/// `bytes` as text, invalid UTF-8 replaced: `String::from_utf8_lossy`, but a valid
/// body (the usual case) is checked with SIMD first, about three times faster than
/// `str::from_utf8` on a 10 KiB body; every extractor and assertion on the body pays it.
pub fn utf8_text(bytes: &[u8]) -> Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// JMeter's choice among `count` matches for match number `number`: `0` a random one,
/// `n` the n-th; `None` when there is no such match.
pub fn pick(number: i64, count: usize, user: &mut UserState) -> Option<usize> {
    if count == 0 {
        return None;
    }
    match number {
        0 => Some(user.rng.gen_range(0..count)),
        n if n > 0 && (n as usize) <= count => Some(n as usize - 1),
        _ => None,
    }
}

/// Removes `name_1..` as far as `count`, as extractors do with a previous extraction's
/// leftovers.
pub fn remove_numbered(user: &mut UserState, name: &str, from: usize, to: usize) {
    for i in from..=to {
        user.vars.remove(&format!("{name}_{i}"));
    }
}

/// The previous `name_matchNr`, removed, as a count (0 when absent or not a number).
pub fn take_match_count(user: &mut UserState, name: &str) -> usize {
    // Built by hand: `format!` costs several times as much, on every sample.
    let mut key = String::with_capacity(name.len() + 8);
    key.push_str(name);
    key.push_str("_matchNr");
    user.vars
        .remove(&key)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0)
}

#[cfg(test)]
pub(crate) mod test_support;
