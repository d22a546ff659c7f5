//! Helpers for the extractor unit tests: an element from `(name, value)` string
//! properties, a sample with a body, and variable look-ups.

use std::sync::Arc;

use crate::jmx::Element;
use crate::plan::assertions::test_support::{build_with_diagnostics, element, str_prop};
pub use crate::plan::assertions::test_support::{user, with_cx as with_build};
use crate::plan::BuildContext;
use crate::sample::SampleResult;
use crate::user_state::UserState;

pub fn extractor_element(class: &str, props: &[(&str, &str)]) -> Element {
    element(
        class,
        "X",
        props.iter().map(|(n, v)| str_prop(n, v)).collect(),
    )
}

/// The messages `f` reported while building `element`.
pub fn build_diagnostics(element: &Element, f: impl FnOnce(&mut BuildContext<'_>)) -> Vec<String> {
    build_with_diagnostics(element, f)
        .1
        .into_iter()
        .map(|d| d.message)
        .collect()
}

pub fn body(text: &str) -> SampleResult {
    let mut result = SampleResult::new(Arc::from("s"));
    result.response_data = text.as_bytes().to_vec();
    result
}

pub fn var<'u>(user: &'u UserState, name: &str) -> Option<&'u str> {
    user.vars.get(name)
}
