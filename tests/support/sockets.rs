//! In-process socket servers on 127.0.0.1 for the UDP and TCP tests. Each runs on its
//! own thread, polls a stop flag with short timeouts (so no loop is unbounded), and
//! stops when dropped.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

const POLL: Duration = Duration::from_millis(20);

/// A server thread that stops when dropped.
pub struct Server {
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    pub fn port(&self) -> u16 {
        self.addr.port()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn spawn(addr: SocketAddr, body: impl FnOnce(Arc<AtomicBool>) + Send + 'static) -> Server {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let thread = std::thread::spawn(move || body(flag));
    Server {
        addr,
        stop,
        thread: Some(thread),
    }
}

/// Echoes every datagram back to its sender.
pub fn udp_echo() -> Server {
    let socket = UdpSocket::bind("127.0.0.1:0").expect("bind");
    socket.set_read_timeout(Some(POLL)).expect("timeout");
    let addr = socket.local_addr().expect("addr");
    spawn(addr, move |stop| {
        let mut buffer = [0u8; 65_536];
        while !stop.load(Ordering::SeqCst) {
            if let Ok((len, from)) = socket.recv_from(&mut buffer) {
                let _ = socket.send_to(&buffer[..len], from);
            }
        }
    })
}

/// Receives datagrams and never answers.
pub fn udp_silent() -> Server {
    let socket = UdpSocket::bind("127.0.0.1:0").expect("bind");
    socket.set_read_timeout(Some(POLL)).expect("timeout");
    let addr = socket.local_addr().expect("addr");
    spawn(addr, move |stop| {
        let mut buffer = [0u8; 65_536];
        while !stop.load(Ordering::SeqCst) {
            let _ = socket.recv_from(&mut buffer);
        }
    })
}

/// A TCP server running `handle` on each connection (one thread per connection, each
/// stream with a short read timeout so handlers can watch the stop flag).
pub fn tcp(handle: fn(&mut TcpStream, &AtomicBool)) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let addr = listener.local_addr().expect("addr");
    spawn(addr, move |stop| {
        let mut workers = Vec::new();
        while !stop.load(Ordering::SeqCst) {
            match listener.accept() {
                Ok((mut stream, _)) => {
                    let _ = stream.set_nonblocking(false);
                    let _ = stream.set_read_timeout(Some(POLL));
                    let flag = stop.clone();
                    workers.push(std::thread::spawn(move || handle(&mut stream, &flag)));
                }
                Err(_) => std::thread::sleep(POLL),
            }
        }
        for worker in workers {
            let _ = worker.join();
        }
    })
}

/// Reads what arrives until `done` says a request is complete, then writes `reply` for
/// it; repeats until the peer closes or the server stops.
pub fn serve_requests(
    stream: &mut TcpStream,
    stop: &AtomicBool,
    done: impl Fn(&[u8]) -> bool,
    reply: impl Fn(&[u8]) -> Vec<u8>,
) {
    let mut pending = Vec::new();
    let mut buffer = [0u8; 4096];
    while !stop.load(Ordering::SeqCst) {
        match stream.read(&mut buffer) {
            Ok(0) => return,
            Ok(n) => {
                pending.extend_from_slice(&buffer[..n]);
                if done(&pending) {
                    let answer = reply(&pending);
                    pending.clear();
                    if stream.write_all(&answer).is_err() {
                        return;
                    }
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
    }
}

/// A port nothing listens on (bound once, then released).
pub fn closed_tcp_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

/// Closes `stream` with a TCP reset (a close with a zero linger time), as a server that
/// crashes or a middlebox that drops the connection does.
pub fn close_with_reset(stream: TcpStream) {
    let linger = libc::linger {
        l_onoff: 1,
        l_linger: 0,
    };
    // SAFETY: a valid socket and a `linger` struct of the size given.
    unsafe {
        libc::setsockopt(
            std::os::fd::AsRawFd::as_raw_fd(&stream),
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&linger as *const libc::linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        );
    }
}
