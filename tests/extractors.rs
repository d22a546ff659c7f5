//! Extractors end to end: a Java Request answers with a fixed body, code and message;
//! extractors below it fill variables that Debug Sampler labels (`${var}`) show in the
//! `.jtl` (reference §10).

mod support;

use support::run_fixture;

#[test]
fn regex_extractor_match_numbers_groups_defaults_and_fields() {
    let jtl = run_fixture("data/regex_extractor.jmx", &[]);
    let labels = jtl.labels_of("Regex 1-1");
    assert_eq!(labels[0], "page");
    // -1: every match, numbered, with groups.
    assert_eq!(labels[1], "all=3:11,22,33 g=22/1");
    // n: the n-th match through a template, with its groups.
    assert_eq!(labels[2], "second=y-22 g0=id=22\">y g=2");
    // No match: the default, or empty with "use empty default"; code and message
    // fields; lookaround; an empty match number is a random match; a variable as input.
    assert_eq!(
        labels[3],
        "missing=NOTFOUND empty=[] code=02 msg=Created look=22 var=3"
    );
    // 0: a random match.
    assert!(
        ["rnd=11", "rnd=22", "rnd=33"].contains(&labels[4].as_str()),
        "{}",
        labels[4]
    );
}

#[test]
fn foreach_walks_the_matches_of_a_regex_extractor() {
    // Bug 56243: a ForEach Controller over `ref_1..ref_n` of an extractor.
    let jtl = run_fixture("data/regex_extractor.jmx", &[]);
    let labels = jtl.labels_of("Regex 1-1");
    assert_eq!(labels[5..], ["item=11", "item=22", "item=33"]);
}

#[test]
fn boundary_extractor_all_nth_and_default() {
    let jtl = run_fixture("data/boundary_functions.jmx", &[]);
    assert_eq!(jtl.labels_of("Boundary 1-1"), ["cells", "b=2:ab b2=b bd=D"]);
}

#[test]
fn json_extractor_paths_match_numbers_defaults_and_concatenation() {
    // The default values end in `;`, which JMeter 5.6.3 reads as no extra value.
    let jtl = run_fixture("data/json_extractor.jmx", &[]);
    let labels = jtl.labels_of("Json 1-1");
    assert_eq!(labels[0], "api");
    assert_eq!(labels[1], "token=abc/123 name=ann second=2 count=3");
    assert_eq!(labels[2], "ids=3:1,2,3 all=1,2,3 ok=1,3");
    // No match: the default and a count of 0; a JSON null: the default.
    assert_eq!(labels[3], "missing=DEF/0 nul=NULLDEF");
    // Containers as compact JSON; a top-level object in Java HashMap key order.
    assert_eq!(labels[4], r#"roles=["admin","dev"]"#);
    assert_eq!(
        labels[5],
        r#"user={"name":"ann","id":7,"roles":["admin","dev"]}"#
    );
    assert_eq!(labels[6..], ["id=1", "id=2", "id=3"]);
}

#[test]
fn json_and_jmespath_assertion_outcomes_and_messages() {
    let jtl = run_fixture("data/json_extractor.jmx", &[]);
    let rows: Vec<(String, String, String)> = jtl
        .rows
        .iter()
        .filter(|row| jtl.get(row, "threadName") == "Assert 3-1")
        .map(|row| {
            (
                jtl.get(row, "label").to_string(),
                jtl.get(row, "success").to_string(),
                jtl.get(row, "failureMessage").to_string(),
            )
        })
        .collect();
    let expected = [
        ("exists", "true", ""),
        ("missing", "false", "No results for path: $['user']['nope']"),
        (
            "value",
            "false",
            "Value in json path '$.user.id' expected to be '8', but found '7'",
        ),
        ("regex", "true", ""),
        ("array", "true", ""),
        (
            "inverted",
            "false",
            "Failed that JSONPath $.empty not matches null",
        ),
        ("jmes-ok", "true", ""),
        (
            "jmes-missing",
            "false",
            "JMESPATH user.nope expected to exist",
        ),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(rows, expected);
}

#[test]
fn md5hex_assertion_and_data_functions() {
    let jtl = run_fixture("data/boundary_functions.jmx", &[]);
    let rows: Vec<(String, String, String)> = jtl
        .rows
        .iter()
        .filter(|row| jtl.get(row, "threadName") == "Functions 2-1")
        .map(|row| {
            (
                jtl.get(row, "label").to_string(),
                jtl.get(row, "success").to_string(),
                jtl.get(row, "failureMessage").to_string(),
            )
        })
        .collect();
    assert_eq!(rows.len(), 10);
    assert_eq!(
        rows[0].2,
        "Error asserting MD5 sum : got 2ed9bcd15872aebeb9a79de7b2479c12 but should have been e7ba5b6e9c1d9e2b1a5a0d2c5bde6e4b"
    );
    assert_eq!(rows[0].1, "false");
    // `__regexFunction` reads the previous sample's body.
    // `\,` in a function argument is a comma to the function: `{1,2}` in the pattern.
    assert_eq!(rows[1].0, "fn=a+b n=2 q=b");
    assert_eq!((rows[2].1.as_str(), rows[2].2.as_str()), ("true", ""));
    let sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    // jmeter-plugins' `__env` (an unset variable gives the default) and `__strLen`.
    let path_length = std::env::var("PATH").expect("tests run with a PATH").len();
    assert_eq!(
        rows[3].0,
        format!("b64=dXNlcjpwYXNz dec=user:pass sha={sha} env=none/{path_length} it=1")
    );
    assert!(rows[8].0.ends_with("it=2"), "{}", rows[8].0);
    // `__CSVRead` keeps a row until `next`; date functions read and write Java patterns.
    assert_eq!(rows[4].0, "csv=user-pass ts=01/01/2021 rd=2021-01-01");
    assert_eq!(rows[9].0, "csv=u1-p1 ts=01/01/2021 rd=2021-01-01");
}

#[test]
fn debug_post_processor_sub_result_and_extractor_scopes() {
    let jtl = run_fixture("data/regex_extractor.jmx", &[]);
    // The Debug PostProcessor adds a sub-result (renamed `dp-0`) listing the variables;
    // extractors after it read sub-samples only, the main sample only, or both in order.
    assert_eq!(
        jtl.labels_of("DebugPost 2-1"),
        [
            "dp",
            "dp-0",
            "child=JMeterVariables parent=none all=2:x,JMeterVariables"
        ]
    );
}

#[test]
fn jmespath_extractor_filters_projections_and_defaults() {
    let jtl = run_fixture("data/json_extractor.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Jmes 2-1"),
        [
            "api",
            "oks=2:1,3 second=2 none=NONE/0",
            r#"user={"name":"ann","id":7,"roles":["admin","dev"]}"#
        ]
    );
}

/// The jmeter-plugins JSON Path Extractor and Assertion as the plugin runs them: arrays
/// into numbered variables, decimals printed with a fraction digit, a variable as the
/// source, the default and a count of 0 for a missing path or an empty array; the
/// assertion compares printed text (a decimal as a number), passes a path without value
/// check on an empty array, and words its failures without the path.
#[test]
fn json_path_plugin_extractor_and_assertion() {
    let jtl = run_fixture("data/json_path_plugin.jmx", &[]);
    assert_eq!(
        jtl.labels_of("JsonPlugin 1-1"),
        [
            "api",
            r#"token=abc price=2.0 user={"name":"ann","id":7} ids=[1,2,3]/3:1,2,3"#,
            "nope=DEF/0 none=EMPTY/0 uname=ann unset=UNSET",
            "wrong",
        ]
    );
    let api = jtl.one("api");
    assert_eq!(
        jtl.get(api, "success"),
        "true",
        "every assertion on api passes"
    );
    let wrong = jtl.one("wrong");
    assert_eq!(jtl.get(wrong, "success"), "false");
    assert_eq!(
        jtl.get(wrong, "failureMessage"),
        "Value expected to be 'xyz', but found 'abc'"
    );
}
