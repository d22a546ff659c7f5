//! SOAP/XML-RPC Request (`SoapSampler`, JMeter 2.x, removed in 3.2), run as an HTTP
//! Request, as JMeter's class extends its HTTP sampler:
//!
//! * a POST to the full URL of `SoapSampler.URL_DATA`; HTTP Request Defaults do not
//!   reach it (the URL is whole, and the sampler has no arguments to merge);
//! * the body is `HTTPSamper.xml_data` (JMeter's spelling) sent as UTF-8, or the file
//!   `SoapSampler.xml_data_file` when one is named;
//! * `Content-Type`: `text/xml` when no Header Manager is in scope; with one, its own
//!   `Content-Type` if it sets one, else the body's `text/xml; charset=utf-8` (a file:
//!   `text/xml`), as HttpClient 3 adds the entity's type to a request that has none;
//! * `SOAPAction: "<action>"` (quoted) when `SoapSampler.SEND_SOAP_ACTION` is true;
//! * keep-alive from `HTTPSampler.use_keepalive`; redirects are not followed;
//! * the sample's bytes are the response body's (HttpClient 3 did not count the head).

use std::sync::Arc;

use super::config::{FileArg, HttpArg};
use crate::jmx::Element;
use crate::plan::{BuildContext, Sampler};

/// Builds a SOAP/XML-RPC Request.
pub fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Arc<dyn Sampler> {
    let gui = |c: &Element| c.gui.rsplit('.').next().unwrap_or("").to_string();
    let has_header_manager = configs.iter().any(|c| gui(c) == "HeaderPanel");
    let configs: Vec<&Element> = configs
        .iter()
        .copied()
        .filter(|c| gui(c) != "HttpDefaultsGui")
        .collect();
    let url = cx.template("SoapSampler.URL_DATA");
    let file = cx
        .raw("SoapSampler.xml_data_file")
        .unwrap_or("")
        .to_string();
    let from_file = !file.trim().is_empty();
    let body = if from_file {
        None
    } else {
        Some(cx.template("HTTPSamper.xml_data"))
    };
    let file = from_file.then(|| cx.compile(&file));
    let send_action = cx.flag("SoapSampler.SEND_SOAP_ACTION", false);
    let action = send_action.then(|| {
        let raw = cx.raw("SoapSampler.SOAP_ACTION").unwrap_or("").to_string();
        cx.compile(&format!("\"{raw}\""))
    });
    let post = cx.compile("POST");
    let utf8 = cx.compile("utf-8");
    let empty = cx.compile("");
    let entity_type = cx.compile(if from_file {
        "text/xml"
    } else {
        "text/xml; charset=utf-8"
    });
    let plain_type = cx.compile("text/xml");
    let mime = cx.compile("text/xml");
    super::build_with(cx, &configs, false, move |spec| {
        spec.path = url;
        spec.method = post;
        spec.content_encoding = utf8;
        spec.follow_redirects = false;
        spec.auto_redirects = false;
        spec.multipart = false;
        spec.embedded_resources = false;
        spec.body_bytes_only = true;
        spec.args.clear();
        spec.files.clear();
        match (body, file) {
            (Some(body), _) => {
                spec.post_body_raw = true;
                spec.args.push(HttpArg {
                    name: empty.clone(),
                    value: body,
                    always_encode: false,
                    use_equals: false,
                });
            }
            (None, Some(path)) => spec.files.push(FileArg {
                path,
                param: empty,
                mime,
            }),
            (None, None) => {}
        }
        let sets_type = spec
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case("Content-Type"));
        if !has_header_manager {
            spec.headers.push(("Content-Type".into(), plain_type));
        } else if !sets_type {
            spec.headers.push(("Content-Type".into(), entity_type));
        }
        if let Some(action) = action {
            spec.headers.push(("SOAPAction".into(), action));
        }
    })
}
