//! A small HTTP/1.1 server for end-to-end tests, on 127.0.0.1 only: each test gives a
//! handler from request to reply; the server records every request with the number of
//! the connection it came on, so tests can check what jmxr sent and whether it reused
//! connections. [`serve_tls`] serves HTTPS with the self-signed certificate in
//! `tests/support/tls/` (made with `openssl req -x509`, for localhost and 127.0.0.1).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A request as received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// 1 for the first connection accepted, 2 for the next...
    pub connection: usize,
    /// HTTPS with client authentication: the DER of the certificate the client
    /// presented (end entity).
    pub client_certificate: Option<Vec<u8>>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What to answer.
pub struct Reply {
    pub status: u16,
    pub reason: &'static str,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Wait this long before answering.
    pub delay: Duration,
}

impl Reply {
    pub fn ok(body: &str) -> Reply {
        Reply {
            status: 200,
            reason: "OK",
            headers: vec![("Content-Type".into(), "text/plain; charset=UTF-8".into())],
            body: body.as_bytes().to_vec(),
            delay: Duration::ZERO,
        }
    }

    pub fn redirect(location: &str) -> Reply {
        let mut reply = Reply::ok("");
        reply.status = 302;
        reply.reason = "Found";
        reply.headers.push(("Location".into(), location.into()));
        reply
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// A running server; it lives until the test process ends.
pub struct TestServer {
    pub port: u16,
    pub requests: Arc<Mutex<Vec<Request>>>,
}

impl TestServer {
    /// The requests received so far whose target starts with `prefix`.
    pub fn requests_to(&self, prefix: &str) -> Vec<Request> {
        self.requests
            .lock()
            .expect("requests lock")
            .iter()
            .filter(|r| r.target.starts_with(prefix))
            .cloned()
            .collect()
    }
}

/// Starts a server on 127.0.0.1 on a free port.
pub fn serve(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> TestServer {
    start(handler, None)
}

/// Starts an HTTPS server on 127.0.0.1 on a free port, with a self-signed certificate.
pub fn serve_tls(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> TestServer {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/tls");
    let cert = CertificateDer::from_pem_file(dir.join("cert.pem")).expect("test certificate");
    let key = PrivateKeyDer::from_pem_file(dir.join("key.pem")).expect("test key");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .expect("certificate and key match");
    start(handler, Some(Arc::new(config)))
}

/// Starts an HTTPS server that requires a client certificate issued by the CA in
/// `ca_pem` (a handshake without one fails); each request records the certificate the
/// client presented.
pub fn serve_tls_requiring_client_cert(
    ca_pem: &std::path::Path,
    handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
) -> TestServer {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/tls");
    let cert = CertificateDer::from_pem_file(dir.join("cert.pem")).expect("test certificate");
    let key = PrivateKeyDer::from_pem_file(dir.join("key.pem")).expect("test key");
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_file(ca_pem).expect("client CA certificate"))
        .expect("client CA is a CA certificate");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .build()
    .expect("client verifier");
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_client_cert_verifier(verifier)
        .with_single_cert(vec![cert], key)
        .expect("certificate and key match");
    start(handler, Some(Arc::new(config)))
}

fn start(
    handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    tls: Option<Arc<rustls::ServerConfig>>,
) -> TestServer {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("address").port();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let handler: Arc<Handler> = Arc::new(handler);
    let seen = requests.clone();
    std::thread::spawn(move || {
        let connections = AtomicUsize::new(0);
        for stream in listener.incoming().flatten() {
            let number = connections.fetch_add(1, Ordering::SeqCst) + 1;
            let (handler, seen, tls) = (handler.clone(), seen.clone(), tls.clone());
            std::thread::spawn(move || {
                let _ = match tls {
                    Some(config) => match rustls::ServerConnection::new(config) {
                        Ok(session) => {
                            let mut stream = rustls::StreamOwned::new(session, stream);
                            // Finish the handshake first, so the client's certificate is known.
                            let mut handshaken = Ok(());
                            while stream.conn.is_handshaking() && handshaken.is_ok() {
                                handshaken = stream.conn.complete_io(&mut stream.sock).map(|_| ());
                            }
                            let client_certificate = stream
                                .conn
                                .peer_certificates()
                                .and_then(|chain| chain.first())
                                .map(|cert| cert.to_vec());
                            match handshaken {
                                Ok(()) => serve_connection(
                                    stream,
                                    number,
                                    client_certificate,
                                    &*handler,
                                    &seen,
                                ),
                                Err(_) => Ok(()),
                            }
                        }
                        Err(_) => Ok(()),
                    },
                    None => serve_connection(stream, number, None, &*handler, &seen),
                };
            });
        }
    });
    TestServer { port, requests }
}

/// Reads one request (head and a `Content-Length` body) from a connection; `None` when
/// the client closed it first. `number` is the connection's.
pub fn read_request(reader: &mut impl BufRead, number: usize) -> std::io::Result<Option<Request>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((n, v)) = header.split_once(':') {
            headers.push((n.trim().to_string(), v.trim().to_string()));
        }
    }
    let mut request = Request {
        method,
        target,
        headers,
        body: Vec::new(),
        connection: number,
        client_certificate: None,
    };
    let length: usize = request
        .header("Content-Length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    request.body = vec![0; length];
    reader.read_exact(&mut request.body)?;
    Ok(Some(request))
}

fn serve_connection(
    stream: impl Read + Write,
    number: usize,
    client_certificate: Option<Vec<u8>>,
    handler: &Handler,
    seen: &Mutex<Vec<Request>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream);
    loop {
        let Some(mut request) = read_request(&mut reader, number)? else {
            return Ok(());
        };
        request.client_certificate = client_certificate.clone();
        let close = request
            .header("Connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let reply = handler(&request);
        seen.lock().expect("requests lock").push(request);
        std::thread::sleep(reply.delay);
        let mut out = format!("HTTP/1.1 {} {}\r\n", reply.status, reply.reason);
        for (name, value) in &reply.headers {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
        out.push_str(&format!("Content-Length: {}\r\n\r\n", reply.body.len()));
        let writer = reader.get_mut();
        writer.write_all(out.as_bytes())?;
        writer.write_all(&reply.body)?;
        writer.flush()?;
        if close {
            return Ok(());
        }
    }
}
