//! GRPC Request (`vn.zalopay.benchmark.testbean.GrpcRequest`, the TestBean sampler of
//! zalopay-oss/jmeter-grpc-request before it became `GRPCSampler`): one unary gRPC call
//! per sample, the request given as JSON, the answer shown as JSON.
//!
//! - [`schema`] finds the method (`package.Service/Method`) in the `.proto` files below
//!   the "proto folder", with the "lib folder" entries as import roots, compiled in the
//!   process once (no `protoc`). When those settings hold no `${…}`, this happens while
//!   the plan is built, so `jmxr check` names a missing folder, a bad file or an unknown
//!   service or method.
//! - [`call`] is the channel: an HTTP/2 connection, plain or TLS, that each user opens
//!   on its first call of the element and keeps (the plugin's sampler, cloned per
//!   thread, keeps a channel each), reconnecting after a broken connection as grpc-java
//!   does.
//! - [`json`] prints messages as protobuf-java's `JsonFormat.printer()` does.
//!
//! As in the plugin, the request is built before the clock starts (its JSON text is the
//! sample's request data) and the call is timed, the connection included on a user's
//! first call. Success is `200` / `Success` with the answer as JSON; a failed call is
//! `500` / `Exception: io.grpc.StatusRuntimeException: CODE: description` with the text
//! `Caught exception while waiting for rpc`. What the plugin throws out of its sampler
//! before the call (a method it cannot find, request JSON it cannot read, bad metadata)
//! records no sample in JMeter, which only logs the error: jmxr does the same, writing
//! the error to the run log; settings without `${…}` are checked while the plan is built.
//!
//! The plugin's later sampler, `vn.zalopay.benchmark.GRPCSampler` ([`Form::Sampler`]),
//! is the same element with `GRPCSampler.*` property names and its own results and
//! metadata reading, which [`sampler_form`] holds.

pub mod call;
pub mod json;
pub mod sampler_form;
pub mod schema;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use prost::Message;
use prost_reflect::{DynamicMessage, MessageDescriptor};

use crate::expr::Template;
use crate::foundation::paths::resolve_input;
use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::runlog;
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::new_result;
use crate::user_state::UserState;
use call::{Channel, Status, Target};
use schema::Method;

/// The response text of a failed call, the plugin's wrapping exception's message.
const CALL_FAILED_TEXT: &str = "Caught exception while waiting for rpc";

/// Builds the gRPC sampler for `class`, or `None` when it is not one.
pub fn build(class: &str, cx: &mut BuildContext<'_>) -> Option<Arc<dyn Sampler>> {
    match class {
        "vn.zalopay.benchmark.testbean.GrpcRequest" => Some(build_request(cx, Form::TestBean)),
        "vn.zalopay.benchmark.GRPCSampler" => Some(build_request(cx, Form::Sampler)),
        _ => None,
    }
}

/// Which of the plugin's two elements: they call alike and report differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `vn.zalopay.benchmark.testbean.GrpcRequest`.
    TestBean,
    /// `vn.zalopay.benchmark.GRPCSampler`.
    Sampler,
}

impl Form {
    /// The element's name for a setting.
    fn property(self, name: &str) -> String {
        match self {
            Form::TestBean => name.to_string(),
            Form::Sampler => format!("GRPCSampler.{name}"),
        }
    }
}

/// Where the method comes from: resolved once at build time, or per user at its first
/// sample when the settings use variables.
enum MethodSource {
    Resolved(Arc<Method>),
    Deferred {
        proto_folder: Template,
        lib_folder: Template,
        full_method: Template,
    },
    /// Reported at build time; the sampler is never run.
    Invalid,
}

pub struct GrpcRequest {
    form: Form,
    method: MethodSource,
    host_port: Template,
    tls: bool,
    verify_certificates: bool,
    deadline: Setting,
    metadata: Template,
    request_json: Template,
    request_file: Template,
    /// `maxInboundMessageSize` (the later sampler's; the TestBean keeps grpc-java's).
    max_inbound_message: Setting,
    plan_dir: std::path::PathBuf,
}

fn build_request(cx: &mut BuildContext<'_>, form: Form) -> Arc<dyn Sampler> {
    let name = |setting: &str| form.property(setting);
    let proto_folder = cx.template(&name("protoFolder"));
    let lib_folder = cx.template(&name("libFolder"));
    let full_method = cx.template(&name("fullMethod"));
    let plan_dir = cx.plan_dir();
    let method =
        if proto_folder.is_constant() && lib_folder.is_constant() && full_method.is_constant() {
            match schema::resolve(
                proto_folder.raw(),
                lib_folder.raw(),
                full_method.raw(),
                &plan_dir,
            ) {
                Ok(method) => MethodSource::Resolved(method),
                Err(message) => {
                    cx.error(message);
                    MethodSource::Invalid
                }
            }
        } else {
            MethodSource::Deferred {
                proto_folder,
                lib_folder,
                full_method,
            }
        };
    let host_port = match form {
        Form::TestBean => cx.template("hostPort"),
        Form::Sampler => {
            let host = cx.raw("GRPCSampler.host").unwrap_or_default();
            let port = cx.raw("GRPCSampler.port").unwrap_or_default();
            cx.compile(&format!("{host}:{port}"))
        }
    };
    let tls = cx.flag(&name("tls"), false);
    if host_port.is_constant() {
        if let Err(message) = Target::parse(host_port.raw(), tls, true) {
            cx.error(message);
        }
    }
    let metadata = cx.template(&name("metadata"));
    if metadata.is_constant() {
        let checked = match form {
            Form::TestBean => parse_metadata(metadata.raw()).map(drop),
            Form::Sampler => sampler_form::parse_metadata(metadata.raw()).and_then(|entries| {
                sampler_form::headers(&entries)
                    .map(drop)
                    .ok_or_else(|| format!("Invalid metadata key in {:?}", metadata.raw()))
            }),
        };
        if let Err(message) = checked {
            cx.error(message);
        }
    }
    let request_json = cx.template(&name("requestJson"));
    if let MethodSource::Resolved(method) = &method {
        if request_json.is_constant() && !request_json.raw().trim().is_empty() {
            let input = method.descriptor.input();
            if let Err(message) = parse_request(&input, request_json.raw(), form) {
                cx.error(format!("{}: {message}", name("requestJson")));
            }
        }
    }
    let deadline = match form {
        Form::TestBean => cx.setting("deadline", "0"),
        Form::Sampler => {
            let deadline = cx.setting("GRPCSampler.deadline", "");
            if let Some(text) = deadline.constant_text() {
                if sampler_form::java_long(text).is_none() {
                    cx.error(format!(
                        "GRPCSampler.deadline {text:?} is not a whole number of milliseconds; \
                         the plugin fails every call of the element"
                    ));
                }
            }
            deadline
        }
    };
    Arc::new(GrpcRequest {
        form,
        method,
        host_port,
        tls,
        // Later versions of the plugin add this switch; the TestBean always verifies.
        verify_certificates: !cx.flag(&name("tlsDisableVerification"), false),
        deadline,
        metadata,
        request_json,
        request_file: cx.template("requestFile"),
        max_inbound_message: match form {
            Form::TestBean => Setting::constant(""),
            Form::Sampler => cx.setting("GRPCSampler.maxInboundMessageSize", ""),
        },
        plan_dir,
    })
}

/// What a user keeps for one GRPC Request element: the plugin's `ClientCaller`.
#[derive(Default)]
struct UserCaller {
    method: Option<Arc<Method>>,
    target: Option<Target>,
    channel: Option<Channel>,
    /// The later sampler has shut its channel down (after a failure) for good.
    shut_down: bool,
}

fn user_caller(user: &mut UserState, id: usize) -> &mut UserCaller {
    user.slot(id, UserCaller::default)
}

/// The request ready to send, as the plugin holds it after `buildRequest`.
struct Prepared {
    method: Arc<Method>,
    target: Target,
    message: DynamicMessage,
    metadata: Vec<(http::HeaderName, http::HeaderValue)>,
    deadline: Option<Duration>,
    /// The later sampler: its metadata has a key grpc-java refuses as the call starts.
    bad_metadata_key: bool,
    /// The later sampler: the metadata as it records it in the request headers.
    request_headers: String,
    /// The later sampler: a deadline that is not a number (it fails the call).
    bad_deadline: bool,
}

/// Why a request could not be prepared: the run-log reason, and for the later sampler
/// the exception it records and whether it shut its channel down on the way.
struct PrepareError {
    reason: String,
    exception: String,
    shuts_channel: bool,
}

impl From<String> for PrepareError {
    fn from(reason: String) -> PrepareError {
        PrepareError {
            exception: format!("java.lang.RuntimeException: {reason}"),
            reason,
            shuts_channel: false,
        }
    }
}

impl GrpcRequest {
    /// The plugin's `init` (first sample of a user) and `buildRequest`: any failure is
    /// what the plugin throws out of `sample`.
    async fn prepare(&self, cx: &mut SampleContext<'_>) -> Result<Prepared, PrepareError> {
        let (method, target) = {
            let state = user_caller(cx.user, cx.element_id);
            (state.method.clone(), state.target.clone())
        };
        let method = match (method, &self.method) {
            (Some(method), _) => method,
            (None, MethodSource::Resolved(method)) => method.clone(),
            (None, MethodSource::Invalid) => {
                return Err(String::from("the element is invalid").into())
            }
            (
                None,
                MethodSource::Deferred {
                    proto_folder,
                    lib_folder,
                    full_method,
                },
            ) => {
                let (proto, lib, full) = {
                    let mut eval = cx.user.eval(&cx.label);
                    (
                        proto_folder.eval(&mut eval),
                        lib_folder.eval(&mut eval),
                        full_method.eval(&mut eval),
                    )
                };
                // Compiling .proto files is work for a blocking thread, not the runtime's.
                let plan_dir = self.plan_dir.clone();
                tokio::task::spawn_blocking(move || schema::resolve(&proto, &lib, &full, &plan_dir))
                    .await
                    .map_err(|e| e.to_string())??
            }
        };
        let target = match target {
            Some(target) => target,
            None => {
                let mut eval = cx.user.eval(&cx.label);
                let host_port = self.host_port.eval(&mut eval);
                let mut target = Target::parse(&host_port, self.tls, self.verify_certificates)
                    .map_err(|reason| PrepareError {
                        exception: format!("java.lang.IllegalArgumentException: {reason}"),
                        reason,
                        shuts_channel: false,
                    })?;
                if self.form == Form::Sampler {
                    // `getPropertyAsInt`: absent or empty is the default, unreadable is 0.
                    let limit = self.max_inbound_message.text(&mut eval);
                    if !limit.is_empty() {
                        target.max_inbound_message = limit
                            .parse::<i32>()
                            .map_or(0, |n| usize::try_from(n).unwrap_or(0));
                    }
                }
                target
            }
        };
        {
            let state = user_caller(cx.user, cx.element_id);
            state.method = Some(method.clone());
            state.target = Some(target.clone());
        }
        if self.form == Form::Sampler {
            return self.prepare_sampler(cx, method, target);
        }
        let (metadata, json, file, deadline_ms) = {
            let mut eval = cx.user.eval(&cx.label);
            (
                self.metadata.eval(&mut eval),
                self.request_json.eval(&mut eval),
                self.request_file.eval(&mut eval),
                self.deadline.i64(&mut eval),
            )
        };
        let metadata = parse_metadata(&metadata)?;
        let message = if json.is_empty() {
            let path = resolve_input(&file, &self.plan_dir);
            let text = tokio::fs::read_to_string(&path)
                .await
                .map_err(|e| format!("Unable to read file: {} ({e})", path.display()))?;
            let first = first_message_of_file(&text);
            parse_request(&method.descriptor.input(), &first, self.form)
                .map_err(|e| format!("Unable to read messages from: {} ({e})", path.display()))?
        } else {
            parse_request(&method.descriptor.input(), &json, self.form)
                .map_err(|e| format!("Unable to read messages from: {json} ({e})"))?
        };
        Ok(Prepared {
            method,
            target,
            message,
            metadata,
            deadline: positive_ms(deadline_ms),
            bad_metadata_key: false,
            request_headers: String::new(),
            bad_deadline: false,
        })
    }

    /// The later sampler's `buildRequestAndMetadata`: metadata first, then the request;
    /// a failure shuts its channel down.
    fn prepare_sampler(
        &self,
        cx: &mut SampleContext<'_>,
        method: Arc<Method>,
        target: Target,
    ) -> Result<Prepared, PrepareError> {
        let (metadata, json, deadline) = {
            let mut eval = cx.user.eval(&cx.label);
            (
                self.metadata.eval(&mut eval),
                self.request_json.eval(&mut eval),
                self.deadline.text(&mut eval),
            )
        };
        let entries = sampler_form::parse_metadata(&metadata).map_err(|reason| PrepareError {
            exception: format!("java.lang.IllegalArgumentException: {reason}"),
            reason,
            shuts_channel: true,
        })?;
        let input = method.descriptor.input();
        let message = if json.trim().is_empty() {
            DynamicMessage::new(input)
        } else {
            parse_request(&input, &json, self.form).map_err(|e| PrepareError {
                reason: format!("Unable to read messages from: {json} ({e})"),
                exception: "java.lang.RuntimeException: Caught exception while parsing request \
                            for rpc"
                    .to_string(),
                shuts_channel: true,
            })?
        };
        let headers = sampler_form::headers(&entries);
        let deadline = sampler_form::java_long(&deadline);
        Ok(Prepared {
            method,
            target,
            message,
            bad_metadata_key: headers.is_none(),
            metadata: headers.unwrap_or_default(),
            request_headers: sampler_form::request_headers(&entries),
            deadline: deadline.and_then(positive_ms),
            bad_deadline: deadline.is_none(),
        })
    }
}

/// A deadline in ms; 0 or less is none.
fn positive_ms(ms: i64) -> Option<Duration> {
    u64::try_from(ms)
        .ok()
        .filter(|&ms| ms > 0)
        .map(Duration::from_millis)
}

#[async_trait]
impl Sampler for GrpcRequest {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        let prepared = match self.prepare(cx).await {
            Ok(prepared) => prepared,
            Err(error) if self.form == Form::Sampler => {
                if error.shuts_channel {
                    let state = user_caller(cx.user, cx.element_id);
                    state.shut_down = true;
                    state.channel = None;
                }
                let mut result = new_result(cx, cx.label.clone());
                Stopwatch::start().stop(&mut result);
                sampler_form::init_failure(&mut result, &error.exception);
                return Some(Arc::new(result));
            }
            Err(error) => {
                runlog::error(&format!(
                    "Error while processing sampler: '{}'. {}",
                    cx.label, error.reason
                ));
                return None;
            }
        };
        let mut result = new_result(cx, cx.label.clone());
        if self.form == Form::Sampler {
            let defaults = json::PrintOptions {
                proto_names: false,
                defaults: true,
            };
            result.sampler_data = json::print_with(&prepared.message, defaults);
            result.request_headers = prepared.request_headers.clone();
            if prepared.bad_deadline {
                // Thrown out of the sampler: JMeter logs it and records nothing.
                runlog::error(&format!(
                    "Error while processing sampler: '{}'. java.lang.RuntimeException: Caught \
                     exception while parsing deadline to long",
                    cx.label
                ));
                return None;
            }
        } else {
            result.sampler_data = json::print(&prepared.message);
        }
        let body = prepared.message.encode_to_vec();
        let stop = cx.user.run.stop_now.clone();
        let watch = Stopwatch::start();
        let state = user_caller(cx.user, cx.element_id);
        let outcome = if state.shut_down {
            Err(Status::new(
                call::UNAVAILABLE,
                sampler_form::CHANNEL_SHUT_DOWN,
            ))
        } else if prepared.bad_metadata_key {
            // grpc-java's interceptor throws; the call closes with a bare UNKNOWN.
            Err(Status {
                code: call::UNKNOWN,
                description: None,
            })
        } else {
            tokio::select! {
                outcome = call_with_deadline(state, &prepared, &body) => outcome,
                _ = stop.cancelled() => Err(Status::new(1, "Thread interrupted")),
            }
        };
        let outcome = outcome.and_then(|bytes| {
            DynamicMessage::decode(prepared.method.descriptor.output(), bytes).map_err(|e| {
                Status::new(
                    call::INTERNAL,
                    format!("Invalid protobuf byte sequence: {e}"),
                )
            })
        });
        watch.stop(&mut result);
        result.data_type = "text";
        if self.form == Form::Sampler {
            return self.sampler_result(cx, result, outcome, stop.is_cancelled());
        }
        match outcome {
            Ok(answer) => {
                result.response_code = "200".into();
                result.response_message = "Success".into();
                result.response_data = json::print(&answer).into_bytes();
            }
            Err(status) => {
                result.success = false;
                result.response_code = "500".into();
                result.response_message = format!("Exception: {}", status.exception_text()).into();
                result.response_data = CALL_FAILED_TEXT.as_bytes().to_vec();
            }
        }
        Some(Arc::new(result))
    }
}

impl GrpcRequest {
    /// The later sampler's result; after a failure its channel is shut down for good.
    fn sampler_result(
        &self,
        cx: &mut SampleContext<'_>,
        mut result: SampleResult,
        outcome: Result<DynamicMessage, Status>,
        interrupted: bool,
    ) -> Option<Arc<SampleResult>> {
        let status = match outcome {
            Ok(answer) => {
                let options = json::PrintOptions {
                    proto_names: true,
                    defaults: true,
                };
                result.response_code = "200".into();
                result.response_message = " success".into();
                result.response_data = json::print_with(&answer, options).into_bytes();
                return Some(Arc::new(result));
            }
            Err(status) => status,
        };
        let state = user_caller(cx.user, cx.element_id);
        state.shut_down = true;
        state.channel = None;
        if interrupted {
            sampler_form::interrupted(&mut result);
            return Some(Arc::new(result));
        }
        if sampler_form::call_failure(&mut result, &status).is_none() {
            runlog::error(&format!(
                "Error while processing sampler: '{}'. java.lang.NullPointerException (the \
                 status {} has no description)",
                cx.label,
                status.code_name()
            ));
            return None;
        }
        Some(Arc::new(result))
    }
}

/// The call, its connection included, within the deadline.
async fn call_with_deadline(
    state: &mut UserCaller,
    prepared: &Prepared,
    body: &[u8],
) -> Result<bytes::Bytes, Status> {
    let call = call_on_channel(state, prepared, body);
    let Some(deadline) = prepared.deadline else {
        return call.await;
    };
    match tokio::time::timeout(deadline, call).await {
        Ok(outcome) => outcome,
        Err(_) => Err(match &state.channel {
            Some(channel) => channel.deadline_status(deadline),
            None => call::deadline_status_unconnected(deadline),
        }),
    }
}

async fn call_on_channel(
    state: &mut UserCaller,
    prepared: &Prepared,
    body: &[u8],
) -> Result<bytes::Bytes, Status> {
    if let Some(channel) = state.channel.as_mut() {
        if channel.target() != &prepared.target || !channel.is_usable().await {
            state.channel = None;
        }
    }
    if state.channel.is_none() {
        state.channel = Some(Channel::connect(&prepared.target).await?);
    }
    let Some(channel) = state.channel.as_mut() else {
        return Err(Status::new(call::UNAVAILABLE, "io exception"));
    };
    let outcome = channel
        .unary(
            &prepared.method.path,
            &prepared.metadata,
            body,
            prepared.deadline,
        )
        .await;
    if matches!(&outcome, Err(status) if status.code == call::UNAVAILABLE) {
        // A broken connection: the next call connects again, as grpc-java's channel does.
        state.channel = None;
    }
    outcome
}

/// The request JSON read by protobuf-java's `JsonFormat.parser()`: the proto3 mapping,
/// field names or JSON names, unknown fields refused (ignored by the later sampler).
fn parse_request(
    input: &MessageDescriptor,
    json: &str,
    form: Form,
) -> Result<DynamicMessage, String> {
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let options =
        prost_reflect::DeserializeOptions::new().deny_unknown_fields(form == Form::TestBean);
    let message =
        DynamicMessage::deserialize_with_options(input.clone(), &mut deserializer, &options)
            .map_err(|e| e.to_string())?;
    deserializer.end().map_err(|e| e.to_string())?;
    Ok(message)
}

/// The first message of a request file: lines up to the first empty one (the plugin's
/// reader joins a message's lines and stops at two empty lines; a unary call sends the
/// first message).
fn first_message_of_file(text: &str) -> String {
    text.lines()
        .skip_while(|line| line.is_empty())
        .take_while(|line| !line.is_empty())
        .collect()
}

/// `key1:value1,key2:value2` into headers. Names are lower-cased and must be valid
/// metadata keys (`0-9 a-z _ - .`), as grpc-java's `Metadata.Key.of` requires.
fn parse_metadata(text: &str) -> Result<Vec<(http::HeaderName, http::HeaderValue)>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut headers = Vec::new();
    for part in text.split(',') {
        let Some((key, value)) = part.split_once(':') else {
            return Err(format!(
                "Metadata entry must be defined in key1:value1,key2:value2 format: {text}"
            ));
        };
        let name = key.to_ascii_lowercase();
        let valid = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase() || b"_-.".contains(&b));
        if !valid || name.ends_with("-bin") {
            return Err(format!("Invalid metadata key {key:?} in {text:?}"));
        }
        let name = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| format!("Invalid metadata key {key:?}: {e}"))?;
        let value = http::HeaderValue::from_str(value)
            .map_err(|e| format!("Invalid metadata value for {key:?}: {e}"))?;
        headers.push((name, value));
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_reads_key_value_pairs() {
        let headers = parse_metadata("Token:abc:def,x-id:7").expect("valid");
        let texts: Vec<(String, String)> = headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect();
        assert_eq!(
            texts,
            [
                ("token".to_string(), "abc:def".to_string()),
                ("x-id".to_string(), "7".to_string())
            ]
        );
        assert!(parse_metadata("").expect("empty").is_empty());
        assert!(parse_metadata("novalue").is_err());
        assert!(
            parse_metadata("a:1, b:2").is_err(),
            "a space is not a key character"
        );
    }

    #[test]
    fn a_request_file_sends_its_first_message() {
        assert_eq!(
            first_message_of_file("\n{\n  \"a\": 1\n}\n\n{\"a\": 2}\n"),
            "{  \"a\": 1}"
        );
    }
}
