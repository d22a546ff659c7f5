//! The clock offset against an HTTP server's `Date` header, for sites without an SNTP
//! server (`--ntp http://host:port/`): any web server, the system under test included,
//! is a reference clock.
//!
//! `Date` has whole seconds, so one answer says the offset only to within a second. The
//! probe asks repeatedly, a few milliseconds apart, until the server's second changes:
//! that boundary (an exact second on the server's clock) happened after the earlier
//! request was sent and before the later answer came back, which pins it on the local
//! clock to within about two round trips plus the gap between requests.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Time between requests: the boundary is bracketed to within this plus two round trips.
const GAP: Duration = Duration::from_millis(5);
/// A second and a bit: long enough to see the server's second change once.
const PROBE_FOR: Duration = Duration::from_millis(1300);
const TIMEOUT: Duration = Duration::from_secs(2);

/// Reference minus local clock, in ms, from the `Date` answers of `url` (`http://` only).
pub fn http_date_offset(url: &str) -> Result<f64, String> {
    let (authority, path) = split_url(url)?;
    let with_port = if authority.contains(':') {
        authority.to_string()
    } else {
        format!("{authority}:80")
    };
    let address = with_port
        .to_socket_addrs()
        .map_err(|e| format!("{url}: {e}"))?
        .next()
        .ok_or_else(|| format!("{url}: the host has no address"))?;
    let host = authority.split(':').next().unwrap_or(authority);
    let started = Instant::now();
    let mut previous: Option<(i64, f64)> = None;
    while started.elapsed() < PROBE_FOR {
        let sent = unix_ms_now();
        let server_second = date_of(&address, host, path).map_err(|e| format!("{url}: {e}"))?;
        let answered = unix_ms_now();
        if let Some((earlier_second, earlier_sent)) = previous {
            if server_second > earlier_second {
                let boundary_server = server_second as f64 * 1000.0;
                let boundary_local = (earlier_sent + answered) / 2.0;
                return Ok(boundary_server - boundary_local);
            }
        }
        previous = Some((server_second, sent));
        std::thread::sleep(GAP);
    }
    Err(format!(
        "{url}: its Date header did not change second within {} ms; is it a live web server?",
        PROBE_FOR.as_millis()
    ))
}

/// `http://authority/path` as (authority with a port, path).
fn split_url(url: &str) -> Result<(&str, &str), String> {
    let rest = url.strip_prefix("http://").ok_or_else(|| {
        format!("{url}: the clock probe speaks plain http:// (or give an SNTP server as HOST:PORT)")
    })?;
    let (authority, path) = match rest.find('/') {
        Some(slash) => (&rest[..slash], &rest[slash..]),
        None => (rest, "/"),
    };
    if authority.is_empty() {
        return Err(format!("{url}: no host"));
    }
    Ok((authority, path))
}

/// One `HEAD` request; the second its `Date` header names, as Unix seconds.
fn date_of(address: &std::net::SocketAddr, host: &str, path: &str) -> Result<i64, String> {
    let mut stream = TcpStream::connect_timeout(address, TIMEOUT).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(TIMEOUT))
        .map_err(|e| e.to_string())?;
    let _ = stream.set_nodelay(true);
    let request = format!(
        "HEAD {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: jmxr clock probe\r\nConnection: close\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    let mut head = Vec::with_capacity(512);
    let mut chunk = [0u8; 512];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        let n = stream.read(&mut chunk).map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&chunk[..n]);
    }
    date_header_seconds(&head)
}

/// The `Date` header of a response head (RFC 9110's IMF-fixdate), as Unix seconds.
fn date_header_seconds(head: &[u8]) -> Result<i64, String> {
    let text = String::from_utf8_lossy(head);
    let value = text
        .lines()
        .skip(1)
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case("date")
                .then(|| value.trim())
        })
        .ok_or("the answer has no Date header")?;
    chrono::DateTime::parse_from_rfc2822(value)
        .map(|date| date.timestamp())
        .map_err(|e| format!("unreadable Date header {value:?}: {e}"))
}

fn unix_ms_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_date_header_is_read_in_any_case() {
        let head = b"HTTP/1.1 200 OK\r\nServer: x\r\ndate: Wed, 02 Dec 2026 11:00:05 GMT\r\n\r\n";
        assert_eq!(date_header_seconds(head).unwrap(), 1_796_209_205);
        assert!(date_header_seconds(b"HTTP/1.1 200 OK\r\n\r\n")
            .unwrap_err()
            .contains("no Date"));
    }

    #[test]
    fn only_plain_http_addresses_are_probed() {
        assert_eq!(
            split_url("http://127.0.0.1:8080/health").unwrap(),
            ("127.0.0.1:8080", "/health")
        );
        assert_eq!(
            split_url("http://example.test").unwrap(),
            ("example.test", "/")
        );
        assert!(split_url("https://example.test/")
            .unwrap_err()
            .contains("plain http://"));
    }
}
