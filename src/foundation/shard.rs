//! Which part of a plan this process runs when the load is spread over several processes
//! or machines (`--shard I/N`, read into the `jmxr.shard*` properties by the command line).
//!
//! In `divide` mode user `k` (0-based, creation order) of every thread group belongs to
//! shard `k mod N + 1`, so the remainders spread over the first shards and every user
//! keeps its single-run start time and its name; rate targets are divided by `N`. In
//! `replicate` mode every shard runs the whole plan, as JMeter's remote agents do. CSV
//! Data Set rows are read whole by default (JMeter's behaviour) or, with
//! `jmxr.shard.csv=partition`, record `r` goes to shard `r mod N + 1` only.

use super::properties::Properties;

/// This process's share of the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: u32,
    pub count: u32,
    pub replicate: bool,
    pub csv_partition: bool,
}

/// The property holding `I/N`.
pub const SHARD_PROPERTY: &str = "jmxr.shard";
/// `divide` (default) or `replicate`.
pub const MODE_PROPERTY: &str = "jmxr.shard.mode";
/// `whole` (default) or `partition`.
pub const CSV_PROPERTY: &str = "jmxr.shard.csv";

impl Shard {
    /// Reads `I/N` (1 ≤ I ≤ N).
    pub fn parse(text: &str) -> Result<(u32, u32), String> {
        let bad =
            || format!("a shard is written I/N with 1 <= I <= N (for example 2/3), not {text:?}");
        let (i, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let i: u32 = i.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        if i == 0 || n == 0 || i > n {
            return Err(bad());
        }
        Ok((i, n))
    }

    /// The shard the properties describe, `Ok(None)` without `jmxr.shard`.
    pub fn from_properties(props: &Properties) -> Result<Option<Shard>, String> {
        let Some(text) = props.get(SHARD_PROPERTY).filter(|t| !t.trim().is_empty()) else {
            return Ok(None);
        };
        let (index, count) = Shard::parse(&text)?;
        let replicate = match props.get(MODE_PROPERTY).as_deref().map(str::trim) {
            None | Some("" | "divide") => false,
            Some("replicate") => true,
            Some(other) => {
                return Err(format!(
                    "{MODE_PROPERTY} is divide or replicate, not {other:?}"
                ))
            }
        };
        let csv_partition = match props.get(CSV_PROPERTY).as_deref().map(str::trim) {
            None | Some("" | "whole") => false,
            Some("partition") => true,
            Some(other) => {
                return Err(format!(
                    "{CSV_PROPERTY} is whole or partition, not {other:?}"
                ))
            }
        };
        Ok(Some(Shard {
            index,
            count,
            replicate,
            csv_partition,
        }))
    }

    /// Whether the plan's load is split (rather than replicated or run by one process).
    pub fn divides(&self) -> bool {
        !self.replicate && self.count > 1
    }

    /// Whether user `k` (0-based) of a thread group runs here.
    pub fn owns_user(&self, k: u64) -> bool {
        !self.divides() || k % u64::from(self.count) == u64::from(self.index - 1)
    }

    /// This shard's part of a rate target of the whole test.
    pub fn rate(&self, whole: f64) -> f64 {
        if self.divides() {
            whole / f64::from(self.count)
        } else {
            whole
        }
    }

    /// The partition of CSV records this shard reads: `(index0, count)`.
    pub fn csv_partition(&self) -> Option<(u64, u64)> {
        (self.csv_partition && self.count > 1)
            .then(|| (u64::from(self.index - 1), u64::from(self.count)))
    }
}

/// A rate target divided by the run's shard, if any.
pub fn shard_rate(shard: Option<Shard>, whole: f64) -> f64 {
    shard.map_or(whole, |s| s.rate(whole))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_are_dealt_round_robin_none_lost_or_doubled() {
        for n in 1..6u32 {
            let shards: Vec<Shard> = (1..=n)
                .map(|index| Shard {
                    index,
                    count: n,
                    replicate: false,
                    csv_partition: false,
                })
                .collect();
            for k in 0..23u64 {
                assert_eq!(shards.iter().filter(|s| s.owns_user(k)).count(), 1);
            }
        }
        assert!(Shard::parse("0/3").is_err());
        assert!(Shard::parse("4/3").is_err());
        assert_eq!(Shard::parse(" 2/3").unwrap(), (2, 3));
    }
}
