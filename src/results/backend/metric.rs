//! The numbers a Backend Listener keeps between two sends, as JMeter 5.6 keeps them
//! (`SamplerMetric`, `UserMetric`, `ErrorMetric` over commons-math's
//! `DescriptiveStatistics`).
//!
//! Per label (and once more for the whole run, the "cumulated" metric) there are counters
//! that start again at each send (successes, failures, hits, bytes, errors by response
//! code and message) and windows of response times that the window mode decides:
//! `FIXED` (JMeter's default) keeps the last `backend_metrics_window` values and never
//! clears them, `TIMED` keeps up to `backend_metrics_large_window` and clears them at each
//! send. The window behind the "all" percentiles always keeps the last
//! `backend_metrics_window` values. Adding a sample is a few stores; the statistics are
//! computed from a [`Snapshot`] taken at send time, outside the lock the results thread
//! shares with the sender.

use crate::foundation::properties::Properties;
use crate::results::percentile::legacy;
use crate::sample::SampleResult;

/// `backend_metrics_window_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowMode {
    Fixed,
    Timed,
}

/// The window sizes and mode, from JMeter's `backend_metrics_*` properties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowSettings {
    pub mode: WindowMode,
    /// `backend_metrics_window` (100).
    pub window: usize,
    /// `backend_metrics_large_window` (5000).
    pub large_window: usize,
}

impl WindowSettings {
    pub fn from_properties(props: &Properties) -> WindowSettings {
        let size = |name: &str, default: i64| props.get_i64(name, default).max(1) as usize;
        let mode = match props.get("backend_metrics_window_mode") {
            Some(mode) if mode.trim().eq_ignore_ascii_case("timed") => WindowMode::Timed,
            _ => WindowMode::Fixed,
        };
        WindowSettings {
            mode,
            window: size("backend_metrics_window", 100),
            large_window: size("backend_metrics_large_window", 5000),
        }
    }

    /// The size of the ok/ko/all response-time windows.
    fn response_window(self) -> usize {
        match self.mode {
            WindowMode::Fixed => self.window,
            WindowMode::Timed => self.large_window,
        }
    }
}

impl Default for WindowSettings {
    fn default() -> WindowSettings {
        WindowSettings {
            mode: WindowMode::Fixed,
            window: 100,
            large_window: 5000,
        }
    }
}

/// The most recent values up to a capacity (`DescriptiveStatistics` with a window).
#[derive(Debug, Clone, Default)]
pub struct Window {
    values: Vec<i64>,
    next: usize,
    capacity: usize,
}

impl Window {
    pub fn new(capacity: usize) -> Window {
        Window {
            values: Vec::new(),
            next: 0,
            capacity,
        }
    }

    #[inline]
    pub fn add(&mut self, value: i64) {
        if self.values.len() < self.capacity {
            self.values.push(value);
        } else {
            self.values[self.next] = value;
            self.next = (self.next + 1) % self.capacity;
        }
    }

    /// The values and an empty window of the same capacity in their place.
    fn take(&mut self) -> Window {
        let capacity = self.capacity;
        std::mem::replace(self, Window::new(capacity))
    }

    pub fn min(&self) -> f64 {
        self.values.iter().min().map_or(f64::NAN, |&v| v as f64)
    }

    pub fn max(&self) -> f64 {
        self.values.iter().max().map_or(f64::NAN, |&v| v as f64)
    }

    /// commons-math's `Mean`: the sum over the count, corrected by the mean deviation
    /// (the last digit can differ from a plain division).
    pub fn mean(&self) -> f64 {
        if self.values.is_empty() {
            return f64::NAN;
        }
        let n = self.values.len() as f64;
        let xbar = self.values.iter().map(|&v| v as f64).sum::<f64>() / n;
        let correction: f64 = self.values.iter().map(|&v| v as f64 - xbar).sum();
        xbar + correction / n
    }

    /// LEGACY-estimated percentiles, each asked as JMeter asks them (a `float` made
    /// a `double`); `NaN` when empty.
    pub fn percentiles(&self, ps: &[f32]) -> Vec<f64> {
        let mut sorted = self.values.clone();
        sorted.sort_unstable();
        let n = sorted.len() as u64;
        ps.iter()
            .map(|&p| legacy(f64::from(p), n, |rank| sorted[rank as usize - 1]))
            .collect()
    }
}

/// A failed sample's response code and message as `ErrorMetric` reads them.
///
/// JMeter tests the code of the metric (still empty) rather than the sample's, so any
/// failed sample with an assertion message counts as `Assertion failed` with that
/// message, and every other one under its own code and message.
fn error_of(sample: &SampleResult) -> (String, String) {
    let assertion = sample.first_failure_message();
    let (code, message) = if assertion.is_empty() {
        (sample.response_code.trim(), sample.response_message.trim())
    } else {
        ("Assertion failed", assertion.trim())
    };
    let code = if code.is_empty() { "0" } else { code };
    let message = if message.is_empty() { "None" } else { message };
    (code.to_string(), message.to_string())
}

/// Java's `equalsIgnoreCase`, with the ASCII comparison first (codes and most messages).
fn same_ignoring_case(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b) || a.to_lowercase() == b.to_lowercase()
}

/// One label's numbers (or the run's, cumulated) since the previous send.
#[derive(Debug, Clone)]
pub struct SamplerMetric {
    ok: Window,
    ko: Window,
    all: Window,
    /// The window behind the "all" percentiles: always `backend_metrics_window` long,
    /// never cleared.
    pct: Window,
    successes: i64,
    failures: i64,
    hits: i64,
    sent_bytes: i64,
    received_bytes: i64,
    /// (code, message, count), matched ignoring case, in order of first appearance.
    errors: Vec<(String, String, i64)>,
}

impl SamplerMetric {
    pub fn new(windows: WindowSettings) -> SamplerMetric {
        let size = windows.response_window();
        SamplerMetric {
            ok: Window::new(size),
            ko: Window::new(size),
            all: Window::new(size),
            pct: Window::new(windows.window),
            successes: 0,
            failures: 0,
            hits: 0,
            sent_bytes: 0,
            received_bytes: 0,
            errors: Vec::new(),
        }
    }

    /// Adds a sample of its own label (`add`) or to the run's total (`addCumulated`,
    /// where a Transaction Controller sample without sub-samples, made beside the
    /// samples it times, adds neither hits nor bytes).
    pub fn add(&mut self, sample: &SampleResult, cumulated: bool) {
        if sample.success {
            self.successes += i64::from(sample.sample_count - sample.error_count);
        } else {
            let errors = i64::from(sample.error_count);
            self.failures += errors;
            let (code, message) = error_of(sample);
            let known = self
                .errors
                .iter_mut()
                .find(|(c, m, _)| same_ignoring_case(c, &code) && same_ignoring_case(m, &message));
            match known {
                Some((_, _, count)) => *count += errors,
                None => self.errors.push((code, message, errors)),
            }
        }
        let time = sample.elapsed;
        self.all.add(time);
        self.pct.add(time);
        if sample.success {
            self.ok.add(time);
        } else {
            self.ko.add(time);
        }
        let separate_transaction =
            cumulated && sample.is_transaction() && sample.subresults.is_empty();
        if !separate_transaction {
            self.hits += hits(sample);
            self.sent_bytes += sample.sent_bytes;
            self.received_bytes += sample.bytes();
        }
    }

    /// The numbers of the interval that ends now; the counters start again, and so do
    /// the windows in `TIMED` mode.
    pub fn take_interval(&mut self, mode: WindowMode) -> Snapshot {
        let (ok, ko, all) = match mode {
            WindowMode::Fixed => (self.ok.clone(), self.ko.clone(), self.all.clone()),
            WindowMode::Timed => (self.ok.take(), self.ko.take(), self.all.take()),
        };
        let snapshot = Snapshot {
            ok,
            ko,
            all,
            pct: self.pct.clone(),
            successes: self.successes,
            failures: self.failures,
            hits: self.hits,
            sent_bytes: self.sent_bytes,
            received_bytes: self.received_bytes,
            errors: std::mem::take(&mut self.errors),
        };
        self.successes = 0;
        self.failures = 0;
        self.hits = 0;
        self.sent_bytes = 0;
        self.received_bytes = 0;
        snapshot
    }
}

/// Hits as `SamplerMetric.addHits` counts them: a sample counts its `sampleCount`, a
/// Transaction Controller parent with sub-samples counts only what is under it.
fn hits(sample: &SampleResult) -> i64 {
    let own = if sample.is_transaction() && !sample.subresults.is_empty() {
        0
    } else {
        i64::from(sample.sample_count)
    };
    own + sample.subresults.iter().map(hits).sum::<i64>()
}

/// One label's numbers for one send, taken out of the shared state.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub ok: Window,
    pub ko: Window,
    pub all: Window,
    pub pct: Window,
    pub successes: i64,
    pub failures: i64,
    pub hits: i64,
    pub sent_bytes: i64,
    pub received_bytes: i64,
    pub errors: Vec<(String, String, i64)>,
}

impl Snapshot {
    pub fn total(&self) -> i64 {
        self.successes + self.failures
    }
}

/// Active users as the samples arrive (`UserMetric`): the last `backend_metrics_window`
/// values, never cleared during the run.
#[derive(Debug, Clone)]
pub struct UserMetric {
    active: Window,
}

/// The users line of one send.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Users {
    pub min_active: i64,
    pub max_active: i64,
    pub mean_active: i64,
    pub started: u64,
    pub finished: u64,
}

impl UserMetric {
    pub fn new(windows: WindowSettings) -> UserMetric {
        UserMetric {
            active: Window::new(windows.window),
        }
    }

    #[inline]
    pub fn add(&mut self, active: u64) {
        self.active.add(active as i64);
    }

    /// The window's statistics as Java's `(int)` casts make them (`NaN` is 0).
    pub fn users(&self, started: u64, finished: u64) -> Users {
        let whole = |v: f64| if v.is_nan() { 0 } else { v as i64 };
        Users {
            min_active: whole(self.active.min()),
            max_active: whole(self.active.max()),
            mean_active: whole(self.active.mean()),
            started,
            finished,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::sample::{AssertionResult, TRANSACTION_MESSAGE_PREFIX};

    fn sample(elapsed: i64, success: bool) -> SampleResult {
        let mut s = SampleResult::new(Arc::from("s"));
        s.elapsed = elapsed;
        s.set_success(success);
        s.sent_bytes = 10;
        s.bytes_override = 100;
        s
    }

    #[test]
    fn a_fixed_window_keeps_the_last_values_and_the_counters_start_again() {
        let windows = WindowSettings {
            window: 3,
            ..WindowSettings::default()
        };
        let mut metric = SamplerMetric::new(windows);
        for elapsed in [100, 200, 300, 400] {
            metric.add(&sample(elapsed, true), false);
        }
        metric.add(&sample(50, false), false);
        let first = metric.take_interval(WindowMode::Fixed);
        assert_eq!((first.successes, first.failures, first.hits), (4, 1, 5));
        assert_eq!((first.sent_bytes, first.received_bytes), (50, 500));
        assert_eq!(first.ok.min(), 200.0);
        assert_eq!(first.ok.max(), 400.0);
        assert_eq!(first.ok.mean(), 300.0);
        assert_eq!(first.all.percentiles(&[50.0]), vec![300.0]);
        assert_eq!(first.errors, [("0".into(), "None".into(), 1)]);
        let second = metric.take_interval(WindowMode::Fixed);
        assert_eq!(second.total(), 0);
        assert!(second.errors.is_empty());
        assert_eq!(second.ok.max(), 400.0, "a fixed window is never cleared");
    }

    #[test]
    fn a_timed_window_starts_again_but_the_percentile_window_does_not() {
        let mut metric = SamplerMetric::new(WindowSettings {
            mode: WindowMode::Timed,
            ..WindowSettings::default()
        });
        metric.add(&sample(70, true), false);
        let first = metric.take_interval(WindowMode::Timed);
        assert_eq!(first.ok.mean(), 70.0);
        let second = metric.take_interval(WindowMode::Timed);
        assert!(second.ok.mean().is_nan());
        assert_eq!(second.pct.percentiles(&[90.0]), vec![70.0]);
    }

    #[test]
    fn errors_group_by_code_and_message_and_assertions_name_themselves() {
        let mut metric = SamplerMetric::new(WindowSettings::default());
        let mut http = sample(1, false);
        http.response_code = "500".into();
        http.response_message = "Server Error".into();
        metric.add(&http, false);
        http.response_message = "server error".into();
        metric.add(&http, false);
        let mut asserted = sample(1, false);
        asserted.response_code = "200".into();
        asserted.assertions.push(AssertionResult {
            name: Arc::from("a"),
            failure: true,
            error: false,
            failure_message: Some("Test failed: text expected to contain /x/".into()),
        });
        metric.add(&asserted, false);
        let snapshot = metric.take_interval(WindowMode::Fixed);
        assert_eq!(
            snapshot.errors,
            [
                ("500".into(), "Server Error".into(), 2),
                (
                    "Assertion failed".into(),
                    "Test failed: text expected to contain /x/".into(),
                    1
                ),
            ]
        );
    }

    #[test]
    fn transaction_samples_count_hits_as_jmeter_does() {
        let mut parent = sample(30, true);
        parent.response_message =
            format!("{TRANSACTION_MESSAGE_PREFIX}: 2, number of failing samples : 0").into();
        parent.subresults = vec![sample(10, true), sample(20, true)];
        let mut separate = sample(30, true);
        separate.response_message = parent.response_message.clone();
        let mut label = SamplerMetric::new(WindowSettings::default());
        let mut total = SamplerMetric::new(WindowSettings::default());
        for s in [&parent, &separate] {
            label.add(s, false);
            total.add(s, true);
        }
        let label = label.take_interval(WindowMode::Fixed);
        let total = total.take_interval(WindowMode::Fixed);
        assert_eq!((label.total(), label.hits), (2, 3));
        assert_eq!((total.total(), total.hits), (2, 2));
    }

    #[test]
    fn the_mean_is_commons_math_two_pass_mean() {
        let mut window = Window::new(10);
        [1, 2, 2].into_iter().for_each(|v| window.add(v));
        assert_eq!(window.mean(), 5.0 / 3.0);
        let users = UserMetric::new(WindowSettings::default()).users(3, 1);
        assert_eq!(
            (users.min_active, users.max_active, users.mean_active),
            (0, 0, 0)
        );
    }
}
