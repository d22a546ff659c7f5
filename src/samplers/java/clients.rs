//! The Java client classes JMeter ships for trying plans out, emulated natively.
//!
//! * `JavaTest` reads all its parameters on every sample and sets the result's label,
//!   code, message, status and data from them, after sleeping.
//! * `SleepTest` reads `SleepTime`/`SleepMask` and the element name once per virtual
//!   user (its setup runs before the user's first sample) and only sleeps.
//!
//! Both sleep `time + (now mod mask)` ms; a "Stop now" ends the sleep early and the
//! sample fails, as JMeter's interrupted clients do.

use std::sync::Arc;

use crate::foundation::clock::wall_clock_ms;
use crate::plan::SampleContext;
use crate::sample::SampleResult;
use crate::sample::Stopwatch;
use crate::samplers::new_result;
use crate::samplers::sleep_unless_stopped;

use super::{sleep_ms, Parameters, ELEMENT_NAME};

/// `JavaTest`'s parameter defaults.
const JAVA_TEST_SLEEP_TIME: i64 = 100;
const JAVA_TEST_SLEEP_MASK: i64 = 0xff;
/// `SleepTest`'s parameter defaults.
const SLEEP_TEST_SLEEP_TIME: i64 = 1000;
const SLEEP_TEST_SLEEP_MASK: i64 = 0x3ff;

/// One sample of `org.apache.jmeter.protocol.java.test.JavaTest`.
pub(super) async fn java_test(params: &Parameters<'_>, cx: &mut SampleContext<'_>) -> SampleResult {
    let sleep_time = params.long("Sleep_Time", JAVA_TEST_SLEEP_TIME);
    let sleep_mask = params.long("Sleep_Mask", JAVA_TEST_SLEEP_MASK);
    let label = match params.get("Label") {
        Some(label) if !label.is_empty() => label,
        _ => params.get(ELEMENT_NAME).unwrap_or(""),
    };
    let mut result = new_result(cx, Arc::from(label));
    result.response_code = params.get("ResponseCode").unwrap_or("").to_string().into();
    result.response_message = params
        .get("ResponseMessage")
        .unwrap_or("")
        .to_string()
        .into();
    let sampler_data = params.get("SamplerData").unwrap_or("");
    result.sampler_data = sampler_data.to_string();
    // JMeter counts the Java string's length (UTF-16 units), not its bytes.
    result.sent_bytes = sampler_data.encode_utf16().count() as i64;
    let result_data = params.get("ResultData").unwrap_or("");
    if !result_data.is_empty() {
        result.response_data = result_data.as_bytes().to_vec();
        result.data_encoding = "UTF-8".into();
    }
    result.data_type = "text";
    let status_ok = params
        .get("Status")
        .unwrap_or("OK")
        .eq_ignore_ascii_case("OK");

    let watch = Stopwatch::start();
    let sleep = sleep_ms(sleep_time, sleep_mask, watch.start_ms());
    let completed = sleep <= 0 || sleep_unless_stopped(sleep as u64, &cx.user.run.stop_now).await;
    result.set_success(status_ok && completed);
    watch.stop(&mut result);
    result
}

/// What `SleepTest` reads in its setup, kept per virtual user.
#[derive(Debug, Clone)]
struct SleepSetup {
    sleep_time: i64,
    sleep_mask: i64,
    name: Arc<str>,
}

/// One sample of `org.apache.jmeter.protocol.java.test.SleepTest`.
pub(super) async fn sleep_test(
    params: &Parameters<'_>,
    cx: &mut SampleContext<'_>,
) -> SampleResult {
    let setup = cx
        .user
        .slot(cx.element_id, || SleepSetup {
            sleep_time: params.long("SleepTime", SLEEP_TEST_SLEEP_TIME),
            sleep_mask: params.long("SleepMask", SLEEP_TEST_SLEEP_MASK),
            name: Arc::from(params.get(ELEMENT_NAME).unwrap_or("")),
        })
        .clone();
    let mut result = new_result(cx, setup.name);
    let sleep = sleep_ms(setup.sleep_time, setup.sleep_mask, wall_clock_ms());
    result.sampler_data = format!("Sleep Test: time = {sleep}");

    let watch = Stopwatch::start();
    let completed = sleep <= 0 || sleep_unless_stopped(sleep as u64, &cx.user.run.stop_now).await;
    result.set_success(completed);
    if !completed {
        result.response_message = "java.lang.InterruptedException: sleep interrupted".into();
    }
    watch.stop(&mut result);
    result
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio_util::sync::CancellationToken;

    use crate::foundation::properties::Properties;
    use crate::jmx::Element;
    use crate::samplers::java::{JAVA_TEST, SLEEP_TEST};
    use crate::samplers::test_support::*;

    fn java_request(class: &str, args: &[(&str, &str)]) -> Element {
        element(
            "JavaSampler",
            "JavaTestSamplerGui",
            "Java Request",
            vec![
                string_prop("classname", class),
                arguments_prop("arguments", args),
            ],
        )
    }

    #[tokio::test]
    async fn java_test_sets_the_result_from_its_arguments() {
        let element = java_request(
            JAVA_TEST,
            &[
                ("Sleep_Time", "0"),
                ("Sleep_Mask", "0xFF"),
                ("Label", "custom"),
                ("ResponseCode", "201"),
                ("ResponseMessage", "Created"),
                ("Status", "ok"),
                ("SamplerData", "héllo𝄞"),
                ("ResultData", "résumé"),
            ],
        );
        let result = build_and_sample(&element).await;
        assert_eq!(&*result.label, "custom");
        assert_eq!(result.response_code, "201");
        assert_eq!(result.response_message, "Created");
        assert!(result.success);
        assert_eq!(result.error_count, 0);
        assert_eq!(result.sampler_data, "héllo𝄞");
        assert_eq!(result.sent_bytes, 7, "UTF-16 length, as Java counts");
        assert_eq!(result.response_data, "résumé".as_bytes());
        assert_eq!(result.bytes(), 8);
        assert_eq!(result.data_type, "text");
        assert_eq!(result.data_encoding, "UTF-8");
        assert_eq!(&*result.thread_name, "Thread Group 1-1");
        assert!(result.start_time > 0);
        assert_eq!(result.end_time, result.start_time + result.elapsed);
    }

    #[tokio::test]
    async fn java_test_defaults_to_the_element_name_and_success() {
        let element = java_request(
            JAVA_TEST,
            &[("Sleep_Time", "0"), ("Label", ""), ("ResultData", "")],
        );
        let result = build_and_sample(&element).await;
        assert_eq!(&*result.label, "Java Request");
        assert_eq!(result.response_code, "");
        assert!(result.success);
        assert!(result.response_data.is_empty());
        assert_eq!(result.data_encoding, "", "no data, no encoding");
        assert_eq!(result.data_type, "text");
    }

    #[tokio::test]
    async fn java_test_status_other_than_ok_fails() {
        let element = java_request(JAVA_TEST, &[("Sleep_Time", "0"), ("Status", "KO")]);
        let result = build_and_sample(&element).await;
        assert!(!result.success);
        assert_eq!(result.error_count, 1);
    }

    #[tokio::test]
    async fn java_test_sleeps_the_configured_time() {
        let element = java_request(JAVA_TEST, &[("Sleep_Time", "60"), ("Sleep_Mask", "0")]);
        let result = build_and_sample(&element).await;
        assert!(result.elapsed >= 60, "elapsed {}", result.elapsed);
        assert!(result.elapsed < 2000, "elapsed {}", result.elapsed);
    }

    #[tokio::test]
    async fn java_test_ends_early_and_fails_when_the_run_stops_now() {
        let element = java_request(JAVA_TEST, &[("Sleep_Time", "10000")]);
        let (sampler, _) = build_element(&element, &[]);
        let token = CancellationToken::new();
        let mut user = user_with(Properties::new(), token.clone());
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(30)).await;
            token.cancel();
        });
        let result = sample(sampler.expect("built").as_ref(), &mut user, "JR")
            .await
            .expect("sampled");
        assert!(!result.success);
        assert!(result.elapsed < 5000, "elapsed {}", result.elapsed);
    }

    #[tokio::test]
    async fn sleep_test_reads_its_parameters_once_per_user() {
        let element = java_request(SLEEP_TEST, &[("SleepTime", "40"), ("SleepMask", "0")]);
        let (sampler, diagnostics) = build_element(&element, &[]);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let sampler = sampler.expect("built");
        let mut user = user();
        let first = sample(sampler.as_ref(), &mut user, "first name")
            .await
            .expect("sampled");
        assert_eq!(&*first.label, "first name");
        assert_eq!(first.sampler_data, "Sleep Test: time = 40");
        assert!(first.success);
        assert!(first.elapsed >= 40, "elapsed {}", first.elapsed);
        assert_eq!(first.data_type, "");
        let second = sample(sampler.as_ref(), &mut user, "renamed")
            .await
            .expect("sampled");
        assert_eq!(&*second.label, "first name", "setup ran once");
    }

    #[tokio::test]
    async fn sleep_test_interrupted_reports_the_interruption() {
        let element = java_request(SLEEP_TEST, &[("SleepTime", "10000")]);
        let (sampler, _) = build_element(&element, &[]);
        let token = CancellationToken::new();
        token.cancel();
        let mut user = user_with(Properties::new(), token);
        let result = sample(sampler.expect("built").as_ref(), &mut user, "S")
            .await
            .expect("sampled");
        assert!(!result.success);
        assert_eq!(
            result.response_message,
            "java.lang.InterruptedException: sleep interrupted"
        );
    }
}
