//! What the sink counts: datagrams and bytes per wall-clock second, and, when the sender
//! numbers its datagrams, which numbers arrived (lost, duplicated, out of order).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::samplers::udp::sender::SEQUENCE_BYTES;

/// Datagrams and bytes received in one second.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Second {
    pub datagrams: u64,
    pub bytes: u64,
}

/// Tracks sequence numbers in a bitmap: 2,000 datagrams a second for an hour is under
/// 1 MB, and a number above [`MAX_TRACKED`] is counted as out of range rather than
/// letting a stray datagram allocate gigabytes.
#[derive(Debug, Default)]
pub struct Sequences {
    seen: Vec<u64>,
    pub unique: u64,
    pub duplicated: u64,
    /// Arrived after a higher number had already arrived.
    pub reordered: u64,
    /// Datagrams too short to carry a number, or numbered beyond [`MAX_TRACKED`].
    pub unreadable: u64,
    highest: Option<u64>,
}

/// The highest sequence number tracked (2^32 numbers: a 512 MB bitmap at worst).
pub const MAX_TRACKED: u64 = 1 << 32;

impl Sequences {
    pub fn record(&mut self, datagram: &[u8]) {
        let Some(head) = datagram.get(..SEQUENCE_BYTES) else {
            self.unreadable += 1;
            return;
        };
        let mut bytes = [0u8; SEQUENCE_BYTES];
        bytes.copy_from_slice(head);
        let number = u64::from_be_bytes(bytes);
        if number >= MAX_TRACKED {
            self.unreadable += 1;
            return;
        }
        let (word, bit) = ((number / 64) as usize, number % 64);
        if word >= self.seen.len() {
            self.seen.resize(word + 1, 0);
        }
        if self.seen[word] & (1 << bit) != 0 {
            self.duplicated += 1;
            return;
        }
        self.seen[word] |= 1 << bit;
        self.unique += 1;
        match self.highest {
            Some(highest) if number < highest => self.reordered += 1,
            _ => self.highest = Some(number),
        }
    }

    /// Numbers below the highest received that never arrived (the sender numbers from 0).
    pub fn lost(&self) -> u64 {
        self.highest.map_or(0, |highest| highest + 1 - self.unique)
    }

    pub fn highest(&self) -> Option<u64> {
        self.highest
    }
}

/// Everything the sink counted.
#[derive(Debug, Default)]
pub struct Counts {
    /// By epoch second.
    pub seconds: BTreeMap<i64, Second>,
    pub datagrams: u64,
    pub bytes: u64,
    /// `Some` when the sender numbers its datagrams.
    pub sequences: Option<Sequences>,
}

impl Counts {
    pub fn new(sequence: bool) -> Counts {
        Counts {
            sequences: sequence.then(Sequences::default),
            ..Counts::default()
        }
    }

    pub fn record(&mut self, epoch_second: i64, datagram: &[u8]) {
        self.record_sized(epoch_second, datagram.len(), datagram);
    }

    /// Counts a datagram of `len` bytes of which `head` is the start (at least the
    /// sequence number, when the datagram has one).
    pub fn record_sized(&mut self, epoch_second: i64, len: usize, head: &[u8]) {
        let second = self.seconds.entry(epoch_second).or_default();
        second.datagrams += 1;
        second.bytes += len as u64;
        self.datagrams += 1;
        self.bytes += len as u64;
        if let Some(sequences) = &mut self.sequences {
            sequences.record(head);
        }
    }

    /// The rates of the seconds between the first and the last, which were received
    /// whole (the first and last are cut by the start and end of the traffic).
    pub fn steady_rates(&self) -> Vec<u64> {
        let (Some(first), Some(last)) = (
            self.seconds.keys().next().copied(),
            self.seconds.keys().next_back().copied(),
        ) else {
            return Vec::new();
        };
        (first + 1..last)
            .map(|s| self.seconds.get(&s).map_or(0, |c| c.datagrams))
            .collect()
    }

    /// The plateau: the whole seconds within 10 % of their median rate, which leaves out
    /// a ramp-up and a ramp-down without being told about them.
    pub fn plateau(&self) -> Vec<u64> {
        let mut rates = self.steady_rates();
        if rates.is_empty() {
            return rates;
        }
        let mut sorted = rates.clone();
        sorted.sort_unstable();
        let median = sorted[sorted.len() / 2] as f64;
        rates.retain(|r| (*r as f64 - median).abs() <= median * 0.1);
        rates
    }

    /// The summary printed at the end.
    pub fn summary(&self, listened_s: f64) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "udp-sink: {} datagrams, {} bytes in {listened_s:.1} s",
            self.datagrams, self.bytes
        );
        let steady = self.steady_rates();
        if !steady.is_empty() {
            let mean = steady.iter().sum::<u64>() as f64 / steady.len() as f64;
            let min = steady.iter().min().copied().unwrap_or(0);
            let max = steady.iter().max().copied().unwrap_or(0);
            let _ = writeln!(
                out,
                "steady state ({} whole seconds): mean {mean:.1} pps, min {min}, max {max}",
                steady.len()
            );
        }
        let plateau = self.plateau();
        if !plateau.is_empty() {
            let mean = plateau.iter().sum::<u64>() as f64 / plateau.len() as f64;
            let within = plateau
                .iter()
                .filter(|r| (**r as f64 - mean).abs() <= mean * 0.01)
                .count();
            let _ = writeln!(
                out,
                "plateau ({} seconds within 10 % of the median): mean {mean:.1} pps, {within} of them within ±1 % of it",
                plateau.len()
            );
        }
        if let Some(seq) = &self.sequences {
            let _ = writeln!(
                out,
                "sequence: highest {}, unique {}, lost {}, duplicated {}, out of order {}, unreadable {}",
                seq.highest().map_or("none".to_string(), |h| h.to_string()),
                seq.unique,
                seq.lost(),
                seq.duplicated,
                seq.reordered,
                seq.unreadable
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: u64) -> Vec<u8> {
        n.to_be_bytes().to_vec()
    }

    #[test]
    fn sequences_find_lost_duplicated_and_reordered_datagrams() {
        let mut seq = Sequences::default();
        for n in [0, 1, 3, 2, 2, 5] {
            seq.record(&numbered(n));
        }
        seq.record(b"short");
        assert_eq!(seq.unique, 5);
        assert_eq!(seq.duplicated, 1);
        assert_eq!(seq.reordered, 1);
        assert_eq!(seq.lost(), 1, "4 never came");
        assert_eq!(seq.unreadable, 1);
        seq.record(&numbered(u64::MAX));
        assert_eq!(seq.unreadable, 2, "no huge bitmap for a stray number");
    }

    #[test]
    fn the_plateau_leaves_out_ramp_up_and_ramp_down() {
        let mut counts = Counts::new(false);
        for (second, n) in [1, 2, 5, 20, 20, 19, 20, 20, 7, 1].into_iter().enumerate() {
            for _ in 0..n {
                counts.record(second as i64, b"x");
            }
        }
        assert_eq!(counts.plateau(), vec![20, 20, 19, 20, 20]);
        assert!(counts.summary(10.0).contains("plateau (5 seconds"));
    }

    #[test]
    fn steady_rates_skip_the_partial_first_and_last_seconds() {
        let mut counts = Counts::new(false);
        for (second, n) in [(10, 3), (11, 5), (13, 4), (14, 1)] {
            for _ in 0..n {
                counts.record(second, b"x");
            }
        }
        assert_eq!(counts.steady_rates(), vec![5, 0, 4]);
        assert!(counts.summary(5.0).contains("13 datagrams"));
    }
}
