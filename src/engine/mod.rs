//! The engine: schedulers start virtual users; each user walks the controllers of its
//! thread group and runs samplers with their scope package; results go on the bus.

mod user;

use tokio_util::sync::CancellationToken;

use crate::expr::{Properties, TestInfo};

pub use user::UserState;

/// State shared by every virtual user of a run.
pub struct RunShared {
    pub props: Properties,
    pub test: TestInfo,
    /// Cancelled when the run must stop *now* (JMeter's "Stop", not "Shutdown"): samplers
    /// that wait (sleeps, child processes) await it so they end at once, as JMeter
    /// interrupts its sampler threads.
    pub stop_now: CancellationToken,
}
