//! Duration Assertion: fails a sample that took longer than allowed.

use std::sync::Arc;

use super::{failure, grouped, passed, Check, Scope};
use crate::plan::{Assertion, BuildContext, Setting};
use crate::sample::AssertionResult;
use crate::sample::SampleResult;
use crate::user_state::EvalContext;

pub struct DurationAssertion {
    name: Arc<str>,
    /// `DurationAssertion.duration`, ms; 0 or less (or not a number) disables the check.
    duration: Setting,
    scope: Scope,
}

impl DurationAssertion {
    pub fn build(cx: &mut BuildContext<'_>) -> DurationAssertion {
        DurationAssertion {
            name: Arc::from(cx.element.name.as_str()),
            duration: cx.setting("DurationAssertion.duration", "0"),
            scope: Scope::build(cx),
        }
    }
}

impl Check for DurationAssertion {
    fn name(&self) -> &Arc<str> {
        &self.name
    }

    fn check(&self, sample: &mut SampleResult, cx: &mut EvalContext<'_>) -> AssertionResult {
        let allowed = self.duration.i64(cx);
        // `elapsed` is JMeter's `getTime()`: idle time already taken out.
        if allowed > 0 && sample.elapsed > allowed {
            return failure(
                &self.name,
                format!(
                    "The operation lasted too long: It took {} milliseconds, \
                     but should not have lasted longer than {} milliseconds.",
                    grouped(sample.elapsed),
                    grouped(allowed)
                ),
            );
        }
        passed(&self.name)
    }
}

impl Assertion for DurationAssertion {
    fn apply(&self, result: &mut SampleResult, cx: &mut EvalContext<'_>) {
        self.scope.apply(self, result, cx);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;

    fn duration(text: &str) -> DurationAssertion {
        let el = element(
            "DurationAssertion",
            "Fast enough",
            vec![str_prop("DurationAssertion.duration", text)],
        );
        with_cx(&el, DurationAssertion::build)
    }

    #[test]
    fn passes_within_the_limit() {
        let mut result = sample(100);
        run(&duration("100"), &mut result);
        assert!(result.success);
        assert_eq!(result.assertions.len(), 1);
        assert!(!result.assertions[0].failure);
        assert_eq!(&*result.assertions[0].name, "Fast enough");
    }

    #[test]
    fn fails_with_jmeter_message() {
        let mut result = sample(1234);
        run(&duration("1000"), &mut result);
        assert!(!result.success);
        assert_eq!(result.error_count, 1);
        assert_eq!(
            result.assertions[0].failure_message.as_deref(),
            Some(
                "The operation lasted too long: It took 1,234 milliseconds, \
                 but should not have lasted longer than 1,000 milliseconds."
            )
        );
    }

    #[test]
    fn zero_empty_or_invalid_disables() {
        for text in ["0", "", "abc", "-5"] {
            let mut result = sample(1_000_000);
            run(&duration(text), &mut result);
            assert!(result.success, "{text:?}");
        }
    }

    #[test]
    fn variable_scope_still_checks_the_sample() {
        let el = element(
            "DurationAssertion",
            "D",
            vec![
                str_prop("DurationAssertion.duration", "10"),
                str_prop("Assertion.scope", "variable"),
                str_prop("Scope.variable", "v"),
            ],
        );
        let assertion = with_cx(&el, DurationAssertion::build);
        let mut result = sample(11);
        run(&assertion, &mut result);
        assert!(!result.success);
    }
}
