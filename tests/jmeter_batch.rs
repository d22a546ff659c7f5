//! JMeter's own batch tests, run the way JMeter's build runs them (see
//! `../shared/conformance/jmeter-batch/README.md`): the plan's listeners must write CSV
//! and XML files byte-identical to the expected ones after CRLF→LF.

mod support;

use support::{conformance, jmxr, read_lf};

fn run_batch(test: &str, extra: &[&str]) {
    let batch = conformance().join("jmeter-batch");
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = batch.join(format!("{test}.jmx"));
    let props = batch.join("_working_dir_bin/jmeter.properties");
    let batch_props = batch.join("jmeter-batch.properties");
    let csv_name = format!("{test}.csv");
    let mut args: Vec<String> = vec![
        format!("-p{}", props.display()),
        "-q".into(),
        batch_props.display().to_string(),
        "-n".into(),
        "-t".into(),
        plan.display().to_string(),
        "-j".into(),
        format!("{test}.log"),
        "-l".into(),
        format!("{test}.jtl"),
        "-Jmodule=Module".into(),
        "-Gmodule=Module".into(),
        format!("-JCSVFILE={csv_name}"),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = jmxr(work.path(), &arg_refs);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{test} failed: {stderr}");
    for ext in ["csv", "xml"] {
        let expected = read_lf(&batch.join(format!("{test}.{ext}")));
        let actual = read_lf(&work.path().join(format!("{test}.{ext}")));
        if expected != actual {
            let first = expected
                .lines()
                .zip(actual.lines())
                .position(|(e, a)| e != a)
                .unwrap_or(expected.lines().count().min(actual.lines().count()));
            panic!(
                "{test}.{ext} differs at line {}:\n expected: {:?}\n actual:   {:?}\n({} vs {} lines)\nstderr: {stderr}",
                first + 1,
                expected.lines().nth(first),
                actual.lines().nth(first),
                expected.lines().count(),
                actual.lines().count()
            );
        }
    }
}

#[test]
fn bug62239_break_and_continue_in_loops() {
    run_batch("Bug62239", &[]);
}

#[test]
fn bug_62847_loop_index_variables() {
    run_batch("BUG_62847", &[]);
}

#[test]
fn bug52968_transactions_and_start_next_loop() {
    run_batch("Bug52968", &[]);
}

#[test]
fn bug50898_include_controllers_with_the_same_name() {
    run_batch("Bug50898", &[]);
}

#[test]
fn bug55375_module_controller_named_like_its_target() {
    run_batch("Bug55375", &[]);
}

#[test]
fn bug54685_sample_variables_and_quoted_labels() {
    run_batch("Bug54685", &["-Jsample_variables=REFERENCE,JSESSIONID"]);
}

#[cfg(unix)]
#[test]
fn os_tests_os_process_sampler() {
    // The plan lists JMeter's home folder and expects a README.md there; the project's
    // root plays that part.
    let home = format!("-Jjmeter.home={}", env!("CARGO_MANIFEST_DIR"));
    run_batch("OS_TESTS", &[&home]);
}
