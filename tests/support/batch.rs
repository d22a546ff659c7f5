//! Running one of JMeter's batch tests the way JMeter's build does (see
//! `../shared/conformance/jmeter-batch/README.md`) and comparing the files the plan's
//! listeners write with the expected ones, byte for byte after CRLF→LF.

use std::path::{Path, PathBuf};

use super::{conformance, jmxr, read_lf};

/// The folder of JMeter's batch tests.
pub fn batch_dir() -> PathBuf {
    conformance().join("jmeter-batch")
}

/// Runs batch test `test` (its plan from `prepare`, which may lay out inputs in the
/// working folder) with `extra` arguments, and compares `<expected>.csv` and `.xml`
/// with what was written. Expected lines for which `skip` holds are left out.
pub fn run_batch(
    test: &str,
    expected: &str,
    extra: &[&str],
    prepare: impl FnOnce(&Path) -> PathBuf,
    skip: impl Fn(&str) -> bool,
) {
    let batch = batch_dir();
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = prepare(work.path());
    let props = batch.join("_working_dir_bin/jmeter.properties");
    let batch_props = batch.join("jmeter-batch.properties");
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
        format!("-JCSVFILE={test}.csv"),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = jmxr(work.path(), &arg_refs);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{test} failed: {stderr}");
    for ext in ["csv", "xml"] {
        let wanted: String = read_lf(&batch.join(format!("{expected}.{ext}")))
            .split_inclusive('\n')
            .filter(|line| !skip(line))
            .collect();
        let actual = read_lf(&work.path().join(format!("{expected}.{ext}")));
        if wanted != actual {
            let first = wanted
                .lines()
                .zip(actual.lines())
                .position(|(e, a)| e != a)
                .unwrap_or(wanted.lines().count().min(actual.lines().count()));
            panic!(
                "{test}: {expected}.{ext} differs at line {}:\n expected: {:?}\n actual:   {:?}\n({} vs {} lines)\nstderr: {stderr}",
                first + 1,
                wanted.lines().nth(first),
                actual.lines().nth(first),
                wanted.lines().count(),
                actual.lines().count()
            );
        }
    }
}
