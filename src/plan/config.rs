//! Config elements with run-time behaviour: Counter and User Parameters (which JMeter
//! files as a pre-processor but which acts per iteration when asked to).

use std::sync::Arc;

use super::{BuildContext, IterationListener, PreProcessor};

/// What a config-like element turns into.
pub enum ConfigElement {
    /// Acts when the enclosing controller starts an iteration.
    Iteration(Arc<dyn IterationListener>),
    /// Acts before every sampler in scope.
    Pre(Arc<dyn PreProcessor>),
}

/// Builds `class` (`CounterConfig`, `UserParameters`), or `None` when it is not one of these.
pub fn build(_class: &str, _cx: &mut BuildContext<'_>) -> Option<ConfigElement> {
    None
}
