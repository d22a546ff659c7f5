//! HTTP Request networking end to end: the DNS Cache Manager asking its DNS servers
//! (an in-process DNS server on 127.0.0.1), the source address of requests
//! (`ipSource`), and parallel downloads of embedded resources.

mod support;

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{IpAddr, TcpListener, UdpSocket};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::http_server::{serve, Reply, Request};
use support::run_fixture;

/// A DNS server on 127.0.0.1 answering A questions: `shop.jmxr.test` and
/// `kept.jmxr.test` are 127.0.0.1, `www.jmxr.test` is a CNAME of `shop.jmxr.test`, every
/// other name does not exist. Returns its port and the names asked, in order.
fn serve_dns() -> (u16, Arc<Mutex<Vec<String>>>) {
    let socket = UdpSocket::bind("127.0.0.1:0").expect("bind UDP 127.0.0.1");
    let port = socket.local_addr().expect("address").port();
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 512];
        while let Ok((n, peer)) = socket.recv_from(&mut buf) {
            let query = &buf[..n];
            let Some((name, question_end)) = question(query) else {
                continue;
            };
            seen.lock().expect("names lock").push(name.clone());
            let _ = socket.send_to(&dns_answer(query, &name, question_end), peer);
        }
    });
    (port, asked)
}

/// The name asked in `query` and where its question ends.
fn question(query: &[u8]) -> Option<(String, usize)> {
    let mut labels = Vec::new();
    let mut pos = 12;
    loop {
        let length = usize::from(*query.get(pos)?);
        if length == 0 {
            return Some((labels.join("."), pos + 5));
        }
        labels.push(String::from_utf8_lossy(query.get(pos + 1..pos + 1 + length)?).to_string());
        pos += 1 + length;
    }
}

fn dns_record(owner: [u8; 2], rtype: u8, data: &[u8]) -> Vec<u8> {
    let mut record = owner.to_vec();
    record.extend_from_slice(&[0, rtype, 0, 1, 0, 0, 0, 60, 0, data.len() as u8]);
    record.extend_from_slice(data);
    record
}

fn dns_answer(query: &[u8], name: &str, question_end: usize) -> Vec<u8> {
    let mut out = query[..question_end].to_vec();
    out[2] = 0x81;
    out[3] = 0x80;
    out[8..12].fill(0);
    let localhost = [127, 0, 0, 1];
    let records: Vec<Vec<u8>> = match name {
        "shop.jmxr.test" | "kept.jmxr.test" => vec![dns_record([0xc0, 12], 1, &localhost)],
        "www.jmxr.test" => {
            // shop + a pointer to "jmxr.test" in the question; the A record's owner
            // points at that CNAME data.
            let target = question_end + 12;
            vec![
                dns_record([0xc0, 12], 5, b"\x04shop\xc0\x10"),
                dns_record([0xc0, target as u8], 1, &localhost),
            ]
        }
        _ => {
            out[3] |= 3;
            Vec::new()
        }
    };
    out[6..8].copy_from_slice(&(records.len() as u16).to_be_bytes());
    for record in records {
        out.extend(record);
    }
    out
}

#[test]
fn dns_cache_manager_asks_its_servers_and_caches_per_user() {
    let server = serve(|_| Reply::ok("ok"));
    let (dns_port, asked) = serve_dns();
    let jtl = run_fixture(
        "http/dns_servers.jmx",
        &[
            &format!("-Jport={}", server.port),
            &format!("-Jdnsport={dns_port}"),
        ],
    );
    for label in ["by dns", "static host", "static alias", "cname", "kept"] {
        for row in jtl.labelled(label) {
            assert_eq!(
                jtl.get(row, "responseCode"),
                "200",
                "{label}: {}",
                jtl.get(row, "responseMessage")
            );
        }
    }
    let dns_requests = server.requests_to("/dns");
    assert_eq!(dns_requests.len(), 2);
    assert_eq!(
        dns_requests[0].header("Host"),
        Some(format!("shop.jmxr.test:{}", server.port).as_str())
    );
    // As in JMeter, the custom resolver asks its servers even for a literal address.
    for (label, name) in [("unknown", "nowhere.jmxr.test"), ("literal", "127.0.0.1")] {
        let rows = jtl.labelled(label);
        assert_eq!(rows.len(), 2);
        for row in rows {
            assert_eq!(jtl.get(row, "success"), "false");
            assert_eq!(
                jtl.get(row, "responseCode"),
                "Non HTTP response code: java.net.UnknownHostException"
            );
            assert_eq!(
                jtl.get(row, "responseMessage"),
                format!("Non HTTP response message: Failed to resolve host name: {name}")
            );
        }
    }
    // Static host names are not asked, their addresses are (a literal one that the
    // server does not know stands for itself); failures are not cached; "clear each
    // iteration" asks again, the other manager's cache keeps its name.
    let one_iteration = [
        "shop.jmxr.test",
        "127.0.0.1",
        "shop.jmxr.test",
        "www.jmxr.test",
        "127.0.0.1",
        "nowhere.jmxr.test",
    ];
    let mut expected: Vec<&str> = one_iteration.repeat(2);
    expected.push("kept.jmxr.test");
    assert_eq!(*asked.lock().expect("names lock"), expected);
}

/// Each request's target and the address it came from, in order.
type Peers = Arc<Mutex<Vec<(String, IpAddr)>>>;

/// A server on 127.0.0.1 answering every request with `ok` on a connection of its
/// own; records each request's target and the address it came from.
fn serve_recording_peers() -> (u16, Peers) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("address").port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let Ok(peer) = stream.peer_addr() else {
                continue;
            };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
                head.push(byte[0]);
            }
            let text = String::from_utf8_lossy(&head).to_string();
            let target = text.split(' ').nth(1).unwrap_or("").to_string();
            record.lock().expect("peers lock").push((target, peer.ip()));
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        }
    });
    (port, seen)
}

#[test]
fn requests_leave_from_the_source_address() {
    let (port, peers) = serve_recording_peers();
    let jtl = run_fixture("http/ip_source.jmx", &[&format!("-Jport={port}")]);
    for label in ["from 127.0.0.2", "from lo", "no source"] {
        assert_eq!(jtl.get(jtl.one(label), "responseCode"), "200", "{label}");
    }
    let loopback = |last: u8| IpAddr::from([127, 0, 0, last]);
    assert_eq!(
        *peers.lock().expect("peers lock"),
        [
            ("/a".to_string(), loopback(2)),
            ("/b".to_string(), loopback(1)),
            ("/c".to_string(), loopback(1)),
        ],
        "the address that cannot be bound and the missing interface send nothing"
    );
    let not_local = jtl.one("not local");
    assert_eq!(jtl.get(not_local, "success"), "false");
    assert_eq!(
        jtl.get(not_local, "responseCode"),
        "Non HTTP response code: java.net.BindException"
    );
    assert_eq!(
        jtl.get(not_local, "responseMessage"),
        "Non HTTP response message: Cannot assign requested address"
    );
    let no_interface = jtl.one("no interface");
    assert_eq!(
        jtl.get(no_interface, "responseCode"),
        "Non HTTP response code: java.net.UnknownHostException"
    );
    assert_eq!(
        jtl.get(no_interface, "responseMessage"),
        "Non HTTP response message: Cannot find interface no-such-if0"
    );
}

/// A page with six images, each answered after 200 ms; the last sets a cookie.
fn slow_images(request: &Request) -> Reply {
    let typed = |body: &str, content_type: &str| {
        let mut reply = Reply::ok(body);
        reply.headers = vec![("Content-Type".into(), content_type.into())];
        reply
    };
    match request.target.as_str() {
        "/page.html" => typed(
            r#"<html><body><img src="img/1.png"><img src="img/2.png"><img src="img/3.png">
            <img src="img/4.png"><img src="img/5.png"><img src="img/6.png"></body></html>"#,
            "text/html; charset=UTF-8",
        )
        .header("Set-Cookie", "visit=1; Path=/"),
        "/check" => Reply::ok("checked"),
        image => {
            let mut reply = typed(&format!("PNG {image}"), "image/png");
            if image == "/img/6.png" {
                reply = reply.header("Set-Cookie", "img6=1; Path=/");
            }
            reply.delay = Duration::from_millis(200);
            reply
        }
    }
}

#[test]
fn parallel_downloads_overlap_and_keep_the_sequential_results() {
    let server = serve(slow_images);
    let jtl = run_fixture(
        "http/parallel_downloads.jmx",
        &[&format!("-Jport={}", server.port)],
    );
    let rows_of = |name: &str| -> Vec<&[String]> {
        jtl.rows
            .iter()
            .filter(|r| {
                let label = jtl.get(r, "label");
                label == name || label.starts_with(&format!("{name}-"))
            })
            .map(Vec::as_slice)
            .collect()
    };
    let sequential = rows_of("sequential");
    let parallel = rows_of("parallel");
    assert_eq!(sequential.len(), 8, "the page, then the page and 6 images");
    assert_eq!(parallel.len(), 8);
    for (s, p) in sequential.iter().zip(&parallel) {
        let label = jtl.get(s, "label").replacen("sequential", "parallel", 1);
        assert_eq!(jtl.get(p, "label"), label);
        for column in [
            "URL",
            "responseCode",
            "responseMessage",
            "success",
            "bytes",
            "sentBytes",
            "dataType",
        ] {
            assert_eq!(jtl.get(s, column), jtl.get(p, column), "{label} {column}");
        }
    }
    let base = format!("http://127.0.0.1:{}", server.port);
    let urls: Vec<String> = parallel[2..]
        .iter()
        .map(|r| jtl.get(r, "URL").replace(&base, ""))
        .collect();
    assert_eq!(
        urls,
        [1, 2, 3, 4, 5, 6].map(|n| format!("/img/{n}.png")),
        "sub-results in the order of the page, not of completion"
    );

    let elapsed = |rows: &[&[String]]| jtl.int(rows[0], "elapsed");
    assert!(elapsed(&sequential) >= 1200, "{}", elapsed(&sequential));
    assert!(
        elapsed(&parallel) < 700,
        "6 × 200 ms at once: {} ms",
        elapsed(&parallel)
    );

    // The sequential user fetches on its one kept-alive connection; each parallel
    // download has its own. Both send the page's cookie, and the image's cookie
    // reaches the next request.
    let images = server.requests_to("/img/");
    assert_eq!(images.len(), 12);
    let connections = |requests: &[Request]| -> HashSet<usize> {
        requests.iter().map(|r| r.connection).collect()
    };
    assert_eq!(connections(&images[..6]).len(), 1);
    assert_eq!(connections(&images[6..]).len(), 6);
    assert!(images.iter().all(|r| r.header("Cookie") == Some("visit=1")));
    let checks = server.requests_to("/check");
    assert_eq!(checks.len(), 2);
    for check in checks {
        let cookie = check.header("Cookie").unwrap_or("");
        assert!(
            cookie.contains("visit=1") && cookie.contains("img6=1"),
            "{cookie}"
        );
    }
}

/// A page whose frame holds an image.
fn framed_site(request: &Request) -> Reply {
    let html = |body: &str| {
        let mut reply = Reply::ok(body);
        reply.headers = vec![("Content-Type".into(), "text/html".into())];
        reply
    };
    match request.target.as_str() {
        "/framed.html" => html(r#"<iframe src="frame.html"></iframe>"#),
        "/frame.html" => html(r#"<img src="img/f.png">"#),
        _ => Reply::ok("PNG"),
    }
}

#[test]
fn parallel_downloads_keep_only_md5_when_asked() {
    for (md5_only, images) in [(false, 1), (true, 0)] {
        let server = serve(framed_site);
        let jtl = run_fixture(
            "http/parallel_md5.jmx",
            &[
                &format!("-Jport={}", server.port),
                &format!("-Jhttpsampler.embedded_resources_use_md5={md5_only}"),
            ],
        );
        assert_eq!(jtl.get(jtl.one("framed"), "success"), "true");
        assert_eq!(server.requests_to("/frame.html").len(), 1);
        // The frame's body is only its MD5 then: there is nothing to parse in it.
        assert_eq!(
            server.requests_to("/img/f.png").len(),
            images,
            "embedded_resources_use_md5={md5_only}"
        );
    }
}
