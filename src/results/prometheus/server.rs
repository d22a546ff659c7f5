//! The plugin's HTTP endpoint: a thread of its own answers each `GET` (on any path, as
//! the plugin's contexts `/` and `/metrics` do) with the registry rendered at that
//! moment. Requests are answered one at a time, as the plugin's single-thread executor
//! answers them; a scrape is small and Prometheus asks every few seconds.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;

use super::registry::{render, Registry};

/// How long the accept loop sleeps when nobody asks; also how soon it sees the stop.
const POLL: Duration = Duration::from_millis(50);

pub(super) struct Server {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
}

impl Server {
    pub(super) fn start(
        ip: &str,
        port: u16,
        registry: Arc<Mutex<Registry>>,
    ) -> Result<Server, String> {
        let listener = TcpListener::bind((ip, port)).map_err(|e| {
            format!("cannot listen on {ip}:{port} (prometheus.ip, prometheus.port): {e}")
        })?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::Builder::new()
            .name("jmxr-prometheus".to_string())
            .spawn(move || serve(listener, registry, stopping))
            .map_err(|e| format!("cannot start its server: {e}"))?;
        Ok(Server {
            address,
            stop,
            thread,
        })
    }

    pub(super) fn address(&self) -> SocketAddr {
        self.address
    }

    /// Stops accepting and waits for the answer under way.
    pub(super) fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
    }
}

fn serve(listener: TcpListener, registry: Arc<Mutex<Registry>>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            Ok((stream, _)) => {
                // A client that goes away mid-answer costs only its own scrape.
                let _ = answer(stream, &registry);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::thread::sleep(POLL),
            Err(_) => std::thread::sleep(POLL),
        }
    }
}

fn answer(mut stream: TcpStream, registry: &Mutex<Registry>) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    // The request's head; its body, if any, is not read.
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 64 * 1024 {
        let n = stream.read(&mut buf)?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let method = head.split(|b| *b == b' ').next().unwrap_or(b"");
    let (status, body) = if method == b"GET" || method == b"HEAD" {
        ("200 OK", render(&mut registry.lock()))
    } else {
        ("405 Method Not Allowed", String::new())
    };
    let mut response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if method != b"HEAD" {
        response.push_str(&body);
    }
    stream.write_all(response.as_bytes())?;
    stream.flush()
}
