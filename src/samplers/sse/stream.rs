//! An event stream as an EventSource keeps it: the connection, the parser state, the
//! last event ID and the reconnection time, and the events parsed but not yet read.
//!
//! [`EventStream::read`] reads events until enough of them match a [`Filter`], the
//! timeout passes or the stream ends. When the server ends the stream (or the
//! connection breaks), the read waits the reconnection time (the server's last
//! `retry`, counted from when the stream ended) and connects again with
//! `Last-Event-ID`, within the same timeout: a network failure is retried after
//! another wait, an answer that is not an event stream (`204` included) closes the
//! stream for good, as the EventSource standard has it.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use fancy_regex::Regex;
use tokio_util::sync::CancellationToken;

use super::connection::{Connection, Opened, Read, StreamError, StreamRequest};
use super::parser::{Event, EventParser, Lines};

/// Which events a read counts and when it ends.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// How many matching events end the read; 0: read until the timeout (or, without
    /// one, until the stream ends).
    pub count: usize,
    /// Event types that match; empty: any.
    pub types: Vec<String>,
    /// A pattern the data must contain.
    pub regex: Option<Regex>,
    pub timeout: Option<Duration>,
    /// Reconnect when the stream ends during the read.
    pub reconnect: bool,
}

impl Filter {
    fn matches(&self, event: &Event) -> bool {
        (self.types.is_empty() || self.types.contains(&event.event_type))
            && self
                .regex
                .as_ref()
                .is_none_or(|r| r.is_match(&event.data).unwrap_or(false))
    }
}

/// An event a read matched, and when it was taken (ms from the start of the read).
#[derive(Debug, Clone)]
pub struct Received {
    pub event: Event,
    pub at_ms: i64,
}

/// Why a read ended.
#[derive(Debug, Clone)]
pub enum End {
    /// The count was reached; or, counting nothing, the timeout passed or the stream ended.
    Done,
    TimedOut,
    /// The stream ended (or is closed for good, with the reason) and the read could not
    /// reconnect.
    Closed(String),
    /// A reconnection was answered by something else than an event stream.
    Refused(Box<Opened>),
    /// The run is stopping.
    Stopped,
}

/// What one read did.
#[derive(Debug, Clone)]
pub struct ReadOutcome {
    pub matched: Vec<Received>,
    pub skipped: usize,
    pub end: End,
    /// The connections made during the read.
    pub reconnections: Vec<Opened>,
    /// The connection errors met (a broken stream, a failed reconnection).
    pub errors: Vec<String>,
    /// Body bytes read off the wire.
    pub wire_bytes: u64,
}

/// See the module doc.
pub struct EventStream {
    request: StreamRequest,
    connection: Option<Connection>,
    lines: Lines,
    parser: EventParser,
    queue: VecDeque<Event>,
    /// The reconnection time, ms.
    retry_ms: u64,
    /// When the connection ended (the reconnection time counts from there).
    ended_at: Option<Instant>,
    /// Why the stream will not reconnect any more.
    closed: Option<String>,
}

impl EventStream {
    /// Connects; the stream is returned whatever the answer (see [`Opened::is_event_stream`]).
    pub async fn connect(
        request: StreamRequest,
        last_event_id: &str,
        retry_ms: u64,
    ) -> Result<(EventStream, Opened), StreamError> {
        let (connection, opened) = Connection::open(&request, last_event_id).await?;
        let mut stream = EventStream {
            request,
            connection: Some(connection),
            lines: Lines::default(),
            parser: EventParser::with_last_event_id(last_event_id),
            queue: VecDeque::new(),
            retry_ms,
            ended_at: None,
            closed: None,
        };
        if !opened.is_event_stream() {
            stream.closed = Some(not_a_stream(&opened));
        }
        Ok((stream, opened))
    }

    /// The URL the stream connects to.
    pub fn url_text(&self) -> String {
        self.request.url_text()
    }

    pub(in crate::samplers) fn url(&self) -> &crate::samplers::http::Url {
        &self.request.url
    }

    /// The connection, to read an error page's body.
    pub fn connection(&mut self) -> Option<&mut Connection> {
        self.connection.as_mut()
    }

    pub fn last_event_id(&self) -> &str {
        self.parser.last_event_id()
    }

    /// Why the stream will not reconnect, once it will not.
    pub fn closed_reason(&self) -> Option<&str> {
        self.closed.as_deref()
    }

    /// The request a reconnection sends, with fresh headers (cookies may have changed).
    pub fn set_headers(&mut self, headers: Vec<(String, String)>) {
        self.request.headers = headers;
    }

    /// Reads events; see the module doc.
    pub async fn read(&mut self, filter: &Filter, stop: &CancellationToken) -> ReadOutcome {
        let started = Instant::now();
        let deadline = filter.timeout.map(|t| started + t);
        let mut out = ReadOutcome {
            matched: Vec::new(),
            skipped: 0,
            end: End::Done,
            reconnections: Vec::new(),
            errors: Vec::new(),
            wire_bytes: 0,
        };
        // Counting nothing with no timeout, the read ends with the stream.
        let may_reconnect = filter.reconnect && (filter.count > 0 || deadline.is_some());
        loop {
            while let Some(event) = self.queue.pop_front() {
                if !filter.matches(&event) {
                    out.skipped += 1;
                    continue;
                }
                let at_ms = millis(started.elapsed());
                out.matched.push(Received { event, at_ms });
                if filter.count > 0 && out.matched.len() >= filter.count {
                    return out;
                }
            }
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            if left == Some(Duration::ZERO) {
                out.end = counted_end(filter, End::TimedOut);
                return out;
            }
            if self.connection.is_none() {
                let why = match &self.closed {
                    Some(reason) => reason.clone(),
                    None if may_reconnect => {
                        if let Some(end) = self.reconnect(left, stop, &mut out).await {
                            out.end = counted_end(filter, end);
                            return out;
                        }
                        continue;
                    }
                    None => "the server closed the stream".to_string(),
                };
                out.end = counted_end(filter, End::Closed(why));
                return out;
            }
            let connection = self.connection.as_mut().expect("checked above");
            let read = tokio::select! {
                read = connection.read(left) => read,
                _ = stop.cancelled() => {
                    out.end = End::Stopped;
                    return out;
                }
            };
            match read {
                Ok(Read::Content { bytes, wire }) => {
                    out.wire_bytes += wire as u64;
                    self.absorb(&bytes);
                }
                Ok(Read::TimedOut) => {}
                Ok(Read::Ended) => self.lose_connection(),
                Err(error) => {
                    out.errors.push(error.describe());
                    self.lose_connection();
                }
            }
        }
    }

    /// Waits the reconnection time and connects again; the end of the read when it
    /// cannot go on.
    async fn reconnect(
        &mut self,
        left: Option<Duration>,
        stop: &CancellationToken,
        out: &mut ReadOutcome,
    ) -> Option<End> {
        let waited = self.ended_at.map_or(Duration::ZERO, |at| at.elapsed());
        let wait = Duration::from_millis(self.retry_ms).saturating_sub(waited);
        let limit = left.unwrap_or(Duration::MAX);
        tokio::select! {
            _ = tokio::time::sleep(wait.min(limit)) => {}
            _ = stop.cancelled() => return Some(End::Stopped),
        }
        if wait >= limit {
            return Some(End::TimedOut);
        }
        let left = left.map(|l| l.saturating_sub(wait));
        let id = self.parser.last_event_id().to_string();
        let attempt = Connection::open(&self.request, &id);
        let opened = tokio::select! {
            opened = within(left, attempt) => opened,
            _ = stop.cancelled() => return Some(End::Stopped),
        };
        match opened {
            Some(Ok((connection, opened))) => {
                if !opened.is_event_stream() {
                    self.closed = Some(not_a_stream(&opened));
                    return Some(End::Refused(Box::new(opened)));
                }
                self.connection = Some(connection);
                self.ended_at = None;
                out.reconnections.push(opened);
                None
            }
            Some(Err(error)) => {
                out.errors.push(error.describe());
                self.ended_at = Some(Instant::now());
                None
            }
            None => Some(End::TimedOut),
        }
    }

    /// Parses content bytes into queued events.
    fn absorb(&mut self, bytes: &[u8]) {
        self.lines.push(bytes);
        while let Some(line) = self.lines.next_line() {
            if let Some(event) = self.parser.line(&line) {
                self.queue.push_back(event);
            }
        }
        if let Some(retry) = self.parser.retry() {
            self.retry_ms = retry;
        }
    }

    /// The connection ended: what was gathered of an event is dropped.
    fn lose_connection(&mut self) {
        self.connection = None;
        self.ended_at = Some(Instant::now());
        let _ = self.lines.finish();
        self.parser.discard_pending();
    }
}

/// Runs `future` within `limit` (`None`: no limit); `None` when the time ran out.
async fn within<T>(
    limit: Option<Duration>,
    future: impl std::future::Future<Output = T>,
) -> Option<T> {
    match limit {
        Some(limit) => tokio::time::timeout(limit, future).await.ok(),
        None => Some(future.await),
    }
}

/// A read that counts nothing ends normally at the timeout or the end of the stream.
fn counted_end(filter: &Filter, end: End) -> End {
    match end {
        End::TimedOut | End::Closed(_) if filter.count == 0 => End::Done,
        other => other,
    }
}

fn not_a_stream(opened: &Opened) -> String {
    match opened.status {
        200 => format!(
            "the server answered with Content-Type {:?}, not text/event-stream",
            opened.header("Content-Type").unwrap_or("")
        ),
        204 => "the server answered 204 No Content: it asks not to reconnect".into(),
        status => format!("the server answered {status} {}", opened.reason),
    }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
