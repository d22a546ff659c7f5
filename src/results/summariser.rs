//! The console summariser: JMeter's `summary +` / `summary =` lines (`Summariser`).
//!
//! A report can only happen when a sample arrives: once the wall clock (in epoch seconds) is
//! more than 5 s past the previous report and within 5 s after a multiple of the interval.
//! The `+` line covers the samples since the previous report, the `=` line the running total
//! (printed only when it differs from the delta). At the end, a last `+` line (if there were
//! samples since a previous report) and a final `=` line.

use std::io::{self, Write};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use super::{SampleEvent, Sink};

use crate::user_state::ThreadCounts;

use crate::foundation::properties::Properties;
use crate::sample::SampleResult;

/// Seconds after an interval boundary during which a report may still be made.
const INTERVAL_WINDOW: i64 = 5;

/// Wall-clock time in epoch milliseconds; injectable so tests control the timing of lines.
pub trait Clock: Send {
    fn now_ms(&self) -> i64;
}

/// The system clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0)
    }
}

/// Counters over a stretch of time (JMeter's `SummariserRunningSample`).
#[derive(Debug, Clone)]
struct Running {
    count: i64,
    errors: i64,
    sum: i64,
    min: i64,
    max: i64,
    start_ms: i64,
    end_ms: i64,
}

impl Running {
    fn new(now_ms: i64) -> Running {
        Running {
            count: 0,
            errors: 0,
            sum: 0,
            min: i64::MAX,
            max: i64::MIN,
            start_ms: now_ms,
            end_ms: now_ms,
        }
    }

    fn add_sample(&mut self, sample: &SampleResult, now_ms: i64) {
        self.count += i64::from(sample.sample_count);
        self.errors += i64::from(sample.error_count);
        self.sum += sample.elapsed;
        self.min = self.min.min(sample.elapsed);
        self.max = self.max.max(sample.elapsed);
        self.end_ms = now_ms;
    }

    fn add(&mut self, other: &Running, now_ms: i64) {
        self.count += other.count;
        self.errors += other.errors;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.end_ms = now_ms;
    }

    fn elapsed_ms(&self) -> i64 {
        if self.count == 0 {
            0
        } else {
            self.end_ms - self.start_ms
        }
    }
}

/// Formats one summary line; `threads` is given for `+` lines only.
fn format_line(name: &str, kind: char, r: &Running, threads: Option<(u64, u64, u64)>) -> String {
    let elapsed = r.elapsed_ms();
    let secs = (elapsed + 500) / 1000;
    let duration = format!(
        "{:02}:{:02}:{:02}",
        secs / 3600,
        (secs % 3600) / 60,
        secs % 60
    );
    let rate = if elapsed > 0 {
        format!(
            "{:>6}",
            format!("{:.1}", r.count as f64 / elapsed as f64 * 1000.0)
        )
    } else {
        // JMeter's mark for an infinite rate.
        "******".to_string()
    };
    let (avg, error_ratio) = if r.count == 0 {
        (0, 0.0)
    } else {
        (r.sum / r.count, r.errors as f64 / r.count as f64)
    };
    let mut line = format!(
        "{name} {kind} {:>6} in {duration} = {rate}/s Avg: {avg:>5} Min: {:>5} Max: {:>5} Err: {:>5} ({:.2}%)",
        r.count,
        r.min,
        r.max,
        r.errors,
        error_ratio * 100.0
    );
    if let Some((active, started, finished)) = threads {
        line.push_str(&format!(
            " Active: {active} Started: {started} Finished: {finished}"
        ));
    }
    line
}

/// The summariser sink.
pub struct Summariser {
    name: String,
    interval_secs: i64,
    ignore_transactions: bool,
    out: Box<dyn Write + Send>,
    clock: Box<dyn Clock>,
    threads: Arc<ThreadCounts>,
    /// Epoch second of the previous report.
    last_report_sec: i64,
    delta: Running,
    total: Running,
    finished: bool,
}

impl Summariser {
    /// A summariser named `name` with JMeter's defaults: a 30 s interval, Transaction
    /// Controller samples skipped, the system clock.
    pub fn new(name: &str, out: Box<dyn Write + Send>, threads: Arc<ThreadCounts>) -> Summariser {
        let clock: Box<dyn Clock> = Box::new(SystemClock);
        let now = clock.now_ms();
        Summariser {
            name: name.to_string(),
            interval_secs: 30,
            ignore_transactions: true,
            out,
            clock,
            threads,
            last_report_sec: 0,
            delta: Running::new(now),
            total: Running::new(now),
            finished: false,
        }
    }

    /// The non-GUI summariser as the `summariser.*` properties configure it, or `None` when
    /// `summariser.name` is empty. An unset name means the shipped `summary`.
    pub fn from_properties(
        props: &Properties,
        out: Box<dyn Write + Send>,
        threads: Arc<ThreadCounts>,
    ) -> Option<Summariser> {
        let name = props
            .get("summariser.name")
            .unwrap_or_else(|| "summary".to_string());
        if name.is_empty() {
            return None;
        }
        let out: Box<dyn Write + Send> = if props.get_bool("summariser.out", true) {
            out
        } else {
            Box::new(io::sink())
        };
        let mut summariser = Summariser::new(&name, out, threads);
        summariser.interval_secs = props.get_i64("summariser.interval", 30);
        summariser.ignore_transactions = props.get_bool(
            "summariser.ignore_transaction_controller_sample_result",
            true,
        );
        Some(summariser)
    }

    /// Replaces the clock; the totals restart at the new clock's "now".
    pub fn with_clock(mut self, clock: Box<dyn Clock>) -> Summariser {
        let now = clock.now_ms();
        self.clock = clock;
        self.delta = Running::new(now);
        self.total = Running::new(now);
        self
    }

    pub fn with_interval(mut self, secs: i64) -> Summariser {
        self.interval_secs = secs;
        self
    }

    fn thread_counts(&self) -> (u64, u64, u64) {
        let s = self.threads.snapshot();
        (s.active, s.started, s.finished)
    }

    fn print(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.out, "{line}")?;
        self.out.flush()
    }

    /// Prints the `+` line for the delta, moves it into the total, and prints the `=` line
    /// unless it would repeat the `+` line.
    fn report(&mut self, now_ms: i64) -> io::Result<()> {
        let delta = std::mem::replace(&mut self.delta, Running::new(now_ms));
        self.total.add(&delta, now_ms);
        let plus = format_line(&self.name, '+', &delta, Some(self.thread_counts()));
        self.print(&plus)?;
        if self.total.count != delta.count {
            let equals = format_line(&self.name, '=', &self.total, None);
            self.print(&equals)?;
        }
        Ok(())
    }
}

impl Sink for Summariser {
    fn on_sample(&mut self, event: &SampleEvent) -> io::Result<()> {
        let sample = &event.result;
        if sample.ignore || (self.ignore_transactions && sample.is_transaction()) {
            return Ok(());
        }
        let now_ms = self.clock.now_ms();
        self.delta.add_sample(sample, now_ms);
        let now_sec = now_ms.div_euclid(1000);
        let interval = self.interval_secs.max(1);
        if now_sec > self.last_report_sec + INTERVAL_WINDOW
            && now_sec.rem_euclid(interval) <= INTERVAL_WINDOW
        {
            self.last_report_sec = now_sec;
            self.report(now_ms)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    fn finish(&mut self) -> io::Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let now_ms = self.clock.now_ms();
        self.delta.end_ms = now_ms;
        if self.delta.count > 0 && self.total.count > 0 {
            let plus = format_line(&self.name, '+', &self.delta, Some(self.thread_counts()));
            self.print(&plus)?;
        }
        let delta = std::mem::replace(&mut self.delta, Running::new(now_ms));
        self.total.add(&delta, now_ms);
        let equals = format_line(&self.name, '=', &self.total, None);
        self.print(&equals)
    }
}

#[cfg(test)]
#[path = "summariser_tests.rs"]
mod tests;
