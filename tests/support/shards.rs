//! The shard tests' common ground (tests/distributed.rs, tests/distributed_slurm.rs): the
//! deterministic plan run whole, and the checks that shards merged give the single run's
//! samples (per-label counts, (user, iteration, label) rows, each user's first sample at
//! its single-run offset) and that partitioned CSV rows are disjoint and complete.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use super::Jtl;

/// Held by each test of a file for its whole length: the timing checks allow 50 ms, and
/// a test that runs Python or several processes beside them takes the machine's cores.
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub fn plan() -> PathBuf {
    super::fixtures().join("distributed/sharded.jmx")
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Starts `jmxr` with `args` in `work` (several run at once, as shards on machines would).
pub fn spawn(work: &Path, args: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_jmxr"))
        .args(args)
        .current_dir(work)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("jmxr runs")
}

pub fn wait_ok(child: Child) {
    let out = child.wait_with_output().expect("jmxr ends");
    assert!(
        out.status.success(),
        "jmxr failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn run_args(jtl: &str, start_at: i64, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "-n",
        "-t",
        plan().to_str().unwrap(),
        "-l",
        jtl,
        "-Jsample_variables=row,it",
        "--start-at",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(start_at.to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

pub fn run_single(work: &Path) -> (Jtl, i64) {
    let start_at = now_ms() + 1000;
    wait_ok(spawn(work, &run_args("single.jtl", start_at, &[])));
    (Jtl::read(&work.join("single.jtl")), start_at)
}

/// Merges `s1.jtl` … `sN.jtl` of `work` into `merged.jtl`, and reads it.
pub fn merge_shards(work: &Path, n: u32) -> Jtl {
    let mut merge = vec!["merge", "merged.jtl"];
    let inputs: Vec<String> = (1..=n).map(|i| format!("s{i}.jtl")).collect();
    merge.extend(inputs.iter().map(String::as_str));
    let out = super::jmxr(work, &merge);
    assert!(
        out.status.success(),
        "merge failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Jtl::read(&work.join("merged.jtl"))
}

pub fn label_counts(jtl: &Jtl) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for label in jtl.values("label") {
        *counts.entry(label).or_default() += 1;
    }
    counts
}

/// (user, iteration, label) of every row.
pub fn row_keys(jtl: &Jtl) -> BTreeSet<(String, String, String)> {
    jtl.rows
        .iter()
        .map(|r| {
            (
                jtl.get(r, "threadName").to_string(),
                jtl.get(r, "it").to_string(),
                jtl.get(r, "label").to_string(),
            )
        })
        .collect()
}

/// Each user's first sample, ms after the start time.
pub fn first_offsets(jtl: &Jtl, start_at: i64) -> BTreeMap<String, i64> {
    let mut first = BTreeMap::new();
    for r in &jtl.rows {
        let t = jtl.int(r, "timeStamp") - start_at;
        let e = first
            .entry(jtl.get(r, "threadName").to_string())
            .or_insert(t);
        *e = (*e).min(t);
    }
    first
}

pub fn check_like_single(single: &Jtl, single_start: i64, merged: &Jtl, merged_start: i64, n: u32) {
    assert_eq!(label_counts(merged), label_counts(single), "{n} shards");
    assert_eq!(row_keys(merged), row_keys(single), "{n} shards");
    let want = first_offsets(single, single_start);
    let got = first_offsets(merged, merged_start);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    // Within 50 ms either way: every process counts its schedule from the start time,
    // however long it took to get ready.
    for (user, offset) in &want {
        let diff = got[user] - offset;
        assert!(
            (-50..=50).contains(&diff),
            "{n} shards: {user} first sampled {} ms after the start, {offset} ms in the single run",
            got[user]
        );
    }
    // The merged file is in time order.
    let stamps: Vec<i64> = merged
        .rows
        .iter()
        .map(|r| merged.int(r, "timeStamp"))
        .collect();
    assert!(
        stamps.windows(2).all(|w| w[0] <= w[1]),
        "{n} shards: not ordered"
    );
}

/// CSV rows handed out in partition mode: disjoint across shards and, as every shard
/// reads past its part, all of the file's 12 rows once.
pub fn check_partition(work: &Path, n: u32) {
    let mut seen = Vec::new();
    for i in 1..=n {
        let jtl = Jtl::read(&work.join(format!("s{i}.jtl")));
        let rows: BTreeSet<String> = jtl
            .values("row")
            .into_iter()
            .filter(|r| r.starts_with("acct"))
            .collect();
        seen.extend(rows);
    }
    seen.sort();
    let want: Vec<String> = (1..=12).map(|i| format!("acct{i:02}")).collect();
    assert_eq!(seen, want, "{n} shards: rows not disjoint and complete");
}
