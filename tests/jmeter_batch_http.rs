//! JMeter's HTTP batch tests (see `../shared/conformance/jmeter-batch/README.md`), run
//! like `tests/jmeter_batch.rs`: the plan's listeners must write CSV and XML files
//! byte-identical to the expected ones after CRLF→LF.

mod support;

use support::batch::{self, batch_dir};

/// Lines of an expected file that a jmxr run cannot produce: the samples of the JSR223
/// steps that start and stop JMeter's own mirror server (the test starts jmxr's instead).
fn skipped_steps(line: &str) -> bool {
    line.starts_with("JSS_") || line.contains("lb=\"JSS_")
}

/// Starts jmxr's mirror server on 127.0.0.1:8081, where the plans expect JMeter's, once
/// for all tests of this file. If the port is taken, whatever holds it is used.
fn mirror_on_8081() {
    static STARTED: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    STARTED.get_or_init(|| {
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                let _ = ready_tx.send(());
                return;
            };
            runtime.block_on(async move {
                let bound = jmxr::samplers::http::mirror::spawn_local(8081).await;
                let _ = ready_tx.send(());
                if bound.is_ok() {
                    std::future::pending::<()>().await;
                }
            });
        });
        let _ = ready_rx.recv();
    });
}

fn run_batch(test: &str, stem: &str, extra: &[&str]) {
    let plan = batch_dir().join(format!("{test}.jmx"));
    batch::run_batch(test, stem, extra, |_| plan, skipped_steps);
}

/// Runs a batch test whose plan (and inputs) `prepare` lays out in the working folder.
fn run_batch_with(
    test: &str,
    stem: &str,
    extra: &[&str],
    prepare: impl FnOnce(&std::path::Path) -> std::path::PathBuf,
) {
    batch::run_batch(test, stem, extra, prepare, skipped_steps);
}

/// `file:` URLs with "Retrieve All Embedded Resources": the page, its stylesheet, its
/// images and an iframe with its own image, nested as JMeter nests them. The plan reads
/// `testfiles/...` relative to the working folder, JMeter's `bin`.
#[test]
fn html_parser_test_file_2_downloads_embedded_resources_of_file_urls() {
    run_batch_with(
        "HTMLParserTestFile_2",
        "HTMLParserTestFile_2",
        &[],
        |work| {
            std::os::unix::fs::symlink(batch_dir(), work.join("testfiles"))
                .expect("testfiles link");
            batch_dir().join("HTMLParserTestFile_2.jmx")
        },
    );
}

/// The plan targets localhost:8081 without starting a server; JMeter's expected files
/// hold whether or not anything answers there (the assertions read request headers), so
/// the test starts nothing and does not depend on that port.
#[test]
fn test_header_manager_merges_nested_managers() {
    run_batch("TestHeaderManager", "TestHeaderManager", &[]);
}

/// Managed cookies (user-defined, one secure) and cookies set by a Header Manager, with
/// both implementations; the https requests target a closed port and fail to connect.
#[test]
fn test_cookie_manager_against_the_built_in_mirror() {
    mirror_on_8081();
    run_batch(
        "TestCookieManager",
        "TestCookieManager",
        &["--skip-unsupported"],
    );
}

#[test]
fn test_header_manager_with_the_java_implementation() {
    run_batch(
        "TestHeaderManager",
        "TestHeaderManager",
        &["-Jjmeter.httpsampler=Java"],
    );
}

/// Stands in for www.example.org, which the gzip samplers of TEST_HTTP fetch: the same
/// page text, gzip-compressed when the request accepts it.
fn example_org_stand_in() -> u16 {
    use std::io::Write;
    let server = support::http_server::serve(|request| {
        let mut reply = support::http_server::Reply::ok("");
        let page = "<html><body><h1>Example Domain</h1></body></html>";
        if request
            .header("Accept-Encoding")
            .is_some_and(|v| v.contains("gzip"))
        {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            let _ = gz.write_all(page.as_bytes());
            reply.body = gz.finish().unwrap_or_default();
            reply = reply.header("Content-Encoding", "gzip");
        } else {
            reply.body = page.as_bytes().to_vec();
        }
        reply
    });
    server.port
}

/// TEST_HTTP with the built-in mirror on :8081 and a local stand-in for the internet
/// host of the gzip samplers (the plan is copied with that host rewritten), from the
/// working folder that holds `user.properties` for the upload samplers.
fn test_http(implementation: &str) {
    mirror_on_8081();
    let port = example_org_stand_in();
    let batch = batch_dir();
    let flag = format!("-Jjmeter.httpsampler={implementation}");
    run_batch_with(
        "TEST_HTTP",
        &format!("TEST_HTTP_{implementation}"),
        &["--skip-unsupported", &flag],
        |work| {
            let plan = std::fs::read_to_string(batch.join("TEST_HTTP.jmx")).expect("plan");
            let plan = plan.replace(
                "<stringProp name=\"HTTPSampler.domain\">www.example.org</stringProp>\n          <stringProp name=\"HTTPSampler.port\"></stringProp>",
                &format!(
                    "<stringProp name=\"HTTPSampler.domain\">127.0.0.1</stringProp>\n          <stringProp name=\"HTTPSampler.port\">{port}</stringProp>"
                ),
            );
            let path = work.join("TEST_HTTP.jmx");
            std::fs::write(&path, plan).expect("plan copy");
            std::fs::copy(
                batch.join("_working_dir_bin/user.properties"),
                work.join("user.properties"),
            )
            .expect("user.properties");
            path
        },
    );
}

#[test]
fn test_http_httpclient4_against_the_built_in_mirror() {
    test_http("HttpClient4");
}

#[test]
fn test_http_java_implementation_against_the_built_in_mirror() {
    test_http("Java");
}
