//! Samplers, one module per protocol or family. Each turns its resolved settings into a
//! `SampleResult`; none of them schedules or loops.
//!
//! `plan` calls [`build`] once per sampler element with a [`BuildContext`] (templates are
//! compiled there, problems reported there) and keeps the returned [`Sampler`]; the
//! engine calls [`Sampler::sample`] with the virtual user's state. Samplers evaluate
//! their templates at sample time and take their timings with [`Stopwatch`]. Samplers
//! that wait (sleeps, child processes) also await the run's `stop_now` token, so a
//! "Stop" ends them at once as JMeter's thread interruption does.
//!
//! Families here: [`java`] (Java Request with JMeter's `JavaTest` and `SleepTest`),
//! [`debug`] (Debug Sampler), [`dummy`] (jmeter-plugins Dummy Sampler), [`os_process`]
//! (OS Process Sampler), [`flow_control`] (Flow Control Action), [`http`] (HTTP Request and its managers), [`udp`] (the native
//! UDP sender behind Java Request classes and the jmeter-plugins UDP Request), [`tcp`]
//! (TCP Sampler), [`ws`] (the Luminis WebSocket samplers), [`sse`] (jmxr's own
//! Server-Sent Events samplers), [`jdbc`] (JDBC Request and processors, built by the
//! assembler with the plan's connection configurations), [`mqtt`] (the xmeter MQTT
//! samplers), [`ftp`] (FTP Request), [`ldap`] (LDAP Request and LDAP Extended Request),
//! [`mail`] (SMTP Sampler and Mail Reader Sampler), [`grpc`] (the zalopay GRPC Request),
//! [`json_to_xml`] (the jp@gc JSON to XML Converter, which converts text without network
//! activity), [`http_raw`] (the jp@gc HTTP Raw Request: bytes over TCP).

pub mod bytes;
pub mod debug;
pub mod dummy;
pub mod flow_control;
pub mod ftp;
pub mod grpc;
pub mod http;
pub mod http_raw;
pub mod java;
pub mod jdbc;
pub mod json_to_xml;
pub mod ldap;
pub mod mail;
pub mod mqtt;
pub mod os_process;
pub mod sse;
pub mod tcp;
pub mod udp;
pub mod ws;

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::jmx::Element;
use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::SampleResult;

/// Builds the sampler for `class`. `configs` are the config elements in the sampler's
/// scope, innermost first, for samplers that merge defaults (Java Request Defaults).
/// Returns `None` when the class is not a sampler jmxr runs.
pub fn build(
    class: &str,
    cx: &mut BuildContext<'_>,
    configs: &[&Element],
) -> Option<Arc<dyn Sampler>> {
    match class {
        "JavaSampler" | "org.apache.jmeter.protocol.java.sampler.JavaSampler" => {
            Some(java::build(cx, configs))
        }
        "DebugSampler" | "org.apache.jmeter.sampler.DebugSampler" => Some(debug::build(cx)),
        "SystemSampler" | "org.apache.jmeter.protocol.system.SystemSampler" => {
            Some(os_process::build(cx))
        }
        "kg.apc.jmeter.samplers.UDPSampler" => Some(udp::plugin::build(cx)),
        "kg.apc.jmeter.samplers.DummySampler" => Some(dummy::build(cx)),
        json_to_xml::CLASS => Some(json_to_xml::build(cx)),
        http_raw::CLASS => Some(http_raw::build(cx)),
        "FTPSampler" | "org.apache.jmeter.protocol.ftp.sampler.FTPSampler" => {
            Some(ftp::build(cx, configs))
        }
        "SmtpSampler" | "org.apache.jmeter.protocol.smtp.sampler.SmtpSampler" => {
            Some(mail::smtp::build(cx))
        }
        "MailReaderSampler" | "org.apache.jmeter.protocol.mail.sampler.MailReaderSampler" => {
            Some(mail::reader::build(cx))
        }
        "TCPSampler" | "org.apache.jmeter.protocol.tcp.sampler.TCPSampler" => {
            Some(tcp::build(cx, configs))
        }
        "HTTPSamplerProxy" | "HTTPSampler" | "HTTPSampler2" => Some(http::build(cx, configs)),
        "SoapSampler" => Some(http::build_soap(cx, configs)),
        "com.blazemeter.jmeter.http2.sampler.HTTP2Sampler"
        | "com.blazemeter.jmeter.http2.sampler.HTTP2Request" => {
            Some(http::build_bzm_http2(cx, configs))
        }
        "com.blazemeter.jmeter.http.ParallelHTTPSampler" => {
            Some(http::build_parallel_http_requests(cx, configs))
        }
        _ => sse::build(class, cx, configs)
            .or_else(|| ldap::build(class, cx, configs))
            .or_else(|| ws::build(class, cx, configs))
            .or_else(|| mqtt::build(class, cx))
            .or_else(|| grpc::build(class, cx)),
    }
}

/// A result labelled `label` and stamped with the user's thread name, as JMeter's
/// `SampleResult` takes the name of the thread that creates it.
pub fn new_result(cx: &SampleContext<'_>, label: Arc<str>) -> SampleResult {
    let mut result = SampleResult::new(label);
    result.thread_name = cx.user.thread.thread_name.clone();
    result
}

/// Sleeps `ms` milliseconds unless the run is stopped now first. Returns false when the
/// sleep was cut short (the sampler then reports an interrupted sample).
pub async fn sleep_unless_stopped(ms: u64, stop_now: &CancellationToken) -> bool {
    tokio::select! {
        biased;
        _ = stop_now.cancelled() => false,
        _ = tokio::time::sleep(Duration::from_millis(ms)) => true,
    }
}

/// Hand-made elements and users for the samplers' unit tests (the `.jmx` loader is not
/// needed to exercise a sampler).
#[cfg(test)]
pub(crate) mod test_support {
    use std::path::PathBuf;
    use std::sync::Arc;

    use rand::SeedableRng;
    use tokio_util::sync::CancellationToken;

    use crate::user_state::RunShared;

    use crate::expr::FunctionRegistry;
    use crate::foundation::properties::Properties;
    use crate::jmx::{Element, PropValue, Property, ScalarKind, Span};
    use crate::plan::{Diagnostic, SampleContext, Sampler};
    use crate::sample::SampleAction;
    use crate::sample::SampleResult;
    use crate::user_state::TestInfo;
    use crate::user_state::ThreadInfo;
    use crate::user_state::UserState;
    use crate::user_state::Variables;

    fn scalar(kind: ScalarKind, name: &str, text: &str) -> Property {
        Property {
            name: name.to_string(),
            value: PropValue::Scalar {
                kind,
                text: text.to_string(),
            },
            span: Span::default(),
        }
    }

    pub fn string_prop(name: &str, text: &str) -> Property {
        scalar(ScalarKind::String, name, text)
    }

    pub fn bool_prop(name: &str, value: bool) -> Property {
        scalar(ScalarKind::Bool, name, if value { "true" } else { "false" })
    }

    pub fn long_prop(name: &str, value: i64) -> Property {
        scalar(ScalarKind::Long, name, &value.to_string())
    }

    /// An `Arguments` element property holding `(Argument.name, Argument.value)` rows.
    pub fn arguments_prop(name: &str, rows: &[(&str, &str)]) -> Property {
        let items = rows
            .iter()
            .map(|(n, v)| Property {
                name: n.to_string(),
                value: PropValue::Element {
                    element_type: "Argument".into(),
                    class: String::new(),
                    gui: String::new(),
                    name: n.to_string(),
                    enabled: true,
                    props: vec![
                        string_prop("Argument.name", n),
                        string_prop("Argument.value", v),
                        string_prop("Argument.metadata", "="),
                    ],
                },
                span: Span::default(),
            })
            .collect();
        Property {
            name: name.to_string(),
            value: PropValue::Element {
                element_type: "Arguments".into(),
                class: "Arguments".into(),
                gui: "ArgumentsPanel".into(),
                name: String::new(),
                enabled: true,
                props: vec![Property {
                    name: "Arguments.arguments".into(),
                    value: PropValue::Collection(items),
                    span: Span::default(),
                }],
            },
            span: Span::default(),
        }
    }

    pub fn element(class: &str, gui: &str, name: &str, props: Vec<Property>) -> Element {
        Element {
            tag: class.to_string(),
            class: class.to_string(),
            gui: gui.to_string(),
            name: name.to_string(),
            enabled: true,
            props,
            children: Vec::new(),
            span: Span { line: 1, column: 1 },
            file: Arc::new(PathBuf::from("test.jmx")),
        }
    }

    /// Builds `element` as the plan would, returning the sampler and the diagnostics.
    pub fn build_element(
        element: &Element,
        configs: &[&Element],
    ) -> (Option<Arc<dyn Sampler>>, Vec<Diagnostic>) {
        let registry = FunctionRegistry::standard();
        let mut diagnostics = Vec::new();
        let mut cx = crate::plan::BuildContext::new(
            &registry,
            element,
            Arc::from("Test Plan › Thread Group › sampler"),
            7,
            &mut diagnostics,
        );
        let sampler = super::build(&element.class, &mut cx, configs);
        (sampler, diagnostics)
    }

    /// A virtual user of a run with the given JMeter properties.
    pub fn user_with(props: Properties, stop_now: CancellationToken) -> UserState {
        let mut shared = RunShared::new(props, TestInfo::default(), Some(1));
        shared.stop_now = stop_now;
        let run = Arc::new(shared);
        let thread = ThreadInfo {
            thread_num: 1,
            thread_name: Arc::from("Thread Group 1-1"),
            group_name: Arc::from("Thread Group"),
        };
        UserState::new(
            run,
            thread,
            Variables::new(),
            rand::rngs::SmallRng::seed_from_u64(1),
        )
    }

    pub fn user() -> UserState {
        user_with(Properties::new(), CancellationToken::new())
    }

    /// Runs one sample of `sampler` labelled `label` (element id 7, as [`build_element`] uses).
    pub async fn sample(
        sampler: &dyn Sampler,
        user: &mut UserState,
        label: &str,
    ) -> Option<SampleResult> {
        let mut cx = SampleContext {
            user,
            label: Arc::from(label),
            element_id: 7,
            action: SampleAction::Continue,
        };
        sampler
            .sample(&mut cx)
            .await
            .map(|result| Arc::try_unwrap(result).expect("a fresh sample is not shared"))
    }

    /// Builds `element` (which must build cleanly) and samples it once with a fresh user.
    pub async fn build_and_sample(element: &Element) -> SampleResult {
        let (sampler, diagnostics) = build_element(element, &[]);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let sampler = sampler.expect("sampler is built");
        let mut user = user();
        sample(sampler.as_ref(), &mut user, &element.name)
            .await
            .expect("a sample is produced")
    }
}

#[cfg(test)]
mod tests {
    use super::test_support::*;

    #[test]
    fn unknown_classes_are_not_built_here() {
        let element = element("JUnitSampler", "JUnitTestSamplerGui", "x", vec![]);
        let (sampler, diagnostics) = build_element(&element, &[]);
        assert!(sampler.is_none());
        assert!(diagnostics.is_empty());
    }

    #[tokio::test]
    async fn sleeps_end_early_when_the_run_stops_now() {
        let token = tokio_util::sync::CancellationToken::new();
        let stopper = token.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            stopper.cancel();
        });
        let started = std::time::Instant::now();
        assert!(!super::sleep_unless_stopped(10_000, &token).await);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
