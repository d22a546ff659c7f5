//! Stopping: Ctrl-C (SIGINT) and SIGTERM stop gracefully, for at most the grace period
//! (`jmxr.stop.grace_period_ms`); every recorded sample is in the `.jtl`, samples cut
//! short are recorded as failed, and the file stays parseable.

#![cfg(unix)]

mod support;

use std::process::{Command, Stdio};
use std::time::Duration;

use support::{fixtures, Jtl};

fn interrupt_after(signal: &str, delay: Duration) -> (std::process::Output, tempfile::TempDir) {
    interrupt(signal, &[delay], "stopping/forever.jmx")
}

/// Runs `fixture` and sends `signal` after each of `delays` in turn.
fn interrupt(
    signal: &str,
    delays: &[Duration],
    fixture: &str,
) -> (std::process::Output, tempfile::TempDir) {
    let (child, work) = start(fixture, &[]);
    for delay in delays {
        std::thread::sleep(*delay);
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }
    let output = child.wait_with_output().expect("jmxr ends");
    (output, work)
}

/// Starts a run of `fixture` writing `out.jtl` in a scratch folder, with `extra` options.
fn start(fixture: &str, extra: &[&str]) -> (std::process::Child, tempfile::TempDir) {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join(fixture);
    let child = Command::new(env!("CARGO_BIN_EXE_jmxr"))
        .args(["-n", "-t", plan.to_str().unwrap(), "-l", "out.jtl"])
        .args(extra)
        .current_dir(work.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("jmxr starts");
    (child, work)
}

/// The count of the final `summary =` line.
fn summary_total(stdout: &str) -> usize {
    let line = stdout
        .lines()
        .rfind(|l| l.starts_with("summary ="))
        .unwrap_or_else(|| panic!("no summary line in {stdout}"));
    line["summary =".len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("bad summary line {line}"))
}

#[test]
fn ctrl_c_leaves_every_reported_sample_in_the_jtl() {
    let (output, work) = interrupt_after("-INT", Duration::from_millis(1500));
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let reported = summary_total(&stdout);
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    assert!(reported > 100, "only {reported} samples before the stop");
    assert_eq!(jtl.rows.len(), reported);
    assert!(jtl.rows.iter().all(|r| r.len() == jtl.header.len()));
}

#[test]
fn sigterm_stops_gracefully_too() {
    let (output, work) = interrupt_after("-TERM", Duration::from_millis(800));
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    assert_eq!(jtl.rows.len(), summary_total(&stdout));
}

#[test]
fn a_second_ctrl_c_stops_at_once_and_still_writes_what_was_recorded() {
    // Every user is soon inside a 60 s sample: a graceful stop would wait for it.
    let started = std::time::Instant::now();
    let (output, work) = interrupt(
        "-INT",
        &[Duration::from_millis(600), Duration::from_millis(300)],
        "stopping/long_samples.jmx",
    );
    let took = started.elapsed();
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    let labels = jtl.values("label");
    assert_eq!(labels.iter().filter(|l| *l == "quick").count(), 5);
    // A sample cut short by the stop is either dropped or recorded as failed.
    let success = jtl.values("success");
    for (label, ok) in labels.iter().zip(&success) {
        assert!(label == "quick" || ok == "false", "{label} {ok}");
    }
    assert_eq!(jtl.rows.len(), summary_total(&stdout));
}

/// The `label` column of the `.jtl` a run is writing, as it is on disk now.
fn labels_on_disk(jtl: &std::path::Path) -> Vec<String> {
    // Nothing, or not yet the header line: no samples.
    let written = std::fs::read_to_string(jtl).unwrap_or_default();
    if !written.contains('\n') {
        return Vec::new();
    }
    Jtl::read(jtl).values("label")
}

#[test]
fn samples_reach_the_jtl_while_their_users_wait() {
    // Users publish their samples in batches: a user about to wait (inside a long sample,
    // or in a long timer) must hand over what it recorded first, or nothing would be
    // written for as long as it waits.
    for (fixture, users) in [
        ("stopping/long_samples.jmx", 5),
        ("stopping/long_timer.jmx", 2),
    ] {
        let (mut child, work) = start(fixture, &[]);
        let jtl = work.path().join("out.jtl");
        // The results writer flushes after a second without samples.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut seen = labels_on_disk(&jtl);
        while seen.len() < users && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
            seen = labels_on_disk(&jtl);
        }
        let still_running = child.try_wait().expect("status").is_none();
        for _ in 0..2 {
            let _ = Command::new("kill")
                .args(["-INT", &child.id().to_string()])
                .status();
            std::thread::sleep(Duration::from_millis(200));
        }
        child.wait_with_output().expect("jmxr ends");
        assert!(still_running, "{fixture}: the run ended early");
        assert_eq!(seen, vec!["quick".to_string(); users], "{fixture}");
    }
}

/// Runs `fixture` to its end with extra arguments; the output, the scratch folder and
/// how long the run took.
fn run_to_end(
    fixture: &str,
    extra: &[&str],
) -> (std::process::Output, tempfile::TempDir, Duration) {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join(fixture);
    let started = std::time::Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_jmxr"))
        .args(["-n", "-t", plan.to_str().unwrap(), "-l", "out.jtl"])
        .args(extra)
        .current_dir(work.path())
        .output()
        .expect("jmxr runs");
    (output, work, started.elapsed())
}

#[test]
fn an_autostop_listener_stops_the_run_on_the_average_of_its_own_scope() {
    // The AutoStop Listener sits in the "Slow" group (500 ms recorded per sample, limit
    // 200 ms for 2 s). The "Fast" group's many 1 ms samples would pull an average over
    // every sample far below the limit: only the listener's scope may count.
    const MESSAGE: &str =
        "AutoStop - Average Response Time is more than 200 for 2s. Auto-shutdown test...";
    let (output, work, took) = run_to_end("stopping/autostop.jmx", &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(4), "{output:?}");
    assert!(stdout.contains(MESSAGE), "{stdout}");
    // The groups would run 20 s; the condition holds within 2-3 s.
    assert!(took < Duration::from_secs(8), "took {took:?}");
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    assert!(jtl.rows.iter().all(|r| r.len() == jtl.header.len()));
    assert_eq!(jtl.rows.len(), summary_total(&stdout));
    let labels = jtl.values("label");
    let slow = labels.iter().filter(|l| *l == "slow").count();
    assert!((5..=40).contains(&slow), "{slow} slow samples");

    // Within the limit the run goes to its end, with exit code 0.
    let (output, _work, took) = run_to_end(
        "stopping/autostop.jmx",
        &["-Jslow.time=100", "-Jduration=3"],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(!stdout.contains("AutoStop"), "{stdout}");
    assert!(took >= Duration::from_millis(2900), "took {took:?}");
}

/// The grace period jmxr documents for a graceful stop (`jmxr.stop.grace_period_ms`).
const DEFAULT_GRACE: Duration = Duration::from_secs(5);

/// Starts `stopping/hanging_request.jmx` against a server that never answers and returns
/// once the user is inside the request.
fn start_hanging(
    extra: &[&str],
) -> (
    std::process::Child,
    tempfile::TempDir,
    support::wire::WireServer,
) {
    let server = support::wire::silent();
    let port = format!("-Jport={}", server.port);
    let mut args = vec![port.as_str()];
    args.extend_from_slice(extra);
    let (child, work) = start("stopping/hanging_request.jmx", &args);
    let waiting = std::time::Instant::now();
    while server.requests().is_empty() {
        assert!(
            waiting.elapsed() < Duration::from_secs(20),
            "no request came"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    (child, work, server)
}

#[test]
fn one_sigterm_ends_a_run_stuck_in_a_request_within_the_grace_period() {
    // The server reads the request and never answers; the sampler has no response
    // timeout (JMeter's default), so the sample would last forever. A scheduler sends one
    // SIGTERM and kills later: the run must end by itself within the grace period.
    let (child, work, _server) = start_hanging(&[]);
    std::thread::sleep(Duration::from_millis(300));
    let signalled = std::time::Instant::now();
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let output = child.wait_with_output().expect("jmxr ends");
    let took = signalled.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(
        took < DEFAULT_GRACE + Duration::from_secs(1),
        "took {took:?}: {stderr}"
    );
    // It waited for the sample, as a graceful stop does, and said what it waited for.
    assert!(
        took >= DEFAULT_GRACE - Duration::from_millis(100),
        "took {took:?}"
    );
    assert!(
        stderr.contains("waiting up to 5.0 s (jmxr.stop.grace_period_ms) for 1 sample in progress: \"GET that hangs\" (Users 1-1"),
        "{stderr}"
    );
    // The interrupted sample is recorded as JMeter records an aborted request, and the
    // file is complete.
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    assert_eq!(jtl.rows.len(), 1);
    let row = jtl.one("GET that hangs");
    assert_eq!(jtl.get(row, "success"), "false");
    assert_eq!(
        jtl.get(row, "responseCode"),
        "Non HTTP response code: java.net.SocketException"
    );
    assert_eq!(
        jtl.get(row, "responseMessage"),
        "Non HTTP response message: Socket closed"
    );
    assert!(jtl.int(row, "elapsed") >= 5000, "{row:?}");
    assert_eq!(summary_total(&String::from_utf8_lossy(&output.stdout)), 1);
}

#[test]
fn the_grace_period_is_a_property_and_a_second_signal_cuts_it_short() {
    let (child, work, _server) = start_hanging(&["-Jjmxr.stop.grace_period_ms=60000"]);
    let signalled = std::time::Instant::now();
    for delay in [Duration::ZERO, Duration::from_millis(500)] {
        std::thread::sleep(delay);
        let kill = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        assert!(kill.expect("kill runs").success());
    }
    let output = child.wait_with_output().expect("jmxr ends");
    let took = signalled.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Far below the 60 s grace period: the second signal cut it short. The bound leaves
    // room for a loaded machine (a CI runner running other test binaries beside this one
    // once took over 3 s to shut down).
    assert!(took < Duration::from_secs(15), "took {took:?}: {stderr}");
    assert!(stderr.contains("waiting up to 60.0 s"), "{stderr}");
    assert!(
        stderr.contains("Stopping now: ending 1 sample in progress"),
        "{stderr}"
    );
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    assert_eq!(jtl.values("success"), ["false"]);
}

#[test]
fn ctrl_c_while_the_run_waits_for_its_start_time_stops_it_at_once_and_leaves_a_valid_jtl() {
    // With `--start-at` a minute ahead the run loads its plan, opens its files and waits.
    // Ctrl-C then must stop it gracefully and at once: neither end the process as the
    // signal's default action does (the run used to listen only once its users started)
    // nor let it wait out the minute.
    use std::io::BufRead;
    let start_at = std::time::SystemTime::now() + Duration::from_secs(60);
    let start_at = start_at
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis()
        .to_string();
    let (mut child, work) = start("stopping/forever.jmx", &["--start-at", &start_at]);
    let pid = child.id().to_string();
    // However the run behaves, it is killed after 40 s so that the test cannot hang; the
    // watchdog stands down once the run is reaped, before its process id can be reused.
    let reaped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let (pid, reaped) = (pid.clone(), reaped.clone());
        std::thread::spawn(move || {
            for _ in 0..400 {
                if reaped.load(std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
        })
    };
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut seen = String::new();
    while !seen.contains("Created the tree successfully") {
        let mut line = String::new();
        let read = stdout.read_line(&mut line).expect("stdout readable");
        assert!(read > 0, "the run ended before it waited: {seen}");
        seen.push_str(&line);
    }
    let signalled = std::time::Instant::now();
    let kill = Command::new("kill").args(["-INT", &pid]).status();
    assert!(kill.expect("kill runs").success());
    let output = child.wait_with_output().expect("jmxr ends");
    let took = signalled.elapsed();
    reaped.store(true, std::sync::atomic::Ordering::SeqCst);
    watchdog.join().expect("the watchdog ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    // Exit code 3, an interrupted run; a process ended by the signal has none.
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(took < Duration::from_secs(15), "took {took:?}: {stderr}");
    let jtl = Jtl::read(&work.path().join("out.jtl"));
    assert_eq!(jtl.values("timeStamp").len(), 0, "no sample ran");
}
