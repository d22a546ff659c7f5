//! The Inter-Thread Communication plugin's functions over the run's named queues
//! (`user_state::fifo`): `__fifoPut(queue, value)` appends and returns the value,
//! `__fifoPop(queue[, variable])` takes the oldest value, waiting for one,
//! `__fifoGet(queue[, variable])` reads it without taking it (empty when there is none)
//! and `__fifoSize(queue[, variable])` counts the values.
//!
//! `__fifoPop` waits as long as the property `kg.apc.jmeter.functions.FifoTimeout`
//! says (seconds; absent: without limit). A function is evaluated synchronously, so
//! the wait hands the user's runtime thread over to the other users while it lasts
//! (`block_in_place`); outside a multi-threaded runtime (plan time) it does not wait.

use std::time::Duration;

use super::{arg, check_count, store, Constructor, Function};
use crate::expr::Template;
use crate::runlog;
use crate::user_state::fifo::Popped;
use crate::user_state::EvalContext;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__fifoPut", fifo_put),
    ("__fifoPop", fifo_pop),
    ("__fifoGet", fifo_get),
    ("__fifoSize", fifo_size),
];

/// The property that bounds a pop's wait, in seconds.
pub const TIMEOUT_PROPERTY: &str = "kg.apc.jmeter.functions.FifoTimeout";

/// What a pop that was interrupted by a stop yields, as the plugin writes it.
pub const INTERRUPTED: &str = "INTERRUPTED";

struct Fifo {
    args: Vec<Template>,
    op: fn(&[Template], &mut EvalContext<'_>) -> String,
}

impl Function for Fifo {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String {
        (self.op)(&self.args, ctx)
    }
}

fn site(
    args: Vec<Template>,
    min: usize,
    op: fn(&[Template], &mut EvalContext<'_>) -> String,
) -> Result<Box<dyn Function>, String> {
    check_count(&args, min, usize::MAX)?;
    Ok(Box::new(Fifo { args, op }))
}

fn fifo_put(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    site(args, 2, |args, ctx| {
        let name = arg(args, 0, ctx);
        let value = arg(args, 1, ctx);
        ctx.test.fifo.put(&name, value.clone());
        value
    })
}

fn fifo_pop(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    site(args, 1, |args, ctx| {
        let name = arg(args, 0, ctx);
        let timeout = timeout_from_properties(ctx);
        let value = match pop_blocking(ctx, &name, timeout) {
            Popped::Value(value) => Some(value),
            Popped::TimedOut => None,
            Popped::Interrupted => {
                runlog::warn(&format!("Interrupted pop from queue {name}"));
                Some(INTERRUPTED.to_string())
            }
        };
        match value {
            Some(value) => {
                store(args, 1, ctx, &value);
                value
            }
            // The plugin stores Java's null (the variable is gone) and the text it
            // returns reads "null".
            None => {
                if args.len() > 1 {
                    let variable = arg(args, 1, ctx);
                    ctx.vars.remove(variable.trim());
                }
                "null".to_string()
            }
        }
    })
}

fn fifo_get(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    site(args, 1, |args, ctx| {
        let name = arg(args, 0, ctx);
        let value = ctx.test.fifo.peek(&name).unwrap_or_default();
        store(args, 1, ctx, &value);
        value
    })
}

fn fifo_size(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    site(args, 1, |args, ctx| {
        let name = arg(args, 0, ctx);
        let size = ctx.test.fifo.len(&name).to_string();
        store(args, 1, ctx, &size);
        size
    })
}

/// The wait the property sets: whole seconds; absent, or text that is not a number
/// (the plugin's `getPropDefault` falls back then), means without limit.
fn timeout_from_properties(ctx: &EvalContext<'_>) -> Option<Duration> {
    ctx.props
        .get(TIMEOUT_PROPERTY)
        .and_then(|text| text.trim().parse::<i64>().ok())
        .map(seconds)
}

/// A timeout in the plugin's seconds; a negative one does not wait, `Long.MAX_VALUE`
/// is as good as no limit.
pub fn seconds(value: i64) -> Duration {
    Duration::from_secs(value.max(0).unsigned_abs())
}

fn pop_blocking(ctx: &EvalContext<'_>, name: &str, timeout: Option<Duration>) -> Popped {
    use tokio::runtime::{Handle, RuntimeFlavor};
    let fifo = &ctx.test.fifo;
    match Handle::try_current() {
        Ok(handle) if handle.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(|| handle.block_on(fifo.pop(name, timeout)))
        }
        _ => fifo.try_pop(name).map_or(Popped::TimedOut, Popped::Value),
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::functions::testing::Fixture;

    #[test]
    fn put_size_get_and_pop_share_the_runs_queues() {
        let mut f = Fixture::new();
        assert_eq!(f.eval("${__fifoSize(q)}"), "0");
        assert_eq!(
            f.eval("${__fifoPut(q,first)}${__fifoPut(q,second)}"),
            "firstsecond"
        );
        assert_eq!(f.eval("${__fifoSize(q,n)}:${n}"), "2:2");
        assert_eq!(f.eval("${__fifoGet(q,g)}:${g}"), "first:first");
        assert_eq!(f.eval("${__fifoPop(q,v)}:${v}"), "first:first");
        assert_eq!(f.eval("${__fifoPop(q)}"), "second");
        assert_eq!(f.eval("${__fifoGet(q)}"), "");
        // Outside a running test an empty queue gives the plugin's timed-out answer,
        // and the variable is gone as the plugin's null leaves it.
        assert_eq!(f.eval("${__fifoPop(q,v)}|${v}"), "null|${v}");
    }

    #[test]
    fn argument_counts_are_checked() {
        let registry = crate::expr::FunctionRegistry::standard();
        for (text, expected) in [
            ("${__fifoPut(q)}", "Expected: at least 2."),
            ("${__fifoPop()}", "Expected: at least 1."),
        ] {
            let err = crate::expr::Template::compile(text, &registry).err();
            let message = err.map(|e| e.to_string()).unwrap_or_default();
            assert!(message.contains(expected), "{message}");
        }
    }
}
