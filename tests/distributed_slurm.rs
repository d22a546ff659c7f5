//! Shards on a real scheduler: a private one-node Slurm cluster runs the deterministic
//! plan as a 3-task array job (`sbatch --array=0-2 --wait`), each task a plain `jmxr` run
//! that finds its shard in the array job's environment (no `--shard`), all started
//! together by `--start-at`; the merged results are the single run's.
//!
//! Skipped, with the reason printed, only when Slurm or munge is not installed; `.ci/run`
//! installs both, so in CI it runs.

mod support;

use std::time::Duration;

use support::shards::{check_like_single, check_partition, merge_shards, now_ms, run_single};
use support::slurm::{self, Slurm};

#[test]
fn a_slurm_array_job_runs_the_shards_and_their_merge_is_the_single_run() {
    if let Some(why) = slurm::missing() {
        eprintln!("skipped: {why}");
        return;
    }
    let base = tempfile::tempdir().unwrap();
    let (single, single_start) = run_single(base.path());
    let cluster = Slurm::start();
    let work = base.path().join("slurm");
    std::fs::create_dir(&work).unwrap();
    // Far enough ahead for Slurm to launch all three tasks.
    let start_at = now_ms() + 8000;
    let script = format!(
        "#!/bin/sh\nexec {jmxr} -n -t {plan} -l s$((SLURM_ARRAY_TASK_ID + 1)).jtl \
         -Jsample_variables=row,it -Jjmxr.shard.csv=partition --start-at {start_at}\n",
        jmxr = env!("CARGO_BIN_EXE_jmxr"),
        plan = support::shards::plan().display(),
    );
    let out = cluster.run_array(&work, &script, "0-2", Duration::from_secs(120));
    let tasks: String = (0..3)
        .map(|i| std::fs::read_to_string(work.join(format!("task-{i}.out"))).unwrap_or_default())
        .collect();
    assert!(
        out.status.success(),
        "sbatch: {}{}\ntasks:\n{tasks}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        cluster.logs()
    );
    // Each task took its shard from the environment: shard i/3 for task id i-1.
    for i in 1..=3 {
        let meta = std::fs::read_to_string(work.join(format!("s{i}.jtl.shard.json"))).unwrap();
        let meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
        assert_eq!(
            (meta["shard"].as_u64(), meta["shards"].as_u64()),
            (Some(i), Some(3))
        );
        assert_eq!(meta["finished"], true);
    }
    let merged = merge_shards(&work, 3);
    check_like_single(&single, single_start, &merged, start_at, 3);
    check_partition(&work, 3);
}
