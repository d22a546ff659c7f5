//! HTTP/2 over TLS with the `h2` crate, for samplers that ask for it (the bzm HTTP/2
//! Sampler, or any HTTP Request when the run sets `jmxr.http.http2=true`).
//!
//! The TLS handshake offers `h2` then `http/1.1` in ALPN ([`tls::handshake_offering_h2`]).
//! When the server chooses `h2`, the connection becomes one of the user's [`Sessions`]:
//! one per origin, reused by every later sample of that user, its requests sent as
//! streams (several at once when requests overlap). When the server chooses HTTP/1.1,
//! the connection is handed to the HTTP/1.1 [`client`] and its pool, and the origin is
//! remembered so that later requests go there directly. Plain `http:` URLs always use
//! HTTP/1.1 (no h2c).
//!
//! The request is the HTTP/1.1 head the sampler built, translated: the request line
//! becomes the pseudo-headers, `Host` becomes `:authority`, and the headers HTTP/2
//! forbids (`Connection`, `Keep-Alive`, `Proxy-Connection`, `Transfer-Encoding`,
//! `Upgrade`) are left out. The response is reported as JMeter's bzm HTTP/2 plugin
//! reports it: a status line `HTTP/2.0 <code> <standard reason phrase>` (HTTP/2 has no
//! reason phrase) and the header fields as received (lower-case names).
//!
//! Measurements: Connect is TCP plus TLS when a connection was opened for the sample
//! (0 on a reused one); Latency is the time to the response headers; bytes are the
//! header block counted as HTTP/1.1 text (status line and `name: value` lines with
//! CRLFs, the decoded size rather than the HPACK-compressed one, so that HTTP/1.1 and
//! HTTP/2 results compare) plus the body as carried in DATA frames (before content
//! decoding); sentBytes likewise counts the request head as text plus the body.

use std::time::{Duration, Instant};

use bytes::Bytes;
use h2::client::SendRequest;
use tokio::task::JoinHandle;

use super::client::{self, millis_since, Incoming, Outgoing, Pool, TransportError};
use super::tls;

/// Status line version, as Jetty (the bzm plugin's client) writes HTTP/2.
const VERSION: &str = "HTTP/2.0";

/// The HTTP/2 connections of one virtual user, and the origins that declined HTTP/2.
#[derive(Default)]
pub struct Sessions {
    open: Vec<Session>,
    /// Origins (host, port) whose server chose HTTP/1.1 in ALPN.
    http1_only: Vec<(String, u16)>,
}

impl Sessions {
    /// Closes every connection and forgets what servers chose (a new user identity).
    pub fn clear(&mut self) {
        self.open.clear();
        self.http1_only.clear();
    }

    fn find(&self, host: &str, port: u16) -> Option<&Session> {
        self.open.iter().find(|s| s.port == port && s.host == host)
    }

    fn close(&mut self, host: &str, port: u16) {
        self.open.retain(|s| !(s.port == port && s.host == host));
    }
}

/// One HTTP/2 connection: the handle that opens streams, and the task that drives the
/// connection (reads frames, answers pings and settings).
struct Session {
    host: String,
    port: u16,
    sender: SendRequest<Bytes>,
    driver: JoinHandle<()>,
}

impl Drop for Session {
    /// Dropping the driver closes the connection at once, rather than when the server
    /// notices that no stream will come.
    fn drop(&mut self) {
        self.driver.abort();
    }
}

/// Why a request on a connection failed.
enum Attempt {
    /// A reused connection was gone before any answer: send again on a new one.
    Stale,
    Failed(TransportError),
}

/// Sends `out` over HTTP/2 when the server offers it, else over HTTP/1.1 on `pool`.
pub async fn exchange(
    sessions: &mut Sessions,
    pool: &mut Pool,
    out: &Outgoing<'_>,
    started: Instant,
) -> Result<Incoming, TransportError> {
    if out.url.scheme != "https" {
        return client::exchange(pool, out, started).await;
    }
    let host = out.url.host.as_str();
    let port = out.url.effective_port();
    if sessions
        .http1_only
        .iter()
        .any(|(h, p)| *p == port && h == host)
    {
        return client::exchange(pool, out, started).await;
    }
    // Connections the server has closed since are dropped, whatever their origin.
    sessions.open.retain(|s| !s.driver.is_finished());
    if let Some(session) = sessions.find(host, port) {
        let sender = session.sender.clone();
        match send(sender, out, started, 0).await {
            Ok(incoming) => {
                if !out.keep_alive {
                    sessions.close(host, port);
                }
                return Ok(incoming);
            }
            Err(Attempt::Stale) => sessions.close(host, port),
            Err(Attempt::Failed(error)) => return Err(error),
        }
    }
    let tcp = client::connect_with_user_dns(pool, out).await?;
    let name = host.trim_start_matches('[').trim_end_matches(']');
    let config = client::tls_config(out, pool.client_key_slot(), true)?;
    let (stream, h2) = tls::handshake_offering_h2(tcp, name, config)
        .await
        .map_err(|e| TransportError {
            class: "javax.net.ssl.SSLHandshakeException",
            message: e.to_string(),
        })?;
    // Connect covers DNS, TCP and the TLS handshake, as for HTTP/1.1.
    let connect_ms = millis_since(started);
    if !h2 {
        sessions.http1_only.push((host.to_string(), port));
        return client::exchange_on_new(pool, stream, out, started, connect_ms).await;
    }
    // Pushed streams would be responses nobody asked for: refused in the SETTINGS.
    let (sender, connection) = h2::client::Builder::new()
        .enable_push(false)
        .handshake(stream)
        .await
        .map_err(|e| h2_error(&e))?;
    let driver = tokio::spawn(async move {
        // The connection ends when the server closes it or the session is dropped;
        // a request on it reports the cause.
        let _ = connection.await;
    });
    let session = Session {
        host: host.to_string(),
        port,
        sender: sender.clone(),
        driver,
    };
    if out.keep_alive {
        sessions.open.push(session);
    }
    match send(sender, out, started, connect_ms).await {
        Ok(incoming) => Ok(incoming),
        Err(Attempt::Stale) => Err(TransportError {
            class: "org.apache.http.NoHttpResponseException",
            message: format!("{host}:{port} failed to respond"),
        }),
        Err(Attempt::Failed(error)) => Err(error),
    }
}

/// Sends one request as a stream and reads the whole response.
async fn send(
    sender: SendRequest<Bytes>,
    out: &Outgoing<'_>,
    started: Instant,
    connect_ms: i64,
) -> Result<Incoming, Attempt> {
    let reused = connect_ms == 0;
    let before_answer = |error: h2::Error| {
        if reused {
            Attempt::Stale
        } else {
            Attempt::Failed(h2_error(&error))
        }
    };
    let (request, head_size) = translate(out).map_err(Attempt::Failed)?;
    let mut sender = sender.ready().await.map_err(before_answer)?;
    let no_body = out.body.is_empty();
    let (response, mut body_stream) = sender
        .send_request(request, no_body)
        .map_err(before_answer)?;
    if !no_body {
        body_stream
            .send_data(Bytes::copy_from_slice(out.body), true)
            .map_err(before_answer)?;
    }
    let response = within(out.read_timeout, response)
        .await
        .map_err(Attempt::Failed)?
        .map_err(before_answer)?;
    let latency_ms = millis_since(started);
    let (parts, mut body) = response.into_parts();
    let mut data = Vec::new();
    while let Some(chunk) = within(out.read_timeout, body.data())
        .await
        .map_err(Attempt::Failed)?
    {
        let chunk = chunk.map_err(|e| Attempt::Failed(h2_error(&e)))?;
        let _ = body.flow_control().release_capacity(chunk.len());
        data.extend_from_slice(&chunk);
    }
    let status = parts.status;
    let mut head = String::with_capacity(256);
    head.push_str(VERSION);
    head.push(' ');
    head.push_str(status.as_str());
    head.push(' ');
    head.push_str(status.canonical_reason().unwrap_or(status.as_str()));
    for (name, value) in &parts.headers {
        head.push_str("\r\n");
        head.push_str(name.as_str());
        head.push_str(": ");
        head.push_str(&String::from_utf8_lossy(value.as_bytes()));
    }
    let received = (head.len() + 4 + data.len()) as i64;
    let mut incoming = Incoming::from_head(status.as_u16(), head, data);
    incoming.received = received;
    incoming.sent = (head_size + out.body.len()) as i64;
    incoming.connect_ms = connect_ms;
    incoming.latency_ms = latency_ms;
    Ok(incoming)
}

/// Awaits `future`, failing as a Java read timeout after `limit`.
async fn within<T>(
    limit: Option<Duration>,
    future: impl std::future::Future<Output = T>,
) -> Result<T, TransportError> {
    match limit {
        Some(limit) => tokio::time::timeout(limit, future)
            .await
            .map_err(|_| TransportError {
                class: "java.net.SocketTimeoutException",
                message: "Read timed out".to_string(),
            }),
        None => Ok(future.await),
    }
}

fn h2_error(error: &h2::Error) -> TransportError {
    TransportError {
        class: "java.io.IOException",
        message: error.to_string(),
    }
}

/// Whether `incoming` came over HTTP/2.
pub fn answered(incoming: &Incoming) -> bool {
    incoming.head().starts_with(VERSION)
}

/// The request headers as recorded for HTTP/1.1 (`Name: value` lines), without those
/// HTTP/2 does not send.
pub fn sent_headers(recorded: &str) -> String {
    recorded
        .lines()
        .filter(|line| {
            let (name, value) = line.split_once(':').unwrap_or((line, ""));
            name.eq_ignore_ascii_case("host") || !left_out(name, value.trim())
        })
        .flat_map(|line| [line, "\n"])
        .collect()
}

/// Headers HTTP/2 forbids (RFC 9113 §8.2.2: connection-specific ones, `TE` other than
/// `trailers`, a nameless one), and `Host`, which becomes `:authority`.
fn left_out(name: &str, value: &str) -> bool {
    name.is_empty()
        || (name.eq_ignore_ascii_case("te") && value != "trailers")
        || [
            "connection",
            "keep-alive",
            "proxy-connection",
            "transfer-encoding",
            "upgrade",
            "host",
        ]
        .iter()
        .any(|n| name.eq_ignore_ascii_case(n))
}

/// The HTTP/2 request for the HTTP/1.1 head in `out`, and the size of its head counted
/// as text (`METHOD path HTTP/2.0`, `name: value` lines, CRLFs).
fn translate(out: &Outgoing<'_>) -> Result<(http::Request<()>, usize), TransportError> {
    let malformed = |message: String| TransportError {
        class: "java.net.URISyntaxException",
        message,
    };
    let text = String::from_utf8_lossy(out.head);
    let mut lines = text.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let (method, rest) = request_line.split_once(' ').unwrap_or((request_line, ""));
    let path = rest.rsplit_once(' ').map_or(rest, |(path, _)| path);
    let mut authority = out.url.host_header();
    let mut headers = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("host") {
            authority = value.to_string();
        } else if !left_out(name, value) {
            headers.push((name, value));
        }
    }
    let uri = http::Uri::builder()
        .scheme("https")
        .authority(authority.as_str())
        .path_and_query(if path.is_empty() { "/" } else { path })
        .build()
        .map_err(|e| malformed(format!("{e}: {path}")))?;
    let mut size = method.len() + 1 + path.len() + 1 + VERSION.len() + 2;
    size += "host: ".len() + authority.len() + 2;
    let mut builder = http::Request::builder()
        .method(method)
        .uri(uri)
        .version(http::Version::HTTP_2);
    for (name, value) in headers {
        size += name.len() + 2 + value.len() + 2;
        builder = builder.header(name, value);
    }
    size += 2;
    let request = builder
        .body(())
        .map_err(|e| malformed(format!("{e}: {request_line}")))?;
    Ok((request, size))
}

#[cfg(test)]
mod tests {
    use super::super::url::Url;
    use super::*;

    fn outgoing<'a>(url: &'a Url, head: &'a str, body: &'a [u8]) -> Outgoing<'a> {
        Outgoing {
            url,
            method: "POST",
            head: head.as_bytes(),
            body,
            keep_alive: true,
            connect_timeout: None,
            read_timeout: None,
            verify_certificates: false,
            client_cert: None,
            dns: None,
            local_address: None,
            max_body: client::DEFAULT_MAX_BODY,
        }
    }

    #[test]
    fn the_http1_head_becomes_pseudo_headers_without_connection_headers() {
        let url = Url::parse("https://example.com:8443/a?b=1").expect("url");
        let head = "POST /a?b=1 HTTP/1.1\r\nConnection: keep-alive\r\nX-Test: yes\r\n\
                    Content-Length: 2\r\nHost: example.com:8443\r\nUser-Agent: jmxr\r\n\r\n";
        let (request, size) = translate(&outgoing(&url, head, b"hi")).expect("translates");
        assert_eq!(request.method(), "POST");
        assert_eq!(request.uri().to_string(), "https://example.com:8443/a?b=1");
        let names: Vec<&str> = request.headers().keys().map(|n| n.as_str()).collect();
        assert_eq!(names, ["x-test", "content-length", "user-agent"]);
        let text = "POST /a?b=1 HTTP/2.0\r\nhost: example.com:8443\r\nX-Test: yes\r\n\
                    Content-Length: 2\r\nUser-Agent: jmxr\r\n\r\n";
        assert_eq!(size, text.len());
    }

    #[test]
    fn a_bad_path_is_a_uri_error_not_a_panic() {
        let url = Url::parse("https://example.com/").expect("url");
        let head = "GET /a b\"{ HTTP/1.1\r\nHost: example.com\r\n\r\n";
        let error = translate(&outgoing(&url, head, b"")).expect_err("rejected");
        assert_eq!(error.class, "java.net.URISyntaxException");
    }
}
