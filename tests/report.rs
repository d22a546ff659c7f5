//! The HTML dashboard: `-g` from JMeter's own conformance file, bad input, the `-o`
//! folder rules, merging files, and `-e` at the end of a run.

mod support;

use std::path::Path;

use support::{conformance, fixtures, jmxr};

fn batch(name: &str) -> String {
    conformance()
        .join("jmeter-batch")
        .join(name)
        .to_str()
        .expect("UTF-8 path")
        .to_string()
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn statistics_json_equals_jmeters_for_the_conformance_file() {
    let work = tempfile::tempdir().unwrap();
    let output = jmxr(
        work.path(),
        &["-g", &batch("HTMLReportTestFile.csv"), "-o", "report"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let expected =
        json(&conformance().join("jmeter-batch/dist-check-resources/HTMLReportExpect.json"));
    let actual = json(&work.path().join("report/statistics.json"));
    assert_eq!(actual, expected);
    for page in [
        "index.html",
        "content/pages/OverTime.html",
        "content/pages/Throughput.html",
        "content/pages/ResponseTimes.html",
        "content/js/charts.js",
        "content/js/report-data.js",
        "content/css/dashboard.css",
    ] {
        assert!(
            work.path().join("report").join(page).is_file(),
            "{page} missing"
        );
    }
}

#[test]
fn a_file_without_response_code_fails_and_leaves_the_folder_empty() {
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir(work.path().join("empty")).unwrap();
    for out in ["empty", "missing"] {
        let output = jmxr(
            work.path(),
            &["-g", &batch("HTMLReportFalseTestFile.csv"), "-o", out],
        );
        assert_eq!(output.status.code(), Some(1));
        assert!(
            stderr(&output).contains("Error while processing samples: Consumer failed with message :No column <responseCode>"),
            "{}",
            stderr(&output)
        );
    }
    assert_eq!(
        std::fs::read_dir(work.path().join("empty"))
            .unwrap()
            .count(),
        0
    );
    assert!(!work.path().join("missing").exists());
    let names: Vec<_> = std::fs::read_dir(work.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("empty")],
        "no temporary folder is left"
    );
}

#[test]
fn a_non_empty_output_folder_is_refused_unless_forced() {
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir(work.path().join("out")).unwrap();
    std::fs::write(work.path().join("out/old.txt"), "x").unwrap();
    let input = batch("HTMLReportTestFile.csv");
    let output = jmxr(work.path(), &["-g", &input, "-o", "out"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("as folder is not empty"),
        "{}",
        stderr(&output)
    );
    let output = jmxr(work.path(), &["-g", &input, "-o", "out", "-f"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!work.path().join("out/old.txt").exists());
    assert!(work.path().join("out/index.html").is_file());
}

#[test]
fn several_files_merge_into_one_report() {
    let work = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(batch("HTMLReportTestFile.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let (header, rows) = (lines[0], &lines[1..]);
    let half = rows.len() / 2;
    std::fs::write(
        work.path().join("a.jtl"),
        format!("{header}\n{}\n", rows[..half].join("\n")),
    )
    .unwrap();
    // The second machine's file has no header: the save properties describe it.
    std::fs::write(
        work.path().join("b.jtl"),
        format!("{}\n", rows[half..].join("\n")),
    )
    .unwrap();
    let output = jmxr(work.path(), &["-g", "a.jtl", "-g", "b.jtl", "-o", "merged"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let expected =
        json(&conformance().join("jmeter-batch/dist-check-resources/HTMLReportExpect.json"));
    assert_eq!(json(&work.path().join("merged/statistics.json")), expected);
}

#[test]
fn a_truncated_last_line_warns_and_the_report_uses_complete_rows() {
    let work = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(batch("HTMLReportTestFile.csv")).unwrap();
    std::fs::write(
        work.path().join("cut.jtl"),
        format!("{text}1551783687000,12,JR-O"),
    )
    .unwrap();
    let output = jmxr(work.path(), &["-g", "cut.jtl", "-o", "out"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("cut.jtl:257: incomplete last line ignored"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        json(&work.path().join("out/statistics.json"))["Total"]["sampleCount"],
        255
    );
}

#[test]
fn a_garbage_line_is_a_clear_error() {
    let work = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(batch("HTMLReportTestFile.csv")).unwrap();
    let (head, tail) = text.split_at(text.find('\n').unwrap() + 1);
    std::fs::write(
        work.path().join("bad.jtl"),
        format!("{head}<html>oops</html>\n{tail}"),
    )
    .unwrap();
    let output = jmxr(work.path(), &["-g", "bad.jtl", "-o", "out"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("bad.jtl:2: expected 17 fields"),
        "{}",
        stderr(&output)
    );
    assert!(!work.path().join("out").exists());
}

#[test]
fn a_run_with_e_writes_the_report_from_live_aggregates() {
    let work = tempfile::tempdir().unwrap();
    let plan = fixtures().join("report/debug_two_samplers.jmx");
    let plan = plan.to_str().unwrap();
    let output = jmxr(
        work.path(),
        &["-n", "-t", plan, "-l", "out.jtl", "-e", "-o", "live"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let live = json(&work.path().join("live/statistics.json"));
    assert_eq!(live["Total"]["sampleCount"], 100);
    assert_eq!(live["second"]["sampleCount"], 50);
    assert!(work.path().join("live/index.html").is_file());
    // The live aggregates equal what `-g` computes from the written file.
    let output = jmxr(work.path(), &["-g", "out.jtl", "-o", "again"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(live, json(&work.path().join("again/statistics.json")));
    // JMeter's rules: -e needs an empty -l file and an empty -o folder, unless -f.
    let output = jmxr(
        work.path(),
        &["-n", "-t", plan, "-l", "out.jtl", "-e", "-o", "other"],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("is not empty"),
        "{}",
        stderr(&output)
    );
    let output = jmxr(
        work.path(),
        &["-n", "-t", plan, "-l", "out.jtl", "-e", "-o", "live", "-f"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
}

#[test]
fn exact_percentiles_ignore_the_window_and_jmeters_window_is_kept_by_default() {
    let work = tempfile::tempdir().unwrap();
    let input = batch("HTMLReportTestFile.csv");
    let expected =
        json(&conformance().join("jmeter-batch/dist-check-resources/HTMLReportExpect.json"));
    let window = "-Jjmeter.reportgenerator.statistic_window=10";
    let output = jmxr(work.path(), &["-g", &input, "-o", "windowed", window]);
    assert!(output.status.success(), "{}", stderr(&output));
    let windowed = json(&work.path().join("windowed/statistics.json"));
    assert_ne!(
        windowed["Total"]["medianResTime"],
        expected["Total"]["medianResTime"]
    );
    let exact = "-Jjmxr.report.exact_percentiles=true";
    let output = jmxr(work.path(), &["-g", &input, "-o", "exact", window, exact]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(json(&work.path().join("exact/statistics.json")), expected);
}

#[test]
fn series_filter_and_controllers_only_choose_the_table_rows() {
    let work = tempfile::tempdir().unwrap();
    let input = batch("HTMLReportTestFile.csv");
    let filter = "-Jjmeter.reportgenerator.exporter.html.series_filter=^jr-ok$";
    let output = jmxr(work.path(), &["-g", &input, "-o", "filtered", filter]);
    assert!(output.status.success(), "{}", stderr(&output));
    let index = std::fs::read_to_string(work.path().join("filtered/index.html")).unwrap();
    let stats = &index[index.find("statisticsTable").unwrap()..];
    let stats = &stats[..stats.find("</table>").unwrap()];
    assert!(
        stats.contains(">JR-OK<") && !stats.contains(">JR-KO<"),
        "{stats}"
    );
    assert!(index.contains("Filter for display"));
    let only = "-Jjmeter.reportgenerator.exporter.html.show_controllers_only=true";
    let output = jmxr(work.path(), &["-g", &input, "-o", "controllers", only]);
    assert!(output.status.success(), "{}", stderr(&output));
    let index = std::fs::read_to_string(work.path().join("controllers/index.html")).unwrap();
    assert!(!index.contains(">JR-OK<"));
}

/// `-J` options configuring a custom graph of the `tokens` variable, 1 s buckets.
fn custom_graph_options() -> Vec<String> {
    let graph = "jmeter.reportgenerator.graph.custom_tokens";
    [
        format!(
            "{graph}.classname=org.apache.jmeter.report.processor.graph.impl.CustomGraphConsumer"
        ),
        format!("{graph}.title=Tokens per request"),
        format!("{graph}.property.set_Y_Axis=Tokens"),
        format!("{graph}.property.set_X_Axis=Over Time"),
        format!("{graph}.property.set_granularity=1000"),
        format!("{graph}.property.setSampleVariableName=tokens"),
        format!("{graph}.property.setContentMessage=Tokens : "),
        "sample_variables=tokens".to_string(),
    ]
    .iter()
    .map(|p| format!("-J{p}"))
    .collect()
}

/// Runs jmxr with the custom graph options and `args`; returns the report's graph data.
fn report_with_custom_graph(work: &Path, args: &[&str], report: &str) -> serde_json::Value {
    let mut all = custom_graph_options();
    all.extend(args.iter().map(|a| a.to_string()));
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    let output = jmxr(work, &all);
    assert!(output.status.success(), "{}", stderr(&output));
    let script = std::fs::read_to_string(work.join(report).join("content/js/report-data.js"))
        .expect("report data");
    serde_json::from_str(
        script
            .trim()
            .trim_start_matches("window.JMXR_REPORT = ")
            .trim_end_matches(';'),
    )
    .expect("report data is JSON")
}

/// JMeter 5's Custom Graphs: the mean of a `sample_variables` column per time bucket, on a
/// page of its own, configured by `jmeter.reportgenerator.graph.custom_*` properties.
#[test]
fn a_custom_graph_plots_the_mean_of_a_sample_variable_per_bucket() {
    let work = tempfile::tempdir().unwrap();
    let header = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,\
                  success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,\
                  IdleTime,Connect,\"tokens\"";
    let rows: Vec<String> = [
        ("1000", "10"),
        ("1500", "20"),
        ("2000", "null"),
        ("2100", ""),
    ]
    .iter()
    .chain(&[("2500", "7")])
    .map(|(t, tokens)| {
        format!("{t},0,req,200,OK,TG 1-1,text,true,,10,5,1,1,http://x/,0,0,0,{tokens}")
    })
    .collect();
    std::fs::write(
        work.path().join("vars.jtl"),
        format!("{header}\n{}\n", rows.join("\n")),
    )
    .unwrap();
    let data = report_with_custom_graph(work.path(), &["-g", "vars.jtl", "-o", "report"], "report");
    let custom = &data["graphs"]["custom_tokens"];
    assert_eq!(custom["title"], "Tokens per request");
    assert_eq!(custom["yLabel"], "Tokens");
    assert_eq!(custom["xLabel"], "Over Time");
    assert_eq!(custom["granularity"], 1000);
    assert_eq!(custom["contentMessage"], "Tokens : ");
    // Empty and `null` values are not samples of the variable.
    assert_eq!(
        custom["series"],
        serde_json::json!([{"label": "tokens", "data": [[1000.0, 15.0], [2000.0, 7.0]]}])
    );
    let page = std::fs::read_to_string(work.path().join("report/content/pages/CustomsGraphs.html"))
        .expect("custom graphs page");
    assert!(page.contains("data-graph=\"custom_tokens\""), "{page}");
    let index = std::fs::read_to_string(work.path().join("report/index.html")).unwrap();
    assert!(index.contains("content/pages/CustomsGraphs.html"));
}

#[test]
fn a_custom_graph_reads_live_sample_variables_as_the_jtl_file_does() {
    let work = tempfile::tempdir().unwrap();
    let plan = fixtures().join("report/debug_sample_variable.jmx");
    let plan = plan.to_str().unwrap();
    let live = report_with_custom_graph(
        work.path(),
        &["-n", "-t", plan, "-l", "out.jtl", "-e", "-o", "live"],
        "live",
    );
    let series = &live["graphs"]["custom_tokens"]["series"][0];
    assert_eq!(series["label"], "tokens");
    let points = series["data"].as_array().expect("points");
    assert!(!points.is_empty());
    assert!(points.iter().all(|p| p[1] == 42.0), "{points:?}");
    let again = report_with_custom_graph(work.path(), &["-g", "out.jtl", "-o", "again"], "again");
    assert_eq!(
        live["graphs"]["custom_tokens"],
        again["graphs"]["custom_tokens"]
    );
}

#[test]
fn a_jtl_with_a_timestamp_format_is_read_back_with_the_same_property() {
    let work = tempfile::tempdir().unwrap();
    let plan = fixtures().join("report/debug_two_samplers.jmx");
    let plan = plan.to_str().unwrap();
    let format = "-Jjmeter.save.saveservice.timestamp_format=yyyy-MM-dd'T'HH:mm:ss.SSS";
    let output = jmxr(
        work.path(),
        &[
            "-n", "-t", plan, "-l", "out.jtl", format, "-e", "-o", "live",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let jtl = std::fs::read_to_string(work.path().join("out.jtl")).unwrap();
    let first = jtl.lines().nth(1).unwrap_or_default();
    let stamp = first.split(',').next().unwrap_or_default();
    assert!(
        stamp.len() == 23 && stamp.as_bytes()[10] == b'T' && stamp.as_bytes()[19] == b'.',
        "the timestamp is written with the pattern: {first}"
    );
    let output = jmxr(work.path(), &["-g", "out.jtl", "-o", "again", format]);
    assert!(output.status.success(), "{}", stderr(&output));
    let again = json(&work.path().join("again/statistics.json"));
    assert_eq!(again["Total"]["sampleCount"], 100);
    // Millisecond timestamps read back exactly: the statistics equal the live ones.
    assert_eq!(again, json(&work.path().join("live/statistics.json")));
    // Without the property the timestamps are not numbers, as JMeter finds too.
    let output = jmxr(work.path(), &["-g", "out.jtl", "-o", "plain"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("out.jtl:2: timeStamp is not a time"),
        "{}",
        stderr(&output)
    );
}
