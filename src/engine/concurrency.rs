//! bzm Concurrency Thread Group: instead of a fixed set of users, a starter keeps the
//! number of live users at a planned concurrency that ramps up to the target (smoothly
//! or in steps) and then holds, as the plugin's starter does.
//!
//! The starter looks every second (every 10 ms while no user is live, and at once when
//! a user ends) and starts users until the plan is met. A user that finishes its
//! iterations ends and is replaced. At each iteration boundary a user leaves when more
//! users are live than the target (how the level comes down when the target is lowered
//! through a property). When ramp-up and hold have passed, users stop before their next
//! sampler and no more are started.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::scheduler;

use crate::plan::{ConcurrencySettings, Setting, ThreadGroup};
use crate::results::ResultsBus;
use crate::user_state::EvalContext;
use crate::user_state::RunShared;
use crate::user_state::Variables;

/// The group's ramp, hold and target, as evaluated (seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ramp {
    pub target: f64,
    pub ramp_up_s: i64,
    pub hold_s: i64,
    pub steps: i64,
}

/// The plugin's planned concurrency `elapsed_s` seconds after the group started;
/// `None` once ramp-up and hold are over.
pub fn planned(ramp: &Ramp, elapsed_s: f64) -> Option<i64> {
    let ramp_up = ramp.ramp_up_s as f64;
    if elapsed_s >= ramp_up + ramp.hold_s as f64 {
        return None;
    }
    // Java's Math.round: halves go up.
    let round = |x: f64| (x + 0.5).floor() as i64;
    Some(if ramp.ramp_up_s == 0 || elapsed_s > ramp_up {
        round(ramp.target)
    } else if ramp.steps > 0 {
        let step_size = ramp.target / ramp.steps as f64;
        let step_len = ramp_up / ramp.steps as f64;
        round(step_size * ((elapsed_s / step_len).floor() + 1.0))
    } else {
        round(ramp.target / ramp_up * elapsed_s)
    })
}

/// The live users of one group, shared by the starter and the users.
pub struct Level {
    live: AtomicI64,
    /// `TargetLevel`, which each user reads again at its iteration boundaries (a
    /// property it reads may have changed).
    pub target: Setting,
    /// Told when a user ends.
    user_ended: Notify,
}

impl Level {
    pub fn new(target: Setting) -> Level {
        Level {
            live: AtomicI64::new(0),
            target,
            user_ended: Notify::new(),
        }
    }

    pub fn live(&self) -> i64 {
        self.live.load(Ordering::SeqCst)
    }

    /// Counts a user the starter is starting.
    pub fn user_started(&self) {
        self.live.fetch_add(1, Ordering::SeqCst);
    }

    /// At an iteration boundary: whether this user leaves because more users are live
    /// than the target. A leaving user is no longer counted; only as many leave as the
    /// excess, however many check at once.
    pub fn leave_if_above_target(&self, target: f64) -> bool {
        let mut live = self.live.load(Ordering::SeqCst);
        while live as f64 > target {
            match self
                .live
                .compare_exchange(live, live - 1, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => {
                    self.user_ended.notify_one();
                    return true;
                }
                Err(now) => live = now,
            }
        }
        false
    }

    /// A user ended on its own (iterations done, stopped): the starter may replace it.
    pub fn user_ended(&self) {
        self.live.fetch_sub(1, Ordering::SeqCst);
        self.user_ended.notify_one();
    }

    /// Waits until a user ends or `timeout` passes.
    pub async fn wait_for_change(&self, timeout: Duration) {
        let _ = tokio::time::timeout(timeout, self.user_ended.notified()).await;
    }
}

/// The group's ramp as its fields give it now (times in seconds whatever the unit).
pub(super) fn ramp_of(settings: &ConcurrencySettings, cx: &mut EvalContext<'_>) -> Ramp {
    let minutes = settings.unit.text(cx).trim() == "M";
    let seconds = |setting: &Setting, cx: &mut EvalContext<'_>| {
        let value = setting.f64(cx);
        (if minutes { value * 60.0 } else { value }) as i64
    };
    Ramp {
        target: settings.target.f64(cx),
        ramp_up_s: seconds(&settings.ramp_up, cx),
        hold_s: seconds(&settings.hold, cx),
        steps: settings.steps.i64(cx),
    }
}

/// Runs a Concurrency Thread Group: starts users to meet the planned concurrency until
/// ramp-up and hold are over, then waits for the live ones to stop.
pub(super) async fn supply_users(
    group: &Arc<ThreadGroup>,
    settings: &ConcurrencySettings,
    run: &Arc<RunShared>,
    bus: &ResultsBus,
    base: &Arc<Variables>,
    cx: &mut EvalContext<'_>,
) {
    // The target is read again at every look below.
    let mut ramp = ramp_of(settings, cx);
    let iterations = match settings.iterations.i64(cx) {
        n if n > 0 => n,
        _ => -1,
    };
    let level = Arc::new(Level::new(settings.target.clone()));
    let group_active = run.group_counter(group.id);
    let group_start = Instant::now();
    let end_time = group_start + Duration::from_secs((ramp.ramp_up_s + ramp.hold_s).max(0) as u64);
    let stop = run.stop_token();
    let mut set = JoinSet::new();
    let mut started = 0u64;
    loop {
        // The target may follow a property that changes during the run.
        ramp.target = crate::foundation::shard::shard_rate(run.shard, settings.target.f64(cx));
        let elapsed = group_start.elapsed().as_secs_f64();
        let Some(planned) = planned(&ramp, elapsed) else {
            break;
        };
        if stop.is_cancelled() {
            break;
        }
        while level.live() < planned {
            let mut vu = scheduler::new_user(
                group,
                run,
                bus,
                base,
                &group_active,
                started,
                Some(end_time),
            );
            vu.loops_override = Some(iterations);
            vu.concurrency = Some(level.clone());
            started += 1;
            level.user_started();
            let level = level.clone();
            set.spawn(async move {
                if !scheduler::start_user(vu, Instant::now()).await {
                    level.user_ended();
                }
            });
        }
        super::arrivals::forget_finished(&mut set);
        let wait = if level.live() == 0 { 10 } else { 1000 };
        tokio::select! {
            _ = level.wait_for_change(Duration::from_millis(wait)) => {}
            _ = stop.cancelled() => {}
        }
    }
    while set.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planned_concurrency_ramps_smoothly_or_in_steps_then_holds() {
        let smooth = Ramp {
            target: 10.0,
            ramp_up_s: 10,
            hold_s: 5,
            steps: 0,
        };
        assert_eq!(planned(&smooth, 0.0), Some(0));
        assert_eq!(planned(&smooth, 0.5), Some(1));
        assert_eq!(planned(&smooth, 4.2), Some(4));
        assert_eq!(planned(&smooth, 10.0), Some(10));
        assert_eq!(planned(&smooth, 14.9), Some(10));
        assert_eq!(planned(&smooth, 15.0), None);

        let stepped = Ramp { steps: 4, ..smooth };
        // Steps of 2.5 users every 2.5 s, the first at once.
        assert_eq!(planned(&stepped, 0.0), Some(3));
        assert_eq!(planned(&stepped, 2.4), Some(3));
        assert_eq!(planned(&stepped, 2.5), Some(5));
        assert_eq!(planned(&stepped, 7.5), Some(10));

        let no_ramp = Ramp {
            ramp_up_s: 0,
            ..smooth
        };
        assert_eq!(planned(&no_ramp, 0.0), Some(10));
        assert_eq!(planned(&no_ramp, 5.0), None);
    }

    #[test]
    fn only_the_excess_leaves() {
        let level = Level::new(Setting::constant("3"));
        for _ in 0..5 {
            level.user_started();
        }
        let left = (0..5).filter(|_| level.leave_if_above_target(3.0)).count();
        assert_eq!(left, 2);
        assert_eq!(level.live(), 3);
        level.user_ended();
        assert_eq!(level.live(), 2);
        assert!(!level.leave_if_above_target(3.0));
    }
}
