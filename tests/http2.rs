//! HTTP/2 end to end: `jmx-fixtures/http/http2*.jmx` against an in-process HTTP/2 server
//! over TLS on 127.0.0.1 (`support::h2_server`), and the fall-back to HTTP/1.1 against
//! a TLS server that does not offer `h2`.

mod support;

use support::h2_server::{serve_h2, serve_h2_one_request_per_connection};
use support::http_server::{serve_tls, Reply, Request};
use support::run_fixture;

const HTTP2: &str = "-Jjmxr.http.http2=true";

/// Echoes the request: method, target and body.
fn echo(request: &Request) -> Reply {
    let body = String::from_utf8_lossy(&request.body);
    Reply::ok(&format!("{} {} {}", request.method, request.target, body))
}

/// What jmxr counts for an HTTP/2 response from [`Reply::ok`]: the status line and the
/// one header as HTTP/1.1 text, then the body.
fn ok_bytes(body: &str) -> i64 {
    let head = "HTTP/2.0 200 OK\r\ncontent-type: text/plain; charset=UTF-8\r\n\r\n";
    (head.len() + body.len()) as i64
}

#[test]
fn http_requests_use_http2_when_the_run_asks_and_the_server_offers_it() {
    let server = serve_h2(echo);
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/http2.jmx", &[&port, HTTP2]);

    let gets = jtl.labelled("get");
    let posts = jtl.labelled("post");
    assert_eq!((gets.len(), posts.len()), (3, 3));
    for (i, row) in gets.iter().enumerate() {
        assert_eq!(jtl.get(row, "responseCode"), "200", "{row:?}");
        assert_eq!(jtl.get(row, "responseMessage"), "OK");
        assert_eq!(jtl.get(row, "success"), "true");
        assert_eq!(jtl.int(row, "bytes"), ok_bytes("GET /get?q=1 "), "{row:?}");
        assert!(jtl.int(row, "sentBytes") > 0);
        assert!(jtl.get(row, "URL").starts_with("https://127.0.0.1:"));
        if i > 0 {
            assert_eq!(jtl.int(row, "Connect"), 0, "the connection is reused");
        }
        assert!(jtl.int(row, "Latency") <= jtl.int(row, "elapsed"));
    }
    let first = gets[0];
    assert!(jtl.int(first, "Connect") <= jtl.int(first, "Latency"));
    for (i, row) in posts.iter().enumerate() {
        let body = format!("POST /post {{\"item\": {i}}}");
        assert_eq!(jtl.get(row, "responseCode"), "200", "{row:?}");
        assert_eq!(jtl.int(row, "bytes"), ok_bytes(&body), "{row:?}");
        assert_eq!(jtl.int(row, "Connect"), 0);
    }

    let requests = server.requests_to("/");
    assert_eq!(requests.len(), 6);
    assert!(
        requests.iter().all(|r| r.connection == 1),
        "one connection carries every request of the user: {requests:?}"
    );
    let get = &server.requests_to("/get")[1];
    assert_eq!(get.method, "GET");
    assert_eq!(get.target, "/get?q=1");
    assert_eq!(get.header("x-test"), Some("iteration 1"));
    assert_eq!(
        get.header(":authority"),
        Some(format!("127.0.0.1:{}", server.port).as_str())
    );
    assert!(get
        .header("user-agent")
        .is_some_and(|a| a.starts_with("jmxr/")));
    for forbidden in ["connection", "host", "keep-alive", "transfer-encoding"] {
        assert_eq!(get.header(forbidden), None, "{forbidden} is not sent");
    }
    let post = &server.requests_to("/post")[2];
    assert_eq!(post.method, "POST");
    assert_eq!(post.body, b"{\"item\": 2}");
    assert_eq!(post.header("content-length"), Some("11"));
    assert!(post
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/plain")));
}

#[test]
fn without_the_property_http_requests_stay_on_http1() {
    // The HTTP/2 server refuses a handshake that does not offer h2.
    let server = serve_h2(echo);
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/http2.jmx", &[&port]);
    let row = jtl.labelled("get")[0];
    assert_eq!(
        jtl.get(row, "responseCode"),
        "Non HTTP response code: javax.net.ssl.SSLHandshakeException"
    );
}

#[test]
fn falls_back_to_http1_when_the_server_does_not_offer_h2() {
    let server = serve_tls(echo);
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/http2.jmx", &[&port, HTTP2]);
    let rows = jtl.labelled("get");
    assert_eq!(rows.len(), 3);
    for row in jtl.labelled("get").iter().chain(&jtl.labelled("post")) {
        assert_eq!(jtl.get(row, "responseCode"), "200", "{row:?}");
        assert_eq!(jtl.get(row, "responseMessage"), "OK");
    }
    assert_eq!(jtl.int(jtl.labelled("post")[0], "Connect"), 0);
    let requests = server.requests_to("/");
    assert_eq!(requests.len(), 6);
    assert!(
        requests.iter().all(|r| r.connection == 1),
        "the connection opened while offering h2 serves HTTP/1.1 and is kept: {requests:?}"
    );
    assert_eq!(requests[0].header("Connection"), Some("keep-alive"));
    assert_eq!(server.requests_to("/post")[0].body, b"{\"item\": 0}");
}

#[test]
fn bzm_http2_samplers_of_both_plugin_generations() {
    let server = serve_h2(echo);
    let port = format!("-Jport={}", server.port);
    // No property: the bzm sampler asks for HTTP/2 itself.
    let jtl = run_fixture("http/http2_bzm.jmx", &[&port]);
    for row in jtl.labelled("bzm get") {
        assert_eq!(jtl.get(row, "responseCode"), "200", "{row:?}");
        assert_eq!(jtl.int(row, "bytes"), ok_bytes("GET /bzm "));
    }
    for row in jtl.labelled("legacy post") {
        assert_eq!(jtl.get(row, "responseCode"), "200", "{row:?}");
        assert_eq!(jtl.int(row, "bytes"), ok_bytes("POST /legacy legacy body"));
    }
    let legacy = server.requests_to("/legacy");
    assert_eq!(legacy.len(), 2);
    assert_eq!(legacy[0].body, b"legacy body");
    assert_eq!(
        server.requests_to("/bzm")[0].header("x-test"),
        Some("iteration 0")
    );
    assert!(server.requests_to("/").iter().all(|r| r.connection == 1));
}

#[test]
fn a_status_without_reason_phrase_gets_the_standard_one() {
    let server = serve_h2(|_| {
        let mut reply = Reply::ok("none here");
        reply.status = 404;
        reply
    });
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/http2.jmx", &[&port, HTTP2]);
    let row = jtl.labelled("get")[0];
    assert_eq!(jtl.get(row, "responseCode"), "404");
    assert_eq!(jtl.get(row, "responseMessage"), "Not Found");
    assert_eq!(jtl.get(row, "success"), "false");
}

#[test]
fn a_connection_the_server_closed_is_replaced_without_a_failed_sample() {
    let server = serve_h2_one_request_per_connection(echo);
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/http2.jmx", &[&port, HTTP2]);
    let rows: Vec<&[String]> = jtl
        .labelled("get")
        .into_iter()
        .chain(jtl.labelled("post"))
        .collect();
    assert_eq!(rows.len(), 6);
    for row in &rows {
        assert_eq!(jtl.get(row, "responseCode"), "200", "{row:?}");
    }
    let requests = server.requests_to("/");
    assert_eq!(requests.len(), 6);
    let mut connections: Vec<usize> = requests.iter().map(|r| r.connection).collect();
    connections.dedup();
    assert_eq!(
        connections.len(),
        6,
        "a new connection for each request: {requests:?}"
    );
}

#[test]
fn a_response_slower_than_the_timeout_is_a_read_timeout() {
    let server = serve_h2(|request| {
        let mut reply = echo(request);
        if request.target.starts_with("/get") {
            reply.delay = std::time::Duration::from_millis(1500);
        }
        reply
    });
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/http2.jmx", &[&port, HTTP2, "-Jtimeout=200"]);
    let row = jtl.labelled("get")[0];
    assert_eq!(
        jtl.get(row, "responseCode"),
        "Non HTTP response code: java.net.SocketTimeoutException"
    );
    assert!(jtl.int(row, "elapsed") < 1400, "{row:?}");
    let post = jtl.labelled("post")[0];
    assert_eq!(
        jtl.get(post, "responseCode"),
        "200",
        "the connection still serves"
    );
}
