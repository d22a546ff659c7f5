//! Opens the plan's Flexible File Writers when the run starts: each file name is
//! evaluated once (a leading `~/` is the plan's folder, as for result files), and a file
//! that cannot be opened is a warning and writes nothing, as the plugin logs "Cannot
//! open file" and goes on.

use std::sync::Arc;

use super::run::eval_outside_users;
use crate::foundation::paths::resolve_output;
use crate::plan;
use crate::results::{FlexibleFileSink, Sink};
use crate::runlog;
use crate::user_state::RunShared;

pub(super) fn open(plan: &plan::TestPlan, shared: &Arc<RunShared>) -> Vec<Box<dyn Sink>> {
    let mut sinks: Vec<Box<dyn Sink>> = Vec::new();
    for spec in &plan.flexible_file_writers {
        let name = eval_outside_users(&spec.filename, shared);
        let path = resolve_output(&name, &shared.test.plan_dir);
        match FlexibleFileSink::open(spec, &path, shared.sample_variables.len()) {
            Ok(sink) => sinks.push(Box::new(sink)),
            Err(e) => {
                let message = format!("{}: Cannot open file {name}: {e}", spec.path);
                eprintln!("warning: {message}");
                runlog::file_only("WARN", &message);
            }
        }
    }
    sinks
}
