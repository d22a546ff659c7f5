//! The state an expression sees while it is evaluated.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;
use rand::rngs::SmallRng;

use crate::results::{FastMap, SampleResult};

/// A virtual user's variables (JMeter's `JMeterVariables`): per user, case-sensitive strings.
#[derive(Debug, Clone, Default)]
pub struct Variables {
    /// Looked up several times per sample: a fast hash, since the names come from the plan.
    map: FastMap<String, String>,
    /// Values that are not strings, stored by scripts (`vars.putObject`).
    objects: HashMap<String, VariableObject>,
    /// State of per-thread function call sites (`__counter(TRUE)`), keyed by call-site id.
    pub(crate) call_site_counters: HashMap<usize, i64>,
}

impl Variables {
    pub fn new() -> Variables {
        Variables::default()
    }
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(name).map(String::as_str)
    }
    pub fn put(&mut self, name: impl Into<String>, value: impl Into<String>) {
        let name = name.into();
        if !self.objects.is_empty() {
            self.objects.remove(&name);
        }
        self.map.insert(name, value.into());
    }
    /// `put` for values written every iteration (loop indexes): an existing variable's
    /// text is overwritten in place, so nothing is allocated.
    pub fn put_str(&mut self, name: &str, value: &str) {
        if !self.objects.is_empty() {
            self.objects.remove(name);
        }
        match self.map.get_mut(name) {
            Some(existing) => {
                existing.clear();
                existing.push_str(value);
            }
            None => {
                self.map.insert(name.to_string(), value.to_string());
            }
        }
    }
    pub fn remove(&mut self, name: &str) -> Option<String> {
        self.objects.remove(name);
        self.map.remove(name)
    }
    /// A non-string value stored by a script (`vars.putObject`).
    pub fn get_object(&self, name: &str) -> Option<&VariableObject> {
        self.objects.get(name)
    }
    /// Stores a non-string value; a string of the same name is dropped, as one name
    /// holds one value in JMeter.
    pub fn put_object(&mut self, name: impl Into<String>, value: VariableObject) {
        let name = name.into();
        self.map.remove(&name);
        self.objects.insert(name, value);
    }
    pub fn contains(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }
    pub fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.map.iter()
    }
    pub fn len(&self) -> usize {
        self.map.len()
    }
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// A script value kept in a variable: opaque to everything but the script runtime.
#[derive(Clone)]
pub struct VariableObject(pub Arc<dyn std::any::Any + Send + Sync>);

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

/// Facts about the run shared by all users.
#[derive(Debug, Clone, Default)]
pub struct TestInfo {
    /// The plan file (its file name is `__TestPlanName`).
    pub plan_file: PathBuf,
    /// The folder relative file names are resolved against after the working folder.
    pub plan_dir: PathBuf,
}

/// Who is evaluating: the virtual user's identity.
#[derive(Debug, Clone, Default)]
pub struct ThreadInfo {
    /// 1-based thread number within its group (`__threadNum`).
    pub thread_num: u32,
    /// `Thread Group 1-3`.
    pub thread_name: Arc<str>,
    pub group_name: Arc<str>,
}

/// Everything an expression may read or change while it is evaluated.
pub struct EvalContext<'a> {
    pub vars: &'a mut Variables,
    pub props: &'a Properties,
    pub thread: &'a ThreadInfo,
    pub test: &'a TestInfo,
    pub rng: &'a mut SmallRng,
    /// Name of the sampler being prepared (`__samplerName`), empty outside a sample.
    pub sampler_name: &'a str,
    /// The previous sample of this user (`__regexFunction`, scripts).
    pub prev: Option<&'a SampleResult>,
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
