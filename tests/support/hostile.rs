//! An HTTP/1.1 server on 127.0.0.1 that misbehaves on purpose, one way per path: broken
//! status lines and headers, a 10 MB head, conflicting framing, bad chunk sizes, bodies
//! shorter than announced, decompression bombs, invalid UTF-8, a server that trickles,
//! resets or never answers, and `/good`, which answers at once. Each connection gets a
//! thread of its own, so one slow answer never delays another.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

/// A decompressed size far beyond any limit a test sets.
pub const BOMB_SIZE: usize = 256 << 20;

/// The server; it runs until the test process ends.
pub struct HostileServer {
    pub port: u16,
}

/// Bodies made once: compressing a gigabyte takes a moment.
struct Bombs {
    gzip: Vec<u8>,
    brotli: Vec<u8>,
}

impl HostileServer {
    pub fn start() -> HostileServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("address").port();
        let bombs = Arc::new(Bombs {
            gzip: gzip_bomb(),
            brotli: brotli_bomb(),
        });
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let bombs = bombs.clone();
                std::thread::spawn(move || serve(stream, &bombs));
            }
        });
        HostileServer { port }
    }
}

fn gzip_bomb() -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..BOMB_SIZE >> 20 {
        encoder.write_all(&zeros).expect("compress");
    }
    encoder.finish().expect("compress")
}

fn brotli_bomb() -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut encoder = brotli::CompressorWriter::new(&mut out, 1 << 16, 5, 22);
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..BOMB_SIZE >> 20 {
            encoder.write_all(&zeros).expect("compress");
        }
    }
    out
}

/// Reads one request head and answers it as its path says; one request per connection.
fn serve(mut stream: TcpStream, bombs: &Bombs) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let text = String::from_utf8_lossy(&head);
    let path = text.split(' ').nth(1).unwrap_or("/").to_string();
    let ok = "HTTP/1.1 200 OK\r\n";
    // Write errors are expected: the client gives up on most of these answers.
    let _ = match path.as_str() {
        "/good" => stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
        "/status-garbage" => stream.write_all(b"HELLO THERE\r\n\r\n"),
        "/status-code" => stream.write_all(b"HTTP/1.1 abc OK\r\nContent-Length: 0\r\n\r\n"),
        "/no-colon" => {
            stream.write_all(b"HTTP/1.1 200 OK\r\nno colon here\r\nContent-Length: 0\r\n\r\n")
        }
        "/huge-header" => {
            let mut answer = format!("{ok}X-Big: ").into_bytes();
            answer.resize(answer.len() + 10 * 1024 * 1024, b'a');
            answer.extend_from_slice(b"\r\nContent-Length: 0\r\n\r\n");
            stream.write_all(&answer)
        }
        "/two-lengths" => stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 50\r\n\r\nhello",
        ),
        "/length-and-chunked" => stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n\
              5\r\nhello\r\n0\r\n\r\n",
        ),
        "/negative-chunk" => {
            stream.write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n")
        }
        "/overflowing-chunk" => stream.write_all(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\nhello\r\n",
        ),
        "/huge-chunk" => stream.write_all(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\nhello\r\n",
        ),
        "/short-body" => {
            stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten..")
        }
        "/gzip-bomb" => bomb(&mut stream, "gzip", &bombs.gzip),
        "/brotli-bomb" => bomb(&mut stream, "br", &bombs.brotli),
        "/invalid-utf8" => stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=UTF-8\r\nX-Bad: \xff\xfe\r\n\
              Content-Length: 4\r\n\r\n\xff\xfe\xfd\xfc",
        ),
        "/trickle" => trickle(&mut stream),
        "/reset" => reset_mid_body(stream),
        "/silent" => {
            std::thread::sleep(Duration::from_secs(30));
            Ok(())
        }
        _ => stream.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"),
    };
}

fn bomb(stream: &mut TcpStream, encoding: &str, body: &[u8]) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Encoding: {encoding}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)
}

/// One byte a second, for a body of 20.
fn trickle(stream: &mut TcpStream) -> std::io::Result<()> {
    stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n")?;
    for _ in 0..20 {
        std::thread::sleep(Duration::from_secs(1));
        stream.write_all(b"x")?;
    }
    Ok(())
}

/// Half a body, then a TCP reset (a close with a zero linger time).
fn reset_mid_body(mut stream: TcpStream) -> std::io::Result<()> {
    stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nhalf a bo")?;
    std::thread::sleep(Duration::from_millis(100));
    crate::support::sockets::close_with_reset(stream);
    Ok(())
}
