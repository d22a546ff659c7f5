//! Server-Sent Events: jmxr's own samplers for event streams, which JMeter has no
//! element for (`docs/sse.md` shows how a plan writes them).
//!
//! * `jmxr.sse.OpenStream` ([`open`]) opens the virtual user's stream: a GET with
//!   `Accept: text/event-stream`, the Header Managers' headers and the Cookie Manager's
//!   cookies, within connect and response timeouts.
//! * `jmxr.sse.ReadEvents` ([`read`]) reads events until a count of them match (an
//!   event type, a pattern on the data), or a timeout; the events become the response
//!   (and, if asked, sub-results), so extractors and assertions read them. A stream the
//!   server ends is reconnected with `Last-Event-ID` after the `retry` time.
//! * `jmxr.sse.CloseStream` closes it.
//!
//! Underneath: [`connection`] speaks HTTP/1.1 on the HTTP sampler's connect and TLS,
//! [`body`] de-chunks and inflates, [`parser`] reads the event-stream format and
//! [`stream`] keeps an EventSource's state. Scripts open and read streams of their own
//! on the same types (`script::shims::sse`), so they parse and reconnect alike.

mod body;
mod connection;
mod open;
mod parser;
mod read;
mod stream;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

pub use connection::{Opened, StreamError, StreamRequest};
pub use stream::{End, EventStream, Filter, ReadOutcome};

use crate::expr::Template;
use crate::jmx::Element;
use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::http::{self, CookieManagerSpec};
use crate::samplers::new_result;
use crate::user_state::UserState;

/// The element classes, as a `.jmx` names them in `testclass`.
pub const OPEN_CLASS: &str = "jmxr.sse.OpenStream";
pub const READ_CLASS: &str = "jmxr.sse.ReadEvents";
pub const CLOSE_CLASS: &str = "jmxr.sse.CloseStream";

/// Timeouts and the reconnection time when a plan (or a script) gives none, ms.
pub const DEFAULT_CONNECT_MS: u64 = 20_000;
pub const DEFAULT_RESPONSE_MS: u64 = 20_000;
/// The reconnection time until the server sets one with `retry`.
pub const DEFAULT_RETRY_MS: u64 = 3_000;
pub const DEFAULT_READ_TIMEOUT_MS: u64 = 10_000;
/// The property that makes streams verify server certificates (as HTTP requests do).
pub const VERIFY_PROPERTY: &str = http::VERIFY_PROPERTY;

/// The user slot holding the stream; slots of elements count up from 0.
const SSE_SLOT: usize = usize::MAX - 0x5353;

/// Builds the sampler for an SSE class; `None` for other classes.
pub fn build(
    class: &str,
    cx: &mut BuildContext<'_>,
    configs: &[&Element],
) -> Option<Arc<dyn Sampler>> {
    Some(match class {
        OPEN_CLASS => Arc::new(open::OpenStream::build(cx, configs)),
        READ_CLASS => Arc::new(read::ReadEvents::build(cx, configs)),
        CLOSE_CLASS => Arc::new(CloseStream),
        _ => return None,
    })
}

/// The user's stream slot.
#[derive(Default)]
struct UserStream(Option<EventStream>);

/// Takes the user's stream out of its slot (give it back with [`put_back`]).
fn take(user: &mut UserState) -> Option<EventStream> {
    user.slot(SSE_SLOT, UserStream::default).0.take()
}

fn put_back(user: &mut UserState, stream: EventStream) {
    user.slot(SSE_SLOT, UserStream::default).0 = Some(stream);
}

/// What the open and read samplers send besides the event-stream headers: the Header
/// Managers' headers and the Cookie Manager's cookies.
struct Headers {
    headers: Vec<(String, Template)>,
    cookie_manager: Option<CookieManagerSpec>,
}

impl Headers {
    fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Headers {
        Headers {
            headers: http::merge_headers(cx, configs),
            cookie_manager: http::cookie_manager(cx, configs),
        }
    }

    /// The headers for a request to `request`'s URL, the cookies last; also the cookies
    /// alone (for the sampler data).
    fn evaluate(
        &self,
        cx: &mut SampleContext<'_>,
        url: &http::Url,
    ) -> (Vec<(String, String)>, String) {
        let label = cx.label.clone();
        let mut headers: Vec<(String, String)> = {
            let mut ev = cx.user.eval(&label);
            self.headers
                .iter()
                .map(|(name, value)| (name.clone(), value.eval(&mut ev)))
                .collect()
        };
        let cookie = http::upgrade_cookie_header(
            cx,
            self.cookie_manager.as_ref(),
            url.scheme == "https",
            &url.host,
            url.effective_port(),
            &url.path_and_query,
        )
        .unwrap_or_default();
        if !cookie.is_empty() {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case("Cookie"));
            headers.push(("Cookie".into(), cookie.clone()));
        }
        (headers, cookie)
    }

    /// Keeps the cookies a (re)connection's response set.
    fn store_cookies(&self, cx: &mut SampleContext<'_>, url: &http::Url, opened: &Opened) {
        let values: Vec<&str> = opened
            .headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case("Set-Cookie"))
            .map(|(_, v)| v.as_str())
            .collect();
        if !values.is_empty() {
            http::store_cookies(cx, self.cookie_manager.as_ref(), url, &values);
        }
    }
}

/// Records a (re)connection's exchange on `result`: status, head, sizes (added up when
/// a read reconnects more than once), connect time.
fn record_open(result: &mut SampleResult, opened: &Opened) {
    result.response_code = opened.status.to_string().into();
    result.response_message = opened.reason.clone().into();
    result.response_headers.clone_from(&opened.head);
    result.request_headers.clone_from(&opened.request_headers);
    result.headers_size += opened.head_size as i64;
    result.sent_bytes += opened.sent as i64;
    result.connect_time += opened.connect_ms;
    if let Some(content_type) = opened.header("Content-Type") {
        result.content_type = content_type.to_string().into();
    }
    result.data_type = "text";
    result.data_encoding = "UTF-8".into();
}

/// A time setting in milliseconds: empty means `default_ms`, 0 means no limit.
fn millis_setting(name: &str, text: &str, default_ms: u64) -> Result<Option<Duration>, String> {
    let text = text.trim();
    let ms = if text.is_empty() {
        default_ms
    } else {
        text.parse::<u64>()
            .map_err(|_| format!("{name} '{text}' is not a number of milliseconds"))?
    };
    Ok((ms > 0).then(|| Duration::from_millis(ms)))
}

/// A failed result for settings that cannot be used; nothing was sent.
fn invalid(mut result: SampleResult, message: String) -> SampleResult {
    let watch = Stopwatch::start();
    watch.stop(&mut result);
    result.response_code = "Sampler error".into();
    result.response_message = message.into();
    result.set_success(false);
    result
}

/// `jmxr.sse.CloseStream`: closes the user's stream.
struct CloseStream;

#[async_trait]
impl Sampler for CloseStream {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        let mut result = new_result(cx, cx.label.clone());
        let watch = Stopwatch::start();
        let stream = take(cx.user);
        watch.stop(&mut result);
        result.set_success(true);
        match stream {
            Some(stream) => {
                result.sampler_data = format!("Close stream {}", stream.url_text());
                result.response_code = "200".into();
                result.response_message = "Stream closed".into();
            }
            None => {
                result.response_message = "No stream; nothing to close.".into();
            }
        }
        Some(Arc::new(result))
    }
}
