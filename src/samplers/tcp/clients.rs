//! JMeter's three TCP client classes: how a request is written and a response read.
//!
//! * `TCPClientImpl`: text (UTF-8) out; reads until the end-of-line byte ends a read
//!   or the server closes. Any read error, a timeout included, fails the sample with
//!   `Error reading from server, bytes read: N` and the partial text.
//! * `BinaryTCPClientImpl`: hex digits out as bytes; reads like the text client, the
//!   response stored as lower-case hex. Without an end-of-message byte a timeout simply
//!   ends the response; with one it fails (`Socket timed out while looking for EOM`).
//! * `LengthPrefixedBinaryTCPClientImpl`: hex out behind a big-endian length prefix
//!   (`tcp.binarylength.prefix.length`, 2 bytes); reads the prefix, then that many bytes.
//!
//! As in JMeter, the end-of-line test looks at the last byte of each read, and the read
//! timeout (`SO_TIMEOUT`) bounds each read, not the whole response.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::samplers::bytes::{hex_to_bytes, to_hex};

/// Which client class a TCP Sampler uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientKind {
    Text,
    Binary,
    LengthPrefixed,
}

const PROTO_PREFIX: &str = "org.apache.jmeter.protocol.tcp.sampler.";

impl ClientKind {
    /// The client for a class name, short or qualified, as `TCPSampler` looks it up.
    pub fn by_class(name: &str) -> Option<ClientKind> {
        let short = name.strip_prefix(PROTO_PREFIX).unwrap_or(name);
        match short {
            "TCPClientImpl" => Some(ClientKind::Text),
            "BinaryTCPClientImpl" => Some(ClientKind::Binary),
            "LengthPrefixedBinaryTCPClientImpl" => Some(ClientKind::LengthPrefixed),
            _ => None,
        }
    }
}

/// How a client reads and writes in this run.
#[derive(Debug, Clone, Copy)]
pub struct Client {
    pub kind: ClientKind,
    /// The end-of-line (end-of-message) byte, when one is in use.
    pub eol: Option<u8>,
    /// Bytes of the length prefix.
    pub prefix_len: usize,
}

/// Records the latency (ms since the sample started) when the first bytes arrive.
pub struct Latency<'a> {
    pub watch: &'a crate::sample::Stopwatch,
    pub ms: Option<i64>,
}

impl Latency<'_> {
    fn mark(&mut self) {
        self.ms.get_or_insert_with(|| self.watch.elapsed_ms());
    }
}

/// A failed exchange: JMeter's exception text and what was read before it.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub partial: String,
}

const READ_EXCEPTION: &str = "org.apache.jmeter.protocol.tcp.sampler.ReadException";

fn read_exception(message: &str, partial: String) -> Failure {
    Failure {
        message: format!("{READ_EXCEPTION}: {message}"),
        partial,
    }
}

/// A Java byte from JMeter's integer setting: only -128..=127 turns the byte on.
pub fn eol_byte(value: i64) -> Option<u8> {
    i8::try_from(value).ok().map(|b| b as u8)
}

/// What one read returned.
enum Read {
    Data(usize),
    End,
    TimedOut,
    Failed,
}

async fn read_some(stream: &mut TcpStream, buffer: &mut [u8], timeout: Option<Duration>) -> Read {
    let read = stream.read(buffer);
    let outcome = match timeout {
        Some(limit) => match tokio::time::timeout(limit, read).await {
            Ok(outcome) => outcome,
            Err(_) => return Read::TimedOut,
        },
        None => read.await,
    };
    match outcome {
        Ok(0) => Read::End,
        Ok(n) => Read::Data(n),
        Err(_) => Read::Failed,
    }
}

impl Client {
    /// Writes the request. Hex that does not parse fails before anything is sent.
    pub async fn write(&self, stream: &mut TcpStream, request: &str) -> Result<(), Failure> {
        let bytes = match self.kind {
            ClientKind::Text => request.as_bytes().to_vec(),
            ClientKind::Binary | ClientKind::LengthPrefixed => {
                let mut body = hex_to_bytes(request).map_err(|e| Failure {
                    message: format!("java.lang.IllegalArgumentException: {e}"),
                    partial: String::new(),
                })?;
                if self.kind == ClientKind::LengthPrefixed {
                    // JMeter counts hex characters / 2, even for odd input it would reject.
                    let length = (request.chars().count() / 2) as u64;
                    let prefix = length.to_be_bytes();
                    let mut framed = prefix[8 - self.prefix_len.min(8)..].to_vec();
                    framed.append(&mut body);
                    body = framed;
                }
                body
            }
        };
        let written = async {
            stream.write_all(&bytes).await?;
            stream.flush().await
        };
        written.await.map_err(|e| Failure {
            message: crate::samplers::tcp::connection::io_text(&e),
            partial: String::new(),
        })
    }

    /// Reads the response; `latency` is marked when its first bytes arrive.
    pub async fn read(
        &self,
        stream: &mut TcpStream,
        timeout: Option<Duration>,
        latency: &mut Latency<'_>,
    ) -> Result<String, Failure> {
        match self.kind {
            ClientKind::LengthPrefixed => self.read_prefixed(stream, timeout, latency).await,
            _ => self.read_until_eol(stream, timeout, latency).await,
        }
    }

    async fn read_until_eol(
        &self,
        stream: &mut TcpStream,
        timeout: Option<Duration>,
        latency: &mut Latency<'_>,
    ) -> Result<String, Failure> {
        let mut data = Vec::new();
        let mut buffer = [0u8; 4096];
        let mut first = true;
        loop {
            match read_some(stream, &mut buffer, timeout).await {
                Read::Data(n) => {
                    if std::mem::take(&mut first) {
                        latency.mark();
                    }
                    data.extend_from_slice(&buffer[..n]);
                    if self.eol.is_some_and(|eol| buffer[n - 1] == eol) {
                        break;
                    }
                }
                Read::End => break,
                Read::TimedOut if self.kind == ClientKind::Binary => {
                    if self.eol.is_some() {
                        let partial = to_hex(&data);
                        return Err(read_exception(
                            "Socket timed out while looking for EOM",
                            partial,
                        ));
                    }
                    break;
                }
                Read::TimedOut | Read::Failed => {
                    let message = match self.kind {
                        ClientKind::Binary => "Problems while trying to read".to_string(),
                        _ => format!("Error reading from server, bytes read: {}", data.len()),
                    };
                    return Err(read_exception(&message, self.decode(&data)));
                }
            }
        }
        Ok(self.decode(&data))
    }

    async fn read_prefixed(
        &self,
        stream: &mut TcpStream,
        timeout: Option<Duration>,
        latency: &mut Latency<'_>,
    ) -> Result<String, Failure> {
        let mut prefix = vec![0u8; self.prefix_len];
        match read_fully(stream, &mut prefix, timeout).await {
            Ok(n) if n == prefix.len() => latency.mark(),
            // A short prefix (the server closed) is an empty response, as in JMeter.
            Ok(_) => return Ok(String::new()),
            Err(_) => return Err(read_exception("", String::new())),
        }
        let length = prefix
            .iter()
            .fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
        let mut message = vec![0u8; length];
        match read_fully(stream, &mut message, timeout).await {
            Ok(n) => {
                message.truncate(n);
                Ok(to_hex(&message))
            }
            Err(got) => {
                message.truncate(got);
                Err(read_exception("", to_hex(&message)))
            }
        }
    }

    fn decode(&self, data: &[u8]) -> String {
        match self.kind {
            ClientKind::Text => String::from_utf8_lossy(data).into_owned(),
            _ => to_hex(data),
        }
    }
}

/// Reads until `buffer` is full or the peer closes; the count read, or on a timeout or
/// error the count read before it.
async fn read_fully(
    stream: &mut TcpStream,
    buffer: &mut [u8],
    timeout: Option<Duration>,
) -> Result<usize, usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match read_some(stream, &mut buffer[filled..], timeout).await {
            Read::Data(n) => filled += n,
            Read::End => break,
            Read::TimedOut | Read::Failed => return Err(filled),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_resolve_short_or_qualified() {
        assert_eq!(
            ClientKind::by_class("TCPClientImpl"),
            Some(ClientKind::Text)
        );
        assert_eq!(
            ClientKind::by_class(
                "org.apache.jmeter.protocol.tcp.sampler.LengthPrefixedBinaryTCPClientImpl"
            ),
            Some(ClientKind::LengthPrefixed)
        );
        assert_eq!(ClientKind::by_class("org.foo.xxx"), None);
    }

    #[test]
    fn only_java_byte_values_turn_the_eol_byte_on() {
        assert_eq!(eol_byte(10), Some(10));
        assert_eq!(eol_byte(-1), Some(0xff));
        assert_eq!(eol_byte(1000), None);
        assert_eq!(eol_byte(128), None);
    }
}
