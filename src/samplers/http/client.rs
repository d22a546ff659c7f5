//! A small HTTP/1.1 client over tokio, made to measure what JMeter measures.
//!
//! Each virtual user owns a [`Pool`] of kept-alive connections (JMeter's HttpClient 4
//! keeps one pool per thread). One [`exchange`] sends a request and reads the response,
//! counting wire bytes both ways and taking three instants from the sample's start:
//! connection established (Connect: DNS + TCP; 0 when a kept-alive connection is
//! reused), first body byte (Latency; after the head when the body is empty; 0 when the
//! response has no body at all, as HttpClient never reads one) and end.
//!
//! New connections resolve the host through [`dns`] (the DNS Cache Manager's per-user
//! cache and servers, else the system resolver) and, with a source address
//! (`HTTPSampler.ipSource`), are bound to it before connecting; as in HttpClient, the
//! source address is part of what a kept-alive connection is reused for.
//!
//! A kept-alive connection the server has closed in the meantime is detected when the
//! request gets no answer; the request is then sent once more on a new connection, as
//! HttpClient's stale-connection check avoids the error in the first place.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use super::dns::{self, DnsCache, DnsManagerSpec};
use super::keystore::ClientCert;
use super::tls::{self, Stream};
use super::url::Url;

/// Longest response head accepted (status line and headers).
pub const MAX_HEAD: usize = 256 * 1024;

/// The property that bounds a response body, in bytes, as received and once decoded.
pub const MAX_BODY_PROPERTY: &str = "jmxr.http.max_response_body";
/// Largest response body read or decoded unless the property says otherwise: JMeter
/// keeps whole bodies in its heap (and fails with an `OutOfMemoryError` on a decompression
/// bomb); a bound keeps a misbehaving server from exhausting memory.
pub const DEFAULT_MAX_BODY: usize = 128 * 1024 * 1024;

/// Room made in the read buffer before each read.
const READ_BUFFER: usize = 8192;

/// A transport failure, named as JMeter (HttpClient 4 on Java) names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportError {
    /// Fully qualified Java exception class.
    pub class: &'static str,
    pub message: String,
}

impl TransportError {
    fn new(class: &'static str, message: impl Into<String>) -> TransportError {
        TransportError {
            class,
            message: message.into(),
        }
    }
}

/// One open connection and what it has read past the last response.
struct Conn {
    key: ConnKey,
    stream: Stream,
    /// Read buffer, kept with the connection so that reading allocates nothing.
    buf: Vec<u8>,
}

/// Which origin a connection talks to, from which local address.
#[derive(PartialEq, Eq)]
struct ConnKey {
    https: bool,
    host: String,
    port: u16,
    local: Option<IpAddr>,
}

impl ConnKey {
    fn matches(&self, url: &Url, local: Option<IpAddr>) -> bool {
        self.port == url.effective_port()
            && self.https == (url.scheme == "https")
            && self.host == url.host
            && self.local == local
    }
}

/// The connection state of one virtual user: kept-alive connections and, as
/// HttpClient's per-thread connection manager holds the DNS resolver, the user's DNS
/// Cache Manager caches.
#[derive(Default)]
pub struct Pool {
    idle: Vec<Conn>,
    /// One cache per DNS Cache Manager, keyed by the manager's location in the plan.
    dns: HashMap<String, DnsCache>,
    /// The thread-group iteration the DNS caches were last used in.
    dns_iteration: Option<u64>,
    /// The client keystore entry this user took at its first handshake, handed out in
    /// turn (see [`ClientCert::config`]).
    client_key: Option<usize>,
}

impl Pool {
    /// Closes every kept-alive connection (a new user identity on a new iteration).
    pub fn clear(&mut self) {
        self.idle.clear();
        // A new user identity starts a new SSL context, which takes the next entry.
        self.client_key = None;
    }

    /// The client keystore entry this user took, for the HTTP/2 client's handshakes.
    pub(super) fn client_key_slot(&mut self) -> &mut Option<usize> {
        &mut self.client_key
    }

    /// The user's cache for the manager, cleared at a new iteration when the manager asks.
    pub fn dns_cache(&mut self, manager: &DnsManagerSpec, iteration: u64) -> &mut DnsCache {
        if self.dns_iteration != Some(iteration) {
            if manager.clear_each_iteration {
                if let Some(cache) = self.dns.get_mut(&manager.key) {
                    cache.clear();
                }
            }
            self.dns_iteration = Some(iteration);
        }
        self.dns.entry(manager.key.clone()).or_default()
    }

    /// A pool for one parallel download of `url`: one idle connection to its origin, if
    /// the user has one, and copies of the DNS caches.
    pub fn lend_for(&mut self, url: &Url, local: Option<IpAddr>) -> Pool {
        let mut lent = Pool {
            idle: Vec::new(),
            dns: self.dns.clone(),
            dns_iteration: self.dns_iteration,
            client_key: self.client_key,
        };
        if let Some(pos) = self.idle.iter().position(|c| c.key.matches(url, local)) {
            lent.idle.push(self.idle.remove(pos));
        }
        lent
    }

    /// A pool with copies of the DNS caches and no connection (a Parallel Controller's
    /// branch opens its own).
    pub fn lend_without_connections(&self) -> Pool {
        Pool {
            idle: Vec::new(),
            dns: self.dns.clone(),
            dns_iteration: self.dns_iteration,
            client_key: self.client_key,
        }
    }

    /// Takes back a lent pool: its kept-alive connections and what its DNS caches learnt.
    pub fn give_back(&mut self, lent: Pool) {
        self.idle.extend(lent.idle);
        self.client_key = self.client_key.or(lent.client_key);
        for (key, cache) in lent.dns {
            self.dns.entry(key).or_default().absorb(cache);
        }
    }
}

/// What to send.
pub struct Outgoing<'a> {
    pub url: &'a Url,
    pub method: &'a str,
    /// Request line and headers, ending with the empty line.
    pub head: &'a [u8],
    pub body: &'a [u8],
    pub keep_alive: bool,
    pub connect_timeout: Option<Duration>,
    pub read_timeout: Option<Duration>,
    /// HTTPS: check certificates (off by default, as in JMeter).
    pub verify_certificates: bool,
    /// HTTPS: the client keystore's choice for new connections, when the run has one.
    pub client_cert: Option<&'a ClientCert>,
    /// The DNS Cache Manager in scope, if any.
    pub dns: Option<&'a DnsManagerSpec>,
    /// The source address to bind new connections to (`HTTPSampler.ipSource`).
    pub local_address: Option<IpAddr>,
    /// Largest body accepted ([`MAX_BODY_PROPERTY`]).
    pub max_body: usize,
}

/// What came back, with the measurements.
pub struct Incoming {
    pub status: u16,
    /// The response head as JMeter records it: the status line and the header lines
    /// as received, each ending in `\n` instead of CRLF (HttpClient's header text).
    head: String,
    /// Where the status line's reason and each header's name and value sit in `head`.
    reason: Range<usize>,
    headers: Vec<(Range<usize>, Range<usize>)>,
    /// The headers every response is asked for, found while parsing the head.
    known: KnownHeaders,
    /// Body as received on the wire (before content decoding, after de-chunking).
    pub body: Vec<u8>,
    /// Bytes received for this exchange: head and body as transferred.
    pub received: i64,
    pub sent: i64,
    pub connect_ms: i64,
    pub latency_ms: i64,
}

impl Incoming {
    /// A response that did not come as HTTP/1.1 text (HTTP/2): `head` is written as a
    /// status line and header lines separated by CRLF, so that it is reported as
    /// HTTP/1.1 responses are.
    pub(super) fn from_head(status: u16, head: String, body: Vec<u8>) -> Incoming {
        // The head is written from HTTP/2 frames, which hold no line HTTP/1.1 refuses.
        let (head, reason, headers, known) = match parse_head(&head) {
            Ok(parsed) => (parsed.text, parsed.reason, parsed.headers, parsed.known),
            Err(_) => (
                condensed_head(&head),
                0..0,
                Vec::new(),
                KnownHeaders::default(),
            ),
        };
        Incoming {
            status,
            head,
            reason,
            headers,
            known,
            body,
            received: 0,
            sent: 0,
            connect_ms: 0,
            latency_ms: 0,
        }
    }

    /// The status line and header lines as received, each ending in `\n`.
    pub fn head(&self) -> &str {
        &self.head
    }

    /// The head text, for the sample's response headers; the headers cannot be asked
    /// for afterwards.
    pub(super) fn take_head(&mut self) -> String {
        self.headers.clear();
        self.known = KnownHeaders::default();
        self.reason = 0..0;
        std::mem::take(&mut self.head)
    }

    pub fn reason(&self) -> &str {
        &self.head[self.reason.clone()]
    }

    /// Headers in order, names and values trimmed.
    pub fn headers(&self) -> impl DoubleEndedIterator<Item = (&str, &str)> + '_ {
        self.headers
            .iter()
            .map(|(n, v)| (&self.head[n.clone()], &self.head[v.clone()]))
    }

    pub fn header_count(&self) -> usize {
        self.headers.len()
    }

    /// The last header of a name every response is asked for, noted while the head was
    /// parsed: no name is compared again.
    pub fn known_header(&self, which: Known) -> Option<&str> {
        let at = self.known.last[which as usize].checked_sub(1)?;
        Some(&self.head[self.headers[at as usize].1.clone()])
    }

    /// The last header `name` (case-insensitive), as HttpClient's `getLastHeader`: the
    /// general lookup that [`Incoming::known_header`] stands for in the client.
    #[cfg(test)]
    pub fn header(&self, name: &str) -> Option<&str> {
        let head = self.head.as_bytes();
        self.headers
            .iter()
            .rev()
            .find(|(n, _)| head[n.clone()].eq_ignore_ascii_case(name.as_bytes()))
            .map(|(_, v)| &self.head[v.clone()])
    }
}

/// The headers the client and the sampler ask every response for, in the order of
/// [`KnownHeaders::NAMES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    ContentLength = 0,
    TransferEncoding,
    Connection,
    ContentType,
    ContentEncoding,
    Location,
    SetCookie,
}

/// Where the last header of each name in [`KnownHeaders::NAMES`] is among a response's
/// headers.
#[derive(Debug, Default, Clone, Copy)]
struct KnownHeaders {
    /// Index + 1 of the last header with that name; 0 when there is none.
    last: [u32; KnownHeaders::NAMES.len()],
}

impl KnownHeaders {
    const NAMES: [&'static str; 7] = [
        "Content-Length",
        "Transfer-Encoding",
        "Connection",
        "Content-Type",
        "Content-Encoding",
        "Location",
        "Set-Cookie",
    ];

    /// The slot of a header name (any case), if it is one of [`KnownHeaders::NAMES`].
    fn slot(name: &[u8]) -> Option<usize> {
        // The length picks the one or two candidates: most names are rejected by it.
        let candidates: &[usize] = match name.len() {
            14 => &[0],
            17 => &[1],
            10 => &[2, 6],
            12 => &[3],
            16 => &[4],
            8 => &[5],
            _ => return None,
        };
        // Servers mostly write the names as the standards do: an exact match first.
        candidates.iter().copied().find(|&k| {
            let known = Self::NAMES[k].as_bytes();
            name == known || name.eq_ignore_ascii_case(known)
        })
    }

    fn note(&mut self, name: &[u8], index: usize) {
        if let Some(slot) = Self::slot(name) {
            self.last[slot] = u32::try_from(index + 1).unwrap_or(0);
        }
    }
}

/// Sends `out` on a kept-alive or new connection and reads the response.
pub async fn exchange(
    pool: &mut Pool,
    out: &Outgoing<'_>,
    started: Instant,
) -> Result<Incoming, TransportError> {
    if let Some(pos) = pool
        .idle
        .iter()
        .position(|c| c.key.matches(out.url, out.local_address))
    {
        let mut conn = pool.idle.swap_remove(pos);
        match send_and_read(&mut conn, out, started, 0).await {
            Ok((incoming, reusable)) => {
                if reusable {
                    pool.idle.push(conn);
                }
                return Ok(incoming);
            }
            Err(Attempt::Stale) => {}
            Err(Attempt::Failed(err)) => return Err(err),
        }
    }
    let tcp = connect_with_user_dns(pool, out).await?;
    let stream = if out.url.scheme == "https" {
        let host = out.url.host.trim_start_matches('[').trim_end_matches(']');
        let config = tls_config(out, pool.client_key_slot(), false)?;
        tls::handshake_with(tcp, host, config).await.map_err(|e| {
            let message = tls::received_alert(&e).unwrap_or_else(|| e.to_string());
            TransportError::new("javax.net.ssl.SSLHandshakeException", message)
        })?
    } else {
        Stream::Plain(tcp)
    };
    // Connect covers DNS, TCP and the TLS handshake, as HttpClient's connect does.
    let connect_ms = millis_since(started);
    exchange_on_new(pool, stream, out, started, connect_ms).await
}

/// The TLS configuration a new connection for `out` handshakes with: the shared one,
/// or the one presenting the client keystore's entry for this user (`users_entry` keeps
/// the entry handed out in turn).
pub(super) fn tls_config(
    out: &Outgoing<'_>,
    users_entry: &mut Option<usize>,
    offer_h2: bool,
) -> Result<Arc<rustls::ClientConfig>, TransportError> {
    match out.client_cert {
        Some(cert) => cert.config(out.verify_certificates, offer_h2, users_entry),
        None => Ok(tls::shared_config(out.verify_certificates, offer_h2)),
    }
}

/// Opens a TCP connection for `out`, names resolved through the user's DNS cache of the
/// plan's DNS Cache Manager when there is one.
pub(in crate::samplers) async fn connect_with_user_dns(
    pool: &mut Pool,
    out: &Outgoing<'_>,
) -> Result<TcpStream, TransportError> {
    let mut resolver = dns::Resolver {
        manager: out.dns,
        cache: out
            .dns
            .map(|manager| pool.dns.entry(manager.key.clone()).or_default()),
    };
    let tcp = connect(out, &mut resolver).await?;
    let _ = tcp.set_nodelay(true);
    Ok(tcp)
}

/// Sends `out` on `stream`, a connection just opened (`connect_ms` after the sample's
/// start), and keeps it in `pool` when it can be reused. The HTTP/2 path hands over
/// the TLS connections whose server chose HTTP/1.1 in ALPN this way.
pub(super) async fn exchange_on_new(
    pool: &mut Pool,
    stream: Stream,
    out: &Outgoing<'_>,
    started: Instant,
    connect_ms: i64,
) -> Result<Incoming, TransportError> {
    let key = ConnKey {
        https: out.url.scheme == "https",
        host: out.url.host.clone(),
        port: out.url.effective_port(),
        local: out.local_address,
    };
    let mut conn = Conn {
        key,
        stream,
        buf: Vec::with_capacity(READ_BUFFER),
    };
    match send_and_read(&mut conn, out, started, connect_ms).await {
        Ok((incoming, reusable)) => {
            if reusable {
                pool.idle.push(conn);
            }
            Ok(incoming)
        }
        Err(Attempt::Stale) => Err(no_response(out.url)),
        Err(Attempt::Failed(err)) => Err(err),
    }
}

fn no_response(url: &Url) -> TransportError {
    TransportError::new(
        "org.apache.http.NoHttpResponseException",
        format!("{}:{} failed to respond", url.host, url.effective_port()),
    )
}

pub(super) fn millis_since(started: Instant) -> i64 {
    i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX)
}

/// Resolves and connects, trying each address in turn, from the source address if set.
async fn connect(
    out: &Outgoing<'_>,
    resolver: &mut dns::Resolver<'_>,
) -> Result<TcpStream, TransportError> {
    let url = out.url;
    let port = url.effective_port();
    let host = url.host.trim_start_matches('[').trim_end_matches(']');
    let ips = resolver.resolve(host, port).await?;
    if ips.is_empty() {
        return Err(TransportError::new(
            "java.net.UnknownHostException",
            format!("{host}: Name or service not known"),
        ));
    }
    let listed: Vec<String> = ips
        .iter()
        .map(|ip| format!("{host}/{}", java_ip(*ip)))
        .collect();
    let prefix = format!("Connect to {host}:{port} [{}] failed: ", listed.join(", "));
    let mut last = None;
    for ip in &ips {
        let attempt = connect_one(SocketAddr::new(*ip, port), out.local_address);
        let result = match out.connect_timeout {
            Some(limit) => match tokio::time::timeout(limit, attempt).await {
                Ok(result) => result,
                Err(_) => {
                    return Err(TransportError::new(
                        "org.apache.http.conn.ConnectTimeoutException",
                        format!("{prefix}Connect timed out"),
                    ))
                }
            },
            None => attempt.await,
        };
        match result {
            Ok(stream) => return Ok(stream),
            // Java's bind fails before any connect and ends the attempt at once.
            Err(Connecting::Bind(err)) => return Err(bind_error(&err)),
            Err(Connecting::Connect(err)) => last = Some(err),
        }
    }
    Err(connect_failed(last.map(|e| e.kind()), &prefix))
}

/// The error HttpClient 4 reports when the last address failed: a refused connection
/// becomes its `HttpHostConnectException`, a kernel timeout its
/// `ConnectTimeoutException`; an unreachable network or host comes through as the
/// socket's own exception, which HttpClient does not wrap.
fn connect_failed(kind: Option<std::io::ErrorKind>, prefix: &str) -> TransportError {
    use std::io::ErrorKind;
    let (class, message) = match kind {
        Some(ErrorKind::NetworkUnreachable) => (
            "java.net.SocketException",
            "Network is unreachable".to_string(),
        ),
        Some(ErrorKind::HostUnreachable) => (
            "java.net.NoRouteToHostException",
            "No route to host".to_string(),
        ),
        Some(ErrorKind::TimedOut) => (
            "org.apache.http.conn.ConnectTimeoutException",
            format!("{prefix}Connection timed out"),
        ),
        // Java's connect returns with the handshake; a reset right after it shows on
        // the first read.
        Some(ErrorKind::ConnectionReset) => {
            ("java.net.SocketException", "Connection reset".to_string())
        }
        Some(ErrorKind::ConnectionRefused) | None => (
            "org.apache.http.conn.HttpHostConnectException",
            format!("{prefix}Connection refused"),
        ),
        Some(kind) => (
            "org.apache.http.conn.HttpHostConnectException",
            format!("{prefix}{kind}"),
        ),
    };
    TransportError::new(class, message)
}

/// Why one connection attempt failed.
enum Connecting {
    Bind(std::io::Error),
    Connect(std::io::Error),
}

/// Connects to `addr`, first binding to `local` when a source address is set.
async fn connect_one(addr: SocketAddr, local: Option<IpAddr>) -> Result<TcpStream, Connecting> {
    let Some(local) = local else {
        return TcpStream::connect(addr).await.map_err(Connecting::Connect);
    };
    let socket = if local.is_ipv4() {
        TcpSocket::new_v4()
    } else {
        TcpSocket::new_v6()
    }
    .map_err(Connecting::Bind)?;
    socket
        .bind(SocketAddr::new(local, 0))
        .map_err(Connecting::Bind)?;
    socket.connect(addr).await.map_err(Connecting::Connect)
}

/// `java.net.BindException` with the system's reason, as Java words it.
fn bind_error(err: &std::io::Error) -> TransportError {
    TransportError::new("java.net.BindException", os_reason(err))
}

/// The system's text for an I/O error without Rust's "(os error N)" suffix.
fn os_reason(err: &std::io::Error) -> String {
    let text = err.to_string();
    match text.rfind(" (os error") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}

/// An IP address as Java's `InetAddress.getHostAddress` writes it (IPv6 uncompressed).
fn java_ip(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => v6
            .segments()
            .iter()
            .map(|s| format!("{s:x}"))
            .collect::<Vec<_>>()
            .join(":"),
    }
}

enum Attempt {
    /// A reused connection gave no answer at all: retry on a new one.
    Stale,
    Failed(TransportError),
}

async fn send_and_read(
    conn: &mut Conn,
    out: &Outgoing<'_>,
    started: Instant,
    connect_ms: i64,
) -> Result<(Incoming, bool), Attempt> {
    let reused = connect_ms == 0;
    let write = async {
        conn.stream.write_all(out.head).await?;
        if !out.body.is_empty() {
            conn.stream.write_all(out.body).await?;
        }
        conn.stream.flush().await
    };
    if let Err(err) = write.await {
        return Err(if reused {
            Attempt::Stale
        } else {
            Attempt::Failed(io_error(&err))
        });
    }
    let sent = (out.head.len() + out.body.len()) as i64;
    conn.buf.clear();
    let reader = Reader {
        stream: &mut conn.stream,
        buf: &mut conn.buf,
        pos: 0,
        received: 0,
        timeout: out.read_timeout,
        max_body: out.max_body,
    };
    let (mut incoming, framing) = match read_response(reader, out.method, started).await {
        Ok(Some(read)) => read,
        Ok(None) if reused => return Err(Attempt::Stale),
        Ok(None) => return Err(Attempt::Failed(no_response(out.url))),
        Err(err) => return Err(Attempt::Failed(err)),
    };
    incoming.sent = sent;
    incoming.connect_ms = connect_ms;
    let close = incoming
        .known_header(Known::Connection)
        .is_some_and(|v| v.eq_ignore_ascii_case("close"));
    let http11_or_kept = incoming.head.starts_with("HTTP/1.1")
        || incoming
            .known_header(Known::Connection)
            .is_some_and(|v| v.eq_ignore_ascii_case("keep-alive"));
    let reusable =
        out.keep_alive && !close && http11_or_kept && !matches!(framing, Framing::UntilClose);
    Ok((incoming, reusable))
}

/// Reads one response, its head and then the body its framing announces; `None` when
/// the stream ended before the first byte.
async fn read_response<S: AsyncRead + Unpin>(
    mut reader: Reader<'_, S>,
    method: &str,
    started: Instant,
) -> Result<Option<(Incoming, Framing)>, TransportError> {
    let Some(head_len) = reader.read_head().await? else {
        return Ok(None);
    };
    let raw = &reader.buf[..head_len - 4];
    // Heads are ASCII as a rule: checked at once, the lossy conversion is for the others.
    let parsed = match std::str::from_utf8(raw) {
        Ok(raw) => parse_head(raw)?,
        Err(_) => parse_head(&String::from_utf8_lossy(raw))?,
    };
    reader.pos = head_len;
    let mut incoming = Incoming {
        status: parsed.status,
        head: parsed.text,
        reason: parsed.reason,
        headers: parsed.headers,
        known: parsed.known,
        body: Vec::new(),
        received: 0,
        sent: 0,
        connect_ms: 0,
        latency_ms: 0,
    };
    let framing = framing(method, &incoming);
    let latency = reader.read_body(framing, started).await?;
    incoming.latency_ms = latency.unwrap_or(0);
    incoming.body = reader.body();
    incoming.received = reader.received;
    Ok(Some((incoming, framing)))
}

/// Reads one response to a `method` request from `wire`, the server's side of a
/// connection, without a read timeout: what the fuzz targets replay (`http::replay`).
pub(super) async fn read_response_from<S: AsyncRead + Unpin>(
    wire: &mut S,
    method: &str,
    max_body: usize,
) -> Result<Option<Incoming>, TransportError> {
    let mut buf = Vec::with_capacity(READ_BUFFER);
    let reader = Reader {
        stream: wire,
        buf: &mut buf,
        pos: 0,
        received: 0,
        timeout: None,
        max_body,
    };
    let read = read_response(reader, method, Instant::now()).await?;
    Ok(read.map(|(incoming, _)| incoming))
}

/// A response head taken apart.
#[derive(Debug)]
struct ParsedHead {
    status: u16,
    /// The head as JMeter records it (see [`condensed_head`]); the ranges index it.
    text: String,
    reason: Range<usize>,
    headers: Vec<(Range<usize>, Range<usize>)>,
    known: KnownHeaders,
}

/// Finds the status code, the reason and the headers in a response head (without its
/// final empty line) and condenses it as [`condensed_head`] does, in one pass; refuses
/// what HttpClient 4's parser refuses: a first line that is no status line, a status
/// code that is no number, a header line without a colon (lines starting with a space or
/// tab continue the header before them).
fn parse_head(raw: &str) -> Result<ParsedHead, TransportError> {
    let bytes = raw.as_bytes();
    let len = bytes.len();
    let line_end = |next: usize, start: usize| {
        if next > start && bytes[next - 1] == b'\r' {
            next - 1
        } else {
            next
        }
    };
    let status_next = memchr::memchr(b'\n', bytes).unwrap_or(len);
    let status_end = line_end(status_next, 0);
    let status_line = &bytes[..status_end];
    if !status_line.starts_with(b"HTTP/") {
        return Err(protocol_error(
            "The server failed to respond with a valid HTTP response",
        ));
    }
    // `HTTP/1.1 200 OK`: the code between the first two spaces, the reason after them.
    let (status, reason_start) = match memchr::memchr(b' ', status_line) {
        Some(first) => {
            let rest = &status_line[first + 1..];
            let code_end = memchr::memchr(b' ', rest).unwrap_or(rest.len());
            let status = status_code(&rest[..code_end]).ok_or_else(|| {
                protocol_error(&format!(
                    "Unable to parse status code from status line: {}",
                    &raw[..status_end]
                ))
            })?;
            (status, (first + 1 + code_end + 1).min(status_end))
        }
        None => {
            return Err(protocol_error(&format!(
                "Invalid status line: {}",
                &raw[..status_end]
            )))
        }
    };
    let mut text = String::with_capacity(len + 1);
    text.push_str(&raw[..status_end]);
    text.push('\n');
    let mut headers = Vec::with_capacity(12);
    let mut known = KnownHeaders::default();
    let mut start = status_next + 1;
    while start <= len {
        let at = find_either(bytes, start, b':', b'\n');
        let colon = (at < len && bytes[at] == b':').then_some(at);
        let next = match colon {
            Some(colon) => find_either(bytes, colon + 1, b'\n', b'\n'),
            None => at,
        };
        let end = line_end(next, start);
        // Where this line's bytes sit in `text`: the CRs left out before it shift them.
        let shift = start - text.len();
        text.push_str(&raw[start..end]);
        text.push('\n');
        match colon {
            Some(colon) => {
                let name = trimmed(bytes, start, colon);
                let value = trimmed(bytes, colon + 1, end);
                known.note(&bytes[name.clone()], headers.len());
                headers.push((
                    name.start - shift..name.end - shift,
                    value.start - shift..value.end - shift,
                ));
            }
            None if matches!(bytes.get(start), Some(b' ' | b'\t')) => {}
            None => {
                return Err(protocol_error(&format!(
                    "Invalid header: {}",
                    &raw[start..end]
                )))
            }
        }
        start = next + 1;
    }
    Ok(ParsedHead {
        status,
        text,
        reason: reason_start..status_end,
        headers,
        known,
    })
}

/// Where the first `a` or `b` is in `bytes` from `at` on (`bytes.len()` when there is
/// none), eight bytes at a time: header names and values are too short for a vector
/// search to make up for its start.
fn find_either(bytes: &[u8], mut at: usize, a: u8, b: u8) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGH_BITS: u64 = u64::from_le_bytes([0x80; 8]);
    let (all_a, all_b) = (ONES * u64::from(a), ONES * u64::from(b));
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let (xa, xb) = (word ^ all_a, word ^ all_b);
        // The lowest high bit set marks the first byte equal to `a` or `b` (the borrow
        // only spreads to bytes above a match).
        let found = (xa.wrapping_sub(ONES) & !xa | xb.wrapping_sub(ONES) & !xb) & HIGH_BITS;
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while at < bytes.len() && bytes[at] != a && bytes[at] != b {
        at += 1;
    }
    at.min(bytes.len())
}

/// A status code of three digits, as HttpClient reads it (`Integer.parseInt`, then
/// 100..999).
fn status_code(digits: &[u8]) -> Option<u16> {
    let code = std::str::from_utf8(digits).ok()?.parse::<u16>().ok()?;
    (100..1000).contains(&code).then_some(code)
}

/// The head as HttpClient gives it to JMeter: each line of `raw` (the head without its
/// final empty line), cut as `split('\n')` cuts it and without a CR before the LF,
/// followed by `\n`.
pub(super) fn condensed_head(raw: &str) -> String {
    let mut text = String::with_capacity(raw.len() + 1);
    for line in raw.split('\n') {
        text.push_str(line.strip_suffix('\r').unwrap_or(line));
        text.push('\n');
    }
    text
}

/// A response HttpClient 4's parser refuses, as JMeter reports it: the parser's
/// `ProtocolException` inside the client's `ClientProtocolException`.
fn protocol_error(message: &str) -> TransportError {
    TransportError::new(
        "org.apache.http.client.ClientProtocolException",
        format!("org.apache.http.ProtocolException: {message}"),
    )
}

/// A body beyond [`MAX_BODY_PROPERTY`].
pub fn body_too_large(limit: usize) -> TransportError {
    TransportError::new(
        "java.io.IOException",
        format!("Response body larger than {limit} bytes (property {MAX_BODY_PROPERTY})"),
    )
}

/// The range `start..end` of `bytes` without the spaces and tabs around it: HttpClient
/// trims header names and values of HTTP whitespace only (both are ASCII, so the range
/// stays on character boundaries).
fn trimmed(bytes: &[u8], mut start: usize, mut end: usize) -> Range<usize> {
    while start < end && matches!(bytes[start], b' ' | b'\t') {
        start += 1;
    }
    while end > start && matches!(bytes[end - 1], b' ' | b'\t') {
        end -= 1;
    }
    start..end
}

/// How the body of a response is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    None,
    Length(usize),
    Chunked,
    UntilClose,
}

fn framing(method: &str, incoming: &Incoming) -> Framing {
    if method == "HEAD" || incoming.status < 200 || matches!(incoming.status, 204 | 304) {
        return Framing::None;
    }
    if incoming
        .known_header(Known::TransferEncoding)
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
    {
        return Framing::Chunked;
    }
    match incoming
        .known_header(Known::ContentLength)
        .map(|v| v.trim().parse())
    {
        Some(Ok(length)) => Framing::Length(length),
        _ => Framing::UntilClose,
    }
}

fn io_error(err: &std::io::Error) -> TransportError {
    // A server that refuses the client's certificate says so after a TLS 1.3 client
    // has finished its part of the handshake; JSSE still calls it a handshake failure.
    if let Some(message) = tls::received_alert(err) {
        return TransportError::new("javax.net.ssl.SSLHandshakeException", message);
    }
    if err.kind() == std::io::ErrorKind::TimedOut {
        return TransportError::new("java.net.SocketTimeoutException", "Read timed out");
    }
    if err.kind() == std::io::ErrorKind::ConnectionReset {
        // Java's words for ECONNRESET.
        return TransportError::new("java.net.SocketException", "Connection reset");
    }
    TransportError::new("java.net.SocketException", os_reason(err))
}

/// Reads from the connection with a per-read timeout, counting every byte.
struct Reader<'a, S = Stream> {
    stream: &'a mut S,
    buf: &'a mut Vec<u8>,
    /// Start of unread data in `buf`.
    pos: usize,
    received: i64,
    timeout: Option<Duration>,
    /// Largest body accepted.
    max_body: usize,
}

impl<S: AsyncRead + Unpin> Reader<'_, S> {
    /// Reads more bytes into `buf`; 0 at end of stream.
    async fn fill(&mut self) -> Result<usize, TransportError> {
        self.buf.reserve(READ_BUFFER);
        let read = self.stream.read_buf(self.buf);
        let n = match self.timeout {
            Some(limit) => tokio::time::timeout(limit, read).await.map_err(|_| {
                TransportError::new("java.net.SocketTimeoutException", "Read timed out")
            })?,
            None => read.await,
        }
        .map_err(|e| io_error(&e))?;
        self.received += n as i64;
        Ok(n)
    }

    /// Reads up to the end of the head; returns its length including the empty line,
    /// or `None` when the stream ended before any byte.
    async fn read_head(&mut self) -> Result<Option<usize>, TransportError> {
        let mut searched = 0;
        loop {
            if let Some(pos) = HEAD_END.find(&self.buf[searched..]) {
                return Ok(Some(searched + pos + 4));
            }
            searched = self.buf.len().saturating_sub(3);
            if self.buf.len() > MAX_HEAD {
                return Err(TransportError::new(
                    "org.apache.http.ProtocolException",
                    "Response head too large",
                ));
            }
            if self.fill().await? == 0 {
                return if self.buf.is_empty() {
                    Ok(None)
                } else {
                    Err(TransportError::new(
                        "org.apache.http.ConnectionClosedException",
                        "Premature end of response head",
                    ))
                };
            }
        }
    }

    /// A copy of the body read (after `pos`); the buffer stays with the connection.
    fn body(&self) -> Vec<u8> {
        self.buf[self.pos..].to_vec()
    }

    /// Reads the body into `buf[pos..]` (de-chunked); returns the latency in ms when a
    /// body was expected.
    async fn read_body(
        &mut self,
        framing: Framing,
        started: Instant,
    ) -> Result<Option<i64>, TransportError> {
        match framing {
            Framing::None => Ok(None),
            Framing::Length(length) => {
                if length > self.max_body {
                    return Err(body_too_large(self.max_body));
                }
                let mut latency = None;
                if self.buf.len() > self.pos || length == 0 {
                    latency = Some(millis_since(started));
                }
                while self.buf.len() - self.pos < length {
                    if self.fill().await? == 0 {
                        return Err(premature(length, self.buf.len() - self.pos));
                    }
                    latency.get_or_insert_with(|| millis_since(started));
                }
                self.buf.truncate(self.pos + length);
                Ok(latency.or(Some(millis_since(started))))
            }
            Framing::UntilClose => {
                let mut latency = (self.buf.len() > self.pos).then(|| millis_since(started));
                while self.fill().await? > 0 {
                    latency.get_or_insert_with(|| millis_since(started));
                    if self.buf.len() - self.pos > self.max_body {
                        return Err(body_too_large(self.max_body));
                    }
                }
                Ok(latency.or(Some(millis_since(started))))
            }
            Framing::Chunked => self.read_chunked(started).await.map(Some),
        }
    }

    async fn read_chunked(&mut self, started: Instant) -> Result<i64, TransportError> {
        let mut body = Vec::new();
        let mut cursor = self.pos;
        let mut latency = None;
        loop {
            let line_end = loop {
                if let Some(p) = find(&self.buf[cursor..], b"\r\n") {
                    break cursor + p;
                }
                if self.fill().await? == 0 {
                    return Err(premature(0, body.len()));
                }
            };
            latency.get_or_insert_with(|| millis_since(started));
            let size = chunk_size(&self.buf[cursor..line_end])?;
            if size > self.max_body.saturating_sub(body.len()) {
                return Err(body_too_large(self.max_body));
            }
            cursor = line_end + 2;
            if size == 0 {
                // Trailers end with an empty line.
                loop {
                    if let Some(p) = find(&self.buf[cursor..], b"\r\n") {
                        let empty = p == 0;
                        cursor += p + 2;
                        if empty {
                            break;
                        }
                        continue;
                    }
                    if self.fill().await? == 0 {
                        break;
                    }
                }
                break;
            }
            while self.buf.len() < cursor + size + 2 {
                if self.fill().await? == 0 {
                    return Err(premature(size, self.buf.len() - cursor));
                }
            }
            body.extend_from_slice(&self.buf[cursor..cursor + size]);
            cursor += size + 2;
        }
        self.buf.truncate(self.pos);
        self.buf.extend_from_slice(&body);
        Ok(latency.unwrap_or_else(|| millis_since(started)))
    }
}

/// The size on a chunk's first line (extensions after `;` ignored), as HttpClient 4's
/// `ChunkedInputStream` reads it: a 64-bit signed hexadecimal number, not negative.
fn chunk_size(line: &[u8]) -> Result<usize, TransportError> {
    let malformed =
        |message| TransportError::new("org.apache.http.MalformedChunkCodingException", message);
    let text = String::from_utf8_lossy(line);
    let text = text.split(';').next().unwrap_or("").trim();
    match i64::from_str_radix(text, 16) {
        Ok(size) if size < 0 => Err(malformed("Negative chunk size")),
        Ok(size) => usize::try_from(size).map_err(|_| malformed("Bad chunk header")),
        Err(_) => Err(malformed("Bad chunk header")),
    }
}

fn premature(expected: usize, got: usize) -> TransportError {
    TransportError::new(
        "org.apache.http.ConnectionClosedException",
        format!("Premature end of Content-Length delimited message body (expected: {expected}; received: {got})"),
    )
}

/// The empty line that ends a response head. One vector search over the head finds it:
/// looking for each line's CR and comparing there made a call per header line.
static HEAD_END: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\r\n\r\n"));

/// Where `needle` first starts in `haystack`. Looks for the needle's first byte with a
/// plain scan and compares the rest only there: for the CRLF ending a chunk's line that
/// is a fraction of comparing every window.
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while let Some(offset) = memchr::memchr(first, &haystack[from..]) {
        let at = from + offset;
        if haystack[at + 1..].starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_failures_are_reported_as_httpclient_reports_them() {
        use std::io::ErrorKind;
        let prefix = "Connect to h:80 [h/10.0.0.1] failed: ";
        let seen = |kind| {
            let error = connect_failed(Some(kind), prefix);
            (error.class, error.message)
        };
        assert_eq!(
            seen(ErrorKind::NetworkUnreachable),
            ("java.net.SocketException", "Network is unreachable".into())
        );
        assert_eq!(
            seen(ErrorKind::HostUnreachable),
            ("java.net.NoRouteToHostException", "No route to host".into())
        );
        assert_eq!(
            seen(ErrorKind::ConnectionRefused),
            (
                "org.apache.http.conn.HttpHostConnectException",
                format!("{prefix}Connection refused")
            )
        );
        assert_eq!(
            seen(ErrorKind::TimedOut).0,
            "org.apache.http.conn.ConnectTimeoutException"
        );
        assert_eq!(
            seen(ErrorKind::ConnectionReset),
            ("java.net.SocketException", "Connection reset".into())
        );
    }

    #[test]
    fn find_gives_the_first_match_and_none_without_one() {
        assert_eq!(find(b"a\r\nb\r\n\r\nbody\r\n\r\n", b"\r\n\r\n"), Some(4));
        assert_eq!(find(b"\r\n\r", b"\r\n\r\n"), None);
        assert_eq!(find(b"", b"\r\n"), None);
        assert_eq!(find(b"x\r\r\n", b"\r\n"), Some(2));
    }

    #[test]
    fn find_either_gives_the_first_of_two_bytes_at_any_position() {
        let text = b"Name-Of-A-Header: value with: colons\nnext";
        for from in 0..text.len() {
            let expected = (from..text.len())
                .find(|&i| text[i] == b':' || text[i] == b'\n')
                .unwrap_or(text.len());
            assert_eq!(
                find_either(text, from, b':', b'\n'),
                expected,
                "from {from}"
            );
            let newline = (from..text.len())
                .find(|&i| text[i] == b'\n')
                .unwrap_or(text.len());
            assert_eq!(
                find_either(text, from, b'\n', b'\n'),
                newline,
                "from {from}"
            );
        }
        // Bytes just above and below the searched ones do not count.
        assert_eq!(find_either(b"9;;;;;;;;;;;:", 0, b':', b':'), 12);
        assert_eq!(
            find_either(b"\x01\x01\x01\x01\x01\x01\x01\x01\x00", 0, 0, 0),
            8
        );
        assert_eq!(find_either(b"", 0, b':', b'\n'), 0);
        assert_eq!(find_either(b"ab", 2, b':', b'\n'), 2);
    }

    #[test]
    fn the_head_is_condensed_as_split_on_lf_without_the_cr() {
        assert_eq!(
            condensed_head("HTTP/1.1 200 OK\r\nA: b\r\nC: d"),
            "HTTP/1.1 200 OK\nA: b\nC: d\n"
        );
        assert_eq!(condensed_head("bare\nlf\r"), "bare\nlf\n");
        assert_eq!(condensed_head("end\n"), "end\n\n");
        assert_eq!(condensed_head("mid\rdle\r\r\n"), "mid\rdle\r\n\n");
        assert_eq!(condensed_head(""), "\n");
        // The parser condenses as it goes, to the same text and positions.
        for raw in [
            "HTTP/1.1 200 OK",
            "HTTP/1.1 200 OK\r\nA: b\r\nC:d",
            "HTTP/1.0 302 Found\nLocation: /x\r\n\tfolded: on\r\nX: a\rb\r",
            "HTTP/1.1 204\r\nEmpty:\r\n:nameless\r\nK:v:w",
        ] {
            let parsed = parse_head(raw).unwrap();
            assert_eq!(parsed.text, condensed_head(raw), "{raw:?}");
            let incoming = Incoming::from_head(parsed.status, raw.to_string(), Vec::new());
            let expected: Vec<(String, String)> = condensed_head(raw)
                .lines()
                .skip(1)
                // A line with a colon is a header even when it starts with a space.
                .filter(|line| line.contains(':'))
                .map(|line| {
                    let (name, value) = line.split_once(':').unwrap();
                    let trim = |t: &str| t.trim_matches([' ', '\t']).to_string();
                    (trim(name), trim(value))
                })
                .collect();
            let found: Vec<(String, String)> = incoming
                .headers()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect();
            assert_eq!(found, expected, "{raw:?}");
        }
    }

    #[test]
    fn parse_head_finds_status_reason_and_trimmed_headers() {
        let raw =
            "HTTP/1.1 404 Not Found\r\nServer:  nginx \r\n folded\r\nX-Ü: é\r\nContent-Length:0";
        let parsed = parse_head(raw).unwrap();
        let (status, reason, headers) = (parsed.status, parsed.reason, parsed.headers);
        let head = parsed.text.as_str();
        assert_eq!(head, condensed_head(raw));
        assert_eq!(status, 404);
        assert_eq!(&head[reason], "Not Found");
        let pairs: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (&head[n.clone()], &head[v.clone()]))
            .collect();
        assert_eq!(
            pairs,
            [("Server", "nginx"), ("X-Ü", "é"), ("Content-Length", "0")]
        );
    }

    #[test]
    fn headers_are_found_by_name_in_any_case_the_last_one_winning() {
        let head = "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nServer: a\r\nCONTENT-LENGTH: 7\r\nset-cookie: x=1\r\nSet-Cookie: y=2\r\nServer: b";
        let incoming = Incoming::from_head(200, head.to_string(), Vec::new());
        assert_eq!(incoming.known_header(Known::ContentLength), Some("7"));
        assert_eq!(incoming.header("content-length"), Some("7"));
        assert_eq!(incoming.header("Server"), Some("b"));
        assert_eq!(incoming.known_header(Known::SetCookie), Some("y=2"));
        for absent in [Known::Location, Known::ContentType, Known::Connection] {
            assert_eq!(incoming.known_header(absent), None, "{absent:?}");
        }
        assert_eq!(incoming.header("X-Other"), None);
        let named = [
            (Known::ContentLength, "Content-Length"),
            (Known::TransferEncoding, "Transfer-Encoding"),
            (Known::Connection, "Connection"),
            (Known::ContentType, "Content-Type"),
            (Known::ContentEncoding, "Content-Encoding"),
            (Known::Location, "Location"),
            (Known::SetCookie, "Set-Cookie"),
        ];
        for (which, name) in named {
            assert_eq!(KnownHeaders::NAMES[which as usize], name);
        }
    }

    #[test]
    fn heads_httpclient_refuses_are_protocol_errors() {
        let refused = |head: &str| parse_head(head).unwrap_err().message;
        assert_eq!(
            refused("HTTP/1.1 200 OK\r\nno colon"),
            "org.apache.http.ProtocolException: Invalid header: no colon"
        );
        assert_eq!(
            refused("HTTP/1.1 200 OK\r\nA: b\n"),
            "org.apache.http.ProtocolException: Invalid header: "
        );
        assert_eq!(
            refused("HTTP/1.1 abc OK"),
            "org.apache.http.ProtocolException: Unable to parse status code from status line: HTTP/1.1 abc OK"
        );
        assert_eq!(
            refused("garbage"),
            "org.apache.http.ProtocolException: The server failed to respond with a valid HTTP response"
        );
    }

    #[test]
    fn chunk_sizes_are_signed_64_bit_hexadecimal() {
        assert_eq!(chunk_size(b"1a;ext=1"), Ok(26));
        let message = |line: &[u8]| chunk_size(line).unwrap_err().message;
        assert_eq!(message(b"-5"), "Negative chunk size");
        assert_eq!(message(b"ffffffffffffffffff"), "Bad chunk header");
        assert_eq!(message(b"zz"), "Bad chunk header");
    }
}
