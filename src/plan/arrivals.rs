//! bzm Arrivals and Free-Form Arrivals Thread Groups: the arrival rate over time, as the
//! plugin's `ArrivalsThreadStarter` and `FreeFormArrivalsThreadStarter` compute it.
//!
//! The plugin keeps a rolling time that starts when the group starts; at each arrival
//! it reads the rate at the rolling time and moves the rolling time on by `1 / rate`.
//! A rate of 0 moves it on by 200 ms without an arrival; a negative rate (the schedule
//! is over) ends the arrivals. The engine's starter (`engine::arrivals`) follows that
//! clock; `jmxr plan` draws [`ArrivalsProfile::rate`] over time.

use super::{ArrivalsSettings, Setting};
use crate::user_state::EvalContext;

/// The group's fields, evaluated: times in seconds, rates per second.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrivalsProfile {
    /// Arrivals Thread Group: target rate per second (`TargetLevel` is read as a whole
    /// number, then divided by 60 in minute units, as the plugin does).
    pub target: f64,
    pub ramp_up_s: i64,
    pub hold_s: i64,
    pub steps: i64,
    /// Free-Form rows (start rate/s, end rate/s, duration s); `None` for the Arrivals
    /// Thread Group.
    pub free_form: Option<Vec<(f64, f64, f64)>>,
}

impl ArrivalsProfile {
    pub fn evaluate(settings: &ArrivalsSettings, cx: &mut EvalContext<'_>) -> ArrivalsProfile {
        let factor = if settings.unit.text(cx) == "M" {
            60.0
        } else {
            1.0
        };
        // The plugin's getters: empty is 0, a number is rounded to whole seconds.
        let seconds = |s: &Setting, cx: &mut EvalContext<'_>| {
            let text = s.text(cx);
            let value: f64 = text.trim().parse().unwrap_or(0.0);
            (value * factor).round() as i64
        };
        let free_form = settings.free_form.as_ref().map(|rows| {
            rows.iter()
                .map(|[start, end, length]| {
                    (
                        start.f64(cx) / factor,
                        end.f64(cx) / factor,
                        length.f64(cx) * factor,
                    )
                })
                .collect()
        });
        ArrivalsProfile {
            target: settings.target.i64(cx) as f64 / factor,
            ramp_up_s: seconds(&settings.ramp_up, cx),
            hold_s: seconds(&settings.hold, cx),
            steps: settings.steps.i64(cx),
            free_form,
        }
    }

    /// The rate at `offset` seconds after the start with `scheduled` arrivals so far;
    /// negative once the schedule is over.
    pub fn rate(&self, offset: f64, scheduled: u64) -> f64 {
        match &self.free_form {
            Some(rows) => free_form_rate(rows, offset),
            None => self.ramp_rate(offset, scheduled),
        }
    }

    fn ramp_rate(&self, offset: f64, scheduled: u64) -> f64 {
        let ramp_up = self.ramp_up_s as f64;
        if offset >= ramp_up + self.hold_s as f64 {
            return -1.0;
        }
        if self.ramp_up_s == 0 || offset > ramp_up {
            self.target
        } else if self.steps > 0 {
            let step_size = self.target / self.steps as f64;
            let step_len = ramp_up / self.steps as f64;
            step_size * ((offset / step_len).floor() + 1.0)
        } else {
            // The plugin derives the smooth ramp from the arrivals so far; with none yet
            // it is 0, so the first arrival comes when the ramp-up is over.
            let slope = self.target / ramp_up;
            slope * (2.0 * scheduled as f64 / slope).sqrt()
        }
    }

    /// The seconds the schedule lasts.
    pub fn duration(&self) -> f64 {
        match &self.free_form {
            // The plugin adds each row's length to a whole-second offset.
            Some(rows) => {
                rows.iter()
                    .fold(0i32, |end, row| (end as f64 + row.2) as i32) as f64
            }
            None => (self.ramp_up_s + self.hold_s) as f64,
        }
    }

    /// The rate the plan asks for at `offset`, for previews (the smooth ramp as the
    /// line it aims at, not the plugin's count-driven steps).
    pub fn planned_rate(&self, offset: f64) -> f64 {
        match &self.free_form {
            Some(rows) => free_form_rate(rows, offset).max(0.0),
            None if self.steps <= 0 && self.ramp_up_s > 0 && offset <= self.ramp_up_s as f64 => {
                self.target * offset / self.ramp_up_s as f64
            }
            None => self.ramp_rate(offset, 0).max(0.0),
        }
    }
}

fn free_form_rate(rows: &[(f64, f64, f64)], offset: f64) -> f64 {
    // The plugin keeps the running offset in an `int`, truncating after each row.
    let mut end = 0i32;
    for &(start, stop, length) in rows {
        let progress = (offset - end as f64) / length;
        end = (end as f64 + length) as i32;
        if offset <= end as f64 {
            return start + progress * (stop - start);
        }
    }
    -1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(target: f64, ramp_up_s: i64, hold_s: i64, steps: i64) -> ArrivalsProfile {
        ArrivalsProfile {
            target,
            ramp_up_s,
            hold_s,
            steps,
            free_form: None,
        }
    }

    #[test]
    fn steps_hold_and_the_end_follow_the_plugin() {
        let p = profile(10.0, 10, 5, 2);
        assert_eq!(p.rate(0.0, 0), 5.0);
        assert_eq!(p.rate(4.99, 0), 5.0);
        assert_eq!(p.rate(5.0, 0), 10.0);
        assert_eq!(p.rate(12.0, 0), 10.0);
        assert_eq!(p.rate(15.0, 0), -1.0);
        assert_eq!(p.duration(), 15.0);
        assert_eq!(profile(3.0, 0, 2, 0).rate(0.0, 0), 3.0);
    }

    #[test]
    fn a_smooth_ramp_grows_with_the_arrivals_so_far() {
        let p = profile(10.0, 10, 5, 0);
        assert_eq!(
            p.rate(3.0, 0),
            0.0,
            "no arrivals yet: rate 0, as the plugin"
        );
        // slope 1/s²: after 8 arrivals the rate is sqrt(16) = 4/s.
        assert_eq!(p.rate(3.0, 8), 4.0);
        assert_eq!(p.rate(10.5, 0), 10.0);
        assert_eq!(p.planned_rate(5.0), 5.0);
    }

    #[test]
    fn free_form_rows_interpolate_on_whole_second_offsets() {
        let p = ArrivalsProfile {
            free_form: Some(vec![(1.0, 10.0, 30.0), (0.0, 0.0, 5.0), (10.0, 1.0, 15.5)]),
            ..profile(0.0, 0, 0, 0)
        };
        assert_eq!(p.rate(0.0, 0), 1.0);
        assert_eq!(p.rate(15.0, 0), 5.5);
        assert_eq!(p.rate(32.0, 0), 0.0);
        // A row's end belongs to it.
        assert_eq!(p.rate(35.0, 0), 0.0);
        assert!((p.rate(36.0, 0) - (10.0 - 9.0 / 15.5)).abs() < 1e-12);
        // 35 + 15.5 is truncated to 50.
        assert_eq!(p.duration(), 50.0);
        assert!((p.rate(50.0, 0) - (10.0 - 9.0 * 15.0 / 15.5)).abs() < 1e-12);
        assert_eq!(p.rate(50.5, 0), -1.0);
    }
}
