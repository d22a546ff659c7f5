//! `jmxr check` and the run's refusal on small hand-written plans (`jmx-fixtures/check/`):
//! unsupported elements listed with their paths, `--skip-unsupported`, a malformed file
//! and an unknown function.

mod support;

use support::{fixtures, jmxr, Jtl};

fn fixture(name: &str) -> String {
    fixtures()
        .join("check")
        .join(name)
        .to_str()
        .expect("UTF-8 path")
        .to_string()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The line of the listing for `path`.
fn listed<'a>(stdout: &'a str, path: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.contains(path))
        .unwrap_or_else(|| panic!("{path} not listed in:\n{stdout}"))
}

#[test]
fn check_lists_unsupported_elements_with_paths_and_exits_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = fixture("unsupported.jmx");
    let output = jmxr(dir.path(), &["check", &plan]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    let ftp = listed(&stdout, "Test Plan › Users › Fetch [LDAPSampler]");
    assert!(ftp.trim_start().starts_with("unsupported"), "{ftp}");
    assert!(ftp.contains("unsupported.jmx:22:9"), "{ftp}");
    let writer = listed(
        &stdout,
        "Test Plan › Columns [kg.apc.jmeter.reporters.FlexibleFileWriter]",
    );
    assert!(writer.trim_start().starts_with("supported"), "{writer}");
    assert!(writer.contains("unsupported.jmx:35:7"), "{writer}");
    let debug = listed(&stdout, "Test Plan › Users › Debug [DebugSampler]");
    assert!(debug.trim_start().starts_with("supported"), "{debug}");
    assert!(
        stdout.contains("this protocol is not supported yet"),
        "{stdout}"
    );
    assert!(
        stdout.contains("1 unsupported (1 change the load or the verdict)"),
        "{stdout}"
    );
}

#[test]
fn run_refuses_unsupported_plan_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = fixture("unsupported.jmx");
    let output = jmxr(dir.path(), &["-n", "-t", &plan, "-l", "out.jtl"]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("unsupported.jmx:22:9"), "{stderr}");
    assert!(stderr.contains("Fetch [LDAPSampler]"), "{stderr}");
    assert!(stderr.contains("--skip-unsupported"), "{stderr}");
    assert!(!dir.path().join("out.jtl").exists());
}

#[test]
fn skip_unsupported_runs_the_rest_and_writes_the_jtl() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = fixture("unsupported.jmx");
    let output = jmxr(
        dir.path(),
        &["-n", "-t", &plan, "-l", "out.jtl", "--skip-unsupported"],
    );
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("Fetch [LDAPSampler]"), "{stderr}");
    let jtl = Jtl::read(&dir.path().join("out.jtl"));
    assert_eq!(jtl.values("label"), vec!["Debug"]);
    assert_eq!(jtl.values("success"), vec!["true"]);
}

#[test]
fn malformed_xml_names_the_file_and_position_and_exits_1() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = fixture("malformed.jmx");
    for args in [vec!["check", &plan], vec!["-n", "-t", &plan]] {
        let output = jmxr(dir.path(), &args);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("malformed.jmx:50:1: malformed XML"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn check_reports_an_unknown_function_where_it_is() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plan = fixture("unknown_function.jmx");
    let output = jmxr(dir.path(), &["check", &plan]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    let problem = stdout
        .lines()
        .find(|l| l.contains("unknown function __nosuch"))
        .unwrap_or_else(|| panic!("no unknown-function error in:\n{stdout}"));
    assert!(problem.contains("unknown_function.jmx:28:11"), "{problem}");
    assert!(problem.contains("Think [ConstantTimer]"), "{problem}");
}
