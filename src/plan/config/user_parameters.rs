//! User Parameters (`UserParameters`): per-user values for a list of variables.
//!
//! `UserParameters.thread_values` holds one column of values per user; thread *n*
//! (1-based `__threadNum`) takes column `(n - 1) mod columns`. Values are templates,
//! evaluated in the user's context each time they are applied, one after another so a
//! later value sees the variables set by earlier ones. JMeter applies them before
//! **every** sampler in scope (it is a pre-processor), or, with
//! `UserParameters.per_iteration`, once at each iteration start of the enclosing
//! controller instead.

use crate::expr::Template;
use crate::jmx::Property;
use crate::plan::{BuildContext, IterationListener, PreProcessor};
use crate::user_state::UserState;

pub struct UserParameters {
    names: Vec<Template>,
    /// One column per user; each aligned with `names` (extra items on either side are
    /// ignored, as JMeter walks both lists together).
    columns: Vec<Vec<Template>>,
    per_iteration: bool,
}

impl UserParameters {
    pub fn build(cx: &mut BuildContext<'_>) -> UserParameters {
        let names: Vec<String> = cx
            .element
            .prop("UserParameters.names")
            .map(strings)
            .unwrap_or_default();
        let columns: Vec<Vec<String>> = cx
            .element
            .prop("UserParameters.thread_values")
            .map(|p| p.children().iter().map(strings).collect())
            .unwrap_or_default();
        UserParameters {
            names: names.iter().map(|n| cx.compile(n)).collect(),
            columns: columns
                .iter()
                .map(|column| column.iter().map(|v| cx.compile(v)).collect())
                .collect(),
            per_iteration: cx.flag("UserParameters.per_iteration", false),
        }
    }

    pub fn per_iteration(&self) -> bool {
        self.per_iteration
    }

    /// Sets this user's values.
    fn apply(&self, user: &mut UserState, sampler_name: &str) {
        if self.columns.is_empty() {
            return;
        }
        let index = user.thread.thread_num.saturating_sub(1) as usize % self.columns.len();
        let column = &self.columns[index];
        let mut cx = user.eval(sampler_name);
        for (name, value) in self.names.iter().zip(column) {
            let name = name.eval(&mut cx);
            let value = value.eval(&mut cx);
            cx.vars.put(name, value);
        }
    }
}

/// The texts of a collection of `stringProp`s.
fn strings(collection: &Property) -> Vec<String> {
    collection
        .children()
        .iter()
        .filter_map(Property::as_str)
        .map(String::from)
        .collect()
}

impl PreProcessor for UserParameters {
    fn process(&self, user: &mut UserState, sampler_name: &str) {
        if !self.per_iteration {
            self.apply(user, sampler_name);
        }
    }
}

impl IterationListener for UserParameters {
    fn iteration_start(&self, user: &mut UserState) {
        if self.per_iteration {
            self.apply(user, "");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    fn user_parameters(per_iteration: bool, columns: &[&[&str]]) -> UserParameters {
        let el = element(
            "UserParameters",
            "Params",
            vec![
                strings_prop("UserParameters.names", &["user", "pass"]),
                collection(
                    "UserParameters.thread_values",
                    columns
                        .iter()
                        .map(|values| strings_prop("0", values))
                        .collect(),
                ),
                bool_prop("UserParameters.per_iteration", per_iteration),
            ],
        );
        with_cx(&el, UserParameters::build)
    }

    fn seen(user: &UserState) -> (Option<&str>, Option<&str>) {
        (user.vars.get("user"), user.vars.get("pass"))
    }

    #[test]
    fn each_thread_takes_its_column_and_wraps() {
        let up = user_parameters(false, &[&["alice", "a1"], &["bob", "b2"]]);
        let expected = [("alice", "a1"), ("bob", "b2"), ("alice", "a1")];
        for (thread, (name, pass)) in (1..=3).zip(expected) {
            let mut user = user_with(thread, &[]);
            up.process(&mut user, "Login");
            assert_eq!(seen(&user), (Some(name), Some(pass)), "thread {thread}");
        }
    }

    #[test]
    fn pre_processor_mode_sets_values_before_every_sampler() {
        let up = user_parameters(false, &[&["alice", "a1"]]);
        let mut user = user();
        up.iteration_start(&mut user);
        assert_eq!(
            seen(&user),
            (None, None),
            "not an iteration listener in this mode"
        );
        up.process(&mut user, "s");
        user.vars.put("user", "changed");
        up.process(&mut user, "s");
        assert_eq!(seen(&user), (Some("alice"), Some("a1")));
    }

    #[test]
    fn per_iteration_mode_sets_values_at_iteration_start_only() {
        let up = user_parameters(true, &[&["alice", "a1"]]);
        let mut user = user();
        up.process(&mut user, "s");
        assert_eq!(seen(&user), (None, None));
        up.iteration_start(&mut user);
        assert_eq!(seen(&user), (Some("alice"), Some("a1")));
        assert!(up.per_iteration());
    }

    #[test]
    fn short_columns_set_only_the_names_they_cover() {
        let up = user_parameters(false, &[&["alice"]]);
        let mut user = user();
        up.process(&mut user, "s");
        assert_eq!(seen(&user), (Some("alice"), None));
    }

    #[test]
    fn no_columns_sets_nothing() {
        let up = user_parameters(false, &[]);
        let mut user = user();
        up.process(&mut user, "s");
        assert!(user.vars.is_empty());
    }
}
