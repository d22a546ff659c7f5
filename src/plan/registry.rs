//! The compatibility registry: every JMeter element class jmxr knows, what family it
//! belongs to and what jmxr does with it. `jmxr check` reports from this table and
//! `docs/compatibility.md` is generated from it (a test keeps the file current).

/// The kind of element, which decides scope rules and what "unsupported" costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    TestPlan,
    ThreadGroup,
    Controller,
    Sampler,
    Config,
    PreProcessor,
    PostProcessor,
    Assertion,
    Timer,
    Listener,
    /// Elements that never run (WorkBench, recorder, GUI helpers).
    NonTest,
}

impl Family {
    pub fn title(self) -> &'static str {
        match self {
            Family::TestPlan => "Test plan",
            Family::ThreadGroup => "Thread groups",
            Family::Controller => "Logic controllers",
            Family::Sampler => "Samplers",
            Family::Config => "Config elements",
            Family::PreProcessor => "Pre-processors",
            Family::PostProcessor => "Post-processors",
            Family::Assertion => "Assertions",
            Family::Timer => "Timers",
            Family::Listener => "Listeners",
            Family::NonTest => "Non-test elements",
        }
    }

    /// Whether skipping an element of this family can change the load or the verdict.
    /// Listeners only observe; everything else shapes what is sent or how it is judged.
    pub fn affects_run(self) -> bool {
        !matches!(self, Family::Listener | Family::NonTest)
    }

    pub const ALL: [Family; 11] = [
        Family::TestPlan,
        Family::ThreadGroup,
        Family::Controller,
        Family::Sampler,
        Family::Config,
        Family::PreProcessor,
        Family::PostProcessor,
        Family::Assertion,
        Family::Timer,
        Family::Listener,
        Family::NonTest,
    ];
}

/// What jmxr does with an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Runs as JMeter runs it.
    Supported,
    /// Has no effect on a headless run (GUI-only visualizers, WorkBench); skipped safely.
    Ignored,
    /// Not implemented yet; `note` says what would be needed.
    Unsupported,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Supported => "supported",
            Status::Ignored => "ignored",
            Status::Unsupported => "unsupported",
        }
    }
}

/// One row of the registry.
#[derive(Debug, Clone, Copy)]
pub struct ElementInfo {
    /// `testclass` (alias or fully qualified).
    pub class: &'static str,
    /// For classes whose meaning depends on the GUI class (`ConfigTestElement`), the GUI class; else "".
    pub gui: &'static str,
    /// JMeter's display name.
    pub title: &'static str,
    pub family: Family,
    pub status: Status,
    pub note: &'static str,
}

const fn row(
    class: &'static str,
    title: &'static str,
    family: Family,
    status: Status,
    note: &'static str,
) -> ElementInfo {
    ElementInfo {
        class,
        gui: "",
        title,
        family,
        status,
        note,
    }
}

const fn gui_row(
    class: &'static str,
    gui: &'static str,
    title: &'static str,
    family: Family,
    status: Status,
    note: &'static str,
) -> ElementInfo {
    ElementInfo {
        class,
        gui,
        title,
        family,
        status,
        note,
    }
}

use Family::*;
use Status::*;

const HTTP: &str = "HTTP support is planned (issue 3)";
const DATA: &str = "planned with test data and correlation (issue 4)";
const SCRIPT: &str = "scripting is planned on Rhai (issue 7)";
const PROTO: &str = "this protocol is not implemented";
const VISUAL: &str = "GUI visualizer; writes its file when one is set";

/// Every element class jmxr recognises.
pub const ELEMENTS: &[ElementInfo] = &[
    row("TestPlan", "Test Plan", TestPlan, Supported, ""),
    row("ThreadGroup", "Thread Group", ThreadGroup, Supported, ""),
    row(
        "SetupThreadGroup",
        "setUp Thread Group",
        ThreadGroup,
        Supported,
        "",
    ),
    row(
        "PostThreadGroup",
        "tearDown Thread Group",
        ThreadGroup,
        Supported,
        "",
    ),
    row(
        "OpenModelThreadGroup",
        "Open Model Thread Group",
        ThreadGroup,
        Unsupported,
        "arrival-rate schedules are planned",
    ),
    row(
        "kg.apc.jmeter.threads.UltimateThreadGroup",
        "Ultimate Thread Group",
        ThreadGroup,
        Unsupported,
        "plugin thread groups are planned",
    ),
    row(
        "kg.apc.jmeter.threads.SteppingThreadGroup",
        "Stepping Thread Group",
        ThreadGroup,
        Unsupported,
        "plugin thread groups are planned",
    ),
    row(
        "com.blazemeter.jmeter.threads.concurrency.ConcurrencyThreadGroup",
        "Concurrency Thread Group",
        ThreadGroup,
        Unsupported,
        "plugin thread groups are planned",
    ),
    row(
        "com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroup",
        "Arrivals Thread Group",
        ThreadGroup,
        Unsupported,
        "plugin thread groups are planned",
    ),
    row(
        "com.blazemeter.jmeter.threads.arrivals.FreeFormArrivalsThreadGroup",
        "Free-Form Arrivals Thread Group",
        ThreadGroup,
        Unsupported,
        "plugin thread groups are planned",
    ),
    row(
        "GenericController",
        "Simple Controller",
        Controller,
        Supported,
        "",
    ),
    row(
        "LoopController",
        "Loop Controller",
        Controller,
        Supported,
        "",
    ),
    row(
        "WhileController",
        "While Controller",
        Controller,
        Supported,
        "conditions: JavaScript-style comparisons, `&&`, `||`, `!`, `true`/`false`",
    ),
    row(
        "IfController",
        "If Controller",
        Controller,
        Supported,
        "conditions: JavaScript-style comparisons, `&&`, `||`, `!`, `true`/`false`",
    ),
    row(
        "TransactionController",
        "Transaction Controller",
        Controller,
        Supported,
        "",
    ),
    row(
        "OnceOnlyController",
        "Once Only Controller",
        Controller,
        Supported,
        "",
    ),
    row(
        "InterleaveControl",
        "Interleave Controller",
        Controller,
        Supported,
        "",
    ),
    row(
        "RandomController",
        "Random Controller",
        Controller,
        Supported,
        "",
    ),
    row(
        "RandomOrderController",
        "Random Order Controller",
        Controller,
        Supported,
        "",
    ),
    row(
        "ThroughputController",
        "Throughput Controller",
        Controller,
        Supported,
        "",
    ),
    row("RunTime", "Runtime Controller", Controller, Supported, ""),
    row(
        "SwitchController",
        "Switch Controller",
        Controller,
        Supported,
        "",
    ),
    row(
        "ForeachController",
        "ForEach Controller",
        Controller,
        Supported,
        "",
    ),
    row(
        "CriticalSectionController",
        "Critical Section Controller",
        Controller,
        Supported,
        "",
    ),
    row(
        "RecordingController",
        "Recording Controller",
        Controller,
        Supported,
        "runs as a Simple Controller",
    ),
    row(
        "ModuleController",
        "Module Controller",
        Controller,
        Supported,
        "replaced by its target before the run",
    ),
    row(
        "IncludeController",
        "Include Controller",
        Controller,
        Supported,
        "replaced by the included plan before the run",
    ),
    row(
        "TestFragmentController",
        "Test Fragment",
        Controller,
        Supported,
        "runs only through Module or Include Controllers",
    ),
    row(
        "com.blazemeter.jmeter.controller.ParallelSampler",
        "Parallel Controller",
        Controller,
        Unsupported,
        "planned",
    ),
    row(
        "com.blazemeter.jmeter.control.WeightedSwitchController",
        "Weighted Switch Controller",
        Controller,
        Unsupported,
        "planned",
    ),
    row("DebugSampler", "Debug Sampler", Sampler, Supported, ""),
    row(
        "JavaSampler",
        "Java Request",
        Sampler,
        Supported,
        "classes JavaTest and SleepTest",
    ),
    row("TestAction", "Flow Control Action", Sampler, Supported, ""),
    row(
        "SystemSampler",
        "OS Process Sampler",
        Sampler,
        Supported,
        "",
    ),
    row(
        "HTTPSamplerProxy",
        "HTTP Request",
        Sampler,
        Unsupported,
        HTTP,
    ),
    row(
        "HTTPSampler",
        "HTTP Request (Java, legacy)",
        Sampler,
        Unsupported,
        HTTP,
    ),
    row(
        "HTTPSampler2",
        "HTTP Request (HttpClient, legacy)",
        Sampler,
        Unsupported,
        HTTP,
    ),
    row(
        "JSR223Sampler",
        "JSR223 Sampler",
        Sampler,
        Unsupported,
        SCRIPT,
    ),
    row(
        "BeanShellSampler",
        "BeanShell Sampler",
        Sampler,
        Unsupported,
        SCRIPT,
    ),
    row("BSFSampler", "BSF Sampler", Sampler, Unsupported, SCRIPT),
    row(
        "TCPSampler",
        "TCP Sampler",
        Sampler,
        Unsupported,
        "planned (issue 6)",
    ),
    row(
        "kg.apc.jmeter.samplers.UDPSampler",
        "UDP Request",
        Sampler,
        Unsupported,
        "planned (issue 6)",
    ),
    row(
        "kg.apc.jmeter.samplers.DummySampler",
        "Dummy Sampler",
        Sampler,
        Unsupported,
        "planned",
    ),
    row("JDBCSampler", "JDBC Request", Sampler, Unsupported, PROTO),
    row(
        "JMSSampler",
        "JMS Point-to-Point",
        Sampler,
        Unsupported,
        PROTO,
    ),
    row(
        "PublisherSampler",
        "JMS Publisher",
        Sampler,
        Unsupported,
        PROTO,
    ),
    row(
        "SubscriberSampler",
        "JMS Subscriber",
        Sampler,
        Unsupported,
        PROTO,
    ),
    row("FTPSampler", "FTP Request", Sampler, Unsupported, PROTO),
    row("LDAPSampler", "LDAP Request", Sampler, Unsupported, PROTO),
    row("SmtpSampler", "SMTP Sampler", Sampler, Unsupported, PROTO),
    row(
        "MailReaderSampler",
        "Mail Reader Sampler",
        Sampler,
        Unsupported,
        PROTO,
    ),
    row("JUnitSampler", "JUnit Request", Sampler, Unsupported, PROTO),
    row(
        "SoapSampler",
        "SOAP/XML-RPC Request",
        Sampler,
        Unsupported,
        PROTO,
    ),
    row("BoltSampler", "Bolt Request", Sampler, Unsupported, PROTO),
    row(
        "eu.luminis.jmeter.wssampler.RequestResponseWebSocketSampler",
        "WebSocket request-response Sampler",
        Sampler,
        Unsupported,
        "WebSocket is planned",
    ),
    row(
        "eu.luminis.jmeter.wssampler.OpenWebSocketSampler",
        "WebSocket Open Connection",
        Sampler,
        Unsupported,
        "WebSocket is planned",
    ),
    row(
        "eu.luminis.jmeter.wssampler.SingleWriteWebSocketSampler",
        "WebSocket Single Write Sampler",
        Sampler,
        Unsupported,
        "WebSocket is planned",
    ),
    row(
        "eu.luminis.jmeter.wssampler.SingleReadWebSocketSampler",
        "WebSocket Single Read Sampler",
        Sampler,
        Unsupported,
        "WebSocket is planned",
    ),
    row(
        "eu.luminis.jmeter.wssampler.CloseWebSocketSampler",
        "WebSocket Close",
        Sampler,
        Unsupported,
        "WebSocket is planned",
    ),
    row(
        "eu.luminis.jmeter.wssampler.PingPongSampler",
        "WebSocket Ping/Pong",
        Sampler,
        Unsupported,
        "WebSocket is planned",
    ),
    row("Arguments", "User Defined Variables", Config, Supported, ""),
    row("CounterConfig", "Counter", Config, Supported, ""),
    row(
        "CSVDataSet",
        "CSV Data Set Config",
        Config,
        Unsupported,
        DATA,
    ),
    row(
        "RandomVariableConfig",
        "Random Variable",
        Config,
        Unsupported,
        DATA,
    ),
    gui_row(
        "ConfigTestElement",
        "JavaConfigGui",
        "Java Request Defaults",
        Config,
        Supported,
        "",
    ),
    gui_row(
        "ConfigTestElement",
        "HttpDefaultsGui",
        "HTTP Request Defaults",
        Config,
        Unsupported,
        HTTP,
    ),
    gui_row(
        "ConfigTestElement",
        "TCPConfigGui",
        "TCP Sampler Config",
        Config,
        Unsupported,
        "planned (issue 6)",
    ),
    gui_row(
        "ConfigTestElement",
        "LoginConfigGui",
        "Login Config Element",
        Config,
        Unsupported,
        HTTP,
    ),
    gui_row(
        "ConfigTestElement",
        "SimpleConfigGui",
        "Simple Config Element",
        Config,
        Unsupported,
        "not implemented",
    ),
    row("JavaConfig", "Java Request Defaults", Config, Supported, ""),
    row(
        "HeaderManager",
        "HTTP Header Manager",
        Config,
        Unsupported,
        HTTP,
    ),
    row(
        "CookieManager",
        "HTTP Cookie Manager",
        Config,
        Unsupported,
        HTTP,
    ),
    row(
        "CacheManager",
        "HTTP Cache Manager",
        Config,
        Unsupported,
        HTTP,
    ),
    row(
        "AuthManager",
        "HTTP Authorization Manager",
        Config,
        Unsupported,
        HTTP,
    ),
    row(
        "DNSCacheManager",
        "DNS Cache Manager",
        Config,
        Unsupported,
        HTTP,
    ),
    row(
        "KeystoreConfig",
        "Keystore Configuration",
        Config,
        Unsupported,
        HTTP,
    ),
    row(
        "JDBCDataSource",
        "JDBC Connection Configuration",
        Config,
        Unsupported,
        PROTO,
    ),
    row(
        "UserParameters",
        "User Parameters",
        PreProcessor,
        Supported,
        "",
    ),
    row(
        "JSR223PreProcessor",
        "JSR223 PreProcessor",
        PreProcessor,
        Unsupported,
        SCRIPT,
    ),
    row(
        "BeanShellPreProcessor",
        "BeanShell PreProcessor",
        PreProcessor,
        Unsupported,
        SCRIPT,
    ),
    row(
        "BSFPreProcessor",
        "BSF PreProcessor",
        PreProcessor,
        Unsupported,
        SCRIPT,
    ),
    row(
        "AnchorModifier",
        "HTML Link Parser",
        PreProcessor,
        Unsupported,
        HTTP,
    ),
    row(
        "RegexExtractor",
        "Regular Expression Extractor",
        PostProcessor,
        Unsupported,
        DATA,
    ),
    row(
        "JSONPostProcessor",
        "JSON Extractor",
        PostProcessor,
        Unsupported,
        DATA,
    ),
    row(
        "JMESPathExtractor",
        "JSON JMESPath Extractor",
        PostProcessor,
        Unsupported,
        DATA,
    ),
    row(
        "BoundaryExtractor",
        "Boundary Extractor",
        PostProcessor,
        Unsupported,
        DATA,
    ),
    row(
        "HtmlExtractor",
        "CSS Selector Extractor",
        PostProcessor,
        Unsupported,
        DATA,
    ),
    row(
        "XPathExtractor",
        "XPath Extractor",
        PostProcessor,
        Unsupported,
        DATA,
    ),
    row(
        "XPath2Extractor",
        "XPath2 Extractor",
        PostProcessor,
        Unsupported,
        DATA,
    ),
    row(
        "DebugPostProcessor",
        "Debug PostProcessor",
        PostProcessor,
        Unsupported,
        DATA,
    ),
    row(
        "ResultAction",
        "Result Status Action Handler",
        PostProcessor,
        Supported,
        "",
    ),
    row(
        "JSR223PostProcessor",
        "JSR223 PostProcessor",
        PostProcessor,
        Unsupported,
        SCRIPT,
    ),
    row(
        "BeanShellPostProcessor",
        "BeanShell PostProcessor",
        PostProcessor,
        Unsupported,
        SCRIPT,
    ),
    row(
        "BSFPostProcessor",
        "BSF PostProcessor",
        PostProcessor,
        Unsupported,
        SCRIPT,
    ),
    row(
        "ResponseAssertion",
        "Response Assertion",
        Assertion,
        Supported,
        "",
    ),
    row(
        "DurationAssertion",
        "Duration Assertion",
        Assertion,
        Supported,
        "",
    ),
    row("SizeAssertion", "Size Assertion", Assertion, Supported, ""),
    row(
        "JSONPathAssertion",
        "JSON Assertion",
        Assertion,
        Unsupported,
        DATA,
    ),
    row(
        "JMESPathAssertion",
        "JSON JMESPath Assertion",
        Assertion,
        Unsupported,
        DATA,
    ),
    row(
        "XPathAssertion",
        "XPath Assertion",
        Assertion,
        Unsupported,
        DATA,
    ),
    row(
        "XPath2Assertion",
        "XPath2 Assertion",
        Assertion,
        Unsupported,
        DATA,
    ),
    row(
        "MD5HexAssertion",
        "MD5Hex Assertion",
        Assertion,
        Unsupported,
        DATA,
    ),
    row(
        "HTMLAssertion",
        "HTML Assertion",
        Assertion,
        Unsupported,
        DATA,
    ),
    row(
        "XMLAssertion",
        "XML Assertion",
        Assertion,
        Unsupported,
        DATA,
    ),
    row(
        "JSR223Assertion",
        "JSR223 Assertion",
        Assertion,
        Unsupported,
        SCRIPT,
    ),
    row(
        "BeanShellAssertion",
        "BeanShell Assertion",
        Assertion,
        Unsupported,
        SCRIPT,
    ),
    row("ConstantTimer", "Constant Timer", Timer, Supported, ""),
    row(
        "UniformRandomTimer",
        "Uniform Random Timer",
        Timer,
        Supported,
        "",
    ),
    row(
        "GaussianRandomTimer",
        "Gaussian Random Timer",
        Timer,
        Supported,
        "",
    ),
    row(
        "PoissonRandomTimer",
        "Poisson Random Timer",
        Timer,
        Supported,
        "",
    ),
    row(
        "ConstantThroughputTimer",
        "Constant Throughput Timer",
        Timer,
        Unsupported,
        "planned",
    ),
    row(
        "PreciseThroughputTimer",
        "Precise Throughput Timer",
        Timer,
        Unsupported,
        "planned",
    ),
    row(
        "SyncTimer",
        "Synchronizing Timer",
        Timer,
        Unsupported,
        "planned",
    ),
    row("JSR223Timer", "JSR223 Timer", Timer, Unsupported, SCRIPT),
    row(
        "kg.apc.jmeter.timers.VariableThroughputTimer",
        "Throughput Shaping Timer",
        Timer,
        Unsupported,
        "planned",
    ),
    row(
        "ResultCollector",
        "Result Collector (View Results Tree, Aggregate Report, Simple Data Writer, ...)",
        Listener,
        Supported,
        VISUAL,
    ),
    row(
        "kg.apc.jmeter.vizualizers.CorrectedResultCollector",
        "jmeter-plugins graph listener",
        Listener,
        Supported,
        VISUAL,
    ),
    row(
        "Summariser",
        "Generate Summary Results",
        Listener,
        Ignored,
        "the console summary is always printed",
    ),
    row(
        "BackendListener",
        "Backend Listener",
        Listener,
        Unsupported,
        "live outputs are planned",
    ),
    row(
        "JSR223Listener",
        "JSR223 Listener",
        Listener,
        Unsupported,
        SCRIPT,
    ),
    row(
        "BeanShellListener",
        "BeanShell Listener",
        Listener,
        Unsupported,
        SCRIPT,
    ),
    row(
        "ResultSaver",
        "Save Responses to a file",
        Listener,
        Unsupported,
        "not implemented",
    ),
    row(
        "kg.apc.jmeter.reporters.AutoStop",
        "AutoStop Listener",
        Listener,
        Unsupported,
        "stops the test on conditions; not implemented",
    ),
    row(
        "kg.apc.jmeter.perfmon.PerfMonCollector",
        "PerfMon Metrics Collector",
        Listener,
        Unsupported,
        "server monitoring is not implemented",
    ),
    row(
        "WorkBench",
        "WorkBench",
        NonTest,
        Ignored,
        "removed before the run, as JMeter does",
    ),
    row(
        "ProxyControl",
        "HTTP(S) Test Script Recorder",
        NonTest,
        Ignored,
        "recording only",
    ),
];

/// Looks an element up by test class and GUI class.
pub fn lookup(class: &str, gui: &str) -> Option<&'static ElementInfo> {
    let short_gui = gui.rsplit('.').next().unwrap_or(gui);
    ELEMENTS
        .iter()
        .find(|e| e.class == class && !e.gui.is_empty() && e.gui == short_gui)
        .or_else(|| {
            ELEMENTS
                .iter()
                .find(|e| e.class == class && e.gui.is_empty())
        })
}

/// Guesses the family of a class the registry does not know, from JMeter's naming habits,
/// so that an unknown plugin element is still reported with a sensible weight.
pub fn guess_family(class: &str) -> Family {
    let lower = class.to_ascii_lowercase();
    let has = |word: &str| lower.contains(word);
    if has("threadgroup") || has("threads.") {
        ThreadGroup
    } else if has("sampler") || has("request") {
        Sampler
    } else if has("controller") || has("control.") {
        Controller
    } else if has("timer") {
        Timer
    } else if has("assertion") {
        Assertion
    } else if has("preprocessor") || has("modifier") {
        PreProcessor
    } else if has("postprocessor") || has("extractor") {
        PostProcessor
    } else if has("collector") || has("listener") || has("reporter") || has("vizualizer") {
        Listener
    } else if has("config") || has("manager") || has("dataset") {
        Config
    } else {
        Sampler
    }
}
