//! TCP Sampler end to end: each of JMeter's client classes against in-process servers
//! on 127.0.0.1 (line echo, binary echo, length-prefixed), plus refused connections and
//! read timeouts, with defaults from a TCP Sampler Config.

mod support;

use std::cell::Cell;
use std::collections::HashMap;
use std::net::TcpStream;
use std::sync::atomic::AtomicBool;

use support::sockets::{self, serve_requests};
use support::{fixtures, jmxr};

/// Answers each line with `<n> <LINE IN CAPITALS>` (n counts requests on this
/// connection, which shows re-use); `sleep` gets no answer.
fn line_server(stream: &mut TcpStream, stop: &AtomicBool) {
    let count = Cell::new(0);
    serve_requests(
        stream,
        stop,
        |pending| pending.ends_with(b"\n"),
        |request| {
            count.set(count.get() + 1);
            if request == b"sleep\n" {
                return Vec::new();
            }
            let text = String::from_utf8_lossy(request).to_uppercase();
            format!("{} {text}", count.get()).into_bytes()
        },
    );
}

/// Echoes whatever arrives.
fn binary_echo(stream: &mut TcpStream, stop: &AtomicBool) {
    serve_requests(
        stream,
        stop,
        |pending| !pending.is_empty(),
        |request| request.to_vec(),
    );
}

/// Reads a 2-byte length and that many bytes; answers the bytes reversed, prefixed.
fn length_prefixed(stream: &mut TcpStream, stop: &AtomicBool) {
    let complete = |pending: &[u8]| {
        pending.len() >= 2
            && pending.len() - 2 >= usize::from(u16::from_be_bytes([pending[0], pending[1]]))
    };
    serve_requests(stream, stop, complete, |request| {
        let mut body = request[2..].to_vec();
        body.reverse();
        let mut reply = (body.len() as u16).to_be_bytes().to_vec();
        reply.extend(body);
        reply
    });
}

/// A sample read back from an XML `.jtl`.
struct Sample {
    code: String,
    message: String,
    data_type: String,
    success: bool,
    data: String,
}

fn read_samples(path: &std::path::Path) -> HashMap<String, Sample> {
    let text = std::fs::read_to_string(path).expect("jtl");
    let doc = roxmltree::Document::parse(&text).expect("XML jtl");
    doc.descendants()
        .filter(|n| n.has_tag_name("sample"))
        .map(|n| {
            let attr = |name: &str| n.attribute(name).unwrap_or("").to_string();
            let data = n
                .children()
                .find(|c| c.has_tag_name("responseData"))
                .and_then(|c| c.text())
                .unwrap_or("")
                .to_string();
            let sample = Sample {
                code: attr("rc"),
                message: attr("rm"),
                data_type: attr("dt"),
                success: attr("s") == "true",
                data,
            };
            (attr("lb"), sample)
        })
        .collect()
}

#[test]
fn every_tcp_client_against_in_process_servers() {
    let line = sockets::tcp(line_server);
    let binary = sockets::tcp(binary_echo);
    let prefixed = sockets::tcp(length_prefixed);
    let closed = sockets::closed_tcp_port();
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("tcp/tcp_clients.jmx");
    let ports = [
        format!("-Jeol.port={}", line.port()),
        format!("-Jbinary.port={}", binary.port()),
        format!("-Jprefixed.port={}", prefixed.port()),
        format!("-Jclosed.port={closed}"),
    ];
    let mut args = vec![
        "-n",
        "-t",
        plan.to_str().expect("UTF-8 path"),
        "-l",
        "out.jtl",
        "-Jjmeter.save.saveservice.output_format=xml",
        "-Jjmeter.save.saveservice.response_data=true",
    ];
    args.extend(ports.iter().map(String::as_str));
    let output = jmxr(work.path(), &args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let samples = read_samples(&work.path().join("out.jtl"));
    let get = |label: &str| {
        samples
            .get(label)
            .unwrap_or_else(|| panic!("no sample {label}"))
    };

    let hello = get("text hello");
    assert_eq!((hello.code.as_str(), hello.message.as_str()), ("200", "OK"));
    assert_eq!(
        hello.data, "1 HELLO\n",
        "defaults from the TCP Sampler Config"
    );
    assert_eq!(hello.data_type, "text");
    assert_eq!(
        get("text again").data,
        "2 AGAIN\n",
        "the connection was re-used"
    );

    let timeout = get("text timeout");
    assert_eq!(timeout.code, "500");
    assert_eq!(
        timeout.message,
        "org.apache.jmeter.protocol.tcp.sampler.ReadException: Error reading from server, bytes read: 0"
    );
    assert!(!timeout.success);
    assert_eq!(
        get("text after timeout").data,
        "1 FRESH\n",
        "a failed read drops the connection"
    );

    assert_eq!(
        get("binary echo").data,
        "0102ff",
        "no EOM: a timeout ends the response"
    );
    assert!(get("binary echo").success);
    assert_eq!(get("binary eom").data, "0a0b0c");
    let eom_timeout = get("binary eom timeout");
    assert_eq!(
        eom_timeout.message,
        "org.apache.jmeter.protocol.tcp.sampler.ReadException: Socket timed out while looking for EOM"
    );
    assert_eq!(eom_timeout.data, "0a0b", "the partial response");

    assert_eq!(get("length prefixed").data, "030201");
    assert_eq!(get("length prefixed again").data, "bbaa");

    let refused = get("refused");
    assert_eq!(refused.code, "500");
    assert_eq!(
        refused.message,
        "java.net.ConnectException: Connection refused"
    );
    assert_eq!(
        refused.data_type, "",
        "no connection, no data type (as JMeter)"
    );

    let unknown = get("unknown host");
    assert_eq!(
        unknown.message,
        "java.net.UnknownHostException: nonexistent.invalid"
    );
    assert_eq!(unknown.code, "500");

    let bad_hex = get("bad hex");
    assert_eq!(
        bad_hex.message,
        "java.lang.IllegalArgumentException: Hex-encoded binary string contains an uneven no. of digits"
    );
}

/// A listener that never accepts, with its accept queue filled, so the next connection
/// attempt hangs until the client gives up (Linux drops the SYN of a full queue).
fn saturated_listener() -> (socket2::Socket, Vec<TcpStream>) {
    use socket2::{Domain, Socket, Type};
    let socket = Socket::new(Domain::IPV4, Type::STREAM, None).expect("socket");
    let addr: std::net::SocketAddr = "127.0.0.1:0".parse().expect("address");
    socket.bind(&addr.into()).expect("bind");
    socket.listen(0).expect("listen");
    let local = socket
        .local_addr()
        .expect("address")
        .as_socket()
        .expect("an IP address");
    let mut held = Vec::new();
    for _ in 0..4 {
        match TcpStream::connect_timeout(&local, std::time::Duration::from_millis(200)) {
            Ok(stream) => held.push(stream),
            Err(_) => break,
        }
    }
    (socket, held)
}

#[test]
fn a_connect_timeout_reports_javas_message() {
    let (listener, _held) = saturated_listener();
    let port = listener
        .local_addr()
        .expect("address")
        .as_socket()
        .expect("an IP address")
        .port();
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("tcp/connect_timeout.jmx");
    let port_arg = format!("-Jport={port}");
    let output = jmxr(
        work.path(),
        &[
            "-n",
            "-t",
            plan.to_str().expect("UTF-8 path"),
            "-l",
            "out.jtl",
            "-Jjmeter.save.saveservice.output_format=xml",
            &port_arg,
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let samples = read_samples(&work.path().join("out.jtl"));
    let sample = samples.get("connect").expect("a sample");
    assert_eq!(sample.code, "500");
    assert_eq!(
        sample.message,
        "java.net.SocketTimeoutException: Connect timed out"
    );
    assert!(!sample.success);
}
