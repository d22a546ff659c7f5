//! Thread groups, end to end: threads × loops, thread names, on-error actions, setUp
//! and tearDown phases, serialised groups, ramp-up and the scheduler (reference §4.2).

mod support;

use std::time::Instant;

use support::run_fixture;

#[test]
fn threads_times_loops_with_thread_names() {
    let jtl = run_fixture("thread_groups/threads_and_loops.jmx", &[]);
    assert_eq!(jtl.rows.len(), 6);
    for thread in ["Group 1-1", "Group 1-2", "Group 1-3"] {
        assert_eq!(jtl.labels_of(thread), ["s-0", "s-1"], "{thread}");
    }
}

#[test]
fn a_group_name_with_a_function_names_the_threads_with_its_value() {
    let jtl = run_fixture(
        "thread_groups/name_from_property.jmx",
        &["-Jgroup=Shoppers"],
    );
    assert_eq!(jtl.values("threadName"), ["Shoppers 1-1"]);
    assert_eq!(jtl.values("label"), ["in Shoppers"]);
    let jtl = run_fixture("thread_groups/name_from_property.jmx", &[]);
    assert_eq!(jtl.values("threadName"), ["Users 1-1"]);
}

#[test]
fn on_sample_error_actions() {
    let jtl = run_fixture("thread_groups/on_sample_error.jmx", &[]);
    assert_eq!(jtl.labels_of("Continue 1-1"), ["f", "d", "f", "d"]);
    assert_eq!(jtl.labels_of("NextLoop 2-1"), ["f", "f"]);
    assert_eq!(jtl.labels_of("StopThread 3-1"), ["f"]);
}

#[test]
fn on_sample_error_stop_test_ends_every_group() {
    let started = Instant::now();
    let jtl = run_fixture("thread_groups/stop_test.jmx", &[]);
    assert!(started.elapsed().as_secs() < 10);
    assert_eq!(jtl.labels_of("Stopper 1-1"), ["f"]);
    // The other group loops forever, 50 ms apart, until the 200 ms failure stops the test.
    let others = jtl.labels_of("Other 2-1").len();
    assert!(
        (1..=10).contains(&others),
        "{others} samples after the stop"
    );
}

#[test]
fn setup_and_teardown_groups_run_before_and_after_the_main_groups() {
    let jtl = run_fixture("thread_groups/setup_teardown.jmx", &[]);
    let (_, setup_end) = jtl.span(jtl.one("setup"));
    let mains = jtl.labelled("main");
    assert_eq!(mains.len(), 2);
    let (teardown_start, _) = jtl.span(jtl.one("teardown"));
    for main in mains {
        let (start, end) = jtl.span(main);
        assert!(setup_end <= start, "main started before setUp ended");
        assert!(end <= teardown_start, "tearDown started before main ended");
    }
}

#[test]
fn serialised_thread_groups_run_one_after_another() {
    let jtl = run_fixture("thread_groups/serialize.jmx", &[]);
    let (second_start, _) = jtl.span(jtl.one("second"));
    let firsts = jtl.labelled("first");
    assert_eq!(firsts.len(), 2);
    for first in firsts {
        assert!(jtl.span(first).1 <= second_start, "groups overlap");
    }
}

#[test]
fn ramp_up_spreads_thread_starts() {
    let jtl = run_fixture("thread_groups/ramp_up.jmx", &[]);
    let start = |thread| jtl.int(jtl.rows_of(thread)[0], "timeStamp");
    let first = start("Group 1-1");
    for (thread, expected) in [("Group 1-2", 333), ("Group 1-3", 666)] {
        let offset = start(thread) - first;
        assert!(
            (expected - 60..=expected + 400).contains(&offset),
            "{thread} started {offset} ms after the first"
        );
    }
}

#[test]
fn scheduler_duration_bounds_an_endless_loop() {
    let started = Instant::now();
    let jtl = run_fixture("thread_groups/scheduler.jmx", &[]);
    assert!(started.elapsed().as_secs() < 10);
    let rows = jtl.rows_of("Group 1-1");
    // One second of samples 100 ms apart (fewer on a busy machine, never more).
    assert!((1..=11).contains(&rows.len()), "{} samples", rows.len());
    let first = jtl.int(rows[0], "timeStamp");
    let last = jtl.int(rows[rows.len() - 1], "timeStamp");
    assert!(last - first < 3000, "ran {} ms", last - first);
}

/// First and last sample times of `thread`, ms after the first sample of `Stepping 2-1`
/// (which starts with both groups and samples 100 ms later).
fn plugin_span(jtl: &support::Jtl, thread: &str) -> (i64, i64, usize) {
    let origin = jtl.int(jtl.rows_of("Stepping 2-1")[0], "timeStamp") - 100;
    let rows = jtl.rows_of(thread);
    assert!(!rows.is_empty(), "{thread} never sampled");
    let first = jtl.int(rows[0], "timeStamp") - origin;
    let last = jtl.int(rows[rows.len() - 1], "timeStamp") - origin;
    (first, last, rows.len())
}

fn assert_near(thread: &str, what: &str, actual: i64, expected: i64) {
    assert!(
        (expected - 60..=expected + 300).contains(&actual),
        "{thread}: {what} at {actual} ms, expected about {expected} ms"
    );
}

#[test]
fn ultimate_and_stepping_groups_start_and_stop_each_user_on_schedule() {
    let jtl = run_fixture("thread_groups/plugin_schedules.jmx", &[]);
    // (thread, first sample, last sample) in ms after the groups started: every user
    // samples 100 ms after its start and then every 100 ms until its end.
    let expected = [
        // Ultimate row 1: 2 users over a 1 s startup, the first created starting last;
        // both hold until 2 s. Row 2: 1 user after 2 s, stopped over a 1 s shutdown.
        ("Ultimate 1-1", 1100, 2000),
        ("Ultimate 1-2", 600, 2000),
        ("Ultimate 1-3", 2100, 3000),
        // Stepping: 2 users at once, 2 more after 1 s; then one stops each second.
        ("Stepping 2-1", 100, 1000),
        ("Stepping 2-2", 100, 2000),
        ("Stepping 2-3", 1100, 3000),
        ("Stepping 2-4", 1100, 4000),
    ];
    let mut samples = 0;
    for (thread, first, end) in expected {
        let (actual_first, actual_last, count) = plugin_span(&jtl, thread);
        samples += count;
        assert_near(thread, "first sample", actual_first, first);
        // The last sample is the last whole 100 ms step before the end.
        assert!(
            (end - 400..=end + 60).contains(&actual_last),
            "{thread}: last sample at {actual_last} ms, its end is {end} ms"
        );
        let most = ((end - first) / 100 + 1) as usize;
        assert!(
            (most / 2..=most).contains(&count),
            "{thread}: {count} samples, at most {most}"
        );
    }
    assert_eq!(
        jtl.rows.len(),
        samples,
        "samples of users the groups do not have"
    );
}

#[test]
fn the_threads_schedule_property_replaces_ultimate_rows() {
    let jtl = run_fixture(
        "thread_groups/plugin_schedules.jmx",
        &["-Jthreads_schedule=spawn(1,0,0,1,0) spawn(1,1s,0s,1,0)"],
    );
    let (first, _, _) = plugin_span(&jtl, "Ultimate 1-1");
    assert_near("Ultimate 1-1", "first sample", first, 100);
    let (first, last, _) = plugin_span(&jtl, "Ultimate 1-2");
    assert_near("Ultimate 1-2", "first sample", first, 1100);
    assert!(
        last <= 2060,
        "Ultimate 1-2 sampled at {last} ms, after its end"
    );
    assert!(jtl.rows_of("Ultimate 1-3").is_empty());
}

#[test]
fn concurrency_group_ramps_in_steps_replaces_finished_users_and_follows_its_target() {
    let started = Instant::now();
    let jtl = run_fixture("thread_groups/concurrency.jmx", &[]);
    assert!(
        started.elapsed().as_secs() < 8,
        "ramp-up + hold did not end the groups"
    );
    let first = |thread: &str| jtl.int(jtl.rows_of(thread)[0], "timeStamp");
    let origin = first("Stepped 1-1") - 100;

    // Target 4 in 2 steps over 1 s: 2 users at once, 2 more at the starter's next look
    // (a second later).
    for (thread, expected) in [
        ("Stepped 1-1", 100),
        ("Stepped 1-2", 100),
        ("Stepped 1-3", 1100),
        ("Stepped 1-4", 1100),
    ] {
        assert_near(thread, "first sample", first(thread) - origin, expected);
    }
    assert!(
        jtl.rows_of("Stepped 1-5").is_empty(),
        "more users than the target"
    );

    // At 1.5 s another group lowers the target to 1: the surplus users leave at their
    // next iteration, one stays until ramp-up + hold (2 s) ends.
    let lowered = jtl.int(jtl.one("lower"), "timeStamp");
    let after: std::collections::BTreeSet<&str> = jtl
        .labelled("stepped")
        .into_iter()
        .filter(|row| jtl.int(row, "timeStamp") > lowered + 150)
        .map(|row| jtl.get(row, "threadName"))
        .collect();
    assert_eq!(
        after.len(),
        1,
        "users after the target fell to 1: {after:?}"
    );
    let last = jtl
        .labelled("stepped")
        .iter()
        .map(|row| jtl.int(row, "timeStamp"))
        .max()
        .unwrap();
    assert!(
        last - origin <= 2060,
        "sampled at {} ms, after the hold",
        last - origin
    );

    // Two users of two iterations each, replaced as they finish, for 1 s.
    let limited = jtl.labelled("limited");
    let threads: std::collections::BTreeSet<&str> = limited
        .iter()
        .map(|row| jtl.get(row, "threadName"))
        .collect();
    assert!(
        threads.len() >= 6,
        "only {} users were started",
        threads.len()
    );
    for thread in &threads {
        let samples = jtl.rows_of(thread).len();
        assert!(
            (1..=2).contains(&samples),
            "{thread} ran {samples} iterations"
        );
    }
    assert!(limited.iter().all(|row| jtl.int(row, "grpThreads") <= 2));
}

/// Samples per whole second of the run, counted from the second of the first sample.
fn samples_per_second(jtl: &support::Jtl) -> Vec<usize> {
    let seconds: Vec<i64> = jtl
        .rows
        .iter()
        .map(|row| jtl.int(row, "timeStamp") / 1000)
        .collect();
    let first = seconds.iter().copied().min().expect("samples");
    let last = seconds.iter().copied().max().expect("samples");
    (first..=last)
        .map(|s| seconds.iter().filter(|&&t| t == s).count())
        .collect()
}

#[test]
fn tst_feedback_grows_a_concurrency_group_until_the_shaping_timer_gets_its_rate() {
    // 20 samples/s wanted, 200 ms each: one user makes 5/s, so the level must grow from
    // its start of 1 to at least 4, from the timer's per-second feedback.
    let jtl = run_fixture("thread_groups/concurrency_feedback.jmx", &[]);
    let users: std::collections::BTreeSet<String> = jtl.values("threadName").into_iter().collect();
    assert!(users.len() >= 4, "{users:?}");
    let per_second = samples_per_second(&jtl);
    assert!(per_second.len() >= 6, "{per_second:?}");
    for (second, &count) in per_second.iter().enumerate().skip(2).take(3) {
        assert!(
            (15..=21).contains(&count),
            "second {second}: {per_second:?}"
        );
    }

    // With the level capped at 1 the one user stays alone, at its own pace.
    let jtl = run_fixture(
        "thread_groups/concurrency_feedback.jmx",
        &["-Jfeedback.max=1"],
    );
    let users: std::collections::BTreeSet<String> = jtl.values("threadName").into_iter().collect();
    assert_eq!(users.len(), 1, "{users:?}");
    assert!(samples_per_second(&jtl).iter().all(|&n| n <= 6));
}
