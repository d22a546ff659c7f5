//! Debug PostProcessor (`DebugPostProcessor`, reference §10.9): adds a sub-result to the
//! sample with the user's variables, the JMeter properties and the system properties,
//! each section as the Debug Sampler writes it.
//!
//! Difference from JMeter: the "sampler properties" section needs the sampler's own
//! element, which post-processors do not see in jmxr, so it is left out.

use crate::plan::debug_dump::{system_properties, write_section};
use crate::plan::{BuildContext, PostProcessor};
use crate::sample::SampleResult;
use crate::sample::Stopwatch;
use crate::user_state::UserState;

pub struct DebugPostProcessor {
    name: std::sync::Arc<str>,
    variables: bool,
    properties: bool,
    system_properties: bool,
}

impl DebugPostProcessor {
    pub fn build(cx: &mut BuildContext<'_>) -> DebugPostProcessor {
        DebugPostProcessor {
            name: std::sync::Arc::from(cx.element.name.as_str()),
            variables: cx.flag("displayJMeterVariables", false),
            properties: cx.flag("displayJMeterProperties", false),
            system_properties: cx.flag("displaySystemProperties", false),
        }
    }
}

impl PostProcessor for DebugPostProcessor {
    fn process(&self, result: &mut SampleResult, user: &mut UserState) {
        let watch = Stopwatch::start();
        let mut sub = SampleResult::new(self.name.clone());
        let mut body = String::new();
        let mut sections = String::new();
        if self.variables {
            let entries = user
                .vars
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            write_section(&mut body, &mut sections, "JMeterVariables", entries);
        }
        if self.properties {
            let entries = user.run.props.snapshot();
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
        sub.response_data = body.into_bytes();
        sub.data_type = "text";
        sub.sampler_data = sections;
        sub.response_code = "200".into();
        sub.response_message = "OK".into();
        sub.thread_name = user.thread.thread_name.clone();
        watch.stop(&mut sub);
        let rename = !user
            .run
            .props
            .get_bool("subresults.disable_renaming", false);
        result.add_subresult(sub, rename);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::extractors::test_support::*;

    #[test]
    fn adds_a_renamed_sub_result_with_the_variables() {
        let el = extractor_element("DebugPostProcessor", &[("displayJMeterVariables", "true")]);
        let post = with_build(&el, DebugPostProcessor::build);
        let mut user = user();
        user.vars.put("a", "1");
        let mut result = body("x");
        post.process(&mut result, &mut user);
        let sub = &result.subresults[0];
        assert_eq!(&*sub.label, "s-0");
        assert_eq!(
            String::from_utf8_lossy(&sub.response_data),
            "JMeterVariables:\na=1\n\n"
        );
        assert_eq!(sub.sampler_data, "JMeterVariables\n");
    }
}
