//! Boundary Extractor (`BoundaryExtractor`, reference §10.4): the text between each
//! occurrence of a left boundary and the next right boundary.
//!
//! As in JMeter the search for the next left boundary restarts just after the previous
//! one (so matches may overlap), an empty left boundary takes the text up to the first
//! right boundary, an empty right one the text after the first left boundary, and both
//! empty the whole input. A blank input gives nothing. The default is stored first when
//! it is not blank (or "use empty default" is ticked).

use super::{pick, take_match_count, Field, Scope};
use crate::engine::UserState;
use crate::expr::Template;
use crate::plan::{BuildContext, PostProcessor, Setting};
use crate::results::SampleResult;

pub struct BoundaryExtractor {
    field: Field,
    scope: Scope,
    refname: Template,
    left: Template,
    right: Template,
    match_number: Setting,
    default: Template,
    empty_default: bool,
}

impl BoundaryExtractor {
    pub fn build(cx: &mut BuildContext<'_>) -> BoundaryExtractor {
        BoundaryExtractor {
            field: Field::parse(cx.raw("BoundaryExtractor.useHeaders").unwrap_or("false")),
            scope: Scope::build(cx),
            refname: cx.template("BoundaryExtractor.refname"),
            left: cx.template("BoundaryExtractor.lboundary"),
            right: cx.template("BoundaryExtractor.rboundary"),
            match_number: cx.setting("BoundaryExtractor.match_number", "0"),
            default: cx.template("BoundaryExtractor.default"),
            empty_default: cx.flag("BoundaryExtractor.default_empty_value", false),
        }
    }
}

impl PostProcessor for BoundaryExtractor {
    fn process(&self, result: &mut SampleResult, user: &mut UserState) {
        let (refname, number, default, left, right) = {
            let mut cx = user.eval("");
            (
                self.refname.eval(&mut cx),
                self.match_number.i64(&mut cx),
                self.default.eval(&mut cx),
                self.left.eval(&mut cx),
                self.right.eval(&mut cx),
            )
        };
        if refname.is_empty() {
            return;
        }
        if !default.trim().is_empty() || self.empty_default {
            user.vars.put(refname.clone(), default);
        }
        let previous = take_match_count(user, &refname);
        let field = self.field;
        let inputs = self.scope.inputs(result, user, |r| field.input(r));
        // Only the n-th match is kept for a positive n: the search stops there.
        let limit = if number > 0 {
            number as usize
        } else {
            usize::MAX
        };
        let mut matches: Vec<String> = Vec::new();
        for input in &inputs {
            let wanted = limit - matches.len();
            matches.extend(extract(&left, &right, input, wanted));
            if matches.len() >= limit {
                break;
            }
        }
        let mut count = 0;
        if number > 0 {
            // JMeter keeps only the n-th match, then stores it when it is the only one.
            matches = matches
                .into_iter()
                .skip(number as usize - 1)
                .take(1)
                .collect();
            if let Some(value) = matches.pop() {
                user.vars.put(refname.clone(), value);
            }
        } else if number == 0 {
            if let Some(i) = pick(0, matches.len(), user) {
                user.vars.put(refname.clone(), matches.swap_remove(i));
            }
        } else {
            count = matches.len();
            user.vars
                .put(format!("{refname}_matchNr"), count.to_string());
            for (i, value) in matches.into_iter().enumerate() {
                user.vars.put(format!("{refname}_{}", i + 1), value);
            }
        }
        for i in count + 1..=previous {
            user.vars.remove(&format!("{refname}_{i}"));
        }
    }
}

/// The texts between `left` and the next `right` in `input`, the first `limit` of them.
fn extract(left: &str, right: &str, input: &str, limit: usize) -> Vec<String> {
    if input.trim().is_empty() {
        return Vec::new();
    }
    match (left.is_empty(), right.is_empty()) {
        (true, true) => return vec![input.to_string()],
        (true, false) => {
            if let Some(end) = input.find(right) {
                return vec![input[..end].to_string()];
            }
        }
        (false, true) => {
            if let Some(start) = input.find(left) {
                return vec![input[start + left.len()..].to_string()];
            }
        }
        (false, false) => {}
    }
    let mut out = Vec::new();
    if left.is_empty() || right.is_empty() {
        return out;
    }
    let mut from = 0;
    while out.len() < limit {
        let Some(found) = input[from..].find(left) else {
            break;
        };
        let start = from + found + left.len();
        match input[start..].find(right) {
            Some(end) => out.push(input[start..start + end].to_string()),
            None => break,
        }
        from = start;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::extractors::test_support::*;

    #[test]
    fn boundaries_find_every_overlapping_match_and_edge_cases() {
        assert_eq!(
            extract("<b>", "</b>", "<b>1</b><b>2</b>", usize::MAX),
            ["1", "2"]
        );
        assert_eq!(extract("a", "a", "xaaya", usize::MAX), ["", "y"]);
        assert_eq!(extract("", "", "whole", usize::MAX), ["whole"]);
        assert_eq!(extract("", ";", "k=v;x", usize::MAX), ["k=v"]);
        assert_eq!(extract("k=", "", "k=v;x", usize::MAX), ["v;x"]);
        assert!(extract("<", ">", "   ", usize::MAX).is_empty());
        assert!(extract("", "?", "no", usize::MAX).is_empty());
        assert_eq!(
            extract("<b>", "</b>", "<b>1</b><b>2</b><b>3</b>", 2),
            ["1", "2"]
        );
    }

    #[test]
    fn numbered_default_and_all_matches() {
        let el = extractor_element(
            "BoundaryExtractor",
            &[
                ("BoundaryExtractor.refname", "b"),
                ("BoundaryExtractor.lboundary", "["),
                ("BoundaryExtractor.rboundary", "]"),
                ("BoundaryExtractor.match_number", "-1"),
                ("BoundaryExtractor.default", "NF"),
            ],
        );
        let ex = with_build(&el, BoundaryExtractor::build);
        let mut user = user();
        ex.process(&mut body("[x][y]"), &mut user);
        assert_eq!(var(&user, "b_matchNr"), Some("2"));
        assert_eq!(var(&user, "b_2"), Some("y"));
        assert_eq!(var(&user, "b"), Some("NF"));
        ex.process(&mut body("nothing"), &mut user);
        assert_eq!(var(&user, "b_matchNr"), Some("0"));
        assert_eq!(var(&user, "b_1"), None);
    }
}
