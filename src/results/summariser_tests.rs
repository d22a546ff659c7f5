//! Tests for the summariser: line format, report timing, the infinite rate mark.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use super::*;

/// A clock the test moves by hand.
#[derive(Clone)]
struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    fn set_sec(&self, sec: i64) {
        self.0.store(sec * 1000, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// Captures what the summariser prints.
#[derive(Clone, Default)]
struct Output(Arc<Mutex<Vec<u8>>>);

impl Output {
    fn lines(&self) -> Vec<String> {
        let bytes = self.0.lock().unwrap().clone();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A boundary of the 30 s interval, in epoch seconds.
const BOUNDARY: i64 = 1_700_000_010;

fn setup() -> (Summariser, ManualClock, Output) {
    let clock = ManualClock(Arc::new(AtomicI64::new(0)));
    clock.set_sec(BOUNDARY - 3);
    let out = Output::default();
    let threads = Arc::new(ThreadCounts::new());
    threads.thread_started();
    let summariser = Summariser::new("summary", Box::new(out.clone()), threads)
        .with_clock(Box::new(clock.clone()));
    (summariser, clock, out)
}

fn event(elapsed: i64, success: bool) -> SampleEvent {
    let mut result = SampleResult::new(Arc::from("s"));
    result.elapsed = elapsed;
    result.set_success(success);
    SampleEvent {
        result: Arc::new(result),
        listeners: Arc::from(Vec::new()),
    }
}

#[test]
fn interval_lines_then_final_total() {
    assert_eq!(BOUNDARY % 30, 0);
    let (mut s, clock, out) = setup();
    let times = [100, 150, 120, 120, 120, 120, 125, 125, 125];
    for t in times {
        s.on_sample(&event(t, true)).unwrap();
    }
    assert!(out.lines().is_empty(), "no report before the boundary");
    clock.set_sec(BOUNDARY + 2);
    s.on_sample(&event(125, true)).unwrap();
    clock.set_sec(BOUNDARY + 4);
    s.on_sample(&event(300, false)).unwrap();
    clock.set_sec(BOUNDARY + 31);
    s.on_sample(&event(200, false)).unwrap();
    clock.set_sec(BOUNDARY + 40);
    s.finish().unwrap();
    assert_eq!(
        out.lines(),
        [
            "summary +     10 in 00:00:05 =    2.0/s Avg:   123 Min:   100 Max:   150 Err:     0 (0.00%) Active: 1 Started: 1 Finished: 0",
            "summary +      2 in 00:00:29 =    0.1/s Avg:   250 Min:   200 Max:   300 Err:     2 (100.00%) Active: 1 Started: 1 Finished: 0",
            "summary =     12 in 00:00:34 =    0.4/s Avg:   144 Min:   100 Max:   300 Err:     2 (16.67%)",
            "summary =     12 in 00:00:43 =    0.3/s Avg:   144 Min:   100 Max:   300 Err:     2 (16.67%)",
        ]
    );
}

#[test]
fn last_delta_printed_at_the_end_when_there_was_a_report() {
    let (mut s, clock, out) = setup();
    clock.set_sec(BOUNDARY + 1);
    s.on_sample(&event(10, true)).unwrap();
    clock.set_sec(BOUNDARY + 3);
    s.on_sample(&event(30, true)).unwrap();
    s.finish().unwrap();
    let lines = out.lines();
    assert_eq!(lines.len(), 3);
    assert!(lines[1].starts_with("summary +      1 in 00:00:02 =    0.5/s Avg:    30"));
    assert!(lines[2].starts_with("summary =      2 in 00:00:06 =    0.3/s Avg:    20"));
}

#[test]
fn transaction_samples_are_skipped() {
    let (mut s, _clock, out) = setup();
    let mut tc = event(500, true);
    Arc::make_mut(&mut tc.result).response_message =
        "Number of samples in transaction : 1, number of failing samples : 0".into();
    s.on_sample(&tc).unwrap();
    s.finish().unwrap();
    assert_eq!(
        out.lines(),
        ["summary =      0 in 00:00:00 = ******/s Avg:     0 Min: 9223372036854775807 Max: -9223372036854775808 Err:     0 (0.00%)"]
    );
}

#[test]
fn infinite_rate_mark_and_wide_numbers() {
    let mut r = Running::new(1_000);
    r.add_sample(&event(7, false).result, 1_000);
    assert_eq!(
        format_line("summary", '=', &r, None),
        "summary =      1 in 00:00:00 = ******/s Avg:     7 Min:     7 Max:     7 Err:     1 (100.00%)"
    );
    r.count = 1_234_567;
    r.end_ms = 1_000 + 3_600_000 * 2;
    assert!(format_line("x", '+', &r, Some((5, 6, 1))).starts_with(
        "x + 1234567 in 02:00:00 =  171.5/s Avg:     0 Min:     7 Max:     7 Err:     1 (0.00%) Active: 5"
    ));
}

#[test]
fn empty_name_disables_the_summariser() {
    let props = Properties::new();
    let threads = Arc::new(ThreadCounts::new());
    props.set("summariser.name", "");
    assert!(Summariser::from_properties(&props, Box::new(io::sink()), threads.clone()).is_none());
    props.remove("summariser.name");
    assert!(Summariser::from_properties(&props, Box::new(io::sink()), threads).is_some());
}
