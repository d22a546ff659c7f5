//! What each thread group plans over time, without running it: users for the closed
//! models (Thread Group, Ultimate, Stepping, Concurrency), arrivals per second for the
//! arrival-driven ones (Open Model, bzm Arrivals and Free-Form). The same windows and
//! formulas the starters follow give the values; `jmxr plan` prints and draws them.

use super::concurrency;
use super::scheduler::{user_windows, with_group_context};
use crate::plan::arrivals::ArrivalsProfile;
use crate::plan::open_model;
use crate::plan::{GroupSchedule, ThreadGroup};
use crate::user_state::{EvalContext, RunShared};

/// How many points a profile holds over its span.
const POINTS: usize = 240;

/// What a profile counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Users running at once.
    Users,
    /// Planned arrivals per second.
    Rate,
}

/// One group's plan over time.
#[derive(Debug, Clone)]
pub struct GroupProfile {
    pub name: String,
    pub measure: Measure,
    /// (seconds from the group's start, value), evenly spaced over the span.
    pub points: Vec<(f64, f64)>,
    /// When the group's schedule ends, when its settings fix it.
    pub end_s: Option<f64>,
    /// Planned arrivals in all, where the schedule fixes them.
    pub total_arrivals: Option<u64>,
    /// What the numbers do not show (users ending with their loops, a schedule error).
    pub note: Option<String>,
}

/// The plan of `group`, its settings evaluated with the run's properties.
pub fn profile(group: &ThreadGroup, run: &RunShared) -> GroupProfile {
    with_group_context(group, run, |cx| profile_in(group, run, cx))
}

fn profile_in(group: &ThreadGroup, run: &RunShared, cx: &mut EvalContext<'_>) -> GroupProfile {
    let mut out = GroupProfile {
        name: group.name.to_string(),
        measure: Measure::Users,
        points: Vec::new(),
        end_s: None,
        total_arrivals: None,
        note: None,
    };
    match &group.schedule {
        GroupSchedule::Concurrency(settings) => {
            let ramp = concurrency::ramp_of(settings, cx);
            let span = (ramp.ramp_up_s + ramp.hold_s) as f64;
            out.end_s = Some(span);
            out.points = sample(span, |t| concurrency::planned(&ramp, t).unwrap_or(0) as f64);
        }
        GroupSchedule::OpenModel(settings) => {
            out.measure = Measure::Rate;
            let text = settings.schedule.text(cx);
            match open_model::parse(&text) {
                Ok(schedule) => {
                    let stretches = schedule.stretches();
                    let span = schedule.total_duration();
                    out.end_s = Some(span);
                    out.total_arrivals = Some(stretches.iter().map(|s| s.planned_events()).sum());
                    out.points = sample(span, |t| {
                        stretches
                            .iter()
                            .find(|s| t >= s.start && t < s.start + s.duration)
                            .or(stretches.last())
                            .map_or(0.0, |s| s.rate_at(t - s.start))
                    });
                    let limits = schedule.concurrency_changes();
                    if !limits.is_empty() {
                        let list: Vec<String> = limits
                            .iter()
                            .map(|(t, n)| format!("{n} from {t} s"))
                            .collect();
                        out.note = Some(format!("at most {} users at once", list.join(", ")));
                    }
                }
                Err(e) => out.note = Some(format!("the schedule does not parse: {e}")),
            }
        }
        GroupSchedule::Arrivals(settings) => {
            out.measure = Measure::Rate;
            let arrivals = ArrivalsProfile::evaluate(settings, cx);
            let span = arrivals.duration();
            out.end_s = Some(span);
            out.points = sample(span, |t| arrivals.planned_rate(t));
            if arrivals.free_form.is_none() && arrivals.steps <= 0 && arrivals.ramp_up_s > 0 {
                out.note = Some(
                    "the plugin starts no arrivals until a smooth ramp-up is over".to_string(),
                );
            }
        }
        _ => match user_windows(group, run, cx) {
            Ok(windows) => {
                let ends: Option<Vec<i64>> = windows.iter().map(|w| w.end_ms).collect();
                let last_start = windows.iter().map(|w| w.start_ms).max().unwrap_or(0);
                let span = match &ends {
                    Some(ends) => ends.iter().copied().max().unwrap_or(0) as f64 / 1000.0,
                    None => {
                        out.note = Some("users run until their loops end".to_string());
                        (last_start as f64 / 1000.0).max(1.0) * 1.25
                    }
                };
                out.end_s = ends.map(|_| span);
                out.points = sample(span, |t| {
                    let ms = (t * 1000.0) as i64;
                    windows
                        .iter()
                        .filter(|w| w.start_ms <= ms && w.end_ms.is_none_or(|end| ms < end))
                        .count() as f64
                });
            }
            Err(message) => out.note = Some(message),
        },
    }
    out
}

/// `value` at evenly spaced times over `[0, span]`.
fn sample(span: f64, value: impl Fn(f64) -> f64) -> Vec<(f64, f64)> {
    let span = span.max(0.0);
    (0..=POINTS)
        .map(|i| {
            let t = span * i as f64 / POINTS as f64;
            (t, value(t))
        })
        .collect()
}
