//! Response Assertion: tests a field of the sample (or a variable) against patterns.
//!
//! `Assertion.test_type` is a bit mask: one of MATCH (1), CONTAINS (2), EQUALS (8),
//! SUBSTRING (16), plus NOT (4) and OR (32). When the property is absent JMeter uses
//! CONTAINS. Messages are built from the raw mask as JMeter does, so an OR test reads
//! "expected something using" (JMeter's own wording for masks it has no verb for).
//!
//! The body is decoded only when a test needs its text: a search for a literal pattern
//! ([`Subject::find`]) reads the bytes, which gives the same answer without checking
//! the whole body's UTF-8 first.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::sync::Arc;

use memchr::memmem::{self, Finder};

use super::equals_diff::DiffStyle;
use super::pattern::{Pattern, RegexUse};
use super::{failure, passed, Check, Scope, RESPONSE_WAS_NULL};
use crate::expr::Template;
use crate::foundation::properties::Properties;
use crate::plan::extractors::utf8_text;
use crate::plan::{Assertion, BuildContext};
use crate::sample::AssertionResult;
use crate::sample::SampleResult;
use crate::user_state::EvalContext;

const MATCH: i64 = 1;
const CONTAINS: i64 = 2;
const NOT: i64 = 4;
const EQUALS: i64 = 8;
const SUBSTRING: i64 = 16;
const OR: i64 = 32;

/// The sample field tested (`Assertion.test_field`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    ResponseData,
    /// JMeter extracts text with Apache Tika; here the body is used as text.
    Document,
    Code,
    Message,
    ResponseHeaders,
    RequestHeaders,
    RequestData,
    /// `Assertion.sample_label`, and any value JMeter does not know: the sample's URL.
    Url,
}

impl Field {
    fn parse(text: Option<&str>) -> Field {
        match text {
            Some("Assertion.response_data") => Field::ResponseData,
            Some("Assertion.response_data_as_document") => Field::Document,
            Some("Assertion.response_code") => Field::Code,
            Some("Assertion.response_message") => Field::Message,
            Some("Assertion.response_headers") => Field::ResponseHeaders,
            Some("Assertion.request_headers") => Field::RequestHeaders,
            Some("Assertion.request_data") => Field::RequestData,
            _ => Field::Url,
        }
    }

    /// The word JMeter's messages use for the field.
    fn word(self) -> &'static str {
        match self {
            Field::ResponseData => "text",
            Field::Document => "document",
            Field::Code => "code",
            Field::Message => "message",
            Field::ResponseHeaders => "headers",
            Field::RequestHeaders => "request headers",
            Field::RequestData => "request data",
            Field::Url => "URL",
        }
    }

    fn read<'s>(self, sample: &'s SampleResult, props: &'s Properties) -> Subject<'s> {
        let text = match self {
            Field::ResponseData | Field::Document => {
                return Subject::Body {
                    sample,
                    props,
                    text: OnceCell::new(),
                }
            }
            Field::Code => &*sample.response_code,
            Field::Message => &*sample.response_message,
            Field::ResponseHeaders => &sample.response_headers,
            Field::RequestHeaders => &sample.request_headers,
            Field::RequestData => &sample.sampler_data,
            Field::Url => sample.url.as_deref().unwrap_or(""),
        };
        Subject::Text(Cow::Borrowed(text))
    }
}

/// Whether the body is read one character per byte, as JMeter's
/// `getResponseDataAsString` decodes it with the sample's encoding, else
/// `sampleresult.default.encoding`, else UTF-8 (JMeter 5.6's default).
fn single_byte_encoding(sample: &SampleResult, props: &Properties) -> bool {
    let configured;
    let encoding = if sample.data_encoding.is_empty() {
        configured = props.get_default("sampleresult.default.encoding", "UTF-8");
        configured.as_str()
    } else {
        &sample.data_encoding
    };
    const SINGLE_BYTE: [&str; 5] = ["iso-8859-1", "iso8859_1", "latin1", "us-ascii", "ascii"];
    SINGLE_BYTE
        .iter()
        .any(|name| encoding.eq_ignore_ascii_case(name))
}

/// The text a test reads: a field's text, or the body, decoded on first use.
enum Subject<'s> {
    Text(Cow<'s, str>),
    /// The body, read as [`single_byte_encoding`] says (else as UTF-8 with U+FFFD for
    /// an invalid sequence), which is only looked up when it matters.
    Body {
        sample: &'s SampleResult,
        props: &'s Properties,
        text: OnceCell<Cow<'s, str>>,
    },
}

impl Subject<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Subject::Text(text) => text.as_bytes(),
            Subject::Body { sample, .. } => &sample.response_data,
        }
    }

    /// Decoding never makes a non-empty body empty.
    fn is_empty(&self) -> bool {
        self.bytes().is_empty()
    }

    fn as_str(&self) -> &str {
        match self {
            Subject::Text(text) => text,
            Subject::Body {
                sample,
                props,
                text,
            } => text.get_or_init(|| {
                let bytes = &sample.response_data;
                if single_byte_encoding(sample, props) {
                    Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect())
                } else {
                    utf8_text(bytes)
                }
            }),
        }
    }

    /// Whether the text contains `needle` (`finder`, when built, searches for it).
    ///
    /// The undecoded body gives the same answer when the needle is valid UTF-8 without
    /// U+FFFD: its first byte is never a continuation byte, so wherever it occurs in the
    /// bytes the decoder is at a character start and reads it as itself, and an
    /// occurrence in the decoded text lies between replacements, in bytes that decoded
    /// as themselves. One byte per character keeps ASCII where it was and turns every
    /// other byte into two non-ASCII ones, so an ASCII needle is found there too.
    fn contains(&self, needle: &str, finder: Option<&Finder<'_>>) -> bool {
        let bytes_agree = match self {
            Subject::Text(_) => true,
            Subject::Body { .. } if needle.is_ascii() => true,
            Subject::Body { sample, props, .. } => {
                !single_byte_encoding(sample, props) && !needle.contains('\u{FFFD}')
            }
        };
        if !bytes_agree {
            return self.as_str().contains(needle);
        }
        match finder {
            Some(finder) => finder.find(self.bytes()).is_some(),
            None => memmem::find(self.bytes(), needle.as_bytes()).is_some(),
        }
    }
}

/// What is compared: one of the four exclusive test kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Regex(RegexUse),
    Equals,
    Substring,
}

impl Kind {
    /// JMeter checks the bits in this order, so a mask with several picks the first.
    fn from_mask(mask: i64) -> Kind {
        if mask & CONTAINS != 0 {
            Kind::Regex(RegexUse::Contains)
        } else if mask & EQUALS != 0 {
            Kind::Equals
        } else if mask & SUBSTRING != 0 {
            Kind::Substring
        } else {
            Kind::Regex(RegexUse::Matches)
        }
    }
}

/// The verb of the failure message, chosen on the whole mask as JMeter does.
fn verb(mask: i64) -> &'static str {
    match mask {
        CONTAINS | SUBSTRING => " expected to contain ",
        m if m == NOT | CONTAINS || m == NOT | SUBSTRING => " expected not to contain ",
        MATCH => " expected to match ",
        m if m == NOT | MATCH => " expected not to match ",
        EQUALS => " expected to equal ",
        m if m == NOT | EQUALS => " expected not to equal ",
        _ => " expected something using ",
    }
}

pub struct ResponseAssertion {
    name: Arc<str>,
    field: Field,
    /// The raw `Assertion.test_type` mask (messages depend on all of it).
    mask: i64,
    kind: Kind,
    patterns: Vec<Pattern>,
    /// "Ignore status": the sample is made successful before it is tested.
    assume_success: bool,
    custom_message: Template,
    scope: Scope,
}

impl ResponseAssertion {
    pub fn build(cx: &mut BuildContext<'_>) -> ResponseAssertion {
        let mask = match cx.raw("Assertion.test_type") {
            None => CONTAINS,
            Some(text) => text.trim().parse().unwrap_or(0),
        };
        let kind = Kind::from_mask(mask);
        let regex = match kind {
            Kind::Regex(usage) => Some(usage),
            Kind::Equals | Kind::Substring => None,
        };
        // JMeter's property name is misspelt; plans carry it that way.
        let texts: Vec<String> = cx
            .element
            .prop("Asserion.test_strings")
            .map(|p| {
                p.children()
                    .iter()
                    .filter_map(|s| s.as_str())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        let searched = matches!(kind, Kind::Regex(RegexUse::Contains) | Kind::Substring);
        let patterns = texts
            .iter()
            .map(|t| Pattern::build(t, regex, searched, cx))
            .collect();
        let field = Field::parse(cx.raw("Assertion.test_field"));
        if field == Field::Document {
            cx.warn(
                "\"Document (text)\" is tested on the response body as text: \
                 jmxr does not extract text from documents as JMeter's Tika does",
            );
        }
        ResponseAssertion {
            name: Arc::from(cx.element.name.as_str()),
            field,
            mask,
            kind,
            patterns,
            assume_success: cx.flag("Assertion.assume_success", false),
            custom_message: cx.template("Assertion.custom_message"),
            scope: Scope::build(cx),
        }
    }

    /// Runs one pattern: `Ok(found)` or the "Bad test configuration" detail.
    fn found(&self, pattern: &Pattern, text: &str, subject: &Subject) -> Result<bool, String> {
        match self.kind {
            Kind::Regex(RegexUse::Contains) if pattern.literal().is_some() => {
                Ok(subject.contains(text, pattern.literal()))
            }
            Kind::Regex(usage) => pattern.regex_test(text, usage, subject.as_str()),
            Kind::Equals => Ok(subject.as_str() == text),
            Kind::Substring => Ok(subject.contains(text, pattern.literal())),
        }
    }

    /// `Test failed: <field> expected to <verb> /<pattern or equals excerpt>/`.
    fn fail_text(
        &self,
        field: &str,
        pattern: &str,
        subject: &Subject,
        props: &Properties,
    ) -> String {
        let shown = match self.kind {
            Kind::Equals => {
                Cow::Owned(DiffStyle::from_props(props).excerpt(subject.as_str(), pattern))
            }
            _ => Cow::Borrowed(pattern),
        };
        format!("Test failed: {field}{}/{shown}/", verb(self.mask))
    }

    /// The custom message when set, else the generated one.
    fn message(&self, cx: &mut EvalContext<'_>, generated: impl FnOnce() -> String) -> String {
        let custom = self.custom_message.eval(cx);
        if custom.is_empty() {
            generated()
        } else {
            custom
        }
    }
}

impl Check for ResponseAssertion {
    fn name(&self) -> &Arc<str> {
        &self.name
    }

    fn check(&self, sample: &mut SampleResult, cx: &mut EvalContext<'_>) -> AssertionResult {
        if self.assume_success {
            sample.set_success(true);
        }
        let (field, subject): (Cow<str>, Subject) = match self.scope.variable_name(cx) {
            Some(variable) => {
                let value = cx.vars.get(&variable).unwrap_or("").to_string();
                (
                    Cow::Owned(format!("variable({variable})")),
                    Subject::Text(Cow::Owned(value)),
                )
            }
            None => (
                Cow::Borrowed(self.field.word()),
                self.field.read(sample, cx.props),
            ),
        };
        let props = cx.props;
        let not = self.mask & NOT != 0;
        let or = self.mask & OR != 0;
        if subject.is_empty() {
            // A NOT test always passes on an empty field.
            return if not {
                passed(&self.name)
            } else {
                failure(&self.name, RESPONSE_WAS_NULL)
            };
        }
        let mut or_messages = Vec::new();
        for pattern in &self.patterns {
            let text = pattern.text(cx);
            let found = match self.found(pattern, &text, &subject) {
                Ok(found) => found,
                Err(detail) => return bad_configuration(&self.name, detail),
            };
            let pass = found != not;
            match (or, pass) {
                (true, true) => return passed(&self.name),
                (true, false) => or_messages.push(self.fail_text(&field, &text, &subject, props)),
                (false, true) => {}
                (false, false) => {
                    let message =
                        self.message(cx, || self.fail_text(&field, &text, &subject, props));
                    return failure(&self.name, message);
                }
            }
        }
        if !or {
            return passed(&self.name);
        }
        // Java's `joining("\t", "", "\t")`: tab-separated plus a final tab, so a test
        // without patterns fails with a lone tab.
        let message = self.message(cx, || or_messages.join("\t") + "\t");
        failure(&self.name, message)
    }
}

/// An invalid pattern: an *error* result on the element, with JMeter's prefix.
fn bad_configuration(name: &Arc<str>, detail: String) -> AssertionResult {
    AssertionResult {
        name: name.clone(),
        failure: false,
        error: true,
        failure_message: Some(format!("Bad test configuration {detail}")),
    }
}

impl Assertion for ResponseAssertion {
    fn apply(&self, result: &mut SampleResult, cx: &mut EvalContext<'_>) {
        self.scope.apply(self, result, cx);
    }
}

#[cfg(test)]
mod tests;
