//! MQTT Connect (`ConnectSampler`) and DisConnect (`DisConnectSampler`).
//!
//! Connect reads its settings as the plugin does (Java's strict `Integer.parseInt` for
//! numbers; a setting it cannot read fails the sample with `502` and the plugin's "check
//! SSL authentication info" text, before any network activity), makes the client id
//! (the prefix, then as many hex digits of a random UUID as fill 23 characters when
//! "add suffix" is on), connects and keeps the connection for the user. Its sample
//! times the connection up to the CONNACK.

use std::sync::Arc;

use async_trait::async_trait;
use rand::Rng;

use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::new_result;

use super::connection::{user_mqtt, ConnectOptions, Connection};
use super::connection_name;

/// The longest client id the plugin makes a suffix for.
const MAX_CLIENT_ID_LENGTH: usize = 23;

pub struct ConnectSampler {
    server: Setting,
    port: Setting,
    protocol: Setting,
    keep_alive: Setting,
    prefix: Setting,
    suffix: Setting,
    user_name: Setting,
    password: Setting,
    clean_session: Setting,
    timeout: Setting,
}

pub(super) fn build_connect(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    let protocol = cx.setting("mqtt.protocol", "TCP");
    if let Some(literal @ ("WS" | "WSS")) = protocol.constant_text() {
        cx.error(format!(
            "MQTT over WebSocket (protocol {literal}) is not supported; use TCP or SSL"
        ));
    }
    if cx.flag("mqtt.dual_ssl_authentication", false) {
        cx.error(
            "MQTT client certificates (dual SSL authentication) are not supported; \
             use SSL with server authentication only",
        );
    }
    Arc::new(ConnectSampler {
        server: cx.setting("mqtt.server", "127.0.0.1"),
        port: cx.setting("mqtt.port", "1883"),
        protocol,
        keep_alive: cx.setting("mqtt.conn_keep_alive", "300"),
        prefix: cx.setting("mqtt.client_id_prefix", "conn_"),
        suffix: cx.setting("mqtt.client_id_suffix", "true"),
        user_name: cx.setting("mqtt.user_name", ""),
        password: cx.setting("mqtt.password", ""),
        clean_session: cx.setting("mqtt.conn_clean_session", "true"),
        timeout: cx.setting("mqtt.conn_timeout", "10"),
    })
}

/// Java's `Integer.parseInt`: no spaces, an optional sign, 32 bits.
pub(super) fn java_int(text: &str) -> Result<i32, ()> {
    text.parse::<i32>().map_err(|_| ())
}

/// The plugin's `Util.generateClientId`: the prefix, then the start of a random
/// version-4 UUID's hex digits up to 23 characters.
pub(super) fn client_id(prefix: &str, rng: &mut impl Rng) -> Result<String, ()> {
    let room = MAX_CLIENT_ID_LENGTH
        .checked_sub(prefix.chars().count())
        .ok_or(())?;
    let mut uuid: [u8; 16] = rng.gen();
    uuid[6] = (uuid[6] & 0x0f) | 0x40;
    uuid[8] = (uuid[8] & 0x3f) | 0x80;
    let hex: String = uuid.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(format!("{prefix}{}", &hex[..room]))
}

impl ConnectSampler {
    /// The connection options, or `None` when a setting does not read (the plugin's
    /// parameter failure).
    fn options(&self, cx: &mut SampleContext<'_>) -> Option<ConnectOptions> {
        let user = &mut *cx.user;
        let mut eval = user.eval(&cx.label);
        let protocol = self.protocol.text(&mut eval);
        let host = self.server.text(&mut eval);
        let port = java_int(&self.port.text(&mut eval)).ok()?;
        let keep_alive = java_int(&self.keep_alive.text(&mut eval)).ok()? as i16;
        let prefix = self.prefix.text(&mut eval);
        let suffix = self.suffix.bool(&mut eval);
        let user_name = self.user_name.text(&mut eval);
        let password = self.password.text(&mut eval);
        let clean_session = self.clean_session.bool(&mut eval);
        let timeout = java_int(&self.timeout.text(&mut eval)).ok()?;
        let tls = match protocol.as_str() {
            "TCP" => false,
            "SSL" => true,
            _ => return None,
        };
        let client_id = if suffix {
            client_id(&prefix, &mut user.rng).ok()?
        } else {
            prefix
        };
        let user_name = (!user_name.trim().is_empty()).then_some(user_name);
        Some(ConnectOptions {
            host,
            port: u16::try_from(port).ok()?,
            client_id,
            tls,
            // A negative keep-alive makes the plugin's client refuse to connect.
            keep_alive_s: u64::try_from(keep_alive).unwrap_or(u64::MAX),
            clean_session,
            password: user_name
                .as_ref()
                .and((!password.trim().is_empty()).then_some(password)),
            user_name,
            timeout_s: u64::try_from(timeout).unwrap_or(0),
        })
    }

    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let mut result = new_result(cx, cx.label.clone());
        if let Some(existing) = &user_mqtt(cx.user).connection {
            let name = connection_name(&existing.client_id);
            let watch = Stopwatch::start();
            watch.stop(&mut result);
            return failed(
                result,
                "500",
                format!("Connection {name} is already established."),
                "Failed. Connection is already established.".to_string(),
            );
        }
        let Some(options) = self.options(cx) else {
            Stopwatch::start().stop(&mut result);
            return failed(
                result,
                "502",
                "Failed to establish Connection null. Please check SSL authentication info."
                    .to_string(),
                "Failed to establish Connection. Please check SSL authentication info.".to_string(),
            );
        };
        let client_id = options.client_id.clone();
        let refused_keep_alive = options.keep_alive_s == u64::MAX;
        let stop = cx.user.run.stop_now.clone();
        let watch = Stopwatch::start();
        let opened = if refused_keep_alive {
            Err(String::new())
        } else {
            tokio::select! {
                opened = Connection::open(options) => opened,
                _ = stop.cancelled() => Err(String::new()),
            }
        };
        watch.stop(&mut result);
        let state = user_mqtt(cx.user);
        state.client_id = Some(client_id.clone());
        match opened {
            Ok(connection) => {
                state.connection = Some(connection);
                result.response_code = "200".into();
                result.response_message = format!(
                    "Connection {} established successfully.",
                    connection_name(&client_id)
                )
                .into();
                result.response_data = b"Successful.".to_vec();
                result
            }
            Err(_) => failed(
                result,
                "502",
                "Failed to establish Connection null.".to_string(),
                format!("Client [{client_id}] failed with exception."),
            ),
        }
    }
}

/// A failed result with the plugin's code, message and response data.
pub(super) fn failed(
    mut result: SampleResult,
    code: &'static str,
    message: String,
    data: String,
) -> SampleResult {
    result.response_code = code.into();
    result.response_message = message.into();
    result.response_data = data.into_bytes();
    result.set_success(false);
    result
}

#[async_trait]
impl Sampler for ConnectSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(Arc::new(self.sample_unboxed(cx).await))
    }
}

/// The DisConnect sampler: it has no settings.
pub struct DisConnectSampler;

pub(super) fn build_disconnect() -> Arc<dyn Sampler> {
    Arc::new(DisConnectSampler)
}

#[async_trait]
impl Sampler for DisConnectSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        let mut result = new_result(cx, cx.label.clone());
        let watch = Stopwatch::start();
        let state = user_mqtt(cx.user);
        let Some(connection) = state.connection.take() else {
            watch.stop(&mut result);
            return Some(Arc::new(failed(
                result,
                "500",
                "Connection not found.".to_string(),
                "Failed. Connection not found.".to_string(),
            )));
        };
        let name = connection_name(&connection.client_id);
        let client_id = connection.client_id.clone();
        let outcome = connection.disconnect().await;
        watch.stop(&mut result);
        let result = match outcome {
            Ok(()) => {
                result.response_code = "200".into();
                result.response_message = format!("Connection {name} disconnected.").into();
                result.response_data = b"Successful.".to_vec();
                result
            }
            Err((connection, _)) => {
                // The plugin forgets the connection only after a clean disconnect.
                user_mqtt(cx.user).connection = Some(connection);
                failed(
                    result,
                    "501",
                    format!("Failed to disconnect Connection {name}."),
                    format!("Client [{client_id}] failed. Couldn't disconnect connection."),
                )
            }
        };
        Some(Arc::new(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn client_ids_fill_23_characters_with_uuid_hex() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        let id = client_id("pub_", &mut rng).expect("short prefix");
        assert_eq!(id.len(), 23);
        assert!(id.starts_with("pub_"));
        assert!(id[4..].chars().all(|c| c.is_ascii_hexdigit()));
        // The UUID's version digit sits at hex position 12.
        assert_eq!(&id[16..17], "4");
        assert_eq!(client_id("", &mut rng).expect("empty prefix").len(), 23);
        assert!(client_id(&"x".repeat(24), &mut rng).is_err());
        assert_eq!(
            client_id(&"x".repeat(23), &mut rng).as_deref(),
            Ok("xxxxxxxxxxxxxxxxxxxxxxx")
        );
    }

    #[test]
    fn numbers_read_as_integer_parse_int() {
        assert_eq!(java_int("1883"), Ok(1883));
        assert_eq!(java_int("+5"), Ok(5));
        assert!(java_int(" 1883").is_err());
        assert!(java_int("").is_err());
    }
}
