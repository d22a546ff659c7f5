//! Timers, end to end: the gaps between consecutive samples of one thread show the
//! delays (reference §2.7, §8). Runs are a few hundred milliseconds; random timers run
//! with `--seed`. Upper bounds are loose: the machine may be busy.

mod support;

use support::{run_fixture, Jtl};

/// Gaps between the end of each sample and the start of the next one, in ms.
fn gaps(jtl: &Jtl) -> Vec<i64> {
    let rows = jtl.rows_of("Group 1-1");
    rows.windows(2)
        .map(|pair| jtl.span(pair[1]).0 - jtl.span(pair[0]).1)
        .collect()
}

fn assert_gaps_within(fixture: &str, low: i64, high: i64) {
    let jtl = run_fixture(fixture, &["--seed", "11"]);
    assert_eq!(jtl.labels_of("Group 1-1"), ["s1", "s2", "s3", "s4"]);
    // Start times and elapsed times are whole milliseconds, so a gap measured from them
    // can read one millisecond short of the pause that really happened.
    for gap in gaps(&jtl) {
        assert!((low - 1..=high).contains(&gap), "{fixture}: gap {gap} ms");
    }
}

#[test]
fn constant_timer_delays_every_sample() {
    assert_gaps_within("timers/constant.jmx", 100, 600);
}

#[test]
fn uniform_random_timer_stays_within_offset_and_range() {
    assert_gaps_within("timers/uniform_random.jmx", 50, 150 + 500);
}

#[test]
fn gaussian_random_timer_stays_near_its_offset() {
    let jtl = run_fixture("timers/gaussian_random.jmx", &["--seed", "11"]);
    let total: i64 = gaps(&jtl).iter().sum();
    // Three delays of |100 + N(0,1) × 20| ms.
    assert!((150..=1200).contains(&total), "total {total} ms");
}

#[test]
fn poisson_random_timer_adds_its_offset() {
    let jtl = run_fixture("timers/poisson_random.jmx", &["--seed", "11"]);
    let gaps = gaps(&jtl);
    assert!(gaps.iter().all(|g| *g >= 49), "{gaps:?}"); // 1 ms slack: whole-ms columns
    let total: i64 = gaps.iter().sum();
    // Three delays of 50 + Poisson(30) ms.
    assert!((150..=1000).contains(&total), "total {total} ms");
}

#[test]
fn timers_in_scope_are_summed() {
    let jtl = run_fixture("timers/summed.jmx", &[]);
    assert_eq!(jtl.labels_of("Group 1-1"), ["first", "second"]);
    let gap = gaps(&jtl)[0];
    // One millisecond of slack for whole-millisecond rounding, as in assert_gaps_within.
    assert!((149..900).contains(&gap), "60 + 90 ms timers gave {gap} ms");
}

#[test]
fn timer_under_a_flow_control_action_pauses_the_thread() {
    let jtl = run_fixture("timers/flow_control_action_timer.jmx", &[]);
    assert_eq!(jtl.labels_of("Group 1-1"), ["before", "after"]);
    let gap = gaps(&jtl)[0];
    assert!((199..900).contains(&gap), "200 ms timer gave {gap} ms");
}

/// Mean gap between the start times of `thread`'s samples, skipping the first `skip`
/// gaps (the ones before the pace is reached).
fn mean_start_gap(jtl: &Jtl, thread: &str, skip: usize) -> f64 {
    let starts: Vec<i64> = jtl
        .rows_of(thread)
        .iter()
        .map(|row| jtl.span(row).0)
        .collect();
    let gaps: Vec<i64> = starts.windows(2).map(|w| w[1] - w[0]).skip(skip).collect();
    assert!(!gaps.is_empty(), "{thread}: {starts:?}");
    gaps.iter().sum::<i64>() as f64 / gaps.len() as f64
}

/// Constant Throughput Timer, three groups one after the other: 600/min for this thread
/// only (100 ms apart), 1,200/min over all active threads with 4 users (each 200 ms
/// apart, read through `__P`), and 1,200/min on the schedule all threads share (the 4
/// users together 20 per second once the first round is past). Targets are fixed times,
/// so a late wake-up shortens the next wait: the mean gap holds the pace; it comes out
/// above it by the lateness of the last sample and below it by that of the first one
/// counted (a few milliseconds, tens on a loaded machine: hence the window). In shared
/// mode the users take turns on one schedule in whatever order they wake, so the pace
/// is read from all their samples together.
#[test]
fn constant_throughput_timer_paces_each_mode() {
    let jtl = run_fixture("timers/constant_throughput.jmx", &[]);
    assert_eq!(jtl.rows_of("One 1-1").len(), 11);
    let within = |mean: f64, pace: f64, what: &str| {
        assert!(
            (pace * 0.9..=pace * 1.15).contains(&mean),
            "{what}: mean gap {mean:.1} ms for a pace of {pace} ms"
        );
    };
    within(
        mean_start_gap(&jtl, "One 1-1", 0),
        100.0,
        "this thread only",
    );
    for user in 1..=4 {
        let thread = format!("All 2-{user}");
        assert_eq!(jtl.rows_of(&thread).len(), 6);
        // The first wait counts the users active when it was computed.
        within(
            mean_start_gap(&jtl, &thread, 1),
            200.0,
            "all active threads",
        );
        assert_eq!(jtl.rows_of(&format!("Shared 3-{user}")).len(), 5);
    }
    // 1,200/min shared by the 4 users: one start every 50 ms once the first two rounds
    // are past (the first starts at once, the second settles onto the schedule).
    let mut shared: Vec<i64> = (1..=4)
        .flat_map(|user| jtl.rows_of(&format!("Shared 3-{user}")))
        .map(|row| jtl.span(row).0)
        .collect();
    shared.sort_unstable();
    let settled = &shared[8..];
    let mean = (settled[settled.len() - 1] - settled[0]) as f64 / (settled.len() - 1) as f64;
    within(mean, 50.0, "all active threads (shared)");
}

#[test]
fn throughput_shaping_timer_follows_its_profile_then_stops_the_users() {
    // Five users with no pause of their own; the profile asks for 10/s for seconds 0
    // and 1 (a row's end second counts), then 20/s for second 2, then ends.
    let started = std::time::Instant::now();
    let jtl = run_fixture("timers/throughput_shaping.jmx", &[]);
    assert!(
        started.elapsed().as_secs() < 8,
        "the users did not stop at the end of the profile"
    );
    let mut stamps: Vec<i64> = jtl.rows.iter().map(|r| jtl.int(r, "timeStamp")).collect();
    stamps.sort_unstable();
    assert_eq!(stamps.len(), 40, "10 + 10 + 20 samples");
    // The last 20 come 50 ms apart over the last second, after the first 20.
    let last_second = &stamps[20..];
    let spread = last_second[19] - last_second[0];
    assert!(
        (850..=1100).contains(&spread),
        "20/s spread over {spread} ms"
    );
    assert!(
        last_second[0] - stamps[10] >= 900,
        "second 2 began too early"
    );

    // The `load_profile` property replaces the table.
    let jtl = run_fixture(
        "timers/throughput_shaping.jmx",
        &["-Jload_profile=const(5,1s)"],
    );
    assert_eq!(jtl.rows.len(), 10, "5/s for seconds 0 and 1");
}
