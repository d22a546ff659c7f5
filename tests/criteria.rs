//! Pass/fail criteria in Taurus' syntax (`--criteria`, `--criteria-file`): each kind of
//! subject, per label and overall, `for` windows, `stop as failed` ending the run early,
//! `continue as failed`, the exit code, and the `--junit` report read back by the
//! `junitparser` package (Debian's `python3-junitparser`, installed by `.ci/run`).

mod support;

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use support::{fixtures, jmxr, Jtl};

/// The exit code of a failed criterion (README, "Exit codes").
const CRITERIA_FAILED: i32 = 5;

struct Run {
    output: Output,
    took: Duration,
    work: tempfile::TempDir,
}

impl Run {
    fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).to_string()
    }

    /// The line printed for a criterion after the run.
    fn verdict(&self, criterion: &str) -> String {
        let stdout = self.stdout();
        stdout
            .lines()
            .find(|l| l.starts_with("  ") && l.contains(criterion))
            .unwrap_or_else(|| panic!("no verdict for {criterion}: {stdout}"))
            .trim()
            .to_string()
    }
}

/// Runs `jmx-fixtures/live/criteria.jmx` for `duration` seconds with `extra` arguments.
fn run(duration: u32, extra: &[&str]) -> Run {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("live/criteria.jmx");
    let duration = format!("-Jduration={duration}");
    let mut args = vec![
        "-n",
        "-t",
        plan.to_str().unwrap(),
        "-l",
        "out.jtl",
        &duration,
    ];
    args.extend_from_slice(extra);
    let started = Instant::now();
    let output = jmxr(work.path(), &args);
    Run {
        output,
        took: started.elapsed(),
        work,
    }
}

#[test]
fn stop_as_failed_ends_the_run_early_with_the_criteria_exit_code() {
    let run = run(
        30,
        &[
            "-Jlogin_ms=200",
            "--criteria",
            "avg-rt of Log in>150ms for 2s, stop as failed",
        ],
    );
    assert_eq!(run.code(), Some(CRITERIA_FAILED), "{}", run.stdout());
    assert!(
        run.took < Duration::from_secs(10),
        "stopped after {:?}",
        run.took
    );
    assert!(
        run.stdout()
            .contains("Pass/fail criterion failed, stopping the test: avg-rt of Log in>150ms"),
        "{}",
        run.stdout()
    );
    assert!(run.verdict("avg-rt of Log in").starts_with("FAILED"));
    // The .jtl is complete up to the stop.
    let jtl = Jtl::read(&run.work.path().join("out.jtl"));
    assert!(!jtl.labelled("Log in").is_empty());
}

#[test]
fn a_fast_label_passes_the_same_rule_and_the_run_completes() {
    let run = run(
        2,
        &[
            "--criteria",
            "avg-rt of Log in>150ms for 2s, stop as failed",
        ],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stdout());
    assert!(run.took >= Duration::from_secs(2));
    assert!(run.verdict("avg-rt of Log in").starts_with("passed"));
}

#[test]
fn percentiles_and_error_rates_are_judged_on_the_whole_run_per_label_and_overall() {
    let run = run(
        2,
        &[
            "-Jsearch_data=none",
            "--criteria",
            "p95 of Log in>=20ms",
            "--criteria",
            "p99<1ms",
            "--criteria",
            "fail of Search>1%",
            "--criteria",
            "fail of Home page>1%",
            "--criteria",
            "rc500 of Checkout>=100%",
            "--criteria",
            "fail>10%",
            "--criteria",
            "fail>90%",
        ],
    );
    assert_eq!(run.code(), Some(CRITERIA_FAILED), "{}", run.stdout());
    // The Dummy Sampler waits its 20 ms, so the times are 20 ms or a little more.
    let login = run.verdict("p95 of Log in");
    assert!(
        login.starts_with("FAILED: p95 of Log in>=20ms (p95 was 2"),
        "{login}"
    );
    assert!(login.ends_with(" ms for \"Log in\")"), "{login}");
    assert!(run.verdict("p99<1ms").starts_with("passed"));
    assert_eq!(
        run.verdict("fail of Search"),
        "FAILED: fail of Search>1% (fail was 100.00 % for \"Search\")"
    );
    assert!(run.verdict("fail of Home page").starts_with("passed"));
    assert!(run.verdict("rc500 of Checkout").starts_with("FAILED"));
    // Overall, Search and Checkout fail and the other labels pass.
    assert!(
        run.verdict("fail>10%").starts_with("FAILED"),
        "{}",
        run.stdout()
    );
    assert!(
        run.verdict("fail>90%").starts_with("passed"),
        "{}",
        run.stdout()
    );

    let passing = self::run(2, &["--criteria", "fail of Search>1%"]);
    assert_eq!(passing.code(), Some(0), "{}", passing.stdout());
}

#[test]
fn continue_as_failed_keeps_the_run_going_and_fails_it_at_the_end() {
    let run = run(
        4,
        &[
            "--criteria",
            "rps<100000 for 2s, continue as failed",
            "--criteria",
            "hits of Checkout>0 for 1s, stop as non-failed",
        ],
    );
    // The non-failed rule stops the run early without failing it; the rate rule has
    // been met by then and fails it.
    assert_eq!(run.code(), Some(CRITERIA_FAILED), "{}", run.stdout());
    assert!(run.verdict("rps<100000").starts_with("FAILED"));
    assert!(run
        .verdict("hits of Checkout")
        .starts_with("met (non-failed)"));

    let run = self::run(3, &["--criteria", "rps<100000 for 2s, continue as failed"]);
    assert_eq!(run.code(), Some(CRITERIA_FAILED), "{}", run.stdout());
    assert!(
        run.took >= Duration::from_secs(3),
        "continued: {:?}",
        run.took
    );
}

#[test]
fn criteria_files_and_a_junit_report_that_junitparser_reads() {
    let dir = tempfile::tempdir().expect("scratch folder");
    let file = dir.path().join("criteria.txt");
    std::fs::write(
        &file,
        "# the team's gates\navg-rt>1s\n\nToo many errors: fail of Search>1%\n",
    )
    .unwrap();
    let junit = dir.path().join("junit.xml");
    let run = run(
        2,
        &[
            "-Jsearch_data=none",
            "--criteria-file",
            file.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
            "--junit-per-label",
        ],
    );
    assert_eq!(run.code(), Some(CRITERIA_FAILED), "{}", run.stdout());
    let script = "import sys\nfrom junitparser import JUnitXml\n\
        xml = JUnitXml.fromfile(sys.argv[1])\n\
        for suite in xml:\n\
        \x20   print('suite', suite.tests, suite.failures)\n\
        \x20   for case in suite:\n\
        \x20       state = 'failed' if case.result and case.result[0].__class__.__name__ == 'Failure' else 'passed'\n\
        \x20       print(state, case.classname, '|', case.name)\n";
    let parsed = Command::new("/usr/bin/python3")
        .args(["-c", script, junit.to_str().unwrap()])
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&parsed.stdout).to_string();
    assert!(
        parsed.status.success(),
        "junitparser (apt-get install python3-junitparser) failed: {}",
        String::from_utf8_lossy(&parsed.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    // Two rules, and the unlabelled one again for each of the five labels.
    assert_eq!(lines[0], "suite 7 1", "{text}");
    assert!(
        lines.contains(&"passed jmxr.criteria | avg-rt>1s"),
        "{text}"
    );
    assert!(
        lines.contains(&"failed jmxr.criteria.Search | Too many errors"),
        "{text}"
    );
    assert!(
        lines.contains(&"passed jmxr.criteria.Checkout | avg-rt>1s [Checkout]"),
        "{text}"
    );
}

#[test]
fn a_mistyped_criterion_is_bad_input_before_the_run() {
    let dir = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("live/criteria.jmx");
    let output = jmxr(
        dir.path(),
        &[
            "-n",
            "-t",
            plan.to_str().unwrap(),
            "--criteria",
            "avg-rt>fast",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("\"fast\" is not a time"), "{stderr}");
}
