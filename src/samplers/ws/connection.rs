//! A virtual user's WebSocket connection, as the plugin's `WebSocketClient`: the HTTP
//! upgrade written and checked by hand (so the sizes and messages are the plugin's),
//! then frames read one at a time only when a sampler reads, with no background
//! reader: a ping the server sends waits in the socket until a sampler (or a Ping
//! Frame Filter) reads it, as with the plugin.
//!
//! Timeouts work as Java socket timeouts do: the connect timeout bounds the TCP
//! connect; the read timeout bounds every single read (TLS handshake, upgrade response,
//! frames), 0 meaning none.

use std::time::Duration;

use bytes::BytesMut;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::frame::{self, Frame, Kind, ParseError, Pending};
use crate::samplers::http::{tls_handshake, Stream};

/// Where the connection stands (the plugin's `WebSocketState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Connected,
    /// This side sent a close frame.
    ClosedClient,
    /// The server sent a close frame.
    ClosedServer,
    Closed,
}

impl State {
    pub fn java_name(self) -> &'static str {
        match self {
            State::Connected => "CONNECTED",
            State::ClosedClient => "CLOSED_CLIENT",
            State::ClosedServer => "CLOSED_SERVER",
            State::Closed => "CLOSED",
        }
    }
}

/// Why a WebSocket operation failed, sorted as the plugin reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WsError {
    /// An `IOException`: code `Websocket I/O error`.
    Io(String),
    /// A read timed out (a `SocketTimeoutException`, an I/O error unless a read is
    /// optional).
    Timeout,
    /// The upgrade was refused: the HTTP status (when there was one) and the message.
    Upgrade(Option<u16>, String),
    /// Any other exception: code `Sampler error`, message `Sampler error: <exception>`.
    Other(String),
}

impl WsError {
    pub fn illegal_state(what: &str, state: State) -> WsError {
        WsError::Other(format!(
            "java.lang.IllegalStateException: Cannot {what} when state is {}",
            state.java_name()
        ))
    }

    fn from_parse(error: ParseError) -> WsError {
        match error {
            ParseError::Protocol(message) => WsError::Io(message),
            ParseError::Runtime(message) => {
                WsError::Other(format!("java.lang.RuntimeException: {message}"))
            }
        }
    }
}

/// The message of the exception Java raises for an I/O error.
pub fn io_message(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::ConnectionRefused => "Connection refused".into(),
        ErrorKind::ConnectionReset => "Connection reset".into(),
        ErrorKind::BrokenPipe => "Broken pipe".into(),
        ErrorKind::UnexpectedEof => "end of stream".into(),
        _ => error.to_string(),
    }
}

/// Where a connection goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub tls: bool,
    pub host: String,
    pub port: u16,
    /// Path and query, starting with `/`.
    pub path: String,
}

impl Target {
    /// The URL the plugin shows as "Connect URL" (`ws://host:port/path`).
    pub fn connect_url(&self) -> String {
        let scheme = if self.tls { "wss" } else { "ws" };
        format!("{scheme}://{}:{}{}", self.host, self.port, self.path)
    }
}

/// What the upgrade exchanged: response headers (as the plugin lists them: sorted by
/// name regardless of case, repeated names joined with `, `) and the bytes each way.
pub struct Upgraded {
    pub headers: Vec<(String, String)>,
    pub request_size: usize,
    pub response_size: usize,
}

/// One open WebSocket connection.
pub struct Connection {
    pub target: Target,
    stream: Stream,
    /// Bytes read but not yet used (the rest of a frame, or frames that follow).
    buffer: BytesMut,
    pub state: State,
    pending: Pending,
}

/// Headers the plugin writes itself; a Header Manager's values for them are dropped.
const UPGRADE_HEADERS: [&str; 5] = [
    "Host",
    "Upgrade",
    "Connection",
    "Sec-WebSocket-Key",
    "Sec-WebSocket-Version",
];

/// Runs `io` with the read timeout (`None`: no limit).
async fn within<T>(
    timeout: Option<Duration>,
    io: impl std::future::Future<Output = std::io::Result<T>>,
) -> Result<T, WsError> {
    let done = match timeout {
        Some(limit) => tokio::time::timeout(limit, io)
            .await
            .map_err(|_| WsError::Timeout)?,
        None => io.await,
    };
    done.map_err(|e| WsError::Io(io_message(&e)))
}

impl Connection {
    /// Connects, runs the TLS handshake for `wss`, and upgrades with `headers` (a Header
    /// Manager's and the cookies, in order).
    pub async fn open(
        target: Target,
        headers: &[(String, String)],
        connect_timeout: Duration,
        read_timeout: Option<Duration>,
        verify_certificates: bool,
    ) -> Result<(Connection, Upgraded), WsError> {
        let address = (target.host.as_str(), target.port);
        let tcp = tokio::time::timeout(connect_timeout, async {
            let mut last = None;
            let addrs = tokio::net::lookup_host(address)
                .await
                .map_err(|_| std::io::Error::other(target.host.clone()))?;
            for addr in addrs {
                match TcpStream::connect(addr).await {
                    Ok(stream) => return Ok(stream),
                    Err(error) => last = Some(error),
                }
            }
            Err(last.unwrap_or_else(|| std::io::Error::other(target.host.clone())))
        })
        .await
        .map_err(|_| WsError::Io("connect timed out".into()))?
        .map_err(|e| WsError::Io(io_message(&e)))?;
        let _ = tcp.set_nodelay(true);
        let stream = if target.tls {
            within(
                read_timeout,
                tls_handshake(tcp, &target.host, verify_certificates),
            )
            .await?
        } else {
            Stream::Plain(tcp)
        };
        let mut connection = Connection {
            target,
            stream,
            buffer: BytesMut::with_capacity(1024),
            state: State::Closed,
            pending: Pending::None,
        };
        let upgraded = connection.upgrade(headers, read_timeout).await?;
        connection.state = State::Connected;
        Ok((connection, upgraded))
    }

    async fn upgrade(
        &mut self,
        headers: &[(String, String)],
        read_timeout: Option<Duration>,
    ) -> Result<Upgraded, WsError> {
        let key = tungstenite::handshake::client::generate_key();
        let mut request = format!(
            "GET {} HTTP/1.1\r\nHost: {}:{}\r\n",
            self.target.path, self.target.host, self.target.port
        );
        for (name, value) in headers {
            if UPGRADE_HEADERS.iter().any(|h| h.eq_ignore_ascii_case(name)) {
                continue;
            }
            if name.contains(['\r', '\n']) || value.contains(['\r', '\n']) {
                return Err(WsError::Other(
                    "java.lang.IllegalArgumentException: Invalid header; contains new line.".into(),
                ));
            }
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str(&format!(
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ));
        self.stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| WsError::Io(io_message(&e)))?;
        let (status_line, lines, response_size) = self.read_head(read_timeout).await?;
        check_status(&status_line)?;
        let headers = response_headers(&lines);
        let get = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        if !get("Upgrade").is_some_and(|v| v.eq_ignore_ascii_case("websocket")) {
            return Err(upgrade_error(
                "Server response should contain 'Upgrade' header with value 'websocket'",
            ));
        }
        if !get("Connection").is_some_and(|v| v.eq_ignore_ascii_case("upgrade")) {
            return Err(upgrade_error(
                "Server response should contain 'Connection' header with value 'Upgrade'",
            ));
        }
        let Some(accept) = get("Sec-WebSocket-Accept") else {
            return Err(upgrade_error(
                "Server response should contain 'Sec-WebSocket-Accept' header",
            ));
        };
        if accept != tungstenite::handshake::derive_accept_key(key.as_bytes()) {
            return Err(upgrade_error(
                "Server response header 'Sec-WebSocket-Accept' has incorrect value.",
            ));
        }
        Ok(Upgraded {
            headers,
            request_size: request.len(),
            response_size,
        })
    }

    /// Reads the response head line by line (LF ends a line, CR is dropped) up to the
    /// empty line; what follows stays in the buffer for the first frame.
    async fn read_head(
        &mut self,
        read_timeout: Option<Duration>,
    ) -> Result<(String, Vec<String>, usize), WsError> {
        let mut lines = Vec::new();
        let mut used = 0;
        loop {
            let line_end = self.buffer[used..].iter().position(|&b| b == b'\n');
            let Some(end) = line_end else {
                let read = within(read_timeout, self.stream.read_buf(&mut self.buffer)).await?;
                if read == 0 {
                    if lines.is_empty() && used == self.buffer.len() {
                        return Err(WsError::Io("Empty response; connection closed.".into()));
                    }
                    // The last line ends with the stream, as the plugin's reader ends it.
                    lines.push(ascii_line(&self.buffer[used..]));
                    used = self.buffer.len();
                    break;
                }
                continue;
            };
            let line = ascii_line(&self.buffer[used..used + end]);
            used += end + 1;
            let blank = line.trim().is_empty();
            lines.push(line);
            if blank && lines.len() > 1 {
                break;
            }
        }
        let _ = self.buffer.split_to(used);
        let status = lines.remove(0);
        Ok((status, lines, used))
    }

    /// Reads the next frame, waiting at most `timeout` for each read (`None`: no limit).
    /// Tracks fragmented messages and the close handshake as the plugin does.
    pub async fn read_frame(&mut self, timeout: Option<Duration>) -> Result<Frame, WsError> {
        if !matches!(self.state, State::Connected | State::ClosedClient) {
            return Err(WsError::illegal_state("receive data frame", self.state));
        }
        let frame = loop {
            match frame::parse(&self.buffer, self.pending).map_err(WsError::from_parse)? {
                Some((frame, used)) => {
                    let _ = self.buffer.split_to(used);
                    break frame;
                }
                None => {
                    let read = within(timeout, self.stream.read_buf(&mut self.buffer)).await?;
                    if read == 0 {
                        return Err(WsError::Io(self.end_of_stream_message()));
                    }
                }
            }
        };
        if self.pending == Pending::None && frame.is_data() && !frame.fin {
            self.pending = if frame.is_text() {
                Pending::Text
            } else {
                Pending::Binary
            };
        } else if self.pending != Pending::None && frame.is_data() {
            if frame.continuation && frame.fin {
                self.pending = Pending::None;
            } else if !frame.continuation {
                return Err(WsError::Io("missing continuation frame".into()));
            }
        }
        if frame.kind == Kind::Close {
            self.state = match self.state {
                State::Connected => State::ClosedServer,
                _ => State::Closed,
            };
        }
        Ok(frame)
    }

    /// What the plugin says when the stream ends inside (or before) a frame.
    fn end_of_stream_message(&self) -> String {
        let header = self.buffer.len().min(2);
        if self.buffer.len() > header {
            if let Ok(None) = frame::parse(&self.buffer, self.pending) {
                let wanted = expected_payload(&self.buffer);
                if let Some((header_len, length)) = wanted {
                    if self.buffer.len() > header_len {
                        return format!(
                            "WebSocket protocol error: expected payload of length {length}, but can only read {} bytes",
                            self.buffer.len() - header_len
                        );
                    }
                }
            }
        }
        "end of stream".into()
    }

    /// Writes a data, ping or pong frame; `Connected` only.
    pub async fn send(&mut self, kind: Kind, payload: Vec<u8>) -> Result<Frame, WsError> {
        if self.state != State::Connected {
            let what = match kind {
                Kind::Ping => "send ping frame",
                Kind::Pong => "send pong frame",
                _ => "send data frame",
            };
            return Err(WsError::illegal_state(what, self.state));
        }
        self.write(kind, payload).await
    }

    /// Sends a close frame; allowed while connected or after the server closed.
    pub async fn send_close(&mut self, status: i32, reason: &str) -> Result<Frame, WsError> {
        if !matches!(self.state, State::Connected | State::ClosedServer) {
            return Err(WsError::illegal_state("close", self.state));
        }
        let sent = self
            .write(Kind::Close, frame::close_payload(status, reason))
            .await?;
        self.state = match self.state {
            State::Connected => State::ClosedClient,
            _ => State::Closed,
        };
        Ok(sent)
    }

    async fn write(&mut self, kind: Kind, payload: Vec<u8>) -> Result<Frame, WsError> {
        let (bytes, sent) = frame::encode(kind, payload, rand::random());
        self.stream
            .write_all(&bytes)
            .await
            .map_err(|e| WsError::Io(io_message(&e)))?;
        Ok(sent)
    }

    /// Closes the TCP connection without a close frame (the plugin's `dispose`).
    pub async fn dispose(mut self) {
        let _ = self.stream.shutdown().await;
    }
}

/// The header length and payload length a partial frame announces.
fn expected_payload(buffer: &[u8]) -> Option<(usize, u64)> {
    let second = *buffer.get(1)?;
    let (extra, length) = match second & 0x7f {
        126 => (
            2,
            u64::from(u16::from_be_bytes([*buffer.get(2)?, *buffer.get(3)?])),
        ),
        127 => {
            let bytes: [u8; 8] = buffer.get(2..10)?.try_into().ok()?;
            (8, u64::from_be_bytes(bytes))
        }
        short => (0, u64::from(short)),
    };
    let mask = if second & 0x80 != 0 { 4 } else { 0 };
    Some((2 + extra + mask, length))
}

fn ascii_line(bytes: &[u8]) -> String {
    bytes
        .iter()
        .filter(|&&b| b != b'\r')
        .map(|&b| if b.is_ascii() { b as char } else { '\u{fffd}' })
        .collect()
}

fn upgrade_error(message: &str) -> WsError {
    WsError::Upgrade(None, message.to_string())
}

/// Checks the status line is `HTTP/x.y 101` (the plugin's messages otherwise).
fn check_status(line: &str) -> Result<(), WsError> {
    let status = line
        .strip_prefix("HTTP/")
        .filter(|rest| {
            let b = rest.as_bytes();
            b.len() >= 7
                && b[0].is_ascii_digit()
                && b[1] == b'.'
                && b[2].is_ascii_digit()
                && b[3] == b' '
        })
        .and_then(|rest| rest.get(4..7))
        .filter(|code| code.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|code| code.parse::<u16>().ok());
    match status {
        Some(101) => Ok(()),
        Some(code) => Err(WsError::Upgrade(
            Some(code),
            format!("Got unexpected status {code} with statusLine:{line}"),
        )),
        None => Err(WsError::Io("Invalid status line".into())),
    }
}

/// Response header lines into (name, value) pairs sorted as the plugin's
/// case-insensitive map keeps them; a repeated name's values are joined with `, `.
fn response_headers(lines: &[String]) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match headers
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            Some((_, existing)) => {
                existing.push_str(", ");
                existing.push_str(value);
            }
            None => headers.push((name.to_string(), value.to_string())),
        }
    }
    headers.sort_by_key(|(name, _)| name.to_ascii_lowercase());
    headers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_are_checked_as_the_plugin_checks_them() {
        assert_eq!(check_status("HTTP/1.1 101 Switching Protocols"), Ok(()));
        assert_eq!(
            check_status("HTTP/1.1 401 Unauthorized"),
            Err(WsError::Upgrade(
                Some(401),
                "Got unexpected status 401 with statusLine:HTTP/1.1 401 Unauthorized".into()
            ))
        );
        assert_eq!(
            check_status("SSH-2.0"),
            Err(WsError::Io("Invalid status line".into()))
        );
    }

    #[test]
    fn response_headers_are_listed_by_name_whatever_the_case() {
        let lines = [
            "upgrade: websocket".to_string(),
            "Set-Cookie: a=1".to_string(),
            "Connection: Upgrade".to_string(),
            "set-cookie: b=2".to_string(),
            String::new(),
        ];
        assert_eq!(
            response_headers(&lines),
            vec![
                ("Connection".to_string(), "Upgrade".to_string()),
                ("Set-Cookie".to_string(), "a=1, b=2".to_string()),
                ("upgrade".to_string(), "websocket".to_string()),
            ]
        );
    }

    #[test]
    fn partial_frames_say_how_much_was_missing() {
        assert_eq!(expected_payload(&[0x81, 0x05, b'a']), Some((2, 5)));
        assert_eq!(expected_payload(&[0x82, 126, 0x01, 0x00]), Some((4, 256)));
        assert_eq!(expected_payload(&[0x82]), None);
    }
}
