//! A WebSocket server for the workload plans (instant messaging, live rooms), on
//! 127.0.0.1 only, on tokio-tungstenite: each test gives a handler that answers an
//! application message (text or binary) with the frames to send back, knowing the
//! connection's upgrade target and how many messages came before on it. Every
//! connection and every message it received is recorded with its arrival time, so a
//! test decodes afterwards exactly what the plan sent.

// tungstenite's upgrade callback returns its (large) error response by value.
#![allow(clippy::result_large_err)]

use std::sync::{Arc, Mutex};
use std::time::Instant;

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::Message;

/// A message a client sent.
#[derive(Debug, Clone)]
pub struct Received {
    /// Milliseconds since the server started.
    pub at_ms: u64,
    pub binary: bool,
    pub data: Vec<u8>,
}

/// One client connection.
#[derive(Debug, Clone, Default)]
pub struct Connection {
    /// The upgrade request's path and query.
    pub target: String,
    pub messages: Vec<Received>,
    /// The close status the client sent, if it sent one.
    pub close_code: Option<u16>,
}

impl Connection {
    /// The value of `name` in the upgrade target's query.
    pub fn query(&self, name: &str) -> Option<&str> {
        self.target
            .split_once('?')?
            .1
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }
}

type Handler = dyn Fn(&str, usize, &Received) -> Vec<Message> + Send + Sync;

/// A running server; it lives until the test process ends.
pub struct AppWsServer {
    pub port: u16,
    connections: Arc<Mutex<Vec<Connection>>>,
}

impl AppWsServer {
    /// The connections so far, in the order they were accepted.
    pub fn connections(&self) -> Vec<Connection> {
        self.connections.lock().expect("connections lock").clone()
    }
}

/// Starts a server whose `handler(target, before, message)` gives the answer to a
/// message (`before`: how many messages the connection received before it).
pub fn serve(
    handler: impl Fn(&str, usize, &Received) -> Vec<Message> + Send + Sync + 'static,
) -> AppWsServer {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    std_listener.set_nonblocking(true).expect("non-blocking");
    let port = std_listener.local_addr().expect("address").port();
    let connections: Arc<Mutex<Vec<Connection>>> = Arc::default();
    let recorded = connections.clone();
    let handler: Arc<Handler> = Arc::new(handler);
    let started = Instant::now();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).expect("listener");
            while let Ok((tcp, _)) = listener.accept().await {
                let (handler, recorded) = (handler.clone(), recorded.clone());
                tokio::spawn(async move {
                    let mut target = String::new();
                    let callback = |request: &Request, response: Response| {
                        target = request.uri().to_string();
                        Ok(response)
                    };
                    let Ok(mut ws) = tokio_tungstenite::accept_hdr_async(tcp, callback).await
                    else {
                        return;
                    };
                    let index = {
                        let mut all = recorded.lock().expect("connections lock");
                        all.push(Connection {
                            target: target.clone(),
                            ..Connection::default()
                        });
                        all.len() - 1
                    };
                    let mut before = 0;
                    while let Some(Ok(message)) = ws.next().await {
                        let received = match message {
                            Message::Binary(data) => (true, data.to_vec()),
                            Message::Text(text) => (false, text.as_bytes().to_vec()),
                            Message::Close(frame) => {
                                let code = frame.map(|f| u16::from(f.code));
                                recorded.lock().expect("connections lock")[index].close_code = code;
                                continue;
                            }
                            _ => continue,
                        };
                        let received = Received {
                            at_ms: started.elapsed().as_millis() as u64,
                            binary: received.0,
                            data: received.1,
                        };
                        let answers = handler(&target, before, &received);
                        recorded.lock().expect("connections lock")[index]
                            .messages
                            .push(received);
                        before += 1;
                        for answer in answers {
                            if ws.send(answer).await.is_err() {
                                return;
                            }
                        }
                    }
                });
            }
        });
    });
    AppWsServer { port, connections }
}
