//! JMeter properties: the run's global name → value table that `${__P()}`, scripts'
//! `props` and jmxr's own settings read. How `.properties` files are read is in
//! [`super::properties_file`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

/// JMeter properties: global to the run, shared by every virtual user. A clone is
/// another handle on the same table (scripts hold one for the length of a call).
#[derive(Debug, Default, Clone)]
pub struct Properties {
    map: Arc<RwLock<HashMap<String, String>>>,
    /// Bumped by every change, so values computed from properties can be kept until one.
    version: Arc<AtomicU64>,
}

impl Properties {
    pub fn new() -> Properties {
        Properties::default()
    }
    pub fn from_map(map: HashMap<String, String>) -> Properties {
        Properties {
            map: Arc::new(RwLock::new(map)),
            version: Arc::default(),
        }
    }
    /// Changes with every `set` and `remove`: equal versions mean equal tables.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }
    pub fn get(&self, name: &str) -> Option<String> {
        self.map.read().get(name).cloned()
    }
    /// Sets a property and returns the previous value. Setting the value a property
    /// already has keeps the version: plans and functions that store the same value on
    /// every iteration (`__tstFeedback`, scripts' `props.put`) then do not make every
    /// cache of property-derived values start again.
    pub fn set(&self, name: impl Into<String>, value: impl Into<String>) -> Option<String> {
        let value = value.into();
        let previous = self.map.write().insert(name.into(), value.clone());
        if previous.as_deref() != Some(value.as_str()) {
            self.version.fetch_add(1, Ordering::AcqRel);
        }
        previous
    }
    pub fn remove(&self, name: &str) -> Option<String> {
        let removed = self.map.write().remove(name);
        self.version.fetch_add(1, Ordering::AcqRel);
        removed
    }
    pub fn contains(&self, name: &str) -> bool {
        self.map.read().contains_key(name)
    }
    /// A sorted copy of every property, for dumps (Debug Sampler).
    pub fn snapshot(&self) -> Vec<(String, String)> {
        let mut all: Vec<_> = self
            .map
            .read()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        all.sort();
        all
    }
    /// A property parsed as a boolean the way Java does (`true`, any case).
    pub fn get_bool(&self, name: &str, default: bool) -> bool {
        match self.get(name) {
            Some(v) => v.trim().eq_ignore_ascii_case("true"),
            None => default,
        }
    }
    pub fn get_i64(&self, name: &str, default: i64) -> i64 {
        self.get(name)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(default)
    }
}

#[cfg(test)]
mod tests {
    use super::Properties;

    #[test]
    fn only_a_change_moves_the_properties_version() {
        let props = Properties::new();
        let start = props.version();
        assert_eq!(props.set("level", "3"), None);
        let after_first = props.version();
        assert_ne!(after_first, start);
        assert_eq!(props.set("level", "3").as_deref(), Some("3"));
        assert_eq!(props.version(), after_first);
        props.set("level", "4");
        assert_ne!(props.version(), after_first);
    }
}
