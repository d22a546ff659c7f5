//! The HTML dashboard: JMeter's report generator (`-g FILE.jtl -o DIR`, and `-e -o DIR` at
//! the end of a run), from the aggregates built in [`crate::results::Aggregator`].
//!
//! The folder holds `index.html`, `statistics.json` (JMeter's exact schema), the graph pages
//! under `content/pages/`, and the scripts and styles they use, all from `report-templates/`
//! embedded in the binary, so the report opens offline from `file://`. It is written into a
//! temporary sibling folder and moved into place only when complete: a failure never leaves
//! a half-written report.

mod html;
pub mod json;

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use crate::foundation::properties::Properties;
use crate::results::{
    AggregateSettings, Aggregator, JtlRecord, Observation, ResultsReader, SampleEvent, SaveConfig,
    Sink,
};

/// What the "Test and Report information" table shows.
#[derive(Debug, Clone)]
pub struct ReportInfo {
    /// `jmeter.reportgenerator.report_title`, empty for the default title.
    pub title: String,
    /// The results file(s) the report was made from.
    pub sources: Vec<String>,
    /// `sample_filter` and `series_filter`, shown when set.
    pub sample_filter: String,
    pub series_filter: String,
    /// `series_filter` compiled as the page script applies it: case-insensitive, anywhere.
    series_pattern: Option<regex::Regex>,
    /// `exporter.html.show_controllers_only`: tables show Transaction Controller rows only.
    pub show_controllers_only: bool,
    /// Planned arrivals per second of each arrival-driven group, as (seconds from the
    /// run's first sample, rate): drawn beside the achieved rate. Known to a live run
    /// (`-e`) only; a report made from a file (`-g`) has none.
    pub planned_rates: Vec<(String, Vec<(f64, f64)>)>,
}

impl ReportInfo {
    pub fn from_properties(props: &Properties, sources: Vec<String>) -> ReportInfo {
        let get = |k: &str| props.get(k).unwrap_or_default();
        let series_filter = get("jmeter.reportgenerator.exporter.html.series_filter");
        ReportInfo {
            title: get("jmeter.reportgenerator.report_title"),
            sources,
            sample_filter: get("jmeter.reportgenerator.sample_filter"),
            series_pattern: (!series_filter.is_empty())
                .then(|| regex::Regex::new(&format!("(?i){series_filter}")).ok())
                .flatten(),
            series_filter,
            show_controllers_only: props.get_bool(
                "jmeter.reportgenerator.exporter.html.show_controllers_only",
                false,
            ),
            planned_rates: Vec::new(),
        }
    }

    /// Whether a label's row is shown in the tables.
    pub fn shows(&self, label: &str, is_controller: bool) -> bool {
        (!self.show_controllers_only || is_controller)
            && self
                .series_pattern
                .as_ref()
                .is_none_or(|p| p.is_match(label))
    }
}

/// Checks the `-o` folder as JMeter does: it must be missing or empty; with `force` an
/// existing folder (or file) is removed first.
pub fn prepare_output(out: &Path, force: bool) -> Result<(), String> {
    let shown = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    if out.is_file() {
        if !force {
            return Err(format!(
                "Cannot write to '{}' as it is an existing file",
                shown.display()
            ));
        }
        std::fs::remove_file(out).map_err(|e| format!("cannot delete {}: {e}", shown.display()))?;
    } else if out.is_dir() {
        let empty = std::fs::read_dir(out)
            .map_err(|e| format!("cannot read {}: {e}", shown.display()))?
            .next()
            .is_none();
        if !empty && !force {
            return Err(format!(
                "Cannot write to '{}' as folder is not empty",
                shown.display()
            ));
        }
        if !empty {
            std::fs::remove_dir_all(out)
                .map_err(|e| format!("cannot empty {}: {e}", shown.display()))?;
        }
    }
    Ok(())
}

/// `-g`: reads every file (they merge into one report) and writes the report to `out`.
/// Returns warnings (truncated last lines).
///
/// Reading and parsing run on a thread of their own and hand records over in batches, so
/// on a machine with two cores the aggregation overlaps the parsing.
pub fn generate_from_files(
    files: &[PathBuf],
    out: &Path,
    props: &Properties,
) -> Result<Vec<String>, String> {
    let sources = files.iter().map(|p| p.display().to_string()).collect();
    generate_from_files_named(files, sources, out, props)
}

/// [`generate_from_files`], naming `sources` as the results the dashboard shows (the
/// files a temporary merge was made from).
pub fn generate_from_files_named(
    files: &[PathBuf],
    sources: Vec<String>,
    out: &Path,
    props: &Properties,
) -> Result<Vec<String>, String> {
    let settings = AggregateSettings::from_properties(props)?;
    let save = SaveConfig::from_properties(props).map_err(|e| e.to_string())?;
    let timestamp_format = props.get("jmeter.save.saveservice.timestamp_format");
    let timestamp_is_start = settings.timestamp_is_start;
    let mut agg = Aggregator::new(settings);
    let warnings = std::thread::scope(|scope| {
        let (full, batches) = mpsc::sync_channel::<Vec<JtlRecord>>(BATCHES_IN_FLIGHT);
        let (recycle, spare) = mpsc::channel::<Vec<JtlRecord>>();
        let variables: Vec<String> = agg
            .settings
            .custom_graphs
            .iter()
            .map(|g| g.variable.clone())
            .collect();
        let format = timestamp_format.as_deref();
        let reader =
            scope.spawn(move || read_batches(files, &save, format, &variables, full, spare));
        for batch in batches {
            for record in &batch {
                agg.add(&Observation::from_record(record, timestamp_is_start));
            }
            // The reader may be done already; then the batch is simply dropped.
            let _ = recycle.send(batch);
        }
        reader
            .join()
            .unwrap_or_else(|_| Err("the .jtl reader thread panicked".into()))
    })?;
    if agg.total.count == 0 && agg.labels().next().is_none() {
        return Err("Error while processing samples: no sample in the results file(s)".into());
    }
    write_report(&agg, &ReportInfo::from_properties(props, sources), out)?;
    Ok(warnings)
}

/// Records per batch handed from the reader thread to the aggregator.
const BATCH_RECORDS: usize = 4096;
/// Batches parsed ahead of the aggregator: enough to ride out hiccups, little memory.
const BATCHES_IN_FLIGHT: usize = 4;

/// Reads every file in turn into batches of records sent to `full`; emptied batches come
/// back through `spare` so their strings are reused. Returns the warnings.
fn read_batches(
    files: &[PathBuf],
    save: &SaveConfig,
    timestamp_format: Option<&str>,
    variables: &[String],
    full: mpsc::SyncSender<Vec<JtlRecord>>,
    spare: mpsc::Receiver<Vec<JtlRecord>>,
) -> Result<Vec<String>, String> {
    let mut warnings = Vec::new();
    for path in files {
        let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let input = BufReader::with_capacity(1 << 16, file);
        let mut reader =
            ResultsReader::open(input, path, save, timestamp_format).map_err(|e| e.to_string())?;
        reader.want_variables(variables);
        loop {
            let mut batch = spare
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(BATCH_RECORDS));
            let mut filled = 0;
            while filled < BATCH_RECORDS {
                if filled == batch.len() {
                    batch.push(JtlRecord::default());
                }
                if reader
                    .next_record(&mut batch[filled])
                    .map_err(|e| e.to_string())?
                    .is_none()
                {
                    break;
                }
                filled += 1;
            }
            batch.truncate(filled);
            let last = filled < BATCH_RECORDS;
            if filled > 0 && full.send(batch).is_err() {
                return Ok(warnings);
            }
            if last {
                break;
            }
        }
        warnings.extend(reader.warnings().iter().cloned());
    }
    Ok(warnings)
}

/// Writes the whole report into a temporary sibling of `out`, then moves it into place.
pub fn write_report(agg: &Aggregator, info: &ReportInfo, out: &Path) -> Result<(), String> {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    let temp = parent.join(format!(".{name}.jmxr-{}", std::process::id()));
    let result = html::write_all(agg, info, &temp).and_then(|()| {
        if out.is_dir() {
            std::fs::remove_dir(out)
                .map_err(|e| format!("cannot replace {}: {e}", out.display()))?;
        }
        std::fs::rename(&temp, out).map_err(|e| format!("cannot create {}: {e}", out.display()))
    });
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&temp);
    }
    result
}

/// `-e`: aggregates live from the results bus and writes the report when the run ends.
pub struct ReportSink {
    aggregator: Aggregator,
    info: ReportInfo,
    out: PathBuf,
    /// The run's results file: the dashboard can be made from it later.
    jtl: PathBuf,
    done: bool,
}

impl ReportSink {
    pub fn new(props: &Properties, out: PathBuf, jtl: &Path) -> Result<ReportSink, String> {
        Ok(ReportSink {
            aggregator: Aggregator::new(AggregateSettings::from_properties(props)?),
            info: ReportInfo::from_properties(props, vec![jtl.display().to_string()]),
            out,
            jtl: jtl.to_path_buf(),
            done: false,
        })
    }

    /// Draws each group's planned arrivals per second beside the achieved rate.
    pub fn with_planned_rates(mut self, rates: Vec<(String, Vec<(f64, f64)>)>) -> ReportSink {
        self.info.planned_rates = rates;
        self
    }
}

impl Sink for ReportSink {
    fn on_sample(&mut self, event: &SampleEvent) -> std::io::Result<()> {
        self.aggregator.add_sample(&event.result);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        if self.done {
            return Ok(());
        }
        self.done = true;
        write_report(&self.aggregator, &self.info, &self.out).map_err(|e| {
            std::io::Error::other(format!(
                "dashboard not written: {e}; make it from the results file later with \
                 `jmxr -g {} -o {}`",
                self.jtl.display(),
                self.out.display()
            ))
        })
    }
}
