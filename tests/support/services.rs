//! Private instances of the servers the live-metrics tests send to: InfluxDB 1.x
//! (Debian's `influxd`, installed by `.ci/run`), started on 127.0.0.1 with a temporary
//! data folder and configuration of its own, never as a system service, and stopped
//! when dropped; plus a small HTTP GET for their query APIs.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A port free on 127.0.0.1 right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// `GET path` on 127.0.0.1:port (or `POST` with `body`); the status and body.
pub fn http(port: u16, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("server reachable");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("request sent");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let text = String::from_utf8_lossy(&response).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// Percent-encodes a query parameter.
pub fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Waits up to 30 s for `ready`.
fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{what} did not start"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A private InfluxDB 1.x on 127.0.0.1.
pub struct InfluxDb {
    child: Option<Child>,
    pub port: u16,
    dir: tempfile::TempDir,
}

impl InfluxDb {
    /// Starts `influxd` with a configuration of its own; panics if it is not installed.
    pub fn start() -> InfluxDb {
        let dir = tempfile::tempdir().expect("scratch folder");
        let port = free_port();
        let rpc = free_port();
        let d = dir.path().display();
        let config = format!(
            "reporting-disabled = true\nbind-address = \"127.0.0.1:{rpc}\"\n\
             [meta]\n  dir = \"{d}/meta\"\n\
             [data]\n  dir = \"{d}/data\"\n  wal-dir = \"{d}/wal\"\n  query-log-enabled = false\n\
             [http]\n  enabled = true\n  bind-address = \"127.0.0.1:{port}\"\n  log-enabled = false\n\
             [monitor]\n  store-enabled = false\n\
             [continuous_queries]\n  enabled = false\n"
        );
        let config_path = dir.path().join("influxdb.conf");
        std::fs::write(&config_path, config).expect("config written");
        let log = std::fs::File::create(dir.path().join("influxd.log")).expect("log file");
        let child = Command::new("influxd")
            .arg("-config")
            .arg(&config_path)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("influxd runs (.ci/run installs Debian's influxdb package)");
        let db = InfluxDb {
            child: Some(child),
            port,
            dir,
        };
        wait_for("influxd", || {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
                && http(port, "GET", "/ping", "").0 == 204
        });
        db
    }

    /// The write URL of database `name`, made first.
    pub fn database(&self, name: &str) -> String {
        let (status, body) = self.post_query(&format!("CREATE DATABASE \"{name}\""));
        assert_eq!(status, 200, "{body}");
        format!("http://127.0.0.1:{}/write?db={name}", self.port)
    }

    fn post_query(&self, q: &str) -> (u16, String) {
        http(self.port, "POST", "/query", &format!("q={}", encode(q)))
    }

    /// The rows of an InfluxQL query's first statement, as (tags, columns → values).
    pub fn query(&self, db: &str, q: &str) -> Vec<serde_json::Value> {
        let path = format!("/query?db={}&q={}", encode(db), encode(q));
        let (status, body) = http(self.port, "GET", &path, "");
        assert_eq!(status, 200, "{q}: {body}");
        let json: serde_json::Value = serde_json::from_str(&body).expect("JSON answer");
        let result = &json["results"][0];
        assert!(result.get("error").is_none(), "{q}: {body}");
        result["series"].as_array().cloned().unwrap_or_default()
    }

    /// Stops the server at once, as a crash or a lost network would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("influxd.log")).unwrap_or_default()
    }
}

impl Drop for InfluxDb {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A private Prometheus on 127.0.0.1 that scrapes `target` (host:port) every second.
pub struct Prometheus {
    child: Child,
    pub port: u16,
    _dir: tempfile::TempDir,
}

impl Prometheus {
    /// Starts Debian's `prometheus` with a configuration and data folder of its own;
    /// panics if it is not installed.
    pub fn start(target: &str) -> Prometheus {
        let dir = tempfile::tempdir().expect("scratch folder");
        let port = free_port();
        let config = format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n\
             scrape_configs:\n  - job_name: jmxr\n    static_configs:\n      - targets: ['{target}']\n"
        );
        let config_path = dir.path().join("prometheus.yml");
        std::fs::write(&config_path, config).expect("config written");
        let log = std::fs::File::create(dir.path().join("prometheus.log")).expect("log file");
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", config_path.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("prometheus runs (.ci/run installs Debian's prometheus package)");
        let server = Prometheus {
            child,
            port,
            _dir: dir,
        };
        wait_for("prometheus", || {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
                && http(port, "GET", "/-/ready", "").0 == 200
        });
        // Prometheus takes its targets a few seconds after it is ready: wait for the
        // first scrape (of nothing yet, `up` 0) so the run is scraped from its start.
        wait_for("prometheus' first scrape", || {
            !server.query("up").is_empty()
        });
        server
    }

    /// The result vector of an instant PromQL query: (labels, value) per series.
    pub fn query(&self, q: &str) -> Vec<(serde_json::Value, f64)> {
        let path = format!("/api/v1/query?query={}", encode(q));
        let (status, body) = http(self.port, "GET", &path, "");
        assert_eq!(status, 200, "{q}: {body}");
        let json: serde_json::Value = serde_json::from_str(&body).expect("JSON answer");
        assert_eq!(json["status"], "success", "{q}: {body}");
        json["data"]["result"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .map(|series| {
                let value = series["value"][1]
                    .as_str()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(f64::NAN);
                (series["metric"].clone(), value)
            })
            .collect()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
