//! HTTP Request end to end: `jmx-fixtures/http/scenarios.jmx` against an in-process
//! server on 127.0.0.1, checking the `.jtl` and what the server received.

mod support;

use std::io::Write;

use support::http_server::{serve, serve_tls, Reply, Request, TestServer};
use support::run_fixture;

fn gzip(text: &str) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(text.as_bytes()).expect("gzip");
    encoder.finish().expect("gzip")
}

fn handler(request: &Request) -> Reply {
    let cookie = request.header("Cookie").unwrap_or("").to_string();
    match request.target.as_str() {
        "/login" => Reply::redirect("/home").header("Set-Cookie", "session=abc; Path=/"),
        "/home" => Reply::ok("home"),
        "/whoami" | "/check" => Reply::ok(&format!("cookie={cookie}")),
        "/set" => Reply::ok("set").header("Set-Cookie", "it=1"),
        "/gzip" => {
            let mut reply = Reply::ok("");
            if request
                .header("Accept-Encoding")
                .is_some_and(|v| v.contains("gzip"))
            {
                reply.body = gzip("hello gzip");
                reply = reply.header("Content-Encoding", "gzip");
            }
            reply
        }
        "/slow" => {
            let mut reply = Reply::ok("late");
            reply.delay = std::time::Duration::from_millis(1500);
            reply
        }
        "/loop" => Reply::redirect("/loop"),
        "/missing" => {
            let mut reply = Reply::ok("nothing here");
            reply.status = 404;
            reply.reason = "Not Found";
            reply
        }
        _ => Reply::ok("got"),
    }
}

fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address").port()
}

fn run(server: &TestServer) -> support::Jtl {
    let port = format!("-Jport={}", server.port);
    let closed = format!("-Jclosed_port={}", closed_port());
    run_fixture(
        "http/scenarios.jmx",
        &[&port, &closed, "-Jhttpsampler.max_redirects=3"],
    )
}

#[test]
fn http_scenarios_against_a_local_server() {
    let server = serve(handler);
    let jtl = run(&server);

    // Redirect followed by JMeter: the container, then its hops as sub-results.
    let login = jtl.one("login");
    assert_eq!(jtl.get(login, "responseCode"), "200");
    assert_eq!(jtl.get(jtl.one("login-0"), "responseCode"), "302");
    assert_eq!(jtl.get(jtl.one("login-1"), "responseCode"), "200");
    let hops = jtl.int(jtl.one("login-0"), "bytes") + jtl.int(jtl.one("login-1"), "bytes");
    assert_eq!(jtl.int(login, "bytes"), hops);
    assert!(jtl.get(login, "URL").ends_with("/home"));

    // The cookie set on the redirect is carried; header managers merge inner-first.
    let whoami = jtl.one("whoami");
    assert_eq!(jtl.get(whoami, "success"), "true", "{whoami:?}");
    let sent = &server.requests_to("/whoami")[0];
    assert_eq!(sent.header("Cookie"), Some("session=abc"));
    assert_eq!(sent.header("X-Both"), Some("inner"));
    assert_eq!(sent.header("X-Outer"), Some("outer"));

    // Compressed body decoded (the assertion sees it), bytes counted as on the wire.
    let gz = jtl.one("gzip");
    assert_eq!(jtl.get(gz, "success"), "true", "{gz:?}");
    let wire = gzip("hello gzip").len() as i64;
    assert!(jtl.int(gz, "bytes") > wire && jtl.int(gz, "bytes") < wire + 200);

    // Bodies as received by the server.
    let form = &server.requests_to("/form")[0];
    assert_eq!(form.body, b"a=1&b=x+y");
    assert_eq!(
        form.header("Content-Type"),
        Some("application/x-www-form-urlencoded; charset=UTF-8")
    );
    let raw = &server.requests_to("/raw")[0];
    assert_eq!(raw.body, br#"{"k":1}"#);
    assert_eq!(raw.header("Content-Type"), Some("application/json"));
    let upload = &server.requests_to("/upload")[0];
    let content_type = upload.header("Content-Type").unwrap_or("");
    let boundary = content_type
        .split("boundary=")
        .nth(1)
        .and_then(|b| b.split(';').next())
        .expect("multipart boundary");
    let expected = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"field\"\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\nvalue\r\n--{boundary}--\r\n"
    );
    assert_eq!(String::from_utf8_lossy(&upload.body), expected);

    // Keep-alive: the samplers above shared one connection.
    let first_connection = server.requests_to("/login")[0].connection;
    assert_eq!(form.connection, first_connection);
    assert_eq!(upload.connection, first_connection);

    // Transport errors as JMeter names them.
    let slow = jtl.one("slow");
    assert_eq!(
        jtl.get(slow, "responseCode"),
        "Non HTTP response code: java.net.SocketTimeoutException"
    );
    assert_eq!(
        jtl.get(slow, "responseMessage"),
        "Non HTTP response message: Read timed out"
    );
    let refused = jtl.one("refused");
    assert_eq!(
        jtl.get(refused, "responseCode"),
        "Non HTTP response code: org.apache.http.conn.HttpHostConnectException"
    );
    assert!(jtl
        .get(refused, "responseMessage")
        .ends_with("failed: Connection refused"));

    // Too many redirects: JMeter's error hop after the limit (3 here), HttpClient's
    // exception for automatic redirects.
    let looped = jtl.one("loop");
    assert_eq!(
        jtl.get(looped, "responseMessage"),
        "Non HTTP response message: Exceeded maximum number of redirects: 3"
    );
    assert_eq!(jtl.labelled("loop-4").len(), 1);
    assert_eq!(
        jtl.get(jtl.one("auto"), "responseCode"),
        "Non HTTP response code: org.apache.http.client.ClientProtocolException"
    );

    // A 4xx is a failed sample with the server's code and message.
    let missing = jtl.one("not-found");
    assert_eq!(jtl.get(missing, "responseCode"), "404");
    assert_eq!(jtl.get(missing, "responseMessage"), "Not Found");
    assert_eq!(jtl.get(missing, "success"), "false");

    // clearEachIteration: the cookie set in iteration 1 is gone in iteration 2.
    let checks = server.requests_to("/check");
    assert_eq!(checks.len(), 2);
    assert_eq!(checks[0].header("Cookie"), None);
    assert_eq!(checks[1].header("Cookie"), None);
    // The same user on each iteration keeps its connection.
    assert_eq!(checks[0].connection, checks[1].connection);
}

/// "Same user on each iteration" off: each iteration is a new user, with new
/// connections and, for a Cookie Manager controlled by the thread group, no cookies.
#[test]
fn a_new_user_each_iteration_starts_without_connections_or_cookies() {
    let server = serve(handler);
    let port = format!("-Jport={}", server.port);
    run_fixture("http/new_user_each_iteration.jmx", &[&port]);
    let checks = server.requests_to("/check");
    assert_eq!(checks.len(), 2);
    assert_eq!(checks[1].header("Cookie"), None);
    assert_ne!(checks[0].connection, checks[1].connection);
    let sets = server.requests_to("/set");
    assert_eq!(sets[0].connection, checks[0].connection);
}

/// A request of constants is sent with a head made once; a cookie the user received
/// since must still go out with it, in HttpClient's place (after `Connection`).
#[test]
fn a_kept_request_head_still_carries_the_cookies_received_since() {
    let server = serve(handler);
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/kept_head_cookies.jmx", &[&port]);
    assert_eq!(jtl.values("responseCode"), ["200"; 6]);
    let checks = server.requests_to("/check");
    assert_eq!(checks.len(), 3);
    let cookies: Vec<Option<&str>> = checks.iter().map(|c| c.header("Cookie")).collect();
    assert_eq!(cookies, [None, Some("it=1"), Some("it=1")]);
    let names = |request: &Request| -> Vec<String> {
        request
            .headers
            .iter()
            .map(|(name, _)| name.clone())
            .collect()
    };
    assert_eq!(
        names(&checks[0]),
        ["Connection", "X-Constant", "Host", "User-Agent"]
    );
    for later in &checks[1..] {
        assert_eq!(
            names(later),
            ["Connection", "Cookie", "X-Constant", "Host", "User-Agent"]
        );
        assert_eq!(later.header("X-Constant"), Some("yes"));
    }
}

/// A URL made of properties alone is kept between samples; a property set during the
/// run must still change the next request.
#[test]
fn a_url_of_properties_follows_a_property_set_during_the_run() {
    let server = serve(handler);
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/property_url.jmx", &[&port]);
    let targets: Vec<String> = server
        .requests_to("/")
        .iter()
        .map(|r| r.target.clone())
        .collect();
    assert_eq!(targets, ["/first", "/set", "/second", "/set"]);
    let urls = jtl.values("URL");
    let base = format!("http://127.0.0.1:{}", server.port);
    assert_eq!(
        urls,
        [
            format!("{base}/first"),
            format!("{base}/set"),
            format!("{base}/second"),
            format!("{base}/set")
        ]
    );
}

/// HTTPS against a self-signed certificate: trusted by default as in JMeter, refused
/// when the run asks for certificate checking.
#[test]
fn https_with_a_self_signed_certificate() {
    let server = serve_tls(|_| Reply::ok("secure"));
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/https.jmx", &[&port]);
    let row = jtl.one("secure");
    assert_eq!(jtl.get(row, "responseCode"), "200", "{row:?}");
    assert_eq!(jtl.get(row, "success"), "true");
    assert!(jtl.get(row, "URL").starts_with("https://127.0.0.1:"));
    assert!(jtl.int(row, "Connect") <= jtl.int(row, "Latency"));
    let again = jtl.one("again");
    assert_eq!(
        jtl.int(again, "Connect"),
        0,
        "the TLS connection is kept alive"
    );
    assert_eq!(server.requests_to("/").len(), 2);
    assert_eq!(server.requests_to("/")[1].connection, 1);

    let strict = run_fixture(
        "http/https.jmx",
        &[&port, "-Jjmxr.https.verify_certificates=true"],
    );
    let row = strict.one("secure");
    assert_eq!(
        strict.get(row, "responseCode"),
        "Non HTTP response code: javax.net.ssl.SSLHandshakeException"
    );
}

fn md5_hex(text: &str) -> String {
    use md5::Digest;
    md5::Md5::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A quoted parameter of an `Authorization: Digest` header.
fn digest_param(header: &str, name: &str) -> String {
    let start = header
        .find(&format!("{name}=\""))
        .map(|p| p + name.len() + 2)
        .unwrap_or(header.len());
    header[start..].split('"').next().unwrap_or("").to_string()
}

/// Digest authentication: the 401 challenge is answered within the sample (RFC 2617,
/// qop=auth), and URLs outside the entry's prefix get no credentials.
#[test]
fn digest_auth_answers_the_challenge() {
    let server = serve(|request| {
        let challenge = r#"Digest realm="jmxr", qop="auth", nonce="abc123", opaque="xyz""#;
        let Some(header) = request.header("Authorization") else {
            let mut reply = Reply::ok("who are you").header("WWW-Authenticate", challenge);
            reply.status = 401;
            reply.reason = "Unauthorized";
            return reply;
        };
        let ha1 = md5_hex("user:jmxr:secret");
        let ha2 = md5_hex(&format!("{}:{}", request.method, request.target));
        let expected = md5_hex(&format!(
            "{ha1}:abc123:00000001:{}:auth:{ha2}",
            digest_param(header, "cnonce")
        ));
        if digest_param(header, "response") == expected {
            Reply::ok("welcome")
        } else {
            let mut reply = Reply::ok("wrong");
            reply.status = 403;
            reply.reason = "Forbidden";
            reply
        }
    });
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/digest.jmx", &[&port]);
    let private = jtl.one("private");
    assert_eq!(jtl.get(private, "responseCode"), "200", "{private:?}");
    assert_eq!(jtl.get(jtl.one("public"), "responseCode"), "401");
    assert_eq!(server.requests_to("/private").len(), 2);
}

/// Basic authentication: credentials go with the first request to a URL under the entry's
/// prefix (HttpClient's pre-emptive Basic as JMeter configures it), and nowhere else.
#[test]
fn basic_auth_sends_credentials_only_under_the_entry_url() {
    let server = serve(|request| match request.header("Authorization") {
        // base64("user:secret")
        Some("Basic dXNlcjpzZWNyZXQ=") => Reply::ok("welcome"),
        _ => {
            let mut reply =
                Reply::ok("who are you").header("WWW-Authenticate", r#"Basic realm="jmxr""#);
            reply.status = 401;
            reply.reason = "Unauthorized";
            reply
        }
    });
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/basic_auth.jmx", &[&port]);
    assert_eq!(jtl.get(jtl.one("private"), "responseCode"), "200");
    assert_eq!(jtl.get(jtl.one("public"), "responseCode"), "401");
    assert_eq!(server.requests_to("/private").len(), 1);
    let public: Vec<_> = server
        .requests_to("/")
        .into_iter()
        .filter(|r| r.target == "/")
        .collect();
    assert_eq!(public.len(), 1);
    assert_eq!(public[0].header("Authorization"), None);
}

/// deflate (zlib-wrapped) and brotli bodies are decoded before the assertions see them,
/// and `bytes` counts them as they came over the wire.
#[test]
fn deflate_and_brotli_bodies_are_decoded() {
    // "hello" as brotli: one uncompressed meta-block, so only a decoder strips its frame.
    const BROTLI_HELLO: [u8; 9] = [0x0b, 0x02, 0x80, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x03];
    let deflated = {
        let mut encoder =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(b"hello deflate").expect("deflate");
        encoder.finish().expect("deflate")
    };
    let body = deflated.clone();
    let server = serve(move |request| {
        let accepts = |coding: &str| {
            request
                .header("Accept-Encoding")
                .is_some_and(|v| v.contains(coding))
        };
        match request.target.as_str() {
            "/deflate" if accepts("deflate") => {
                let mut reply = Reply::ok("").header("Content-Encoding", "deflate");
                reply.body = body.clone();
                reply
            }
            "/brotli" if accepts("br") => {
                let mut reply = Reply::ok("").header("Content-Encoding", "br");
                reply.body = BROTLI_HELLO.to_vec();
                reply
            }
            _ => Reply::ok("not compressed"),
        }
    });
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/compression.jmx", &[&port]);
    for (label, wire) in [("deflate", deflated.len()), ("brotli", BROTLI_HELLO.len())] {
        let row = jtl.one(label);
        assert_eq!(jtl.get(row, "success"), "true", "{row:?}");
        let bytes = jtl.int(row, "bytes");
        assert!(bytes > wire as i64 && bytes < wire as i64 + 200, "{row:?}");
    }
}

/// Starts jmxr's mirror server on a free 127.0.0.1 port, in a thread of this process.
fn mirror() -> u16 {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let addr = jmxr::samplers::http::mirror::spawn_local(0)
                .await
                .expect("mirror binds");
            tx.send(addr.port()).expect("port sent");
            std::future::pending::<()>().await;
        });
    });
    rx.recv().expect("mirror port")
}

/// The README's demo: every sample succeeds against the built-in mirror, cookies set by
/// the mirror are sent back, and the redirect is followed.
#[test]
fn demo_plan_runs_against_the_mirror_server() {
    let port = format!("-Jport={}", mirror());
    let jtl = run_fixture("demo_http.jmx", &[&port, "-Jthreads=3", "-Jloops=2"]);
    assert_eq!(jtl.labelled("cart").len(), 6);
    assert_eq!(jtl.labelled("cart-0").len(), 6);
    let failures: Vec<_> = jtl
        .values("success")
        .into_iter()
        .filter(|s| s != "true")
        .collect();
    assert!(failures.is_empty(), "{failures:?}");
}

/// The README's set-up command: `--mirror-server PORT` serves the mirror for the run.
#[test]
fn demo_plan_runs_with_the_mirror_served_by_the_run_itself() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
        .to_string();
    let jtl = run_fixture(
        "demo_http.jmx",
        &[
            "--mirror-server",
            &port,
            &format!("-Jport={port}"),
            "-Jthreads=2",
            "-Jloops=1",
        ],
    );
    assert_eq!(jtl.labelled("cart").len(), 2);
    assert!(jtl.values("success").iter().all(|s| s == "true"));
}

/// A page for "Retrieve All Embedded Resources": a stylesheet with a background image,
/// an image referenced twice, an excluded image, an iframe with its own image.
fn embedded_site(request: &Request) -> Reply {
    let typed = |body: &str, content_type: &str| {
        let mut reply = Reply::ok(body);
        reply.headers = vec![("Content-Type".into(), content_type.into())];
        reply
    };
    match request.target.as_str() {
        "/page.html" => typed(
            r#"<html><head><link rel="stylesheet" href="css/site.css"></head>
            <body><img src="img/a.png"><img src="/img/a.png"><img src="skip/b.png">
            <iframe src="frame.html"></iframe></body></html>"#,
            "text/html; charset=UTF-8",
        )
        .header("Set-Cookie", "visit=1; Path=/"),
        "/css/site.css" => typed("body { background: url(../img/bg.png) }", "text/css"),
        "/frame.html" => typed(r#"<img src="img/f.png">"#, "text/html"),
        "/broken.html" => typed(r#"<img src="missing.png">"#, "text/html"),
        "/missing.png" => {
            let mut reply = typed("gone", "text/plain");
            reply.status = 404;
            reply.reason = "Not Found";
            reply
        }
        _ => typed("PNG....", "image/png"),
    }
}

#[test]
fn embedded_resources_are_fetched_as_nested_sub_results() {
    let server = serve(embedded_site);
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/embedded.jmx", &[&port]);

    // Every sample, then its sub-samples depth first. Sub-samples take the sampler's
    // name; the stylesheet and the iframe are containers of their own resources.
    let labels: Vec<&str> = jtl.rows.iter().map(|r| jtl.get(r, "label")).collect();
    assert_eq!(
        labels,
        [
            "page",
            "page-0",
            "page-1",
            "page-0",
            "page-1",
            "page-2",
            "page-3",
            "page-0",
            "page-1",
            "css only",
            "css only-0",
            "css only-1",
            "plain",
            "broken",
            "broken-0",
            "broken-1",
        ],
    );
    let base = format!("http://127.0.0.1:{}", server.port);
    let urls: Vec<String> = jtl
        .rows
        .iter()
        .map(|r| jtl.get(r, "URL").replace(&base, ""))
        .collect();
    assert_eq!(
        urls[..9],
        [
            "/page.html",
            "/page.html",
            "/css/site.css",
            "/css/site.css",
            "/img/bg.png",
            "/img/a.png",
            "/frame.html",
            "/frame.html",
            "/img/f.png",
        ],
        "duplicates fetched once, skip/ excluded"
    );
    assert_eq!(
        urls[11], "/css/site.css",
        "only URLs matching the allow pattern"
    );

    // Containers add up their parts.
    let bytes = |i: usize| jtl.int(&jtl.rows[i], "bytes");
    assert_eq!(bytes(0), bytes(1) + bytes(2) + bytes(5) + bytes(6));
    assert_eq!(bytes(2), bytes(3) + bytes(4));
    assert_eq!(jtl.get(&jtl.rows[0], "success"), "true");

    // A failed resource fails the container, which names it.
    let broken = jtl.one("broken");
    assert_eq!(jtl.get(broken, "success"), "false");
    assert_eq!(
        jtl.get(broken, "responseMessage"),
        format!("Embedded resource download error:{base}/missing.png code:404 message:Not Found, ")
    );

    // Resources are requested with the page's cookies, on the user's connection.
    let image = &server.requests_to("/img/a.png")[0];
    assert_eq!(image.header("Cookie"), Some("visit=1"));
    assert_eq!(
        server.requests_to("/img/f.png").len(),
        1,
        "the iframe's own image"
    );
    assert_eq!(server.requests_to("/skip/").len(), 0);
    assert_eq!(
        server.requests_to("/img/a.png").len(),
        1,
        "only the first sampler fetches images"
    );
}

/// `/fresh` may be kept a minute; `/validated` must be revalidated (`no-cache`; without
/// it JMeter would keep a response with `Last-Modified` and no `Date` for a year).
fn cacheable_site(request: &Request) -> Reply {
    match request.target.as_str() {
        "/fresh" => Reply::ok("fresh").header("Cache-Control", "public, max-age=60"),
        "/validated" if request.header("If-None-Match") == Some("\"v1\"") => {
            let mut reply = Reply::ok("");
            reply.status = 304;
            reply.reason = "Not Modified";
            reply
        }
        "/validated" => Reply::ok("validated")
            .header("Cache-Control", "no-cache")
            .header("ETag", "\"v1\"")
            .header("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT"),
        _ => Reply::ok("other"),
    }
}

#[test]
fn cache_manager_skips_fresh_resources_and_revalidates_the_others() {
    let server = serve(cacheable_site);
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/cache_manager.jmx", &[&port]);
    // A fresh entry makes no sample (JMeter's default); the cache is cleared each
    // iteration, so the second iteration asks again.
    assert_eq!(
        jtl.labels_of("Browser 1-1"),
        [
            "fresh",
            "validated",
            "validated again",
            "fresh",
            "validated",
            "validated again"
        ]
    );
    assert_eq!(server.requests_to("/fresh").len(), 2);
    let validated = server.requests_to("/validated");
    assert_eq!(validated.len(), 4);
    for (i, request) in validated.iter().enumerate() {
        let conditional = i % 2 == 1;
        assert_eq!(
            request.header("If-None-Match").is_some(),
            conditional,
            "{i}"
        );
        assert_eq!(
            request.header("If-Modified-Since"),
            conditional.then_some("Wed, 21 Oct 2015 07:28:00 GMT"),
            "{i}"
        );
    }
    let again = jtl.labelled("validated again");
    assert_eq!(jtl.get(again[0], "responseCode"), "304");
    assert_eq!(jtl.get(again[0], "success"), "true");

    // The stand-in sample JMeter can be asked for instead.
    let jtl = run_fixture(
        "http/cache_manager.jmx",
        &[
            &port,
            "-Jcache_manager.cached_resource_mode=RETURN_200_CACHE",
        ],
    );
    let cached = jtl.labelled("fresh again");
    assert_eq!(cached.len(), 2);
    assert_eq!(jtl.get(cached[0], "responseCode"), "200");
    assert_eq!(jtl.get(cached[0], "responseMessage"), "(ex cache)");
}
