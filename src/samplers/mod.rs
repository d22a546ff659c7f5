//! Samplers, one module per protocol or family. Each turns its resolved settings into a
//! `SampleResult`; none of them schedules or loops.

use std::sync::Arc;

use crate::jmx::Element;
use crate::plan::{BuildContext, Sampler};

/// Builds the sampler for `class`. `configs` are the config elements in the sampler's
/// scope, innermost first, for samplers that merge defaults (Java Request Defaults).
/// Returns `None` when the class is not a sampler jmxr runs.
pub fn build(
    _class: &str,
    _cx: &mut BuildContext<'_>,
    _configs: &[&Element],
) -> Option<Arc<dyn Sampler>> {
    None
}
pub mod flow_control;
