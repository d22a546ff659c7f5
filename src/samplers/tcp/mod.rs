//! TCP Sampler (`TCPSampler`): writes a request on a TCP connection and reads the
//! response with one of JMeter's client classes ([`clients`]).
//!
//! Settings come from the sampler and, for those it leaves absent or empty, from the
//! TCP Sampler Config elements in scope (innermost first), as JMeter's config merge
//! does. Connections are the user's ([`connection`]): re-used from sample to sample
//! unless "Re-use connection" is off or "Close connection" is on, and dropped after a
//! failed exchange.
//!
//! Results follow JMeter: `200`/`OK` with the response as text (hex for the binary
//! clients); `500` with the exception text (`java.net.ConnectException: Connection
//! refused`, `java.net.UnknownHostException: host`, `...ReadException: ...`) on failure.
//! A connection that could not be made leaves the data type empty, as JMeter does.
//! JMeter's `tcp.status.prefix` scanning of responses is not implemented.

pub mod clients;
pub mod connection;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::expr::Template;
use crate::jmx::Element;
use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::SampleResult;
use crate::sample::Stopwatch;
use crate::samplers::new_result;

use clients::{eol_byte, Client, ClientKind};

/// Config GUI classes a TCP Sampler takes defaults from (`TCPSampler.applies`).
const APPLICABLE_CONFIG_GUIS: [&str; 3] = ["TCPConfigGui", "LoginConfigGui", "SimpleConfigGui"];

/// The settings a TCP Sampler reads, each a template (absent: `None`).
struct Settings {
    server: Option<Template>,
    port: Option<Template>,
    timeout: Option<Template>,
    connect_timeout: Option<Template>,
    request: Option<Template>,
    no_delay: Option<Template>,
    reuse: Option<Template>,
    close: Option<Template>,
    linger: Option<Template>,
    eol: Option<Template>,
    user: Option<Template>,
    password: Option<Template>,
}

/// One TCP Sampler element.
pub struct TcpSampler {
    settings: Settings,
    /// The client, or `None` for a class jmxr does not know ("Protocol handler not found").
    kind: Option<ClientKind>,
    /// The client's own end-of-line byte (from `tcp.eolByte` / `tcp.BinaryTCPClient.eomByte`).
    default_eol: Option<u8>,
    prefix_len: usize,
}

/// Builds a TCP Sampler, merging TCP Sampler Config defaults among `configs`.
pub fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Arc<dyn Sampler> {
    let applicable = applicable_configs(configs, &APPLICABLE_CONFIG_GUIS);
    let mut merged =
        |name: &str| merged_text(cx.element, &applicable, name).map(|text| cx.compile(&text));
    let settings = Settings {
        server: merged("TCPSampler.server"),
        port: merged("TCPSampler.port"),
        timeout: merged("TCPSampler.timeout"),
        connect_timeout: merged("TCPSampler.ctimeout"),
        request: merged("TCPSampler.request"),
        no_delay: merged("TCPSampler.nodelay"),
        reuse: merged("TCPSampler.reUseConnection"),
        close: merged("TCPSampler.closeConnection"),
        linger: merged("TCPSampler.soLinger"),
        eol: merged("TCPSampler.EolByte"),
        user: merged("ConfigTestElement.username"),
        password: merged("ConfigTestElement.password"),
    };
    let class = merged_text(cx.element, &applicable, "TCPSampler.classname")
        .filter(|c| !c.trim().is_empty())
        .or_else(|| cx.properties.get("tcp.handler").cloned())
        .unwrap_or_else(|| "TCPClientImpl".to_string());
    let kind = ClientKind::by_class(class.trim());
    if kind.is_none() {
        cx.error(format!(
            "TCP Sampler client class {class:?} is Java code jmxr cannot run; jmxr runs \
             TCPClientImpl, BinaryTCPClientImpl and LengthPrefixedBinaryTCPClientImpl"
        ));
    }
    let property = |name: &str, default: i64| {
        cx.properties
            .get(name)
            .and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(default)
    };
    let default_eol = match kind {
        Some(ClientKind::Text) => eol_byte(property("tcp.eolByte", 1000)),
        Some(ClientKind::Binary) => eol_byte(property("tcp.BinaryTCPClient.eomByte", 1000)),
        _ => None,
    };
    let prefix_len = property("tcp.binarylength.prefix.length", 2).clamp(1, 8) as usize;
    Arc::new(TcpSampler {
        settings,
        kind,
        default_eol,
        prefix_len,
    })
}

/// The config elements among `configs` whose GUI class (short name) is one of `guis`:
/// those a sampler takes defaults from, as its `applies` test in JMeter says.
pub(crate) fn applicable_configs<'a>(configs: &[&'a Element], guis: &[&str]) -> Vec<&'a Element> {
    configs
        .iter()
        .copied()
        .filter(|config| guis.contains(&config.gui.rsplit('.').next().unwrap_or("")))
        .collect()
}

/// A property after JMeter's config merge: the sampler's own value unless it is absent
/// or empty, then the first non-empty value among the configs (innermost first); an
/// empty value when that is all there is; `None` when no element has it.
pub(crate) fn merged_text(own: &Element, configs: &[&Element], name: &str) -> Option<String> {
    let mut found = own.str_prop(name);
    if found.is_some_and(|text| !text.is_empty()) {
        return found.map(str::to_string);
    }
    for config in configs {
        match config.str_prop(name) {
            Some(text) if !text.is_empty() => return Some(text.to_string()),
            Some(text) => found = found.or(Some(text)),
            None => {}
        }
    }
    found.map(str::to_string)
}

/// This sample's settings, evaluated (JMeter's getters: empty or bad numbers are 0).
struct Request {
    server: String,
    port: i64,
    timeout_ms: i64,
    connect_timeout_ms: i64,
    request: String,
    no_delay: bool,
    reuse: bool,
    close: bool,
    linger: Option<i64>,
    eol: Option<i64>,
    key: String,
}

impl TcpSampler {
    /// One sample; [`Sampler::sample`] boxes it for the engine.
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> Option<SampleResult> {
        let request = self.evaluate(cx);
        let mut result = new_result(cx, cx.label.clone());
        result.sampler_data = describe(&request);
        let watch = Stopwatch::start();
        let stop = cx.user.run.stop_now.clone();
        let outcome = tokio::select! {
            outcome = self.exchange(&request, cx, &watch, &mut result) => outcome,
            _ = stop.cancelled() => Err(Outcome::Failed(clients::Failure {
                message: "java.net.SocketException: Socket closed".into(),
                partial: String::new(),
            })),
        };
        watch.stop(&mut result);
        match outcome {
            Ok(response) => {
                result.response_code = "200".into();
                result.response_message = "OK".into();
                result.response_data = response.into_bytes();
                result.data_type = "text";
                result.set_success(true);
            }
            Err(Outcome::NotConnected(message)) => {
                result.response_code = "500".into();
                result.response_message = message.into();
                result.set_success(false);
            }
            Err(Outcome::Failed(failure)) => {
                result.response_code = "500".into();
                result.response_message = failure.message.into();
                result.response_data = failure.partial.into_bytes();
                result.data_type = "text";
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
impl Sampler for TcpSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        self.sample_unboxed(cx).await.map(Arc::new)
    }
}

/// Why an exchange produced no response.
enum Outcome {
    /// No connection (the data type stays empty, as in JMeter).
    NotConnected(String),
    /// The connection was made; writing or reading failed.
    Failed(clients::Failure),
}

impl TcpSampler {
    fn evaluate(&self, cx: &mut SampleContext<'_>) -> Request {
        let mut eval = cx.user.eval(&cx.label);
        let s = &self.settings;
        let mut text = |t: &Option<Template>| t.as_ref().map(|t| t.eval(&mut eval));
        let number = |t: Option<String>| t.and_then(|v| v.trim().parse::<i64>().ok()).unwrap_or(0);
        let flag = |t: Option<String>, absent: bool| {
            t.map_or(absent, |v| v.trim().eq_ignore_ascii_case("true"))
        };
        let server = text(&s.server).unwrap_or_default();
        let port = number(text(&s.port));
        let user = text(&s.user).unwrap_or_default();
        let password = text(&s.password).unwrap_or_default();
        let non_empty = |t: Option<String>| t.filter(|v| !v.is_empty());
        Request {
            key: connection::key(&server, port, &user, &password),
            server,
            port,
            timeout_ms: number(text(&s.timeout)),
            connect_timeout_ms: number(text(&s.connect_timeout)),
            request: text(&s.request).unwrap_or_default(),
            no_delay: flag(text(&s.no_delay), false),
            reuse: flag(text(&s.reuse), true),
            close: flag(text(&s.close), false),
            linger: non_empty(text(&s.linger)).map(|v| number(Some(v))),
            eol: non_empty(text(&s.eol)).map(|v| number(Some(v))),
        }
    }

    /// Connects (or re-uses), writes, reads; keeps or closes the connection.
    async fn exchange(
        &self,
        request: &Request,
        cx: &mut SampleContext<'_>,
        watch: &Stopwatch,
        result: &mut SampleResult,
    ) -> Result<String, Outcome> {
        let existing = connection::take(cx.user, &request.key).filter(|_| request.reuse);
        let stream = match existing {
            Some(stream) => Ok(stream),
            None => {
                connection::connect(
                    &request.server,
                    request.port,
                    millis(request.connect_timeout_ms),
                )
                .await
            }
        };
        result.connect_time = watch.elapsed_ms();
        let mut stream = stream.map_err(Outcome::NotConnected)?;
        let Some(kind) = self.kind else {
            return Err(Outcome::NotConnected("Protocol handler not found".into()));
        };
        let _ = stream.set_nodelay(request.no_delay);
        if let Some(seconds) = request.linger {
            let linger = u64::try_from(seconds).ok().map(Duration::from_secs);
            let _ = socket2::SockRef::from(&stream).set_linger(linger);
        }
        let client = Client {
            kind,
            // The sampler's byte replaces the client's own; the length-prefixed client
            // refuses one (JMeter logs that and goes on without).
            eol: match (kind, request.eol) {
                (ClientKind::LengthPrefixed, _) => None,
                (_, Some(value)) => eol_byte(value),
                (_, None) => self.default_eol,
            },
            prefix_len: self.prefix_len,
        };
        result.sampler_data = request.request.clone();
        client
            .write(&mut stream, &request.request)
            .await
            .map_err(Outcome::Failed)?;
        let mut latency = clients::Latency { watch, ms: None };
        let response = client
            .read(&mut stream, millis(request.timeout_ms), &mut latency)
            .await
            .map_err(Outcome::Failed)?;
        result.latency = latency.ms.unwrap_or(0);
        if request.reuse && !request.close {
            connection::put_back(cx.user, request.key.clone(), stream);
        }
        Ok(response)
    }
}

/// A timeout setting in ms; 0 (or less) means none, as for Java sockets.
fn millis(ms: i64) -> Option<Duration> {
    u64::try_from(ms)
        .ok()
        .filter(|ms| *ms > 0)
        .map(Duration::from_millis)
}

/// The sampler data JMeter shows until a request is written.
fn describe(request: &Request) -> String {
    format!(
        "Host: {} Port: {}\nReuse: {} Close: {}\n[SOLINGER: {} EOL: {} noDelay: {}]",
        request.server,
        request.port,
        request.reuse,
        request.close,
        request.linger.unwrap_or(0),
        request.eol.unwrap_or(0),
        request.no_delay
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samplers::test_support::*;

    #[test]
    fn config_fills_what_the_sampler_leaves_absent_or_empty_innermost_first() {
        let sampler = element(
            "TCPSampler",
            "TCPSamplerGui",
            "t",
            vec![
                string_prop("TCPSampler.server", ""),
                string_prop("TCPSampler.port", "7"),
            ],
        );
        let inner = element(
            "ConfigTestElement",
            "TCPConfigGui",
            "inner",
            vec![
                string_prop("TCPSampler.server", ""),
                string_prop("TCPSampler.port", "8"),
            ],
        );
        let outer = element(
            "ConfigTestElement",
            "TCPConfigGui",
            "outer",
            vec![
                string_prop("TCPSampler.server", "outer.host"),
                string_prop("TCPSampler.timeout", ""),
            ],
        );
        let configs = [&inner, &outer];
        assert_eq!(
            merged_text(&sampler, &configs, "TCPSampler.server").as_deref(),
            Some("outer.host")
        );
        assert_eq!(
            merged_text(&sampler, &configs, "TCPSampler.port").as_deref(),
            Some("7")
        );
        assert_eq!(
            merged_text(&sampler, &configs, "TCPSampler.timeout").as_deref(),
            Some("")
        );
        assert_eq!(merged_text(&sampler, &configs, "TCPSampler.EolByte"), None);
    }

    #[test]
    fn an_unknown_client_class_is_a_plan_error() {
        let sampler = element(
            "TCPSampler",
            "TCPSamplerGui",
            "t",
            vec![string_prop("TCPSampler.classname", "org.foo.xxx")],
        );
        let (_, diagnostics) = build_element(&sampler, &[]);
        assert_eq!(diagnostics.len(), 1);
        assert!(diagnostics[0].message.contains("org.foo.xxx"));
    }

    #[test]
    fn sampler_data_describes_the_connection_until_a_request_is_written() {
        let request = Request {
            server: "h".into(),
            port: 1,
            timeout_ms: 0,
            connect_timeout_ms: 0,
            request: String::new(),
            no_delay: false,
            reuse: true,
            close: false,
            linger: None,
            eol: Some(10),
            key: String::new(),
        };
        assert_eq!(
            describe(&request),
            "Host: h Port: 1\nReuse: true Close: false\n[SOLINGER: 0 EOL: 10 noDelay: false]"
        );
    }
}
