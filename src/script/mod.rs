//! Scripting. One-line comparisons (the common case of If and While Controllers and of
//! `__jexl3`, `__jexl2` and `__javaScript`) need no engine: `expr::condition` evaluates
//! them. Scripts run on Rhai: `translate` turns Groovy, Java, BeanShell and JavaScript into
//! Rhai source at plan time, and `shims` supplies the Java/Groovy library calls that
//! translated code makes.

//!
//! The runtime: [`engine`] holds the run's one sandboxed Rhai engine and compiles scripts
//! once; [`bindings`] (with [`bindings_result`]) gives scripts JMeter's `vars`, `props`,
//! `log`, `ctx`, `prev`, `SampleResult`, `sampler`, `AssertionResult` and `OUT`;
//! [`program`] is one element's prepared script and the call that runs it; [`elements`]
//! puts programs behind the plan's traits as the JSR223, BeanShell and BSF elements;
//! [`functions`] runs `__groovy`, `__javaScript`, `__jexl3`, `__jexl2` and `__BeanShell`,
//! on `expr::condition` when it reads the expression and on Rhai otherwise.

pub mod bindings;
mod bindings_props;
pub mod bindings_result;
pub mod elements;
pub mod engine;
pub mod functions;
pub mod program;
pub mod protobuf;
pub mod shims;
pub mod translate;

/// Every function a plan may call: the expression library's and the script functions.
pub fn function_registry() -> crate::expr::FunctionRegistry {
    crate::expr::FunctionRegistry::standard().with(functions::FUNCTIONS)
}
