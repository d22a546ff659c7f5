//! WebSocket servers for end-to-end tests, on 127.0.0.1 only, both speaking the command
//! language described in `ws_echo.py` (echo, headers, fragments, ping-then, noise-then,
//! silence, close:N; `/secure` refuses the upgrade with 401 without Authorization):
//! * [`serve`]: in-process, on tokio-tungstenite, plain or TLS with the self-signed
//!   certificate in `tests/support/tls/`; it also serves what the plugin's sample plans
//!   expect (`/fragmented_message`, `/stockticker`);
//! * [`python`]: the same commands served by Debian's python3-websockets (a server no
//!   one here wrote), started as a child process and killed when dropped.

// tungstenite's upgrade callback returns its (large) error response by value.
#![allow(clippy::result_large_err)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::protocol::frame::coding::{CloseCode, Data, OpCode};
use tokio_tungstenite::tungstenite::protocol::frame::{CloseFrame, Frame};
use tokio_tungstenite::tungstenite::Message;

/// A server listening on 127.0.0.1.
pub trait WsServer {
    fn port(&self) -> u16;
}

/// The in-process server; it lives until the test process ends.
pub struct InProcess {
    port: u16,
    /// The close frames clients sent: status and reason.
    pub closes: Arc<Mutex<Vec<(u16, String)>>>,
}

impl WsServer for InProcess {
    fn port(&self) -> u16 {
        self.port
    }
}

/// Starts the in-process server, with TLS when `tls`.
pub fn serve(tls: bool) -> InProcess {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    std_listener.set_nonblocking(true).expect("non-blocking");
    let port = std_listener.local_addr().expect("address").port();
    let acceptor = tls.then(|| tokio_rustls::TlsAcceptor::from(Arc::new(tls_config())));
    let closes = Arc::new(Mutex::new(Vec::new()));
    let seen_closes = closes.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).expect("listener");
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                let closes = seen_closes.clone();
                tokio::spawn(async move {
                    match acceptor {
                        Some(acceptor) => {
                            if let Ok(stream) = acceptor.accept(tcp).await {
                                session(stream, closes).await;
                            }
                        }
                        None => session(tcp, closes).await,
                    }
                });
            }
        });
    });
    InProcess { port, closes }
}

/// One connection: the upgrade (refused on `/secure` without credentials), then the
/// commands.
async fn session<S: AsyncRead + AsyncWrite + Unpin>(
    stream: S,
    closes: Arc<Mutex<Vec<(u16, String)>>>,
) {
    let mut seen = (String::new(), String::new());
    let mut path = String::new();
    let callback = |request: &Request, response: Response| {
        let header = |name: &str| {
            request
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string()
        };
        if request.uri().path().starts_with("/secure") && header("Authorization").is_empty() {
            let mut refused = ErrorResponse::new(Some("no credentials\n".into()));
            *refused.status_mut() = tokio_tungstenite::tungstenite::http::StatusCode::UNAUTHORIZED;
            return Err(refused);
        }
        seen = (header("X-Test"), header("Cookie"));
        path = request.uri().path().to_string();
        Ok(response)
    };
    let Ok(mut ws) = tokio_tungstenite::accept_hdr_async(stream, callback).await else {
        return;
    };
    // The plugin's sample plans: a message in three frames pushed on connect, and a
    // ticker that pushes prices once subscribed.
    if path == "/fragmented_message" {
        for (i, part) in ["frag1", "frag2", "frag3"].iter().enumerate() {
            let opcode = if i == 0 {
                OpCode::Data(Data::Text)
            } else {
                OpCode::Data(Data::Continue)
            };
            let _ = ws
                .send(Message::Frame(Frame::message(
                    part.to_string(),
                    opcode,
                    i == 2,
                )))
                .await;
        }
    }
    let ticker = path == "/stockticker";
    while let Some(Ok(message)) = ws.next().await {
        let text = match message {
            Message::Binary(bytes) => {
                let _ = ws.send(Message::Binary(bytes)).await;
                continue;
            }
            Message::Text(text) => text.to_string(),
            Message::Close(Some(frame)) => {
                let mut closes = closes.lock().expect("close list");
                closes.push((u16::from(frame.code), frame.reason.to_string()));
                continue;
            }
            _ => continue,
        };
        let sent = if ticker {
            let mut result = ws
                .send(Message::text(format!("subscribed to {text}")))
                .await;
            for price in 1..=11 {
                result = ws.send(Message::text(format!("{text} {price}.00"))).await;
            }
            result
        } else if text == "headers" {
            ws.send(Message::text(format!(
                "X-Test: {}|Cookie: {}",
                seen.0, seen.1
            )))
            .await
        } else if let Some(parts) = text.strip_prefix("fragments:") {
            let parts: Vec<&str> = parts.split(',').collect();
            let mut result = Ok(());
            for (i, part) in parts.iter().enumerate() {
                let opcode = if i == 0 {
                    OpCode::Data(Data::Text)
                } else {
                    OpCode::Data(Data::Continue)
                };
                let frame = Frame::message(part.to_string(), opcode, i + 1 == parts.len());
                result = ws.send(Message::Frame(frame)).await;
            }
            result
        } else if let Some(after) = text.strip_prefix("ping-then:") {
            let _ = ws.send(Message::Ping("hb".into())).await;
            ws.send(Message::text(after)).await
        } else if let Some(after) = text.strip_prefix("noise-then:") {
            let _ = ws.send(Message::text("noise")).await;
            ws.send(Message::text(after)).await
        } else if text == "silence" {
            Ok(())
        } else if let Some(code) = text.strip_prefix("close:") {
            let code: u16 = code.parse().unwrap_or(1000);
            let frame = CloseFrame {
                code: CloseCode::from(code),
                reason: "bye".into(),
            };
            ws.close(Some(frame)).await
        } else {
            ws.send(Message::text(text)).await
        };
        if sent.is_err() {
            return;
        }
    }
}

/// The test certificate's TLS, without ALPN (WebSocket upgrades over HTTP/1.1).
fn tls_config() -> rustls::ServerConfig {
    let mut config = super::h2_server::tls_config();
    config.alpn_protocols.clear();
    config
}

fn tls_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/tls")
}

/// The python3-websockets server, killed when dropped.
pub struct Python {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl WsServer for Python {
    fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for Python {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Debian's interpreter: python3-websockets is installed for it, not for others on PATH.
const PYTHON: &str = "/usr/bin/python3";

/// Starts `ws_echo.py` on python3-websockets, with TLS when `tls`. Panics with what to
/// install when the module is missing.
pub fn python(tls: bool) -> Python {
    let dir = tempfile::tempdir().expect("scratch folder");
    let port_file = dir.path().join("port");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/ws_echo.py");
    let mut command = Command::new(PYTHON);
    command.arg(&script).arg(&port_file);
    if tls {
        command
            .arg(tls_dir().join("cert.pem"))
            .arg(tls_dir().join("key.pem"));
    }
    let mut child = command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("/usr/bin/python3 runs (apt-get install python3-websockets)");
    let started = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&port_file) {
            if let Ok(port) = text.trim().parse() {
                return Python {
                    child,
                    port,
                    _dir: dir,
                };
            }
        }
        if let Ok(Some(status)) = child.try_wait() {
            let mut stderr = String::new();
            if let Some(mut err) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut err, &mut stderr);
            }
            panic!("ws_echo.py ended ({status}): {stderr}\n(apt-get install python3-websockets)");
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "ws_echo.py did not start listening"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
