//! Runs a fixture plan with an XML `.jtl` that keeps response data, sampler data and
//! headers, and reads its samples back (with their sub-samples) for the tests of
//! samplers whose details live there (WebSocket, Server-Sent Events).

use super::{fixtures, jmxr};

/// One sample (or sub-sample) of an XML `.jtl`.
#[derive(Debug, Clone)]
pub struct Sample {
    pub label: String,
    pub code: String,
    pub message: String,
    pub success: bool,
    pub data_type: String,
    pub bytes: i64,
    pub sent: i64,
    pub elapsed: i64,
    pub latency: i64,
    pub connect: i64,
    pub data: String,
    pub request_headers: String,
    pub response_headers: String,
    pub sampler_data: String,
    pub failure_messages: Vec<String>,
    pub subresults: Vec<Sample>,
}

fn read(node: roxmltree::Node<'_, '_>) -> Sample {
    let attr = |name: &str| node.attribute(name).unwrap_or("").to_string();
    let number = |name: &str| attr(name).parse::<i64>().unwrap_or(-1);
    let child = |tag: &str| {
        node.children()
            .find(|c| c.has_tag_name(tag))
            .and_then(|c| c.text())
            .unwrap_or("")
            .to_string()
    };
    Sample {
        label: attr("lb"),
        code: attr("rc"),
        message: attr("rm"),
        success: attr("s") == "true",
        data_type: attr("dt"),
        bytes: number("by"),
        sent: number("sby"),
        elapsed: number("t"),
        latency: number("lt"),
        connect: number("ct"),
        data: child("responseData"),
        request_headers: child("requestHeader"),
        response_headers: child("responseHeader"),
        sampler_data: child("samplerData"),
        failure_messages: node
            .children()
            .filter(|c| c.has_tag_name("assertionResult"))
            .filter_map(|a| a.children().find(|c| c.has_tag_name("failureMessage")))
            .filter_map(|m| m.text().map(str::to_string))
            .collect(),
        subresults: node
            .children()
            .filter(|c| c.has_tag_name("sample"))
            .map(read)
            .collect(),
    }
}

/// Runs `jmx-fixtures/<fixture>` with `properties` (`-Jname=value`) and returns its
/// top-level samples in order; panics with jmxr's stderr when the run fails.
pub fn run(fixture: &str, properties: &[(&str, String)]) -> Vec<Sample> {
    let work = tempfile::tempdir().expect("scratch folder");
    run_in(work.path(), fixture, properties, &[])
}

/// [`run`] in the given working folder with `extra` arguments (`-j run.log`), for tests
/// that also read what else the run writes there.
pub fn run_in(
    work: &std::path::Path,
    fixture: &str,
    properties: &[(&str, String)],
    extra: &[&str],
) -> Vec<Sample> {
    let plan = fixtures().join(fixture);
    let mut args: Vec<String> = [
        "-n",
        "-t",
        plan.to_str().expect("UTF-8 path"),
        "-l",
        "out.jtl",
        "-Jjmeter.save.saveservice.output_format=xml",
        "-Jjmeter.save.saveservice.response_data=true",
        "-Jjmeter.save.saveservice.samplerData=true",
        "-Jjmeter.save.saveservice.requestHeaders=true",
        "-Jjmeter.save.saveservice.responseHeaders=true",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(properties.iter().map(|(n, v)| format!("-J{n}={v}")));
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = jmxr(work, &args);
    assert!(
        output.status.success(),
        "{fixture} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(work.join("out.jtl")).expect("jtl");
    let doc = roxmltree::Document::parse(&text).expect("XML jtl");
    doc.root_element()
        .children()
        .filter(|n| n.has_tag_name("sample"))
        .map(read)
        .collect()
}

/// The first sample labelled `label`.
pub fn get<'s>(samples: &'s [Sample], label: &str) -> &'s Sample {
    samples
        .iter()
        .find(|s| s.label == label)
        .unwrap_or_else(|| panic!("no sample {label:?} in {samples:#?}"))
}
