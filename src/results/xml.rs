//! XML `.jtl` samples, byte for byte as JMeter 5.6.3 writes them (its XStream converters
//! `SampleResultConverter` / `HTTPResultConverter` through XStream's `PrettyPrintWriter`).
//!
//! One `<sample>` or `<httpSample>` per recorded sample, attributes in a fixed order and only
//! when enabled, then children in marshal order: assertion results, nested sub-samples,
//! headers, response data and file, sampler data (or the HTTP request fields) and the URL.
//! Children are indented by two spaces per level; an element without children is written
//! `<x .../>`, a text element with empty text `<x class="java.lang.String"></x>`.

use super::SaveConfig;

use crate::sample::AssertionResult;

use crate::sample::SampleResult;

/// The first lines of a new XML file (without the optional `xml_pi` line).
pub const XML_DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
/// The root element's start tag, written after the declaration.
pub const TEST_RESULTS_START: &str = "<testResults version=\"1.2\">\n";
/// The closing tag JMeter looks for (and cuts off) when appending to an XML file.
pub const TEST_RESULTS_END: &str = "</testResults>";

/// Appends the start of a new XML results file.
pub fn write_xml_file_start(out: &mut String, config: &SaveConfig) {
    out.push_str(XML_DECLARATION);
    if !config.xml_pi.is_empty() {
        out.push_str(&config.xml_pi);
        out.push('\n');
    }
    out.push_str(TEST_RESULTS_START);
}

/// Appends the end of an XML results file: a blank line, then the closing tag.
pub fn write_xml_file_end(out: &mut String) {
    out.push('\n');
    out.push_str(TEST_RESULTS_END);
    out.push('\n');
}

/// Appends one recorded sample (with its nested sub-samples) and a line feed. Sample variables
/// and the host name are the top-level sample's, on nested samples too, as in JMeter.
pub fn write_xml_sample(out: &mut String, config: &SaveConfig, sample: &SampleResult, host: &str) {
    let writer = SampleWriter {
        config,
        variables: &sample.sample_variables,
        host,
    };
    writer.element(out, sample, 0);
    out.push('\n');
}

/// What stays the same for a sample and all its nested samples.
struct SampleWriter<'a> {
    config: &'a SaveConfig,
    variables: &'a [Option<String>],
    host: &'a str,
}

impl SampleWriter<'_> {
    fn element(&self, out: &mut String, sample: &SampleResult, depth: usize) {
        let tag = if sample.is_http {
            "httpSample"
        } else {
            "sample"
        };
        out.push('<');
        out.push_str(tag);
        self.attributes(out, sample);
        let mut children = Vec::new();
        self.children(&mut children, sample, depth + 1);
        if children.is_empty() {
            out.push_str("/>");
            return;
        }
        out.push('>');
        for child in children {
            newline(out, depth + 1);
            out.push_str(&child);
        }
        newline(out, depth);
        out.push_str("</");
        out.push_str(tag);
        out.push('>');
    }

    fn attributes(&self, out: &mut String, s: &SampleResult) {
        let c = self.config;
        let mut attr = |on: bool, name: &str, value: &str| {
            if on {
                attribute(out, name, value);
            }
        };
        attr(c.time, "t", &s.elapsed.to_string());
        attr(c.idle_time, "it", &s.idle_time.to_string());
        attr(c.latency, "lt", &s.latency.to_string());
        attr(c.connect_time, "ct", &s.connect_time.to_string());
        attr(c.timestamp, "ts", &c.timestamp_of(s).to_string());
        attr(c.success, "s", if s.success { "true" } else { "false" });
        attr(c.label, "lb", &s.label);
        attr(c.code, "rc", &s.response_code);
        attr(c.message, "rm", &s.response_message);
        attr(c.thread_name, "tn", &s.thread_name);
        attr(c.data_type, "dt", s.data_type);
        attr(c.encoding, "de", &s.data_encoding);
        attr(c.bytes, "by", &s.bytes().to_string());
        attr(c.sent_bytes, "sby", &s.sent_bytes.to_string());
        attr(c.sample_count, "sc", &s.sample_count.to_string());
        attr(c.sample_count, "ec", &s.error_count.to_string());
        attr(c.thread_counts, "ng", &s.grp_threads.to_string());
        attr(c.thread_counts, "na", &s.all_threads.to_string());
        attr(c.hostname, "hn", self.host);
        for (i, name) in c.sample_variables.iter().enumerate() {
            let value = self.variables.get(i).and_then(Option::as_deref);
            attr(true, &encode_name(name), value.unwrap_or(""));
        }
    }

    /// Each child element, already rendered for nesting level `depth`.
    fn children(&self, children: &mut Vec<String>, s: &SampleResult, depth: usize) {
        let c = self.config;
        if c.assertions {
            children.extend(s.assertions.iter().map(|a| assertion(a, depth)));
        }
        if c.subresults {
            for sub in &s.subresults {
                let mut child = String::new();
                self.element(&mut child, sub, depth);
                children.push(child);
            }
        }
        if c.response_headers {
            children.push(string_element("responseHeader", &s.response_headers));
        }
        if c.request_headers {
            children.push(string_element("requestHeader", &s.request_headers));
        }
        if c.save_response_data(s.success) {
            children.push(string_element("responseData", &response_text(c, s)));
        }
        if c.file_name {
            children.push(string_element("responseFile", &s.result_file_name));
        }
        if s.is_http {
            http_request_children(children, c, s);
        } else {
            if c.save_sampler_data(s.success) && !s.sampler_data.is_empty() {
                children.push(string_element("samplerData", &s.sampler_data));
            }
            if let (true, Some(url)) = (c.url, &s.url) {
                children.push(url_element(url));
            }
        }
    }
}

/// The HTTP converter writes the request as cookies, method, query string and redirect
/// location, and the URL even when there is none (XStream's `<null/>`).
fn http_request_children(children: &mut Vec<String>, c: &SaveConfig, s: &SampleResult) {
    if c.save_sampler_data(s.success) {
        children.push(string_element("cookies", &s.cookies));
        if !s.http_method.is_empty() {
            children.push(string_element("method", &s.http_method));
        }
        children.push(string_element("queryString", &s.query_string));
        if let Some(location) = &s.redirect_location {
            children.push(string_element("redirectLocation", location));
        }
    }
    if c.url {
        children.push(match &s.url {
            Some(url) => url_element(url),
            None => "<null/>".to_string(),
        });
    }
}

fn newline(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn attribute(out: &mut String, name: &str, value: &str) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    escape_into(out, value, true);
    out.push('"');
}

/// `<tag class="java.lang.String">text</tag>`.
fn string_element(tag: &str, text: &str) -> String {
    let mut out = format!("<{tag} class=\"java.lang.String\">");
    escape_into(&mut out, text, false);
    out.push_str("</");
    out.push_str(tag);
    out.push('>');
    out
}

fn url_element(url: &str) -> String {
    let mut out = String::from("<java.net.URL>");
    escape_into(&mut out, url, false);
    out.push_str("</java.net.URL>");
    out
}

/// An `<assertionResult>` as XStream's reflection converter writes it: the fields in
/// declaration order, the failure message only when set.
fn assertion(a: &AssertionResult, depth: usize) -> String {
    let mut out = String::from("<assertionResult>");
    let mut field = |name: &str, value: &str| {
        newline(&mut out, depth + 1);
        out.push('<');
        out.push_str(name);
        out.push('>');
        escape_into(&mut out, value, false);
        out.push_str("</");
        out.push_str(name);
        out.push('>');
    };
    field("name", &a.name);
    field("failure", if a.failure { "true" } else { "false" });
    field("error", if a.error { "true" } else { "false" });
    if let Some(message) = &a.failure_message {
        field("failureMessage", message);
    }
    newline(&mut out, depth);
    out.push_str("</assertionResult>");
    out
}

/// The response body as text, or JMeter's placeholder for non-text data types.
fn response_text(config: &SaveConfig, s: &SampleResult) -> String {
    if s.data_type != "text" {
        return format!("Non-TEXT response data, cannot record: ({})", s.data_type);
    }
    decode(&s.response_data, config.encoding_of(s))
}

/// Decodes response bytes in the sample's charset: the single-byte Latin ones by hand,
/// everything else as UTF-8.
fn decode(bytes: &[u8], charset: &str) -> String {
    let charset = charset.to_ascii_lowercase();
    match charset.as_str() {
        "iso-8859-1" | "iso8859_1" | "latin1" | "l1" => bytes.iter().map(|&b| b as char).collect(),
        "us-ascii" | "ascii" => bytes
            .iter()
            .map(|&b| if b < 0x80 { b as char } else { '\u{fffd}' })
            .collect(),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// XStream's text escaping (quirks mode): markup characters and CR as entities; control
/// characters as hex references; TAB and LF kept in text but escaped in attributes.
fn escape_into(out: &mut String, text: &str, is_attribute: bool) {
    for c in text.chars() {
        match c {
            '\0' => out.push_str("&#x0;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#xd;"),
            '\t' | '\n' if !is_attribute => out.push(c),
            c if c.is_control() || c == '\u{fffe}' || c == '\u{ffff}' => {
                out.push_str(&format!("&#x{:x};", c as u32));
            }
            c => out.push(c),
        }
    }
}

/// XStream's XML-friendly name coding, for sample variable attribute names: `$` becomes
/// `_-`, `_` becomes `__`, and characters not allowed in a name become `_.` and 4 hex digits.
pub(super) fn encode_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for (i, c) in name.chars().enumerate() {
        match c {
            '$' => out.push_str("_-"),
            '_' => out.push_str("__"),
            c if is_name_char(c, i == 0) => out.push(c),
            c => out.push_str(&format!("_.{:04x}", c as u32)),
        }
    }
    out
}

fn is_name_char(c: char, first: bool) -> bool {
    let start = c.is_ascii_alphabetic() || c == ':' || (!c.is_ascii() && c.is_alphabetic());
    start || (!first && (c.is_ascii_digit() || c == '-' || c == '.' || c == '\u{b7}'))
}

#[cfg(test)]
#[path = "xml_tests.rs"]
mod tests;
