//! Running a JDBC fixture against one of the private database servers and reading the
//! XML `.jtl` back, with response data, sampler data and response headers saved.

use std::collections::HashMap;
use std::path::Path;

use super::db::{self, Server};
use super::{fixtures, jmxr};

/// Which driver a run names, and so which Java driver's behaviour jmxr reproduces.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Driver {
    Postgres,
    MariaDb,
    /// MySQL Connector/J talking to the MariaDB server.
    ConnectorJ,
}

impl Driver {
    pub fn properties(self, server: &Server) -> Vec<String> {
        let (scheme, class, ts_type) = match self {
            Driver::Postgres => ("postgresql", "org.postgresql.Driver", "timestamp(3)"),
            Driver::MariaDb => ("mariadb", "org.mariadb.jdbc.Driver", "datetime(3)"),
            Driver::ConnectorJ => ("mysql", "com.mysql.cj.jdbc.Driver", "datetime(3)"),
        };
        vec![
            format!(
                "-Jdb.url=jdbc:{scheme}://127.0.0.1:{}/{}",
                server.port,
                db::DATABASE
            ),
            format!("-Jdb.driver={class}"),
            format!("-Jdb.user={}", db::USER),
            format!("-Jdb.password={}", db::PASSWORD),
            format!("-Jts_type={ts_type}"),
        ]
    }

    pub fn server(self) -> &'static Server {
        match self {
            Driver::Postgres => db::postgres(),
            Driver::MariaDb | Driver::ConnectorJ => db::mariadb(),
        }
    }
}

/// One sample of the XML `.jtl`.
#[derive(Debug, Clone, Default)]
pub struct Sample {
    pub label: String,
    pub thread: String,
    pub code: String,
    pub message: String,
    pub success: bool,
    pub data: String,
    pub sampler_data: String,
    pub headers: String,
    pub bytes: i64,
    pub elapsed: i64,
    pub latency: i64,
    pub connect: i64,
    pub data_type: String,
    pub variables: HashMap<String, String>,
}

/// The samples of a run, in file order.
pub struct Samples(pub Vec<Sample>);

impl Samples {
    /// The only sample labelled `label`.
    pub fn one(&self, label: &str) -> &Sample {
        let found: Vec<&Sample> = self.0.iter().filter(|s| s.label == label).collect();
        assert_eq!(
            found.len(),
            1,
            "samples labelled {label:?}: {:?}",
            self.labels()
        );
        found[0]
    }

    pub fn labelled(&self, label: &str) -> Vec<&Sample> {
        self.0.iter().filter(|s| s.label == label).collect()
    }

    pub fn labels(&self) -> Vec<&str> {
        self.0.iter().map(|s| s.label.as_str()).collect()
    }
}

/// Runs `jmx-fixtures/jdbc/<fixture>` with the driver's properties and `extra`
/// arguments; `sample_variables` names variables to save with every sample.
pub fn run(fixture: &str, driver: Driver, sample_variables: &[&str], extra: &[&str]) -> Samples {
    let server = driver.server();
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("jdbc").join(fixture);
    let mut args: Vec<String> = vec![
        "-n".into(),
        "-t".into(),
        plan.to_str().expect("UTF-8 path").into(),
        "-l".into(),
        "out.jtl".into(),
        "-Jjmeter.save.saveservice.output_format=xml".into(),
        "-Jjmeter.save.saveservice.response_data=true".into(),
        "-Jjmeter.save.saveservice.samplerData=true".into(),
        "-Jjmeter.save.saveservice.responseHeaders=true".into(),
    ];
    if !sample_variables.is_empty() {
        args.push(format!("-Jsample_variables={}", sample_variables.join(",")));
    }
    args.extend(driver.properties(server));
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = jmxr(work.path(), &refs);
    assert!(
        output.status.success(),
        "{fixture} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    read(&work.path().join("out.jtl"), sample_variables)
}

/// An attribute name as XStream writes it in an XML `.jtl`: `_` doubled, other
/// characters outside names as `_.` and four hex digits (`id_#` is `id___.0023`).
fn xstream_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        match c {
            '_' => out.push_str("__"),
            c if c.is_ascii_alphanumeric() || c == '-' || c == '.' => out.push(c),
            c => out.push_str(&format!("_.{:04x}", c as u32)),
        }
    }
    out
}

fn read(path: &Path, sample_variables: &[&str]) -> Samples {
    let text = std::fs::read_to_string(path).expect("jtl");
    let doc = roxmltree::Document::parse(&text).expect("XML jtl");
    let samples = doc
        .root_element()
        .children()
        .filter(|n| n.is_element())
        .map(|n| {
            let attr = |name: &str| n.attribute(name).unwrap_or("").to_string();
            let number = |name: &str| attr(name).parse::<i64>().unwrap_or(-1);
            let child = |tag: &str| {
                n.children()
                    .find(|c| c.has_tag_name(tag))
                    .and_then(|c| c.text())
                    .unwrap_or("")
                    .to_string()
            };
            let variables = sample_variables
                .iter()
                .map(|v| (v.to_string(), attr(&xstream_name(v))))
                .collect();
            Sample {
                label: attr("lb"),
                thread: attr("tn"),
                code: attr("rc"),
                message: attr("rm"),
                success: attr("s") == "true",
                data: child("responseData"),
                sampler_data: child("samplerData"),
                headers: child("responseHeader"),
                bytes: number("by"),
                elapsed: number("t"),
                latency: number("lt"),
                connect: number("ct"),
                data_type: attr("dt"),
                variables,
            }
        })
        .collect();
    Samples(samples)
}
