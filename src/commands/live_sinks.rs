//! The sinks that carry a run's numbers out while it goes on: the Backend Listeners'
//! senders, the Prometheus Listeners' endpoint and the Mailer Visualizers' mails. Each reads its settings as the run
//! starts; one that cannot work is left out with a warning, as a listener that only
//! observes, and the run and its result files go on.

use std::sync::Arc;

use super::run::eval_outside_users;
use crate::plan;
use crate::results::{
    BackendConfig, BackendParameters, BackendSink, MailerSettings, MailerSink, PrometheusSink, Sink,
};
use crate::runlog;
use crate::user_state::RunShared;

/// The plan's Backend Listeners, their parameters evaluated as the run starts. One that
/// cannot send (a URL that is not one) is left out with a warning, as a listener that
/// only observes.
pub(super) fn backend_sinks(plan: &plan::TestPlan, shared: &Arc<RunShared>) -> Vec<Box<dyn Sink>> {
    let mut sinks: Vec<Box<dyn Sink>> = Vec::new();
    for spec in &plan.backend_listeners {
        let rows = spec
            .arguments
            .iter()
            .map(|(name, value)| (name.clone(), eval_outside_users(value, shared)))
            .collect();
        let config = BackendConfig {
            listener: spec.id,
            path: spec.path.to_string(),
            classname: spec.classname.clone(),
            parameters: BackendParameters::new(rows),
        };
        let mut problems = Vec::new();
        let opened =
            BackendSink::open(&config, &shared.props, shared.counts.clone(), &mut problems);
        if let Err(e) = &opened {
            problems.push(format!("{e}; this listener sends nothing"));
        }
        for problem in problems {
            let message = format!("{}: {problem}", spec.path);
            eprintln!("warning: {message}");
            runlog::file_only("WARN", &message);
        }
        if let Ok(sink) = opened {
            sinks.push(Box::new(sink));
        }
    }
    sinks
}

/// One endpoint for all the plan's Prometheus Listeners, as the plugin serves them.
pub(super) fn prometheus_sink(
    plan: &plan::TestPlan,
    shared: &Arc<RunShared>,
) -> Option<Box<dyn Sink>> {
    let specs = &plan.prometheus_listeners;
    let path = &specs.first()?.path;
    let mut problems = Vec::new();
    let opened = PrometheusSink::open(
        specs,
        &shared.props,
        shared.sample_variables.clone(),
        shared.counts.clone(),
        &mut problems,
    );
    if let Err(e) = &opened {
        problems.push(format!("{e}; no metrics are exposed"));
    }
    for problem in problems {
        let message = format!("{path}: {problem}");
        eprintln!("warning: {message}");
        runlog::file_only("WARN", &message);
    }
    let sink = opened.ok()?;
    if let Some(address) = sink.address() {
        runlog::info(&format!(
            "Prometheus metrics served on http://{address}/metrics"
        ));
    }
    Some(Box::new(sink))
}

/// The plan's Mailer Visualizers, their settings evaluated as the run starts.
pub(super) fn mailer_sinks(plan: &plan::TestPlan, shared: &Arc<RunShared>) -> Vec<Box<dyn Sink>> {
    plan.mailers
        .iter()
        .map(|spec| {
            let [from, to, host, port, login, password, auth_type, failure_subject, success_subject, failure_limit, success_limit] =
                spec.values.each_ref().map(|t| eval_outside_users(t, shared));
            let settings = MailerSettings {
                from,
                to,
                host,
                port,
                login,
                password,
                auth_type,
                failure_subject,
                success_subject,
                failure_limit,
                success_limit,
            };
            Box::new(MailerSink::new(spec.id, settings, &spec.path)) as Box<dyn Sink>
        })
        .collect()
}
