use super::*;

fn settings() -> AggregateSettings {
    AggregateSettings::from_properties(&Properties::new()).unwrap()
}

fn obs<'a>(
    label: &'a str,
    elapsed: i64,
    success: bool,
    code: &'a str,
    message: &'a str,
) -> Observation<'a> {
    Observation {
        start: 1000,
        end: 1000 + elapsed,
        elapsed,
        latency: 0,
        connect: 0,
        bytes: 10,
        sent_bytes: 5,
        grp_threads: 1,
        all_threads: 1,
        success,
        label,
        response_code: code,
        response_message: message,
        failure_message: "",
        thread_name: "TG 1-1",
        custom: &[],
    }
}

#[test]
fn error_keys_follow_jmeter() {
    let o = obs("a", 1, false, "404", "Not Found");
    assert_eq!(o.error_key(true), "404/Not Found");
    let o = obs("a", 1, false, "500", "");
    assert_eq!(o.error_key(true), "500");
    let mut o = obs("a", 1, false, "200", "OK");
    assert_eq!(o.error_key(true), "Assertion failed");
    o.failure_message = "Test failed: text expected";
    assert_eq!(o.error_key(true), "Test failed: text expected");
    assert_eq!(o.error_key(false), "Assertion failed");
}

#[test]
fn controllers_count_in_their_row_and_apdex_but_not_in_total() {
    let mut agg = Aggregator::new(settings());
    agg.add(&obs("req", 100, true, "200", "OK"));
    agg.add(&obs("req", 1000, false, "500", "Boom"));
    agg.add(&obs(
        "tx",
        1100,
        true,
        "200",
        "Number of samples in transaction : 2, number of failing samples : 1",
    ));
    agg.add(&obs(
        "empty",
        0,
        true,
        "200",
        "Number of samples in transaction : 0, number of failing samples : 0",
    ));
    assert_eq!(agg.total.count, 2);
    assert_eq!(agg.total.errors, 1);
    assert_eq!(agg.label("tx").unwrap().count, 1);
    assert!(agg.label("empty").is_none());
    assert_eq!(agg.apdex_total.count, 3);
    // satisfied: 100; tolerated: 1100; the failure counts only in the total.
    assert_eq!(agg.apdex_total.apdex_score(3), 0.5);
    assert_eq!(agg.errors["500/Boom"], 1);
}

#[test]
fn per_label_apdex_thresholds_and_sample_filter() {
    let props = Properties::new();
    props.set(
        "jmeter.reportgenerator.apdex_per_transaction",
        "slow.*:2000|4000;fast:10|20",
    );
    props.set("jmeter.reportgenerator.sample_filter", "slow.*|fast");
    let mut agg = Aggregator::new(AggregateSettings::from_properties(&props).unwrap());
    agg.add(&obs("slowpoke", 1900, true, "200", "OK"));
    agg.add(&obs("fast", 15, true, "200", "OK"));
    agg.add(&obs("other", 15, true, "200", "OK"));
    assert_eq!(agg.label("slowpoke").unwrap().apdex_score(1), 1.0);
    assert_eq!(agg.label("fast").unwrap().apdex_score(1), 0.5);
    assert!(agg.label("other").is_none());
}
