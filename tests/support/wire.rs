//! A server on 127.0.0.1 that keeps every request exactly as it came off the socket: the
//! request line and header lines byte for byte, and the body its `Content-Length` names.
//! Tests compare those bytes with what JMeter sends.
//!
//! A body that does not arrive within [`BODY_WAIT`] (a `Content-Length` nobody fills) is
//! kept as far as it came and marked incomplete; the request is answered anyway, so a
//! client bug shows as a wrong capture rather than a hung test.
//!
//! [`silent`] accepts connections and reads requests but never answers (a hung server).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a declared body may take to arrive.
pub const BODY_WAIT: Duration = Duration::from_millis(1500);

/// One request as received.
#[derive(Debug, Clone)]
pub struct Captured {
    /// The request line and header lines, each ending in CRLF, and the blank line.
    pub head: String,
    pub body: Vec<u8>,
    /// False when fewer body bytes came than `Content-Length` announced.
    pub complete: bool,
    /// 1 for the first connection accepted, 2 for the next...
    pub connection: usize,
}

impl Captured {
    /// The request line, without its CRLF.
    pub fn request_line(&self) -> &str {
        self.head.split("\r\n").next().unwrap_or("")
    }

    /// The header lines in order, as sent.
    pub fn header_lines(&self) -> Vec<&str> {
        self.head
            .split("\r\n")
            .skip(1)
            .take_while(|l| !l.is_empty())
            .collect()
    }
}

/// A running capture server; it lives until the test process ends.
pub struct WireServer {
    pub port: u16,
    captured: Arc<Mutex<Vec<Captured>>>,
}

impl WireServer {
    /// Everything received so far, in arrival order.
    pub fn requests(&self) -> Vec<Captured> {
        self.captured.lock().expect("capture lock").clone()
    }

    /// The request whose request line starts with `start` (`"GET /path"`).
    pub fn request(&self, start: &str) -> Captured {
        let all = self.requests();
        all.iter()
            .find(|r| r.request_line().starts_with(start))
            .cloned()
            .unwrap_or_else(|| panic!("no request {start:?} among {all:#?}"))
    }
}

/// Starts a capture server that answers every request `200 OK` with a short body.
pub fn capture() -> WireServer {
    start(true)
}

/// Starts a server that reads requests and never answers them.
pub fn silent() -> WireServer {
    start(false)
}

fn start(answer: bool) -> WireServer {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("address").port();
    let captured = Arc::new(Mutex::new(Vec::new()));
    let seen = captured.clone();
    std::thread::spawn(move || {
        for (number, stream) in listener.incoming().flatten().enumerate() {
            let seen = seen.clone();
            std::thread::spawn(move || {
                let _ = serve(stream, number + 1, &seen, answer);
            });
        }
    });
    WireServer { port, captured }
}

fn serve(
    mut stream: TcpStream,
    connection: usize,
    seen: &Mutex<Vec<Captured>>,
    answer: bool,
) -> std::io::Result<()> {
    let mut pending = Vec::new();
    loop {
        let Some(head_end) = read_until_blank_line(&mut stream, &mut pending)? else {
            return Ok(());
        };
        let rest = pending.split_off(head_end);
        let head = String::from_utf8_lossy(&pending).into_owned();
        pending = rest;
        let length = content_length(&head);
        let complete = read_body(&mut stream, &mut pending, length)?;
        let body: Vec<u8> = pending.drain(..length.min(pending.len())).collect();
        let close = head
            .to_ascii_lowercase()
            .contains("\r\nconnection: close\r\n")
            || !complete;
        seen.lock().expect("capture lock").push(Captured {
            head,
            body,
            complete,
            connection,
        });
        if !answer {
            // Hold the connection open without a word until the client gives up.
            let mut sink = [0u8; 1024];
            while stream.read(&mut sink)? > 0 {}
            return Ok(());
        }
        let reply = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok";
        stream.write_all(reply.as_bytes())?;
        if close {
            return Ok(());
        }
    }
}

/// Reads until `buffer` holds a whole head; the head's length, or `None` at the end.
fn read_until_blank_line(
    stream: &mut TcpStream,
    buffer: &mut Vec<u8>,
) -> std::io::Result<Option<usize>> {
    loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            return Ok(Some(at + 4));
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
}

fn content_length(head: &str) -> usize {
    head.split("\r\n")
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("Content-Length"))
        .and_then(|(_, value)| value.trim().parse().ok())
        .unwrap_or(0)
}

/// Reads until `buffer` holds `length` bytes or [`BODY_WAIT`] passes; true when complete.
fn read_body(stream: &mut TcpStream, buffer: &mut Vec<u8>, length: usize) -> std::io::Result<bool> {
    stream.set_read_timeout(Some(BODY_WAIT))?;
    let mut chunk = [0u8; 4096];
    while buffer.len() < length {
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                break
            }
            Err(e) => return Err(e),
        }
    }
    stream.set_read_timeout(None)?;
    Ok(buffer.len() >= length)
}
