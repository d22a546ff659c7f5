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
    sender: mpsc::Sender<Batch>,
}

/// What a user sends at once. A user whose samples wait (HTTP, JDBC) sends each one
/// before it waits for the next, so most of its batches hold one sample: those go
/// without a list to allocate and free.
#[derive(Debug)]
pub enum Batch {
    One(SampleEvent),
    Many(Vec<SampleEvent>),
}

impl Batch {
    pub fn len(&self) -> usize {
        match self {
            Batch::One(_) => 1,
            Batch::Many(events) => events.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hands every sample to `each`, oldest first.
    pub fn for_each(self, mut each: impl FnMut(SampleEvent)) {
        match self {
            Batch::One(event) => each(event),
            Batch::Many(events) => events.into_iter().for_each(each),
        }
    }
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
    pub fn new(capacity: usize) -> (ResultsBus, mpsc::Receiver<Batch>) {
        let (sender, receiver) = mpsc::channel(capacity);
        (ResultsBus { sender }, receiver)
    }

    /// Publishes a batch of samples, in order; returns false only if the sink task is
    /// gone.
    pub async fn publish(&self, batch: Batch) -> bool {
        self.sender.send(batch).await.is_ok()
    }

    /// Publishes a batch if the bus has room now (for a user that is being dropped and
    /// cannot wait); false when it was lost.
    pub fn try_publish(&self, batch: Batch) -> bool {
        self.sender.try_send(batch).is_ok()
    }
}

/// A user's samples not yet on the bus, oldest first: a lone sample is kept by itself,
/// and a list is made when a second one comes.
#[derive(Default)]
pub struct PendingSamples {
    lone: Option<SampleEvent>,
    events: Vec<SampleEvent>,
}

impl PendingSamples {
    /// Keeps a sample; true when the batch should go now (full, or its oldest sample is
    /// old enough).
    pub fn push(&mut self, event: SampleEvent) -> bool {
        if self.events.is_empty() {
            match self.lone.take() {
                None => {
                    self.lone = Some(event);
                    return USER_BATCH == 1;
                }
                Some(first) => {
                    self.events.reserve_exact(USER_BATCH);
                    self.events.push(first);
                }
            }
        }
        let end = event.result.end_time;
        self.events.push(event);
        self.events.len() >= USER_BATCH || end - self.events[0].result.end_time >= MAX_BATCH_AGE_MS
    }

    pub fn is_empty(&self) -> bool {
        self.lone.is_none() && self.events.is_empty()
    }

    /// The kept samples, leaving none.
    pub fn take(&mut self) -> Batch {
        match self.lone.take() {
            Some(event) => Batch::One(event),
            None => Batch::Many(std::mem::take(&mut self.events)),
        }
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
        let mut ends = Vec::new();
        pending.take().for_each(|e| ends.push(e.result.end_time));
        assert_eq!(ends, [5_000, 5_099, 5_100]);
        assert!(pending.is_empty());
    }

    #[test]
    fn a_lone_sample_goes_by_itself_and_the_next_ones_follow_in_order() {
        let mut pending = PendingSamples::default();
        assert!(!pending.push(ended_at(7)));
        assert!(!pending.is_empty());
        let lone = pending.take();
        assert!(matches!(&lone, Batch::One(event) if event.result.end_time == 7));
        assert!(pending.is_empty());
        for end in [8, 9, 10] {
            assert!(!pending.push(ended_at(end)));
        }
        let mut ends = Vec::new();
        let batch = pending.take();
        assert_eq!(batch.len(), 3);
        batch.for_each(|e| ends.push(e.result.end_time));
        assert_eq!(ends, [8, 9, 10]);
        assert!(pending.is_empty());
    }
}
