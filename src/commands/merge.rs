//! `jmxr merge OUT.jtl IN1.jtl IN2.jtl …`: one time-ordered `.jtl` from the results of
//! several shards, streamed with bounded memory whatever the size of the inputs.
//!
//! Each input is read with the dashboard's reader ([`JtlReader`]); every field is copied
//! through as written except three: `timeStamp`, moved by the shard's clock offset from
//! its metadata file ([`ShardMeta`]), and `grpThreads`/`allThreads`, recomputed across
//! shards. JMeter's meaning of them is "active threads of this sample's thread group / of
//! the whole test when the sample was written"; across shards that is the sum of every
//! shard's latest value at that moment, so the merge keeps each shard's last value per
//! thread group (named by the thread name without its "-N" user number) and the last
//! `allThreads`, and writes their sums (a shard whose file has ended counts 0 after its
//! last sample).
//!
//! Order: the inputs are merged by their next record's corrected time (a k-way merge),
//! then pass through a reorder window of [`WINDOW`] records, because a JMeter file is
//! itself only nearly ordered (rows are written when samples end, stamped when they
//! start). A record later than the window can absorb is written anyway, and counted.
//!
//! Missing or unfinished shards are reported: a file that does not exist, a metadata file
//! that says the run did not finish, or a shard index of `N` that no input covers.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::foundation::properties::Properties;
use crate::results::{JtlReader, JtlRecord, SaveConfig};

use super::cli::CliError;
use super::shard_meta::ShardMeta;

/// Records held to put nearly ordered inputs in order (about 20 MB at most).
const WINDOW: usize = 1 << 17;

#[derive(Debug, Clone)]
pub struct MergeConfig {
    pub out: PathBuf,
    pub inputs: Vec<PathBuf>,
    /// `-f`: replace an existing output file.
    pub force: bool,
}

/// Reads `[-f] OUT.jtl IN.jtl…` (`-o OUT.jtl` may come anywhere instead of first).
pub fn parse_args(args: &[String]) -> Result<MergeConfig, CliError> {
    let mut out = None;
    let mut files = Vec::new();
    let mut force = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-f" | "--force" => force = true,
            "-o" | "--out" => {
                let value = args
                    .next()
                    .ok_or_else(|| CliError::Usage("merge: -o needs a file".into()))?;
                out = Some(PathBuf::from(value));
            }
            other if other.starts_with('-') && other.len() > 1 => {
                return Err(CliError::Usage(format!("merge: unknown option {other}")))
            }
            other => files.push(PathBuf::from(other)),
        }
    }
    let out = match out {
        Some(out) => out,
        None if !files.is_empty() => files.remove(0),
        None => return Err(CliError::Usage(USAGE.into())),
    };
    if files.is_empty() {
        return Err(CliError::Usage(USAGE.into()));
    }
    Ok(MergeConfig {
        out,
        inputs: files,
        force,
    })
}

const USAGE: &str = "merge needs an output and inputs: jmxr merge OUT.jtl IN1.jtl IN2.jtl ...";

/// What a merge did, for the report printed at the end.
#[derive(Debug, Default)]
pub struct MergeReport {
    pub rows: u64,
    /// Rows written earlier than a row already written (disorder beyond the window).
    pub out_of_order: u64,
    /// Shards missing or unfinished, worded for the user.
    pub problems: Vec<String>,
    pub warnings: Vec<String>,
}

/// One record waiting in the reorder window: the output line, with the two thread-count
/// fields left out to be filled in when it is written.
struct Row {
    time: i64,
    seq: u64,
    input: usize,
    group: u32,
    grp_threads: i64,
    all_threads: i64,
    /// Line bytes, and where the `grpThreads` and `allThreads` fields go.
    line: Vec<u8>,
    grp_at: usize,
    all_at: usize,
}

impl PartialEq for Row {
    fn eq(&self, other: &Row) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl Eq for Row {}
impl PartialOrd for Row {
    fn partial_cmp(&self, other: &Row) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Row {
    fn cmp(&self, other: &Row) -> std::cmp::Ordering {
        (self.time, self.seq).cmp(&(other.time, other.seq))
    }
}

/// One input file and its next record.
struct Input {
    path: PathBuf,
    reader: JtlReader<BufReader<File>>,
    meta: Option<ShardMeta>,
    record: JtlRecord,
    columns: Columns,
    /// Corrected time of the last record read (the shard counts 0 threads after it).
    last_time: i64,
    done: bool,
}

#[derive(Debug, Clone, Copy)]
struct Columns {
    timestamp: usize,
    grp: usize,
    all: usize,
    count: usize,
}

/// Runs the merge and prints its report; the exit status says whether shards were
/// missing.
pub fn run(config: &MergeConfig) -> super::run::Outcome {
    use super::run::Outcome;
    match merge(config) {
        Ok(report) => {
            for warning in &report.warnings {
                eprintln!("warning: {warning}");
            }
            if report.out_of_order > 0 {
                eprintln!(
                    "warning: {} rows were more out of order than the merge window of {WINDOW} rows and were written where they came",
                    report.out_of_order
                );
            }
            println!(
                "merged {} rows from {} files into {}",
                report.rows,
                config.inputs.len(),
                config.out.display()
            );
            for problem in &report.problems {
                eprintln!("incomplete: {problem}");
            }
            if report.problems.is_empty() {
                Outcome::Completed
            } else {
                Outcome::BadInput
            }
        }
        Err(message) => {
            eprintln!("An error occurred: {message}");
            Outcome::BadInput
        }
    }
}

/// Merges `config.inputs` into `config.out`, files without a header described by
/// JMeter's default settings.
pub fn merge(config: &MergeConfig) -> Result<MergeReport, String> {
    let save = SaveConfig::from_properties(&Properties::new()).map_err(|e| e.to_string())?;
    merge_with(config, &save, None)
}

/// Merges with the settings that describe files without a header.
pub fn merge_with(
    config: &MergeConfig,
    save: &SaveConfig,
    timestamp_format: Option<&str>,
) -> Result<MergeReport, String> {
    let mut report = MergeReport::default();
    if config.out.exists() && !config.force {
        return Err(format!(
            "{} exists; use -f to replace it",
            config.out.display()
        ));
    }
    let mut inputs = Vec::new();
    for path in &config.inputs {
        if !path.exists() {
            report.problems.push(format!(
                "{}: no such results file (shard missing)",
                path.display()
            ));
            continue;
        }
        inputs.push(open_input(path, save, timestamp_format)?);
    }
    check_shards(&inputs, &mut report);
    let Some(first) = inputs.first() else {
        return Err("merge: none of the input files exists".into());
    };
    let names = first.reader.column_names().to_vec();
    let header = first.reader.header_line().map(str::to_string);
    let delimiter = first.reader.delimiter();
    for input in &inputs[1..] {
        if input.reader.column_names() != names.as_slice() || input.reader.delimiter() != delimiter
        {
            return Err(format!(
                "{} has other columns than {} ({} instead of {}); merge files written with the same settings",
                input.path.display(),
                first.path.display(),
                input.reader.column_names().join(","),
                names.join(",")
            ));
        }
    }
    let file = File::create(&config.out)
        .map_err(|e| format!("cannot write {}: {e}", config.out.display()))?;
    let mut out = BufWriter::with_capacity(1 << 16, file);
    let write_err = |e: std::io::Error| format!("cannot write {}: {e}", config.out.display());
    if let Some(header) = header {
        out.write_all(header.as_bytes()).map_err(write_err)?;
        out.write_all(b"\n").map_err(write_err)?;
    }
    let mut merger = Merger::new(inputs.len(), delimiter);
    // The k-way merge: each input's next record, by corrected time.
    let mut heads = BinaryHeap::new();
    for (i, input) in inputs.iter_mut().enumerate() {
        if let Some(row) = merger.read_row(i, input)? {
            heads.push(Reverse(row));
        }
    }
    while let Some(Reverse(row)) = heads.pop() {
        let i = row.input;
        merger.window.push(Reverse(row));
        if let Some(next) = merger.read_row(i, &mut inputs[i])? {
            heads.push(Reverse(next));
        } else {
            merger.ended[i] = Some(inputs[i].last_time);
        }
        if merger.window.len() > WINDOW {
            merger.write_next(&mut out).map_err(write_err)?;
        }
    }
    while !merger.window.is_empty() {
        merger.write_next(&mut out).map_err(write_err)?;
    }
    out.flush().map_err(write_err)?;
    for input in &inputs {
        report
            .warnings
            .extend(input.reader.warnings().iter().cloned());
    }
    report.rows = merger.rows;
    report.out_of_order = merger.out_of_order;
    Ok(report)
}

fn open_input(
    path: &Path,
    save: &SaveConfig,
    timestamp_format: Option<&str>,
) -> Result<Input, String> {
    let meta = ShardMeta::read_beside(path)?;
    let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let input = BufReader::with_capacity(1 << 16, file);
    let reader = JtlReader::new(input, path, save, timestamp_format).map_err(|e| e.to_string())?;
    let names = reader.column_names();
    let find = |n: &str| names.iter().position(|c| c == n);
    // The reader has already refused a file without these columns.
    let columns = Columns {
        timestamp: find("timeStamp").unwrap_or(0),
        grp: find("grpThreads").unwrap_or(0),
        all: find("allThreads").unwrap_or(0),
        count: names.len(),
    };
    let has_offset = meta.as_ref().is_some_and(|m| m.offset_at(m.started) != 0.0);
    if has_offset && !reader.timestamps_in_ms() {
        return Err(format!(
            "{}: its clock offset can only be applied to timestamps in epoch milliseconds",
            path.display()
        ));
    }
    Ok(Input {
        path: path.to_path_buf(),
        reader,
        meta,
        record: JtlRecord::default(),
        columns,
        last_time: i64::MIN,
        done: false,
    })
}

/// Reports unfinished shards and shard indexes no input covers.
fn check_shards(inputs: &[Input], report: &mut MergeReport) {
    let mut seen: HashMap<u32, Vec<u32>> = HashMap::new();
    for input in inputs {
        let Some(meta) = &input.meta else { continue };
        if !meta.finished {
            report.problems.push(format!(
                "{}: the shard's run did not finish (its metadata says so); its results stop early",
                input.path.display()
            ));
        }
        if let Some((index, count)) = meta.shard {
            seen.entry(count).or_default().push(index);
        }
    }
    for (count, indexes) in seen {
        for index in 1..=count {
            if !indexes.contains(&index) {
                report.problems.push(format!(
                    "shard {index}/{count}: no results file among the inputs"
                ));
            }
        }
    }
}

/// The merge's state: the reorder window, and each shard's latest thread counts.
struct Merger {
    window: BinaryHeap<Reverse<Row>>,
    spare: Vec<Vec<u8>>,
    seq: u64,
    delimiter: u8,
    groups: HashMap<String, u32>,
    /// `[group][input]`: the latest `grpThreads` written for that group by that input.
    grp_latest: Vec<Vec<i64>>,
    all_latest: Vec<i64>,
    ended: Vec<Option<i64>>,
    last_written: i64,
    rows: u64,
    out_of_order: u64,
    number: itoa::Buffer,
}

impl Merger {
    fn new(inputs: usize, delimiter: u8) -> Merger {
        Merger {
            window: BinaryHeap::new(),
            spare: Vec::new(),
            seq: 0,
            delimiter,
            groups: HashMap::new(),
            grp_latest: Vec::new(),
            all_latest: vec![0; inputs],
            ended: vec![None; inputs],
            last_written: i64::MIN,
            rows: 0,
            out_of_order: 0,
            number: itoa::Buffer::new(),
        }
    }

    /// Reads the next record of `input` into a row (`None` at its end).
    fn read_row(&mut self, index: usize, input: &mut Input) -> Result<Option<Row>, String> {
        if input.done {
            return Ok(None);
        }
        if input
            .reader
            .next_record(&mut input.record)
            .map_err(|e| e.to_string())?
            .is_none()
        {
            input.done = true;
            return Ok(None);
        }
        let local = input.record.timestamp;
        let offset = input
            .meta
            .as_ref()
            .map_or(0, |m| m.offset_at(local).round() as i64);
        let time = local + offset;
        input.last_time = input.last_time.max(time);
        let mut line = self.spare.pop().unwrap_or_default();
        line.clear();
        let (mut grp_at, mut all_at) = (0, 0);
        let c = input.columns;
        for i in 0..c.count {
            if i > 0 {
                line.push(self.delimiter);
            }
            if i == c.timestamp && offset != 0 {
                line.extend_from_slice(self.number.format(time).as_bytes());
            } else if i == c.grp {
                grp_at = line.len();
            } else if i == c.all {
                all_at = line.len();
            } else {
                line.extend_from_slice(input.reader.written_field(i));
            }
        }
        let group = self.group_of(&input.record.thread_name);
        self.seq += 1;
        Ok(Some(Row {
            time,
            seq: self.seq,
            input: index,
            group,
            grp_threads: input.record.grp_threads,
            all_threads: input.record.all_threads,
            line,
            grp_at,
            all_at,
        }))
    }

    /// The thread group of a JMeter thread name ("Group 1-5" → "Group 1").
    fn group_of(&mut self, thread_name: &str) -> u32 {
        let group = match thread_name.rsplit_once('-') {
            Some((group, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => group,
            _ => thread_name,
        };
        if let Some(&id) = self.groups.get(group) {
            return id;
        }
        let id = u32::try_from(self.groups.len()).unwrap_or(u32::MAX);
        self.groups.insert(group.to_string(), id);
        self.grp_latest.push(vec![0; self.all_latest.len()]);
        id
    }

    /// Writes the earliest row of the window, with thread counts summed across shards.
    fn write_next(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let Some(Reverse(row)) = self.window.pop() else {
            return Ok(());
        };
        if row.time < self.last_written {
            self.out_of_order += 1;
        }
        self.last_written = self.last_written.max(row.time);
        self.all_latest[row.input] = row.all_threads;
        let grp_latest = &mut self.grp_latest[row.group as usize];
        grp_latest[row.input] = row.grp_threads;
        let live = |i: usize| self.ended[i].is_none_or(|end| row.time <= end) || i == row.input;
        let grp: i64 = (0..grp_latest.len())
            .filter(|&i| live(i))
            .map(|i| grp_latest[i])
            .sum();
        let all: i64 = (0..self.all_latest.len())
            .filter(|&i| live(i))
            .map(|i| self.all_latest[i])
            .sum();
        let (first, rest) = row.line.split_at(row.grp_at.min(row.all_at));
        let (second, third) = rest.split_at(row.grp_at.max(row.all_at) - first.len());
        let (a, b) = if row.grp_at <= row.all_at {
            (grp, all)
        } else {
            (all, grp)
        };
        out.write_all(first)?;
        out.write_all(self.number.format(a).as_bytes())?;
        out.write_all(second)?;
        out.write_all(self.number.format(b).as_bytes())?;
        out.write_all(third)?;
        out.write_all(b"\n")?;
        self.rows += 1;
        self.spare.push(row.line);
        Ok(())
    }
}

/// A merged file made for `-g a.jtl -g b.jtl`, deleted when dropped.
pub struct TemporaryMerge(pub PathBuf);

impl Drop for TemporaryMerge {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// For a dashboard of several files: merges them into a temporary file so that the
/// dashboard sees what `jmxr merge` would write (clock-corrected, time-ordered, thread
/// counts summed across shards). Shards reported missing become warnings.
pub fn merge_for_report(
    jtls: &[PathBuf],
    props: &Properties,
) -> Result<(TemporaryMerge, Vec<String>), String> {
    let out = std::env::temp_dir().join(format!("jmxr-merge-{}.jtl", std::process::id()));
    let temp = TemporaryMerge(out.clone());
    let config = MergeConfig {
        out,
        inputs: jtls.to_vec(),
        force: true,
    };
    let save = SaveConfig::from_properties(props).map_err(|e| e.to_string())?;
    let timestamp_format = props.get("jmeter.save.saveservice.timestamp_format");
    let report = merge_with(&config, &save, timestamp_format.as_deref())?;
    let mut warnings = report.warnings;
    warnings.extend(report.problems);
    Ok((temp, warnings))
}
