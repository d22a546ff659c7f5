//! `.jtl` sinks: the `-l` results file and the in-plan Result Collectors that name a file.
//!
//! Files are opened at test start, as JMeter's `ResultCollector` opens them:
//! * CSV: a new file gets the header (when `fieldNames` is on); an existing file, even an
//!   empty one, is appended to without a header.
//! * XML: an existing file that ends with `</testResults>` has that tag cut off and is
//!   appended to; any other file is started afresh with the XML declaration.
//!
//! Several collectors may name the same file: they share one [`JtlSink`] (see [`JtlFiles`]).
//! The first collector decides the header and footer; each sample is written once per file,
//! by the first collector that wants it, formatted with that collector's configuration.

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::record_file::RecordFile;
use super::xml::{write_xml_file_end, write_xml_file_start, TEST_RESULTS_END};
use super::{csv, xml, SampleEvent, SaveConfig, Sink};

/// What closes an XML results file cut short by a failed write (as `write_xml_file_end`).
const XML_FILE_END: &[u8] = b"\n</testResults>\n";
/// Shortest XML file that can hold a terminator worth trimming (declaration, root start, end).
const MIN_XML_FILE_LEN: u64 = 38 + 13 + 14;

/// One Result Collector: what it saves, which samples it sees and which it keeps.
#[derive(Debug, Clone)]
pub struct Collector {
    pub config: SaveConfig,
    /// `None` for the `-l` collector, which sees every sample; otherwise the listener id an
    /// event's `listeners` must contain.
    pub listener: Option<usize>,
    /// `ResultCollector.error_logging`: keep only failed samples.
    pub errors_only: bool,
    /// `ResultCollector.success_only_logging`: keep only successful samples.
    pub success_only: bool,
}

impl Collector {
    /// The `-l` collector: every sample, no filter.
    pub fn all_samples(config: SaveConfig) -> Collector {
        Collector {
            config,
            listener: None,
            errors_only: false,
            success_only: false,
        }
    }

    /// Whether this collector writes the event (JMeter's `isSampleWanted` plus scope).
    pub fn wants(&self, event: &SampleEvent) -> bool {
        let in_scope = match self.listener {
            None => true,
            Some(id) => event.listeners.contains(&id),
        };
        let success = event.result.success;
        let kept = (!self.errors_only && !self.success_only)
            || (success && self.success_only)
            || (!success && self.errors_only);
        in_scope && kept
    }
}

/// Writes samples to one output in CSV or XML, for one or more collectors.
pub struct JtlSink<W: Write + Send> {
    out: W,
    /// The first collector's format decides the file's skeleton (XML root element or not).
    xml_file: bool,
    collectors: Vec<Collector>,
    hostname: String,
    /// Reused formatting buffers: XML text, CSV bytes.
    line: String,
    rows: Vec<u8>,
    /// Which labels and thread names need quotes in CSV rows.
    quoting: csv::QuotingMemo,
    finished: bool,
}

/// The sink behind a results file.
pub type JtlFileSink = JtlSink<RecordFile>;

impl<W: Write + Send> JtlSink<W> {
    /// A sink over any writer. With `new_file`, the CSV header or the XML start is written
    /// first, as for a file that did not exist.
    pub fn new(mut out: W, collector: Collector, new_file: bool) -> io::Result<JtlSink<W>> {
        let config = &collector.config;
        if new_file {
            let mut start = String::new();
            if config.xml {
                write_xml_file_start(&mut start, config);
            } else if config.field_names {
                start.push_str(&csv::csv_header(config));
                start.push('\n');
            }
            out.write_all(start.as_bytes())?;
        }
        Ok(JtlSink {
            out,
            xml_file: config.xml,
            collectors: vec![collector],
            hostname: gethostname::gethostname().to_string_lossy().into_owned(),
            line: String::new(),
            rows: Vec::new(),
            quoting: csv::QuotingMemo::new(),
            finished: false,
        })
    }

    /// Another collector writing to the same output; later collectors only write samples
    /// that no earlier one wrote.
    pub fn add_collector(&mut self, collector: Collector) {
        self.collectors.push(collector);
    }

    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        &self.out
    }
}

impl<W: Write + Send> Sink for JtlSink<W> {
    fn on_sample(&mut self, event: &SampleEvent) -> io::Result<()> {
        if event.result.ignore {
            return Ok(());
        }
        let Some(collector) = self.collectors.iter().find(|c| c.wants(event)) else {
            return Ok(());
        };
        if collector.config.xml {
            self.line.clear();
            xml::write_xml_sample(
                &mut self.line,
                &collector.config,
                &event.result,
                &self.hostname,
            );
            self.out.write_all(self.line.as_bytes())?;
        } else {
            self.rows.clear();
            csv::write_csv_sample_remembering(
                &mut self.rows,
                &collector.config,
                &event.result,
                &self.hostname,
                Some(&mut self.quoting),
            );
            self.out.write_all(&self.rows)?;
        }
        if collector.config.autoflush {
            self.out.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn finish(&mut self) -> io::Result<()> {
        if !self.finished {
            self.finished = true;
            if self.xml_file {
                let mut end = String::new();
                write_xml_file_end(&mut end);
                self.out.write_all(end.as_bytes())?;
            }
        }
        self.out.flush()
    }
}

impl<W: Write + Send> Drop for JtlSink<W> {
    /// A sink dropped on an unusual stop path still leaves a complete file behind.
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

impl JtlFileSink {
    /// Opens (or creates, with its folders) the file at `path` for `collector`.
    pub fn open(path: &Path, collector: Collector) -> io::Result<JtlFileSink> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent)?;
        }
        let append = if collector.config.xml {
            trim_xml_end(path)?
        } else {
            path.exists()
        };
        let file = OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(path)?;
        let closing: &'static [u8] = if collector.config.xml {
            XML_FILE_END
        } else {
            b""
        };
        JtlSink::new(RecordFile::new(file, path, closing)?, collector, !append)
    }
}

/// Cuts `</testResults>` (and what follows it) off an existing XML file so samples can be
/// appended. Returns false when there is no such file or no terminator near its end, in which
/// case JMeter starts the file again.
fn trim_xml_end(path: &Path) -> io::Result<bool> {
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    if len < MIN_XML_FILE_LEN {
        return Ok(false);
    }
    // JMeter looks from 10 bytes before where the terminator would start.
    let start = len - TEST_RESULTS_END.len() as u64 - 10;
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    let line_ends = tail
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n' || b == b'\r')
        .map(|(i, _)| i)
        .chain(std::iter::once(tail.len()));
    let mut line_start = 0;
    for end in line_ends {
        if let Some(at) = find(&tail[line_start..end], TEST_RESULTS_END.as_bytes()) {
            file.set_len(start + (line_start + at) as u64)?;
            return Ok(true);
        }
        line_start = end + 1;
    }
    Ok(false)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The results files of a run, one sink per file however many collectors name it (JMeter
/// shares one writer per canonical path).
#[derive(Default)]
pub struct JtlFiles {
    sinks: Vec<JtlFileSink>,
    by_path: HashMap<PathBuf, usize>,
}

impl JtlFiles {
    pub fn new() -> JtlFiles {
        JtlFiles::default()
    }

    /// Registers a collector writing to `path` (already resolved against the working or plan
    /// folder). Call in JMeter's listener order: for a sample, the first collector that
    /// wants it writes it.
    pub fn add(&mut self, path: &Path, collector: Collector) -> io::Result<()> {
        let key = canonical(path);
        if let Some(&index) = self.by_path.get(&key) {
            self.sinks[index].add_collector(collector);
            return Ok(());
        }
        let sink = JtlFileSink::open(path, collector)?;
        self.by_path.insert(key, self.sinks.len());
        self.sinks.push(sink);
        Ok(())
    }

    /// The sinks, in the order their files were first registered.
    pub fn into_sinks(self) -> Vec<JtlFileSink> {
        self.sinks
    }
}

/// An absolute, normalised path for a file that may not exist yet.
fn canonical(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (absolute.parent(), absolute.file_name()) {
        (Some(dir), Some(name)) => dir
            .canonicalize()
            .map(|d| d.join(name))
            .unwrap_or(absolute.clone()),
        _ => absolute,
    }
}

#[cfg(test)]
#[path = "jtl_file_tests.rs"]
mod tests;
