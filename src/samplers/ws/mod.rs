//! The Luminis WebSocket samplers (`eu.luminis.jmeter.wssampler.*`): open connection,
//! request-response, single write, single read, ping/pong and close, with the frame
//! filters in their scope and the Header and Cookie Manager on the upgrade request.
//!
//! How the parts connect:
//! * [`settings`] reads an element at plan time and evaluates it per sample, with the
//!   plugin's validation messages; [`payload`] turns request data into frame payloads.
//! * [`user`] keeps the one connection a virtual user has, shared by all its WebSocket
//!   samplers, and closes or keeps it when the user ends.
//! * [`connection`] is the client: the upgrade, then frames read one at a time
//!   ([`frame`]) only when a sampler asks; [`filters`] skip frames while reading.
//! * This module runs one sample as the plugin's `WebsocketSampler.sample` does: the
//!   result codes and messages, the timing (connect time covers the upgrade), the sizes
//!   (upgrade response headers plus the frame read; sent bytes are the frame sent).
//!
//! [`legacy`] is the older WebSocket sampler of Maciej Zaleski's plugin, on the same
//! connection code.

mod connection;
mod filters;
mod frame;
mod legacy;
mod outcome;
mod payload;
mod settings;
mod user;

use std::sync::Arc;

use async_trait::async_trait;

use crate::expr::Template;
use crate::jmx::Element;
use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::SampleResult;
use crate::sample::Stopwatch;
use crate::samplers::http::{self, CookieManagerSpec};
use crate::samplers::new_result;

use connection::{Connection, WsError};
use filters::{FrameFilter, ReadyFilter, Recording};
use frame::{Frame, Kind};
use outcome::{no_connection, unstarted, verify_certificates};
use settings::{DataType, Operation, PayloadType, Request, Settings};
use user::Client;

/// The variable set after every frame a sampler reads: whether it ended its message.
const LAST_FRAME_FINAL: &str = "websocket.last_frame_final";

/// The reason the close sampler gives.
const CLOSE_REASON: &str = "sampler requested close";

/// One Luminis WebSocket sampler element.
pub struct WebSocketSampler {
    settings: Settings,
    /// The request data is one variable (`${payload}`) that may hold bytes.
    payload_variable: Option<String>,
    filters: Vec<FrameFilter>,
    headers: Vec<(String, Template)>,
    /// Whether a Header Manager is in scope (the upgrade headers are then recorded).
    header_manager: bool,
    cookie_manager: Option<CookieManagerSpec>,
    /// The plan's folder, where a relative data file is looked for after the working one.
    plan_dir: std::path::PathBuf,
}

/// Builds the sampler for a Luminis class; `None` for other classes.
pub fn build(
    class: &str,
    cx: &mut BuildContext<'_>,
    configs: &[&Element],
) -> Option<Arc<dyn Sampler>> {
    if class == legacy::CLASS {
        return Some(legacy::build(cx));
    }
    let operation = Operation::by_class(class)?;
    let settings = Settings::read(cx, operation);
    let payload_variable = cx
        .raw("requestData")
        .and_then(payload::single_variable)
        .map(str::to_string);
    let filters = filters::from_configs(cx, configs);
    let headers = http::merge_headers(cx, configs);
    if headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("Sec-WebSocket-Extensions")
            && value.raw().contains("permessage-deflate")
    }) {
        cx.warn(
            "the Header Manager asks for permessage-deflate: jmxr does not inflate \
             compressed frames, so a server that compresses sends responses jmxr shows \
             compressed; remove the header to have them uncompressed",
        );
    }
    let header_manager = configs.iter().any(|c| c.gui.ends_with("HeaderPanel"));
    let cookie_manager = http::cookie_manager(cx, configs);
    Some(Arc::new(WebSocketSampler {
        settings,
        payload_variable,
        filters,
        headers,
        header_manager,
        cookie_manager,
        plan_dir: cx.plan_dir(),
    }))
}

/// What a sample exchanged: the upgrade response headers when it connected, and the
/// frame it read.
struct Exchanged {
    upgrade_response: Option<String>,
    frame: Option<Frame>,
}

/// Why a sample did not end well.
enum Failure {
    Ws(WsError),
    /// A frame of another type than the sampler reads.
    Unexpected(Frame),
    /// The result already says what went wrong (bad binary data, missing file).
    Aborted,
}

impl From<WsError> for Failure {
    fn from(error: WsError) -> Failure {
        Failure::Ws(error)
    }
}

#[async_trait]
impl Sampler for WebSocketSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(Arc::new(self.sample_unboxed(cx).await))
    }
}

impl WebSocketSampler {
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let mut result = new_result(cx, cx.label.clone());
        result.set_success(false);
        let label = cx.label.clone();
        let request = match self.settings.evaluate(&mut cx.user.eval(&label)) {
            Ok(request) => request,
            Err(message) => {
                return unstarted(result, "Sampler error", format!("Sampler error: {message}"))
            }
        };
        let operation = self.settings.operation;
        let existing = user::take(cx.user);
        let mut client = if request.create_new {
            // The previous connection is closed at TCP level, without a close frame.
            drop(existing);
            Client::new(request.target.clone())
        } else if let Some(client) = existing {
            client
        } else {
            return no_connection(result, operation);
        };
        let new_connection = !client.is_connected();
        let mut upgrade_headers = Vec::new();
        if new_connection {
            upgrade_headers = self.upgrade_headers(cx, &client.target);
            if self.header_manager || self.cookie_manager.is_some() {
                result.request_headers = upgrade_headers
                    .iter()
                    .map(|(n, v)| format!("{n}: {v}"))
                    .collect::<Vec<_>>()
                    .join("\n");
            }
        }
        let watch = Stopwatch::start();
        let stop = cx.user.run.stop_now.clone();
        let outcome = tokio::select! {
            outcome = self.exchange(cx, &request, &mut client, &upgrade_headers, &watch, &mut result) => outcome,
            _ = stop.cancelled() => Err(Failure::Ws(WsError::Io("Socket closed".into()))),
        };
        let got_new = new_connection && client.connection.is_some();
        self.finish(cx, outcome, &watch, &mut result);
        if got_new || client.is_connected() {
            user::put_back(cx.user, Some(client));
        }
        result
    }

    /// The headers of the upgrade request: the Header Managers' (merged, evaluated),
    /// then the cookies the Cookie Manager holds for the connect URL.
    fn upgrade_headers(
        &self,
        cx: &mut SampleContext<'_>,
        target: &connection::Target,
    ) -> Vec<(String, String)> {
        let label = cx.label.clone();
        let mut headers: Vec<(String, String)> = {
            let mut ev = cx.user.eval(&label);
            self.headers
                .iter()
                .map(|(name, value)| (name.clone(), value.eval(&mut ev)))
                .collect()
        };
        if let Some(cookie) = http::upgrade_cookie_header(
            cx,
            self.cookie_manager.as_ref(),
            target.tls,
            &target.host,
            target.port,
            &target.path,
        ) {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case("Cookie"));
            headers.push(("Cookie".into(), cookie));
        }
        headers
    }

    /// Connects when needed and runs the sampler's exchange; says whether a new
    /// connection was made and returns the frame read, if any.
    async fn exchange(
        &self,
        cx: &mut SampleContext<'_>,
        request: &Request,
        client: &mut Client,
        headers: &[(String, String)],
        watch: &Stopwatch,
        result: &mut SampleResult,
    ) -> Result<Exchanged, Failure> {
        let url = client.target.connect_url();
        let mut upgrade_response = None;
        if !client.is_connected() {
            let state = client.state();
            if state != connection::State::Closed {
                return Err(Failure::Ws(WsError::illegal_state("connect", state)));
            }
            result.sampler_data = format!("Connect URL:\n{url}\n");
            let verify = verify_certificates(cx);
            let (connection, upgraded) = Connection::open(
                client.target.clone(),
                headers,
                std::time::Duration::from_millis(request.connect_timeout_ms.max(1) as u64),
                filters::read_limit(request.read_timeout_ms),
                verify,
            )
            .await?;
            client.connection = Some(connection);
            result.connect_time = watch.elapsed_ms();
            result.headers_size = upgraded.response_size as i64;
            result.sent_bytes = upgraded.request_size as i64;
            upgrade_response = Some(
                upgraded
                    .headers
                    .iter()
                    .map(|(n, v)| format!("{n}: {v}"))
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        } else {
            result.sampler_data = format!("Connect URL:\n{url}\n(using existing connection)\n");
        }
        let Some(connection) = client.connection.as_mut() else {
            return Ok(Exchanged {
                upgrade_response,
                frame: None,
            });
        };
        let frame = self.operate(cx, request, connection, watch, result).await?;
        Ok(Exchanged {
            upgrade_response,
            frame,
        })
    }

    /// What each sampler does on the connection.
    async fn operate(
        &self,
        cx: &mut SampleContext<'_>,
        request: &Request,
        connection: &mut Connection,
        watch: &Stopwatch,
        result: &mut SampleResult,
    ) -> Result<Option<Frame>, Failure> {
        let timeout = request.read_timeout_ms;
        match self.settings.operation {
            Operation::Open => Ok(None),
            Operation::SingleWrite => {
                self.send_payload(cx, request, connection, watch, result)
                    .await?;
                Ok(None)
            }
            Operation::RequestResponse => {
                self.send_payload(cx, request, connection, watch, result)
                    .await?;
                let frame = self.read(cx, connection, timeout, result).await?;
                let binary = self.settings.payload_type == PayloadType::Binary;
                expect(frame, |f| if binary { f.is_binary() } else { f.is_text() })
            }
            Operation::SingleRead => {
                let frame = match self.read(cx, connection, timeout, result).await {
                    Err(Failure::Ws(WsError::Timeout)) if request.optional => return Ok(None),
                    other => other?,
                };
                expect(frame, |f| match self.settings.data_type {
                    DataType::Text => f.is_text(),
                    DataType::Binary => f.is_binary(),
                    DataType::Any => f.is_data(),
                })
            }
            Operation::PingPong => {
                let kind = if self.settings.pong_only {
                    Kind::Pong
                } else {
                    Kind::Ping
                };
                let sent = connection.send(kind, Vec::new()).await?;
                result.sent_bytes = sent.size as i64;
                if self.settings.pong_only {
                    return Ok(None);
                }
                let frame = self.read(cx, connection, timeout, result).await?;
                expect(frame, |f| f.kind == Kind::Pong)
            }
            Operation::Close => {
                let status = settings::java_int(request.status_code.trim()).ok_or_else(|| {
                    Failure::Ws(WsError::Other(format!(
                        "java.lang.NumberFormatException: For input string: \"{}\"",
                        request.status_code
                    )))
                })?;
                result.sampler_data = format!(
                    "Requested connection close with status {status} and reason '{CLOSE_REASON}'."
                );
                let sent = connection.send_close(status as i32, CLOSE_REASON).await?;
                result.sent_bytes = sent.size as i64;
                let frame = self.read(cx, connection, timeout, result).await?;
                expect(frame, |f| f.kind == Kind::Close)
            }
        }
    }

    /// Reads a frame through the filters in scope.
    async fn read(
        &self,
        cx: &mut SampleContext<'_>,
        connection: &mut Connection,
        timeout_ms: i64,
        result: &mut SampleResult,
    ) -> Result<Frame, Failure> {
        let label = cx.label.clone();
        let ready: Vec<ReadyFilter> = {
            let mut ev = cx.user.eval(&label);
            self.filters
                .iter()
                .map(|f| f.ready(&mut ev))
                .collect::<Result<_, _>>()?
        };
        let props = &cx.user.run.props;
        let recording = Recording {
            size_includes_filtered: props.get_bool(filters::SIZE_INCLUDES_FILTERED, false),
            rename: !props.get_bool("subresults.disable_renaming", false),
        };
        Ok(filters::receive(&ready, connection, timeout_ms, result, &recording).await?)
    }
}

/// The frame read, when it is of the type the sampler reads; else an unexpected frame.
fn expect(frame: Frame, wanted: impl Fn(&Frame) -> bool) -> Result<Option<Frame>, Failure> {
    if wanted(&frame) {
        Ok(Some(frame))
    } else {
        Err(Failure::Unexpected(frame))
    }
}

#[cfg(test)]
mod tests {
    use crate::jmx::{PropValue, Property, Span};
    use crate::samplers::test_support::*;

    /// A Header Manager with one header.
    fn header_manager(name: &str, value: &str) -> crate::jmx::Element {
        let header = Property {
            name: String::new(),
            value: PropValue::Element {
                element_type: "Header".into(),
                class: String::new(),
                gui: String::new(),
                name: String::new(),
                enabled: true,
                props: vec![
                    string_prop("Header.name", name),
                    string_prop("Header.value", value),
                ],
            },
            span: Span::default(),
        };
        let headers = Property {
            name: "HeaderManager.headers".into(),
            value: PropValue::Collection(vec![header]),
            span: Span::default(),
        };
        element("HeaderManager", "HeaderPanel", "headers", vec![headers])
    }

    #[test]
    fn check_warns_when_the_upgrade_asks_for_compressed_frames() {
        let sampler = element(
            "eu.luminis.jmeter.wssampler.OpenWebSocketSampler",
            "eu.luminis.jmeter.wssampler.OpenWebSocketSamplerGui",
            "open",
            vec![string_prop("server", "127.0.0.1")],
        );
        let deflate = header_manager("Sec-WebSocket-Extensions", "permessage-deflate");
        let (built, diagnostics) = build_element(&sampler, &[&deflate]);
        assert!(built.is_some());
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert!(diagnostics[0].message.contains("permessage-deflate"));
        let webkit = header_manager("Sec-WebSocket-Extensions", "x-webkit-deflate-frame");
        let (_, diagnostics) = build_element(&sampler, &[&webkit]);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
    }
}
