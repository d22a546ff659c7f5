//! Constant Throughput Timer (`ConstantThroughputTimer`): paces samples to a target
//! number per minute, as JMeter's `delay()` computes it.
//!
//! Each user keeps its previous target time per timer. The interval is 60,000 ms over
//! the throughput (read at every use, so `${__P(...)}` may change it), multiplied by the
//! active users of the run or of the thread group in those modes. The next target is the
//! previous one plus the interval; a user behind it goes at once and starts again from
//! now, so it never bursts to catch up. The "shared" modes take the interval from a
//! schedule shared by all users of the run or of the thread group (the next free slot
//! after now), which JMeter then adds to the user's previous target as well; that
//! arithmetic is kept as it is.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::plan::{BuildContext, Setting, Timer};
use crate::user_state::EvalContext;
use crate::user_state::UserState;

/// Whose samples the throughput counts (`calcMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    ThisThreadOnly,
    AllActiveThreads,
    AllActiveThreadsInGroup,
    AllActiveThreadsShared,
    AllActiveThreadsInGroupShared,
}

impl Mode {
    /// `calcMode` as plans save it: an index (JMeter 2–5), the English text the GUI shows,
    /// or the enum name (JMeter 6). Anything else is "this thread only", as in JMeter.
    fn parse(text: &str) -> Mode {
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "all active threads" | "allactivethreads" => Mode::AllActiveThreads,
            "2"
            | "all active threads in current thread group"
            | "allactivethreadsincurrentthreadgroup" => Mode::AllActiveThreadsInGroup,
            "3" | "all active threads (shared)" | "allactivethreads_shared" => {
                Mode::AllActiveThreadsShared
            }
            "4"
            | "all active threads in current thread group (shared)"
            | "allactivethreadsincurrentthreadgroup_shared" => Mode::AllActiveThreadsInGroupShared,
            _ => Mode::ThisThreadOnly,
        }
    }
}

/// The longest single delay, ms.
const MAX_DELAY_MS: i64 = 86_400_000;

pub struct ConstantThroughputTimer {
    id: usize,
    /// Samples per minute.
    throughput: Setting,
    mode: Mode,
}

/// The next free slot of a shared schedule, epoch ms.
#[derive(Default)]
struct SharedSchedule {
    last_scheduled: Mutex<i64>,
}

impl ConstantThroughputTimer {
    pub fn build(cx: &mut BuildContext<'_>) -> ConstantThroughputTimer {
        ConstantThroughputTimer {
            id: cx.id,
            throughput: cx.setting("throughput", "0.0"),
            mode: Mode::parse(cx.raw("calcMode").unwrap_or("0")),
        }
    }

    /// JMeter's `calculateDelay`: the interval for this sample, ms.
    fn interval(&self, user: &mut UserState, sampler_name: &str, now: i64) -> i64 {
        let mut per_minute = self.throughput.f64(&mut user.eval(sampler_name));
        // A shard holds part of the users: the test-wide targets are divided with them.
        if self.mode != Mode::ThisThreadOnly {
            per_minute = crate::foundation::shard::shard_rate(user.run.shard, per_minute);
        }
        let ms_per_request = 60_000.0 / per_minute;
        // Java's Math.round of a double: infinities and NaN (a throughput of 0 or less)
        // saturate or give 0.
        let round = |ms: f64| (ms + 0.5).floor() as i64;
        match self.mode {
            Mode::ThisThreadOnly => round(ms_per_request),
            Mode::AllActiveThreads => {
                let active = user.run.counts.active.load(Ordering::Relaxed) as f64;
                round(active * ms_per_request)
            }
            Mode::AllActiveThreadsInGroup => {
                let active = f64::from(user.group_active.load(Ordering::Relaxed));
                round(active * ms_per_request)
            }
            Mode::AllActiveThreadsShared | Mode::AllActiveThreadsInGroupShared => {
                let ms_per_request = round(ms_per_request);
                if user.slot(self.id, Pacing::default).schedule.is_none() {
                    let schedule = self.shared_schedule(user);
                    user.slot(self.id, Pacing::default).schedule = schedule;
                }
                let pacing = user.slot(self.id, Pacing::default);
                shared_delay(pacing.schedule.as_deref(), ms_per_request, now)
            }
        }
    }

    /// The run-wide schedule of the shared modes (JMeter keeps one for all threads and
    /// one per thread group, whichever timer uses it). Looked up once per user.
    fn shared_schedule(&self, user: &UserState) -> Option<Arc<SharedSchedule>> {
        if self.mode == Mode::AllActiveThreadsShared {
            return user
                .run
                .shared("ConstantThroughputTimer:all", SharedSchedule::default);
        }
        let key = format!(
            "ConstantThroughputTimer:group:{:p}",
            Arc::as_ptr(&user.group_active)
        );
        user.run.shared(&key, SharedSchedule::default)
    }
}

/// A user's state for one timer: its previous target and, in the shared modes, the
/// schedule it books on.
#[derive(Default)]
struct Pacing {
    /// Epoch ms; 0 before the first sample.
    previous: i64,
    schedule: Option<Arc<SharedSchedule>>,
}

/// JMeter's `calculateSharedDelay`: books the next slot after now on the shared schedule
/// and answers how far off it is.
fn shared_delay(schedule: Option<&SharedSchedule>, ms_per_request: i64, now: i64) -> i64 {
    let Some(schedule) = schedule else {
        return 0;
    };
    let mut last = schedule.last_scheduled.lock();
    *last = now.max(last.saturating_add(ms_per_request));
    (*last - now).max(0)
}

impl Timer for ConstantThroughputTimer {
    fn delay_ms(&self, _cx: &mut EvalContext<'_>) -> i64 {
        // Only reached without a user (never by the engine): no pacing state.
        0
    }

    fn delay_for(&self, user: &mut UserState, sampler_name: &str) -> i64 {
        let now = crate::foundation::clock::wall_clock_ms();
        let interval = self.interval(user, sampler_name, now);
        let previous = &mut user.slot(self.id, Pacing::default).previous;
        // With no previous sample the target lies in the past: the first sample goes at once.
        let target = previous.saturating_add(interval);
        if now > target {
            *previous = now;
            0
        } else {
            *previous = target;
            // A throughput of 0 (the element's default) means "never": a day at most
            // here, so the wait stays a number the clock can add.
            (target - now).min(MAX_DELAY_MS)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Mode;

    #[test]
    fn modes_as_plans_save_them() {
        assert_eq!(Mode::parse("0"), Mode::ThisThreadOnly);
        assert_eq!(Mode::parse("2"), Mode::AllActiveThreadsInGroup);
        assert_eq!(
            Mode::parse("all active threads in current thread group"),
            Mode::AllActiveThreadsInGroup
        );
        assert_eq!(
            Mode::parse("All Active Threads (shared)"),
            Mode::AllActiveThreadsShared
        );
        assert_eq!(Mode::parse("AllActiveThreads"), Mode::AllActiveThreads);
        assert_eq!(Mode::parse("4"), Mode::AllActiveThreadsInGroupShared);
        // Another language's text, as JMeter falls back.
        assert_eq!(Mode::parse("Nur dieser Thread"), Mode::ThisThreadOnly);
    }
}
