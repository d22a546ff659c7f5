//! Reading XML `.jtl` files back for the dashboard (`-g`), one top-level sample at a time.
//!
//! JMeter's report generator reads only CSV; jmxr also reads the XML layout its own writer
//! ([`super::xml`]) and JMeter's XStream converters produce, so that a suite configured with
//! `jmeter.save.saveservice.output_format=xml` still gets its dashboard. Each top-level
//! `<sample>` or `<httpSample>` under `<testResults>` is one record, as its CSV row would
//! be: nested sub-samples belong to their parent and are not counted again, and the
//! failure message is the first `<assertionResult>`'s `<failureMessage>`, as JMeter's
//! CSV writer picks it. The attributes the report needs must be there; the others count
//! as 0 or empty.
//!
//! The file is streamed with quick-xml (no tree is built and nesting costs no stack), so
//! memory follows the largest single element, not the file. A file that ends inside a
//! sample (a run killed mid-write) loses that sample with a warning, as the CSV reader
//! does with a half-written last line; any other malformed XML is an error naming the file
//! and line.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use quick_xml::events::{BytesStart, Event};
use quick_xml::XmlVersion;

use super::aggregate_graphs_custom::custom_value;
use super::read::{parse_int, JtlReader, JtlRecord, ReadError};
use super::xml::encode_name;
use super::SaveConfig;

/// The attributes a record needs, with the CSV column each stands for and the
/// `jmeter.save.saveservice` property that writes it.
const REQUIRED: &[(&str, &str, &str)] = &[
    ("t", "elapsed", "time"),
    ("lt", "Latency", "latency"),
    ("ts", "timeStamp", "timestamp"),
    ("s", "success", "success"),
    ("lb", "label", "label"),
    ("rc", "responseCode", "code"),
    ("rm", "responseMessage", "message"),
    ("tn", "threadName", "thread_name"),
    ("by", "bytes", "bytes"),
    ("ng", "grpThreads", "thread_counts"),
    ("na", "allThreads", "thread_counts"),
];

/// CSV column names of the numeric columns and their XML attributes, for custom graphs
/// that plot a native column.
const NATIVE_ATTRIBUTES: &[(&str, &str)] = &[
    ("timeStamp", "ts"),
    ("elapsed", "t"),
    ("bytes", "by"),
    ("sentBytes", "sby"),
    ("grpThreads", "ng"),
    ("allThreads", "na"),
    ("Latency", "lt"),
    ("IdleTime", "it"),
    ("Connect", "ct"),
    ("SampleCount", "sc"),
    ("ErrorCount", "ec"),
];

/// Streams records from one XML `.jtl`.
pub struct XmlJtlReader<R: BufRead> {
    xml: quick_xml::Reader<LineCounter<R>>,
    path: PathBuf,
    buf: Vec<u8>,
    /// Elements open around the reader's position (`testResults` is depth 1).
    depth: usize,
    /// The root element has been seen and is a `<testResults>`.
    in_results: bool,
    /// `</testResults>` has been read: nothing more to return.
    finished: bool,
    custom: CustomValues,
    warnings: Vec<String>,
}

impl<R: BufRead> XmlJtlReader<R> {
    pub fn new(input: R, path: &Path) -> XmlJtlReader<R> {
        let mut xml = quick_xml::Reader::from_reader(LineCounter {
            inner: input,
            lines: 0,
            at_end: false,
        });
        xml.config_mut().check_end_names = true;
        XmlJtlReader {
            xml,
            path: path.to_path_buf(),
            buf: Vec::new(),
            depth: 0,
            in_results: false,
            finished: false,
            custom: CustomValues::default(),
            warnings: Vec::new(),
        }
    }

    /// Asks for the values of `names` (sample variables, or numeric CSV column names) in
    /// every record's `custom`; a value the sample lacks gives `None`.
    pub fn want_variables(&mut self, names: &[String]) {
        self.custom.attributes = names
            .iter()
            .map(
                |name| match NATIVE_ATTRIBUTES.iter().find(|(c, _)| c == name) {
                    Some((_, attribute)) => attribute.to_string(),
                    None => encode_name(name),
                },
            )
            .collect();
    }

    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The next record, `Ok(None)` at the end.
    pub fn next_record(&mut self, record: &mut JtlRecord) -> Result<Option<()>, ReadError> {
        while !self.finished {
            self.buf.clear();
            let event = match self.xml.read_event_into(&mut self.buf) {
                Ok(event) => event,
                Err(err) => return self.failed(self.error(err.to_string())),
            };
            let is_empty = matches!(event, Event::Empty(_));
            match event {
                Event::Start(start) | Event::Empty(start) if self.depth == 0 => {
                    let name = start.name().as_ref().to_string();
                    if name != "testResults" {
                        return Err(self.error(format!(
                            "not a JMeter results file: the root element is <{name}>, \
                             not <testResults>"
                        )));
                    }
                    self.in_results = true;
                    self.depth = 1;
                    if is_empty {
                        self.finished = true;
                    }
                }
                Event::Start(start) => {
                    self.depth += 1;
                    if is_sample(&start) {
                        let at = Location::of(&self.path, &self.xml);
                        if let Err(err) = sample_attributes(&start, record, &mut self.custom, &at) {
                            return self.failed(err);
                        }
                        return match self.read_children(record)? {
                            true => Ok(Some(())),
                            false => Ok(None),
                        };
                    }
                }
                Event::Empty(start) if is_sample(&start) => {
                    let at = Location::of(&self.path, &self.xml);
                    if let Err(err) = sample_attributes(&start, record, &mut self.custom, &at) {
                        return self.failed(err);
                    }
                    record.failure_message.clear();
                    return Ok(Some(()));
                }
                Event::End(_) => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        self.finished = true;
                    }
                }
                Event::Eof => {
                    if !self.in_results {
                        return Err(self.error("no <testResults> element".into()));
                    }
                    self.finished = true;
                }
                _ => {}
            }
        }
        Ok(None)
    }

    /// Reads up to the end tag of the sample just started: the first assertion failure
    /// message becomes the record's. `Ok(false)` when the file ended first.
    fn read_children(&mut self, record: &mut JtlRecord) -> Result<bool, ReadError> {
        let sample_depth = self.depth;
        // Inside a child `<assertionResult>`, and inside its `<failureMessage>`.
        let mut in_assertion = false;
        let mut capturing = false;
        let mut message: Option<String> = None;
        loop {
            self.buf.clear();
            let event = match self.xml.read_event_into(&mut self.buf) {
                Ok(event) => event,
                Err(err) => return self.failed(self.error(err.to_string())).map(|_| false),
            };
            match event {
                Event::Start(start) => {
                    self.depth += 1;
                    let name = start.name();
                    let level = self.depth - sample_depth;
                    if level == 1 {
                        in_assertion = name.as_ref() == "assertionResult";
                    }
                    capturing = level == 2
                        && in_assertion
                        && name.as_ref() == "failureMessage"
                        && message.is_none();
                    if capturing {
                        message = Some(String::new());
                    }
                }
                Event::Text(text) if capturing => {
                    if let Some(m) = message.as_mut() {
                        m.push_str(&text.xml_content(XmlVersion::Implicit1_0));
                    }
                }
                Event::CData(text) if capturing => {
                    if let Some(m) = message.as_mut() {
                        m.push_str(&text.xml_content(XmlVersion::Implicit1_0));
                    }
                }
                Event::GeneralRef(reference) if capturing => {
                    let resolved = match reference.resolve_char_ref() {
                        Ok(Some(c)) => Some(c.to_string()),
                        Ok(None) => quick_xml::escape::resolve_predefined_entity(&reference)
                            .map(str::to_string),
                        Err(_) => None,
                    };
                    let Some(resolved) = resolved else {
                        let at = Location::of(&self.path, &self.xml);
                        return Err(at.error(format!("unknown entity &{};", &*reference)));
                    };
                    if let Some(m) = message.as_mut() {
                        m.push_str(&resolved);
                    }
                }
                Event::End(_) => {
                    capturing = false;
                    self.depth -= 1;
                    if self.depth == sample_depth {
                        in_assertion = false;
                    }
                    if self.depth < sample_depth {
                        record.failure_message.clear();
                        if let Some(m) = message {
                            record.failure_message.push_str(&m);
                        }
                        return Ok(true);
                    }
                }
                Event::Eof => {
                    self.truncated();
                    return Ok(false);
                }
                _ => {}
            }
        }
    }

    /// A parse failure: at the end of a cut-off file it is the half-written last sample
    /// (a warning); anywhere else an error.
    fn failed(&mut self, error: ReadError) -> Result<Option<()>, ReadError> {
        if self.xml.get_ref().at_end {
            self.truncated();
            return Ok(None);
        }
        Err(error)
    }

    fn truncated(&mut self) {
        self.finished = true;
        self.warnings.push(format!(
            "{}:{}: the file ends inside a sample; that last sample is ignored",
            self.path.display(),
            self.xml.get_ref().lines + 1
        ));
    }

    fn error(&self, message: String) -> ReadError {
        Location::of(&self.path, &self.xml).error(message)
    }
}

/// The values [`JtlRecord::custom`] holds: which attributes, and this sample's texts.
#[derive(Default)]
struct CustomValues {
    attributes: Vec<String>,
    texts: Vec<Option<String>>,
}

/// Where the parser is, for error messages.
struct Location<'a> {
    path: &'a Path,
    line: u64,
}

impl<'a> Location<'a> {
    fn of<R>(path: &'a Path, xml: &quick_xml::Reader<LineCounter<R>>) -> Location<'a> {
        Location {
            path,
            line: xml.get_ref().lines + 1,
        }
    }

    fn error(&self, message: String) -> ReadError {
        ReadError::Record {
            path: self.path.to_path_buf(),
            line: self.line,
            message,
        }
    }
}

/// Fills `record` from a sample's attributes.
fn sample_attributes(
    start: &BytesStart,
    record: &mut JtlRecord,
    custom: &mut CustomValues,
    at: &Location,
) -> Result<(), ReadError> {
    let name = start.name();
    let tag: &str = name.as_ref();
    let mut seen = [false; REQUIRED.len()];
    record.sent_bytes = 0;
    record.connect = 0;
    custom.texts.clear();
    custom.texts.resize(custom.attributes.len(), None);
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|e| at.error(format!("in <{tag}>: {e}")))?;
        let key = attribute.key.as_ref();
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| at.error(format!("in <{tag}> attribute {key}: {e}")))?;
        if let Some(i) = REQUIRED.iter().position(|(a, _, _)| *a == key) {
            seen[i] = true;
        }
        for (i, name) in custom.attributes.iter().enumerate() {
            if name == key {
                custom.texts[i] = Some(value.to_string());
            }
        }
        let number = || {
            parse_int(value.as_bytes()).ok_or_else(|| {
                at.error(format!(
                    "in <{tag}> attribute {key} is not a number: {:?}",
                    value.trim()
                ))
            })
        };
        match key {
            "t" => record.elapsed = number()?,
            "lt" => record.latency = number()?,
            "ct" => record.connect = number()?,
            "ts" => record.timestamp = number()?,
            "by" => record.bytes = number()?,
            "sby" => record.sent_bytes = number()?,
            "ng" => record.grp_threads = number()?,
            "na" => record.all_threads = number()?,
            "s" => {
                record.success = match value.trim() {
                    s if s.eq_ignore_ascii_case("true") => true,
                    s if s.eq_ignore_ascii_case("false") => false,
                    s => {
                        return Err(at.error(format!(
                            "in <{tag}> attribute s is not true or false: {s:?}"
                        )))
                    }
                }
            }
            "lb" => replace(&mut record.label, &value),
            "rc" => replace(&mut record.response_code, &value),
            "rm" => replace(&mut record.response_message, &value),
            "tn" => replace(&mut record.thread_name, &value),
            _ => {}
        }
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        let (attribute, column, property) = REQUIRED[i];
        return Err(at.error(format!(
            "<{tag}> has no {attribute} attribute ({column}), which the report needs; \
             write it with jmeter.save.saveservice.{property}=true"
        )));
    }
    record.custom.clear();
    record.custom.extend(
        custom
            .texts
            .iter()
            .map(|text| custom_value(text.as_deref()?)),
    );
    Ok(())
}

fn is_sample(start: &BytesStart) -> bool {
    matches!(start.name().as_ref(), "sample" | "httpSample")
}

fn replace(to: &mut String, value: &str) {
    to.clear();
    to.push_str(value);
}

/// Counts the line breaks the XML parser has consumed, so that errors can name a line,
/// and notes when the input has run out.
struct LineCounter<R> {
    inner: R,
    lines: u64,
    at_end: bool,
}

impl<R: BufRead> std::io::Read for LineCounter<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(out)?;
        self.at_end |= n == 0 && !out.is_empty();
        self.lines += out[..n].iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for LineCounter<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        let available = self.inner.fill_buf()?;
        self.at_end |= available.is_empty();
        Ok(available)
    }

    fn consume(&mut self, amount: usize) {
        if let Ok(available) = self.inner.fill_buf() {
            let amount = amount.min(available.len());
            self.lines += available[..amount].iter().filter(|&&b| b == b'\n').count() as u64;
        }
        self.inner.consume(amount);
    }
}

/// A results file of either layout, told apart by its first characters: XML starts with
/// `<` (after a byte-order mark and blanks), CSV never does.
pub enum ResultsReader<R: BufRead> {
    Csv(Box<JtlReader<R>>),
    Xml(Box<XmlJtlReader<R>>),
}

impl<R: BufRead> ResultsReader<R> {
    /// Opens `input`: see [`JtlReader::new`] for the CSV arguments; XML needs none.
    pub fn open(
        mut input: R,
        path: &Path,
        save: &SaveConfig,
        timestamp_format: Option<&str>,
    ) -> Result<ResultsReader<R>, ReadError> {
        if starts_with_markup(&mut input).map_err(|source| ReadError::Io {
            path: path.to_path_buf(),
            source,
        })? {
            return Ok(ResultsReader::Xml(Box::new(XmlJtlReader::new(input, path))));
        }
        JtlReader::new(input, path, save, timestamp_format).map(|r| ResultsReader::Csv(Box::new(r)))
    }

    pub fn want_variables(&mut self, names: &[String]) {
        match self {
            ResultsReader::Csv(r) => r.want_variables(names),
            ResultsReader::Xml(r) => r.want_variables(names),
        }
    }

    pub fn next_record(&mut self, record: &mut JtlRecord) -> Result<Option<()>, ReadError> {
        match self {
            ResultsReader::Csv(r) => r.next_record(record),
            ResultsReader::Xml(r) => r.next_record(record),
        }
    }

    pub fn warnings(&self) -> &[String] {
        match self {
            ResultsReader::Csv(r) => r.warnings(),
            ResultsReader::Xml(r) => r.warnings(),
        }
    }
}

/// Whether the first character after a byte-order mark and blanks is `<`. Only looks at
/// what the first buffer fill holds (a file that starts with kilobytes of blanks is not a
/// results file of either kind).
fn starts_with_markup<R: BufRead>(input: &mut R) -> std::io::Result<bool> {
    let head = input.fill_buf()?;
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    Ok(head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<'))
}

#[cfg(test)]
#[path = "read_xml_tests.rs"]
mod tests;
