use super::*;
use crate::sample::AssertionResult;

fn spec(name: &str, kind: PrometheusKind, measuring: PrometheusMeasure) -> PrometheusCollectorSpec {
    PrometheusCollectorSpec {
        metric_name: name.to_string(),
        help: "help \\ text".to_string(),
        kind,
        labels: vec!["label".to_string(), "code".to_string()],
        buckets: vec![100.0, 500.0],
        quantiles: vec![(0.5, 0.05), (0.9, 0.01)],
        window_seconds: 60,
        assertions: false,
        measuring,
    }
}

fn sample(label: &str, elapsed: i64, success: bool) -> SampleResult {
    let mut s = SampleResult::new(label.into());
    s.elapsed = elapsed;
    s.success = success;
    s.response_code = if success { "200" } else { "500" }.into();
    s.thread_name = "Shop users 1-2".into();
    s
}

/// The rendered lines without the `_created` values, which are clock readings.
fn lines(registry: &mut Registry) -> Vec<String> {
    render(registry)
        .lines()
        .map(|l| match l.split_once("_created{") {
            Some((head, rest)) if !l.starts_with('#') => {
                format!(
                    "{head}_created{{{}",
                    rest.rsplit_once(' ').map_or(rest, |r| r.0)
                )
            }
            _ => l.to_string(),
        })
        .collect()
}

#[test]
fn counters_ratios_histograms_and_summaries_render_as_the_client_library_writes_them() {
    let counts = Arc::new(ThreadCounts::new());
    counts.thread_started();
    let mut registry = Registry::new(Some("jmeter_threads".into()), counts, Vec::new());
    let count = registry
        .register(&spec(
            "shop_count_total",
            PrometheusKind::Counter,
            PrometheusMeasure::CountTotal,
        ))
        .unwrap();
    let failed = registry
        .register(&spec(
            "shop_failed",
            PrometheusKind::Counter,
            PrometheusMeasure::FailureTotal,
        ))
        .unwrap();
    let ratio = registry
        .register(&spec(
            "shop_ok",
            PrometheusKind::SuccessRatio,
            PrometheusMeasure::SuccessRatio,
        ))
        .unwrap();
    let hist = registry
        .register(&spec(
            "shop_rt",
            PrometheusKind::Histogram,
            PrometheusMeasure::ResponseTime,
        ))
        .unwrap();
    let summary = registry
        .register(&spec(
            "shop_rt_sum",
            PrometheusKind::Summary,
            PrometheusMeasure::ResponseTime,
        ))
        .unwrap();
    for s in [
        sample("Home", 50, true),
        sample("Home", 300, true),
        sample("Home", 900, false),
    ] {
        for i in [count, failed, ratio, hist, summary] {
            registry.update(i, &s);
        }
    }
    let text = lines(&mut registry);
    let expected = [
        "# HELP jmeter_threads Gauge for jmeter threads",
        "# TYPE jmeter_threads gauge",
        "jmeter_threads{state=\"active\",} 1.0",
        "jmeter_threads{state=\"finished\",} 0.0",
        "jmeter_threads{state=\"started\",} 1.0",
        "# HELP shop_count_total help \\\\ text",
        "# TYPE shop_count_total counter",
        "shop_count_total{label=\"Home\",code=\"200\",} 2.0",
        "shop_count_total{label=\"Home\",code=\"500\",} 1.0",
        "# TYPE shop_failed_total counter",
        "shop_failed_total{label=\"Home\",code=\"500\",} 1.0",
        "shop_ok_success_total{label=\"Home\",code=\"200\",} 2.0",
        "shop_ok_failure_total{label=\"Home\",code=\"200\",} 0.0",
        "shop_ok_total{label=\"Home\",code=\"500\",} 1.0",
        "# TYPE shop_rt histogram",
        "shop_rt_bucket{label=\"Home\",code=\"200\",le=\"100.0\",} 1.0",
        "shop_rt_bucket{label=\"Home\",code=\"200\",le=\"500.0\",} 2.0",
        "shop_rt_bucket{label=\"Home\",code=\"200\",le=\"+Inf\",} 2.0",
        "shop_rt_count{label=\"Home\",code=\"200\",} 2.0",
        "shop_rt_sum{label=\"Home\",code=\"200\",} 350.0",
        "shop_rt_bucket{label=\"Home\",code=\"500\",le=\"+Inf\",} 1.0",
        "# TYPE shop_rt_sum summary",
        "shop_rt_sum{label=\"Home\",code=\"200\",quantile=\"0.5\",} 50.0",
        "shop_rt_sum{label=\"Home\",code=\"200\",quantile=\"0.9\",} 300.0",
        "shop_rt_sum_count{label=\"Home\",code=\"200\",} 2.0",
        "# TYPE shop_count_created gauge",
        "shop_count_created{label=\"Home\",code=\"200\",}",
        "shop_rt_created{label=\"Home\",code=\"500\",}",
    ];
    for line in expected {
        assert!(
            text.iter().any(|l| l == line),
            "{line} missing from\n{}",
            text.join("\n")
        );
    }
    // Failures alone make no child for a success counter, and `_created` comes last.
    assert!(!text
        .iter()
        .any(|l| l.starts_with("shop_failed_total{label=\"Home\",code=\"200\"")));
    let first_created = text.iter().position(|l| l.contains("_created")).unwrap();
    assert!(
        text[first_created..].iter().all(|l| l.contains("_created")),
        "{text:?}"
    );
}

#[test]
fn assertion_results_are_counted_under_the_assertions_names() {
    let mut registry = Registry::new(None, Arc::new(ThreadCounts::new()), vec!["category".into()]);
    let mut def = spec(
        "checks_total",
        PrometheusKind::Counter,
        PrometheusMeasure::FailureTotal,
    );
    def.assertions = true;
    def.labels = vec!["label".into(), "category".into(), "code".into()];
    let i = registry.register(&def).unwrap();
    assert!(registry.unknown_labels().is_empty());
    let mut s = sample("Home", 10, false);
    s.sample_variables = vec![Some("books".into())];
    for (name, failure) in [("Has title", true), ("Is fast", false), ("Has title", true)] {
        s.assertions.push(AssertionResult {
            name: name.into(),
            failure,
            ..Default::default()
        });
    }
    registry.update(i, &s);
    let text = lines(&mut registry);
    assert!(
        text.contains(
            &"checks_total{label=\"Has title\",category=\"books\",code=\"null\",} 2.0".to_string()
        ),
        "{text:?}"
    );
    assert!(!text.iter().any(|l| l.contains("Is fast")), "{text:?}");
}

#[test]
fn a_name_defined_twice_differently_is_refused_and_unknown_labels_are_reported() {
    let mut registry = Registry::new(None, Arc::new(ThreadCounts::new()), Vec::new());
    let mut def = spec(
        "a_total",
        PrometheusKind::Counter,
        PrometheusMeasure::CountTotal,
    );
    assert_eq!(registry.register(&def), Ok(0));
    assert_eq!(registry.register(&def), Ok(0));
    def.kind = PrometheusKind::Histogram;
    assert!(registry.register(&def).is_err());
    def.metric_name = "b".into();
    def.labels = vec!["colour".into()];
    registry.register(&def).unwrap();
    assert_eq!(registry.unknown_labels(), ["colour"]);
}

#[test]
fn summary_windows_forget_old_observations_and_thread_groups_are_read_from_names() {
    let mut window = Window::new(10);
    let start = window.rotated_at;
    window.observe(5, start);
    window.observe(7, start + 1000);
    assert_eq!(window.quantile(1.0, start + 1000), 7.0);
    assert_eq!(window.quantile(0.5, start + 1000), 5.0);
    assert!(window.quantile(0.5, start + 11_000).is_nan());
    assert_eq!(thread_group("Shop users 1-20"), "Shop users");
    assert_eq!(thread_group("setUp Thread Group 2-1"), "setUp Thread Group");
    assert_eq!(thread_group("main"), "main");
    assert_eq!(thread_group("Group a-1"), "Group a-1");
}
