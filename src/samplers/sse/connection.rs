//! One HTTP/1.1 connection carrying an event stream: the GET written with the headers
//! an EventSource sends, the response head read within the response timeout, then the
//! body read piece by piece ([`Connection::read`]) for as long as the stream lasts.
//!
//! The TCP connect (with the HTTP sampler's names for its failures), TLS and the URL
//! come from the HTTP sampler ([`crate::samplers::http`]); the stream itself cannot go
//! through its client, which reads whole bodies.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::body::Body;
use crate::samplers::http::{
    connect_with_user_dns, tls_handshake, Outgoing, Pool, Stream, TransportError, Url,
};

/// Why a stream could not be opened or read: a Java exception's class and message,
/// named as the HTTP sampler names its transport errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamError {
    pub class: &'static str,
    pub message: String,
}

impl StreamError {
    /// As Java prints the exception.
    pub fn describe(&self) -> String {
        format!("{}: {}", self.class, self.message)
    }

    pub(in crate::samplers) fn transport(&self) -> TransportError {
        TransportError {
            class: self.class,
            message: self.message.clone(),
        }
    }
}

impl From<TransportError> for StreamError {
    fn from(error: TransportError) -> StreamError {
        StreamError {
            class: error.class,
            message: error.message,
        }
    }
}

/// Longest response head accepted.
const MAX_HEAD: usize = 64 * 1024;

/// What `User-Agent` says unless the plan sets one.
const USER_AGENT: &str = concat!("jmxr/", env!("CARGO_PKG_VERSION"));

/// Where and how a stream connects.
#[derive(Debug, Clone)]
pub struct StreamRequest {
    pub(in crate::samplers) url: Url,
    /// The plan's headers (Header Managers, cookies), in order.
    pub headers: Vec<(String, String)>,
    /// Bounds the TCP connect and the TLS handshake.
    pub connect_timeout: Option<Duration>,
    /// Bounds the wait for the response head.
    pub response_timeout: Option<Duration>,
    pub verify_certificates: bool,
}

impl StreamRequest {
    /// A request for `url` (`http` or `https`) with the plan's `headers`, no timeouts
    /// and certificates trusted; the message says why the URL cannot be used.
    pub fn new(url: &str, headers: Vec<(String, String)>) -> Result<StreamRequest, String> {
        let parsed = Url::parse(url.trim())?;
        if parsed.scheme != "http" && parsed.scheme != "https" {
            return Err(format!("unknown protocol: {}", parsed.scheme));
        }
        if parsed.host.is_empty() {
            return Err(format!("no host in URL: {url}"));
        }
        Ok(StreamRequest {
            url: parsed,
            headers,
            connect_timeout: None,
            response_timeout: None,
            verify_certificates: false,
        })
    }

    /// The URL as Java's `URL.toString` writes it.
    pub fn url_text(&self) -> String {
        self.url.to_string()
    }
}

/// What opening a connection exchanged.
#[derive(Debug, Clone)]
pub struct Opened {
    pub status: u16,
    pub reason: String,
    /// Status line and header lines, each ending in `\n`.
    pub head: String,
    pub headers: Vec<(String, String)>,
    /// The request's header lines, each ending in `\n`.
    pub request_headers: String,
    pub sent: usize,
    pub head_size: usize,
    pub connect_ms: i64,
    /// From the start of the open to the end of the response head.
    pub latency_ms: i64,
}

impl Opened {
    /// The last header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the response is an event stream (status 200, `text/event-stream`).
    pub fn is_event_stream(&self) -> bool {
        self.status == 200
            && self
                .header("Content-Type")
                .is_some_and(is_event_stream_type)
    }
}

/// Whether a Content-Type names `text/event-stream` (parameters aside).
pub fn is_event_stream_type(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("text/event-stream"))
}

/// One read of the body.
#[derive(Debug, PartialEq, Eq)]
pub enum Read {
    /// Content bytes (possibly none, when only framing arrived); `wire` bytes were read.
    Content { bytes: Vec<u8>, wire: usize },
    /// The body ended or the server closed the connection.
    Ended,
    /// Nothing arrived within the time given.
    TimedOut,
}

/// An open connection whose response head has been read.
pub struct Connection {
    stream: Stream,
    /// Body bytes that came with the head.
    early: Vec<u8>,
    body: Body,
}

fn transport(class: &'static str, message: impl Into<String>) -> StreamError {
    StreamError {
        class,
        message: message.into(),
    }
}

fn read_timed_out() -> StreamError {
    transport("java.net.SocketTimeoutException", "Read timed out")
}

fn io_error(error: &std::io::Error) -> StreamError {
    match error.kind() {
        std::io::ErrorKind::ConnectionReset => {
            transport("java.net.SocketException", "Connection reset")
        }
        _ => transport("java.io.IOException", error.to_string()),
    }
}

impl Connection {
    /// Connects and sends the GET (with `Last-Event-ID` when `last_event_id` is not
    /// empty); returns once the response head is read, whatever its status.
    pub async fn open(
        request: &StreamRequest,
        last_event_id: &str,
    ) -> Result<(Connection, Opened), StreamError> {
        let started = Instant::now();
        let (head, request_headers) = request_head(request, last_event_id);
        let out = Outgoing {
            url: &request.url,
            method: "GET",
            head: head.as_bytes(),
            body: &[],
            keep_alive: true,
            connect_timeout: request.connect_timeout,
            read_timeout: request.response_timeout,
            verify_certificates: request.verify_certificates,
            client_cert: None,
            dns: None,
            local_address: None,
            max_body: crate::samplers::http::DEFAULT_MAX_BODY,
        };
        let tcp = connect_with_user_dns(&mut Pool::default(), &out).await?;
        let mut stream = if request.url.scheme == "https" {
            let host = request
                .url
                .host
                .trim_start_matches('[')
                .trim_end_matches(']');
            let handshake = tls_handshake(tcp, host, request.verify_certificates);
            let done = match request.connect_timeout {
                Some(limit) => tokio::time::timeout(limit, handshake)
                    .await
                    .map_err(|_| read_timed_out())?,
                None => handshake.await,
            };
            done.map_err(|e| transport("javax.net.ssl.SSLHandshakeException", e.to_string()))?
        } else {
            Stream::Plain(tcp)
        };
        let connect_ms = millis(started);
        stream
            .write_all(head.as_bytes())
            .await
            .map_err(|e| io_error(&e))?;
        let read_head = read_head(&mut stream);
        let (raw_head, early) = match request.response_timeout {
            Some(limit) => tokio::time::timeout(limit, read_head)
                .await
                .map_err(|_| read_timed_out())??,
            None => read_head.await?,
        };
        let mut opened = parse_head(&raw_head);
        opened.request_headers = request_headers;
        opened.sent = head.len();
        opened.connect_ms = connect_ms;
        opened.latency_ms = millis(started);
        let body = Body::new(
            opened.header("Transfer-Encoding"),
            opened.header("Content-Length"),
            opened.header("Content-Encoding"),
        )
        .map_err(|message| transport("org.apache.http.ProtocolException", message))?;
        Ok((
            Connection {
                stream,
                early,
                body,
            },
            opened,
        ))
    }

    /// Reads what comes next of the body, waiting at most `timeout` (`None`: no limit).
    pub async fn read(&mut self, timeout: Option<Duration>) -> Result<Read, StreamError> {
        if self.body.ended() {
            return Ok(Read::Ended);
        }
        let mut raw = std::mem::take(&mut self.early);
        if raw.is_empty() {
            raw.reserve(8192);
            let read = self.stream.read_buf(&mut raw);
            let count = match timeout {
                Some(limit) => match tokio::time::timeout(limit, read).await {
                    Ok(done) => done,
                    Err(_) => return Ok(Read::TimedOut),
                },
                None => read.await,
            }
            .map_err(|e| io_error(&e))?;
            if count == 0 {
                return Ok(Read::Ended);
            }
        }
        let mut bytes = Vec::with_capacity(raw.len());
        self.body.feed(&raw, &mut bytes).map_err(|message| {
            transport("org.apache.http.MalformedChunkCodingException", message)
        })?;
        Ok(Read::Content {
            bytes,
            wire: raw.len(),
        })
    }

    /// Reads the rest of a short body (an error page), at most `limit` bytes or until
    /// `timeout` passes.
    pub async fn read_error_body(&mut self, timeout: Duration, limit: usize) -> Vec<u8> {
        let deadline = Instant::now() + timeout;
        let mut body = Vec::new();
        while body.len() < limit {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.read(Some(left)).await {
                Ok(Read::Content { bytes, .. }) => body.extend(bytes),
                _ => break,
            }
        }
        body.truncate(limit);
        body
    }
}

fn millis(started: Instant) -> i64 {
    i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX)
}

/// The request head and its header lines as the sample shows them. The plan's
/// headers win over the defaults of the same name; `Last-Event-ID` is the stream's.
fn request_head(request: &StreamRequest, last_event_id: &str) -> (String, String) {
    let has = |name: &str| {
        request
            .headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case(name))
    };
    let mut headers: Vec<(&str, &str)> = Vec::new();
    if !has("Accept") {
        headers.push(("Accept", "text/event-stream"));
    }
    if !has("Cache-Control") {
        headers.push(("Cache-Control", "no-cache"));
    }
    for (name, value) in &request.headers {
        let fixed = ["Host", "Connection", "Content-Length", "Transfer-Encoding"];
        let ours = fixed.iter().any(|f| f.eq_ignore_ascii_case(name))
            || (name.eq_ignore_ascii_case("Last-Event-ID") && !last_event_id.is_empty());
        if !ours {
            headers.push((name, value));
        }
    }
    if !last_event_id.is_empty() {
        headers.push(("Last-Event-ID", last_event_id));
    }
    if !has("User-Agent") {
        headers.push(("User-Agent", USER_AGENT));
    }
    headers.push(("Connection", "keep-alive"));
    let host = request.url.host_header();
    let mut shown = String::new();
    let mut head = format!(
        "GET {} HTTP/1.1\r\nHost: {host}\r\n",
        request.url.path_and_query
    );
    for (name, value) in headers {
        // A line break in a value would end the head early: such values are cut there.
        let value = value.split(['\r', '\n']).next().unwrap_or("");
        for text in [name, ": ", value] {
            head.push_str(text);
            shown.push_str(text);
        }
        head.push_str("\r\n");
        shown.push('\n');
    }
    head.push_str("\r\n");
    (head, shown)
}

/// Reads up to the empty line that ends the response head; returns the head and the
/// body bytes read with it.
async fn read_head(stream: &mut Stream) -> Result<(Vec<u8>, Vec<u8>), StreamError> {
    let mut buffer = Vec::with_capacity(4096);
    loop {
        if let Some(end) = head_end(&buffer) {
            let early = buffer.split_off(end);
            return Ok((buffer, early));
        }
        if buffer.len() > MAX_HEAD {
            return Err(transport(
                "org.apache.http.ProtocolException",
                "response head too large",
            ));
        }
        buffer.reserve(4096);
        let read = stream
            .read_buf(&mut buffer)
            .await
            .map_err(|e| io_error(&e))?;
        if read == 0 {
            return Err(transport(
                "org.apache.http.NoHttpResponseException",
                "The target server failed to respond",
            ));
        }
    }
}

/// Where the body starts: after the first empty line (CRLF CRLF, or bare LFs).
fn head_end(buffer: &[u8]) -> Option<usize> {
    let mut at = 0;
    while let Some(lf) = memchr::memchr(b'\n', &buffer[at..]) {
        let next = at + lf + 1;
        match buffer.get(next) {
            Some(b'\n') => return Some(next + 1),
            Some(b'\r') if buffer.get(next + 1) == Some(&b'\n') => return Some(next + 2),
            _ => at = next,
        }
    }
    None
}

/// The status, reason and headers of a response head.
fn parse_head(raw: &[u8]) -> Opened {
    let text = String::from_utf8_lossy(raw);
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let status_line = lines.next().unwrap_or("");
    let mut parts = status_line.splitn(3, ' ');
    let _version = parts.next();
    let status = parts.next().and_then(|c| c.parse().ok()).unwrap_or(0);
    let reason = parts.next().unwrap_or("").to_string();
    let mut head = format!("{status_line}\n");
    let mut headers = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        head.push_str(line);
        head.push('\n');
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    Opened {
        status,
        reason,
        head,
        headers,
        request_headers: String::new(),
        sent: 0,
        head_size: raw.len(),
        connect_ms: 0,
        latency_ms: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(headers: &[(&str, &str)]) -> StreamRequest {
        let headers = headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        StreamRequest::new("http://127.0.0.1:8080/events?room=1", headers).unwrap()
    }

    #[test]
    fn the_request_asks_for_an_event_stream_and_resumes_from_the_last_id() {
        let (head, shown) =
            request_head(&request(&[("X-Token", "t1"), ("Last-Event-ID", "3")]), "9");
        assert!(head.starts_with("GET /events?room=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\nX-Token: t1\r\nLast-Event-ID: 9\r\n"));
        assert!(head.ends_with("Connection: keep-alive\r\n\r\n"));
        assert!(shown.contains("X-Token: t1\n") && !shown.contains("Last-Event-ID: 3"));
        // A Header Manager's Accept and first Last-Event-ID are the plan's to give.
        let (head, _) = request_head(&request(&[("accept", "*/*"), ("Last-Event-ID", "3")]), "");
        assert!(head.contains("accept: */*\r\n") && !head.contains("text/event-stream"));
        assert!(head.contains("Last-Event-ID: 3\r\n"));
    }

    #[test]
    fn heads_are_found_and_read() {
        let raw = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nX: 1\r\n\r\ndata: a\n\n";
        let end = head_end(raw).unwrap();
        assert_eq!(&raw[end..], b"data: a\n\n");
        let opened = parse_head(&raw[..end]);
        assert_eq!((opened.status, opened.reason.as_str()), (200, "OK"));
        assert!(opened.is_event_stream());
        assert_eq!(
            opened.head,
            "HTTP/1.1 200 OK\nContent-Type: text/event-stream; charset=utf-8\nX: 1\n"
        );
        assert_eq!(head_end(b"HTTP/1.1 204 No Content\n\nrest"), Some(25));
        assert_eq!(head_end(b"HTTP/1.1 200 OK\r\nX: 1\r\n"), None);
        assert!(!is_event_stream_type("text/html"));
        assert!(StreamRequest::new("ws://host/x", Vec::new()).is_err());
        assert!(StreamRequest::new("http:///x", Vec::new()).is_err());
    }
}
