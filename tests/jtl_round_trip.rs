//! Every `.jtl` the writer can write reads back with the same numbers: for a matrix of
//! `jmeter.save.saveservice.*` settings (timestamp formats with quoted literals and `ms`,
//! custom delimiters, no header, fewer columns, sample variables) the dashboard made by
//! `-g` from the file equals the one made live by `-e` during the run. An XML `.jtl` is
//! checked against the live numbers by parsing it.

mod support;

use std::path::Path;

use support::{fixtures, jmxr};

const PREFIX: &str = "jmeter.save.saveservice.";

/// The settings under test, without the property prefix (`sample_variables` is a
/// property of its own). The dashboard needs `Latency` and the thread counts, as
/// JMeter's does, so those stay on.
const MATRIX: &[&[(&str, &str)]] = &[
    &[],
    &[("timestamp_format", "ms")],
    &[("timestamp_format", "yyyy-MM-dd'T'HH:mm:ss.SSS")],
    &[
        ("timestamp_format", "yyyy/MM/dd HH:mm:ss.SSS"),
        ("default_delimiter", ";"),
    ],
    &[
        ("timestamp_format", "dd.MM.yyyy 'at' HH:mm:ss.SSS ''Z''"),
        ("default_delimiter", "\\t"),
        ("sample_variables", "note"),
    ],
    &[
        ("print_field_names", "false"),
        ("default_delimiter", "|"),
        ("connect_time", "false"),
        ("url", "false"),
        ("idle_time", "false"),
        ("hostname", "true"),
        ("sample_count", "true"),
        ("encoding", "true"),
    ],
    &[
        ("print_field_names", "false"),
        ("sample_variables", "note"),
        ("timestamp_format", "HH:mm:ss.SSS yyyy-MM-dd"),
    ],
    &[
        ("data_type", "false"),
        ("assertion_results_failure_message", "false"),
        ("subresults", "false"),
        ("sent_bytes", "false"),
        ("time", "true"),
    ],
];

fn plan() -> String {
    fixtures()
        .join("results/round_trip.jmx")
        .to_str()
        .expect("UTF-8 path")
        .to_string()
}

fn flags(settings: &[(&str, &str)]) -> Vec<String> {
    settings
        .iter()
        .map(|(name, value)| match *name {
            "sample_variables" => format!("-J{name}={value}"),
            _ => format!("-J{PREFIX}{name}={value}"),
        })
        .collect()
}

fn run(work: &Path, args: &[String]) -> String {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = jmxr(work, &args);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "jmxr {args:?}: {stderr}");
    stderr
}

fn statistics(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("statistics.json"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    serde_json::from_str(&text).expect("statistics.json is JSON")
}

/// Runs the plan with `settings`, writing `out.jtl` and the live dashboard `live/`.
fn run_live(work: &Path, settings: &[(&str, &str)]) -> serde_json::Value {
    let mut args: Vec<String> = ["-n", "-t", &plan(), "-l", "out.jtl", "-e", "-o", "live"]
        .map(String::from)
        .to_vec();
    args.extend(flags(settings));
    run(work, &args);
    statistics(&work.join("live"))
}

/// Runs the plan with `settings`, then `-g` on its `.jtl`: the dashboard equals the live one.
fn assert_reads_back_as_live(settings: &[(&str, &str)]) {
    let work = tempfile::tempdir().unwrap();
    let live = run_live(work.path(), settings);
    let mut args: Vec<String> = ["-g", "out.jtl", "-o", "back"].map(String::from).to_vec();
    args.extend(flags(settings));
    let stderr = run(work.path(), &args);
    assert!(!stderr.contains("warning"), "{settings:?}: {stderr}");
    let back = statistics(&work.path().join("back"));
    assert_eq!(live["Total"]["sampleCount"], 240, "{settings:?}");
    assert_eq!(back, live, "{settings:?}");
}

#[test]
fn every_csv_layout_reads_back_with_the_live_numbers() {
    for settings in MATRIX {
        assert_reads_back_as_live(settings);
    }
}

#[test]
fn an_xml_jtl_holds_the_live_numbers() {
    let work = tempfile::tempdir().unwrap();
    let live = run_live(work.path(), &[("output_format", "xml")]);
    let text = std::fs::read_to_string(work.path().join("out.jtl")).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let samples: Vec<_> = doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name("sample"))
        .collect();
    let number = |node: &roxmltree::Node, name: &str| -> i64 {
        node.attribute(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("attribute {name} of {node:?}"))
    };
    let elapsed: Vec<i64> = samples.iter().map(|s| number(s, "t")).collect();
    let errors = samples
        .iter()
        .filter(|s| s.attribute("s") == Some("false"))
        .count();
    let total = &live["Total"];
    assert_eq!(total["sampleCount"], samples.len());
    assert_eq!(total["errorCount"], errors);
    let live = |name: &str| total[name].as_f64().expect("a number");
    assert_eq!(live("minResTime"), *elapsed.iter().min().unwrap() as f64);
    assert_eq!(live("maxResTime"), *elapsed.iter().max().unwrap() as f64);
    let mean = elapsed.iter().sum::<i64>() as f64 / elapsed.len() as f64;
    let live_mean = live("meanResTime");
    assert!((live_mean - mean).abs() < 1e-6, "{live_mean} vs {mean}");
    let labels: std::collections::BTreeSet<_> =
        samples.iter().filter_map(|s| s.attribute("lb")).collect();
    assert_eq!(labels.len(), 2, "{labels:?}");
}

/// `-g` reads XML too (JMeter's report generator does not): the dashboard from an XML
/// `.jtl` equals the live one, with sub-samples, assertion results and sample variables in
/// the file.
#[test]
fn an_xml_jtl_reads_back_with_the_live_numbers() {
    for settings in [
        &[("output_format", "xml")][..],
        &[
            ("output_format", "xml"),
            ("sample_variables", "note"),
            ("assertion_results_failure_message", "true"),
            ("response_data", "true"),
            ("timestamp_format", "yyyy-MM-dd'T'HH:mm:ss.SSS"),
        ],
    ] {
        assert_reads_back_as_live(settings);
    }
}
