//! Synchronizing Timer (`SyncTimer`): holds users until `groupSize` of them wait, then
//! releases them together, as JMeter's `CyclicBarrier` does.
//!
//! One barrier serves every user the timer applies to (JMeter's clones of the element
//! share it). A `groupSize` of 0 means the number of users of the thread group of the
//! first user that arrives. When a group is complete all its users go at once and the
//! barrier starts over. With `timeoutInMs` above 0 a user that waited that long releases
//! everyone waiting with it (the group goes with fewer users) and the barrier starts
//! over; with 0 they wait without limit. Either way no wait outlasts the thread group's
//! end time (JMeter's `TimerService.adjustDelay`) or a stop of the run. The timer adds
//! no delay of its own to the other timers in scope.

use std::sync::Arc;

use async_trait::async_trait;
use parking_lot::Mutex;
use tokio::sync::watch;

use crate::plan::{BuildContext, Setting, Timer, WaitingTimer};
use crate::user_state::{EvalContext, UserState};

pub struct SyncTimer {
    id: usize,
    path: Arc<str>,
    group_size: Setting,
    timeout_ms: Setting,
}

impl SyncTimer {
    pub fn build(cx: &mut BuildContext<'_>) -> SyncTimer {
        let timer = SyncTimer {
            id: cx.id,
            path: cx.path.clone(),
            group_size: cx.setting("groupSize", "0"),
            timeout_ms: cx.setting("timeoutInMs", "0"),
        };
        let timeout = timer.timeout_ms.constant_text();
        if let Some(timeout) = timeout.map(super::super::context::parse_i64) {
            if timeout < 0 {
                cx.error(format!(
                    "Synchronizing Timer has a negative timeout ({timeout} ms): use 0 to wait without limit"
                ));
            }
        }
        timer
    }

    /// The barrier of this timer, made on first use; each user keeps it at hand.
    fn barrier(&self, user: &mut UserState) -> Option<Arc<Barrier>> {
        if let Some(barrier) = &user.slot(self.id, BarrierHandle::default).0 {
            return Some(barrier.clone());
        }
        let barrier = user
            .run
            .shared(&format!("SyncTimer:{}", self.id), Barrier::default);
        user.slot(self.id, BarrierHandle::default).0 = barrier.clone();
        barrier
    }
}

impl Timer for SyncTimer {
    fn delay_ms(&self, _cx: &mut EvalContext<'_>) -> i64 {
        0
    }

    fn as_waiting(&self) -> Option<&dyn WaitingTimer> {
        Some(self)
    }
}

#[async_trait]
impl WaitingTimer for SyncTimer {
    async fn wait(&self, user: &mut UserState, group_threads: i64) {
        let (group_size, timeout) = {
            let mut cx = user.eval("");
            (self.group_size.i64(&mut cx), self.timeout_ms.i64(&mut cx))
        };
        // JMeter only waits for a group size of 0 or more.
        if group_size < 0 {
            return;
        }
        if timeout < 0 {
            crate::runlog::error(&format!(
                "{}: Synchronizing Timer timeout {timeout} ms is negative; the thread stops",
                self.path
            ));
            user.stop_thread = true;
            return;
        }
        let Some(barrier) = self.barrier(user) else {
            return;
        };
        let parties = if group_size == 0 {
            group_threads
        } else {
            group_size
        };
        let Some(mut released) = barrier.arrive(usize::try_from(parties).unwrap_or(0)) else {
            return;
        };
        let generation = *released.borrow_and_update();
        let now = tokio::time::Instant::now();
        let mut deadline =
            (timeout > 0).then(|| now + std::time::Duration::from_millis(timeout as u64));
        if let Some(end) = user.end_time {
            deadline = Some(deadline.map_or(end, |d| d.min(end)));
        }
        let stop = user.run.stop_token();
        let timed_out = async {
            match deadline {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = released.changed() => {}
            _ = timed_out => {
                if barrier.break_generation(generation) {
                    crate::runlog::warn(&format!(
                        "{}: Synchronizing Timer timed out waiting for users; the users waiting go on",
                        self.path
                    ));
                }
            }
            _ = stop.cancelled() => {}
        }
    }
}

/// A user's handle on the timer's barrier.
#[derive(Default)]
struct BarrierHandle(Option<Arc<Barrier>>);

/// The users waiting for the current group; each release or timeout starts a new
/// generation, which the waiters watch.
struct Barrier {
    state: Mutex<BarrierState>,
    generation: watch::Sender<u64>,
}

#[derive(Default)]
struct BarrierState {
    /// Fixed by the first arrival (JMeter sets the barrier up once).
    parties: Option<usize>,
    waiting: usize,
}

impl Default for Barrier {
    fn default() -> Barrier {
        Barrier {
            state: Mutex::new(BarrierState::default()),
            generation: watch::channel(0).0,
        }
    }
}

impl Barrier {
    /// Counts a user in. `None` when it completes the group (everyone goes, itself
    /// included, without waiting), else what to watch for the release.
    fn arrive(&self, parties: usize) -> Option<watch::Receiver<u64>> {
        let mut state = self.state.lock();
        let parties = *state.parties.get_or_insert(parties);
        state.waiting += 1;
        if state.waiting >= parties {
            state.waiting = 0;
            self.generation.send_modify(|g| *g += 1);
            return None;
        }
        Some(self.generation.subscribe())
    }

    /// Releases the users of `generation` (a timeout), unless they were released
    /// already. True when this call released them.
    fn break_generation(&self, generation: u64) -> bool {
        let mut state = self.state.lock();
        if *self.generation.borrow() != generation {
            return false;
        }
        state.waiting = 0;
        self.generation.send_modify(|g| *g += 1);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::Barrier;

    #[test]
    fn the_last_of_a_group_releases_it_and_the_barrier_starts_over() {
        let barrier = Barrier::default();
        let first = barrier.arrive(3).expect("waits");
        let second = barrier.arrive(3).expect("waits");
        assert!(barrier.arrive(3).is_none());
        assert!(first.has_changed().unwrap() && second.has_changed().unwrap());
        let next = barrier.arrive(3).expect("a new group");
        assert!(!next.has_changed().unwrap());
    }

    #[test]
    fn a_timeout_releases_the_waiting_users_once() {
        let barrier = Barrier::default();
        let mut first = barrier.arrive(5).expect("waits");
        let generation = *first.borrow_and_update();
        let second = barrier.arrive(5).expect("waits");
        assert!(barrier.break_generation(generation));
        assert!(second.has_changed().unwrap());
        assert!(!barrier.break_generation(generation));
        // The barrier counts afresh: four more users still wait.
        for _ in 0..4 {
            assert!(barrier.arrive(5).is_some());
        }
        assert!(barrier.arrive(5).is_none());
    }
}
