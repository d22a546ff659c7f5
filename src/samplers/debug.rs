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

use std::cmp::Ordering;
use std::sync::Arc;

use async_trait::async_trait;

use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::SampleResult;

use super::new_result;

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
        result.data_encoding = "UTF-8".to_string();
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

/// Appends one section: header, sorted `name=value` lines, blank line.
pub(crate) fn write_section(
    body: &mut String,
    sections: &mut String,
    title: &str,
    mut entries: Vec<(String, String)>,
) {
    sections.push_str(title);
    sections.push('\n');
    body.push_str(title);
    body.push_str(":\n");
    // Plain order first so names the comparator calls equal (`a01`, `a1`) come out the
    // same on every run; the sort is stable.
    entries.sort();
    entries.sort_by(|a, b| alphanumeric_cmp(&a.0, &b.0));
    for (name, value) in entries {
        body.push_str(&name);
        body.push('=');
        body.push_str(&value);
        body.push('\n');
    }
    body.push('\n');
}

/// JMeter's `AlphaNumericComparator`: both names are cut into (non-digits, digits)
/// runs compared pairwise; text runs compare as Java strings, digit runs as numbers
/// (leading zeros ignored), and a missing digit run sorts first. Two names are equal as
/// soon as a pair of runs has no digits on both sides.
pub fn alphanumeric_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        let (a_text, a_digits, a_rest) = next_run(a);
        let (b_text, b_digits, b_rest) = next_run(b);
        let text = a_text.encode_utf16().cmp(b_text.encode_utf16());
        if text != Ordering::Equal {
            return text;
        }
        match (a_digits.is_empty(), b_digits.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        let a_num = a_digits.trim_start_matches('0');
        let b_num = b_digits.trim_start_matches('0');
        let number = a_num.len().cmp(&b_num.len()).then_with(|| a_num.cmp(b_num));
        if number != Ordering::Equal {
            return number;
        }
        a = a_rest;
        b = b_rest;
    }
}

/// Splits off the leading non-digit run and the digit run after it (ASCII digits, as
/// Java's `\d`), returning them and the rest.
fn next_run(s: &str) -> (&str, &str, &str) {
    let text_end = s.find(|c: char| c.is_ascii_digit()).unwrap_or(s.len());
    let (text, rest) = s.split_at(text_end);
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (digits, rest) = rest.split_at(digits_end);
    (text, digits, rest)
}

/// The native stand-ins for Java system properties (see the module docs).
pub(crate) fn system_properties() -> Vec<(String, String)> {
    let os_name = match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "Mac OS X",
        "windows" => "Windows",
        other => other,
    };
    let os_arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "x86",
        other => other,
    };
    let env = |names: &[&str]| {
        names
            .iter()
            .find_map(|name| std::env::var(name).ok())
            .unwrap_or_default()
    };
    let current_dir = std::env::current_dir()
        .map(|dir| dir.display().to_string())
        .unwrap_or_default();
    let line_separator = if cfg!(windows) { "\r\n" } else { "\n" };
    let path_separator = if cfg!(windows) { ";" } else { ":" };
    [
        ("file.encoding", "UTF-8".to_string()),
        ("file.separator", std::path::MAIN_SEPARATOR.to_string()),
        ("java.io.tmpdir", std::env::temp_dir().display().to_string()),
        ("jmxr.version", env!("CARGO_PKG_VERSION").to_string()),
        ("line.separator", line_separator.to_string()),
        ("os.arch", os_arch.to_string()),
        ("os.name", os_name.to_string()),
        ("path.separator", path_separator.to_string()),
        ("user.dir", current_dir),
        ("user.home", env(&["HOME", "USERPROFILE"])),
        ("user.name", env(&["USER", "USERNAME", "LOGNAME"])),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value))
    .collect()
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

    #[test]
    fn names_sort_with_numbers_compared_as_numbers() {
        use Ordering::*;
        assert_eq!(alphanumeric_cmp("v2", "v10"), Less);
        assert_eq!(alphanumeric_cmp("v10", "v2"), Greater);
        assert_eq!(alphanumeric_cmp("B", "a"), Less, "case-sensitive, as Java");
        assert_eq!(alphanumeric_cmp("a1", "a1b"), Less);
        assert_eq!(alphanumeric_cmp("a", "a1"), Less);
        assert_eq!(alphanumeric_cmp("a01", "a1"), Equal);
        assert_eq!(alphanumeric_cmp("1x", "x"), Less);
        assert_eq!(alphanumeric_cmp("", "a"), Less);
        assert_eq!(alphanumeric_cmp("abc", "abc"), Equal);
        assert_eq!(alphanumeric_cmp("x_9_b", "x_10_a"), Less);
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
