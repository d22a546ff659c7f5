//! Keyed accumulators for the graphs, built for the per-sample path of the live dashboard.
//!
//! [`BucketMap`] holds per-time-bucket values. Samples arrive roughly in time order, so
//! nearly every sample lands in the bucket the previous one used: that bucket is remembered
//! and costs one comparison. Other buckets are found through an ordered index, which also
//! gives the graphs their x order at the end, and only the buckets that hold samples exist,
//! so gaps in time (files from different days merged into one report) cost nothing.
//!
//! [`BucketCache`] finds the bucket a time or a response time falls in, remembering the
//! last one.
//!
//! [`SmallKeyMap`] holds values keyed by a small number (a response-time bucket, a thread
//! count): a plain vector for the usual small keys, a hash map for the rare large ones.

use std::collections::BTreeMap;

use crate::foundation::fast_hash::FastMap;

/// Values of type `T` keyed by bucket start (epoch ms), in key order.
#[derive(Debug, Clone)]
pub struct BucketMap<T> {
    /// Bucket start -> position in `values`.
    index: BTreeMap<i64, usize>,
    values: Vec<T>,
    /// The bucket used last and its position, `None` before the first sample.
    last: Option<(i64, usize)>,
}

impl<T> Default for BucketMap<T> {
    fn default() -> BucketMap<T> {
        BucketMap {
            index: BTreeMap::new(),
            values: Vec::new(),
            last: None,
        }
    }
}

impl<T> BucketMap<T> {
    /// The value of bucket `key`, created by `new` if it has none yet.
    #[inline]
    pub fn get_or_insert_with(&mut self, key: i64, new: impl FnOnce() -> T) -> &mut T {
        let slot = match self.last {
            Some((last, slot)) if last == key => slot,
            _ => {
                let next = self.values.len();
                let slot = *self.index.entry(key).or_insert(next);
                if slot == next {
                    self.values.push(new());
                }
                self.last = Some((key, slot));
                slot
            }
        };
        &mut self.values[slot]
    }

    /// Buckets in key order.
    pub fn iter(&self) -> impl Iterator<Item = (i64, &T)> + '_ {
        self.index.iter().map(|(&k, &slot)| (k, &self.values[slot]))
    }
}

impl<T: Default> BucketMap<T> {
    /// The value of bucket `key`, `T::default()` if it is new.
    #[inline]
    pub fn get_or_default(&mut self, key: i64) -> &mut T {
        self.get_or_insert_with(key, T::default)
    }
}

/// The bucket of width `width` a value (a time, a response time) falls in, remembered:
/// samples arrive roughly in time order and response times repeat, so most values fall in
/// the bucket of the one before and cost two comparisons instead of a division.
#[derive(Debug, Clone, Copy)]
pub struct BucketCache {
    width: i64,
    /// The remembered bucket, `[from, to)`, and its number (`from / width`); empty at first.
    from: i64,
    to: i64,
    number: i64,
}

impl BucketCache {
    pub fn new(width: i64) -> BucketCache {
        BucketCache {
            width,
            from: 0,
            to: 0,
            number: 0,
        }
    }

    #[inline]
    fn find(&mut self, value: i64) {
        if value < self.from || value >= self.to {
            self.number = value.div_euclid(self.width);
            self.from = value - value.rem_euclid(self.width);
            self.to = self.from.saturating_add(self.width);
        }
    }

    /// The start of the bucket `value` falls in.
    #[inline]
    pub fn key(&mut self, value: i64) -> i64 {
        self.find(value);
        self.from
    }

    /// The number of the bucket `value` falls in (`value / width`, rounded down).
    #[inline]
    pub fn number(&mut self, value: i64) -> i64 {
        self.find(value);
        self.number
    }
}

/// Keys below this are vector indexes.
const DENSE_KEYS: i64 = 1024;

/// Values by integer key; a key whose value is still `V::default()` counts as absent.
#[derive(Debug, Clone, Default)]
pub struct SmallKeyMap<V> {
    dense: Vec<V>,
    sparse: FastMap<i64, V>,
}

impl<V: Default + Clone + PartialEq> SmallKeyMap<V> {
    #[inline]
    pub fn get_mut(&mut self, key: i64) -> &mut V {
        // One comparison: a negative key is a huge unsigned one.
        if (key as u64) < self.dense.len() as u64 {
            return &mut self.dense[key as usize];
        }
        self.get_mut_new(key)
    }

    /// A key past the vector's current end: grows the vector or uses the map.
    #[cold]
    fn get_mut_new(&mut self, key: i64) -> &mut V {
        if (0..DENSE_KEYS).contains(&key) {
            let index = key as usize;
            if index >= self.dense.len() {
                self.dense.resize(index + 1, V::default());
            }
            &mut self.dense[index]
        } else {
            self.sparse.entry(key).or_default()
        }
    }

    /// Present keys and their values, in key order.
    pub fn sorted(&self) -> Vec<(i64, &V)> {
        let absent = V::default();
        let mut entries: Vec<(i64, &V)> = self
            .dense
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != absent)
            .map(|(k, v)| (k as i64, v))
            .chain(self.sparse.iter().map(|(&k, v)| (k, v)))
            .collect();
        entries.sort_unstable_by_key(|&(k, _)| k);
        entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_iterate_in_key_order_whatever_the_arrival_order() {
        let mut map: BucketMap<u64> = BucketMap::default();
        for key in [60_000, 60_000, 0, 120_000, 60_000, 0] {
            *map.get_or_default(key) += 1;
        }
        let buckets: Vec<(i64, u64)> = map.iter().map(|(k, &v)| (k, v)).collect();
        assert_eq!(buckets, vec![(0, 2), (60_000, 3), (120_000, 1)]);
    }

    #[test]
    fn remembered_buckets_are_the_divided_ones_in_any_order() {
        let mut cache = BucketCache::new(1000);
        let values = [
            5,
            999,
            1000,
            5,
            -1,
            -1000,
            -1001,
            1500,
            1499,
            0,
            i64::MAX,
            i64::MIN + 5000,
        ];
        for value in values {
            assert_eq!(cache.key(value), value - value.rem_euclid(1000), "{value}");
            assert_eq!(cache.number(value), value.div_euclid(1000), "{value}");
        }
    }

    #[test]
    fn small_and_large_keys_sort_together() {
        let mut map: SmallKeyMap<u64> = SmallKeyMap::default();
        for key in [5, 1_000_000, -3, 5, 0] {
            *map.get_mut(key) += 1;
        }
        let entries: Vec<(i64, u64)> = map.sorted().into_iter().map(|(k, &v)| (k, v)).collect();
        assert_eq!(entries, vec![(-3, 1), (0, 1), (5, 2), (1_000_000, 1)]);
    }
}
