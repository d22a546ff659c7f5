//! Response Assertion: every test kind, NOT/OR combination, field and message text.

use super::super::test_support::*;
use super::*;
use crate::jmx::Property;

const RESPONSE_DATA: &str = "Assertion.response_data";
const RESPONSE_CODE: &str = "Assertion.response_code";

fn assertion(field: &str, mask: i64, patterns: &[&str], extra: Vec<Property>) -> ResponseAssertion {
    let mut props = vec![
        str_prop("Assertion.test_field", field),
        int_prop("Assertion.test_type", mask),
        strings_prop("Asserion.test_strings", patterns),
    ];
    props.extend(extra);
    let el = element("ResponseAssertion", "Check", props);
    let (assertion, diagnostics) = build_with_diagnostics(&el, ResponseAssertion::build);
    // Only the document field is worth a warning.
    let expected = usize::from(field == "Assertion.response_data_as_document");
    assert_eq!(diagnostics.len(), expected, "{diagnostics:?}");
    assertion
}

fn response(body: &str, code: &str) -> SampleResult {
    let mut result = sample(1);
    result.response_data = body.as_bytes().to_vec();
    result.response_code = code.to_string().into();
    result.response_message = "OK".into();
    result.response_headers = "HTTP/1.1 200 OK\nContent-Type: text/plain\n".to_string();
    result.request_headers = "Accept: */*\n".to_string();
    result.sampler_data = "GET http://example.test/a".to_string();
    result.url = Some("http://example.test/a".to_string());
    result
}

/// Runs the assertion on a fresh copy of `result`: (success, message of the verdict).
fn verdict(assertion: &ResponseAssertion, result: &SampleResult) -> (bool, Option<String>) {
    let mut judged = result.clone();
    run(assertion, &mut judged);
    assert_eq!(judged.assertions.len(), 1);
    (judged.success, judged.assertions[0].failure_message.clone())
}

#[test]
fn every_kind_with_and_without_not() {
    let result = response("Hello World", "200");
    // (mask, pattern, passes, message when failing)
    let cases: &[(i64, &str, bool, &str)] = &[
        (2, "W.rld", true, ""),
        (
            2,
            "w.rld",
            false,
            "Test failed: text expected to contain /w.rld/",
        ),
        (6, "w.rld", true, ""),
        (
            6,
            "W.rld",
            false,
            "Test failed: text expected not to contain /W.rld/",
        ),
        (1, "Hello.*", true, ""),
        (
            1,
            "Hello",
            false,
            "Test failed: text expected to match /Hello/",
        ),
        (5, "Hello", true, ""),
        (
            5,
            "H.*d",
            false,
            "Test failed: text expected not to match /H.*d/",
        ),
        (16, "o W", true, ""),
        (
            16,
            "o.W",
            false,
            "Test failed: text expected to contain /o.W/",
        ),
        (20, "o.W", true, ""),
        (
            20,
            "o W",
            false,
            "Test failed: text expected not to contain /o W/",
        ),
        (8, "Hello World", true, ""),
        (12, "Hello", true, ""),
    ];
    for &(mask, pattern, passes, message) in cases {
        let (ok, got) = verdict(&assertion(RESPONSE_DATA, mask, &[pattern], vec![]), &result);
        assert_eq!(ok, passes, "mask {mask} pattern {pattern}");
        let want = (!passes).then(|| message.to_string());
        assert_eq!(got, want, "mask {mask} pattern {pattern}");
    }
}

#[test]
fn equals_failure_shows_the_difference() {
    let result = response("", "200");
    let (ok, message) = verdict(&assertion(RESPONSE_CODE, 8, &["404"], vec![]), &result);
    assert!(!ok);
    assert_eq!(
        message.as_deref(),
        Some("Test failed: code expected to equal /\n\n****** received  : [[[200]]]\n\n****** comparison: [[[404]]]\n\n/")
    );
}

#[test]
fn not_equals_failure_shows_the_excerpt_too() {
    let result = response("", "200");
    let (ok, message) = verdict(&assertion(RESPONSE_CODE, 12, &["200"], vec![]), &result);
    assert!(!ok);
    assert_eq!(
        message.as_deref(),
        Some("Test failed: code expected not to equal /\n\n****** received  : 200[[[]]]\n\n****** comparison: 200[[[]]]\n\n/")
    );
}

#[test]
fn and_stops_at_the_first_failing_pattern() {
    let result = response("alpha beta", "200");
    let (ok, message) = verdict(
        &assertion(RESPONSE_DATA, 2, &["alpha", "gamma", "delta"], vec![]),
        &result,
    );
    assert!(!ok);
    assert_eq!(
        message.as_deref(),
        Some("Test failed: text expected to contain /gamma/")
    );
}

#[test]
fn or_passes_on_any_pattern() {
    let result = response("alpha beta", "200");
    let (ok, message) = verdict(
        &assertion(RESPONSE_DATA, 34, &["gamma", "beta"], vec![]),
        &result,
    );
    assert!(ok);
    assert_eq!(message, None);
}

#[test]
fn or_failure_joins_messages_with_tabs_and_uses_the_generic_verb() {
    let result = response("alpha beta", "200");
    let (ok, message) = verdict(
        &assertion(RESPONSE_DATA, 34, &["gamma", "delta"], vec![]),
        &result,
    );
    assert!(!ok);
    assert_eq!(
        message.as_deref(),
        Some("Test failed: text expected something using /gamma/\tTest failed: text expected something using /delta/\t")
    );
    // NOT | OR: passes as soon as one pattern is absent.
    let (ok, _) = verdict(
        &assertion(RESPONSE_DATA, 38, &["alpha", "gamma"], vec![]),
        &result,
    );
    assert!(ok);
    let (ok, _) = verdict(
        &assertion(RESPONSE_DATA, 38, &["alpha", "beta"], vec![]),
        &result,
    );
    assert!(!ok);
    // SUBSTRING | OR and MATCH | OR and EQUALS | OR.
    let (ok, _) = verdict(
        &assertion(RESPONSE_DATA, 48, &["zzz", "a b"], vec![]),
        &result,
    );
    assert!(ok);
    let (ok, _) = verdict(
        &assertion(RESPONSE_DATA, 33, &["alpha", "alpha.*"], vec![]),
        &result,
    );
    assert!(ok);
    let (ok, message) = verdict(&assertion(RESPONSE_DATA, 40, &["alpha"], vec![]), &result);
    assert!(!ok);
    assert_eq!(
        message.as_deref(),
        Some("Test failed: text expected something using /\n\n****** received  : alpha[[[ beta]]]\n\n****** comparison: alpha[[[     ]]]\n\n/\t")
    );
}

#[test]
fn or_without_patterns_fails_with_a_lone_tab() {
    let result = response("x", "200");
    let (ok, message) = verdict(&assertion(RESPONSE_DATA, 34, &[], vec![]), &result);
    assert!(!ok);
    assert_eq!(message.as_deref(), Some("\t"));
    let (ok, _) = verdict(&assertion(RESPONSE_DATA, 2, &[], vec![]), &result);
    assert!(ok);
}

#[test]
fn absent_test_type_means_contains() {
    let el = element(
        "ResponseAssertion",
        "Check",
        vec![
            str_prop("Assertion.test_field", RESPONSE_DATA),
            strings_prop("Asserion.test_strings", &["l+o"]),
        ],
    );
    let assertion = with_cx(&el, ResponseAssertion::build);
    let (ok, _) = verdict(&assertion, &response("Hello", "200"));
    assert!(ok);
    let (ok, message) = verdict(&assertion, &response("Help", "200"));
    assert!(!ok);
    assert_eq!(
        message.as_deref(),
        Some("Test failed: text expected to contain /l+o/")
    );
}

#[test]
fn zero_mask_is_a_match_with_the_generic_verb() {
    let (ok, message) = verdict(
        &assertion(RESPONSE_DATA, 0, &["Hel"], vec![]),
        &response("Hello", "200"),
    );
    assert!(!ok);
    assert_eq!(
        message.as_deref(),
        Some("Test failed: text expected something using /Hel/")
    );
}

#[test]
fn every_field_and_its_word() {
    let result = response("body", "200");
    let cases = [
        ("Assertion.response_data", "text", "body"),
        ("Assertion.response_data_as_document", "document", "body"),
        ("Assertion.response_code", "code", "200"),
        ("Assertion.response_message", "message", "OK"),
        (
            "Assertion.response_headers",
            "headers",
            "Content-Type: text/plain",
        ),
        (
            "Assertion.request_headers",
            "request headers",
            "Accept: \\*/\\*",
        ),
        ("Assertion.request_data", "request data", "GET http"),
        ("Assertion.sample_label", "URL", "example\\.test/a"),
        ("anything else", "URL", "example\\.test/a"),
    ];
    for (field, word, present) in cases {
        let (ok, _) = verdict(&assertion(field, 2, &[present], vec![]), &result);
        assert!(ok, "{field}");
        let (ok, message) = verdict(&assertion(field, 2, &["nowhere"], vec![]), &result);
        assert!(!ok);
        assert_eq!(
            message,
            Some(format!("Test failed: {word} expected to contain /nowhere/")),
            "{field}"
        );
    }
}

#[test]
fn empty_field_fails_as_null_unless_not() {
    let result = response("", "");
    let (ok, message) = verdict(&assertion(RESPONSE_CODE, 8, &["200"], vec![]), &result);
    assert!(!ok);
    assert_eq!(message.as_deref(), Some("Response was null"));
    let (ok, message) = verdict(&assertion(RESPONSE_DATA, 6, &["x"], vec![]), &result);
    assert!(ok);
    assert_eq!(message, None);
    // A missing URL is empty too.
    let mut no_url = response("x", "200");
    no_url.url = None;
    let (ok, message) = verdict(
        &assertion("Assertion.sample_label", 2, &["x"], vec![]),
        &no_url,
    );
    assert!(!ok);
    assert_eq!(message.as_deref(), Some("Response was null"));
}

#[test]
fn custom_message_replaces_generated_ones() {
    let extra = || vec![str_prop("Assertion.custom_message", "not what we wanted")];
    let result = response("abc", "200");
    let (_, message) = verdict(&assertion(RESPONSE_DATA, 2, &["x"], extra()), &result);
    assert_eq!(message.as_deref(), Some("not what we wanted"));
    let (_, message) = verdict(&assertion(RESPONSE_DATA, 34, &["x", "y"], extra()), &result);
    assert_eq!(message.as_deref(), Some("not what we wanted"));
    // Not for an empty field.
    let (_, message) = verdict(
        &assertion(RESPONSE_DATA, 2, &["x"], extra()),
        &response("", "200"),
    );
    assert_eq!(message.as_deref(), Some("Response was null"));
}

#[test]
fn ignore_status_clears_earlier_failure() {
    let extra = vec![bool_prop("Assertion.assume_success", true)];
    let mut result = response("", "404");
    result.set_success(false);
    run(&assertion(RESPONSE_CODE, 8, &["404"], extra), &mut result);
    assert!(result.success);
    assert_eq!(result.error_count, 0);
}

#[test]
fn without_ignore_status_a_failed_sample_stays_failed() {
    let mut result = response("", "404");
    result.set_success(false);
    run(&assertion(RESPONSE_CODE, 8, &["404"], vec![]), &mut result);
    assert!(!result.success);
    assert!(!result.assertions[0].failure);
}

#[test]
fn variable_scope_tests_the_variable() {
    let extra = || {
        vec![
            str_prop("Assertion.scope", "variable"),
            str_prop("Scope.variable", "token"),
        ]
    };
    let mut user = user();
    user.vars.put("token", "abc123");
    let mut result = response("unrelated", "200");
    run_as(
        &assertion(RESPONSE_DATA, 1, &["[a-z]+\\d+"], extra()),
        &mut result,
        &mut user,
    );
    assert!(result.success);
    let mut result = response("unrelated", "200");
    run_as(
        &assertion(RESPONSE_DATA, 2, &["xyz"], extra()),
        &mut result,
        &mut user,
    );
    assert_eq!(
        result.assertions[0].failure_message.as_deref(),
        Some("Test failed: variable(token) expected to contain /xyz/")
    );
    user.vars.remove("token");
    let mut result = response("unrelated", "200");
    run_as(
        &assertion(RESPONSE_DATA, 2, &["xyz"], extra()),
        &mut result,
        &mut user,
    );
    assert_eq!(
        result.assertions[0].failure_message.as_deref(),
        Some("Response was null")
    );
}

#[test]
fn bad_regex_is_an_error_result() {
    let el = element(
        "ResponseAssertion",
        "Check",
        vec![
            str_prop("Assertion.test_field", RESPONSE_DATA),
            int_prop("Assertion.test_type", 2),
            strings_prop("Asserion.test_strings", &["a("]),
        ],
    );
    let (assertion, diagnostics) = build_with_diagnostics(&el, ResponseAssertion::build);
    assert_eq!(diagnostics.len(), 1, "a bad regex is worth a warning");
    let mut result = response("abc", "200");
    run(&assertion, &mut result);
    let verdict = &result.assertions[0];
    assert!(verdict.error && !verdict.failure);
    assert_eq!(&*verdict.name, "Check");
    let message = verdict.failure_message.as_deref().unwrap_or("");
    assert!(
        message.starts_with(
            "Bad test configuration org.apache.oro.text.MalformedCachePatternException: Invalid expression: a(\n"
        ),
        "{message}"
    );
    assert!(!result.success);
}

#[test]
fn bad_regex_is_ignored_by_plain_text_kinds() {
    let (ok, _) = verdict(
        &assertion(RESPONSE_DATA, 16, &["a("], vec![]),
        &response("xa(y", "200"),
    );
    assert!(ok);
}

#[test]
fn body_is_decoded_with_its_encoding() {
    let mut result = response("", "200");
    result.response_data = vec![b'c', b'a', b'f', 0xE9];
    result.data_encoding = "ISO-8859-1".into();
    let (ok, _) = verdict(&assertion(RESPONSE_DATA, 16, &["café"], vec![]), &result);
    assert!(ok);
    result.data_encoding = "".into();
    result.response_data = "café".as_bytes().to_vec();
    let (ok, _) = verdict(&assertion(RESPONSE_DATA, 8, &["café"], vec![]), &result);
    assert!(ok);
}

#[test]
fn appends_one_result_per_assertion_and_keeps_earlier_ones() {
    let result = response("abc", "200");
    let mut judged = result.clone();
    run(&assertion(RESPONSE_DATA, 2, &["x"], vec![]), &mut judged);
    run(&assertion(RESPONSE_DATA, 2, &["a"], vec![]), &mut judged);
    assert_eq!(judged.assertions.len(), 2);
    assert!(judged.assertions[0].failure);
    assert!(!judged.assertions[1].failure);
    assert!(!judged.success, "a later pass does not undo a failure");
    assert_eq!(
        judged.first_failure_message(),
        "Test failed: text expected to contain /x/"
    );
}

/// A literal is searched in the undecoded body: the verdict must be that of the decoded
/// text for any body, valid UTF-8 or not, in UTF-8 or one byte per character.
#[test]
fn literal_search_in_the_body_agrees_with_its_decoded_text() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let alphabet: &[u8] = b"ab- \xe2\x82\xac\xff\xc3\xa9\x80";
    let patterns = [
        "a-b",
        "b",
        "\u{20ac}",
        "\u{e9}",
        "a\u{e9}",
        "\u{fffd}",
        "\u{fffd}a",
        " ",
        "\u{c3}",
    ];
    let contains: Vec<_> = patterns
        .iter()
        .map(|p| assertion(RESPONSE_DATA, 2, &[p], vec![]))
        .collect();
    let substring: Vec<_> = patterns
        .iter()
        .map(|p| assertion(RESPONSE_DATA, 16, &[p], vec![]))
        .collect();
    for round in 0..1500 {
        let mut result = response("", "200");
        let len = rng.gen_range(1..16);
        result.response_data = (0..len)
            .map(|_| alphabet[rng.gen_range(0..alphabet.len())])
            .collect();
        let latin1 = round % 3 == 0;
        let text: String = if latin1 {
            result.data_encoding = "ISO-8859-1".into();
            result
                .response_data
                .iter()
                .map(|&b| char::from(b))
                .collect()
        } else {
            String::from_utf8_lossy(&result.response_data).into_owned()
        };
        for (i, pattern) in patterns.iter().enumerate() {
            let expected = text.contains(pattern);
            for kind in [&contains[i], &substring[i]] {
                assert_eq!(
                    verdict(kind, &result).0,
                    expected,
                    "{pattern:?} in {:?} (latin1: {latin1})",
                    result.response_data
                );
            }
        }
    }
}

/// A pattern with a regex metacharacter stays a regex; without one it is found as is.
#[test]
fn contains_takes_special_characters_as_regex_and_others_as_text() {
    let result = response("price: 1+2 (net) item-144.", "200");
    let cases: &[(&str, bool)] = &[
        ("item-144", true),
        ("item-145", false),
        ("1+2", false),
        ("1\\+2", true),
        ("(net)", true),
        ("\\(net\\)", true),
        ("item.144", true),
        ("^price", true),
        ("^net", false),
        ("144\\.$", true),
    ];
    for (pattern, passes) in cases {
        let (ok, _) = verdict(&assertion(RESPONSE_DATA, 2, &[pattern], vec![]), &result);
        assert_eq!(ok, *passes, "{pattern}");
    }
}
