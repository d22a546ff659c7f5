//! Logic controllers, end to end: each plan in `jmx-fixtures/controllers/` runs and the
//! labels, order and summaries of the `.jtl` rows show the controller's behaviour
//! (reference §5). Debug Sampler labels carry `${...}` so rows show variables.

mod support;

use support::run_fixture;

#[test]
fn simple_controller_runs_its_children_in_order() {
    let jtl = run_fixture("controllers/simple.jmx", &[]);
    assert_eq!(jtl.labels_of("Group 1-1"), ["A", "B", "C", "A", "B", "C"]);
}

#[test]
fn recording_controller_runs_like_a_simple_controller() {
    let jtl = run_fixture("controllers/recording.jmx", &[]);
    assert_eq!(jtl.labels_of("Group 1-1"), ["A", "B", "C"]);
}

#[test]
fn nested_loops_publish_their_indexes() {
    let jtl = run_fixture("controllers/loop.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Group 1-1"),
        [
            "o0-i0",
            "o0-i1",
            "o0-i2",
            "after-inner-0",
            "o1-i0",
            "o1-i1",
            "o1-i2",
            "after-inner-1",
            "end"
        ]
    );
}

#[test]
fn loop_count_comes_from_a_property_with_a_default() {
    let default = run_fixture("controllers/loop_property.jmx", &[]);
    assert_eq!(
        default.labels_of("Group 1-1"),
        ["pass-0", "pass-1", "pass-2"]
    );
    let given = run_fixture("controllers/loop_property.jmx", &["-Jn=5"]);
    assert_eq!(
        given.labels_of("Group 1-1"),
        ["pass-0", "pass-1", "pass-2", "pass-3", "pass-4"]
    );
}

#[test]
fn while_controller_conditions() {
    let jtl = run_fixture("controllers/while.jmx", &[]);
    // `${__jexl3(${c} < 3)}` with a Counter that steps at every pass.
    assert_eq!(jtl.labels_of("Jexl 1-1"), ["w-1", "w-2", "w-3", "after"]);
    // Empty condition: loop until a sample of the loop fails.
    assert_eq!(
        jtl.labels_of("Empty 2-1"),
        ["e-1", "e-2", "e-3", "fail", "after"]
    );
    // LAST: same, and a loop is not entered after a failed sample.
    assert_eq!(
        jtl.labels_of("Last 3-1"),
        ["ok", "l-1", "l-2", "fail", "after"]
    );
}

#[test]
fn if_controller_modes() {
    let jtl = run_fixture("controllers/if.jmx", &[]);
    assert_eq!(jtl.labels_of("Expression 1-1"), ["expr-true", "end"]);
    assert_eq!(jtl.labels_of("JavaScript 2-1"), ["js-true", "end"]);
    // evaluateAll re-checks `n < 2` before each child; `__intSum` in the labels bumps n.
    assert_eq!(jtl.labels_of("EvaluateAll 3-1"), ["a-1", "b-2", "end"]);
    assert_eq!(
        jtl.labels_of("EvaluateOnce 4-1"),
        ["a-1", "b-2", "c-3", "end"]
    );
}

#[test]
fn transaction_controller_adds_a_summary_row_after_its_children() {
    let jtl = run_fixture("controllers/transaction.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Plain 1-1"),
        ["ok1", "bad", "ok2", "T mixed", "only", "T ok"]
    );
    let mixed = jtl.one("T mixed");
    assert_eq!(
        jtl.get(mixed, "responseMessage"),
        "Number of samples in transaction : 3, number of failing samples : 1"
    );
    assert_eq!(jtl.get(mixed, "success"), "false");
    assert_eq!(jtl.get(mixed, "responseCode"), "");
    let ok = jtl.one("T ok");
    assert_eq!(
        jtl.get(ok, "responseMessage"),
        "Number of samples in transaction : 1, number of failing samples : 0"
    );
    assert_eq!(jtl.get(ok, "success"), "true");
    assert_eq!(jtl.get(ok, "responseCode"), "200");
    assert_eq!(jtl.int(ok, "bytes"), jtl.int(jtl.one("only"), "bytes"));
}

#[test]
fn transaction_controller_in_parent_mode_writes_children_as_sub_results() {
    let jtl = run_fixture("controllers/transaction.jmx", &[]);
    assert_eq!(jtl.labels_of("Parent 2-1"), ["P", "c1", "c2", "after"]);
    let parent = jtl.one("P");
    assert_eq!(
        jtl.get(parent, "responseMessage"),
        "Number of samples in transaction : 2, number of failing samples : 0"
    );
    assert_eq!(jtl.get(parent, "responseCode"), "200");
    let children = jtl.int(jtl.one("c1"), "bytes") + jtl.int(jtl.one("c2"), "bytes");
    assert_eq!(jtl.int(parent, "bytes"), children);
}

#[test]
fn transaction_controller_leaves_timers_out_unless_asked() {
    let jtl = run_fixture("controllers/transaction.jmx", &[]);
    let elapsed = |label| jtl.int(jtl.one(label), "elapsed");
    // Two 30 ms samples, each after a 100 ms timer.
    let without = elapsed("Without timers");
    let children = elapsed("w1") + elapsed("w2");
    assert!(
        without >= children && without < children + 150,
        "without timers: {without} ms for {children} ms of samples"
    );
    let with = elapsed("With timers");
    assert!(with >= 260, "with timers: {with} ms");
}

#[test]
fn once_only_controller_runs_on_the_first_pass_of_its_loop() {
    let jtl = run_fixture("controllers/once_only.jmx", &[]);
    let mut expected = vec!["once"];
    for _ in 0..3 {
        expected.extend(["every", "once-in-loop", "loop-0", "loop-1"]);
    }
    assert_eq!(jtl.labels_of("Group 1-1"), expected);
}

#[test]
fn interleave_controller_takes_one_child_per_iteration_in_turn() {
    let jtl = run_fixture("controllers/interleave.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Group 1-1"),
        ["A", "end", "B", "end", "C", "end", "A", "end"]
    );
}

#[test]
fn interleave_controller_ignoring_sub_controller_blocks_takes_one_sampler_from_them() {
    let jtl = run_fixture("controllers/interleave.jmx", &[]);
    // As JMeter 2.13 runs it: the Simple Controller gives B1, then B2 on its next turn.
    assert_eq!(
        jtl.labels_of("IgnoreSub 2-1"),
        ["A", "end", "B1", "end", "C", "end", "A", "end", "B2", "end", "C", "end"]
    );
    assert_eq!(
        jtl.labels_of("UseSub 3-1"),
        ["A", "end", "B1", "B2", "end", "C", "end", "A", "end", "B1", "B2", "end", "C", "end"]
    );
}

#[test]
fn random_controller_runs_one_child_per_entry_reproducibly() {
    let run = || run_fixture("controllers/random.jmx", &["--seed", "7"]);
    let labels = run().labels_of("Group 1-1");
    assert_eq!(labels.len(), 12);
    for pair in labels.chunks(2) {
        assert!(["A", "B", "C"].contains(&pair[0].as_str()), "{labels:?}");
        assert_eq!(pair[1], "end");
    }
    let picks: std::collections::HashSet<_> = labels.iter().step_by(2).collect();
    assert!(picks.len() > 1, "always the same child: {labels:?}");
    assert_eq!(
        run().labels_of("Group 1-1"),
        labels,
        "same seed, same picks"
    );
}

#[test]
fn random_order_controller_runs_each_child_once_per_entry() {
    let jtl = run_fixture("controllers/random_order.jmx", &["--seed", "3"]);
    let labels = jtl.labels_of("Group 1-1");
    assert_eq!(labels.len(), 12);
    for entry in labels.chunks(4) {
        let mut children = entry[..3].to_vec();
        children.sort();
        assert_eq!(children, ["A", "B", "C"], "{labels:?}");
        assert_eq!(entry[3], "end");
    }
}

#[test]
fn throughput_controller_total_executions_and_percent() {
    let jtl = run_fixture("controllers/throughput.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Total 1-1"),
        ["it", "T", "it", "T", "it", "it", "it"]
    );
    // 50 %: (100 × executions + 50) / (iterations + 1) < 50 → skip, run, skip, run.
    assert_eq!(
        jtl.labels_of("Percent 2-1"),
        ["it", "it", "P", "it", "it", "P"]
    );
}

#[test]
fn runtime_controller_loops_for_its_run_time() {
    let jtl = run_fixture("controllers/runtime.jmx", &[]);
    let labels = jtl.labels_of("Group 1-1");
    assert_eq!(labels.last().map(String::as_str), Some("after"));
    // One second of samples each behind a 200 ms timer (fewer on a busy machine).
    let passes = labels.iter().filter(|l| *l == "r").count();
    assert!((1..=6).contains(&passes), "{passes} passes");
}

#[test]
fn switch_controller_selects_by_index_name_and_default() {
    let jtl = run_fixture("controllers/switch.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Group 1-1"),
        ["idx-1", "second", "default", "zero", "sub-a", "sub-b"]
    );
}

#[test]
fn foreach_controller_walks_numbered_variables() {
    let jtl = run_fixture("controllers/foreach.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Group 1-1"),
        ["all-a-0", "all-b-1", "all-c-2", "all-d-3", "part-b", "part-c", "end"]
    );
}

#[test]
fn critical_section_serialises_threads() {
    let jtl = run_fixture("controllers/critical_section.jmx", &[]);
    let mut rows: Vec<&[String]> = jtl.rows.iter().map(Vec::as_slice).collect();
    assert_eq!(rows.len(), 8);
    rows.sort_by_key(|r| jtl.int(r, "timeStamp"));
    // Each entry holds the lock for both of its samples: in, out by the same thread.
    for entry in rows.chunks(2) {
        assert_eq!(jtl.get(entry[0], "label"), "cs-in");
        assert_eq!(jtl.get(entry[1], "label"), "cs-out");
        assert_eq!(
            jtl.get(entry[0], "threadName"),
            jtl.get(entry[1], "threadName")
        );
    }
    for pair in rows.windows(2) {
        let (_, end) = jtl.span(pair[0]);
        let (start, _) = jtl.span(pair[1]);
        assert!(start + 2 >= end, "samples overlap: {pair:?}");
    }
}

/// CPU seconds (user + system) the children of a shell spent, from bash's `times`.
fn children_cpu_seconds(times_output: &str) -> f64 {
    let line = times_output.lines().last().expect("times prints two lines");
    line.split_whitespace()
        .map(|field| {
            let (minutes, seconds) = field
                .trim_end_matches('s')
                .split_once('m')
                .expect("times prints 0m0.000s");
            minutes.parse::<f64>().expect("minutes") * 60.0
                + seconds.parse::<f64>().expect("seconds")
        })
        .sum()
}

#[test]
fn loops_whose_passes_run_no_sampler_rest_instead_of_spinning() {
    // A Runtime Controller over children that yield nothing (While false, Loop 0, If
    // false, an Interleave of disabled children, a ForEach over no variables) waits out
    // its two seconds, and an endless While over an If false runs until the group's
    // two-second duration: neither may burn a core meanwhile. JMeter ends both threads
    // with a StackOverflowError (checked with 2.13); jmxr keeps the loops' meaning.
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = support::fixtures().join("controllers/empty_passes.jmx");
    let started = std::time::Instant::now();
    let output = std::process::Command::new("bash")
        .args([
            "-c",
            "\"$0\" -n -t \"$1\" -l out.jtl > run.out 2>&1 || exit 1; times",
        ])
        .arg(env!("CARGO_BIN_EXE_jmxr"))
        .arg(&plan)
        .current_dir(work.path())
        .output()
        .expect("bash runs");
    let took = started.elapsed();
    let run_output = std::fs::read_to_string(work.path().join("run.out")).unwrap_or_default();
    assert!(output.status.success(), "{run_output}");
    let jtl = support::Jtl::read(&work.path().join("out.jtl"));
    assert_eq!(jtl.values("label"), ["after runtime"]);
    assert!(took >= std::time::Duration::from_secs(2), "took {took:?}");
    let cpu = children_cpu_seconds(&String::from_utf8_lossy(&output.stdout));
    // Spinning, the two users spent 1.3 to 2.7 s of CPU in these two seconds.
    assert!(cpu < 0.4, "jmxr used {cpu:.2} s of CPU in {took:?}");
}
