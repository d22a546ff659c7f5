//! The typed plan the engine runs.

use std::path::PathBuf;
use std::sync::Arc;

use super::{
    Assertion, IterationListener, PostProcessor, PreProcessor, SampleListener, Sampler, Setting,
    Timer,
};
use crate::expr::Template;
use crate::sample::SampleAction;

/// A whole runnable plan.
pub struct TestPlan {
    pub name: String,
    pub file: PathBuf,
    pub functional_mode: bool,
    pub serialize_threadgroups: bool,
    pub teardown_on_shutdown: bool,
    /// User Defined Variables in tree order, each element evaluated once before the run:
    /// the Test Plan's own table first, then every `Arguments` element.
    pub variables: Vec<Vec<(String, Template)>>,
    pub setup_groups: Vec<Arc<ThreadGroup>>,
    pub groups: Vec<Arc<ThreadGroup>>,
    pub teardown_groups: Vec<Arc<ThreadGroup>>,
    /// Result Collectors that write files, indexed by listener id.
    pub listeners: Vec<ListenerSpec>,
    /// jp@gc AutoStop Listeners.
    pub auto_stops: Vec<AutoStopSpec>,
    /// Mailer Visualizers.
    pub mailers: Vec<super::mailer::MailerSpec>,
    /// Backend Listeners whose client jmxr runs.
    pub backend_listeners: Vec<BackendListenerSpec>,
    /// Prometheus Listeners (the plugin's): the metrics one endpoint serves.
    pub prometheus_listeners: Vec<PrometheusListenerSpec>,
    /// jp@gc Flexible File Writers.
    pub flexible_file_writers: Vec<super::flexible_file_writer::FlexibleFileWriterSpec>,
    /// The Keystore Configuration in effect (the last in tree order), if the plan has one.
    pub keystore: Option<super::config::keystore::KeystoreConfig>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Setup,
    Main,
    Teardown,
}

/// What a thread does after a failed sample (`ThreadGroup.on_sample_error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnError {
    #[default]
    Continue,
    StartNextLoop,
    StopThread,
    StopTest,
    StopTestNow,
}

impl OnError {
    pub fn parse(text: &str) -> OnError {
        match text.trim().to_ascii_lowercase().as_str() {
            "startnextloop" => OnError::StartNextLoop,
            "stopthread" => OnError::StopThread,
            "stoptest" => OnError::StopTest,
            "stoptestnow" => OnError::StopTestNow,
            _ => OnError::Continue,
        }
    }
}

pub struct ThreadGroup {
    pub id: usize,
    pub name: Arc<str>,
    pub path: Arc<str>,
    pub phase: Phase,
    pub num_threads: Setting,
    pub ramp_up: Setting,
    /// Main loop count; -1 = forever.
    pub loops: Setting,
    pub scheduler: bool,
    pub duration: Setting,
    pub delay: Setting,
    pub same_user_on_next_iteration: bool,
    pub delayed_start: bool,
    pub on_error: OnError,
    /// The group's children, plus the plan-level elements, as the main controller.
    pub body: Arc<Controller>,
    /// 1-based number of the group within its phase (`Thread Group 2-1`).
    pub number: usize,
    /// Every iteration listener in the group, told when a thread-group iteration starts.
    pub iteration_listeners: Vec<Arc<dyn IterationListener>>,
    /// When each user starts and stops.
    pub schedule: GroupSchedule,
}

/// How a thread group spreads its users over time.
#[derive(Clone)]
pub enum GroupSchedule {
    /// JMeter's Thread Group: `num_threads` over `ramp_up`, then `delay` and `duration`
    /// when `scheduler` is on.
    Standard,
    /// jmeter-plugins Ultimate Thread Group: rows of (threads, initial delay, startup
    /// time, hold load for, shutdown time), seconds, each user with its own start and end.
    Ultimate(Vec<[Setting; 5]>),
    /// jmeter-plugins Stepping Thread Group: `num_threads` started in steps and stopped
    /// in steps.
    Stepping(Box<SteppingSettings>),
    /// bzm Concurrency Thread Group: users started and retired to hold a target
    /// concurrency that ramps up (smoothly or in steps) and then holds.
    Concurrency(Box<ConcurrencySettings>),
    /// JMeter's Open Model Thread Group: one user per arrival, each running one
    /// iteration, at the times its schedule (`plan::open_model`) gives.
    OpenModel(Box<OpenModelSettings>),
    /// bzm Arrivals and Free-Form Arrivals Thread Groups: users run one iteration per
    /// arrival at the rate `plan::arrivals` gives, waiting in a pool between arrivals.
    Arrivals(Box<ArrivalsSettings>),
}

/// The Open Model Thread Group's fields.
#[derive(Clone)]
pub struct OpenModelSettings {
    /// `OpenModelThreadGroup.schedule`, evaluated when the group starts.
    pub schedule: Setting,
    /// `OpenModelThreadGroup.random_seed`; 0 or empty: a new schedule every run.
    pub random_seed: Setting,
}

/// The bzm Arrivals Thread Groups' fields. Times and rates are in `unit` (`M`: minutes,
/// anything else seconds).
#[derive(Clone)]
pub struct ArrivalsSettings {
    pub target: Setting,
    pub ramp_up: Setting,
    pub steps: Setting,
    pub hold: Setting,
    pub unit: Setting,
    /// Iterations per user before it ends; 0 or empty: no limit.
    pub iterations: Setting,
    /// Users busy at once; 0 or empty: no limit. An arrival beyond it is dropped.
    pub concurrency_limit: Setting,
    /// Free-Form rows (start rate, end rate, duration); `None` for the Arrivals Thread
    /// Group.
    pub free_form: Option<Vec<[Setting; 3]>>,
}

/// The Concurrency Thread Group's fields. Times are in `unit` (`M`: minutes, anything
/// else seconds).
#[derive(Clone)]
pub struct ConcurrencySettings {
    pub target: Setting,
    pub ramp_up: Setting,
    pub steps: Setting,
    pub hold: Setting,
    pub unit: Setting,
    /// Iterations per user; 0 or empty: no limit.
    pub iterations: Setting,
}

/// The Stepping Thread Group's fields (all whole numbers, seconds for times).
#[derive(Clone)]
pub struct SteppingSettings {
    pub initial_delay: Setting,
    pub start_count: Setting,
    pub start_burst: Setting,
    pub start_period: Setting,
    pub ramp_up: Setting,
    pub hold: Setting,
    pub stop_count: Setting,
    pub stop_period: Setting,
}

/// A node of the execution tree.
#[derive(Clone)]
pub enum Node {
    Sampler(Arc<SamplerNode>),
    Controller(Arc<Controller>),
}

/// A sampler with everything in its scope, resolved once.
pub struct SamplerNode {
    pub id: usize,
    pub name: Template,
    /// The label of every sample when the name is constant text, shared by all users.
    pub literal_label: Option<Arc<str>>,
    pub path: Arc<str>,
    pub sampler: Arc<dyn Sampler>,
    pub scope: ScopePackage,
}

/// The elements that apply to one sampler, in the order JMeter runs them.
#[derive(Clone, Default)]
pub struct ScopePackage {
    /// Outermost first.
    pub pre: Vec<Arc<dyn PreProcessor>>,
    pub timers: Vec<Arc<dyn Timer>>,
    /// Outermost first.
    pub post: Vec<Arc<dyn PostProcessor>>,
    /// Outermost first.
    pub assertions: Vec<Arc<dyn Assertion>>,
    /// Ids of the Result Collectors in scope.
    pub listeners: Arc<[usize]>,
    /// Script listeners in scope, outermost first.
    pub sample_listeners: Vec<Arc<dyn SampleListener>>,
    /// Result Status Action Handlers in scope: what to do when the sample failed.
    pub result_actions: Vec<SampleAction>,
}

pub struct Controller {
    pub id: usize,
    pub name: Template,
    pub path: Arc<str>,
    pub kind: ControllerKind,
    pub children: Vec<Node>,
    /// Elements that act when this controller starts an iteration.
    pub iteration_listeners: Vec<Arc<dyn IterationListener>>,
    /// For Transaction Controllers: the assertions and listeners of its own scope.
    pub scope: ScopePackage,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThroughputStyle {
    TotalExecutions,
    Percent,
}

pub enum ControllerKind {
    /// Simple, Recording Controller, Test Fragment in place, a thread group's body.
    Simple,
    Loop {
        loops: Setting,
        continue_forever: bool,
    },
    While {
        condition: Template,
    },
    If {
        condition: Template,
        use_expression: bool,
        evaluate_all: bool,
    },
    Transaction {
        parent: bool,
        include_timers: bool,
    },
    OnceOnly,
    Interleave {
        ignore_sub_controllers: bool,
        across_threads: bool,
    },
    Random {
        ignore_sub_controllers: bool,
    },
    RandomOrder,
    Throughput {
        style: ThroughputStyle,
        per_thread: bool,
        max_throughput: Setting,
        percent: Setting,
    },
    Runtime {
        seconds: Setting,
    },
    Switch {
        value: Template,
    },
    ForEach {
        input: Template,
        output: Template,
        use_separator: bool,
        start: Setting,
        end: Setting,
    },
    CriticalSection {
        lock_name: Template,
    },
    /// bzm Weighted Switch Controller: one child per pass, chosen by weight.
    WeightedSwitch {
        /// The weight table's enabled rows, in order; the n-th row picks the n-th child.
        weights: Vec<Setting>,
        /// `IsRandomChoice`: a weighted random draw instead of the plugin's
        /// "furthest below its share" rotation.
        random: bool,
    },
    /// bzm Parallel Controller: the children run at the same time within the user.
    Parallel {
        /// `PARENT_SAMPLE`: one sample holding the children's samples as sub-results,
        /// instead of the children's samples themselves.
        generate_parent: bool,
        /// `LIMIT_MAX_THREAD_NUMBER` with `MAX_THREAD_NUMBER`: at most this many children
        /// run at once.
        max_parallel: Option<usize>,
    },
    /// jp@gc Parameterized Controller: before each sampler of its subtree, and once when
    /// its pass ends, the user's variables are set from this table (values evaluated
    /// first, then set; the first row of a name wins).
    Parameterized {
        variables: Arc<[(String, Template)]>,
    },
}

/// A jp@gc AutoStop Listener: its listener id (in the scope lists of the samplers it
/// watches) and its six properties, evaluated when the run starts.
#[derive(Debug, Clone)]
pub struct AutoStopSpec {
    pub id: usize,
    pub path: Arc<str>,
    /// `avg_response_time`, `avg_response_time_length`, `avg_response_latency`,
    /// `avg_response_latency_length`, `error_rate`, `error_rate_length`.
    pub values: [Template; 6],
}

/// The Backend Listener clients jmxr runs, by the class names plans give them.
pub const INFLUXDB_CLIENT: &str =
    "org.apache.jmeter.visualizers.backend.influxdb.InfluxdbBackendListenerClient";
pub const GRAPHITE_CLIENT: &str =
    "org.apache.jmeter.visualizers.backend.graphite.GraphiteBackendListenerClient";

/// A Backend Listener: its listener id, client class and parameters, evaluated when
/// the run starts.
#[derive(Debug, Clone)]
pub struct BackendListenerSpec {
    pub id: usize,
    pub path: Arc<str>,
    pub classname: String,
    pub arguments: Vec<(String, Template)>,
}

/// The Prometheus Listener plugin's class.
pub const PROMETHEUS_LISTENER: &str = "com.github.johrstrom.listener.PrometheusListener";

/// A Prometheus Listener: its listener id and the metrics it defines.
#[derive(Debug, Clone)]
pub struct PrometheusListenerSpec {
    pub id: usize,
    pub path: Arc<str>,
    pub collectors: Vec<PrometheusCollectorSpec>,
}

/// One row of the listener's table, as the plugin checked it when the plan was built.
#[derive(Debug, Clone, PartialEq)]
pub struct PrometheusCollectorSpec {
    pub metric_name: String,
    pub help: String,
    pub kind: PrometheusKind,
    /// Label names: `label`, `code`, `thread_group` or a variable's name.
    pub labels: Vec<String>,
    /// Histogram upper bounds, increasing.
    pub buckets: Vec<f64>,
    /// Summary quantiles (quantile, allowed error) and the window they cover, seconds.
    pub quantiles: Vec<(f64, f64)>,
    pub window_seconds: u64,
    /// `listener.collector.listen_to`: assertions rather than samples.
    pub assertions: bool,
    pub measuring: PrometheusMeasure,
}

/// The plugin's collector types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrometheusKind {
    Counter,
    Gauge,
    Histogram,
    Summary,
    SuccessRatio,
}

/// What a collector measures (the plugin's `Measurable`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrometheusMeasure {
    ResponseTime,
    ResponseSize,
    Latency,
    IdleTime,
    ConnectTime,
    SuccessTotal,
    FailureTotal,
    CountTotal,
    SuccessRatio,
}

/// A Result Collector that writes a file.
#[derive(Debug, Clone)]
pub struct ListenerSpec {
    pub id: usize,
    pub name: String,
    pub path: Arc<str>,
    pub filename: Template,
    /// The `saveConfig` fields as written (tag, text); `None` when the element has none.
    pub save_config: Option<Vec<(String, String)>>,
    pub errors_only: bool,
    pub success_only: bool,
}
