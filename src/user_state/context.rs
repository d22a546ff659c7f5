//! The state an expression sees while it is evaluated.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use rand::rngs::SmallRng;

use crate::foundation::properties::{Properties, VariableObject};

use crate::foundation::fast_hash::FastMap;

use crate::sample::SampleResult;

/// A virtual user's variables (JMeter's `JMeterVariables`): per user, case-sensitive strings.
#[derive(Debug, Clone, Default)]
pub struct Variables {
    /// Looked up several times per sample: a fast hash, since the names come from the plan.
    map: FastMap<String, String>,
    /// Values that are not strings, stored by scripts (`vars.putObject`).
    objects: HashMap<String, VariableObject>,
    /// State of per-thread function call sites (`__counter(TRUE)`), keyed by call-site id.
    pub(crate) call_site_counters: HashMap<usize, i64>,
    /// How many times a variable was written or removed: lets the engine know that a
    /// value it wrote itself is still there without looking it up.
    writes: u64,
}

impl Variables {
    pub fn new() -> Variables {
        Variables::default()
    }
    pub fn get(&self, name: &str) -> Option<&str> {
        self.map.get(name).map(String::as_str)
    }
    /// Counts every change to the variables (see the field): equal counts mean nothing
    /// was written in between.
    pub fn writes(&self) -> u64 {
        self.writes
    }
    pub fn put(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.writes += 1;
        let name = name.into();
        if !self.objects.is_empty() {
            self.objects.remove(&name);
        }
        self.map.insert(name, value.into());
    }
    /// `put` for values written every iteration (loop indexes): an existing variable's
    /// text is overwritten in place, so nothing is allocated.
    pub fn put_str(&mut self, name: &str, value: &str) {
        self.writes += 1;
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
        self.writes += 1;
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
        self.writes += 1;
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

/// Facts about the run shared by all users.
#[derive(Debug, Clone, Default)]
pub struct TestInfo {
    /// The plan file (its file name is `__TestPlanName`).
    pub plan_file: PathBuf,
    /// The folder relative file names are resolved against after the working folder.
    pub plan_dir: PathBuf,
    /// The Inter-Thread Communication queues.
    pub fifo: std::sync::Arc<super::fifo::FifoMap>,
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
    use super::*;

    #[test]
    fn every_change_counts_as_a_write_and_reads_do_not() {
        let mut vars = Variables::new();
        let mut seen = vars.writes();
        let mut changed = |vars: &Variables, what: &str| {
            assert!(vars.writes() > seen, "{what} was not counted");
            seen = vars.writes();
        };
        vars.put("a", "1");
        changed(&vars, "put");
        vars.put_str("a", "1");
        changed(&vars, "put_str of the same value");
        vars.put_object("o", VariableObject(Arc::new(1_i64)));
        changed(&vars, "put_object");
        vars.remove("missing");
        changed(&vars, "remove");
        let _ = (vars.get("a"), vars.contains("a"), vars.get_object("o"));
        assert_eq!(vars.writes(), seen, "reads changed the count");
    }
}
