//! An event-stream server for end-to-end tests, on 127.0.0.1 only (plain or HTTPS
//! with the self-signed certificate of `tests/support/tls/`). Each test gives a
//! handler from request (and how many requests came before it to the same path) to a
//! [`Script`]: a response head, then pieces of body sent in turn with pauses, then
//! either the end of the stream or the connection held open until the client leaves.
//! Every request is recorded (with its body, by `Content-Length`), so tests check the
//! headers jmxr sent; it also answers the plain requests beside a stream (a login, a
//! POST).

use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use super::http_server::Request;

/// One step of a response body.
pub enum Step {
    /// Bytes to send (one chunk when the body is chunked).
    Send(Vec<u8>),
    Wait(Duration),
}

/// What the server answers.
pub struct Script {
    pub status: u16,
    pub reason: &'static str,
    pub headers: Vec<(String, String)>,
    /// `Transfer-Encoding: chunked`; else the body runs until the connection closes.
    pub chunked: bool,
    pub steps: Vec<Step>,
    /// After the steps: close (ending the stream) rather than hold the connection open.
    pub close: bool,
}

impl Script {
    /// A `200 text/event-stream` answer, chunked, held open after its steps.
    pub fn stream(steps: Vec<Step>) -> Script {
        Script {
            status: 200,
            reason: "OK",
            headers: vec![(
                "Content-Type".into(),
                "text/event-stream; charset=utf-8".into(),
            )],
            chunked: true,
            steps,
            close: false,
        }
    }

    /// Any other answer with a short body, closed after it.
    pub fn page(status: u16, reason: &'static str, content_type: &str, body: &str) -> Script {
        Script {
            status,
            reason,
            headers: vec![
                ("Content-Type".into(), content_type.into()),
                ("Content-Length".into(), body.len().to_string()),
                // One request per connection: the client must not keep it.
                ("Connection".into(), "close".into()),
            ],
            chunked: false,
            steps: vec![Step::Send(body.as_bytes().to_vec())],
            close: true,
        }
    }

    pub fn closing(mut self) -> Script {
        self.close = true;
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Script {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// Text to send.
pub fn send(text: &str) -> Step {
    Step::Send(text.as_bytes().to_vec())
}

pub fn wait(ms: u64) -> Step {
    Step::Wait(Duration::from_millis(ms))
}

type Handler = dyn Fn(&Request, usize) -> Script + Send + Sync;

/// A running server, kept as the HTTP test server keeps its requests.
pub type SseServer = super::http_server::TestServer;

/// The longest a held connection stays open.
const HOLD_LIMIT: Duration = Duration::from_secs(30);

/// Starts a server on a free port of 127.0.0.1, with TLS when `tls`.
pub fn serve(
    tls: bool,
    handler: impl Fn(&Request, usize) -> Script + Send + Sync + 'static,
) -> SseServer {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("address").port();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let handler: Arc<Handler> = Arc::new(handler);
    let seen = requests.clone();
    let config = tls.then(|| Arc::new(super::h2_server::tls_config()));
    std::thread::spawn(move || {
        let counts: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
        for (number, stream) in listener.incoming().flatten().enumerate() {
            let (handler, seen, counts, config) = (
                handler.clone(),
                seen.clone(),
                counts.clone(),
                config.clone(),
            );
            std::thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(HOLD_LIMIT));
                let _ = match config {
                    Some(config) => {
                        let mut config = (*config).clone();
                        config.alpn_protocols.clear();
                        match rustls::ServerConnection::new(Arc::new(config)) {
                            Ok(session) => {
                                let tcp = stream.try_clone().expect("socket clone");
                                let tls = rustls::StreamOwned::new(session, stream);
                                session_on(tls, tcp, number + 1, &*handler, &seen, &counts)
                            }
                            Err(_) => Ok(()),
                        }
                    }
                    None => {
                        let tcp = stream.try_clone().expect("socket clone");
                        session_on(stream, tcp, number + 1, &*handler, &seen, &counts)
                    }
                };
            });
        }
    });
    SseServer { port, requests }
}

/// One connection: one request, its scripted answer.
fn session_on(
    stream: impl Read + Write,
    tcp: TcpStream,
    number: usize,
    handler: &Handler,
    seen: &Mutex<Vec<Request>>,
    counts: &Mutex<HashMap<String, usize>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    let Some(request) = super::http_server::read_request(&mut reader, number)? else {
        return Ok(());
    };
    let target = request.target.clone();
    let path = target.split('?').next().unwrap_or("").to_string();
    let before = {
        let mut counts = counts.lock().expect("counts lock");
        let count = counts.entry(path).or_default();
        *count += 1;
        *count - 1
    };
    let script = handler(&request, before);
    seen.lock().expect("requests lock").push(request);
    let writer = reader.get_mut();
    let mut head = format!("HTTP/1.1 {} {}\r\n", script.status, script.reason);
    for (name, value) in &script.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if script.chunked {
        head.push_str("Transfer-Encoding: chunked\r\n");
    }
    head.push_str("\r\n");
    writer.write_all(head.as_bytes())?;
    writer.flush()?;
    for step in &script.steps {
        match step {
            Step::Wait(pause) => std::thread::sleep(*pause),
            Step::Send(bytes) if script.chunked => {
                writer.write_all(format!("{:x}\r\n", bytes.len()).as_bytes())?;
                writer.write_all(bytes)?;
                writer.write_all(b"\r\n")?;
                writer.flush()?;
            }
            Step::Send(bytes) => {
                writer.write_all(bytes)?;
                writer.flush()?;
            }
        }
    }
    if script.close {
        if script.chunked {
            writer.write_all(b"0\r\n\r\n")?;
            writer.flush()?;
        }
        return tcp.shutdown(std::net::Shutdown::Both);
    }
    // Held open: wait for the client to leave (or the hold limit).
    let mut sink = [0u8; 256];
    while let Ok(read) = reader.get_mut().read(&mut sink) {
        if read == 0 {
            break;
        }
    }
    Ok(())
}
