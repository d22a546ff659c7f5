//! The progress display in a real terminal: jmxr runs in a private tmux server's pane,
//! the pane is captured twice during the run and once after; the status line must
//! have moved on, and every summariser line must be whole. Without a terminal the
//! output holds no status line and no terminal control codes. An Open Model group's
//! schedule gives the bar its length.

mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use support::{fixtures, jmxr};

/// A tmux server of the test's own (its own socket), killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    /// A server named `name` plus the process id, running `command` in a 200×50 pane
    /// named `run` in `workdir`.
    fn start(name: &str, workdir: &std::path::Path, command: &str) -> Tmux {
        let tmux = Tmux {
            socket: format!("{name}-{}", std::process::id()),
        };
        let workdir = workdir.to_str().expect("UTF-8 scratch folder");
        tmux.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "run",
            "-x",
            "200",
            "-y",
            "50",
            "-c",
            workdir,
            command,
        ]);
        tmux
    }

    fn run(&self, args: &[&str]) -> String {
        let output = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs (.ci/run installs Debian's tmux)");
        String::from_utf8_lossy(&output.stdout).to_string()
    }

    fn capture(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "run"])
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

/// Runs jmxr on `fixture` with `args` in a scratch folder, in the pane of a tmux server
/// named after `name`; after the run the pane prints `RUN-ENDED` and stays open.
fn run_in_tmux(name: &str, fixture: &str, args: &str) -> (Tmux, tempfile::TempDir) {
    let work = tempfile::tempdir().expect("scratch folder");
    let command = format!(
        "{} -n -t {} -l out.jtl {args}; echo RUN-ENDED; sleep 60",
        env!("CARGO_BIN_EXE_jmxr"),
        fixtures().join(fixture).display()
    );
    let tmux = Tmux::start(name, work.path(), &command);
    (tmux, work)
}

/// The progress display's status line on a captured screen.
fn status_line(screen: &str) -> Option<String> {
    screen
        .lines()
        .find(|l| l.contains("users ") && l.contains("-> out.jtl"))
        .map(str::to_string)
}

/// JMeter's summariser line: `summary +      5 in 00:00:01 = … Finished:     0`.
fn whole_summary_line(line: &str) -> bool {
    let line = line.trim_end();
    (line.starts_with("summary + ") || line.starts_with("summary = "))
        && line.contains(" in 00:")
        && line.contains("/s Avg:")
        && line.contains("Err:")
        && (line.starts_with("summary = ") || line.contains("Finished:"))
        && !line.contains("users ")
}

#[test]
fn the_status_line_moves_in_a_terminal_and_summariser_lines_stay_whole() {
    let (tmux, _work) = run_in_tmux(
        "jmxr-progress",
        "live/criteria.jmx",
        "-Jduration=6 -Jsummariser.interval=1",
    );
    std::thread::sleep(Duration::from_millis(2500));
    let first = tmux.capture();
    std::thread::sleep(Duration::from_millis(2000));
    let second = tmux.capture();
    let (one, two) = (status_line(&first), status_line(&second));
    let one = one.unwrap_or_else(|| panic!("no status line:\n{first}"));
    let two = two.unwrap_or_else(|| panic!("no status line:\n{second}"));
    assert_ne!(
        one, two,
        "the status line did not move:\n{first}\n---\n{second}"
    );
    assert!(
        one.starts_with('[') && one.contains(" / 0:06"),
        "a bar against the plan's 6 s: {one}"
    );
    assert!(two.contains("users 3 active, 3 started"), "{two}");
    assert!(two.contains("/s, errors ") && two.contains("p95 "), "{two}");
    // The status line is the last line written, under the summariser's.
    let last_line = second.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
    assert_eq!(last_line, two, "{second}");

    let started = Instant::now();
    let mut end = tmux.capture();
    while !end.contains("RUN-ENDED") && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(300));
        end = tmux.capture();
    }
    assert!(end.contains("... end of run"), "{end}");
    let summaries: Vec<&str> = end.lines().filter(|l| l.contains("summary ")).collect();
    assert!(summaries.len() >= 4, "a summariser line a second:\n{end}");
    for line in &summaries {
        assert!(
            whole_summary_line(line),
            "summariser line overwritten: {line:?}\n{end}"
        );
    }
    assert!(
        status_line(&end).is_none(),
        "the status line is gone at the end:\n{end}"
    );
}

#[test]
fn an_open_model_group_shows_its_schedule_as_the_plan_length() {
    // Its schedule lasts 3 + 1 + 1 s; a low rate keeps the run light.
    let (tmux, _work) = run_in_tmux(
        "jmxr-progress-open",
        "arrivals/open_model.jmx",
        "-Jom.rate=5",
    );
    let started = Instant::now();
    let mut screen = tmux.capture();
    while status_line(&screen).is_none() && started.elapsed() < Duration::from_secs(4) {
        std::thread::sleep(Duration::from_millis(200));
        screen = tmux.capture();
    }
    let line = status_line(&screen).unwrap_or_else(|| panic!("no status line:\n{screen}"));
    assert!(
        line.starts_with('[') && line.contains(" / 0:05"),
        "a bar against the schedule's 5 s: {line}"
    );
}

#[test]
fn without_a_terminal_the_output_has_no_status_line() {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("live/criteria.jmx");
    let args = [
        "-n",
        "-t",
        plan.to_str().unwrap(),
        "-l",
        "out.jtl",
        "-Jduration=2",
        "-Jsummariser.interval=1",
    ];
    let output = jmxr(work.path(), &args);
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    assert!(
        !stdout.contains('\x1b') && !stdout.contains('\r'),
        "{stdout:?}"
    );
    assert!(!stdout.contains("users "), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("Created the tree successfully using "),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("Starting standalone test @ "),
        "{stdout}"
    );
    assert!(
        lines
            .iter()
            .filter(|l| l.starts_with("summary "))
            .all(|l| whole_summary_line(l)),
        "{stdout}"
    );
    assert_eq!(lines.last(), Some(&"... end of run"), "{stdout}");
}
