//! Pass/fail criteria (Taurus' `passfail` module): rules such as `p95>300ms` or
//! `fail of Log in>5% for 10s, stop as failed`, judged on the results thread.
//!
//! The sink keeps, for the whole run and for each label a criterion names, the numbers
//! of every wall-clock second ([`Kpis`]) and of the run so far. A second is judged once
//! it is over (one more second of grace lets late batches in), in Taurus' way: `for N s`
//! needs the condition on consecutive seconds spanning N s, `within N s` on the seconds
//! of the last N s taken together, `over N s` the same once N s have passed. A criterion
//! without a timeframe judges the whole run at the end. A criterion met with `stop` ends
//! the run gracefully at once; whether the run failed is kept in the shared [`Verdicts`]
//! that the command reads after the last sample, prints and writes as JUnit XML.

mod junit;
mod kpis;
mod parse;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use parking_lot::Mutex;

pub use self::junit::{describe, junit_xml};
use self::kpis::Kpis;
pub use self::parse::{Criterion, Logic};
use super::{Clock, SampleEvent, Sink, StopRun};
use crate::foundation::fast_hash::FastMap;
use crate::user_state::ThreadCounts;

/// What became of one criterion.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub criterion: Criterion,
    /// Whether the condition was met (for a timeframe, over it).
    pub met: bool,
    /// The value judged: when met, the value that met it; else the latest one seen
    /// (`None` when its label had no samples).
    pub value: Option<f64>,
}

impl Verdict {
    /// Whether this verdict fails the run (met, and written `as failed`).
    pub fn fails(&self) -> bool {
        self.met && self.criterion.fail
    }
}

/// The verdicts, filled in when the last sample has been judged.
pub type Verdicts = Arc<Mutex<Vec<Verdict>>>;

/// One criterion's state over the seconds (Taurus' `FailCriterion`).
struct Watch {
    criterion: Criterion,
    /// The labelled numbers it reads (`""` for the whole run).
    key: Arc<str>,
    /// First and last second of the current run of seconds that met the condition.
    start: i64,
    end: i64,
    /// `within`/`over`: the values of the seconds in the timeframe.
    buffer: VecDeque<(i64, f64)>,
    met: bool,
    value: Option<f64>,
}

impl Watch {
    fn new(criterion: Criterion) -> Watch {
        Watch {
            key: Arc::from(criterion.label.as_str()),
            criterion,
            start: i64::MAX,
            end: 0,
            buffer: VecDeque::new(),
            met: false,
            value: None,
        }
    }

    fn counting(&self) -> i64 {
        self.end.saturating_sub(self.start).saturating_add(1)
    }

    /// Judges second `ts`, whose value is `value`; true when this met the criterion.
    fn second(&mut self, ts: i64, value: f64) -> bool {
        let c = &self.criterion;
        let window = c.timeframe as i64;
        let judged = match c.logic {
            Logic::For => value,
            Logic::Within | Logic::Over => {
                self.buffer.push_back((ts, value));
                while self
                    .buffer
                    .front()
                    .is_some_and(|&(old, _)| old <= ts - window)
                {
                    self.buffer.pop_front();
                }
                let sum: f64 = self.buffer.iter().map(|&(_, v)| v).sum();
                if c.subject.sums(c.percentage) {
                    sum
                } else {
                    sum / self.buffer.len() as f64
                }
            }
        };
        if self.met {
            return false;
        }
        self.value = Some(judged);
        let state = c.condition.holds(judged, c.threshold);
        let now_met = match c.logic {
            Logic::For => {
                if state {
                    self.start = self.start.min(ts);
                    self.end = ts;
                } else {
                    self.start = i64::MAX;
                    self.end = 0;
                }
                self.counting() >= window
            }
            Logic::Within => state,
            Logic::Over => {
                if state {
                    self.start = self.buffer.front().map_or(ts, |&(first, _)| first);
                    self.end = ts;
                }
                state && self.counting() >= window
            }
        };
        self.met = now_met;
        now_met
    }
}

/// The numbers of one key: per open second and for the run so far.
#[derive(Default)]
struct Series {
    seconds: BTreeMap<i64, Kpis>,
    total: Kpis,
}

/// The criteria sink.
pub struct CriteriaSink {
    watches: Vec<Watch>,
    /// The rules without a label, copied for each new label (`--junit-per-label`).
    per_label: Vec<Criterion>,
    /// The labels they have been copied for.
    copied_for: FastMap<Arc<str>, ()>,
    series: FastMap<Arc<str>, Series>,
    /// The key of the whole run's numbers.
    overall: Arc<str>,
    clock: Box<dyn Clock>,
    counts: Arc<ThreadCounts>,
    stop: StopRun,
    stopping: bool,
    first_ms: Option<i64>,
    last_ms: i64,
    verdicts: Verdicts,
}

impl CriteriaSink {
    /// `per_label`: also judge each label by every rule that names none.
    pub fn new(
        criteria: Vec<Criterion>,
        per_label: bool,
        clock: Box<dyn Clock>,
        counts: Arc<ThreadCounts>,
        stop: StopRun,
    ) -> (CriteriaSink, Verdicts) {
        let per_label_rules = if per_label {
            criteria
                .iter()
                .filter(|c| c.label.is_empty())
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        let watches: Vec<Watch> = criteria.into_iter().map(Watch::new).collect();
        let mut series = FastMap::default();
        for watch in &watches {
            series
                .entry(watch.key.clone())
                .or_insert_with(Series::default);
        }
        series.entry(Arc::from("")).or_insert_with(Series::default);
        let verdicts = Verdicts::default();
        let sink = CriteriaSink {
            watches,
            per_label: per_label_rules,
            copied_for: FastMap::default(),
            series,
            overall: Arc::from(""),
            clock,
            counts,
            stop,
            stopping: false,
            first_ms: None,
            last_ms: 0,
            verdicts: verdicts.clone(),
        };
        (sink, verdicts)
    }

    fn add(
        &mut self,
        key: &Arc<str>,
        second: i64,
        sample: &crate::sample::SampleResult,
        active: u64,
    ) {
        if let Some(series) = self.series.get_mut(key) {
            series
                .seconds
                .entry(second)
                .or_default()
                .add(sample, active);
            series.total.add(sample, active);
        }
    }

    #[cold]
    fn new_label(&mut self, label: &Arc<str>) {
        self.copied_for.insert(label.clone(), ());
        self.series.entry(label.clone()).or_default();
        let rules: Vec<Criterion> = self.per_label.iter().map(|c| c.for_label(label)).collect();
        self.watches.extend(rules.into_iter().map(Watch::new));
    }

    /// Judges every second that ended more than a second ago.
    fn close_seconds(&mut self, before: i64) {
        for (key, series) in &mut self.series {
            while let Some(entry) = series.seconds.first_entry() {
                if *entry.key() >= before {
                    break;
                }
                let (ts, kpis) = entry.remove_entry();
                for watch in self.watches.iter_mut().filter(|w| &w.key == key) {
                    let c = &watch.criterion;
                    if c.timeframe == 0 {
                        continue;
                    }
                    let Some(value) = kpis.value(&c.subject, c.percentage, 1.0) else {
                        continue;
                    };
                    let (stop, fail) = (c.stop, c.fail);
                    if watch.second(ts, value) && stop && !self.stopping {
                        self.stopping = true;
                        let what = if fail { "failed" } else { "met" };
                        (self.stop)(&format!(
                            "Pass/fail criterion {what}, stopping the test: {}",
                            watch.criterion
                        ));
                    }
                }
            }
        }
    }

    /// Judges the criteria without a timeframe on the whole run, and stores every verdict.
    fn judge_run(&mut self) {
        let seconds = match self.first_ms {
            Some(first) => ((self.last_ms - first) as f64 / 1000.0).max(1.0),
            None => 1.0,
        };
        let mut verdicts = Vec::with_capacity(self.watches.len());
        for watch in &mut self.watches {
            let c = &watch.criterion;
            if c.timeframe == 0 {
                let total = self.series.get(&watch.key).map(|s| &s.total);
                watch.value = total.and_then(|t| t.value(&c.subject, c.percentage, seconds));
                watch.met = watch
                    .value
                    .is_some_and(|v| c.condition.holds(v, c.threshold));
            }
            verdicts.push(Verdict {
                criterion: watch.criterion.clone(),
                met: watch.met,
                value: watch.value,
            });
        }
        *self.verdicts.lock() = verdicts;
    }
}

impl Sink for CriteriaSink {
    fn on_sample(&mut self, event: &SampleEvent) -> std::io::Result<()> {
        let sample = &event.result;
        if sample.ignore {
            return Ok(());
        }
        let now = self.clock.now_ms();
        let second = now.div_euclid(1000);
        self.first_ms.get_or_insert(sample.start_time.min(now));
        self.last_ms = self.last_ms.max(sample.end_time).max(now);
        let active = self
            .counts
            .active
            .load(std::sync::atomic::Ordering::Relaxed);
        if !self.per_label.is_empty() && !self.copied_for.contains_key(&sample.label) {
            self.new_label(&sample.label);
        }
        let overall = self.overall.clone();
        self.add(&overall, second, sample, active);
        if !sample.label.is_empty() {
            let label = sample.label.clone();
            self.add(&label, second, sample, active);
        }
        self.close_seconds(second - 1);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let second = self.clock.now_ms().div_euclid(1000);
        self.close_seconds(second - 1);
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.close_seconds(i64::MAX);
        self.judge_run();
        Ok(())
    }
}

#[cfg(test)]
mod tests;
