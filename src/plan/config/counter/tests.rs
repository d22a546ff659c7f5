//! Counter sequences: start/end/incr/format, shared and per-user, reset per thread-group
//! iteration.

use super::*;
use crate::jmx::Property;
use crate::plan::assertions::test_support::*;

fn counter(props: Vec<Property>) -> Counter {
    let mut all = vec![str_prop("CounterConfig.name", "n")];
    all.extend(props);
    let el = element("CounterConfig", "Counter", all);
    with_cx(&el, Counter::build)
}

fn settings(start: &str, end: &str, incr: &str) -> Vec<Property> {
    vec![
        str_prop("CounterConfig.start", start),
        str_prop("CounterConfig.end", end),
        str_prop("CounterConfig.incr", incr),
    ]
}

/// The values `user` sees over `n` iterations.
fn sequence(counter: &Counter, user: &mut UserState, n: usize) -> Vec<String> {
    (0..n)
        .map(|_| {
            counter.iteration_start(user);
            user.vars.get("n").unwrap_or("unset").to_string()
        })
        .collect()
}

fn texts(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| v.to_string()).collect()
}

#[test]
fn shared_counter_wraps_after_end() {
    let c = counter(settings("1", "3", "1"));
    let mut user = user();
    assert_eq!(
        sequence(&c, &mut user, 7),
        texts(&["1", "2", "3", "1", "2", "3", "1"])
    );
}

#[test]
fn shared_counter_wraps_when_the_step_overshoots_end() {
    let c = counter(settings("1", "4", "2"));
    assert_eq!(sequence(&c, &mut user(), 4), texts(&["1", "3", "1", "3"]));
}

#[test]
fn shared_counter_hands_successive_values_to_users() {
    let c = counter(settings("10", "", "5"));
    let mut first = user_with(1, &[]);
    let mut second = user_with(2, &[]);
    c.iteration_start(&mut first);
    c.iteration_start(&mut second);
    c.iteration_start(&mut first);
    assert_eq!(first.vars.get("n"), Some("20"));
    assert_eq!(second.vars.get("n"), Some("15"));
}

#[test]
fn per_user_counters_are_independent() {
    let mut props = settings("0", "2", "1");
    props.push(bool_prop("CounterConfig.per_user", true));
    let c = counter(props);
    let mut first = user_with(1, &[]);
    let mut second = user_with(2, &[]);
    assert_eq!(sequence(&c, &mut first, 4), texts(&["0", "1", "2", "0"]));
    assert_eq!(sequence(&c, &mut second, 2), texts(&["0", "1"]));
}

#[test]
fn empty_or_absent_end_never_wraps_and_defaults_are_zero() {
    let c = counter(settings("5", "", "1"));
    assert_eq!(sequence(&c, &mut user(), 3), texts(&["5", "6", "7"]));
    let c = counter(vec![]);
    assert_eq!(sequence(&c, &mut user(), 2), texts(&["0", "0"]));
}

#[test]
fn format_pads_and_decorates() {
    let mut props = settings("1", "", "1");
    props.push(str_prop("CounterConfig.format", "USER_000"));
    let c = counter(props);
    assert_eq!(
        sequence(&c, &mut user(), 2),
        texts(&["USER_001", "USER_002"])
    );
}

#[test]
fn unsupported_format_falls_back_to_the_number_with_a_warning() {
    let mut props = settings("7", "", "1");
    props.push(str_prop("CounterConfig.format", "0#"));
    let mut all = vec![str_prop("CounterConfig.name", "n")];
    all.extend(props);
    let el = element("CounterConfig", "Counter", all);
    let (c, diagnostics) = build_with_diagnostics(&el, Counter::build);
    assert_eq!(diagnostics.len(), 1);
    assert_eq!(sequence(&c, &mut user(), 1), texts(&["7"]));
}

#[test]
fn reset_on_thread_group_iteration_restarts_per_user_counters() {
    let mut props = settings("1", "", "1");
    props.push(bool_prop("CounterConfig.per_user", true));
    props.push(bool_prop("CounterConfig.reset_on_tg_iteration", true));
    let c = counter(props);
    let mut user = user();
    // A counter inside a loop of 3 passes, over two thread-group iterations.
    user.iteration = 1;
    assert_eq!(sequence(&c, &mut user, 3), texts(&["1", "2", "3"]));
    user.iteration = 2;
    assert_eq!(sequence(&c, &mut user, 3), texts(&["1", "2", "3"]));
}

#[test]
fn reset_is_ignored_for_shared_counters() {
    let mut props = settings("1", "", "1");
    props.push(bool_prop("CounterConfig.reset_on_tg_iteration", true));
    let c = counter(props);
    let mut user = user();
    user.iteration = 1;
    sequence(&c, &mut user, 2);
    user.iteration = 2;
    assert_eq!(sequence(&c, &mut user, 1), texts(&["3"]));
}

#[test]
fn negative_increment_counts_down_without_wrapping() {
    let c = counter(settings("3", "5", "-1"));
    assert_eq!(
        sequence(&c, &mut user(), 5),
        texts(&["3", "2", "1", "0", "-1"])
    );
}
