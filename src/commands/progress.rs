//! Whether a run shows the progress display (`results::Progress`), and what it is told:
//! the plan's length when its thread groups fix it, the groups' active users, the
//! `.jtl`. It is shown only when stdout is a terminal and `--no-progress` is not given,
//! so logs and pipes get JMeter's lines unchanged.

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use super::cli::RunConfig;
use crate::engine;
use crate::plan::TestPlan;
use crate::results::{Progress, ProgressSettings};
use crate::user_state::RunShared;

pub(super) fn display(
    plan: &TestPlan,
    config: &RunConfig,
    shared: &Arc<RunShared>,
) -> Option<Progress> {
    if config.no_progress || !std::io::stdout().is_terminal() {
        return None;
    }
    let groups = plan
        .groups
        .iter()
        .map(|g| (g.name.to_string(), shared.group_counter(g.id)))
        .collect();
    let settings = ProgressSettings {
        planned: planned(plan, shared),
        groups,
        counts: shared.counts.clone(),
        jtl: config.jtl.as_ref().map(|p| p.display().to_string()),
    };
    Some(Progress::new(settings, Box::new(std::io::stdout())))
}

/// The main thread groups' length: the longest, or their sum when they run one after
/// the other; unknown when any group's length is.
fn planned(plan: &TestPlan, shared: &RunShared) -> Option<Duration> {
    let ends: Vec<Duration> = plan
        .groups
        .iter()
        .map(|g| engine::planned_end(g, shared))
        .collect::<Option<_>>()?;
    if plan.serialize_threadgroups {
        Some(ends.iter().sum())
    } else {
        ends.into_iter().max()
    }
}
