//! The one Rhai engine of a run, its sandbox, and compilation.
//!
//! The engine is built once per process ([`engine`]): the library shims
//! ([`super::shims::register`]) and the JMeter bindings ([`super::bindings::register`])
//! are installed on it, and it is shared by every script element, every virtual user and
//! the script functions. Scripts are compiled to an `AST` once ([`compile`]); a script
//! whose text holds `${...}` is compiled per distinct text through a bounded
//! [`AstCache`].
//!
//! The sandbox: an operation budget per call (a runaway loop fails its sample instead of
//! hanging a virtual user), a call-depth limit, expression-depth limits, caps on string,
//! array and map sizes, a CPU-time budget per call, no module loading (`import` finds
//! nothing) and no `eval`.
//! Scripts reach the outside world only through the bindings and the shims.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;
use rhai::{Engine, EvalAltResult, ParseError, AST};

use super::protobuf::Schema;
use super::translate::{translate_with, SourceLanguage};

/// Operations one script call may perform (an operation is roughly one expression step;
/// a simple loop iteration is a handful). About a second of work on a slow machine.
pub const MAX_OPERATIONS: u64 = 20_000_000;
/// Nested function calls allowed (recursion depth).
pub const MAX_CALL_LEVELS: usize = 64;
/// Largest string a script may build, in bytes.
pub const MAX_STRING_SIZE: usize = 64 * 1024 * 1024;
/// Largest array or map a script may build, in items.
pub const MAX_COLLECTION_SIZE: usize = 1_000_000;

/// CPU time one script call may use unless the run sets `jmxr.script.max_cpu_ms`. The
/// operation budget alone does not bound time: Rhai re-measures a whole array or map
/// after every change to it, so a loop that grows one costs time quadratic in its size
/// between two operations.
pub const DEFAULT_MAX_CPU: Duration = Duration::from_secs(5);
/// The property that changes [`DEFAULT_MAX_CPU`].
pub const MAX_CPU_PROPERTY: &str = "jmxr.script.max_cpu_ms";
/// Operations between two looks at the call's CPU time (a look is a system call).
const CPU_CHECK_EVERY: u64 = 4096;

static MAX_CPU_MS: AtomicU64 = AtomicU64::new(DEFAULT_MAX_CPU.as_millis() as u64);

thread_local! {
    /// The thread's CPU time when the script call running on it began.
    static CALL_CPU_START: Cell<Duration> = const { Cell::new(Duration::ZERO) };
}

/// Sets the CPU budget of every script call from now on.
pub fn set_max_cpu(budget: Duration) {
    MAX_CPU_MS.store(budget.as_millis() as u64, Ordering::Relaxed);
}

fn max_cpu() -> Duration {
    Duration::from_millis(MAX_CPU_MS.load(Ordering::Relaxed))
}

fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a pointer to a live local.
    let done = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    if done != 0 {
        return Duration::ZERO;
    }
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// Rhai counts operations from 1 in every evaluation: the first marks the call's start,
/// and every [`CPU_CHECK_EVERY`] the CPU used since is compared with the budget.
fn watch_cpu(operations: u64) -> Option<rhai::Dynamic> {
    if operations == 1 {
        CALL_CPU_START.with(|start| start.set(thread_cpu_time()));
    } else if operations.is_multiple_of(CPU_CHECK_EVERY) {
        let used = thread_cpu_time().saturating_sub(CALL_CPU_START.with(Cell::get));
        if used > max_cpu() {
            return Some(rhai::Dynamic::from(used.as_millis() as i64));
        }
    }
    None
}

/// The engine every script of the run uses.
pub fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(build_engine)
}

fn build_engine() -> Engine {
    let mut engine = Engine::new();
    engine
        .set_max_operations(MAX_OPERATIONS)
        .set_max_call_levels(MAX_CALL_LEVELS)
        .set_max_expr_depths(128, 64)
        .set_max_string_size(MAX_STRING_SIZE)
        .set_max_array_size(MAX_COLLECTION_SIZE)
        .set_max_map_size(MAX_COLLECTION_SIZE)
        .set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new())
        .disable_symbol("eval");
    engine.on_progress(watch_cpu);
    engine.on_print(|text| println!("{text}"));
    engine.on_debug(|text, _, _| crate::runlog::write("DEBUG", text));
    super::shims::register(&mut engine);
    super::bindings::register(&mut engine);
    engine
}

/// Translates (when needed) and compiles one script. The error lists what could not be
/// translated, each with its line and construct, or Rhai's message with its line.
pub fn compile(language: SourceLanguage, source: &str) -> Result<Arc<AST>, String> {
    compile_with(language, source, None)
}

/// [`compile`] with the run's `.proto` files, which translation of generated-Java
/// protobuf code needs.
pub fn compile_with(
    language: SourceLanguage,
    source: &str,
    protobuf: Option<&Arc<Schema>>,
) -> Result<Arc<AST>, String> {
    let rhai_source = if language == SourceLanguage::Rhai {
        std::borrow::Cow::Borrowed(source)
    } else {
        let translation = translate_with(language, source, protobuf.cloned());
        if !translation.problems.is_empty() {
            let problems: Vec<String> = translation
                .problems
                .iter()
                .map(|p| format!("line {}: {}", p.line, p.construct))
                .collect();
            return Err(format!(
                "{language:?} script cannot be translated to Rhai: {}",
                problems.join("; ")
            ));
        }
        std::borrow::Cow::Owned(translation.rhai)
    };
    engine()
        .compile(rhai_source.as_ref())
        .map(Arc::new)
        .map_err(|err| compile_error(language, &err))
}

fn compile_error(language: SourceLanguage, err: &ParseError) -> String {
    let what = if language == SourceLanguage::Rhai {
        "Rhai script does not compile".to_string()
    } else {
        format!("{language:?} script, translated to Rhai, does not compile")
    };
    match err.1.line() {
        Some(line) => format!("{what}: {} (line {line})", err.0),
        None => format!("{what}: {}", err.0),
    }
}

/// The message a failed call reports, naming the sandbox limit when one was hit.
pub fn runtime_error(err: &EvalAltResult) -> String {
    let line = err.position().line();
    let at = line.map(|l| format!(" (line {l})")).unwrap_or_default();
    match err {
        EvalAltResult::ErrorTooManyOperations(_) => format!(
            "script stopped after {MAX_OPERATIONS} operations, the sandbox's limit per call \
             (a runaway loop?){at}"
        ),
        EvalAltResult::ErrorTerminated(used, _) => format!(
            "script stopped after {used} ms of CPU, the sandbox's limit per call is {} ms \
             ({MAX_CPU_PROPERTY}){at}",
            max_cpu().as_millis()
        ),
        EvalAltResult::ErrorStackOverflow(_) => {
            format!("script nested calls deeper than {MAX_CALL_LEVELS} levels{at}")
        }
        EvalAltResult::ErrorDataTooLarge(what, _) => {
            format!("script built a value over the sandbox's size limit: {what}{at}")
        }
        EvalAltResult::ErrorRuntime(value, _) => format!("{value}{at}"),
        other => format!("{other}"),
    }
}

/// Most distinct texts one element keeps compiled: a `${...}` that changes on every
/// call (a counter, a timestamp) must not grow memory without bound.
const CACHE_CAPACITY: usize = 256;

/// Compiled forms of the texts a `${...}` script produced, by text.
#[derive(Default)]
pub struct AstCache {
    entries: Mutex<HashMap<String, Result<Arc<AST>, String>>>,
    protobuf: Option<Arc<Schema>>,
}

impl AstCache {
    /// A cache whose texts are translated with the run's `.proto` files.
    pub fn with_protobuf(protobuf: Option<Arc<Schema>>) -> AstCache {
        AstCache {
            entries: Mutex::default(),
            protobuf,
        }
    }

    /// The compiled form of `text`, compiling it on first sight.
    pub fn get(&self, language: SourceLanguage, text: &str) -> Result<Arc<AST>, String> {
        if let Some(found) = self.entries.lock().get(text) {
            return found.clone();
        }
        let compiled = compile_with(language, text, self.protobuf.as_ref());
        let mut entries = self.entries.lock();
        if entries.len() >= CACHE_CAPACITY {
            entries.clear();
        }
        entries.insert(text.to_string(), compiled.clone());
        compiled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runaway_loop_hits_the_operation_limit() {
        let ast = compile(SourceLanguage::Rhai, "let i = 0; loop { i += 1; }").expect("compiles");
        let err = engine().run_ast(&ast).expect_err("stopped");
        assert!(runtime_error(&err).contains("operations"), "{err}");
    }

    #[test]
    fn modules_and_eval_are_not_available() {
        let ast = compile(SourceLanguage::Rhai, r#"import "x" as y;"#).expect("compiles");
        assert!(engine().run_ast(&ast).is_err());
        assert!(compile(SourceLanguage::Rhai, r#"eval("1")"#).is_err());
    }

    #[test]
    fn compile_errors_name_the_line() {
        let err = compile(SourceLanguage::Rhai, "let a = 1;\nlet = ;").expect_err("fails");
        assert!(err.contains("line 2"), "{err}");
    }

    #[test]
    fn the_cache_compiles_each_text_once_and_stays_bounded() {
        let cache = AstCache::default();
        let first = cache.get(SourceLanguage::Rhai, "1 + 1").expect("compiles");
        let again = cache.get(SourceLanguage::Rhai, "1 + 1").expect("compiles");
        assert!(Arc::ptr_eq(&first, &again));
        for i in 0..(CACHE_CAPACITY + 5) {
            let _ = cache.get(SourceLanguage::Rhai, &format!("{i}"));
        }
        assert!(cache.entries.lock().len() <= CACHE_CAPACITY);
    }
}
