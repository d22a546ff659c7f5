//! MQTT Pub Sampler (`PubSampler`): publishes one message on the user's connection.
//!
//! The payload is the plugin's: `String` (the text's UTF-8 bytes), `Hex string` (the
//! bytes the hex digits spell), or `Random string with fixed length` (made once per
//! sampler and user, then re-sent), optionally preceded by the send time in epoch ms
//! and `ts_sep_flag`, which the Sub sampler reads to time the delivery. The sample
//! times the publish up to what the QoS waits for (written, PUBACK or PUBCOMP); its
//! latency is its elapsed time and its sent bytes the payload's length.
//!
//! Where the plugin records a settings failure (a bad hex string or number) with a
//! start time of 0, jmxr stamps the sample at the moment it failed, with no duration.

use std::sync::Arc;

use async_trait::async_trait;
use rand::Rng;
use rumqttc::QoS;

use crate::foundation::clock::wall_clock_ms;
use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::new_result;

use super::connect::failed;
use super::connection::user_mqtt;
use super::connection_name;

/// The separator after the timestamp prefix.
pub const TIMESTAMP_SEPARATOR: &str = "ts_sep_flag";

/// The characters of the plugin's random payloads: it draws from all but the last.
const SEEDS: &[u8] = b"abcdefghijklmnopqrstuvwxmy0123456789";

pub struct PubSampler {
    topic: Setting,
    qos: Setting,
    retained: Setting,
    add_timestamp: Setting,
    message_type: Setting,
    length: Setting,
    message: Setting,
}

pub(super) fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    Arc::new(PubSampler {
        topic: cx.setting("mqtt.topic_name", "test_topic"),
        qos: cx.setting("mqtt.qos_level", "0"),
        retained: cx.setting("mqtt.retained_message", "false"),
        add_timestamp: cx.setting("mqtt.add_timestamp", "false"),
        message_type: cx.setting("mqtt.message_type", "Random string with fixed length"),
        length: cx.setting("mqtt.message_type_fixed_length", "1024"),
        message: cx.setting("mqtt.message_to_sent", ""),
    })
}

/// The random payload a sampler made for a user (kept in the sampler's user slot).
struct RandomPayload(Vec<u8>);

/// `Integer.parseInt`, failing with Java's `NumberFormatException` message.
fn java_int(text: &str) -> Result<i32, String> {
    text.parse::<i32>()
        .map_err(|_| format!("For input string: \"{text}\""))
}

/// `DatatypeConverter.parseHexBinary`, failing with its messages.
fn hex_to_binary(text: &str) -> Result<Vec<u8>, String> {
    if !text.len().is_multiple_of(2) {
        return Err(format!("hexBinary needs to be even-length: {text}"));
    }
    let digit = |c: u8| (c as char).to_digit(16);
    text.as_bytes()
        .chunks(2)
        .map(|pair| match (digit(pair[0]), digit(pair[1])) {
            (Some(high), Some(low)) => Ok((high * 16 + low) as u8),
            _ => Err(format!("contains illegal character for hexBinary: {text}")),
        })
        .collect()
}

/// What one sample sends.
struct Message {
    topic: String,
    qos: QoS,
    retained: bool,
    payload: Vec<u8>,
}

impl PubSampler {
    /// The message to send, or the text of the exception the plugin would catch.
    fn message(&self, cx: &mut SampleContext<'_>) -> Result<Message, String> {
        let mut eval = cx.user.eval(&cx.label);
        let message_type = self.message_type.text(&mut eval);
        let text = self.message.text(&mut eval);
        let length = self.length.text(&mut eval);
        let qos = self.qos.text(&mut eval);
        let topic = self.topic.text(&mut eval);
        let retained = self.retained.bool(&mut eval);
        let add_timestamp = self.add_timestamp.bool(&mut eval);
        let body = match message_type.as_str() {
            "Hex string" => hex_to_binary(&text)?,
            "String" => text.into_bytes(),
            "Random string with fixed length" => self.random_payload(cx, &length)?,
            _ => Vec::new(),
        };
        let qos = match java_int(&qos)? {
            1 => QoS::AtLeastOnce,
            2 => QoS::ExactlyOnce,
            _ => QoS::AtMostOnce,
        };
        let payload = if add_timestamp {
            let mut stamped = format!("{}{TIMESTAMP_SEPARATOR}", wall_clock_ms()).into_bytes();
            stamped.extend_from_slice(&body);
            stamped
        } else {
            body
        };
        Ok(Message {
            topic,
            qos,
            retained,
            payload,
        })
    }

    /// The sampler's random payload for this user, made on first use.
    fn random_payload(&self, cx: &mut SampleContext<'_>, length: &str) -> Result<Vec<u8>, String> {
        if let Some(made) = cx.user.slot(cx.element_id, || None::<RandomPayload>) {
            return Ok(made.0.clone());
        }
        let size = java_int(length)?;
        let rng = &mut cx.user.rng;
        let payload: Vec<u8> = (0..size.max(0))
            .map(|_| SEEDS[rng.gen_range(0..SEEDS.len() - 1)])
            .collect();
        *cx.user.slot(cx.element_id, || None::<RandomPayload>) =
            Some(RandomPayload(payload.clone()));
        Ok(payload)
    }

    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let mut result = new_result(cx, cx.label.clone());
        let state = user_mqtt(cx.user);
        let client_id = state.client_id.clone().unwrap_or_else(|| "null".into());
        let Some(name) = state
            .connection
            .as_ref()
            .map(|c| connection_name(&c.client_id))
        else {
            Stopwatch::start().stop(&mut result);
            return failed(
                result,
                "500",
                "Publish: Connection not found.".to_string(),
                "Publish failed because connection is not established.".to_string(),
            );
        };
        let message = match self.message(cx) {
            Ok(message) => message,
            Err(error) => {
                Stopwatch::start().stop(&mut result);
                return failed(
                    result,
                    "502",
                    format!("Publish failed for connection {name}."),
                    format!("Client [{client_id}] publish failed: {error}"),
                );
            }
        };
        result.sampler_data = String::from_utf8_lossy(&message.payload).into_owned();
        result.sent_bytes = message.payload.len() as i64;
        let stop = cx.user.run.stop_now.clone();
        let watch = Stopwatch::start();
        let outcome = match user_mqtt(cx.user).connection.as_mut() {
            Some(connection) => tokio::select! {
                outcome = connection.publish(
                    &message.topic, message.qos, message.retained, message.payload,
                ) => outcome,
                _ = stop.cancelled() => Err("Interrupted".to_string()),
            },
            None => Err("MQTT client is not connected.".to_string()),
        };
        watch.stop(&mut result);
        result.latency = result.elapsed;
        match outcome {
            Ok(()) => {
                result.response_code = "200".into();
                result.response_message =
                    format!("publish successfully for Connection {name}.").into();
                result.response_data = b"Publish successfuly.".to_vec();
                result
            }
            Err(error) => failed(
                result,
                "501",
                format!("Publish failed for connection {name}."),
                format!("Client [{client_id}] publish failed: {error}"),
            ),
        }
    }
}

#[async_trait]
impl Sampler for PubSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(Arc::new(self.sample_unboxed(cx).await))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_strings_read_as_data_type_converter_reads_them() {
        assert_eq!(hex_to_binary("00ff7A"), Ok(vec![0, 255, 0x7a]));
        assert_eq!(
            hex_to_binary("abc"),
            Err("hexBinary needs to be even-length: abc".to_string())
        );
        assert_eq!(
            hex_to_binary("zz"),
            Err("contains illegal character for hexBinary: zz".to_string())
        );
    }

    #[test]
    fn bad_numbers_fail_with_java_messages() {
        assert_eq!(java_int("2"), Ok(2));
        assert_eq!(java_int("x"), Err("For input string: \"x\"".to_string()));
    }
}
