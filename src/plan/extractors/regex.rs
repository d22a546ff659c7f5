//! Regular Expression Extractor (`RegexExtractor`, reference §10.1).
//!
//! The expression is compiled once at plan time with a backtracking engine
//! (`fancy-regex`: lookaround and back-references as in Perl 5); one that contains
//! `${...}` is compiled when used. Matches are collected across the inputs of the scope
//! in order, stopping once the n-th is found. Variables follow JMeter: the default is
//! stored first (when given or "use empty default"), then for match number ≥ 0 `ref`,
//! `ref_g`, `ref_g0..`; for a negative match number `ref_matchNr`, `ref_n`, `ref_n_g..`;
//! leftovers of a previous, larger extraction are removed.

use std::borrow::Cow;

use fancy_regex::{Regex, RegexInput};

use super::{pick, take_match_count, Field, Scope};
use crate::expr::regex_template::{parse_template, render_template, Piece};
use crate::expr::Template;
use crate::plan::{BuildContext, PostProcessor, Setting};
use crate::sample::SampleResult;
use crate::user_state::UserState;

pub struct RegexExtractor {
    field: Field,
    scope: Scope,
    refname: Template,
    pattern: Pattern,
    template: ResultTemplate,
    match_number: Setting,
    default: Template,
    empty_default: bool,
}

enum Pattern {
    Compiled(Regex),
    Dynamic(Template),
    /// Invalid at plan time (already reported): never matches.
    Invalid,
}

enum ResultTemplate {
    Parsed(Vec<Piece>),
    Dynamic(Template),
}

/// One match: its groups, `None` for a group that did not take part. They borrow the
/// input: only the values stored are copied.
type Groups<'t> = Vec<Option<&'t str>>;

impl RegexExtractor {
    pub fn build(cx: &mut BuildContext<'_>) -> RegexExtractor {
        let regex = cx.template("RegexExtractor.regex");
        let pattern = if regex.is_constant() {
            match Regex::new(regex.raw()) {
                Ok(compiled) => Pattern::Compiled(compiled),
                Err(err) => {
                    cx.error(format!(
                        "invalid regular expression {:?}: {err}",
                        regex.raw()
                    ));
                    Pattern::Invalid
                }
            }
        } else {
            Pattern::Dynamic(regex)
        };
        let template = cx.template("RegexExtractor.template");
        RegexExtractor {
            field: Field::parse(cx.raw("RegexExtractor.useHeaders").unwrap_or("false")),
            scope: Scope::build(cx),
            refname: cx.template("RegexExtractor.refname"),
            pattern,
            template: if template.is_constant() {
                ResultTemplate::Parsed(parse_template(template.raw()))
            } else {
                ResultTemplate::Dynamic(template)
            },
            match_number: cx.setting("RegexExtractor.match_number", "0"),
            default: cx.template("RegexExtractor.default"),
            empty_default: cx.flag("RegexExtractor.default_empty_value", false),
        }
    }

    /// The regex of this sample: the compiled one, or the expression evaluated now.
    fn regex<'a>(
        &'a self,
        user: &mut UserState,
        dynamic: &'a mut Option<Regex>,
    ) -> Option<&'a Regex> {
        match &self.pattern {
            Pattern::Compiled(regex) => Some(regex),
            Pattern::Invalid => None,
            Pattern::Dynamic(template) => {
                *dynamic = Some(Regex::new(&template.eval(&mut user.eval(""))).ok()?);
                dynamic.as_ref()
            }
        }
    }

    fn render(&self, groups: &Groups<'_>, user: &mut UserState) -> String {
        let parsed;
        let pieces = match &self.template {
            ResultTemplate::Parsed(pieces) => pieces,
            ResultTemplate::Dynamic(template) => {
                parsed = parse_template(&template.eval(&mut user.eval("")));
                &parsed
            }
        };
        render_template(pieces, groups)
    }
}

impl PostProcessor for RegexExtractor {
    fn process(&self, result: &mut SampleResult, user: &mut UserState) {
        let (refname, number, default) = {
            let mut cx = user.eval("");
            (
                self.refname.eval(&mut cx),
                self.match_number.i64(&mut cx),
                self.default.eval(&mut cx),
            )
        };
        if !default.is_empty() || self.empty_default {
            user.vars.put(refname.clone(), default);
        }
        // The regex runs before the previous `_matchNr` is removed: a dynamic
        // expression may read it.
        let mut dynamic = None;
        let regex = self.regex(user, &mut dynamic);
        let field = self.field;
        let inputs = match regex {
            Some(_) => self.scope.inputs(result, user, |r| field.input(r)),
            None => Vec::new(),
        };
        enum Found<'t> {
            One(Option<Groups<'t>>),
            All(Vec<Groups<'t>>),
        }
        let found = match (regex, number) {
            (Some(regex), n) if n > 0 => Found::One(nth_match(regex, &inputs, n as usize)),
            (None, n) if n > 0 => Found::One(None),
            (regex, 0) => {
                let mut matches = regex.map_or_else(Vec::new, |r| all_matches(r, &inputs));
                Found::One(pick(0, matches.len(), user).map(|i| matches.swap_remove(i)))
            }
            (regex, _) => Found::All(regex.map_or_else(Vec::new, |r| all_matches(r, &inputs))),
        };
        let previous = take_match_count(user, &refname);
        let mut count = 0;
        match found {
            Found::One(Some(groups)) => {
                let value = self.render(&groups, user);
                user.vars.put(refname.clone(), value);
                save_groups(user, &refname, &groups);
            }
            Found::One(None) => remove_groups(user, &refname),
            Found::All(matches) => {
                remove_groups(user, &refname);
                count = matches.len();
                user.vars
                    .put(format!("{refname}_matchNr"), count.to_string());
                for (i, groups) in matches.iter().enumerate() {
                    let name = format!("{refname}_{}", i + 1);
                    let value = self.render(groups, user);
                    user.vars.put(name.clone(), value);
                    save_groups(user, &name, groups);
                }
            }
        }
        for i in count + 1..=previous {
            let name = format!("{refname}_{i}");
            user.vars.remove(&name);
            remove_groups(user, &name);
        }
    }
}

/// Every match in `inputs`, with its groups.
fn all_matches<'t>(regex: &Regex, inputs: &'t [Cow<'_, str>]) -> Vec<Groups<'t>> {
    let mut out = Vec::new();
    for input in inputs {
        for captures in regex.captures_iter(input.as_ref()) {
            let Ok(captures) = captures else { break };
            out.push(groups_of(&captures));
        }
    }
    out
}

/// The groups of the `number`-th match in `inputs` (from 1). The matches before it are
/// only located: their groups are never needed, and finding is several times cheaper
/// than capturing.
fn nth_match<'t>(regex: &Regex, inputs: &'t [Cow<'_, str>], number: usize) -> Option<Groups<'t>> {
    let mut seen = 0;
    for input in inputs {
        let input = input.as_ref();
        for found in regex.find_iter(input) {
            let Ok(found) = found else { break };
            seen += 1;
            if seen == number {
                // The match anchored at its own start is that match again, now with
                // groups; the whole input stays visible to look-behind. Anchored, the
                // engine goes straight to the groups instead of searching again.
                let at_start = RegexInput::new(input)
                    .from_pos(found.start())
                    .anchored(true);
                let captures = regex.captures_input(at_start).ok()??;
                return Some(groups_of(&captures));
            }
        }
    }
    None
}

fn groups_of<'t>(captures: &fancy_regex::Captures<'t, str>) -> Groups<'t> {
    (0..captures.len())
        .map(|i| captures.get(i).map(|m| m.as_str()))
        .collect()
}

/// `base_g0..base_gN` and `base_g` = N; stale higher groups removed. Values are
/// written in place over the previous sample's (the names are built in one buffer), as
/// an extractor usually sets the same variables every sample.
fn save_groups(user: &mut UserState, base: &str, groups: &Groups<'_>) {
    let mut name = String::with_capacity(base.len() + 6);
    name.push_str(base);
    name.push_str("_g");
    let stem = name.len();
    let previous: usize = user
        .vars
        .get(&name)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut digits = itoa::Buffer::new();
    for (i, group) in groups.iter().enumerate() {
        name.truncate(stem);
        name.push_str(digits.format(i));
        match group {
            Some(text) => user.vars.put_str(&name, text),
            None => {
                user.vars.remove(&name);
            }
        }
    }
    name.truncate(stem);
    user.vars
        .put_str(&name, digits.format(groups.len().saturating_sub(1)));
    for i in groups.len()..=previous {
        name.truncate(stem);
        name.push_str(digits.format(i));
        user.vars.remove(&name);
    }
}

fn remove_groups(user: &mut UserState, base: &str) {
    let count_name = format!("{base}_g");
    let count: usize = user
        .vars
        .remove(&count_name)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    for i in 0..=count {
        user.vars.remove(&format!("{base}_g{i}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::extractors::test_support::*;

    fn extractor(props: &[(&str, &str)]) -> RegexExtractor {
        let el = extractor_element("RegexExtractor", props);
        with_build(&el, RegexExtractor::build)
    }

    #[test]
    fn all_matches_set_numbered_variables_and_clear_leftovers() {
        let ex = extractor(&[
            ("RegexExtractor.refname", "v"),
            ("RegexExtractor.regex", r"id=(\d+)(?=;)"),
            ("RegexExtractor.template", "$1$"),
            ("RegexExtractor.match_number", "-1"),
        ]);
        let mut user = user();
        ex.process(&mut body("id=1;id=2;id=3;"), &mut user);
        assert_eq!(var(&user, "v_matchNr"), Some("3"));
        assert_eq!(var(&user, "v_3"), Some("3"));
        assert_eq!(var(&user, "v_2_g1"), Some("2"));
        assert_eq!(var(&user, "v_2_g"), Some("1"));
        ex.process(&mut body("id=7;"), &mut user);
        assert_eq!(var(&user, "v_matchNr"), Some("1"));
        assert_eq!(var(&user, "v_1"), Some("7"));
        assert_eq!(var(&user, "v_2"), None);
        assert_eq!(var(&user, "v_3_g1"), None);
    }

    #[test]
    fn nth_match_default_and_back_references() {
        let ex = extractor(&[
            ("RegexExtractor.refname", "v"),
            ("RegexExtractor.regex", r"(\w)\1"),
            ("RegexExtractor.template", "[$0$]"),
            ("RegexExtractor.match_number", "2"),
            ("RegexExtractor.default", "none"),
        ]);
        let mut user = user();
        ex.process(&mut body("aa b cc"), &mut user);
        assert_eq!(var(&user, "v"), Some("[cc]"));
        assert_eq!(var(&user, "v_g0"), Some("cc"));
        ex.process(&mut body("aa"), &mut user);
        assert_eq!(var(&user, "v"), Some("none"));
        assert_eq!(var(&user, "v_g0"), None);
    }

    /// Match number 0 takes one match at random, with that match's groups.
    #[test]
    fn random_match_keeps_its_own_groups() {
        let ex = extractor(&[
            ("RegexExtractor.refname", "v"),
            ("RegexExtractor.regex", r"id=(\d+)(;)?"),
            ("RegexExtractor.template", "<$1$$2$>"),
            ("RegexExtractor.match_number", "0"),
        ]);
        let mut user = user();
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..40 {
            ex.process(&mut body("id=1;id=22;id=3"), &mut user);
            let value = var(&user, "v").unwrap().to_string();
            let digits = var(&user, "v_g1").unwrap();
            let end = if digits == "3" { "null" } else { ";" };
            assert_eq!(value, format!("<{digits}{end}>"));
            assert_eq!(var(&user, "v_g2"), (digits != "3").then_some(";"));
            seen.insert(digits.to_string());
        }
        assert_eq!(seen.len(), 3, "{seen:?}");
    }

    /// The n-th match is located without groups and captured alone: it must be exactly
    /// the n-th of all matches, whatever look-around, optional groups or empty matches.
    #[test]
    fn nth_match_is_the_nth_of_all_matches() {
        let text = "k=1;x k=;k=22 ;(k=3) k=4;k=";
        for pattern in [
            r"(?<=;)k=(\d*)(;)?",
            r"k=(\d+)?",
            r"\b",
            r"(?<!\()k=(\d)(?=[;)])",
            r"x*",
            r"k=\d|k=(\d+)",
            r"(k)=(\d*)(?:;|$)",
        ] {
            let regex = Regex::new(pattern).unwrap();
            let inputs = [Cow::Borrowed(text), Cow::Borrowed("k=5;k=")];
            let all = all_matches(&regex, &inputs);
            assert!(!all.is_empty(), "{pattern}");
            for n in 1..=all.len() + 1 {
                assert_eq!(
                    nth_match(&regex, &inputs, n).as_ref(),
                    all.get(n - 1),
                    "{pattern} #{n}"
                );
            }
        }
    }

    #[test]
    fn invalid_expression_is_a_plan_error() {
        let el = extractor_element("RegexExtractor", &[("RegexExtractor.regex", "(unclosed")]);
        let diagnostics = build_diagnostics(&el, |cx| {
            RegexExtractor::build(cx);
        });
        assert!(
            diagnostics[0].contains("invalid regular expression"),
            "{diagnostics:?}"
        );
    }
}
