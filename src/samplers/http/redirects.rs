//! Redirects, the two ways JMeter handles them: followed by JMeter
//! (`HTTPSamplerBase.followRedirects`, every hop a sub-result) or inside HttpClient
//! ("automatic", invisible); see `jmeter-elements.md` §6.1.

use std::sync::Arc;

use super::client::TransportError;
use super::url::Url;
use super::{response, Hop, HttpSampler};
use crate::plan::SampleContext;
use crate::sample::SampleResult;

/// `httpsampler.max_redirects` default.
const DEFAULT_MAX_REDIRECTS: usize = 20;

impl HttpSampler {
    /// Redirects followed inside the client (HttpClient's own redirect handling): one
    /// sample from the first request's start, with the final response and URL; more
    /// than `httpsampler.max_redirects` hops is HttpClient's `RedirectException`.
    pub(super) async fn auto_redirects(
        &self,
        cx: &mut SampleContext<'_>,
        first: SampleResult,
    ) -> SampleResult {
        let max = max_redirects(cx);
        let (start, method) = (first.start_time, first.http_method.to_string());
        let mut last = first;
        let mut hops = 0;
        while let Some(location) = last.redirect_location.clone() {
            if hops >= max {
                // HttpClient's and Java's HttpURLConnection's own words for it.
                let error = if self.java_implementation(cx) {
                    TransportError {
                        class: "java.net.ProtocolException",
                        message: format!("Server redirected too many  times ({max})"),
                    }
                } else {
                    TransportError {
                        class: "org.apache.http.client.ClientProtocolException",
                        message: format!(
                            "org.apache.http.client.RedirectException: Maximum redirects ({max}) exceeded"
                        ),
                    }
                };
                response::fill_error(&mut last, &error);
                break;
            }
            let current = last.url.as_deref().and_then(|u| Url::parse(u).ok());
            let Some(Ok(next)) = current.map(|c| c.join(&location.replace(' ', "%20"))) else {
                break;
            };
            let next_text = next.to_string();
            let hop = Hop {
                url: &next,
                url_text: &next_text,
                method: &method,
                body: None,
                kept_head: None,
            };
            last = Arc::unwrap_or_clone(self.one_hop(cx, &hop).await);
            hops += 1;
        }
        last.start_time = start;
        last.elapsed = last.end_time - start;
        last
    }

    /// Follows redirects as `HTTPSamplerBase.followRedirects`: the first response and
    /// every hop become sub-results (`<label>-0`, `-1`, ...); the container takes the
    /// last hop's URL, code, headers and body, and the sum of their sizes.
    pub(super) async fn follow_redirects(
        &self,
        cx: &mut SampleContext<'_>,
        first: SampleResult,
        depth: usize,
    ) -> SampleResult {
        let max = max_redirects(cx);
        let mut total = first.clone();
        total.subresults.clear();
        push_renamed(&mut total, first.clone(), false);
        let mut last = first;
        let mut hops = 0;
        while hops < max {
            let Some(location) = last.redirect_location.clone() else {
                break;
            };
            let current = last.url.as_deref().and_then(|u| Url::parse(u).ok());
            let next = current.map(|c| c.join(&location.replace(' ', "%20")));
            let method = if last.http_method == "HEAD" {
                "HEAD"
            } else {
                "GET"
            };
            let Some(Ok(next)) = next else {
                hops += 1;
                break;
            };
            let next_text = next.to_string();
            let hop = Hop {
                url: &next,
                url_text: &next_text,
                method,
                body: None,
                kept_head: None,
            };
            last = Arc::unwrap_or_clone(self.one_hop(cx, &hop).await);
            // Each hop is a page of its own: its resources come with it.
            let page = self
                .with_embedded_resources(cx, Arc::new(last), depth)
                .await;
            last = Arc::unwrap_or_clone(page);
            push_renamed(&mut total, last.clone(), true);
            hops += 1;
            if last.redirect_location.is_none() {
                break;
            }
        }
        if hops >= max && last.redirect_location.is_some() {
            let mut error = last.clone();
            error.subresults.clear();
            response::fill_error(
                &mut error,
                &TransportError {
                    class: "java.io.IOException",
                    message: format!("Exceeded maximum number of redirects: {max}"),
                },
            );
            push_renamed(&mut total, error.clone(), true);
            last = error;
        }
        total.url = last.url.clone();
        total.http_method = last.http_method.clone();
        total.query_string = last.query_string.clone();
        total.request_headers = last.request_headers.clone();
        total.response_data = last.response_data;
        total.response_code = last.response_code;
        total.set_success(last.success);
        total.response_message = last.response_message;
        total.data_type = last.data_type;
        total.response_headers = last.response_headers;
        total.content_type = last.content_type;
        total.data_encoding = last.data_encoding;
        total.redirect_location = None;
        total
    }
}

/// Adds a hop to the redirect container: renamed `<label>-<n>`; when `accumulate`,
/// its sizes and end time are added as JMeter's `addSubResult` does (the first hop is
/// added raw: the container already holds its sizes).
fn push_renamed(total: &mut SampleResult, mut hop: SampleResult, accumulate: bool) {
    hop.label = Arc::from(format!("{}-{}", total.label, total.subresults.len()));
    hop.thread_name = total.thread_name.clone();
    if accumulate {
        accumulate_sizes(total, &hop);
    }
    total.subresults.push(hop);
}

/// What JMeter's `addSubResult` adds to a container for a child: sizes add up and the
/// end time stretches to the child's.
pub(super) fn accumulate_sizes(total: &mut SampleResult, child: &SampleResult) {
    if child.end_time > total.end_time {
        total.end_time = child.end_time;
        total.elapsed = total.end_time - total.start_time - total.idle_time;
    }
    total.headers_size += child.headers_size;
    total.body_size = Some(
        total.body_size.unwrap_or(total.response_data.len() as i64)
            + child.body_size.unwrap_or(child.response_data.len() as i64),
    );
    total.sent_bytes += child.sent_bytes;
}

/// `httpsampler.max_redirects`, 20 unless set.
fn max_redirects(cx: &SampleContext<'_>) -> usize {
    cx.user
        .run
        .props
        .get("httpsampler.max_redirects")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_MAX_REDIRECTS)
}
