//! The script elements: JSR223, BeanShell and BSF Samplers, Pre-Processors,
//! Post-Processors, Assertions, Timers and Listeners, each a [`ScriptProgram`] behind the
//! plan's element traits.
//!
//! What each binds and how it reads the outcome follows JMeter's classes
//! (`JSR223Sampler`, `BeanShellSampler`, `BSFSampler`, `JSR223Assertion`,
//! `BeanShellAssertion`, `JSR223Timer`...): a sampler answers `200 OK` unless the script
//! says otherwise, an error fails the sample with code 500 and the error as message; a
//! pre- or post-processor that fails logs the error; an assertion that fails to run is an
//! error on the sample; a timer's delay is the script's value.

use std::sync::Arc;

use async_trait::async_trait;
use rhai::Dynamic;

use super::bindings::{text_of, CallState, ResultSlot};
use super::program::{FileLabel, ScriptProgram, ScriptProperties};
use super::translate::SourceLanguage;
use crate::plan::{
    Assertion, BuildContext, PostProcessor, PreProcessor, SampleContext, SampleListener, Sampler,
    Timer,
};
use crate::sample::AssertionResult;
use crate::sample::SampleResult;
use crate::sample::Stopwatch;
use crate::samplers::new_result;
use crate::user_state::EvalContext;
use crate::user_state::UserState;

/// The three families of script element, which differ in bindings and outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Jsr223,
    BeanShell,
    Bsf,
}

/// A built script element, by the plan trait it implements.
pub enum ScriptElement {
    Sampler(Arc<dyn Sampler>),
    Pre(Arc<dyn PreProcessor>),
    Post(Arc<dyn PostProcessor>),
    Assertion(Arc<dyn Assertion>),
    Timer(Arc<dyn Timer>),
    Listener(Arc<dyn SampleListener>),
}

#[derive(Clone, Copy)]
enum Role {
    Sampler,
    Pre,
    Post,
    Assertion,
    Timer,
    Listener,
}

/// The dialect and role of a script element class (short or fully qualified name).
fn classify(class: &str) -> Option<(Dialect, Role)> {
    let short = class.rsplit('.').next().unwrap_or(class);
    let (dialect, role) = if let Some(role) = short.strip_prefix("JSR223") {
        (Dialect::Jsr223, role)
    } else if let Some(role) = short.strip_prefix("BeanShell") {
        (Dialect::BeanShell, role)
    } else if let Some(role) = short.strip_prefix("BSF") {
        (Dialect::Bsf, role)
    } else {
        return None;
    };
    let role = match role {
        "Sampler" => Role::Sampler,
        "PreProcessor" => Role::Pre,
        "PostProcessor" => Role::Post,
        "Assertion" => Role::Assertion,
        "Timer" => Role::Timer,
        "Listener" => Role::Listener,
        _ => return None,
    };
    Some((dialect, role))
}

/// Whether `class` is a script element this module builds.
pub fn is_script_class(class: &str) -> bool {
    classify(class).is_some()
}

/// Builds a script element; `None` with an error reported when its script cannot run.
pub fn build(class: &str, cx: &mut BuildContext<'_>) -> Option<ScriptElement> {
    let (dialect, role) = classify(class)?;
    let short = class.rsplit('.').next().unwrap_or(class);
    let props = match (dialect, role) {
        (Dialect::BeanShell, Role::Sampler | Role::Assertion) => prefixed(role),
        _ => ScriptProperties {
            script: "script",
            filename: "filename",
            parameters: "parameters",
        },
    };
    let language = match dialect {
        Dialect::BeanShell => SourceLanguage::BeanShell,
        _ => {
            let raw = cx.raw("scriptLanguage").unwrap_or("");
            match SourceLanguage::from_script_language(raw) {
                Some(language) => language,
                None => {
                    cx.error(format!(
                        "{short}: scriptLanguage {raw:?} is not supported: jmxr runs rhai and \
                         translates groovy, java, beanshell, javascript and jexl"
                    ));
                    return None;
                }
            }
        }
    };
    let file_label = if dialect == Dialect::BeanShell {
        FileLabel::Bare
    } else {
        FileLabel::Prefixed
    };
    let program = ScriptProgram::build(cx, language, props, file_label)?;
    let element = ScriptRunner { program, dialect };
    Some(match role {
        Role::Sampler => ScriptElement::Sampler(Arc::new(element)),
        Role::Pre => ScriptElement::Pre(Arc::new(element)),
        Role::Post => ScriptElement::Post(Arc::new(element)),
        Role::Assertion => ScriptElement::Assertion(Arc::new(element)),
        Role::Timer => ScriptElement::Timer(Arc::new(element)),
        Role::Listener => ScriptElement::Listener(Arc::new(element)),
    })
}

/// The BeanShell Sampler and Assertion keep their script under their own class name.
fn prefixed(role: Role) -> ScriptProperties {
    match role {
        Role::Sampler => ScriptProperties {
            script: "BeanShellSampler.query",
            filename: "BeanShellSampler.filename",
            parameters: "BeanShellSampler.parameters",
        },
        _ => ScriptProperties {
            script: "BeanShellAssertion.query",
            filename: "BeanShellAssertion.filename",
            parameters: "BeanShellAssertion.parameters",
        },
    }
}

/// One script element of any role.
pub struct ScriptRunner {
    program: ScriptProgram,
    dialect: Dialect,
}

/// The state of a call made for a virtual user: its variables move in for the call.
fn user_state(user: &mut UserState, program: &ScriptProgram, sampler_name: &str) -> CallState {
    let mut state = CallState::new(
        std::mem::take(&mut user.vars),
        user.run.props.clone(),
        user.thread.clone(),
        program.name.clone(),
    );
    if program.reads_sampler {
        state.sampler_name = sampler_name.into();
    }
    state.prev = user
        .prev
        .clone()
        .map_or(ResultSlot::Empty, ResultSlot::Shared);
    state
}

/// The state of a call made while an expression is evaluated (timers, assertions).
fn eval_state(cx: &mut EvalContext<'_>, element: &Arc<str>, copy_prev: bool) -> CallState {
    let mut state = CallState::new(
        std::mem::take(cx.vars),
        cx.props.clone(),
        cx.thread.clone(),
        element.clone(),
    );
    state.sampler_name = cx.sampler_name.into();
    if copy_prev {
        if let Some(prev) = cx.prev {
            state.prev = ResultSlot::Owned(Box::new(prev.clone()));
        }
    }
    state
}

fn log_problem(name: &str, message: &str) {
    crate::runlog::error(&format!(
        "Problem in script element named: '{name}': {message}"
    ));
}

impl ScriptRunner {
    /// Runs the script for a virtual user outside a sample (pre- and post-processors,
    /// listeners), with `current` as `SampleResult` and `prev` as `prev` when given.
    fn run_for_user(
        &self,
        user: &mut UserState,
        sampler_name: &str,
        current: ResultSlot,
        prev: Option<ResultSlot>,
    ) -> (Result<Dynamic, String>, ResultSlot) {
        let (resolved, parameters) = {
            let mut cx = user.eval(sampler_name);
            (
                self.program.resolve(&mut cx),
                self.program.parameters(&mut cx),
            )
        };
        let mut state = user_state(user, &self.program, sampler_name);
        state.current = current;
        if let Some(prev) = prev {
            state.prev = prev;
        }
        let (out, state) = self.program.execute(&resolved, state, parameters, &mut []);
        user.vars = state.vars;
        (out, state.current)
    }
}

impl ScriptRunner {
    /// One sample; [`Sampler::sample`] boxes it for the engine.
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> Option<SampleResult> {
        let mut result = new_result(cx, cx.label.clone());
        result.response_code = "200".into();
        result.response_message = "OK".into();
        result.data_type = "text";
        let watch = Stopwatch::start();
        let label = cx.label.clone();
        let (resolved, parameters) = {
            let mut eval = cx.user.eval(&label);
            (
                self.program.resolve(&mut eval),
                self.program.parameters(&mut eval),
            )
        };
        result.sampler_data = resolved.text.to_string();
        let mut state = user_state(cx.user, &self.program, &label);
        state.current = ResultSlot::Owned(Box::new(result));
        let mut globals = match self.dialect {
            Dialect::BeanShell => vec![
                ("ResponseCode", Dynamic::from("200")),
                ("ResponseMessage", Dynamic::from("OK")),
                ("IsSuccess", Dynamic::TRUE),
            ],
            _ => Vec::new(),
        };
        let (out, state) = self
            .program
            .execute(&resolved, state, parameters, &mut globals);
        cx.user.vars = state.vars;
        let mut result = state.current.into_owned().unwrap_or_default();
        match (out, self.dialect) {
            (Ok(value), Dialect::BeanShell) => {
                if let Some(text) = text_of(&value) {
                    result.response_data = text.into_bytes();
                }
                let [code, message, success] = [0, 1, 2].map(|i| text_of(&globals[i].1));
                result.response_code = code.map_or("null".into(), Into::into);
                result.response_message = message.map_or("null".into(), Into::into);
                result.set_success(success.as_deref() == Some("true"));
            }
            (Ok(value), dialect) => {
                let replace = dialect == Dialect::Bsf || result.response_data.is_empty();
                if let Some(text) = text_of(&value).filter(|_| replace) {
                    result.response_data = text.into_bytes();
                }
            }
            (Err(message), dialect) => {
                log_problem(&self.program.name, &message);
                result.set_success(false);
                result.response_code = "500".into();
                result.response_message = match dialect {
                    Dialect::Jsr223 => format!("javax.script.ScriptException: {message}"),
                    Dialect::BeanShell => format!("bsh.EvalError: {message}"),
                    Dialect::Bsf => format!("org.apache.bsf.BSFException: {message}"),
                }
                .into();
            }
        }
        watch.stop(&mut result);
        Some(result)
    }
}

#[async_trait]
impl Sampler for ScriptRunner {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        self.sample_unboxed(cx).await.map(Arc::new)
    }
}

impl PreProcessor for ScriptRunner {
    fn process(&self, user: &mut UserState, sampler_name: &str) {
        let (out, _) = self.run_for_user(user, sampler_name, ResultSlot::Empty, None);
        if let Err(message) = out {
            log_problem(&self.program.name, &message);
        }
    }
}

impl PostProcessor for ScriptRunner {
    fn process(&self, result: &mut SampleResult, user: &mut UserState) {
        let current = ResultSlot::Owned(Box::new(std::mem::take(result)));
        let sampler_name = result_label(&current);
        let (out, current) = self.run_for_user(
            user,
            &sampler_name,
            current,
            Some(ResultSlot::SameAsCurrent),
        );
        if let Some(taken) = current.into_owned() {
            *result = taken;
        }
        if let Err(message) = out {
            log_problem(&self.program.name, &message);
        }
    }
}

fn result_label(slot: &ResultSlot) -> String {
    match slot {
        ResultSlot::Owned(result) => result.label.to_string(),
        ResultSlot::Shared(result) => result.label.to_string(),
        _ => String::new(),
    }
}

impl SampleListener for ScriptRunner {
    fn sample_occurred(&self, result: &Arc<SampleResult>, user: &mut UserState) {
        let current = ResultSlot::Shared(result.clone());
        let label = result.label.clone();
        let (out, _) = self.run_for_user(user, &label, current, None);
        if let Err(message) = out {
            log_problem(&self.program.name, &message);
        }
    }
}

impl Assertion for ScriptRunner {
    fn apply(&self, result: &mut SampleResult, cx: &mut EvalContext<'_>) {
        let resolved = self.program.resolve(cx);
        let parameters = self.program.parameters(cx);
        let mut state = eval_state(cx, &self.program.name, false);
        let mut globals = Vec::new();
        if self.dialect == Dialect::BeanShell {
            globals = beanshell_assertion_globals(result);
        }
        state.current = ResultSlot::Owned(Box::new(std::mem::take(result)));
        state.prev = ResultSlot::SameAsCurrent;
        let (out, state) = self
            .program
            .execute(&resolved, state, parameters, &mut globals);
        *cx.vars = state.vars;
        if let Some(taken) = state.current.into_owned() {
            *result = taken;
        }
        let mut outcome = state.assertion;
        if self.dialect == Dialect::BeanShell && out.is_ok() {
            outcome.failure = text_of(&globals[0].1).as_deref() == Some("true");
            outcome.failure_message = text_of(&globals[1].1);
        }
        if let Err(message) = out {
            log_problem(&self.program.name, &message);
            outcome.error = true;
            outcome.failure |= self.dialect == Dialect::Bsf;
            outcome.failure_message = Some(message);
        }
        let verdict = AssertionResult {
            name: self.program.name.clone(),
            failure: outcome.failure,
            error: outcome.error,
            failure_message: outcome.failure_message,
        };
        let ok = result.success && !(verdict.failure || verdict.error);
        result.set_success(ok);
        result.assertions.push(verdict);
    }
}

/// The BeanShell Assertion's input variables; `Failure` and `FailureMessage` come first
/// because they are read back.
fn beanshell_assertion_globals(result: &SampleResult) -> Vec<(&'static str, Dynamic)> {
    vec![
        ("Failure", Dynamic::FALSE),
        ("FailureMessage", Dynamic::from("")),
        (
            "ResponseData",
            Dynamic::from_blob(result.response_data.clone()),
        ),
        (
            "ResponseCode",
            Dynamic::from(result.response_code.to_string()),
        ),
        (
            "ResponseMessage",
            Dynamic::from(result.response_message.to_string()),
        ),
        (
            "ResponseHeaders",
            Dynamic::from(result.response_headers.clone()),
        ),
        (
            "RequestHeaders",
            Dynamic::from(result.request_headers.clone()),
        ),
        ("SampleLabel", Dynamic::from(result.label.to_string())),
        ("SamplerData", Dynamic::from(result.sampler_data.clone())),
        ("Successful", Dynamic::from(result.success)),
    ]
}

impl Timer for ScriptRunner {
    fn delay_ms(&self, cx: &mut EvalContext<'_>) -> i64 {
        let resolved = self.program.resolve(cx);
        let parameters = self.program.parameters(cx);
        let state = eval_state(cx, &self.program.name, self.program.reads_prev);
        let (out, state) = self.program.execute(&resolved, state, parameters, &mut []);
        *cx.vars = state.vars;
        match out {
            Ok(value) => match text_of(&value) {
                Some(text) => parse_delay(&text).unwrap_or_else(|| {
                    log_problem(
                        &self.program.name,
                        &format!("delay {text:?} is not a number"),
                    );
                    0
                }),
                None => {
                    crate::runlog::warn(&format!(
                        "{}: Script did not return a value",
                        self.program.name
                    ));
                    0
                }
            },
            Err(message) => {
                log_problem(&self.program.name, &message);
                0
            }
        }
    }
}

/// A delay as `Long.parseLong` / `Long.decode` read it (decimal, or `0x` hexadecimal).
fn parse_delay(text: &str) -> Option<i64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_map_to_dialect_and_role() {
        assert!(matches!(
            classify("org.apache.jmeter.protocol.java.sampler.JSR223Sampler"),
            Some((Dialect::Jsr223, Role::Sampler))
        ));
        assert!(matches!(
            classify("BeanShellAssertion"),
            Some((Dialect::BeanShell, Role::Assertion))
        ));
        assert!(matches!(
            classify("BSFTimer"),
            Some((Dialect::Bsf, Role::Timer))
        ));
        assert!(classify("JSR223Thing").is_none());
        assert_eq!(prefixed(Role::Sampler).script, "BeanShellSampler.query");
        assert_eq!(prefixed(Role::Assertion).script, "BeanShellAssertion.query");
    }

    #[test]
    fn delays_parse_as_java_longs() {
        assert_eq!(parse_delay(" 150 "), Some(150));
        assert_eq!(parse_delay("0x10"), Some(16));
        assert_eq!(parse_delay("1.5"), None);
    }
}
