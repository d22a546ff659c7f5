//! Tests for the XML writer: each rebuilds lines of JMeter's expected batch-test files.

use std::sync::Arc;

use super::*;
use crate::foundation::properties::Properties;

fn listener(fields: &[&str], props: &Properties) -> SaveConfig {
    let fields: Vec<(String, String)> = fields
        .iter()
        .map(|f| (f.to_string(), "true".to_string()))
        .collect();
    SaveConfig::from_listener(&fields, props).unwrap()
}

fn xml(config: &SaveConfig, sample: &SampleResult) -> String {
    let mut out = String::new();
    write_xml_sample(&mut out, config, sample, "host");
    out
}

fn sample(label: &str, code: &str, message: &str) -> SampleResult {
    let mut s = SampleResult::new(Arc::from(label));
    s.response_code = code.to_string().into();
    s.response_message = message.to_string().into();
    s.data_type = "text";
    s
}

#[test]
fn file_skeleton() {
    let config = listener(&["xml"], &Properties::new());
    let mut out = String::new();
    write_xml_file_start(&mut out, &config);
    write_xml_file_end(&mut out);
    assert_eq!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testResults version=\"1.2\">\n\n</testResults>\n"
    );
}

#[test]
fn empty_sample_bug62239() {
    let config = listener(
        &["success", "label", "code", "message", "dataType", "xml"],
        &Properties::new(),
    );
    let s = sample("LCDS-Before-${__jm__LC__idx}", "200", "OK");
    assert_eq!(
        xml(&config, &s),
        "<sample s=\"true\" lb=\"LCDS-Before-${__jm__LC__idx}\" rc=\"200\" rm=\"OK\" dt=\"text\"/>\n"
    );
}

#[test]
fn failed_transaction_with_response_data_on_error_bug52968() {
    let fields = [
        "success",
        "label",
        "code",
        "message",
        "dataType",
        "assertions",
        "subresults",
        "xml",
        "responseDataOnError",
        "threadCounts",
        "sampleCount",
    ];
    let config = listener(&fields, &Properties::new());
    let mut tc = sample(
        "TC-NOPARENT-FAILING0",
        "",
        "Number of samples in transaction : 1, number of failing samples : 1",
    );
    tc.data_type = "";
    tc.set_success(false);
    tc.grp_threads = 1;
    tc.all_threads = 1;
    assert_eq!(
        xml(&config, &tc),
        "<sample s=\"false\" lb=\"TC-NOPARENT-FAILING0\" rc=\"\" rm=\"Number of samples in transaction : 1, number of failing samples : 1\" dt=\"\" sc=\"1\" ec=\"1\" ng=\"1\" na=\"1\">\n  <responseData class=\"java.lang.String\">Non-TEXT response data, cannot record: ()</responseData>\n</sample>\n"
    );
    let mut ok = sample("TNP1-JR0-0", "200", "");
    ok.grp_threads = 1;
    ok.all_threads = 1;
    assert_eq!(
        xml(&config, &ok),
        "<sample s=\"true\" lb=\"TNP1-JR0-0\" rc=\"200\" rm=\"\" dt=\"text\" sc=\"1\" ec=\"0\" ng=\"1\" na=\"1\"/>\n"
    );
}

#[test]
fn assertion_results_os_tests() {
    let fields = [
        "success",
        "label",
        "code",
        "message",
        "threadName",
        "dataType",
        "assertions",
        "subresults",
        "xml",
        "threadCounts",
        "sampleCount",
    ];
    let config = listener(&fields, &Properties::new());
    let mut s = sample("OSPS-listEnv", "0", "OK");
    s.thread_name = Arc::from("Thread Group 1-1");
    s.grp_threads = 1;
    s.all_threads = 1;
    s.assertions.push(AssertionResult {
        name: Arc::from("RA"),
        ..AssertionResult::default()
    });
    assert_eq!(
        xml(&config, &s),
        "<sample s=\"true\" lb=\"OSPS-listEnv\" rc=\"0\" rm=\"OK\" tn=\"Thread Group 1-1\" dt=\"text\" sc=\"1\" ec=\"0\" ng=\"1\" na=\"1\">\n  <assertionResult>\n    <name>RA</name>\n    <failure>false</failure>\n    <error>false</error>\n  </assertionResult>\n</sample>\n"
    );
    s.assertions[0].failure = true;
    s.assertions[0].failure_message = Some("Test failed: <x> & 'y'".into());
    assert!(xml(&config, &s).contains(
        "    <failure>true</failure>\n    <error>false</error>\n    <failureMessage>Test failed: &lt;x&gt; &amp; &apos;y&apos;</failureMessage>\n  </assertionResult>\n"
    ));
}

#[test]
fn latency_and_bytes_bug50898() {
    let fields = [
        "latency",
        "success",
        "label",
        "code",
        "message",
        "threadName",
        "dataType",
        "assertions",
        "subresults",
        "xml",
        "bytes",
    ];
    let config = listener(&fields, &Properties::new());
    let mut s = sample("Java Request", "", "");
    s.thread_name = Arc::from("Thread Group 1-1");
    assert_eq!(
        xml(&config, &s),
        "<sample lt=\"0\" s=\"true\" lb=\"Java Request\" rc=\"\" rm=\"\" tn=\"Thread Group 1-1\" dt=\"text\" by=\"0\"/>\n"
    );
}

#[test]
fn sample_variable_attributes_bug54685() {
    let props = Properties::new();
    props.set("sample_variables", "REFERENCE,JSESSIONID,my_var");
    let fields = [
        "success",
        "label",
        "code",
        "message",
        "dataType",
        "assertions",
        "subresults",
        "xml",
        "bytes",
    ];
    let config = listener(&fields, &props);
    let mut s = sample("v", "", "");
    s.sample_variables = vec![Some("reference".into()), Some("jsessionId".into())];
    assert_eq!(
        xml(&config, &s),
        "<sample s=\"true\" lb=\"v\" rc=\"\" rm=\"\" dt=\"text\" by=\"0\" REFERENCE=\"reference\" JSESSIONID=\"jsessionId\" my__var=\"\"/>\n"
    );
}

#[test]
fn batch_test_local_text_children() {
    let fields = [
        "success",
        "label",
        "code",
        "message",
        "dataType",
        "assertions",
        "subresults",
        "responseData",
        "samplerData",
        "xml",
        "responseHeaders",
        "requestHeaders",
        "bytes",
        "url",
        "fileName",
        "threadCounts",
        "sampleCount",
    ];
    let config = listener(&fields, &Properties::new());
    let mut s = sample("Java 1 C1=1", "200", "OK");
    s.response_data = b"ResultData".to_vec();
    s.sampler_data = "SamplerData".into();
    s.grp_threads = 1;
    s.all_threads = 1;
    assert_eq!(
        xml(&config, &s),
        "<sample s=\"true\" lb=\"Java 1 C1=1\" rc=\"200\" rm=\"OK\" dt=\"text\" by=\"10\" sc=\"1\" ec=\"0\" ng=\"1\" na=\"1\">\n  <responseHeader class=\"java.lang.String\"></responseHeader>\n  <requestHeader class=\"java.lang.String\"></requestHeader>\n  <responseData class=\"java.lang.String\">ResultData</responseData>\n  <responseFile class=\"java.lang.String\"></responseFile>\n  <samplerData class=\"java.lang.String\">SamplerData</samplerData>\n</sample>\n"
    );
}

fn file_sample(label: &str, url: &str, bytes: i64, thread: &str, threads: i32) -> SampleResult {
    let mut s = sample(label, "200", "OK");
    s.is_http = true;
    s.data_encoding = "UTF-8".into();
    s.bytes_override = bytes;
    s.thread_name = Arc::from(thread);
    s.grp_threads = threads;
    s.all_threads = threads;
    s.http_method = "GET".into();
    s.url = Some(url.into());
    s
}

#[test]
fn nested_http_samples_html_parser_test_file_2() {
    let fields = [
        "success",
        "label",
        "code",
        "message",
        "threadName",
        "dataType",
        "encoding",
        "assertions",
        "subresults",
        "samplerData",
        "xml",
        "responseHeaders",
        "requestHeaders",
        "saveAssertionResultsFailureMessage",
        "bytes",
        "url",
        "fileName",
        "threadCounts",
        "sampleCount",
    ];
    let config = listener(&fields, &Properties::new());
    let page = "file:testfiles/HTMLParserTestFile_2_files/halfbanner.htm";
    let mut frame = file_sample(
        "file:testfiles/HTMLParserTestFile_2.html-2",
        page,
        0,
        "Thread Group 1-1",
        1,
    );
    frame
        .subresults
        .push(file_sample(&format!("{page}-0"), page, 398, "", 0));
    frame.bytes_override = 398;
    let expected = "<httpSample s=\"true\" lb=\"file:testfiles/HTMLParserTestFile_2.html-2\" rc=\"200\" rm=\"OK\" tn=\"Thread Group 1-1\" dt=\"text\" de=\"UTF-8\" by=\"398\" sc=\"1\" ec=\"0\" ng=\"1\" na=\"1\">
  <httpSample s=\"true\" lb=\"file:testfiles/HTMLParserTestFile_2_files/halfbanner.htm-0\" rc=\"200\" rm=\"OK\" tn=\"\" dt=\"text\" de=\"UTF-8\" by=\"398\" sc=\"1\" ec=\"0\" ng=\"0\" na=\"0\">
    <responseHeader class=\"java.lang.String\"></responseHeader>
    <requestHeader class=\"java.lang.String\"></requestHeader>
    <responseFile class=\"java.lang.String\"></responseFile>
    <cookies class=\"java.lang.String\"></cookies>
    <method class=\"java.lang.String\">GET</method>
    <queryString class=\"java.lang.String\"></queryString>
    <java.net.URL>file:testfiles/HTMLParserTestFile_2_files/halfbanner.htm</java.net.URL>
  </httpSample>
  <responseHeader class=\"java.lang.String\"></responseHeader>
  <requestHeader class=\"java.lang.String\"></requestHeader>
  <responseFile class=\"java.lang.String\"></responseFile>
  <cookies class=\"java.lang.String\"></cookies>
  <method class=\"java.lang.String\">GET</method>
  <queryString class=\"java.lang.String\"></queryString>
  <java.net.URL>file:testfiles/HTMLParserTestFile_2_files/halfbanner.htm</java.net.URL>
</httpSample>
";
    assert_eq!(xml(&config, &frame), expected);
}

#[test]
fn escaping_in_attributes_and_text() {
    let config = listener(&["label", "samplerData"], &Properties::new());
    let mut s = sample("a\"b\tc\nd\re<f>&'\u{1}", "", "");
    s.sampler_data = "SampleResult.setSampleLabel(\"x\");\n\tnext\r".into();
    assert_eq!(
        xml(&config, &s),
        "<sample lb=\"a&quot;b&#x9;c&#xa;d&#xd;e&lt;f&gt;&amp;&apos;&#x1;\">\n  <samplerData class=\"java.lang.String\">SampleResult.setSampleLabel(&quot;x&quot;);\n\tnext&#xd;</samplerData>\n</sample>\n"
    );
}

#[test]
fn name_coding_for_variable_attributes() {
    assert_eq!(encode_name("JSESSIONID"), "JSESSIONID");
    assert_eq!(encode_name("a_b$c"), "a__b_-c");
    assert_eq!(encode_name("1x y"), "_.0031x_.0020y");
}
