//! A gRPC channel over HTTP/2 (the `h2` crate), plain or TLS, and one unary call on it.
//!
//! A call is a POST to `/package.Service/Method` with `content-type: application/grpc`
//! and `te: trailers`, the metadata as headers and, when there is a deadline,
//! `grpc-timeout`; the body is one length-prefixed message (a flag byte for compression,
//! always 0 here, then the length in 4 bytes big-endian). The answer is one message in
//! the same framing and the status in the trailers (`grpc-status`, `grpc-message`
//! percent-encoded), or in the headers of a trailers-only answer.
//!
//! Failures are gRPC statuses as grpc-java's client reports them: a connection that
//! cannot be made is `UNAVAILABLE: io exception`, a deadline that passes on the client
//! `DEADLINE_EXCEEDED: deadline exceeded after …s.`, a broken answer `INTERNAL: …`.

use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use h2::client::SendRequest;
use tokio::net::TcpStream;

use crate::samplers::http::{handshake_h2_only, Stream};

/// grpc-java's default limit on a received message (`maxInboundMessageSize`).
const MAX_INBOUND_MESSAGE: usize = 4 * 1024 * 1024;

/// The status codes' names, by number.
const CODE_NAMES: [&str; 17] = [
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];

pub const UNKNOWN: u32 = 2;
pub const DEADLINE_EXCEEDED: u32 = 4;
pub const RESOURCE_EXHAUSTED: u32 = 8;
pub const UNIMPLEMENTED: u32 = 12;
pub const INTERNAL: u32 = 13;
pub const UNAVAILABLE: u32 = 14;

/// A call's failure status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub code: u32,
    pub description: Option<String>,
}

impl Status {
    pub fn new(code: u32, description: impl Into<String>) -> Status {
        Status {
            code,
            description: Some(description.into()),
        }
    }

    /// `io.grpc.StatusRuntimeException`'s text: `NOT_FOUND: no such shelf`.
    pub fn exception_text(&self) -> String {
        let name = CODE_NAMES
            .get(self.code as usize)
            .copied()
            .unwrap_or("UNKNOWN");
        match &self.description {
            Some(description) => {
                format!("io.grpc.StatusRuntimeException: {name}: {description}")
            }
            None => format!("io.grpc.StatusRuntimeException: {name}"),
        }
    }

    /// The code's name (`DEADLINE_EXCEEDED`), as `Status.Code.name()` gives it.
    pub fn code_name(&self) -> &'static str {
        CODE_NAMES
            .get(self.code as usize)
            .copied()
            .unwrap_or("UNKNOWN")
    }

    fn io_exception() -> Status {
        Status::new(UNAVAILABLE, "io exception")
    }
}

/// Where a channel connects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub host: String,
    pub port: u16,
    pub tls: bool,
    /// With TLS: check the certificate (the plugin's default) or accept any.
    pub verify: bool,
    /// The largest answer message accepted (`maxInboundMessageSize`).
    pub max_inbound_message: usize,
}

impl Target {
    /// Guava's `HostAndPort.fromString` with the port the plugin requires:
    /// `host:port` or `[v6]:port`.
    pub fn parse(host_port: &str, tls: bool, verify: bool) -> Result<Target, String> {
        let text = host_port.trim();
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (host, after) = rest
                .split_once(']')
                .ok_or_else(|| format!("hostPort {host_port:?}: unclosed '['"))?;
            (host, after.strip_prefix(':'))
        } else {
            match text.split_once(':') {
                Some((host, port)) if !port.contains(':') => (host, Some(port)),
                Some(_) => (text, None),
                None => (text, None),
            }
        };
        let Some(port) = port else {
            return Err(format!("hostPort {host_port:?} has no port (host:port)"));
        };
        let port: u16 = port
            .parse()
            .map_err(|_| format!("hostPort {host_port:?}: {port:?} is not a port number"))?;
        if host.is_empty() {
            return Err(format!("hostPort {host_port:?} has no host"));
        }
        Ok(Target {
            host: host.to_string(),
            port,
            tls,
            verify,
            max_inbound_message: MAX_INBOUND_MESSAGE,
        })
    }

    fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// An open HTTP/2 connection to a target.
pub struct Channel {
    target: Target,
    sender: SendRequest<Bytes>,
    /// The peer's address as grpc-java names it in a deadline message.
    remote: String,
    driver: tokio::task::JoinHandle<()>,
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

impl Channel {
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Connects (TCP, TLS when asked, the HTTP/2 preface).
    pub async fn connect(target: &Target) -> Result<Channel, Status> {
        let tcp = TcpStream::connect((target.host.as_str(), target.port))
            .await
            .map_err(|_| Status::io_exception())?;
        let _ = tcp.set_nodelay(true);
        let remote = tcp
            .peer_addr()
            .map(|a| format!("{}/{}", target.host, a))
            .unwrap_or_default();
        let stream = if target.tls {
            handshake_h2_only(tcp, &target.host, target.verify)
                .await
                .map_err(|_| Status::io_exception())?
        } else {
            Stream::Plain(tcp)
        };
        let (sender, connection) = h2::client::Builder::new()
            .enable_push(false)
            .handshake(stream)
            .await
            .map_err(|_| Status::io_exception())?;
        let driver = tokio::spawn(async move {
            let _ = connection.await;
        });
        Ok(Channel {
            target: target.clone(),
            sender,
            remote,
            driver,
        })
    }

    /// Whether the connection still takes requests.
    pub async fn is_usable(&mut self) -> bool {
        !self.driver.is_finished() && self.sender.clone().ready().await.is_ok()
    }

    /// One unary call: `message` (encoded) to `path`; the answer's encoded message.
    pub async fn unary(
        &mut self,
        path: &str,
        metadata: &[(http::HeaderName, http::HeaderValue)],
        message: &[u8],
        deadline: Option<Duration>,
    ) -> Result<Bytes, Status> {
        let scheme = if self.target.tls { "https" } else { "http" };
        let uri = format!("{scheme}://{}{path}", self.target.authority());
        let mut request = http::Request::builder()
            .method(http::Method::POST)
            .uri(uri)
            .header("content-type", "application/grpc")
            .header("te", "trailers");
        if let Some(deadline) = deadline {
            request = request.header("grpc-timeout", timeout_header(deadline));
        }
        for (name, value) in metadata {
            request = request.header(name, value);
        }
        let request = request
            .body(())
            .map_err(|e| Status::new(INTERNAL, e.to_string()))?;
        let mut frame = BytesMut::with_capacity(5 + message.len());
        frame.extend_from_slice(&[0]);
        frame.extend_from_slice(&(message.len() as u32).to_be_bytes());
        frame.extend_from_slice(message);

        let mut sender = self
            .sender
            .clone()
            .ready()
            .await
            .map_err(|_| Status::io_exception())?;
        let (response, mut body) = sender
            .send_request(request, false)
            .map_err(|_| Status::io_exception())?;
        body.send_data(frame.freeze(), true)
            .map_err(|_| Status::io_exception())?;
        let response = response.await.map_err(|e| stream_error(&e))?;
        let (parts, mut incoming) = response.into_parts();
        if parts.status != http::StatusCode::OK {
            return Err(http_status(parts.status.as_u16()));
        }
        // A trailers-only answer carries the status in its headers.
        if let Some(status) = status_in(&parts.headers) {
            return match status {
                Ok(()) => Err(Status::new(INTERNAL, "No value received for unary call")),
                Err(status) => Err(status),
            };
        }
        let mut received = BytesMut::new();
        while let Some(chunk) = incoming.data().await {
            let chunk = chunk.map_err(|e| stream_error(&e))?;
            let _ = incoming.flow_control().release_capacity(chunk.len());
            received.extend_from_slice(&chunk);
            let limit = self.target.max_inbound_message;
            if received.len() > limit.saturating_add(5) {
                return Err(too_large(limit, received.len() - 5));
            }
        }
        let trailers = incoming
            .trailers()
            .await
            .map_err(|e| stream_error(&e))?
            .unwrap_or_default();
        match status_in(&trailers) {
            Some(Err(status)) => return Err(status),
            Some(Ok(())) => {}
            None => {
                return Err(Status::new(
                    INTERNAL,
                    "Received unexpected EOS on DATA frame from server.",
                ))
            }
        }
        single_message(received.freeze(), self.target.max_inbound_message)
    }

    /// grpc-java's text for a deadline that passed on the client.
    pub fn deadline_status(&self, deadline: Duration) -> Status {
        Status::new(
            DEADLINE_EXCEEDED,
            format!(
                "deadline exceeded after {}.{:09}s. [remote_addr={}]",
                deadline.as_secs(),
                deadline.subsec_nanos(),
                self.remote
            ),
        )
    }
}

/// The deadline of a call that could not connect in time.
pub fn deadline_status_unconnected(deadline: Duration) -> Status {
    Status::new(
        DEADLINE_EXCEEDED,
        format!(
            "deadline exceeded after {}.{:09}s. [waiting_for_connection]",
            deadline.as_secs(),
            deadline.subsec_nanos()
        ),
    )
}

/// `grpc-timeout`: at most 8 digits and a unit.
fn timeout_header(deadline: Duration) -> String {
    let ms = deadline.as_millis();
    if ms < 100_000_000 {
        format!("{ms}m")
    } else {
        format!("{}S", deadline.as_secs().min(99_999_999))
    }
}

/// The status in `grpc-status`/`grpc-message`, if the headers carry one.
fn status_in(headers: &http::HeaderMap) -> Option<Result<(), Status>> {
    let code = headers.get("grpc-status")?;
    let code: u32 = match code.to_str().ok().and_then(|c| c.trim().parse().ok()) {
        Some(code) => code,
        None => return Some(Err(Status::new(UNKNOWN, "invalid grpc-status"))),
    };
    if code == 0 {
        return Some(Ok(()));
    }
    let description = headers
        .get("grpc-message")
        .map(|m| percent_decode(m.as_bytes()));
    let code = if (code as usize) < CODE_NAMES.len() {
        code
    } else {
        UNKNOWN
    };
    Some(Err(Status { code, description }))
}

/// grpc-java's mapping of an HTTP status that is not 200 (gRPC's HTTP-to-gRPC table).
fn http_status(http: u16) -> Status {
    let code = match http {
        400 | 431 => INTERNAL,
        401 => 16,
        403 => 7,
        404 => UNIMPLEMENTED,
        429 | 502 | 503 | 504 => UNAVAILABLE,
        _ => UNKNOWN,
    };
    Status::new(code, format!("HTTP status code {http}"))
}

fn stream_error(error: &h2::Error) -> Status {
    match error.reason() {
        Some(reason) if error.is_remote() => Status::new(
            INTERNAL,
            format!("Received Rst Stream with {reason:?}").replace("Reason(", "("),
        ),
        _ => Status::io_exception(),
    }
}

fn too_large(limit: usize, size: usize) -> Status {
    Status::new(
        RESOURCE_EXHAUSTED,
        format!("gRPC message exceeds maximum size {limit}: {size}"),
    )
}

/// The one message of a unary answer.
fn single_message(mut received: Bytes, limit: usize) -> Result<Bytes, Status> {
    let mut messages = Vec::new();
    while received.has_remaining() {
        if received.len() < 5 {
            return Err(Status::new(INTERNAL, "Encountered end-of-stream mid-frame"));
        }
        let compressed = received.get_u8();
        let length = received.get_u32() as usize;
        if compressed != 0 {
            return Err(Status::new(
                INTERNAL,
                "Can't decode compressed gRPC message as compression not configured",
            ));
        }
        if length > limit {
            return Err(too_large(limit, length));
        }
        if received.len() < length {
            return Err(Status::new(INTERNAL, "Encountered end-of-stream mid-frame"));
        }
        messages.push(received.split_to(length));
    }
    match messages.len() {
        1 => Ok(messages.pop().unwrap_or_default()),
        0 => Err(Status::new(INTERNAL, "No value received for unary call")),
        _ => Err(Status::new(
            INTERNAL,
            "More than one value received for unary call",
        )),
    }
}

/// `grpc-message`'s percent-encoding undone (invalid UTF-8 replaced).
fn percent_decode(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' && i + 2 < raw.len() {
            let hex = std::str::from_utf8(&raw[i + 1..i + 3]).ok();
            if let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(raw[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_port_parse_as_guava_reads_them() {
        let target = Target::parse("localhost:8005", false, true).expect("valid");
        assert_eq!((target.host.as_str(), target.port), ("localhost", 8005));
        let v6 = Target::parse("[::1]:50051", true, true).expect("valid");
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 50051));
        assert_eq!(v6.authority(), "[::1]:50051");
        assert!(Target::parse("localhost", false, true).is_err());
        assert!(Target::parse("localhost:http", false, true).is_err());
    }

    #[test]
    fn statuses_print_as_status_runtime_exceptions() {
        assert_eq!(
            Status::new(5, "no shelf").exception_text(),
            "io.grpc.StatusRuntimeException: NOT_FOUND: no shelf"
        );
        let bare = Status {
            code: 1,
            description: None,
        };
        assert_eq!(
            bare.exception_text(),
            "io.grpc.StatusRuntimeException: CANCELLED"
        );
    }

    #[test]
    fn messages_are_percent_decoded_and_frames_split() {
        assert_eq!(percent_decode(b"shelf %231 gone%"), "shelf #1 gone%");
        assert_eq!(percent_decode(b"caf%C3%A9"), "café");
        let one = Bytes::from_static(&[0, 0, 0, 0, 2, 8, 1]);
        assert_eq!(
            single_message(one.clone(), MAX_INBOUND_MESSAGE),
            Ok(Bytes::from_static(&[8, 1]))
        );
        assert_eq!(single_message(one, 1).unwrap_err().code, RESOURCE_EXHAUSTED);
        let two = Bytes::from_static(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            single_message(two, MAX_INBOUND_MESSAGE).unwrap_err().code,
            INTERNAL
        );
        assert_eq!(timeout_header(Duration::from_millis(1500)), "1500m");
    }
}
