//! The engine: schedulers start virtual users; each user walks the controllers of its
//! thread group and runs samplers with their scope package; results go on the bus.
//!
//! * [`scheduler`] decides *when*: phases (setUp, main, tearDown), ramp-up, delay and
//!   duration of each thread group; [`group_windows`] gives each user of a plugin thread
//!   group (Ultimate, Stepping) its own start and end; [`concurrency`] holds a bzm
//!   Concurrency Thread Group's live users at its planned level; [`arrivals`] starts
//!   the users of arrival-driven groups (Open Model, bzm Arrivals and Free-Form);
//!   [`profile`] describes any group's plan over time without running it.
//! * [`vu`] is *who*: one task per virtual user, owning its `UserState`, running the
//!   per-sample pipeline (pre-processors, timers, sampler, post-processors, assertions,
//!   recording) and Transaction Controllers.
//! * [`controllers`] is how a user walks logic controllers; [`empty_passes`] keeps loops
//!   whose passes run no sampler from turning at full speed.
//!
//! Samplers (*what*) are called through `plan::Sampler` and know nothing of this module
//! beyond the user's state (`user_state`).

mod arrivals;
mod concurrency;
mod controllers;
mod empty_passes;
mod group_windows;
mod parallel;
mod profile;
mod scheduler;
mod transaction;
mod vu;
mod weighted_switch;

pub use arrivals::{Reports as ArrivalReports, REPORTS_KEY as ARRIVAL_REPORTS_KEY};
pub use profile::{profile, GroupProfile, Measure};
pub use scheduler::{planned_end, run};
