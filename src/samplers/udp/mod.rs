//! UDP load: the native sender behind Java Request classes that follow the UDP sender
//! contract ([`sender`], mapped by `samplers::java::mapping`), and the jmeter-plugins
//! UDP Request with its request/response exchange ([`plugin`]).
//!
//! The receiving end is the `jmxr udp-sink` command (`commands::udp_receiver`); both
//! agree on the optional sequence number at the start of each datagram
//! ([`sender::SEQUENCE_BYTES`] bytes, big-endian).

pub mod plugin;
pub mod sender;
