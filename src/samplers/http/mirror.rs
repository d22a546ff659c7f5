//! The HTTP mirror: a server that echoes each request back, as JMeter's HTTP Mirror
//! Server (`HttpMirrorThread`, in JMeter's HTTP protocol package too) does. `jmxr
//! mirror-server` and `--mirror-server` serve it; test plans and jmxr's own tests point
//! HTTP samplers at it, so it must answer exactly as JMeter's does.
//!
//! Per connection it reads one request and answers `HTTP/1.0 <status>`, then
//! `Content-Type: text/plain`, then the headers asked for, an empty line, and as body the
//! request's bytes as received (request line, headers, body). Then it closes the
//! connection: the body ends at the close, as in HTTP/1.0.
//!
//! Control headers of the request (names case-insensitive, the first one counts):
//! `X-ResponseStatus` (status line, default `200 OK`), `X-SetHeaders` (headers to add,
//! separated by `|`), `X-ResponseLength` (cut the echoed head to this many bytes),
//! `X-SetCookie` (a `Set-Cookie` header), `X-Sleep` (ms to wait before the body is
//! echoed). For GET, query parameters `redirect=<url>` (a `302 Temporary Redirect` to it)
//! and `status=<status line>` steer the answer too.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Longest request head the mirror accepts; a client that sends more is cut off.
const MAX_HEAD: usize = 1 << 20;

/// Binds `host:port` and serves until the process ends.
pub async fn serve(host: &str, port: u16) -> std::io::Result<()> {
    let listener = TcpListener::bind((host, port)).await?;
    println!("jmxr mirror server listening on {}", listener.local_addr()?);
    run(listener).await
}

/// Binds 127.0.0.1 on `port` (0 = any free port) and serves in the background; returns
/// the bound address. For tests and for plans that start a mirror themselves.
pub async fn spawn_local(port: u16) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(("127.0.0.1", port)).await?;
    let addr = listener.local_addr()?;
    tokio::spawn(run(listener));
    Ok(addr)
}

pub async fn run(listener: TcpListener) -> std::io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(async move {
            // A client that goes away mid-request is its own business, as in JMeter.
            let _ = mirror_one(stream).await;
        });
    }
}

/// Reads one request and echoes it.
async fn mirror_one(mut stream: TcpStream) -> std::io::Result<()> {
    let mut received = Vec::with_capacity(1024);
    let mut buf = [0u8; 4096];
    let head_end = loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        received.extend_from_slice(&buf[..n]);
        if let Some(pos) = find(&received, b"\r\n\r\n") {
            break pos + 4;
        }
        if received.len() > MAX_HEAD {
            return Ok(());
        }
    };
    let head = String::from_utf8_lossy(&received[..head_end]).into_owned();
    let Some(first_line) = head.split("\r\n").next() else {
        return Ok(());
    };
    let response_head = response_head(&head, first_line);
    stream.write_all(response_head.as_bytes()).await?;
    let echo_limit = header(&head, "X-ResponseLength")
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(usize::MAX);
    stream
        .write_all(&received[..received.len().min(echo_limit)])
        .await?;
    stream.flush().await?;
    if let Some(ms) = header(&head, "X-Sleep").and_then(|v| v.trim().parse::<u64>().ok()) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
    echo_rest_of_body(&mut stream, &head, received.len() - head_end).await?;
    stream.shutdown().await
}

/// The status line and headers of the answer.
fn response_head(head: &str, first_line: &str) -> String {
    let mut parts = first_line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let target = parts.next().unwrap_or("");
    let params = if method == "GET" {
        query_params(target)
    } else {
        Vec::new()
    };
    let param = |name: &str| params.iter().find(|(n, _)| n == name).map(|(_, v)| v);
    let mut status = header(head, "X-ResponseStatus")
        .unwrap_or("200 OK")
        .to_string();
    let redirect = param("redirect");
    if redirect.is_some() {
        status = "302 Temporary Redirect".into();
    }
    if let Some(wanted) = param("status") {
        status.clone_from(wanted);
    }
    let mut out = format!("HTTP/1.0 {status}\r\nContent-Type: text/plain\r\n");
    if let Some(location) = redirect {
        out.push_str(&format!("Location: {location}\r\n"));
    }
    if let Some(extra) = header(head, "X-SetHeaders") {
        for line in extra.split('|') {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    if let Some(cookie) = header(head, "X-SetCookie") {
        out.push_str(&format!("Set-Cookie: {cookie}\r\n"));
    }
    out.push_str("\r\n");
    out
}

/// Echoes the part of the body not yet read: up to `Content-Length`, or for other
/// bodies whatever is already waiting (JMeter reads only what is available).
async fn echo_rest_of_body(
    stream: &mut TcpStream,
    head: &str,
    mut already: usize,
) -> std::io::Result<()> {
    let length = header(head, "Content-Length")
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut buf = [0u8; 8192];
    while already < length {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        stream.write_all(&buf[..n]).await?;
        already += n;
    }
    stream.flush().await
}

/// The value of the first header `name` (case-insensitive) in the request head: text
/// after the colon and at least one whitespace, as JMeter's `^name:\s+(.+)$` match.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.split("\r\n").skip(1).find_map(|line| {
        let (n, rest) = line.split_once(':')?;
        if !n.eq_ignore_ascii_case(name) || !rest.starts_with(char::is_whitespace) {
            return None;
        }
        let value = rest.trim_start();
        (!value.is_empty()).then_some(value)
    })
}

/// Query parameters of a request target, percent-decoded, in order.
fn query_params(target: &str) -> Vec<(String, String)> {
    let Some((_, query)) = target.split_once('?') else {
        return Vec::new();
    };
    query
        .split('&')
        .map(|pair| {
            let (n, v) = pair.split_once('=').unwrap_or((pair, ""));
            let decode = |s: &str| {
                percent_encoding::percent_decode_str(s)
                    .decode_utf8_lossy()
                    .into_owned()
            };
            (decode(n), decode(v))
        })
        .collect()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn exchange(request: &[u8]) -> String {
        let addr = spawn_local(0).await.expect("bind");
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        stream.write_all(request).await.expect("send");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.expect("read");
        String::from_utf8(answer).expect("text")
    }

    #[tokio::test]
    async fn echoes_the_request_after_a_plain_head() {
        let request = b"POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc";
        let answer = exchange(request).await;
        let expected = format!(
            "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n{}",
            String::from_utf8_lossy(request)
        );
        assert_eq!(answer, expected);
    }

    #[tokio::test]
    async fn control_headers_set_status_headers_and_cookies() {
        let request = b"GET / HTTP/1.1\r\nX-ResponseStatus: 404 Nope\r\nx-setheaders: A: 1|B: 2\r\nX-SetCookie: k=v\r\n\r\n";
        let answer = exchange(request).await;
        assert!(answer.starts_with(
            "HTTP/1.0 404 Nope\r\nContent-Type: text/plain\r\nA: 1\r\nB: 2\r\nSet-Cookie: k=v\r\n\r\nGET /"
        ));
    }

    #[tokio::test]
    async fn redirect_and_status_parameters_of_a_get() {
        let answer = exchange(b"GET /?redirect=/next%3Fa HTTP/1.1\r\n\r\n").await;
        assert!(answer.starts_with(
            "HTTP/1.0 302 Temporary Redirect\r\nContent-Type: text/plain\r\nLocation: /next?a\r\n"
        ));
        let answer = exchange(b"GET /?status=201%20Made HTTP/1.1\r\n\r\n").await;
        assert!(answer.starts_with("HTTP/1.0 201 Made\r\n"));
    }

    #[tokio::test]
    async fn response_length_cuts_the_echo() {
        let answer = exchange(b"GET / HTTP/1.1\r\nX-ResponseLength: 5\r\n\r\n").await;
        assert!(answer.ends_with("\r\n\r\nGET /"), "{answer:?}");
    }
}
