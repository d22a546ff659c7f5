//! Results: what a sample measured ([`SampleResult`]), the bounded bus that carries
//! results from virtual users to sinks, and the sinks themselves (`.jtl` writers in CSV
//! and XML, the console summariser).
//!
//! Virtual users only ever `send` a [`SampleEvent`] on the bus; one task owns every sink
//! and writes, so a slow disk applies back-pressure instead of losing samples.

mod bus;
mod sample;

pub use bus::{ResultsBus, SampleEvent, Sink, BUS_CAPACITY};
pub use sample::{AssertionResult, SampleAction, SampleResult, TRANSACTION_MESSAGE_PREFIX};
