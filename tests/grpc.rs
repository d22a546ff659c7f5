//! The GRPC Request sampler (zalopay-oss/jmeter-grpc-request's TestBean) end to end
//! against the in-process gRPC server of `support::grpc_server`, which serves
//! `jmx-fixtures/grpc/protos/bookstore.proto` (its messages imported from the fixture's
//! lib folder) in plaintext and over TLS with the self-signed test certificate.
//!
//! Expected texts follow the plugin: `200` / `Success` with the answer printed by
//! protobuf-java's `JsonFormat`, `500` / `Exception: io.grpc.StatusRuntimeException: …`
//! with `Caught exception while waiting for rpc` for a failed call, and no sample (an
//! error in the log) for a request it cannot build. The plugin's later class,
//! `vn.zalopay.benchmark.GRPCSampler` (`jmx-fixtures/grpc/grpc_sampler.jmx`), reports as
//! that class does.

mod support;

use std::time::Duration;

use support::grpc_server::{self, Answer, Call};
use support::protowire::{fields, varint_of, Encoder, Wire};
use support::services::free_port;
use support::xml_jtl::{self, Sample};
use support::{fixtures, jmxr};

const CALL_FAILED: &str = "Caught exception while waiting for rpc";

fn shelf(id: u64, theme: &str, tags: &[&str]) -> Vec<u8> {
    let mut shelf = Encoder::default().varint(1, id);
    if !theme.is_empty() {
        shelf = shelf.bytes(2, theme.as_bytes());
    }
    for tag in tags {
        shelf = shelf.bytes(3, tag.as_bytes());
    }
    shelf.0
}

/// The Bookstore service: CreateShelf wants the `x-token` metadata and echoes the
/// shelf; GetShelf answers NOT_FOUND for 404 and takes two seconds for 1000.
fn bookstore(call: &Call) -> Answer {
    match call.path.as_str() {
        "/bookstore.Bookstore/ListShelves" => Answer::ok(
            Encoder::default()
                .bytes(1, &shelf(1, "Fiction", &[]))
                .bytes(1, &shelf(2, "", &["x"]))
                .0,
        ),
        "/bookstore.Bookstore/CreateShelf" => {
            if call.header("x-token") != Some("secret") {
                return Answer::status(16, "missing x-token");
            }
            match fields(&call.message).get(&1).map(Vec::as_slice) {
                Some([Wire::Bytes(shelf)]) => Answer::ok(shelf.clone()),
                _ => Answer::status(3, "no shelf"),
            }
        }
        "/bookstore.Bookstore/GetShelf" => match varint_of(&fields(&call.message), 1) {
            404 => Answer::status(5, "shelf 404 is gone (ü)"),
            1000 => Answer {
                delay: Duration::from_secs(2),
                ..Answer::ok(shelf(1000, "Late", &[]))
            },
            id => Answer::ok(shelf(id, "Found", &[])),
        },
        _ => Answer::status(12, "unknown method"),
    }
}

fn all<'s>(samples: &'s [Sample], label: &str) -> Vec<&'s Sample> {
    samples.iter().filter(|s| s.label == label).collect()
}

fn assert_failed(samples: &[Sample], label: &str, message: &str) {
    let rows = all(samples, label);
    assert_eq!(rows.len(), 2, "{label}: one per iteration");
    for sample in rows {
        assert_eq!(
            (sample.code.as_str(), sample.success, sample.data.as_str()),
            ("500", false, CALL_FAILED),
            "{label}: {sample:#?}"
        );
        assert_eq!(sample.message, message, "{label}");
        assert_eq!(sample.bytes, CALL_FAILED.len() as i64, "{label}");
    }
}

#[test]
fn grpc_request_calls_unary_methods_and_reports_as_the_plugin_does() {
    let server = grpc_server::serve(bookstore);
    let work = tempfile::tempdir().expect("scratch folder");
    let samples = xml_jtl::run_in(
        work.path(),
        "grpc/bookstore.jmx",
        &[
            ("grpc_port", server.port.to_string()),
            ("grpc_tls_port", server.tls_port.to_string()),
            ("grpc_closed_port", free_port().to_string()),
        ],
        &["-j", "run.log"],
    );
    let calls = server.calls();

    // Success: the answer as protobuf-java's JsonFormat prints it (64-bit integers
    // quoted, default values left out, lists on one line).
    let list_text = "{\n  \"shelves\": [{\n    \"id\": \"1\",\n    \"theme\": \"Fiction\"\n  }, \
                     {\n    \"id\": \"2\",\n    \"tags\": [\"x\"]\n  }]\n}";
    let lists = all(&samples, "list");
    assert_eq!(lists.len(), 2);
    for list in &lists {
        assert_eq!(
            (list.code.as_str(), list.message.as_str(), list.success),
            ("200", "Success", true)
        );
        assert_eq!(list.data, list_text);
        assert_eq!(list.bytes, list_text.len() as i64);
        assert_eq!((list.sent, list.latency, list.connect), (0, 0, 0));
        assert_eq!(list.data_type, "text");
        assert_eq!(list.sampler_data, "{\n}", "the request, printed");
    }

    // Variables in the request and the metadata; Gson's escaping of `<` and `>`.
    let create = xml_jtl::get(&samples, "create");
    assert_eq!(
        (create.code.as_str(), create.success),
        ("200", true),
        "{create:#?}"
    );
    assert_eq!(
        create.sampler_data,
        "{\n  \"shelf\": {\n    \"id\": \"1599156420811\",\n    \"theme\": \"Hello \\u003c1\\u003e\",\n    \
         \"tags\": [\"a\", \"b\"]\n  }\n}"
    );
    assert_eq!(
        create.data,
        "{\n  \"id\": \"1599156420811\",\n  \"theme\": \"Hello \\u003c1\\u003e\",\n  \
         \"tags\": [\"a\", \"b\"]\n}"
    );
    let created: Vec<&Call> = calls
        .iter()
        .filter(|c| c.header("x-token").is_some())
        .collect();
    assert_eq!(created.len(), 2);
    let first = created[0];
    assert_eq!(first.path, "/bookstore.Bookstore/CreateShelf");
    assert_eq!(
        first.header("x-user"),
        Some("user-1"),
        "names are lower-cased"
    );
    assert_eq!(first.header("content-type"), Some("application/grpc"));
    assert_eq!(first.header("te"), Some("trailers"));
    assert_eq!(first.header("grpc-timeout"), Some("5000m"));

    // One channel per user and element, kept between iterations.
    assert_eq!(created[0].connection, created[1].connection);
    let list_connections: Vec<usize> = calls
        .iter()
        .filter(|c| c.path.ends_with("/ListShelves"))
        .map(|c| c.connection)
        .collect();
    assert_eq!(list_connections.len(), 4, "plain and TLS, two each");
    assert_eq!(list_connections[0], list_connections[2]);
    assert_ne!(list_connections[0], created[0].connection);

    // The server's statuses, their messages percent-decoded.
    assert_failed(
        &samples,
        "create without token",
        "Exception: io.grpc.StatusRuntimeException: UNAUTHENTICATED: missing x-token",
    );
    assert_failed(
        &samples,
        "missing shelf",
        "Exception: io.grpc.StatusRuntimeException: NOT_FOUND: shelf 404 is gone (ü)",
    );

    // The deadline: 200 ms, sent as grpc-timeout and kept on the client.
    let slow_rows = all(&samples, "slow");
    assert_eq!(slow_rows.len(), 2);
    for slow in slow_rows {
        assert!(
            slow.message.starts_with(
                "Exception: io.grpc.StatusRuntimeException: DEADLINE_EXCEEDED: \
                 deadline exceeded after 0.200000000s."
            ),
            "{slow:#?}"
        );
        assert!(!slow.success);
        assert!(
            (200..1500).contains(&slow.elapsed),
            "timed to the deadline, not the server's 2 s: {}",
            slow.elapsed
        );
    }
    assert!(calls
        .iter()
        .any(|c| c.path.ends_with("/GetShelf") && c.header("grpc-timeout") == Some("200m")));

    // A request file: its first message is sent.
    let from_file = xml_jtl::get(&samples, "from file");
    assert_eq!(
        from_file.data, "{\n  \"id\": \"7\",\n  \"theme\": \"Found\"\n}",
        "{from_file:#?}"
    );

    // A proto folder named by a variable: compiled at the user's first sample.
    let deferred_rows = all(&samples, "folder from a variable");
    assert_eq!(deferred_rows.len(), 2);
    for deferred in deferred_rows {
        assert_eq!(
            (deferred.code.as_str(), deferred.data.as_str()),
            ("200", "{\n  \"id\": \"9\",\n  \"theme\": \"Found\"\n}"),
            "{deferred:#?}"
        );
    }

    // Request JSON that does not fit the message: no sample, an error in the log.
    assert!(all(&samples, "bad json").is_empty());
    let log = std::fs::read_to_string(work.path().join("run.log")).expect("run log");
    assert!(
        log.contains("Error while processing sampler: 'bad json'") && log.contains("no_such_field"),
        "{log}"
    );

    // TLS: with verification off any certificate is taken; the plugin's default checks
    // it, and the self-signed test certificate fails as an unavailable channel.
    let tls_rows = all(&samples, "tls trusting any");
    assert_eq!(tls_rows.len(), 2);
    for tls in tls_rows {
        assert_eq!((tls.code.as_str(), tls.success), ("200", true), "{tls:#?}");
        assert_eq!(tls.data, list_text);
    }
    let unavailable = "Exception: io.grpc.StatusRuntimeException: UNAVAILABLE: io exception";
    assert_failed(&samples, "tls verified", unavailable);
    assert_failed(&samples, "refused", unavailable);
    assert_eq!(samples.len(), 20, "ten samples per iteration");
}

#[test]
fn check_names_unknown_methods_bad_json_and_missing_folders() {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = fixtures().join("grpc/invalid.jmx");
    let output = jmxr(work.path(), &["check", plan.to_str().expect("UTF-8")]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    for (element, problem) in [
        (
            "unknown service",
            "fullMethod \"bookstore.Library/ListShelves\": no service bookstore.Library",
        ),
        (
            "unknown method",
            "service bookstore.Bookstore has no method BurnShelves",
        ),
        ("streaming", "is a streaming method"),
        ("malformed json", "requestJson: EOF while parsing"),
        ("no package", "is not of the form package.Service/Method"),
        (
            "missing folder",
            "protoFolder no_such_protos does not exist or is not a folder",
        ),
    ] {
        let line = stdout
            .lines()
            .find(|l| l.contains(&format!("› {element} [vn.zalopay")) && l.contains("error:"))
            .unwrap_or_else(|| panic!("no error for {element}:\n{stdout}"));
        assert!(line.contains(problem), "{line}");
    }
    assert!(stdout.contains("6 errors"), "{stdout}");
}

/// The plugin's own sample plan names folders on its author's machine: check says so,
/// naming the element and the folder, and nothing else.
#[test]
fn the_plugin_sample_plan_fails_check_only_for_its_missing_proto_folder() {
    let plan = support::conformance()
        .join("real-world/zalopay-oss__jmeter-grpc-request__BookService_2.jmx");
    let work = tempfile::tempdir().expect("scratch folder");
    let output = jmxr(work.path(), &["check", plan.to_str().expect("UTF-8")]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    let errors: Vec<&str> = stdout.lines().filter(|l| l.contains("error:")).collect();
    assert_eq!(errors.len(), 2, "{stdout}");
    for (error, element) in errors.iter().zip(["ListShelves", "CreateShelf"]) {
        assert!(
            error.contains("protoFolder /Users/lap13227/")
                && error.contains("does not exist or is not a folder")
                && error.contains(&format!("bookstore/{element} [vn.zalopay")),
            "{error}"
        );
    }
    assert!(stdout.contains("0 unsupported"), "{stdout}");
}

/// The plugin's later sampler (`vn.zalopay.benchmark.GRPCSampler`): the same calls with
/// its own property names and results — `200` / ` success` with proto field names and
/// default values, ` 500` / ` <number> <CODE>` with the status description as data,
/// ` 400` for a request it cannot build — JSON or URL-encoded metadata, unknown request
/// fields ignored, and its channel shut down for good after a failed call.
#[test]
fn grpc_sampler_reports_as_the_later_plugin_class_does() {
    let server = grpc_server::serve(bookstore);
    let work = tempfile::tempdir().expect("scratch folder");
    let samples = xml_jtl::run_in(
        work.path(),
        "grpc/grpc_sampler.jmx",
        &[
            ("grpc_port", server.port.to_string()),
            ("grpc_tls_port", server.tls_port.to_string()),
        ],
        &["-j", "run.log"],
    );
    let calls = server.calls();
    let log = std::fs::read_to_string(work.path().join("run.log")).expect("run log");

    // Success: proto field names, default values included (empty lists, empty strings).
    let list_text = "{\n  \"shelves\": [{\n    \"id\": \"1\",\n    \"theme\": \"Fiction\",\n    \
                     \"tags\": []\n  }, {\n    \"id\": \"2\",\n    \"theme\": \"\",\n    \
                     \"tags\": [\"x\"]\n  }]\n}";
    let lists = all(&samples, "list");
    assert_eq!(lists.len(), 2);
    for list in &lists {
        assert_eq!(
            (list.code.as_str(), list.message.as_str(), list.success),
            ("200", " success", true),
            "{list:#?}"
        );
        assert_eq!(list.data, list_text);
        assert_eq!(list.data_type, "text");
        assert_eq!(list.sampler_data, "{\n}");
        assert_eq!(list.request_headers, "");
    }

    // JSON metadata; the request printed with its default values; unknown fields ignored.
    let created = all(&samples, "create json metadata");
    assert_eq!(created.len(), 2);
    for create in &created {
        assert_eq!(
            (create.code.as_str(), create.success),
            ("200", true),
            "{create:#?}"
        );
        assert_eq!(
            create.sampler_data,
            "{\n  \"shelf\": {\n    \"id\": \"5\",\n    \"theme\": \"a b\",\n    \"tags\": []\n  }\n}"
        );
        assert_eq!(create.request_headers, "x-token: secret\nX-User: user-1");
        assert_eq!(
            create.data,
            "{\n  \"id\": \"5\",\n  \"theme\": \"a b\",\n  \"tags\": []\n}"
        );
    }
    let json_calls: Vec<&Call> = calls
        .iter()
        .filter(|c| c.header("x-user") == Some("user-1"))
        .collect();
    assert_eq!(json_calls.len(), 2, "metadata sent, names lower-cased");
    assert_eq!(json_calls[0].header("grpc-timeout"), Some("5000m"));

    // key:value metadata, values URL-decoded.
    let url = all(&samples, "create url metadata");
    assert_eq!(url.len(), 2);
    assert!(url.iter().all(|s| s.code == "200"), "{url:#?}");
    assert!(calls
        .iter()
        .any(|c| c.header("x-user") == Some("a b:c") && c.header("x-token") == Some("secret")));

    // A status from the server, then the channel is shut down: the next call of the
    // element fails at once without reaching the server.
    let shut = (" 14 UNAVAILABLE", "Channel shutdown invoked");
    let missing = all(&samples, "missing shelf");
    assert_eq!(missing.len(), 2);
    assert_eq!(
        (
            missing[0].code.as_str(),
            missing[0].message.as_str(),
            missing[0].data.as_str(),
            missing[0].success
        ),
        (" 500", " 5 NOT_FOUND", "shelf 404 is gone (ü)", false)
    );
    assert_eq!(
        (
            missing[1].code.as_str(),
            missing[1].message.as_str(),
            missing[1].data.as_str()
        ),
        (" 500", shut.0, shut.1)
    );
    let reached = |shelf: u64| {
        calls
            .iter()
            .filter(|c| c.path.ends_with("/GetShelf") && varint_of(&fields(&c.message), 1) == shelf)
            .count()
    };
    assert_eq!(reached(404), 1, "the shut-down channel makes no call");

    // The deadline: kept on the client and sent as grpc-timeout.
    let slow = all(&samples, "slow");
    assert_eq!(slow.len(), 2);
    assert_eq!(
        (slow[0].code.as_str(), slow[0].message.as_str()),
        (" 500", " 4 DEADLINE_EXCEEDED")
    );
    assert!(
        slow[0]
            .data
            .starts_with("deadline exceeded after 0.200000000s."),
        "{:#?}",
        slow[0]
    );
    assert!(
        (200..1500).contains(&slow[0].elapsed),
        "{}",
        slow[0].elapsed
    );
    assert_eq!(slow[1].data, shut.1);
    assert!(slow[1].elapsed < 200, "no call: {}", slow[1].elapsed);
    assert_eq!(reached(1000), 1);
    assert!(calls
        .iter()
        .any(|c| c.path.ends_with("/GetShelf") && c.header("grpc-timeout") == Some("200m")));

    // A request that does not fit: ` 400` with the plugin's message and exception.
    let bad_json = all(&samples, "bad json");
    assert_eq!(bad_json.len(), 2);
    for bad in &bad_json {
        assert_eq!((bad.code.as_str(), bad.success), (" 400", false));
        assert_eq!(
            bad.message,
            " GRPCSampler parsing exception: An unknown exception occurred before the GRPC \
             request was initiated, See response body for the stack trace."
        );
        assert_eq!(
            bad.data,
            "java.lang.RuntimeException: Caught exception while parsing request for rpc\n"
        );
        assert_eq!(bad.elapsed, 0);
    }
    let unknown = all(&samples, "unknown method");
    assert_eq!(unknown.len(), 2);
    assert!(
        unknown
            .iter()
            .all(|s| s.code == " 400" && s.data.contains("NoSuchMethod")),
        "{unknown:#?}"
    );

    // What the plugin throws out of its sampler records nothing: a metadata key grpc-java
    // refuses (the status has no description; the channel is shut down all the same, so
    // the second iteration records that) and a deadline that is not a number.
    let bad_key = all(&samples, "bad metadata key");
    assert_eq!(bad_key.len(), 1, "{bad_key:#?}");
    assert_eq!(
        (bad_key[0].message.as_str(), bad_key[0].data.as_str()),
        shut
    );
    assert!(all(&samples, "deadline not a number").is_empty());
    assert!(
        log.contains("Error while processing sampler: 'bad metadata key'")
            && log.contains(
                "Error while processing sampler: 'deadline not a number'. \
                 java.lang.RuntimeException: Caught exception while parsing deadline to long"
            ),
        "{log}"
    );
    assert_eq!(reached(1), 0, "neither reached the server");

    // maxInboundMessageSize.
    let tiny = all(&samples, "tiny inbound limit");
    assert_eq!(
        (
            tiny[0].message.as_str(),
            tiny[0]
                .data
                .starts_with("gRPC message exceeds maximum size 4: ")
        ),
        (" 8 RESOURCE_EXHAUSTED", true),
        "{:#?}",
        tiny[0]
    );

    // TLS without verification.
    let tls = all(&samples, "tls trusting any");
    assert_eq!(tls.len(), 2);
    assert!(
        tls.iter().all(|s| s.code == "200" && s.data == list_text),
        "{tls:#?}"
    );
    assert_eq!(samples.len(), 19, "{samples:#?}");
}
