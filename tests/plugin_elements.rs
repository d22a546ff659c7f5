//! Third-party plugin elements, end to end: the JSON Schema Assertion, the jp@gc JSON to
//! XML Converter, Raw Data Source PreProcessor and Parameterized Controller.

mod support;

use support::{fixtures, jmxr, run_fixture, Jtl};

/// (success, failureMessage) of the only row with this label.
fn verdict<'a>(jtl: &'a Jtl, label: &str) -> (&'a str, &'a str) {
    let row = jtl.one(label);
    (jtl.get(row, "success"), jtl.get(row, "failureMessage"))
}

#[test]
fn json_schema_assertion_judges_responses_against_the_schema() {
    let jtl = run_fixture("plugins/json_schema_assertion.jmx", &[]);
    assert_eq!(verdict(&jtl, "valid"), ("true", ""));
    let (success, message) = verdict(&jtl, "violation");
    assert_eq!(success, "false");
    assert_eq!(
        message,
        "com.github.fge.jsonschema.core.report.ListProcessingReport: failure\n\
         --- BEGIN MESSAGES ---\n\
         error: object has missing required properties ([\"name\"])\n    \
         level: \"error\"\n    \
         schema: {\"loadingURI\":\"#\",\"pointer\":\"\"}\n    \
         instance: {\"pointer\":\"\"}\n    \
         domain: \"validation\"\n    \
         keyword: \"required\"\n    \
         required: [\"id\",\"name\"]\n    \
         missing: [\"name\"]\n\
         error: instance type (string) does not match any allowed primitive type (allowed: [\"integer\"])\n    \
         level: \"error\"\n    \
         schema: {\"loadingURI\":\"#\",\"pointer\":\"/properties/id\"}\n    \
         instance: {\"pointer\":\"/id\"}\n    \
         domain: \"validation\"\n    \
         keyword: \"type\"\n    \
         found: \"string\"\n    \
         expected: [\"integer\"]\n\
         ---  END MESSAGES  ---\n"
    );
    // An inline schema, its variables evaluated per sample.
    let (success, message) = verdict(&jtl, "inline-object");
    assert_eq!(success, "false");
    assert!(
        message.contains("instance type (array) does not match any allowed primitive type (allowed: [\"object\"])"),
        "{message}"
    );
    let (success, message) = verdict(&jtl, "not-json");
    assert_eq!(success, "false");
    assert!(
        message.starts_with("(responce) Unexpected character"),
        "{message}"
    );
    assert_eq!(
        verdict(&jtl, "no-schema-file"),
        (
            "false",
            "(schema) missing.schema.json (No such file or directory)"
        )
    );
}

#[test]
fn check_warns_of_a_missing_schema_file() {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("plugins/json_schema_assertion.jmx");
    let output = jmxr(work.path(), &["check", plan.to_str().expect("UTF-8 path")]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("JSON schema file \"missing.schema.json\" not found"),
        "{stdout}"
    );
    // The schema that is there draws no warning.
    assert!(
        !stdout.contains("json_schema_assertion.schema.json\" not found"),
        "{stdout}"
    );
}

#[test]
fn json_to_xml_converter_writes_json_lib_xml() {
    let jtl = run_fixture("plugins/json_to_xml_converter.jmx", &[]);
    // The Response Assertion compares the whole body, CRLFs included.
    assert_eq!(verdict(&jtl, "convert"), ("true", ""));
    let row = jtl.one("convert");
    assert_eq!(jtl.get(row, "dataType"), "text");
    // The XML feeds later elements.
    assert_eq!(jtl.labelled("xpath-x").len(), 1);
    // Not starting with { or [: json-lib's message is the response, the sample fails.
    assert_eq!(verdict(&jtl, "bad-input"), ("false", ""));
    assert_eq!(verdict(&jtl, "empty-input"), ("false", ""));
}

#[test]
fn raw_data_source_deals_out_chunks() {
    let jtl = run_fixture("plugins/raw_data_source.jmx", &[]);
    let rewinding = jtl.labels_of("Rewinding 1-1");
    assert_eq!(
        rewinding,
        ["text-hello", "text-abc", "text-hello", "text-abc"],
        "{rewinding:?}"
    );
    // Without rewind the user stops at the end of the file, before its sample.
    let stopping = jtl.labels_of("Stopping 2-1");
    assert_eq!(stopping, ["hex-68656c6c6f", "hex-616263"], "{stopping:?}");
}

#[test]
fn parameterized_controller_sets_variables_before_each_sampler() {
    let jtl = run_fixture("plugins/parameterized_controller.jmx", &[]);
    let labels = jtl.labels_of("Group 1-1");
    // Values are evaluated before any is set (b sees the old a), again before each
    // sampler (undoing the extractor's a), and once more when the controller ends.
    assert_eq!(
        labels,
        [
            "first-one-zero-x",
            "second-one-changed-x",
            "after-one-one-x"
        ],
        "{labels:?}"
    );
}

/// Serves `connections` raw exchanges on 127.0.0.1: reads a request up to its known end,
/// answers with an HTTP response and closes. Returns the port and the requests read.
fn raw_http_server(connections: usize) -> (u16, std::thread::JoinHandle<Vec<String>>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let serve = std::thread::spawn(move || {
        let mut requests = Vec::new();
        for _ in 0..connections {
            let (mut stream, _) = listener.accept().expect("accept");
            stream
                .set_read_timeout(Some(std::time::Duration::from_secs(10)))
                .expect("timeout");
            let mut request = Vec::new();
            let mut buffer = [0u8; 256];
            while !(request.ends_with(b"\r\n\r\n") || request.ends_with(b"file-part")) {
                match stream.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buffer[..n]),
                }
            }
            requests.push(String::from_utf8_lossy(&request).into_owned());
            stream
                .write_all(b"HTTP/1.1 201 Created\r\nX-A: 1\r\n\r\nbody1\r\nbody2")
                .expect("reply");
        }
        requests
    });
    (port, serve)
}

/// Accepts one connection and answers nothing until the client gives up.
fn silent_server() -> (u16, std::thread::JoinHandle<()>) {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let hold = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(10)))
            .expect("timeout");
        let mut buffer = [0u8; 64];
        while matches!(stream.read(&mut buffer), Ok(n) if n > 0) {}
    });
    (port, hold)
}

#[test]
fn http_raw_request_sends_bytes_and_parses_the_reply() {
    let (raw_port, served) = raw_http_server(2);
    let (silent_port, held) = silent_server();
    let closed_port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        probe.local_addr().expect("addr").port()
    };
    let jtl = run_fixture(
        "plugins/http_raw_request.jmx",
        &[
            &format!("-Jraw.port={raw_port}"),
            &format!("-Jsilent.port={silent_port}"),
            &format!("-Jclosed.port={closed_port}"),
        ],
    );
    let requests = served.join().expect("server");
    held.join().expect("silent server");
    assert_eq!(
        requests,
        ["GET /a HTTP/1.0\r\nHost: x\r\n\r\n", "PING\r\nfile-part"]
    );
    // Parsed: the status line's code and reason, the body's first CRLF-delimited piece.
    let row = jtl.one("parsed");
    assert_eq!(jtl.get(row, "responseCode"), "201");
    assert_eq!(jtl.get(row, "responseMessage"), "Created");
    assert_eq!(verdict(&jtl, "parsed"), ("true", ""));
    assert_eq!(jtl.int(row, "bytes"), 5);
    // Not parsed: code 200 and the whole reply.
    let row = jtl.one("unparsed");
    assert_eq!(jtl.get(row, "responseCode"), "200");
    assert_eq!(verdict(&jtl, "unparsed"), ("true", ""));
    assert_eq!(jtl.int(row, "bytes"), 44);
    let row = jtl.one("timeout");
    assert_eq!(jtl.get(row, "responseCode"), "500");
    assert_eq!(
        jtl.get(row, "responseMessage"),
        "java.net.SocketTimeoutException: Timeout exceeded while reading from socket"
    );
    assert!(jtl.int(row, "elapsed") >= 300);
    let row = jtl.one("refused");
    assert_eq!(jtl.get(row, "responseCode"), "500");
    assert_eq!(
        jtl.get(row, "responseMessage"),
        "java.net.ConnectException: Connection refused"
    );
}
