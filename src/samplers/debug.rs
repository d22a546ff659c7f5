//! Debug Sampler (`DebugSampler`): a sample whose body lists the virtual user's
//! variables, the JMeter properties and the system properties.
//!
//! The body has one section per enabled flag, in this order: a `JMeterVariables:`,
//! `JMeterProperties:` or `SystemProperties:` line, then `name=value` lines sorted with
//! JMeter's alphanumeric comparator (digit runs compare as numbers: `v2` < `v10`), then
//! an empty line. The sampler data names the sections (`JMeterVariables\n`...). The
//! result is always successful: code `200`, message `OK`, data type `text`.
//!
//! There is no JVM, so `SystemProperties` lists the Java system properties that have a
//! native meaning, with values from the running process: `file.encoding`,
//! `file.separator`, `java.io.tmpdir`, `jmxr.version`, `line.separator`, `os.arch`,
//! `os.name`, `path.separator`, `user.dir`, `user.home`, `user.name`. The process
//! environment is deliberately not shown: it is not what JMeter shows here.

use std::sync::Arc;

use async_trait::async_trait;

use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::SampleResult;

use super::new_result;
use crate::plan::debug_dump::{system_properties, write_section};

use crate::sample::Stopwatch;

/// The sections a Debug Sampler shows.
pub struct DebugSampler {
    variables: bool,
    properties: bool,
    system_properties: bool,
}

/// Builds a Debug Sampler; its flags are plain booleans (no expressions, as in JMeter).
pub(super) fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    Arc::new(DebugSampler {
        variables: cx.flag("displayJMeterVariables", true),
        properties: cx.flag("displayJMeterProperties", false),
        system_properties: cx.flag("displaySystemProperties", false),
    })
}

impl DebugSampler {
    /// One sample; [`Sampler::sample`] boxes it for the engine.
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> Option<SampleResult> {
        let mut result = new_result(cx, cx.label.clone());
        let watch = Stopwatch::start();
        let mut body = String::with_capacity(256);
        let mut sections = String::new();
        if self.variables {
            let entries = cx
                .user
                .vars
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            write_section(&mut body, &mut sections, "JMeterVariables", entries);
        }
        if self.properties {
            let entries = cx.user.run.props.snapshot();
            write_section(&mut body, &mut sections, "JMeterProperties", entries);
        }
        if self.system_properties {
            write_section(
                &mut body,
                &mut sections,
                "SystemProperties",
                system_properties(),
            );
        }
        result.response_data = body.into_bytes();
        result.data_encoding = "UTF-8".into();
        result.data_type = "text";
        result.sampler_data = sections;
        result.response_code = "200".into();
        result.response_message = "OK".into();
        result.set_success(true);
        watch.stop(&mut result);
        Some(result)
    }
}

#[async_trait]
impl Sampler for DebugSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        self.sample_unboxed(cx).await.map(Arc::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundation::properties::Properties;
    use crate::samplers::test_support::*;
    use tokio_util::sync::CancellationToken;

    fn debug_sampler(flags: &[(&str, bool)]) -> crate::jmx::Element {
        let props = flags.iter().map(|(n, v)| bool_prop(n, *v)).collect();
        element("DebugSampler", "TestBeanGUI", "Debug", props)
    }

    async fn run(element: &crate::jmx::Element, props: Properties) -> SampleResult {
        let (sampler, diagnostics) = build_element(element, &[]);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let mut user = user_with(props, CancellationToken::new());
        user.vars.put("v10", "ten");
        user.vars.put("v2", "two");
        user.vars.put("B", "upper");
        user.vars.put("a", "x=y");
        sample(sampler.expect("built").as_ref(), &mut user, "Debug")
            .await
            .expect("sampled")
    }

    #[tokio::test]
    async fn by_default_lists_the_variables_only() {
        let result = run(&debug_sampler(&[]), Properties::new()).await;
        let body = String::from_utf8(result.response_data.clone()).expect("utf-8");
        assert_eq!(
            body,
            "JMeterVariables:\nB=upper\na=x=y\nv2=two\nv10=ten\n\n"
        );
        assert_eq!(result.sampler_data, "JMeterVariables\n");
        assert_eq!(result.response_code, "200");
        assert_eq!(result.response_message, "OK");
        assert_eq!(result.data_type, "text");
        assert_eq!(&*result.label, "Debug");
        assert!(result.success);
    }

    #[tokio::test]
    async fn lists_every_enabled_section_in_order() {
        let element = debug_sampler(&[
            ("displayJMeterVariables", false),
            ("displayJMeterProperties", true),
            ("displaySystemProperties", true),
        ]);
        let props = Properties::new();
        props.set("p1", "one");
        let result = run(&element, props).await;
        let body = String::from_utf8(result.response_data.clone()).expect("utf-8");
        assert!(body.starts_with("JMeterProperties:\np1=one\n\nSystemProperties:\n"));
        assert!(body.contains("\nfile.separator="));
        assert!(body.contains("\nuser.dir="));
        assert!(body.ends_with("\n\n"));
        assert!(!body.contains("JMeterVariables"));
        assert_eq!(result.sampler_data, "JMeterProperties\nSystemProperties\n");
    }

    #[tokio::test]
    async fn with_no_section_the_body_is_empty() {
        let element = debug_sampler(&[("displayJMeterVariables", false)]);
        let result = run(&element, Properties::new()).await;
        assert!(result.response_data.is_empty());
        assert_eq!(result.sampler_data, "");
        assert!(result.success);
    }
}
