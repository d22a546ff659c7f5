//! A server that misbehaves in every way HTTP/1.1 allows and some it does not: each
//! request gets a failed sample with JMeter's words (HttpClient 4's exception and
//! message) within its timeout, memory stays within the documented limits, and a second
//! thread group against a well-behaved server keeps its pace meanwhile.

#[path = "support/hostile.rs"]
mod hostile;
mod support;

use hostile::HostileServer;
use support::{fixtures, jmxr, peak_rss_of_children_kb, Jtl};

/// Response timeout of the plan's samplers, in ms (`-Jtimeout`).
const TIMEOUT_MS: i64 = 700;
/// The body limit the run sets (`jmxr.http.max_response_body`).
const MAX_BODY: usize = 16_000_000;
/// Longest any hostile sample may take: its timeout plus room for a loaded machine.
const SLOWEST_MS: i64 = TIMEOUT_MS + 2_000;
/// Peak resident memory of the run: the bombs decode to 256 MB without the limit.
const PEAK_RSS_KB: i64 = 160 * 1024;

const PROTOCOL: &str = "Non HTTP response code: org.apache.http.client.ClientProtocolException";
const CHUNKING: &str = "Non HTTP response code: org.apache.http.MalformedChunkCodingException";
const CLOSED: &str = "Non HTTP response code: org.apache.http.ConnectionClosedException";
const TIMED_OUT: &str = "Non HTTP response code: java.net.SocketTimeoutException";
const IO: &str = "Non HTTP response code: java.io.IOException";

/// Label (the path), then the response code and message each sample must have.
const FAILURES: &[(&str, &str, &str)] = &[
    (
        "status-garbage",
        PROTOCOL,
        "org.apache.http.ProtocolException: The server failed to respond with a valid HTTP response",
    ),
    (
        "status-code",
        PROTOCOL,
        "org.apache.http.ProtocolException: Unable to parse status code from status line: HTTP/1.1 abc OK",
    ),
    (
        "no-colon",
        PROTOCOL,
        "org.apache.http.ProtocolException: Invalid header: no colon here",
    ),
    (
        "huge-header",
        "Non HTTP response code: org.apache.http.ProtocolException",
        "Response head too large",
    ),
    (
        "two-lengths",
        CLOSED,
        "Premature end of Content-Length delimited message body (expected: 50; received: 5)",
    ),
    ("negative-chunk", CHUNKING, "Negative chunk size"),
    ("overflowing-chunk", CHUNKING, "Bad chunk header"),
    ("huge-chunk", IO, "Response body larger than 16000000 bytes (property jmxr.http.max_response_body)"),
    (
        "short-body",
        CLOSED,
        "Premature end of Content-Length delimited message body (expected: 100; received: 10)",
    ),
    ("gzip-bomb", IO, "Response body larger than 16000000 bytes (property jmxr.http.max_response_body)"),
    ("brotli-bomb", IO, "Response body larger than 16000000 bytes (property jmxr.http.max_response_body)"),
    ("trickle", TIMED_OUT, "Read timed out"),
    (
        "reset",
        "Non HTTP response code: java.net.SocketException",
        "Connection reset",
    ),
    ("silent", TIMED_OUT, "Read timed out"),
];

/// Answers HttpClient 4 accepts: with both framings the chunked one wins; bytes that
/// are not UTF-8 are kept as they came.
const ACCEPTED: &[&str] = &["length-and-chunked", "invalid-utf8"];

#[test]
fn every_hostile_answer_fails_its_sample_promptly_and_alone() {
    let server = HostileServer::start();
    let work = tempfile::tempdir().unwrap();
    let plan = fixtures().join("http/hostile_server.jmx");
    let output = jmxr(
        work.path(),
        &[
            "-n",
            "-t",
            plan.to_str().unwrap(),
            "-l",
            "out.jtl",
            &format!("-Jport={}", server.port),
            &format!("-Jtimeout={TIMEOUT_MS}"),
            &format!("-Jjmxr.http.max_response_body={MAX_BODY}"),
            "-Jsteady=6",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let peak = peak_rss_of_children_kb();
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    let mut problems = Vec::new();
    for (label, code, message) in FAILURES {
        let row = jtl.one(label);
        let seen = (
            jtl.get(row, "success"),
            jtl.get(row, "responseCode"),
            jtl.get(row, "responseMessage"),
        );
        let wanted = (
            "false",
            *code,
            format!("Non HTTP response message: {message}"),
        );
        if seen != ("false", *code, wanted.2.as_str()) {
            problems.push(format!("{label}: {seen:?}, wanted {wanted:?}"));
        }
        let elapsed = jtl.int(row, "elapsed");
        if elapsed > SLOWEST_MS {
            problems.push(format!("{label}: took {elapsed} ms"));
        }
    }
    for label in ACCEPTED {
        let row = jtl.one(label);
        let seen = (jtl.get(row, "success"), jtl.get(row, "responseCode"));
        if seen != ("true", "200") {
            problems.push(format!("{label}: {seen:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        peak < PEAK_RSS_KB,
        "peak resident memory {peak} kB, limit {PEAK_RSS_KB} kB"
    );
    let good = jtl.labelled("good");
    let starts: Vec<i64> = good.iter().map(|r| jtl.int(r, "timeStamp")).collect();
    let longest_gap = starts.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    assert!(
        good.len() >= 60,
        "the steady group made {} samples in 6 s",
        good.len()
    );
    assert!(
        longest_gap < 500,
        "the steady group stalled for {longest_gap} ms"
    );
    assert!(good.iter().all(|r| jtl.get(r, "success") == "true"));
    eprintln!(
        "peak RSS {peak} kB; steady group: {} samples, longest gap {longest_gap} ms",
        good.len()
    );
}
