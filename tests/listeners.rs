//! Listeners that act on the virtual user: Save Responses to a file.

mod support;

use std::path::Path;

use support::http_server::{serve, Reply};
use support::run_fixture_in;

fn typed(body: &str, content_type: &str) -> Reply {
    let mut reply = Reply::ok(body);
    reply.headers = vec![("Content-Type".into(), content_type.into())];
    reply
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name} was not saved: {e}"))
}

/// Every sample and sub-sample gets its own numbered file with the subtype of its content
/// type as suffix, the variable names it (with the sub-sample's number appended), a
/// Transaction Controller's sample is skipped, and an "errors only" saver below one
/// sampler saves only its failed response, with its own numbering.
#[test]
fn save_responses_to_a_file_writes_each_response_and_names_it() {
    let server = serve(|request| match request.target.as_str() {
        "/page" => typed("<html>page</html>", "text/html;charset=UTF-8"),
        "/moved" => Reply::redirect("/final"),
        "/final" => Reply::ok("final text"),
        _ => typed(r#"{"n":1}"#, "application/json"),
    });
    let work = tempfile::tempdir().expect("scratch folder");
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture_in(
        work.path(),
        "listeners/save_responses.jmx",
        &[
            &port,
            "-Jsample_variables=saved,saved1,saved2,failed_file",
            "-Jjmeter.save.saveservice.filename=true",
        ],
    );
    // As in JMeter, a row's sample variables are taken before the listeners run, so
    // the variable Save Responses sets shows in the next row.
    let page = jtl.one("page");
    assert_eq!(jtl.get(page, "saved"), "null");
    assert_eq!(jtl.get(page, "Filename"), "saved/1_001.html");
    assert_eq!(read(work.path(), "saved/1_001.html"), "<html>page</html>");

    // The redirect's parent takes the next number, then its two sub-samples.
    let moved = jtl.one("moved");
    assert_eq!(jtl.get(moved, "Filename"), "saved/1_002.plain");
    assert_eq!(jtl.get(moved, "saved"), "saved/1_001.html");
    assert_eq!(jtl.get(moved, "saved1"), "null");
    assert_eq!(read(work.path(), "saved/1_002.plain"), "final text");
    assert_eq!(read(work.path(), "saved/1_003.plain"), "");
    assert_eq!(read(work.path(), "saved/1_004.plain"), "final text");

    let checked = jtl.one("checked");
    assert_eq!(jtl.get(checked, "success"), "false");
    assert_eq!(jtl.get(checked, "saved"), "saved/1_002.plain");
    assert_eq!(jtl.get(checked, "saved1"), "saved/1_003.plain");
    assert_eq!(jtl.get(checked, "saved2"), "saved/1_004.plain");
    assert_eq!(jtl.get(checked, "failed_file"), "null");
    // JMeter tells the innermost listeners first: the "errors only" saver under the
    // sampler, then the plan's, whose file name the row keeps.
    assert_eq!(jtl.get(checked, "Filename"), "saved/1_005.json");
    assert_eq!(read(work.path(), "errors/failed_1"), r#"{"n":1}"#);

    // The transaction's own sample is not saved, and nothing else was written.
    assert_eq!(jtl.get(jtl.one("checkout"), "Filename"), "");
    let mut saved: Vec<String> = std::fs::read_dir(work.path().join("saved"))
        .expect("saved folder")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    saved.sort();
    assert_eq!(
        saved,
        [
            "1_001.html",
            "1_002.plain",
            "1_003.plain",
            "1_004.plain",
            "1_005.json"
        ]
    );
}

/// The Flexible File Writer writes what its `columns` say for each sample in its scope:
/// fields by the plugin's names, `variable#N` from `sample_variables` (undefined beyond
/// them), escapes, each empty piece as a bar, unknown text as it stands; header and footer around
/// the records; an overwriting file starts afresh, an appending one keeps what it had.
#[test]
fn flexible_file_writer_writes_the_plugins_columns() {
    let server = serve(|request| match request.target.as_str() {
        "/ok" => Reply::ok("hello"),
        _ => {
            let mut reply = Reply::ok("nope");
            reply.status = 404;
            reply.reason = "Not Found";
            reply
        }
    });
    let work = tempfile::tempdir().expect("scratch folder");
    std::fs::write(work.path().join("ffw_all.txt"), "stale\n").expect("old file");
    std::fs::write(work.path().join("ffw_one.txt"), "kept\n").expect("old file");
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture_in(
        work.path(),
        "listeners/flexible_file_writer.jmx",
        &[&port, "-Jsample_variables=who", "-Jone_file=ffw_one.txt"],
    );
    let url = |path: &str| format!("http://127.0.0.1:{}{path}", server.port);
    assert_eq!(
        read(work.path(), "ffw_all.txt"),
        format!(
            "label\tcode\r\n\
             ok\t200\t1\t0\talice\tUNDEFINED_variable#5\t5\t5\t{}||variable#x\r\n\
             missing\t404\t0\t1\talice\tUNDEFINED_variable#5\t4\t4\t{}||variable#x\r\n\
             end\n",
            url("/ok"),
            url("/missing")
        )
    );
    let start = jtl.int(jtl.one("ok"), "timeStamp");
    assert_eq!(
        read(work.path(), "ffw_one.txt"),
        format!("kept\n{}.{:03},hello\n", start / 1000, start % 1000)
    );
}
