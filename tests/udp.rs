//! UDP load end to end: plans in the tutorial's shape (Java Request
//! `com.demo.udp.UdpSampler`) sending to an in-process sink or to `jmxr udp-sink`, on
//! 127.0.0.1 only.

mod support;

use std::net::UdpSocket;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use jmxr::commands::udp_receiver::{self, Counts, SinkConfig};
use support::{fixtures, jmxr, Jtl};

const PLAN: &str = "udp/udp_sampler.jmx";

fn sink_config(sequence: bool) -> SinkConfig {
    SinkConfig {
        host: "127.0.0.1".into(),
        port: 0,
        duration: None,
        report: None,
        sequence,
        jtl: None,
    }
}

/// Runs `plan` with `extra` against an in-process sink; returns the `.jtl` and what the
/// sink received.
fn run_against_sink(plan: &str, extra: &[&str], sequence: bool) -> (Jtl, Counts) {
    let sink = udp_receiver::start(&sink_config(sequence)).expect("the sink binds");
    let port = format!("-Judp.port={}", sink.local_addr.port());
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join(plan);
    let mut args = vec![
        "-n",
        "-t",
        plan.to_str().expect("UTF-8 path"),
        "-l",
        "out.jtl",
        &port,
    ];
    args.extend_from_slice(extra);
    let output = jmxr(work.path(), &args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Loopback delivers at once; a moment lets the receiver thread drain its buffer.
    std::thread::sleep(Duration::from_millis(300));
    let (counts, _) = sink.stop();
    (Jtl::read(&work.path().join("out.jtl")), counts)
}

fn successes(jtl: &Jtl) -> usize {
    jtl.values("success")
        .iter()
        .filter(|s| *s == "true")
        .count()
}

#[test]
fn tutorial_plan_holds_2000_pps_and_the_sink_gets_every_packet() {
    let (jtl, counts) = run_against_sink(
        PLAN,
        &["-Jrampup=1", "-Jduration=4", "-Jjmxr.udp.sequence=true"],
        true,
    );
    assert!(!jtl.rows.is_empty());
    assert_eq!(successes(&jtl), jtl.rows.len(), "every send succeeded");
    assert_eq!(
        counts.datagrams as usize,
        jtl.rows.len(),
        "sink == jtl rows"
    );
    let sequences = counts.sequences.as_ref().expect("numbered");
    assert_eq!(sequences.lost(), 0);
    assert_eq!(sequences.duplicated, 0);
    assert!(jtl.values("bytes").iter().all(|b| b == "100"));
    assert!(jtl
        .values("responseMessage")
        .iter()
        .all(|m| m == "udp send ok"));
    // 20 users × 10 ms: 2,000 per second once all users run. A starved shared machine
    // may lose a second, so the best whole second is held to ±2 % and the total to a
    // generous share of the ideal (4 s minus half the 1 s ramp-up, at 2,000/s).
    let rates = counts.steady_rates();
    let best = rates
        .iter()
        .copied()
        .min_by_key(|r| r.abs_diff(2000))
        .unwrap_or(0);
    assert!((1960..=2040).contains(&best), "per-second rates {rates:?}");
    let total = jtl.rows.len();
    assert!((5600..=7100).contains(&total), "{total} datagrams");
}

/// At full rate (`intervalMs=0`) each user sends back to back: every `.jtl` row is one
/// datagram received, and a single user's numbers arrive dense and in order. A fixed
/// count rather than a duration keeps the burst within the sink's receive buffer on a
/// starved machine. With packets shorter than the sequence number (which is cut with
/// them) only the counts are checked.
#[test]
fn full_rate_rows_and_datagrams_agree_one_for_one() {
    let (jtl, counts) = run_against_sink(
        "udp/full_rate.jmx",
        &["-Jloops=3000", "-Jjmxr.udp.sequence=true"],
        true,
    );
    assert_eq!(jtl.rows.len(), 3000);
    assert_eq!(successes(&jtl), 3000, "every send succeeded");
    assert_eq!(counts.datagrams, 3000, "sink == jtl rows");
    let sequences = counts.sequences.as_ref().expect("numbered");
    assert_eq!(sequences.unique, 3000);
    assert_eq!(sequences.lost(), 0);
    assert_eq!(sequences.duplicated, 0);
    assert_eq!(sequences.reordered, 0, "one user sends in order");
    assert!(jtl.values("bytes").iter().all(|b| b == "100"));
    assert!(jtl.values("responseCode").iter().all(|c| c == "0"));

    let (jtl, counts) = run_against_sink(
        "udp/full_rate.jmx",
        &[
            "-Jthreads=2",
            "-Jloops=1000",
            "-Judp.packet_size=6",
            "-Jjmxr.udp.sequence=true",
        ],
        false,
    );
    assert_eq!(jtl.rows.len(), 2000);
    assert_eq!(counts.datagrams, 2000, "sink == jtl rows");
    assert_eq!(counts.bytes, 2000 * 6);
}

#[test]
fn packet_size_pads_with_zeros_or_truncates() {
    for (size, expected) in [("7", 7u64), ("300", 300)] {
        let size_arg = format!("-Judp.packet_size={size}");
        let (jtl, counts) = run_against_sink(
            PLAN,
            &["-Jthreads=2", "-Jrampup=0", "-Jduration=1", &size_arg],
            false,
        );
        assert!(counts.datagrams > 0);
        assert_eq!(counts.bytes, counts.datagrams * expected, "size {size}");
        assert!(jtl.values("bytes").iter().all(|b| b == size));
    }
}

/// The sender decodes its parameters once per user while they read only properties; a
/// property set during the run must still reach the next datagram.
#[test]
fn udp_parameters_follow_properties_set_during_the_run() {
    let (jtl, counts) = run_against_sink("udp/udp_properties.jmx", &[], false);
    let sizes: Vec<String> = jtl
        .labelled("UDP Send")
        .into_iter()
        .map(|row| jtl.get(row, "bytes").to_string())
        .collect();
    assert_eq!(sizes, ["10", "15", "25"]);
    assert_eq!((counts.datagrams, counts.bytes), (3, 50));
}

#[test]
fn an_unmapped_class_is_refused_with_the_property_that_maps_it() {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("udp/unmapped_class.jmx");
    let plan = plan.to_str().expect("UTF-8 path");
    let output = jmxr(work.path(), &["check", plan]);
    assert_eq!(output.status.code(), Some(2));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(text.contains("\"com.acme.telemetry.UdpSender\""), "{text}");
    assert!(
        text.contains("parameters: host, port, message, intervalMs, packetSize"),
        "{text}"
    );
    assert!(
        text.contains("jmxr.java.com.acme.telemetry.UdpSender=<implementation>"),
        "{text}"
    );
    let run = jmxr(work.path(), &["-n", "-t", plan, "-l", "out.jtl"]);
    assert_eq!(run.status.code(), Some(2), "a run is refused too");
}

#[test]
fn a_property_maps_a_project_class_to_the_udp_sender() {
    let (jtl, counts) = run_against_sink(
        "udp/unmapped_class.jmx",
        &[
            "-Jjmxr.java.com.acme.telemetry.UdpSender=udp",
            "-Jduration=1",
        ],
        false,
    );
    assert!(!jtl.rows.is_empty());
    assert_eq!(counts.datagrams as usize, successes(&jtl));
}

#[test]
fn udp_sink_command_reconciles_with_the_senders_jtl() {
    let port = {
        let probe = UdpSocket::bind("127.0.0.1:0").expect("a free port");
        probe.local_addr().expect("address").port()
    };
    let work = tempfile::tempdir().expect("scratch folder");
    let port_text = port.to_string();
    let mut sink = Command::new(env!("CARGO_BIN_EXE_jmxr"))
        .args([
            "udp-sink",
            "--port",
            &port_text,
            "--duration",
            "4",
            "--sequence",
            "--report",
            "per_second.csv",
            "--jtl",
            "out.jtl",
        ])
        .current_dir(work.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("udp-sink starts");
    std::thread::sleep(Duration::from_millis(300));
    let plan = fixtures().join(PLAN);
    let port_arg = format!("-Judp.port={port}");
    let run = jmxr(
        work.path(),
        &[
            "-n",
            "-t",
            plan.to_str().expect("UTF-8 path"),
            "-l",
            "out.jtl",
            "-Jthreads=5",
            "-Jrampup=0",
            "-Jduration=1",
            "-Jjmxr.udp.sequence=true",
            &port_arg,
        ],
    );
    assert!(run.status.success());
    let started = Instant::now();
    while sink.try_wait().expect("waitable").is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "udp-sink did not stop"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = sink.wait_with_output().expect("udp-sink ends");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout} {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("lost 0, duplicated 0"), "{stdout}");
    assert!(stdout.contains("not received 0"), "{stdout}");
    let csv = std::fs::read_to_string(work.path().join("per_second.csv")).expect("report");
    assert!(
        csv.starts_with("epochSecond,datagrams,bytes,sent\n"),
        "{csv}"
    );
    assert!(Path::new(&work.path().join("out.jtl")).is_file());
}

#[test]
fn udp_request_plugin_exchanges_with_an_echo_server_and_times_out() {
    let echo = support::sockets::udp_echo();
    let silent = support::sockets::udp_silent();
    let echo_port = format!("-Jecho.port={}", echo.port());
    let silent_port = format!("-Jsilent.port={}", silent.port());
    let jtl = support::run_fixture("udp/udp_request.jmx", &[&echo_port, &silent_port]);
    assert_eq!(jtl.rows.len(), 10, "5 samplers × 2 loops");
    for row in jtl.labelled("echo text") {
        assert_eq!(jtl.get(row, "responseCode"), "200");
        assert_eq!(jtl.get(row, "success"), "true");
        assert_eq!(jtl.get(row, "bytes"), "6", "the echoed \"ping 1\"");
    }
    for row in jtl.labelled("echo hex") {
        assert_eq!(jtl.get(row, "success"), "true");
        assert_eq!(
            jtl.get(row, "bytes"),
            "8",
            "4 bytes back, stored as 8 hex digits"
        );
    }
    for row in jtl.labelled("no reply") {
        assert_eq!(jtl.get(row, "responseCode"), "500");
        assert_eq!(
            jtl.get(row, "responseMessage"),
            "java.net.SocketTimeoutException: Timeout exceeded while reading from socket"
        );
        assert!(jtl.int(row, "elapsed") >= 190, "waited the timeout");
    }
    for row in jtl.labelled("fire and forget") {
        assert_eq!(jtl.get(row, "success"), "true");
        assert_eq!(jtl.get(row, "bytes"), "0");
    }
    for row in jtl.labelled("bad hex") {
        assert_eq!(jtl.get(row, "responseCode"), "500");
        assert!(jtl
            .get(row, "responseMessage")
            .contains("uneven no. of digits"));
    }
}

/// The sender's socket is connected (the kernel then keeps the route), and a connected
/// socket reports "port unreachable" for an earlier datagram as the error of the next
/// send, which is then not sent. The Java class's unconnected socket sends every
/// datagram whether anybody listens or not; so must jmxr: every sample succeeds, and
/// once a receiver binds, it gets every numbered datagram from its first on.
#[test]
fn datagrams_to_a_port_nobody_listens_on_yet_are_all_sent() {
    let port = UdpSocket::bind("127.0.0.1:0")
        .and_then(|s| s.local_addr())
        .expect("a free port")
        .port();
    let receiver = std::thread::spawn(move || {
        // Let the sender meet a closed port first (ICMP errors pile up on its socket).
        std::thread::sleep(Duration::from_millis(500));
        let socket = UdpSocket::bind(("127.0.0.1", port)).expect("the port is still free");
        socket
            .set_read_timeout(Some(Duration::from_millis(700)))
            .unwrap();
        let mut numbers = Vec::new();
        let mut buffer = [0u8; 64];
        while let Ok(size) = socket.recv(&mut buffer) {
            assert!(size >= 8);
            numbers.push(u64::from_be_bytes(buffer[..8].try_into().unwrap()));
        }
        numbers
    });
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join(PLAN);
    let port_arg = format!("-Judp.port={port}");
    let output = jmxr(
        work.path(),
        &[
            "-n",
            "-t",
            plan.to_str().unwrap(),
            "-l",
            "out.jtl",
            &port_arg,
            "-Jthreads=1",
            "-Jrampup=0",
            "-Jduration=2",
            "-Judp.interval=2",
            "-Jjmxr.udp.sequence=true",
        ],
    );
    assert!(output.status.success(), "{output:?}");
    let numbers = receiver.join().expect("the receiver ran");
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    assert!(jtl.rows.len() > 400, "{} samples", jtl.rows.len());
    assert_eq!(
        successes(&jtl),
        jtl.rows.len(),
        "codes {:?}",
        jtl.values("responseCode")
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
    );
    let first = *numbers.first().expect("the receiver got datagrams");
    let expected: Vec<u64> = (first..jtl.rows.len() as u64).collect();
    assert_eq!(
        numbers, expected,
        "every datagram from the receiver's first on"
    );
    assert!(first > 50, "the first {first} went to a closed port");
}
