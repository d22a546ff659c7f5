//! The Prometheus Listener plugin's endpoint, scraped by a real Prometheus (Debian's
//! `prometheus`, installed by `.ci/run`) during a run of
//! `jmx-fixtures/live/prometheus_listener.jmx`; its query API must give the `.jtl`'s
//! numbers.

mod support;

use std::collections::BTreeMap;
use std::net::TcpListener;

use support::services::{free_port, http, Prometheus};
use support::{fixtures, jmxr, Jtl};

/// Runs the fixture with the endpoint on `port`; the `.jtl` and stderr.
fn run(port: u16, extra: &[&str]) -> (Jtl, String) {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("live/prometheus_listener.jmx");
    let port = format!("-Jprometheus.port={port}");
    let mut args = vec!["-n", "-t", plan.to_str().unwrap(), "-l", "out.jtl", &port];
    args.extend(extra);
    let output = jmxr(work.path(), &args);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{stderr}");
    (Jtl::read(&work.path().join("out.jtl")), stderr)
}

/// `max_over_time(metric[5m])` per value of `by`: counters only grow, so this is the
/// last value scraped, stale markers after the run aside.
fn last(prometheus: &Prometheus, metric: &str, by: &str) -> BTreeMap<String, f64> {
    prometheus
        .query(&format!("max_over_time({metric}[5m])"))
        .into_iter()
        .map(|(labels, value)| (labels[by].as_str().unwrap_or("").to_string(), value))
        .collect()
}

/// Per label of the `.jtl`: (samples, failures).
fn jtl_counts(jtl: &Jtl) -> BTreeMap<String, (f64, f64)> {
    let mut counts = BTreeMap::new();
    for row in &jtl.rows {
        let entry = counts
            .entry(jtl.get(row, "label").to_string())
            .or_insert((0.0, 0.0));
        entry.0 += 1.0;
        if jtl.get(row, "success") != "true" {
            entry.1 += 1.0;
        }
    }
    counts
}

#[test]
fn prometheus_scrapes_the_listeners_endpoint_and_its_counters_equal_the_jtl() {
    let port = free_port();
    let prometheus = Prometheus::start(&format!("127.0.0.1:{port}"));
    // The endpoint stays up 3 s after the run, so scrapes see the final numbers.
    let (jtl, stderr) = run(port, &["-Jduration=4", "-Jprometheus.delay=3"]);
    assert!(!stderr.contains("warning"), "{stderr}");
    let expected = jtl_counts(&jtl);
    assert_eq!(expected.len(), 5, "{expected:?}");

    let scrapes = prometheus.query("count_over_time(up{job=\"jmxr\"}[5m])");
    assert!(scrapes[0].1 >= 4.0, "scraped during the run: {scrapes:?}");

    let counts = last(&prometheus, "shop_count_total", "label");
    let histogram = last(&prometheus, "shop_rt_count", "label");
    let failures: BTreeMap<String, f64> = prometheus
        .query("sum by (label) (max_over_time(shop_failures_total[5m]))")
        .into_iter()
        .map(|(labels, value)| (labels["label"].as_str().unwrap_or("").to_string(), value))
        .collect();
    for (label, (samples, failed)) in &expected {
        assert_eq!(
            counts.get(label),
            Some(samples),
            "samples of {label}: {counts:?}"
        );
        assert_eq!(histogram.get(label), Some(samples), "histogram of {label}");
        assert_eq!(
            failures.get(label).copied().unwrap_or(0.0),
            *failed,
            "failures of {label}"
        );
    }
    let checkout = last(&prometheus, "shop_failures_total", "code");
    assert_eq!(checkout.get("500"), Some(&expected["Checkout"].1));

    let total: f64 = expected.values().map(|c| c.0).sum();
    let failed: f64 = expected.values().map(|c| c.1).sum();
    let ratio = |name: &str| last(&prometheus, name, "__name__").values().sum::<f64>();
    assert_eq!(ratio("shop_ok_total"), total);
    assert_eq!(ratio("shop_ok_failure_total"), failed);
    assert_eq!(ratio("shop_ok_success_total"), total - failed);

    // Failed assertions are counted under the assertion's name.
    let assertions = last(&prometheus, "shop_assertions_failed_total", "label");
    assert_eq!(assertions.get("Has results"), Some(&expected["Search"].1));

    // Histogram buckets are cumulative and labelled by thread group too.
    let buckets = prometheus.query(
        "max_over_time(shop_rt_bucket{label=\"Home page\",thread_group=\"Shoppers\",le=\"+Inf\"}[5m])",
    );
    assert_eq!(buckets.len(), 1, "{buckets:?}");
    assert_eq!(buckets[0].1, expected["Home page"].0);
    let under_20 =
        prometheus.query("max_over_time(shop_rt_bucket{label=\"Home page\",le=\"20.0\"}[5m])");
    assert!(
        under_20[0].1 > 0.0 && under_20[0].1 < buckets[0].1,
        "{under_20:?}"
    );

    // The quantiles lie within the elapsed times the .jtl holds for the label (the
    // Dummy Sampler sleeps 5–20 ms; a loaded machine may add a millisecond or two).
    let elapsed: Vec<f64> = jtl
        .labelled("Log in")
        .iter()
        .map(|row| jtl.int(row, "elapsed") as f64)
        .collect();
    let slowest = elapsed.iter().cloned().fold(0.0, f64::max);
    let fastest = elapsed.iter().cloned().fold(f64::MAX, f64::min);
    let quantiles = prometheus.query("max_over_time(shop_rt_summary{label=\"Log in\"}[5m])");
    let mut seen: Vec<String> = quantiles
        .iter()
        .map(|(labels, value)| {
            assert!(
                (fastest..=slowest).contains(value) && *value >= 5.0,
                "{labels} {value} outside {fastest}..={slowest}"
            );
            labels["quantile"].as_str().unwrap_or("").to_string()
        })
        .collect();
    seen.sort();
    assert_eq!(seen, ["0.5", "0.9"]);

    let users = last(&prometheus, "jmeter_threads", "state");
    assert_eq!(users.get("started"), Some(&3.0), "{users:?}");
    assert_eq!(users.get("active"), Some(&3.0), "{users:?}");
}

#[test]
fn the_endpoint_answers_in_text_format_and_a_taken_port_costs_a_warning_only() {
    // While the run's endpoint is up, its text is Prometheus' format 0.0.4.
    let port = free_port();
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("live/prometheus_listener.jmx");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_jmxr"))
        .args([
            "-n",
            "-t",
            plan.to_str().unwrap(),
            "-l",
            "out.jtl",
            "-Jduration=2",
        ])
        .arg(format!("-Jprometheus.port={port}"))
        .current_dir(work.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("jmxr runs");
    let started = std::time::Instant::now();
    let mut text = String::new();
    while started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(300));
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            continue;
        }
        let (status, body) = http(port, "GET", "/metrics", "");
        if status == 200 && body.contains("shop_count_total{") {
            text = body;
            break;
        }
    }
    assert!(child.wait().expect("jmxr ends").success());
    assert!(text.contains("# TYPE shop_count_total counter\n"), "{text}");
    assert!(text.contains("# TYPE shop_rt histogram\n"), "{text}");
    assert!(text.contains("# TYPE shop_rt_summary summary\n"), "{text}");
    assert!(
        text.contains("jmeter_threads{state=\"active\",} 3.0\n"),
        "{text}"
    );
    assert!(
        text.contains("shop_count_total{label=\"Home page\",} "),
        "{text}"
    );

    // A port already taken: one warning, and the run and its .jtl are whole.
    let taken = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = taken.local_addr().expect("address").port();
    let (jtl, stderr) = run(port, &["-Jduration=1"]);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{stderr}"
    );
    assert_eq!(jtl_counts(&jtl).len(), 5);
}
