//! The function library: one file per group of functions, all registered in [`FunctionRegistry`].
//!
//! A function is built once per call site at plan time from its compiled argument templates
//! (its [`Constructor`] checks the argument count, as JMeter's `setParameters` does) and is
//! called at each evaluation with the evaluating user's [`EvalContext`]. Arguments are
//! evaluated at call time, so `${__P(${name})}` follows the variable as it changes.
//! Failures at call time (a number that does not parse, an unreadable file) never panic:
//! the function writes to the run log (`runlog`) and returns what JMeter returns, or an
//! empty string where JMeter would throw.

mod csv_read;
mod dates;
pub(crate) mod encoding;
pub(crate) mod fifo;
mod files;
pub(crate) mod hashes;
mod html_entities;
mod log;
mod math;
mod properties;
mod random;
pub(crate) mod regex;
mod strings;
mod threads;
mod time;
mod tst_feedback;
mod variables;
mod xpath;

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use super::Template;

use crate::user_state::EvalContext;

pub(crate) use strings::unescape_html4;

/// One call site of a function, with its compiled argument templates and any state it keeps.
pub trait Function: Send + Sync {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String;

    /// True when the result depends on the properties alone and the call changes
    /// nothing: a template of such calls may keep its value until a property changes.
    fn reads_only_properties(&self) -> bool {
        false
    }
}

/// Builds a call site from its arguments. `site` is unique per call site in the run.
pub type Constructor = fn(args: Vec<Template>, site: usize) -> Result<Box<dyn Function>, String>;

/// Function name (`__P`) → constructor. A clone shares the table.
#[derive(Clone)]
pub struct FunctionRegistry {
    constructors: Arc<HashMap<&'static str, Constructor>>,
}

impl FunctionRegistry {
    /// A registry with the functions of this library. The script functions (`__groovy`
    /// and friends) join it above, where the script runtime lives.
    pub fn standard() -> FunctionRegistry {
        let groups = [
            csv_read::FUNCTIONS,
            dates::FUNCTIONS,
            encoding::FUNCTIONS,
            fifo::FUNCTIONS,
            files::FUNCTIONS,
            log::FUNCTIONS,
            math::FUNCTIONS,
            properties::FUNCTIONS,
            random::FUNCTIONS,
            regex::FUNCTIONS,
            strings::FUNCTIONS,
            threads::FUNCTIONS,
            time::FUNCTIONS,
            tst_feedback::FUNCTIONS,
            variables::FUNCTIONS,
            xpath::FUNCTIONS,
        ];
        let constructors = groups
            .iter()
            .flat_map(|group| group.iter().copied())
            .collect();
        FunctionRegistry {
            constructors: Arc::new(constructors),
        }
    }

    /// This registry with `group` added (functions that live outside `expr`).
    pub fn with(mut self, group: &[(&'static str, Constructor)]) -> FunctionRegistry {
        Arc::make_mut(&mut self.constructors).extend(group.iter().copied());
        self
    }

    /// Adds or replaces a function.
    pub fn register(&mut self, name: &'static str, constructor: Constructor) {
        Arc::make_mut(&mut self.constructors).insert(name, constructor);
    }

    pub fn get(&self, name: &str) -> Option<Constructor> {
        self.constructors.get(name).copied()
    }

    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.constructors.keys().copied()
    }
}

/// The standard registry, built once, for this library's tests.
#[cfg(test)]
pub(super) fn standard_registry() -> &'static FunctionRegistry {
    static REGISTRY: std::sync::OnceLock<FunctionRegistry> = std::sync::OnceLock::new();
    REGISTRY.get_or_init(FunctionRegistry::standard)
}

thread_local! {
    /// The registry of the text being compiled on this thread. Call sites that compile
    /// more text at run time (`__eval`) keep it, so that text sees every function the
    /// plan's own text saw, script functions included.
    static COMPILING: RefCell<Option<FunctionRegistry>> = const { RefCell::new(None) };
}

/// Runs `compile` with `registry` as the registry being compiled with.
pub(super) fn compiling_with<T>(registry: &FunctionRegistry, compile: impl FnOnce() -> T) -> T {
    let outer = COMPILING.with(|current| current.replace(Some(registry.clone())));
    let result = compile();
    COMPILING.with(|current| *current.borrow_mut() = outer);
    result
}

/// The registry the current text is compiled with (see [`compiling_with`]).
fn compiling_registry() -> FunctionRegistry {
    COMPILING
        .with(|current| current.borrow().clone())
        .unwrap_or_else(FunctionRegistry::standard)
}

/// How a stateless function computes its value from its arguments.
type Body = fn(&[Template], &mut EvalContext<'_>) -> String;

/// A call site whose only state is its argument templates.
struct Stateless {
    args: Vec<Template>,
    body: Body,
}

impl Function for Stateless {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String {
        (self.body)(&self.args, ctx)
    }
}

/// Checks the argument count and boxes a stateless call site.
fn stateless(
    args: Vec<Template>,
    min: usize,
    max: usize,
    body: Body,
) -> Result<Box<dyn Function>, String> {
    check_count(&args, min, max)?;
    Ok(Box::new(Stateless { args, body }))
}

/// Argument-count check worded like JMeter's `checkParameterCount`; `usize::MAX` = no limit.
fn check_count(args: &[Template], min: usize, max: usize) -> Result<(), String> {
    let actual = args.len();
    if (min..=max).contains(&actual) {
        return Ok(());
    }
    let expected = if min == max {
        format!("{min}.")
    } else if max == usize::MAX {
        format!("at least {min}.")
    } else {
        format!(">= {min} and <= {max}")
    };
    Err(format!(
        "called with wrong number of parameters. Actual: {actual}. Expected: {expected}"
    ))
}

/// Evaluates argument `index`, or the empty string when it was not given.
fn arg(args: &[Template], index: usize, ctx: &mut EvalContext<'_>) -> String {
    args.get(index).map(|t| t.eval(ctx)).unwrap_or_default()
}

/// Argument `index` without a copy where it is constant or kept (see
/// [`Template::eval_shared`]), for functions that only read their arguments.
fn arg_shared<'t>(
    args: &'t [Template],
    index: usize,
    ctx: &mut EvalContext<'_>,
) -> super::TemplateValue<'t> {
    match args.get(index) {
        Some(template) => template.eval_shared(ctx),
        None => super::TemplateValue::Constant(""),
    }
}

/// Stores `value` in the variable named by argument `index` (trimmed), when one is given.
fn store(args: &[Template], index: usize, ctx: &mut EvalContext<'_>, value: &str) {
    let name = arg_shared(args, index, ctx);
    let name = crate::foundation::java_text::java_trim(&name);
    if !name.is_empty() {
        ctx.vars.put(name, value);
    }
}

#[cfg(test)]
pub(crate) mod testing;
