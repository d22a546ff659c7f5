//! Script elements end to end: JSR223 elements in Rhai and in Groovy (translated),
//! BeanShell elements, script functions, the sandbox's operation limit. Each plan under
//! `jmx-fixtures/scripts/` shows what its scripts did in the labels of a Debug Sampler
//! (`dbg ${var}...`) or in the sample columns. The BeanShell plan's rows were checked
//! against JMeter 2.13 (labels, codes, messages, success and bytes are the same).

mod support;

use support::run_fixture;

#[test]
fn rhai_bindings_reach_variables_properties_results_and_the_context() {
    let jtl = run_fixture("scripts/bindings_rhai.jmx", &[]);
    let labels = jtl.labels_of("Rhai 1-1");
    // `SampleResult.setIgnore()` keeps "rhai ignored" out of the results.
    assert_eq!(
        labels,
        [
            "rhai sampler",
            "rhai failing",
            "rhai throws",
            "dbg c=Hello World code=201 body=body:Hello World iter=1 seen=yes",
            "rhai sampler",
            "rhai failing",
            "rhai throws",
            "dbg c=Hello World code=201 body=body:Hello World iter=2 seen=yes",
        ]
    );
    let made = jtl.labelled("rhai sampler")[0];
    assert_eq!(jtl.get(made, "responseCode"), "201");
    // The post-processor appended "!" to the message the sampler set.
    assert_eq!(
        jtl.get(made, "responseMessage"),
        "by rhai sampler in Rhai #0!"
    );
    assert_eq!(jtl.get(made, "success"), "true");
    assert_eq!(jtl.int(made, "bytes"), "body:Hello World".len() as i64);
    let failing = jtl.labelled("rhai failing")[0];
    assert_eq!(jtl.get(failing, "responseCode"), "418");
    assert_eq!(jtl.get(failing, "success"), "false");
    assert_eq!(jtl.get(failing, "failureMessage"), "no World in Moon");
    let throws = jtl.labelled("rhai throws")[0];
    assert_eq!(jtl.get(throws, "responseCode"), "500");
    assert!(jtl.get(throws, "responseMessage").contains("boom"));
    assert_eq!(jtl.get(throws, "success"), "false");
}

#[test]
fn a_runaway_script_fails_its_sample_and_the_user_goes_on() {
    let jtl = run_fixture("scripts/runaway.jmx", &[]);
    assert_eq!(jtl.labels_of("Runaway 1-1"), ["runaway", "after"]);
    let runaway = jtl.one("runaway");
    assert_eq!(jtl.get(runaway, "responseCode"), "500");
    assert!(
        jtl.get(runaway, "responseMessage").contains("operations"),
        "{}",
        jtl.get(runaway, "responseMessage")
    );
    assert_eq!(jtl.get(runaway, "success"), "false");
}

#[test]
fn timer_listener_and_script_file_with_parameters() {
    let jtl = run_fixture("scripts/timer_listener_file.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Timed 1-1"),
        [
            "early",
            "late timer=ran",
            "dbg heard=2 last=late timer=ran p=one  two a1=two n=2 fn=params.rhai",
        ]
    );
    let (_, early_end) = jtl.span(jtl.one("early"));
    let (late_start, _) = jtl.span(jtl.one("late timer=ran"));
    let gap = late_start - early_end;
    assert!(
        (299..3000).contains(&gap),
        "the timer's 300 ms gave {gap} ms"
    );
}

#[test]
fn groovy_idioms_run_translated() {
    let jtl = run_fixture("scripts/groovy_idioms.jmx", &[]);
    let labels = jtl.labels_of("Groovy 1-1");
    // GString, parseInt, toInteger, for loop, closure, try/catch, currentTimeMillis,
    // UUID, props, prev, ctx, a post-processor, and the __groovy function (whose script
    // gets `\,` as a comma).
    assert_eq!(
        labels[3],
        "dbg Hi Ann!|42|42|10|2,4,6|yes|ok|36|set|200|0|DONE ANN|Ann!|4"
    );
    let groovy = jtl.one("groovy");
    assert_eq!(jtl.get(groovy, "success"), "true");
    assert!(jtl.int(groovy, "elapsed") >= 49, "Thread.sleep(50) slept");
    let not_found = jtl.one("groovy 404");
    assert_eq!(jtl.get(not_found, "success"), "false");
    assert_eq!(jtl.get(not_found, "failureMessage"), "code was 404");
}

/// The library idioms of the corpus scripts, translated from Groovy: a file written and
/// read back (in the working folder), `new Random()`, JsonSlurper/JsonOutput, `find` and
/// an `each` closure that updates an outer variable, `sampler.getName()`.
#[test]
fn groovy_library_idioms_run_translated() {
    let jtl = run_fixture("scripts/groovy_library.jmx", &[]);
    assert_eq!(
        jtl.labels_of("Library 1-1"),
        ["lib 2|rand-ok|Ann|2|{\"id\":7}|zzz|6|library"]
    );
}

#[test]
fn beanshell_elements_and_functions_as_jmeter_2_13_runs_them() {
    let jtl = run_fixture("scripts/beanshell.jmx", &[]);
    let rows: Vec<(String, String, String, String, i64)> = jtl
        .rows_of("BeanShell 1-1")
        .into_iter()
        .map(|row| {
            (
                jtl.get(row, "label").to_string(),
                jtl.get(row, "responseCode").to_string(),
                jtl.get(row, "responseMessage").to_string(),
                jtl.get(row, "success").to_string(),
                jtl.int(row, "bytes"),
            )
        })
        .collect();
    let expected = [
        ("bsh down", "503", "down for Ann", "false", 5),
        ("bsh ok", "200", "OK", "true", 4),
        // A last assignment is the script's value: "302" is the response data.
        ("bsh assert fails", "302", "OK", "false", 3),
    ];
    for (row, want) in rows.iter().zip(expected) {
        assert_eq!(
            (
                row.0.as_str(),
                row.1.as_str(),
                row.2.as_str(),
                row.3.as_str(),
                row.4
            ),
            want
        );
    }
    assert_eq!(rows[3].0, "dbg x=42 pre=Ann-pre len=4 js=AB bsh=42");
}

/// JMeter sets `JMeterThread.last_sample_ok` after every sample; a value a script wrote
/// in between is replaced even when the sample's outcome did not change.
#[test]
fn last_sample_ok_is_set_after_every_sample_over_what_a_script_wrote() {
    let jtl = run_fixture("scripts/last_sample_ok.jmx", &[]);
    assert_eq!(
        jtl.values("label"),
        [
            "first ok",
            "second ok",
            "seen overwritten, after the second true"
        ]
    );
}
