//! jmeter-plugins Dummy Sampler (`kg.apc.jmeter.samplers.DummySampler`): a sample made
//! of its settings, without any network activity, for building and debugging plans.
//!
//! Every setting is evaluated per sample. `RESPONSE_TIME` is the sample's elapsed time:
//! with `WAITING` on the user really waits that long (a "Stop now" ends the wait and the
//! sample is recorded with the time it took); with `WAITING` off or absent (plans saved
//! by older versions of the plugin) the sample takes no time but records the elapsed,
//! start now and end that much later. The times and the response are the plugin's: the
//! three durations are whole numbers (anything else counts as 0), the response data is
//! UTF-8 text, and `URL` is recorded only when it is an absolute URL Java would accept.

use std::sync::Arc;

use async_trait::async_trait;

use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::SampleResult;

use super::{new_result, sleep_unless_stopped};

use crate::foundation::clock::wall_clock_ms;

use crate::sample::Stopwatch;

pub struct DummySampler {
    successful: Setting,
    waiting: Setting,
    response_code: Setting,
    response_message: Setting,
    response_data: Setting,
    request_data: Setting,
    response_time: Setting,
    latency: Setting,
    connect_time: Setting,
    url: Setting,
}

pub(super) fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    Arc::new(DummySampler {
        successful: cx.setting("SUCCESFULL", "false"),
        waiting: cx.setting("WAITING", "false"),
        response_code: cx.setting("RESPONSE_CODE", ""),
        response_message: cx.setting("RESPONSE_MESSAGE", ""),
        response_data: cx.setting("RESPONSE_DATA", ""),
        request_data: cx.setting("REQUEST_DATA", ""),
        response_time: cx.setting("RESPONSE_TIME", ""),
        latency: cx.setting("LATENCY", ""),
        connect_time: cx.setting("CONNECT", ""),
        url: cx.setting("URL", ""),
    })
}

/// Java's `Integer.valueOf` as the plugin uses it: no trimming, 0 when it does not read.
fn java_int(text: &str) -> i64 {
    text.parse::<i32>().map_or(0, i64::from)
}

/// Whether `new java.net.URL(text)` would accept the text: a scheme Java has a handler
/// for, then a colon.
fn java_accepts_url(text: &str) -> bool {
    let Some((scheme, _)) = text.split_once(':') else {
        return false;
    };
    ["http", "https", "ftp", "file", "jar", "mailto"]
        .iter()
        .any(|known| scheme.eq_ignore_ascii_case(known))
}

impl DummySampler {
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let mut result = new_result(cx, cx.label.clone());
        let mut eval = cx.user.eval(&cx.label);
        let response_time = java_int(&self.response_time.text(&mut eval));
        let waiting = self.waiting.bool(&mut eval);
        result.sampler_data = self.request_data.text(&mut eval);
        result.response_code = self.response_code.text(&mut eval).into();
        result.response_message = self.response_message.text(&mut eval).into();
        let successful = self.successful.bool(&mut eval);
        result.response_data = self.response_data.text(&mut eval).into_bytes();
        let url = self.url.text(&mut eval);
        result.latency = java_int(&self.latency.text(&mut eval));
        result.connect_time = java_int(&self.connect_time.text(&mut eval));
        result.data_type = "text";
        result.data_encoding = "UTF-8".into();
        if java_accepts_url(&url) {
            result.url = Some(url);
        }
        result.set_success(successful);
        if waiting {
            let watch = Stopwatch::start();
            if response_time > 0 {
                sleep_unless_stopped(response_time as u64, &cx.user.run.stop_now).await;
            }
            watch.stop(&mut result);
        } else {
            result.start_time = wall_clock_ms();
            result.elapsed = response_time;
            result.end_time = result.start_time + response_time;
        }
        result
    }
}

#[async_trait]
impl Sampler for DummySampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(Arc::new(self.sample_unboxed(cx).await))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_java_reads_them() {
        assert_eq!(java_int("250"), 250);
        assert_eq!(java_int("+7"), 7);
        assert_eq!(java_int("-3"), -3);
        assert_eq!(java_int(" 250"), 0);
        assert_eq!(java_int("1.5"), 0);
        assert_eq!(java_int("99999999999"), 0);
    }

    #[test]
    fn only_urls_java_accepts_are_recorded() {
        assert!(java_accepts_url("http://example.invalid/x"));
        assert!(java_accepts_url("HTTPS://a"));
        assert!(!java_accepts_url(""));
        assert!(!java_accepts_url("/relative/path"));
        assert!(!java_accepts_url("gopher://old"));
    }
}
