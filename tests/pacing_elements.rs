//! Pacing elements end to end: the Precise Throughput Timer's schedule, the
//! Synchronizing Timer's groups and timeout, the bzm Weighted Switch Controller's
//! choices and the bzm Parallel Controller's concurrent children. Each runs a plan of
//! `jmx-fixtures/pacing/` and reads the `.jtl`; timing bounds leave room for a busy
//! machine where the subject allows.

mod support;

use jmxr::commands::check::{self, Verdict};
use jmxr::foundation::java_random::JavaRandom;
use support::{conformance, run_fixture, Jtl};

fn labels_counted(jtl: &Jtl, prefix: &str) -> std::collections::BTreeMap<String, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for label in jtl.values("label") {
        if let Some(name) = label.strip_prefix(prefix) {
            *counts.entry(name.to_string()).or_insert(0) += 1;
        }
    }
    counts
}

/// The plugin's rotation for weights 60, 30 and 10 (the disabled row left out), as its
/// Java code computes it in doubles: 0.6 - 0.5 is just below 0.1, so the third pick goes
/// to the smallest weight.
const ROTATION: [&str; 20] = [
    "lurker", "chatter", "spender", "lurker", "lurker", "chatter", "lurker", "lurker", "chatter",
    "lurker", "lurker", "chatter", "spender", "lurker", "lurker", "chatter", "lurker", "lurker",
    "chatter", "lurker",
];

#[test]
fn weighted_switch_rotation_is_the_plugins_sequence_and_shares_are_exact() {
    let jtl = run_fixture("pacing/weighted_switch.jmx", &["--seed", "5"]);
    let rotation: Vec<String> = jtl
        .labels_of("RoundRobin 1-1")
        .into_iter()
        .take(ROTATION.len())
        .collect();
    let expected: Vec<String> = ROTATION.iter().map(|l| format!("rr {l}")).collect();
    assert_eq!(rotation, expected);
    // The disabled child and its row are left out; the last weight comes from a variable.
    let counts = labels_counted(&jtl, "rr ");
    let expected = [("chatter", 3000), ("lurker", 6000), ("spender", 1000)]
        .map(|(l, n)| (l.to_string(), n))
        .into_iter()
        .collect();
    assert_eq!(counts, expected);
}

#[test]
fn weighted_switch_random_choice_keeps_the_shares_within_two_percent() {
    let jtl = run_fixture("pacing/weighted_switch.jmx", &["--seed", "5"]);
    let counts = labels_counted(&jtl, "random ");
    let total: usize = counts.values().sum();
    assert_eq!(total, 10_000);
    assert_eq!(counts.get("idle"), None, "the disabled child never runs");
    for (label, share) in [("lurker", 0.6), ("chatter", 0.3), ("spender", 0.1)] {
        let seen = counts.get(label).copied().unwrap_or(0) as f64 / total as f64;
        assert!(
            (seen - share).abs() <= 0.02,
            "{label}: {seen:.4} of the picks for a share of {share}"
        );
    }
    // Random, not the rotation: the first picks differ from the fixed sequence.
    let first: Vec<String> = jtl.labels_of("Random 1-1").into_iter().take(20).collect();
    let rotation: Vec<String> = ROTATION.iter().map(|l| format!("random {l}")).collect();
    assert_ne!(first, rotation);
}

/// Start times of the rows labelled `label`, sorted.
fn starts(jtl: &Jtl, label: &str) -> Vec<i64> {
    let mut starts: Vec<i64> = jtl.labelled(label).iter().map(|r| jtl.span(r).0).collect();
    starts.sort_unstable();
    starts
}

#[test]
fn synchronizing_timer_releases_users_in_groups() {
    let jtl = run_fixture("pacing/sync_timer.jmx", &[]);
    // Six users started over a second, in groups of three: two releases.
    let threes = starts(&jtl, "three");
    assert_eq!(threes.len(), 6);
    for group in threes.chunks(3) {
        assert!(group[2] - group[0] <= 10, "one release: {group:?}");
    }
    // The second group's last user starts about 833 ms into the ramp-up.
    assert!(threes[3] - threes[2] >= 300, "two releases: {threes:?}");
    // A group size of 0 waits for all four users of the thread group, the last of which
    // starts after 750 ms of its one-second ramp-up.
    let all = starts(&jtl, "all");
    assert_eq!(all.len(), 4);
    assert!(all[3] - all[0] <= 10, "one release of all users: {all:?}");
}

#[test]
fn synchronizing_timer_lets_fewer_users_go_at_its_timeout() {
    let jtl = run_fixture("pacing/sync_timer.jmx", &[]);
    // Two users wait for a group of five: both go together once the first has waited
    // 300 ms, rather than wait on.
    let before = starts(&jtl, "before");
    let released = starts(&jtl, "timeout");
    assert_eq!(released.len(), 2);
    assert!(
        released[1] - released[0] <= 10,
        "released together: {released:?}"
    );
    let waited = released[0] - before[0];
    assert!((295..600).contains(&waited), "released after {waited} ms");
}

/// The moments of a Precise Throughput Timer schedule as JMeter draws them with
/// `new Random(seed)`: `per_window` uniform moments per window of `window` seconds,
/// sorted within their window.
fn jmeter_schedule(seed: i64, per_window: usize, window: f64, windows: usize) -> Vec<f64> {
    let mut random = JavaRandom::new(seed);
    let mut moments = Vec::new();
    for w in 0..windows {
        let mut drawn: Vec<f64> = (0..per_window)
            .map(|_| w as f64 * window + random.next_double() * window)
            .collect();
        drawn.sort_by(f64::total_cmp);
        moments.extend(drawn);
    }
    moments
}

#[test]
fn precise_throughput_timer_follows_jmeters_seeded_schedule_exactly() {
    // 1200 per minute = 20/s over 1 s windows, seed 7: 60 samples in three windows.
    let jtl = run_fixture("pacing/precise_throughput.jmx", &[]);
    let starts = starts(&jtl, "paced");
    assert_eq!(starts.len(), 60);
    let moments = jmeter_schedule(7, 20, 1.0, 3);
    let (t0, m0) = (starts[0], moments[0]);
    let offsets: Vec<(i64, i64)> = starts
        .iter()
        .zip(&moments)
        .map(|(start, moment)| (start - t0, ((moment - m0) * 1000.0) as i64))
        .collect();
    // Every sample on its moment: 20 in each of the three windows, as drawn.
    assert_on_schedule(&offsets);
}

#[test]
fn precise_throughput_timer_batches_share_their_moment() {
    let jtl = run_fixture(
        "pacing/precise_throughput.jmx",
        &["-Jptt.batch=3", "-Jptt.throughput=1800", "-Jptt.loops=3"],
    );
    // 30/s in batches of 3: ten moments per second, each serving three users.
    let starts = starts(&jtl, "paced");
    assert_eq!(starts.len(), 30);
    let moments = jmeter_schedule(7, 10, 1.0, 1);
    let mut offsets = Vec::new();
    for (batch, moment) in starts.chunks(3).zip(&moments) {
        assert!(batch[2] - batch[0] <= 10, "one moment per batch: {batch:?}");
        let planned = ((moment - moments[0]) * 1000.0) as i64;
        offsets.push((batch[0] - starts[0], planned));
    }
    assert_on_schedule(&offsets);
}

/// Checks (actual, planned) offsets in whole milliseconds: every sample starts on its
/// moment, late by a busy machine at most a little. Measured from the sample that was
/// least late: when the first one is a few ms late, every other would otherwise look
/// early by as much.
fn assert_on_schedule(offsets: &[(i64, i64)]) {
    let earliest = offsets
        .iter()
        .map(|(actual, planned)| actual - planned)
        .min()
        .unwrap_or(0);
    for (actual, planned) in offsets {
        assert!(
            (0..=32).contains(&(actual - planned - earliest)),
            "sample at +{actual} ms for a moment at +{planned} ms (least late: {earliest} ms)"
        );
    }
}

#[test]
fn parallel_controller_runs_children_at_once_under_one_parent_sample() {
    let jtl = run_fixture("pacing/parallel.jmx", &[]);
    let parent = jtl.one("Parent");
    let (start, end) = jtl.span(parent);
    assert_eq!(jtl.get(parent, "responseCode"), "200");
    assert_eq!(jtl.get(parent, "success"), "true");
    // The sub-results follow the parent; they overlap: all start with the parent.
    let children: Vec<(i64, i64)> = ["p 200", "p 300", "p 400"]
        .iter()
        .map(|l| jtl.span(jtl.one(l)))
        .collect();
    for (child_start, _) in &children {
        assert!(
            child_start - start <= 30,
            "children start together: {children:?}"
        );
    }
    // The parent ends with its last child (the plugin's addSubResult), not after the
    // sum of the children's times.
    let last_end = children.iter().map(|c| c.1).max().expect("children");
    assert_eq!(end, last_end);
    assert!(
        (395..700).contains(&(end - start)),
        "elapsed {}",
        end - start
    );
}

#[test]
fn parallel_controller_without_parent_writes_variables_back_and_limits_its_threads() {
    let jtl = run_fixture("pacing/parallel.jmx", &[]);
    let apart: Vec<(i64, i64)> = ["a 200", "a 300", "a 400"]
        .iter()
        .map(|l| jtl.span(jtl.one(l)))
        .collect();
    assert!(apart[2].0 - apart[0].0 <= 30, "overlap: {apart:?}");
    assert_eq!(
        jtl.one("a 200")[jtl.column("threadName")],
        "User 1-1 - Apart - a 200"
    );
    assert!(jtl.labelled("Apart").is_empty(), "no parent sample");
    // A child saw the user's variable and what it set is there after the controller.
    jtl.one("after slow!");
    // At most one at a time: the second child starts when the first ended.
    let (first, second) = (jtl.span(jtl.one("o 100")), jtl.span(jtl.one("o 150")));
    assert!(
        second.0 >= first.1,
        "one at a time: {first:?} then {second:?}"
    );
}

#[test]
fn plugin_and_real_world_plans_with_these_elements_pass_check() {
    let functions = jmxr::script::function_registry();
    for plan in [
        "plugins/bzm-wsc-disableController.jmx",
        "plugins/bzm-parallel-ParallelController.jmx",
        "plugins/bzm-parallel-demo.jmx",
        "real-world/Blazemeter__jmeter-bzm-plugins__ParallelController.jmx",
        "real-world/ONLYOFFICE-QA__community-server-jmeter-scripts__api_ldap_spike_stress_test.jmx",
    ] {
        let report = check::report(&conformance().join(plan), &functions)
            .unwrap_or_else(|e| panic!("{plan}: {e}"));
        assert!(report.runnable(), "{plan}: {:?}", report.diagnostics);
        let unsupported: Vec<_> = report
            .rows
            .iter()
            .filter(|r| matches!(r.verdict, Verdict::Unsupported { .. }))
            .map(|r| &r.path)
            .collect();
        assert!(unsupported.is_empty(), "{plan}: {unsupported:?}");
    }
}
