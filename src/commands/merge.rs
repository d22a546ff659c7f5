//! `jmxr merge OUT.jtl IN1.jtl IN2.jtl …`: one time-ordered `.jtl` from the results of
//! several shards, streamed with bounded memory whatever the size of the inputs.
//!
//! Each input is scanned by [`MergeInput`] (the dashboard's reader decides what the file
//! is; the records are then read as bytes); every field is copied
//! through as written except three: `timeStamp`, moved by the shard's clock offset from
//! its metadata file (`shard_meta`), and `grpThreads`/`allThreads`, recomputed across
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
use std::collections::{BinaryHeap, HashMap, VecDeque};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use crate::foundation::properties::Properties;
use crate::results::SaveConfig;

use super::cli::CliError;
use super::merge_input::MergeInput;

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
        inputs.push(MergeInput::open(path, save, timestamp_format)?);
    }
    check_shards(&inputs, &mut report);
    let Some(first) = inputs.first() else {
        return Err("merge: none of the input files exists".into());
    };
    let names = first.column_names().to_vec();
    let header = first.header_line().map(str::to_string);
    let delimiter = first.delimiter();
    for input in &inputs[1..] {
        if input.column_names() != names.as_slice() || input.delimiter() != delimiter {
            return Err(format!(
                "{} has other columns than {} ({} instead of {}); merge files written with the same settings",
                input.path.display(),
                first.path.display(),
                input.column_names().join(","),
                names.join(",")
            ));
        }
    }
    let file = File::create(&config.out)
        .map_err(|e| format!("cannot write {}: {e}", config.out.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let write_err = |e: std::io::Error| format!("cannot write {}: {e}", config.out.display());
    if let Some(header) = header {
        out.write_all(header.as_bytes()).map_err(write_err)?;
        out.write_all(b"\n").map_err(write_err)?;
    }
    let mut merger = Merger::new(inputs.len());
    // The k-way merge: each input's next record, by corrected time (the heap holds only
    // the keys; the rows wait in `next`).
    let mut next: Vec<Option<Row>> = Vec::with_capacity(inputs.len());
    let mut heads = BinaryHeap::new();
    for (i, input) in inputs.iter_mut().enumerate() {
        let row = merger.read_row(i, input)?;
        if let Some(row) = &row {
            heads.push(Reverse((row.time, row.seq, i)));
        }
        next.push(row);
    }
    while let Some(Reverse((_, _, i))) = heads.pop() {
        let Some(row) = next[i].take() else { break };
        merger.window.push(row);
        next[i] = merger.read_row(i, &mut inputs[i])?;
        match &next[i] {
            Some(row) => heads.push(Reverse((row.time, row.seq, i))),
            None => merger.ended[i] = Some(merger.last_time[i]),
        }
        if merger.window.len() > WINDOW {
            merger.write_next(&mut out).map_err(write_err)?;
        }
    }
    while merger.window.len() > 0 {
        merger.write_next(&mut out).map_err(write_err)?;
    }
    out.flush().map_err(write_err)?;
    for input in &inputs {
        report.warnings.extend(input.warnings.iter().cloned());
    }
    report.rows = merger.rows;
    report.out_of_order = merger.out_of_order;
    Ok(report)
}

/// Reports unfinished shards and shard indexes no input covers.
fn check_shards(inputs: &[MergeInput], report: &mut MergeReport) {
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

/// The reorder window: rows in time order. Most rows come in order and are appended to
/// `run` (no comparisons beyond one); the few that come earlier than its last row wait in
/// `stragglers`. The earliest row is at the front of one or the other.
#[derive(Default)]
struct Window {
    run: VecDeque<Row>,
    stragglers: BinaryHeap<Reverse<Row>>,
}

impl Window {
    fn len(&self) -> usize {
        self.run.len() + self.stragglers.len()
    }

    fn push(&mut self, row: Row) {
        match self.run.back() {
            Some(last) if row < *last => self.stragglers.push(Reverse(row)),
            _ => self.run.push_back(row),
        }
    }

    fn pop(&mut self) -> Option<Row> {
        match (self.run.front(), self.stragglers.peek()) {
            (Some(first), Some(Reverse(straggler))) if straggler < first => {
                self.stragglers.pop().map(|Reverse(row)| row)
            }
            (Some(_), _) => self.run.pop_front(),
            (None, _) => self.stragglers.pop().map(|Reverse(row)| row),
        }
    }
}

/// The merge's state: the reorder window, and each shard's latest thread counts.
struct Merger {
    window: Window,
    spare: Vec<Vec<u8>>,
    seq: u64,
    groups: HashMap<Vec<u8>, u32>,
    /// `[group][input]`: the latest `grpThreads` written for that group by that input.
    grp_latest: Vec<Vec<i64>>,
    all_latest: Vec<i64>,
    /// Per input: the corrected time of its latest record read, and of its last one once
    /// its file has ended (the shard counts 0 threads after it).
    last_time: Vec<i64>,
    ended: Vec<Option<i64>>,
    last_written: i64,
    rows: u64,
    out_of_order: u64,
    number: itoa::Buffer,
}

/// What replaces one of the fields the merge rewrites.
#[derive(Clone, Copy)]
enum Cut {
    Time,
    Grp,
    All,
}

impl Merger {
    fn new(inputs: usize) -> Merger {
        Merger {
            window: Window::default(),
            spare: Vec::new(),
            seq: 0,
            groups: HashMap::new(),
            grp_latest: Vec::new(),
            all_latest: vec![0; inputs],
            last_time: vec![i64::MIN; inputs],
            ended: vec![None; inputs],
            last_written: i64::MIN,
            rows: 0,
            out_of_order: 0,
            number: itoa::Buffer::new(),
        }
    }

    /// Reads the next record of `input` into a row (`None` at its end): its bytes copied
    /// through, the timestamp moved by the shard's offset, the thread counts left out.
    fn read_row(&mut self, index: usize, input: &mut MergeInput) -> Result<Option<Row>, String> {
        if !input.advance()? {
            return Ok(None);
        }
        let record = input.current();
        let offset = input
            .meta
            .as_ref()
            .map_or(0, |m| m.offset_at(record.timestamp).round() as i64);
        let time = record.timestamp + offset;
        self.last_time[index] = self.last_time[index].max(time);
        let mut line = self.spare.pop().unwrap_or_default();
        line.clear();
        let mut cuts = [
            (record.timestamp_at, Cut::Time),
            (record.grp_at, Cut::Grp),
            (record.all_at, Cut::All),
        ];
        cuts.sort_unstable_by_key(|&((from, _), _)| from);
        let (mut grp_at, mut all_at, mut copied) = (0, 0, 0);
        for ((from, to), cut) in cuts {
            line.extend_from_slice(&record.bytes[copied..from]);
            match cut {
                Cut::Time if offset != 0 => {
                    line.extend_from_slice(self.number.format(time).as_bytes());
                }
                Cut::Time => line.extend_from_slice(&record.bytes[from..to]),
                Cut::Grp => grp_at = line.len(),
                Cut::All => all_at = line.len(),
            }
            copied = to;
        }
        line.extend_from_slice(&record.bytes[copied..]);
        let group = self.group_of(&record.thread_name);
        self.seq += 1;
        Ok(Some(Row {
            time,
            seq: self.seq,
            input: index,
            group,
            grp_threads: record.grp_threads,
            all_threads: record.all_threads,
            line,
            grp_at,
            all_at,
        }))
    }

    /// The thread group of a JMeter thread name ("Group 1-5" → "Group 1").
    fn group_of(&mut self, thread_name: &[u8]) -> u32 {
        let group = match thread_name.iter().rposition(|&b| b == b'-') {
            Some(dash)
                if dash + 1 < thread_name.len()
                    && thread_name[dash + 1..].iter().all(u8::is_ascii_digit) =>
            {
                &thread_name[..dash]
            }
            _ => thread_name,
        };
        if let Some(&id) = self.groups.get(group) {
            return id;
        }
        let id = u32::try_from(self.groups.len()).unwrap_or(u32::MAX);
        self.groups.insert(group.to_vec(), id);
        self.grp_latest.push(vec![0; self.all_latest.len()]);
        id
    }

    /// Writes the earliest row of the window, with thread counts summed across shards.
    fn write_next(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        let Some(row) = self.window.pop() else {
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
