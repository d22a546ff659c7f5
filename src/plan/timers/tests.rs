//! Timer delays: ranges with a seeded generator, `timer.factor`, settings as JMeter reads them.

use super::*;
use crate::jmx::Property;
use crate::plan::assertions::test_support::*;
use crate::user_state::UserState;

fn timer(class: &str, props: Vec<Property>) -> Arc<dyn Timer> {
    let el = element(class, "Think", props);
    with_cx(&el, |cx| build(class, cx)).expect("a timer class")
}

fn random_timer(class: &str, delay: &str, range: &str) -> Arc<dyn Timer> {
    timer(
        class,
        vec![
            str_prop("ConstantTimer.delay", delay),
            str_prop("RandomTimer.range", range),
        ],
    )
}

fn draws(timer: &dyn Timer, user: &mut UserState, n: usize) -> Vec<i64> {
    let mut cx = user.eval("s");
    (0..n).map(|_| timer.delay_ms(&mut cx)).collect()
}

#[test]
fn only_timer_classes_are_built() {
    let el = element("X", "x", vec![]);
    assert!(with_cx(&el, |cx| build(
        "org.apache.jmeter.sampler.DebugSampler",
        cx
    ))
    .is_none());
    assert!(with_cx(&el, |cx| build(
        "org.apache.jmeter.timers.ConstantTimer",
        cx
    ))
    .is_some());
}

#[test]
fn constant_timer_reads_its_delay() {
    let mut user = user();
    for (text, expected) in [("300", 300), ("", 0), ("abc", 0), ("1.5", 0)] {
        let t = timer("ConstantTimer", vec![str_prop("ConstantTimer.delay", text)]);
        assert_eq!(draws(&*t, &mut user, 1), vec![expected], "{text:?}");
    }
    let absent = timer("ConstantTimer", vec![]);
    assert_eq!(draws(&*absent, &mut user, 1), vec![0]);
}

#[test]
fn constant_timer_ignores_timer_factor() {
    let mut user = user_with(1, &[("timer.factor", "3")]);
    let t = timer(
        "ConstantTimer",
        vec![str_prop("ConstantTimer.delay", "100")],
    );
    assert_eq!(draws(&*t, &mut user, 1), vec![100]);
}

#[test]
fn uniform_stays_between_offset_and_offset_plus_range() {
    let mut user = user();
    let t = random_timer("UniformRandomTimer", "100", "50.0");
    let values = draws(&*t, &mut user, 2000);
    assert!(values.iter().all(|&v| (100..150).contains(&v)));
    assert!(values.iter().any(|&v| v < 110) && values.iter().any(|&v| v >= 140));
}

#[test]
fn seeded_users_draw_the_same_delays() {
    let t = random_timer("UniformRandomTimer", "0", "1000");
    assert_eq!(draws(&*t, &mut user(), 20), draws(&*t, &mut user(), 20));
}

#[test]
fn gaussian_centres_on_the_offset() {
    let mut user = user();
    let t = random_timer("GaussianRandomTimer", "300", "100");
    let values = draws(&*t, &mut user, 5000);
    let mean = values.iter().sum::<i64>() as f64 / values.len() as f64;
    // Truncation towards zero lowers the mean by about half a millisecond.
    assert!((mean - 299.5).abs() < 6.0, "{mean}");
    assert!(values.iter().all(|&v| v >= 0));
    assert!(values.iter().any(|&v| v > 400) && values.iter().any(|&v| v < 200));
    let no_deviation = random_timer("GaussianRandomTimer", "300", "0");
    assert_eq!(draws(&*no_deviation, &mut user, 3), vec![300; 3]);
}

#[test]
fn random_delays_are_made_positive() {
    let mut user = user();
    let t = random_timer("UniformRandomTimer", "-100", "10");
    assert!(draws(&*t, &mut user, 100)
        .iter()
        .all(|&v| (90..=100).contains(&v)));
    let t = random_timer("PoissonRandomTimer", "-1000", "0");
    assert_eq!(draws(&*t, &mut user, 1), vec![1000]);
}

#[test]
fn poisson_adds_a_count_with_mean_lambda() {
    let mut user = user();
    let t = random_timer("PoissonRandomTimer", "100", "20");
    let values = draws(&*t, &mut user, 5000);
    let mean = values.iter().sum::<i64>() as f64 / values.len() as f64;
    assert!((mean - 120.0).abs() < 1.0, "{mean}");
    assert!(values.iter().all(|&v| v >= 100));
    // The range is rounded half up to an int: 0.4 → 0.
    let t = random_timer("PoissonRandomTimer", "100", "0.4");
    assert_eq!(draws(&*t, &mut user, 5), vec![100; 5]);
}

#[test]
fn timer_factor_scales_the_whole_random_delay() {
    let mut user = user_with(1, &[("timer.factor", "2")]);
    let t = random_timer("UniformRandomTimer", "100", "0");
    assert_eq!(draws(&*t, &mut user, 1), vec![200]);
    let mut user = user_with(1, &[("timer.factor", "0.5")]);
    let t = random_timer("GaussianRandomTimer", "101", "0");
    assert_eq!(draws(&*t, &mut user, 1), vec![51], "50.5 rounds half up");
    let mut user = user_with(1, &[("timer.factor", " not a number ")]);
    let t = random_timer("PoissonRandomTimer", "101", "0");
    assert_eq!(draws(&*t, &mut user, 1), vec![101]);
}

#[test]
fn timer_factor_rounding_is_javas() {
    assert_eq!(apply_timer_factor(7, 1.0), 7);
    assert_eq!(apply_timer_factor(3, 0.5), 2);
    assert_eq!(apply_timer_factor(-3, 0.5), -1, "half rounds towards +∞");
    assert_eq!(apply_timer_factor(i64::MAX, 2.0), i64::from(i32::MAX));
    assert_eq!(apply_timer_factor(5, f32::NAN), 0);
    assert_eq!(java_round(0.49999999999999994), 0);
    assert_eq!(java_round(-2.5), -2);
    assert_eq!(java_round(f64::NAN), 0);
}
