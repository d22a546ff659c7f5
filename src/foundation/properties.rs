//! JMeter properties: the run's global name → value table that `${__P()}`, scripts'
//! `props` and jmxr's own settings read. How `.properties` files are read is in
//! [`super::properties_file`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;

use super::java_text::java_trim;

/// A script value kept in a variable or a property: opaque to everything but the script
/// runtime,
/// except bytes. Bytes a script stores (`vars.putObject("payload", bytes)` with a Java
/// `byte[]`, a `ByteString`, a Rhai blob or `Protobuf::encode(..)`) are always held as a
/// `Vec<u8>` (Rhai's `Blob`), so a sampler sends them as they are through
/// [`VariableObject::bytes`]; every other value is the script's own `rhai::Dynamic`.
#[derive(Clone)]
pub struct VariableObject(pub Arc<dyn std::any::Any + Send + Sync>);

impl VariableObject {
    /// The bytes a script stored, if the object is bytes.
    pub fn bytes(&self) -> Option<&[u8]> {
        self.0.downcast_ref::<Vec<u8>>().map(Vec::as_slice)
    }
}

impl std::fmt::Debug for VariableObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VariableObject")
    }
}

/// JMeter properties: global to the run, shared by every virtual user. A clone is
/// another handle on the same table (scripts hold one for the length of a call).
#[derive(Debug, Default, Clone)]
pub struct Properties {
    map: Arc<RwLock<HashMap<String, String>>>,
    /// Values that are not text, stored by scripts (`props.put("seq", new AtomicLong(0))`):
    /// one name holds text or an object, as one Java property holds one value.
    objects: Arc<RwLock<HashMap<String, VariableObject>>>,
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
            objects: Arc::default(),
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
    /// JMeter's `JMeterUtils.getPropDefault(name, default)`: the value, else the default,
    /// either one trimmed as Java's `String.trim` does (every character up to the space).
    pub fn get_default(&self, name: &str, default: &str) -> String {
        match self.map.read().get(name) {
            Some(value) => java_trim(value).to_string(),
            None => java_trim(default).to_string(),
        }
    }
    /// Sets a property and returns the previous value. Setting the value a property
    /// already has keeps the version: plans and functions that store the same value on
    /// every iteration (`__tstFeedback`, scripts' `props.put`) then do not make every
    /// cache of property-derived values start again.
    pub fn set(&self, name: impl Into<String>, value: impl Into<String>) -> Option<String> {
        let value = value.into();
        let name = name.into();
        if !self.objects.read().is_empty() {
            self.objects.write().remove(&name);
        }
        let previous = self.map.write().insert(name, value.clone());
        if previous.as_deref() != Some(value.as_str()) {
            self.version.fetch_add(1, Ordering::AcqRel);
        }
        previous
    }
    pub fn remove(&self, name: &str) -> Option<String> {
        self.objects.write().remove(name);
        let removed = self.map.write().remove(name);
        self.version.fetch_add(1, Ordering::AcqRel);
        removed
    }
    pub fn contains(&self, name: &str) -> bool {
        self.map.read().contains_key(name) || self.objects.read().contains_key(name)
    }
    /// A non-text value stored by a script.
    pub fn get_object(&self, name: &str) -> Option<VariableObject> {
        self.objects.read().get(name).cloned()
    }
    /// Stores a non-text value (the text of the same name goes); `if_absent` keeps an
    /// existing value of either kind, atomically, for `putIfAbsent`. Returns the object
    /// now stored under the name, or `None` when text was kept.
    pub fn put_object(
        &self,
        name: &str,
        value: VariableObject,
        if_absent: bool,
    ) -> Option<VariableObject> {
        let mut objects = self.objects.write();
        if if_absent {
            if let Some(existing) = objects.get(name) {
                return Some(existing.clone());
            }
            if self.map.read().contains_key(name) {
                return None;
            }
        }
        if self.map.write().remove(name).is_some() {
            self.version.fetch_add(1, Ordering::AcqRel);
        }
        objects.insert(name.to_string(), value.clone());
        Some(value)
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
    /// JMeter's `JMeterUtils.getPropDefault(name, boolean)`: the value trimmed is
    /// `true`/`t` or `false`/`f` in any case, or an integer (true when 1); anything else,
    /// like a missing property, gives the default.
    pub fn get_bool(&self, name: &str, default: bool) -> bool {
        let Some(value) = self.get(name) else {
            return default;
        };
        let value = java_trim(&value);
        if value.eq_ignore_ascii_case("true") || value.eq_ignore_ascii_case("t") {
            true
        } else if value.eq_ignore_ascii_case("false") || value.eq_ignore_ascii_case("f") {
            false
        } else {
            value.parse::<i32>().map_or(default, |n| n == 1)
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
