//! What reaches the server, byte for byte: request lines, header lines and bodies of the
//! HTTP fixtures whose requests JMeter builds by rules of its own (headers HttpClient
//! computes itself, form bodies, the URI check, trimmed property values). Each fixture's
//! `.jtl` rows were compared with JMeter 2.13's where 2.13 behaves as 5.6.3 does; the
//! expected bytes here are JMeter's but for jmxr's `User-Agent`.

mod support;

use support::wire::{capture, Captured, WireServer};
use support::{run_fixture, Jtl};

fn user_agent() -> String {
    format!("User-Agent: jmxr/{}", env!("CARGO_PKG_VERSION"))
}

/// Runs `fixture` against a fresh capture server.
fn run(fixture: &str, extra: &[&str]) -> (Jtl, WireServer) {
    let server = capture();
    let port = format!("-Jport={}", server.port);
    let mut args = vec![port.as_str()];
    args.extend_from_slice(extra);
    let jtl = run_fixture(fixture, &args);
    (jtl, server)
}

fn host(server: &WireServer) -> String {
    format!("Host: 127.0.0.1:{}", server.port)
}

fn assert_head(request: &Captured, line: &str, headers: &[&str]) {
    assert_eq!(request.request_line(), line);
    assert_eq!(request.header_lines(), headers, "{}", request.head);
    assert!(request.complete, "the body never came: {request:?}");
}

fn code_message(jtl: &Jtl, label: &str) -> (String, String, String) {
    let row = jtl.one(label);
    (
        jtl.get(row, "responseCode").to_string(),
        jtl.get(row, "responseMessage").to_string(),
        jtl.get(row, "success").to_string(),
    )
}

#[test]
fn header_manager_cannot_set_content_length_and_host_gets_the_url_port() {
    let (jtl, server) = run("http/header_manager_computed.jmx", &[]);
    let (agent, host) = (user_agent(), host(&server));
    // A recorded `Content-Length: 15` on a GET used to make the server wait for a body.
    assert_head(
        &server.request("GET /recorded "),
        "GET /recorded HTTP/1.1",
        &[
            "Connection: keep-alive",
            "Accept: text/plain",
            &host,
            &agent,
        ],
    );
    let virtual_host = format!("Host: shop.example:{}", server.port);
    assert_head(
        &server.request("GET /virtual-host "),
        "GET /virtual-host HTTP/1.1",
        &["Connection: keep-alive", &virtual_host, &agent],
    );
    assert_head(
        &server.request("GET /closing "),
        "GET /closing HTTP/1.1",
        &["Connection: keep-alive", "Connection: close", &host, &agent],
    );
    let form = server.request("POST /form ");
    assert_head(
        &form,
        "POST /form HTTP/1.1",
        &[
            "Connection: keep-alive",
            "Content-Length: 3",
            "Content-Type: application/x-www-form-urlencoded; charset=UTF-8",
            &host,
            &agent,
        ],
    );
    assert_eq!(form.body, b"a=b");
    // HttpClient does not keep a connection whose request said `Connection: close`.
    let closing = server.request("GET /closing ").connection;
    assert_ne!(
        form.connection, closing,
        "the closed connection was used again"
    );
    // HttpClient refuses to frame a body itself when Transfer-Encoding is set already.
    assert!(server
        .requests()
        .iter()
        .all(|r| !r.head.contains("/chunked")));
    assert_eq!(
        code_message(&jtl, "POST with Transfer-Encoding"),
        (
            "Non HTTP response code: org.apache.http.client.ClientProtocolException".into(),
            "Non HTTP response message: null".into(),
            "false".into()
        )
    );
    // A Header Manager row without a name goes out as JMeter sends it.
    assert_head(
        &server.request("GET /nameless "),
        "GET /nameless HTTP/1.1",
        &["Connection: keep-alive", "Accept: */*", ": ", &host, &agent],
    );
    assert_eq!(jtl.rows.len(), 6);
    let successes = jtl
        .values("success")
        .iter()
        .filter(|s| *s == "true")
        .count();
    assert_eq!(successes, 5);
}

#[test]
fn form_values_without_url_encode_are_decoded_then_encoded_whole() {
    let (jtl, server) = run("http/form_not_encoded.jmx", &[]);
    let form = server.request("POST /form ");
    assert_head(
        &form,
        "POST /form HTTP/1.1",
        &[
            "Connection: keep-alive",
            "Content-Length: 41",
            "Content-Type: application/x-www-form-urlencoded; charset=UTF-8",
            &host(&server),
            &user_agent(),
        ],
    );
    assert_eq!(
        String::from_utf8_lossy(&form.body),
        "v=p%26q&w=a+b%26c%3Dd%3Ce%3EA+z&x=a+b%26c"
    );
    // A `%` that starts no escape: URLDecoder throws and nothing is sent.
    assert!(server
        .requests()
        .iter()
        .all(|r| !r.head.contains("/percent")));
    assert_eq!(
        code_message(&jtl, "POST form with a bare percent"),
        (
            "Non HTTP response code: java.lang.IllegalArgumentException".into(),
            "Non HTTP response message: URLDecoder: Incomplete trailing escape (%) pattern".into(),
            "false".into()
        )
    );
    let failed = jtl.one("POST form with a bare percent");
    let url = format!("http://127.0.0.1:{}/percent", server.port);
    assert_eq!(jtl.get(failed, "URL"), url);
    assert_eq!(code_message(&jtl, "GET after").0, "200");
}

#[test]
fn the_java_implementation_posts_raw_values() {
    let (jtl, server) = run("http/java_implementation_form.jmx", &[]);
    let post = server.request("POST /java ");
    assert_eq!(
        String::from_utf8_lossy(&post.body),
        "v=a b&k=k=v&t=<t>&x=x%41y&e=a+b"
    );
    assert!(post
        .header_lines()
        .contains(&"Content-Type: application/x-www-form-urlencoded"));
    assert!(post.header_lines().contains(&"Content-Length: 31"));
    // HttpURLConnection's default Accept, which servers negotiating content read.
    assert!(
        post.header_lines()
            .contains(&"Accept: text/html, image/gif, image/jpeg, */*; q=0.2"),
        "{}",
        post.head
    );
    assert_eq!(code_message(&jtl, "POST Java implementation").0, "200");
}

#[test]
fn a_query_illegal_in_a_uri_fails_before_anything_is_sent() {
    let (jtl, server) = run("http/illegal_query.jmx", &[]);
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    assert_eq!(requests[0].request_line(), "GET /after HTTP/1.1");
    let url = format!("http://127.0.0.1:{}/q?p=a b\"{{c}}", server.port);
    let index = "http://127.0.0.1:".len() + server.port.to_string().len() + "/q?p=a".len();
    assert_eq!(
        code_message(&jtl, "GET illegal query"),
        (
            "Non HTTP response code: java.net.URISyntaxException".into(),
            format!(
                "Non HTTP response message: Illegal character in query at index {index}: {url}"
            ),
            "false".into()
        )
    );
    assert_eq!(jtl.get(jtl.one("GET illegal query"), "URL"), url);
}

#[test]
fn property_values_and_defaults_are_trimmed() {
    let properties = support::fixtures().join("http/property_trim.properties");
    let properties = properties.to_str().expect("UTF-8 path");
    let (jtl, server) = run("http/property_trim.jmx", &["-q", properties]);
    assert_head(
        &server.request("GET "),
        "GET /p/7/abc/9 HTTP/1.1",
        &[
            "Connection: keep-alive",
            "Authorization: Bearer abc",
            &host(&server),
            &user_agent(),
        ],
    );
    assert_eq!(
        jtl.values("label"),
        ["id=[7] token=[abc] missing=[9] name=[1]"]
    );
}

#[test]
fn urls_jmeter_cannot_send_fail_as_in_jmeter() {
    let (jtl, server) = run("http/malformed_urls.jmx", &[]);
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    assert_eq!(requests[0].request_line(), "GET /after HTTP/1.1");
    // An empty domain: the URL has no authority, and HttpClient finds no host in it.
    let empty = jtl.one("GET with an empty domain");
    assert_eq!(jtl.get(empty, "URL"), "http:/empty-domain");
    assert_eq!(
        code_message(&jtl, "GET with an empty domain"),
        (
            "Non HTTP response code: org.apache.http.client.ClientProtocolException".into(),
            "Non HTTP response message: URI does not specify a valid host name: http:/empty-domain"
                .into(),
            "false".into()
        )
    );
    // An unknown protocol: Java's URL refuses it before JMeter names the result.
    assert_eq!(
        code_message(&jtl, ""),
        (
            "Non HTTP response code: java.net.MalformedURLException".into(),
            "Non HTTP response message: unknown protocol: htp".into(),
            "false".into()
        )
    );
    assert_eq!(
        jtl.values("label"),
        ["GET with an empty domain", "", "GET after"]
    );
}
