//! Sending the request payload and turning what happened into the sample's result, in
//! the plugin's words: `101`/`Switching Protocols` on a new connection, `200`/`OK` on a
//! re-used one, and its codes and messages for each way a sample fails.

use std::io::ErrorKind;

use super::connection::{Connection, WsError};
use super::frame::{Frame, Kind};
use super::payload::{format_binary, object_bytes, parse_binary, stomp};
use super::settings::{Operation, PayloadType, Request};
use super::{Exchanged, Failure, WebSocketSampler, LAST_FRAME_FINAL};
use crate::foundation::clock::wall_clock_ms;
use crate::plan::SampleContext;
use crate::sample::SampleResult;
use crate::sample::Stopwatch;
use crate::samplers::http::VERIFY_PROPERTY;

/// A result that failed before its timing started (invalid settings, no connection).
pub fn unstarted(mut result: SampleResult, code: &str, message: String) -> SampleResult {
    result.start_time = wall_clock_ms();
    result.end_time = result.start_time;
    result.response_code = code.to_string().into();
    result.response_message = message.into();
    result.set_success(false);
    result
}

/// A sampler that re-uses the connection found none.
pub fn no_connection(mut result: SampleResult, operation: Operation) -> SampleResult {
    match operation {
        Operation::Close => {
            result.sampler_data = "No request sent.".into();
            unstarted(result, "", "No connection; nothing to close.".into())
        }
        Operation::PingPong => unstarted(
            result,
            "Sampler error",
            "Sampler must use existing connection, but there is no connection".into(),
        ),
        _ => unstarted(
            result,
            "Sampler error",
            "Sampler configured for using existing connection, but there is no connection".into(),
        ),
    }
}

/// Whether the run asked for certificate checking (`jmxr.https.verify_certificates`).
pub fn verify_certificates(cx: &SampleContext<'_>) -> bool {
    cx.user.run.props.get_bool(VERIFY_PROPERTY, false)
}

/// A frame payload and how the sampler data shows it.
struct Payload {
    kind: Kind,
    bytes: Vec<u8>,
    shown: String,
}

impl WebSocketSampler {
    /// Sends the request data as a text or binary frame.
    pub(super) async fn send_payload(
        &self,
        cx: &mut SampleContext<'_>,
        request: &Request,
        connection: &mut Connection,
        watch: &Stopwatch,
        result: &mut SampleResult,
    ) -> Result<(), Failure> {
        let payload = match self.payload(cx, request) {
            Ok(payload) => payload,
            Err(message) => {
                watch.stop(result);
                result.response_code = "Sampler Error".into();
                result.response_message = message.into();
                return Err(Failure::Aborted);
            }
        };
        result.sampler_data.push_str("\nRequest data:\n");
        result.sampler_data.push_str(&payload.shown);
        result.sampler_data.push('\n');
        let sent = connection.send(payload.kind, payload.bytes).await?;
        result.sent_bytes = sent.size as i64;
        Ok(())
    }

    /// The payload from the data file, the object variable or the request data.
    fn payload(&self, cx: &mut SampleContext<'_>, request: &Request) -> Result<Payload, String> {
        let binary = self.settings.payload_type == PayloadType::Binary;
        if let Some(path) = &request.data_file {
            let bytes = read_data_file(path, &self.plan_dir)?;
            return Ok(if binary {
                let shown = format_binary(&bytes, 100, "...");
                Payload {
                    kind: Kind::Binary,
                    bytes,
                    shown,
                }
            } else {
                self.text_payload(String::from_utf8_lossy(&bytes).into_owned())
            });
        }
        if binary {
            if let Some(bytes) = self
                .payload_variable
                .as_deref()
                .and_then(|name| object_bytes(&cx.user.vars, name))
            {
                let shown = format_binary(&bytes, 100, "...");
                return Ok(Payload {
                    kind: Kind::Binary,
                    bytes,
                    shown,
                });
            }
        }
        let label = cx.label.clone();
        let text = self.settings.request.eval(&mut cx.user.eval(&label));
        if !binary {
            return Ok(self.text_payload(text));
        }
        match parse_binary(&text) {
            Ok(bytes) => Ok(Payload {
                kind: Kind::Binary,
                bytes,
                shown: text,
            }),
            Err(_) => Err(format!("Request data is not binary: {text}")),
        }
    }

    fn text_payload(&self, text: String) -> Payload {
        let text = if self.settings.payload_type == PayloadType::TextStomp {
            stomp(&text)
        } else {
            text
        };
        Payload {
            kind: Kind::Text,
            bytes: text.clone().into_bytes(),
            shown: text,
        }
    }

    /// Fills the result from the outcome of the exchange.
    pub(super) fn finish(
        &self,
        cx: &mut SampleContext<'_>,
        outcome: Result<Exchanged, Failure>,
        watch: &Stopwatch,
        result: &mut SampleResult,
    ) {
        let exchanged = match outcome {
            Ok(exchanged) => exchanged,
            Err(failure) => return self.failed(failure, watch, result),
        };
        watch.stop(result);
        if let Some(frame) = &exchanged.frame {
            result.headers_size += frame.header_size() as i64;
            let body = result.body_size.unwrap_or(0) + frame.payload_size() as i64;
            result.body_size = (body > 0).then_some(body);
        }
        match exchanged.upgrade_response {
            Some(headers) => {
                result.response_code = "101".into();
                result.response_message = "Switching Protocols".into();
                result.response_headers = headers;
            }
            None => {
                result.response_code = "200".into();
                result.response_message = "OK".into();
            }
        }
        result.set_success(true);
        let frame = exchanged.frame;
        match (self.settings.operation, frame) {
            (Operation::RequestResponse, Some(frame)) => {
                let binary = self.settings.payload_type == PayloadType::Binary;
                read_response(cx, &frame, binary, result);
            }
            (Operation::SingleRead, Some(frame)) => {
                let binary = frame.is_binary();
                read_response(cx, &frame, binary, result);
            }
            (Operation::SingleRead, None) => {
                result.response_code = "No response".into();
                result.response_message = "Read timeout, no response received.".into();
            }
            (Operation::Close, Some(frame)) => close_response(&frame, result),
            _ => {}
        }
    }

    fn failed(&self, failure: Failure, watch: &Stopwatch, result: &mut SampleResult) {
        result.set_success(false);
        let (code, message) = match failure {
            Failure::Aborted => return,
            Failure::Unexpected(frame) if self.settings.operation == Operation::Close => {
                // The plugin's close sampler does not end the timing here: the sample
                // keeps its start and an elapsed time of 0.
                result.start_time = watch.start_ms();
                result.end_time = result.start_time;
                result.elapsed = 0;
                (
                    "WebSocket error: unsuccesful close.".to_string(),
                    format!(
                        "WebSocket error: received not a close frame, but {}",
                        frame.describe()
                    ),
                )
            }
            Failure::Unexpected(frame) => {
                watch.stop(result);
                (
                    format!(
                        "Sampler error: unexpected frame type ({}).",
                        frame.type_name()
                    ),
                    format!("Received: {}", frame.describe()),
                )
            }
            Failure::Ws(error) => {
                watch.stop(result);
                match error {
                    WsError::Upgrade(status, message) => {
                        (status.map(|s| s.to_string()).unwrap_or_default(), message)
                    }
                    WsError::Io(message) => (
                        "Websocket I/O error".into(),
                        format!("WebSocket I/O error: {message}"),
                    ),
                    WsError::Timeout => (
                        "Websocket I/O error".into(),
                        "WebSocket I/O error: Read timed out".into(),
                    ),
                    WsError::Other(message) => {
                        ("Sampler error".into(), format!("Sampler error: {message}"))
                    }
                }
            }
        };
        result.response_code = code.into();
        result.response_message = message.into();
    }
}

/// The data frame read becomes the response (the plugin's `processDefaultReadResponse`).
fn read_response(
    cx: &mut SampleContext<'_>,
    frame: &Frame,
    binary: bool,
    result: &mut SampleResult,
) {
    if binary {
        result.response_data = frame.payload.clone();
        result.data_type = "bin";
    } else {
        result.response_data = frame.text().into_bytes();
        result.data_type = "text";
        result.data_encoding = "UTF-8".into();
    }
    let fin = if frame.fin { "true" } else { "false" };
    cx.user.vars.put_str(LAST_FRAME_FINAL, fin);
}

/// The server's close frame becomes the response: its status is the response code.
fn close_response(frame: &Frame, result: &mut SampleResult) {
    let (status, reason) = frame.close_status();
    result.response_message = match &reason {
        Some(reason) => format!("Connection closed; close reason: '{reason}'."),
        None => "Connection closed.".to_string(),
    }
    .into();
    result.response_code = status.map(|s| s.to_string()).unwrap_or_default().into();
    let mut data = status.map(|s| s.to_string()).unwrap_or_default();
    if let Some(reason) = reason {
        data.push_str(": ");
        data.push_str(&reason);
    }
    result.response_data = data.into_bytes();
    result.data_type = "text";
    result.data_encoding = "UTF-8".into();
}

/// The request data file, looked for in the working folder, then beside the plan.
fn read_data_file(path: &str, plan_dir: &std::path::Path) -> Result<Vec<u8>, String> {
    let resolved = crate::foundation::paths::resolve_input(path, plan_dir);
    std::fs::read(&resolved).map_err(|error| {
        let why = match error.kind() {
            ErrorKind::PermissionDenied => "not readable",
            _ => "not found",
        };
        format!("Request data cannot be loaded, file '{path}' {why}")
    })
}

#[cfg(test)]
mod tests {
    use super::super::CLOSE_REASON;
    use super::*;

    #[test]
    fn missing_data_files_are_reported_as_the_plugin_reports_them() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            read_data_file("absent.bin", dir.path()),
            Err("Request data cannot be loaded, file 'absent.bin' not found".into())
        );
        std::fs::write(dir.path().join("present.bin"), [1, 2]).unwrap();
        assert_eq!(read_data_file("present.bin", dir.path()), Ok(vec![1, 2]));
    }

    #[test]
    fn the_close_reason_becomes_the_response() {
        let frame = Frame {
            kind: Kind::Close,
            fin: true,
            continuation: false,
            payload: super::super::frame::close_payload(1000, CLOSE_REASON),
            size: 27,
        };
        let mut result = SampleResult::new(std::sync::Arc::from("close"));
        close_response(&frame, &mut result);
        assert_eq!(result.response_code, "1000");
        assert_eq!(
            result.response_message,
            "Connection closed; close reason: 'sampler requested close'."
        );
        assert_eq!(result.response_data, b"1000: sampler requested close");
    }
}
