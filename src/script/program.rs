//! One script element's code, prepared at plan time, and the call that runs it.
//!
//! [`ScriptProgram::build`] reads the element's script (inline or from its file),
//! translates it when it is not Rhai and compiles it once. A script whose text holds
//! `${...}` is a function property in JMeter: it is substituted before every call, so it
//! is compiled per distinct text (bounded cache) and `check` warns about it. Jexl
//! expressions that the condition language reads (`11*11`) are evaluated by it directly.
//!
//! [`ScriptProgram::resolve`] gives the code for one call and [`ScriptProgram::execute`]
//! runs it with a [`CallState`], the element's fixed bindings (`Label`, `FileName`,
//! `Parameters`, `args`) and any globals the element reads back afterwards (the
//! BeanShell Sampler's `IsSuccess`, `ResponseCode`...).

use std::cell::RefCell;
use std::sync::Arc;

use rhai::{Array, Dynamic, ImmutableString, Scope, AST};

use super::bindings::{constants, with_call, CallState};
use super::engine::{self, AstCache};
use super::protobuf::{self, Schema};
use super::translate::SourceLanguage;
use crate::expr::condition;
use crate::expr::Template;
use crate::plan::BuildContext;
use crate::user_state::EvalContext;

/// Where an element keeps its script, file name and parameters.
#[derive(Debug, Clone, Copy)]
pub struct ScriptProperties {
    pub script: &'static str,
    pub filename: &'static str,
    pub parameters: &'static str,
}

/// How the sampler data names a script read from a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileLabel {
    /// `File: name` (JSR223, BSF).
    Prefixed,
    /// The bare name (BeanShell).
    Bare,
}

enum Body {
    Compiled {
        ast: Arc<AST>,
        text: Arc<str>,
    },
    Expression {
        text: Arc<str>,
    },
    Templated {
        template: Template,
        cache: AstCache,
    },
    /// A script JMeter would fail on at every call (nothing to run).
    Broken(String),
}

/// The code of one call.
pub enum Code {
    Ast(Arc<AST>),
    Expression,
}

/// What one call runs: the code and the script text as the sampler data shows it.
pub struct Resolved {
    pub code: Result<Code, String>,
    pub text: Arc<str>,
}

/// A script element's prepared code; see the module doc.
pub struct ScriptProgram {
    pub name: Arc<str>,
    /// `Label`: the element's name, ready for the scope.
    label: ImmutableString,
    language: SourceLanguage,
    body: Body,
    parameters: Template,
    /// `Parameters` and `args` when the parameters hold no `${...}`.
    constant_parameters: Option<(ImmutableString, Array)>,
    file_name: ImmutableString,
    /// Whether the script mentions `prev` or `ctx` (a timer copies the previous sample
    /// for it only then).
    pub reads_prev: bool,
    /// Whether the script mentions `sampler` or `ctx` (the sampler's name is copied for
    /// it only then).
    pub reads_sampler: bool,
    /// The variable a Java-like script assigns in its last statement: Groovy, Java and
    /// BeanShell give the assigned value as the script's value (`IsSuccess = false;`
    /// answers `false`), where Rhai gives nothing.
    trailing_assignment: Option<String>,
    /// The run's compiled `.proto` files, for the `Protobuf` module at run time.
    protobuf: Option<Arc<Schema>>,
}

impl ScriptProgram {
    /// Prepares the element's script; `None` (with an error reported) when it cannot
    /// run: not translatable, not compilable, or its file is missing.
    pub fn build(
        cx: &mut BuildContext<'_>,
        language: SourceLanguage,
        props: ScriptProperties,
        file_label: FileLabel,
    ) -> Option<ScriptProgram> {
        let name: Arc<str> = Arc::from(cx.element.name.as_str());
        let protobuf = match protobuf::schema_for(cx) {
            Ok(schema) => schema,
            Err(message) => {
                cx.error(message);
                return None;
            }
        };
        let file_name = cx.raw(props.filename).unwrap_or("").trim().to_string();
        let parameters = cx.template(props.parameters);
        let constant_parameters = parameters
            .is_constant()
            .then(|| split_parameters(parameters.raw()));
        let (body, source) = if file_name.is_empty() {
            let script = cx.raw(props.script).unwrap_or("").to_string();
            (inline_body(cx, language, &script, &protobuf)?, script)
        } else {
            let source = read_script_file(cx, &file_name)?;
            let text: Arc<str> = Arc::from(match file_label {
                FileLabel::Prefixed => format!("File: {file_name}"),
                FileLabel::Bare => file_name.clone(),
            });
            let ast = compile_or_report(cx, language, &source, &protobuf)?;
            (Body::Compiled { ast, text }, source)
        };
        Some(ScriptProgram {
            label: ImmutableString::from(&*name),
            name,
            language,
            body,
            parameters,
            constant_parameters,
            file_name: file_name.into(),
            reads_prev: mentions_prev(&source),
            reads_sampler: source.contains("sampler") || source.contains("ctx"),
            trailing_assignment: trailing_assignment(language, &source),
            protobuf,
        })
    }

    /// The code for one call, substituting `${...}` first when the script holds some.
    pub fn resolve(&self, cx: &mut EvalContext<'_>) -> Resolved {
        match &self.body {
            Body::Compiled { ast, text } => Resolved {
                code: Ok(Code::Ast(ast.clone())),
                text: text.clone(),
            },
            Body::Expression { text } => Resolved {
                code: Ok(Code::Expression),
                text: text.clone(),
            },
            Body::Templated { template, cache } => {
                let text = template.eval(cx);
                let code = cache.get(self.language, &text).map(Code::Ast);
                Resolved {
                    code,
                    text: Arc::from(text),
                }
            }
            Body::Broken(message) => Resolved {
                code: Err(message.clone()),
                text: Arc::from(""),
            },
        }
    }

    /// The `Parameters` text and `args` for one call.
    pub fn parameters(&self, cx: &mut EvalContext<'_>) -> (ImmutableString, Array) {
        match &self.constant_parameters {
            Some((text, args)) => (text.clone(), args.clone()),
            None => split_parameters(&self.parameters.eval(cx)),
        }
    }

    /// Runs `resolved` with `state` installed. `globals` are pushed as variables before
    /// the call and hold their final values afterwards. Returns the script's value (unit
    /// for none) or the error message, and the state.
    pub fn execute(
        &self,
        resolved: &Resolved,
        state: CallState,
        parameters: (ImmutableString, Array),
        globals: &mut [(&'static str, Dynamic)],
    ) -> (Result<Dynamic, String>, CallState) {
        let code = match &resolved.code {
            Ok(code) => code,
            Err(message) => return (Err(message.clone()), state),
        };
        let mut state = state;
        state.protobuf.clone_from(&self.protobuf);
        match code {
            Code::Expression => {
                let value = condition::evaluate_with(&resolved.text, Some(&state.props))
                    .map(|v| Dynamic::from(v.to_string()))
                    .map_err(|e| e.to_string());
                (value, state)
            }
            Code::Ast(ast) => with_call(state, || {
                with_scope(|scope| {
                    scope
                        .push("Label", self.label.clone())
                        .push("FileName", self.file_name.clone())
                        .push("Parameters", parameters.0)
                        .push("args", parameters.1);
                    for (name, value) in globals.iter() {
                        scope.push_dynamic(*name, value.clone());
                    }
                    let mut out = engine::engine()
                        .eval_ast_with_scope::<Dynamic>(scope, ast)
                        .map_err(|err| engine::runtime_error(&err));
                    if let (Ok(value), Some(name)) = (&mut out, &self.trailing_assignment) {
                        if value.is_unit() {
                            *value = scope.get_value::<Dynamic>(name).unwrap_or(Dynamic::UNIT);
                        }
                    }
                    for (name, value) in globals.iter_mut() {
                        if let Some(found) = scope.get_value::<Dynamic>(name) {
                            *value = found;
                        }
                    }
                    out
                })
            }),
        }
    }
}

fn inline_body(
    cx: &mut BuildContext<'_>,
    language: SourceLanguage,
    script: &str,
    protobuf: &Option<Arc<Schema>>,
) -> Option<Body> {
    if script.trim().is_empty() {
        cx.warn("the script and its file name are both empty: every call fails, as in JMeter");
        return Some(Body::Broken(format!(
            "Both script file and script text are empty for element named: {}",
            cx.element.name
        )));
    }
    if script.contains("${") {
        let template = cx.compile(script);
        if !template.is_constant() {
            cx.warn(
                "the script holds ${...}: JMeter substitutes it before every call, so the \
                 script is compiled per distinct text instead of once; read variables with \
                 vars.get(\"name\") instead",
            );
            return Some(Body::Templated {
                template,
                cache: AstCache::with_protobuf(protobuf.clone()),
            });
        }
    }
    if language == SourceLanguage::Jexl && condition::check_syntax(script).is_ok() {
        return Some(Body::Expression {
            text: Arc::from(script),
        });
    }
    let ast = compile_or_report(cx, language, script, protobuf)?;
    Some(Body::Compiled {
        ast,
        text: Arc::from(script),
    })
}

fn compile_or_report(
    cx: &mut BuildContext<'_>,
    language: SourceLanguage,
    source: &str,
    protobuf: &Option<Arc<Schema>>,
) -> Option<Arc<AST>> {
    match engine::compile_with(language, source, protobuf.as_ref()) {
        Ok(ast) => Some(ast),
        Err(message) => {
            cx.error(message);
            None
        }
    }
}

/// Reads a script file named relative to the working folder, then the plan's folder.
fn read_script_file(cx: &mut BuildContext<'_>, name: &str) -> Option<String> {
    let plan_dir = cx.plan_dir();
    let path = crate::foundation::paths::resolve_input(name, &plan_dir);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(err) => {
            cx.error(format!(
                "script file {name:?} cannot be read (looked in the working folder and {}): {err}",
                plan_dir.display()
            ));
            None
        }
    }
}

/// The variable assigned by the last statement of a Java-like script (`x = 1;`,
/// `x += 2`), if that statement is a plain assignment outside any block.
fn trailing_assignment(language: SourceLanguage, source: &str) -> Option<String> {
    if matches!(language, SourceLanguage::Rhai | SourceLanguage::Jexl) {
        return None;
    }
    let body = source.trim_end().trim_end_matches(';');
    let last = body
        .rsplit([';', '\n', '{', '}'])
        .next()
        .unwrap_or("")
        .trim();
    let name_end = last
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(last.len());
    let (name, rest) = last.split_at(name_end);
    let rest = rest.trim_start();
    let operator = ["=", "+=", "-=", "*=", "/="]
        .iter()
        .find(|op| rest.starts_with(**op))?;
    let starts_like_a_name = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    let is_comparison = rest[operator.len()..].starts_with('=');
    (starts_like_a_name && !is_comparison).then(|| name.to_string())
}

fn mentions_prev(script: &str) -> bool {
    script.contains("prev") || script.contains("ctx")
}

/// `Parameters` as given and `args` split on spaces, as JMeter's `JOrphanUtils.split`
/// does (empty pieces dropped).
fn split_parameters(text: &str) -> (ImmutableString, Array) {
    let args = text
        .split(' ')
        .filter(|piece| !piece.is_empty())
        .map(|piece| Dynamic::from(piece.to_string()))
        .collect();
    (ImmutableString::from(text), args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_last_plain_assignment_is_found_for_java_like_languages() {
        let found = |source| trailing_assignment(SourceLanguage::BeanShell, source);
        assert_eq!(found("IsSuccess  = false;").as_deref(), Some("IsSuccess"));
        assert_eq!(found("a();\nx += 2").as_deref(), Some("x"));
        assert_eq!(found("if (a) { x = 1; }"), None);
        assert_eq!(found("x == 1"), None);
        assert_eq!(found("vars.put(\"a\", \"b\");"), None);
        assert_eq!(trailing_assignment(SourceLanguage::Rhai, "x = 1"), None);
    }

    #[test]
    fn parameters_split_on_spaces() {
        let (text, args) = split_parameters("a  b c");
        assert_eq!(text.as_str(), "a  b c");
        assert_eq!(args.len(), 3);
    }
}

thread_local! {
    /// A scope holding the binding constants, reused by every call on this thread and
    /// rewound after each.
    static SCOPE: RefCell<Scope<'static>> = RefCell::new(Scope::new());
}

fn with_scope<R>(call: impl FnOnce(&mut Scope<'static>) -> R) -> R {
    SCOPE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scope) => {
            if !bindings_intact(&scope) {
                scope.clear();
                push_bindings(&mut scope);
            }
            let base = scope.len();
            let out = call(&mut scope);
            scope.rewind(base);
            out
        }
        Err(_) => {
            let mut scope = Scope::new();
            push_bindings(&mut scope);
            call(&mut scope)
        }
    })
}

/// Pushes the bindings: constants, except `vars` and `props`, whose indexers assign
/// (`vars["a"] = "1"`) and Rhai refuses indexer assignment on a constant.
pub fn push_bindings(scope: &mut Scope<'_>) {
    for (name, value) in constants() {
        if name == "vars" || name == "props" {
            scope.push_dynamic(name, value);
        } else {
            scope.push_constant_dynamic(name, value);
        }
    }
}

/// Whether the reusable scope still holds the bindings: it is empty on a thread's first
/// call, and a script may have assigned over `vars` or `props`.
fn bindings_intact(scope: &Scope<'_>) -> bool {
    scope.len() == super::bindings::BINDING_COUNT
        && scope
            .get_value_ref::<super::bindings::Vars>("vars")
            .is_some()
        && scope
            .get_value_ref::<super::bindings::Props>("props")
            .is_some()
}
