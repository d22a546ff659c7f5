//! Shared helpers for end-to-end tests: locating the conformance data, running the
//! `jmxr` binary in a scratch working folder, and reading the files it writes.

#![allow(dead_code)]

pub mod batch;
pub mod db;
pub mod ftp_server;
pub mod jdbc_run;
pub mod mail_servers;
pub mod mosquitto;

pub mod services;
pub mod shards;
pub mod slapd;
pub mod slurm;
pub mod sockets;
pub mod tmpfs;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// `../shared/conformance` beside the checkout.
pub fn conformance() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance")
}

/// `jmx-fixtures/` of this project.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("jmx-fixtures")
}

/// A run that takes longer than this is a hang; it is killed and the test fails.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// Runs `jmxr` with `args` in `workdir` and returns its output. A run that does not end
/// within two minutes is killed so that a broken loop cannot hang the suite. Both pipes
/// are read while it runs: a child that fills a pipe nobody reads would block forever.
pub fn jmxr(workdir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_jmxr"))
        .args(args)
        .current_dir(workdir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("jmxr runs");
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = std::io::Read::read_to_end(&mut pipe, &mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("jmxr can be waited for") {
            break status;
        }
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            let stdout = stdout.join().unwrap_or_default();
            panic!(
                "jmxr {args:?} did not end within {RUN_LIMIT:?}; stdout: {}",
                String::from_utf8_lossy(&stdout)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// The largest resident size (kB) of any child process this test binary has waited for.
pub fn peak_rss_of_children_kb() -> i64 {
    // SAFETY: getrusage writes into the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss
}

/// Runs `jmxr -n -t jmx-fixtures/<fixture> -l out.jtl <extra>` in a scratch folder and
/// returns the `.jtl` it wrote; panics with jmxr's stderr when the run fails.
pub fn run_fixture(fixture: &str, extra: &[&str]) -> Jtl {
    let work = tempfile::tempdir().expect("scratch folder");
    run_fixture_in(work.path(), fixture, extra)
}

/// [`run_fixture`] in the given working folder, for tests that read the other files the
/// run writes there.
pub fn run_fixture_in(work: &Path, fixture: &str, extra: &[&str]) -> Jtl {
    run_fixture_printing(work, fixture, extra).0
}

/// [`run_fixture_in`], also returning what jmxr printed on stdout (end-of-run reports).
pub fn run_fixture_printing(work: &Path, fixture: &str, extra: &[&str]) -> (Jtl, String) {
    let plan = fixtures().join(fixture);
    let plan = plan.to_str().expect("fixture path is UTF-8");
    let mut args = vec!["-n", "-t", plan, "-l", "out.jtl"];
    args.extend_from_slice(extra);
    let output = jmxr(work, &args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{fixture} failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (Jtl::read(&work.join("out.jtl")), stdout)
}

/// Text of a file with CRLF turned into LF, as JMeter's batch comparison does.
pub fn read_lf(path: &Path) -> String {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.replace("\r\n", "\n")
}

/// A `.jtl` CSV with a header, as rows of (column → value).
pub struct Jtl {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Jtl {
    pub fn read(path: &Path) -> Jtl {
        let text = read_lf(path);
        let mut lines = parse_csv(&text).into_iter();
        let header = lines.next().unwrap_or_default();
        Jtl {
            header,
            rows: lines.collect(),
        }
    }

    pub fn column(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {:?}", self.header))
    }

    /// Values of one column, in file order.
    pub fn values(&self, name: &str) -> Vec<String> {
        let i = self.column(name);
        self.rows.iter().map(|r| r[i].clone()).collect()
    }

    /// Value of column `name` in `row`.
    pub fn get<'r>(&self, row: &'r [String], name: &str) -> &'r str {
        &row[self.column(name)]
    }

    /// Integer value of column `name` in `row` (`timeStamp`, `elapsed`, `bytes`, ...).
    pub fn int(&self, row: &[String], name: &str) -> i64 {
        let text = self.get(row, name);
        text.parse()
            .unwrap_or_else(|_| panic!("{name} is not a number: {text:?}"))
    }

    /// When a row's sample started and ended (`timeStamp`, `timeStamp + elapsed`), in ms.
    pub fn span(&self, row: &[String]) -> (i64, i64) {
        let start = self.int(row, "timeStamp");
        (start, start + self.int(row, "elapsed"))
    }

    /// The rows with this label, in file order.
    pub fn labelled(&self, label: &str) -> Vec<&[String]> {
        let l = self.column("label");
        self.rows
            .iter()
            .filter(|r| r[l] == label)
            .map(Vec::as_slice)
            .collect()
    }

    /// The only row with this label.
    pub fn one(&self, label: &str) -> &[String] {
        let rows = self.labelled(label);
        assert_eq!(rows.len(), 1, "rows labelled {label:?}");
        rows[0]
    }

    /// Rows written by one thread, in order.
    pub fn rows_of(&self, thread: &str) -> Vec<&[String]> {
        let t = self.column("threadName");
        self.rows
            .iter()
            .filter(|r| r[t] == thread)
            .map(Vec::as_slice)
            .collect()
    }

    /// Labels of the rows written by one thread, in order.
    pub fn labels_of(&self, thread: &str) -> Vec<String> {
        let (t, l) = (self.column("threadName"), self.column("label"));
        self.rows
            .iter()
            .filter(|r| r[t] == thread)
            .map(|r| r[l].clone())
            .collect()
    }
}

/// Splits CSV text into records, honouring quotes (a quoted field may span lines).
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if field.is_empty() => quoted = true,
            (',', false) => record.push(std::mem::take(&mut field)),
            ('\n', false) => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (c, _) => field.push(c),
        }
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push(record);
    }
    records
}
pub mod app_ws_server;
pub mod grpc_server;
pub mod h2_server;
pub mod http_server;
pub mod protowire;
pub mod sse_server;
pub mod wire;
pub mod ws_server;
pub mod xml_jtl;
