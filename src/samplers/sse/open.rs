//! `jmxr.sse.OpenStream`: opens the virtual user's event stream, replacing the one it
//! had. The sample is the HTTP exchange up to the response head: its status, headers
//! and sizes, the connect time (TCP and TLS) and the latency (to the head). It succeeds
//! when the answer is an event stream (200, `text/event-stream`); any other answer is a
//! failed sample whose response data is the start of the body, and leaves no stream.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use super::{
    invalid, millis_setting, put_back, record_open, take, EventStream, Headers, StreamError,
    StreamRequest, DEFAULT_CONNECT_MS, DEFAULT_RESPONSE_MS, DEFAULT_RETRY_MS,
};
use crate::expr::Template;
use crate::jmx::Element;
use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::http;
use crate::samplers::new_result;

/// How long, and how much of, the body of an answer that is not a stream is read.
const ERROR_BODY_WAIT: Duration = Duration::from_secs(2);
const ERROR_BODY_LIMIT: usize = 64 * 1024;

pub struct OpenStream {
    url: Template,
    connect_timeout: Setting,
    response_timeout: Setting,
    last_event_id: Template,
    retry: Setting,
    headers: Headers,
}

/// One sample's evaluated settings.
struct Settings {
    url: String,
    connect_timeout: Option<Duration>,
    response_timeout: Option<Duration>,
    last_event_id: String,
    retry_ms: u64,
}

impl OpenStream {
    pub fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> OpenStream {
        let url = cx.template("url");
        if url.raw().trim().is_empty() {
            cx.error(
                "the stream's URL (property `url`) is empty: give its http:// or https:// address",
            );
        }
        OpenStream {
            url,
            connect_timeout: cx.setting("connectTimeout", ""),
            response_timeout: cx.setting("responseTimeout", ""),
            last_event_id: cx.template("lastEventId"),
            retry: cx.setting("retry", ""),
            headers: Headers::build(cx, configs),
        }
    }

    fn settings(&self, cx: &mut SampleContext<'_>) -> Result<Settings, String> {
        let label = cx.label.clone();
        let mut ev = cx.user.eval(&label);
        let retry = self.retry.text(&mut ev);
        Ok(Settings {
            url: self.url.eval(&mut ev),
            connect_timeout: millis_setting(
                "Connect timeout",
                &self.connect_timeout.text(&mut ev),
                DEFAULT_CONNECT_MS,
            )?,
            response_timeout: millis_setting(
                "Response timeout",
                &self.response_timeout.text(&mut ev),
                DEFAULT_RESPONSE_MS,
            )?,
            last_event_id: self.last_event_id.eval(&mut ev),
            retry_ms: millis_setting("Retry", &retry, DEFAULT_RETRY_MS)?
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        })
    }
}

#[async_trait]
impl Sampler for OpenStream {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        let mut result = new_result(cx, cx.label.clone());
        result.set_success(false);
        let settings = match self.settings(cx) {
            Ok(settings) => settings,
            Err(message) => return Some(Arc::new(invalid(result, message))),
        };
        // A new stream replaces the user's: the old connection closes.
        drop(take(cx.user));
        let mut request = match StreamRequest::new(&settings.url, Vec::new()) {
            Ok(request) => request,
            Err(message) => {
                let error = StreamError {
                    class: "java.net.MalformedURLException",
                    message,
                };
                return Some(Arc::new(failed(result, &Stopwatch::start(), &error)));
            }
        };
        let (headers, cookies) = self.headers.evaluate(cx, &request.url);
        request.headers = headers;
        request.connect_timeout = settings.connect_timeout;
        request.response_timeout = settings.response_timeout;
        request.verify_certificates = cx.user.run.props.get_bool(http::VERIFY_PROPERTY, false);
        let url = request.url_text();
        result.sampler_data = sampler_data(&url, &cookies);
        result.url = Some(url);
        result.http_method = "GET".into();
        result.cookies = cookies;
        let watch = Stopwatch::start();
        let stop = cx.user.run.stop_now.clone();
        let connected = tokio::select! {
            connected = EventStream::connect(request, &settings.last_event_id, settings.retry_ms) => connected,
            _ = stop.cancelled() => Err(StreamError {
                class: "java.io.InterruptedIOException",
                message: "the run is stopping".into(),
            }),
        };
        let (mut stream, opened) = match connected {
            Ok(connected) => connected,
            Err(error) => return Some(Arc::new(failed(result, &watch, &error))),
        };
        self.headers.store_cookies(cx, stream.url(), &opened);
        record_open(&mut result, &opened);
        result.latency = opened.latency_ms;
        if opened.is_event_stream() {
            result.body_size = Some(0);
            result.set_success(true);
            watch.stop(&mut result);
            put_back(cx.user, stream);
        } else {
            if let Some(connection) = stream.connection() {
                result.response_data = connection
                    .read_error_body(ERROR_BODY_WAIT, ERROR_BODY_LIMIT)
                    .await;
            }
            if let Some(reason) = stream.closed_reason() {
                result.response_message = format!("{}; {reason}", opened.reason).into();
            }
            watch.stop(&mut result);
        }
        Some(Arc::new(result))
    }
}

/// A sample for an exchange that failed, as the HTTP sampler reports a transport error.
fn failed(mut result: SampleResult, watch: &Stopwatch, error: &StreamError) -> SampleResult {
    watch.stop(&mut result);
    http::fill_error(&mut result, &error.transport());
    result
}

/// JMeter's sampler data for a GET: method and URL, then the cookies sent.
fn sampler_data(url: &str, cookies: &str) -> String {
    if cookies.is_empty() {
        format!("GET {url}\n\n[no cookies]\n")
    } else {
        format!("GET {url}\n\nCookie Data:\n{cookies}\n")
    }
}
