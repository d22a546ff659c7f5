//! Server-Sent Events from scripts: `sse/script_rhai.jmx` opens a stream from Rhai
//! with headers and timeouts, reads events by count, type and data pattern, keeps the
//! stream in the user's variables for a later script, which rides out the server ending
//! the stream (reconnection with `Last-Event-ID` after `retry`), times out and closes;
//! a refused stream is an error the script catches. `sse/script_groovy.jmx` holds the
//! Groovy loop JMeter users write (Apache HttpClient, a `BufferedReader` over the
//! content, `event:`/`data:` lines split by hand), once in one script and once a line
//! per While Controller iteration; it is translated onto the same streams.

mod support;

use support::sse_server::{self, send, wait, Request, Script, SseServer};
use support::xml_jtl::{self, get, Sample};

fn handler(request: &Request, before: usize) -> Script {
    let path = request.target.split('?').next().unwrap_or("");
    match path {
        "/room/events" if before == 0 => Script::stream(vec![
            send("retry: 250\n\n"),
            send("event: welcome\ndata: hello\nid: 1\n\n"),
            send("event: like\ndata: {\"n\":1}\nid: 2\n\n"),
            send("event: chat\ndata: ann: hi\nid: 3\n\n"),
            wait(20),
            send("event: chat\r\ndata: bob: yo\r\nid: 4\r\n\r\n"),
            send("event: gift\ndata: {\"amount\":5}\nid: 5\n\n"),
            send("event: gift\ndata: {\"amount\":75}\nid: 6\n\n"),
        ])
        .closing(),
        "/room/events" => {
            let after = request.header("Last-Event-ID").unwrap_or("none");
            Script::stream(vec![
                send("event: like\ndata: {\"n\":2}\nid: 7\n\n"),
                send(&format!("event: chat\ndata: zed after {after}\nid: 8\n\n")),
            ])
        }
        "/ticks" => Script::stream(
            (1..=5)
                .flat_map(|n| [wait(30), send(&format!("data: tick {n}\n\n"))])
                .collect(),
        ),
        "/secure" => Script::page(401, "Unauthorized", "text/plain", "no key"),
        _ => Script::page(404, "Not Found", "text/plain", ""),
    }
}

fn run(fixture: &str, server: &SseServer) -> Vec<Sample> {
    xml_jtl::run(fixture, &[("sse.port", server.port.to_string())])
}

/// The Debug Sampler's `name=value` lines.
fn variables(samples: &[Sample]) -> String {
    get(samples, "variables").data.clone()
}

fn assert_has(variables: &str, expected: &[&str]) {
    for line in expected {
        assert!(
            variables.contains(&format!("{line}\n")),
            "{line} in\n{variables}"
        );
    }
}

#[test]
fn rhai_scripts_open_read_resume_and_close_streams() {
    let server = sse_server::serve(false, handler);
    let samples = run("sse/script_rhai.jmx", &server);
    for label in ["rhai open", "rhai resume", "rhai refused"] {
        let sample = get(&samples, label);
        assert!(sample.success, "{sample:?}");
    }
    assert_eq!(get(&samples, "rhai open").data, "4 events");
    let variables = variables(&samples);
    assert_has(
        &variables,
        &[
            "first_type=welcome",
            "first_data=hello",
            "first_id=1",
            "chats=ann: hi|bob: yo",
            "gift={\"amount\":75}",
            "gift_id=6",
            "resumed=zed after 6",
            "resumed_end=done",
            "never_count=0",
            "never_end=timeout",
            "open_before_close=true",
            "open_after_close=false",
        ],
    );
    assert!(
        variables.contains("after_close=Sse: the stream http://127.0.0.1:"),
        "{variables}"
    );
    assert!(
        variables.contains(&format!(
            "refused=Sse.open http://127.0.0.1:{}/secure: the server answered 401 Unauthorized\n",
            server.port
        )),
        "{variables}"
    );

    // What the server saw: the script's headers, the event-stream headers, and on
    // reconnection the last ID.
    let streams = server.requests_to("/room/events");
    assert_eq!(streams.len(), 2, "{streams:?}");
    assert_eq!(streams[0].header("Accept"), Some("text/event-stream"));
    assert_eq!(streams[0].header("X-Room"), Some("7"));
    assert_eq!(streams[0].header("Authorization"), Some("Bearer t0k"));
    assert_eq!(streams[0].header("Last-Event-ID"), None);
    assert_eq!(streams[1].header("Last-Event-ID"), Some("6"));
    assert_eq!(streams[1].header("X-Room"), Some("7"));
}

#[test]
fn a_groovy_httpclient_line_loop_is_translated_onto_the_stream() {
    let server = sse_server::serve(false, handler);
    let samples = run("sse/script_groovy.jmx", &server);
    let labels: Vec<&str> = samples.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "groovy loop",
            "groovy open",
            // Three ticks: `event:`, `data:`, empty, twice, then `event:` and `data:`.
            "groovy line",
            "groovy line",
            "groovy line",
            "groovy line",
            "groovy line",
            "groovy line",
            "groovy line",
            "groovy line",
            "variables"
        ],
        "{samples:?}"
    );
    for sample in &samples {
        assert!(sample.success, "{sample:?}");
    }
    // Welcome, like, two chats: the loop breaks at the second chat.
    assert_eq!(get(&samples, "groovy loop").data, "read 4 events");
    let variables = variables(&samples);
    assert_has(
        &variables,
        &[
            "status=200",
            "chat_1=ann: hi",
            "chat_2=bob: yo",
            "chat_count=2",
            "event_count=4",
            "last_data=tick 3",
            "lines=3",
            "more=true",
        ],
    );
    assert!(!variables.contains("chat_3="), "{variables}");
    let streams = server.requests_to("/room/events");
    assert_eq!(streams.len(), 1, "{streams:?}");
    assert_eq!(streams[0].header("Accept"), Some("text/event-stream"));
    assert_eq!(streams[0].header("Authorization"), Some("Bearer t0k"));
    assert_eq!(server.requests_to("/ticks").len(), 1);
}

#[test]
fn check_names_httpclient_calls_it_cannot_map() {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = support::fixtures().join("sse/script_groovy.jmx");
    let text = std::fs::read_to_string(&plan)
        .expect("fixture")
        .replace("text/event-stream", "application/json");
    let copy = work.path().join("plain_http.jmx");
    std::fs::write(&copy, text).expect("plan copy");
    let out = support::jmxr(work.path(), &["check", "-t", copy.to_str().expect("UTF-8")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{stdout}");
    for expected in [
        "line 8: `HttpClients` outside an event stream",
        "line 9: `HttpGet` outside an event stream",
        "line 15: `InputStreamReader` outside an event stream",
        "send other requests with an HTTP Request sampler",
    ] {
        assert!(stdout.contains(expected), "{expected} in\n{stdout}");
    }
}
