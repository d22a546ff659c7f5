use std::sync::atomic::{AtomicI64, Ordering};

use super::*;
use crate::sample::SampleResult;

struct TestClock(Arc<AtomicI64>);

impl Clock for TestClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

const T0: i64 = 1_700_000_000_000;

/// A sink over `criteria` with a clock at T0, and the stop messages it sends.
fn criteria_sink(
    criteria: &[&str],
    per_label: bool,
) -> (
    CriteriaSink,
    Verdicts,
    Arc<AtomicI64>,
    Arc<Mutex<Vec<String>>>,
) {
    let parsed = criteria
        .iter()
        .map(|c| Criterion::parse(c).expect("criterion"))
        .collect();
    let now = Arc::new(AtomicI64::new(T0));
    let stops = Arc::new(Mutex::new(Vec::new()));
    let seen = stops.clone();
    let (sink, verdicts) = CriteriaSink::new(
        parsed,
        per_label,
        Box::new(TestClock(now.clone())),
        Arc::new(ThreadCounts::new()),
        Box::new(move |m: &str| seen.lock().push(m.to_string())),
    );
    (sink, verdicts, now, stops)
}

fn sample(label: &str, elapsed: i64, success: bool) -> SampleEvent {
    let mut s = SampleResult::new(Arc::from(label));
    s.elapsed = elapsed;
    s.set_success(success);
    s.response_code = if success { "200" } else { "503" }.into();
    SampleEvent {
        result: Arc::new(s),
        listeners: Arc::from(Vec::new()),
    }
}

/// One sample per second of `elapsed` each, for `label`.
fn seconds(sink: &mut CriteriaSink, now: &AtomicI64, label: &str, elapsed: &[i64]) {
    for &e in elapsed {
        sink.on_sample(&sample(label, e, true)).unwrap();
        now.fetch_add(1000, Ordering::SeqCst);
    }
    sink.flush().unwrap();
}

#[test]
fn for_needs_consecutive_seconds_and_stops_the_run_once() {
    let (mut sink, verdicts, now, stops) =
        criteria_sink(&["avg-rt of login>150ms for 3s, stop as failed"], false);
    // Two slow seconds, a fast one (the count starts again), then three slow ones.
    seconds(&mut sink, &now, "login", &[200, 200, 100, 300, 300]);
    assert!(stops.lock().is_empty(), "two slow seconds in a row so far");
    seconds(&mut sink, &now, "login", &[300, 10, 10]);
    assert_eq!(
        *stops.lock(),
        ["Pass/fail criterion failed, stopping the test: avg-rt of login>150ms for 3s, stop as failed"]
    );
    // Other labels do not count.
    seconds(&mut sink, &now, "home", &[900, 900, 900, 900]);
    sink.finish().unwrap();
    let verdicts = verdicts.lock();
    assert!(verdicts[0].met && verdicts[0].fails());
    assert_eq!(verdicts[0].value, Some(300.0));
    assert_eq!(stops.lock().len(), 1);
}

#[test]
fn continue_as_failed_does_not_stop_but_fails_and_non_failed_does_not_fail() {
    let (mut sink, verdicts, now, stops) = criteria_sink(
        &[
            "rps<5 for 2s, continue as failed",
            "hits>0 for 1s, stop as non-failed",
        ],
        false,
    );
    seconds(&mut sink, &now, "a", &[1, 1, 1]);
    sink.finish().unwrap();
    let verdicts = verdicts.lock();
    assert!(verdicts[0].fails(), "one sample a second is under 5/s");
    assert!(verdicts[1].met && !verdicts[1].fails());
    assert_eq!(
        *stops.lock(),
        ["Pass/fail criterion met, stopping the test: hits>0 for 1s, stop as non-failed"]
    );
}

#[test]
fn within_adds_counts_over_the_timeframe() {
    let (mut sink, verdicts, now, _) =
        criteria_sink(&["fail>2 within 3s, continue as failed"], false);
    for ok in [false, true, false, true, true, true, false] {
        sink.on_sample(&sample("a", 5, ok)).unwrap();
        now.fetch_add(1000, Ordering::SeqCst);
    }
    sink.finish().unwrap();
    assert!(!verdicts.lock()[0].met, "never three failures within 3 s");

    let (mut sink, verdicts, now, _) =
        criteria_sink(&["fail>2 within 3s, continue as failed"], false);
    for ok in [true, false, false, false] {
        sink.on_sample(&sample("a", 5, ok)).unwrap();
        now.fetch_add(1000, Ordering::SeqCst);
    }
    sink.finish().unwrap();
    assert!(verdicts.lock()[0].met);
}

#[test]
fn criteria_without_a_timeframe_judge_the_whole_run_at_the_end() {
    let (mut sink, verdicts, _, stops) = criteria_sink(
        &[
            "p95>300ms",
            "fail>1%",
            "avg-rt of missing>1",
            "succ<90%",
            "rc5??>=10%",
        ],
        false,
    );
    for i in 0..100 {
        sink.on_sample(&sample("a", if i < 90 { 100 } else { 500 }, i != 0))
            .unwrap();
    }
    sink.finish().unwrap();
    let verdicts = verdicts.lock();
    let shown: Vec<(bool, Option<f64>)> = verdicts.iter().map(|v| (v.met, v.value)).collect();
    assert_eq!(
        shown,
        [
            (true, Some(500.0)),
            (false, Some(1.0)),
            (false, None),
            (false, Some(99.0)),
            (false, Some(1.0)),
        ]
    );
    assert!(
        stops.lock().is_empty(),
        "a whole-run criterion never stops the run"
    );
}

#[test]
fn per_label_copies_judge_each_label() {
    let (mut sink, verdicts, _, _) = criteria_sink(&["avg-rt>150ms"], true);
    for (label, elapsed) in [("fast", 100), ("slow", 400), ("fast", 100)] {
        sink.on_sample(&sample(label, elapsed, true)).unwrap();
    }
    sink.finish().unwrap();
    let verdicts = verdicts.lock();
    let shown: Vec<(String, bool)> = verdicts
        .iter()
        .map(|v| (v.criterion.to_string(), v.met))
        .collect();
    assert_eq!(
        shown,
        [
            ("avg-rt>150ms".to_string(), true),
            ("avg-rt>150ms [fast]".to_string(), false),
            ("avg-rt>150ms [slow]".to_string(), true),
        ]
    );
    let xml = junit_xml("plan.jmx", &verdicts);
    assert!(xml.contains("tests=\"3\" failures=\"2\""), "{xml}");
    assert!(
        xml.contains("classname=\"jmxr.criteria.slow\" name=\"avg-rt&gt;150ms [slow]\""),
        "{xml}"
    );
    assert!(
        xml.contains("avg-rt was 100 ms for &quot;fast&quot;"),
        "{xml}"
    );
}
