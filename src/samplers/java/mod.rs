//! Java Request (`JavaSampler`): runs a Java client class with name/value parameters.
//!
//! jmxr cannot load Java classes; a class runs when the class table ([`mapping`]) maps
//! it to a native implementation: JMeter's `JavaTest` and `SleepTest` (see [`clients`]),
//! or the UDP sender contract (`samplers::udp::sender`). Any other class is a plan error
//! that says which property maps it, and the sampler, if run anyway, fails each sample
//! the way JMeter's stand-in client for a class it cannot load does.
//!
//! Parameters follow JMeter's `JavaSampler`: the sampler's own `arguments`, then the
//! arguments of every Java Request Defaults element in scope (innermost first) appended
//! to them, then `TestElement.name` = the sampler's name. When a name repeats, the
//! **first** occurrence wins (`Arguments.getArgumentsAsMap`), so the sampler's values
//! beat the defaults and the innermost defaults beat outer ones. Values are evaluated on
//! every sample, as JMeter builds a fresh parameter map per sample.

mod clients;
pub mod mapping;

use std::sync::Arc;

use async_trait::async_trait;

use crate::expr::{Template, TemplateValue};
use crate::foundation::fast_hash::FastMap;
use crate::jmx::Element;
use crate::plan::context::argument_rows;
use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::SampleResult;

use super::new_result;
use super::udp::sender::{SendSettings, UdpSender, MAX_UNFRAGMENTED_PAYLOAD};
use crate::foundation::clock::wall_clock_ms;
use mapping::Native;

/// The client class JMeter ships as a configurable dummy sampler.
pub const JAVA_TEST: &str = "org.apache.jmeter.protocol.java.test.JavaTest";
/// The client class JMeter ships as a plain sleeping sampler.
pub const SLEEP_TEST: &str = "org.apache.jmeter.protocol.java.test.SleepTest";
/// The parameter JMeter adds so a client can read its element's name.
const ELEMENT_NAME: &str = "TestElement.name";

/// Config GUI classes a Java Request accepts (JMeter's `JavaSampler.applies`).
const APPLICABLE_CONFIG_GUIS: [&str; 2] = ["JavaConfigGui", "SimpleConfigGui"];

/// A Java Request bound to one of the emulated clients.
pub struct JavaSampler {
    client: Client,
    /// The sampler's arguments followed by those of its defaults, innermost first.
    params: Vec<(String, Template)>,
    /// Every parameter is constant or reads properties only: each user then keeps its own
    /// copy of the values until a property changes (see [`KeptParameters`]).
    params_read_only_properties: bool,
}

/// A user's copy of a Java Request's parameter values as of a version of the
/// properties. Reading kept `${__P()}` values from the template shared by all users
/// costs atomic operations on cache lines every worker thread touches, several per
/// parameter per sample; with many users sending at full rate that showed in profiles.
struct KeptParameters {
    version: u64,
    values: Vec<String>,
}

/// The user slot holding every Java Request's [`KeptParameters`], by element id.
const KEPT_PARAMETERS_SLOT: usize = usize::MAX - 0x4A41;

/// Which Java client class the sampler runs.
enum Client {
    /// The UDP sender, which decodes and keeps its own settings.
    Udp(Arc<UdpSender>),
    /// A client that reads its parameters as a map for every sample.
    Mapped(MappedClient),
}

enum MappedClient {
    JavaTest,
    SleepTest,
    /// A class jmxr cannot run; `classname` is the name as JMeter reports it.
    Missing {
        classname: String,
    },
}

/// Builds a Java Request, merging the Java Request Defaults among `configs`.
pub(super) fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Arc<dyn Sampler> {
    let applicable: Vec<&Element> = configs
        .iter()
        .copied()
        .filter(|config| accepts_config(config))
        .collect();
    let mut params = cx.arguments("arguments");
    for config in &applicable {
        if let Some(prop) = config.prop("arguments") {
            for (name, value) in argument_rows(prop) {
                let value = cx.compile(&value);
                params.push((name, value));
            }
        }
    }
    // JMeter resolves the class once, before config merging, from the sampler's own
    // `classname`; a name supplied only by defaults therefore never loads, but it is
    // the name JMeter's failing samples show.
    let own = cx.raw("classname").unwrap_or("");
    let client = match mapping::resolve(own.trim(), cx.properties) {
        Ok(Native::JavaTest) => Client::Mapped(MappedClient::JavaTest),
        Ok(Native::SleepTest) => Client::Mapped(MappedClient::SleepTest),
        Ok(Native::Udp) => {
            let warned = warn_about_fragmentation(cx, &params);
            Client::Udp(UdpSender::new(warned))
        }
        Err(why) => {
            let names: Vec<&str> = params.iter().map(|(name, _)| name.as_str()).collect();
            cx.error(mapping::unmapped_message(own.trim(), &why, &names));
            let classname = if own.is_empty() {
                defaults_classname(&applicable).unwrap_or("")
            } else {
                own
            };
            Client::Mapped(MappedClient::Missing {
                classname: classname.to_string(),
            })
        }
    };
    let params_read_only_properties = params.iter().all(|(_, t)| t.reads_only_properties());
    Arc::new(JavaSampler {
        client,
        params,
        params_read_only_properties,
    })
}

/// A constant `packetSize` above what one Ethernet frame carries is sent as IP
/// fragments: legal, but one lost fragment loses the datagram, which distorts loss
/// figures. Worth a warning, not a refusal. Returns whether it warned (a size given by
/// an expression is checked at the first sample instead).
fn warn_about_fragmentation(cx: &mut BuildContext<'_>, params: &[(String, Template)]) -> bool {
    let Some((_, size)) = params.iter().find(|(name, _)| name == "packetSize") else {
        return false;
    };
    let size = size
        .is_constant()
        .then(|| java_long_decode(size.raw().trim()))
        .flatten();
    if let Some(size) = size.filter(|size| *size > MAX_UNFRAGMENTED_PAYLOAD) {
        cx.warn(format!(
            "packetSize {size} is above {MAX_UNFRAGMENTED_PAYLOAD} bytes: each datagram \
             is sent as IP fragments (MTU 1500), and one lost fragment loses the datagram"
        ));
        return true;
    }
    false
}

/// Whether a config element applies to a Java Request: JMeter checks its GUI class.
fn accepts_config(config: &Element) -> bool {
    let short = config.gui.rsplit('.').next().unwrap_or("");
    APPLICABLE_CONFIG_GUIS.contains(&short)
}

/// The first non-empty `classname` among the defaults (innermost first).
fn defaults_classname<'a>(configs: &[&'a Element]) -> Option<&'a str> {
    configs
        .iter()
        .filter_map(|config| config.str_prop("classname"))
        .find(|name| !name.is_empty())
}

#[async_trait]
impl Sampler for JavaSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        let result = match &self.client {
            Client::Udp(sender) => {
                // The sender keeps its decoded settings per user (see `SendSettings`).
                let version = self
                    .params_read_only_properties
                    .then(|| cx.user.run.props.version());
                let read = |cx: &mut SampleContext<'_>| SendSettings::read(&self.evaluate(cx));
                sender.sample(cx, version, &read).await?
            }
            // Boxed apart: the map-reading clients hold a result across their waits, and
            // inline their future would make the UDP sender's (boxed per sample) as large.
            Client::Mapped(client) => Box::pin(self.sample_with_parameters(client, cx)).await,
        };
        Some(result)
    }
}

impl JavaSampler {
    /// A sample of a client that reads its parameters as a map.
    async fn sample_with_parameters(
        &self,
        client: &MappedClient,
        cx: &mut SampleContext<'_>,
    ) -> Arc<SampleResult> {
        let kept = self.kept_values(cx);
        let mut result = {
            let params = match &kept {
                Some(kept) => self.kept_parameters(&kept.values, cx),
                None => self.evaluate(cx),
            };
            match client {
                MappedClient::JavaTest => clients::java_test(&params, cx).await,
                MappedClient::SleepTest => clients::sleep_test(&params, cx).await,
                MappedClient::Missing { classname } => missing_class(classname, cx),
            }
        };
        if let Some(kept) = kept {
            cx.user
                .slot(
                    KEPT_PARAMETERS_SLOT,
                    FastMap::<usize, KeptParameters>::default,
                )
                .insert(cx.element_id, kept);
        }
        // JMeter labels a result its client left unlabelled with the element's name (the
        // UDP sender always labels its results).
        if result.label.is_empty() {
            result.label = cx.label.clone();
        }
        Arc::new(result)
    }

    /// The user's kept parameter values, taken out of its slot for this sample (put back
    /// after it), computed again when the properties changed; `None` when a parameter
    /// depends on more than the properties.
    fn kept_values(&self, cx: &mut SampleContext<'_>) -> Option<KeptParameters> {
        if !self.params_read_only_properties {
            return None;
        }
        // Read before computing: a change made meanwhile leaves an older version kept.
        let version = cx.user.run.props.version();
        let slot = cx.user.slot(
            KEPT_PARAMETERS_SLOT,
            FastMap::<usize, KeptParameters>::default,
        );
        if let Some(kept) = slot.remove(&cx.element_id) {
            if kept.version == version {
                return Some(kept);
            }
        }
        let mut eval = cx.user.eval(&cx.label);
        let values = self.params.iter().map(|(_, t)| t.eval(&mut eval)).collect();
        Some(KeptParameters { version, values })
    }

    /// The parameter map over kept values.
    fn kept_parameters<'a>(
        &'a self,
        values: &'a [String],
        cx: &SampleContext<'_>,
    ) -> Parameters<'a> {
        let mut list: Vec<(&str, TemplateValue<'_>)> = Vec::with_capacity(values.len() + 1);
        list.extend(
            self.params
                .iter()
                .zip(values)
                .map(|((name, _), value)| (name.as_str(), TemplateValue::Constant(value.as_str()))),
        );
        list.push((ELEMENT_NAME, TemplateValue::Shared(cx.label.clone())));
        Parameters(list)
    }

    /// This sample's parameter map (JMeter's `JavaSamplerContext`).
    fn evaluate(&self, cx: &mut SampleContext<'_>) -> Parameters<'_> {
        let mut eval = cx.user.eval(&cx.label);
        let mut values: Vec<(&str, TemplateValue<'_>)> = Vec::with_capacity(self.params.len() + 1);
        values.extend(
            self.params
                .iter()
                .map(|(name, template)| (name.as_str(), template.eval_shared(&mut eval))),
        );
        values.push((ELEMENT_NAME, TemplateValue::Shared(cx.label.clone())));
        Parameters(values)
    }
}

/// The failed sample JMeter's stand-in client produces for a class it could not load.
/// JMeter leaves its times at 0; jmxr stamps the current time with no duration so the
/// sample does not drag reports back to 1970.
fn missing_class(classname: &str, cx: &SampleContext<'_>) -> SampleResult {
    let mut result = new_result(cx, Arc::from(format!("ERROR: {classname}")));
    result.response_data = format!("Class not found: {classname}").into_bytes();
    result.data_encoding = "UTF-8".into();
    result.set_success(false);
    let now = wall_clock_ms();
    result.start_time = now;
    result.end_time = now;
    result
}

/// Parameters of one sample, in order; the first occurrence of a name wins. Names are
/// borrowed from the plan, and so are values that are constant or read only properties:
/// a sample allocates only the values it computes.
pub struct Parameters<'a>(Vec<(&'a str, TemplateValue<'a>)>);

impl Parameters<'_> {
    /// The value of `name`, or `None` when it was not given (present but empty is `Some("")`).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| &**v)
    }

    /// `name` read as JMeter's `getLongParameter(name, default)`: `Long.decode` syntax,
    /// and the default when the value is absent or not a number.
    pub fn long(&self, name: &str, default: i64) -> i64 {
        self.get(name).and_then(java_long_decode).unwrap_or(default)
    }
}

/// Parses an integer as Java's `Long.decode`: optional sign, then `0x`/`0X`/`#` for
/// hexadecimal, a leading `0` for octal, decimal otherwise; no surrounding blanks.
pub fn java_long_decode(text: &str) -> Option<i64> {
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = if let Some(hex) = rest
        .strip_prefix("0x")
        .or_else(|| rest.strip_prefix("0X"))
        .or_else(|| rest.strip_prefix('#'))
    {
        (16, hex)
    } else if rest.len() > 1 && rest.starts_with('0') {
        (8, &rest[1..])
    } else {
        (10, rest)
    };
    // A sign after the radix prefix is an error in Java; `from_str_radix` would take it.
    if digits.starts_with(['-', '+']) {
        return None;
    }
    // The magnitude first, then the sign: no text to build, and `-9223372036854775808`
    // (whose magnitude is not an i64) still parses.
    let magnitude = u64::from_str_radix(digits, radix).ok()?;
    if negative {
        0i64.checked_sub_unsigned(magnitude)
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// The sleep of `JavaTest` and `SleepTest`: the base time plus the start time modulo the
/// mask, a cheap pseudo-random spread (only when both are positive).
pub fn sleep_ms(sleep_time: i64, sleep_mask: i64, now_ms: i64) -> i64 {
    if sleep_time > 0 && sleep_mask > 0 {
        sleep_time.wrapping_add(now_ms % sleep_mask)
    } else {
        sleep_time
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samplers::test_support::*;

    fn java_request(class: &str, args: &[(&str, &str)]) -> Element {
        element(
            "JavaSampler",
            "JavaTestSamplerGui",
            "JR",
            vec![
                arguments_prop("arguments", args),
                string_prop("classname", class),
            ],
        )
    }

    #[test]
    fn long_parameters_use_java_decode_syntax() {
        assert_eq!(java_long_decode("0xFF"), Some(255));
        assert_eq!(java_long_decode("0X1f"), Some(31));
        assert_eq!(java_long_decode("#10"), Some(16));
        assert_eq!(java_long_decode("010"), Some(8));
        assert_eq!(java_long_decode("-0x10"), Some(-16));
        assert_eq!(java_long_decode("+5"), Some(5));
        assert_eq!(java_long_decode("0"), Some(0));
        assert_eq!(java_long_decode("-9223372036854775808"), Some(i64::MIN));
        for bad in ["", " 1", "1 ", "0x", "--5", "0x-5", "09", "1.5", "${t}"] {
            assert_eq!(java_long_decode(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn sleep_adds_the_start_time_modulo_the_mask() {
        assert_eq!(sleep_ms(100, 0xff, 1000), 100 + 1000 % 255);
        assert_eq!(sleep_ms(100, 0, 1000), 100);
        assert_eq!(sleep_ms(0, 0xff, 1000), 0);
        assert_eq!(sleep_ms(-5, 0xff, 1000), -5);
    }

    #[test]
    fn first_occurrence_of_a_parameter_wins() {
        let params = Parameters(vec![
            ("A", TemplateValue::Constant("1")),
            ("A", TemplateValue::Constant("2")),
            ("N", TemplateValue::Constant("x")),
        ]);
        assert_eq!(params.get("A"), Some("1"));
        assert_eq!(params.get("B"), None);
        assert_eq!(params.long("N", 7), 7);
        assert_eq!(params.long("B", 9), 9);
    }

    #[tokio::test]
    async fn defaults_fill_missing_arguments_innermost_first() {
        let sampler = java_request(JAVA_TEST, &[("Sleep_Time", "0"), ("ResultData", "mine")]);
        let inner = element(
            "JavaConfig",
            "JavaConfigGui",
            "Java Request Defaults",
            vec![arguments_prop(
                "arguments",
                &[("ResultData", "theirs"), ("ResponseCode", "299")],
            )],
        );
        let outer = element(
            "JavaConfig",
            "org.apache.jmeter.protocol.java.config.gui.JavaConfigGui",
            "Outer Defaults",
            vec![arguments_prop(
                "arguments",
                &[("ResponseCode", "300"), ("ResponseMessage", "outer")],
            )],
        );
        let not_applicable = element(
            "ConfigTestElement",
            "HttpDefaultsGui",
            "HTTP Defaults",
            vec![arguments_prop("arguments", &[("Status", "KO")])],
        );
        let (built, diagnostics) = build_element(&sampler, &[&inner, &not_applicable, &outer]);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let mut user = user();
        let result = sample(built.expect("built").as_ref(), &mut user, "JR")
            .await
            .expect("sampled");
        assert_eq!(result.response_data, b"mine");
        assert_eq!(result.response_code, "299");
        assert_eq!(result.response_message, "outer");
        assert!(result.success);
    }

    #[tokio::test]
    async fn an_unknown_class_is_a_plan_error_and_fails_each_sample() {
        let element = java_request("com.example.Custom ", &[]);
        let (built, diagnostics) = build_element(&element, &[]);
        assert_eq!(diagnostics.len(), 1);
        assert!(diagnostics[0].message.contains("com.example.Custom"));
        let mut user = user();
        let result = sample(built.expect("built").as_ref(), &mut user, "JR")
            .await
            .expect("sampled");
        assert_eq!(&*result.label, "ERROR: com.example.Custom ");
        assert_eq!(
            result.response_data,
            b"Class not found: com.example.Custom "
        );
        assert!(!result.success);
        assert_eq!(result.error_count, 1);
        assert_eq!(result.data_type, "");
    }

    #[tokio::test]
    async fn an_empty_class_reports_the_class_named_by_defaults() {
        let element = java_request("", &[]);
        let defaults = element_with_class("com.example.FromDefaults");
        let (built, diagnostics) = build_element(&element, &[&defaults]);
        assert_eq!(diagnostics.len(), 1);
        let mut user = user();
        let result = sample(built.expect("built").as_ref(), &mut user, "JR")
            .await
            .expect("sampled");
        assert_eq!(&*result.label, "ERROR: com.example.FromDefaults");
    }

    fn element_with_class(class: &str) -> Element {
        element(
            "JavaConfig",
            "JavaConfigGui",
            "Defaults",
            vec![string_prop("classname", class)],
        )
    }
}
