//! Reading CSV `.jtl` files back, one record at a time, for the dashboard (`-g`); XML ones
//! are read by [`super::read_xml`], which also picks the reader for a file.
//!
//! The reader takes any JMeter 2.x–5.x layout: a header line names the columns (any subset,
//! any order, quoted sample variables at the end); a file without a header is described by
//! the `jmeter.save.saveservice.*` properties, as JMeter's report generator does. Quoted
//! fields may span lines. The file is streamed: memory does not grow with its size.
//!
//! Bad input: a record that does not parse is an error naming the file and line, except the
//! very last one when the file does not end with a line break (a run killed mid-write),
//! which is skipped with a warning ([`JtlReader::warnings`]).

use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::aggregate_graphs_custom::custom_value;
use super::{csv_header, SaveConfig};
use crate::foundation::java_format::{Dialect, JavaDateFormat};

/// A reading failure, worded for the user.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Record {
        path: PathBuf,
        line: u64,
        message: String,
    },
    /// A column the report needs is missing; worded as JMeter words it.
    #[error("Error while processing samples: Consumer failed with message :No column <{column}> found in sample metadata <{metadata}>, check #jmeter.save.saveservice.* properties to add the missing column")]
    MissingColumn { column: String, metadata: String },
}

/// One sample as the report sees it: the columns the dashboard uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JtlRecord {
    /// `timeStamp` in epoch ms (start or end time, as the file was written).
    pub timestamp: i64,
    pub elapsed: i64,
    pub label: String,
    pub response_code: String,
    pub response_message: String,
    pub thread_name: String,
    pub success: bool,
    pub failure_message: String,
    pub bytes: i64,
    pub sent_bytes: i64,
    pub grp_threads: i64,
    pub all_threads: i64,
    pub latency: i64,
    pub connect: i64,
    /// Values of the variables asked for with [`JtlReader::want_variables`], in that order.
    pub custom: Vec<Option<f64>>,
}

/// Where each needed column sits in a record (`None`: absent; optional ones count as 0).
#[derive(Debug, Clone)]
struct Columns {
    count: usize,
    names: Vec<String>,
    timestamp: usize,
    elapsed: usize,
    label: usize,
    code: usize,
    message: usize,
    thread_name: usize,
    success: usize,
    failure_message: Option<usize>,
    bytes: usize,
    sent_bytes: Option<usize>,
    grp_threads: usize,
    all_threads: usize,
    latency: usize,
    connect: Option<usize>,
}

const KNOWN_COLUMNS: &[&str] = &[
    "timeStamp",
    "elapsed",
    "label",
    "responseCode",
    "responseMessage",
    "threadName",
    "dataType",
    "success",
    "failureMessage",
    "bytes",
    "sentBytes",
    "grpThreads",
    "allThreads",
    "URL",
    "Filename",
    "Latency",
    "Encoding",
    "SampleCount",
    "ErrorCount",
    "Hostname",
    "IdleTime",
    "Connect",
];

impl Columns {
    fn from_names(names: Vec<String>) -> Result<Columns, ReadError> {
        let find = |n: &str| names.iter().position(|c| c == n);
        let need = |n: &str| {
            find(n).ok_or_else(|| ReadError::MissingColumn {
                column: n.to_string(),
                metadata: names.join(","),
            })
        };
        Ok(Columns {
            count: names.len(),
            timestamp: need("timeStamp")?,
            elapsed: need("elapsed")?,
            label: need("label")?,
            code: need("responseCode")?,
            message: need("responseMessage")?,
            thread_name: need("threadName")?,
            success: need("success")?,
            failure_message: find("failureMessage"),
            bytes: need("bytes")?,
            sent_bytes: find("sentBytes"),
            grp_threads: need("grpThreads")?,
            all_threads: need("allThreads")?,
            latency: need("Latency")?,
            connect: find("Connect"),
            names,
        })
    }
}

/// How `timeStamp` is written.
#[derive(Debug, Clone)]
enum TimeFormat {
    /// Epoch ms, with JMeter's date fallbacks.
    Millis,
    /// A `SimpleDateFormat` pattern.
    Pattern(JavaDateFormat),
    /// A `timestamp_format` Java refuses, and why: no timestamp can be read.
    Invalid(String),
}

/// The `SimpleDateFormat` patterns JMeter tries, in order, when an `ms` timestamp is not a
/// number.
static FALLBACK_FORMATS: std::sync::LazyLock<Vec<JavaDateFormat>> =
    std::sync::LazyLock::new(|| {
        [
            "yyyy/MM/dd HH:mm:ss.SSS",
            "yyyy/MM/dd HH:mm:ss",
            "yyyy-MM-dd HH:mm:ss.SSS",
            "yyyy-MM-dd HH:mm:ss",
            "MM/dd/yy HH:mm:ss",
        ]
        .iter()
        .filter_map(|p| JavaDateFormat::compile(p, Dialect::SimpleDateFormat).ok())
        .collect()
    });

/// Streams records from one CSV `.jtl`.
pub struct JtlReader<R: BufRead> {
    input: R,
    path: PathBuf,
    delimiter: u8,
    columns: Columns,
    time_format: TimeFormat,
    /// Physical line number of the next line to read (1-based).
    line: u64,
    raw: Vec<u8>,
    fields: Fields,
    warnings: Vec<String>,
    /// A record read while looking for the header, to be returned first.
    pending: Option<(u64, Vec<u8>, bool)>,
    /// Columns of the variables [`JtlRecord::custom`] holds (`None`: not in this file).
    custom_columns: Vec<Option<usize>>,
    header_line: Option<String>,
}

impl<R: BufRead> JtlReader<R> {
    /// Opens a reader: reads the first line to decide whether it is a header.
    /// `timestamp_format` is `jmeter.save.saveservice.timestamp_format` (`None` or `ms`:
    /// epoch ms; otherwise a `SimpleDateFormat` pattern).
    pub fn new(
        input: R,
        path: &Path,
        save: &SaveConfig,
        timestamp_format: Option<&str>,
    ) -> Result<JtlReader<R>, ReadError> {
        let time_format = match timestamp_format {
            None => TimeFormat::Millis,
            Some(f) if f.eq_ignore_ascii_case("ms") || f.eq_ignore_ascii_case("none") => {
                TimeFormat::Millis
            }
            Some(f) => match JavaDateFormat::compile(f, Dialect::SimpleDateFormat) {
                Ok(pattern) => TimeFormat::Pattern(pattern),
                Err(err) => TimeFormat::Invalid(format!(
                    "the timestamp_format {f:?} is not a date pattern: {err}"
                )),
            },
        };
        let mut reader = JtlReader {
            input,
            path: path.to_path_buf(),
            delimiter: ascii_delimiter(save.delimiter),
            columns: Columns::from_names(KNOWN_COLUMNS.iter().map(|s| s.to_string()).collect())?,
            time_format,
            line: 1,
            raw: Vec::new(),
            fields: Fields::default(),
            warnings: Vec::new(),
            pending: None,
            custom_columns: Vec::new(),
            header_line: None,
        };
        reader.read_header(save)?;
        Ok(reader)
    }

    /// Asks for the values of columns `names` (sample variables, or native columns) in
    /// every record's `custom`, parsed as numbers; a column the file lacks gives `None`.
    pub fn want_variables(&mut self, names: &[String]) {
        self.custom_columns = names
            .iter()
            .map(|name| self.columns.names.iter().position(|c| c == name))
            .collect();
    }

    /// Warnings so far (a truncated last line).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The column names of the file (from its header, or from the properties).
    pub fn column_names(&self) -> &[String] {
        &self.columns.names
    }

    /// The field delimiter in use.
    pub fn delimiter(&self) -> u8 {
        self.delimiter
    }

    /// The file's header line (without its line end), if it began with one.
    pub fn header_line(&self) -> Option<&str> {
        self.header_line.as_deref()
    }

    /// A `timeStamp` field's value (unquoted) in epoch ms, read as this file writes it.
    pub fn read_timestamp(&self, field: &[u8]) -> Result<i64, String> {
        match (&self.time_format, parse_int(field)) {
            (TimeFormat::Millis, Some(ms)) => Ok(ms),
            (format, _) => parse_time(&String::from_utf8_lossy(field), format),
        }
    }

    /// Whether `timeStamp` is epoch milliseconds (not a date pattern).
    pub fn timestamps_in_ms(&self) -> bool {
        matches!(self.time_format, TimeFormat::Millis)
    }

    fn read_header(&mut self, save: &SaveConfig) -> Result<(), ReadError> {
        let start = self.line;
        let Some(complete) = self.read_raw_record()? else {
            return Ok(());
        };
        let text = String::from_utf8_lossy(&self.raw).trim_end().to_string();
        let opening = text.trim_start_matches('\u{feff}').trim_start();
        if opening.starts_with("<?xml") || opening.starts_with("<testResults") {
            return Err(ReadError::Record {
                path: self.path.clone(),
                line: start,
                message: "an XML results file, where CSV results are expected; write CSV \
                          with -Jjmeter.save.saveservice.output_format=csv"
                    .into(),
            });
        }
        if let Some((delimiter, names)) = header_names(&text, self.delimiter) {
            self.delimiter = delimiter;
            self.columns = Columns::from_names(names)?;
            self.header_line = Some(text);
            return Ok(());
        }
        let header = csv_header(save);
        let names = header
            .split(save.delimiter)
            .map(|n| n.trim_matches('"').to_string())
            .collect();
        self.columns = Columns::from_names(names)?;
        self.pending = Some((start, std::mem::take(&mut self.raw), complete));
        Ok(())
    }

    /// Reads physical lines into `raw` until quotes balance. `Ok(None)` at end of file;
    /// `Ok(Some(false))` when the file ended before the record's line break.
    fn read_raw_record(&mut self) -> Result<Option<bool>, ReadError> {
        self.raw.clear();
        let mut in_quotes = false;
        loop {
            let from = self.raw.len();
            let n = self
                .input
                .read_until(b'\n', &mut self.raw)
                .map_err(|source| ReadError::Io {
                    path: self.path.clone(),
                    source,
                })?;
            if n == 0 {
                return Ok((!self.raw.is_empty()).then_some(false));
            }
            self.line += 1;
            in_quotes ^= self.raw[from..].iter().filter(|&&b| b == b'"').count() % 2 == 1;
            if !in_quotes {
                return Ok(Some(self.raw.last() == Some(&b'\n')));
            }
        }
    }

    /// The next record, `Ok(None)` at the end.
    pub fn next_record(&mut self, record: &mut JtlRecord) -> Result<Option<()>, ReadError> {
        loop {
            let (line, complete) = match self.pending.take() {
                Some((line, raw, complete)) => {
                    self.raw = raw;
                    (line, complete)
                }
                None => {
                    let line = self.line;
                    match self.read_raw_record()? {
                        Some(complete) => (line, complete),
                        None => return Ok(None),
                    }
                }
            };
            if self.raw.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            match self.parse_record(record) {
                Ok(()) => return Ok(Some(())),
                Err(message) if !complete => {
                    self.warnings.push(format!(
                        "{}:{line}: incomplete last line ignored ({message})",
                        self.path.display()
                    ));
                    return Ok(None);
                }
                Err(message) => {
                    return Err(ReadError::Record {
                        path: self.path.clone(),
                        line,
                        message,
                    })
                }
            }
        }
    }

    fn parse_record(&mut self, record: &mut JtlRecord) -> Result<(), String> {
        let count = split_fields(&self.raw, self.delimiter, &mut self.fields)?;
        let c = &self.columns;
        if count != c.count {
            return Err(format!(
                "expected {} fields ({}), found {count}",
                c.count,
                c.names.join(",")
            ));
        }
        let (raw, fields) = (&self.raw, &self.fields);
        let f = |i: usize| fields.get(raw, i);
        let int = |i: usize, name: &str| -> Result<i64, String> {
            parse_int(f(i)).ok_or_else(|| {
                let text = String::from_utf8_lossy(f(i));
                format!("{name} is not a number: {:?}", text.trim())
            })
        };
        let opt_int = |i: Option<usize>, name: &str| i.map_or(Ok(0), |i| int(i, name));
        record.timestamp = self.read_timestamp(f(c.timestamp))?;
        record.elapsed = int(c.elapsed, "elapsed")?;
        record.bytes = int(c.bytes, "bytes")?;
        record.sent_bytes = opt_int(c.sent_bytes, "sentBytes")?;
        record.grp_threads = int(c.grp_threads, "grpThreads")?;
        record.all_threads = int(c.all_threads, "allThreads")?;
        record.latency = int(c.latency, "Latency")?;
        record.connect = opt_int(c.connect, "Connect")?;
        record.success = match f(c.success).trim_ascii() {
            s if s.eq_ignore_ascii_case(b"true") => true,
            s if s.eq_ignore_ascii_case(b"false") => false,
            s => {
                let s = String::from_utf8_lossy(s);
                return Err(format!("success is not true or false: {s:?}"));
            }
        };
        copy(&mut record.label, f(c.label));
        copy(&mut record.response_code, f(c.code));
        copy(&mut record.response_message, f(c.message));
        copy(&mut record.thread_name, f(c.thread_name));
        match c.failure_message {
            Some(i) => copy(&mut record.failure_message, f(i)),
            None => record.failure_message.clear(),
        }
        record.custom.clear();
        record
            .custom
            .extend(self.custom_columns.iter().map(|column| {
                let text = std::str::from_utf8(f((*column)?)).ok()?;
                custom_value(text)
            }));
        Ok(())
    }
}

/// Copies a field into a reused string (invalid UTF-8 replaced, as before).
fn copy(to: &mut String, from: &[u8]) {
    to.clear();
    match std::str::from_utf8(from) {
        Ok(text) => to.push_str(text),
        Err(_) => to.push_str(&String::from_utf8_lossy(from)),
    }
}

/// A decimal integer, spaces around allowed, without going through a `str`.
pub(super) fn parse_int(field: &[u8]) -> Option<i64> {
    let text = field.trim_ascii();
    let digits = match text.first() {
        Some(b'-' | b'+') => &text[1..],
        _ => text,
    };
    // 18 digits cannot overflow; longer ones take the checked path.
    if digits.is_empty() || digits.len() > 18 {
        return std::str::from_utf8(text).ok()?.parse().ok();
    }
    let mut value: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        value = value * 10 + i64::from(d - b'0');
    }
    Some(if text[0] == b'-' { -value } else { value })
}

fn ascii_delimiter(c: char) -> u8 {
    if c.is_ascii() {
        c as u8
    } else {
        b','
    }
}

/// The header's column names and delimiter, if `line` is a header: every name known (sample
/// variables in quotes may follow). Tries the configured delimiter, then common ones.
fn header_names(line: &str, configured: u8) -> Option<(u8, Vec<String>)> {
    [configured, b',', b'\t', b';', b'|']
        .into_iter()
        .find_map(|d| {
            let names: Vec<&str> = line.split(d as char).collect();
            let mut variables = false;
            let ok = names.iter().all(|n| {
                if n.len() >= 2 && n.starts_with('"') && n.ends_with('"') {
                    variables = true;
                    true
                } else {
                    !variables && KNOWN_COLUMNS.contains(n)
                }
            });
            (ok && (names.contains(&"timeStamp") || names.contains(&"label"))).then(|| {
                (
                    d,
                    names
                        .iter()
                        .map(|n| n.trim_matches('"').to_string())
                        .collect(),
                )
            })
        })
}

/// Where one record's fields are, reused from record to record so that splitting does
/// not allocate: byte ranges into the raw line when it has no quote (the usual case), or
/// into `unquoted`, the fields with their quotes removed.
#[derive(Debug, Default)]
struct Fields {
    ranges: Vec<(usize, usize)>,
    unquoted: Vec<u8>,
    quoted: bool,
}

impl Fields {
    fn get<'a>(&'a self, raw: &'a [u8], i: usize) -> &'a [u8] {
        let (from, to) = self.ranges[i];
        if self.quoted {
            &self.unquoted[from..to]
        } else {
            &raw[from..to]
        }
    }
}

/// Splits one record into `fields`; returns how many. JMeter's rules: quotes wrap a field,
/// `""` is a quote inside, a quote inside an unquoted field is an error.
fn split_fields(raw: &[u8], delimiter: u8, fields: &mut Fields) -> Result<usize, String> {
    let mut end = raw.len();
    while end > 0 && matches!(raw[end - 1], b'\n' | b'\r') {
        end -= 1;
    }
    let raw = &raw[..end];
    fields.ranges.clear();
    fields.quoted = raw.contains(&b'"');
    if !fields.quoted {
        let mut start = 0;
        for (i, &b) in raw.iter().enumerate() {
            if b == delimiter {
                fields.ranges.push((start, i));
                start = i + 1;
            }
        }
        fields.ranges.push((start, raw.len()));
        return Ok(fields.ranges.len());
    }
    let out = &mut fields.unquoted;
    out.clear();
    let mut i = 0;
    loop {
        let from = out.len();
        if raw.get(i) == Some(&b'"') {
            i += 1;
            loop {
                match raw.get(i) {
                    None => return Err("unterminated quoted field".into()),
                    Some(b'"') if raw.get(i + 1) == Some(&b'"') => {
                        out.push(b'"');
                        i += 2;
                    }
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(&b) => {
                        out.push(b);
                        i += 1;
                    }
                }
            }
            if i < raw.len() && raw[i] != delimiter {
                return Err("characters after a closing quote".into());
            }
        } else {
            let stop = raw[i..]
                .iter()
                .position(|&b| b == delimiter)
                .map_or(raw.len(), |p| i + p);
            if raw[i..stop].contains(&b'"') {
                return Err("a quote inside an unquoted field".into());
            }
            out.extend_from_slice(&raw[i..stop]);
            i = stop;
        }
        fields.ranges.push((from, out.len()));
        if i >= raw.len() {
            return Ok(fields.ranges.len());
        }
        i += 1;
    }
}

fn parse_time(text: &str, format: &TimeFormat) -> Result<i64, String> {
    let text = text.trim();
    match format {
        TimeFormat::Millis => text.parse::<i64>().or_else(|_| {
            FALLBACK_FORMATS
                .iter()
                .find_map(|f| f.read(text))
                .map(|t| t.timestamp_millis())
                .ok_or_else(|| format!("timeStamp is not a time: {text:?}"))
        }),
        TimeFormat::Pattern(p) => p
            .read(text)
            .map(|t| t.timestamp_millis())
            .ok_or_else(|| format!("timeStamp does not match the timestamp_format: {text:?}")),
        TimeFormat::Invalid(why) => Err(format!("timeStamp {text:?} cannot be read: {why}")),
    }
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
