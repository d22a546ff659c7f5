//! JMeter's own batch tests, run the way JMeter's build runs them (see
//! `../shared/conformance/jmeter-batch/README.md`): the plan's listeners must write CSV
//! and XML files byte-identical to the expected ones after CRLF→LF.

mod support;

use support::batch::{self, batch_dir};

fn run_batch(test: &str, extra: &[&str]) {
    let plan = batch_dir().join(format!("{test}.jmx"));
    batch::run_batch(test, test, extra, |_| plan, |_| false);
}

#[test]
fn bug62239_break_and_continue_in_loops() {
    run_batch("Bug62239", &[]);
}

#[test]
fn bug_62847_loop_index_variables() {
    run_batch("BUG_62847", &[]);
}

#[test]
fn bug52968_transactions_and_start_next_loop() {
    run_batch("Bug52968", &[]);
}

#[test]
fn bug50898_include_controllers_with_the_same_name() {
    run_batch("Bug50898", &[]);
}

#[test]
fn bug55375_module_controller_named_like_its_target() {
    run_batch("Bug55375", &[]);
}

#[test]
fn bug54685_sample_variables_and_quoted_labels() {
    run_batch("Bug54685", &["-Jsample_variables=REFERENCE,JSESSIONID"]);
}

#[cfg(unix)]
#[test]
fn os_tests_os_process_sampler() {
    // The plan lists JMeter's home folder and expects a README.md there; the project's
    // root plays that part.
    let home = format!("-Jjmeter.home={}", env!("CARGO_MANIFEST_DIR"));
    run_batch("OS_TESTS", &[&home]);
}

#[test]
fn bug56243_beanshell_sampler_feeds_a_foreach_over_regex_matches() {
    run_batch("Bug56243", &[]);
}

#[test]
fn bug56811_beanshell_failures_inside_parent_transactions() {
    run_batch("Bug56811", &[]);
}

/// Result Status Action Handler under JSR223 steps; also JMeter's transaction count after
/// a child Loop Controller ends (the next sampler counts twice) and the loop index left
/// at the loop count when the last pass is cut by "start next iteration".
#[test]
fn test_result_status_action_with_jsr223_pre_processors_and_samplers() {
    run_batch("TestResultStatusAction", &[]);
}

#[test]
fn test_scheduler_with_timer_checked_by_a_jsr223_sampler() {
    run_batch("TestSchedulerWithTimer", &[]);
}

#[test]
fn batch_test_local_with_beanshell_bsf_and_jsr223_samplers() {
    // `__StringFromFile(testfiles/BatchTestLocal.txt)` reads from the working folder, as
    // JMeter's `bin/testfiles`; the CSV Data Set finds the same file beside the plan.
    let plan = batch_dir().join("BatchTestLocal.jmx");
    batch::run_batch(
        "BatchTestLocal",
        "BatchTestLocal",
        &[],
        |work| {
            let testfiles = work.join("testfiles");
            std::fs::create_dir_all(&testfiles).expect("testfiles folder");
            std::fs::copy(
                batch_dir().join("BatchTestLocal.txt"),
                testfiles.join("BatchTestLocal.txt"),
            )
            .expect("input copied");
            plan
        },
        |_| false,
    );
}
