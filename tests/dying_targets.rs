//! Targets that die: a port nobody listens on, a server that resets every connection,
//! and one that stops answering a second into the run. Samples fail with JMeter's
//! messages, every sample makes at most one new connection (no retry loop), the run
//! costs little CPU, and it ends on schedule.

mod support;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use support::sockets::{close_with_reset, closed_tcp_port};
use support::{fixtures, jmxr, Jtl};

/// The plan's users, pause between samples (ms) and duration (s).
const USERS: i64 = 10;
const PAUSE_MS: i64 = 50;
const DURATION_S: i64 = 3;
/// Most samples the plan can make: each user samples at most once per pause.
const MOST_SAMPLES: usize = (USERS * (DURATION_S * 1000 / PAUSE_MS + 2)) as usize;
/// CPU the whole run may use (user and system time of jmxr).
const MOST_CPU: Duration = Duration::from_millis(1500);

/// CPU time (user + system) of the children waited for so far.
fn children_cpu() -> Duration {
    // SAFETY: getrusage writes into the zeroed struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// What a run against `port` gave: its samples, wall time and CPU time.
struct Run {
    jtl: Jtl,
    wall: Duration,
    cpu: Duration,
}

fn run_against(port: u16) -> Run {
    let work = tempfile::tempdir().unwrap();
    let plan = fixtures().join("http/dying_target.jmx");
    let cpu_before = children_cpu();
    let started = Instant::now();
    let output = jmxr(
        work.path(),
        &[
            "-n",
            "-t",
            plan.to_str().unwrap(),
            "-l",
            "out.jtl",
            &format!("-Jport={port}"),
            &format!("-Jusers={USERS}"),
            &format!("-Jpause={PAUSE_MS}"),
            &format!("-Jduration={DURATION_S}"),
        ],
    );
    let wall = started.elapsed();
    let cpu = children_cpu() - cpu_before;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Run {
        jtl: Jtl::read(&work.path().join("out.jtl")),
        wall,
        cpu,
    }
}

/// The run kept to its schedule, its pace and a small CPU budget.
fn assert_bounded(name: &str, run: &Run) {
    let samples = run.jtl.rows.len();
    assert!(
        run.wall < Duration::from_secs(DURATION_S as u64 + 3),
        "{name}: the run took {:?}",
        run.wall
    );
    assert!(
        (20..=MOST_SAMPLES).contains(&samples),
        "{name}: {samples} samples"
    );
    assert!(
        run.cpu < MOST_CPU,
        "{name}: the run used {:?} of CPU",
        run.cpu
    );
    eprintln!(
        "{name}: {samples} samples in {:?}, {:?} of CPU",
        run.wall, run.cpu
    );
}

/// Answers requests on one kept-alive connection until `dead`.
fn answer(mut stream: TcpStream, dead: &AtomicBool) {
    let mut request = Vec::new();
    let mut byte = [0u8; 1];
    let _ = stream.set_read_timeout(Some(Duration::from_millis(50)));
    while !dead.load(Ordering::SeqCst) {
        match stream.read(&mut byte) {
            Ok(1) => request.push(byte[0]),
            Ok(_) => return,
            Err(_) => continue,
        }
        if request.ends_with(b"\r\n\r\n") {
            request.clear();
            if stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                .is_err()
            {
                return;
            }
        }
    }
}

#[test]
fn dead_targets_fail_samples_at_the_plans_pace_and_the_run_ends_on_time() {
    // Nobody listens on the port.
    let port = closed_tcp_port();
    let refused = run_against(port);
    assert_bounded("refused", &refused);
    let prefix = format!("Non HTTP response message: Connect to 127.0.0.1:{port} [");
    for row in &refused.jtl.rows {
        let code = refused.jtl.get(row, "responseCode");
        let message = refused.jtl.get(row, "responseMessage");
        assert_eq!(
            code,
            "Non HTTP response code: org.apache.http.conn.HttpHostConnectException"
        );
        assert!(
            message.starts_with(&prefix) && message.ends_with("] failed: Connection refused"),
            "{message}"
        );
    }

    // Every connection is reset as soon as it is accepted.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().map_while(Result::ok) {
            counter.fetch_add(1, Ordering::SeqCst);
            close_with_reset(stream);
        }
    });
    let resets = run_against(port);
    assert_bounded("reset", &resets);
    let connections = accepted.load(Ordering::SeqCst);
    assert!(
        connections <= resets.jtl.rows.len(),
        "{connections} connections for {} samples",
        resets.jtl.rows.len()
    );
    for row in &resets.jtl.rows {
        let seen = (
            resets.jtl.get(row, "responseCode"),
            resets.jtl.get(row, "responseMessage"),
        );
        assert!(
            matches!(
                seen,
                (
                    "Non HTTP response code: java.net.SocketException",
                    "Non HTTP response message: Connection reset"
                        | "Non HTTP response message: Broken pipe"
                ) | (
                    "Non HTTP response code: org.apache.http.NoHttpResponseException",
                    _
                )
            ),
            "{seen:?}"
        );
    }

    // A server that answers for a second, then goes away with its connections.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let dead = Arc::new(AtomicBool::new(false));
    let server_dead = dead.clone();
    std::thread::spawn(move || {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(1) {
            match listener.accept() {
                Ok((stream, _)) => {
                    let _ = stream.set_nonblocking(false);
                    let dead = server_dead.clone();
                    std::thread::spawn(move || answer(stream, &dead));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        server_dead.store(true, Ordering::SeqCst);
    });
    let stopped = run_against(port);
    assert!(dead.load(Ordering::SeqCst));
    assert_bounded("stopped", &stopped);
    let codes: Vec<&str> = stopped
        .jtl
        .rows
        .iter()
        .map(|row| stopped.jtl.get(row, "responseCode"))
        .collect();
    assert_eq!(codes.first(), Some(&"200"), "the server answered at first");
    assert!(
        codes.iter().filter(|c| **c == "200").count() >= 50,
        "{codes:?}"
    );
    assert_eq!(
        codes.last(),
        Some(&"Non HTTP response code: org.apache.http.conn.HttpHostConnectException"),
        "new connections are refused once the server is gone"
    );
}
