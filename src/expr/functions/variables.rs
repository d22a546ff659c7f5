//! Variable functions: `__V`, `__eval`, `__evalVar`, `__isVarDefined`, `__split`.

use super::{
    arg, check_count, compiling_registry, stateless, Constructor, Function, FunctionRegistry,
};
use crate::expr::parse::compile_argument;
use crate::expr::Template;
use crate::user_state::EvalContext;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__V", v),
    ("__eval", eval),
    ("__evalVar", eval_var),
    ("__isVarDefined", is_var_defined),
    ("__split", split),
];

/// `__V(expression[,default])`: the variable whose name the argument evaluates to; this is how
/// nested names such as `A${N}` are read.
fn v(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 2, |args, ctx| {
        let name = arg(args, 0, ctx);
        let default = match args.len() {
            1 => name.clone(),
            _ => arg(args, 1, ctx),
        };
        ctx.vars.get(&name).map(str::to_string).unwrap_or(default)
    })
}

/// `__eval(text)`: a second round of substitution over the argument's value.
fn eval(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    EvalText::build(args, EvalSource::Text)
}

/// `__evalVar(name)`: `__eval` over a variable's content; empty when the variable is missing.
fn eval_var(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    EvalText::build(args, EvalSource::Variable)
}

/// Where `__eval` and `__evalVar` find the text they compile.
enum EvalSource {
    Text,
    Variable,
}

/// A call site of `__eval` or `__evalVar`, with the registry its own text was compiled
/// with: the text it meets at run time may call any function the plan may.
struct EvalText {
    args: Vec<Template>,
    source: EvalSource,
    registry: FunctionRegistry,
}

impl EvalText {
    fn build(args: Vec<Template>, source: EvalSource) -> Result<Box<dyn Function>, String> {
        check_count(&args, 1, 1)?;
        Ok(Box::new(EvalText {
            args,
            source,
            registry: compiling_registry(),
        }))
    }
}

impl Function for EvalText {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String {
        let argument = arg(&self.args, 0, ctx);
        let text = match self.source {
            EvalSource::Text => argument,
            EvalSource::Variable => match ctx.vars.get(&argument) {
                Some(text) => text.to_string(),
                None => return String::new(),
            },
        };
        // JMeter compiles such text like a function argument (escapes always apply) and
        // yields nothing when the text is malformed.
        if text.is_empty() {
            return String::new();
        }
        match compile_argument(&text, &self.registry) {
            Some(template) => template.eval(ctx),
            None => String::new(),
        }
    }
}

fn is_var_defined(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 1, |args, ctx| {
        let name = arg(args, 0, ctx);
        ctx.vars.contains(&name).to_string()
    })
}

/// `__split(string,var[,delimiter])`: sets `var`, `var_n`, `var_1..var_n` and removes
/// `var_(n+1)`; returns the string.
fn split(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 2, 3, |args, ctx| {
        let text = arg(args, 0, ctx);
        let prefix = arg(args, 1, ctx).trim().to_string();
        let delimiters = match arg(args, 2, ctx) {
            d if d.is_empty() => ",".to_string(),
            d => d,
        };
        let pieces = split_pieces(&text, &delimiters);
        ctx.vars.put(prefix.clone(), text.clone());
        ctx.vars
            .put(format!("{prefix}_n"), pieces.len().to_string());
        for (i, piece) in pieces.iter().enumerate() {
            ctx.vars.put(format!("{prefix}_{}", i + 1), piece.clone());
        }
        ctx.vars.remove(&format!("{prefix}_{}", pieces.len() + 1));
        text
    })
}

/// JMeter's split: every character of `delimiters` is a delimiter on its own; an empty piece
/// between two delimiters, or after a trailing one, is `?`; leading delimiters are dropped.
fn split_pieces(text: &str, delimiters: &str) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut current = String::new();
    let mut last_was_delimiter = false;
    for c in text.chars() {
        if !delimiters.contains(c) {
            current.push(c);
            continue;
        }
        if !current.is_empty() {
            pieces.push(std::mem::take(&mut current));
        } else if last_was_delimiter {
            pieces.push("?".to_string());
        }
        last_was_delimiter = true;
    }
    if !current.is_empty() {
        pieces.push(current);
    } else if last_was_delimiter {
        pieces.push("?".to_string());
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::split_pieces;
    use crate::expr::functions::testing::Fixture;

    #[test]
    fn v_reads_a_computed_name() {
        let mut f = Fixture::new();
        f.vars.put("N", "2");
        f.vars.put("A2", "two");
        assert_eq!(f.eval("${__V(A${N})}"), "two");
        assert_eq!(f.eval("${__V(A9)}"), "A9");
        assert_eq!(f.eval("${__V(A9,none)}"), "none");
    }

    #[test]
    fn eval_substitutes_twice() {
        let mut f = Fixture::new();
        f.vars.put("name", "World");
        f.vars.put("tpl", "Hello ${name}");
        assert_eq!(f.eval("${__eval(${tpl})}"), "Hello World");
        assert_eq!(f.eval("${__evalVar(tpl)}"), "Hello World");
        assert_eq!(f.eval("${__evalVar(missing)}"), "");
        f.vars.put("plain", "a\\,b");
        assert_eq!(f.eval("${__evalVar(plain)}"), "a,b");
        f.vars.put("broken", "${__P(x}");
        assert_eq!(f.eval("${__evalVar(broken)}"), "");
    }

    #[test]
    fn is_var_defined() {
        let mut f = Fixture::new();
        f.vars.put("x", "");
        assert_eq!(f.eval("${__isVarDefined(x)}"), "true");
        assert_eq!(f.eval("${__isVarDefined(y)}"), "false");
    }

    #[test]
    fn split_sets_numbered_variables() {
        let mut f = Fixture::new();
        f.vars.put("S_4", "stale");
        assert_eq!(f.eval("${__split(a|b||c,S,|)}"), "a|b||c");
        assert_eq!(f.var("S"), Some("a|b||c"));
        assert_eq!(f.var("S_n"), Some("4"));
        assert_eq!(f.var("S_3"), Some("?"));
        assert_eq!(f.var("S_4"), Some("c"));
        assert_eq!(f.eval("${__split(x\\,y\\,,T)}"), "x,y,");
        assert_eq!(f.var("T_n"), Some("3"));
        assert_eq!(f.var("T_3"), Some("?"));
        assert_eq!(f.var("T_4"), None);
    }

    #[test]
    fn split_pieces_follow_jmeter() {
        assert_eq!(split_pieces("a,,b", ","), ["a", "?", "b"]);
        assert_eq!(split_pieces(",a", ","), ["a"]);
        assert_eq!(split_pieces("a,", ","), ["a", "?"]);
        assert_eq!(split_pieces("a,,", ","), ["a", "?", "?"]);
        assert_eq!(split_pieces("a;b,c", ",;"), ["a", "b", "c"]);
        assert!(split_pieces("", ",").is_empty());
    }
}
