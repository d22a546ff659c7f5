//! The results bus: a bounded channel from virtual users to the one task that owns the
//! sinks, which runs on a thread of its own (`run::spawn_drain`).

use std::sync::Arc;

use tokio::sync::mpsc;

use super::SampleResult;

/// A recorded sample and the in-plan listeners (by listener id) whose scope it is in.
#[derive(Debug)]
pub struct SampleEvent {
    /// Shared with the user's `prev`, so recording a sample does not copy its data.
    pub result: Arc<SampleResult>,
    /// Ids of the plan's Result Collectors that see this sample.
    pub listeners: Arc<[usize]>,
}

/// The sending half, cloned into every virtual user. Sending waits when the bus is full,
/// so slow sinks slow the users down rather than losing samples.
#[derive(Clone)]
pub struct ResultsBus {
    sender: mpsc::Sender<SampleEvent>,
}

/// Capacity of the bus, in samples.
pub const BUS_CAPACITY: usize = 65_536;

impl ResultsBus {
    pub fn new(capacity: usize) -> (ResultsBus, mpsc::Receiver<SampleEvent>) {
        let (sender, receiver) = mpsc::channel(capacity);
        (ResultsBus { sender }, receiver)
    }

    /// Publishes a sample; returns false only if the sink task is gone.
    pub async fn publish(&self, event: SampleEvent) -> bool {
        self.sender.send(event).await.is_ok()
    }
}

/// A consumer of samples: a `.jtl` writer, the summariser, a report aggregator.
pub trait Sink: Send {
    /// Called for every sample, in the order they were published.
    fn on_sample(&mut self, event: &SampleEvent) -> std::io::Result<()>;
    /// Called when the bus is idle for a moment and on every stop path.
    fn flush(&mut self) -> std::io::Result<()>;
    /// Called once at the end of the run, after the last sample.
    fn finish(&mut self) -> std::io::Result<()> {
        self.flush()
    }
}
