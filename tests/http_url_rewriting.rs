//! HTTP URL Re-writing Modifier end to end: `jmx-fixtures/http/url_rewriting.jmx` takes a
//! session id from the previous response and sends it as a path extension, then as a
//! query argument that replaces a stale one, then from the element's cache when a
//! response has none, against an in-process server on 127.0.0.1.

mod support;

use support::http_server::{serve, Reply};
use support::run_fixture;

#[test]
fn the_session_id_of_the_previous_response_goes_into_the_next_request() {
    let server = serve(|request| {
        let target = request.target.as_str();
        if target.starts_with("/login") {
            Reply::ok(r#"<a href="/home;jsessionid=S1?tab=2">home</a>"#)
        } else if target.starts_with("/home") {
            Reply::ok(r#"<form><input type="hidden" name="jsessionid" value="S2%3D"></form>"#)
        } else {
            Reply::ok("no session id here")
        }
    });
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/url_rewriting.jmx", &[&port]);
    assert_eq!(jtl.values("success"), ["true"; 4]);
    let target = |prefix: &str| {
        let requests = server.requests_to(prefix);
        assert_eq!(requests.len(), 1, "requests to {prefix}");
        requests[0].target.clone()
    };
    // Path extension without the question mark part: the value stops at `?`.
    assert_eq!(target("/home"), "/home;jsessionid=S1");
    // As an argument: the stale one is removed and the found one appended, decoded and
    // encoded again as JMeter's HTTPArgument does.
    assert_eq!(target("/search"), "/search?q=rust&jsessionid=S2%3D");
    // The search's answer has no id: the element's cached value is sent.
    assert_eq!(target("/cached"), "/cached?jsessionid=S2%3D");
    // The first sampler had no previous response and is left alone.
    assert_eq!(target("/login"), "/login");
}
