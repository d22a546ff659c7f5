//! One invocation, end to end: load → rewrite → plan → (refuse or) run → sinks.
//!
//! This is the only place that knows every stage; `main` maps its [`Outcome`] to an
//! exit code.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::assemble::PlanOutcome;
pub use crate::commands::check::check;
use crate::commands::cli::ReportConfig;
use crate::commands::cli::RunConfig;
use crate::engine;
use crate::expr::FunctionRegistry;
use crate::foundation::paths::resolve_output;
use crate::foundation::properties::Properties;
use crate::jmx;
use crate::plan;
use crate::plan::Severity;
use crate::results::{
    AutoStop, AutoStopLimits, Batch, Collector, CriteriaSink, JtlFiles, ResultsBus, SaveConfig,
    Sink, StopRun, Summariser, SystemClock, Verdicts, BUS_CAPACITY,
};
use crate::runlog;
use crate::user_state::in_flight::{describe, seconds};
use crate::user_state::RunShared;
use crate::user_state::TestInfo;
use crate::user_state::ThreadInfo;
use crate::user_state::Variables;

/// How an invocation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The run completed (failed samples included, as in JMeter).
    Completed,
    /// Bad input: plan, property file, output file.
    BadInput,
    /// The plan holds unsupported elements.
    Unsupported,
    /// Stopped by Ctrl-C or SIGTERM.
    Interrupted,
    /// Stopped by an AutoStop Listener's condition.
    AutoStopped,
    /// A pass/fail criterion written `as failed` was met.
    CriteriaFailed,
    /// A results file or the dashboard could not be written; the run stopped.
    ResultsNotWritten,
}

impl Outcome {
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Completed => 0,
            Outcome::BadInput => 1,
            Outcome::Unsupported => 2,
            Outcome::Interrupted => 3,
            Outcome::AutoStopped => 4,
            Outcome::CriteriaFailed => 5,
            Outcome::ResultsNotWritten => 6,
        }
    }
}

/// Loads, rewrites and plans a file; errors are printed.
fn load_plan(
    path: &Path,
    functions: &FunctionRegistry,
    properties: &HashMap<String, String>,
) -> Result<PlanOutcome, Outcome> {
    let mut tree = jmx::load_file(path).map_err(|e| {
        eprintln!("An error occurred: {e}");
        Outcome::BadInput
    })?;
    jmx::rewrite::apply(&mut tree).map_err(|e| {
        eprintln!("An error occurred: {e}");
        Outcome::BadInput
    })?;
    Ok(crate::assemble::build_with_properties(
        &tree, functions, properties,
    ))
}

/// Whether the plan as it will run (included files read, disabled elements dropped,
/// Module Controllers' targets copied in) holds a JDBC Request, JDBC PreProcessor, JDBC
/// PostProcessor or JDBC Connection Configuration. The runtime is built before the plan
/// is loaded, and its scheduling suits database plans differently (`main.rs`), so this
/// reads the plan's elements on their own; an unreadable plan, which the run itself
/// reports, counts as none.
pub fn plan_uses_jdbc(path: &Path) -> bool {
    fn any_jdbc(elements: &[jmx::Element]) -> bool {
        elements.iter().any(|element| {
            crate::samplers::jdbc::is_sampler(&element.class)
                || crate::samplers::jdbc::processor_kind(&element.class).is_some()
                || crate::samplers::jdbc::is_data_source(&element.class)
                || any_jdbc(&element.children)
        })
    }
    let Ok(mut tree) = jmx::load_file(path) else {
        return false;
    };
    jmx::rewrite::apply(&mut tree).is_ok() && any_jdbc(&tree.roots)
}

/// A run: the plan is refused if it holds errors (unless `--skip-unsupported`), result
/// files are prepared, users run, and every sink is finished on every way out.
pub async fn run(config: RunConfig) -> Outcome {
    if let Some(log) = &config.log_file {
        if let Err(e) = runlog::open(log) {
            eprintln!(
                "An error occurred: cannot write the log file {}: {e}",
                log.display()
            );
            return Outcome::BadInput;
        }
    }
    runlog::info(&format!("Loading file: {}", config.plan.display()));
    let functions = crate::script::function_registry();
    let built = match load_plan(&config.plan, &functions, &config.properties) {
        Ok(built) => built,
        Err(outcome) => return outcome,
    };
    let errors: Vec<_> = built.errors().collect();
    if !errors.is_empty() {
        let word = if config.skip_unsupported {
            "warning"
        } else {
            "error"
        };
        eprintln!(
            "{word}: {} cannot be run as written; {} problem(s):",
            config.plan.display(),
            errors.len()
        );
        for diagnostic in &errors {
            eprintln!(
                "  {}: {} ({})",
                diagnostic.location, diagnostic.message, diagnostic.path
            );
        }
    }
    // Every element that will not run is listed before the run, including listeners
    // whose absence changes neither the load nor the verdict.
    for warning in built
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
    {
        eprintln!("{warning}");
        runlog::warn(&warning.to_string());
    }
    if !errors.is_empty() && !config.skip_unsupported {
        eprintln!("Run with --skip-unsupported to run the rest of the plan anyway.");
        return Outcome::Unsupported;
    }
    let plan = Arc::new(built.plan);
    let shard = crate::foundation::shard::Shard::from_properties(&Properties::from_map(
        config.properties.clone(),
    ))
    .ok()
    .flatten();
    let session = match super::distributed::prepare(&config, shard).await {
        Ok(session) => session,
        Err(message) => {
            eprintln!("An error occurred: {message}");
            return Outcome::BadInput;
        }
    };
    let start = session.as_ref().and_then(|session| session.start());
    let properties = start_properties(config.properties.clone(), start.map(|start| start.epoch_ms));
    let test = TestInfo {
        plan_file: config.plan.clone(),
        plan_dir: config
            .plan
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from(".")),
        fifo: Default::default(),
    };
    let mut shared = RunShared::new(properties, test, config.seed);
    shared.schedule_origin = start.map(|start| start.instant);
    let shared = Arc::new(shared);
    // Ctrl-C and SIGTERM are listened to from here on, before any file is opened: until
    // a listener exists, a signal ends the process as its default action does. From here
    // a signal stops the run gracefully, also while it waits for its start time.
    let signals = tokio::spawn(watch_signals(shared.clone(), StopSignals::listen()));
    super::script_sandbox::install(&shared.test.plan_dir, &shared.props);
    if let Err(message) = crate::samplers::http::keystore::install(&shared, &config.system, &plan) {
        eprintln!("An error occurred: {message}");
        return Outcome::BadInput;
    }
    let mut progress = super::progress::display(&plan, &config, &shared);
    let console: Box<dyn std::io::Write + Send> = match &progress {
        Some(progress) => Box::new(progress.console()),
        None => Box::new(std::io::stdout()),
    };
    let mut sinks = match open_sinks(&plan, &config, &shared, console) {
        Ok(sinks) => sinks,
        Err(message) => {
            eprintln!("An error occurred: {message}");
            return Outcome::BadInput;
        }
    };
    let intended_start_lines = crate::results::IntendedStartLines::default();
    sinks.push(Box::new(crate::results::IntendedStartLatency::new(
        intended_start_lines.clone(),
    )));
    let verdicts = (!config.criteria.is_empty() || config.junit.is_some()).then(|| {
        let (sink, verdicts) = criteria_sink(&config, &shared);
        sinks.push(Box::new(sink));
        verdicts
    });
    println!(
        "Created the tree successfully using {}",
        config.plan.display()
    );
    // Everything is ready: what remains before the first sample takes microseconds.
    if let Some(session) = &session {
        tokio::select! {
            _ = session.wait_for_start() => {}
            _ = shared.stop_notice.cancelled() => {}
        }
    }
    let start = chrono::Local::now();
    runlog::info(&format!(
        "Starting the test @ {} ({})",
        start.format("%Y %b %-d %H:%M:%S"),
        start.timestamp_millis()
    ));
    println!(
        "Starting standalone test @ {} ({})",
        start.format("%Y %b %-d %H:%M:%S"),
        start.timestamp_millis()
    );
    let mirror = match config.mirror_port {
        Some(port) => match start_mirror(port).await {
            Ok(task) => Some(task),
            Err(message) => {
                eprintln!("An error occurred: {message}");
                return Outcome::BadInput;
            }
        },
        None => None,
    };
    if let Some(progress) = &mut progress {
        sinks.push(Box::new(progress.sink()));
        progress.start();
    }
    let (bus, receiver) = ResultsBus::new(BUS_CAPACITY);
    let run = shared.clone();
    let stop_run = Box::new(move |message: &str| {
        eprintln!("error: {message}");
        runlog::error(message);
        run.request_stop_now();
    });
    let drain = spawn_drain(receiver, sinks, stop_run);
    let problems = engine::run(plan, shared.clone(), bus).await;
    crate::samplers::mqtt::connection_sampler::hold_after_test(&shared).await;
    signals.abort();
    if let Some(mirror) = mirror {
        mirror.abort();
    }
    let failures = drain
        .await
        .unwrap_or_else(|_| vec!["the results writer stopped unexpectedly".to_string()]);
    if let Some(progress) = &mut progress {
        progress.stop();
    }
    let end = chrono::Local::now();
    println!(
        "Tidying up ...    @ {} ({})",
        end.format("%Y %b %-d %H:%M:%S"),
        end.timestamp_millis()
    );
    println!("... end of run");
    // Arrival-driven groups say how their schedule was kept: late, delayed and dropped
    // arrivals instead of a silently shifted schedule.
    if let Some(reports) =
        shared.shared::<engine::ArrivalReports>(engine::ARRIVAL_REPORTS_KEY, Default::default)
    {
        for line in reports.lock().iter() {
            println!("{line}");
        }
    }
    for line in intended_start_lines.lock().iter() {
        println!("{line}");
    }
    for problem in &problems {
        let message = format!("Thread group {}: {}", problem.group, problem.message);
        eprintln!("{message}");
        runlog::error(&message);
    }
    let criteria_failed = match verdicts {
        Some(verdicts) => {
            let verdicts = verdicts.lock().clone();
            crate::commands::criteria::report(&verdicts, &config.plan, config.junit.as_deref())
                .unwrap_or_else(|message| {
                    eprintln!("An error occurred: {message}");
                    runlog::error(&message);
                    false
                })
        }
        None => false,
    };
    runlog::info("Test has ended");
    if let Some(session) = session {
        let stopped = shared.interrupted() || shared.auto_stopped() || !problems.is_empty();
        session.finish(failures.is_empty() && !stopped).await;
    }
    if !failures.is_empty() {
        Outcome::ResultsNotWritten
    } else if shared.interrupted() {
        Outcome::Interrupted
    } else if shared.auto_stopped() {
        Outcome::AutoStopped
    } else if !problems.is_empty() {
        Outcome::BadInput
    } else if criteria_failed {
        Outcome::CriteriaFailed
    } else {
        Outcome::Completed
    }
}

/// The run's properties plus those JMeter sets when a test starts (now, or the start
/// time the run waits for).
fn start_properties(mut props: HashMap<String, String>, start_ms: Option<i64>) -> Properties {
    use chrono::TimeZone;
    let now = start_ms
        .and_then(|ms| chrono::Local.timestamp_millis_opt(ms).single())
        .unwrap_or_else(chrono::Local::now);
    let ms = now.timestamp_millis().to_string();
    props.insert("START.MS".into(), ms.clone());
    props.insert("START.YMD".into(), now.format("%Y%m%d").to_string());
    props.insert("START.HMS".into(), now.format("%H%M%S").to_string());
    props.insert("TESTSTART.MS".into(), ms);
    Properties::from_map(props)
}

/// Runs [`drain`] on a thread of its own: formatting and writing results then runs beside
/// the users instead of taking turns with them on the workers (with one busy user, a
/// third of its thread's time went to the sinks). The answer is the sinks' failures;
/// `on_failure` hears of each as it happens.
fn spawn_drain(
    receiver: mpsc::Receiver<Batch>,
    sinks: Vec<Box<dyn Sink>>,
    on_failure: Box<dyn FnMut(&str) + Send>,
) -> tokio::sync::oneshot::Receiver<Vec<String>> {
    let (done, finished) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("jmxr-results".to_string())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_time()
                .build()
                .expect("a runtime for the results thread");
            let _ = done.send(runtime.block_on(drain(receiver, sinks, on_failure)));
        })
        .expect("the results thread starts");
    finished
}

/// Most batches (of up to `USER_BATCH` samples) taken off the bus per wake-up of the sink
/// task.
const DRAIN_BATCHES: usize = 64;
/// Below this many samples per wake-up, the sink task rests before looking again.
const SMALL_BATCH: usize = 64;
/// How long the sink task rests after a small batch: long enough for samples to pile up
/// (the bus holds far more than arrive meanwhile), short enough to keep files current.
const DRAIN_REST: Duration = Duration::from_millis(2);
/// Longest a sample waits in a sink's buffer: files stay current, and a file that can no
/// longer be written is noticed within this time.
const FLUSH_EVERY: Duration = Duration::from_millis(500);

/// The sinks and which of them failed.
struct Sinks {
    sinks: Vec<Box<dyn Sink>>,
    failed: Vec<bool>,
    failures: Vec<String>,
    on_failure: Box<dyn FnMut(&str) + Send>,
    /// What a failure does to the run: it stops, unless it already ended.
    consequence: &'static str,
}

impl Sinks {
    /// Applies `step` to every sink still working; a sink that fails is reported once and
    /// skipped afterwards, so the others still get every sample.
    fn each(&mut self, mut step: impl FnMut(&mut dyn Sink) -> std::io::Result<()>) {
        for (i, sink) in self.sinks.iter_mut().enumerate() {
            if self.failed[i] {
                continue;
            }
            if let Err(err) = step(sink.as_mut()) {
                self.failed[i] = true;
                let message = format!("a result writer failed: {err}{}", self.consequence);
                (self.on_failure)(&message);
                self.failures.push(message);
            }
        }
    }
}

/// Feeds every sample to every sink; flushes at least every [`FLUSH_EVERY`]; finishes
/// the sinks when the bus closes. The bus is drained to its end even after a failure, so
/// users never wait on it while the run stops.
async fn drain(
    mut receiver: mpsc::Receiver<Batch>,
    sinks: Vec<Box<dyn Sink>>,
    on_failure: Box<dyn FnMut(&str) + Send>,
) -> Vec<String> {
    let mut sinks = Sinks {
        failed: vec![false; sinks.len()],
        sinks,
        failures: Vec::new(),
        on_failure,
        consequence: "; stopping the run",
    };
    // Events are taken in batches: one wake-up of this task serves every sample that
    // arrived meanwhile, which keeps the bus off the critical path at high rates.
    let mut batches = Vec::with_capacity(DRAIN_BATCHES);
    let mut flushed = std::time::Instant::now();
    loop {
        let received =
            tokio::time::timeout(FLUSH_EVERY, receiver.recv_many(&mut batches, DRAIN_BATCHES))
                .await;
        match received {
            Ok(0) => break,
            Ok(_) => {
                let taken: usize = batches.iter().map(Batch::len).sum();
                for batch in batches.drain(..) {
                    batch.for_each(|event| sinks.each(|sink| sink.on_sample(&event)));
                }
                // Waiting on the bus when it is nearly empty would wake this task (and
                // a sleeping worker thread) for every sample a user publishes: at high
                // rates that costs more than the writing. Resting a moment instead lets
                // the next wake-up take a whole batch.
                if taken < SMALL_BATCH {
                    tokio::time::sleep(DRAIN_REST).await;
                }
            }
            Err(_) => {}
        }
        if flushed.elapsed() >= FLUSH_EVERY {
            sinks.each(|sink| sink.flush());
            flushed = std::time::Instant::now();
        }
    }
    sinks.consequence = "";
    sinks.each(|sink| sink.finish());
    sinks.failures
}

/// The property that bounds a graceful stop, in milliseconds.
pub const GRACE_PERIOD_PROPERTY: &str = "jmxr.stop.grace_period_ms";
/// How long a graceful stop waits for samples in progress unless the property says
/// otherwise: half of Docker's default 10 s between SIGTERM and SIGKILL, well inside
/// Kubernetes' 30 s, and JMeter's own wait for threads to stop (5 s).
pub const DEFAULT_GRACE_PERIOD_MS: i64 = 5000;
/// How long users get to list the samples they are in before the stop says what it
/// waits for.
const LISTING_TIME: Duration = Duration::from_millis(100);

/// First Ctrl-C or SIGTERM: users start no new sample and finish the one in progress,
/// for at most the grace period; the stop says which samples it waits for. After the
/// grace period, or at a second signal, samples still in progress end at once and are
/// recorded as interrupted.
async fn watch_signals(run: Arc<RunShared>, signals: std::io::Result<StopSignals>) {
    let Ok(mut signals) = signals else {
        return;
    };
    signals.next().await;
    run.mark_interrupted();
    run.request_stop_from_outside();
    let grace_ms = run
        .props
        .get_i64(GRACE_PERIOD_PROPERTY, DEFAULT_GRACE_PERIOD_MS)
        .max(0);
    let grace = Duration::from_millis(grace_ms as u64);
    let since = std::time::Instant::now();
    let listing = tokio::time::sleep(LISTING_TIME.min(grace));
    let signalled = tokio::select! {
        _ = listing => false,
        _ = signals.next() => true,
    };
    if !signalled {
        let in_flight = run.in_flight.now();
        let message = if in_flight.is_empty() {
            "Stopping: no new samples; no sample is in progress.".to_string()
        } else {
            format!(
                "Stopping: no new samples; waiting up to {} ({GRACE_PERIOD_PROPERTY}) for {}. \
                 Press Ctrl-C again to stop at once.",
                seconds(grace),
                describe(&in_flight, std::time::Instant::now())
            )
        };
        eprintln!("{message}");
        runlog::info(&message);
        let rest = grace.saturating_sub(since.elapsed());
        let signalled = tokio::select! {
            _ = tokio::time::sleep(rest) => false,
            _ = signals.next() => true,
        };
        if !signalled {
            let left = describe(&run.in_flight.now(), std::time::Instant::now());
            let message = format!(
                "Stopping now: the grace period is over; ending {left} (recorded as failed)"
            );
            eprintln!("{message}");
            runlog::info(&message);
            run.request_stop_now();
            return;
        }
    }
    let left = describe(&run.in_flight.now(), std::time::Instant::now());
    let message = format!("Stopping now: ending {left} (recorded as failed)");
    eprintln!("{message}");
    runlog::info(&message);
    run.request_stop_now();
}

/// Ctrl-C and SIGTERM, listened to for the whole run: from before the first user starts
/// (until then a signal ends the process as its default action does) to the end, so no
/// signal falls between two waits.
struct StopSignals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
}

impl StopSignals {
    #[cfg(unix)]
    fn listen() -> std::io::Result<StopSignals> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(StopSignals {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    #[cfg(not(unix))]
    fn listen() -> std::io::Result<StopSignals> {
        Ok(StopSignals {})
    }

    /// Waits for the next signal.
    #[cfg(unix)]
    async fn next(&mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
        }
    }

    /// Waits for the next Ctrl-C; never, if it cannot be listened to.
    #[cfg(not(unix))]
    async fn next(&mut self) {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// `-g`: a dashboard from existing `.jtl` files, merged. Errors leave no report folder.
pub fn report(config: &ReportConfig) -> Outcome {
    let props = Properties::from_map(config.properties.clone());
    // Several files are merged first, as `jmxr merge` would, so both give one dashboard.
    let merged = match config.jtls.len() {
        0 | 1 => Ok(None),
        _ => super::merge::merge_for_report(&config.jtls, &props).map(Some),
    };
    let result = merged.and_then(|merged| {
        let (jtls, mut warnings) = match &merged {
            Some((temp, warnings)) => (vec![temp.0.clone()], warnings.clone()),
            None => (config.jtls.clone(), Vec::new()),
        };
        let sources = config.jtls.iter().map(|p| p.display().to_string());
        crate::report::prepare_output(&config.out, config.force_delete)?;
        warnings.extend(crate::report::generate_from_files_named(
            &jtls,
            sources.collect(),
            &config.out,
            &props,
        )?);
        Ok(warnings)
    });
    match result {
        Ok(warnings) => {
            for warning in warnings {
                eprintln!("warning: {warning}");
            }
            Outcome::Completed
        }
        Err(message) => {
            eprintln!("An error occurred: {message}");
            Outcome::BadInput
        }
    }
}

/// Evaluates a file name template (Result Collector `filename`) outside any user.
pub fn eval_outside_users(template: &crate::expr::Template, shared: &RunShared) -> String {
    let mut vars = Variables::new();
    let thread = ThreadInfo::default();
    let mut rng = <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(0);
    template.eval(&mut shared.eval_context(&mut vars, &thread, &mut rng))
}

/// The sinks of a run: the `-l` file, the plan's Result Collectors (collectors naming
/// the same file share it), and the console summariser.
fn open_sinks(
    plan: &plan::TestPlan,
    config: &RunConfig,
    shared: &Arc<RunShared>,
    console: Box<dyn std::io::Write + Send>,
) -> Result<Vec<Box<dyn Sink>>, String> {
    let props = &shared.props;
    let mut files = JtlFiles::new();
    let mut planned: Vec<(PathBuf, Collector)> = Vec::new();
    if let Some(jtl) = &config.jtl {
        let mut save = SaveConfig::from_properties(props).map_err(|e| e.to_string())?;
        save.functional_mode = plan.functional_mode;
        planned.push((jtl.clone(), Collector::all_samples(save)));
    }
    for spec in &plan.listeners {
        let name = eval_outside_users(&spec.filename, shared);
        let path = resolve_output(&name, &shared.test.plan_dir);
        let mut save = match &spec.save_config {
            Some(fields) => SaveConfig::from_listener(fields, props),
            None => SaveConfig::from_properties(props),
        }
        .map_err(|e| format!("{}: {e}", spec.path))?;
        save.functional_mode = plan.functional_mode;
        planned.push((
            path,
            Collector {
                config: save,
                listener: Some(spec.id),
                errors_only: spec.errors_only,
                success_only: spec.success_only,
            },
        ));
    }
    let report_dir = config.report_dir.as_deref();
    if let Some(dir) = report_dir {
        crate::report::prepare_output(dir, config.force_delete)?;
    }
    if config.force_delete {
        for (path, _) in &planned {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("cannot delete {}: {e}", path.display())),
            }
        }
    }
    if let (Some(_), Some(jtl)) = (report_dir, &config.jtl) {
        if std::fs::metadata(jtl).is_ok_and(|m| m.len() > 0) {
            return Err(format!("Results file:{} is not empty", jtl.display()));
        }
    }
    for (path, collector) in planned {
        files
            .add(&path, collector)
            .map_err(|e| format!("cannot open result file {}: {e}", path.display()))?;
    }
    let mut sinks: Vec<Box<dyn Sink>> = files
        .into_sinks()
        .into_iter()
        .map(|sink| Box::new(sink) as Box<dyn Sink>)
        .collect();
    if let Some(summariser) = Summariser::from_properties(props, console, shared.counts.clone()) {
        sinks.push(Box::new(summariser));
    }
    if let (Some(dir), Some(jtl)) = (report_dir, &config.jtl) {
        let sink = crate::report::ReportSink::new(props, dir.to_path_buf(), jtl)?
            .with_planned_rates(planned_rates(plan, shared));
        sinks.push(Box::new(sink));
    }
    sinks.extend(auto_stop_sinks(plan, shared));
    sinks.extend(super::flexible_file_sinks::open(plan, shared));
    sinks.extend(super::live_sinks::backend_sinks(plan, shared));
    sinks.extend(super::live_sinks::mailer_sinks(plan, shared));
    sinks.extend(super::live_sinks::prometheus_sink(plan, shared));
    Ok(sinks)
}

/// Each arrival-driven group's planned arrivals per second, for the dashboard. The
/// profile counts from the group's start, which for these groups is the run's start.
fn planned_rates(plan: &plan::TestPlan, shared: &RunShared) -> Vec<(String, Vec<(f64, f64)>)> {
    plan.groups
        .iter()
        .map(|group| engine::profile(group, shared))
        .filter(|profile| profile.measure == engine::Measure::Rate && profile.note.is_none())
        .map(|profile| (profile.name, profile.points))
        .collect()
}

/// The pass/fail criteria's sink; a criterion met with `stop` stops the run as the
/// first Ctrl-C does (users finish their current sample).
fn criteria_sink(config: &RunConfig, shared: &Arc<RunShared>) -> (CriteriaSink, Verdicts) {
    let run = shared.clone();
    let stop: StopRun = Box::new(move |message: &str| {
        println!("{message}");
        runlog::info(message);
        run.request_stop();
    });
    CriteriaSink::new(
        config.criteria.clone(),
        config.junit_per_label,
        Box::new(SystemClock),
        shared.counts.clone(),
        stop,
    )
}

/// The plan's AutoStop Listeners, their properties read as the run starts.
fn auto_stop_sinks(plan: &plan::TestPlan, shared: &Arc<RunShared>) -> Vec<Box<dyn Sink>> {
    let mut sinks: Vec<Box<dyn Sink>> = Vec::new();
    for spec in &plan.auto_stops {
        let evaluated = spec
            .values
            .each_ref()
            .map(|t| eval_outside_users(t, shared));
        let mut problems = Vec::new();
        let limits = AutoStopLimits::read(evaluated.each_ref().map(String::as_str), &mut problems);
        for problem in problems {
            let message = format!("{}: {problem}", spec.path);
            eprintln!("warning: {message}");
            runlog::warn(&message);
        }
        let run = shared.clone();
        let stop: StopRun = Box::new(move |message: &str| {
            println!("{message}");
            runlog::info(message);
            run.auto_stop();
        });
        sinks.push(Box::new(AutoStop::new(
            spec.id,
            limits,
            Box::new(SystemClock),
            stop,
        )));
    }
    sinks
}

/// The built-in HTTP mirror on 127.0.0.1 for the length of a run (`--mirror-server`), so a
/// demo or a test plan has a local target without a second process.
async fn start_mirror(port: u16) -> Result<tokio::task::JoinHandle<()>, String> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("cannot start the mirror server on 127.0.0.1:{port}: {e}"))?;
    Ok(tokio::spawn(async move {
        if let Err(e) = crate::samplers::http::mirror::run(listener).await {
            runlog::error(&format!("mirror server stopped: {e}"));
        }
    }))
}
