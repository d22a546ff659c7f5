//! How a Backend Listener's lines leave the process: an HTTP(S) POST to InfluxDB's
//! write URL, one UDP datagram to InfluxDB's UDP listener, or a kept TCP connection to
//! Graphite's plaintext port. Every call has JMeter's time limits (connect 1 s, then 3 s
//! for InfluxDB and 1 s for Graphite), so a server that is down or stuck costs the sender
//! thread a few seconds at most and never the results thread or the users.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs, UdpSocket};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Most of a response kept for the message when InfluxDB refuses the lines.
const RESPONSE_LIMIT: u64 = 64 * 1024;

/// Where a listener sends.
pub enum Target {
    Http(HttpTarget),
    /// InfluxDB's UDP listener, `host:port`.
    Udp(String),
    Tcp(TcpTarget),
}

impl Target {
    /// Sends one payload; the error says what went wrong in a few words.
    pub fn send(&mut self, payload: &[u8]) -> Result<(), String> {
        match self {
            Target::Http(http) => http.post(payload),
            Target::Udp(address) => {
                let to = resolve(address)?;
                let bind: SocketAddr = if to.is_ipv4() {
                    ([0, 0, 0, 0], 0).into()
                } else {
                    ([0u16; 8], 0).into()
                };
                let socket = UdpSocket::bind(bind).map_err(|e| e.to_string())?;
                socket.send_to(payload, to).map_err(|e| e.to_string())?;
                Ok(())
            }
            Target::Tcp(tcp) => tcp.send(payload),
        }
    }
}

fn resolve(address: &str) -> Result<SocketAddr, String> {
    address
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {address}: {e}"))?
        .next()
        .ok_or_else(|| format!("cannot resolve {address}"))
}

/// An InfluxDB write URL, parsed once.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpTarget {
    tls: bool,
    host: String,
    port: u16,
    /// Path and query, as sent on the request line.
    target: String,
    token: Option<String>,
    connect_timeout: Duration,
    socket_timeout: Duration,
}

impl HttpTarget {
    /// `http://host[:port]/path?query` or `https://…`; anything else is an error that
    /// names the URL.
    pub fn parse(
        url: &str,
        token: Option<String>,
        connect_timeout: Duration,
        socket_timeout: Duration,
    ) -> Result<HttpTarget, String> {
        let bad = || format!("{url:?} is not an http:// or https:// URL");
        let (scheme, rest) = url.split_once("://").ok_or_else(bad)?;
        let tls = match scheme.to_ascii_lowercase().as_str() {
            "http" => false,
            "https" => true,
            _ => return Err(bad()),
        };
        let split = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, target) = rest.split_at(split);
        let authority = authority.rsplit('@').next().unwrap_or(authority);
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) if !port.contains(']') => {
                (host, port.parse::<u16>().map_err(|_| bad())?)
            }
            _ => (authority, if tls { 443 } else { 80 }),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() {
            return Err(bad());
        }
        let target = match target {
            "" => "/".to_string(),
            t if t.starts_with('?') => format!("/{t}"),
            t => t.to_string(),
        };
        Ok(HttpTarget {
            tls,
            host: host.to_string(),
            port,
            target,
            token,
            connect_timeout,
            socket_timeout,
        })
    }

    /// One POST on a connection of its own; a status other than 2xx is an error with
    /// the start of InfluxDB's answer.
    pub fn post(&self, body: &[u8]) -> Result<(), String> {
        let address = resolve(&format!("{}:{}", self.host_for_address(), self.port))?;
        let tcp = TcpStream::connect_timeout(&address, self.connect_timeout)
            .map_err(|e| format!("cannot connect to {address}: {e}"))?;
        tcp.set_read_timeout(Some(self.socket_timeout))
            .and_then(|()| tcp.set_write_timeout(Some(self.socket_timeout)))
            .map_err(|e| e.to_string())?;
        let _ = tcp.set_nodelay(true);
        let mut head = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: jmxr/{}\r\n\
             Content-Type: text/plain; charset=UTF-8\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.target,
            self.host_header(),
            env!("CARGO_PKG_VERSION"),
            body.len()
        );
        if let Some(token) = &self.token {
            head.push_str(&format!("Authorization: Token {token}\r\n"));
        }
        head.push_str("\r\n");
        let response = if self.tls {
            let name = rustls::pki_types::ServerName::try_from(self.host.clone())
                .map_err(|e| e.to_string())?;
            let connection =
                rustls::ClientConnection::new(tls_config(), name).map_err(|e| e.to_string())?;
            exchange(rustls::StreamOwned::new(connection, tcp), &head, body)
        } else {
            exchange(tcp, &head, body)
        }?;
        status_of(&response)
    }

    fn host_for_address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        }
    }

    fn host_header(&self) -> String {
        let default = if self.tls { 443 } else { 80 };
        if self.port == default {
            self.host_for_address()
        } else {
            format!("{}:{}", self.host_for_address(), self.port)
        }
    }
}

/// Writes the request and reads the answer up to the server's close.
fn exchange(mut stream: impl Read + Write, head: &str, body: &[u8]) -> Result<Vec<u8>, String> {
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body))
        .and_then(|()| stream.flush())
        .map_err(|e| format!("cannot send: {e}"))?;
    let mut response = Vec::new();
    match stream.take(RESPONSE_LIMIT).read_to_end(&mut response) {
        Ok(_) => Ok(response),
        // A TLS peer that closes without `close_notify`, after a complete answer.
        Err(_) if response.starts_with(b"HTTP/") => Ok(response),
        Err(e) => Err(format!("no answer: {e}")),
    }
}

/// Ok for a 2xx status line; otherwise the status and the start of the body.
fn status_of(response: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(response);
    let status_line = text.lines().next().unwrap_or("");
    let code: u16 = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| format!("not an HTTP answer: {status_line:?}"))?;
    if (200..300).contains(&code) {
        return Ok(());
    }
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b).trim();
    let body: String = body.chars().take(200).collect();
    Err(format!("HTTP {code}: {body}"))
}

/// Server certificates are checked against the Mozilla roots, as JMeter's client checks
/// them against the JVM's.
fn tls_config() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .expect("the ring provider supports TLS 1.2 and 1.3")
                .with_root_certificates(roots)
                .with_no_client_auth();
            Arc::new(config)
        })
        .clone()
}

/// Graphite's plaintext port: one connection kept open, made again after a failure.
pub struct TcpTarget {
    address: String,
    timeout: Duration,
    stream: Option<TcpStream>,
}

impl TcpTarget {
    pub fn new(host: &str, port: u16, timeout: Duration) -> TcpTarget {
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.to_string()
        };
        TcpTarget {
            address: format!("{host}:{port}"),
            timeout,
            stream: None,
        }
    }

    fn send(&mut self, payload: &[u8]) -> Result<(), String> {
        if self.stream.is_none() {
            let to = resolve(&self.address)?;
            let stream = TcpStream::connect_timeout(&to, self.timeout)
                .map_err(|e| format!("cannot connect to {to}: {e}"))?;
            stream
                .set_write_timeout(Some(self.timeout))
                .map_err(|e| e.to_string())?;
            self.stream = Some(stream);
        }
        let written = match &mut self.stream {
            Some(stream) => stream.write_all(payload).and_then(|()| stream.flush()),
            None => Ok(()),
        };
        written.map_err(|e| {
            self.stream = None;
            format!("cannot send: {e}")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(url: &str) -> Result<HttpTarget, String> {
        HttpTarget::parse(url, None, Duration::from_secs(1), Duration::from_secs(3))
    }

    #[test]
    fn write_urls_parse_into_host_port_and_target() {
        let t = parse("http://127.0.0.1:8086/write?db=jmeter").unwrap();
        assert_eq!((t.tls, t.host.as_str(), t.port), (false, "127.0.0.1", 8086));
        assert_eq!(t.target, "/write?db=jmeter");
        let t = parse("HTTPS://influx.example.org/api/v2/write?org=o&bucket=b").unwrap();
        assert_eq!(
            (t.tls, t.port, t.host_header()),
            (true, 443, "influx.example.org".into())
        );
        let t = parse("http://[::1]:9999?db=x").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.target.as_str()),
            ("::1", 9999, "/?db=x")
        );
        assert_eq!(t.host_header(), "[::1]:9999");
        assert!(parse("host_to_change:8086/write").is_err());
        assert!(parse("http://:8086/write").is_err());
        assert!(parse("http://h:port/write").is_err());
    }

    #[test]
    fn only_2xx_answers_are_accepted() {
        assert_eq!(status_of(b"HTTP/1.1 204 No Content\r\n\r\n"), Ok(()));
        assert_eq!(
            status_of(b"HTTP/1.1 404 Not Found\r\nX: y\r\n\r\n{\"error\":\"database not found: \\\"x\\\"\"}\n"),
            Err("HTTP 404: {\"error\":\"database not found: \\\"x\\\"\"}".into())
        );
        assert!(status_of(b"garbage").is_err());
    }
}
