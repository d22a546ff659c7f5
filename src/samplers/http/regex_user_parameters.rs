//! RegEx User Parameters (`RegExUserParameters`): a pre-processor that, before an HTTP
//! Request, replaces the values of the request's arguments whose names a Regular
//! Expression Extractor found, as JMeter's `protocol.http.modifier` class does.
//!
//! It reads the extractor's variables `<ref>_matchNr`, `<ref>_<i>_g<names group>` and
//! `<ref>_<i>_g<values group>` (so the extractor must save its groups, with a match
//! number of -1 for all matches) and maps each found name to its value. When the
//! variables are missing nothing changes. The change holds for the coming sample only
//! (JMeter restores the sampler's arguments after each sample): the map is kept in the
//! user's state tagged with the sample before it, and the HTTP Request applies it to
//! its evaluated arguments ([`apply`]); a sampler of another kind in between leaves it
//! stale, as JMeter's element does nothing for it.

use std::collections::HashMap;
use std::sync::Arc;

use crate::expr::Template;
use crate::plan::{BuildContext, PreProcessor};
use crate::user_state::UserState;

/// The user's slot for the replacements of the coming sample.
const REPLACEMENTS_SLOT: usize = usize::MAX - 0x5255;

/// Replacement values by argument name, for the sample that follows `after`.
#[derive(Default)]
struct Replacements {
    /// Identity of the user's previous sample when the map was made (0: none yet).
    after: usize,
    values: HashMap<String, String>,
}

/// The user's previous sample, as an identity.
fn previous_sample(user: &UserState) -> usize {
    user.prev.as_ref().map_or(0, |p| Arc::as_ptr(p) as usize)
}

pub struct RegexUserParameters {
    ref_name: Template,
    names_group: Template,
    values_group: Template,
}

pub fn build(cx: &mut BuildContext<'_>) -> Arc<dyn PreProcessor> {
    Arc::new(RegexUserParameters {
        ref_name: cx.template("RegExUserParameters.regex_ref_name"),
        names_group: cx.template("RegExUserParameters.param_names_gr_nr"),
        values_group: cx.template("RegExUserParameters.param_values_gr_nr"),
    })
}

impl PreProcessor for RegexUserParameters {
    fn process(&self, user: &mut UserState, sampler_name: &str) {
        let (prefix, names, values) = {
            let mut cx = user.eval(sampler_name);
            (
                format!("{}_", self.ref_name.eval(&mut cx)),
                self.names_group.eval(&mut cx),
                self.values_group.eval(&mut cx),
            )
        };
        let var = |name: String| user.vars.get(&name).map(str::to_string);
        let count = var(format!("{prefix}matchNr"));
        let first_name = var(format!("{prefix}1_g{names}"));
        let first_value = var(format!("{prefix}1_g{values}"));
        let (Some(count), Some(_), Some(_)) = (count, first_name, first_value) else {
            crate::runlog::info(&format!(
                "RegExUserParameters element: {sampler_name} => Referenced RegExp was not found, no parameter will be changed"
            ));
            return;
        };
        let Ok(count) = count.trim().parse::<usize>() else {
            return;
        };
        let mut found = HashMap::with_capacity(count);
        for i in 1..=count {
            if let (Some(name), Some(value)) = (
                var(format!("{prefix}{i}_g{names}")),
                var(format!("{prefix}{i}_g{values}")),
            ) {
                found.insert(name, value);
            }
        }
        let after = previous_sample(user);
        let slot = user.slot(REPLACEMENTS_SLOT, Replacements::default);
        if slot.after != after {
            slot.values.clear();
            slot.after = after;
        }
        // Several elements in scope apply in turn: a later one's value wins.
        slot.values.extend(found);
    }
}

/// Replaces the values of the arguments named in the replacements made for this
/// sample, if any; `args` are (name, value) pairs as evaluated.
pub fn apply<'a>(user: &mut UserState, args: impl Iterator<Item = (&'a str, &'a mut String)>) {
    let after = previous_sample(user);
    let slot = user.slot(REPLACEMENTS_SLOT, Replacements::default);
    if slot.after != after || slot.values.is_empty() {
        return;
    }
    for (name, value) in args {
        if let Some(replacement) = slot.values.get(name) {
            value.clone_from(replacement);
        }
    }
}
