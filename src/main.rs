//! The `jmxr` binary: builds the runtime, reads the command line, runs, exits.

use std::process::ExitCode;

use jmxr::commands::cli::{self, Command};
use jmxr::commands::run::{self, Outcome};

#[cfg(feature = "mimalloc")]
mod allocator;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: allocator::MiMalloc = allocator::MiMalloc;

fn main() -> ExitCode {
    let command = match cli::parse(std::env::args().skip(1)).and_then(|raw| raw.resolve()) {
        Ok(command) => command,
        Err(err) => {
            eprintln!("An error occurred: {err}");
            eprintln!("{}", cli::USAGE);
            return ExitCode::from(Outcome::BadInput.exit_code());
        }
    };
    // Socket samplers hold one socket per virtual user; the default soft limit is low.
    if matches!(command, Command::Run(_) | Command::UdpSink(_)) {
        jmxr::foundation::fd_limit::raise_open_file_limit();
    }
    let outcome = match command {
        Command::Help => {
            print!("{}", cli::USAGE);
            Outcome::Completed
        }
        Command::Version => {
            println!("jmxr {}", env!("CARGO_PKG_VERSION"));
            Outcome::Completed
        }
        Command::Check(config) => run::check(&config, &mut std::io::stdout()),
        Command::UdpSink(config) => {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => runtime,
                Err(err) => {
                    eprintln!("An error occurred: cannot start the runtime: {err}");
                    return ExitCode::from(Outcome::BadInput.exit_code());
                }
            };
            match runtime.block_on(jmxr::commands::udp_receiver::run(config)) {
                Ok(()) => Outcome::Completed,
                Err(err) => {
                    eprintln!("An error occurred: {err}");
                    Outcome::BadInput
                }
            }
        }
        Command::Report(config) => run::report(&config),
        Command::Merge(config) => jmxr::commands::merge::run(&config),
        Command::K8sJob(config) => {
            if jmxr::commands::k8s_job::run(&config, &mut std::io::stdout()) {
                Outcome::Completed
            } else {
                Outcome::BadInput
            }
        }
        Command::Plan(config) => {
            if jmxr::commands::plan_profile::run(&config, &mut std::io::stdout()) {
                Outcome::Completed
            } else {
                Outcome::BadInput
            }
        }
        Command::Migrate(config) => {
            if jmxr::commands::migrate::run(&config, &mut std::io::stdout()) {
                Outcome::Completed
            } else {
                Outcome::BadInput
            }
        }
        Command::MirrorServer { host, port } => match build_runtime() {
            Ok(runtime) => match runtime.block_on(jmxr::samplers::http::mirror::serve(&host, port))
            {
                Ok(()) => Outcome::Completed,
                Err(err) => {
                    eprintln!("An error occurred: mirror server on {host}:{port}: {err}");
                    Outcome::BadInput
                }
            },
            Err(err) => {
                eprintln!("An error occurred: cannot start the runtime: {err}");
                Outcome::BadInput
            }
        },
        Command::Run(config) => {
            let workers = match worker_threads(&config.properties) {
                Ok(workers) => workers,
                Err(message) => {
                    eprintln!("An error occurred: {message}");
                    return ExitCode::from(Outcome::BadInput.exit_code());
                }
            };
            let event_interval =
                match event_interval(&config.properties, || run::plan_uses_jdbc(&config.plan)) {
                    Ok(interval) => interval,
                    Err(message) => {
                        eprintln!("An error occurred: {message}");
                        return ExitCode::from(Outcome::BadInput.exit_code());
                    }
                };
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            if let Some(workers) = workers {
                builder.worker_threads(workers);
            }
            builder.event_interval(event_interval);
            let runtime = match builder.enable_all().build() {
                Ok(runtime) => runtime,
                Err(err) => {
                    eprintln!("An error occurred: cannot start the runtime: {err}");
                    return ExitCode::from(Outcome::BadInput.exit_code());
                }
            };
            runtime.block_on(run::run(config))
        }
    };
    ExitCode::from(outcome.exit_code())
}

/// The property that sets how many threads run the virtual users (default: one per core).
const WORKER_THREADS: &str = "jmxr.worker_threads";

/// Threads for the users' runtime, when the run's properties choose them. Fewer threads
/// than cores pay off when the target runs on the same machine and needs the rest.
fn worker_threads(
    properties: &std::collections::HashMap<String, String>,
) -> Result<Option<usize>, String> {
    whole_number_above_zero(properties, WORKER_THREADS)
}

/// A runtime property's value, when set: a whole number above 0, or an error naming it.
fn whole_number_above_zero<N: std::str::FromStr + PartialOrd + Default>(
    properties: &std::collections::HashMap<String, String>,
    name: &str,
) -> Result<Option<N>, String> {
    match properties.get(name) {
        None => Ok(None),
        Some(value) => match value.trim().parse::<N>() {
            Ok(n) if n > N::default() => Ok(Some(n)),
            _ => Err(format!(
                "property {name} must be a whole number above 0, not \"{value}\""
            )),
        },
    }
}

/// The property that sets how many tasks a worker thread runs between two looks at the
/// sockets and timers.
const EVENT_INTERVAL: &str = "jmxr.event_interval";

/// Tokio's own default: a busy worker runs 61 tasks before it looks for sockets that
/// became ready, and wakes an idle worker to share its queue only when it looks.
const TOKIO_EVENT_INTERVAL: u32 = 61;

/// For plans with JDBC elements: look after every task. A PostgreSQL statement passes
/// between two tasks (the user's and its connection's), and with tokio's default one
/// worker ran both for every user while the other slept; looking after every task hands
/// the waiting ones to the idle worker at once. On the 20-user PostgreSQL benchmark that
/// is 25-35 % more queries per second at the same CPU per query. The look costs one
/// non-blocking poll of the sockets per task, which other plans do not earn back: 4-5 %
/// fewer WebSocket echoes per second, 15-26 % more CPU for 100,000 users waking once a
/// second, HTTP unchanged (docs/performance.md).
const DATABASE_EVENT_INTERVAL: u32 = 1;

/// The runtime's event interval: the property's, or the default for the plan.
fn event_interval(
    properties: &std::collections::HashMap<String, String>,
    plan_uses_jdbc: impl FnOnce() -> bool,
) -> Result<u32, String> {
    Ok(match whole_number_above_zero(properties, EVENT_INTERVAL)? {
        Some(interval) => interval,
        None if plan_uses_jdbc() => DATABASE_EVENT_INTERVAL,
        None => TOKIO_EVENT_INTERVAL,
    })
}

fn build_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
}
