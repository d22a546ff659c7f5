//! The engine: schedulers start virtual users; each user walks the controllers of its
//! thread group and runs samplers with their scope package; results go on the bus.

mod user;

use crate::expr::{Properties, TestInfo};

pub use user::UserState;

/// State shared by every virtual user of a run.
pub struct RunShared {
    pub props: Properties,
    pub test: TestInfo,
}
