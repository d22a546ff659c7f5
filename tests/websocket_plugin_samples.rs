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
use support::{conformance, jmxr};

/// Runs a plan of `folder` against `port` and returns (label, responseCode, success) per
/// row, sub-results included (as JMeter writes them after their parent).
fn rows(plan: &str, port: u16, extra: &[(&str, &str)]) -> Vec<(String, String, bool)> {
    run("plugins", plan, port, extra)
        .rows()
        .into_iter()
        .map(|row| (row.label, row.code, row.success))
        .collect()
}

/// One row of a `.jtl`.
struct Row {
    label: String,
    code: String,
    success: bool,
    message: String,
    data: String,
}

/// The rows of a run's XML `.jtl` (responses saved).
struct Rows(String);

impl Rows {
    fn rows(&self) -> Vec<Row> {
        let doc = roxmltree::Document::parse(&self.0).expect("XML jtl");
        doc.descendants()
            .filter(|n| n.has_tag_name("sample"))
            .map(|n| {
                let attr = |name: &str| n.attribute(name).unwrap_or("").to_string();
                Row {
                    label: attr("lb"),
                    code: attr("rc"),
                    success: attr("s") == "true",
                    message: attr("rm"),
                    data: n
                        .children()
                        .find(|c| c.has_tag_name("responseData"))
                        .and_then(|c| c.text())
                        .unwrap_or("")
                        .to_string(),
                }
            })
            .collect()
    }
}

fn run(folder: &str, plan: &str, port: u16, extra: &[(&str, &str)]) -> Rows {
    let work = tempfile::tempdir().expect("scratch folder");
    let source = conformance().join(folder).join(plan);
    let mut text = std::fs::read_to_string(&source).expect("sample plan");
    let port = port.to_string();
    for host in ["echo.websocket.org", "nowhere.com", "localhost"] {
        text = text.replace(
            &format!("<stringProp name=\"server\">{host}</stringProp>"),
            "<stringProp name=\"server\">127.0.0.1</stringProp>",
        );
    }
    for old in ["80", "8080", ""] {
        for name in ["port", "serverPort"] {
            text = text.replace(
                &format!("<stringProp name=\"{name}\">{old}</stringProp>"),
                &format!("<stringProp name=\"{name}\">{port}</stringProp>"),
            );
        }
    }
    text = text.replace(
        "<stringProp name=\"serverAddress\">echo.websocket.org</stringProp>",
        "<stringProp name=\"serverAddress\">127.0.0.1</stringProp>",
    );
    for (from, to) in extra {
        text = text.replace(from, to);
    }
    let copy = work.path().join(plan);
    std::fs::write(&copy, text).expect("scratch copy");
    let output = jmxr(
        work.path(),
        &[
            "-n",
            "-t",
            copy.to_str().expect("UTF-8"),
            "-l",
            "out.jtl",
            "-Jjmeter.save.saveservice.output_format=xml",
            "-Jjmeter.save.saveservice.response_data=true",
        ],
    );
    assert!(
        output.status.success(),
        "{plan}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Rows(std::fs::read_to_string(work.path().join("out.jtl")).expect("jtl"))
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

/// The one real-world plan on Maciej Zaleski's older sampler: two messages on one
/// streaming connection; the second sample's response holds both (the backlog).
#[test]
fn the_older_websocket_sampler_runs_its_real_world_plan() {
    let server = ws_server::serve(false);
    let rows = run(
        "real-world",
        "zhangdongxuan0227__jmeter_scripts__websocket.jmx",
        server.port(),
        &[],
    )
    .rows();
    assert_eq!(rows.len(), 2);
    assert!(rows
        .iter()
        .all(|r| r.label == "WebSocket Sampler" && r.code == "200" && r.success));
    assert_eq!(rows[0].data, "[Message 1]\nzhangxingchen\n\n");
    assert_eq!(
        rows[1].data,
        "[Message 1]\nzhangxingchen\n\n[Message 2]\nwangjing\n\n"
    );
    assert!(
        rows[0]
            .message
            .starts_with("\n\n[Execution Flow]\n - Opening new connection\n"),
        "{:?}",
        rows[0].message
    );
    assert!(
        rows[1]
            .message
            .starts_with("\n\n[Execution Flow]\n - Reusing exising connection\n"),
        "{:?}",
        rows[1].message
    );
    assert!(rows[1]
        .message
        .contains(" - Received message #2 (8 bytes); matched response pattern\n"));
    assert!(rows[1]
        .message
        .ends_with(" - Message count: 2\n\n\n[Problems]\n"));
}
