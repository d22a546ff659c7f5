//! Turning the strings a sample is grouped by (label, thread group, response code) into
//! small ids once, so the aggregator's per-sample work indexes vectors instead of hashing
//! strings.
//!
//! [`Interner`] maps a string to its id, remembering the last few strings seen: a plan's
//! few hot labels, one thread group, the usual response codes cost short comparisons.
//! [`ArcIds`] sits in front of it for live samples, whose labels and thread names are shared
//! `Arc<str>`s: the same string is the same pointer, found without reading the string (the
//! last few pointers by comparison, the others by one hash of the address).

use std::sync::Arc;

use crate::foundation::fast_hash::FastMap;

/// How many recently used strings [`Interner`] checks before hashing.
const RECENT: usize = 4;

/// String -> value (an id, or "left out"), assigned on first sight.
#[derive(Debug, Clone)]
pub struct Interner<V: Copy> {
    /// Each distinct string and its value.
    entries: Vec<(Box<str>, V)>,
    /// String -> index in `entries`.
    index: FastMap<Box<str>, usize>,
    /// Indexes of the strings looked up last (`usize::MAX`: empty): a plan's few hot
    /// labels, one thread group, the usual response codes are found by comparing.
    recent: [usize; RECENT],
    /// The `recent` slot to replace next.
    next_recent: usize,
}

impl<V: Copy> Default for Interner<V> {
    fn default() -> Interner<V> {
        Interner {
            entries: Vec::new(),
            index: FastMap::default(),
            recent: [usize::MAX; RECENT],
            next_recent: 0,
        }
    }
}

impl<V: Copy> Interner<V> {
    /// The value of `key`; `assign` gives it on first sight.
    #[inline]
    pub fn get_or_assign(&mut self, key: &str, assign: impl FnOnce() -> V) -> V {
        for &i in &self.recent {
            if let Some((name, value)) = self.entries.get(i) {
                if same_text(name, key) {
                    return *value;
                }
            }
        }
        let i = match self.index.get(key) {
            Some(&i) => i,
            None => {
                let value = assign();
                self.entries.push((key.into(), value));
                self.index.insert(key.into(), self.entries.len() - 1);
                self.entries.len() - 1
            }
        };
        self.recent[self.next_recent] = i;
        self.next_recent = (self.next_recent + 1) % RECENT;
        self.entries[i].1
    }
}

/// String equality without a library call for the short strings compared here (response
/// codes, thread group names), where calling `memcmp` costs more than the comparison.
#[inline]
fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    if a.len() > 16 {
        return a == b;
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

/// Most shared labels [`ArcIds`] remembers; past this it starts again (a plan has far
/// fewer labels; only labels shared while being built per sample could get here).
const MAX_CACHED_ARCS: usize = 4096;

/// Shared string (by pointer) -> value, a cache in front of an [`Interner`]. Each entry
/// holds a clone of the `Arc`, so a cached pointer can never be freed and reused for
/// another string; labels built per sample simply miss and fall back to the interner.
#[derive(Debug, Clone)]
pub struct ArcIds<V: Copy> {
    by_address: FastMap<usize, (Arc<str>, V)>,
    /// The addresses found last and their values (address 0: empty, no `Arc` has it): a
    /// plan's few samplers, a user's consecutive samples, cost a comparison each.
    recent: [(usize, V); RECENT],
    /// The `recent` slot to replace next.
    next_recent: usize,
}

impl<V: Copy + Default> Default for ArcIds<V> {
    fn default() -> ArcIds<V> {
        ArcIds {
            by_address: FastMap::default(),
            recent: [(0, V::default()); RECENT],
            next_recent: 0,
        }
    }
}

impl<V: Copy + Default> ArcIds<V> {
    /// The value of `key`, from the cache or else from `interner`.
    #[inline]
    pub fn get_or_assign(
        &mut self,
        key: &Arc<str>,
        interner: &mut Interner<V>,
        assign: impl FnOnce() -> V,
    ) -> V {
        let address = Arc::as_ptr(key) as *const u8 as usize;
        for &(recent, value) in &self.recent {
            if recent == address {
                return value;
            }
        }
        if let Some(&(_, value)) = self.by_address.get(&address) {
            self.remember(address, value);
            return value;
        }
        let value = interner.get_or_assign(key, assign);
        // A label that only this sample holds was built for it (`${var}` in the name):
        // caching it would only churn the cache. Labels the plan shares are worth keeping.
        if Arc::strong_count(key) > 1 {
            if self.by_address.len() >= MAX_CACHED_ARCS {
                self.by_address.clear();
                self.recent = [(0, V::default()); RECENT];
            }
            self.by_address.insert(address, (Arc::clone(key), value));
            self.remember(address, value);
        }
        value
    }

    /// Puts a cached address among the recent ones (only cached addresses: the cache's
    /// clone of the `Arc` is what keeps the address from being reused).
    fn remember(&mut self, address: usize, value: V) {
        self.recent[self.next_recent] = (address, value);
        self.next_recent = (self.next_recent + 1) % RECENT;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_strings_get_one_id_whichever_path_finds_them() {
        let mut interner: Interner<u32> = Interner::default();
        let mut cache: ArcIds<u32> = ArcIds::default();
        let mut next = 0;
        let mut assign = || {
            next += 1;
            next
        };
        let a: Arc<str> = Arc::from("login");
        let a_again: Arc<str> = Arc::from("login");
        let b: Arc<str> = Arc::from("logout");
        let _shared_by_the_plan = (a.clone(), b.clone());
        let first = cache.get_or_assign(&a, &mut interner, &mut assign);
        assert_eq!(cache.get_or_assign(&a, &mut interner, &mut assign), first);
        assert_eq!(
            cache.get_or_assign(&a_again, &mut interner, &mut assign),
            first
        );
        assert_eq!(interner.get_or_assign("login", &mut assign), first);
        let second = cache.get_or_assign(&b, &mut interner, &mut assign);
        assert_ne!(second, first);
        assert_eq!(interner.get_or_assign("logout", &mut assign), second);
        assert_eq!(interner.get_or_assign("login", &mut assign), first);
    }
}
