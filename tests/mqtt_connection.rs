//! The xmeter 1.0 MQTT Connection sampler (`net.xmeter.samplers.ConnectionSampler`) end
//! to end against a private Mosquitto broker (`support::mosquitto`): every sample opens
//! a connection that stays open (subscribed to `topic_<client id>`) until the test has
//! ended and the keep time has passed, rows as the plugin writes them, a refused broker
//! and a setting that does not read. The broker's log (epoch-second timestamps) shows
//! when each connection came and went.

mod support;

use std::time::{Duration, Instant};

use support::mosquitto::Mosquitto;
use support::run_fixture;
use support::services::free_port;

/// The keep time the fixture is given, seconds.
const KEEP_S: u64 = 3;

/// The epoch second of the broker's log line that contains `needle`.
fn logged_at(log: &str, needle: &str) -> i64 {
    let line = log
        .lines()
        .find(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in the broker's log:\n{log}"));
    line.split(':')
        .next()
        .and_then(|stamp| stamp.trim().parse().ok())
        .unwrap_or_else(|| panic!("no timestamp on {line:?}"))
}

/// The `FutureConnection@…` identity in a message.
fn connection_object(message: &str) -> &str {
    let start = message.find("FutureConnection@").expect("connection named");
    message[start..].split(' ').next().expect("one word")
}

#[test]
fn connections_are_held_for_the_keep_time_after_the_test_and_rows_are_the_plugins() {
    let broker = Mosquitto::start();
    let started = Instant::now();
    let jtl = run_fixture(
        "mqtt/connection.jmx",
        &[
            &format!("-Jmqtt_port={}", broker.port),
            &format!("-Jmqtt_tls_port={}", broker.tls_port),
            &format!("-Jmqtt_closed_port={}", free_port()),
            &format!("-Jkeep_time={KEEP_S}"),
        ],
    );
    let run_time = started.elapsed();
    let log = broker.log();

    // Each of the 2 users × 2 iterations made its own connection, all succeeded.
    let connects = jtl.labelled("connect");
    assert_eq!(connects.len(), 4);
    let mut objects = Vec::new();
    for &row in &connects {
        let message = jtl.get(row, "responseMessage");
        assert_eq!(jtl.get(row, "responseCode"), "200", "{message}");
        assert_eq!(jtl.get(row, "success"), "true");
        assert_eq!(jtl.int(row, "bytes"), "Successful.".len() as i64);
        let object = connection_object(message);
        assert_eq!(
            message,
            format!("Connection org.fusesource.mqtt.client.{object} connected successfully.")
        );
        let hash = object.trim_start_matches("FutureConnection@");
        assert!(
            !hash.is_empty() && hash.chars().all(|c| c.is_ascii_hexdigit()),
            "{message}"
        );
        objects.push(object.to_string());
        // The plugin sets no latency and no connect time.
        assert_eq!(jtl.int(row, "Latency"), 0);
    }
    objects.sort();
    objects.dedup();
    assert_eq!(objects.len(), 4, "a new connection object per sample");

    // The broker saw four conn_ clients (23-character ids, keep-alive 30), each subscribed
    // to its own topic at QoS 1 and none sent DISCONNECT; each stayed for the keep time
    // after the last sample.
    let clients: Vec<&str> = log
        .lines()
        .filter_map(|line| line.split(" as ").nth(1))
        .filter(|rest| rest.starts_with("conn_"))
        .filter_map(|rest| rest.split(' ').next())
        .collect();
    assert_eq!(clients.len(), 4, "{log}");
    let last_sample_end_s = connects
        .iter()
        .chain(jtl.labelled("refused").iter())
        .map(|&row| (jtl.int(row, "timeStamp") + jtl.int(row, "elapsed")) / 1000)
        .max()
        .expect("rows");
    for client in &clients {
        assert_eq!(client.len(), 23, "{client}");
        assert!(log.contains(&format!("as {client} (p2, c1, k30)")), "{log}");
        assert!(
            log.contains(&format!("topic_{client} (QoS 1)")),
            "subscribed to its own topic: {log}"
        );
        assert!(
            !log.contains(&format!("Received DISCONNECT from {client}")),
            "the plugin never disconnects: {log}"
        );
        let closed = logged_at(&log, &format!("Client {client} closed its connection"));
        assert!(
            closed >= last_sample_end_s + KEEP_S as i64 - 1,
            "{client} closed at {closed}, the test ended at {last_sample_end_s}:\n{log}"
        );
    }
    assert!(
        run_time >= Duration::from_secs(KEEP_S),
        "the run waited the keep time: {run_time:?}"
    );

    // A refused broker: 500 with the connection object of that sample.
    let refused = jtl.labelled("refused");
    assert_eq!(refused.len(), 4);
    for &row in &refused {
        let message = jtl.get(row, "responseMessage");
        assert_eq!(jtl.get(row, "responseCode"), "500");
        assert_eq!(jtl.get(row, "success"), "false");
        assert_eq!(jtl.int(row, "bytes"), "Failed.".len() as i64);
        assert_eq!(
            message,
            format!(
                "Connection org.fusesource.mqtt.client.{} connected failed.",
                connection_object(message)
            )
        );
        assert!(jtl.int(row, "elapsed") < 2000, "no retries: {message}");
    }

    // SSL, the prefix alone as client id.
    let ssl = jtl.one("ssl connect");
    assert_eq!(jtl.get(ssl, "responseCode"), "200");
    assert!(log.contains("as ssl_ (p2, c1, k30)"), "{log}");
    assert!(log.contains("topic_ssl_ (QoS 1)"), "{log}");

    // A keep-alive that is not a number fails before any connection object exists.
    let bad = jtl.one("bad keep alive");
    assert_eq!(jtl.get(bad, "responseCode"), "500");
    assert_eq!(
        jtl.get(bad, "responseMessage"),
        "Connection null connected failed."
    );
    assert!(!log.contains(" as bad_"), "{log}");
}
