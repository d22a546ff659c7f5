//! Shims for the Java and Groovy library calls that translated scripts make: static
//! modules (`Integer::parseInt`, `System::currentTimeMillis`, `UUID::randomUUID`...) and
//! Java-named methods on Rhai's strings, numbers, arrays and maps (`toUpperCase`,
//! `substring`, `toInteger`...). [`register`] installs them on an engine; the script
//! runtime calls it once when it builds its engine.
//!
//! Each Java class is a [`Class`]: a Rhai module registered under the class's simple
//! name, whose constructor is `create` (`new Random()` → `Random::create()`). The
//! translator asks [`has_static`] whether a call it is about to write exists, so that a
//! missing shim is reported at translation time rather than failing at run time.
//! Objects with Java's reference semantics (StringBuilder, Random, writers) share their
//! state between copies, as Rhai copies values on assignment.
//!
//! Files: every file access goes through [`files::resolve`], whose policy the runtime
//! sets with [`files::set_access_policy`] (the sandbox).

mod atomics;
mod codecs;
mod collections;
mod conversions;
mod crypto;
mod dates;
pub mod files;
mod json;
mod jwt;
mod numbers;
mod regexes;
mod sse;
pub mod sse_http;
mod strings;
mod system;

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use rhai::{Dynamic, Engine, EvalAltResult, Module};

/// What a shim returns when Java would throw.
pub(crate) type ShimResult<T> = Result<T, Box<EvalAltResult>>;

pub(crate) fn error<T>(message: impl Into<String>) -> ShimResult<T> {
    Err(message.into().into())
}

/// The shim module of one Java class, and the names it defines.
pub(crate) struct Class {
    name: &'static str,
    module: Module,
    members: Vec<&'static str>,
}

impl Class {
    pub(crate) fn new(name: &'static str) -> Class {
        Class {
            name,
            module: Module::new(),
            members: Vec::new(),
        }
    }

    /// Records a member name (used by [`func!`], which registers the function).
    pub(crate) fn record(&mut self, name: &'static str) -> &mut Module {
        self.members.push(name);
        &mut self.module
    }

    pub(crate) fn constant(&mut self, name: &'static str, value: Dynamic) -> &mut Class {
        self.module.set_var(name, value);
        self.members.push(name);
        self
    }
}

/// Adds a function to a [`Class`]: `func!(class, "parseInt", |s: &str| ..)`.
macro_rules! func {
    ($class:expr, $name:literal, $function:expr) => {
        rhai::FuncRegistration::new($name)
            .with_purity(true)
            .set_into_module($class.record($name), $function)
    };
}
pub(crate) use func;

fn classes() -> Vec<Class> {
    let mut all = Vec::new();
    all.extend(numbers::classes());
    all.extend(system::classes());
    all.extend(strings::classes());
    all.extend(collections::classes());
    all.extend(dates::classes());
    all.extend(codecs::classes());
    all.extend(crypto::classes());
    all.extend(jwt::classes());
    all.extend(atomics::classes());
    all.extend(json::classes());
    all.extend(sse::classes());
    all.extend(sse_http::classes());
    all.extend(files::classes());
    all.push(crate::script::protobuf::api::class());
    all
}

fn members() -> &'static HashMap<&'static str, HashSet<&'static str>> {
    static MEMBERS: OnceLock<HashMap<&'static str, HashSet<&'static str>>> = OnceLock::new();
    MEMBERS.get_or_init(|| {
        let mut map: HashMap<&'static str, HashSet<&'static str>> = HashMap::new();
        for class in classes() {
            map.entry(class.name).or_default().extend(class.members);
        }
        map
    })
}

/// Whether the shim module of `class` defines `member` (a function or a constant).
pub fn has_static(class: &str, member: &str) -> bool {
    members()
        .get(class)
        .is_some_and(|names| names.contains(member))
}

/// Whether `class` has a shim module.
pub fn is_static_class(class: &str) -> bool {
    members().contains_key(class)
}

/// Installs every shim on `engine`.
pub fn register(engine: &mut Engine) {
    let mut modules: HashMap<&'static str, Module> = HashMap::new();
    for class in classes() {
        let module = modules.entry(class.name).or_default();
        module.combine(class.module);
    }
    for (name, module) in modules {
        engine.register_static_module(name, module.into());
    }
    conversions::register(engine);
    strings::register(engine);
    regexes::register(engine);
    numbers::register(engine);
    collections::register(engine);
    system::register(engine);
    dates::register(engine);
    codecs::register(engine);
    crypto::register(engine);
    jwt::register(engine);
    atomics::register(engine);
    json::register(engine);
    sse::register(engine);
    sse_http::register(engine);
    files::register(engine);
    crate::script::protobuf::api::register(engine);
}

/// Java's `String.valueOf` of a value: Groovy's list and map notation, `null` for
/// nothing.
pub(crate) fn java_string(value: &Dynamic) -> String {
    if value.is_unit() {
        return "null".into();
    }
    if let Some(text) = value.read_lock::<rhai::ImmutableString>() {
        return text.to_string();
    }
    if let Some(items) = value.read_lock::<rhai::Array>() {
        let parts: Vec<String> = items.iter().map(java_string).collect();
        return format!("[{}]", parts.join(", "));
    }
    if let Some(map) = value.read_lock::<rhai::Map>() {
        let parts: Vec<String> = map
            .iter()
            .map(|(k, v)| format!("{k}:{}", java_string(v)))
            .collect();
        return format!("[{}]", parts.join(", "));
    }
    if let Ok(f) = value.as_float() {
        return crate::foundation::java_format::java_double(f);
    }
    value.to_string()
}

#[cfg(test)]
pub(crate) mod test_support {
    //! An engine with the shims and a `vars` stand-in (a map-backed `get`/`put`), for
    //! tests that run translated scripts.

    use std::sync::Arc;

    use parking_lot::Mutex;
    use rhai::{Dynamic, Engine, ImmutableString, Scope};

    #[derive(Clone, Default)]
    pub struct TestVars(pub Arc<Mutex<std::collections::BTreeMap<String, String>>>);

    pub fn engine() -> Engine {
        let mut engine = Engine::new();
        super::register(&mut engine);
        engine
            .register_type_with_name::<TestVars>("JMeterVariables")
            .register_fn("get", |v: &mut TestVars, k: &str| -> Dynamic {
                v.0.lock()
                    .get(k)
                    .map(|s| Dynamic::from(ImmutableString::from(s.as_str())))
                    .unwrap_or(Dynamic::UNIT)
            })
            .register_fn("put", |v: &mut TestVars, k: &str, value: Dynamic| {
                v.0.lock().insert(k.to_string(), super::java_string(&value));
            })
            .register_indexer_get(|v: &mut TestVars, k: &str| -> Dynamic {
                v.0.lock()
                    .get(k)
                    .map(|s| Dynamic::from(ImmutableString::from(s.as_str())))
                    .unwrap_or(Dynamic::UNIT)
            })
            .register_indexer_set(|v: &mut TestVars, k: &str, value: Dynamic| {
                v.0.lock().insert(k.to_string(), super::java_string(&value));
            });
        engine
    }

    /// Runs `rhai` with `vars` holding `initial`; returns the script's value and vars.
    pub fn run(rhai: &str, initial: &[(&str, &str)]) -> (Dynamic, TestVars) {
        let engine = engine();
        let vars = TestVars::default();
        for (k, v) in initial {
            vars.0.lock().insert(k.to_string(), v.to_string());
        }
        let mut scope = Scope::new();
        scope.push("vars", vars.clone());
        let value = engine
            .eval_with_scope::<Dynamic>(&mut scope, rhai)
            .unwrap_or_else(|e| panic!("{e}\n{rhai}"));
        (value, vars)
    }
}
