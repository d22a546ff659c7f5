//! MQTT Sub Sampler (`SubSampler`): subscribes the user's connection (once per topic
//! list; topics separated by commas) and reports the messages received.
//!
//! "Sample on" decides what one sample reports. `specified elapsed time (ms)`: the
//! sampler waits that long, then reports every message received since the previous
//! report. `number of received messages`: it waits until that many have arrived (as
//! long as it takes, as the plugin does) and reports exactly that many, the rest being
//! left for the next sample. The sample starts when the wait ends: its response
//! message is `Received N of message.`, its sample count N (so a report of 10 messages
//! counts as 10 samples in the statistics), its bytes the messages' length in UTF-16
//! units, its response data the messages, one per line, when "debug response" is on.
//! With "add timestamp" on, the elapsed time and latency are the mean delivery time of
//! the messages (their arrival minus the publisher's timestamp prefix); otherwise 0.
//!
//! Failures wait a second after the sample, as the plugin's penalty does, so a broken
//! setting does not spin.

use std::sync::Arc;

use async_trait::async_trait;
use rumqttc::QoS;

use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::{new_result, sleep_unless_stopped};

use super::connect::failed;
use super::connection::{user_mqtt, Received};
use super::message_format_int;
use super::publish::TIMESTAMP_SEPARATOR;

/// The "Sample on" option that reports by time.
const BY_TIME: &str = "specified elapsed time (ms)";

/// The pause after a failed sample, ms.
const FAILURE_PENALTY_MS: u64 = 1000;

pub struct SubSampler {
    topics: Setting,
    qos: Setting,
    condition: Setting,
    /// The condition value with the message-count default (1) when absent.
    count: Setting,
    /// The condition value with the elapsed-time default (1000 ms) when absent.
    elapsed: Setting,
    add_timestamp: Setting,
    debug_response: Setting,
}

pub(super) fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    Arc::new(SubSampler {
        topics: cx.setting("mqtt.topic_name", "test_topic"),
        qos: cx.setting("mqtt.qos_level", "0"),
        condition: cx.setting("mqtt.sample_condition", BY_TIME),
        count: cx.setting("mqtt.sample_condition_value", "1"),
        elapsed: cx.setting("mqtt.sample_condition_value", "1000"),
        add_timestamp: cx.setting("mqtt.add_timestamp", "false"),
        debug_response: cx.setting("mqtt.debug_response", "false"),
    })
}

/// What a report says about the messages it covers.
#[derive(Debug, Default, PartialEq)]
struct Report {
    count: usize,
    size: i64,
    /// Mean delivery time, ms (the plugin's running average).
    mean_delivery_ms: f64,
    contents: String,
}

/// Sums up `messages` as the plugin's listener does: messages that are not UTF-8 text,
/// or whose timestamp prefix is not a number, are lost (its listener throws on them).
fn report(messages: Vec<Received>, add_timestamp: bool, debug: bool) -> Report {
    let mut report = Report::default();
    for message in messages {
        let Ok(text) = String::from_utf8(message.payload.to_vec()) else {
            continue;
        };
        if add_timestamp {
            if let Some(index) = text.find(TIMESTAMP_SEPARATOR) {
                let Ok(sent) = text[..index].parse::<i64>() else {
                    continue;
                };
                let delivery = (message.at_ms - sent) as f64;
                let n = report.count as f64;
                report.mean_delivery_ms = (report.mean_delivery_ms * n + delivery) / (n + 1.0);
            }
        }
        if debug {
            report.contents.push_str(&text);
            report.contents.push('\n');
        }
        report.size += text.encode_utf16().count() as i64;
        report.count += 1;
    }
    report
}

/// Java's `Integer.parseInt`.
fn java_int(text: &str) -> Option<i32> {
    text.parse().ok()
}

impl SubSampler {
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let result = new_result(cx, cx.label.clone());
        let mut eval = cx.user.eval(&cx.label);
        let by_time = self.condition.text(&mut eval) == BY_TIME;
        let value = if by_time {
            self.elapsed.text(&mut eval)
        } else {
            self.count.text(&mut eval)
        };
        let topics = self.topics.text(&mut eval);
        let qos = match java_int(&self.qos.text(&mut eval)) {
            Some(1) => QoS::AtLeastOnce,
            Some(2) => QoS::ExactlyOnce,
            _ => QoS::AtMostOnce,
        };
        let add_timestamp = self.add_timestamp.bool(&mut eval);
        let debug = self.debug_response.bool(&mut eval);
        let state = user_mqtt(cx.user);
        let client_id = state.client_id.clone();
        let fail = |code: &'static str, message: String| {
            let data = match &client_id {
                Some(id) => format!("Client [{id}]: {message}"),
                None => message.clone(),
            };
            (code, message, data)
        };
        let checked = match (state.connection.as_mut(), java_int(&value)) {
            (None, _) => Err(fail(
                "500",
                "Subscribe failed because connection is not established.".into(),
            )),
            (Some(_), None) => Err(fail(
                "510",
                "Unrecognized value for sample elapsed time or message count.".into(),
            )),
            (Some(_), Some(ms)) if by_time && ms <= 0 => Err(fail(
                "511",
                "Sample on elapsed time: must be greater than 0 ms.".into(),
            )),
            (Some(_), Some(count)) if !by_time && count < 1 => Err(fail(
                "512",
                "Sample on message count: must be greater than 1.".into(),
            )),
            (Some(connection), Some(value)) => {
                if connection.subscribed.insert(topics.clone()) {
                    let list: Vec<&str> = topics.split(',').collect();
                    match connection.subscribe(&list, qos).await {
                        Ok(()) => Ok(value),
                        Err(_) => Err(fail(
                            "501",
                            format!("Failed to subscribe to topic(s):{topics}"),
                        )),
                    }
                } else {
                    Ok(value)
                }
            }
        };
        let stop = cx.user.run.stop_now.clone();
        // A count that never arrives (a dropped connection, a silent topic) waits, as in the
        // plugin, but never past the user's scheduled end or a graceful stop of the run.
        let graceful = cx.user.run.stop_token();
        let user_end = cx.user.end_time;
        let value = match checked {
            Ok(value) => value,
            Err((code, message, data)) => {
                let mut result = result;
                Stopwatch::start().stop(&mut result);
                let result = failed(result, code, message, data);
                sleep_unless_stopped(FAILURE_PENALTY_MS, &stop).await;
                return result;
            }
        };
        let Some(connection) = user_mqtt(cx.user).connection.as_mut() else {
            return result;
        };
        let messages: Vec<Received> = if by_time {
            sleep_unless_stopped(value as u64, &stop).await;
            connection.collect_arrived();
            connection.received.drain(..).collect()
        } else {
            let wanted = value as usize;
            let end = async {
                match user_end {
                    Some(end) => tokio::time::sleep_until(end).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = connection.wait_for_messages(wanted) => {}
                _ = stop.cancelled() => {}
                _ = graceful.cancelled() => {}
                _ = end => {}
            }
            let available = wanted.min(connection.received.len());
            connection.received.drain(..available).collect()
        };
        finish(
            result,
            report(messages, add_timestamp, debug),
            add_timestamp,
        )
    }
}

/// The report's result, starting now.
fn finish(mut result: SampleResult, report: Report, add_timestamp: bool) -> SampleResult {
    Stopwatch::start().stop(&mut result);
    if report.count > 0 && add_timestamp {
        let mean = report.mean_delivery_ms as i64;
        result.end_time = result.start_time + mean;
        result.elapsed = mean;
        result.latency = mean;
    } else {
        result.end_time = result.start_time;
        result.elapsed = 0;
    }
    result.response_code = "200".into();
    result.response_message =
        format!("Received {} of message.", message_format_int(report.count)).into();
    result.body_size = Some(report.size);
    result.bytes_override = report.size;
    result.response_data = report.contents.into_bytes();
    result.sample_count = i32::try_from(report.count).unwrap_or(i32::MAX);
    result
}

#[async_trait]
impl Sampler for SubSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(Arc::new(self.sample_unboxed(cx).await))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn received(text: &[u8], at_ms: i64) -> Received {
        Received {
            payload: bytes::Bytes::copy_from_slice(text),
            at_ms,
        }
    }

    #[test]
    fn reports_average_delivery_over_timestamped_messages() {
        let messages = vec![
            received(b"1000ts_sep_flaghello", 1010),
            received(b"1000ts_sep_flagh\xc3\xa9", 1030),
            received(b"no stamp", 1040),
            received(b"xts_sep_flaglost", 1050),
            received(b"\xff lost", 1060),
        ];
        let report = report(messages, true, true);
        assert_eq!(report.count, 3);
        assert_eq!(report.mean_delivery_ms, 20.0);
        assert_eq!(
            report.contents,
            "1000ts_sep_flaghello\n1000ts_sep_flaghé\nno stamp\n"
        );
        assert_eq!(report.size, 20 + 17 + 8);
    }

    #[test]
    fn a_report_of_timestamped_messages_lasts_their_mean_delivery() {
        let report = Report {
            count: 2,
            size: 4,
            mean_delivery_ms: 12.7,
            contents: String::new(),
        };
        let result = finish(SampleResult::new(Arc::from("s")), report, true);
        assert_eq!(result.elapsed, 12);
        assert_eq!(result.latency, 12);
        assert_eq!(result.sample_count, 2);
        assert_eq!(result.bytes(), 4);
        assert_eq!(result.response_message, "Received 2 of message.");
        let empty = finish(SampleResult::new(Arc::from("s")), Report::default(), true);
        assert_eq!((empty.elapsed, empty.sample_count), (0, 0));
    }
}
