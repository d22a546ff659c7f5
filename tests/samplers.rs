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
