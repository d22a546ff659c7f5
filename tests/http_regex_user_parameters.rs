//! RegEx User Parameters end to end: `jmx-fixtures/http/regex_user_parameters.jmx`
//! takes a form's field names and values with a Regular Expression Extractor and lets
//! the element put them into the next request's arguments, against an in-process server
//! on 127.0.0.1.

mod support;

use support::http_server::{serve, Reply};
use support::run_fixture;

#[test]
fn extracted_fields_replace_the_arguments_of_the_next_request_only() {
    let server = serve(|request| match request.target.as_str() {
        "/form" => Reply::ok(
            r#"<form><input name="token" value="t0k3n"><input name="step" value="2"><input name="other" value="x"></form>"#,
        ),
        _ => Reply::ok("done"),
    });
    let port = format!("-Jport={}", server.port);
    let jtl = run_fixture("http/regex_user_parameters.jmx", &[&port]);
    assert_eq!(jtl.values("success"), ["true"; 4]);

    let submit = &server.requests_to("/submit")[0];
    assert_eq!(
        String::from_utf8_lossy(&submit.body),
        "token=t0k3n&step=2&kept=mine",
        "named arguments take the extracted values; others stay"
    );
    // A sampler without the element keeps its own values.
    let again = &server.requests_to("/again")[0];
    assert_eq!(
        String::from_utf8_lossy(&again.body),
        "token=placeholder&kept=mine"
    );
    // A reference name with no extracted variables changes nothing.
    assert_eq!(
        server.requests_to("/unmatched")[0].target,
        "/unmatched?token=placeholder"
    );
}
