//! Tests for the `.jtl` file sinks: headers, appends, filters, shared files.

use std::sync::Arc;

use super::*;
use crate::foundation::properties::Properties;
use crate::sample::SampleResult;

fn config(fields: &[&str]) -> SaveConfig {
    let fields: Vec<(String, String)> = fields
        .iter()
        .map(|f| (f.to_string(), "true".to_string()))
        .collect();
    SaveConfig::from_listener(&fields, &Properties::new()).unwrap()
}

fn event(label: &str, success: bool, listeners: &[usize]) -> SampleEvent {
    let mut result = SampleResult::new(Arc::from(label));
    result.set_success(success);
    SampleEvent {
        result: Arc::new(result),
        listeners: Arc::from(listeners),
    }
}

fn run(sink: &mut dyn Sink, events: &[SampleEvent]) {
    for e in events {
        sink.on_sample(e).unwrap();
    }
    sink.finish().unwrap();
}

fn collector(fields: &[&str]) -> Collector {
    Collector::all_samples(config(fields))
}

#[test]
fn csv_header_once_then_append_without_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/dir/out.csv");
    let fields = ["label", "success", "fieldNames"];
    let mut sink = JtlFileSink::open(&path, collector(&fields)).unwrap();
    run(&mut sink, &[event("a", true, &[])]);
    drop(sink);
    let mut sink = JtlFileSink::open(&path, collector(&fields)).unwrap();
    run(&mut sink, &[event("b", false, &[])]);
    drop(sink);
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "label,success\na,true\nb,false\n"
    );
}

#[test]
fn empty_existing_csv_gets_no_header() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.csv");
    fs::write(&path, "").unwrap();
    let mut sink = JtlFileSink::open(&path, collector(&["label", "fieldNames"])).unwrap();
    run(&mut sink, &[event("a", true, &[])]);
    drop(sink);
    assert_eq!(fs::read_to_string(&path).unwrap(), "a\n");
}

#[test]
fn errors_only_and_success_only_filters() {
    let mut errors = collector(&["label"]);
    errors.errors_only = true;
    let mut sink = JtlSink::new(Vec::new(), errors, true).unwrap();
    run(
        &mut sink,
        &[event("ok", true, &[]), event("ko", false, &[])],
    );
    assert_eq!(sink.get_ref().as_slice(), b"ko\n");

    let mut successes = collector(&["label"]);
    successes.success_only = true;
    let mut sink = JtlSink::new(Vec::new(), successes, true).unwrap();
    run(
        &mut sink,
        &[event("ok", true, &[]), event("ko", false, &[])],
    );
    assert_eq!(sink.get_ref().as_slice(), b"ok\n");
}

#[test]
fn in_plan_collector_sees_only_its_samples() {
    let mut c = collector(&["label"]);
    c.listener = Some(3);
    let mut sink = JtlSink::new(Vec::new(), c, true).unwrap();
    run(
        &mut sink,
        &[event("mine", true, &[1, 3]), event("other", true, &[1])],
    );
    assert_eq!(sink.get_ref().as_slice(), b"mine\n");
}

#[test]
fn ignored_samples_are_not_written() {
    let mut sink = JtlSink::new(Vec::new(), collector(&["label"]), true).unwrap();
    let mut ignored = event("x", true, &[]);
    Arc::make_mut(&mut ignored.result).ignore = true;
    run(&mut sink, &[ignored]);
    assert!(sink.get_ref().is_empty());
}

#[test]
fn xml_new_then_appended_after_the_cut_terminator() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.xml");
    let fields = ["label", "xml"];
    for label in ["a", "b"] {
        let mut sink = JtlFileSink::open(&path, collector(&fields)).unwrap();
        run(&mut sink, &[event(label, true, &[])]);
    }
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testResults version=\"1.2\">\n\
         <sample lb=\"a\"/>\n\n<sample lb=\"b\"/>\n\n</testResults>\n"
    );
}

#[test]
fn xml_file_without_terminator_is_started_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.xml");
    fs::write(
        &path,
        "something that is not a finished results file at all, long enough",
    )
    .unwrap();
    let mut sink = JtlFileSink::open(&path, collector(&["label", "xml"])).unwrap();
    run(&mut sink, &[event("a", true, &[])]);
    drop(sink);
    assert!(fs::read_to_string(&path)
        .unwrap()
        .starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testResults"));
}

#[test]
fn collectors_sharing_a_file_write_each_sample_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.csv");
    let mut first = collector(&["label", "fieldNames"]);
    first.errors_only = true;
    let second = collector(&["label", "success", "fieldNames"]);
    let mut files = JtlFiles::new();
    files.add(&path, first).unwrap();
    files.add(&dir.path().join("./shared.csv"), second).unwrap();
    let mut sinks = files.into_sinks();
    assert_eq!(sinks.len(), 1);
    run(
        &mut sinks[0],
        &[event("ok", true, &[]), event("ko", false, &[])],
    );
    drop(sinks);
    assert_eq!(fs::read_to_string(&path).unwrap(), "label\nok,true\nko\n");
}

#[test]
fn finish_twice_writes_one_footer() {
    let mut sink = JtlSink::new(Vec::new(), collector(&["xml"]), true).unwrap();
    sink.finish().unwrap();
    sink.finish().unwrap();
    let text = String::from_utf8(sink.get_ref().clone()).unwrap();
    assert_eq!(text.matches("</testResults>").count(), 1);
}

#[test]
fn the_closing_of_a_cut_xml_file_is_the_usual_end() {
    let mut end = String::new();
    write_xml_file_end(&mut end);
    assert_eq!(end.as_bytes(), XML_FILE_END);
}
