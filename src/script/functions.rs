//! Expression functions evaluated by the condition language: `__jexl3`, `__jexl2`,
//! `__javaScript` and `__groovy`, for the one-line expressions plans use in If and While
//! Controllers and labels. Each takes the expression and an optional variable name that
//! also receives the result. An expression the language cannot evaluate yields an empty
//! string, as JMeter's functions return when their engine throws.

use crate::expr::{Constructor, EvalContext, Function, Template};

use super::condition;

pub const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__jexl3", build),
    ("__jexl2", build),
    ("__javaScript", build),
    ("__groovy", build),
];

struct ExpressionCall {
    expression: Template,
    variable: Option<Template>,
}

fn build(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    if args.is_empty() || args.len() > 2 {
        return Err(format!(
            "called with wrong number of parameters. Actual: {}. Expected: >= 1 and <= 2.",
            args.len()
        ));
    }
    let mut args = args.into_iter();
    let expression = args.next().unwrap_or_else(|| Template::literal(""));
    if let Err(err) = condition::check_syntax(expression.raw()) {
        return Err(format!(
            "jmxr evaluates only one-line comparisons and arithmetic here, not {:?} ({err}); full scripts come with the Rhai engine",
            expression.raw()
        ));
    }
    Ok(Box::new(ExpressionCall {
        expression,
        variable: args.next(),
    }))
}

impl Function for ExpressionCall {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String {
        let text = self.expression.eval(ctx);
        let result = condition::evaluate_with(&text, Some(ctx.props))
            .map(|value| value.to_string())
            .unwrap_or_default();
        if let Some(variable) = &self.variable {
            let name = variable.eval(ctx).trim().to_string();
            if !name.is_empty() {
                ctx.vars.put(name, result.clone());
            }
        }
        result
    }
}
