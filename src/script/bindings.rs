//! The JMeter bindings scripts see: `vars`, `props`, `log`, `ctx`, `prev`,
//! `SampleResult`, `sampleResult`, `sampler`, `AssertionResult`, `OUT`.
//!
//! Rhai values must be `'static`, but what a script works on (the user's variables, the
//! sample being judged) belongs to the caller for the length of one call. So the caller
//! moves that state into a [`CallState`] (a move, not a copy: variables are taken out of
//! the user and given back afterwards), [`with_call`] installs it in a thread-local slot
//! for the synchronous call, and the bindings are zero-sized handles whose methods reach
//! the slot. A script call never awaits, so the slot cannot be seen by another task.
//! Nested calls keep the outer state aside and restore it.

use std::cell::RefCell;
use std::sync::Arc;

use rhai::{Array, Blob, Dynamic, Engine, ImmutableString};

use crate::foundation::properties::Properties;

use crate::user_state::ThreadInfo;

use crate::sample::SampleAction;
use crate::sample::SampleResult;
use crate::user_state::Variables;

/// Where a result binding's sample lives for one call.
#[derive(Default)]
pub enum ResultSlot {
    /// No sample (`prev` before the first sample, `SampleResult` in a pre-processor).
    #[default]
    Empty,
    /// A sample the call may change and the caller takes back.
    Owned(Box<SampleResult>),
    /// A recorded sample: readable; a change only touches the script's private copy.
    Shared(Arc<SampleResult>),
    /// `prev` in post-processors and assertions: the sample being processed.
    SameAsCurrent,
}

impl ResultSlot {
    /// Takes back an owned sample.
    pub fn into_owned(self) -> Option<SampleResult> {
        match self {
            ResultSlot::Owned(result) => Some(*result),
            _ => None,
        }
    }
}

/// What a JSR223 / BeanShell Assertion script decided.
#[derive(Debug, Default, Clone)]
pub struct AssertionOutcome {
    pub failure: bool,
    pub error: bool,
    pub failure_message: Option<String>,
}

/// Everything a script call works on; see the module doc.
pub struct CallState {
    pub vars: Variables,
    pub props: Properties,
    pub thread: ThreadInfo,
    /// `SampleResult` / `sampleResult`.
    pub current: ResultSlot,
    /// `prev` / `ctx.getPreviousResult()`.
    pub prev: ResultSlot,
    /// `AssertionResult`, in assertions.
    pub assertion: AssertionOutcome,
    /// `sampler.getName()`.
    pub sampler_name: ImmutableString,
    /// The element's name, which prefixes its log lines.
    pub element: Arc<str>,
    /// The run's compiled `.proto` files, for the `Protobuf` module.
    pub protobuf: Option<Arc<crate::script::protobuf::Schema>>,
}

impl CallState {
    pub fn new(
        vars: Variables,
        props: Properties,
        thread: ThreadInfo,
        element: Arc<str>,
    ) -> CallState {
        CallState {
            vars,
            props,
            thread,
            current: ResultSlot::Empty,
            prev: ResultSlot::Empty,
            assertion: AssertionOutcome::default(),
            sampler_name: ImmutableString::new(),
            element,
            protobuf: None,
        }
    }

    fn result(&self, which: Which) -> Option<&SampleResult> {
        let slot = match (which, &self.prev) {
            (Which::Prev, ResultSlot::SameAsCurrent) | (Which::Current, _) => &self.current,
            (Which::Prev, slot) => slot,
        };
        match slot {
            ResultSlot::Owned(result) => Some(result),
            ResultSlot::Shared(result) => Some(result),
            _ => None,
        }
    }

    fn result_mut(&mut self, which: Which) -> Option<&mut SampleResult> {
        let slot = match which {
            Which::Prev if !matches!(self.prev, ResultSlot::SameAsCurrent) => &mut self.prev,
            _ => &mut self.current,
        };
        match slot {
            ResultSlot::Owned(result) => Some(result),
            ResultSlot::Shared(result) => Some(Arc::make_mut(result)),
            _ => None,
        }
    }

    /// JMeter's `vars.getIteration()`: the thread-group iteration, 1-based.
    fn iteration(&self) -> i64 {
        let name = format!("__jm__{}__idx", self.thread.group_name);
        self.vars
            .get(&name)
            .and_then(|v| v.trim().parse::<i64>().ok())
            .map_or(0, |idx| idx + 1)
    }
}

thread_local! {
    static CALL: RefCell<Option<CallState>> = const { RefCell::new(None) };
}

/// Runs `call` with `state` installed for the bindings, and gives the state back.
pub fn with_call<R>(state: CallState, call: impl FnOnce() -> R) -> (R, CallState) {
    let outer = CALL.with(|slot| slot.replace(Some(state)));
    let out = call();
    let state = CALL.with(|slot| slot.replace(outer));
    (
        out,
        state.unwrap_or_else(|| {
            CallState::new(
                Variables::new(),
                Properties::new(),
                ThreadInfo::default(),
                Arc::from(""),
            )
        }),
    )
}

/// Applies `f` to the installed state; `default` outside a call.
pub(super) fn state<R>(default: R, f: impl FnOnce(&mut CallState) -> R) -> R {
    CALL.with(|slot| match slot.try_borrow_mut() {
        Ok(mut guard) => match guard.as_mut() {
            Some(state) => f(state),
            None => default,
        },
        Err(_) => default,
    })
}

/// The `.proto` schema of the script being run, if its run loaded one.
pub fn protobuf_schema() -> Option<Arc<crate::script::protobuf::Schema>> {
    state(None, |s| s.protobuf.clone())
}

/// `vars`, `ctx.getVariables()`.
#[derive(Debug, Clone, Copy)]
pub struct Vars;
/// `props`, `ctx.getProperties()`.
#[derive(Debug, Clone, Copy)]
pub struct Props;

pub use super::bindings_props::{from_object, to_object};
/// `log`.
#[derive(Debug, Clone, Copy)]
pub struct Log;
/// `ctx`.
#[derive(Debug, Clone, Copy)]
pub struct Ctx;
/// `sampler`, `ctx.getCurrentSampler()`.
#[derive(Debug, Clone, Copy)]
pub struct SamplerRef;
/// `ctx.getThreadGroup()`.
#[derive(Debug, Clone, Copy)]
pub struct ThreadGroupRef;
/// `AssertionResult`.
#[derive(Debug, Clone, Copy)]
pub struct AssertionRef;
/// `OUT` (`System.out`).
#[derive(Debug, Clone, Copy)]
pub struct Out;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    Current,
    Prev,
}

/// `SampleResult`, `sampleResult`, `prev`, `ctx.getPreviousResult()`.
#[derive(Debug, Clone, Copy)]
pub struct ResultRef(Which);

/// One item of `vars.entrySet()`.
#[derive(Debug, Clone)]
pub struct VarEntry {
    key: ImmutableString,
    value: Dynamic,
}

/// How many names [`constants`] gives.
pub const BINDING_COUNT: usize = 11;

/// The names and values every script sees, pushed once into a reusable scope.
pub fn constants() -> [(&'static str, Dynamic); BINDING_COUNT] {
    [
        ("vars", Dynamic::from(Vars)),
        ("props", Dynamic::from(Props)),
        ("log", Dynamic::from(Log)),
        ("ctx", Dynamic::from(Ctx)),
        ("sampler", Dynamic::from(SamplerRef)),
        ("prev", Dynamic::from(ResultRef(Which::Prev))),
        ("SampleResult", Dynamic::from(ResultRef(Which::Current))),
        ("sampleResult", Dynamic::from(ResultRef(Which::Current))),
        ("Response", Dynamic::from(ResultRef(Which::Current))),
        ("AssertionResult", Dynamic::from(AssertionRef)),
        ("OUT", Dynamic::from(Out)),
    ]
}

/// A script value as the text JMeter would store (`null` → `None`).
pub fn text_of(value: &Dynamic) -> Option<String> {
    if value.is_unit() {
        return None;
    }
    if let Some(text) = value.read_lock::<ImmutableString>() {
        return Some(text.to_string());
    }
    if let Some(blob) = value.read_lock::<Blob>() {
        return Some(String::from_utf8_lossy(&blob).into_owned());
    }
    Some(value.to_string())
}

pub(super) fn string_or_unit(value: Option<&str>) -> Dynamic {
    value.map_or(Dynamic::UNIT, |v| Dynamic::from(v.to_string()))
}

/// Installs the binding types and their methods on `engine`.
pub fn register(engine: &mut Engine) {
    register_vars(engine);
    super::bindings_props::register(engine);
    register_log(engine);
    register_ctx(engine);
    super::bindings_result::register(engine);
    register_assertion(engine);
    engine.register_type_with_name::<Out>("PrintStream");
    engine.register_fn("println", |_: &mut Out, value: Dynamic| {
        println!("{}", text_of(&value).unwrap_or_else(|| "null".into()))
    });
    engine.register_fn("println", |_: &mut Out| println!());
    engine.register_fn("print", |_: &mut Out, value: Dynamic| {
        print!("{}", text_of(&value).unwrap_or_else(|| "null".into()))
    });
}

fn vars_get(name: &str) -> Dynamic {
    state(Dynamic::UNIT, |s| string_or_unit(s.vars.get(name)))
}

fn vars_put(name: &str, value: Dynamic) {
    state((), |s| match text_of(&value) {
        Some(text) => s.vars.put(name, text),
        None => {
            s.vars.remove(name);
        }
    })
}

fn register_vars(engine: &mut Engine) {
    engine.register_type_with_name::<Vars>("JMeterVariables");
    engine.register_fn("get", |_: &mut Vars, name: &str| vars_get(name));
    engine.register_indexer_get(|_: &mut Vars, name: &str| vars_get(name));
    engine.register_fn("put", |_: &mut Vars, name: &str, value: Dynamic| {
        vars_put(name, value)
    });
    engine.register_indexer_set(|_: &mut Vars, name: &str, value: Dynamic| vars_put(name, value));
    engine.register_fn("putObject", |_: &mut Vars, name: &str, value: Dynamic| {
        if value.is_string() {
            return vars_put(name, value);
        }
        state((), |s| s.vars.put_object(name, to_object(value)))
    });
    engine.register_fn("getObject", |_: &mut Vars, name: &str| {
        state(Dynamic::UNIT, |s| match s.vars.get_object(name) {
            Some(object) => from_object(object),
            None => string_or_unit(s.vars.get(name)),
        })
    });
    engine.register_fn("remove", |_: &mut Vars, name: &str| {
        state(Dynamic::UNIT, |s| {
            s.vars.remove(name).map_or(Dynamic::UNIT, Dynamic::from)
        })
    });
    engine.register_fn("getIteration", |_: &mut Vars| state(0, |s| s.iteration()));
    engine.register_fn("getThreadName", |_: &mut Vars| {
        state(String::new(), |s| s.thread.thread_name.to_string())
    });
    engine.register_fn("entrySet", |_: &mut Vars| {
        state(Array::new(), |s| {
            let mut entries: Vec<(&String, &String)> = s.vars.iter().collect();
            entries.sort();
            entries
                .into_iter()
                .map(|(k, v)| {
                    Dynamic::from(VarEntry {
                        key: k.as_str().into(),
                        value: Dynamic::from(v.clone()),
                    })
                })
                .collect()
        })
    });
    engine.register_type_with_name::<VarEntry>("Map.Entry");
    engine.register_fn("getKey", |e: &mut VarEntry| e.key.clone());
    engine.register_fn("getValue", |e: &mut VarEntry| e.value.clone());
    engine.register_get("key", |e: &mut VarEntry| e.key.clone());
    engine.register_get("value", |e: &mut VarEntry| e.value.clone());
}

/// SLF4J's `{}` placeholders filled in order.
fn format_log(message: &Dynamic, args: &[Dynamic]) -> String {
    let mut text = text_of(message).unwrap_or_else(|| "null".into());
    for arg in args {
        let value = text_of(arg).unwrap_or_else(|| "null".into());
        match text.find("{}") {
            Some(at) => text.replace_range(at..at + 2, &value),
            None => {
                text.push(' ');
                text.push_str(&value);
            }
        }
    }
    text
}

fn log_line(level: &'static str, message: &Dynamic, args: &[Dynamic]) {
    let element = state(Arc::from(""), |s| s.element.clone());
    crate::runlog::write(level, &format!("{element}: {}", format_log(message, args)));
}

fn register_log(engine: &mut Engine) {
    engine.register_type_with_name::<Log>("Logger");
    for (name, level) in [
        ("info", "INFO"),
        ("warn", "WARN"),
        ("error", "ERROR"),
        ("debug", "DEBUG"),
        ("trace", "DEBUG"),
    ] {
        engine.register_fn(name, move |_: &mut Log, message: Dynamic| {
            log_line(level, &message, &[])
        });
        engine.register_fn(name, move |_: &mut Log, message: Dynamic, a: Dynamic| {
            log_line(level, &message, &[a])
        });
        engine.register_fn(
            name,
            move |_: &mut Log, message: Dynamic, a: Dynamic, b: Dynamic| {
                log_line(level, &message, &[a, b])
            },
        );
    }
    for name in [
        "isDebugEnabled",
        "isInfoEnabled",
        "isWarnEnabled",
        "isErrorEnabled",
    ] {
        engine.register_fn(name, |_: &mut Log| true);
    }
}

fn register_ctx(engine: &mut Engine) {
    engine.register_type_with_name::<Ctx>("JMeterContext");
    engine.register_fn("getThreadNum", |_: &mut Ctx| {
        state(0, |s| i64::from(s.thread.thread_num) - 1)
    });
    engine.register_fn("getVariables", |_: &mut Ctx| Vars);
    engine.register_fn("getProperties", |_: &mut Ctx| Props);
    engine.register_fn("getCurrentSampler", |_: &mut Ctx| SamplerRef);
    engine.register_fn("getPreviousResult", |_: &mut Ctx| ResultRef(Which::Prev));
    engine.register_fn("getThreadGroup", |_: &mut Ctx| ThreadGroupRef);
    engine.register_fn("getThreadName", |_: &mut Ctx| {
        state(String::new(), |s| s.thread.thread_name.to_string())
    });
    engine.register_type_with_name::<ThreadGroupRef>("ThreadGroup");
    engine.register_fn("getName", |_: &mut ThreadGroupRef| {
        state(String::new(), |s| s.thread.group_name.to_string())
    });
    engine.register_type_with_name::<SamplerRef>("Sampler");
    engine.register_fn("getName", |_: &mut SamplerRef| {
        state(ImmutableString::new(), |s| s.sampler_name.clone())
    });
    engine.register_fn("setName", |_: &mut SamplerRef, name: &str| {
        state((), |s| s.sampler_name = name.into())
    });
}

fn register_assertion(engine: &mut Engine) {
    engine.register_type_with_name::<AssertionRef>("AssertionResult");
    engine.register_fn("setFailure", |_: &mut AssertionRef, failure: bool| {
        state((), |s| s.assertion.failure = failure)
    });
    engine.register_fn("setError", |_: &mut AssertionRef, error: bool| {
        state((), |s| s.assertion.error = error)
    });
    engine.register_fn(
        "setFailureMessage",
        |_: &mut AssertionRef, message: Dynamic| {
            state((), |s| s.assertion.failure_message = text_of(&message))
        },
    );
    engine.register_fn("isFailure", |_: &mut AssertionRef| {
        state(false, |s| s.assertion.failure)
    });
    engine.register_fn("isError", |_: &mut AssertionRef| {
        state(false, |s| s.assertion.error)
    });
    engine.register_fn("getFailureMessage", |_: &mut AssertionRef| {
        state(Dynamic::UNIT, |s| {
            s.assertion
                .failure_message
                .clone()
                .map_or(Dynamic::UNIT, Dynamic::from)
        })
    });
    engine.register_set("failure", |_: &mut AssertionRef, failure: bool| {
        state((), |s| s.assertion.failure = failure)
    });
    engine.register_set(
        "failureMessage",
        |_: &mut AssertionRef, message: Dynamic| {
            state((), |s| s.assertion.failure_message = text_of(&message))
        },
    );
}

/// Read access to a result binding's sample.
pub(super) fn read_result<R>(r: ResultRef, default: R, f: impl FnOnce(&SampleResult) -> R) -> R {
    CALL.with(|slot| match slot.try_borrow() {
        Ok(guard) => match guard.as_ref().and_then(|s| s.result(r.0)) {
            Some(result) => f(result),
            None => default,
        },
        Err(_) => default,
    })
}

/// Write access to a result binding's sample (no effect when there is none).
pub(super) fn write_result(r: ResultRef, f: impl FnOnce(&mut SampleResult)) {
    state((), |s| {
        if let Some(result) = s.result_mut(r.0) {
            f(result)
        }
    })
}

/// `setStopThread(true)` and friends: the action the thread takes after the sample.
pub(super) fn stop_action(r: ResultRef, action: SampleAction, enabled: bool) {
    write_result(r, |result| {
        if enabled {
            result.action = action;
        } else if result.action == action {
            result.action = SampleAction::Continue;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(script: &str, state: CallState) -> (Result<Dynamic, String>, CallState) {
        let ast =
            super::super::engine::compile(super::super::translate::SourceLanguage::Rhai, script)
                .expect("compiles");
        let mut scope = rhai::Scope::new();
        super::super::program::push_bindings(&mut scope);
        with_call(state, || {
            super::super::engine::engine()
                .eval_ast_with_scope::<Dynamic>(&mut scope, &ast)
                .map_err(|e| e.to_string())
        })
    }

    fn fresh() -> CallState {
        let mut vars = Variables::new();
        vars.put("a", "1");
        CallState::new(
            vars,
            Properties::new(),
            ThreadInfo::default(),
            Arc::from("t"),
        )
    }

    #[test]
    fn vars_read_and_write_through_methods_and_indexers() {
        let (out, state) = run(
            r#"vars.put("b", vars.get("a") + "2"); vars["c"] = vars["b"] + "3"; vars.get("none")"#,
            fresh(),
        );
        assert!(out.expect("runs").is_unit());
        assert_eq!(state.vars.get("c"), Some("123"));
    }

    #[test]
    fn objects_keep_their_type() {
        let (out, _) = run(
            r#"vars.putObject("l", [1, 2]); vars.getObject("l").len()"#,
            fresh(),
        );
        assert_eq!(out.expect("runs").as_int().expect("int"), 2);
    }

    #[test]
    fn props_are_shared_handles() {
        let state = fresh();
        let props = state.props.clone();
        let (out, _) = run(r#"props.put("p", "v"); props.getProperty("q", "d")"#, state);
        assert_eq!(out.expect("runs").to_string(), "d");
        assert_eq!(props.get("p").as_deref(), Some("v"));
    }

    #[test]
    fn sample_result_changes_reach_the_owned_sample() {
        let mut state = fresh();
        state.current = ResultSlot::Owned(Box::default());
        state.prev = ResultSlot::SameAsCurrent;
        let (_, state) = run(
            r#"SampleResult.setResponseCode("500"); prev.setSuccessful(false); SampleResult.setStopThread(true)"#,
            state,
        );
        let result = state.current.into_owned().expect("owned");
        assert_eq!(result.response_code, "500");
        assert!(!result.success);
        assert_eq!(result.action, SampleAction::StopThread);
    }

    #[test]
    fn log_fills_placeholders() {
        assert_eq!(
            format_log(
                &Dynamic::from("a {} b {}"),
                &[Dynamic::from(1_i64), Dynamic::from("x")]
            ),
            "a 1 b x"
        );
    }
}
