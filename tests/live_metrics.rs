//! Live metrics: the Backend Listener against a real InfluxDB 1.x and a local Graphite
//! receiver. Each test runs a plan from `jmx-fixtures/live/` and checks what the server
//! holds against the `.jtl` of the same run.

mod support;

use std::collections::BTreeMap;
use std::io::Read;
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use support::services::InfluxDb;
use support::{fixtures, jmxr, Jtl};

/// Runs a live fixture in a scratch folder with `-J` properties; the `.jtl`, stdout and
/// stderr.
fn run(fixture: &str, props: &[(&str, &str)]) -> (Jtl, String, String) {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("live").join(fixture);
    let mut args = vec![
        "-n".to_string(),
        "-t".to_string(),
        plan.display().to_string(),
        "-l".to_string(),
        "out.jtl".to_string(),
    ];
    args.extend(props.iter().map(|(k, v)| format!("-J{k}={v}")));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = jmxr(work.path(), &args);
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{fixture}: {stderr}");
    (Jtl::read(&work.path().join("out.jtl")), stdout, stderr)
}

/// Per label: (samples, failures) in the `.jtl`.
fn jtl_counts(jtl: &Jtl) -> BTreeMap<String, (i64, i64)> {
    let mut counts = BTreeMap::new();
    for row in &jtl.rows {
        let entry = counts
            .entry(jtl.get(row, "label").to_string())
            .or_insert((0, 0));
        entry.0 += 1;
        if jtl.get(row, "success") != "true" {
            entry.1 += 1;
        }
    }
    counts
}

/// `SELECT sum(field) … GROUP BY tag` as tag value → sum.
fn sums(db: &InfluxDb, name: &str, q: &str, tag: &str) -> BTreeMap<String, i64> {
    db.query(name, q)
        .iter()
        .map(|series| {
            let key = series["tags"][tag].as_str().unwrap_or("").to_string();
            (key, series["values"][0][1].as_i64().unwrap_or(-1))
        })
        .collect()
}

/// The values of a tag in the database.
fn tag_values(db: &InfluxDb, name: &str, tag: &str) -> Vec<String> {
    let q = format!("SHOW TAG VALUES FROM \"jmeter\" WITH KEY = \"{tag}\"");
    let series = db.query(name, &q);
    let mut values: Vec<String> = series
        .iter()
        .flat_map(|s| s["values"].as_array().cloned().unwrap_or_default())
        .map(|row| row[1].as_str().unwrap_or("").to_string())
        .collect();
    values.sort();
    values
}

const FAST: (&str, &str) = ("backend_influxdb.send_interval", "1");

#[test]
fn influxdb_holds_the_jtls_counts_per_transaction_with_percentiles_and_events() {
    let db = InfluxDb::start();
    let url = db.database("jmeter");
    let (jtl, _, stderr) = run("backend_influxdb.jmx", &[("influx_url", &url), FAST]);
    assert!(!stderr.contains("warning"), "{stderr}");
    let expected = jtl_counts(&jtl);
    assert_eq!(expected.len(), 5, "{expected:?}");

    let all = sums(
        &db,
        "jmeter",
        "SELECT sum(\"count\") FROM \"jmeter\" WHERE \"statut\" = 'all' GROUP BY \"transaction\"",
        "transaction",
    );
    let ko = sums(
        &db,
        "jmeter",
        "SELECT sum(\"count\") FROM \"jmeter\" WHERE \"statut\" = 'ko' GROUP BY \"transaction\"",
        "transaction",
    );
    for (label, (count, failures)) in &expected {
        assert_eq!(all.get(label), Some(count), "samples of {label}: {all:?}");
        assert_eq!(
            ko.get(label).copied().unwrap_or(0),
            *failures,
            "failures of {label}"
        );
    }
    let total: i64 = expected.values().map(|c| c.0).sum();
    let failed: i64 = expected.values().map(|c| c.1).sum();
    assert_eq!(all.get("all"), Some(&total));
    let errors = db.query(
        "jmeter",
        "SELECT sum(\"countError\") FROM \"jmeter\" WHERE \"transaction\" = 'all'",
    );
    assert_eq!(errors[0]["values"][0][1].as_i64(), Some(failed));

    // Several sends, each a point per transaction and status.
    let points = db.query(
        "jmeter",
        "SELECT \"count\" FROM \"jmeter\" WHERE \"transaction\" = 'Home page' AND \"statut\" = 'all'",
    );
    let sent = points[0]["values"].as_array().map_or(0, Vec::len);
    assert!(sent >= 2, "one point per send: {points:?}");

    // Errors by response code and message, assertions under their message.
    let by_code = sums(
        &db,
        "jmeter",
        "SELECT sum(\"count\") FROM \"jmeter\" WHERE \"responseCode\" <> '' GROUP BY \"responseCode\"",
        "responseCode",
    );
    assert_eq!(by_code.get("500"), Some(&expected["Checkout"].1));
    assert_eq!(by_code.get("Assertion failed"), Some(&expected["Search"].1));

    let fields = db.query("jmeter", "SHOW FIELD KEYS FROM \"jmeter\"");
    let fields: Vec<&str> = fields[0]["values"]
        .as_array()
        .expect("fields")
        .iter()
        .filter_map(|row| row[0].as_str())
        .collect();
    for field in [
        "count",
        "countError",
        "avg",
        "min",
        "max",
        "hit",
        "sb",
        "rb",
        "pct90.0",
        "pct95.0",
        "pct99.0",
        "minAT",
        "maxAT",
        "meanAT",
        "startedT",
        "endedT",
    ] {
        assert!(fields.contains(&field), "{field} missing from {fields:?}");
    }
    let percentiles = db.query(
        "jmeter",
        "SELECT max(\"pct90.0\"), max(\"max\") FROM \"jmeter\" WHERE \"transaction\" = 'Home page' AND \"statut\" = 'ok'",
    );
    let row = &percentiles[0]["values"][0];
    let (p90, max) = (row[1].as_f64().unwrap(), row[2].as_f64().unwrap());
    assert!(p90 > 0.0 && p90 <= max, "pct90.0 {p90}, max {max}");

    let users = db.query(
        "jmeter",
        "SELECT max(\"startedT\"), max(\"maxAT\") FROM \"jmeter\" WHERE \"transaction\" = 'internal'",
    );
    assert_eq!(users[0]["values"][0][1].as_i64(), Some(3));
    assert_eq!(users[0]["values"][0][2].as_i64(), Some(3));

    let events = db.query(
        "jmeter",
        "SELECT \"text\", \"title\", \"tags\", \"env\" FROM \"events\"",
    );
    let rows: Vec<Vec<String>> = events[0]["values"]
        .as_array()
        .expect("events")
        .iter()
        .map(|row| {
            (1..5)
                .map(|i| row[i].as_str().unwrap_or("").to_string())
                .collect()
        })
        .collect();
    assert_eq!(
        rows,
        [
            ["Nightly run started", "ApacheJMeter", "ci", "test lab"],
            ["Nightly run ended", "ApacheJMeter", "ci", "test lab"],
        ]
    );
}

#[test]
fn summary_only_and_samplers_regex_choose_what_is_written_as_jmeter_does() {
    let db = InfluxDb::start();
    let summary = db.database("summary");
    let (jtl, _, _) = run(
        "backend_influxdb.jmx",
        &[("influx_url", &summary), ("summary_only", "true"), FAST],
    );
    assert_eq!(
        tag_values(&db, "summary", "transaction"),
        ["all", "internal"]
    );
    let all = sums(
        &db,
        "summary",
        "SELECT sum(\"count\") FROM \"jmeter\" WHERE \"transaction\" = 'all' GROUP BY \"statut\"",
        "statut",
    );
    assert_eq!(all.get("all"), Some(&(jtl.rows.len() as i64)));

    // JMeter finds the expression anywhere in the label; the run's total counts every sample.
    let some = db.database("some");
    let (jtl, _, _) = run(
        "backend_influxdb.jmx",
        &[("influx_url", &some), ("samplers_regex", "^Log|out$"), FAST],
    );
    assert_eq!(
        tag_values(&db, "some", "transaction"),
        ["Checkout", "Log in", "all", "internal"]
    );
    let all = sums(
        &db,
        "some",
        "SELECT sum(\"count\") FROM \"jmeter\" WHERE \"statut\" = 'all' GROUP BY \"transaction\"",
        "transaction",
    );
    assert_eq!(all.get("all"), Some(&(jtl.rows.len() as i64)));
    assert_eq!(all.get("Log in"), Some(&jtl_counts(&jtl)["Log in"].0));
}

#[test]
fn influxdb_stopping_mid_run_leaves_the_run_and_its_jtl_intact_with_one_warning() {
    let mut db = InfluxDb::start();
    let url = db.database("jmeter");
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("live/backend_influxdb.jmx");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_jmxr"))
        .args(["-n", "-t", plan.to_str().unwrap(), "-l", "out.jtl"])
        .arg(format!("-Jinflux_url={url}"))
        .args(["-Jduration=4", "-Jbackend_influxdb.send_interval=1"])
        .current_dir(work.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("jmxr runs");
    std::thread::sleep(Duration::from_millis(1500));
    db.kill();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("stderr read");
    let status = child.wait().expect("jmxr ends");
    let took = started.elapsed();
    assert!(status.success(), "{stderr}");
    assert!(took < Duration::from_secs(9), "the run stalled: {took:?}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("InfluxDB at"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].starts_with("warning: "), "{stderr}");
    assert!(
        warnings[0].contains("Live metrics"),
        "names the listener: {stderr}"
    );

    // The .jtl holds the whole run: every label, samples up to the end of the 4 s.
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    assert_eq!(jtl_counts(&jtl).len(), 5);
    let first = jtl
        .rows
        .iter()
        .map(|r| jtl.int(r, "timeStamp"))
        .min()
        .unwrap();
    let last = jtl
        .rows
        .iter()
        .map(|r| jtl.int(r, "timeStamp"))
        .max()
        .unwrap();
    assert!(last - first >= 3_500, "samples stop {} ms in", last - first);
}

/// A Graphite plaintext receiver on 127.0.0.1: every line it is sent.
fn graphite_receiver() -> (u16, Arc<Mutex<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let received = Arc::new(Mutex::new(String::new()));
    let into = received.clone();
    std::thread::spawn(move || {
        // One connection is kept for the whole run; accept a few in case of reconnects.
        for stream in listener.incoming().take(4) {
            let Ok(mut stream) = stream else { return };
            let into = into.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stream.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    into.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
        }
    });
    (port, received)
}

#[test]
fn graphite_receives_jmeters_plaintext_lines() {
    let (port, received) = graphite_receiver();
    let (jtl, _, stderr) = run(
        "backend_graphite.jmx",
        &[("graphite_port", &port.to_string()), ("duration", "2")],
    );
    assert!(!stderr.contains("warning"), "{stderr}");
    std::thread::sleep(Duration::from_millis(200));
    let text = received.lock().unwrap().clone();
    let mut sums: BTreeMap<String, f64> = BTreeMap::new();
    let mut seconds = Vec::new();
    for line in text.lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        assert_eq!(parts.len(), 3, "{line:?}");
        let value: f64 = parts[1].parse().expect("a number");
        let second: i64 = parts[2].parse().expect("epoch seconds");
        assert!(second > 1_600_000_000, "{line}");
        seconds.push(second);
        *sums.entry(parts[0].to_string()).or_default() += value;
    }
    let sends = {
        let mut s = seconds.clone();
        s.dedup();
        s.len()
    };
    assert!(sends >= 2, "a send every second: {text}");
    let expected = jtl_counts(&jtl);
    // Only the labels of `samplersList` get metrics of their own.
    assert!(
        sums.keys().all(|k| !k.starts_with("shop.Search.")),
        "{sums:?}"
    );
    assert_eq!(
        sums["shop.Home-page.a.count"] as i64,
        expected["Home page"].0
    );
    assert_eq!(sums["shop.Log-in.ok.count"] as i64, expected["Log in"].0);
    let total: i64 = expected.values().map(|c| c.0).sum();
    let failed: i64 = expected.values().map(|c| c.1).sum();
    assert_eq!(sums["shop.all.a.count"] as i64, total);
    assert_eq!(sums["shop.all.ko.count"] as i64, failed);
    for name in [
        "shop.Home-page.a.pct90",
        "shop.Home-page.ok.pct99_5",
        "shop.Home-page.a.avg",
        "shop.all.ko.min",
        "shop.all.h.count",
        "shop.all.rb.bytes",
        "shop.test.startedT",
        "shop.test.maxAT",
    ] {
        assert!(sums.contains_key(name), "{name} missing: {text}");
    }
}
