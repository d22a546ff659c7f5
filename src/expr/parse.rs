//! Parsing `${...}` references into template parts.

use super::{Compiled, FunctionRegistry, Template};

#[derive(Debug, thiserror::Error)]
pub enum ExprError {
    #[error("function {name}: {message}")]
    BadArguments { name: String, message: String },
}

pub(super) fn compile(text: &str, _registry: &FunctionRegistry) -> Result<Compiled, ExprError> {
    Ok(Compiled {
        template: Template::literal(text),
        unknown_functions: Vec::new(),
    })
}
