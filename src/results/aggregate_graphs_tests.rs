use super::*;
use crate::foundation::properties::Properties;

#[test]
fn old_seconds_fold_by_rate_so_memory_stays_flat() {
    let settings = AggregateSettings::from_properties(&Properties::new()).unwrap();
    let mut agg = Aggregator::new(settings);
    for i in 0..600_i64 {
        let start = 1_000_000 + i * 1000;
        agg.add(&Observation {
            start,
            end: start + 10 + i % 3,
            elapsed: 10 + i % 3,
            latency: 1,
            connect: 0,
            bytes: 1,
            sent_bytes: 1,
            grp_threads: 1,
            all_threads: 1,
            success: true,
            label: "a",
            response_code: "200",
            response_message: "OK",
            failure_message: "",
            thread_name: "TG 1-1",
            custom: &[],
        });
    }
    assert!(
        agg.graphs.seconds.len() <= 121,
        "{}",
        agg.graphs.seconds.len()
    );
    let series = vs_request(&agg.graphs, false);
    assert_eq!(series[0].1, vec![(1.0, 11.0)]);
    assert!(series[1].1.is_empty());
}

#[test]
fn a_thread_group_seen_only_in_samples_left_out_draws_no_series() {
    let props = Properties::new();
    props.set("jmeter.reportgenerator.sample_filter", "kept");
    let mut agg = Aggregator::new(AggregateSettings::from_properties(&props).unwrap());
    for (label, thread_name) in [("kept", "Users 1-1"), ("other", "Admins 1-1")] {
        agg.add(&Observation {
            start: 1_000,
            end: 1_010,
            elapsed: 10,
            latency: 1,
            connect: 0,
            bytes: 1,
            sent_bytes: 1,
            grp_threads: 1,
            all_threads: 2,
            success: true,
            label,
            response_code: "200",
            response_message: "OK",
            failure_message: "",
            thread_name,
            custom: &[],
        });
    }
    let (_, series) = data(&agg, "activeThreadsOverTime");
    let names: Vec<&str> = series.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["Users"]);
}
