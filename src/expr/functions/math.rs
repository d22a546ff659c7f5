//! Counting and arithmetic: `__counter`, `__intSum`, `__longSum`.

use std::sync::atomic::{AtomicI64, Ordering};

use super::log::emit;
use super::{arg, check_count, stateless, store, Constructor, Function};
use crate::expr::Template;
use crate::user_state::EvalContext;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__counter", counter),
    ("__intSum", int_sum),
    ("__longSum", long_sum),
];

/// One `__counter(perThread[,var])` occurrence in the plan. Each occurrence counts on its own.
struct Counter {
    args: Vec<Template>,
    /// Key of this occurrence's per-user counter in `Variables::call_site_counters`.
    site: usize,
    /// The counter shared by every user when `perThread` is not `TRUE`.
    shared: AtomicI64,
}

fn counter(args: Vec<Template>, site: usize) -> Result<Box<dyn Function>, String> {
    check_count(&args, 1, 2)?;
    Ok(Box::new(Counter {
        args,
        site,
        shared: AtomicI64::new(0),
    }))
}

impl Function for Counter {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String {
        let per_thread = arg(&self.args, 0, ctx).eq_ignore_ascii_case("true");
        let value = if per_thread {
            let slot = ctx.vars.call_site_counters.entry(self.site).or_insert(0);
            *slot += 1;
            *slot
        } else {
            self.shared.fetch_add(1, Ordering::Relaxed) + 1
        };
        let value = value.to_string();
        store(&self.args, 1, ctx, &value);
        value
    }
}

/// `__intSum(a,b[,c...][,var])`: 32-bit sum that wraps on overflow, as Java's `int` does.
fn int_sum(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 2, usize::MAX, |args, ctx| {
        let parse = |text: &str| text.parse::<i32>().ok().map(i64::from);
        sum(args, ctx, parse, |total| (total as i32).to_string())
    })
}

/// `__longSum(a,b[,c...][,var])`: 64-bit sum.
fn long_sum(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 2, usize::MAX, |args, ctx| {
        sum(
            args,
            ctx,
            |text| text.parse::<i64>().ok(),
            |total| total.to_string(),
        )
    })
}

/// Adds the arguments; the last one is a number to add when it parses, else a variable name
/// that receives the result. Empty (after logging) when a leading argument is not a number,
/// where JMeter throws.
fn sum(
    args: &[Template],
    ctx: &mut EvalContext<'_>,
    parse: fn(&str) -> Option<i64>,
    format: fn(i64) -> String,
) -> String {
    let last_index = args.len() - 1;
    let mut total: i64 = 0;
    for index in 0..last_index {
        let text = arg(args, index, ctx);
        let Some(value) = parse(&text) else {
            emit("ERROR", &format!("sum: {text:?} is not a number"));
            return String::new();
        };
        total = total.wrapping_add(value);
    }
    let last = arg(args, last_index, ctx);
    let last = last.trim();
    let var = match parse(last) {
        Some(value) => {
            total = total.wrapping_add(value);
            None
        }
        None => Some(last),
    };
    let result = format(total);
    if let Some(var) = var.filter(|v| !v.is_empty()) {
        ctx.vars.put(var, result.clone());
    }
    result
}

#[cfg(test)]
mod tests {
    use crate::expr::functions::testing::Fixture;

    #[test]
    fn counter_per_thread_counts_per_user_and_site() {
        let mut f = Fixture::new();
        let template = Fixture::compile("${__counter(TRUE,c)}");
        assert_eq!(f.run(&template), "1");
        assert_eq!(f.run(&template), "2");
        assert_eq!(f.var("c"), Some("2"));
        // Another occurrence counts on its own.
        assert_eq!(f.eval("${__counter(TRUE)}"), "1");
        // Another user (fresh variables) starts again.
        let mut other = Fixture::new();
        assert_eq!(other.run(&template), "1");
        assert_eq!(f.run(&template), "3");
    }

    #[test]
    fn counter_shared_counts_across_users() {
        let template = Fixture::compile("${__counter(FALSE)}");
        let mut a = Fixture::new();
        let mut b = Fixture::new();
        assert_eq!(a.run(&template), "1");
        assert_eq!(b.run(&template), "2");
        assert_eq!(a.run(&template), "3");
        // Two occurrences in one text are independent.
        assert_eq!(a.eval("${__counter(,)}-${__counter(no)}"), "1-1");
    }

    #[test]
    fn int_sum_with_and_without_a_variable() {
        let mut f = Fixture::new();
        assert_eq!(f.eval("${__intSum(1,2)}"), "3");
        assert_eq!(f.eval("${__intSum(1,2,3)}"), "6");
        assert_eq!(f.eval("${__intSum(1,2, total )}"), "3");
        assert_eq!(f.var("total"), Some("3"));
        assert_eq!(f.eval("${__intSum(2147483647,1,W)}"), "-2147483648");
        assert_eq!(f.var("W"), Some("-2147483648"));
        assert_eq!(f.eval("${__intSum(x,1)}"), "");
    }

    #[test]
    fn long_sum() {
        let mut f = Fixture::new();
        assert_eq!(f.eval("${__longSum(2147483647,1,L)}"), "2147483648");
        assert_eq!(f.var("L"), Some("2147483648"));
        assert_eq!(f.eval("${__longSum(-5,+3)}"), "-2");
    }

    #[test]
    fn sums_need_two_arguments() {
        let registry = crate::expr::FunctionRegistry::standard();
        let err = crate::expr::Template::compile("${__intSum(1)}", &registry).err();
        let message = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("Expected: at least 2."), "{message}");
    }
}
