//! Percentiles as JMeter's dashboard computes them: commons-math's `DescriptiveStatistics`
//! with a rolling window (the last `statistic_window` values, 20,000 by default) and the
//! LEGACY estimator; or, by option, over every value (exact mode, kept as counts per
//! distinct value so memory stays bounded by the number of distinct response times).
//!
//! Adding a value is on the per-sample path of the live dashboard, so it costs a store
//! (rolling) or one counter update (exact: an array slot for the usual small values, a
//! hash-map entry for the others); sorting waits until a percentile is asked for.

use crate::foundation::fast_hash::FastMap;

/// The values a percentile is taken from.
#[derive(Debug, Clone)]
pub enum Distribution {
    /// The most recent `capacity` values, as JMeter keeps them.
    Rolling {
        values: Vec<i64>,
        next: usize,
        capacity: usize,
    },
    /// Every value, as counts per distinct value.
    Exact { counts: ValueCounts, n: u64 },
}

/// Values below this are counted in an array indexed by value.
const SMALL_VALUES: i64 = 1024;

/// Counts per distinct value: an array (grown up to the largest small value seen) for
/// values in `0..SMALL_VALUES`, a hash map beyond.
#[derive(Debug, Clone, Default)]
pub struct ValueCounts {
    small: Vec<u64>,
    large: FastMap<i64, u64>,
}

impl ValueCounts {
    #[inline]
    fn add(&mut self, value: i64, count: u64) {
        // One comparison: a negative value is a huge unsigned one.
        if (value as u64) < self.small.len() as u64 {
            self.small[value as usize] += count;
        } else {
            self.add_new(value, count);
        }
    }

    /// A value past the array's current end: grows the array or counts it in the map.
    #[cold]
    fn add_new(&mut self, value: i64, count: u64) {
        if (0..SMALL_VALUES).contains(&value) {
            let index = value as usize;
            self.small.resize(index + 1, 0);
            self.small[index] += count;
        } else {
            *self.large.entry(value).or_insert(0) += count;
        }
    }

    /// (value, count) pairs, in no particular order.
    fn iter(&self) -> impl Iterator<Item = (i64, u64)> + '_ {
        let small = self.small.iter().enumerate();
        small
            .filter(|&(_, &c)| c > 0)
            .map(|(v, &c)| (v as i64, c))
            .chain(self.large.iter().map(|(&v, &c)| (v, c)))
    }
}

impl Distribution {
    /// A rolling window of `window` values; `0` means exact mode.
    pub fn new(window: usize) -> Distribution {
        if window == 0 {
            Distribution::Exact {
                counts: ValueCounts::default(),
                n: 0,
            }
        } else {
            Distribution::Rolling {
                values: Vec::new(),
                next: 0,
                capacity: window,
            }
        }
    }

    #[inline]
    pub fn add(&mut self, value: i64) {
        match self {
            Distribution::Rolling {
                values,
                next,
                capacity,
            } => {
                if values.len() < *capacity {
                    values.push(value);
                } else {
                    values[*next] = value;
                    *next += 1;
                    if *next == *capacity {
                        *next = 0;
                    }
                }
            }
            Distribution::Exact { counts, n } => {
                counts.add(value, 1);
                *n += 1;
            }
        }
    }

    /// Adds every value of `other` (merging per-time-bucket distributions).
    pub fn merge(&mut self, other: &Distribution) {
        match (self, other) {
            (Distribution::Exact { counts, n }, Distribution::Exact { counts: more, n: m }) => {
                for (v, c) in more.iter() {
                    counts.add(v, c);
                }
                *n += m;
            }
            (this, Distribution::Rolling { values, .. }) => {
                values.iter().for_each(|&v| this.add(v))
            }
            (this, Distribution::Exact { counts, .. }) => {
                for (v, c) in counts.iter() {
                    (0..c).for_each(|_| this.add(v));
                }
            }
        }
    }

    /// The LEGACY-estimated percentiles `ps` (each 0–100); `NaN` when empty.
    ///
    /// A rolling window is counted per distinct value rather than sorted: response times
    /// repeat a lot, so this is linear in the window and the ranks are found among the few
    /// distinct values.
    pub fn percentiles(&self, ps: &[f64]) -> Vec<f64> {
        let window;
        let (counts, n) = match self {
            Distribution::Rolling { values, .. } => {
                let mut counts = ValueCounts::default();
                values.iter().for_each(|&v| counts.add(v, 1));
                window = counts;
                (&window, values.len() as u64)
            }
            Distribution::Exact { counts, n } => (counts, *n),
        };
        let ranks = CumulativeCounts::new(counts);
        ps.iter()
            .map(|&p| legacy(p, n, |rank| ranks.nth(rank)))
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        match self {
            Distribution::Rolling { values, .. } => values.is_empty(),
            Distribution::Exact { n, .. } => *n == 0,
        }
    }
}

/// Distinct values in order, each with the number of values up to and including it.
struct CumulativeCounts {
    values: Vec<i64>,
    up_to: Vec<u64>,
}

impl CumulativeCounts {
    fn new(counts: &ValueCounts) -> CumulativeCounts {
        let mut sorted: Vec<(i64, u64)> = counts.iter().collect();
        sorted.sort_unstable();
        let mut seen = 0;
        let up_to = sorted
            .iter()
            .map(|&(_, c)| {
                seen += c;
                seen
            })
            .collect();
        CumulativeCounts {
            values: sorted.into_iter().map(|(v, _)| v).collect(),
            up_to,
        }
    }

    /// The value of 1-based rank `rank`.
    fn nth(&self, rank: u64) -> i64 {
        let at = self.up_to.partition_point(|&seen| seen < rank);
        self.values
            .get(at)
            .or(self.values.last())
            .copied()
            .unwrap_or(0)
    }
}

/// commons-math's LEGACY estimate of percentile `p` over `n` sorted values, `value(rank)`
/// giving the 1-based `rank`-th value.
pub fn legacy(p: f64, n: u64, value: impl Fn(u64) -> i64) -> f64 {
    if n == 0 {
        return f64::NAN;
    }
    if n == 1 {
        return value(1) as f64;
    }
    let pos = p * (n as f64 + 1.0) / 100.0;
    if pos < 1.0 {
        return value(1) as f64;
    }
    if pos >= n as f64 {
        return value(n) as f64;
    }
    let k = pos.floor();
    let d = pos - k;
    let lower = value(k as u64) as f64;
    let upper = value(k as u64 + 1) as f64;
    lower + d * (upper - lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_interpolates_between_ranks() {
        let mut d = Distribution::new(20_000);
        [100, 170, 329].into_iter().for_each(|v| d.add(v));
        assert_eq!(d.percentiles(&[50.0, 90.0]), vec![170.0, 329.0]);
        let mut d = Distribution::new(20_000);
        (1..=10).for_each(|v| d.add(v));
        assert_eq!(d.percentiles(&[25.0]), vec![2.75]);
    }

    #[test]
    fn the_window_keeps_only_recent_values_and_exact_mode_keeps_all() {
        let mut rolling = Distribution::new(3);
        let mut exact = Distribution::new(0);
        for v in [1000, 1000, 1000, 1, 2, 3] {
            rolling.add(v);
            exact.add(v);
        }
        assert_eq!(rolling.percentiles(&[99.0]), vec![3.0]);
        assert_eq!(exact.percentiles(&[99.0]), vec![1000.0]);
        assert_eq!(exact.percentiles(&[50.0]), vec![501.5]);
    }

    #[test]
    fn exact_mode_sorts_small_large_and_negative_values_together() {
        let mut exact = Distribution::new(0);
        let mut other = Distribution::new(0);
        [70_000, 3, -5].into_iter().for_each(|v| exact.add(v));
        [3, 2_000].into_iter().for_each(|v| other.add(v));
        exact.merge(&other);
        assert_eq!(
            exact.percentiles(&[0.0, 50.0, 100.0]),
            vec![-5.0, 3.0, 70_000.0]
        );
    }
}
