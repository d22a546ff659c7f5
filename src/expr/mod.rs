//! JMeter expressions: `${var}` and `${__fn(a,b)}` compiled once into [`Template`]s.
//!
//! `plan` compiles every string property that can hold a reference into a `Template` at
//! plan time; the engine evaluates templates per use with an `EvalContext` that gives
//! access to the virtual user's variables, the global properties and thread facts.
//! The parser follows JMeter's rules (unknown references stay literal, `\,` `\$` `\\`
//! escapes only when the text holds a reference, commas split arguments except inside a
//! nested `${}`); the function library lives in `functions/`, one file per group.
//! [`condition`] evaluates the one-line JavaScript/JEXL comparisons that If and While
//! Controllers and the script functions meet most, without a script engine.

pub mod condition;
pub(crate) mod functions;
mod parse;

pub(crate) use functions::{hashes, regex as regex_template, unescape_html4};
pub use functions::{Constructor, Function, FunctionRegistry};
pub use parse::ExprError;

use std::sync::Arc;

use parking_lot::RwLock;

use crate::user_state::EvalContext;

/// Adds the Test Plan's User Defined Variables to `vars`, each element evaluated against
/// the variables before it (JMeter's `Arguments` of the plan at test start). The scheduler
/// and the Keystore Configuration both start from these values.
pub fn add_plan_variables(
    run: &crate::user_state::RunShared,
    elements: &[Vec<(String, Template)>],
    vars: &mut crate::user_state::Variables,
    rng: &mut rand::rngs::SmallRng,
) {
    let thread = crate::user_state::ThreadInfo::default();
    for element in elements {
        let mut scratch = vars.clone();
        let values: Vec<(String, String)> = element
            .iter()
            .map(|(name, template)| {
                let mut cx = run.eval_context(&mut scratch, &thread, rng);
                (name.clone(), template.eval(&mut cx))
            })
            .collect();
        for (name, value) in values {
            vars.put(name, value);
        }
    }
}

/// A compiled property value.
#[derive(Clone)]
pub struct Template {
    raw: Arc<str>,
    parts: Arc<[Part]>,
    /// For a template whose calls read properties only (`${__P(port,80)}`): the last
    /// value with the property version it was computed at, shared by every user.
    kept: Option<Arc<RwLock<KeptValue>>>,
}

/// A template's value as of a version of the properties.
struct KeptValue {
    version: u64,
    value: Arc<str>,
}

/// A template's value without a copy where there is nothing to compute: the plan's text
/// for a constant, the shared kept value for a template of properties, else the text
/// computed now. Samplers that evaluate several settings per sample use it to skip an
/// allocation per setting.
#[derive(Debug, Clone)]
pub enum TemplateValue<'t> {
    Constant(&'t str),
    Shared(Arc<str>),
    Computed(String),
}

impl std::ops::Deref for TemplateValue<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            TemplateValue::Constant(text) => text,
            TemplateValue::Shared(text) => text,
            TemplateValue::Computed(text) => text,
        }
    }
}

/// One piece of a template.
pub enum Part {
    Literal(String),
    /// `${name}`: replaced by the variable, or left as `${name}` when undefined.
    Variable(String),
    /// `${__fn(...)}`: a call site with its own state (counters, file cursors).
    Call(Box<dyn Function>),
}

impl std::fmt::Debug for Template {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Template({:?})", self.raw)
    }
}

/// What compiling a string found: the template, plus names of `${__x(..)}` calls that
/// look like functions but are not in the registry (kept literal, as JMeter does).
pub struct Compiled {
    pub template: Template,
    pub unknown_functions: Vec<String>,
    /// Malformed calls (`${__P(a}`): JMeter logs them and uses the whole text raw, as we do.
    pub warnings: Vec<String>,
}

impl Template {
    /// A template that evaluates to `text` unchanged.
    pub fn literal(text: &str) -> Template {
        Template {
            raw: Arc::from(text),
            parts: Arc::from(vec![Part::Literal(text.to_string())]),
            kept: None,
        }
    }

    /// Compiles `text` with the given function registry.
    pub fn compile(text: &str, registry: &FunctionRegistry) -> Result<Compiled, ExprError> {
        parse::compile(text, registry)
    }

    pub(crate) fn from_parts(raw: &str, parts: Vec<Part>) -> Template {
        let reads_only_properties = parts.iter().any(|p| matches!(p, Part::Call(_)))
            && parts.iter().all(|p| match p {
                Part::Literal(_) => true,
                Part::Variable(_) => false,
                Part::Call(function) => function.reads_only_properties(),
            });
        Template {
            raw: Arc::from(raw),
            parts: Arc::from(parts),
            kept: reads_only_properties.then(|| {
                Arc::new(RwLock::new(KeptValue {
                    version: u64::MAX,
                    value: Arc::from(""),
                }))
            }),
        }
    }

    /// The text as written in the plan.
    pub fn raw(&self) -> &str {
        &self.raw
    }

    /// The value when the template is one constant text (no reference at all).
    pub fn as_literal(&self) -> Option<&str> {
        match &self.parts[..] {
            [Part::Literal(text)] => Some(text),
            [] => Some(""),
            _ => None,
        }
    }

    /// True when evaluation cannot depend on any context.
    pub fn is_constant(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, Part::Literal(_)))
    }

    /// True when evaluation depends on the properties at most (constants included).
    pub fn reads_only_properties(&self) -> bool {
        self.kept.is_some() || self.is_constant()
    }

    /// Evaluates the template in `ctx`.
    pub fn eval(&self, ctx: &mut EvalContext<'_>) -> String {
        match &self.parts[..] {
            [Part::Literal(text)] => return text.clone(),
            [] => return String::new(),
            _ => {}
        }
        if let Some(kept) = &self.kept {
            let version = ctx.props.version();
            {
                let kept = kept.read();
                if kept.version == version {
                    return kept.value.to_string();
                }
            }
            return self.keep(kept, version, ctx).to_string();
        }
        self.compute(ctx)
    }

    /// Evaluates the template in `ctx`, borrowing or sharing the value when it need not
    /// be computed (see [`TemplateValue`]). Inlined for the constant case, which most
    /// settings of a sampler are, evaluated on every sample.
    #[inline]
    pub fn eval_shared(&self, ctx: &mut EvalContext<'_>) -> TemplateValue<'_> {
        match &self.parts[..] {
            [Part::Literal(text)] => TemplateValue::Constant(text),
            [] => TemplateValue::Constant(""),
            _ => self.eval_shared_computed(ctx),
        }
    }

    /// [`Template::eval_shared`] of a template with references.
    fn eval_shared_computed(&self, ctx: &mut EvalContext<'_>) -> TemplateValue<'_> {
        if let Some(kept) = &self.kept {
            let version = ctx.props.version();
            {
                let kept = kept.read();
                if kept.version == version {
                    return TemplateValue::Shared(kept.value.clone());
                }
            }
            return TemplateValue::Shared(self.keep(kept, version, ctx));
        }
        TemplateValue::Computed(self.compute(ctx))
    }

    /// Computes the value and keeps it as of `version`, read before computing: a change
    /// made meanwhile leaves an older version kept, so the next evaluation computes again.
    fn keep(&self, kept: &RwLock<KeptValue>, version: u64, ctx: &mut EvalContext<'_>) -> Arc<str> {
        let value: Arc<str> = Arc::from(self.compute(ctx));
        *kept.write() = KeptValue {
            version,
            value: value.clone(),
        };
        value
    }

    fn compute(&self, ctx: &mut EvalContext<'_>) -> String {
        // A template that is one call (`${__Random(1,100)}`) is the call's own text.
        if let [Part::Call(function)] = &self.parts[..] {
            return function.call(ctx);
        }
        let mut out = String::with_capacity(self.raw.len());
        for part in self.parts.iter() {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Variable(name) => match ctx.vars.get(name) {
                    Some(value) => out.push_str(value),
                    None => {
                        out.push_str("${");
                        out.push_str(name);
                        out.push('}');
                    }
                },
                Part::Call(function) => out.push_str(&function.call(ctx)),
            }
        }
        out
    }
}
