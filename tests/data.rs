//! Test data end to end: CSV Data Set Config plans in `jmx-fixtures/data/` run and the
//! Debug Sampler labels (`${var}`) in the `.jtl` show the values each user read
//! (reference §7.2).

mod support;

use std::collections::BTreeMap;

use support::{fixtures, jmxr, run_fixture};

#[test]
fn csv_reads_header_names_recycles_and_marks_end_of_file() {
    let jtl = run_fixture("data/csv_basics.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Header 1-1"),
        ["h=u1/p1", "h=u2/p2", "h=u3/p3", "h=u1/p1"]
    );
    // Names given (trimmed), header skipped, no recycling: `<EOF>` once the rows run out.
    assert_eq!(
        jtl.labels_of("Eof 2-1"),
        ["e=u1/p1", "e=u2/p2", "e=u3/p3", "e=<EOF>/<EOF>"]
    );
}

#[test]
fn csv_stop_thread_at_end_of_file_ends_the_user_before_the_iteration() {
    let jtl = run_fixture("data/csv_basics.jmx", &[]);
    assert_eq!(jtl.labels_of("Stop 3-1"), ["s=u1", "s=u2", "s=u3"]);
}

#[test]
fn csv_quoted_fields_hold_delimiters_quotes_and_newlines() {
    let jtl = run_fixture("data/csv_basics.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Quoted 4-1"),
        ["q=1|a;b", "q=2|say \"hi\"", "q=3|two\nlines"]
    );
    assert_eq!(jtl.labels_of("Tab 5-1"), ["t=x+y"]);
}

#[test]
fn csv_advances_at_each_pass_of_its_enclosing_loop() {
    let jtl = run_fixture("data/csv_basics.jmx", &[]);
    assert_eq!(jtl.labels_of("Loop 6-1"), ["l=u1", "l=u2", "after=u2"]);
}

/// Values of one variable per thread, from labels `a=1 g=1 t=1 k=1`.
fn values_by_thread(jtl: &support::Jtl, var: &str) -> BTreeMap<String, Vec<u32>> {
    let mut out: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for row in &jtl.rows {
        let label = jtl.get(row, "label");
        let value = label
            .split(' ')
            .find_map(|kv| kv.strip_prefix(&format!("{var}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {var} in {label}"));
        out.entry(jtl.get(row, "threadName").to_string())
            .or_default()
            .push(value);
    }
    out
}

fn sorted(values: impl IntoIterator<Item = u32>) -> Vec<u32> {
    let mut v: Vec<u32> = values.into_iter().collect();
    v.sort_unstable();
    v
}

#[test]
fn csv_share_modes_across_two_thread_groups() {
    let jtl = run_fixture("data/csv_share.jmx", &[]);
    let all = values_by_thread(&jtl, "a");
    assert_eq!(
        sorted(all.values().flatten().copied()),
        (1..=8).collect::<Vec<_>>()
    );
    let named = values_by_thread(&jtl, "k");
    assert_eq!(
        sorted(named.values().flatten().copied()),
        (1..=8).collect::<Vec<_>>()
    );
    let group = values_by_thread(&jtl, "g");
    for prefix in ["G1 ", "G2 "] {
        let values = group
            .iter()
            .filter(|(thread, _)| thread.starts_with(prefix))
            .flat_map(|(_, v)| v.iter().copied());
        assert_eq!(sorted(values), [1, 2, 3, 4], "group {prefix}");
    }
    for (thread, values) in values_by_thread(&jtl, "t") {
        assert_eq!(values, [1, 2], "thread {thread}");
    }
}

#[test]
fn csv_missing_file_is_a_plan_error_naming_file_and_element() {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("data/csv_missing.jmx");
    let output = jmxr(
        work.path(),
        &[
            "-n",
            "-t",
            plan.to_str().expect("UTF-8 path"),
            "-l",
            "out.jtl",
        ],
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no-such-file.csv"), "{stderr}");
    assert!(stderr.contains("csv_missing.jmx:18:"), "{stderr}");
    assert!(stderr.contains("[CSVDataSet]"), "{stderr}");
}

#[test]
fn random_variable_seeded_per_thread_and_in_range() {
    let jtl = run_fixture("data/random_variable.jmx", &[]);
    let first = jtl.labels_of("Seeded 1-1");
    // `new Random(42).nextInt(10)` is 0: minimum 1, formatted `000`.
    assert_eq!(first[0], "r=001");
    assert_eq!(first.len(), 4);
    // Per-thread generators with the same seed give every user the same sequence.
    assert_eq!(jtl.labels_of("Seeded 1-2"), first);
    for label in jtl.labels_of("Range 2-1") {
        let n: i64 = label.trim_start_matches("n=").parse().expect("a number");
        assert!((-2..=2).contains(&n), "{label}");
    }
}
