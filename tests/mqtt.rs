//! The xmeter MQTT samplers end to end against a private Mosquitto broker
//! (`support::mosquitto`): connect (client id prefix and suffix, user and password,
//! TLS), publish at QoS 0, 1 and 2 with String, hex and random payloads and the
//! timestamp prefix, retained messages, subscribe by message count and by elapsed time,
//! disconnect, and the plugin's codes and messages when the connection is missing,
//! already made, refused or the payload is bad. The broker's log shows what it received
//! and delivered. Expected texts follow emqx/mqtt-jmeter 2.x (`ConnectSampler`,
//! `PubSampler`, `SubSampler`, `DisConnectSampler`, `HiveMQTTConnection`).

mod support;

use support::mosquitto::Mosquitto;
use support::services::free_port;
use support::{run_fixture, Jtl};

fn row<'a>(jtl: &'a Jtl, label: &str) -> (&'a str, &'a str, bool, i64, i64) {
    let row = jtl.one(label);
    (
        jtl.get(row, "responseCode"),
        jtl.get(row, "responseMessage"),
        jtl.get(row, "success") == "true",
        jtl.int(row, "bytes"),
        jtl.int(row, "sentBytes"),
    )
}

/// The client id in a message `… HiveMQTTConnection{clientId='<id>'} …`.
fn client_id(message: &str) -> &str {
    let start = message.find("clientId='").expect("client id named") + "clientId='".len();
    let end = start + message[start..].find('\'').expect("quoted id");
    &message[start..end]
}

#[test]
fn xmeter_samplers_connect_publish_subscribe_and_fail_as_the_plugin_does() {
    let broker = Mosquitto::start();
    let jtl = run_fixture(
        "mqtt/pubsub.jmx",
        &[
            &format!("-Jmqtt_port={}", broker.port),
            &format!("-Jmqtt_tls_port={}", broker.tls_port),
            &format!("-Jmqtt_auth_port={}", broker.auth_port),
            &format!("-Jmqtt_closed_port={}", free_port()),
        ],
    );
    let log = broker.log();

    // Connect: a 23-character id made of the prefix and hex digits; "Successful." is 11 bytes.
    let (code, message, success, bytes, _) = row(&jtl, "pub connect");
    assert_eq!((code, success, bytes), ("200", true, 11), "{message}");
    let pub_id = client_id(message);
    assert_eq!(
        message,
        format!("Connection HiveMQTTConnection{{clientId='{pub_id}'}} established successfully.")
    );
    assert_eq!(pub_id.len(), 23);
    assert!(pub_id.starts_with("pub_") && pub_id[4..].chars().all(|c| c.is_ascii_hexdigit()));
    assert!(
        log.contains(&format!("as {pub_id} (p2, c1, k30).")),
        "{log}"
    );
    let (_, ssl_message, ssl_ok, _, _) = row(&jtl, "ssl connect");
    assert!(ssl_ok, "{ssl_message}");
    assert_eq!(client_id(ssl_message), "ssl_", "no suffix when it is off");
    assert_eq!(row(&jtl, "ssl pub").0, "200");
    assert!(log.contains("Received PUBLISH from ssl_ (d0, q1, r0, m1, 'jmxr/ssl', ... (8 bytes))"));
    assert!(row(&jtl, "connect with password").2);
    assert!(log.contains(&format!("k30, u'{}').", support::mosquitto::USER)));
    let subscriber = client_id(jtl.get(jtl.one("sub connect"), "responseMessage"));
    assert_eq!(
        log.matches(&format!("Received PUBCOMP from {subscriber}"))
            .count(),
        3,
        "the QoS 2 messages were delivered at QoS 2"
    );

    // Publish: QoS 1 String with the timestamp prefix, QoS 2 hex, QoS 0 random.
    let qos1 = jtl.labelled("pub qos1");
    assert_eq!(qos1.len(), 5);
    let stamp = "1796186274884ts_sep_flag".len();
    for row in &qos1 {
        assert_eq!(jtl.get(row, "responseCode"), "200");
        assert_eq!(
            jtl.get(row, "responseMessage"),
            format!(
                "publish successfully for Connection HiveMQTTConnection{{clientId='{pub_id}'}}."
            )
        );
        assert_eq!(jtl.int(row, "bytes"), "Publish successfuly.".len() as i64);
        assert_eq!(jtl.int(row, "sentBytes"), (stamp + "hello 2".len()) as i64);
        assert_eq!(jtl.get(row, "Latency"), jtl.get(row, "elapsed"));
    }
    assert_eq!(
        log.matches(&format!("Received PUBLISH from {pub_id} (d0, q1, r0, "))
            .count(),
        5,
        "{log}"
    );
    assert_eq!(
        log.matches(&format!("Received PUBLISH from {pub_id} (d0, q2, r0, "))
            .count(),
        3
    );
    assert_eq!(
        log.matches(&format!("Sending PUBCOMP to {pub_id}")).count(),
        3
    );
    assert_eq!(
        log.matches(&format!("Received PUBREL from {pub_id}"))
            .count(),
        3
    );
    for row in jtl.labelled("pub qos2") {
        assert_eq!(jtl.int(row, "sentBytes"), (stamp + 4) as i64, "JMXR in hex");
    }
    assert_eq!(row(&jtl, "pub random").4, 64);
    assert!(log.contains(&format!(
        "Received PUBLISH from {pub_id} (d0, q0, r0, m0, 'jmxr/random', ... (64 bytes))"
    )));
    assert!(log.contains(&format!(
        "Received PUBLISH from {pub_id} (d0, q1, r1, m9, 'jmxr/retained', ... (4 bytes))"
    )));

    // Subscribe: five by count, then the three QoS 2 messages by time.
    let (code, message, success, bytes, _) = row(&jtl, "sub count");
    assert_eq!(
        (code, message, success, bytes),
        ("200", "Received 5 of message.", true, 5 * 31)
    );
    let (code, message, _, bytes, _) = row(&jtl, "sub time");
    assert_eq!(
        (code, message, bytes),
        ("200", "Received 3 of message.", 3 * 28)
    );
    let sub_time = jtl.one("sub time");
    assert!(
        jtl.int(sub_time, "elapsed") < 1000,
        "elapsed is the mean delivery time"
    );
    assert_eq!(row(&jtl, "sub retained").1, "Received 1 of message.");
    assert_eq!(row(&jtl, "sub retained").3, 4, "the retained 'kept'");

    // Disconnect, and the failures with the plugin's codes and texts.
    assert_eq!(
        row(&jtl, "pub disconnect").1,
        format!("Connection HiveMQTTConnection{{clientId='{pub_id}'}} disconnected.")
    );
    assert!(log.contains(&format!("Received DISCONNECT from {pub_id}")));
    let failures = [
        (
            "pub without connection",
            "500",
            "Publish: Connection not found.",
        ),
        ("disconnect again", "500", "Connection not found."),
        (
            "sub without connection",
            "500",
            "Subscribe failed because connection is not established.",
        ),
        (
            "connect refused",
            "502",
            "Failed to establish Connection null.",
        ),
        (
            "connect bad password",
            "502",
            "Failed to establish Connection null.",
        ),
    ];
    for (label, code, message) in failures {
        let (seen_code, seen_message, success, _, _) = row(&jtl, label);
        assert_eq!(
            (seen_code, seen_message, success),
            (code, message, false),
            "{label}"
        );
    }
    assert_eq!(
        row(&jtl, "connect again").1,
        format!("Connection HiveMQTTConnection{{clientId='{pub_id}'}} is already established.")
    );
    let (code, message, _, bytes, _) = row(&jtl, "pub bad hex");
    assert_eq!(
        (code, message),
        (
            "502",
            format!("Publish failed for connection HiveMQTTConnection{{clientId='{pub_id}'}}.")
                .as_str()
        )
    );
    let expected =
        format!("Client [{pub_id}] publish failed: hexBinary needs to be even-length: abc");
    assert_eq!(bytes, expected.len() as i64);
    assert_eq!(
        row(&jtl, "pub without connection").3,
        "Publish failed because connection is not established.".len() as i64
    );
}

/// A Sub waiting for a message count that never comes ends with the user's scheduled
/// duration, reporting what arrived, instead of holding the run.
#[test]
fn a_sub_waiting_for_messages_ends_with_the_users_duration() {
    let broker = Mosquitto::start();
    let started = std::time::Instant::now();
    let jtl = run_fixture(
        "mqtt/sub_bounded.jmx",
        &[&format!("-Jmqtt_port={}", broker.port)],
    );
    let took = started.elapsed();
    assert!(
        took < std::time::Duration::from_secs(10),
        "the run took {took:?}"
    );
    let (code, message, success, bytes, _) = row(&jtl, "sub silent topic");
    assert_eq!(
        (code, message, success, bytes),
        ("200", "Received 0 of message.", true, 0)
    );
    // It waited until the 2 s duration ended, not less.
    let stamp = |label: &str| {
        let r = jtl
            .rows
            .iter()
            .find(|r| jtl.get(r, "label") == label)
            .unwrap();
        jtl.int(r, "timeStamp")
    };
    let connected = stamp("sub connect");
    let sub_start = stamp("sub silent topic");
    assert!(sub_start >= connected, "{sub_start} vs {connected}");
    assert!(took >= std::time::Duration::from_millis(1900), "{took:?}");
}
