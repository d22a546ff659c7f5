//! The bzm HTTP/2 plugin's samplers (jmeter-http2-plugin), run as HTTP Requests over
//! [`super::http2`]:
//!
//! * `com.blazemeter.jmeter.http2.sampler.HTTP2Sampler` (plugin 2.x and later) extends
//!   JMeter's `HTTPSamplerBase`: same properties as an HTTP Request, merged with HTTP
//!   Request Defaults. `HTTP2Sampler.enableHttp2=false` makes it an HTTP/1.1 sampler.
//! * `com.blazemeter.jmeter.http2.sampler.HTTP2Request` (plugin 1.x) has its own names
//!   (`HTTP2Request.domain`, `HTTP2Sampler.method`, ...) and its own defaults element
//!   (`Http2DefaultsGui`), and HTTP Request Defaults do not reach it. They are translated to the HTTP Request's names, as the
//!   plugin's own `HTTP2SamplerConverter` does when it loads an old plan, and the 1.x
//!   defaults apply: `https` when no protocol is given, a 20 s response timeout, and a
//!   connection kept for the next samples.

use std::sync::Arc;

use crate::jmx::{Element, Property};
use crate::plan::{BuildContext, Sampler};

/// The plugin 1.x sampler class.
const LEGACY_CLASS: &str = "com.blazemeter.jmeter.http2.sampler.HTTP2Request";

/// Plugin 1.x property names and the HTTP Request's names for them.
const LEGACY_NAMES: [(&str, &str); 11] = [
    ("HTTP2Request.Arguments", "HTTPsampler.Arguments"),
    ("HTTP2Request.postBodyRaw", "HTTPSampler.postBodyRaw"),
    ("HTTP2Request.domain", "HTTPSampler.domain"),
    ("HTTP2Request.protocol", "HTTPSampler.protocol"),
    ("HTTP2Request.path", "HTTPSampler.path"),
    ("HTTP2Sampler.method", "HTTPSampler.method"),
    (
        "HTTP2Request.contentEncoding",
        "HTTPSampler.contentEncoding",
    ),
    (
        "HTTP2Request.response_timeout",
        "HTTPSampler.response_timeout",
    ),
    (
        "HTTP2Request.follow_redirects",
        "HTTPSampler.follow_redirects",
    ),
    ("HTTP2Request.auto_redirects", "HTTPSampler.auto_redirects"),
    ("HTTPSampler.embedded_resources", "HTTPSampler.image_parser"),
];

/// Plugin 1.x's response timeout when none is given (`DEFAULT_RESPONSE_TIMEOUT`).
const LEGACY_RESPONSE_TIMEOUT: &str = "20000";

/// Builds a bzm HTTP/2 Sampler of either generation.
pub fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Arc<dyn Sampler> {
    if cx.element.class != LEGACY_CLASS {
        let http2 = cx
            .raw("HTTP2Sampler.enableHttp2")
            .is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"));
        return super::build_with(cx, configs, http2, |_| {});
    }
    let sampler = translated(cx.element, "HttpTestSampleGui");
    let defaults: Vec<Element> = configs
        .iter()
        .filter(|c| is_legacy_defaults(c))
        .map(|c| translated(c, "HttpDefaultsGui"))
        .collect();
    let mut translated_defaults = defaults.iter();
    // HTTP Request Defaults name properties a 1.x sampler does not read.
    let configs: Vec<&Element> = configs
        .iter()
        .filter(|c| c.gui.rsplit('.').next() != Some("HttpDefaultsGui"))
        .map(|c| {
            if is_legacy_defaults(c) {
                translated_defaults.next().unwrap_or(c)
            } else {
                c
            }
        })
        .collect();
    cx.for_element(&sampler, |cx| {
        let protocol = cx.compile("https");
        let timeout = cx.compile(LEGACY_RESPONSE_TIMEOUT);
        super::build_with(cx, &configs, true, |spec| {
            if spec.protocol.as_literal() == Some("") {
                spec.protocol = protocol;
            }
            if spec.response_timeout.as_literal() == Some("") {
                spec.response_timeout = timeout;
            }
            spec.keep_alive = true;
        })
    })
}

fn is_legacy_defaults(config: &Element) -> bool {
    config.gui.rsplit('.').next() == Some("Http2DefaultsGui")
}

/// A copy of a plugin 1.x element with the HTTP Request's property names and `gui`.
fn translated(element: &Element, gui: &str) -> Element {
    let mut copy = element.clone();
    copy.gui = gui.to_string();
    for prop in &mut copy.props {
        rename(prop);
    }
    copy
}

fn rename(prop: &mut Property) {
    if let Some((_, new)) = LEGACY_NAMES.iter().find(|(old, _)| *old == prop.name) {
        prop.name = new.to_string();
    }
}
