//! MQTT Connection (`ConnectionSampler`) of the plugin's 1.0 release, made to open many
//! idle connections: every sample connects (the FuseSource client), subscribes the new
//! connection to `topic_<client id>` at QoS 1 without waiting for the SUBACK, and keeps
//! it. Nothing closes those connections while the test runs; when it ends, the plugin
//! (in non-GUI mode, as jmxr runs) sleeps for the "keep time" before JMeter exits and
//! the connections drop with the process.
//!
//! Here the connections go into run-wide [`HeldConnections`] (their event loops keep
//! pinging the broker); the user goes on at once. When the last thread group has ended,
//! [`hold_after_test`] waits the keep time (cut short by a stop from outside) and then
//! closes them all. The keep time is the plugin's static one: the value of the last
//! Connection element (in plan order) that has sampled.
//!
//! Results as the plugin writes them: `200`, `Connection <c> connected successfully.`,
//! data `Successful.`; any failure `500`, `Connection <c> connected failed.`, data
//! `Failed.`, where `<c>` is how Java prints the client's `FutureConnection` object
//! (`org.fusesource.mqtt.client.FutureConnection@1b6d3586`) and `null` before the
//! element's first connection object exists.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use parking_lot::Mutex;
use rand::Rng;
use rumqttc::QoS;

use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::runlog;
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::new_result;
use crate::user_state::RunShared;

use super::connect::{client_id, java_int};
use super::connection::{ConnectOptions, Connection};

/// Where the run keeps the held connections.
const HELD_KEY: &str = "mqtt.ConnectionSampler.held";

/// FuseSource's first reconnect delay and its ceiling; the delay doubles each attempt.
const FIRST_RETRY_DELAY: Duration = Duration::from_millis(10);
const LONGEST_RETRY_DELAY: Duration = Duration::from_secs(30);

/// Connections made by Connection samplers, held until the end of the test plus the
/// keep time.
#[derive(Default)]
pub struct HeldConnections {
    connections: Mutex<Vec<Connection>>,
    /// The keep time in seconds and the element that set it (the last in plan order).
    keep_time: Mutex<Option<(usize, i64)>>,
}

impl HeldConnections {
    /// How many connections are held.
    pub fn len(&self) -> usize {
        self.connections.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// After the test: holds the connections of the run's Connection samplers for the keep
/// time, then closes them. Returns at once when no Connection sampler has run.
pub async fn hold_after_test(run: &RunShared) {
    let Some(held) = run.existing_shared::<HeldConnections>(HELD_KEY) else {
        return;
    };
    let keep_s = held.keep_time.lock().map_or(0, |(_, seconds)| seconds);
    if keep_s > 0 && !run.stop_now.is_cancelled() && !run.stop_notice.is_cancelled() {
        runlog::info(&format!(
            "The work has been done, will keep {} MQTT connection(s) for {keep_s} seconds.",
            held.len()
        ));
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(keep_s as u64)) => {}
            _ = run.stop_notice.cancelled() => {}
            _ = run.stop_now.cancelled() => {}
        }
    }
    // The plugin's connections end with the JVM: closed sockets, no DISCONNECT.
    held.connections.lock().clear();
}

pub struct ConnectionSampler {
    server: Setting,
    port: Setting,
    protocol: Setting,
    version: Setting,
    keep_alive: Setting,
    prefix: Setting,
    suffix: Setting,
    user_name: Setting,
    password: Setting,
    timeout: Setting,
    attempts: Setting,
    reconnect_attempts: Setting,
    keep_time: Setting,
}

pub(super) fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    if cx.flag("mqtt.dual_ssl_authentication", false) {
        cx.error(
            "MQTT client certificates (dual SSL authentication) are not supported; \
             use SSL with server authentication only",
        );
    }
    Arc::new(ConnectionSampler {
        server: cx.setting("mqtt.server", "127.0.0.1"),
        port: cx.setting("mqtt.port", "1883"),
        protocol: cx.setting("mqtt.protocol", "TCP"),
        version: cx.setting("mqtt.version", "3.1"),
        keep_alive: cx.setting("mqtt.conn_keep_alive", "300"),
        prefix: cx.setting("mqtt.client_id_prefix", "conn_"),
        suffix: cx.setting("mqtt.client_id_suffix", "true"),
        user_name: cx.setting("mqtt.user_name", ""),
        password: cx.setting("mqtt.password", ""),
        timeout: cx.setting("mqtt.conn_timeout", "10"),
        attempts: cx.setting("mqtt.conn_attampt_max", "0"),
        reconnect_attempts: cx.setting("mqtt.reconn_attampt_max", "0"),
        keep_time: cx.setting("mqtt.keep_time", "1800"),
    })
}

/// What a user keeps per Connection element: how its last connection object prints
/// (the sampler clone's `connection` field).
#[derive(Default)]
struct LastConnection(Option<String>);

/// The settings read before the clock starts; `Err` is the plugin's exception there.
struct Prepared {
    options: ConnectOptions,
    tls: Option<bool>,
    retries: Option<u32>,
    timeout: Result<i32, ()>,
}

impl ConnectionSampler {
    fn prepare(&self, cx: &mut SampleContext<'_>) -> Result<Prepared, ()> {
        let user = &mut *cx.user;
        let mut eval = user.eval(&cx.label);
        let protocol = self.protocol.text(&mut eval);
        let host = self.server.text(&mut eval);
        let port = self.port.text(&mut eval);
        let version = self.version.text(&mut eval);
        let keep_alive = self.keep_alive.text(&mut eval);
        let prefix = self.prefix.text(&mut eval);
        let suffix = self.suffix.bool(&mut eval);
        let attempts = self.attempts.text(&mut eval);
        let reconnect_attempts = self.reconnect_attempts.text(&mut eval);
        let user_name = self.user_name.text(&mut eval);
        let password = self.password.text(&mut eval);
        let timeout = self.timeout.text(&mut eval);
        // FuseSource knows these two protocol versions; jmxr speaks 3.1.1 for both.
        if version != "3.1" && version != "3.1.1" {
            return Err(());
        }
        let keep_alive = java_int(&keep_alive)? as i16;
        let client_id = if suffix {
            client_id(&prefix, &mut user.rng)?
        } else {
            prefix
        };
        let attempts = java_int(&attempts)?;
        java_int(&reconnect_attempts)?;
        let tls = match protocol.as_str() {
            "TCP" => Some(false),
            "SSL" => Some(true),
            // Any other scheme fails when the client connects.
            _ => None,
        };
        Ok(Prepared {
            options: ConnectOptions {
                host,
                // A port that is not a port fails when the client connects.
                port: port.parse().unwrap_or(0),
                client_id,
                tls: tls.unwrap_or(false),
                keep_alive_s: u64::try_from(keep_alive).unwrap_or(0),
                clean_session: true,
                user_name: (!user_name.trim().is_empty()).then_some(user_name),
                password: (!password.trim().is_empty()).then_some(password),
                // The sample's timeout bounds the attempts together, and each one.
                timeout_s: java_int(&timeout).map_or(0, |s| u64::try_from(s).unwrap_or(0)),
            },
            tls,
            // A negative maximum retries until the sample's timeout.
            retries: u32::try_from(attempts).ok(),
            timeout: java_int(&timeout),
        })
    }

    /// Reads the keep time as the plugin's `testStarted` does (a value that does not
    /// read leaves the previous one).
    fn note_keep_time(&self, cx: &mut SampleContext<'_>, held: &HeldConnections) {
        let text = self.keep_time.text(&mut cx.user.eval(&cx.label));
        let Ok(seconds) = java_int(&text) else {
            return;
        };
        let mut keep = held.keep_time.lock();
        if keep.is_none_or(|(element, _)| element <= cx.element_id) {
            *keep = Some((cx.element_id, i64::from(seconds)));
        }
    }
}

/// How Java prints a new FuseSource `FutureConnection`: its class and identity hash.
fn new_connection_name(rng: &mut impl Rng) -> String {
    format!(
        "org.fusesource.mqtt.client.FutureConnection@{:x}",
        rng.gen_range(1..=0x7fff_ffffu32)
    )
}

/// Connects as FuseSource does: on failure it tries again up to `retries` more times
/// (without limit when `None`), waiting 10 ms, then twice as long each time.
async fn connect_with_retries(prepared: &Prepared) -> Result<Connection, String> {
    let mut delay = FIRST_RETRY_DELAY;
    let mut failures = 0u32;
    loop {
        let options = &prepared.options;
        let attempt = ConnectOptions {
            host: options.host.clone(),
            port: options.port,
            client_id: options.client_id.clone(),
            tls: options.tls,
            keep_alive_s: options.keep_alive_s,
            clean_session: options.clean_session,
            user_name: options.user_name.clone(),
            password: options.password.clone(),
            timeout_s: options.timeout_s,
        };
        let error = if prepared.tls.is_none() || options.port == 0 {
            "unsupported address".to_string()
        } else {
            match Connection::open(attempt).await {
                Ok(connection) => return Ok(connection),
                Err(error) => error,
            }
        };
        if prepared.retries.is_some_and(|retries| failures >= retries) {
            return Err(error);
        }
        failures += 1;
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(LONGEST_RETRY_DELAY);
    }
}

#[async_trait]
impl Sampler for ConnectionSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        let held = cx
            .user
            .run
            .shared::<HeldConnections>(HELD_KEY, Default::default)?;
        self.note_keep_time(cx, &held);
        let mut result = new_result(cx, cx.label.clone());
        let prepared = self.prepare(cx);
        let watch = Stopwatch::start();
        let Ok(prepared) = prepared else {
            watch.stop(&mut result);
            let name = cx
                .user
                .slot(cx.element_id, LastConnection::default)
                .0
                .clone();
            return Some(Arc::new(failed(result, name.as_deref())));
        };
        let name = new_connection_name(&mut cx.user.rng);
        cx.user.slot(cx.element_id, LastConnection::default).0 = Some(name.clone());
        let stop = cx.user.run.stop_now.clone();
        let opened = match prepared.timeout {
            Err(()) => Err(String::new()),
            Ok(seconds) => {
                let timeout = Duration::from_secs(u64::try_from(seconds).unwrap_or(0));
                tokio::select! {
                    opened = tokio::time::timeout(timeout, connect_with_retries(&prepared)) => {
                        opened.unwrap_or_else(|_| Err("timed out".to_string()))
                    }
                    _ = stop.cancelled() => Err(String::new()),
                }
            }
        };
        let mut connection = match opened {
            Ok(connection) => connection,
            Err(_) => {
                watch.stop(&mut result);
                return Some(Arc::new(failed(result, Some(&name))));
            }
        };
        let topic = format!("topic_{}", prepared.options.client_id);
        // The plugin does not wait for the SUBACK, nor look at the outcome.
        let _ = connection.subscribe(&[&topic], QoS::AtLeastOnce).await;
        watch.stop(&mut result);
        held.connections.lock().push(connection);
        result.response_code = "200".into();
        result.response_message = format!("Connection {name} connected successfully.").into();
        result.response_data = b"Successful.".to_vec();
        Some(Arc::new(result))
    }
}

/// The plugin's failed result; `name` is `None` before any connection object exists.
fn failed(mut result: SampleResult, name: Option<&str>) -> SampleResult {
    result.response_code = "500".into();
    result.response_message =
        format!("Connection {} connected failed.", name.unwrap_or("null")).into();
    result.response_data = b"Failed.".to_vec();
    result.set_success(false);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn connections_print_as_java_prints_a_future_connection() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let name = new_connection_name(&mut rng);
        let hash = name
            .strip_prefix("org.fusesource.mqtt.client.FutureConnection@")
            .expect("class name first");
        assert!(!hash.is_empty() && hash.len() <= 8, "{name}");
        assert!(
            !hash.starts_with('0'),
            "Integer.toHexString has no leading zeros"
        );
        assert!(u32::from_str_radix(hash, 16).is_ok_and(|h| h <= 0x7fff_ffff));
    }

    #[test]
    fn failures_name_the_connection_or_null() {
        let result = failed(SampleResult::new(Arc::from("c")), None);
        assert_eq!(
            &*result.response_message,
            "Connection null connected failed."
        );
        assert_eq!(result.response_data, b"Failed.");
        assert_eq!(&*result.response_code, "500");
        assert!(!result.success);
    }
}
