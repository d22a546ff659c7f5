//! Assertions, end to end: success flags and the `failureMessage` column (reference
//! §11.1–11.3), assertion scope, and the Result Status Action Handler (§10.8).

mod support;

use support::{run_fixture, Jtl};

/// (success, failureMessage) of the only row with this label.
fn verdict<'a>(jtl: &'a Jtl, label: &str) -> (&'a str, &'a str) {
    let row = jtl.one(label);
    (jtl.get(row, "success"), jtl.get(row, "failureMessage"))
}

#[test]
fn response_assertion_test_types() {
    let jtl = run_fixture("assertions/response_assertion.jmx", &[]);
    for label in [
        "contains-pass",
        "matches-pass",
        "equals-pass",
        "substring-pass",
        "not-pass",
        "or-pass",
        "code-pass",
        "message-pass",
    ] {
        assert_eq!(verdict(&jtl, label), ("true", ""), "{label}");
    }
    let failures = [
        (
            "contains-fail",
            "Test failed: text expected to contain /xyz/",
        ),
        (
            "matches-fail",
            "Test failed: text expected to match /world/",
        ),
        (
            "substring-fail",
            "Test failed: text expected to contain /l.*d/",
        ),
        (
            "not-fail",
            "Test failed: text expected not to contain /hello/",
        ),
        ("and-fail", "Test failed: text expected to contain /nope/"),
        ("code-fail", "Test failed: code expected to match /2../"),
        ("custom-message", "no xyz here"),
    ];
    for (label, message) in failures {
        assert_eq!(verdict(&jtl, label), ("false", message), "{label}");
    }
    let (success, message) = verdict(&jtl, "equals-fail");
    assert_eq!(success, "false");
    assert!(
        message.starts_with("Test failed: text expected to equal /"),
        "{message:?}"
    );
}

#[test]
fn response_assertion_can_assume_success() {
    let jtl = run_fixture("assertions/response_assertion.jmx", &[]);
    assert_eq!(verdict(&jtl, "assume-success"), ("true", ""));
}

#[test]
fn duration_assertion_fails_slow_samples() {
    let jtl = run_fixture("assertions/duration.jmx", &[]);
    let (success, message) = verdict(&jtl, "slow");
    assert_eq!(success, "false");
    let elapsed = jtl.int(jtl.one("slow"), "elapsed");
    assert_eq!(
        message,
        format!(
            "The operation lasted too long: It took {elapsed} milliseconds, \
             but should not have lasted longer than 50 milliseconds."
        )
    );
    assert_eq!(verdict(&jtl, "fast"), ("true", ""));
}

#[test]
fn size_assertion_compares_the_response_size() {
    let jtl = run_fixture("assertions/size.jmx", &[]);
    assert_eq!(verdict(&jtl, "equal-pass"), ("true", ""));
    assert_eq!(verdict(&jtl, "greater-pass"), ("true", ""));
    assert_eq!(
        verdict(&jtl, "less-fail"),
        (
            "false",
            "The result was the wrong size: It was 5 bytes, but should have been less than 3 bytes."
        )
    );
}

#[test]
fn assertion_under_a_controller_applies_to_every_sampler_below_it() {
    let jtl = run_fixture("assertions/scope.jmx", &[]);
    assert_eq!(verdict(&jtl, "good-in").0, "true");
    assert_eq!(verdict(&jtl, "bad-in").0, "false");
    assert_eq!(verdict(&jtl, "bad-nested").0, "false");
    assert_eq!(verdict(&jtl, "bad-out").0, "true");
}

#[test]
fn result_status_action_handler_acts_on_failures_only() {
    let jtl = run_fixture("assertions/result_status_action.jmx", &[]);
    assert_eq!(jtl.labels_of("StopThread 1-1"), ["f"]);
    assert_eq!(
        jtl.labels_of("NextLoop 2-1"),
        ["a-0", "f", "a-1", "f", "a-2", "f"]
    );
    assert_eq!(jtl.labels_of("OnSuccess 3-1"), ["ok", "next", "ok", "next"]);
}
