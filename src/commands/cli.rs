//! The command line: JMeter's own flags (`-n -t plan.jmx -l out.jtl -Jkey=value ...`)
//! and jmxr's subcommands, read in two stages as ripgrep does: [`parse`] turns the
//! arguments into [`RawArgs`] without touching the disk, and [`RawArgs::resolve`]
//! reads property files in JMeter's order of precedence into a [`Command`].

use std::collections::HashMap;

use crate::foundation::properties_file;
use std::path::PathBuf;

/// A property source, kept in command-line order because order decides precedence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PropertySource {
    /// `-q file`
    File(PathBuf),
    /// `-J name=value` (an empty value removes the property)
    Define(String, String),
}

/// Arguments as given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawArgs {
    pub subcommand: Option<String>,
    pub positional: Vec<PathBuf>,
    pub plan: Option<PathBuf>,
    pub jtl: Option<PathBuf>,
    pub log_file: Option<PathBuf>,
    pub property_file: Option<PathBuf>,
    pub sources: Vec<PropertySource>,
    /// `-D` and `-S`, in the order given: Java system properties (`SystemSource`).
    pub system: Vec<PropertySource>,
    pub force_delete: bool,
    pub skip_unsupported: bool,
    pub seed: Option<u64>,
    /// `--mirror-server PORT`: serve the built-in HTTP mirror on 127.0.0.1 during a run.
    pub mirror_port: Option<u16>,
    pub help: bool,
    pub version: bool,
    /// Flags that belong to later work, kept to give a clear message.
    pub not_yet: Vec<String>,
    /// `-G` properties: meant for remote servers, which a local run does not have.
    pub global: Vec<(String, String)>,
    /// `udp-sink` and its options, which are not JMeter's and are read apart.
    pub udp_sink: Option<Vec<String>>,
    /// `migrate` and its arguments, read apart.
    pub migrate: Option<Vec<String>>,
    /// `plan` and its arguments, read apart.
    pub plan_profile: Option<Vec<String>>,
    /// `merge` and its arguments, read apart.
    pub merge: Option<Vec<String>>,
    /// `k8s-job` and its arguments, read apart.
    pub k8s_job: Option<Vec<String>>,
    /// `-g`: results files to build a dashboard from (repeat to merge several).
    pub report_from: Vec<PathBuf>,
    /// `-e`: build the dashboard at the end of the run.
    pub report_at_end: bool,
    /// `-o`: the dashboard folder.
    pub report_out: Option<PathBuf>,
    /// `mirror-server`: host and port to listen on.
    pub mirror: Option<(String, u16)>,
    /// `--criteria TEXT` (repeatable) and `--criteria-file FILE`: pass/fail criteria.
    pub criteria: Vec<String>,
    pub criteria_files: Vec<PathBuf>,
    /// `--junit FILE`: the verdicts as JUnit XML; `--junit-per-label` adds each label.
    pub junit: Option<PathBuf>,
    pub junit_per_label: bool,
    pub no_progress: bool,
    /// `--shard I/N`, `--replicate`, `--start-at TIME`, `--ntp HOST:PORT`.
    pub shard: Option<String>,
    pub replicate: bool,
    pub start_at: Option<String>,
    pub ntp: Option<String>,
}

/// What to do.
#[derive(Debug, Clone)]
pub enum Command {
    Help,
    Version,
    Run(RunConfig),
    Check(CheckConfig),
    /// `jmxr udp-sink`: receive and count a UDP load.
    UdpSink(crate::commands::udp_receiver::SinkConfig),
    /// `jmxr migrate plan.jmx [-o out.jmx]`: a copy of the plan with Rhai scripts.
    Migrate(super::migrate::MigrateConfig),
    /// `jmxr plan plan.jmx [--svg FILE]`: each thread group's planned load over time.
    Plan(super::plan_profile::PlanConfig),
    Report(ReportConfig),
    /// `jmxr merge OUT.jtl IN.jtl…`: shard results merged into one file.
    Merge(super::merge::MergeConfig),
    /// `jmxr k8s-job plan.jmx --shards N`: Kubernetes manifests running the plan as shards.
    K8sJob(super::k8s_job::K8sJobConfig),
    /// `jmxr mirror-server --port N [--host H]`
    MirrorServer {
        host: String,
        port: u16,
    },
}

/// `-g FILE.jtl [-g MORE.jtl ...] -o DIR`: a dashboard from existing results.
#[derive(Debug, Clone)]
pub struct ReportConfig {
    pub jtls: Vec<PathBuf>,
    pub out: PathBuf,
    pub properties: HashMap<String, String>,
    pub force_delete: bool,
}

#[derive(Debug, Clone)]
pub struct RunConfig {
    pub plan: PathBuf,
    pub jtl: Option<PathBuf>,
    pub log_file: Option<PathBuf>,
    pub properties: HashMap<String, String>,
    pub force_delete: bool,
    pub skip_unsupported: bool,
    pub seed: Option<u64>,
    /// `-e -o DIR`: the dashboard folder written at the end of the run.
    pub report_dir: Option<PathBuf>,
    /// `--mirror-server PORT`: the built-in HTTP mirror on 127.0.0.1 for the run's length.
    pub mirror_port: Option<u16>,
    /// Pass/fail criteria, judged live and at the end.
    pub criteria: Vec<crate::results::Criterion>,
    pub junit: Option<PathBuf>,
    /// Judge each label by every criterion that names none.
    pub junit_per_label: bool,
    /// `--no-progress`: no status line even on a terminal.
    pub no_progress: bool,
    /// `--start-at`: epoch ms at which the test starts (on the reference clock).
    pub start_at: Option<i64>,
    /// `--ntp host:port`: the SNTP server the clock is measured against.
    pub ntp: Option<String>,
    /// Java system properties from `-S` files and `-D`: the few jmxr reads are JSSE's
    /// client keystore settings (`javax.net.ssl.keyStore`...).
    pub system: HashMap<String, String>,
}

#[derive(Debug, Clone)]
pub struct CheckConfig {
    pub plans: Vec<PathBuf>,
    pub properties: HashMap<String, String>,
}

/// A command-line mistake, worded for the user.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{0}")]
    Usage(String),
    #[error("cannot read property file {path}: {source}")]
    PropertyFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Options that take a value, by short letter, with their long names.
const VALUE_OPTIONS: &[(char, &str)] = &[
    ('t', "testfile"),
    ('l', "logfile"),
    ('j', "jmeterlogfile"),
    ('p', "propfile"),
    ('q', "addprop"),
    ('J', "jmeterproperty"),
    ('G', "globalproperty"),
    ('D', "systemproperty"),
    ('S', "systemPropertyFile"),
    ('L', "loglevel"),
    ('i', "jmeterlogconf"),
    ('o', "reportoutputfolder"),
    ('g', "reportonly"),
    ('R', "remotestart"),
    ('d', "homedir"),
];

const FLAG_OPTIONS: &[(char, &str)] = &[
    ('n', "nongui"),
    ('f', "forceDeleteResultFile"),
    ('e', "reportatendofloadtests"),
    ('r', "runremote"),
    ('X', "remoteexit"),
    ('h', "help"),
    ('v', "version"),
    ('s', "server"),
];

/// Reads the arguments (without the program name).
pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<RawArgs, CliError> {
    let mut raw = RawArgs::default();
    let mut args = args.into_iter().peekable();
    if args.peek().is_some_and(|first| first == "udp-sink") {
        raw.subcommand = args.next();
        raw.udp_sink = Some(args.collect());
        return Ok(raw);
    }
    if args.peek().is_some_and(|first| first == "plan") {
        raw.subcommand = args.next();
        raw.plan_profile = Some(args.collect());
        return Ok(raw);
    }
    if args.peek().is_some_and(|first| first == "merge") {
        raw.subcommand = args.next();
        raw.merge = Some(args.collect());
        return Ok(raw);
    }
    if args.peek().is_some_and(|first| first == "k8s-job") {
        raw.subcommand = args.next();
        raw.k8s_job = Some(args.collect());
        return Ok(raw);
    }
    if args.peek().is_some_and(|first| first == "migrate") {
        raw.subcommand = args.next();
        raw.migrate = Some(args.collect());
        return Ok(raw);
    }
    if let Some(first) = args.peek() {
        if first == "mirror-server" {
            args.next();
            return parse_mirror(args);
        }
        if matches!(first.as_str(), "check" | "run") {
            raw.subcommand = args.next();
        }
    }
    while let Some(arg) = args.next() {
        if let Some(long) = arg.strip_prefix("--") {
            parse_long(long, &mut args, &mut raw)?;
        } else if arg.len() > 1 && arg.starts_with('-') {
            let mut chars = arg[1..].chars();
            let letter = chars.next().unwrap_or('-');
            let rest: String = chars.collect();
            if FLAG_OPTIONS.iter().any(|(c, _)| *c == letter) && rest.is_empty() {
                apply_flag(letter, &mut raw);
            } else if VALUE_OPTIONS.iter().any(|(c, _)| *c == letter) {
                let value = if rest.is_empty() {
                    args.next()
                        .ok_or_else(|| CliError::Usage(format!("option -{letter} needs a value")))?
                } else {
                    rest
                };
                apply_value(letter, value, &mut raw)?;
            } else {
                return Err(CliError::Usage(format!("Unknown arg: {arg}")));
            }
        } else {
            raw.positional.push(PathBuf::from(arg));
        }
    }
    Ok(raw)
}

/// `mirror-server` options: `--port N` (default 8081, as JMeter's) and `--host H`
/// (default 127.0.0.1: the mirror answers anyone who connects, so loopback unless asked).
fn parse_mirror(args: impl Iterator<Item = String>) -> Result<RawArgs, CliError> {
    let mut raw = RawArgs {
        subcommand: Some("mirror-server".into()),
        mirror: Some(("127.0.0.1".into(), 8081)),
        ..RawArgs::default()
    };
    let mut args = args;
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| CliError::Usage(format!("{arg} needs a value")))
        };
        let Some((host, port)) = raw.mirror.as_mut() else {
            break;
        };
        match arg.as_str() {
            "--port" => {
                let text = value()?;
                *port = text
                    .parse()
                    .map_err(|_| CliError::Usage(format!("invalid port {text:?}")))?;
            }
            "--host" => *host = value()?,
            "-h" | "--help" => raw.help = true,
            _ => return Err(CliError::Usage(format!("Unknown arg: {arg}"))),
        }
    }
    Ok(raw)
}

fn parse_long(
    long: &str,
    args: &mut impl Iterator<Item = String>,
    raw: &mut RawArgs,
) -> Result<(), CliError> {
    let (name, inline) = match long.split_once('=') {
        Some((n, v)) if !n.is_empty() => (n, Some(v.to_string())),
        _ => (long, None),
    };
    match name {
        "skip-unsupported" => raw.skip_unsupported = true,
        "junit-per-label" => raw.junit_per_label = true,
        "no-progress" => raw.no_progress = true,
        "replicate" => raw.replicate = true,
        "shard" | "start-at" | "ntp" => {
            let value = inline
                .or_else(|| args.next())
                .ok_or_else(|| CliError::Usage(format!("--{name} needs a value")))?;
            match name {
                "shard" => raw.shard = Some(value),
                "start-at" => raw.start_at = Some(value),
                _ => raw.ntp = Some(value),
            }
        }
        "criteria" | "criteria-file" | "junit" => {
            let value = inline
                .or_else(|| args.next())
                .ok_or_else(|| CliError::Usage(format!("--{name} needs a value")))?;
            match name {
                "criteria" => raw.criteria.push(value),
                "criteria-file" => raw.criteria_files.push(PathBuf::from(value)),
                _ => raw.junit = Some(PathBuf::from(value)),
            }
        }
        "mirror-server" => {
            let value = inline
                .or_else(|| args.next())
                .ok_or_else(|| CliError::Usage("--mirror-server needs a port".into()))?;
            raw.mirror_port = Some(value.parse().map_err(|_| {
                CliError::Usage(format!("--mirror-server needs a port, not {value:?}"))
            })?);
        }
        "seed" => {
            let value = inline
                .or_else(|| args.next())
                .ok_or_else(|| CliError::Usage("--seed needs a number".into()))?;
            raw.seed =
                Some(value.parse().map_err(|_| {
                    CliError::Usage(format!("--seed needs a number, not {value:?}"))
                })?);
        }
        _ => {
            if let Some((c, _)) = FLAG_OPTIONS.iter().find(|(_, l)| *l == name) {
                apply_flag(*c, raw);
            } else if let Some((c, _)) = VALUE_OPTIONS.iter().find(|(_, l)| *l == name) {
                let value = inline
                    .or_else(|| args.next())
                    .ok_or_else(|| CliError::Usage(format!("option --{name} needs a value")))?;
                apply_value(*c, value, raw)?;
            } else {
                return Err(CliError::Usage(format!("Unknown arg: --{long}")));
            }
        }
    }
    Ok(())
}

fn apply_flag(letter: char, raw: &mut RawArgs) {
    match letter {
        'f' => raw.force_delete = true,
        'h' => raw.help = true,
        'v' => raw.version = true,
        'e' => raw.report_at_end = true,
        'r' => raw.not_yet.push("-r (remote start)".into()),
        'X' => raw.not_yet.push("-X (remote exit)".into()),
        's' => raw.not_yet.push("-s (server mode)".into()),
        _ => {}
    }
}

fn name_value(value: &str) -> (String, String) {
    match value.split_once('=') {
        Some((n, v)) => (n.to_string(), v.to_string()),
        None => (value.to_string(), String::new()),
    }
}

fn apply_value(letter: char, value: String, raw: &mut RawArgs) -> Result<(), CliError> {
    match letter {
        't' => raw.plan = Some(PathBuf::from(value)),
        'l' => raw.jtl = Some(PathBuf::from(value)),
        'j' => raw.log_file = Some(PathBuf::from(value)),
        'p' => raw.property_file = Some(PathBuf::from(value)),
        'q' => raw.sources.push(PropertySource::File(PathBuf::from(value))),
        'J' => {
            let (n, v) = name_value(&value);
            raw.sources.push(PropertySource::Define(n, v));
        }
        'G' => raw.global.push(name_value(&value)),
        'D' => {
            let (n, v) = name_value(&value);
            raw.system.push(PropertySource::Define(n, v));
        }
        'S' => raw.system.push(PropertySource::File(PathBuf::from(value))),
        'o' => raw.report_out = Some(PathBuf::from(value)),
        'g' => raw.report_from.push(PathBuf::from(value)),
        'R' => raw.not_yet.push("-R (remote start)".into()),
        // Logging configuration and home folder have no equivalent to set.
        _ => {}
    }
    Ok(())
}

impl RawArgs {
    /// Reads property files and decides the command.
    pub fn resolve(self) -> Result<Command, CliError> {
        if self.help {
            return Ok(Command::Help);
        }
        if self.version {
            return Ok(Command::Version);
        }
        if let Some(args) = &self.migrate {
            return super::migrate::parse_args(args).map(Command::Migrate);
        }
        if let Some(args) = &self.merge {
            return super::merge::parse_args(args).map(Command::Merge);
        }
        if let Some(args) = &self.k8s_job {
            return super::k8s_job::parse_args(args).map(Command::K8sJob);
        }
        if let Some(args) = &self.plan_profile {
            return super::plan_profile::parse_args(args).map(Command::Plan);
        }
        if let Some(args) = &self.udp_sink {
            return crate::commands::udp_receiver::parse_args(args)
                .map(Command::UdpSink)
                .map_err(CliError::Usage);
        }
        if !self.not_yet.is_empty() {
            return Err(CliError::Usage(format!(
                "not supported: {}; jmxr runs distributed tests as shards (--shard I/N) on the machines' schedulers and merges their results; see docs/distributed.md",
                self.not_yet.join(", ")
            )));
        }
        if let Some((host, port)) = self.mirror.clone() {
            return Ok(Command::MirrorServer { host, port });
        }
        let properties = self.properties()?;
        if !self.report_from.is_empty() {
            return self.report_config(properties).map(Command::Report);
        }
        if self.subcommand.as_deref() == Some("check") {
            let mut plans = self.positional.clone();
            plans.extend(self.plan.clone());
            if plans.is_empty() {
                return Err(CliError::Usage(
                    "check needs a plan: jmxr check plan.jmx".into(),
                ));
            }
            return Ok(Command::Check(CheckConfig { plans, properties }));
        }
        let plan = self
            .plan
            .clone()
            .or_else(|| self.positional.first().cloned())
            .ok_or_else(|| {
                CliError::Usage("Non-GUI runs require a test plan (-t plan.jmx)".into())
            })?;
        let report_dir = self.report_dir()?;
        let criteria =
            super::criteria::read(&self.criteria, &self.criteria_files).map_err(CliError::Usage)?;
        let mut properties = properties;
        super::shard_options::apply(&self, &mut properties, |n| std::env::var(n).ok())
            .map_err(CliError::Usage)?;
        let start_at = self
            .start_at
            .as_deref()
            .map(super::distributed::parse_start_at)
            .transpose()
            .map_err(CliError::Usage)?;
        let system = self.system_properties()?;
        Ok(Command::Run(RunConfig {
            system,
            start_at,
            ntp: self.ntp,
            plan,
            jtl: self.jtl,
            log_file: self.log_file,
            properties,
            force_delete: self.force_delete,
            skip_unsupported: self.skip_unsupported,
            seed: self.seed,
            report_dir,
            mirror_port: self.mirror_port,
            criteria,
            junit: self.junit,
            junit_per_label: self.junit_per_label,
            no_progress: self.no_progress,
        }))
    }

    /// JMeter's rules for `-g`: not with a run (`-t`, `-l`, `-e`); jmxr also needs `-o`,
    /// as it has no JMeter home to default to.
    fn report_config(&self, properties: HashMap<String, String>) -> Result<ReportConfig, CliError> {
        if self.plan.is_some() || self.jtl.is_some() || self.report_at_end {
            return Err(CliError::Usage(
                "-g builds a report from existing results; it cannot be combined with -t, -l or -e"
                    .into(),
            ));
        }
        let out = self
            .report_out
            .clone()
            .ok_or_else(|| CliError::Usage("Option -g requires -o (the report folder)".into()))?;
        Ok(ReportConfig {
            jtls: self.report_from.clone(),
            out,
            properties,
            force_delete: self.force_delete,
        })
    }

    /// `-e` needs `-l` (as in JMeter) and `-o`.
    fn report_dir(&self) -> Result<Option<PathBuf>, CliError> {
        if !self.report_at_end {
            return Ok(None);
        }
        if self.jtl.is_none() {
            return Err(CliError::Usage("Option -e requires -l option".into()));
        }
        self.report_out
            .clone()
            .map(Some)
            .ok_or_else(|| CliError::Usage("Option -e requires -o (the report folder)".into()))
    }

    /// JMeter's precedence: `-p` file (or the shipped defaults), `user.properties`,
    /// then `-q` files and `-J` definitions in command-line order.
    fn properties(&self) -> Result<HashMap<String, String>, CliError> {
        let mut props = HashMap::new();
        match &self.property_file {
            Some(path) => properties_file::load_into(path, &mut props).map_err(|source| {
                CliError::PropertyFile {
                    path: path.clone(),
                    source,
                }
            })?,
            None => props.extend(
                properties_file::SHIPPED_DEFAULTS
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string())),
            ),
        }
        let user_file = props
            .get("user.properties")
            .cloned()
            .unwrap_or_else(|| "user.properties".into());
        let user_path = PathBuf::from(&user_file);
        if user_path.is_file() {
            properties_file::load_into(&user_path, &mut props).map_err(|source| {
                CliError::PropertyFile {
                    path: user_path.clone(),
                    source,
                }
            })?;
        }
        for source in &self.sources {
            match source {
                PropertySource::File(path) => properties_file::load_into(path, &mut props)
                    .map_err(|source| CliError::PropertyFile {
                        path: path.clone(),
                        source,
                    })?,
                PropertySource::Define(name, value) if value.is_empty() => {
                    props.remove(name);
                }
                PropertySource::Define(name, value) => {
                    props.insert(name.clone(), value.clone());
                }
            }
        }
        Ok(props)
    }

    /// The Java system properties of `-S` files and `-D` definitions, later ones winning.
    fn system_properties(&self) -> Result<HashMap<String, String>, CliError> {
        let mut props = HashMap::new();
        for source in &self.system {
            match source {
                PropertySource::File(path) => properties_file::load_into(path, &mut props)
                    .map_err(|source| CliError::PropertyFile {
                        path: path.clone(),
                        source,
                    })?,
                PropertySource::Define(name, value) => {
                    props.insert(name.clone(), value.clone());
                }
            }
        }
        Ok(props)
    }
}

pub const USAGE: &str = "\
jmxr runs Apache JMeter test plans natively.

Usage:
  jmxr -n -t plan.jmx [-l results.jtl] [-j run.log] [-Jname=value ...] [-q extra.properties] [-p jmeter.properties] [-f]
  jmxr -n -t plan.jmx -l results.jtl -e -o report-folder [-f]
  jmxr -g results.jtl [-g more.jtl ...] -o report-folder [-f]
  jmxr check plan.jmx [more.jmx ...]
  jmxr merge [-f] OUT.jtl IN.jtl [IN.jtl ...]   shard results merged into one time-ordered file
  jmxr k8s-job plan.jmx --shards N [--start-at TIME] [--image IMAGE] [--namespace NS]
               [--ntp HOST:PORT] [--results-pvc CLAIM]   Kubernetes ConfigMap and Indexed Job for N shards
  jmxr migrate plan.jmx [-o out.jmx] [-Jname=value ...]   copy the plan with its scripts translated to Rhai
  jmxr plan plan.jmx [--svg chart.svg] [-Jname=value ...]   each thread group's planned users or arrival rate over time, without running
  jmxr udp-sink --port N [--host 127.0.0.1] [--duration S] [--report FILE.csv] [--sequence] [--jtl sender.jtl]
  jmxr mirror-server [--port 8081] [--host 127.0.0.1]   echo HTTP requests as JMeter's mirror server

JMeter options:
  -n, --nongui                  accepted (jmxr is always headless)
  -t, --testfile FILE           the test plan
  -l, --logfile FILE            write samples to FILE (CSV as JMeter 5.6.3 writes it; appends if it exists)
  -j, --jmeterlogfile FILE      write the run log to FILE
  -J, --jmeterproperty N=V      set a JMeter property (empty value removes it)
  -q, --addprop FILE            read more JMeter properties from FILE
  -p, --propfile FILE           use FILE instead of the shipped jmeter.properties defaults
  -G, --globalproperty N=V      accepted; meant for remote servers, not set locally
  -D, --systemproperty N=V      set a Java system property; jmxr reads JSSE's client keystore
                                (javax.net.ssl.keyStore, keyStorePassword, keyStoreType)
  -S, --systemPropertyFile FILE read Java system properties from FILE
  -f, --forceDeleteResultFile   delete result files before the run, and empty the -o folder
  -e, --reportatendofloadtests  build the HTML dashboard after the run (needs -l and -o)
  -g, --reportonly FILE         build the HTML dashboard from a CSV .jtl (repeat to merge files)
  -o, --reportoutputfolder DIR  dashboard folder: must be missing or empty unless -f
  -L, -i                        accepted; logging is configured by -j
jmxr options:
  --skip-unsupported            run even when the plan holds elements jmxr cannot execute
  --seed N                      make random timers, controllers and functions reproducible
  --mirror-server PORT          serve the built-in HTTP mirror on 127.0.0.1:PORT while the plan runs
  --criteria TEXT               a pass/fail criterion in Taurus' syntax, e.g. 'p95>300ms' or
                                'avg-rt of Log in>150ms for 10s, stop as failed' (repeatable)
  --criteria-file FILE          pass/fail criteria, one a line
  --junit FILE                  write the criteria's verdicts as JUnit XML
  --junit-per-label             also judge each label by every criterion that names none
  --shard I/N                   run shard I of N: every thread group's users and rate targets
                                divided (also read from Kubernetes Indexed Jobs and Slurm arrays);
                                -Jjmxr.shard.csv=partition splits shared CSV files between shards
  --replicate                   with --shard: every shard runs the whole plan (as JMeter's -R)
  --start-at TIME               wait until TIME (RFC 3339 or epoch ms) on the reference clock
  --ntp HOST:PORT               measure the clock against this SNTP server at start and end
                                (or http://HOST/: against a web server's Date header)
  --no-progress                 no live status line on a terminal (it is never shown when
                                stdout is not a terminal)
  -Jjmxr.report.exact_percentiles=true
                                dashboard percentiles over every sample instead of JMeter's
                                20,000-sample window (jmeter.reportgenerator.statistic_window)
  -Jjmxr.stop.grace_period_ms=N how long the first Ctrl-C or SIGTERM lets samples in progress
                                finish (default 5000); then, or at a second signal, they end
                                at once and are recorded as failed

Exit codes:
  0  the run completed (failed samples do not change this, as in JMeter)
  1  bad input: command line, plan file, property file
  2  the plan holds unsupported elements (listed), or `check` found some
  3  the run was stopped by Ctrl-C or SIGTERM
  4  a jp@gc AutoStop Listener stopped the run
  5  a pass/fail criterion failed
";

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> RawArgs {
        parse(line.split_whitespace().map(String::from)).unwrap()
    }

    #[test]
    fn reads_jmeter_flags_joined_and_separate() {
        let raw = args("-n -t plan.jmx -l out.jtl -Jthreads=5 -J rampup=2 -q extra.properties -f");
        assert_eq!(raw.plan, Some(PathBuf::from("plan.jmx")));
        assert_eq!(raw.jtl, Some(PathBuf::from("out.jtl")));
        assert!(raw.force_delete);
        assert_eq!(
            raw.sources,
            vec![
                PropertySource::Define("threads".into(), "5".into()),
                PropertySource::Define("rampup".into(), "2".into()),
                PropertySource::File(PathBuf::from("extra.properties")),
            ]
        );
        let raw = args("--nongui --testfile=p.jmx --jmeterproperty a=b");
        assert_eq!(raw.plan, Some(PathBuf::from("p.jmx")));
    }

    #[test]
    fn later_definitions_win_and_empty_removes() {
        let raw = args("-t p.jmx -Ja=1 -Ja=2 -Jsummariser.name=");
        let Command::Run(config) = raw.resolve().unwrap() else {
            panic!("expected a run");
        };
        assert_eq!(config.properties["a"], "2");
        assert!(!config.properties.contains_key("summariser.name"));
        assert_eq!(config.properties["sampleresult.timestamp.start"], "true");
    }

    #[test]
    fn later_flags_are_refused_clearly() {
        let err = args("-n -t p.jmx -l x.jtl -r").resolve().unwrap_err();
        assert!(err.to_string().contains("-r"), "{err}");
        assert!(parse(["-Z".to_string()]).is_err());
    }

    #[test]
    fn udp_sink_takes_its_own_options() {
        let Command::UdpSink(config) = args("udp-sink --port 9 --duration 1").resolve().unwrap()
        else {
            panic!("expected udp-sink");
        };
        assert_eq!(config.port, 9);
    }

    #[test]
    fn check_takes_plans() {
        let Command::Check(config) = args("check a.jmx b.jmx").resolve().unwrap() else {
            panic!("expected check");
        };
        assert_eq!(config.plans.len(), 2);
    }

    #[test]
    fn report_flags_follow_jmeter_rules() {
        let Command::Report(config) = args("-g a.jtl -g b.jtl -o out -f").resolve().unwrap() else {
            panic!("expected a report");
        };
        assert_eq!(config.jtls.len(), 2);
        assert!(config.force_delete);
        let err = args("-n -t p.jmx -e -o out").resolve().unwrap_err();
        assert!(
            err.to_string().contains("Option -e requires -l option"),
            "{err}"
        );
        assert!(args("-g a.jtl").resolve().is_err());
        assert!(args("-g a.jtl -l x.jtl -o out").resolve().is_err());
        let Command::Run(run) = args("-n -t p.jmx -l x.jtl -e -o out").resolve().unwrap() else {
            panic!("expected a run");
        };
        assert_eq!(run.report_dir, Some(PathBuf::from("out")));
    }
}
