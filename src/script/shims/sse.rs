//! Server-Sent Events for scripts: `Sse::open(url, options)` opens a stream,
//! `stream.read(options)` reads events from it, `stream.close()` closes it. The stream
//! is the SSE samplers' own ([`crate::samplers::sse::EventStream`]), so a script parses
//! events and reconnects (after the server's `retry`, with `Last-Event-ID`) exactly as
//! the samplers do; `docs/sse.md` describes the options.
//!
//! `readLine()` gives the events as lines instead (`event:`, `id:`, one `data:` line per
//! data line, then an empty line), for the line loops that translated Groovy scripts
//! run (see [`super::sse_http`]); it answers `()` (Java's `null`) when no event came
//! within the read timeout or the stream is closed.
//!
//! A handle's copies share one stream (Java's reference semantics): a script keeps it
//! for the user's later iterations with `vars.putObject`. Scripts run synchronously on
//! a worker thread, so a call blocks that thread until it is done (as `Thread.sleep`
//! does), after handing the thread's other tasks to the other workers; every read
//! therefore has a timeout.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use rhai::{Array, Dynamic, Engine, FuncRegistration, Map, INT};
use tokio_util::sync::CancellationToken;

use super::conversions::{as_int, truthy};
use super::{error, Class, ShimResult};
use crate::samplers::sse::{
    End, EventStream, Filter, StreamRequest, DEFAULT_CONNECT_MS, DEFAULT_READ_TIMEOUT_MS,
    DEFAULT_RESPONSE_MS, DEFAULT_RETRY_MS, VERIFY_PROPERTY,
};
use crate::script::bindings::state;

/// A script's event stream; see the module doc.
#[derive(Clone)]
pub struct SseStream(Arc<Mutex<Shared>>);

struct Shared {
    url: String,
    stream: Option<EventStream>,
    /// How the last read ended: `done`, `timeout`, `closed`, `refused`.
    end: &'static str,
    /// Why the last read did not end normally, or the last connection error it met.
    message: String,
    /// Lines of an event `readLine` has begun to give.
    lines: VecDeque<String>,
}

pub(crate) fn classes() -> Vec<Class> {
    let mut sse = Class::new("Sse");
    // Not `func!`: opening a stream is no pure function, never to be folded.
    FuncRegistration::new("open")
        .with_purity(false)
        .set_into_module(sse.record("open"), |url: &str| open(url, &Map::new()));
    FuncRegistration::new("open")
        .with_purity(false)
        .set_into_module(sse.record("open"), |url: &str, options: Map| {
            open(url, &options)
        });
    vec![sse]
}

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_type_with_name::<SseStream>("SseStream")
        .register_fn("read", |s: &mut SseStream| s.read(&Map::new()))
        .register_fn("read", |s: &mut SseStream, options: Map| s.read(&options))
        .register_fn("close", |s: &mut SseStream| s.close())
        .register_fn("readLine", |s: &mut SseStream| s.read_line())
        .register_get("url", |s: &mut SseStream| s.0.lock().url.clone())
        .register_get("is_open", |s: &mut SseStream| s.is_open())
        .register_get("last_event_id", |s: &mut SseStream| {
            s.0.lock()
                .stream
                .as_ref()
                .map_or(String::new(), |st| st.last_event_id().to_string())
        })
        .register_get("end", |s: &mut SseStream| s.0.lock().end.to_string())
        .register_get("message", |s: &mut SseStream| s.0.lock().message.clone());
}

/// Runs `future` to its end on the run's runtime, from the synchronous script call.
fn block_on<F: std::future::Future>(future: F) -> ShimResult<F::Output> {
    use tokio::runtime::{Handle, RuntimeFlavor};
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            Ok(tokio::task::block_in_place(|| handle.block_on(future)))
        }
        _ => error("Sse: event streams can be opened only while a test runs"),
    }
}

/// A time option in ms: absent means `default`; 0 means no limit unless `required`.
fn millis(options: &Map, name: &str, default: u64, required: bool) -> ShimResult<Option<u64>> {
    let ms = match options.get(name) {
        None => default,
        Some(value) => match u64::try_from(as_int(value)?) {
            Ok(ms) => ms,
            Err(_) => return error(format!("Sse: {name} must not be negative")),
        },
    };
    if ms == 0 && required {
        return error(format!(
            "Sse: a script's read needs a {name} (in ms, above 0): a script cannot be stopped while it waits"
        ));
    }
    Ok((ms > 0).then_some(ms))
}

fn text(options: &Map, name: &str) -> String {
    options
        .get(name)
        .filter(|v| !v.is_unit())
        .map(super::java_string)
        .unwrap_or_default()
}

pub(super) fn open(url: &str, options: &Map) -> ShimResult<SseStream> {
    let headers = match options.get("headers") {
        None => Vec::new(),
        Some(value) => match value.read_lock::<Map>() {
            Some(map) => map
                .iter()
                .map(|(k, v)| (k.to_string(), super::java_string(v)))
                .collect(),
            None => return error("Sse.open: headers must be a map of names to values"),
        },
    };
    let mut request = StreamRequest::new(url, headers)
        .map_err(|message| format!("Sse.open: java.net.MalformedURLException: {message}"))?;
    let ms = |name, default| millis(options, name, default, false);
    request.connect_timeout = ms("connect_timeout", DEFAULT_CONNECT_MS)?.map(Duration::from_millis);
    request.response_timeout =
        ms("response_timeout", DEFAULT_RESPONSE_MS)?.map(Duration::from_millis);
    request.verify_certificates = state(false, |s| s.props.get_bool(VERIFY_PROPERTY, false));
    let retry = ms("retry", DEFAULT_RETRY_MS)?.unwrap_or(0);
    let last_event_id = text(options, "last_event_id");
    let url_text = request.url_text();
    let (stream, opened) = block_on(EventStream::connect(request, &last_event_id, retry))?
        .map_err(|e| format!("Sse.open {url_text}: {}", e.describe()))?;
    if !opened.is_event_stream() {
        let reason = stream.closed_reason().unwrap_or("not an event stream");
        return error(format!("Sse.open {url_text}: {reason}"));
    }
    Ok(SseStream(Arc::new(Mutex::new(Shared {
        url: url_text,
        stream: Some(stream),
        end: "done",
        message: String::new(),
        lines: VecDeque::new(),
    }))))
}

/// `event`: one type or several, as a comma-separated text or an array.
fn event_types(options: &Map) -> Vec<String> {
    let pieces: Vec<String> = match options.get("event") {
        None => Vec::new(),
        Some(value) => match value.read_lock::<Array>() {
            Some(items) => items.iter().map(super::java_string).collect(),
            None => vec![super::java_string(value)],
        },
    };
    pieces
        .iter()
        .flat_map(|p| p.split(','))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

fn filter(options: &Map) -> ShimResult<Filter> {
    let count = match options.get("count") {
        None => 1,
        Some(value) => usize::try_from(as_int(value)?)
            .map_err(|_| "Sse: count must not be negative".to_string())?,
    };
    let pattern = text(options, "regex");
    let regex = if pattern.is_empty() {
        None
    } else {
        Some(
            fancy_regex::Regex::new(&pattern)
                .map_err(|e| format!("Sse: regex {pattern:?} is not a regular expression: {e}"))?,
        )
    };
    Ok(Filter {
        count,
        types: event_types(options),
        regex,
        timeout: millis(options, "timeout", DEFAULT_READ_TIMEOUT_MS, true)?
            .map(Duration::from_millis),
        reconnect: options.get("reconnect").is_none_or(truthy),
    })
}

impl SseStream {
    fn is_open(&self) -> bool {
        self.0
            .lock()
            .stream
            .as_ref()
            .is_some_and(|s| s.closed_reason().is_none())
    }

    /// The matched events, each a map of `type`, `data` and `id`; how the read ended is
    /// in `end` and `message`.
    fn read(&mut self, options: &Map) -> ShimResult<Array> {
        let filter = filter(options)?;
        let mut shared = self.0.lock();
        let Some(stream) = shared.stream.as_mut() else {
            return error(format!("Sse: the stream {} is closed", shared.url));
        };
        // Nothing cancels a script's read but its timeout.
        let outcome = block_on(stream.read(&filter, &CancellationToken::new()))?;
        let last_error = outcome.errors.last().cloned().unwrap_or_default();
        let (end, message) = match outcome.end {
            End::Done => ("done", last_error),
            End::TimedOut => ("timeout", last_error),
            End::Closed(reason) => ("closed", reason),
            End::Refused(opened) => (
                "refused",
                format!("Reconnection refused: {} {}", opened.status, opened.reason),
            ),
            End::Stopped => ("stopped", String::new()),
        };
        shared.end = end;
        shared.message = message;
        Ok(outcome
            .matched
            .into_iter()
            .map(|received| {
                let event = received.event;
                let mut map = Map::new();
                map.insert("type".into(), event.event_type.into());
                map.insert("data".into(), event.data.into());
                map.insert("id".into(), event.id.into());
                map.insert("at_ms".into(), Dynamic::from(received.at_ms as INT));
                Dynamic::from_map(map)
            })
            .collect())
    }

    /// The next line of the events (see the module doc).
    fn read_line(&mut self) -> ShimResult<Dynamic> {
        if self.0.lock().lines.is_empty() {
            let events = match self.read(&Map::new()) {
                Ok(events) => events,
                // A closed stream reads as its end, as a reader over a closed body does.
                Err(_) => return Ok(Dynamic::UNIT),
            };
            let Some(event) = events.first().and_then(|e| e.read_lock::<Map>()) else {
                return Ok(Dynamic::UNIT);
            };
            let field = |name: &str| event.get(name).map(|v| v.to_string()).unwrap_or_default();
            let mut lines = VecDeque::new();
            lines.push_back(format!("event: {}", field("type")));
            let id = field("id");
            if !id.is_empty() {
                lines.push_back(format!("id: {id}"));
            }
            for line in field("data").split('\n') {
                lines.push_back(format!("data: {line}"));
            }
            lines.push_back(String::new());
            self.0.lock().lines = lines;
        }
        Ok(self
            .0
            .lock()
            .lines
            .pop_front()
            .map_or(Dynamic::UNIT, Dynamic::from))
    }

    /// Closes the connection; reading again is an error.
    pub(super) fn close(&mut self) {
        let mut shared = self.0.lock();
        shared.stream = None;
        shared.lines.clear();
        shared.end = "closed";
        shared.message = "the script closed the stream".into();
    }
}
