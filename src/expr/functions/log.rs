//! `__log` and `__logn`: write a message to the run log, stdout or stderr.
//!
//! Levels other than `OUT` and `ERR` go to the run log (`-j`); without one, to stderr.

use super::{arg, stateless, Constructor, Function};
use crate::expr::Template;
use crate::user_state::EvalContext;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[("__log", log), ("__logn", logn)];

/// Sends a message to the run log (or stderr without one), as JMeter's functions log
/// through its logger.
pub(super) fn emit(level: &str, message: &str) {
    crate::runlog::plan_message(level, message);
}

fn log(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 4, |args, ctx| {
        let text = arg(args, 0, ctx);
        let level = arg(args, 1, ctx);
        let throwable = arg(args, 2, ctx);
        let comment = arg(args, 3, ctx);
        write(ctx, &text, &level, &throwable, &comment);
        text
    })
}

fn logn(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 3, |args, ctx| {
        let text = arg(args, 0, ctx);
        let level = arg(args, 1, ctx);
        let throwable = arg(args, 2, ctx);
        write(ctx, &text, &level, &throwable, "");
        String::new()
    })
}

/// Formats the line as JMeter does: `Log: <thread> : <text>` for OUT/ERR, where a comment
/// replaces the ` : ` separator, and an exception text follows as `java.lang.Throwable: ...`.
fn write(ctx: &EvalContext<'_>, text: &str, level: &str, throwable: &str, comment: &str) {
    let level = match level.trim().to_ascii_uppercase() {
        l if l.is_empty() => "INFO".to_string(),
        l => l,
    };
    let separator = if comment.is_empty() { " : " } else { comment };
    let thread = &ctx.thread.thread_name;
    let mut line = match level.as_str() {
        "OUT" | "ERR" if comment.is_empty() => format!("Log: {thread}{separator}{text}"),
        "OUT" | "ERR" => format!("Log: {thread} {separator}{text}"),
        _ => format!("{thread} {separator} {text}"),
    };
    if !throwable.is_empty() {
        line.push_str(&format!(" java.lang.Throwable: {throwable}"));
    }
    match level.as_str() {
        "OUT" => println!("{line}"),
        "ERR" => eprintln!("{line}"),
        "ERROR" | "WARN" | "INFO" | "DEBUG" | "TRACE" => emit(&level, &line),
        // JMeter logs an unknown level at DEBUG.
        _ => emit("DEBUG", &line),
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::functions::testing::Fixture;

    #[test]
    fn log_returns_its_text_and_logn_returns_nothing() {
        let mut f = Fixture::new();
        assert_eq!(f.eval("a${__log(hello)}b"), "ahellob");
        assert_eq!(f.eval("a${__log(hello,OUT)}b"), "ahellob");
        assert_eq!(f.eval("a${__logn(hello,ERR)}b"), "ab");
        assert_eq!(f.eval("${__logn(x,BOGUS,boom)}"), "");
    }

    #[test]
    fn log_rejects_too_many_arguments() {
        let registry = crate::expr::FunctionRegistry::standard();
        assert!(crate::expr::Template::compile("${__logn(a,b,c,d)}", &registry).is_err());
        assert!(crate::expr::Template::compile("${__log(a,b,c,d,e)}", &registry).is_err());
    }
}
