//! Timing: timers keep the pace the plan asks for, and a scheduled thread group ends on
//! time, cutting pauses and timers short as JMeter does.

mod support;

use std::time::Instant;

use support::{fixtures, jmxr, Jtl};

#[test]
fn constant_timer_keeps_its_pace_within_two_percent_over_ten_seconds() {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("timing/constant_pacing.jmx");
    let output = jmxr(
        work.path(),
        &["-n", "-t", plan.to_str().unwrap(), "-l", "out.jtl"],
    );
    assert!(output.status.success(), "{output:?}");
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    let samples = jtl.rows.len() as f64;
    // One sample per 10 ms timer for 10 s: 1000 samples.
    assert!(
        (samples - 1000.0).abs() <= 20.0,
        "{samples} samples in 10 s, expected 1000 ± 2 %"
    );
    let stamps: Vec<i64> = jtl
        .values("timeStamp")
        .iter()
        .map(|t| t.parse().unwrap())
        .collect();
    let span = (stamps[stamps.len() - 1] - stamps[0]) as f64;
    let mean_gap = span / (stamps.len() - 1) as f64;
    assert!(
        (mean_gap - 10.0).abs() <= 0.2,
        "mean gap between samples {mean_gap:.3} ms, expected 10 ms ± 2 %"
    );
}

#[test]
fn scheduled_group_ends_on_time_cutting_pauses_and_timers() {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("timing/scheduler_end.jmx");
    let started = Instant::now();
    let output = jmxr(
        work.path(),
        &["-n", "-t", plan.to_str().unwrap(), "-l", "out.jtl"],
    );
    let took = started.elapsed().as_secs_f64();
    assert!(output.status.success(), "{output:?}");
    assert!(
        (took - 5.0).abs() <= 0.2,
        "the 5 s scheduled run took {took:.3} s"
    );
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    let labels = jtl.values("label");
    let count = |l: &str| labels.iter().filter(|x| *x == l).count();
    // Each pausing user samples once, then its 20 s pause is cut at the end time.
    assert_eq!(count("before pause"), 2);
    assert_eq!(count("after pause"), 0);
    // Two users with 100 ms timers for 5 s: about 49 samples each.
    let timed = count("timed");
    assert!((90..=100).contains(&timed), "{timed} timed samples");
}
