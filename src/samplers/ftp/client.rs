//! The FTP control and data connections, as far as JMeter's FTP Request uses them
//! through Apache Commons Net's `FTPClient`: the welcome, `USER`/`PASS`, `TYPE I`,
//! `PASV` before each transfer, `RETR`/`STOR`, `QUIT`.
//!
//! [`Control::reply`] keeps the last reply as Commons Net's `getReplyString` gives it:
//! every line of a (possibly multi-line) reply, each ended by CRLF. JMeter uses it as
//! the response message of failed samples. ASCII transfers convert line ends as Commons
//! Net's streams do on a Unix client: CRLF becomes LF on the way in, a lone LF becomes
//! CRLF on the way out.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

/// A control connection and its last reply.
pub struct Control {
    reader: BufReader<OwnedReadHalf>,
    writer: OwnedWriteHalf,
    /// The last reply's code (0 before any).
    pub code: u16,
    /// The last reply's text, lines ended by CRLF.
    pub reply: String,
}

/// Whether a code is a positive completion (2xx).
pub fn completed(code: u16) -> bool {
    (200..300).contains(&code)
}

/// Whether a code is a positive preliminary reply (1xx).
fn preliminary(code: u16) -> bool {
    (100..200).contains(&code)
}

/// Whether a code is a positive intermediate reply (3xx).
fn intermediate(code: u16) -> bool {
    (300..400).contains(&code)
}

impl Control {
    /// Wraps a connected stream and reads the server's welcome.
    pub async fn open(stream: TcpStream) -> io::Result<Control> {
        let (read, write) = stream.into_split();
        let mut control = Control {
            reader: BufReader::new(read),
            writer: write,
            code: 0,
            reply: String::new(),
        };
        control.read_reply().await?;
        Ok(control)
    }

    /// Reads one reply: a line `ddd text`, or `ddd-text` up to a line `ddd text`.
    async fn read_reply(&mut self) -> io::Result<u16> {
        let mut reply = String::new();
        let mut first = String::new();
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).await? == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "Connection closed without indication.",
                ));
            }
            let line = line.trim_end_matches(['\r', '\n']);
            reply.push_str(line);
            reply.push_str("\r\n");
            if first.is_empty() {
                first = line.to_string();
                if first.as_bytes().get(3) != Some(&b'-') {
                    break;
                }
            } else if line.len() >= 4 && line[..3] == first[..3] && &line[3..4] == " " {
                break;
            }
        }
        let code = first
            .get(..3)
            .and_then(|digits| digits.parse::<u16>().ok())
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("Truncated server reply: {first}"),
                )
            })?;
        self.code = code;
        self.reply = reply;
        Ok(code)
    }

    /// Sends a command line and reads its reply.
    pub async fn command(&mut self, line: &str) -> io::Result<u16> {
        self.writer
            .write_all(format!("{line}\r\n").as_bytes())
            .await?;
        self.read_reply().await
    }

    /// Commons Net's `login`: `USER`, then `PASS` when the server asks for it.
    pub async fn login(&mut self, user: &str, password: &str) -> io::Result<bool> {
        let code = self.command(&format!("USER {user}")).await?;
        if completed(code) {
            return Ok(true);
        }
        if !intermediate(code) {
            return Ok(false);
        }
        Ok(completed(self.command(&format!("PASS {password}")).await?))
    }

    /// `PASV`, then `verb path` on the data connection it names; `None` when either is
    /// refused (the reply says why).
    async fn open_data(&mut self, verb: &str, path: &str) -> io::Result<Option<TcpStream>> {
        if self.command("PASV").await? != 227 {
            return Ok(None);
        }
        let address = passive_address(&self.reply).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "Could not parse passive host information.\nServer Reply: {}",
                    self.reply.trim_end()
                ),
            )
        })?;
        let data = TcpStream::connect(address).await?;
        if !preliminary(self.command(&format!("{verb} {path}")).await?) {
            return Ok(None);
        }
        Ok(Some(data))
    }

    /// Downloads `path` (JMeter's `retrieveFileStream` and copy): `None` when the server
    /// refuses, else the bytes. The transfer's completion reply is left unread, as JMeter
    /// leaves it.
    pub async fn retrieve(&mut self, path: &str, ascii: bool) -> io::Result<Option<Vec<u8>>> {
        let Some(mut data) = self.open_data("RETR", path).await? else {
            return Ok(None);
        };
        let mut bytes = Vec::new();
        data.read_to_end(&mut bytes).await?;
        Ok(Some(if ascii { from_net_ascii(&bytes) } else { bytes }))
    }

    /// Uploads `content` to `path` (Commons Net's `storeFile`): whether the server
    /// confirmed the transfer.
    pub async fn store(&mut self, path: &str, content: &[u8], ascii: bool) -> io::Result<bool> {
        let Some(mut data) = self.open_data("STOR", path).await? else {
            return Ok(false);
        };
        if ascii {
            data.write_all(&to_net_ascii(content)).await?;
        } else {
            data.write_all(content).await?;
        }
        data.shutdown().await?;
        drop(data);
        Ok(completed(self.read_reply().await?))
    }

    /// `QUIT`, ignoring what follows (JMeter ignores failures of its logout).
    pub async fn quit(&mut self) {
        let _ = self.writer.write_all(b"QUIT\r\n").await;
        let _ = self.writer.shutdown().await;
    }
}

/// The address in a `227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)` reply.
fn passive_address(reply: &str) -> Option<SocketAddr> {
    // Past the reply code, the first six numbers.
    let numbers: Vec<u8> = reply
        .get(4..)?
        .split(|c: char| !c.is_ascii_digit())
        .filter(|part| !part.is_empty())
        .take(6)
        .map(|part| part.parse().ok())
        .collect::<Option<_>>()?;
    let [a, b, c, d, high, low] = numbers[..] else {
        return None;
    };
    let port = u16::from(high) * 256 + u16::from(low);
    Some(SocketAddr::from((Ipv4Addr::new(a, b, c, d), port)))
}

/// Network ASCII to a Unix client's text: CRLF becomes LF.
fn from_net_ascii(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut iter = bytes.iter().peekable();
    while let Some(&byte) = iter.next() {
        if byte == b'\r' && iter.peek() == Some(&&b'\n') {
            continue;
        }
        out.push(byte);
    }
    out
}

/// A Unix client's text to network ASCII: a LF not preceded by CR gets one.
fn to_net_ascii(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 16);
    let mut last_was_cr = false;
    for &byte in bytes {
        if byte == b'\n' && !last_was_cr {
            out.push(b'\r');
        }
        out.push(byte);
        last_was_cr = byte == b'\r';
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passive_replies_name_the_data_address() {
        assert_eq!(
            passive_address("227 Entering Passive Mode (127,0,0,1,200,10).\r\n"),
            Some(SocketAddr::from(([127, 0, 0, 1], 200 * 256 + 10)))
        );
        assert_eq!(
            passive_address("227 =127,0,0,1,0,21\r\n").map(|a| a.port()),
            Some(21)
        );
        assert_eq!(passive_address("227 nothing\r\n"), None);
    }

    #[test]
    fn ascii_transfers_convert_line_ends_as_commons_net_does() {
        assert_eq!(from_net_ascii(b"a\r\nb\rc\n"), b"a\nb\rc\n");
        assert_eq!(to_net_ascii(b"a\nb\r\nc"), b"a\r\nb\r\nc");
    }
}
