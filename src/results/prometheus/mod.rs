//! The Prometheus Listener plugin: the metrics its table defines, served on one HTTP
//! endpoint (`/metrics`, and `/` as the plugin also answers) for Prometheus to scrape.
//!
//! As in the plugin, every Prometheus Listener of a plan feeds one registry that one
//! server exposes (`prometheus.ip`, 127.0.0.1, and `prometheus.port`, 9270). The sink on
//! the results thread updates the registry's numbers under a lock ([`registry`]); the
//! server thread ([`server`]) renders them in Prometheus' text format 0.0.4 as the
//! plugin's client library writes it when Prometheus asks. `jmeter_threads` (the
//! `prometheus.save.threads.name` property) gives the active, started and finished users
//! at each scrape. At the end the server stays up `prometheus.delay` seconds, so a last
//! scrape sees the final numbers.

mod registry;
mod server;

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use self::registry::Registry;
use self::server::Server;
use super::{SampleEvent, Sink};
use crate::foundation::properties::Properties;
use crate::plan::tree::PrometheusListenerSpec;
use crate::user_state::ThreadCounts;

/// The sink of all the plan's Prometheus Listeners and the server that exposes them.
pub struct PrometheusSink {
    registry: Arc<Mutex<Registry>>,
    /// Per listener: its id and the registry's indexes of the metrics it updates.
    listeners: Vec<(usize, Vec<usize>)>,
    server: Option<Server>,
    delay: Duration,
}

impl PrometheusSink {
    /// Registers the listeners' metrics and starts the server. A server that cannot
    /// listen is an error: the caller warns and the run goes on without it, as with the
    /// plugin. `warnings` gets what is exposed other than the plugin would.
    pub fn open(
        specs: &[PrometheusListenerSpec],
        props: &Properties,
        sample_variables: Vec<String>,
        counts: Arc<ThreadCounts>,
        warnings: &mut Vec<String>,
    ) -> Result<PrometheusSink, String> {
        let threads = props.get_bool("prometheus.save.threads", true).then(|| {
            props
                .get("prometheus.save.threads.name")
                .unwrap_or_else(|| "jmeter_threads".to_string())
        });
        let mut registry = Registry::new(threads, counts, sample_variables);
        let mut listeners = Vec::new();
        for spec in specs {
            let mut indexes = Vec::new();
            for collector in &spec.collectors {
                match registry.register(collector) {
                    Ok(index) => indexes.push(index),
                    Err(e) => warnings.push(format!("{}: {e}", spec.path)),
                }
            }
            listeners.push((spec.id, indexes));
        }
        warnings.extend(registry.unknown_labels().into_iter().map(|label| {
            format!(
                "the Prometheus label {label:?} names no sample variable, so its value is \
                 \"null\"; add {label} to the sample_variables property to expose it"
            )
        }));
        if props.get_bool("prometheus.save.jvm", true) {
            // There is no JVM to describe: the plugin's JVM metrics are simply absent.
            crate::runlog::file_only(
                "INFO",
                "the Prometheus Listener exposes no JVM metrics (jmxr runs without a JVM)",
            );
        }
        let ip = props
            .get("prometheus.ip")
            .unwrap_or_else(|| "127.0.0.1".to_string());
        let port = props.get_i64("prometheus.port", 9270);
        let port = u16::try_from(port)
            .map_err(|_| format!("prometheus.port {port} is not a port number"))?;
        let registry = Arc::new(Mutex::new(registry));
        let server = Server::start(&ip, port, registry.clone())?;
        let delay = Duration::from_secs(props.get_i64("prometheus.delay", 0).max(0) as u64);
        Ok(PrometheusSink {
            registry,
            listeners,
            server: Some(server),
            delay,
        })
    }

    /// The address the server listens on.
    pub fn address(&self) -> Option<std::net::SocketAddr> {
        self.server.as_ref().map(Server::address)
    }
}

impl Sink for PrometheusSink {
    fn on_sample(&mut self, event: &SampleEvent) -> std::io::Result<()> {
        if event.result.ignore {
            return Ok(());
        }
        let mut registry = self.registry.lock();
        for (listener, indexes) in &self.listeners {
            if event.listeners.contains(listener) {
                for &index in indexes {
                    registry.update(index, &event.result);
                }
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        if let Some(server) = self.server.take() {
            std::thread::sleep(self.delay);
            server.stop();
        }
        Ok(())
    }
}

impl Drop for PrometheusSink {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            server.stop();
        }
    }
}
