//! The script functions `__groovy`, `__javaScript`, `__jexl3`, `__jexl2` and
//! `__BeanShell`. Each takes an expression and an optional variable name that also
//! receives the result.
//!
//! The one-line comparisons and arithmetic that If and While Controllers and labels use
//! are evaluated by the condition language (no engine needed). Anything else is
//! translated from the function's language and run on Rhai with the bindings `vars`,
//! `props`, `log`, `ctx`, `sampler`, `prev`, `OUT`: compiled once at plan time when the
//! expression is constant, per distinct text (bounded cache) when it holds `${...}`. A
//! script that fails yields an empty string, as JMeter's functions return when their
//! engine throws.

use std::sync::Arc;

use rhai::{Array, ImmutableString};

use super::bindings::{text_of, CallState, ResultSlot};
use super::engine::{self, AstCache};
use super::translate::SourceLanguage;
use crate::expr::condition;
use crate::expr::Constructor;
use crate::expr::Function;
use crate::expr::Template;
use crate::user_state::EvalContext;

pub const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__jexl3", build_jexl),
    ("__jexl2", build_jexl),
    ("__javaScript", build_javascript),
    ("__groovy", build_groovy),
    ("__BeanShell", build_beanshell),
];

fn build_jexl(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    build(args, SourceLanguage::Jexl)
}

fn build_javascript(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    build(args, SourceLanguage::JavaScript)
}

fn build_groovy(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    build(args, SourceLanguage::Groovy)
}

fn build_beanshell(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    build(args, SourceLanguage::BeanShell)
}

/// How the expression is evaluated.
enum Evaluator {
    /// The condition language reads it.
    Condition,
    /// A constant script, compiled at plan time.
    Compiled(Arc<rhai::AST>),
    /// A script with `${...}`, compiled per distinct text.
    PerText(AstCache),
}

struct ExpressionCall {
    expression: Template,
    variable: Option<Template>,
    language: SourceLanguage,
    evaluator: Evaluator,
}

fn build(args: Vec<Template>, language: SourceLanguage) -> Result<Box<dyn Function>, String> {
    if args.is_empty() || args.len() > 2 {
        return Err(format!(
            "called with wrong number of parameters. Actual: {}. Expected: >= 1 and <= 2.",
            args.len()
        ));
    }
    let mut args = args.into_iter();
    let expression = args.next().unwrap_or_else(|| Template::literal(""));
    // A constant script is compiled as the function receives it, with the escapes of
    // function arguments (`\,`, `\$`, `\\`) removed.
    let constant = expression.as_literal();
    let evaluator = if condition::check_syntax(constant.unwrap_or(expression.raw())).is_ok() {
        Evaluator::Condition
    } else if let Some(script) = constant {
        Evaluator::Compiled(engine::compile(language, script)?)
    } else {
        Evaluator::PerText(AstCache::default())
    };
    Ok(Box::new(ExpressionCall {
        expression,
        variable: args.next(),
        language,
        evaluator,
    }))
}

impl ExpressionCall {
    fn run_script(&self, ast: &rhai::AST, ctx: &mut EvalContext<'_>) -> String {
        let mut state = CallState::new(
            std::mem::take(ctx.vars),
            ctx.props.clone(),
            ctx.thread.clone(),
            Arc::from(format!("{:?} function", self.language)),
        );
        state.sampler_name = ctx.sampler_name.into();
        if let Some(prev) = ctx.prev {
            state.prev = ResultSlot::Owned(Box::new(prev.clone()));
        }
        let thread_name = ImmutableString::from(&*ctx.thread.thread_name);
        let (out, state) = super::bindings::with_call(state, || {
            let mut scope = rhai::Scope::new();
            super::program::push_bindings(&mut scope);
            scope
                .push("threadName", thread_name)
                .push("Parameters", ImmutableString::new())
                .push("args", Array::new());
            engine::engine().eval_ast_with_scope::<rhai::Dynamic>(&mut scope, ast)
        });
        *ctx.vars = state.vars;
        match out {
            Ok(value) => text_of(&value).unwrap_or_default(),
            Err(err) => {
                crate::runlog::error(&format!(
                    "Error processing {:?} script {:?}: {}",
                    self.language,
                    self.expression.raw(),
                    engine::runtime_error(&err)
                ));
                String::new()
            }
        }
    }
}

impl Function for ExpressionCall {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String {
        let result = match &self.evaluator {
            Evaluator::Condition => {
                let text = self.expression.eval(ctx);
                condition::evaluate_with(&text, Some(ctx.props))
                    .map(|value| value.to_string())
                    .unwrap_or_default()
            }
            Evaluator::Compiled(ast) => self.run_script(ast, ctx),
            Evaluator::PerText(cache) => {
                let text = self.expression.eval(ctx);
                match cache.get(self.language, &text) {
                    Ok(ast) => self.run_script(&ast, ctx),
                    Err(message) => {
                        crate::runlog::error(&message);
                        String::new()
                    }
                }
            }
        };
        if let Some(variable) = &self.variable {
            let name = variable.eval(ctx).trim().to_string();
            if !name.is_empty() {
                ctx.vars.put(name, result.clone());
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::functions::testing::Fixture;
    use crate::expr::Template;

    #[test]
    fn text_evaluated_at_run_time_may_call_script_functions() {
        let registry = crate::script::function_registry();
        let template = Template::compile("${__evalVar(formula)}", &registry)
            .expect("compiles")
            .template;
        let mut f = Fixture::new();
        f.vars.put("formula", "${__groovy(1 + 2)}");
        assert_eq!(f.run(&template), "3");
    }
}
