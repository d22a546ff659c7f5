//! What every virtual user of a run shares: properties, the stop tokens, thread counts,
//! named locks, controller counters and run-wide element state.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use tokio_util::sync::CancellationToken;

use super::in_flight::InFlightSamples;
use super::{TestInfo, ThreadCounts};
use crate::foundation::properties::Properties;

/// Which count a controller keeps (one controller may keep several).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Counter {
    /// Interleave position.
    Position,
    /// Throughput Controller: times its children ran.
    Executions,
    /// Throughput Controller: times it was reached.
    Iterations,
}

/// State shared by every virtual user of a run.
pub struct RunShared {
    pub props: Properties,
    pub test: TestInfo,
    /// Graceful stop of the current phase: users finish their sample, pauses end.
    stop: Mutex<CancellationToken>,
    /// Immediate stop: samples in progress end at once, recorded as interrupted.
    pub stop_now: CancellationToken,
    /// Set just before `stop_now` is cancelled: samplers that do not watch the token
    /// look at this flag when polled once more, and end their sample.
    interrupting: std::sync::atomic::AtomicBool,
    /// A stop from outside the plan (a signal) or an immediate stop: users inside a
    /// sample list it in `in_flight` from then on.
    pub stop_notice: CancellationToken,
    /// Samples in progress once `stop_notice` fired.
    pub in_flight: InFlightSamples,
    /// Set once any stop was asked for (decides whether tearDown runs).
    stop_requested: std::sync::atomic::AtomicBool,
    /// Whether the current phase's token is cancelled, readable without the lock (users
    /// check it before every sample).
    phase_stopping: std::sync::atomic::AtomicBool,
    /// Set when a signal stopped the run.
    interrupted: std::sync::atomic::AtomicBool,
    /// Set when an AutoStop Listener stopped the run.
    auto_stopped: std::sync::atomic::AtomicBool,
    /// Users started, running and finished (thread-count columns, summariser).
    pub counts: Arc<ThreadCounts>,
    /// Active threads per thread group id.
    group_active: Mutex<HashMap<usize, Arc<AtomicI32>>>,
    /// Names of `sample_variables`, saved with every sample.
    pub sample_variables: Vec<String>,
    /// Named locks of Critical Section Controllers, shared by all groups.
    locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// Controller state shared by all users (Throughput Controller in shared mode,
    /// Interleave across threads), by controller id.
    pub shared_counters: Mutex<HashMap<(usize, Counter), i64>>,
    /// Seed for per-user random sources; `None` draws from the OS.
    pub seed: Option<u64>,
    /// Run-wide state of plan elements shared between users under a key (the CSV
    /// readers of a share mode), created on first use.
    shared_state: Mutex<HashMap<String, Arc<dyn std::any::Any + Send + Sync>>>,
    /// This process's share of the plan (`--shard`); the command line has checked it.
    pub shard: Option<crate::foundation::shard::Shard>,
    /// The moment the first phase's schedule counts from, when the run was told when to
    /// start (`--start-at`); otherwise each thread group counts from when it begins.
    pub schedule_origin: Option<std::time::Instant>,
}

impl RunShared {
    pub fn new(props: Properties, test: TestInfo, seed: Option<u64>) -> RunShared {
        // Split as JMeter's `SampleEvent` does: on commas, names kept as written (a blank
        // name has a column too, and its value is always empty).
        let sample_variables = props
            .get("sample_variables")
            .map(|v| v.split(',').map(str::to_string).collect())
            .unwrap_or_default();
        let shard = crate::foundation::shard::Shard::from_properties(&props)
            .ok()
            .flatten();
        RunShared {
            shard,
            props,
            test,
            stop: Mutex::new(CancellationToken::new()),
            stop_now: CancellationToken::new(),
            interrupting: Default::default(),
            stop_notice: CancellationToken::new(),
            in_flight: Default::default(),
            stop_requested: Default::default(),
            phase_stopping: Default::default(),
            interrupted: Default::default(),
            auto_stopped: Default::default(),
            counts: Arc::new(ThreadCounts::new()),
            group_active: Mutex::new(HashMap::new()),
            sample_variables,
            locks: Mutex::new(HashMap::new()),
            shared_counters: Mutex::new(HashMap::new()),
            seed,
            shared_state: Mutex::new(HashMap::new()),
            schedule_origin: None,
        }
    }

    /// An evaluation context outside any sample (thread-group settings, User Defined
    /// Variables, result file names).
    pub fn eval_context<'a>(
        &'a self,
        vars: &'a mut crate::user_state::Variables,
        thread: &'a crate::user_state::ThreadInfo,
        rng: &'a mut rand::rngs::SmallRng,
    ) -> crate::user_state::EvalContext<'a> {
        crate::user_state::EvalContext {
            vars,
            props: &self.props,
            thread,
            test: &self.test,
            rng,
            sampler_name: "",
            prev: None,
        }
    }

    /// The token that ends the current phase gracefully.
    pub fn stop_token(&self) -> CancellationToken {
        self.stop.lock().clone()
    }

    /// Asks every user to finish its current sample and stop.
    pub fn request_stop(&self) {
        self.stop_requested.store(true, Ordering::SeqCst);
        self.test.fifo.interrupt();
        let token = self.stop.lock();
        self.phase_stopping.store(true, Ordering::SeqCst);
        token.cancel();
    }

    /// Whether the current phase is being stopped (cheap: no lock).
    pub fn stopping(&self) -> bool {
        self.phase_stopping.load(Ordering::Relaxed)
    }

    /// A graceful stop asked for from outside the plan (Ctrl-C, SIGTERM): users finish
    /// their samples, and list those in progress in [`RunShared::in_flight`].
    pub fn request_stop_from_outside(&self) {
        self.request_stop();
        self.stop_notice.cancel();
    }

    /// Stops at once: samples in progress end now and are recorded as interrupted.
    pub fn request_stop_now(&self) {
        self.request_stop();
        self.interrupting.store(true, Ordering::SeqCst);
        self.stop_notice.cancel();
        self.stop_now.cancel();
    }

    /// Whether samples in progress must end now (cheap: no lock).
    pub fn interrupting(&self) -> bool {
        self.interrupting.load(Ordering::Relaxed)
    }

    pub fn mark_interrupted(&self) {
        self.interrupted.store(true, Ordering::SeqCst);
    }

    pub fn interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

    /// An AutoStop Listener's condition held: the run stops at once, as the plugin stops
    /// JMeter (`StopTestNow`), and ends with its own exit code.
    pub fn auto_stop(&self) {
        self.auto_stopped.store(true, Ordering::SeqCst);
        self.request_stop_now();
    }

    pub fn auto_stopped(&self) -> bool {
        self.auto_stopped.load(Ordering::SeqCst)
    }

    pub fn stop_requested(&self) -> bool {
        self.stop_requested.load(Ordering::SeqCst)
    }

    /// Gives the tearDown phase a fresh graceful-stop token (a stop of the main phase
    /// must not cut tearDown short when the plan asks for it to run).
    pub fn renew_stop_token(&self) {
        if !self.stop_now.is_cancelled() {
            let mut token = self.stop.lock();
            *token = CancellationToken::new();
            self.phase_stopping.store(false, Ordering::SeqCst);
        }
    }

    /// The run-wide state under `key` if something created it (see [`Self::shared`]).
    pub fn existing_shared<T: std::any::Any + Send + Sync>(&self, key: &str) -> Option<Arc<T>> {
        let map = self.shared_state.lock();
        map.get(key)?.clone().downcast::<T>().ok()
    }

    /// The run-wide state under `key`, created by `init` on first use. `None` when the
    /// key already holds state of another type.
    pub fn shared<T: std::any::Any + Send + Sync>(
        &self,
        key: &str,
        init: impl FnOnce() -> T,
    ) -> Option<Arc<T>> {
        let mut map = self.shared_state.lock();
        let entry = map
            .entry(key.to_string())
            .or_insert_with(|| Arc::new(init()));
        entry.clone().downcast::<T>().ok()
    }

    pub fn group_counter(&self, group: usize) -> Arc<AtomicI32> {
        self.group_active
            .lock()
            .entry(group)
            .or_insert_with(|| Arc::new(AtomicI32::new(0)))
            .clone()
    }

    pub fn lock_named(&self, name: &str) -> Arc<tokio::sync::Mutex<()>> {
        self.locks
            .lock()
            .entry(name.to_string())
            .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(())))
            .clone()
    }
}
