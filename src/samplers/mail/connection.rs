//! The line-oriented connection the three mail protocols share: TCP, TLS from the start
//! (SMTPS, IMAPS, POP3S) or upgraded in place (STARTTLS, STLS), lines read with an
//! optional read timeout, and the texts of JavaMail's connection failures.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::samplers::http::{tls_handshake, Stream};
use crate::samplers::tcp::connection::{connect, io_text};

/// How the session is secured and whether certificates are checked (JMeter's security
/// settings: "Use SSL", "Use StartTLS", "Enforce StartTLS", "Trust all certificates").
#[derive(Debug, Clone, Copy, Default)]
pub struct Security {
    pub ssl: bool,
    pub start_tls: bool,
    pub enforce_start_tls: bool,
    pub trust_all: bool,
}

/// Why a connection could not be opened, in JavaMail's words.
pub enum ConnectError {
    /// `com.sun.mail.util.MailConnectException` (refused, unreachable, timed out).
    Refused {
        host: String,
        port: i64,
        cause: String,
    },
    /// The host name does not resolve.
    UnknownHost(String),
    /// The TLS handshake failed.
    Tls(String),
}

impl ConnectError {
    /// The exception's `getMessage()`.
    pub fn message(&self, timeout: &str) -> String {
        match self {
            ConnectError::Refused { host, port, .. } => {
                format!("Couldn't connect to host, port: {host}, {port}; timeout {timeout}")
            }
            ConnectError::UnknownHost(text) | ConnectError::Tls(text) => text.clone(),
        }
    }

    /// The exception's `toString()`, nested cause included.
    pub fn java_text(&self, timeout: &str) -> String {
        match self {
            ConnectError::Refused { cause, .. } => format!(
                "com.sun.mail.util.MailConnectException: {};\n  nested exception is:\n\t{cause}",
                self.message(timeout)
            ),
            ConnectError::UnknownHost(text) => format!("java.net.UnknownHostException: {text}"),
            ConnectError::Tls(text) => format!("javax.net.ssl.SSLHandshakeException: {text}"),
        }
    }
}

pub struct Connection {
    io: BufReader<Stream>,
    host: String,
    read_timeout: Option<Duration>,
}

impl Connection {
    /// Connects to `host:port`, with TLS from the start when `ssl`.
    pub async fn open(
        host: &str,
        port: i64,
        ssl: bool,
        trust_all: bool,
        connect_timeout: Option<Duration>,
        read_timeout: Option<Duration>,
    ) -> Result<Connection, ConnectError> {
        let tcp = connect(host, port, connect_timeout)
            .await
            .map_err(|cause| {
                if cause.starts_with("java.net.UnknownHostException") {
                    ConnectError::UnknownHost(host.to_string())
                } else {
                    ConnectError::Refused {
                        host: host.to_string(),
                        port,
                        cause,
                    }
                }
            })?;
        let stream = if ssl {
            tls_handshake(tcp, host, !trust_all)
                .await
                .map_err(|e| ConnectError::Tls(e.to_string()))?
        } else {
            Stream::Plain(tcp)
        };
        Ok(Connection {
            io: BufReader::new(stream),
            host: host.to_string(),
            read_timeout,
        })
    }

    /// Turns the plain connection into TLS after the server agreed (STARTTLS, STLS).
    pub async fn upgrade(self, trust_all: bool) -> io::Result<Connection> {
        let Connection {
            io,
            host,
            read_timeout,
        } = self;
        let stream = match io.into_inner() {
            Stream::Plain(tcp) => tls_handshake(tcp, &host, !trust_all).await?,
            tls => tls,
        };
        Ok(Connection {
            io: BufReader::new(stream),
            host,
            read_timeout,
        })
    }

    /// Writes `line` and CRLF.
    pub async fn send_line(&mut self, line: &str) -> io::Result<()> {
        let stream = self.io.get_mut();
        stream.write_all(line.as_bytes()).await?;
        stream.write_all(b"\r\n").await?;
        stream.flush().await
    }

    /// Writes raw bytes.
    pub async fn send_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        let stream = self.io.get_mut();
        stream.write_all(bytes).await?;
        stream.flush().await
    }

    /// Reads one line without its line end; the server closing is `UnexpectedEof`.
    pub async fn read_line(&mut self) -> io::Result<String> {
        let line = self.read_line_raw().await?;
        Ok(String::from_utf8_lossy(&line).into_owned())
    }

    /// [`read_line`](Self::read_line) as bytes (message lines need not be UTF-8).
    pub async fn read_line_raw(&mut self) -> io::Result<Vec<u8>> {
        let mut line = Vec::new();
        let read = timed(self.read_timeout, self.io.read_until(b'\n', &mut line));
        if read.await? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        Ok(line)
    }

    /// Reads exactly `n` bytes (an IMAP literal).
    pub async fn read_exact(&mut self, n: usize) -> io::Result<Vec<u8>> {
        let mut buf = vec![0; n];
        timed(self.read_timeout, self.io.read_exact(&mut buf)).await?;
        Ok(buf)
    }
}

/// Awaits `read`, failing with `TimedOut` after `limit` when there is one.
async fn timed<T>(
    limit: Option<Duration>,
    read: impl std::future::Future<Output = io::Result<T>>,
) -> io::Result<T> {
    match limit {
        Some(limit) => tokio::time::timeout(limit, read)
            .await
            .map_err(|_| io::Error::from(io::ErrorKind::TimedOut))?,
        None => read.await,
    }
}

/// A read or write failure as the JVM names it.
pub fn java_io_text(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::UnexpectedEof => "java.io.EOFException: Connection closed".to_string(),
        _ => io_text(error),
    }
}

/// A millisecond setting: positive values limit, anything else means no limit.
pub fn millis(text: &str) -> Option<Duration> {
    match text.trim().parse::<i64>() {
        Ok(ms) if ms > 0 => Some(Duration::from_millis(ms as u64)),
        _ => None,
    }
}
