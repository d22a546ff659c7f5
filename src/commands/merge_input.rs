//! One results file as `jmxr merge` reads it: record by record as the bytes written, with
//! only the fields the merge orders by or rewrites picked out (`timeStamp`, `threadName`,
//! `grpThreads`, `allThreads`). Everything else is copied through untouched, so the merge
//! neither parses nor re-formats the other fields of ten million rows.
//!
//! The dashboard's reader ([`JtlReader`]) still decides what the file is: it reads the
//! header (or takes the columns from the properties when there is none), refuses XML and
//! files without the columns a report needs, and parses timestamps written as dates. The
//! records themselves are then scanned here from a large buffer, with the same rules:
//! quoted fields may span lines, blank lines are skipped, and an unparseable last line
//! without a line break (a run killed mid-write) is skipped with a warning.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use crate::results::{JtlReader, SaveConfig};

use super::shard_meta::ShardMeta;

/// Bytes read at once from each input.
const READ_SIZE: usize = 1 << 20;

/// Where the fields the merge needs sit in a record.
#[derive(Debug, Clone, Copy)]
struct Columns {
    timestamp: usize,
    thread_name: usize,
    grp: usize,
    all: usize,
    count: usize,
}

/// One record, borrowed from the input's buffer until the next is read.
pub struct Record<'a> {
    /// The record as written, without its line end.
    pub bytes: &'a [u8],
    pub timestamp: i64,
    pub thread_name: Cow<'a, [u8]>,
    pub grp_threads: i64,
    pub all_threads: i64,
    /// Byte ranges of `timeStamp`, `grpThreads` and `allThreads` in `bytes`.
    pub timestamp_at: (usize, usize),
    pub grp_at: (usize, usize),
    pub all_at: (usize, usize),
}

/// The current record: where it is in the buffer, and its parsed fields.
#[derive(Debug, Clone, Copy, Default)]
struct Current {
    from: usize,
    stop: usize,
    timestamp: i64,
    grp_threads: i64,
    all_threads: i64,
}

/// A record found by the scan: `buf[from..to]`, whether it ended with a line break, and
/// whether it holds a quote.
struct Raw {
    from: usize,
    to: usize,
    complete: bool,
    quoted: bool,
}

/// One input file.
pub struct MergeInput {
    pub path: PathBuf,
    pub meta: Option<ShardMeta>,
    /// Kept for what the file is (columns, delimiter, header, time format).
    header: JtlReader<BufReader<File>>,
    columns: Columns,
    file: File,
    buf: Vec<u8>,
    /// Unread bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
    /// Physical line number of the next record.
    line: u64,
    /// Each field of the current record, as written (quotes included).
    fields: Vec<(usize, usize)>,
    current: Current,
    pub warnings: Vec<String>,
}

impl MergeInput {
    pub fn open(
        path: &Path,
        save: &SaveConfig,
        timestamp_format: Option<&str>,
    ) -> Result<MergeInput, String> {
        let meta = ShardMeta::read_beside(path)?;
        let open = || File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()));
        let header = JtlReader::new(BufReader::new(open()?), path, save, timestamp_format)
            .map_err(|e| e.to_string())?;
        let names = header.column_names();
        let find = |n: &str| names.iter().position(|c| c == n);
        // The reader has already refused a file without these columns.
        let columns = Columns {
            timestamp: find("timeStamp").unwrap_or(0),
            thread_name: find("threadName").unwrap_or(0),
            grp: find("grpThreads").unwrap_or(0),
            all: find("allThreads").unwrap_or(0),
            count: names.len(),
        };
        let has_offset = meta.as_ref().is_some_and(|m| m.offset_at(m.started) != 0.0);
        if has_offset && !header.timestamps_in_ms() {
            return Err(format!(
                "{}: its clock offset can only be applied to timestamps in epoch milliseconds",
                path.display()
            ));
        }
        let mut input = MergeInput {
            path: path.to_path_buf(),
            meta,
            header,
            columns,
            file: open()?,
            buf: vec![0; READ_SIZE],
            start: 0,
            end: 0,
            eof: false,
            line: 1,
            fields: Vec::new(),
            current: Current::default(),
            warnings: Vec::new(),
        };
        if input.header.header_line().is_some() {
            input.next_raw()?;
        }
        Ok(input)
    }

    pub fn column_names(&self) -> &[String] {
        self.header.column_names()
    }

    pub fn delimiter(&self) -> u8 {
        self.header.delimiter()
    }

    pub fn header_line(&self) -> Option<&str> {
        self.header.header_line()
    }

    /// Reads the next record; `Ok(false)` at the end of the file. The record is then
    /// [`current`](Self::current).
    pub fn advance(&mut self) -> Result<bool, String> {
        loop {
            let line = self.line;
            let Some(Raw {
                from,
                to,
                complete,
                quoted,
            }) = self.next_raw()?
            else {
                return Ok(false);
            };
            let mut stop = to;
            while stop > from && matches!(self.buf[stop - 1], b'\n' | b'\r') {
                stop -= 1;
            }
            if self.buf[from..stop].iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match self.parse(from, stop, quoted) {
                Ok(current) => {
                    self.current = current;
                    return Ok(true);
                }
                Err(message) if !complete => {
                    self.warnings.push(format!(
                        "{}:{line}: incomplete last line ignored ({message})",
                        self.path.display()
                    ));
                    return Ok(false);
                }
                Err(message) => return Err(format!("{}:{line}: {message}", self.path.display())),
            }
        }
    }

    /// Splits `buf[from..stop]` into fields and reads the ones the merge needs.
    fn parse(&mut self, from: usize, stop: usize, quoted: bool) -> Result<Current, String> {
        let bytes = &self.buf[from..stop];
        split_written(bytes, self.delimiter(), quoted, &mut self.fields)?;
        let c = self.columns;
        if self.fields.len() != c.count {
            return Err(format!(
                "expected {} fields ({}), found {}",
                c.count,
                self.column_names().join(","),
                self.fields.len()
            ));
        }
        let field = |i: usize| {
            let (a, b) = self.fields[i];
            &bytes[a..b]
        };
        let int = |i: usize, name: &str| {
            parse_int(field(i)).ok_or_else(|| {
                let text = String::from_utf8_lossy(field(i));
                format!("{name} is not a number: {:?}", text.trim())
            })
        };
        let written_time = unquoted(field(c.timestamp));
        let timestamp = match parse_int(&written_time) {
            Some(ms) if self.header.timestamps_in_ms() => ms,
            _ => self.header.read_timestamp(&written_time)?,
        };
        Ok(Current {
            from,
            stop,
            timestamp,
            grp_threads: int(c.grp, "grpThreads")?,
            all_threads: int(c.all, "allThreads")?,
        })
    }

    /// The record [`advance`](Self::advance) read last.
    pub fn current(&self) -> Record<'_> {
        let Current {
            from,
            stop,
            timestamp,
            grp_threads,
            all_threads,
        } = self.current;
        let bytes = &self.buf[from..stop];
        let c = self.columns;
        let (a, b) = self.fields[c.thread_name];
        Record {
            bytes,
            timestamp,
            thread_name: unquoted(&bytes[a..b]),
            grp_threads,
            all_threads,
            timestamp_at: self.fields[c.timestamp],
            grp_at: self.fields[c.grp],
            all_at: self.fields[c.all],
        }
    }

    /// The next physical record (lines joined while a quote is open).
    fn next_raw(&mut self) -> Result<Option<Raw>, String> {
        loop {
            let mut pos = self.start;
            let (mut in_quotes, mut quoted) = (false, false);
            let mut lines = 0;
            while let Some(p) = memchr::memchr(b'\n', &self.buf[pos..self.end]) {
                let stop = pos + p + 1;
                lines += 1;
                let quotes = memchr::memchr_iter(b'"', &self.buf[pos..stop]).count();
                quoted |= quotes > 0;
                in_quotes ^= quotes % 2 == 1;
                pos = stop;
                if !in_quotes {
                    let from = self.start;
                    self.start = stop;
                    self.line += lines;
                    return Ok(Some(Raw {
                        from,
                        to: stop,
                        complete: true,
                        quoted,
                    }));
                }
            }
            if self.eof {
                if self.start == self.end {
                    return Ok(None);
                }
                let from = self.start;
                self.start = self.end;
                self.line += lines + 1;
                return Ok(Some(Raw {
                    from,
                    to: self.end,
                    complete: false,
                    quoted: memchr::memchr(b'"', &self.buf[from..self.end]).is_some(),
                }));
            }
            self.fill()?;
        }
    }

    /// Moves the unread bytes to the front of the buffer (growing it for a record longer
    /// than it) and reads more.
    fn fill(&mut self) -> Result<(), String> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        loop {
            match self.file.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("cannot read {}: {e}", self.path.display())),
            }
        }
    }
}

/// Splits a record into its fields as written (quotes included), by JMeter's rules:
/// quotes wrap a field, `""` is a quote inside, a quote inside an unquoted field is an
/// error. `quoted`: whether the record has a quote at all (the scan has counted them).
fn split_written(
    raw: &[u8],
    delimiter: u8,
    quoted: bool,
    fields: &mut Vec<(usize, usize)>,
) -> Result<(), String> {
    fields.clear();
    if !quoted {
        let mut start = 0;
        for i in memchr::memchr_iter(delimiter, raw) {
            fields.push((start, i));
            start = i + 1;
        }
        fields.push((start, raw.len()));
        return Ok(());
    }
    let mut i = 0;
    loop {
        let from = i;
        if raw.get(i) == Some(&b'"') {
            i += 1;
            loop {
                match raw.get(i) {
                    None => return Err("unterminated quoted field".into()),
                    Some(b'"') if raw.get(i + 1) == Some(&b'"') => i += 2,
                    Some(b'"') => {
                        i += 1;
                        break;
                    }
                    Some(_) => i += 1,
                }
            }
            if i < raw.len() && raw[i] != delimiter {
                return Err("characters after a closing quote".into());
            }
        } else {
            let stop = memchr::memchr(delimiter, &raw[i..]).map_or(raw.len(), |p| i + p);
            if raw[i..stop].contains(&b'"') {
                return Err("a quote inside an unquoted field".into());
            }
            i = stop;
        }
        fields.push((from, i));
        if i >= raw.len() {
            return Ok(());
        }
        i += 1;
    }
}

/// A field's value: its quotes removed and `""` made `"`.
fn unquoted(written: &[u8]) -> Cow<'_, [u8]> {
    match written {
        [b'"', inner @ .., b'"'] => {
            if memchr::memchr(b'"', inner).is_none() {
                Cow::Borrowed(inner)
            } else {
                let mut value = Vec::with_capacity(inner.len());
                let mut i = 0;
                while i < inner.len() {
                    value.push(inner[i]);
                    i += if inner[i] == b'"' { 2 } else { 1 };
                }
                Cow::Owned(value)
            }
        }
        _ => Cow::Borrowed(written),
    }
}

/// A decimal integer, spaces around allowed.
fn parse_int(field: &[u8]) -> Option<i64> {
    let text = field.trim_ascii();
    let (negative, digits) = match text.first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    // 18 digits cannot overflow.
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = digits
        .iter()
        .fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(raw: &str) -> Result<Vec<String>, String> {
        let mut fields = Vec::new();
        split_written(raw.as_bytes(), b',', raw.contains('"'), &mut fields)?;
        Ok(fields.iter().map(|&(a, b)| raw[a..b].to_string()).collect())
    }

    #[test]
    fn fields_are_kept_as_written() {
        assert_eq!(split("1,a,,b").unwrap(), ["1", "a", "", "b"]);
        assert_eq!(
            split("1,\"a,b\",\"say \"\"hi\"\"\",x").unwrap(),
            ["1", "\"a,b\"", "\"say \"\"hi\"\"\"", "x"]
        );
        assert!(split("1,a\"b").is_err());
        assert!(split("1,\"ab").is_err());
        assert!(split("1,\"a\"b").is_err());
    }

    #[test]
    fn quoted_values_are_unquoted() {
        assert_eq!(&*unquoted(b"\"G, 1-2\""), b"G, 1-2");
        assert_eq!(&*unquoted(b"\"a \"\"b\"\"\""), b"a \"b\"");
        assert_eq!(&*unquoted(b"\"\""), b"");
        assert_eq!(&*unquoted(b"plain"), b"plain");
    }

    #[test]
    fn numbers_parse_without_allocating() {
        assert_eq!(parse_int(b" 42 "), Some(42));
        assert_eq!(parse_int(b"-7"), Some(-7));
        assert_eq!(parse_int(b"4x"), None);
        assert_eq!(parse_int(b""), None);
    }
}
