//! The results bus: a bounded channel from virtual users to the one task that owns the
//! sinks, which runs on a thread of its own (`commands::run::spawn_drain`).
//!
//! Users publish their samples in batches ([`PendingSamples`]): at high rates one
//! message per sample made every worker write the channel's shared counters for every
//! sample. A user sends its batch when it is full, when its oldest sample is
//! [`MAX_BATCH_AGE_MS`] old, and before anything that can make it wait (a timer, a sample
//! that is not complete at once, a lock, its end), so no sample is held back while the
//! user is idle and none is left behind when it stops.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::sample::SampleResult;

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
    sender: mpsc::Sender<Vec<SampleEvent>>,
}

/// Capacity of the bus, in batches (of at most [`USER_BATCH`] samples each).
pub const BUS_CAPACITY: usize = 2048;

/// Most samples a user keeps before sending them.
pub const USER_BATCH: usize = 64;

/// Oldest a kept sample gets (by its end time) before the user sends its batch: a user
/// whose samples complete at once but slowly (a long script) still shows its results
/// promptly.
pub const MAX_BATCH_AGE_MS: i64 = 100;

impl ResultsBus {
    pub fn new(capacity: usize) -> (ResultsBus, mpsc::Receiver<Vec<SampleEvent>>) {
        let (sender, receiver) = mpsc::channel(capacity);
        (ResultsBus { sender }, receiver)
    }

    /// Publishes a batch of samples, in order; returns false only if the sink task is
    /// gone.
    pub async fn publish(&self, batch: Vec<SampleEvent>) -> bool {
        self.sender.send(batch).await.is_ok()
    }

    /// Publishes a batch if the bus has room now (for a user that is being dropped and
    /// cannot wait); false when it was lost.
    pub fn try_publish(&self, batch: Vec<SampleEvent>) -> bool {
        self.sender.try_send(batch).is_ok()
    }
}

/// A user's samples not yet on the bus, oldest first.
#[derive(Default)]
pub struct PendingSamples {
    events: Vec<SampleEvent>,
}

impl PendingSamples {
    /// Keeps a sample; true when the batch should go now (full, or its oldest sample is
    /// old enough).
    pub fn push(&mut self, event: SampleEvent) -> bool {
        if self.events.capacity() == 0 {
            self.events.reserve_exact(USER_BATCH);
        }
        let end = event.result.end_time;
        self.events.push(event);
        self.events.len() >= USER_BATCH || end - self.events[0].result.end_time >= MAX_BATCH_AGE_MS
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The kept samples, leaving none.
    pub fn take(&mut self) -> Vec<SampleEvent> {
        std::mem::take(&mut self.events)
    }
}

/// A consumer of samples: a `.jtl` writer, the summariser, a report aggregator.
pub trait Sink: Send {
    /// Called for every sample, in the order they were published.
    fn on_sample(&mut self, event: &SampleEvent) -> std::io::Result<()>;
    /// Called about every half second, and on every stop path.
    fn flush(&mut self) -> std::io::Result<()>;
    /// Called once at the end of the run, after the last sample.
    fn finish(&mut self) -> std::io::Result<()> {
        self.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended_at(end_time: i64) -> SampleEvent {
        let mut result = SampleResult::new_shared(Arc::from("s"));
        Arc::get_mut(&mut result).unwrap().end_time = end_time;
        SampleEvent {
            result,
            listeners: Arc::from(Vec::new()),
        }
    }

    #[test]
    fn a_batch_goes_when_full_or_when_its_oldest_sample_is_old_enough() {
        let mut pending = PendingSamples::default();
        for i in 1..USER_BATCH {
            assert!(!pending.push(ended_at(1_000 + i as i64)), "sample {i}");
        }
        assert!(pending.push(ended_at(1_000)));
        assert_eq!(pending.take().len(), USER_BATCH);
        assert!(pending.is_empty());

        assert!(!pending.push(ended_at(5_000)));
        assert!(!pending.push(ended_at(5_000 + MAX_BATCH_AGE_MS - 1)));
        assert!(pending.push(ended_at(5_000 + MAX_BATCH_AGE_MS)));
        let batch = pending.take();
        let ends: Vec<i64> = batch.iter().map(|e| e.result.end_time).collect();
        assert_eq!(ends, [5_000, 5_099, 5_100]);
    }
}
