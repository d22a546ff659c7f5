//! The UDP sender contract of Java Request classes such as `com.demo.udp.UdpSampler`.
//!
//! Teams that load-test UDP paths with JMeter write one small Java client class; jmxr
//! runs plans that use it unchanged (the class table in `samplers::java::mapping` maps
//! the class here). The contract, per virtual user:
//!
//! * set-up (before the user's first sample): resolve `host`, read `port`, open one
//!   socket kept for the user's whole life (a per-user slot), draw the optional random
//!   suffix;
//! * each sample: pause `intervalMs` (inside the sample, so it counts in `elapsed`),
//!   then send one datagram: `message` as UTF-8, padded with `0x00` or truncated to
//!   exactly `packetSize` bytes when `packetSize > 0`;
//! * response code `0` and message `udp send ok`, or `ERR` and the error text; `bytes`
//!   (and `sentBytes`) are the payload length.
//!
//! The interval is a precise wait on a per-user grid: each datagram is due one interval
//! after the previous one was due, not one interval after the previous sample ended, so
//! the time spent between samples does not add up and 20 users × 10 ms hold 2,000
//! datagrams per second rather than drifting below it (as `Thread.sleep` does in Java). A stop (or the end of the thread group's duration) during the pause ends
//! the sample without sending and without recording it: the packet was never due.
//!
//! Each sample sends its own datagram with one `send` before it ends, so its result is
//! that datagram's outcome. Datagrams are not batched (`sendmmsg`) even at full rate: a
//! batch would hold datagrams of samples the engine has not asked for yet, which a stop
//! would leave without rows (docs/udp.md, "Why the sender does not batch datagrams").
//! The per-sample cost is kept down instead: one look-up of the user's state, the
//! payload laid out once per settings, one clock read for a send that did not wait.
//!
//! Options the Java class does not have, as extra parameters (or run-wide properties):
//! * `randomSuffixBytes` (`jmxr.udp.randomSuffixBytes`): N random alphanumeric bytes
//!   appended to the message, drawn once per user at set-up, so the receiver can tell
//!   senders apart;
//! * `sequence` (`jmxr.udp.sequence`) = `true`: an 8-byte big-endian sequence number
//!   from a counter shared by all users of the element, written at the start of the
//!   payload (before the message), so `jmxr udp-sink --sequence` can count lost,
//!   duplicated and reordered datagrams.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::distributions::Alphanumeric;
use rand::Rng;
use std::net::UdpSocket;

use crate::plan::SampleContext;
use crate::sample::SampleResult;
use crate::sample::Stopwatch;
use crate::samplers::java::Parameters;

/// The largest payload that fits one Ethernet frame (1500 − 20 IPv4 − 8 UDP); beyond it
/// datagrams are fragmented, and losing one fragment loses the datagram.
pub const MAX_UNFRAGMENTED_PAYLOAD: i64 = 1472;
/// How far behind its grid a user may be and still catch up (the engine's rule for
/// pauses: a stalled machine must not cause a burst).
const MAX_CATCH_UP: Duration = Duration::from_millis(5);
/// How long a send waits for room when the socket's send buffer is full.
const SEND_BUFFER_FULL_WAIT: Duration = Duration::from_micros(200);
/// Bytes of the sequence number at the start of the payload.
pub const SEQUENCE_BYTES: usize = 8;
/// The largest payload a UDP datagram can carry over IPv4.
const MAX_DATAGRAM: i64 = 65_507;

pub const CODE_OK: &str = "0";
pub const MESSAGE_OK: &str = "udp send ok";
pub const CODE_ERROR: &str = "ERR";

/// The run-wide state of one sender element.
#[derive(Default)]
pub struct UdpSender {
    /// The next sequence number, shared by every user of the element so the numbers the
    /// receiver sees are unique and dense.
    next_sequence: AtomicU64,
    /// Whether the fragmentation warning was given (at plan time for a constant
    /// `packetSize`, else at the first sample that asks for more than one frame).
    fragmentation_warned: AtomicBool,
}

/// What the contract reads from the sampler's parameters, decoded once. When every
/// parameter is constant or reads only properties, a user keeps them until a property
/// changes: decoding numbers and finding names on every datagram showed in profiles.
pub struct SendSettings {
    host: String,
    port: String,
    message: String,
    interval_ms: i64,
    packet_size: i64,
    random_suffix_bytes: Option<String>,
    sequence: Option<String>,
}

impl SendSettings {
    /// The settings in `params` (JMeter's `getParameter` / `getLongParameter` rules).
    pub fn read(params: &Parameters<'_>) -> SendSettings {
        SendSettings {
            host: params.get("host").unwrap_or("").trim().to_string(),
            port: params.get("port").unwrap_or("").trim().to_string(),
            message: params.get("message").unwrap_or("").to_string(),
            interval_ms: params.long("intervalMs", 0),
            packet_size: params.long("packetSize", 0),
            random_suffix_bytes: params.get("randomSuffixBytes").map(str::to_string),
            sequence: params.get("sequence").map(str::to_string),
        }
    }
}

/// Reads a sample's [`SendSettings`] from the sampler's parameters.
pub type ReadSettings<'r> = dyn Fn(&mut SampleContext<'_>) -> SendSettings + Send + Sync + 'r;

/// What a user keeps between samples (the Java class's fields after `setupTest`).
struct UserSender {
    settings: SendSettings,
    /// The version of the properties `settings` were read at; `None` when they depend on
    /// more than the properties and are read for every sample.
    settings_version: Option<u64>,
    socket: Result<UserSocket, SetupFailed>,
}

struct UserSocket {
    socket: UdpSocket,
    target: SocketAddr,
    /// Whether `socket` is connected to `target` (else each datagram names it).
    connected: bool,
    suffix: Vec<u8>,
    sequence: bool,
    /// The payload buffer, reused so a sample allocates nothing for it.
    payload: Vec<u8>,
    /// Whether `payload` holds the current settings' datagram: then a sample only
    /// writes its sequence number into it.
    payload_current: bool,
    /// When the previous datagram was due: the next is due one interval later, so the
    /// time spent between samples (recording, the engine's walk) does not slow the rate.
    last_due: Option<Instant>,
}

/// A set-up that failed; kept so every sample reports it without retrying at full rate.
struct SetupFailed(String);

/// The user's state of the element `id`.
fn user_sender<'u>(cx: &'u mut SampleContext<'_>, id: usize) -> &'u mut Option<UserSender> {
    cx.user.slot(id, || None::<UserSender>)
}

impl UdpSender {
    /// A sender; `warned` says the plan already warned about fragmentation.
    pub fn new(warned: bool) -> Arc<UdpSender> {
        Arc::new(UdpSender {
            next_sequence: AtomicU64::new(0),
            fragmentation_warned: AtomicBool::new(warned),
        })
    }

    /// One sample. `settings_version` is the properties' version when the parameters
    /// read only properties (the user's settings are then read again only when it
    /// changes), `read` reads them. `None` when the run stopped during the interval.
    pub async fn sample(
        &self,
        cx: &mut SampleContext<'_>,
        settings_version: Option<u64>,
        read: &ReadSettings<'_>,
    ) -> Option<Arc<SampleResult>> {
        let id = cx.element_id;
        // One slot lookup on the usual path (settings kept and current): the user's
        // state is found once and used for the whole sample.
        let slot = user_sender(cx, id);
        let current = slot.as_ref().is_some_and(|user| {
            settings_version.is_some() && user.settings_version == settings_version
        });
        let mut user = if current {
            slot.as_mut()?
        } else {
            let settings = read(cx);
            match user_sender(cx, id) {
                Some(user) => {
                    user.settings = settings;
                    user.settings_version = settings_version;
                    if let Ok(socket) = &mut user.socket {
                        socket.payload_current = false;
                    }
                }
                None => {
                    let socket = set_up(&settings, cx).await;
                    *user_sender(cx, id) = Some(UserSender {
                        settings,
                        settings_version,
                        socket,
                    });
                }
            }
            user_sender(cx, id).as_mut()?
        };
        // The result is made after the waits: held across them it would sit in the
        // sample's future, which is copied into its box for every sample.
        let watch = Stopwatch::start();
        let interval = user.settings.interval_ms;
        if interval > 0 {
            let due = due(user, interval);
            if !cx.user.pause_until(due).await {
                return None;
            }
            user = user_sender(cx, id).as_mut()?;
        }
        let packet_size = user.settings.packet_size;
        let mut waited = interval > 0;
        let outcome = match &mut user.socket {
            Ok(socket) => {
                let sequence = socket
                    .sequence
                    .then(|| self.next_sequence.fetch_add(1, Ordering::Relaxed));
                refresh_payload(socket, sequence, &user.settings.message, packet_size);
                let sent = send(socket).await;
                waited |= sent.waited;
                sent.outcome
                    .map(|sent| sent as i64)
                    .map_err(|e| io_error_text(&e))
            }
            Err(SetupFailed(text)) => Err(text.clone()),
        };
        if packet_size > MAX_UNFRAGMENTED_PAYLOAD
            && !self.fragmentation_warned.swap(true, Ordering::Relaxed)
        {
            crate::runlog::warn(&format!(
                "{}: packetSize {packet_size} is above {MAX_UNFRAGMENTED_PAYLOAD} bytes; \
                 datagrams are sent as IP fragments",
                cx.label
            ));
        }
        // No thread name here: the engine stamps it on every result it records.
        let mut shared = SampleResult::new_shared(cx.label.clone());
        let result = Arc::get_mut(&mut shared).expect("a new result is not shared");
        match outcome {
            Ok(sent) => {
                result.response_code = CODE_OK.into();
                result.response_message = MESSAGE_OK.into();
                result.bytes_override = sent;
                result.sent_bytes = sent;
                result.set_success(true);
            }
            Err(text) => {
                result.response_code = CODE_ERROR.into();
                result.response_message = text.into();
                result.set_success(false);
            }
        }
        if waited {
            watch.stop(result);
        } else {
            // A send that did not wait for room takes microseconds: 0 ms, as the clock
            // would say, without reading it a second time.
            result.start_time = watch.start_ms();
            result.elapsed = 0;
            result.end_time = result.start_time;
        }
        Some(shared)
    }
}

/// When this sample's datagram is due, recorded as the user's last due time: one
/// interval after the previous one, or after now for the first. A user that fell behind
/// by more than [`MAX_CATCH_UP`] starts a new grid instead of bursting.
fn due(user: &mut UserSender, interval: i64) -> Instant {
    let now = Instant::now();
    let interval = Duration::from_millis(interval.max(0) as u64);
    let Ok(socket) = &mut user.socket else {
        return now + interval;
    };
    let due = match socket.last_due {
        Some(last) => (last + interval).max(now.checked_sub(MAX_CATCH_UP).unwrap_or(now)),
        None => now + interval,
    };
    socket.last_due = Some(due);
    due
}

/// The Java class's `setupTest`: destination, socket, options.
async fn set_up(
    settings: &SendSettings,
    cx: &mut SampleContext<'_>,
) -> Result<UserSocket, SetupFailed> {
    let host = &settings.host;
    let port_text = &settings.port;
    let port: u16 = port_text.parse().map_err(|_| {
        SetupFailed(format!(
            "java.lang.NumberFormatException: For input string: \"{port_text}\""
        ))
    })?;
    let target = tokio::net::lookup_host((host.as_str(), port))
        .await
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| SetupFailed(format!("java.net.UnknownHostException: {host}")))?;
    let local: SocketAddr = if target.is_ipv4() {
        ([0, 0, 0, 0], 0).into()
    } else {
        (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
    };
    let socket = UdpSocket::bind(local)
        .and_then(|socket| socket.set_nonblocking(true).map(|()| socket))
        .map_err(|e| SetupFailed(io_error_text(&e)))?;
    // Connected, the kernel keeps the route instead of looking it up per datagram (a
    // tenth of a send's cost on loopback); `send` hides what connecting changes. Without
    // a route now, the socket stays unconnected and each send tries again, as the Java
    // class's socket does.
    let connected = socket.connect(target).is_ok();
    let props = &cx.user.run.props;
    let option =
        |given: &Option<String>, property: &str| given.clone().or_else(|| props.get(property));
    let suffix_len = option(&settings.random_suffix_bytes, "jmxr.udp.randomSuffixBytes")
        .and_then(|text| text.trim().parse::<usize>().ok())
        .unwrap_or(0)
        .min(MAX_DATAGRAM as usize);
    let sequence = option(&settings.sequence, "jmxr.udp.sequence")
        .is_some_and(|text| text.trim().eq_ignore_ascii_case("true"));
    let suffix = (&mut cx.user.rng)
        .sample_iter(Alphanumeric)
        .take(suffix_len)
        .collect();
    Ok(UserSocket {
        socket,
        target,
        connected,
        suffix,
        sequence,
        payload: Vec::new(),
        payload_current: false,
        last_due: None,
    })
}

/// Sends one datagram on the user's non-blocking socket.
///
/// The socket is deliberately not registered with the runtime's reactor: a registered
/// socket gets a writable event after every datagram the kernel frees, which wakes a
/// runtime worker per datagram (a context switch each, a third of the sending rate).
/// A UDP send almost never has to wait; when the send buffer is full it waits a moment
/// and tries again.
///
/// The socket is connected when it could be, and a connected socket reports an ICMP
/// error (port unreachable: nobody listens yet) that came back for an earlier datagram
/// as the result of the next send, which then is not sent. The Java class's unconnected
/// socket never sees those errors and sends every datagram, so the send is tried again;
/// an error that belongs to this datagram (no route) comes back again and is reported.
async fn send(user: &UserSocket) -> Sent {
    let mut earlier_errors = 0;
    let mut waited = false;
    loop {
        let sent = if user.connected {
            user.socket.send(&user.payload)
        } else {
            user.socket.send_to(&user.payload, user.target)
        };
        match sent {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                waited = true;
                tokio::time::sleep(SEND_BUFFER_FULL_WAIT).await;
            }
            Err(e) if reported_by_icmp(&e) && earlier_errors < MAX_EARLIER_ERRORS => {
                earlier_errors += 1;
            }
            outcome => return Sent { outcome, waited },
        }
    }
}

/// What became of one datagram: the bytes the kernel took or its error, and whether the
/// send had to wait for room (only then is the sample's end read from the clock).
struct Sent {
    outcome: std::io::Result<usize>,
    waited: bool,
}

/// How many errors of earlier datagrams one send skips (each read clears one).
const MAX_EARLIER_ERRORS: usize = 2;

/// Errors that a connected UDP socket may hold from an ICMP message about an earlier
/// datagram.
fn reported_by_icmp(error: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        error.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::HostUnreachable | ErrorKind::NetworkUnreachable
    )
}

/// Makes `socket.payload` this sample's datagram. The payload of kept settings is laid
/// out once; later samples only write their sequence number over its first bytes (as
/// many as the packet size leaves of it).
fn refresh_payload(
    socket: &mut UserSocket,
    sequence: Option<u64>,
    message: &str,
    packet_size: i64,
) {
    if !socket.payload_current {
        fill_payload(
            &mut socket.payload,
            sequence,
            message,
            &socket.suffix,
            packet_size,
        );
        socket.payload_current = true;
    } else if let Some(number) = sequence {
        let bytes = number.to_be_bytes();
        let kept = socket.payload.len().min(SEQUENCE_BYTES);
        socket.payload[..kept].copy_from_slice(&bytes[..kept]);
    }
}

/// Lays out one datagram in `payload`: the sequence number (big-endian), the message,
/// the suffix; then exactly `packet_size` bytes (zero padding or truncation) when
/// `packet_size > 0`, capped at the largest datagram.
pub fn fill_payload(
    payload: &mut Vec<u8>,
    sequence: Option<u64>,
    message: &str,
    suffix: &[u8],
    packet_size: i64,
) {
    payload.clear();
    if let Some(number) = sequence {
        payload.extend_from_slice(&number.to_be_bytes());
    }
    payload.extend_from_slice(message.as_bytes());
    payload.extend_from_slice(suffix);
    if packet_size > 0 {
        payload.resize(packet_size.min(MAX_DATAGRAM) as usize, 0);
    }
}

/// An I/O error as the Java class would report it, with advice when the process ran out
/// of file descriptors (each virtual user holds one socket).
fn io_error_text(error: &std::io::Error) -> String {
    const EMFILE: i32 = 24;
    if error.raw_os_error() == Some(EMFILE) {
        return format!(
            "java.net.SocketException: {error}: each virtual user holds one socket; \
             raise the open-file limit (ulimit -n) or run fewer users"
        );
    }
    format!("java.io.IOException: {error}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_is_padded_or_truncated_to_the_packet_size() {
        let mut payload = Vec::new();
        fill_payload(&mut payload, None, "hello", b"", 8);
        assert_eq!(payload, b"hello\0\0\0");
        fill_payload(&mut payload, None, "hello world", b"", 5);
        assert_eq!(payload, b"hello");
        fill_payload(&mut payload, None, "hé", b"", 0);
        assert_eq!(payload, "hé".as_bytes(), "no size: the message as is");
    }

    #[test]
    fn sequence_comes_first_big_endian_and_suffix_follows_the_message() {
        let mut payload = Vec::new();
        fill_payload(&mut payload, Some(0x0102), "ab", b"XY", 14);
        assert_eq!(&payload[..8], &[0, 0, 0, 0, 0, 0, 1, 2]);
        assert_eq!(&payload[8..], b"abXY\0\0");
    }

    #[test]
    fn a_kept_payload_takes_each_sequence_number_even_when_cut_short() {
        let socket = |packet_size: i64| {
            let mut user = UserSocket {
                socket: UdpSocket::bind("127.0.0.1:0").expect("bind"),
                target: ([127, 0, 0, 1], 9).into(),
                connected: false,
                suffix: b"XY".to_vec(),
                sequence: true,
                payload: Vec::new(),
                payload_current: false,
                last_due: None,
            };
            refresh_payload(&mut user, Some(7), "ab", packet_size);
            user
        };
        let mut user = socket(14);
        assert_eq!(user.payload, b"\0\0\0\0\0\0\0\x07abXY\0\0");
        refresh_payload(&mut user, Some(0x0102), "ignored: the payload is kept", 14);
        assert_eq!(user.payload, b"\0\0\0\0\0\0\x01\x02abXY\0\0");
        let mut short = socket(3);
        refresh_payload(&mut short, Some(0x0a0b0c0d0e0f1011), "ab", 3);
        assert_eq!(
            short.payload,
            [0x0a, 0x0b, 0x0c],
            "the number is cut as a new one is"
        );
        short.payload_current = false;
        refresh_payload(&mut short, Some(0x0a0b0c0d0e0f1011), "ab", 3);
        assert_eq!(short.payload, [0x0a, 0x0b, 0x0c]);
        user.payload_current = false;
        refresh_payload(&mut user, Some(1), "new", 0);
        assert_eq!(user.payload, b"\0\0\0\0\0\0\0\x01newXY", "laid out again");
    }

    #[test]
    fn running_out_of_descriptors_says_what_to_change() {
        let text = io_error_text(&std::io::Error::from_raw_os_error(24));
        assert!(text.contains("ulimit -n"), "{text}");
    }

    fn udp_request(args: &[(&str, &str)]) -> crate::jmx::Element {
        use crate::samplers::test_support::*;
        element(
            "JavaSampler",
            "JavaTestSamplerGui",
            "UDP",
            vec![
                string_prop("classname", "com.demo.udp.UdpSampler"),
                arguments_prop("arguments", args),
            ],
        )
    }

    #[tokio::test]
    async fn sends_one_datagram_per_sample_from_one_socket_per_user() {
        use crate::samplers::test_support::*;
        let receiver = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
        receiver
            .set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .expect("timeout");
        let port = receiver.local_addr().expect("addr").port().to_string();
        let element = udp_request(&[
            ("host", "127.0.0.1"),
            ("port", &port),
            ("message", "hi"),
            ("intervalMs", "20"),
            ("packetSize", "10"),
            ("sequence", "true"),
        ]);
        let (sampler, diagnostics) = build_element(&element, &[]);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let sampler = sampler.expect("built");
        let mut user = user();
        let mut sources = Vec::new();
        let mut first_start = None;
        for expected in 0..2u64 {
            let result = sample(sampler.as_ref(), &mut user, "UDP")
                .await
                .expect("sampled");
            assert_eq!(result.response_code, "0");
            assert_eq!(result.response_message, "udp send ok");
            assert!(result.success);
            assert_eq!(result.bytes(), 10);
            // The interval is inside the sample; the second datagram is due two
            // intervals after the first sample started, however long the gap between.
            let started = *first_start.get_or_insert(result.start_time);
            let due = started + 20 * (expected as i64 + 1);
            assert!(
                result.end_time >= due - 1,
                "sent at {} before {due}",
                result.end_time
            );
            let mut buffer = [0u8; 64];
            let (len, from) = receiver.recv_from(&mut buffer).expect("datagram");
            assert_eq!(len, 10);
            assert_eq!(&buffer[..8], &expected.to_be_bytes());
            assert_eq!(&buffer[8..10], b"hi");
            sources.push(from);
        }
        assert_eq!(sources[0], sources[1], "one socket for the user's life");
    }

    #[tokio::test]
    async fn the_random_suffix_is_drawn_once_per_user() {
        use crate::samplers::test_support::*;
        let receiver = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
        receiver
            .set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .expect("timeout");
        let port = receiver.local_addr().expect("addr").port().to_string();
        let element = udp_request(&[
            ("host", "127.0.0.1"),
            ("port", &port),
            ("message", "ab"),
            ("randomSuffixBytes", "4"),
        ]);
        let (sampler, _) = build_element(&element, &[]);
        let sampler = sampler.expect("built");
        let mut user = user();
        let mut payloads = Vec::new();
        for _ in 0..2 {
            let result = sample(sampler.as_ref(), &mut user, "UDP")
                .await
                .expect("sampled");
            assert_eq!(result.bytes(), 6);
            let mut buffer = [0u8; 64];
            let len = receiver.recv(&mut buffer).expect("datagram");
            payloads.push(buffer[..len].to_vec());
        }
        assert!(payloads[0].starts_with(b"ab"));
        assert!(payloads[0][2..].iter().all(u8::is_ascii_alphanumeric));
        assert_eq!(payloads[0], payloads[1], "fixed at set-up");
    }

    #[tokio::test]
    async fn a_bad_destination_fails_with_err() {
        use crate::samplers::test_support::*;
        let element = udp_request(&[("host", "127.0.0.1"), ("port", "x")]);
        let result = build_and_sample(&element).await;
        assert_eq!(result.response_code, "ERR");
        assert!(result.response_message.contains("NumberFormatException"));
        assert!(!result.success);
    }

    #[test]
    fn a_packet_size_above_one_frame_warns_at_plan_time() {
        use crate::plan::Severity;
        use crate::samplers::test_support::*;
        let element = udp_request(&[("host", "127.0.0.1"), ("port", "9"), ("packetSize", "1500")]);
        let (_, diagnostics) = build_element(&element, &[]);
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].severity, Severity::Warning);
        assert!(diagnostics[0].message.contains("fragment"));
    }
}
