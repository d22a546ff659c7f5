//! Samplers that need no network and no Java, end to end: Flow Control Action, Java
//! Request (`JavaTest`) and Debug Sampler (reference §6.2, §6.4, §6.6).

mod support;

use support::run_fixture;

#[test]
fn flow_control_action_pause_adds_its_duration() {
    let jtl = run_fixture("samplers/flow_control_action.jmx", &[]);
    assert_eq!(jtl.labels_of("Pause 1-1"), ["before", "after"]);
    let rows = jtl.rows_of("Pause 1-1");
    let (_, before_end) = jtl.span(rows[0]);
    let (after_start, _) = jtl.span(rows[1]);
    let gap = after_start - before_end;
    assert!((299..1200).contains(&gap), "paused {gap} ms"); // 1 ms slack: whole-ms columns
}

#[test]
fn flow_control_action_changes_the_flow() {
    let jtl = run_fixture("samplers/flow_control_action.jmx", &[]);
    assert_eq!(jtl.labels_of("StopThread 2-1"), ["a"]);
    assert_eq!(jtl.labels_of("NextLoop 3-1"), ["a-0", "a-1", "a-2"]);
    assert_eq!(jtl.labels_of("Break 4-1"), ["l-0", "l-1", "l-2", "after"]);
    assert_eq!(
        jtl.labels_of("Continue 5-1"),
        ["x-0", "x-1", "x-2", "after"]
    );
    assert!(jtl.labelled("never").is_empty());
}

#[test]
fn java_request_reports_what_its_arguments_ask_for() {
    let jtl = run_fixture("samplers/java_request.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Group 1-1"),
        ["custom label", "Failed", "Defaults"]
    );
    let created = jtl.one("custom label");
    assert_eq!(jtl.get(created, "responseCode"), "201");
    assert_eq!(jtl.get(created, "responseMessage"), "Created");
    assert_eq!(jtl.get(created, "success"), "true");
    assert_eq!(jtl.get(created, "dataType"), "text");
    assert_eq!(jtl.int(created, "bytes"), 5);
    assert_eq!(jtl.int(created, "sentBytes"), 3);
    assert!(jtl.int(created, "elapsed") >= 50);
    let failed = jtl.one("Failed");
    assert_eq!(jtl.get(failed, "responseCode"), "500");
    assert_eq!(jtl.get(failed, "responseMessage"), "Server Error");
    assert_eq!(jtl.get(failed, "success"), "false");
    assert_eq!(jtl.int(failed, "bytes"), 4);
    assert_eq!(jtl.get(jtl.one("Defaults"), "success"), "true");
}

/// A Java Request's parameters of properties are kept per user between samples; a
/// property set during the run must show in the next sample, and `-J` values at once.
#[test]
fn java_request_parameters_follow_properties_set_during_the_run() {
    let jtl = run_fixture("samplers/java_request_properties.jmx", &["-Jcode=202"]);
    let java: Vec<(&str, &str)> = jtl
        .labelled("Java")
        .into_iter()
        .map(|row| {
            (
                jtl.get(row, "responseCode"),
                jtl.get(row, "responseMessage"),
            )
        })
        .collect();
    assert_eq!(
        java,
        [("202", "first"), ("202", "after-1"), ("202", "after-2")]
    );
}

#[test]
fn debug_sampler_label_shows_variables() {
    let jtl = run_fixture("samplers/debug.jmx", &[]);
    let row = jtl.one("dbg-x");
    assert_eq!(jtl.get(row, "responseCode"), "200");
    assert_eq!(jtl.get(row, "responseMessage"), "OK");
    assert_eq!(jtl.get(row, "success"), "true");
    assert_eq!(jtl.get(row, "dataType"), "text");
    assert!(jtl.int(row, "bytes") > 0);
}

#[test]
fn dummy_sampler_records_its_settings_and_waits_only_when_asked() {
    let started = std::time::Instant::now();
    let jtl = run_fixture("samplers/dummy_sampler.jmx", &["-Jdummy.wait=300"]);
    // The 5 s response time of the sampler that does not wait is recorded, not slept.
    assert!(started.elapsed().as_secs() < 4, "the run waited");

    let waited = jtl.one("waited");
    let elapsed = jtl.int(waited, "elapsed");
    assert!((300..1000).contains(&elapsed), "waited {elapsed} ms");
    assert_eq!(jtl.get(waited, "responseCode"), "201");
    assert_eq!(jtl.get(waited, "responseMessage"), "Created x");
    assert_eq!(jtl.get(waited, "success"), "true");
    assert_eq!(jtl.get(waited, "bytes"), "12");
    assert_eq!(jtl.get(waited, "URL"), "http://127.0.0.1:9/dummy");
    assert_eq!(jtl.get(waited, "Latency"), "20");
    assert_eq!(jtl.get(waited, "Connect"), "5");

    // The label shows what the extractor took from the first response.
    let recorded = jtl.one("recorded-abc-x");
    assert_eq!(jtl.get(recorded, "elapsed"), "5000");
    assert_eq!(jtl.get(recorded, "success"), "false");
    assert_eq!(jtl.get(recorded, "responseCode"), "500");
    assert_eq!(
        jtl.get(recorded, "bytes"),
        "6",
        "UTF-8 bytes of the response"
    );
    assert_eq!(jtl.get(recorded, "URL"), "null");
    let next = jtl.int(jtl.one("unreadable"), "timeStamp");
    assert!(next - jtl.int(recorded, "timeStamp") < 1000);

    // Durations Java cannot read as whole numbers count as 0; a bad URL is left out.
    let unreadable = jtl.one("unreadable");
    assert_eq!(jtl.get(unreadable, "elapsed"), "0");
    assert_eq!(jtl.get(unreadable, "Latency"), "0");
    assert_eq!(jtl.get(unreadable, "URL"), "null");
}
