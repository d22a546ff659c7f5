//! Server-Sent Events end to end: `sse/events.jmx` opens a stream (after an HTTP login
//! whose cookie it carries), reads events by count, type and data pattern, with
//! extractors and assertions on them, rides out the server closing the stream
//! (reconnection with `Last-Event-ID` after the `retry` time), times out, collects for
//! a while, closes; then meets a refused stream, an answer that is not a stream, a
//! `204` on reconnection and a read that may not reconnect. Run over HTTP and HTTPS;
//! `check` lists the three samplers as supported.

mod support;

use support::sse_server::{self, send, wait, Request, Script, SseServer, Step};
use support::xml_jtl::{self, get, Sample};

/// The room stream: everything the event-stream format allows, in awkward pieces.
fn room(request: &Request, before: usize) -> Script {
    if before == 0 {
        return Script::stream(vec![
            Step::Send(b"\xEF\xBB\xBF: welcome comment\nretry: 300\n\n".to_vec()),
            send("event: welcome\ndata: hello\nid: 1\n\n"),
            send("event: like\ndata: {\"n\":1}\nid: 2\n\n"),
            send("event: chat\r\ndata: {\"from\":\"ann\",\"text\":\"hi\"}\r\nid: 3\r\n\r\n"),
            send("event: chat\rdata: {\"from\":\"bob\",\"text\":\"yo\"}\rid: 4\r\r"),
            wait(20),
            send("event: gi"),
            wait(20),
            send("ft\ndata: {\"from\":\"cy\",\"amount\":1}\nid: 5\r"),
            wait(20),
            send("\n\r\n"),
            send("event: gift\ndata: {\"from\":\"dee\",\"amount\":75}\nid: 6\n\n"),
            send("event: notice\ndata: line1\ndata: line2\nid: 7\n\n"),
            send("event: chat\ndata: {\"from\":\"eve\",\"text\":\"one\"}\nid: 8\n\n"),
            // Cut off by the end of the stream: never an event.
            send("event: chat\ndata: {\"from\":\"partial\"}\nid: 99\n"),
            wait(300),
        ])
        .header("Set-Cookie", "seen=1; Path=/")
        .closing();
    }
    let resumed = request
        .header("Last-Event-ID")
        .unwrap_or("none")
        .to_string();
    let mut steps = vec![send(&format!(
        "event: chat\ndata: {{\"from\":\"zed\",\"after\":\"{resumed}\"}}\nid: 9\n\n"
    ))];
    for tick in 0..40 {
        steps.push(wait(100));
        steps.push(send(&format!("event: tick\ndata: {tick}\n\n")));
    }
    Script::stream(steps)
}

fn handler(request: &Request, before: usize) -> Script {
    let path = request.target.split('?').next().unwrap_or("");
    match path {
        "/login" => Script::page(200, "OK", "text/plain", "welcome")
            .header("Set-Cookie", "session=abc; Path=/"),
        "/room/7/events" => room(request, before),
        "/secure" => Script::page(401, "Unauthorized", "text/plain", "no key"),
        "/page" => Script::page(200, "OK", "text/html", "<html>not a stream</html>"),
        "/short" if before == 0 => {
            Script::stream(vec![send("retry: 100\nevent: only\ndata: x\nid: s1\n\n")]).closing()
        }
        "/short" => Script::page(204, "No Content", "text/plain", ""),
        "/short2" => Script::stream(vec![send("data: y\n\n")]).closing(),
        _ => Script::page(404, "Not Found", "text/plain", ""),
    }
}

fn run(server: &SseServer, scheme: &str) -> Vec<Sample> {
    xml_jtl::run(
        "sse/events.jmx",
        &[
            ("sse.port", server.port.to_string()),
            ("sse.scheme", scheme.to_string()),
        ],
    )
}

fn outcome(sample: &Sample) -> (&str, &str, bool) {
    (&sample.code, &sample.message, sample.success)
}

fn check(samples: &[Sample], server: &SseServer, scheme: &str) {
    let open = get(samples, "open");
    assert_eq!(outcome(open), ("200", "OK", true));
    assert!(open.response_headers.contains("text/event-stream"));
    assert!(
        open.sampler_data.starts_with(&format!(
            "GET {scheme}://127.0.0.1:{}/room/7/events",
            server.port
        )),
        "{}",
        open.sampler_data
    );
    assert!(open.sampler_data.contains("session=abc"));

    let first = get(samples, "first");
    assert_eq!(outcome(first), ("200", "1 event", true));
    assert_eq!(first.data, "hello");
    assert!(first.failure_messages.is_empty(), "{first:?}");
    assert!(first.subresults.is_empty());

    let chats = get(samples, "chat x2");
    assert_eq!(outcome(chats), ("200", "2 events, 1 skipped", true));
    assert_eq!(
        chats.data,
        "{\"from\":\"ann\",\"text\":\"hi\"}\n{\"from\":\"bob\",\"text\":\"yo\"}"
    );
    let subs: Vec<(&str, &str, &str, &str)> = chats
        .subresults
        .iter()
        .map(|s| {
            (
                s.label.as_str(),
                s.message.as_str(),
                s.data.as_str(),
                s.response_headers.as_str(),
            )
        })
        .collect();
    assert_eq!(
        subs,
        [
            (
                "chat x2-0",
                "chat",
                "{\"from\":\"ann\",\"text\":\"hi\"}",
                "event: chat\nid: 3\n"
            ),
            (
                "chat x2-1",
                "chat",
                "{\"from\":\"bob\",\"text\":\"yo\"}",
                "event: chat\nid: 4\n"
            ),
        ]
    );

    let gift = get(samples, "big gift");
    assert_eq!(outcome(gift), ("200", "1 event, 1 skipped", true));
    assert_eq!(gift.data, "{\"from\":\"dee\",\"amount\":75}");
    assert!(gift.failure_messages.is_empty(), "{gift:?}");

    let notice = get(samples, "notice");
    assert_eq!(notice.data, "line1\nline2");

    // The server ended the stream after event 8 (an unfinished event is dropped);
    // the read waited the 300 ms `retry` and resumed from the last ID.
    let resume = get(samples, "resume");
    assert_eq!(outcome(resume), ("200", "2 events, 1 reconnection", true));
    assert_eq!(
        resume.data,
        "{\"from\":\"eve\",\"text\":\"one\"}\n{\"from\":\"zed\",\"after\":\"8\"}"
    );
    assert!(resume.request_headers.contains("Last-Event-ID: 8"));
    assert!(resume.elapsed >= 250, "{resume:?}");

    let timeout = get(samples, "timeout");
    assert_eq!((timeout.code.as_str(), timeout.success), ("Timeout", false));
    assert!(
        timeout
            .message
            .starts_with("Timed out after 500 ms with 0 of 1 events"),
        "{timeout:?}"
    );
    assert!((450..3000).contains(&timeout.elapsed), "{timeout:?}");

    let collect = get(samples, "collect");
    assert!(collect.success && collect.code == "200", "{collect:?}");
    let ticks: Vec<u32> = collect
        .data
        .lines()
        .map(|t| t.parse().expect("tick number"))
        .collect();
    assert!(ticks.len() >= 3, "{collect:?}");
    assert!(ticks.windows(2).all(|w| w[1] == w[0] + 1), "{ticks:?}");

    assert_eq!(
        outcome(get(samples, "close")),
        ("200", "Stream closed", true)
    );
    let after = get(samples, "after close");
    assert_eq!((after.code.as_str(), after.success), ("No stream", false));
    assert_eq!(
        outcome(get(samples, "close again")),
        ("", "No stream; nothing to close.", true)
    );

    let refused = get(samples, "refused");
    assert_eq!(
        outcome(refused),
        (
            "401",
            "Unauthorized; the server answered 401 Unauthorized",
            false
        )
    );
    assert_eq!(refused.data, "no key");
    let page = get(samples, "not a stream");
    assert_eq!((page.code.as_str(), page.success), ("200", false));
    assert!(page
        .message
        .contains("\"text/html\", not text/event-stream"));

    let short = get(samples, "short read");
    assert_eq!(
        outcome(short),
        ("204", "Reconnection refused: 204 No Content", false)
    );
    assert_eq!(short.data, "x");
    assert!(short.request_headers.contains("Last-Event-ID: s1"));

    let no_reconnect = get(samples, "no reconnect");
    assert_eq!(
        (no_reconnect.code.as_str(), no_reconnect.success),
        ("Closed", false)
    );
    assert!(no_reconnect
        .message
        .starts_with("Stream closed (the server closed the stream) with 1 of 2 events"));

    let variables = &get(samples, "variables").data;
    for expected in [
        "chat_from_1=ann\n",
        "chat_from_2=bob\n",
        "gift_from=dee\n",
        "sse.event=message\n",
        "sse.last_event_id=41\n",
    ] {
        assert!(variables.contains(expected), "{expected} in {variables}");
    }

    // What the server saw: the event-stream headers, the Header Manager's, the login
    // cookie, then on reconnection the stream's own cookie and the last ID.
    let streams = server.requests_to("/room/7/events");
    assert_eq!(streams.len(), 2, "{streams:?}");
    let first = &streams[0];
    assert_eq!(first.header("Accept"), Some("text/event-stream"));
    assert_eq!(first.header("Cache-Control"), Some("no-cache"));
    assert_eq!(first.header("X-Room"), Some("7"));
    assert_eq!(first.header("Authorization"), Some("Bearer t0k"));
    assert_eq!(first.header("Cookie"), Some("session=abc"));
    assert_eq!(first.header("Last-Event-ID"), None);
    let second = &streams[1];
    assert_eq!(second.header("Last-Event-ID"), Some("8"));
    let cookie = second.header("Cookie").unwrap_or("");
    assert!(
        cookie.contains("session=abc") && cookie.contains("seen=1"),
        "{cookie}"
    );
    assert_eq!(second.header("X-Room"), Some("7"));
    let short = server.requests_to("/short2");
    assert_eq!(short[0].header("Last-Event-ID"), Some("41"));
}

#[test]
fn events_are_read_filtered_and_resumed_over_http() {
    let server = sse_server::serve(false, handler);
    let samples = run(&server, "http");
    check(&samples, &server, "http");
}

#[test]
fn events_are_read_filtered_and_resumed_over_https() {
    let server = sse_server::serve(true, handler);
    let samples = run(&server, "https");
    check(&samples, &server, "https");
}

#[test]
fn check_lists_the_sse_samplers_as_supported() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = support::fixtures().join("sse/events.jmx");
    let output = support::jmxr(dir.path(), &["check", plan.to_str().expect("UTF-8")]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    for class in [
        "jmxr.sse.OpenStream",
        "jmxr.sse.ReadEvents",
        "jmxr.sse.CloseStream",
    ] {
        let line = stdout
            .lines()
            .find(|l| l.contains(&format!("[{class}]")))
            .unwrap_or_else(|| panic!("{class} not listed: {stdout}"));
        assert!(line.trim_start().starts_with("supported"), "{line}");
    }
    assert!(stdout.contains(" 0 unsupported"), "{stdout}");
}
