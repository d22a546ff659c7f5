//! Timing: timers keep the pace the plan asks for, and a scheduled thread group ends on
//! time, cutting pauses and timers short as JMeter does; the properties that shape the
//! runtime's scheduling are checked before the run.

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
    let stamps: Vec<i64> = jtl
        .values("timeStamp")
        .iter()
        .map(|t| t.parse().unwrap())
        .collect();
    let gaps: Vec<i64> = stamps.windows(2).map(|w| w[1] - w[0]).collect();
    // A wake-up more than a millisecond late cannot be made up (no pause is shortened by
    // more than that), so on a machine whose cores are taken by other work the user falls
    // behind by the scheduler's delays, as JMeter would. Those gaps are the machine's; the
    // pace of the pauses themselves is measured over the gaps one millisecond stamp
    // rounding can produce around 10 ms, and must hold to 2 %: a timer that rounds its
    // deadlines up to the next tick, or forgets the lateness of a wake-up, shifts it by
    // 5–10 %.
    let on_time: Vec<i64> = gaps.iter().copied().filter(|g| *g <= 11).collect();
    let late = gaps.len() - on_time.len();
    let mean_gap = on_time.iter().sum::<i64>() as f64 / on_time.len() as f64;
    assert!(
        (mean_gap - 10.0).abs() <= 0.2,
        "mean gap between samples {mean_gap:.3} ms ({late} of {} gaps over 11 ms), \
         expected 10 ms ± 2 %",
        gaps.len()
    );
    // Never early: one sample per 10 ms timer for 10 s is at most 1000 samples; and most
    // pauses end on time even on a busy machine (a timer always late by 2 ms or more
    // leaves no gap for the mean above).
    let samples = stamps.len() as f64;
    assert!(
        (900.0..=1020.0).contains(&samples),
        "{samples} samples in 10 s, expected 1000 (at most 1020; at least 900 on a busy \
         machine)"
    );
    // No catching up in bursts either.
    assert!(
        gaps.iter().all(|g| *g >= 8),
        "a gap under 8 ms: {:?}",
        gaps.iter().min()
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

#[test]
fn the_runtime_properties_take_whole_numbers_above_zero_and_refuse_others_before_the_run() {
    let plan = fixtures().join("samplers/debug.jmx");
    let plan = plan.to_str().unwrap();
    for good in ["-Jjmxr.event_interval=61", "-Jjmxr.worker_threads=1"] {
        let work = tempfile::tempdir().expect("scratch folder");
        let output = jmxr(work.path(), &["-n", "-t", plan, "-l", "out.jtl", good]);
        assert!(output.status.success(), "{good}: {output:?}");
        let jtl = Jtl::read(&work.path().join("out.jtl"));
        assert_eq!(jtl.values("label").len(), 1, "{good}");
    }
    for (bad, value) in [
        ("jmxr.event_interval", "0"),
        ("jmxr.event_interval", "often"),
        ("jmxr.worker_threads", "0"),
    ] {
        let work = tempfile::tempdir().expect("scratch folder");
        let option = format!("-J{bad}={value}");
        let output = jmxr(work.path(), &["-n", "-t", plan, "-l", "out.jtl", &option]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{option}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "property {bad} must be a whole number above 0, not \"{value}\""
            )),
            "{option}: {stderr}"
        );
        assert!(
            !work.path().join("out.jtl").exists(),
            "{option}: a run started"
        );
    }
}
