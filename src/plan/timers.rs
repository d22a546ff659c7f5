//! Timers: Constant, Uniform Random, Gaussian Random, Poisson Random, Constant
//! Throughput (`throughput`, which paces by per-user and run-wide state), Precise
//! Throughput (`precise`, a schedule per thread group), Synchronizing (`sync`, which
//! waits for other users instead of computing a delay) and the jmeter-plugins
//! Throughput Shaping Timer (`shaping`, a run-wide throttle).
//!
//! A timer only computes a delay; the engine sums the delays of every timer in scope
//! and sleeps once before the sampler. Settings are templates evaluated at each use
//! (`${}` is allowed in them), randomness comes from the virtual user's generator so
//! `--seed` makes runs repeatable, and the property `timer.factor` scales the random
//! timers here because JMeter's engine applies it to them (its "modifiable" timers) only.

mod precise;
mod random;
mod shaping;
mod sync;
mod throughput;

use std::sync::Arc;

use rand::Rng;

use super::{BuildContext, Setting, Timer};
use crate::user_state::EvalContext;

/// Builds the timer for `class`, or `None` when the class is not a timer jmxr runs.
pub fn build(class: &str, cx: &mut BuildContext<'_>) -> Option<Arc<dyn Timer>> {
    let short = class.rsplit('.').next().unwrap_or(class);
    let spread = match short {
        "ConstantTimer" => return Some(Arc::new(ConstantTimer::build(cx))),
        "VariableThroughputTimer" => {
            return Some(Arc::new(shaping::ThroughputShapingTimer::build(cx)))
        }
        "ConstantThroughputTimer" => {
            return Some(Arc::new(throughput::ConstantThroughputTimer::build(cx)))
        }
        "PreciseThroughputTimer" => {
            return Some(Arc::new(precise::PreciseThroughputTimer::build(cx)))
        }
        "SyncTimer" => return Some(Arc::new(sync::SyncTimer::build(cx))),
        "UniformRandomTimer" => Spread::Uniform,
        "GaussianRandomTimer" => Spread::Gaussian,
        "PoissonRandomTimer" => Spread::Poisson,
        _ => return None,
    };
    Some(Arc::new(RandomTimer::build(spread, cx)))
}

/// `ConstantTimer.delay` in ms; empty or not a whole number gives 0.
pub struct ConstantTimer {
    delay: Setting,
}

impl ConstantTimer {
    pub fn build(cx: &mut BuildContext<'_>) -> ConstantTimer {
        ConstantTimer {
            delay: cx.setting("ConstantTimer.delay", "0"),
        }
    }
}

impl Timer for ConstantTimer {
    fn delay_ms(&self, cx: &mut EvalContext<'_>) -> i64 {
        self.delay.i64(cx)
    }
}

/// How a random timer spreads its delay around the constant offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spread {
    /// offset + U[0,1) × range.
    Uniform,
    /// offset + N(0,1) × range (the deviation).
    Gaussian,
    /// offset + Poisson(λ = range rounded to an int).
    Poisson,
}

/// Uniform, Gaussian and Poisson Random Timers: `ConstantTimer.delay` is the offset,
/// `RandomTimer.range` the spread. The result is made positive, as JMeter's `Math.abs`.
pub struct RandomTimer {
    spread: Spread,
    delay: Setting,
    range: Setting,
}

impl RandomTimer {
    pub fn build(spread: Spread, cx: &mut BuildContext<'_>) -> RandomTimer {
        RandomTimer {
            spread,
            delay: cx.setting("ConstantTimer.delay", "0"),
            range: cx.setting("RandomTimer.range", "0"),
        }
    }

    /// The delay before `timer.factor`.
    fn raw_delay(&self, cx: &mut EvalContext<'_>) -> i64 {
        let offset = self.delay.i64(cx);
        let range = self.range.f64(cx);
        match self.spread {
            // Float to integer casts saturate, as Java's `(long)` does.
            Spread::Uniform => (cx.rng.gen::<f64>() * range + offset as f64).abs() as i64,
            Spread::Gaussian => {
                (random::standard_normal(cx.rng) * range + offset as f64).abs() as i64
            }
            Spread::Poisson => {
                let lambda = java_round(range) as i32;
                i64::from(random::poisson(cx.rng, lambda))
                    .wrapping_add(offset)
                    .wrapping_abs()
            }
        }
    }
}

impl Timer for RandomTimer {
    fn delay_ms(&self, cx: &mut EvalContext<'_>) -> i64 {
        let delay = self.raw_delay(cx);
        apply_timer_factor(delay, timer_factor(cx))
    }
}

/// `timer.factor` as JMeter reads it: a Java `float`, 1 when absent or not a number.
fn timer_factor(cx: &EvalContext<'_>) -> f32 {
    cx.props
        .get("timer.factor")
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(1.0)
}

/// JMeter's `Math.round(delay * factor)`: the product is a `float` and the rounding
/// yields an `int`; a factor of exactly 1 leaves the delay untouched.
fn apply_timer_factor(delay: i64, factor: f32) -> i64 {
    if factor == 1.0 {
        return delay;
    }
    let scaled = delay as f32 * factor;
    if scaled.is_nan() {
        return 0;
    }
    // `as i32` saturates as Java's `Math.round(float)` does.
    i64::from(round_half_up(f64::from(scaled)) as i32)
}

/// Java's `Math.round(double)`: half up, NaN is 0, saturating.
fn java_round(value: f64) -> i64 {
    if value.is_nan() {
        0
    } else {
        round_half_up(value) as i64
    }
}

/// Rounds half up (towards positive infinity), as Java does; `x - floor(x)` is exact,
/// unlike `x + 0.5`, which rounds 0.49999999999999994 up.
fn round_half_up(value: f64) -> f64 {
    let floor = value.floor();
    if value - floor >= 0.5 {
        floor + 1.0
    } else {
        floor
    }
}

#[cfg(test)]
mod tests;
