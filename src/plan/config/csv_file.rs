//! One open CSV input file, read a record at a time (JMeter's `FileServer` entry).
//!
//! The file is streamed through a buffered reader: only the current line is held, so a
//! file of any length works. Lines end at `\n` or `\r\n`; records are decoded from
//! UTF-8 (invalid bytes replaced) or, for the ISO-8859-1 / US-ASCII family, byte by byte. A header line is read once, when the
//! file is first opened, and skipped again each time the file is recycled.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

/// How bytes become text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Latin1,
}

impl Encoding {
    /// The encoding for a `fileEncoding` value, or `None` when jmxr does not know it.
    pub fn parse(name: &str) -> Option<Encoding> {
        let upper = name.trim().to_ascii_uppercase().replace('_', "-");
        match upper.as_str() {
            "" | "UTF-8" | "UTF8" => Some(Encoding::Utf8),
            "ISO-8859-1" | "ISO8859-1" | "LATIN1" | "US-ASCII" | "ASCII" | "WINDOWS-1252"
            | "CP1252" => Some(Encoding::Latin1),
            _ => None,
        }
    }

    pub(super) fn decode(self, bytes: &[u8]) -> String {
        match self {
            Encoding::Utf8 => String::from_utf8_lossy(bytes).into_owned(),
            Encoding::Latin1 => bytes.iter().map(|&b| b as char).collect(),
        }
    }
}

/// How one record is split into fields.
#[derive(Debug, Clone)]
pub enum Split {
    /// The whole delimiter string separates fields; no quoting.
    Plain(String),
    /// RFC-4180-like quoting with a one-character delimiter.
    Quoted(char),
}

/// An open input file and where it stands.
pub struct CsvFile {
    path: PathBuf,
    encoding: Encoding,
    reader: BufReader<File>,
    /// The first line, when the file was opened as having one.
    header: Option<String>,
    buf: Vec<u8>,
    /// `(index0, count)`: only records `r` with `r mod count == index0` are handed out
    /// (a shard's part of the file); records are counted from the top, after the header.
    partition: Option<(u64, u64)>,
    record: u64,
}

impl CsvFile {
    /// Opens `path`; with `has_header` its first line is read as the header.
    pub fn open(path: &Path, encoding: Encoding, has_header: bool) -> io::Result<CsvFile> {
        let mut file = CsvFile {
            path: path.to_path_buf(),
            encoding,
            reader: BufReader::new(File::open(path)?),
            header: None,
            buf: Vec::new(),
            partition: None,
            record: 0,
        };
        if has_header {
            file.header = Some(file.read_line()?.unwrap_or_default());
        }
        Ok(file)
    }

    /// Hands out only this shard's records from now on.
    pub fn partition(&mut self, index0: u64, count: u64) {
        self.partition = Some((index0, count.max(1)));
    }

    pub fn header(&self) -> Option<&str> {
        self.header.as_deref()
    }

    /// The next line without its end, `None` at end of file.
    fn read_line(&mut self) -> io::Result<Option<String>> {
        self.buf.clear();
        if self.reader.read_until(b'\n', &mut self.buf)? == 0 {
            return Ok(None);
        }
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        }
        Ok(Some(self.encoding.decode(&self.buf)))
    }

    /// Starts again from the top, skipping the first line when asked.
    fn rewind(&mut self, skip_first: bool) -> io::Result<()> {
        self.reader = BufReader::new(File::open(&self.path)?);
        self.record = 0;
        if skip_first {
            self.read_line()?;
        }
        Ok(())
    }

    /// The fields of the next record. At end of file with `recycle` the file starts
    /// again (skipping its first line when `skip_first`); otherwise, or when the file
    /// holds no record at all, the result is empty, which JMeter treats as end of file.
    /// A blank line in plain mode also gives no field.
    pub fn next_record(
        &mut self,
        recycle: bool,
        skip_first: bool,
        split: &Split,
    ) -> io::Result<Vec<String>> {
        if skip_first && self.header.is_none() {
            // Opened without a header by another element: the first line is still skipped.
            self.header = self.read_line()?;
        }
        let mut rewound = false;
        loop {
            let mut line = self.read_line()?;
            if line.is_none() && recycle && !rewound {
                self.rewind(skip_first)?;
                rewound = true;
                line = self.read_line()?;
            }
            let Some(line) = line else {
                return Ok(Vec::new());
            };
            let fields = match split {
                Split::Plain(delimiter) => split_plain(&line, delimiter),
                Split::Quoted(delimiter) => self.parse_quoted(line, *delimiter)?,
            };
            let record = self.record;
            self.record += 1;
            match self.partition {
                Some((index0, count)) if record % count != index0 => continue,
                _ => return Ok(fields),
            }
        }
    }

    /// Parses a quoted record starting with `line`, reading further lines while a quoted
    /// field is open. A malformed record is an error (JMeter treats it as end of file).
    fn parse_quoted(&mut self, mut line: String, delimiter: char) -> io::Result<Vec<String>> {
        loop {
            match split_quoted(&line, delimiter) {
                Quoted::Done(fields) => return Ok(fields),
                Quoted::Malformed(why) => {
                    return Err(io::Error::new(io::ErrorKind::InvalidData, why))
                }
                Quoted::Open => match self.read_line()? {
                    Some(next) => {
                        line.push('\n');
                        line.push_str(&next);
                    }
                    None => return Ok(Vec::new()),
                },
            }
        }
    }
}

/// Splits on the whole delimiter, keeping empty fields (JMeter's `JOrphanUtils.split`
/// without truncation); an empty line gives no field.
pub fn split_plain(line: &str, delimiter: &str) -> Vec<String> {
    if line.is_empty() {
        return Vec::new();
    }
    if delimiter.is_empty() {
        return vec![line.to_string()];
    }
    line.split(delimiter).map(str::to_string).collect()
}

/// What parsing a quoted record found.
#[derive(Debug, PartialEq)]
pub enum Quoted {
    Done(Vec<String>),
    /// A quoted field is still open at the end of the text.
    Open,
    Malformed(&'static str),
}

/// Splits one record with `"` quoting: a quote opens a field only at its start, `""`
/// inside quotes is one quote, and a quote inside an unquoted field is an error.
pub fn split_quoted(text: &str, delimiter: char) -> Quoted {
    #[derive(PartialEq)]
    enum State {
        Start,
        Plain,
        InQuotes,
        QuoteInQuotes,
    }
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut state = State::Start;
    for ch in text.chars() {
        state = match state {
            State::Start | State::Plain if ch == delimiter => {
                fields.push(std::mem::take(&mut field));
                State::Start
            }
            State::Start if ch == '"' => State::InQuotes,
            State::Plain if ch == '"' => {
                return Quoted::Malformed("a quote inside an unquoted field")
            }
            State::Start | State::Plain => {
                field.push(ch);
                State::Plain
            }
            State::InQuotes if ch == '"' => State::QuoteInQuotes,
            State::InQuotes => {
                field.push(ch);
                State::InQuotes
            }
            State::QuoteInQuotes if ch == '"' => {
                field.push('"');
                State::InQuotes
            }
            State::QuoteInQuotes if ch == delimiter => {
                fields.push(std::mem::take(&mut field));
                State::Start
            }
            State::QuoteInQuotes => return Quoted::Malformed("a lone quote inside a quoted field"),
        };
    }
    if state == State::InQuotes {
        return Quoted::Open;
    }
    fields.push(field);
    Quoted::Done(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn plain_split_keeps_empty_fields_and_uses_the_whole_delimiter() {
        assert_eq!(split_plain("a,,b,", ","), ["a", "", "b", ""]);
        assert_eq!(split_plain("a::b:c", "::"), ["a", "b:c"]);
        assert!(split_plain("", ",").is_empty());
    }

    #[test]
    fn quoted_split_handles_delimiters_quotes_and_open_fields() {
        assert_eq!(
            split_quoted(r#""a,b",c,"say ""hi""""#, ','),
            Quoted::Done(vec!["a,b".into(), "c".into(), "say \"hi\"".into()])
        );
        assert_eq!(split_quoted("", ','), Quoted::Done(vec![String::new()]));
        assert_eq!(split_quoted("\"open", ','), Quoted::Open);
        assert!(matches!(split_quoted("a\"b", ','), Quoted::Malformed(_)));
    }

    #[test]
    fn records_recycle_past_the_header_and_quoted_fields_span_lines() {
        let mut tmp = tempfile::NamedTempFile::new().unwrap();
        write!(tmp, "h1,h2\r\n1,\"x\ny\"\n2,z\n").unwrap();
        let mut file = CsvFile::open(tmp.path(), Encoding::Utf8, true).unwrap();
        assert_eq!(file.header(), Some("h1,h2"));
        let split = Split::Quoted(',');
        assert_eq!(file.next_record(true, true, &split).unwrap(), ["1", "x\ny"]);
        assert_eq!(file.next_record(true, true, &split).unwrap(), ["2", "z"]);
        assert_eq!(file.next_record(true, true, &split).unwrap(), ["1", "x\ny"]);
        let mut file = CsvFile::open(tmp.path(), Encoding::Utf8, false).unwrap();
        let plain = Split::Plain(",".into());
        for _ in 0..4 {
            file.next_record(false, false, &plain).unwrap();
        }
        assert!(file.next_record(false, false, &plain).unwrap().is_empty());
    }
}
