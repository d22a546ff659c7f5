//! The compatibility registry: every JMeter element class jmxr knows, what family it
//! belongs to and what jmxr does with it. `jmxr check` reports from this table and
//! `docs/compatibility.md` is generated from it (`assemble::compat_doc`; a test keeps the file
//! current).
//!
//! The table covers every `testclass` found in the conformance corpus (JMeter's batch
//! tests, examples and templates, the plugin samples and 160 real-world plans). An
//! unsupported row says what is missing and, where one exists, what to use instead. Whether skipping it can change the load or the
//! verdict decides between refusing a run and a warning: that follows the family, except
//! for the few rows that set `affects_run` themselves (a listener that stops the test, a
//! config element that only feeds a live output).

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
    /// A few rows override this (see [`ElementInfo::affects_run`]).
    pub const fn affects_run(self) -> bool {
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
    /// For classes whose meaning depends on the GUI class (`ConfigTestElement`), the short
    /// GUI class name; else "".
    pub gui: &'static str,
    /// JMeter's display name.
    pub title: &'static str,
    pub family: Family,
    pub status: Status,
    /// Why it is ignored, what is supported, or what is planned.
    pub note: &'static str,
    /// Whether running without this element could change the load or the verdict.
    pub affects_run: bool,
}

impl ElementInfo {
    /// Whether a plan holding this element, unsupported, must be refused.
    pub fn blocks_run(&self) -> bool {
        self.status == Status::Unsupported && self.affects_run
    }
}

/// Builds the table, one line per element:
/// `"class" [gui "GuiClass"] => Family Status "Title" note [, affects_run: bool];`
macro_rules! elements {
    (@gui) => { "" };
    (@gui $gui:literal) => { $gui };
    (@affects $family:ident) => { $family.affects_run() };
    (@affects $family:ident $affects:literal) => { $affects };
    ($($class:literal $(gui $gui:literal)? => $family:ident $status:ident $title:literal $note:expr
        $(, affects_run: $affects:literal)?;)*) => {
        &[$(ElementInfo {
            class: $class,
            gui: elements!(@gui $($gui)?),
            title: $title,
            family: $family,
            status: $status,
            note: $note,
            affects_run: elements!(@affects $family $($affects)?),
        }),*]
    };
}

use Family::*;
use Status::*;

const HTTP_VARIANT: &str = "not supported yet: an HTTP Request (with a Header Manager) that sends \
the same method, URL, headers and body does the same";
const HTTP_SAMPLER: &str = "HTTP/1.1 and HTTPS (any certificate trusted, as in JMeter; \
jmxr.https.verify_certificates=true checks them) with per-user keep-alive, redirects, \
gzip/deflate/brotli, multipart, file: URLs, Use MD5, embedded resources (HTML and CSS, \
nested frames, URL filters, parallel downloads with their pool size), source address \
(ipSource: address, host name or interface); HTTP/2 over TLS where the server offers it in \
ALPN when the run sets jmxr.http.http2=true (see docs/http2.md)";
const BZM_HTTP2: &str = "runs as an HTTP Request over HTTP/2 where the server offers it in \
ALPN, else HTTP/1.1 (see docs/http2.md); no server push, h2c or prioritisation";
const SCRIPT: &str = "runs on Rhai, compiled once: `scriptLanguage` rhai as is; groovy, java, \
beanshell, javascript and jexl translated to Rhai at plan time (what does not translate is \
reported by `check`); see docs/scripting.md";
const WEBSOCKET: &str = "one connection per user shared by its WebSocket samplers, ws and \
wss (any certificate trusted unless jmxr.https.verify_certificates=true), Header and Cookie \
Manager on the upgrade, frame filters, the plugin's codes, messages and sizes; see \
docs/websocket.md";
const WS_FILTER: &str = "drops frames while the WebSocket samplers in its scope read; \
each discarded frame is a sub-result (see docs/websocket.md)";
const SSE: &str = "Server-Sent Events, which JMeter has no element for: one stream per user \
(http and https, Header and Cookie Manager, connect and response timeouts), events read until \
a count of them match an event type or a data pattern, or a timeout, with Last-Event-ID and \
retry honoured on reconnection; see docs/sse.md";
const PROTO: &str = "this protocol is not supported yet";
const GRPC: &str = "unary calls over HTTP/2, plain or TLS, one channel per user; the .proto \
files of the proto folder (lib folders as import roots) compiled in-process at plan time, so \
check names a missing folder, a bad file or an unknown method; request JSON or request file, \
key:value metadata, deadline; the plugin's codes, messages and JSON layout. Streaming methods \
are refused (see docs/grpc.md)";
const FTP: &str = "get and put in passive mode, binary or ASCII (line ends converted as JMeter's \
client does), file content as response data when \"save file in response\" is on, download to a \
local file, upload from a local file or from the given content, user and password (also from \
FTP Request Defaults and Login Config Element), JMeter's codes and the server's reply texts (see \
docs/ftp.md)";
const SMTP: &str = "plain, SSL and STARTTLS (enforced or not, all certificates trusted or the \
Mozilla roots), AUTH LOGIN/PLAIN, From/Reply-To/To/Cc/Bcc, subject with or without timestamp, \
header fields, plain or multipart body, attachments, .eml files, message size, timeouts, \
JMeter's codes and JavaMail's messages (see docs/mail.md); local trust stores are not read";
const MAIL_READER: &str = "IMAP, IMAPS, POP3 and POP3S with STARTTLS, folder, number of \
messages, delete, store MIME, headers only; JMeter's response layout (one sub-sample per \
message and per part), codes and JavaMail's messages (see docs/mail.md)";
const MQTT: &str = "one connection per user (TCP or SSL trusting any certificate), QoS 0-2, \
retained messages, String/hex/random payloads with the timestamp prefix, sub by message count \
or elapsed time, the plugin's codes and messages; WebSocket transports, client certificates and \
automatic reconnection are not supported (see docs/mqtt.md)";
const JDBC: &str = "PostgreSQL, MySQL and MariaDB with native drivers; every query type, parameter types and `]NULL[`, variable names, result variable, row limit and query timeout (see docs/jdbc.md); other databases' drivers are a plan error";
const JDBC_POOL: &str = "org.postgresql.Driver, com.mysql.cj.jdbc.Driver, com.mysql.jdbc.Driver and org.mariadb.jdbc.Driver URLs; pool shared by variable name, max wait, auto-commit, isolation, init SQL, keep-alive; TLS connections and preinit are not supported yet (see docs/jdbc.md)";
const NO_PLUGIN: &str = "not supported yet";
const LDAP: &str = "a connection per sample bound with the Login Config Element's user and \
password; add, modify (replace), delete and search, user-defined or JMeter's built-in test \
entries; JMeter's 200/201/500 codes and JNDI's exception texts (see docs/ldap.md)";
const LDAP_EXT: &str = "thread bind kept per user until thread unbind, single bind/unbind, \
search (scope, filter, base, attributes, size and time limits, parsed results), compare, add, \
modify (add/delete/replace), delete, rename, ldaps with or without trust-all, connection \
timeout; JMeter's <ldapanswer> response data and the codes it cuts from JNDI's messages (see \
docs/ldap.md)";
const WRITES_FILE: &str = "writes its result file when `filename` is set; GUI views are not drawn";
const GRAPH: &str = "draws a graph in JMeter's GUI only; a headless run has nothing to draw";
const MONITOR: &str = "draws server metrics in JMeter's GUI; monitoring is not implemented, \
                       so a metrics file set in `filename` is not written";

/// Every element class jmxr recognises, grouped by family.
pub const ELEMENTS: &[ElementInfo] = elements! {
    "TestPlan" => TestPlan Supported "Test Plan" "";

    "ThreadGroup" => ThreadGroup Supported "Thread Group" "";
    "SetupThreadGroup" => ThreadGroup Supported "setUp Thread Group" "";
    "PostThreadGroup" => ThreadGroup Supported "tearDown Thread Group" "";
    "OpenModelThreadGroup" => ThreadGroup Supported "Open Model Thread Group" "JMeter's schedule language (rate, random_arrivals, even_arrivals, pause, concurrency(N), units from ms to days, comments, functions such as `${__P()}`, a bare number as JMeter's validation mode) and random seed, with JMeter's arrival times for a given seed (its java.util.Random); one user per arrival running one iteration; without concurrency(N) the pool is unlimited as in JMeter 5.5-5.6, with it an arrival waits for a free user and is dropped when the schedule ends first (JMeter 6); late, delayed and dropped arrivals are reported at the end of the run; the schedule starts when the group starts (JMeter counts from the test's start)";
    "kg.apc.jmeter.threads.UltimateThreadGroup" => ThreadGroup Supported "jp@gc - Ultimate Thread Group" "every row (values may use functions), the old `threads_schedule` table name and the `threads_schedule` JMeter property (`spawn(...)` chunks); each user starts and stops on the plugin's milliseconds; a row of 0 threads is skipped (the plugin mis-assigns the users after it)";
    "kg.apc.jmeter.threads.SteppingThreadGroup" => ThreadGroup Supported "jp@gc - Stepping Thread Group" "initial delay, first burst, start steps spread over the ramp-up, hold, stop steps, on the plugin's milliseconds";
    "com.blazemeter.jmeter.threads.concurrency.ConcurrencyThreadGroup" => ThreadGroup Supported "bzm - Concurrency Thread Group" "target level (re-read each check, so a property may lower it), ramp-up smooth or in steps, hold, unit, iterations per user (users are replaced); `LogFilename` is not written; a timer that would run past ramp-up + hold stops the user (the plugin sleeps it out and runs one more sample)";
    "com.blazemeter.jmeter.threads.arrivals.ArrivalsThreadGroup" => ThreadGroup Supported "bzm - Arrivals Thread Group" "target rate (a whole number, per minute with unit M), ramp-up smooth or in steps, hold, iterations per user, concurrency limit, on the plugin's rolling clock: an arrival wakes a waiting user, else starts one below the limit, else is dropped (counted and reported at the end of the run); a smooth ramp-up starts with no arrivals until the ramp-up is over, as the plugin's formula does; `LogFilename` is not written";
    "com.blazemeter.jmeter.threads.arrivals.FreeFormArrivalsThreadGroup" => ThreadGroup Supported "bzm - Free-Form Arrivals Thread Group" "schedule rows (start rate, end rate, duration; values may use functions) interpolated on the plugin's whole-second row offsets, unit, iterations per user, concurrency limit, with the Arrivals Thread Group's pool and limit rules; `LogFilename` is not written";
    "com.example.jmeter.plugin.CustomThreadGroup" => ThreadGroup Unsupported "Custom Thread Group (a project's own Java class)" "runs Java plugin code, which jmxr cannot load";

    "GenericController" => Controller Supported "Simple Controller" "";
    "LoopController" => Controller Supported "Loop Controller" "";
    "WhileController" => Controller Supported "While Controller" "conditions: JavaScript-style comparisons, `&&`, `||`, `!`, `true`/`false`";
    "IfController" => Controller Supported "If Controller" "conditions: JavaScript-style comparisons, `&&`, `||`, `!`, `true`/`false`";
    "TransactionController" => Controller Supported "Transaction Controller" "";
    "OnceOnlyController" => Controller Supported "Once Only Controller" "";
    "InterleaveControl" => Controller Supported "Interleave Controller" "";
    "RandomController" => Controller Supported "Random Controller" "";
    "RandomOrderController" => Controller Supported "Random Order Controller" "";
    "ThroughputController" => Controller Supported "Throughput Controller" "";
    "RunTime" => Controller Supported "Runtime Controller" "";
    "SwitchController" => Controller Supported "Switch Controller" "";
    "ForeachController" => Controller Supported "ForEach Controller" "";
    "CriticalSectionController" => Controller Supported "Critical Section Controller" "";
    "RecordingController" => Controller Supported "Recording Controller" "runs as a Simple Controller";
    "ModuleController" => Controller Supported "Module Controller" "replaced by its target before the run";
    "IncludeController" => Controller Supported "Include Controller" "replaced by the included plan before the run";
    "TestFragmentController" => Controller Supported "Test Fragment" "runs only through Module or Include Controllers";
    "com.blazemeter.jmeter.controller.ParallelSampler" => Controller Supported "bzm - Parallel Controller" "children run at the same time within the user, all at once or at most `MAX_THREAD_NUMBER` with `LIMIT_MAX_THREAD_NUMBER`; with `PARENT_SAMPLE` one sample (code 200, failed if a child failed, from its start to the last child sample's end) holds the children's samples, else they are recorded themselves; each child works on a copy of the user's variables and cookies, and what it sets is written back when all are done, later children last (the plugin's children share the user's variables while they run); child samples carry the thread name `<user> - <controller> - <child>`";
    "com.blazemeter.jmeter.control.WeightedSwitchController" => Controller Supported "bzm - Weighted Switch Controller" "one child per pass by weight (weights may use variables and functions, read as whole numbers at each pass): each user takes the child furthest below its share, or with `IsRandomChoice` a weighted draw (`--seed` repeats it); rows marked disabled are left out as the plugin does";
    "kg.apc.jmeter.control.ParameterizedController" => Controller Supported "jp@gc - Parameterized Controller" "sets its variables before each sampler of its subtree and once more when its pass ends, values evaluated each time";

    "DebugSampler" => Sampler Supported "Debug Sampler" "";
    "JavaSampler" => Sampler Supported "Java Request" "classes map to native implementations: JavaTest, SleepTest, the UDP sender `com.demo.udp.UdpSampler`; others by property `jmxr.java.<class>=udp` (see docs/udp.md)";
    "TestAction" => Sampler Supported "Flow Control Action" "";
    "SystemSampler" => Sampler Supported "OS Process Sampler" "";
    "HTTPSamplerProxy" => Sampler Supported "HTTP Request" HTTP_SAMPLER;
    "HTTPSampler" => Sampler Supported "HTTP Request (Java, legacy)" HTTP_SAMPLER;
    "HTTPSampler2" => Sampler Supported "HTTP Request (HttpClient, legacy)" HTTP_SAMPLER;
    "com.blazemeter.jmeter.http.ParallelHTTPSampler" => Sampler Supported "bzm - Parallel HTTP Requests" "the URL list (`${}` evaluated each sample) is fetched as the embedded resources of a page that is not requested, through JMeter's parallel downloads (at most `HTTPSampler.concurrentPool`, 6 unless set; one after the other when the plan turns `HTTPSampler.concurrentDwn` off) with the sampler's Header, Cookie and Cache Managers, timeouts and redirect settings, always as HttpClient 4; one sample with no response code and URL `http://parallel-urls-list`, from before the first download to the end of the last, failed with \"Embedded resource download error:\" when a download fails, holds the downloads as sub-results named `-0`, `-1`, ... as JMeter 5.6.3 names them";
    "com.blazemeter.jmeter.http2.sampler.HTTP2Sampler" => Sampler Supported "bzm - HTTP/2 Sampler" BZM_HTTP2;
    "com.blazemeter.jmeter.http2.sampler.HTTP2Request" => Sampler Supported "bzm - HTTP/2 Sampler (plugin 1.x)" BZM_HTTP2;
    "kg.apc.jmeter.samplers.HTTPRawSampler" => Sampler Supported "jp@gc - HTTP Raw Request" "data then file content over TCP, read until the server closes; timeout, keep-alive (a failed connection stays failed, as in the plugin), parse as HTTP (code, message, headers, first body piece); exception texts without Java's stack trace";
    "com.atlantbh.jmeter.plugins.rest.RestSampler" => Sampler Unsupported "jp@gc - RESTful Sampler" HTTP_VARIANT;
    "com.atlantbh.jmeter.plugins.oauth.OAuthSampler" => Sampler Unsupported "jp@gc - OAuth Sampler" HTTP_VARIANT;
    "SoapSampler" => Sampler Supported "SOAP/XML-RPC Request" "JMeter 2.x's sampler (removed in 3.2), run as an HTTP Request: a POST of the XML data or file to the full URL, `Content-Type: text/xml` unless a Header Manager says otherwise, the quoted `SOAPAction` header when asked; errors carry HttpClient 4's exception names";
    "JSR223Sampler" => Sampler Supported "JSR223 Sampler" SCRIPT;
    "BeanShellSampler" => Sampler Supported "BeanShell Sampler" SCRIPT;
    "BSFSampler" => Sampler Supported "BSF Sampler" SCRIPT;
    "TCPSampler" => Sampler Supported "TCP Sampler" "TCPClientImpl, BinaryTCPClientImpl, LengthPrefixedBinaryTCPClientImpl; per-user connections; `tcp.status.prefix` response scanning is not implemented";
    "kg.apc.jmeter.samplers.UDPSampler" => Sampler Supported "jp@gc - UDP Request" "raw (Windows-1252) and HexStringUDPDecoder encoders; other decoder classes (DNSJavaDecoder) are Java code and a plan error";
    "kg.apc.jmeter.samplers.DummySampler" => Sampler Supported "jp@gc - Dummy Sampler" "every field; without \"simulate waiting\" (or in plans from plugin versions without it) the response time is recorded, not waited";
    "JDBCSampler" => Sampler Supported "JDBC Request" JDBC;
    "JMSSampler" => Sampler Unsupported "JMS Point-to-Point" PROTO;
    "PublisherSampler" => Sampler Unsupported "JMS Publisher" PROTO;
    "SubscriberSampler" => Sampler Unsupported "JMS Subscriber" PROTO;
    "FTPSampler" => Sampler Supported "FTP Request" FTP;
    "LDAPSampler" => Sampler Supported "LDAP Request" LDAP;
    "LDAPExtSampler" => Sampler Supported "LDAP Extended Request" LDAP_EXT;
    "SmtpSampler" => Sampler Supported "SMTP Sampler" SMTP;
    "MailReaderSampler" => Sampler Supported "Mail Reader Sampler" MAIL_READER;
    "JUnitSampler" => Sampler Unsupported "JUnit Request" "runs Java test classes, which jmxr cannot load";
    "BoltSampler" => Sampler Unsupported "Bolt Request" PROTO;
    "eu.luminis.jmeter.wssampler.RequestResponseWebSocketSampler" => Sampler Supported "WebSocket request-response Sampler" WEBSOCKET;
    "eu.luminis.jmeter.wssampler.OpenWebSocketSampler" => Sampler Supported "WebSocket Open Connection" WEBSOCKET;
    "eu.luminis.jmeter.wssampler.SingleWriteWebSocketSampler" => Sampler Supported "WebSocket Single Write Sampler" WEBSOCKET;
    "eu.luminis.jmeter.wssampler.SingleReadWebSocketSampler" => Sampler Supported "WebSocket Single Read Sampler" WEBSOCKET;
    "eu.luminis.jmeter.wssampler.CloseWebSocketSampler" => Sampler Supported "WebSocket Close" WEBSOCKET;
    "eu.luminis.jmeter.wssampler.PingPongSampler" => Sampler Supported "WebSocket Ping/Pong" WEBSOCKET;
    "jmxr.sse.OpenStream" => Sampler Supported "SSE Open Stream (jmxr's own)" SSE;
    "jmxr.sse.ReadEvents" => Sampler Supported "SSE Read Events (jmxr's own)" SSE;
    "jmxr.sse.CloseStream" => Sampler Supported "SSE Close Stream (jmxr's own)" SSE;
    "JMeter.plugins.functional.samplers.websocket.WebSocketSampler" => Sampler Supported "WebSocket Sampler (jmeter-websocket plugin)" "text messages with response and close patterns, streaming connections by connection id, the message backlog and the plugin's execution log as response message; no proxy, no Header or Cookie Manager (that plugin version has none); see docs/websocket.md";
    "vn.zalopay.benchmark.testbean.GrpcRequest" => Sampler Supported "GRPC Request" GRPC;
    "vn.zalopay.benchmark.GRPCSampler" => Sampler Supported "GRPC Request (GRPCSampler)" "the plugin's later sampler on the same implementation as its TestBean form: separate host and port, JSON or key:value metadata, its result layout (' 500' and ' 400' codes and ' success' with a leading space, proto field names with default values in the answer) and its channel shut down after a failed call; see docs/grpc.md";
    "net.xmeter.samplers.ConnectSampler" => Sampler Supported "MQTT Connect" MQTT;
    "net.xmeter.samplers.ConnectionSampler" => Sampler Supported "MQTT Connection" "the 1.0 plugin's load-only connections: each sample connects (TCP or SSL, retries up to the attempt maximum), subscribes to topic_<client id> and leaves the connection open; all are held for the keep time after the test and then closed; the plugin's codes and messages; see docs/mqtt.md";
    "net.xmeter.samplers.DisConnectSampler" => Sampler Supported "MQTT DisConnect" MQTT;
    "net.xmeter.samplers.PubSampler" => Sampler Supported "MQTT Pub Sampler" MQTT;
    "net.xmeter.samplers.SubSampler" => Sampler Supported "MQTT Sub Sampler" MQTT;
    "com.blazemeter.jmeter.xmpp.JMeterXMPPSampler" => Sampler Unsupported "jp@gc - XMPP Sampler" PROTO;
    "nz.co.breakpoint.jmeter.iso8583.ISO8583Sampler" => Sampler Unsupported "ISO8583 Sampler" PROTO;
    "co.signal.loadgen.LoadGenerator" => Sampler Unsupported "Kafka Load Generator (co.signal)" PROTO;
    "com.googlecode.jmeter.plugins.webdriver.sampler.WebDriverSampler" => Sampler Unsupported "jp@gc - WebDriver Sampler" "browser automation (Selenium) is not planned";
    "com.atlantbh.jmeter.plugins.hadooputilities.hdfsoperations.HdfsOperations" => Sampler Unsupported "jp@gc - Hadoop HDFS Operations" PROTO;
    "com.atlantbh.jmeter.plugins.hadooputilities.jobstatistics.JobStatistics" => Sampler Unsupported "jp@gc - Hadoop Job Tracker Sampler" PROTO;
    "com.atlantbh.jmeter.plugins.hbasecomponents.samplers.HBaseRowkeySampler" => Sampler Unsupported "jp@gc - HBase RowKey Sampler" PROTO;
    "com.atlantbh.jmeter.plugins.hbasecomponents.samplers.HBaseScanSampler" => Sampler Unsupported "jp@gc - HBase Scan Sampler" PROTO;
    "com.atlantbh.jmeter.plugins.hbasecrud.HbaseCrud" => Sampler Unsupported "jp@gc - HBase CRUD Sampler" PROTO;

    "Arguments" => Config Supported "User Defined Variables" "";
    "CounterConfig" => Config Supported "Counter" "";
    "ConfigTestElement" gui "JavaConfigGui" => Config Supported "Java Request Defaults" "";
    "JavaConfig" => Config Supported "Java Request Defaults" "";
    "CSVDataSet" => Config Supported "CSV Data Set Config" "streamed line by line; encodings: UTF-8 and the ISO-8859-1 family (others are read as UTF-8 with a warning); `shareMode.group` keys readers by thread-group name";
    "RandomVariableConfig" => Config Supported "Random Variable" "seeded generators are Java's `java.util.Random`, so seeded values match JMeter's";
    "kg.apc.jmeter.config.VariablesFromCSV" => Config Supported "jp@gc - Variables From CSV File" "read when the plan is built (the file name must be plain text), prefix, delimiter text, skipped lines, `#` comments, quoted values over several lines; `storeSysProp` has no meaning without a JVM";
    "com.blazemeter.jmeter.RandomCSVDataSetConfig" => Config Supported "bzm - Random CSV Data Set Config" "random order without repeats or file order, rewind (a new shuffle) or every user stops at the end, header or given names, ignore first line, delimiter (`\\t`), encoding, quoted fields; one cursor shared by all users, as the plugin's \"independent list per thread\" also shares it; the file is read whole on first use";
    "com.blazemeter.jmeter.DirectoryListingConfig" => Config Supported "bzm - Directory Listing Config" "folder relative to the working folder, variable name, full or sub-path (cut as the plugin cuts it), random order, recursive, rewind, re-read, independent list per user; files sorted by path (the plugin takes the operating system's order)";
    "kg.apc.jmeter.config.redis.RedisDataSet" => Config Unsupported "jp@gc - Redis Data Set" PROTO;
    "ConfigTestElement" gui "HttpDefaultsGui" => Config Supported "HTTP Request Defaults" "fills absent or empty HTTP Request fields (closest wins) and appends its parameters; boolean defaults are not applied";
    "ConfigTestElement" gui "Http2DefaultsGui" => Config Supported "bzm - HTTP/2 Request Defaults (plugin 1.x)" "applies to bzm HTTP/2 Samplers of plugin 1.x as HTTP Request Defaults do to HTTP Requests";
    "ConfigTestElement" gui "LoginConfigGui" => Config Supported "Login Config Element" "user name and password for the LDAP Requests, FTP Requests and TCP Samplers in its scope that leave them empty (JMeter's other samplers do not read it)";
    "ConfigTestElement" gui "TCPConfigGui" => Config Supported "TCP Sampler Config" "defaults merged into TCP Samplers in scope at plan time";
    "ConfigTestElement" gui "FtpConfigGui" => Config Supported "FTP Request Defaults" "server, port, remote and local file, upload and binary settings the FTP Requests in its scope leave empty";
    "ConfigTestElement" gui "LdapConfigGui" => Config Supported "LDAP Request Defaults" "fills what the LDAP Requests and LDAP Extended Requests in its scope leave empty (their tables only when the sampler has none)";
    "ConfigTestElement" gui "LdapExtConfigGui" => Config Supported "LDAP Extended Request Defaults" "fills what the LDAP Extended Requests in its scope leave empty (their tables only when the sampler has none)";
    "ConfigTestElement" gui "SimpleConfigGui" => Config Supported "Simple Config Element" "an empty one, as JMeter's GUI creates it, changes nothing; properties added to it by hand are not merged into samplers (warning)";
    "HeaderManager" => Config Supported "HTTP Header Manager" "managers in scope merge: the innermost wins per header name";
    "CookieManager" => Config Supported "HTTP Cookie Manager" "per-user jar, standard policy (and ignoreCookies), clearEachIteration or controlledByThreadGroup, user-defined cookies; other policies behave as standard";
    "CacheManager" => Config Supported "HTTP Cache Manager" "per user: validators (If-Modified-Since, If-None-Match), Cache-Control/Expires freshness, Vary, max size, clear each iteration; a fresh GET makes no sample unless cache_manager.cached_resource_mode says otherwise. Clearing each iteration clears that user's cache only (JMeter clears every thread's)";
    "AuthManager" => Config Supported "HTTP Authorization Manager" "the first entry whose URL prefixes the request: Basic sent pre-emptively, Digest (MD5, qop=auth) in answer to the 401 challenge; Kerberos is not supported (a warning says so)";
    "DNSCacheManager" => Config Supported "DNS Cache Manager" "per-user cache (cleared each iteration when set); the custom resolver's static host table and DNS servers (host, host:port or [IPv6]:port; A records over UDP, CNAMEs followed; as in JMeter, literal IP addresses are asked too); names are looked up as given, without the system's search domains";
    "KeystoreConfig" => Config Supported "Keystore Configuration" "client certificates for HTTP Requests from the keystore of `-Djavax.net.ssl.keyStore` (PKCS#12 in file order, or PEM; a JKS file is refused with the keytool command that converts it); index range, per-user alias variable and `preload` as in JMeter, the fields evaluated once at test start (`${__P(...)}`); a keystore that cannot be read refuses the run when preloaded, else fails the samples that need it; run-wide wherever it sits";
    "JDBCDataSource" => Config Supported "JDBC Connection Configuration" JDBC_POOL;
    "BoltConnectionElement" => Config Unsupported "Bolt Connection Configuration" PROTO;
    "com.blazemeter.jmeter.xmpp.JMeterXMPPConnection" => Config Unsupported "jp@gc - XMPP Connection" PROTO;
    "com.atlantbh.jmeter.plugins.hbasecomponents.config.HBaseConnection" => Config Unsupported "jp@gc - HBase Connection Config" PROTO;
    "nz.co.breakpoint.jmeter.iso8583.ISO8583Config" => Config Unsupported "ISO8583 Connection Configuration" PROTO;
    "nz.co.breakpoint.jmeter.iso8583.ISO8583Component" => Config Unsupported "ISO8583 Message Component" PROTO;
    "kg.apc.jmeter.config.LockFile" => Config Unsupported "jp@gc - Lock File Config" NO_PLUGIN;
    "eu.luminis.jmeter.wssampler.PingFrameFilter" => Config Supported "WebSocket Ping Frame Filter" WS_FILTER;
    "eu.luminis.jmeter.wssampler.TextFrameFilter" => Config Supported "WebSocket Text Frame Filter" WS_FILTER;
    "eu.luminis.jmeter.wssampler.BinaryFrameFilter" => Config Supported "WebSocket Binary Frame Filter" WS_FILTER;
    "com.googlecode.jmeter.plugins.webdriver.config.ChromeDriverConfig" => Config Unsupported "jp@gc - Chrome Driver Config" "browser automation (Selenium) is not planned";
    "com.googlecode.jmeter.plugins.webdriver.config.FirefoxDriverConfig" => Config Unsupported "jp@gc - Firefox Driver Config" "browser automation (Selenium) is not planned";
    "com.googlecode.jmeter.plugins.webdriver.config.HtmlUnitDriverConfig" => Config Unsupported "jp@gc - HtmlUnit Driver Config" "browser automation (Selenium) is not planned";
    "com.github.johrstrom.config.PrometheusMetricsConfig" => Config Unsupported "Prometheus Metrics" "defines metrics that scripts update through the plugin's Java classes, which Rhai scripts cannot reach; the Prometheus Listener's own metrics are exposed", affects_run: false;

    "UserParameters" => PreProcessor Supported "User Parameters" "";
    "JSR223PreProcessor" => PreProcessor Supported "JSR223 PreProcessor" SCRIPT;
    "BeanShellPreProcessor" => PreProcessor Supported "BeanShell PreProcessor" SCRIPT;
    "BSFPreProcessor" => PreProcessor Supported "BSF PreProcessor" SCRIPT;
    "AnchorModifier" => PreProcessor Supported "HTML Link Parser" "the coming HTTP Request follows a random link, form or frame of the previous HTTP response whose protocol, host, path and argument names match the request's fields as regular expressions; form fields fill the request's arguments by name and value patterns";
    "URLRewritingModifier" => PreProcessor Supported "HTTP URL Re-writing Modifier" "finds the session id in the previous response (path extension, query parameter or hidden field) and adds it to the coming HTTP Request as a path extension or an argument; caches the last value per user";
    "RegExUserParameters" => PreProcessor Supported "RegEx User Parameters" "replaces the values of an HTTP Request's arguments named by a Regular Expression Extractor's groups, for the coming sample";
    "JDBCPreProcessor" => PreProcessor Supported "JDBC PreProcessor" JDBC;
    "kg.apc.jmeter.modifiers.FifoPopPreProcessor" => PreProcessor Supported "jp@gc - Inter-Thread Communication PreProcessor" "takes the oldest value of a named queue shared by the whole run into a variable, waiting up to `Timeout` seconds (empty: without limit); a timed-out pop leaves the variable unset; a stop of the run ends the wait with `INTERRUPTED`; `__fifoPop`, `__fifoPut`, `__fifoGet` and `__fifoSize` reach the same queues; queues have no capacity limit";
    "kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor" => PreProcessor Supported "jp@gc - Raw Data Source PreProcessor" "length-prefixed chunks dealt out to all users in file order, rewind or stop the user at the end, hex or UTF-8 text";
    "nz.co.breakpoint.jmeter.iso8583.ISO8583Crypto" => PreProcessor Unsupported "ISO8583 Crypto PreProcessor" PROTO;

    "RegexExtractor" => PostProcessor Supported "Regular Expression Extractor" "Perl 5 syntax through a backtracking engine (lookaround, back-references); `$` matches only at the very end and `\\d`/`\\w` are Unicode-aware; \"as document\" reads the body as text";
    "JSONPostProcessor" => PostProcessor Supported "JSON Extractor" "Jayway JSONPath for names, brackets, wildcards, deep scan, indexes, slices, filters (==, !=, <, <=, >, >=, =~, in, nin, existence, !, &&, ||) and length()/size()/min()/max()/avg()/sum(); default values ending in `;` are read as JMeter 5.6.3 or a later version reads them, whichever fits; lists of different lengths and invalid paths are plan errors (JMeter fails at run time)";
    "JMESPathExtractor" => PostProcessor Supported "JSON JMESPath Extractor" "JMESPath without expression references (`&expr`, so no `sort_by`/`max_by`/`min_by`/`map`); decimals in JSON results are written as Rust writes them (`1e10` gives `10000000000.0`, Java `1.0E10`)";
    "BoundaryExtractor" => PostProcessor Supported "Boundary Extractor" "";
    "HtmlExtractor" => PostProcessor Supported "CSS Selector Extractor" "jsoup's selector syntax (`:contains`, `:containsOwn`, `:matches`, `:has`, `:not`, `:eq`/`:lt`/`:gt`, `[attr~=regex]`) and `text()` spacing over an HTML5 parser's tree; JODD gives the raw text; `abs:` attribute prefixes are not resolved";
    "XPathExtractor" => PostProcessor Supported "XPath Extractor" "XPath 1.0; tolerant parsing uses an HTML5 parser instead of Tidy (its complaints count as Tidy warnings, unknown elements as errors); `validate`, `whitespace` and `download_dtds` have no effect, as in current JMeter";
    "XPath2Extractor" => PostProcessor Supported "XPath2 Extractor" "XPath 1.0 plus the XPath 2 parts plans use: sequences, `eq`/`ne`/`lt`/..., `if then else`, `idiv`, `*:name`, a function as last step, and `ends-with`, `matches`, `replace`, `lower-case`, `upper-case`, `string-join`, `tokenize`, `distinct-values`, `exists`, `empty`, `min`, `max`, `avg`, `abs`, `data`, `reverse`, `subsequence`, `head`, `tail`, `compare`; other constructs (`for`, `some`, `let`, types, `||`) are plan errors naming them; numbers are doubles, not decimals";
    "DebugPostProcessor" => PostProcessor Supported "Debug PostProcessor" "the sampler-properties section is left out (post-processors do not see the sampler element)";
    "com.atlantbh.jmeter.plugins.jsonutils.jsonpathextractor.JSONPathExtractor" => PostProcessor Supported "jp@gc - JSON Path Extractor" "one JSONPath (as the JSON Extractor reads it) from the body or a variable; arrays into name_1..name_n and name_matchNr, other values as the plugin prints them; the default when nothing is found";
    "com.atlantbh.jmeter.plugins.jsontoxmlconverter.JSONToXMLConverter" => Sampler Supported "jp@gc - JSON to XML Converter" "json-lib's XMLSerializer layout (root xmlOutput, array items as e, null=\"true\", @ keys as attributes, #text) as XOM prints it; strict JSON input, so json-lib's lenient syntax and its parser messages differ (docs/differences.md)";
    "com.atlantbh.jmeter.plugins.jsonutils.jsonformatter.JSONFormatter" => PostProcessor Supported "jp@gc - JSON Format Post Processor" "pretty-prints the main sample's JSON body as the plugin's json-lib does (indent 4, its layout quirks); strict JSON only: json-lib's lenient forms (single quotes, unquoted keys, `=`) leave the body unchanged with a warning";
    "com.atlantbh.jmeter.plugins.xmlformatter.XMLFormatPostProcessor" => PostProcessor Supported "jp@gc - XML Format Post Processor" "pretty-prints the main sample's XML body as the JDK's identity transform with indent 2 does (declaration with `standalone=\"no\"`, attributes sorted by name, whitespace-only text dropped); whitespace around mixed content can differ";
    "ResultAction" => PostProcessor Supported "Result Status Action Handler" "";
    "JSR223PostProcessor" => PostProcessor Supported "JSR223 PostProcessor" SCRIPT;
    "BeanShellPostProcessor" => PostProcessor Supported "BeanShell PostProcessor" SCRIPT;
    "BSFPostProcessor" => PostProcessor Supported "BSF PostProcessor" SCRIPT;
    "JDBCPostProcessor" => PostProcessor Supported "JDBC PostProcessor" JDBC;
    "kg.apc.jmeter.modifiers.FifoPutPostProcessor" => PostProcessor Supported "jp@gc - Inter-Thread Communication PostProcessor" "puts its `Value`, evaluated after the sample, into a named queue shared by the whole run";

    "ResponseAssertion" => Assertion Supported "Response Assertion" "";
    "DurationAssertion" => Assertion Supported "Duration Assertion" "";
    "SizeAssertion" => Assertion Supported "Size Assertion" "";
    "JSONPathAssertion" => Assertion Supported "JSON Assertion" "JSONPath as for the JSON Extractor; a response that is not strict JSON fails with jmxr's own parser message (JMeter's json-smart parser is permissive)";
    "JMESPathAssertion" => Assertion Supported "JSON JMESPath Assertion" "JMESPath as for the JMESPath Extractor; a response that is not JSON is an error with jmxr's parser message";
    "XPathAssertion" => Assertion Supported "XPath Assertion" "XPath 1.0; tolerant parsing as the XPath Extractor's; parser messages use Xerces' words for the common errors";
    "XPath2Assertion" => Assertion Supported "XPath2 Assertion" "the XPath2 Extractor's language; a parse error's message imitates Saxon's";
    "MD5HexAssertion" => Assertion Supported "MD5Hex Assertion" "";
    "HTMLAssertion" => Assertion Supported "HTML Assertion" "an HTML5 parser stands in for JTidy: its complaints count as warnings, elements Tidy does not know as errors, so counts differ from JMeter's (docs/differences.md); the error file uses Tidy's layout";
    "XMLAssertion" => Assertion Supported "XML Assertion" "well-formedness through jmxr's parser: the commonest failure messages use Xerces' words, others differ";
    "com.atlantbh.jmeter.plugins.jsonutils.jsonpathassertion.JSONPathAssertion" => Assertion Supported "jp@gc - JSON Path Assertion" "JMeter's JSON Assertion with the plugin's differences: values compare as printed text (decimals as numbers), no value check passes on an empty array, messages without the path";
    "org.apache.jmeter.assertions.JSONSchemaAssertion" => Assertion Supported "JSON Schema Assertion (plugin)" "the kde-intro plugin: schema file or inline schema, draft 4 by default; a violation is an error carrying fge's report layout and its wording for the common keywords, other keywords and parser messages differ (docs/differences.md)";
    "eu.luminis.jmeter.assertions.BinaryContentAssertion" => Assertion Supported "Binary Response Assertion (WebSocket samplers)" "Equals, Contains, StartsWith and their negations on the response bytes, values in the plugin's hex notation; Apply to as other assertions";
    "JSR223Assertion" => Assertion Supported "JSR223 Assertion" SCRIPT;
    "BeanShellAssertion" => Assertion Supported "BeanShell Assertion" SCRIPT;
    "BSFAssertion" => Assertion Supported "BSF Assertion" SCRIPT;

    "ConstantTimer" => Timer Supported "Constant Timer" "";
    "UniformRandomTimer" => Timer Supported "Uniform Random Timer" "";
    "GaussianRandomTimer" => Timer Supported "Gaussian Random Timer" "";
    "PoissonRandomTimer" => Timer Supported "Poisson Random Timer" "";
    "ConstantThroughputTimer" => Timer Supported "Constant Throughput Timer" "every calcMode (an index, the English text or the JMeter 6 name; other text is \"this thread only\", as in JMeter); a throughput of 0 waits a day at most per sample";
    "PreciseThroughputTimer" => Timer Supported "Precise Throughput Timer" "JMeter's schedule per thread group: exactly ceil(rate × duration) samples per `duration` window at uniform random moments, `batchSize` samples per moment, `randomSeed` gives JMeter's sequence (else `--seed` repeats runs); `batchThreadDelay`, `exactLimit` and `allowedThroughputSurplus` have no effect, as in JMeter 5; the schedule starts at the group's first sample rather than the group's start";
    "kg.apc.jmeter.timers.VariableThroughputTimer" => Timer Supported "jp@gc - Throughput Shaping Timer" "the table (values may use functions) and the `load_profile` property; samples are released on the plugin's per-second schedule; at the end of the profile the users in its scope stop (the plugin stops their thread groups); each second it publishes `<name>_rps`, `<name>_cntSent` and `<name>_cntDelayed`, which `__tstFeedback` reads";
    "SyncTimer" => Timer Supported "Synchronizing Timer" "releases users in groups of `groupSize` (0: the thread group's number of users); with `timeoutInMs` the users waiting go on when the first of them has waited that long; no wait outlasts the group's end or a stop";
    "JSR223Timer" => Timer Supported "JSR223 Timer" SCRIPT;
    "BeanShellTimer" => Timer Supported "BeanShell Timer" SCRIPT;
    "BSFTimer" => Timer Supported "BSF Timer" SCRIPT;

    "ResultCollector" => Listener Supported "Result Collector (View Results Tree, Summary Report, Simple Data Writer, ...)" WRITES_FILE;
    "kg.apc.jmeter.vizualizers.CorrectedResultCollector" => Listener Supported "jp@gc graph listener (Transactions per Second, ...)" WRITES_FILE;
    "kg.apc.jmeter.vizualizers.CompositeResultCollector" => Listener Ignored "jp@gc - Composite Graph" GRAPH;
    "kg.apc.jmeter.perfmon.PerfMonCollector" => Listener Ignored "jp@gc - PerfMon Metrics Collector" MONITOR;
    "kg.apc.jmeter.dbmon.DbMonCollector" => Listener Ignored "jp@gc - DbMon Samples Collector" MONITOR;
    "kg.apc.jmeter.jmxmon.JMXMonCollector" => Listener Ignored "jp@gc - JMXMon Samples Collector" MONITOR;
    "Summariser" => Listener Ignored "Generate Summary Results" "the console summary is always printed";
    "kg.apc.jmeter.reporters.ConsoleStatusLogger" => Listener Ignored "jp@gc - Console Status Logger" "its console lines are not printed; the summariser prints the same totals";
    "BackendListener" => Listener Supported "Backend Listener" "JMeter's InfluxDB client (HTTP or UDP sender, every parameter, the same measurement, tags, fields and `events` annotations) and Graphite client (plaintext protocol); the metrics go every `backend_influxdb.send_interval` / `backend_graphite.send_interval` seconds from a thread of their own, and a server that is down costs one warning, never the run. Other clients (raw InfluxDB, third-party classes) are left out with a warning";
    "com.github.johrstrom.listener.PrometheusListener" => Listener Supported "Prometheus Listener" "an HTTP endpoint (`prometheus.ip`, `prometheus.port`, `prometheus.delay`) with the plugin's counters, success ratios, histograms and summaries over response time, size, latency, idle and connect time, labelled by `label`, `code`, `thread_group` or a `sample_variables` entry, and `jmeter_threads`; no JVM metrics";
    "kg.apc.jmeter.listener.GraphsGeneratorListener" => Listener Unsupported "jp@gc - Graphs Generator" "draws graphs as files; the HTML dashboard (`-e -o DIR`) draws them instead";
    "kg.apc.jmeter.reporters.LoadosophiaUploader" => Listener Unsupported "jp@gc - BlazeMeter Sense Uploader" "uploading to BlazeMeter is not supported; the HTML dashboard (`-e -o DIR`) shows the results";
    "kg.apc.jmeter.reporters.FlexibleFileWriter" => Listener Supported "jp@gc - Flexible File Writer" "the plugin's `columns` syntax (every field name, `variable#N` from `sample_variables`, `\\t`/`\\r`/`\\n` escapes, an empty piece between bars for a bar, other text as written), header and footer, overwrite or append; records reach the file in buffered blocks rather than one write per sample";
    "ResultSaver" => Listener Supported "Save Responses to a file" "every option (prefix with `~/` for the plan's folder, variable name, errors or successes only, timestamp, number padding, no number, no suffix, transaction samples skipped); sub-samples get their own files; one number sequence per element for the whole run, as in JMeter";
    "MailerResultCollector" => Listener Supported "Mailer Visualizer" "mails `URL Failed: ` and the sample's label once more samples in its scope have failed than the failure limit, then `URL Restarted: ` and the label once more than the success limit have succeeded in a row after it; SMTP as the SMTP Sampler speaks it (STARTTLS or SSL, a login with either), sent from a thread of its own; writes its file as any Result Collector";
    "JSR223Listener" => Listener Supported "JSR223 Listener" SCRIPT;
    "BeanShellListener" => Listener Supported "BeanShell Listener" SCRIPT;
    "BSFListener" => Listener Supported "BSF Listener" SCRIPT;
    "kg.apc.jmeter.reporters.AutoStop" => Listener Supported "jp@gc - AutoStop Listener" "average response time, average latency and error rate over their seconds stop the run at once, with exit code 4; the plugin's later percentile and error-count conditions are refused";

    "WorkBench" => NonTest Ignored "WorkBench" "removed before the run, as JMeter does";
    "ProxyControl" => NonTest Ignored "HTTP(S) Test Script Recorder" "recording only";
    "HttpMirrorControl" => NonTest Ignored "HTTP Mirror Server" "a server started from JMeter's GUI; a non-GUI run does not start it";
    "ConfigTestElement" gui "PropertyControlGui" => NonTest Ignored "Property Display" "shows properties in JMeter's GUI";
    "org.jmeterplugins.protocol.http.control.HttpSimpleTableControl" => NonTest Ignored "jp@gc - HTTP Simple Table Server" "a data server started from JMeter's GUI or by `jmeterPlugin.sts.*` properties; jmxr does not start it";
};

/// The short alias JMeter writes for its own classes (`org.apache.jmeter.threads.ThreadGroup`
/// is saved as `ThreadGroup`), so either spelling finds the same row.
fn core_alias(class: &str) -> Option<&str> {
    class
        .strip_prefix("org.apache.jmeter.")
        .and_then(|rest| rest.rsplit('.').next())
}

/// Looks an element up by test class and GUI class. The GUI class may be fully
/// qualified (`org.apache.jmeter.config.gui.HttpDefaultsGui`); a test class may be
/// JMeter's alias or its fully qualified core class name.
pub fn lookup(class: &str, gui: &str) -> Option<&'static ElementInfo> {
    lookup_exact(class, gui)
        .or_else(|| core_alias(class).and_then(|alias| lookup_exact(alias, gui)))
}

fn lookup_exact(class: &str, gui: &str) -> Option<&'static ElementInfo> {
    let short_gui = gui.rsplit('.').next().unwrap_or(gui);
    let mut rows = ELEMENTS.iter().filter(|e| e.class == class);
    let by_gui = rows
        .clone()
        .find(|e| !e.gui.is_empty() && e.gui == short_gui);
    by_gui.or_else(|| rows.find(|e| e.gui.is_empty()))
}

/// Whether an unsupported element of `class` (found as `info`, or unknown) would change
/// the load or the verdict if skipped. Unknown classes are weighed by their name.
pub fn affects_run(info: Option<&ElementInfo>, class: &str) -> bool {
    match info {
        Some(info) => info.affects_run,
        None => guess_family(class).affects_run(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_unique_and_unsupported_rows_say_why() {
        for (i, a) in ELEMENTS.iter().enumerate() {
            for b in &ELEMENTS[i + 1..] {
                assert!(
                    !(a.class == b.class && a.gui == b.gui),
                    "duplicate row {} {}",
                    a.class,
                    a.gui
                );
            }
            if a.status != Status::Supported {
                assert!(!a.note.is_empty(), "{} needs a note", a.class);
            }
        }
    }

    #[test]
    fn config_test_element_depends_on_its_gui_class_short_or_qualified() {
        let short = lookup("ConfigTestElement", "HttpDefaultsGui").expect("row");
        let qualified = lookup(
            "ConfigTestElement",
            "org.apache.jmeter.protocol.http.config.gui.HttpDefaultsGui",
        )
        .expect("row");
        assert_eq!(short.title, "HTTP Request Defaults");
        assert_eq!(qualified.title, "HTTP Request Defaults");
        let java = lookup(
            "ConfigTestElement",
            "org.apache.jmeter.protocol.java.config.gui.JavaConfigGui",
        )
        .expect("row");
        assert_eq!(java.status, Status::Supported);
        assert!(lookup("ConfigTestElement", "SomethingElseGui").is_none());
    }

    #[test]
    fn fully_qualified_core_classes_find_their_alias() {
        let info = lookup("org.apache.jmeter.threads.ThreadGroup", "ThreadGroupGui").expect("row");
        assert_eq!(info.class, "ThreadGroup");
        let plugin = lookup("org.apache.jmeter.assertions.JSONSchemaAssertion", "").expect("row");
        assert_eq!(plugin.family, Family::Assertion);
    }

    #[test]
    fn a_test_stopping_listener_runs_and_a_graph_is_ignored() {
        let autostop = lookup("kg.apc.jmeter.reporters.AutoStop", "").expect("row");
        assert_eq!(autostop.status, Status::Supported);
        let backend = lookup("BackendListener", "BackendListenerGui").expect("row");
        assert!(!backend.blocks_run());
        let composite =
            lookup("kg.apc.jmeter.vizualizers.CompositeResultCollector", "").expect("row");
        assert_eq!(composite.status, Status::Ignored);
        let junit = lookup("JUnitSampler", "JUnitTestSamplerGui").expect("row");
        assert!(junit.blocks_run());
        assert!(affects_run(None, "com.example.FancySampler"));
        assert!(!affects_run(None, "com.example.FancyListener"));
    }
}
