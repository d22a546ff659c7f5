//! The plan: typed, scoped, pre-compiled elements and the contracts they meet.
//!
//! Element behaviour is behind small traits ([`Sampler`], [`Timer`], [`Assertion`],
//! [`PreProcessor`], [`PostProcessor`], [`IterationListener`], [`SampleListener`]); the
//! engine only calls these. As in JMeter's model, elements own their behaviour: logic
//! controllers' settings ([`controllers`]), config elements ([`config`]), timers
//! ([`timers`]), assertions ([`assertions`]) and post-processors ([`extractors`]) live
//! here; protocol samplers live in `samplers`, script elements in `script`. The
//! compatibility [`registry`] says what jmxr does with every element class; `assemble`
//! walks the loaded tree with it, constructs each element with a [`BuildContext`] (which
//! compiles templates and collects every problem, so `jmxr check` and a refused run list
//! them all) and resolves each sampler's scope into one [`ScopePackage`].

pub mod arrivals;
pub mod assertions;
pub mod config;
pub mod context;
pub mod controllers;
pub mod debug_dump;
pub mod extractors;
pub mod fifo;
pub mod flexible_file_writer;
pub mod mailer;
pub mod open_model;
pub mod registry;
pub mod response_forms;
pub mod result_saver;
pub mod timers;
pub mod tree;

use std::sync::Arc;

use async_trait::async_trait;

pub use context::{BuildContext, Diagnostic, Setting, Severity};
pub use tree::*;

use crate::sample::SampleAction;
use crate::sample::SampleResult;
use crate::user_state::EvalContext;
use crate::user_state::UserState;

/// What a sampler gets while it runs.
pub struct SampleContext<'a> {
    pub user: &'a mut UserState,
    /// The sampler's name after evaluation: the sample's label.
    pub label: Arc<str>,
    /// The element id, for per-user slots.
    pub element_id: usize,
    /// Set by samplers that produce no sample but steer the thread (Flow Control Action).
    pub action: SampleAction,
}

/// A sampler turns its (resolved) settings into one `SampleResult`, or `None` when it
/// produces no sample (Flow Control Action). The result is on the heap from the start:
/// it is several hundred bytes, and the engine passes it through a chain of futures on
/// its way to the results bus, each of which would otherwise copy it. It comes as the
/// only reference to an `Arc`, which the engine finishes in place and then shares with
/// the user's `prev` and the bus without another copy.
#[async_trait]
pub trait Sampler: Send + Sync {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>>;
}

/// A timer computes a delay in ms; the engine sums all timers in scope and sleeps once.
pub trait Timer: Send + Sync {
    fn delay_ms(&self, cx: &mut EvalContext<'_>) -> i64;

    /// The delay for `user` before `sampler_name`: timers that keep per-user or run-wide
    /// state (throughput timers) override this; the others only evaluate settings.
    fn delay_for(&self, user: &mut UserState, sampler_name: &str) -> i64 {
        self.delay_ms(&mut user.eval(sampler_name))
    }

    /// A timer that holds the user until other users arrive (Synchronizing Timer)
    /// instead of computing a delay; the engine awaits it in its place among the timers.
    fn as_waiting(&self) -> Option<&dyn WaitingTimer> {
        None
    }
}

/// A timer whose wait depends on other users.
#[async_trait]
pub trait WaitingTimer: Send + Sync {
    /// Waits for the other users. `group_threads` is the number of users the user's
    /// thread group is set to run.
    async fn wait(&self, user: &mut UserState, group_threads: i64);
}

/// An assertion records its outcome on the result (`assertions`, `success`).
pub trait Assertion: Send + Sync {
    fn apply(&self, result: &mut SampleResult, cx: &mut EvalContext<'_>);
}

/// Runs before the sampler, after config merge and before timers.
pub trait PreProcessor: Send + Sync {
    fn process(&self, user: &mut UserState, sampler_name: &str);

    /// Pre-processors that wait on the network (JDBC PreProcessor) are awaited through
    /// this instead of being called through `process`.
    fn as_async(&self) -> Option<&dyn AsyncPreProcessor> {
        None
    }
}

/// A pre-processor whose work awaits I/O, so that it never blocks a runtime thread.
#[async_trait]
pub trait AsyncPreProcessor: Send + Sync {
    async fn process_async(&self, user: &mut UserState, sampler_name: &str);
}

/// Runs after the sampler, before assertions.
pub trait PostProcessor: Send + Sync {
    fn process(&self, result: &mut SampleResult, user: &mut UserState);

    /// Post-processors that wait on the network (JDBC PostProcessor) are awaited
    /// through this instead of being called through `process`.
    fn as_async(&self) -> Option<&dyn AsyncPostProcessor> {
        None
    }
}

/// A post-processor whose work awaits I/O.
#[async_trait]
pub trait AsyncPostProcessor: Send + Sync {
    async fn process_async(&self, result: &mut SampleResult, user: &mut UserState);
}

/// Listeners that act on the virtual user (JSR223, BeanShell and BSF Listeners, Save
/// Responses to a file): told of every sample in their scope, on the user that made it.
pub trait SampleListener: Send + Sync {
    /// Called before the sample is recorded, after its assertions: listeners that annotate
    /// the sample (Save Responses to a file names the file it wrote) act here.
    fn sample_finished(&self, _result: &mut SampleResult, _user: &mut UserState) {}

    /// Called once the sample is recorded.
    fn sample_occurred(&self, _result: &Arc<SampleResult>, _user: &mut UserState) {}
}

/// Elements that act when the nearest enclosing controller starts an iteration
/// (Counter, CSV Data Set, Random Variable, User Parameters per iteration).
pub trait IterationListener: Send + Sync {
    fn iteration_start(&self, user: &mut UserState);

    /// Called at the start of every thread-group iteration for every iteration listener
    /// of the group, wherever it sits (JMeter's test-iteration event: a Counter's
    /// "reset on each thread group iteration").
    fn thread_iteration_start(&self, _user: &mut UserState) {}
}
