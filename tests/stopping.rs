//! Stopping: Ctrl-C (SIGINT) and SIGTERM stop gracefully, every recorded sample is in
//! the `.jtl`, and the file stays parseable.

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
    let (child, work) = start(fixture);
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

/// Starts a run of `fixture` writing `out.jtl` in a scratch folder.
fn start(fixture: &str) -> (std::process::Child, tempfile::TempDir) {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join(fixture);
    let child = Command::new(env!("CARGO_BIN_EXE_jmxr"))
        .args(["-n", "-t", plan.to_str().unwrap(), "-l", "out.jtl"])
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
        let (mut child, work) = start(fixture);
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
