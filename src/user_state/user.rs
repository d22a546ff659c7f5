//! The virtual user's own state (what a JMeter thread keeps): variables, random source,
//! identity, previous sample, and per-element slots for elements with per-user state.

use std::any::Any;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use rand::rngs::SmallRng;
use std::time::{Duration, Instant};

use crate::foundation::precise_timer;

/// Lateness beyond this is not made up: no pause is ever more than a millisecond shorter
/// than the plan asks, and a stalled machine does not cause a burst.
const MAX_CARRIED_LATENESS: Duration = Duration::from_millis(1);

use super::RunShared;
use crate::foundation::fast_hash::FastMap;
use crate::sample::SampleResult;
use crate::user_state::EvalContext;
use crate::user_state::ThreadInfo;
use crate::user_state::Variables;

pub struct UserState {
    pub vars: Variables,
    pub rng: SmallRng,
    pub thread: ThreadInfo,
    /// The last recorded sample (`prev`).
    pub prev: Option<Arc<SampleResult>>,
    /// How late the previous pause ended, taken off the next one.
    pause_lateness: Duration,
    /// With a scheduler: when this user must stop (checked between samples; pauses and
    /// timers never run past it).
    pub end_time: Option<tokio::time::Instant>,
    /// Per-user state of plan elements (a per-user Counter, CSV cursor, keep-alive
    /// connections), keyed by the element's id.
    slots: FastMap<usize, Box<dyn Any + Send + Sync>>,
    /// Thread-group iteration number, 1-based once the first iteration started.
    pub iteration: u64,
    /// The thread group's "same user on each iteration": when false, elements with
    /// per-user state (cookies, connections) start afresh each iteration, as JMeter's.
    pub same_user_on_next_iteration: bool,
    /// The run this user belongs to.
    pub run: Arc<RunShared>,
    /// Set by an element that stops this user (a CSV Data Set at end of file with
    /// `stopThread`): the user starts no further sample.
    pub stop_thread: bool,
    /// Active users of this user's thread group (the `grpThreads` of its samples; a
    /// Constant Throughput Timer paces by it).
    pub group_active: Arc<std::sync::atomic::AtomicI32>,
}

impl UserState {
    pub fn new(run: Arc<RunShared>, thread: ThreadInfo, vars: Variables, rng: SmallRng) -> Self {
        UserState {
            vars,
            rng,
            thread,
            prev: None,
            end_time: None,
            pause_lateness: Duration::ZERO,
            slots: FastMap::default(),
            iteration: 0,
            same_user_on_next_iteration: true,
            run,
            stop_thread: false,
            group_active: Arc::default(),
        }
    }

    /// A copy of the user for work it does in parallel with itself (a parallel download,
    /// a Parallel Controller's branch): same identity, iteration, thread group and
    /// variables, no per-element state, and its own random source drawn from the user's
    /// so that seeded runs stay reproducible.
    pub fn copy_for_branch(&mut self) -> UserState {
        use rand::{Rng, SeedableRng};
        let rng = SmallRng::seed_from_u64(self.rng.gen());
        let mut copy = UserState::new(
            self.run.clone(),
            self.thread.clone(),
            self.vars.clone(),
            rng,
        );
        copy.prev = self.prev.clone();
        copy.end_time = self.end_time;
        copy.iteration = self.iteration;
        copy.same_user_on_next_iteration = self.same_user_on_next_iteration;
        copy.group_active = self.group_active.clone();
        copy
    }

    /// An evaluation context for expressions read while preparing `sampler_name`.
    pub fn eval<'a>(&'a mut self, sampler_name: &'a str) -> EvalContext<'a> {
        EvalContext {
            vars: &mut self.vars,
            props: &self.run.props,
            thread: &self.thread,
            test: &self.run.test,
            rng: &mut self.rng,
            sampler_name,
            prev: self.prev.as_deref(),
        }
    }

    /// The per-user state of element `id`, created by `init` on first use.
    pub fn slot<T: Any + Send + Sync>(&mut self, id: usize, init: impl FnOnce() -> T) -> &mut T {
        self.slot_and_run(id, init).0
    }

    /// [`UserState::slot`] with the run beside it, for a sampler that watches the run
    /// (an immediate stop) while it works with its state.
    pub fn slot_and_run<T: Any + Send + Sync>(
        &mut self,
        id: usize,
        init: impl FnOnce() -> T,
    ) -> (&mut T, &RunShared) {
        // Called for every HTTP sample (connections, cookies): one hash lookup, not three.
        let slot = match self.slots.entry(id) {
            Entry::Occupied(entry) => {
                let slot = entry.into_mut();
                if !slot.is::<T>() {
                    *slot = Box::new(init());
                }
                slot
            }
            Entry::Vacant(entry) => entry.insert(Box::new(init())),
        };
        let slot = slot
            .downcast_mut::<T>()
            .expect("slot holds the type it was just given");
        (slot, &self.run)
    }

    /// The per-user state of element `id` if it was made, without making it: for checks
    /// run on every sample that mostly find nothing.
    pub fn existing_slot<T: Any + Send + Sync>(&self, id: usize) -> Option<&T> {
        self.slots.get(&id)?.downcast_ref::<T>()
    }

    /// Forgets the per-user state of element `id`.
    pub fn clear_slot(&mut self, id: usize) {
        self.slots.remove(&id);
    }

    /// Waits `ms` milliseconds, cut short by a stop of the run or the scheduler's end
    /// time. Returns false when the wait was cut short.
    ///
    /// Even a precise wake-up comes a little late (tens to hundreds of microseconds on a
    /// busy machine). The lateness of one pause is taken off the next, so the pauses of a
    /// user add up to what the plan asks for and a user paced by timers keeps its pace.
    pub async fn pause(&mut self, ms: u64) -> bool {
        let wanted = Duration::from_millis(ms);
        let forgiven = self.pause_lateness.min(wanted);
        let started = Instant::now();
        let completed = self.pause_until(started + (wanted - forgiven)).await;
        self.pause_lateness = if completed {
            (self.pause_lateness + started.elapsed())
                .saturating_sub(wanted)
                .min(MAX_CARRIED_LATENESS)
        } else {
            Duration::ZERO
        };
        completed
    }

    /// Waits until `deadline` (a precise wake-up), cut short by a stop of the run or the
    /// scheduler's end time. Returns false when the wait was cut short. For samplers that
    /// keep their own schedule (the UDP sender paces each user on a fixed grid, so time
    /// spent outside its waits does not slow the rate).
    pub async fn pause_until(&mut self, deadline: Instant) -> bool {
        let mut deadline = deadline;
        let mut cut = false;
        if let Some(end) = self.end_time {
            let end = end.into_std();
            if end < deadline {
                deadline = end;
                cut = true;
            }
        }
        let stop = self.run.stop_token();
        tokio::select! {
            _ = precise_timer::sleep_until(deadline) => !cut,
            _ = stop.cancelled() => false,
        }
    }
}
