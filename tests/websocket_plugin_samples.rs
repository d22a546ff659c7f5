//! The Luminis plugin's own sample plans (`../shared/conformance/plugins/luminis-*.jmx`)
//! run against the in-process WebSocket server, with their hosts and ports pointed at
//! it in a scratch copy (they name echo.websocket.org, localhost:8080 and a placeholder
//! host). Each must produce the rows the plugin produces against such a server: the
//! samples in order, with its response codes and verdicts.
//!
//! Not run here: `luminis-ping-frame-filter.jmx` (needs a server that pings on its own
//! and reads that wait 70 s); it passes `check` (tests/check_corpus.rs).

mod support;

use support::ws_server::{self, WsServer};
use support::{conformance, jmxr, Jtl};

/// Runs a sample plan against `port` and returns (label, responseCode, success) per
/// row, sub-results included (as JMeter writes them after their parent).
fn rows(plan: &str, port: u16, extra: &[(&str, &str)]) -> Vec<(String, String, bool)> {
    let work = tempfile::tempdir().expect("scratch folder");
    let source = conformance().join("plugins").join(plan);
    let mut text = std::fs::read_to_string(&source).expect("sample plan");
    let port = port.to_string();
    for host in ["echo.websocket.org", "nowhere.com", "localhost"] {
        text = text.replace(
            &format!("<stringProp name=\"server\">{host}</stringProp>"),
            "<stringProp name=\"server\">127.0.0.1</stringProp>",
        );
    }
    for old in ["80", "8080", ""] {
        text = text.replace(
            &format!("<stringProp name=\"port\">{old}</stringProp>"),
            &format!("<stringProp name=\"port\">{port}</stringProp>"),
        );
    }
    for (from, to) in extra {
        text = text.replace(from, to);
    }
    let copy = work.path().join(plan);
    std::fs::write(&copy, text).expect("scratch copy");
    let output = jmxr(
        work.path(),
        &["-n", "-t", copy.to_str().expect("UTF-8"), "-l", "out.jtl"],
    );
    assert!(
        output.status.success(),
        "{plan}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    jtl.rows
        .iter()
        .map(|row| {
            (
                jtl.get(row, "label").to_string(),
                jtl.get(row, "responseCode").to_string(),
                jtl.get(row, "success") == "true",
            )
        })
        .collect()
}

fn expect(rows: &[(String, String, bool)], expected: &[(&str, &str, bool)]) {
    let got: Vec<(&str, &str, bool)> = rows
        .iter()
        .map(|(l, c, s)| (l.as_str(), c.as_str(), *s))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn the_plugins_sample_plans_produce_the_plugins_rows() {
    let server = ws_server::serve(false);
    let port = server.port();

    expect(
        &rows("luminis-basic-request-response.jmx", port, &[]),
        &[
            ("Basic WebSocket Sample", "101", true),
            (
                "2nd WebSocket Sample, use existing connection.",
                "200",
                true,
            ),
        ],
    );
    expect(
        &rows("luminis-explicit-open.jmx", port, &[]),
        &[
            ("WebSocket Open Connection", "101", true),
            ("Basic WebSocket Sample", "200", true),
        ],
    );
    expect(
        &rows("luminis-request-response-with-close.jmx", port, &[]),
        &[
            ("Basic WebSocket Sample", "101", true),
            ("Explicit WebSocket Close", "1000", true),
        ],
    );
    expect(
        &rows("luminis-header-and-cookie-manager.jmx", port, &[]),
        &[("Basic WebSocket Sample", "101", true)],
    );
    expect(
        &rows("luminis-binary-request-response.jmx", port, &[]),
        &[
            ("WebSocket request-response Sampler", "101", true),
            ("2nd WebSocket request-response Sampler", "101", true),
            (
                "3rd WebSocket request-response Sampler",
                "Sampler Error",
                false,
            ),
        ],
    );
    expect(
        &rows("luminis-single-read-write-text-binary.jmx", port, &[]),
        &[
            ("WebSocket Open Connection", "101", true),
            ("WebSocket Single Write Sampler", "200", true),
            ("WebSocket Single Read Sampler", "200", true),
            ("WebSocket Single Write Sampler", "200", true),
            ("WebSocket Single Read Sampler", "200", true),
        ],
    );
    // The first group's close reads the echo of its last write instead of the close
    // reply; the second group's Text Frame Filter discards it as a sub-result.
    expect(
        &rows("luminis-smart-close-text-frame-filter.jmx", port, &[]),
        &[
            ("ws echo", "101", true),
            ("ws send message to echo", "200", true),
            (
                "ws close, likely to fail!",
                "WebSocket error: unsuccesful close.",
                false,
            ),
            ("ws echo", "101", true),
            ("ws send message to echo", "200", true),
            (
                "ws close (filtered frames will show up as sub-result)",
                "1000",
                true,
            ),
            (
                "ws close (filtered frames will show up as sub-result)-0",
                "",
                true,
            ),
        ],
    );
    let mut ticker = vec![("stock ticker", "101", true)];
    ticker.extend(std::iter::repeat_n(("read stock price", "200", true), 11));
    ticker.push(("stop", "1000", true));
    expect(&rows("luminis-single-read.jmx", port, &[]), &ticker);
    // The JSR223 Timer waits 10 s more before each pong; 10 ms here.
    let mut pongs = vec![("WebSocket echo", "101", true)];
    pongs.extend(std::iter::repeat_n(("WebSocket Pong", "200", true), 10));
    expect(
        &rows("luminis-unsolicited-pong.jmx", port, &[("* 10000", "* 10")]),
        &pongs,
    );
    // The message comes in three frames: the If Controller reads the second, the While
    // Controller reads until the final one.
    expect(
        &rows("luminis-read-continuation-frames.jmx", port, &[]),
        &[
            ("WebSocket Open Connection", "101", true),
            ("read first frame", "200", true),
            ("read second frame", "200", true),
            ("WebSocket Open Connection", "101", true),
            ("read first frame", "200", true),
            ("read next frame", "200", true),
            ("read next frame", "200", true),
        ],
    );
}
