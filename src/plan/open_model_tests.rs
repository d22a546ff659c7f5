use super::*;

fn arrivals(random: bool, duration: f64) -> Step {
    Step::Arrivals { random, duration }
}

#[test]
fn parses_rates_units_comments_and_case() {
    let schedule = parse(
        "RATE(1/min) /* warm up */ random_arrivals(1 min 30 s)\n// peak\nrate(2 per sec) Even_Arrivals(500ms) rate(0)",
    )
    .unwrap();
    assert_eq!(
        schedule.steps,
        vec![
            Step::Rate(1.0 / 60.0),
            arrivals(true, 90.0),
            Step::Rate(2.0),
            arrivals(false, 0.5),
            Step::Rate(0.0),
        ]
    );
    assert_eq!(schedule.total_duration(), 90.5);
    let units = parse("rate(3/hours) even_arrivals(1d 2h 3min 4sec 5ms) rate(.5/s)").unwrap();
    assert_eq!(units.steps[0], Step::Rate(3.0 / 3600.0));
    assert_eq!(
        units.steps[1],
        arrivals(false, 86_400.0 + 7200.0 + 180.0 + 4.0 + 0.005)
    );
    assert_eq!(units.steps[2], Step::Rate(0.5));
}

#[test]
fn pause_keeps_the_rate_around_a_silent_stretch() {
    let schedule = parse("rate(5/s) pause(2 s) even_arrivals(0)").unwrap();
    let zero = Step::Rate(0.0);
    assert_eq!(
        schedule.steps,
        vec![
            Step::Rate(5.0),
            Step::Rate(5.0),
            zero,
            arrivals(false, 2.0),
            zero,
            Step::Rate(5.0),
            arrivals(false, 0.0),
        ]
    );
    // Without a rate before it, a pause is an empty stretch followed by rate 0.
    assert_eq!(
        parse("pause(1 min)").unwrap().steps,
        vec![arrivals(false, 60.0), Step::Rate(0.0)]
    );
}

#[test]
fn a_bare_integer_is_jmeters_validation_mode() {
    let schedule = parse("7").unwrap();
    assert_eq!(schedule.total_duration(), 3601.0);
    let times: Vec<f64> = Arrivals::new(&schedule, 1, 1).collect();
    assert_eq!(times.len(), 7);
    assert!(times.iter().all(|t| *t < 1.0));
    assert!(
        parse(" 7").is_err(),
        "with a space it is parsed as a schedule"
    );
}

#[test]
fn errors_name_the_position_as_jmeter_does() {
    let e = parse("rate(5/sec) random_arrivals(10 fortnights)").unwrap_err();
    assert_eq!(e.message, "Unexpected time unit fortnights");
    assert_eq!(e.position, 31);
    let e = parse("rate(5)").unwrap_err();
    assert!(
        e.message.contains("Expected /, Identifier(per) got )"),
        "{e}"
    );
    let e = parse("rate(5/s) hold(1 min)").unwrap_err();
    assert!(
        e.message.starts_with("Unexpected input (expecting rate"),
        "{e}"
    );
    assert_eq!(e.position, 10);
    let e = parse("rate(5/s) # x").unwrap_err();
    assert_eq!((e.message.as_str(), e.position), ("Unexpected input", 10));
    assert!(parse("concurrency(2.5)").is_err());
    assert!(parse("concurrency(0)").is_err());
}

#[test]
fn even_arrivals_are_evenly_spaced_and_ramps_follow_the_quadratic() {
    let schedule = parse("rate(4/s) even_arrivals(2 s)").unwrap();
    let times: Vec<f64> = Arrivals::new(&schedule, 0, 0).collect();
    assert_eq!(times, vec![0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75]);
    // 0 → 10/s over 10 s: 50 arrivals, the n-th at sqrt(2n/a) with a = 1.
    let ramp = parse("rate(0) even_arrivals(10 s) rate(10/s)").unwrap();
    let times: Vec<f64> = Arrivals::new(&ramp, 0, 0).collect();
    assert_eq!(times.len(), 50);
    assert!((times[8] - 4.0).abs() < 1e-9, "{}", times[8]);
}

#[test]
fn random_arrivals_are_seeded_sorted_and_counted_as_jmeter() {
    let schedule =
        parse("rate(100/s) random_arrivals(10 s) rate(200/s) random_arrivals(5s)").unwrap();
    let a: Vec<f64> = Arrivals::new(&schedule, 42, 0).collect();
    let b: Vec<f64> = Arrivals::new(&schedule, 42, 7).collect();
    assert_eq!(a, b, "a seed fixes the schedule");
    // 100→200/s over 10 s: 1500; then 200/s for 5 s: 1000.
    assert_eq!(a.len(), 2500);
    assert!(a.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(a.iter().filter(|t| **t < 10.0).count(), 1500);
    // The first flat draw is `new Random(42).nextDouble() * 10`.
    assert!(a.contains(&(0.7275636800328681 * 10.0)));
    let c: Vec<f64> = Arrivals::new(&schedule, 0, 5).collect();
    assert_ne!(a, c);
}

#[test]
fn concurrency_steps_apply_from_their_place_in_time() {
    let schedule =
        parse("concurrency(10) rate(2/s) even_arrivals(1 min) concurrency(5) concurrency(20) even_arrivals(2 min)")
            .unwrap();
    let changes = schedule.concurrency_changes();
    assert_eq!(changes, vec![(0.0, 10), (60.0, 20)]);
    assert_eq!(limit_at(&changes, 59.0), 10);
    assert_eq!(limit_at(&changes, 60.0), 20);
    assert_eq!(limit_at(&[], 1.0), u32::MAX);
}
