//! The jp@gc AutoStop Listener: stops the run when the average response time, the
//! average latency or the error rate of the samples in its scope stays above a limit
//! for some seconds.
//!
//! The arithmetic is the plugin's. At the first sample of each new wall-clock second, the
//! averages of the samples taken since the previous check are compared with the limits;
//! a condition above its limit counts from the last second it was not, and once that is
//! its length in seconds or more the run stops at once (the plugin sends JMeter
//! `StopTestNow`). Then the averages start again, with this sample in them. A check
//! without samples sees averages of 0. The sink runs on the results thread, so the
//! checks never slow the users down.

use super::{Clock, SampleEvent, Sink};

/// The limits as the plugin reads them from its properties at test start.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoStopLimits {
    /// `avg_response_time`, ms; 0 turns the condition off.
    pub response_time_ms: i64,
    /// `avg_response_time_length`, seconds (at least 1).
    pub response_time_secs: i64,
    /// `avg_response_latency`, ms; 0 turns the condition off.
    pub latency_ms: i64,
    pub latency_secs: i64,
    /// `error_rate` as a fraction (the property is in percent); 0 turns it off.
    pub error_rate: f64,
    pub error_rate_secs: i64,
    /// The properties as written, for the message (the plugin prints them as given).
    pub written: [String; 6],
}

impl AutoStopLimits {
    /// Reads the properties' values (already evaluated) as the plugin does: blank means
    /// off (limits) or 1 (lengths); text that is not a number counts as 0 for a limit and
    /// 1 for a length, and is reported.
    pub fn read(values: [&str; 6], problems: &mut Vec<String>) -> AutoStopLimits {
        let [time, time_secs, latency, latency_secs, errors, errors_secs] = values;
        // Whole milliseconds (Java's `Integer.parseInt`) for times, a float for the rate.
        let mut limit = |text: &str, what: &str, whole: bool| -> f64 {
            let text = text.trim();
            if text.is_empty() {
                return 0.0;
            }
            let parsed = if whole {
                text.parse::<i32>().map(f64::from).ok()
            } else {
                text.parse::<f32>().map(f64::from).ok()
            };
            parsed.unwrap_or_else(|| {
                problems.push(format!("wrong {what}: {text}"));
                0.0
            })
        };
        let response_time_ms = limit(time, "response time", true) as i64;
        let latency_ms = limit(latency, "response latency", true) as i64;
        let error_rate = limit(errors, "error rate", false) / 100.0;
        let mut length = |text: &str, what: &str| -> i64 {
            let text = text.trim();
            if text.is_empty() {
                return 1;
            }
            match text.parse::<i64>() {
                Ok(secs) => secs.max(1),
                Err(_) => {
                    problems.push(format!("wrong {what} period: {text}"));
                    1
                }
            }
        };
        AutoStopLimits {
            response_time_ms,
            response_time_secs: length(time_secs, "response time"),
            latency_ms,
            latency_secs: length(latency_secs, "response latency"),
            error_rate,
            error_rate_secs: length(errors_secs, "error rate"),
            written: values.map(|v| v.to_string()),
        }
    }
}

/// One watched average and when it last was within its limit.
#[derive(Default)]
struct Condition {
    sum: f64,
    count: u64,
    /// Epoch second of the latest check that found the average within the limit.
    within_at: i64,
}

impl Condition {
    fn add(&mut self, value: f64) {
        self.sum += value;
        self.count += 1;
    }

    /// Whether the average has been above `limit` for `secs` seconds as of `second`;
    /// a `limit` of 0 is off.
    fn holds(&mut self, limit: f64, secs: i64, second: i64) -> bool {
        if limit <= 0.0 {
            return false;
        }
        let average = if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        };
        if average > limit {
            second - self.within_at >= secs
        } else {
            self.within_at = second;
            false
        }
    }

    fn restart(&mut self) {
        self.sum = 0.0;
        self.count = 0;
    }
}

/// Called once when a condition stops the run, with the plugin's message.
pub type StopRun = Box<dyn FnMut(&str) + Send>;

/// An AutoStop Listener watching the samples in its scope.
pub struct AutoStop {
    /// The listener's id, which a sample's `listeners` hold when it is in scope.
    listener: usize,
    limits: AutoStopLimits,
    clock: Box<dyn Clock>,
    stop: StopRun,
    stopped: bool,
    /// The wall-clock second of the latest check (0 before the first sample).
    second: i64,
    response_time: Condition,
    latency: Condition,
    errors: Condition,
}

impl AutoStop {
    pub fn new(
        listener: usize,
        limits: AutoStopLimits,
        clock: Box<dyn Clock>,
        stop: StopRun,
    ) -> AutoStop {
        AutoStop {
            listener,
            limits,
            clock,
            stop,
            stopped: false,
            second: 0,
            response_time: Condition::default(),
            latency: Condition::default(),
            errors: Condition::default(),
        }
    }

    /// The checks of a new second, in the plugin's order; the messages of those that hold.
    fn check(&mut self, second: i64) -> Vec<String> {
        let limits = &self.limits;
        let [time, time_secs, latency, latency_secs, errors, errors_secs] = &limits.written;
        let mut messages = Vec::new();
        if self.response_time.holds(
            limits.response_time_ms as f64,
            limits.response_time_secs,
            second,
        ) {
            messages.push(format!(
                "AutoStop - Average Response Time is more than {time} for {time_secs}s. \
                 Auto-shutdown test..."
            ));
        }
        if self
            .latency
            .holds(limits.latency_ms as f64, limits.latency_secs, second)
        {
            messages.push(format!(
                "AutoStop - Average Latency Time is more than {latency} for {latency_secs}s. \
                 Auto-shutdown test..."
            ));
        }
        if self
            .errors
            .holds(limits.error_rate, limits.error_rate_secs, second)
        {
            messages.push(format!(
                "AutoStop - Error rate more than {errors} for {errors_secs}s. Auto-shutdown test..."
            ));
        }
        messages
    }
}

impl Sink for AutoStop {
    fn on_sample(&mut self, event: &SampleEvent) -> std::io::Result<()> {
        let sample = &event.result;
        if sample.ignore || !event.listeners.contains(&self.listener) {
            return Ok(());
        }
        let second = self.clock.now_ms().div_euclid(1000);
        if second != self.second {
            for message in self.check(second) {
                if !self.stopped {
                    self.stopped = true;
                    (self.stop)(&message);
                }
            }
            self.second = second;
            self.response_time.restart();
            self.latency.restart();
            self.errors.restart();
        }
        self.response_time.add(sample.elapsed as f64);
        self.latency.add(sample.latency as f64);
        self.errors.add(if sample.success { 0.0 } else { 1.0 });
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicI64, Ordering};
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::sample::SampleResult;

    struct TestClock(Arc<AtomicI64>);

    impl Clock for TestClock {
        fn now_ms(&self) -> i64 {
            self.0.load(Ordering::SeqCst)
        }
    }

    fn sample(elapsed: i64, success: bool, listeners: &[usize]) -> SampleEvent {
        let mut result = SampleResult::new(Arc::from("s"));
        result.elapsed = elapsed;
        result.latency = elapsed / 2;
        result.success = success;
        SampleEvent {
            result: Arc::new(result),
            listeners: Arc::from(listeners),
        }
    }

    /// A listener (id 7) with the given property values; the clock and the stop messages.
    fn autostop(values: [&str; 6]) -> (AutoStop, Arc<AtomicI64>, Arc<Mutex<Vec<String>>>) {
        let mut problems = Vec::new();
        let limits = AutoStopLimits::read(values, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        let now = Arc::new(AtomicI64::new(1_000_000_000_000));
        let stops = Arc::new(Mutex::new(Vec::new()));
        let seen = stops.clone();
        let sink = AutoStop::new(
            7,
            limits,
            Box::new(TestClock(now.clone())),
            Box::new(move |message| seen.lock().unwrap().push(message.to_string())),
        );
        (sink, now, stops)
    }

    #[test]
    fn a_slow_average_stops_the_run_once_it_has_lasted_its_seconds() {
        let (mut sink, now, stops) = autostop(["100", "3", "", "", "", ""]);
        // One sample per second: the check at second n judges the sample of second n-1.
        for second in 0..10 {
            let elapsed = if second < 2 { 50 } else { 500 };
            sink.on_sample(&sample(elapsed, true, &[7])).unwrap();
            if second < 5 {
                assert!(stops.lock().unwrap().is_empty(), "stopped at {second}");
            }
            now.fetch_add(1000, Ordering::SeqCst);
        }
        // Within the limit at the checks of seconds 0 to 2 (nothing yet, then the fast
        // samples); above it from second 3; at second 5 the last check within the limit
        // is 3 s old.
        assert_eq!(
            *stops.lock().unwrap(),
            ["AutoStop - Average Response Time is more than 100 for 3s. Auto-shutdown test..."]
        );
    }

    #[test]
    fn the_error_rate_is_in_percent_and_samples_out_of_scope_do_not_count() {
        let (mut sink, now, stops) = autostop(["", "", "", "", "50", "1"]);
        for _ in 0..5 {
            // Out of scope: every one fails, and none counts.
            sink.on_sample(&sample(1, false, &[3])).unwrap();
            // In scope: one failure in two is 50 %, not more than the limit.
            sink.on_sample(&sample(1, false, &[7])).unwrap();
            sink.on_sample(&sample(1, true, &[7, 3])).unwrap();
            now.fetch_add(1000, Ordering::SeqCst);
        }
        assert!(stops.lock().unwrap().is_empty());
        sink.on_sample(&sample(1, false, &[7])).unwrap();
        now.fetch_add(1000, Ordering::SeqCst);
        sink.on_sample(&sample(1, false, &[7])).unwrap();
        now.fetch_add(1000, Ordering::SeqCst);
        sink.on_sample(&sample(1, true, &[7])).unwrap();
        assert_eq!(
            *stops.lock().unwrap(),
            ["AutoStop - Error rate more than 50 for 1s. Auto-shutdown test..."]
        );
    }

    #[test]
    fn limits_are_read_as_the_plugin_reads_them() {
        let mut problems = Vec::new();
        let limits = AutoStopLimits::read([" 250 ", "", "x", "0", "12.5", "-3"], &mut problems);
        assert_eq!(limits.response_time_ms, 250);
        assert_eq!(limits.response_time_secs, 1);
        assert_eq!(limits.latency_ms, 0);
        assert_eq!(limits.latency_secs, 1);
        assert!((limits.error_rate - 0.125).abs() < 1e-7);
        assert_eq!(limits.error_rate_secs, 1);
        assert_eq!(problems, ["wrong response latency: x"]);
    }
}
