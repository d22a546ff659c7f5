//! A gRPC server for end-to-end tests on 127.0.0.1 only, written on the `h2` crate's
//! server side from the gRPC-over-HTTP/2 specification: one port in plaintext (HTTP/2
//! with prior knowledge, as grpc-java's plaintext channel speaks it) and one over TLS
//! with the self-signed test certificate. Each call is recorded (path, headers as
//! received, the request message, the number of the connection it came on); the test's
//! handler answers with a message or a status.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};

/// One call as the server received it.
#[derive(Debug, Clone)]
pub struct Call {
    pub path: String,
    pub headers: Vec<(String, String)>,
    /// The request message, without its 5-byte prefix.
    pub message: Vec<u8>,
    pub connection: usize,
}

impl Call {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The handler's answer.
pub struct Answer {
    /// `grpc-status`.
    pub status: u32,
    pub message: String,
    /// The answer message (encoded), sent when the status is 0.
    pub body: Vec<u8>,
    pub delay: Duration,
}

impl Answer {
    pub fn ok(body: Vec<u8>) -> Answer {
        Answer {
            status: 0,
            message: String::new(),
            body,
            delay: Duration::ZERO,
        }
    }

    pub fn status(status: u32, message: &str) -> Answer {
        Answer {
            status,
            message: message.to_string(),
            body: Vec::new(),
            delay: Duration::ZERO,
        }
    }
}

type Handler = dyn Fn(&Call) -> Answer + Send + Sync;

pub struct GrpcServer {
    pub port: u16,
    pub tls_port: u16,
    calls: Arc<Mutex<Vec<Call>>>,
}

impl GrpcServer {
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().expect("calls lock").clone()
    }
}

/// Starts the server on two free ports of 127.0.0.1; it lives until the test ends.
pub fn serve(handler: impl Fn(&Call) -> Answer + Send + Sync + 'static) -> GrpcServer {
    let plain = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let secure = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    plain.set_nonblocking(true).expect("non-blocking");
    secure.set_nonblocking(true).expect("non-blocking");
    let port = plain.local_addr().expect("address").port();
    let tls_port = secure.local_addr().expect("address").port();
    let calls = Arc::new(Mutex::new(Vec::new()));
    let seen = calls.clone();
    let handler: Arc<Handler> = Arc::new(handler);
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let connections = Arc::new(AtomicUsize::new(0));
            let acceptor =
                tokio_rustls::TlsAcceptor::from(Arc::new(super::h2_server::tls_config()));
            let plain = tokio::net::TcpListener::from_std(plain).expect("listener");
            let secure = tokio::net::TcpListener::from_std(secure).expect("listener");
            loop {
                let (tcp, tls) = tokio::select! {
                    Ok((tcp, _)) = plain.accept() => (tcp, false),
                    Ok((tcp, _)) = secure.accept() => (tcp, true),
                    else => return,
                };
                let number = connections.fetch_add(1, Ordering::SeqCst) + 1;
                let (handler, seen, acceptor) = (handler.clone(), seen.clone(), acceptor.clone());
                tokio::spawn(async move {
                    if tls {
                        if let Ok(stream) = acceptor.accept(tcp).await {
                            connection(stream, number, handler, seen).await;
                        }
                    } else {
                        connection(tcp, number, handler, seen).await;
                    }
                });
            }
        });
    });
    GrpcServer {
        port,
        tls_port,
        calls,
    }
}

async fn connection<T>(io: T, number: usize, handler: Arc<Handler>, seen: Arc<Mutex<Vec<Call>>>)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let Ok(mut connection) = h2::server::handshake(io).await else {
        return;
    };
    while let Some(Ok((request, respond))) = connection.accept().await {
        tokio::spawn(answer(
            request,
            respond,
            number,
            handler.clone(),
            seen.clone(),
        ));
    }
}

async fn answer(
    request: http::Request<h2::RecvStream>,
    mut respond: h2::server::SendResponse<Bytes>,
    connection: usize,
    handler: Arc<Handler>,
    seen: Arc<Mutex<Vec<Call>>>,
) {
    let (parts, mut body) = request.into_parts();
    let mut received = Vec::new();
    while let Some(Ok(chunk)) = body.data().await {
        let _ = body.flow_control().release_capacity(chunk.len());
        received.extend_from_slice(&chunk);
    }
    let message = received.get(5..).unwrap_or_default().to_vec();
    let call = Call {
        path: parts.uri.path().to_string(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        message,
        connection,
    };
    let answer = handler(&call);
    seen.lock().expect("calls lock").push(call);
    if !answer.delay.is_zero() {
        tokio::time::sleep(answer.delay).await;
    }
    let response = http::Response::builder()
        .status(200)
        .header("content-type", "application/grpc")
        .body(())
        .expect("valid response");
    let Ok(mut stream) = respond.send_response(response, false) else {
        return;
    };
    if answer.status == 0 {
        let mut frame = BytesMut::new();
        frame.put_u8(0);
        frame.put_u32(answer.body.len() as u32);
        frame.extend_from_slice(&answer.body);
        let _ = stream.send_data(frame.freeze(), false);
    }
    let mut trailers = http::HeaderMap::new();
    trailers.insert(
        "grpc-status",
        answer.status.to_string().parse().expect("digits"),
    );
    if !answer.message.is_empty() {
        let encoded: String = answer
            .message
            .bytes()
            .map(|b| {
                if (0x20..0x7f).contains(&b) && b != b'%' {
                    (b as char).to_string()
                } else {
                    format!("%{b:02X}")
                }
            })
            .collect();
        trailers.insert("grpc-message", encoded.parse().expect("ASCII"));
    }
    let _ = stream.send_trailers(trailers);
}
