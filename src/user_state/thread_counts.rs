//! `ThreadCounts`: how many virtual users are running, have started and have finished
//! (JMeter's `JMeterContextService.getThreadCounts()`), shared by the engine and the
//! summariser.

use std::sync::atomic::{AtomicU64, Ordering};

/// Counters the engine updates as virtual users start and stop; read by the summariser's
/// `Active: … Started: … Finished: …` and by thread-count columns.
#[derive(Debug, Default)]
pub struct ThreadCounts {
    /// Users running now.
    pub active: AtomicU64,
    /// Users started since the test began.
    pub started: AtomicU64,
    /// Users that have ended.
    pub finished: AtomicU64,
}

/// A consistent-enough copy of the counters for one line of output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThreadCountsSnapshot {
    pub active: u64,
    pub started: u64,
    pub finished: u64,
}

impl ThreadCounts {
    pub fn new() -> ThreadCounts {
        ThreadCounts::default()
    }

    /// A virtual user began.
    pub fn thread_started(&self) {
        self.started.fetch_add(1, Ordering::Relaxed);
        self.active.fetch_add(1, Ordering::Relaxed);
    }

    /// A virtual user ended.
    pub fn thread_finished(&self) {
        self.finished.fetch_add(1, Ordering::Relaxed);
        // Saturate rather than wrap if an engine bug reports more ends than starts.
        let _ = self
            .active
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }

    pub fn snapshot(&self) -> ThreadCountsSnapshot {
        ThreadCountsSnapshot {
            active: self.active.load(Ordering::Relaxed),
            started: self.started.load(Ordering::Relaxed),
            finished: self.finished.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_starts_and_ends() {
        let counts = ThreadCounts::new();
        counts.thread_started();
        counts.thread_started();
        counts.thread_finished();
        let expected = ThreadCountsSnapshot {
            active: 1,
            started: 2,
            finished: 1,
        };
        assert_eq!(counts.snapshot(), expected);
    }
}
