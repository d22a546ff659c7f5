//! Unit tests of the HTTP Request against the built-in mirror server on 127.0.0.1.

use super::*;
use crate::samplers::test_support::*;

fn http_element(port: u16, path: &str, extra: Vec<crate::jmx::Property>) -> Element {
    let mut props = vec![
        string_prop("HTTPSampler.domain", "127.0.0.1"),
        string_prop("HTTPSampler.port", &port.to_string()),
        string_prop("HTTPSampler.path", path),
    ];
    props.extend(extra);
    element("HTTPSamplerProxy", "HttpTestSampleGui", "HR", props)
}

#[tokio::test]
async fn get_against_the_mirror_measures_like_jmeter() {
    let addr = crate::mirror::spawn_local(0).await.expect("mirror");
    let el = http_element(addr.port(), "/x", vec![]);
    let result = build_and_sample(&el).await;
    assert_eq!(result.response_code, "200");
    assert_eq!(result.response_message, "OK");
    assert!(result.success);
    assert_eq!(result.data_type, "text");
    assert_eq!(
        result.url.as_deref(),
        Some(format!("http://127.0.0.1:{}/x", addr.port()).as_str())
    );
    let body = String::from_utf8_lossy(&result.response_data).into_owned();
    assert!(
        body.starts_with("GET /x HTTP/1.1\r\nConnection: close\r\n"),
        "{body}"
    );
    assert_eq!(
        result.response_headers,
        "HTTP/1.0 200 OK\nContent-Type: text/plain\n"
    );
    let head = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n".len() as i64;
    assert_eq!(result.bytes(), head + result.response_data.len() as i64);
    assert_eq!(result.sent_bytes, result.response_data.len() as i64);
}

#[tokio::test]
async fn refused_connection_is_a_failed_sample_named_as_jmeter() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let el = http_element(port, "/", vec![]);
    let result = build_and_sample(&el).await;
    assert!(!result.success);
    assert_eq!(
        result.response_code,
        "Non HTTP response code: org.apache.http.conn.HttpHostConnectException"
    );
    assert_eq!(
        result.response_message,
        format!("Non HTTP response message: Connect to 127.0.0.1:{port} [127.0.0.1/127.0.0.1] failed: Connection refused")
    );
}

#[test]
fn base64_pads() {
    assert_eq!(base64(b"user:pass"), "dXNlcjpwYXNz");
    assert_eq!(base64(b"ab"), "YWI=");
    assert_eq!(base64(b"a"), "YQ==");
}
