//! A virtual user's TCP connections, shared by all its TCP Samplers as JMeter's
//! per-thread socket cache is: keyed by server, port, user name and password, so two
//! samplers that talk to the same server share one connection when they re-use it.

use std::collections::HashMap;
use std::time::Duration;

use tokio::net::TcpStream;

use crate::user_state::UserState;

/// The user slot that holds the connections. Slots are keyed by element id; ids count
/// up from 0, so this one never meets an element's.
const CONNECTIONS_SLOT: usize = usize::MAX - 6;

/// Open connections by key.
#[derive(Default)]
struct Connections(HashMap<String, TcpStream>);

/// The cache key JMeter uses (`TCP#server#port#user#password`).
pub fn key(server: &str, port: i64, user: &str, password: &str) -> String {
    format!("TCP#{server}#{port}#{user}#{password}")
}

/// Takes the user's open connection for `key` out of the cache (give it back with
/// [`put_back`]).
pub fn take(user: &mut UserState, key: &str) -> Option<TcpStream> {
    user.slot(CONNECTIONS_SLOT, Connections::default)
        .0
        .remove(key)
}

/// Keeps `stream` for the user's next sample with the same key.
pub fn put_back(user: &mut UserState, key: String, stream: TcpStream) {
    user.slot(CONNECTIONS_SLOT, Connections::default)
        .0
        .insert(key, stream);
}

/// Connects to `server:port` within `timeout` (none: the system's limit), failing with
/// the text of the exception Java's `Socket.connect` throws.
pub async fn connect(
    server: &str,
    port: i64,
    timeout: Option<Duration>,
) -> Result<TcpStream, String> {
    let unknown = || format!("java.net.UnknownHostException: {server}");
    let port = u16::try_from(port)
        .map_err(|_| format!("java.lang.IllegalArgumentException: port out of range:{port}"))?;
    let mut addrs = tokio::net::lookup_host((server, port))
        .await
        .map_err(|_| unknown())?;
    let addr = addrs.next().ok_or_else(unknown)?;
    let connecting = TcpStream::connect(addr);
    let connected = match timeout {
        Some(limit) => tokio::time::timeout(limit, connecting)
            .await
            .map_err(|_| "java.net.SocketTimeoutException: Connect timed out".to_string())?,
        None => connecting.await,
    };
    connected.map_err(|e| io_text(&e))
}

/// An I/O error in the words of the JVM's exceptions.
pub fn io_text(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::ConnectionRefused => "java.net.ConnectException: Connection refused".into(),
        ErrorKind::ConnectionReset => "java.net.SocketException: Connection reset".into(),
        ErrorKind::BrokenPipe => "java.net.SocketException: Broken pipe".into(),
        ErrorKind::TimedOut => "java.net.SocketTimeoutException: Read timed out".into(),
        _ if error.raw_os_error() == Some(24) => format!(
            "java.net.SocketException: {error}: raise the open-file limit (ulimit -n) or run \
             fewer users"
        ),
        _ => format!("java.io.IOException: {error}"),
    }
}
