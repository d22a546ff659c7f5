//! jmeter-plugins UDP Request (`kg.apc.jmeter.samplers.UDPSampler`): sends the request
//! data as one datagram on a connected channel and, if asked, waits for one reply.
//!
//! As the plugin does:
//! * each virtual user keeps its channel (connected to `hostname:port` when opened) from
//!   sample to sample, closing it after a sample when `closechannel` is set and after
//!   a failed read;
//! * `encodeclass` empty sends the data as Windows-1252 bytes and keeps the reply as
//!   bytes; `kg.apc.jmeter.samplers.HexStringUDPDecoder` sends hex digits as binary
//!   and stores the reply as lower-case hex text; other decoders are Java code jmxr
//!   cannot run (a plan error);
//! * with `waitresponse`, one read of up to `kg.apc.jmeter.samplers.ReceiveBufferSize`
//!   bytes (4096) waits `timeout` ms (0: no limit) and fails with
//!   `java.net.SocketTimeoutException: Timeout exceeded while reading from socket`;
//! * success is code `200` with the request data as sampler data; any failure is code
//!   `500` with the exception text as message and data.
//!
//! The plugin binds `bind_address:bind_port` after connecting, which the JVM refuses
//! (a connected channel is already bound), so there the settings only log an error;
//! jmxr binds the channel where the settings say before connecting, which is what they
//! ask for.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::net::UdpSocket;

use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::SampleResult;
use crate::sample::Stopwatch;
use crate::samplers::new_result;

use crate::samplers::bytes::{hex_to_bytes, to_hex, windows_1252};

/// The plugin's hex decoder class, the one `encodeclass` jmxr runs natively.
pub const HEX_DECODER: &str = "kg.apc.jmeter.samplers.HexStringUDPDecoder";
/// The reply buffer size property and its default.
const RECEIVE_BUFFER_PROPERTY: &str = "kg.apc.jmeter.samplers.ReceiveBufferSize";
const RECEIVE_BUFFER_DEFAULT: usize = 4096;
const CODE_OK: &str = "200";
const CODE_ERROR: &str = "500";

/// How request data becomes bytes and reply bytes become data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Codec {
    Raw,
    Hex,
}

/// One UDP Request element.
pub struct UdpRequest {
    hostname: Setting,
    port: Setting,
    data: Setting,
    timeout: Setting,
    bind_address: Setting,
    bind_port: Setting,
    wait_response: bool,
    close_channel: bool,
    codec: Codec,
}

/// Builds a UDP Request; an encoder class jmxr cannot run is a plan error.
pub fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    let encoder = cx.raw("encodeclass").unwrap_or("").trim().to_string();
    let codec = match encoder.as_str() {
        "" => Codec::Raw,
        HEX_DECODER => Codec::Hex,
        other => {
            cx.error(format!(
                "UDP Request encoder class {other:?} is Java code jmxr cannot run; jmxr \
                 encodes raw text (empty encoder) and hex ({HEX_DECODER})"
            ));
            Codec::Raw
        }
    };
    Arc::new(UdpRequest {
        hostname: cx.setting("hostname", ""),
        port: cx.setting("port", ""),
        data: cx.setting("data", ""),
        timeout: cx.setting("timeout", ""),
        bind_address: cx.setting("bind_address", ""),
        bind_port: cx.setting("bind_port", ""),
        wait_response: cx.flag("waitresponse", false),
        close_channel: cx.flag("closechannel", false),
        codec,
    })
}

/// This sample's settings, evaluated.
struct Request {
    hostname: String,
    port: String,
    data: String,
    timeout_ms: u64,
    bind: String,
    bind_port: u16,
}

/// A user's open channel.
struct Channel(UdpSocket);

impl UdpRequest {
    /// One sample; [`Sampler::sample`] boxes it for the engine.
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> Option<SampleResult> {
        let request = self.evaluate(cx);
        let mut result = new_result(cx, cx.label.clone());
        result.sampler_data = request.data.clone();
        result.data_type = "text";
        let watch = Stopwatch::start();
        let outcome = self.exchange(&request, cx, &watch, &mut result).await;
        watch.stop(&mut result);
        match outcome {
            Ok(data) => {
                result.response_code = CODE_OK.into();
                result.response_data = data;
                result.set_success(true);
            }
            Err(text) => {
                cx.user.clear_slot(cx.element_id);
                result.response_code = CODE_ERROR.into();
                result.response_data = format!("{text}\r\n").into_bytes();
                result.response_message = text.into();
                result.set_success(false);
            }
        }
        if result.latency == 0 {
            result.latency = result.elapsed;
        }
        Some(result)
    }
}

#[async_trait]
impl Sampler for UdpRequest {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        self.sample_unboxed(cx).await.map(Arc::new)
    }
}

impl UdpRequest {
    fn evaluate(&self, cx: &mut SampleContext<'_>) -> Request {
        let mut eval = cx.user.eval(&cx.label);
        Request {
            hostname: self.hostname.text(&mut eval),
            port: self.port.text(&mut eval).trim().to_string(),
            data: self.data.text(&mut eval),
            timeout_ms: self.timeout.i64(&mut eval).max(0) as u64,
            bind: self.bind_address.text(&mut eval).trim().to_string(),
            bind_port: u16::try_from(self.bind_port.i64(&mut eval)).unwrap_or(0),
        }
    }

    /// Connects if needed, sends, and reads the reply when asked; the reply as data.
    async fn exchange(
        &self,
        request: &Request,
        cx: &mut SampleContext<'_>,
        watch: &Stopwatch,
        result: &mut SampleResult,
    ) -> Result<Vec<u8>, String> {
        let payload = match self.codec {
            Codec::Raw => windows_1252(&request.data),
            Codec::Hex => hex_to_bytes(&request.data)
                .map_err(|e| format!("java.lang.IllegalArgumentException: {e}"))?,
        };
        let id = cx.element_id;
        if cx.user.slot(id, || None::<Channel>).is_none() {
            let channel = open(request).await?;
            *cx.user.slot(id, || None::<Channel>) = Some(Channel(channel));
        }
        result.connect_time = watch.elapsed_ms();
        let Some(Channel(socket)) = cx.user.slot(id, || None::<Channel>).take() else {
            return Err("java.nio.channels.ClosedChannelException".to_string());
        };
        socket.send(&payload).await.map_err(|e| io_text(&e))?;
        if !self.wait_response {
            self.keep(cx, socket);
            return Ok(Vec::new());
        }
        let size = cx
            .user
            .run
            .props
            .get(RECEIVE_BUFFER_PROPERTY)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(RECEIVE_BUFFER_DEFAULT);
        let mut buffer = vec![0u8; size.max(1)];
        let stop = cx.user.run.stop_now.clone();
        let read = async {
            if request.timeout_ms == 0 {
                socket.recv(&mut buffer).await.map_err(|e| io_text(&e))
            } else {
                match tokio::time::timeout(
                    Duration::from_millis(request.timeout_ms),
                    socket.recv(&mut buffer),
                )
                .await
                {
                    Ok(read) => read.map_err(|e| io_text(&e)),
                    Err(_) => Err("java.net.SocketTimeoutException: Timeout exceeded while reading from socket".to_string()),
                }
            }
        };
        let len = tokio::select! {
            read = read => read?,
            _ = stop.cancelled() => return Err("java.nio.channels.ClosedByInterruptException".to_string()),
        };
        result.latency = watch.elapsed_ms();
        self.keep(cx, socket);
        let reply = &buffer[..len];
        Ok(match self.codec {
            Codec::Raw => reply.to_vec(),
            Codec::Hex => to_hex(reply).into_bytes(),
        })
    }

    /// Puts the channel back for the user's next sample unless it is to be closed.
    fn keep(&self, cx: &mut SampleContext<'_>, socket: UdpSocket) {
        if !self.close_channel {
            *cx.user.slot(cx.element_id, || None::<Channel>) = Some(Channel(socket));
        }
    }
}

/// Opens a channel bound where the settings say and connected to the destination.
async fn open(request: &Request) -> Result<UdpSocket, String> {
    let port: u16 = request.port.parse().map_err(|_| {
        format!(
            "java.lang.NumberFormatException: For input string: \"{}\"",
            request.port
        )
    })?;
    let target = tokio::net::lookup_host((request.hostname.as_str(), port))
        .await
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| {
            format!(
                "java.nio.channels.UnresolvedAddressException: {}",
                request.hostname
            )
        })?;
    let bind_ip: IpAddr = if request.bind.is_empty() {
        if target.is_ipv4() {
            [0, 0, 0, 0].into()
        } else {
            std::net::Ipv6Addr::UNSPECIFIED.into()
        }
    } else {
        request.bind.parse().map_err(|_| {
            format!(
                "java.net.BindException: Cannot assign requested address: {}",
                request.bind
            )
        })?
    };
    let socket = UdpSocket::bind(SocketAddr::new(bind_ip, request.bind_port))
        .await
        .map_err(|e| io_text(&e))?;
    socket.connect(target).await.map_err(|e| io_text(&e))?;
    Ok(socket)
}

/// An I/O error in the words of the JVM's exceptions where they differ.
fn io_text(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::ConnectionRefused => {
            "java.net.PortUnreachableException: ICMP Port Unreachable".to_string()
        }
        std::io::ErrorKind::AddrInUse => format!("java.net.BindException: {error}"),
        _ => format!("java.io.IOException: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use crate::samplers::test_support::*;

    fn udp_request(encoder: &str, port: u16, wait: bool) -> crate::jmx::Element {
        element(
            "kg.apc.jmeter.samplers.UDPSampler",
            "kg.apc.jmeter.samplers.UDPSamplerGui",
            "UDP Request",
            vec![
                string_prop("hostname", "127.0.0.1"),
                string_prop("port", &port.to_string()),
                string_prop("data", "héllo"),
                string_prop("timeout", "2000"),
                string_prop("encodeclass", encoder),
                bool_prop("waitresponse", wait),
            ],
        )
    }

    #[test]
    fn a_decoder_class_jmxr_cannot_run_is_a_plan_error() {
        let element = udp_request("kg.apc.jmeter.samplers.DNSJavaDecoder", 53, true);
        let (_, diagnostics) = build_element(&element, &[]);
        assert_eq!(diagnostics.len(), 1);
        assert!(diagnostics[0].message.contains("DNSJavaDecoder"));
    }

    #[tokio::test]
    async fn sends_windows_1252_and_keeps_the_reply_as_data() {
        let server = std::net::UdpSocket::bind("127.0.0.1:0").expect("bind");
        server
            .set_read_timeout(Some(std::time::Duration::from_secs(5)))
            .expect("timeout");
        let port = server.local_addr().expect("addr").port();
        let echo = std::thread::spawn(move || {
            let mut buffer = [0u8; 64];
            let (len, from) = server.recv_from(&mut buffer).expect("request");
            server.send_to(&buffer[..len], from).expect("reply");
            buffer[..len].to_vec()
        });
        let result = build_and_sample(&udp_request("", port, true)).await;
        let sent = echo.join().expect("echo thread");
        assert_eq!(sent, b"h\xe9llo");
        assert_eq!(result.response_code, "200");
        assert_eq!(result.response_data, b"h\xe9llo");
        assert_eq!(result.sampler_data, "héllo");
        assert!(result.success);
    }
}
