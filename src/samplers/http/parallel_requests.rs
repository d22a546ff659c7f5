//! bzm "Parallel HTTP Requests" (`com.blazemeter.jmeter.http.ParallelHTTPSampler`, the
//! jmeter-bzm-plugins `parallel` module): a list of URLs fetched at once, as the embedded
//! resources of a page that is never requested.
//!
//! The plugin is an `HTTPSamplerBase` whose sample makes that page itself: an HTML body
//! holding one `<iframe src='URL'>` per row of its `urls` table (`${}` evaluated per
//! sample), at `http://parallel-urls-list`, successful, with no response code. It then
//! hands the page to JMeter's `downloadPageResources` with the page as the container, so
//! here the page's URLs come from [`super::embedded::resource_urls`] and the downloads
//! run through [`HttpSampler::download_into`], in parallel by [`super::parallel`]. What
//! follows from that, as JMeter 5.6.3 records it:
//!
//! * the sample's label is the sampler's name, but the sub-results are renamed while the
//!   page is still unnamed: `-0`, `-1`, ... in the order of the list (duplicates once);
//! * the sample starts before the downloads and ends with the last of them; its bytes
//!   are its own HTML body plus the downloads' sizes; a failed download fails it, with
//!   JMeter's "Embedded resource download error:" message;
//! * the plugin sets "Retrieve All Embedded Resources" and "Parallel downloads" when it is
//!   created, so they hold unless the plan stores them false: off, the list is fetched
//!   one URL after the other, and an HTML page in the list has no resources of its own;
//! * each download is an HTTP Request GET of its URL with the sampler's headers, cookies,
//!   timeouts and redirect settings, always through HttpClient 4 (the plugin's
//!   `HCAccessor`), whatever implementation the sampler names.

use std::sync::Arc;

use async_trait::async_trait;

use super::embedded::{resource_urls, EmbeddedSpec};
use super::{http_sampler, HttpSampler, HTTP2_PROPERTY};
use crate::expr::Template;
use crate::foundation::clock::wall_clock_ms;
use crate::jmx::{Element, Property};
use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::SampleResult;

/// The URL of the page the plugin makes (relative URLs in the list resolve against it).
const LIST_URL: &str = "http://parallel-urls-list";

/// A Parallel HTTP Requests sampler.
pub struct ParallelHttpSampler {
    /// The HTTP Request that fetches each URL (its headers, cookies, timeouts...).
    http: HttpSampler,
    /// The `urls` table: the first cell of each row.
    urls: Vec<Template>,
    /// The sampler's "URLs must match" / "must not match" filters, which apply to the
    /// list whether or not "Retrieve All Embedded Resources" is on.
    filters: EmbeddedSpec,
}

/// Builds a Parallel HTTP Requests sampler from its element and the config elements in
/// its scope (merged as for an HTTP Request).
pub fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Arc<dyn Sampler> {
    let urls: Vec<Template> = url_rows(cx.element)
        .into_iter()
        .map(|text| cx.compile(text))
        .collect();
    // Set by the plugin's constructor: only the plan's own value overrides them.
    let retrieves_resources = cx.flag("HTTPSampler.image_parser", true);
    let in_parallel = cx.flag("HTTPSampler.concurrentDwn", true);
    let http2 = cx
        .properties
        .get(HTTP2_PROPERTY)
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let http = http_sampler(cx, configs, http2, |spec| {
        spec.embedded_resources = retrieves_resources;
        spec.concurrent_download = in_parallel;
        spec.implementation = Template::literal("HttpClient4");
    });
    let filters = match &http.embedded {
        Some(spec) => spec.clone(),
        None => {
            let (spec, warnings) =
                EmbeddedSpec::new(&http.spec.embedded_allow, &http.spec.embedded_exclude);
            for warning in warnings {
                cx.warn(warning);
            }
            spec
        }
    };
    Arc::new(ParallelHttpSampler {
        http,
        urls,
        filters,
    })
}

/// The URL of each row of the `urls` table (a row the plugin's table left without a
/// cell reads as empty, and an empty URL is not fetched).
fn url_rows(element: &Element) -> Vec<&str> {
    element
        .prop("urls")
        .map(Property::children)
        .unwrap_or_default()
        .iter()
        .map(|row| {
            row.children()
                .first()
                .and_then(Property::as_str)
                .unwrap_or("")
        })
        .collect()
}

impl ParallelHttpSampler {
    /// The page the plugin makes for this sample, started now. Unnamed, so the
    /// downloads added to it are named `-0`, `-1`, ... as JMeter names them.
    fn list_page(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let label = cx.label.clone();
        let mut listed = String::new();
        let mut html = String::new();
        {
            let mut ev = cx.user.eval(&label);
            for template in &self.urls {
                let url = template.eval(&mut ev);
                listed.push_str(&url);
                listed.push('\n');
                html.push_str("<iframe src='");
                html.push_str(&url);
                html.push_str("'></iframe>\n");
            }
        }
        let encoding = cx
            .user
            .run
            .props
            .get_default("sampleresult.default.encoding", "UTF-8")
            .to_string();
        let mut page = SampleResult::new(Arc::from(""));
        page.is_http = true;
        page.url = Some(LIST_URL.to_string());
        page.http_method = "GET".into();
        page.request_headers = "\n".to_string();
        page.sampler_data = listed;
        page.content_type = "text/html".into();
        page.response_data = encode(&html, &encoding);
        page.data_encoding = encoding.into();
        page.start_time = wall_clock_ms();
        page
    }
}

#[async_trait]
impl Sampler for ParallelHttpSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        let mut page = self.list_page(cx);
        let urls = resource_urls(&self.filters, &page);
        if !urls.is_empty() {
            self.http.download_into(cx, &mut page, urls, 0).await;
        }
        // Nothing fetched (an empty list): the sample ends now.
        if page.end_time == 0 {
            page.end_time = wall_clock_ms();
            page.elapsed = page.end_time - page.start_time;
        }
        page.label = cx.label.clone();
        Some(Arc::new(page))
    }
}

/// `String.getBytes(encoding)` for the page's body: ISO-8859-1 (characters it lacks
/// become `?`) or UTF-8.
fn encode(text: &str, encoding: &str) -> Vec<u8> {
    let latin1 = ["ISO-8859-1", "ISO8859_1", "latin1"]
        .iter()
        .any(|name| encoding.trim().eq_ignore_ascii_case(name));
    if latin1 {
        text.chars()
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
            .collect()
    } else {
        text.as_bytes().to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_is_encoded_as_java_would() {
        assert_eq!(encode("é€", "ISO-8859-1"), [0xE9, b'?']);
        assert_eq!(encode("é", "UTF-8"), "é".as_bytes());
    }
}
