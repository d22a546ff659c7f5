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
    let addr = crate::samplers::http::mirror::spawn_local(0)
        .await
        .expect("mirror");
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

fn element_prop(
    name: &str,
    element_type: &str,
    props: Vec<crate::jmx::Property>,
) -> crate::jmx::Property {
    crate::jmx::Property {
        name: name.to_string(),
        value: crate::jmx::PropValue::Element {
            element_type: element_type.into(),
            class: String::new(),
            gui: String::new(),
            name: name.to_string(),
            enabled: true,
            props,
        },
        span: crate::jmx::Span::default(),
    }
}

fn collection(name: &str, items: Vec<crate::jmx::Property>) -> crate::jmx::Property {
    crate::jmx::Property {
        name: name.to_string(),
        value: crate::jmx::PropValue::Collection(items),
        span: crate::jmx::Span::default(),
    }
}

async fn sample_with(el: &Element, configs: &[&Element]) -> SampleResult {
    let (sampler, diagnostics) = build_element(el, configs);
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let sampler = sampler.expect("sampler");
    let mut user = user();
    sample(sampler.as_ref(), &mut user, &el.name)
        .await
        .expect("a sample")
}

#[tokio::test]
async fn defaults_fill_empty_fields_and_basic_credentials_are_sent_first_time() {
    let addr = crate::samplers::http::mirror::spawn_local(0)
        .await
        .expect("mirror");
    let defaults = element(
        "ConfigTestElement",
        "HttpDefaultsGui",
        "defaults",
        vec![
            string_prop("HTTPSampler.domain", "127.0.0.1"),
            string_prop("HTTPSampler.port", &addr.port().to_string()),
            string_prop("HTTPSampler.path", "/from-defaults"),
        ],
    );
    let auth = element(
        "AuthManager",
        "AuthPanel",
        "auth",
        vec![collection(
            "AuthManager.auth_list",
            vec![element_prop(
                "",
                "Authorization",
                vec![
                    string_prop("Authorization.url", "http://127.0.0.1"),
                    string_prop("Authorization.username", "user"),
                    string_prop("Authorization.password", "pass"),
                    string_prop("Authorization.mechanism", "BASIC"),
                ],
            )],
        )],
    );
    let el = element(
        "HTTPSamplerProxy",
        "HttpTestSampleGui",
        "HR",
        vec![
            string_prop("HTTPSampler.domain", ""),
            string_prop("HTTPSampler.path", ""),
        ],
    );
    let result = sample_with(&el, &[&defaults, &auth]).await;
    let echoed = String::from_utf8_lossy(&result.response_data).into_owned();
    assert!(
        echoed.starts_with("GET /from-defaults HTTP/1.1\r\n"),
        "{echoed}"
    );
    assert!(
        echoed.contains("\r\nAuthorization: Basic dXNlcjpwYXNz\r\n"),
        "{echoed}"
    );
    assert!(result.request_headers.contains("Authorization: Basic"));
}

#[tokio::test]
async fn inner_header_managers_win_per_name() {
    let addr = crate::samplers::http::mirror::spawn_local(0)
        .await
        .expect("mirror");
    let manager = |name: &str, rows: &[(&str, &str)]| {
        let items = rows
            .iter()
            .map(|(n, v)| {
                element_prop(
                    "",
                    "Header",
                    vec![
                        string_prop("Header.name", n),
                        string_prop("Header.value", v),
                    ],
                )
            })
            .collect();
        element(
            "HeaderManager",
            "HeaderPanel",
            name,
            vec![collection("HeaderManager.headers", items)],
        )
    };
    let inner = manager("inner", &[("X-A", "inner"), ("X-B", "inner")]);
    let outer = manager("outer", &[("x-a", "outer"), ("X-C", "outer")]);
    let el = http_element(addr.port(), "/", vec![]);
    let result = sample_with(&el, &[&inner, &outer]).await;
    let echoed = String::from_utf8_lossy(&result.response_data).into_owned();
    assert!(
        echoed.contains("\r\nX-A: inner\r\nX-B: inner\r\nX-C: outer\r\n"),
        "{echoed}"
    );
    assert!(!echoed.contains("outer\r\nx-a"));
}

#[tokio::test]
async fn md5_keeps_only_the_digest_of_the_body_and_the_wire_size() {
    let addr = crate::samplers::http::mirror::spawn_local(0)
        .await
        .expect("mirror");
    let el = http_element(addr.port(), "/", vec![bool_prop("HTTPSampler.md5", true)]);
    let result = build_and_sample(&el).await;
    assert_eq!(result.response_data.len(), 32);
    assert!(result.bytes() > 32 + result.headers_size);
}

#[tokio::test]
async fn dns_cache_manager_static_hosts_resolve_names() {
    let addr = crate::samplers::http::mirror::spawn_local(0)
        .await
        .expect("mirror");
    let dns = element(
        "DNSCacheManager",
        "DNSCachePanel",
        "dns",
        vec![
            bool_prop("DNSCacheManager.isCustomResolver", true),
            collection(
                "DNSCacheManager.hosts",
                vec![element_prop(
                    "",
                    "StaticHost",
                    vec![
                        string_prop("StaticHost.Name", "shop.test"),
                        string_prop("StaticHost.Address", "127.0.0.1"),
                    ],
                )],
            ),
        ],
    );
    let mut el = http_element(addr.port(), "/", vec![]);
    el.props[0] = string_prop("HTTPSampler.domain", "shop.test");
    let result = sample_with(&el, &[&dns]).await;
    assert_eq!(result.response_code, "200", "{}", result.response_message);
    let echoed = String::from_utf8_lossy(&result.response_data).into_owned();
    assert!(
        echoed.contains(&format!("\r\nHost: shop.test:{}\r\n", addr.port())),
        "{echoed}"
    );
}
