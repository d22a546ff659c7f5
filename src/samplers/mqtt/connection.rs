//! A virtual user's MQTT connection, as the xmeter plugin keeps it in the thread's
//! `conn` variable: one per user, made by the Connect sampler, used by Pub and Sub
//! samplers, dropped by the DisConnect sampler or when the user ends.
//!
//! rumqttc's event loop must be polled for the connection to live (keep-alive pings,
//! acknowledgements of received messages), so after the CONNACK a task polls it and
//! passes on what the samplers wait for: publish identifiers, PUBACK/PUBCOMP, received
//! messages (stamped with their arrival time, which the Sub sampler's latency needs)
//! and the end of the connection. Samplers read those notes while they sample; received
//! messages wait in [`Connection::received`] until a Sub sampler takes them, as the
//! plugin's listener batches them between samples.

use std::collections::{HashSet, VecDeque};
use std::time::Duration;

use bytes::Bytes;
use rumqttc::{
    AsyncClient, ConnectionError, Event, EventLoop, MqttOptions, Outgoing, Packet, QoS,
    SubscribeFilter, TlsConfiguration, Transport,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::foundation::clock::wall_clock_ms;
use crate::samplers::http::trust_all_config;
use crate::user_state::UserState;

/// The user slot that holds the connection ("MQ").
const MQTT_SLOT: usize = usize::MAX - 0x4D51;

/// MQTT's largest packet (the remaining-length limit); the plugin's client sets none.
const MAX_PACKET: usize = 268_435_455;

/// What a user holds: the connection (the plugin's `conn` variable) and the client id
/// of the last connection made (its `clientId` variable, which outlives a disconnect).
#[derive(Default)]
pub struct UserMqtt {
    pub connection: Option<Connection>,
    pub client_id: Option<String>,
}

/// The user's MQTT state.
pub fn user_mqtt(user: &mut UserState) -> &mut UserMqtt {
    user.slot(MQTT_SLOT, UserMqtt::default)
}

/// What the event-loop task passes on.
enum Note {
    /// A PUBLISH was written, with its packet identifier (0 for QoS 0).
    Sent(u16),
    PubAck(u16),
    PubComp(u16),
    Message(Received),
    /// The DISCONNECT was written; the task has ended.
    Disconnected,
    /// The connection ended; the text says why.
    Lost(String),
}

/// A received message and its arrival, epoch ms.
pub struct Received {
    pub payload: Bytes,
    pub at_ms: i64,
}

/// How to connect.
pub struct ConnectOptions {
    pub host: String,
    pub port: u16,
    pub client_id: String,
    pub tls: bool,
    pub keep_alive_s: u64,
    pub clean_session: bool,
    pub user_name: Option<String>,
    pub password: Option<String>,
    pub timeout_s: u64,
}

/// One open connection.
pub struct Connection {
    pub client_id: String,
    client: AsyncClient,
    notes: mpsc::UnboundedReceiver<Note>,
    task: JoinHandle<()>,
    /// Messages received and not yet taken by a Sub sampler, oldest first.
    pub received: VecDeque<Received>,
    /// Topic lists this connection has subscribed to (each as the sampler wrote it).
    pub subscribed: HashSet<String>,
    /// Why the connection ended, once it has.
    lost: Option<String>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The message of the plugin's client for an operation on a closed connection.
const NOT_CONNECTED: &str = "MQTT client is not connected.";

impl Connection {
    /// Connects and waits for the CONNACK within the timeout; the error is rumqttc's
    /// description (the plugin's results do not show it).
    pub async fn open(options: ConnectOptions) -> Result<Connection, String> {
        let mut mqtt = MqttOptions::new(options.client_id.clone(), options.host, options.port);
        mqtt.set_keep_alive(Duration::from_secs(options.keep_alive_s))
            .set_clean_session(options.clean_session)
            .set_max_packet_size(MAX_PACKET, MAX_PACKET);
        if let Some(user_name) = options.user_name {
            mqtt.set_credentials(user_name, options.password.unwrap_or_default());
        }
        if options.tls {
            mqtt.set_transport(Transport::tls_with_config(TlsConfiguration::Rustls(
                trust_all_config(),
            )));
        }
        let (client, mut events) = AsyncClient::new(mqtt, 16);
        let timeout = Duration::from_secs(options.timeout_s.max(1));
        // The plugin's client (Netty) sends without Nagle's delay.
        events
            .network_options
            .set_connection_timeout(options.timeout_s.max(1))
            .set_tcp_nodelay(true);
        match tokio::time::timeout(timeout, events.poll()).await {
            Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) => {}
            Ok(Ok(other)) => return Err(format!("expected CONNACK, got {other:?}")),
            Ok(Err(error)) => return Err(error.to_string()),
            Err(_) => return Err(format!("Connection timeout {}", options.client_id)),
        }
        let (sender, notes) = mpsc::unbounded_channel();
        let task = tokio::spawn(pass_on_events(events, sender));
        Ok(Connection {
            client_id: options.client_id,
            client,
            notes,
            task,
            received: VecDeque::new(),
            subscribed: HashSet::new(),
            lost: None,
        })
    }

    /// Publishes and waits as the plugin's blocking client does: until the PUBLISH is
    /// written (QoS 0), acknowledged (QoS 1) or completed (QoS 2).
    pub async fn publish(
        &mut self,
        topic: &str,
        qos: QoS,
        retain: bool,
        payload: Vec<u8>,
    ) -> Result<(), String> {
        if let Some(lost) = &self.lost {
            return Err(lost.clone());
        }
        self.client
            .publish(topic, qos, retain, payload)
            .await
            .map_err(|_| NOT_CONNECTED.to_string())?;
        let pkid = loop {
            match self.next_note().await? {
                Note::Sent(pkid) => break pkid,
                other => self.keep(other),
            }
        };
        loop {
            match qos {
                QoS::AtMostOnce => return Ok(()),
                QoS::AtLeastOnce => match self.next_note().await? {
                    Note::PubAck(id) if id == pkid => return Ok(()),
                    other => self.keep(other),
                },
                QoS::ExactlyOnce => match self.next_note().await? {
                    Note::PubComp(id) if id == pkid => return Ok(()),
                    other => self.keep(other),
                },
            }
        }
    }

    /// Sends a SUBSCRIBE for `topics` without waiting for the SUBACK (the plugin
    /// subscribes asynchronously and only logs refused topics).
    pub async fn subscribe(&mut self, topics: &[&str], qos: QoS) -> Result<(), String> {
        let filters: Vec<SubscribeFilter> = topics
            .iter()
            .map(|topic| SubscribeFilter::new((*topic).to_string(), qos))
            .collect();
        self.client
            .subscribe_many(filters)
            .await
            .map_err(|_| NOT_CONNECTED.to_string())
    }

    /// Waits until at least `count` messages are held (or the connection ends).
    pub async fn wait_for_messages(&mut self, count: usize) {
        while self.received.len() < count {
            match self.next_note().await {
                Ok(note) => self.keep(note),
                // No more messages will come; the plugin would wait until interrupted.
                Err(_) => std::future::pending::<()>().await,
            }
        }
    }

    /// Moves the messages that have arrived so far into [`Connection::received`].
    pub fn collect_arrived(&mut self) {
        while let Ok(note) = self.notes.try_recv() {
            self.keep(note);
        }
    }

    /// Sends DISCONNECT and waits (up to a few seconds) until it is written. Fails as
    /// the plugin's client does when the connection has already ended.
    pub async fn disconnect(mut self) -> Result<(), (Connection, String)> {
        if let Some(lost) = self.lost.clone() {
            return Err((self, lost));
        }
        if self.client.disconnect().await.is_err() {
            return Err((self, NOT_CONNECTED.to_string()));
        }
        let written = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                match self.next_note().await {
                    Ok(Note::Disconnected) | Err(_) => return,
                    Ok(other) => self.keep(other),
                }
            }
        });
        let _ = written.await;
        Ok(())
    }

    /// The next note; an ended connection is an error with the reason.
    async fn next_note(&mut self) -> Result<Note, String> {
        if let Some(lost) = &self.lost {
            return Err(lost.clone());
        }
        match self.notes.recv().await {
            Some(Note::Lost(reason)) => {
                self.lost = Some(reason.clone());
                Err(reason)
            }
            Some(note) => Ok(note),
            None => {
                self.lost = Some(NOT_CONNECTED.to_string());
                Err(NOT_CONNECTED.to_string())
            }
        }
    }

    /// Keeps what a sampler was not waiting for: messages for the Sub samplers, the end
    /// of the connection; acknowledgements of earlier publishes are done with.
    fn keep(&mut self, note: Note) {
        match note {
            Note::Message(message) => self.received.push_back(message),
            Note::Lost(reason) => self.lost = Some(reason),
            Note::Sent(_) | Note::PubAck(_) | Note::PubComp(_) | Note::Disconnected => {}
        }
    }
}

/// Polls the event loop until the connection ends, passing on the notes.
async fn pass_on_events(mut events: EventLoop, notes: mpsc::UnboundedSender<Note>) {
    loop {
        let note = match events.poll().await {
            Ok(Event::Outgoing(Outgoing::Publish(pkid))) => Note::Sent(pkid),
            Ok(Event::Outgoing(Outgoing::Disconnect)) => {
                let _ = notes.send(Note::Disconnected);
                return;
            }
            Ok(Event::Incoming(Packet::PubAck(ack))) => Note::PubAck(ack.pkid),
            Ok(Event::Incoming(Packet::PubComp(comp))) => Note::PubComp(comp.pkid),
            Ok(Event::Incoming(Packet::Publish(publish))) => Note::Message(Received {
                payload: publish.payload,
                at_ms: wall_clock_ms(),
            }),
            Ok(_) => continue,
            Err(error) => {
                let _ = notes.send(Note::Lost(lost_text(&error)));
                return;
            }
        };
        if notes.send(note).is_err() {
            return;
        }
    }
}

/// Why a connection ended, in the plugin's client's words where it has them.
fn lost_text(error: &ConnectionError) -> String {
    match error {
        ConnectionError::Io(_) | ConnectionError::MqttState(_) => {
            "Server closed connection without DISCONNECT.".to_string()
        }
        other => other.to_string(),
    }
}
