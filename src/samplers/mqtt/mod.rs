//! The xmeter MQTT samplers (`net.xmeter.samplers.*`, the emqx/mqtt-jmeter plugin):
//! Connect, Pub, Sub and DisConnect, as its 2.x release with the default HiveMQ client
//! behaves.
//!
//! [`connection`] holds the user's one connection (the plugin's `conn` thread
//! variable); [`connect`] makes and ends it, [`publish`] and [`subscribe`] use it.
//! Results carry the plugin's codes and texts: `200` on success, `500` when the
//! connection is missing (or, for Connect, already there), `501`/`502` when the broker
//! or the client fails, `510`–`512` for a Sub sampler's bad condition value. Messages
//! name the connection as the plugin's client prints it,
//! `HiveMQTTConnection{clientId='…'}`.
//!
//! [`connection_sampler`] is the 1.0 release's MQTT Connection sampler: connections
//! made for load only, held by the run past the end of the test for a "keep time".
//!
//! Transports: `TCP` and `SSL` (trusting every server certificate, as the plugin does).
//! MQTT over WebSocket (`WS`, `WSS`), client certificates ("dual SSL authentication")
//! and automatic reconnection are not implemented; the first two are refused by
//! `jmxr check` when the plan says so literally.

pub mod connect;
pub mod connection;
pub mod connection_sampler;
pub mod publish;
pub mod subscribe;

use std::sync::Arc;

use crate::plan::{BuildContext, Sampler};

/// Builds the sampler for an xmeter MQTT class, `None` for any other class.
pub fn build(class: &str, cx: &mut BuildContext<'_>) -> Option<Arc<dyn Sampler>> {
    match class {
        "net.xmeter.samplers.ConnectSampler" => Some(connect::build_connect(cx)),
        "net.xmeter.samplers.ConnectionSampler" => Some(connection_sampler::build(cx)),
        "net.xmeter.samplers.DisConnectSampler" => Some(connect::build_disconnect()),
        "net.xmeter.samplers.PubSampler" => Some(publish::build(cx)),
        "net.xmeter.samplers.SubSampler" => Some(subscribe::build(cx)),
        _ => None,
    }
}

/// The connection as the plugin's messages print it.
pub fn connection_name(client_id: &str) -> String {
    format!("HiveMQTTConnection{{clientId='{client_id}'}}")
}

/// An integer as Java's `MessageFormat` prints it (grouped by thousands).
pub fn message_format_int(value: usize) -> String {
    let digits = value.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_as_message_format_prints_them() {
        assert_eq!(message_format_int(0), "0");
        assert_eq!(message_format_int(999), "999");
        assert_eq!(message_format_int(1000), "1,000");
        assert_eq!(message_format_int(1234567), "1,234,567");
    }

    #[test]
    fn connections_are_named_as_the_hivemq_client_prints_them() {
        assert_eq!(
            connection_name("pub_1"),
            "HiveMQTTConnection{clientId='pub_1'}"
        );
    }
}
