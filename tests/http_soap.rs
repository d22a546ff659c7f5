//! SOAP/XML-RPC Request end to end: `jmx-fixtures/http/soap.jmx` (a JMeter 2.13 plan)
//! against an in-process server on 127.0.0.1, checking the bytes each request carried
//! and the `.jtl` rows.

mod support;

use support::http_server::{serve, Reply, Request};
use support::run_fixture;

const ENVELOPE: &str = "<soap:Envelope xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">\
<soap:Body><say>hello café</say></soap:Body></soap:Envelope>";

fn only(requests: Vec<Request>) -> Request {
    assert_eq!(requests.len(), 1, "{requests:?}");
    requests.into_iter().next().unwrap()
}

#[test]
fn soap_requests_post_the_xml_with_its_headers() {
    let server = serve(|_| Reply::ok("<ok/>").header("Content-Type", "text/xml; charset=utf-8"));
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("request.xml");
    std::fs::write(&file, "<from-file>données</from-file>").unwrap();
    let port = format!("-Jport={}", server.port);
    let xml_file = format!("-Jxmlfile={}", file.display());
    let jtl = run_fixture("http/soap.jmx", &[&port, &xml_file]);

    for label in ["inline", "inline managed", "file managed", "typed"] {
        let row = jtl.one(label);
        assert_eq!(jtl.get(row, "responseCode"), "200", "{row:?}");
        assert_eq!(jtl.get(row, "responseMessage"), "OK");
        assert_eq!(jtl.get(row, "success"), "true");
        assert_eq!(jtl.get(row, "dataType"), "text");
        // JMeter 2.13 counts the body alone for this sampler.
        assert_eq!(jtl.get(row, "bytes"), "5", "{row:?}");
    }
    assert_eq!(
        jtl.get(jtl.one("inline"), "URL"),
        format!("http://127.0.0.1:{}/soap/inline", server.port)
    );

    // No Header Manager: text/xml, and the quoted SOAPAction with its variable.
    let inline = only(server.requests_to("/soap/inline"));
    assert_eq!(inline.method, "POST");
    assert_eq!(inline.body, ENVELOPE.as_bytes(), "UTF-8 body");
    assert_eq!(inline.header("Content-Type"), Some("text/xml"));
    assert_eq!(inline.header("SOAPAction"), Some("\"urn:Say/hello\""));
    assert_eq!(
        inline.header("Content-Length"),
        Some(ENVELOPE.len().to_string().as_str())
    );

    // A Header Manager without a type: the body's own, and no SOAPAction when not asked.
    let managed = only(server.requests_to("/soap/managed"));
    assert_eq!(managed.body, ENVELOPE.as_bytes());
    assert_eq!(
        managed.header("Content-Type"),
        Some("text/xml; charset=utf-8")
    );
    assert_eq!(managed.header("X-Test"), Some("1"));
    assert_eq!(managed.header("SOAPAction"), None);

    // The XML file's bytes as they are, typed text/xml.
    let from_file = only(server.requests_to("/soap/file"));
    assert_eq!(from_file.body, "<from-file>données</from-file>".as_bytes());
    assert_eq!(from_file.header("Content-Type"), Some("text/xml"));

    // The Header Manager's type wins.
    let typed = only(server.requests_to("/soap/typed"));
    assert_eq!(typed.body, b"<x/>");
    let types: Vec<&str> = typed
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("Content-Type"))
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(types, ["application/soap+xml; charset=utf-8"]);
}
