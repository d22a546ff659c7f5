//! The samples a graceful stop waits for. After a Ctrl-C or SIGTERM users start no new
//! sample, and each user then inside one lists it here until it ends, so the stop can
//! say what it is waiting for (the run command prints it) and for how long.
//!
//! Users list themselves only once the stop was asked for: the hot path of a sample pays
//! nothing for this.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::foundation::fast_hash::FastMap;

/// A sample in progress during a stop.
#[derive(Debug, Clone)]
pub struct InFlight {
    pub label: Arc<str>,
    pub thread: Arc<str>,
    /// When the user noticed the stop while inside the sample (close to when it started
    /// waiting: the sample had not ended by the stop).
    pub since: Instant,
}

/// Every sample in progress during a stop, by entry number.
#[derive(Default)]
pub struct InFlightSamples {
    next: AtomicU64,
    entries: Mutex<FastMap<u64, InFlight>>,
}

/// Removes its entry when the sample ends (or is abandoned).
pub struct Listed<'a> {
    samples: &'a InFlightSamples,
    id: u64,
}

impl Drop for Listed<'_> {
    fn drop(&mut self) {
        self.samples.entries.lock().remove(&self.id);
    }
}

impl InFlightSamples {
    /// Lists a sample until the returned guard drops.
    pub fn enter(&self, label: Arc<str>, thread: Arc<str>) -> Listed<'_> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let entry = InFlight {
            label,
            thread,
            since: Instant::now(),
        };
        self.entries.lock().insert(id, entry);
        Listed { samples: self, id }
    }

    /// The samples in progress now, oldest first.
    pub fn now(&self) -> Vec<InFlight> {
        let mut all: Vec<InFlight> = self.entries.lock().values().cloned().collect();
        all.sort_by_key(|entry| entry.since);
        all
    }
}

/// One line saying what a stop waits for: `3 samples in progress: "Login" (Users 1-1,
/// 2.1 s), "Search" ×2 (…)`, grouped by label, at most a few labels named.
pub fn describe(samples: &[InFlight], now: Instant) -> String {
    const NAMED: usize = 5;
    if samples.is_empty() {
        return "no sample in progress".to_string();
    }
    let mut labels: Vec<(&str, Vec<&InFlight>)> = Vec::new();
    for sample in samples {
        match labels
            .iter_mut()
            .find(|(label, _)| *label == &*sample.label)
        {
            Some((_, group)) => group.push(sample),
            None => labels.push((&sample.label, vec![sample])),
        }
    }
    let count = samples.len();
    let noun = if count == 1 { "sample" } else { "samples" };
    let mut parts: Vec<String> = labels
        .iter()
        .take(NAMED)
        .map(|(label, group)| {
            let longest = group
                .iter()
                .map(|s| now.saturating_duration_since(s.since))
                .max()
                .unwrap_or(Duration::ZERO);
            match group.as_slice() {
                [one] => format!("\"{label}\" ({}, waiting {})", one.thread, seconds(longest)),
                _ => format!(
                    "\"{label}\" ×{} (longest waiting {})",
                    group.len(),
                    seconds(longest)
                ),
            }
        })
        .collect();
    if labels.len() > NAMED {
        parts.push(format!("{} more labels", labels.len() - NAMED));
    }
    format!("{count} {noun} in progress: {}", parts.join(", "))
}

/// A duration as `2.1 s`.
pub fn seconds(duration: Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_until_the_sample_ends_and_groups_by_label() {
        let samples = InFlightSamples::default();
        let a = samples.enter(Arc::from("Login"), Arc::from("Users 1-1"));
        let b = samples.enter(Arc::from("Search"), Arc::from("Users 1-2"));
        let c = samples.enter(Arc::from("Search"), Arc::from("Users 1-3"));
        let now = Instant::now();
        let text = describe(&samples.now(), now);
        assert!(
            text.starts_with(
                "3 samples in progress: \"Login\" (Users 1-1, waiting 0.0 s), \"Search\" ×2"
            ),
            "{text}"
        );
        drop((a, b));
        assert_eq!(samples.now().len(), 1);
        drop(c);
        assert_eq!(describe(&samples.now(), now), "no sample in progress");
    }
}
