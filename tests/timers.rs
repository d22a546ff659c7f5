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
