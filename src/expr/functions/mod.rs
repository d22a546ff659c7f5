//! The function library: one file per group of functions, all registered in [`FunctionRegistry`].

use std::collections::HashMap;

use super::{EvalContext, Template};

/// One call site of a function, with its compiled argument templates and any state it keeps.
pub trait Function: Send + Sync {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String;
}

/// Builds a call site from its arguments. `site` is unique per call site in the run.
pub type Constructor = fn(args: Vec<Template>, site: usize) -> Result<Box<dyn Function>, String>;

/// Function name (`__P`) → constructor.
pub struct FunctionRegistry {
    constructors: HashMap<&'static str, Constructor>,
}

impl FunctionRegistry {
    /// A registry with every function jmxr implements.
    pub fn standard() -> FunctionRegistry {
        FunctionRegistry {
            constructors: HashMap::new(),
        }
    }

    pub fn get(&self, name: &str) -> Option<Constructor> {
        self.constructors.get(name).copied()
    }

    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.constructors.keys().copied()
    }
}
