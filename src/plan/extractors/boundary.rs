//! Boundary Extractor (`BoundaryExtractor`, reference §10.4): the text between each
//! occurrence of a left boundary and the next right boundary.
//!
//! As in JMeter the search for the next left boundary restarts just after the previous
//! one (so matches may overlap), an empty left boundary takes the text up to the first
//! right boundary, an empty right one the text after the first left boundary, and both
//! empty the whole input. A blank input gives nothing. The default is stored first when
//! it is not blank (or "use empty default" is ticked).

use std::borrow::Cow;
use std::ops::Range;

use memchr::memmem::Finder;

use super::{pick, take_match_count, utf8_text, Field, Scope};
use crate::expr::Template;
use crate::plan::{BuildContext, PostProcessor, Setting};
use crate::sample::SampleResult;
use crate::user_state::EvalContext;
use crate::user_state::UserState;

pub struct BoundaryExtractor {
    field: Field,
    scope: Scope,
    refname: Template,
    left: Boundary,
    right: Boundary,
    match_number: Setting,
    default: Template,
    empty_default: bool,
}

/// One boundary: its template, and its searcher built once when it is constant.
struct Boundary {
    template: Template,
    constant: Option<Finder<'static>>,
}

impl Boundary {
    fn build(cx: &mut BuildContext<'_>, property: &str) -> Boundary {
        let template = cx.template(property);
        let constant = template
            .as_literal()
            .map(|text| Finder::new(text.as_bytes()).into_owned());
        Boundary { template, constant }
    }

    /// The searcher for this sample's boundary.
    fn finder(&self, cx: &mut EvalContext<'_>) -> Cow<'_, Finder<'static>> {
        match &self.constant {
            Some(finder) => Cow::Borrowed(finder),
            None => Cow::Owned(Finder::new(self.template.eval(cx).as_bytes()).into_owned()),
        }
    }
}

impl BoundaryExtractor {
    pub fn build(cx: &mut BuildContext<'_>) -> BoundaryExtractor {
        BoundaryExtractor {
            field: Field::parse(cx.raw("BoundaryExtractor.useHeaders").unwrap_or("false")),
            scope: Scope::build(cx),
            refname: cx.template("BoundaryExtractor.refname"),
            left: Boundary::build(cx, "BoundaryExtractor.lboundary"),
            right: Boundary::build(cx, "BoundaryExtractor.rboundary"),
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
                self.left.finder(&mut cx),
                self.right.finder(&mut cx),
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
        let mut inputs = self
            .scope
            .byte_inputs(result, user, |r| field.input_bytes(r));
        if holds_replacement(&left) || holds_replacement(&right) {
            // Such a boundary can match where decoding replaced an invalid sequence:
            // search the decoded text.
            for input in &mut inputs {
                *input = Cow::Owned(utf8_text(input).into_owned().into_bytes());
            }
        }
        // For a positive n only the n-th match is kept: the search stops there, and the
        // ones before it are never decoded.
        let mut seen = 0;
        let mut matches: Vec<String> = Vec::new();
        for input in &inputs {
            each_match(&left, &right, input, |span| {
                seen += 1;
                if number <= 0 || seen == number {
                    matches.push(String::from_utf8_lossy(&input[span]).into_owned());
                }
                number <= 0 || seen < number
            });
            if number > 0 && seen >= number {
                break;
            }
        }
        let mut count = 0;
        if number > 0 {
            // JMeter keeps only the n-th match, then stores it when it is the only one.
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

fn holds_replacement(boundary: &Finder<'_>) -> bool {
    let replacement = "\u{FFFD}".as_bytes();
    boundary
        .needle()
        .windows(replacement.len())
        .any(|w| w == replacement)
}

/// Calls `visit` with the span between `left` and the next `right` in `input`, for each
/// occurrence in order, while it returns true.
///
/// The input is searched undecoded: for boundaries without U+FFFD the matches are those
/// of its lossy decoding, and each span decodes alone as it does in place. A boundary
/// is valid UTF-8, so its first byte is never a continuation byte: a decoder is at a
/// character start wherever a boundary occurs in the bytes, reads the boundary as
/// itself, and cannot run an invalid sequence into it; a match in the decoded text lies
/// between replacements, in bytes that decoded as themselves.
fn each_match(
    left: &Finder<'_>,
    right: &Finder<'_>,
    input: &[u8],
    mut visit: impl FnMut(Range<usize>) -> bool,
) {
    if is_blank(input) {
        return;
    }
    let left_len = left.needle().len();
    match (left_len == 0, right.needle().is_empty()) {
        (true, true) => {
            visit(0..input.len());
        }
        (true, false) => {
            if let Some(end) = right.find(input) {
                visit(0..end);
            }
        }
        (false, true) => {
            if let Some(start) = left.find(input) {
                visit(start + left_len..input.len());
            }
        }
        (false, false) => {
            let mut from = 0;
            while let Some(found) = left.find(&input[from..]) {
                let start = from + found + left_len;
                let Some(end) = right.find(&input[start..]) else {
                    break;
                };
                if !visit(start..start + end) {
                    break;
                }
                from = start;
            }
        }
    }
}

/// Whether the decoded input is blank (`str::trim` leaves nothing). The first byte that
/// is not ASCII white space decides, unless it starts a multi-byte sequence.
fn is_blank(input: &[u8]) -> bool {
    let first = input
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r'));
    match first {
        None => true,
        Some(i) if input[i].is_ascii() => false,
        Some(i) => utf8_text(&input[i..]).trim().is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::extractors::test_support::*;

    /// The first `limit` matches of the undecoded search, decoded.
    fn extract(left: &str, right: &str, input: &[u8], limit: usize) -> Vec<String> {
        let (left, right) = (Finder::new(left), Finder::new(right));
        let mut out = Vec::new();
        each_match(&left, &right, input, |span| {
            out.push(String::from_utf8_lossy(&input[span]).into_owned());
            out.len() < limit
        });
        out
    }

    /// JMeter's algorithm on the decoded text, as the reference for the byte search.
    fn extract_from_text(left: &str, right: &str, input: &str, limit: usize) -> Vec<String> {
        if input.trim().is_empty() {
            return Vec::new();
        }
        match (left.is_empty(), right.is_empty()) {
            (true, true) => return vec![input.to_string()],
            (true, false) => {
                return input
                    .find(right)
                    .map(|end| input[..end].to_string())
                    .into_iter()
                    .collect()
            }
            (false, true) => {
                return input
                    .find(left)
                    .map(|start| input[start + left.len()..].to_string())
                    .into_iter()
                    .collect()
            }
            (false, false) => {}
        }
        let mut out = Vec::new();
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

    #[test]
    fn boundaries_find_every_overlapping_match_and_edge_cases() {
        let all = usize::MAX;
        assert_eq!(extract("<b>", "</b>", b"<b>1</b><b>2</b>", all), ["1", "2"]);
        assert_eq!(extract("a", "a", b"xaaya", all), ["", "y"]);
        assert_eq!(extract("", "", b"whole", all), ["whole"]);
        assert_eq!(extract("", ";", b"k=v;x", all), ["k=v"]);
        assert_eq!(extract("k=", "", b"k=v;x", all), ["v;x"]);
        assert!(extract("<", ">", b"   ", all).is_empty());
        assert!(extract("<", ">", b" \x0b\x0c\r\n\t", all).is_empty());
        assert!(extract("", "?", b"no", all).is_empty());
        assert_eq!(
            extract("<b>", "</b>", b"<b>1</b><b>2</b><b>3</b>", 2),
            ["1", "2"]
        );
        // Blank in Unicode's sense (U+00A0, U+2003) as `str::trim` sees it.
        assert!(extract("", "", " \u{a0}\u{2003} ".as_bytes(), all).is_empty());
        assert_eq!(extract("", "", "\u{a0}x".as_bytes(), all), ["\u{a0}x"]);
        // Invalid sequences are decoded as JMeter's lossy decoding does, in and around
        // the span.
        assert_eq!(
            extract("[", "]", b"\xff[a\xe2\x82]\xe2[\xf0\x9f]", all),
            ["a\u{fffd}", "\u{fffd}"]
        );
        assert_eq!(extract("", "", b"\xff", all), ["\u{fffd}"]);
        assert_eq!(extract("", "", b" \xc2", all), [" \u{fffd}"]);
    }

    /// The byte search must agree with the search of the decoded text on any input,
    /// valid or not, whatever the boundaries (overlapping, adjacent, multi-byte, empty).
    #[test]
    fn byte_search_agrees_with_the_decoded_text() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let alphabet: &[u8] = b"ab<> \xe2\x82\xac\xff\xc3\xa9\x80";
        let boundaries = [
            "",
            "a",
            "<",
            ">",
            "aa",
            "<a",
            "\u{20ac}",
            "\u{e9}",
            "a\u{20ac}",
            ">\u{e9}<",
        ];
        for _ in 0..3000 {
            let len = rng.gen_range(0..24);
            let input: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.gen_range(0..alphabet.len())])
                .collect();
            let text = String::from_utf8_lossy(&input);
            let left = boundaries[rng.gen_range(0..boundaries.len())];
            let right = boundaries[rng.gen_range(0..boundaries.len())];
            let limit = rng.gen_range(1..5);
            assert_eq!(
                extract(left, right, &input, limit),
                extract_from_text(left, right, &text, limit),
                "{left:?} {right:?} {input:?} {limit}"
            );
        }
    }

    /// A boundary holding U+FFFD matches the replacement of an invalid sequence.
    #[test]
    fn replacement_character_boundary_matches_invalid_sequences() {
        let el = extractor_element(
            "BoundaryExtractor",
            &[
                ("BoundaryExtractor.refname", "b"),
                ("BoundaryExtractor.lboundary", "\u{fffd}"),
                ("BoundaryExtractor.rboundary", ";"),
                ("BoundaryExtractor.match_number", "2"),
            ],
        );
        let ex = with_build(&el, BoundaryExtractor::build);
        let mut user = user();
        let mut result = body("");
        result.response_data = b"\xffx;\xe2\x82y;".to_vec();
        ex.process(&mut result, &mut user);
        assert_eq!(var(&user, "b"), Some("y"));
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
