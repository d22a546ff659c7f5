//! The Luminis WebSocket samplers end to end: one plan (`websocket/exchanges.jmx`) run
//! against the in-process tokio-tungstenite server and against Debian's
//! python3-websockets (a server no one here wrote), each plain and over TLS with a
//! self-signed certificate. The plan exercises every sampler, the frame filters, a
//! fragmented message, the Header and Cookie Manager on the upgrade, and the failures
//! the plugin reports (read timeout, unexpected frame, failed upgrade, no connection).

mod support;

use support::ws_server::{self, WsServer};
use support::xml_jtl::{self, get, Sample};
use support::{fixtures, jmxr};

/// Runs the plan against a server on `port` and returns its top-level samples in order.
fn run(port: u16, tls: bool) -> Vec<Sample> {
    xml_jtl::run(
        "websocket/exchanges.jmx",
        &[("ws.port", port.to_string()), ("ws.tls", tls.to_string())],
    )
}

/// What every server must produce. `empty_final_fragment`: the server ends a fragmented
/// message with an empty final continuation frame (python3-websockets does).
fn check(samples: &[Sample], tls: bool, empty_final_fragment: bool) {
    let scheme = if tls { "wss" } else { "ws" };
    let open = get(samples, "open");
    assert_eq!(
        (open.code.as_str(), open.message.as_str()),
        ("101", "Switching Protocols")
    );
    assert!(open.success);
    assert!(open
        .sampler_data
        .starts_with(&format!("Connect URL:\n{scheme}://127.0.0.1:")));
    assert!(
        open.request_headers.contains("X-Test: hello-header")
            && open.request_headers.contains("Cookie: session=abc123"),
        "{open:?}"
    );
    assert!(
        open.response_headers
            .to_ascii_lowercase()
            .contains("upgrade: websocket"),
        "{open:?}"
    );
    assert!(
        open.bytes > 100,
        "the upgrade response head is counted: {open:?}"
    );
    assert!(open.sent > 100, "the upgrade request is counted: {open:?}");

    let headers = get(samples, "headers");
    assert_eq!(
        (headers.code.as_str(), headers.message.as_str()),
        ("200", "OK")
    );
    assert_eq!(
        headers.data, "X-Test: hello-header|Cookie: session=abc123",
        "the server saw the Header and Cookie Manager's values"
    );
    assert!(headers
        .sampler_data
        .ends_with("(using existing connection)\n\nRequest data:\nheaders\n"));

    let text = get(samples, "text echo");
    assert_eq!(
        (text.data.as_str(), text.data_type.as_str()),
        ("hello", "text")
    );
    assert_eq!(text.sent, 2 + 4 + 5, "a masked frame of 5 bytes");
    assert_eq!(text.bytes, 2 + 5, "the frame read, header and payload");

    let binary = get(samples, "binary echo");
    assert_eq!(binary.data_type, "bin");
    assert!(
        binary.success,
        "the Binary Response Assertion passed: {binary:?}"
    );
    assert_eq!(binary.bytes, 2 + 4);
    let scripted = get(samples, "binary from script");
    assert!(scripted.success, "{scripted:?}");
    assert_eq!(scripted.bytes, 2 + 3, "the script's three bytes came back");
    assert!(
        scripted.sampler_data.contains("0x00 0xff 0x10"),
        "{scripted:?}"
    );

    let not_binary = get(samples, "not binary");
    assert_eq!(
        (not_binary.code.as_str(), not_binary.message.as_str()),
        ("Sampler Error", "Request data is not binary: xyz")
    );
    assert!(!not_binary.success);

    let timeout = get(samples, "read timeout");
    assert_eq!(
        (timeout.code.as_str(), timeout.message.as_str()),
        ("Websocket I/O error", "WebSocket I/O error: Read timed out")
    );
    assert!((290..2000).contains(&timeout.elapsed), "{timeout:?}");
    let optional = get(samples, "optional read");
    assert_eq!(
        (optional.code.as_str(), optional.message.as_str()),
        ("No response", "Read timeout, no response received.")
    );
    assert!(optional.success);

    let filtered = get(samples, "filtered read");
    assert_eq!(filtered.data, "wanted");
    assert_eq!(filtered.subresults.len(), 1, "{filtered:?}");
    let dropped = &filtered.subresults[0];
    assert_eq!(dropped.label, "filtered read-0");
    assert_eq!(dropped.message, "Received Text frame with text 'noise'");
    assert_eq!(dropped.bytes, 2 + 5);
    assert_eq!(filtered.bytes, 2 + 6, "discarded frames are not counted");

    let pinged = get(samples, "ping filtered");
    assert_eq!(pinged.data, "after ping");
    assert_eq!(
        pinged.subresults[0].message,
        "Received Ping frame with application data 'hb'"
    );
    assert_eq!(
        pinged.subresults[0].sent,
        2 + 4 + 2,
        "the filter answered with a pong"
    );

    assert_eq!(get(samples, "first fragment").data, "ab");
    let rest: Vec<&str> = samples
        .iter()
        .filter(|s| s.label == "next fragment")
        .map(|s| s.data.as_str())
        .collect();
    let mut expected = vec!["cd", "ef"];
    if empty_final_fragment {
        expected.push("");
    }
    assert_eq!(
        rest, expected,
        "the While Controller stopped at the final frame"
    );

    let unexpected = get(samples, "expects binary");
    assert_eq!(
        (unexpected.code.as_str(), unexpected.message.as_str()),
        (
            "Sampler error: unexpected frame type (text).",
            "Received: Text frame with text 'a text'"
        )
    );

    let ping = get(samples, "ping pong");
    assert_eq!((ping.code.as_str(), ping.success), ("200", true));
    assert_eq!((ping.sent, ping.bytes), (6, 2));
    let pong = get(samples, "unsolicited pong");
    assert_eq!((pong.code.as_str(), pong.sent, pong.bytes), ("200", 6, 0));

    let close = get(samples, "close");
    assert_eq!(
        (
            close.code.as_str(),
            close.message.as_str(),
            close.data.as_str()
        ),
        (
            "1001",
            "Connection closed; close reason: 'sampler requested close'.",
            "1001: sampler requested close"
        )
    );
    assert_eq!(close.sent, 2 + 4 + 2 + 23);
    assert!(close.success);

    let reuse = get(samples, "reuse after close");
    assert_eq!(
        (reuse.code.as_str(), reuse.message.as_str(), reuse.success),
        (
            "Sampler error",
            "Sampler configured for using existing connection, but there is no connection",
            false
        )
    );
    let nothing = get(samples, "nothing to close");
    assert_eq!(
        (nothing.code.as_str(), nothing.message.as_str()),
        ("", "No connection; nothing to close.")
    );

    let refused = get(samples, "unauthorized");
    assert_eq!(refused.code, "401");
    assert_eq!(
        refused.message,
        "Got unexpected status 401 with statusLine:HTTP/1.1 401 Unauthorized"
    );
    assert!(!refused.success);

    let closed = get(samples, "server closes");
    assert_eq!(
        (closed.code.as_str(), closed.message.as_str()),
        (
            "Sampler error: unexpected frame type (close).",
            "Received: Close frame with status code 4001 and close reason 'bye'"
        )
    );
    assert!(closed.connect >= 0);
}

#[test]
fn every_sampler_against_the_in_process_server() {
    let server = ws_server::serve(false);
    check(&run(server.port(), false), false, false);
}

#[test]
fn every_sampler_against_the_in_process_server_over_tls() {
    let server = ws_server::serve(true);
    check(&run(server.port(), true), true, false);
}

#[test]
fn every_sampler_against_python_websockets() {
    let server = ws_server::python(false);
    check(&run(server.port(), false), false, true);
}

#[test]
fn every_sampler_against_python_websockets_over_tls() {
    let server = ws_server::python(true);
    check(&run(server.port(), true), true, true);
}

/// `websocket.thread.stop.policy=wsClose`: a user that ends sends a close frame (1000,
/// "test thread finished"); by default its connection is left as it is.
#[test]
fn a_user_that_ends_closes_its_connection_as_the_stop_policy_says() {
    for (policy, expected) in [
        ("wsClose", vec![(1000, "test thread finished".to_string())]),
        ("none", vec![]),
    ] {
        let server = ws_server::serve(false);
        let work = tempfile::tempdir().expect("scratch folder");
        let plan = fixtures().join("websocket/stop_policy.jmx");
        let port = format!("-Jws.port={}", server.port());
        let policy_arg = format!("-Jwebsocket.thread.stop.policy={policy}");
        let output = jmxr(
            work.path(),
            &[
                "-n",
                "-t",
                plan.to_str().expect("UTF-8 path"),
                "-l",
                "out.jtl",
                &port,
                &policy_arg,
            ],
        );
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let started = std::time::Instant::now();
        while server.closes.lock().expect("closes").len() < expected.len()
            && started.elapsed() < std::time::Duration::from_secs(5)
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(*server.closes.lock().expect("closes"), expected, "{policy}");
    }
}
