//! What a virtual user carries and what all users of a run share: the state JMeter keeps
//! per thread (variables, random source, identity, the previous sample, per-element
//! slots for cookies, connections and CSV cursors) and per run (properties, stop tokens,
//! thread counts, shared element state).
//!
//! Elements, samplers and scripts read and change this state; the engine creates it and
//! drives the users. Living below all of them, it lets protocol and element code depend
//! on the user without depending on the scheduler.

mod context;
pub mod fifo;
pub mod in_flight;
mod run;
mod thread_counts;
mod user;

pub use crate::foundation::properties::VariableObject;
pub use context::{EvalContext, TestInfo, ThreadInfo, Variables};
pub use run::{Counter, RunShared};
pub use thread_counts::{ThreadCounts, ThreadCountsSnapshot};
pub use user::UserState;
