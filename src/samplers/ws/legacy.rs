//! The older WebSocket sampler of Maciej Zaleski's plugin
//! (`JMeter.plugins.functional.samplers.websocket.WebSocketSampler`, the version with a
//! message backlog): it sends a text message and waits for text messages until one
//! matches the response pattern (an empty pattern matches any), one matches the close
//! pattern (the connection is then closed), the server closes, or the response timeout
//! passes. The response is the last `messageBacklog` messages of the connection, each
//! as `[Message n]\n<text>\n\n`; the response message is the plugin's execution log.
//!
//! A "streaming" connection is kept per user and connection id and re-used; otherwise
//! each sample opens a connection and closes it when done. Pings are answered, as the
//! plugin's Jetty client answers them.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use fancy_regex::Regex;

use super::connection::{Connection, Target, WsError};
use super::frame::Kind;
use crate::expr::Template;
use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::SampleResult;
use crate::sample::Stopwatch;
use crate::samplers::new_result;

pub const CLASS: &str = "JMeter.plugins.functional.samplers.websocket.WebSocketSampler";

/// The user slot holding the streaming connections by id.
const LEGACY_SLOT: usize = usize::MAX - 0x5754;

pub struct LegacySampler {
    server: Template,
    port: Setting,
    protocol: Setting,
    path: Template,
    query: Vec<(String, Template)>,
    payload: Template,
    connect_timeout: Setting,
    response_timeout: Setting,
    streaming: Setting,
    connection_id: Template,
    response_pattern: Template,
    close_pattern: Template,
    backlog: Setting,
}

pub fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    let query = cx
        .element
        .prop("queryStringParameters")
        .map(crate::plan::context::argument_rows)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, value)| (name, cx.compile(&value)))
        .collect();
    Arc::new(LegacySampler {
        server: cx.template("serverAddress"),
        port: cx.setting("serverPort", "0"),
        protocol: cx.setting("protocol", "ws"),
        path: cx.template("contextPath"),
        query,
        payload: cx.template("requestPayload"),
        connect_timeout: cx.setting("connectionTimeout", "5000"),
        response_timeout: cx.setting("responseTimeout", "20000"),
        streaming: cx.setting("streamingConnection", "false"),
        connection_id: cx.template("connectionId"),
        response_pattern: cx.template("responsePattern"),
        close_pattern: cx.template("closeConncectionPattern"),
        backlog: cx.setting("messageBacklog", "3"),
    })
}

/// A connection and what the plugin keeps with it.
struct Socket {
    connection: Connection,
    backlog: VecDeque<String>,
    /// Messages received on this connection so far.
    received: usize,
    open: bool,
}

/// This sample's settings, evaluated.
struct Request {
    target: Target,
    payload: String,
    connect_timeout: u64,
    response_timeout: u64,
    streaming: bool,
    key: String,
    response: Option<Regex>,
    response_text: String,
    close: Option<Regex>,
    close_text: String,
    backlog: usize,
}

#[async_trait]
impl Sampler for LegacySampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(Arc::new(self.sample_unboxed(cx).await))
    }
}

impl LegacySampler {
    fn evaluate(&self, cx: &mut SampleContext<'_>) -> Result<Request, String> {
        let label = cx.label.clone();
        let mut ev = cx.user.eval(&label);
        let number = |text: String, default: u64| text.trim().parse::<u64>().unwrap_or(default);
        let path = self.path.eval(&mut ev);
        let protocol = self.protocol.text(&mut ev);
        let target = if let Some(rest) = path
            .strip_prefix("ws://")
            .map(|r| (false, r))
            .or_else(|| path.strip_prefix("wss://").map(|r| (true, r)))
        {
            let (tls, rest) = rest;
            let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let (host, port) = match authority.rsplit_once(':') {
                Some((host, port)) => (host, port.parse().map_err(|_| authority.to_string())?),
                None => (authority, if tls { 443 } else { 80 }),
            };
            Target {
                tls,
                host: host.to_string(),
                port,
                path: if path.is_empty() {
                    "/".into()
                } else {
                    path.to_string()
                },
            }
        } else {
            let tls = protocol.eq_ignore_ascii_case("wss");
            let port = match self.port.text(&mut ev).trim().parse::<u16>() {
                Ok(port) if port != 0 => port,
                _ if tls => 443,
                _ => 80,
            };
            let mut full = if path.starts_with('/') {
                path
            } else {
                format!("/{path}")
            };
            let query: Vec<String> = self
                .query
                .iter()
                .map(|(name, value)| {
                    let value = value.eval(&mut ev);
                    let encode =
                        |t: &str| form_urlencoded::byte_serialize(t.as_bytes()).collect::<String>();
                    format!("{}={}", encode(name), encode(&value))
                })
                .collect();
            if !query.is_empty() {
                full.push('?');
                full.push_str(&query.join("&"));
            }
            Target {
                tls,
                host: self.server.eval(&mut ev),
                port,
                path: full,
            }
        };
        let response_text = self.response_pattern.eval(&mut ev);
        let close_text = self.close_pattern.eval(&mut ev);
        Ok(Request {
            target,
            payload: self.payload.eval(&mut ev),
            connect_timeout: number(self.connect_timeout.text(&mut ev), 20_000),
            response_timeout: number(self.response_timeout.text(&mut ev), 20_000),
            streaming: self.streaming.bool(&mut ev),
            key: self.connection_id.eval(&mut ev),
            response: Regex::new(&response_text).ok(),
            close: Regex::new(&close_text).ok(),
            response_text,
            close_text,
            backlog: self.backlog.text(&mut ev).trim().parse().unwrap_or(3),
        })
    }

    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let mut result = new_result(cx, cx.label.clone());
        result.set_success(false);
        let watch = Stopwatch::start();
        let request = match self.evaluate(cx) {
            Ok(request) => request,
            Err(authority) => {
                watch.stop(&mut result);
                result.response_message =
                    format!("\n\n[Problems]\n - Invalid URI syntax: {authority}\n").into();
                return result;
            }
        };
        result.sampler_data = request.payload.clone();
        result.data_encoding = "UTF-8".into();
        let mut log = String::from("\n\n[Execution Flow]\n");
        let kept = if request.streaming {
            cx.user
                .slot(LEGACY_SLOT, HashMap::<String, Socket>::new)
                .remove(&request.key)
        } else {
            None
        };
        let mut problems = String::new();
        let mut socket = match kept {
            Some(socket) => {
                log.push_str(" - Reusing exising connection\n");
                Some(socket)
            }
            None => open_socket(&request, &mut log, &mut problems).await,
        };
        let mut error_code = 0;
        if let Some(socket) = socket.as_mut() {
            match self.exchange(socket, &request, &mut log).await {
                Ok(code) => error_code = code,
                Err(error) => {
                    problems.push_str(&format!(" - IO Exception: {}\n", describe(&error)))
                }
            }
        }
        watch.stop(&mut result);
        if let Some(socket) = socket {
            if problems.is_empty() {
                if error_code != 0 {
                    result.response_code = error_code.to_string().into();
                } else {
                    result.response_code = "200".into();
                    result.set_success(true);
                }
                let data: String = socket.backlog.iter().map(String::as_str).collect();
                result.response_data = data.into_bytes();
                result.data_type = "text";
            }
            log.push_str(&format!(
                "\n\n[Variables]\n - Message count: {}\n",
                socket.received
            ));
            if request.streaming && socket.open {
                cx.user
                    .slot(LEGACY_SLOT, HashMap::<String, Socket>::new)
                    .insert(request.key.clone(), socket);
            }
        } else {
            log.push_str("\n\n[Variables]\n - Message count: 0\n");
        }
        result.response_message = format!("{log}\n\n[Problems]\n{problems}").into();
        result
    }

    /// Sends the payload and waits for messages; returns the close status when the
    /// server closed with another status than 1000, else 0.
    async fn exchange(
        &self,
        socket: &mut Socket,
        request: &Request,
        log: &mut String,
    ) -> Result<u16, WsError> {
        if !request.payload.is_empty() {
            socket
                .connection
                .send(Kind::Text, request.payload.clone().into_bytes())
                .await?;
        }
        log.push_str(&format!(
            " - Waiting for messages for {} MILLISECONDS\n",
            request.response_timeout
        ));
        let deadline = Instant::now() + Duration::from_millis(request.response_timeout);
        let mut code = 0;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            let frame = match socket.connection.read_frame(Some(left)).await {
                Ok(frame) => frame,
                Err(WsError::Timeout) => break,
                Err(error) => return Err(error),
            };
            match frame.kind {
                Kind::Ping => {
                    let _ = socket.connection.send(Kind::Pong, frame.payload).await;
                }
                Kind::Close => {
                    let (status, reason) = frame.close_status();
                    let status = status.unwrap_or(1005);
                    if status != 1000 {
                        log.push_str(&format!(
                            " - WebSocket conection closed unexpectedly by the server: [{status}] {}\n",
                            reason.unwrap_or_default()
                        ));
                        code = u16::try_from(status).unwrap_or(0);
                    } else {
                        log.push_str(
                            " - WebSocket conection has been successfully closed by the server\n",
                        );
                    }
                    // A close without a status is answered with a normal close.
                    let reply = if status == 1005 { 1000 } else { status };
                    let _ = socket.connection.send_close(reply, "").await;
                    socket.open = false;
                    return Ok(code);
                }
                Kind::Text => {
                    let text = frame.text();
                    socket.received += 1;
                    log.push_str(&format!(
                        " - Received message #{} ({} bytes)",
                        socket.received,
                        text.encode_utf16().count()
                    ));
                    while socket.backlog.len() >= request.backlog.max(1) {
                        socket.backlog.pop_front();
                    }
                    socket
                        .backlog
                        .push_back(format!("[Message {}]\n{text}\n\n", socket.received));
                    let found = |r: &Option<Regex>| {
                        r.as_ref()
                            .is_some_and(|r| r.is_match(&text).unwrap_or(false))
                    };
                    if found(&request.response) {
                        log.push_str("; matched response pattern\n");
                        break;
                    } else if !request.close_text.is_empty() && found(&request.close) {
                        log.push_str("; matched connection close pattern\n");
                        close(socket, log).await;
                        return Ok(code);
                    } else {
                        log.push_str("; didn't match any pattern\n");
                    }
                }
                _ => {}
            }
        }
        if request.streaming {
            log.push_str(" - Leaving streaming connection open\n");
        } else {
            close(socket, log).await;
        }
        Ok(code)
    }
}

/// Opens a new connection as the plugin's sampler logs it.
async fn open_socket(request: &Request, log: &mut String, problems: &mut String) -> Option<Socket> {
    log.push_str(" - Opening new connection\n");
    log.push_str(&format!(
        " - Using response message pattern \"{}\"\n - Using disconnect pattern \"{}\"\n",
        request.response_text, request.close_text
    ));
    log.push_str(&format!(
        " - Waiting for the server connection for {} MILLISECONDS\n",
        request.connect_timeout
    ));
    let limit = Duration::from_millis(request.connect_timeout.max(1));
    match Connection::open(request.target.clone(), &[], limit, Some(limit), false).await {
        Ok((connection, _)) => {
            log.push_str(" - WebSocket conection has been opened\n - Connection established\n");
            Some(Socket {
                connection,
                backlog: VecDeque::new(),
                received: 0,
                open: true,
            })
        }
        Err(error) => {
            log.push_str(" - Cannot connect to the remote server\n");
            problems.push_str(&format!(" - IO Exception: {}\n", describe(&error)));
            None
        }
    }
}

/// The plugin closes with 1000 "JMeter closed session." and stops its client.
async fn close(socket: &mut Socket, log: &mut String) {
    let _ = socket
        .connection
        .send_close(1000, "JMeter closed session.")
        .await;
    socket.open = false;
    log.push_str(
        " - WebSocket session closed by the client\n - WebSocket client closed by the client\n",
    );
}

fn describe(error: &WsError) -> String {
    match error {
        WsError::Io(message) | WsError::Other(message) => message.clone(),
        WsError::Timeout => "Read timed out".into(),
        WsError::Upgrade(_, message) => message.clone(),
    }
}
