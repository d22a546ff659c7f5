//! bzm Parallel HTTP Requests end to end: the URL list is fetched at once against a
//! local server, and the `.jtl` holds the sample the plugin makes (no response code,
//! URL `http://parallel-urls-list`) followed by the downloads, named `-0`, `-1`, ... as
//! JMeter 5.6.3 names them.

mod support;

use std::time::Duration;

use support::http_server::{serve, Reply, Request};
use support::run_fixture;

/// `/slow/*` answers after 300 ms (`/slow/a` also sets a cookie); `/page.html` is a page
/// with an image; `/missing` is a 404.
fn site(request: &Request) -> Reply {
    let path = request.target.split('?').next().unwrap_or("");
    match path {
        "/login" => Reply::ok("in").header("Set-Cookie", "session=1; Path=/"),
        "/page.html" => {
            let mut reply = Reply::ok(r#"<html><body><img src="img.png"></body></html>"#);
            reply.headers = vec![("Content-Type".into(), "text/html".into())];
            reply
        }
        "/missing" => {
            let mut reply = Reply::ok("gone");
            reply.status = 404;
            reply.reason = "Not Found";
            reply
        }
        slow if slow.starts_with("/slow/") => {
            let mut reply = Reply::ok(&format!("answer of {slow}"));
            if slow == "/slow/a" {
                reply = reply.header("Set-Cookie", "a=1; Path=/");
            }
            reply.delay = Duration::from_millis(300);
            reply
        }
        _ => Reply::ok("ok"),
    }
}

/// What `ParallelHTTPSampler` puts in the page it makes for `url`.
fn iframe_len(url: &str) -> i64 {
    format!("<iframe src='{url}'></iframe>\n").len() as i64
}

/// Runs the fixture against `server`, with a port nothing listens on for `${__P(closed)}`.
fn run(server: &support::http_server::TestServer) -> support::Jtl {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port();
    run_fixture(
        "http/parallel_http_requests.jmx",
        &[
            &format!("-Jport={}", server.port),
            &format!("-Jclosed={closed}"),
        ],
    )
}

#[test]
fn the_list_is_fetched_at_once_under_one_sample() {
    let server = serve(site);
    let jtl = run(&server);
    let base = format!("http://127.0.0.1:{}", server.port);
    let labels: Vec<&str> = jtl.rows.iter().map(|r| jtl.get(r, "label")).collect();
    assert_eq!(
        labels,
        [
            "login",
            "parallel",
            "-0",
            "-1",
            "-2",
            "check",
            "with a failure",
            "-0",
            "with a failure-0",
            "with a failure-1",
            "-1",
            "-2",
            "empty",
        ]
    );

    // The sample the plugin makes: never requested, no response code.
    let parent = &jtl.rows[1];
    for (column, value) in [
        ("URL", "http://parallel-urls-list"),
        ("responseCode", ""),
        ("responseMessage", ""),
        ("success", "true"),
        ("dataType", ""),
        ("Latency", "0"),
        ("Connect", "0"),
    ] {
        assert_eq!(jtl.get(parent, column), value, "parallel {column}");
    }

    // The downloads, in the order of the list, variables and functions evaluated.
    let downloads = &jtl.rows[2..5];
    let urls: Vec<&str> = downloads.iter().map(|r| jtl.get(r, "URL")).collect();
    let listed = [
        format!("{base}/slow/a"),
        format!("{base}/slow/b"),
        format!("{base}/slow/c?user=1"),
    ];
    assert_eq!(urls, listed);
    for row in downloads {
        assert_eq!(jtl.get(row, "responseCode"), "200");
        assert_eq!(jtl.get(row, "success"), "true");
        assert_eq!(jtl.get(row, "threadName"), jtl.get(parent, "threadName"));
        assert!(jtl.int(row, "elapsed") >= 300);
    }

    // They overlapped: each started before any ended, and the sample lasted about the
    // longest of them, not their sum (3 × 300 ms).
    let first_end = downloads.iter().map(|r| jtl.span(r).1).min().unwrap();
    let last_start = downloads.iter().map(|r| jtl.span(r).0).max().unwrap();
    assert!(last_start < first_end, "downloads did not overlap");
    let elapsed = jtl.int(parent, "elapsed");
    assert!(
        (300..700).contains(&elapsed),
        "3 × 300 ms at once took {elapsed} ms"
    );
    let (start, end) = jtl.span(parent);
    assert!(start <= jtl.span(&downloads[0]).0);
    assert_eq!(end, downloads.iter().map(|r| jtl.span(r).1).max().unwrap());

    // Its sizes: its own page plus the downloads'.
    let sum = |column: &str| downloads.iter().map(|r| jtl.int(r, column)).sum::<i64>();
    let page: i64 = listed.iter().map(|u| iframe_len(u)).sum();
    assert_eq!(jtl.int(parent, "bytes"), page + sum("bytes"));
    assert_eq!(jtl.int(parent, "sentBytes"), sum("sentBytes"));

    // Each download is a GET with the Header Manager's header and the user's cookies;
    // the cookie one of them set reaches the next request.
    let slow = server.requests_to("/slow/");
    assert_eq!(slow.len(), 3);
    assert_eq!(
        slow.iter()
            .map(|r| r.connection)
            .collect::<std::collections::HashSet<_>>()
            .len(),
        3
    );
    for request in &slow {
        assert_eq!(request.method, "GET");
        assert_eq!(request.header("X-Test"), Some("parallel"));
        assert_eq!(request.header("Cookie"), Some("session=1"));
    }
    let check = &server.requests_to("/check")[0];
    let cookie = check.header("Cookie").unwrap_or("");
    assert!(
        cookie.contains("session=1") && cookie.contains("a=1"),
        "{cookie}"
    );
}

#[test]
fn a_failed_url_fails_the_sample_and_an_empty_list_is_one_successful_sample() {
    let server = serve(site);
    let jtl = run(&server);
    let base = format!("http://127.0.0.1:{}", server.port);
    let failed = jtl.one("with a failure");
    assert_eq!(jtl.get(failed, "success"), "false");
    assert_eq!(jtl.get(failed, "responseCode"), "");
    let message = jtl.get(failed, "responseMessage");
    let prefix = format!(
        "Embedded resource download error:{base}/missing code:404 message:Not Found, \
         http://127.0.0.1:"
    );
    assert!(message.starts_with(&prefix), "{message}");
    let rows = &jtl.rows[7..12];
    // The page in the list has its own resources (the sampler retrieves them), named
    // after the sampler. Every URL is fetched by HttpClient 4, whatever implementation
    // the sampler names (`Java` here): its exception names the refused connection.
    let refused = jtl.get(&rows[4], "responseCode");
    assert_eq!(
        refused,
        "Non HTTP response code: org.apache.http.conn.HttpHostConnectException"
    );
    assert!(
        message.ends_with(&format!(
            "/refused code:{refused} message:{}, ",
            jtl.get(&rows[4], "responseMessage")
        )),
        "{message}"
    );
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                jtl.get(r, "label"),
                jtl.get(r, "responseCode"),
                jtl.get(r, "success"),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("-0", "200", "true"),
            ("with a failure-0", "200", "true"),
            ("with a failure-1", "200", "true"),
            ("-1", "404", "false"),
            ("-2", refused, "false"),
        ]
    );
    assert_eq!(jtl.get(&rows[2], "URL"), format!("{base}/img.png"));
    assert_eq!(server.requests_to("/img.png").len(), 1);

    let empty = jtl.one("empty");
    assert_eq!(jtl.get(empty, "success"), "true");
    assert_eq!(jtl.get(empty, "URL"), "http://parallel-urls-list");
    assert_eq!(jtl.int(empty, "bytes"), 0);
    assert!(jtl.int(empty, "elapsed") < 50);
}
