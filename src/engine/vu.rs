//! One virtual user: its thread-group loop and the per-sample pipeline.
//!
//! The pipeline follows JMeter (reference §2.5): pre-processors, summed timers, the
//! sampler, then for a recorded sample post-processors, assertions,
//! `JMeterThread.last_sample_ok`, recording, Result Status Action Handlers and the
//! thread group's on-error action. Recording goes through the open Transaction
//! Controllers of this user, innermost first.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Poll;

use tokio::time::Instant;
use tokio_util::sync::WaitForCancellationFutureOwned;

use super::controllers::Flow;
use super::empty_passes::EmptyPasses;
use crate::foundation::fast_hash::FastMap;
use crate::plan::{OnError, SampleContext, SamplerNode, ScopePackage, ThreadGroup};
use crate::results::PendingSamples;
use crate::results::ResultsBus;
use crate::results::SampleEvent;
use crate::sample::SampleAction;
use crate::sample::SampleResult;
use crate::sample::Text;
use crate::user_state::UserState;

/// A Transaction Controller that is open on this user's stack.
pub(super) struct OpenTransaction {
    pub parent_mode: bool,
    /// Samplers started under it, whether or not they produced a sample (JMeter's
    /// `calls`, which its message reports).
    pub calls: usize,
    /// Samples (or sub-results in parent mode) recorded under it so far.
    pub samples: Vec<Arc<SampleResult>>,
    pub failing: usize,
    pub child_elapsed: i64,
    /// Parent mode: the response code rule (latest child's code until a child fails).
    pub code: Text,
    pub code_frozen: bool,
    /// Non-parent mode: the next sampler counts twice in `calls` (see
    /// `run_pass_of`).
    pub count_next_twice: bool,
}

pub struct VirtualUser {
    pub user: UserState,
    pub bus: ResultsBus,
    pub group: Arc<ThreadGroup>,
    /// Per-user controller memory (Interleave position, Once Only, Throughput counts).
    pub(super) memory: std::collections::HashMap<usize, i64>,
    /// Per-user Throughput Controller counters (executions and iterations).
    pub(super) throughput: std::collections::HashMap<(usize, crate::user_state::Counter), i64>,
    /// Pass numbers of the enclosing loops, innermost last (Once Only looks at it).
    pub(super) passes: Vec<u64>,
    pub(super) transactions: Vec<OpenTransaction>,
    /// The variables of the enclosing Parameterized Controllers, outermost first: set
    /// before each sampler, as each controller's `next()` sets them on the way down.
    pub(super) parameter_scopes: Vec<Arc<[(String, crate::expr::Template)]>>,
    /// The latest label of each sampler, by sampler id: a sample whose name comes out the
    /// same shares it instead of allocating its own.
    constant_labels: FastMap<usize, Arc<str>>,
    /// The `JMeterThread.last_sample_ok` value this user last wrote, with the variables'
    /// write count after it: while the count is unchanged (or moved only by the engine's
    /// own other writes) the variable still holds it and need not be looked up.
    last_ok_written: Option<(bool, u64)>,
    /// The iterations to run instead of the group's loop count (a Concurrency Thread
    /// Group's per-user limit; -1: no limit).
    pub(super) loops_override: Option<i64>,
    /// The level a Concurrency Thread Group holds its users to: the user leaves at an
    /// iteration boundary when more users are live than the target.
    pub(super) concurrency: Option<Arc<super::concurrency::Level>>,
    /// An arrival-driven user: when its current arrival was meant to start, and where
    /// it reports how late it began.
    pub(super) arrival: Option<(Instant, Arc<super::arrivals::ArrivalTally>)>,
    /// A bzm Arrivals user: where it waits for its next arrival between iterations.
    pub(super) pool: Option<Arc<super::arrivals::ArrivalPool>>,
    /// How late (ms) the current arrival began: its samples' intended start is their
    /// start moved back by it.
    arrival_late_ms: i64,
    /// The run, held apart from `user` so a sample can watch its stop signal while the
    /// sampler has the user: no reference count every worker would write per sample.
    run: Arc<crate::user_state::RunShared>,
    /// This user's own copy of each listener list it published samples with (keyed by
    /// the plan's list): the plan's lists are shared by all users, and cloning them per
    /// sample made every worker write the same reference counts.
    listener_lists: FastMap<usize, Arc<[usize]>>,
    /// Samples recorded but not yet on the bus; sent before the user can wait.
    pending: PendingSamples,
    /// This user's place in the run's stop notice, taken at its first sample that waits
    /// and kept for the next ones: joining and leaving the notice's list for every
    /// sample cost two turns of its lock.
    stop_notice: Option<Pin<Box<WaitForCancellationFutureOwned>>>,
    /// Samplers this user started, whether or not they made a sample: a loop tells a
    /// pass that ran none by it ([`EmptyPasses`]).
    pub(super) samplers_run: u64,
    /// The user's thread name, readable while a sampler has the user (a stop lists the
    /// samples in progress by user).
    thread_name: Arc<str>,
}

impl VirtualUser {
    pub fn new(
        mut user: UserState,
        bus: ResultsBus,
        group: Arc<ThreadGroup>,
        end_time: Option<Instant>,
    ) -> VirtualUser {
        user.end_time = end_time;
        let run = user.run.clone();
        let thread_name = user.thread.thread_name.clone();
        VirtualUser {
            user,
            bus,
            group,
            memory: Default::default(),
            throughput: Default::default(),
            passes: Vec::new(),
            transactions: Vec::new(),
            parameter_scopes: Vec::new(),
            constant_labels: FastMap::default(),
            last_ok_written: None,
            loops_override: None,
            concurrency: None,
            arrival: None,
            pool: None,
            arrival_late_ms: 0,
            run,
            listener_lists: FastMap::default(),
            pending: PendingSamples::default(),
            stop_notice: None,
            samplers_run: 0,
            thread_name,
        }
    }

    /// Runs the thread-group loop until the loop count is reached, the scheduler's end
    /// time passes, or a stop is asked for. True when the user left its Concurrency
    /// Thread Group's level (it is no longer counted there).
    pub async fn run(&mut self) -> bool {
        let left = self.run_loops().await;
        self.send_pending().await;
        left
    }

    async fn run_loops(&mut self) -> bool {
        let loops = match self.loops_override {
            Some(loops) => loops,
            None => {
                let name = self.group.name.clone();
                self.group.loops.i64(&mut self.user.eval(&name))
            }
        };
        let body = self.group.body.clone();
        let idx_var = format!("__jm__{}__idx", self.group.name);
        let mut done = 0i64;
        let mut empty = EmptyPasses::default();
        while loops < 0 || done < loops {
            if self.should_stop() {
                break;
            }
            if done > 0 {
                if let Some(level) = &self.concurrency {
                    let whole = level.target.f64(&mut self.user.eval(&self.group.name));
                    let target = crate::foundation::shard::shard_rate(self.user.run.shard, whole);
                    if level.leave_if_above_target(target) {
                        return true;
                    }
                }
                if let Some(pool) = self.pool.clone() {
                    // Recorded samples go out before the user waits in the pool.
                    self.send_pending().await;
                    let stop = self.run.stop_token();
                    match pool.next_arrival(&stop).await {
                        Some(intended) => {
                            if let Some(arrival) = &mut self.arrival {
                                arrival.0 = intended;
                            }
                        }
                        None => return false,
                    }
                }
            }
            if let Some((intended, tally)) = &self.arrival {
                self.arrival_late_ms = tally.began(*intended);
            }
            self.user.iteration += 1;
            self.put_engine_variable(&idx_var, itoa::Buffer::new().format(done));
            self.thread_iteration_start();
            self.passes.push(done as u64);
            empty.pass_begins(self);
            let flow = self.run_pass(&body).await;
            self.passes.pop();
            done += 1;
            if matches!(flow, Flow::StopThread | Flow::BreakLoop) {
                break;
            }
            empty.pass_ended(self, None).await;
        }
        false
    }

    fn thread_iteration_start(&mut self) {
        for listener in &self.group.iteration_listeners {
            listener.thread_iteration_start(&mut self.user);
        }
    }

    /// True when the user must not start another sample.
    pub(super) fn should_stop(&self) -> bool {
        let run = &self.user.run;
        self.user.stop_thread
            || run.stopping()
            || self.user.end_time.is_some_and(|end| Instant::now() >= end)
            || self.pool.as_ref().is_some_and(|pool| pool.limit_reached())
    }

    /// Runs one sampler with its scope package and returns what the thread does next.
    pub(super) async fn run_sampler(&mut self, node: &SamplerNode) -> Flow {
        if self.should_stop() {
            return Flow::StopThread;
        }
        self.samplers_run += 1;
        for open in self.transactions.iter_mut().rev() {
            open.calls += 1;
            if std::mem::take(&mut open.count_next_twice) {
                open.calls += 1;
            }
            if open.parent_mode {
                break;
            }
        }
        let raw_name = node.name.raw();
        if !self.parameter_scopes.is_empty() {
            for variables in self.parameter_scopes.clone() {
                self.set_parameters(&variables);
            }
        }
        self.run_pre_processors(&node.scope, raw_name).await;
        // A pre-processor that ends the user (a Raw Data Source at the end of its file)
        // does so before the sample, as the plugin's exception stops JMeter's thread.
        if self.user.stop_thread {
            return Flow::StopThread;
        }
        if !self.apply_timers(&node.scope, raw_name).await {
            return Flow::StopThread;
        }
        let label = self.label_of(node);
        // The run's handle rather than a clone of its stop token: cloning and dropping a
        // token takes the token tree's lock, twice per sample.
        let run = &self.run;
        let mut cx = SampleContext {
            user: &mut self.user,
            label: label.clone(),
            element_id: node.id,
            action: SampleAction::Continue,
        };
        // The sample first: one that completes at once (a UDP send) never registers with
        // the run-wide stop signal, which every user would otherwise contend for.
        let outcome = {
            let mut sample = std::pin::pin!(node.sampler.sample(&mut cx));
            let first = std::future::poll_fn(|task| Poll::Ready(sample.as_mut().poll(task))).await;
            match first {
                Poll::Ready(result) => Some(result),
                Poll::Pending => {
                    // The sample waits (a response, a pause): the user's recorded samples
                    // go out first rather than sit here meanwhile.
                    let waited = send_pending_waiting(&mut self.pending, &self.bus).await;
                    let notice = self
                        .stop_notice
                        .get_or_insert_with(|| Box::pin(run.stop_notice.clone().cancelled_owned()));
                    finish_sample(
                        sample.as_mut(),
                        !waited,
                        notice.as_mut(),
                        run,
                        &label,
                        &self.thread_name,
                    )
                    .await
                }
            }
        };
        let action = cx.action;
        match outcome {
            None => Flow::StopThread,
            Some(None) => self.after_action(action),
            Some(Some(result)) => self.after_sample(result, &node.scope, &label).await,
        }
    }

    /// The sample's label: the sampler's name, evaluated for this sample unless it is
    /// constant text.
    fn label_of(&mut self, node: &SamplerNode) -> Arc<str> {
        if let Some(label) = &node.literal_label {
            return label.clone();
        }
        let text = node.name.eval(&mut self.user.eval(node.name.raw()));
        // A name with variables usually comes out as it did last time: sharing that label
        // saves an allocation here and lets the results sinks recognise it by pointer.
        if let Some(label) = self.constant_labels.get(&node.id) {
            if **label == *text {
                return label.clone();
            }
        }
        let label: Arc<str> = Arc::from(text);
        self.constant_labels.insert(node.id, label.clone());
        label
    }

    /// Runs the pre-processors in scope.
    pub(super) async fn run_pre_processors(&mut self, scope: &ScopePackage, name: &str) {
        for pre in &scope.pre {
            match pre.as_async() {
                Some(waiting) => waiting.process_async(&mut self.user, name).await,
                None => pre.process(&mut self.user, name),
            }
        }
    }

    /// Sums the timers in scope and sleeps once. False when the thread must stop instead.
    pub(super) async fn apply_timers(&mut self, scope: &ScopePackage, name: &str) -> bool {
        if scope.timers.is_empty() {
            return true;
        }
        let mut delay: i64 = 0;
        for timer in &scope.timers {
            match timer.as_waiting() {
                Some(waiting) => {
                    self.send_pending().await;
                    let group = &self.group;
                    let threads = group.num_threads.i64(&mut self.user.eval(&group.name));
                    waiting.wait(&mut self.user, threads).await;
                    if self.should_stop() {
                        return false;
                    }
                }
                None => delay += timer.delay_for(&mut self.user, name),
            }
        }
        // A throttle whose profile ended stops its users before another sample.
        if self.user.stop_thread {
            return false;
        }
        if delay <= 0 {
            return true;
        }
        // As JMeter does, a timer that would end after the scheduler's end stops the thread
        // at once (a Flow Control pause is shortened instead).
        let wake = Instant::now() + std::time::Duration::from_millis(delay as u64);
        if self.user.end_time.is_some_and(|end| wake > end) {
            return false;
        }
        self.send_pending().await;
        self.user.pause(delay as u64).await
    }

    pub(super) async fn after_sample(
        &mut self,
        mut result: Arc<SampleResult>,
        scope: &ScopePackage,
        name: &str,
    ) -> Flow {
        let (success, action) = {
            let sample = unshared(&mut result);
            self.stamp(sample);
            if sample.ignore {
                let (success, action) = (sample.success, sample.action);
                self.set_last_ok(success);
                return self.after_failure_checks(success, action, scope);
            }
            for post in &scope.post {
                match post.as_async() {
                    Some(waiting) => waiting.process_async(sample, &mut self.user).await,
                    None => post.process(sample, &mut self.user),
                }
            }
            let mut cx = self.user.eval(name);
            for assertion in &scope.assertions {
                assertion.apply(sample, &mut cx);
            }
            // The parsed forms that post-processors and assertions shared are not
            // needed by the recorded sample, and `prev` would keep them a whole iteration.
            sample.forget_parsed();
            // JMeter takes the sample variables when it makes the sample event, before
            // any listener runs: a variable a listener sets (Save Responses' file name)
            // shows in the next row, not in this one.
            self.capture_sample_variables(sample);
            for listener in &scope.sample_listeners {
                listener.sample_finished(sample, &mut self.user);
            }
            (sample.success, sample.action)
        };
        self.set_last_ok(success);
        self.record(result, &scope.listeners).await;
        if !scope.sample_listeners.is_empty() {
            if let Some(recorded) = self.user.prev.clone() {
                for listener in &scope.sample_listeners {
                    listener.sample_occurred(&recorded, &mut self.user);
                }
            }
        }
        self.after_failure_checks(success, action, scope)
    }

    fn after_failure_checks(
        &self,
        success: bool,
        action: SampleAction,
        scope: &ScopePackage,
    ) -> Flow {
        let mut action = action;
        if !success {
            for handler in &scope.result_actions {
                if *handler != SampleAction::Continue {
                    action = *handler;
                }
            }
            if action == SampleAction::Continue {
                action = match self.group.on_error {
                    OnError::Continue => SampleAction::Continue,
                    OnError::StartNextLoop => SampleAction::StartNextThreadLoop,
                    OnError::StopThread => SampleAction::StopThread,
                    OnError::StopTest => SampleAction::StopTest,
                    OnError::StopTestNow => SampleAction::StopTestNow,
                };
            }
        }
        self.after_action(action)
    }

    fn after_action(&self, action: SampleAction) -> Flow {
        match action {
            SampleAction::Continue => Flow::Normal,
            SampleAction::StartNextThreadLoop => Flow::NextThreadLoop,
            SampleAction::StartNextIterationOfCurrentLoop => Flow::ContinueLoop,
            SampleAction::BreakCurrentLoop => Flow::BreakLoop,
            SampleAction::StopThread => Flow::StopThread,
            SampleAction::StopTest => {
                self.user.run.request_stop();
                Flow::StopThread
            }
            SampleAction::StopTestNow => {
                self.user.run.request_stop_now();
                Flow::StopThread
            }
        }
    }

    pub(super) fn set_last_ok(&mut self, ok: bool) {
        const LAST_SAMPLE_OK: &str = "JMeterThread.last_sample_ok";
        let vars = &mut self.user.vars;
        if self.last_ok_written == Some((ok, vars.writes())) {
            return;
        }
        let value = if ok { "true" } else { "false" };
        // Mostly unchanged from the previous sample: then there is nothing to allocate.
        if vars.get(LAST_SAMPLE_OK) != Some(value) {
            vars.put(LAST_SAMPLE_OK, value);
        }
        self.last_ok_written = Some((ok, vars.writes()));
    }

    /// Writes a variable the engine keeps (a loop index) without losing track of the
    /// `JMeterThread.last_sample_ok` value written before it.
    fn put_engine_variable(&mut self, name: &str, value: &str) {
        let vars = &mut self.user.vars;
        let last_ok_current = self
            .last_ok_written
            .is_some_and(|(_, writes)| writes == vars.writes());
        vars.put_str(name, value);
        if last_ok_current {
            if let Some((_, writes)) = &mut self.last_ok_written {
                *writes = vars.writes();
            }
        }
    }

    /// Fills what the engine knows about a sample: thread name and thread counts.
    pub(super) fn stamp(&self, result: &mut SampleResult) {
        result.thread_name = self.user.thread.thread_name.clone();
        result.grp_threads = self.user.group_active.load(Ordering::Relaxed);
        result.all_threads = self.user.run.counts.active.load(Ordering::Relaxed) as i32;
        if self.arrival.is_some() {
            result.intended_start = Some(result.start_time - self.arrival_late_ms);
        }
        for sub in &mut result.subresults {
            if sub.thread_name.is_empty() {
                sub.thread_name = result.thread_name.clone();
                sub.grp_threads = result.grp_threads;
                sub.all_threads = result.all_threads;
            }
        }
    }

    /// Records a finished sample: into the innermost parent-mode transaction if one is
    /// open, else onto the bus; open non-parent transactions count it.
    pub(super) async fn record(&mut self, mut result: Arc<SampleResult>, listeners: &Arc<[usize]>) {
        if result.sample_variables.is_empty() {
            self.capture_sample_variables(unshared(&mut result));
        }
        self.user.prev = Some(result.clone());
        let mut published = true;
        for open in self.transactions.iter_mut().rev() {
            open.add(&result);
            if open.parent_mode {
                published = false;
                break;
            }
        }
        if published {
            let key = listeners.as_ptr() as usize;
            let listeners = self
                .listener_lists
                .entry(key)
                .or_insert_with(|| Arc::from(&listeners[..]))
                .clone();
            let event = SampleEvent { result, listeners };
            if self.pending.push(event) {
                self.send_pending().await;
            }
            // A send per sample used to spend the runtime's cooperative budget, so a user
            // whose samples complete at once gave its worker back now and then; with
            // batches the budget is spent here instead.
            tokio::task::consume_budget().await;
        }
    }

    /// Keeps the values of the run's `sample_variables` with the sample, for its row.
    fn capture_sample_variables(&self, sample: &mut SampleResult) {
        let names = &self.user.run.sample_variables;
        if !names.is_empty() {
            sample.sample_variables = names
                .iter()
                .map(|name| self.user.vars.get(name).map(str::to_string))
                .collect();
        }
    }

    /// Puts the user's recorded samples on the bus (waiting for room if it is full).
    pub(super) async fn send_pending(&mut self) {
        send_pending(&mut self.pending, &self.bus).await;
    }
}

/// Awaits a sample that did not complete at once (its first poll, just made, returned
/// `Pending` and left its waker with what it waits for). Once a stop from outside the plan was
/// asked for, the sample is listed as in progress until it ends. At an immediate stop it
/// is polled once more: samplers that wait end their sample then with the error JMeter's
/// interrupted sampler reports (they watch `stop_now`, or `RunShared::interrupting` when
/// polled), and it is recorded as any other. `None`: the sampler went on regardless, and
/// its sample is abandoned.
///
/// `notice` is the user's wait for `run.stop_notice`, which stays ready once the
/// notice fired.
///
/// `polled_just_now`: nothing was awaited since the sample's first poll, so its waker
/// has not fired, and polling it again now would walk the whole chain of the sampler's
/// futures for nothing. When the task slept in between (the bus was full), a wake-up
/// meant for the sample may have been spent on that sleep: the sample is polled first.
async fn finish_sample<S: Future + ?Sized>(
    mut sample: Pin<&mut S>,
    mut polled_just_now: bool,
    mut notice: Pin<&mut WaitForCancellationFutureOwned>,
    run: &crate::user_state::RunShared,
    label: &Arc<str>,
    thread: &Arc<str>,
) -> Option<S::Output> {
    let finished = std::future::poll_fn(|task| {
        if !std::mem::take(&mut polled_just_now) {
            if let Poll::Ready(result) = sample.as_mut().poll(task) {
                return Poll::Ready(Some(result));
            }
        }
        notice.as_mut().poll(task).map(|()| None)
    })
    .await;
    if finished.is_some() {
        return finished;
    }
    let _listed = run.in_flight.enter(label.clone(), thread.clone());
    tokio::select! {
        biased;
        result = sample.as_mut() => return Some(result),
        _ = run.stop_now.cancelled() => {}
    }
    match std::future::poll_fn(|task| Poll::Ready(sample.as_mut().poll(task))).await {
        Poll::Ready(result) => Some(result),
        Poll::Pending => None,
    }
}

async fn send_pending(pending: &mut PendingSamples, bus: &ResultsBus) {
    if !pending.is_empty() {
        bus.publish(pending.take()).await;
    }
}

/// [`send_pending`], telling whether it had to wait for room on the bus: the task then
/// slept, and whatever woke it may have been meant for something else it waits on.
async fn send_pending_waiting(pending: &mut PendingSamples, bus: &ResultsBus) -> bool {
    let mut waited = false;
    let mut send = std::pin::pin!(send_pending(pending, bus));
    std::future::poll_fn(|task| {
        let poll = send.as_mut().poll(task);
        waited |= poll.is_pending();
        poll
    })
    .await;
    waited
}

impl Drop for VirtualUser {
    /// A user normally sends its samples before it ends; one dropped early (its task
    /// panicked) still hands over what it holds if the bus has room.
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            self.bus.try_publish(self.pending.take());
        }
    }
}

/// The sample a sampler handed over, to finish in place: it is shared (with the user's
/// `prev` and the results bus) only once recorded, so filling it costs no copy.
fn unshared(result: &mut Arc<SampleResult>) -> &mut SampleResult {
    Arc::get_mut(result).expect("a sample is not shared before it is recorded")
}

impl OpenTransaction {
    pub fn new(parent_mode: bool) -> OpenTransaction {
        OpenTransaction {
            parent_mode,
            calls: 0,
            count_next_twice: false,
            samples: Vec::new(),
            failing: 0,
            child_elapsed: 0,
            code: Text::Borrowed(""),
            code_frozen: false,
        }
    }

    fn add(&mut self, result: &Arc<SampleResult>) {
        // A default-mode transaction ignores the samples of transactions nested in it, as
        // JMeter's `TransactionController.sampleOccurred` skips transaction sample events.
        if !self.parent_mode && result.is_transaction() {
            return;
        }
        if !result.success {
            self.failing += 1;
        }
        self.child_elapsed += result.elapsed;
        if !self.code_frozen {
            self.code = result.response_code.clone();
            if !result.success {
                self.code_frozen = true;
            }
        }
        self.samples.push(result.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::SampleEvent;
    use crate::sample::SampleResult;

    fn one_sample() -> PendingSamples {
        let mut pending = PendingSamples::default();
        pending.push(SampleEvent {
            result: SampleResult::new_shared(Arc::from("s")),
            listeners: Arc::from(Vec::new()),
        });
        pending
    }

    /// A user whose publishing had to wait must poll its sample again: the wake-up the
    /// sample's answer sent may have been spent on that wait, and without a poll the
    /// user would wait forever.
    #[tokio::test]
    async fn publishing_into_a_full_bus_tells_that_it_waited() {
        let (bus, mut receiver) = ResultsBus::new(1);
        assert!(!send_pending_waiting(&mut one_sample(), &bus).await);
        let mut pending = one_sample();
        let drain = tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let mut seen = 0;
            while seen < 2 {
                seen += receiver.recv().await.map_or(0, |batch| batch.len());
            }
            seen
        });
        assert!(send_pending_waiting(&mut pending, &bus).await);
        assert!(pending.is_empty());
        assert_eq!(drain.await.unwrap(), 2);
        assert!(!send_pending_waiting(&mut PendingSamples::default(), &bus).await);
    }

    /// A sample whose wake-up came while the user was elsewhere ends once polled.
    #[tokio::test]
    async fn a_sample_not_just_polled_is_polled_first() {
        let run = crate::user_state::RunShared::new(
            crate::foundation::properties::Properties::default(),
            crate::user_state::TestInfo::default(),
            Some(0),
        );
        let mut notice = Box::pin(run.stop_notice.clone().cancelled_owned());
        // Ready on its second poll, and never wakes anyone: as a sample whose wake-up
        // was spent on something else.
        let mut polls = 0;
        let sample = std::future::poll_fn(|_| {
            polls += 1;
            if polls >= 2 {
                Poll::Ready(7)
            } else {
                Poll::Pending
            }
        });
        let mut sample = std::pin::pin!(sample);
        assert!(futures_poll_once(sample.as_mut()).is_pending());
        let (label, thread) = (Arc::from("s"), Arc::from("t"));
        let finished = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            finish_sample(
                sample.as_mut(),
                false,
                notice.as_mut(),
                &run,
                &label,
                &thread,
            ),
        )
        .await;
        assert_eq!(
            finished.expect("the sample is polled, not waited for"),
            Some(7)
        );
    }

    fn futures_poll_once<F: Future + ?Sized>(future: Pin<&mut F>) -> Poll<F::Output> {
        let waker = std::task::Waker::noop();
        future.poll(&mut std::task::Context::from_waker(waker))
    }
}
