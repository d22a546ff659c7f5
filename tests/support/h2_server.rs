//! An HTTP/2 server over TLS for end-to-end tests, on 127.0.0.1 only: the same
//! handlers, requests and replies as [`super::http_server`], served by the `h2` crate
//! with the self-signed certificate in `tests/support/tls/`, offering only `h2` in ALPN.
//! Each request is recorded with the number of the connection it came on, so tests can
//! check that a user's requests share one connection. Header names are recorded as
//! received (lower-case), with the `:authority` pseudo-header first.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;

use super::http_server::{Reply, Request, TestServer};

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// Starts an HTTP/2 server on 127.0.0.1 on a free port; it lives until the test ends.
pub fn serve_h2(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> TestServer {
    start(handler, false)
}

/// Like [`serve_h2`], but each connection is shut down (GOAWAY) once it has taken one
/// request, as a server with a short idle timeout does between samples.
pub fn serve_h2_one_request_per_connection(
    handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
) -> TestServer {
    start(handler, true)
}

fn start(
    handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    one_request_per_connection: bool,
) -> TestServer {
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    std_listener.set_nonblocking(true).expect("non-blocking");
    let port = std_listener.local_addr().expect("address").port();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    let handler: Arc<Handler> = Arc::new(handler);
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls_config()));
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).expect("listener");
            let connections = Arc::new(AtomicUsize::new(0));
            while let Ok((tcp, _)) = listener.accept().await {
                let number = connections.fetch_add(1, Ordering::SeqCst) + 1;
                let (acceptor, handler, seen) = (acceptor.clone(), handler.clone(), seen.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    let Ok(mut connection) = h2::server::handshake(tls).await else {
                        return;
                    };
                    while let Some(Ok((request, respond))) = connection.accept().await {
                        let (handler, seen) = (handler.clone(), seen.clone());
                        tokio::spawn(answer(request, respond, number, handler, seen));
                        if one_request_per_connection {
                            connection.graceful_shutdown();
                        }
                    }
                });
            }
        });
    });
    TestServer { port, requests }
}

/// The server side of TLS with the self-signed test certificate, offering `h2` in ALPN.
pub fn tls_config() -> rustls::ServerConfig {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/tls");
    let cert = CertificateDer::from_pem_file(dir.join("cert.pem")).expect("test certificate");
    let key = PrivateKeyDer::from_pem_file(dir.join("key.pem")).expect("test key");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .expect("certificate and key match");
    config.alpn_protocols = vec![b"h2".to_vec()];
    config
}

async fn answer(
    request: http::Request<h2::RecvStream>,
    mut respond: h2::server::SendResponse<Bytes>,
    connection: usize,
    handler: Arc<Handler>,
    seen: Arc<Mutex<Vec<Request>>>,
) {
    let (parts, mut body) = request.into_parts();
    let mut received = Vec::new();
    while let Some(Ok(chunk)) = body.data().await {
        let _ = body.flow_control().release_capacity(chunk.len());
        received.extend_from_slice(&chunk);
    }
    let mut headers = vec![(
        ":authority".to_string(),
        parts
            .uri
            .authority()
            .map(|a| a.to_string())
            .unwrap_or_default(),
    )];
    for (name, value) in &parts.headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        headers.push((name.as_str().to_string(), value));
    }
    let request = Request {
        method: parts.method.to_string(),
        target: parts
            .uri
            .path_and_query()
            .map(|p| p.to_string())
            .unwrap_or_default(),
        headers,
        body: received,
        connection,
        client_certificate: None,
    };
    let reply = handler(&request);
    seen.lock().expect("requests lock").push(request);
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let mut response = http::Response::builder().status(reply.status);
    for (name, value) in &reply.headers {
        response = response.header(name.as_str(), value.as_str());
    }
    let response = response.body(()).expect("valid reply");
    let empty = reply.body.is_empty();
    let Ok(mut stream) = respond.send_response(response, empty) else {
        return;
    };
    if !empty {
        let _ = stream.send_data(Bytes::from(reply.body), true);
    }
}
