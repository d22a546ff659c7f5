//! JMeter's Backend Listener: live metrics of the samples in its scope sent every few
//! seconds to InfluxDB ([`influxdb`]) or Graphite ([`graphite`]) while the run goes on.
//!
//! The listener is a sink on the results thread, like the `.jtl` writers. Each sample in
//! its scope is added to the per-label numbers of [`metric`] under a lock it shares with
//! a sender thread of its own; adding is a few stores, so the results thread (and so the
//! users, who only wait when the bus is full) never waits on the network. The sender
//! wakes on JMeter's fixed period (`backend_influxdb.send_interval`, 5 s, from the start;
//! `backend_graphite.send_interval`, 1 s, after one period), takes the interval's numbers
//! out under the lock, and formats and sends them outside it ([`transport`]), with
//! JMeter's time limits. What is waiting to go is one interval's numbers, whatever the
//! rate of samples, so nothing grows while a server is down: that interval is dropped,
//! as JMeter drops it, with one warning for the run (the run log records the rest). At
//! the end the sender makes its last send (with the end annotation for InfluxDB) and
//! stops.

pub mod graphite;
pub mod influxdb;
pub mod metric;
pub mod transport;

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use self::graphite::{GraphiteLines, GraphiteSettings};
use self::influxdb::{InfluxLines, InfluxSettings};
use self::metric::{SamplerMetric, Snapshot, UserMetric, WindowSettings};
use self::transport::{HttpTarget, Target, TcpTarget};
use super::{SampleEvent, Sink};
use crate::foundation::fast_hash::FastMap;
use crate::foundation::java_format::java_float;
use crate::foundation::properties::Properties;
use crate::plan::tree::{GRAPHITE_CLIENT, INFLUXDB_CLIENT};
use crate::runlog;
use crate::sample::SampleResult;
use crate::user_state::ThreadCounts;

/// A listener's parameters as evaluated when the run starts, in plan order (the first
/// of two rows with one name wins, as in JMeter's `getArgumentsAsMap`).
#[derive(Debug, Clone, Default)]
pub struct Parameters {
    rows: Vec<(String, String)>,
}

impl Parameters {
    pub fn new(rows: Vec<(String, String)>) -> Parameters {
        Parameters { rows }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.rows
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Java's `Boolean.parseBoolean` when present.
    pub fn flag(&self, name: &str, default: bool) -> bool {
        self.get(name)
            .map_or(default, |v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// Each name once, with its first value.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.rows
            .iter()
            .enumerate()
            .filter(|(i, (name, _))| !self.rows[..*i].iter().any(|(n, _)| n == name))
            .map(|(_, (n, v))| (n.as_str(), v.as_str()))
    }
}

/// One asked-for percentile.
#[derive(Debug, Clone, PartialEq)]
pub struct Percentile {
    /// As JMeter holds it, a `float`.
    pub value: f32,
    /// Java's `Float.toString` of it (`90.0`), InfluxDB's field name after `pct`.
    pub float_text: String,
    /// `DecimalFormat("0.##")` of it (`90`, `99.9`), Graphite's name after `pct`.
    pub key: String,
}

impl Percentile {
    /// A `;`-separated list; entries that are not numbers in (0, 100] are reported and
    /// left out (JMeter logs the first kind and fails its sends on the second). Two
    /// entries written alike once rounded keep one.
    pub fn list(text: &str, problems: &mut Vec<String>) -> Vec<Percentile> {
        let mut list: Vec<Percentile> = Vec::new();
        for entry in text.split(';').map(str::trim).filter(|e| !e.is_empty()) {
            let number = entry.trim_end_matches(['f', 'F', 'd', 'D']);
            let value = match number.parse::<f32>() {
                Ok(v) if v > 0.0 && v <= 100.0 => v,
                Ok(_) => {
                    problems.push(format!(
                        "percentile {entry} is not above 0 and at most 100; it is left out"
                    ));
                    continue;
                }
                Err(_) => {
                    problems.push(format!(
                        "percentile {entry:?} is not a number; it is left out"
                    ));
                    continue;
                }
            };
            let percentile = Percentile {
                value,
                float_text: java_float(value),
                key: two_decimals(value),
            };
            match list.iter_mut().find(|p| p.key == percentile.key) {
                Some(known) => *known = percentile,
                None => list.push(percentile),
            }
        }
        list
    }
}

/// `DecimalFormat("0.##")`: at most two decimals, rounded half to even, no trailing zeros.
fn two_decimals(value: f32) -> String {
    let text = format!("{:.2}", f64::from(value));
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Which labels get numbers of their own besides the run's total.
enum LabelFilter {
    /// `summaryOnly`: none.
    None,
    /// InfluxDB's `samplersRegex`: the expression found anywhere in the label.
    Find(fancy_regex::Regex),
    /// Graphite's `samplersList` with `useRegexpForSamplersList`: the whole label (Java's
    /// `matches`), compiled anchored.
    Whole(fancy_regex::Regex),
    /// Graphite's `samplersList`: one of the names.
    Names(Vec<String>),
}

impl LabelFilter {
    fn wants(&self, label: &str) -> bool {
        match self {
            LabelFilter::None => false,
            LabelFilter::Find(regex) | LabelFilter::Whole(regex) => {
                regex.is_match(label).unwrap_or(false)
            }
            LabelFilter::Names(names) => names.iter().any(|n| n == label),
        }
    }
}

/// What the results thread and the sender share.
struct Aggregate {
    windows: WindowSettings,
    filter: LabelFilter,
    /// Per label: its index in `labels`, or `None` when the filter leaves it out (the
    /// decision is made once per label).
    index: FastMap<Arc<str>, Option<usize>>,
    labels: Vec<(Arc<str>, SamplerMetric)>,
    cumulated: SamplerMetric,
    users: UserMetric,
}

impl Aggregate {
    fn new(windows: WindowSettings, filter: LabelFilter) -> Aggregate {
        Aggregate {
            windows,
            filter,
            index: FastMap::default(),
            labels: Vec::new(),
            cumulated: SamplerMetric::new(windows),
            users: UserMetric::new(windows),
        }
    }

    fn add(&mut self, sample: &SampleResult, active: u64) {
        self.users.add(active);
        if !matches!(self.filter, LabelFilter::None) {
            let slot = match self.index.get(&sample.label) {
                Some(slot) => *slot,
                None => self.new_label(&sample.label),
            };
            if let Some(i) = slot {
                self.labels[i].1.add(sample, false);
            }
        }
        self.cumulated.add(sample, true);
    }

    #[cold]
    fn new_label(&mut self, label: &Arc<str>) -> Option<usize> {
        let slot = self.filter.wants(label).then(|| {
            self.labels
                .push((label.clone(), SamplerMetric::new(self.windows)));
            self.labels.len() - 1
        });
        self.index.insert(label.clone(), slot);
        slot
    }

    /// The interval's numbers, for the labels that had samples and the run.
    fn take(&mut self) -> Interval {
        let mode = self.windows.mode;
        Interval {
            labels: self
                .labels
                .iter_mut()
                .map(|(label, metric)| (label.clone(), metric.take_interval(mode)))
                .filter(|(_, snapshot)| snapshot.total() > 0)
                .collect(),
            cumulated: self.cumulated.take_interval(mode),
            users: self.users.clone(),
        }
    }
}

struct Interval {
    labels: Vec<(Arc<str>, Snapshot)>,
    cumulated: Snapshot,
    users: UserMetric,
}

/// The two clients' formats.
enum Format {
    Influx(InfluxSettings),
    Graphite(GraphiteSettings),
}

/// Reports a server that stopped answering once per run on the console; the run log
/// (`-j`) gets every change.
struct Health {
    what: String,
    warned: bool,
    down: bool,
}

impl Health {
    fn sent(&mut self, result: Result<(), String>) {
        match result {
            Ok(()) if self.down => {
                self.down = false;
                runlog::info(&format!("{} answers again", self.what));
            }
            Ok(()) => {}
            Err(e) => {
                let message = format!(
                    "{}: {e}; live metrics are dropped until it answers (the run and its \
                     result files go on)",
                    self.what
                );
                if !self.warned {
                    self.warned = true;
                    eprintln!("warning: {message}");
                }
                if !self.down {
                    self.down = true;
                    runlog::file_only("WARN", &message);
                }
            }
        }
    }
}

/// The thread that formats and sends.
struct Sender {
    format: Format,
    target: Target,
    health: Health,
    aggregate: Arc<Mutex<Aggregate>>,
    counts: Arc<ThreadCounts>,
    /// InfluxDB's start annotation, made at the start and sent with the first lines.
    pending: String,
}

impl Sender {
    fn send(&mut self, ending: bool) {
        let interval = self.aggregate.lock().take();
        let now = now_ms();
        let counts = self.counts.snapshot();
        let users = interval.users.users(counts.started, counts.finished);
        let payload = match &self.format {
            Format::Influx(settings) => {
                let mut lines = InfluxLines::new(settings);
                if ending {
                    lines.annotation(false, now);
                }
                for (label, snapshot) in &interval.labels {
                    lines.label(label, snapshot, now);
                }
                lines.cumulated(&interval.cumulated, now);
                lines.users(users, now);
                std::mem::take(&mut self.pending) + lines.finish().as_str()
            }
            Format::Graphite(settings) => {
                let mut lines = GraphiteLines::new(settings, now);
                for (label, snapshot) in &interval.labels {
                    lines.metrics(Some(label), snapshot);
                }
                lines.metrics(None, &interval.cumulated);
                lines.users(users);
                lines.finish()
            }
        };
        let result = self.target.send(payload.as_bytes());
        self.health.sent(result);
    }

    /// Sends at `first`, then every `period`, until told to stop; then the last send.
    fn run(mut self, first: Duration, period: Duration, stop: mpsc::Receiver<()>) {
        let mut next = Instant::now() + first;
        loop {
            let wait = next.saturating_duration_since(Instant::now());
            match stop.recv_timeout(wait) {
                Err(RecvTimeoutError::Timeout) => {
                    self.send(false);
                    next += period;
                    // A send that overran skips the periods it missed.
                    let now = Instant::now();
                    while next < now {
                        next += period;
                    }
                }
                Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        self.send(true);
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A Backend Listener as the run starts it: the client class and evaluated parameters.
#[derive(Debug, Clone)]
pub struct BackendConfig {
    /// The listener's id, which a sample's `listeners` hold when it is in scope.
    pub listener: usize,
    /// The element's path, for messages.
    pub path: String,
    pub classname: String,
    pub parameters: Parameters,
}

/// The sink: adds the samples in scope; finishing stops the sender after its last send.
pub struct BackendSink {
    listener: usize,
    aggregate: Arc<Mutex<Aggregate>>,
    counts: Arc<ThreadCounts>,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl BackendSink {
    /// Reads the parameters and starts the sender. An error (a client jmxr does not run,
    /// a URL that is not one) says why the listener sends nothing; `warnings` collects
    /// what is used in a way other than written.
    pub fn open(
        config: &BackendConfig,
        props: &Properties,
        counts: Arc<ThreadCounts>,
        warnings: &mut Vec<String>,
    ) -> Result<BackendSink, String> {
        let windows = WindowSettings::from_properties(props);
        let millis = |name: &str, default: i64| {
            Duration::from_millis(props.get_i64(name, default).max(1) as u64)
        };
        let seconds = |name: &str, default: i64| {
            Duration::from_secs(props.get_i64(name, default).max(1) as u64)
        };
        let params = &config.parameters;
        let class = config.classname.trim();
        let (format, target, filter, first, period, what) = if class == INFLUXDB_CLIENT {
            let settings = InfluxSettings::read(params, warnings);
            let target = if settings.udp {
                Target::Udp(settings.url.clone())
            } else {
                Target::Http(HttpTarget::parse(
                    &settings.url,
                    settings.token.clone(),
                    millis("backend_influxdb.connection_timeout", 1000),
                    millis("backend_influxdb.socket_timeout", 3000),
                )?)
            };
            let filter = if settings.summary_only {
                LabelFilter::None
            } else {
                LabelFilter::Find(regex(&settings.samplers_regex, "samplersRegex")?)
            };
            let what = format!("InfluxDB at {}", settings.url);
            let period = seconds("backend_influxdb.send_interval", 5);
            (
                Format::Influx(settings),
                target,
                filter,
                Duration::ZERO,
                period,
                what,
            )
        } else if class == GRAPHITE_CLIENT {
            let settings = GraphiteSettings::read(params, warnings);
            if settings.pickle {
                return Err("Graphite's pickle protocol is not written; choose \
                            TextGraphiteMetricsSender (the plaintext protocol)"
                    .into());
            }
            let target = Target::Tcp(TcpTarget::new(
                &settings.host,
                settings.port,
                Duration::from_millis(1000),
            ));
            let filter = if settings.summary_only {
                LabelFilter::None
            } else if settings.use_regexp {
                LabelFilter::Whole(regex(
                    &format!("\\A(?:{})\\z", settings.samplers_list),
                    "samplersList",
                )?)
            } else {
                LabelFilter::Names(
                    settings
                        .samplers_list
                        .split(';')
                        .map(str::to_string)
                        .collect(),
                )
            };
            let what = format!("Graphite at {}:{}", settings.host, settings.port);
            let period = seconds("backend_graphite.send_interval", 1);
            (
                Format::Graphite(settings),
                target,
                filter,
                period,
                period,
                what,
            )
        } else {
            return Err(format!("the client {class} is not supported; jmxr runs {INFLUXDB_CLIENT} and {GRAPHITE_CLIENT}"));
        };
        let aggregate = Arc::new(Mutex::new(Aggregate::new(windows, filter)));
        let mut pending = String::new();
        if let Format::Influx(settings) = &format {
            let mut lines = InfluxLines::new(settings);
            lines.annotation(true, now_ms());
            pending = lines.finish();
        }
        let sender = Sender {
            format,
            target,
            health: Health {
                what: format!("{}: {what}", config.path),
                warned: false,
                down: false,
            },
            aggregate: aggregate.clone(),
            counts: counts.clone(),
            pending,
        };
        let (stop, stopped) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("jmxr-backend".to_string())
            .spawn(move || sender.run(first, period, stopped))
            .map_err(|e| format!("cannot start its sender: {e}"))?;
        Ok(BackendSink {
            listener: config.listener,
            aggregate,
            counts,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Tells the sender to make its last send and waits for it.
    fn stop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn regex(pattern: &str, name: &str) -> Result<fancy_regex::Regex, String> {
    fancy_regex::Regex::new(pattern)
        .map_err(|e| format!("{name} {pattern:?} is not a regular expression: {e}"))
}

impl Sink for BackendSink {
    fn on_sample(&mut self, event: &SampleEvent) -> std::io::Result<()> {
        let sample = &event.result;
        if sample.ignore || !event.listeners.contains(&self.listener) {
            return Ok(());
        }
        let active = self
            .counts
            .active
            .load(std::sync::atomic::Ordering::Relaxed);
        self.aggregate.lock().add(sample, active);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.stop();
        Ok(())
    }
}

impl Drop for BackendSink {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_read_as_jmeter_reads_them() {
        let mut problems = Vec::new();
        let list = Percentile::list(" 90; 99.9 ;;95.0;0;abc;99.90 ", &mut problems);
        let shown: Vec<(&str, &str)> = list
            .iter()
            .map(|p| (p.float_text.as_str(), p.key.as_str()))
            .collect();
        assert_eq!(shown, [("90.0", "90"), ("99.9", "99.9"), ("95.0", "95")]);
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(java_float(0.0005), "5.0E-4");
        assert_eq!(two_decimals(99.999), "100");
    }

    #[test]
    fn filters_match_as_each_client_matches() {
        let find = LabelFilter::Find(regex("^Log", "r").unwrap());
        assert!(find.wants("Log in") && !find.wants("Home"));
        let partial = LabelFilter::Find(regex("in", "r").unwrap());
        assert!(partial.wants("Log in"));
        let whole = LabelFilter::Whole(regex("\\A(?:Log|Log in)\\z", "r").unwrap());
        assert!(whole.wants("Log in") && whole.wants("Log"));
        assert!(!whole.wants("Log i"));
        let names = LabelFilter::Names(vec!["Home".into(), "Log in".into()]);
        assert!(names.wants("Log in") && !names.wants("Log"));
    }

    #[test]
    fn parameters_keep_the_first_row_of_a_name() {
        let params = Parameters::new(vec![
            ("a".into(), "1".into()),
            ("b".into(), "TRUE".into()),
            ("a".into(), "2".into()),
        ]);
        assert_eq!(params.get("a"), Some("1"));
        assert!(params.flag("b", false));
        assert_eq!(params.iter().count(), 2);
    }
}
