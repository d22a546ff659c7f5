//! Config elements with run-time behaviour: Counter, CSV Data Set Config, bzm Random
//! CSV Data Set and Directory Listing Configs, Random
//! Variable, the jp@gc Raw Data Source PreProcessor and User Parameters (which JMeter files as a pre-processor but which acts per iteration when
//! asked to).
//!
//! Each is built once; the engine calls them through [`IterationListener`] (attached to
//! the nearest enclosing controller) or [`PreProcessor`] (run before every sampler in
//! scope). Their per-user state lives in the user (`UserState::slot`), shared state in
//! the element itself.

mod counter;
mod csv_data_set;
pub mod csv_file;
mod directory_listing;
pub mod keystore;
mod random_csv;
mod random_variable;
mod raw_data_source;
mod user_parameters;
pub mod variables_from_csv;

use std::sync::Arc;

use super::{BuildContext, IterationListener, PreProcessor};

pub use counter::Counter;
pub use csv_data_set::CsvDataSet;
pub use random_variable::RandomVariable;
pub use user_parameters::UserParameters;

/// What a config-like element turns into.
pub enum ConfigElement {
    /// Acts when the enclosing controller starts an iteration.
    Iteration(Arc<dyn IterationListener>),
    /// Acts before every sampler in scope.
    Pre(Arc<dyn PreProcessor>),
}

/// Builds `class` (`CounterConfig`, `UserParameters`), or `None` when it is not one of these.
pub fn build(class: &str, cx: &mut BuildContext<'_>) -> Option<ConfigElement> {
    match class.rsplit('.').next().unwrap_or(class) {
        "CounterConfig" => Some(ConfigElement::Iteration(Arc::new(Counter::build(cx)))),
        "CSVDataSet" => Some(ConfigElement::Iteration(Arc::new(CsvDataSet::build(cx)))),
        "RandomCSVDataSetConfig" => Some(ConfigElement::Iteration(Arc::new(
            random_csv::RandomCsvDataSet::build(cx),
        ))),
        "DirectoryListingConfig" => Some(ConfigElement::Iteration(Arc::new(
            directory_listing::DirectoryListing::build(cx),
        ))),
        "RandomVariableConfig" => Some(ConfigElement::Iteration(Arc::new(RandomVariable::build(
            cx,
        )))),
        "RawRequestSourcePreProcessor" => Some(ConfigElement::Pre(Arc::new(
            raw_data_source::RawDataSource::build(cx),
        ))),
        "FifoPopPreProcessor" => Some(ConfigElement::Pre(Arc::new(super::fifo::FifoPop::build(
            cx,
        )))),
        "UserParameters" => {
            let element = Arc::new(UserParameters::build(cx));
            Some(if element.per_iteration() {
                ConfigElement::Iteration(element)
            } else {
                ConfigElement::Pre(element)
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    #[test]
    fn user_parameters_role_follows_per_iteration() {
        let el = element(
            "UserParameters",
            "P",
            vec![bool_prop("UserParameters.per_iteration", true)],
        );
        assert!(matches!(
            with_cx(&el, |cx| build("UserParameters", cx)),
            Some(ConfigElement::Iteration(_))
        ));
        let el = element("UserParameters", "P", vec![]);
        assert!(matches!(
            with_cx(&el, |cx| build("UserParameters", cx)),
            Some(ConfigElement::Pre(_))
        ));
    }

    #[test]
    fn counter_is_an_iteration_listener_and_others_are_not_built() {
        let el = element("CounterConfig", "C", vec![]);
        assert!(matches!(
            with_cx(&el, |cx| build("CounterConfig", cx)),
            Some(ConfigElement::Iteration(_))
        ));
        assert!(with_cx(&el, |cx| build("ConfigTestElement", cx)).is_none());
    }
}
