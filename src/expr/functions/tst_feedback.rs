//! `__tstFeedback(timer, start[, max[, spare]])` (jmeter-plugins): the concurrency a
//! Concurrency Thread Group needs for its Throughput Shaping Timer to reach its rate.
//!
//! The timer publishes, each second, `<timer>_rps` (the rate of the new second),
//! `<timer>_cntSent` (samples it let through in the second that ended) and
//! `<timer>_cntDelayed` (users waiting in it). Each call reads them with the current
//! level `<timer>_concurrency` (set to `start` by the first call) and answers the plugin's
//! way:
//! * no rate: the level stays;
//! * users waiting: too many users. With `spare` ≥ 1 (a count) the level drops by the
//!   waiting users beyond `spare`, to no fewer than `spare`; with `spare` < 1 (a ratio,
//!   0.1 when absent) it drops to `level × (1 − spare)` once more than `level × spare`
//!   wait;
//! * fewer samples than the rate: too few users, `ceil(level × (2 − sent / rate))`;
//!
//! then at least 1 and at most `max`. The answer becomes the new level, and `<timer>_rps`
//! is set to 0 so the next call waits for the timer's next second.

use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use super::{arg, check_count, Constructor, Function};
use crate::expr::Template;
use crate::user_state::EvalContext;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[("__tstFeedback", tst_feedback)];

fn tst_feedback(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    check_count(&args, 2, 4)?;
    Ok(Box::new(TstFeedback {
        args,
        just_started: AtomicBool::new(true),
        serial: Mutex::new(()),
    }))
}

struct TstFeedback {
    args: Vec<Template>,
    /// The first call of the run sets the level to `start`.
    just_started: AtomicBool,
    /// Calls read and write the level one at a time, as the plugin's are synchronized.
    serial: Mutex<()>,
}

impl Function for TstFeedback {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String {
        let _one_at_a_time = self.serial.lock();
        let timer = arg(&self.args, 0, ctx);
        let level_name = format!("{timer}_concurrency");
        if self.just_started.swap(false, Ordering::SeqCst) {
            let start = arg(&self.args, 1, ctx);
            ctx.props.set(level_name.clone(), start);
        }
        let limit = match self.args.len() {
            n if n > 2 => arg(&self.args, 2, ctx).parse::<i32>().unwrap_or(i32::MAX),
            _ => i32::MAX,
        };
        let spare = match self.args.len() {
            // Java's `Double.parseDouble` ignores surrounding blanks; a bad value means 1.
            4 => arg(&self.args, 3, ctx).trim().parse::<f64>().unwrap_or(1.0),
            _ => 0.1,
        };
        let int_prop = |name: &str, default: i32| {
            ctx.props
                .get(name)
                .and_then(|v| v.parse::<i32>().ok())
                .unwrap_or(default)
        };
        let level = int_prop(&level_name, 1);
        let delayed = int_prop(&format!("{timer}_cntDelayed"), 0);
        let sent = int_prop(&format!("{timer}_cntSent"), 0);
        let rps = ctx
            .props
            .get(&format!("{timer}_rps"))
            .and_then(|v| v.parse::<f32>().ok())
            .unwrap_or(0.0);
        let mut needed = needed_level(level, delayed, sent, rps, spare);
        if needed <= 0 {
            needed = 1;
        }
        if needed > limit {
            needed = limit;
        }
        ctx.props.set(level_name, needed.to_string());
        ctx.props.set(format!("{timer}_rps"), "0");
        needed.to_string()
    }
}

/// The plugin's rule before its bounds (1 and `max`).
fn needed_level(level: i32, delayed: i32, sent: i32, rps: f32, spare: f64) -> i32 {
    if rps <= 0.0 {
        level
    } else if delayed > 0 {
        if spare >= 1.0 {
            // Java's `needed -= delayed - spare` on an int: the difference is truncated.
            let needed = (f64::from(level) - (f64::from(delayed) - spare)) as i32;
            if f64::from(level) > spare {
                spare.max(f64::from(needed)) as i32
            } else {
                needed
            }
        } else if f64::from(delayed) > (f64::from(level) * spare).ceil() {
            (f64::from(level) * (1.0 - spare)) as i32
        } else {
            level
        }
    } else if (sent as f32) < rps {
        // In Java's float arithmetic, then `Math.ceil`.
        f64::from(level as f32 * (2.0 - sent as f32 / rps)).ceil() as i32
    } else {
        level
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::Fixture;

    #[test]
    fn follows_the_plugins_own_cases() {
        let mut f = Fixture::new();
        let call = Fixture::compile("${__tstFeedback(tstname,1,10,5)}");
        assert_eq!(f.run(&call), "1");
        assert_eq!(f.props.get("tstname_concurrency").as_deref(), Some("1"));
        for (level, delayed, expected) in [
            ("10", "11", "5"),
            ("1", "5", "1"),
            ("10", "6", "9"),
            ("10", "4", "10"),
        ] {
            f.props.set("tstname_concurrency", level);
            f.props.set("tstname_cntDelayed", delayed);
            f.props.set("tstname_cntSent", "16");
            f.props.set("tstname_rps", "15.671562");
            assert_eq!(f.run(&call), expected, "level {level}, delayed {delayed}");
            assert_eq!(f.props.get("tstname_rps").as_deref(), Some("0"));
            assert_eq!(
                f.props.get("tstname_concurrency").as_deref(),
                Some(expected)
            );
        }
    }

    #[test]
    fn too_few_samples_raise_the_level_and_a_ratio_of_waiting_users_lowers_it() {
        let mut f = Fixture::new();
        let call = Fixture::compile("${__tstFeedback(t,4,100)}");
        assert_eq!(f.run(&call), "4");
        // 5 of 20 per second: ceil(4 × (2 − 0.25)) = 7.
        f.props.set("t_cntSent", "5");
        f.props.set("t_rps", "20.0");
        assert_eq!(f.run(&call), "7");
        // The rate was read: without a new second the level stays.
        assert_eq!(f.run(&call), "7");
        // 10 % spare by default: more than ceil(0.7) = 1 waiting → 7 × 0.9 = 6.
        f.props.set("t_cntDelayed", "2");
        f.props.set("t_rps", "20.0");
        assert_eq!(f.run(&call), "6");
        // Never below 1 or above the maximum.
        f.props.set("t_concurrency", "90");
        f.props.set("t_cntDelayed", "0");
        f.props.set("t_cntSent", "0");
        f.props.set("t_rps", "20.0");
        assert_eq!(f.run(&call), "100");
    }
}
