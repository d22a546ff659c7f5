//! Helpers for the unit tests of this module, the timers and the config elements:
//! hand-made `jmx` elements, a build context around them, and a virtual user.

use std::path::PathBuf;
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::user_state::RunShared;

use crate::expr::FunctionRegistry;
use crate::foundation::properties::Properties;
use crate::jmx::{Element, PropValue, Property, ScalarKind, Span};
use crate::plan::{Assertion, BuildContext, Diagnostic};
use crate::sample::SampleResult;
use crate::user_state::TestInfo;
use crate::user_state::ThreadInfo;
use crate::user_state::UserState;
use crate::user_state::Variables;

pub fn str_prop(name: &str, text: &str) -> Property {
    scalar(name, ScalarKind::String, text)
}

pub fn int_prop(name: &str, value: i64) -> Property {
    scalar(name, ScalarKind::Int, &value.to_string())
}

pub fn bool_prop(name: &str, value: bool) -> Property {
    scalar(name, ScalarKind::Bool, if value { "true" } else { "false" })
}

fn scalar(name: &str, kind: ScalarKind, text: &str) -> Property {
    Property {
        name: name.to_string(),
        value: PropValue::Scalar {
            kind,
            text: text.to_string(),
        },
        span: Span::default(),
    }
}

/// A `collectionProp` of `stringProp`s, item names being meaningless as in real plans.
pub fn strings_prop(name: &str, items: &[&str]) -> Property {
    collection(name, items.iter().map(|t| str_prop("0", t)).collect())
}

pub fn collection(name: &str, items: Vec<Property>) -> Property {
    Property {
        name: name.to_string(),
        value: PropValue::Collection(items),
        span: Span::default(),
    }
}

pub fn element(class: &str, name: &str, props: Vec<Property>) -> Element {
    Element {
        tag: class.to_string(),
        class: class.to_string(),
        gui: String::new(),
        name: name.to_string(),
        enabled: true,
        props,
        children: Vec::new(),
        span: Span { line: 1, column: 1 },
        file: Arc::new(PathBuf::from("test.jmx")),
    }
}

/// Runs `f` with a build context for `element`, asserting it reported nothing.
pub fn with_cx<T>(element: &Element, f: impl FnOnce(&mut BuildContext<'_>) -> T) -> T {
    let (value, diagnostics) = build_with_diagnostics(element, f);
    assert!(
        diagnostics.is_empty(),
        "unexpected diagnostics: {diagnostics:?}"
    );
    value
}

/// Runs `f` with a build context for `element` and returns what it reported.
pub fn build_with_diagnostics<T>(
    element: &Element,
    f: impl FnOnce(&mut BuildContext<'_>) -> T,
) -> (T, Vec<Diagnostic>) {
    let registry = FunctionRegistry::standard();
    let mut diagnostics = Vec::new();
    let value = {
        let mut cx = BuildContext::new(
            &registry,
            element,
            Arc::from(format!("Test Plan › {}", element.name)),
            7,
            &mut diagnostics,
        );
        f(&mut cx)
    };
    (value, diagnostics)
}

/// A user numbered `thread_num` (1-based) of a run with `props`, seeded for repeatability.
pub fn user_with(thread_num: u32, props: &[(&str, &str)]) -> UserState {
    let props = Properties::from_map(
        props
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    let run = Arc::new(RunShared::new(props, TestInfo::default(), Some(42)));
    let thread = ThreadInfo {
        thread_num,
        thread_name: Arc::from(format!("Users 1-{thread_num}")),
        group_name: Arc::from("Users"),
    };
    UserState::new(run, thread, Variables::new(), SmallRng::seed_from_u64(42))
}

pub fn user() -> UserState {
    user_with(1, &[])
}

/// A successful sample labelled `s` that took `elapsed` ms.
pub fn sample(elapsed: i64) -> SampleResult {
    let mut result = SampleResult::new(Arc::from("s"));
    result.elapsed = elapsed;
    result
}

/// Applies `assertion` to `result` as a fresh user would.
pub fn run(assertion: &dyn Assertion, result: &mut SampleResult) {
    let mut user = user();
    run_as(assertion, result, &mut user);
}

pub fn run_as(assertion: &dyn Assertion, result: &mut SampleResult, user: &mut UserState) {
    let mut cx = user.eval("s");
    assertion.apply(result, &mut cx);
}
