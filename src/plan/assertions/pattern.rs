//! Response Assertion patterns: `${}` templates, compiled as regexes once when they are
//! constant, and otherwise when their text changes.
//!
//! JMeter uses Apache ORO's Perl5 dialect (look-ahead and back-references allowed), so a
//! backtracking engine is needed: `fancy-regex`. ORO's "matches" is not a full match in
//! the usual sense: it takes the first way the pattern matches at the start, as a
//! backtracking engine finds it, and then requires it to end at the end of the text
//! (`alp|.lp.*` does not "match" `alphabet`). Anchoring at the start and checking the
//! end of the leftmost-first match reproduces exactly that.
//!
//! A constant pattern that a "contains" test uses as plain text (no regex
//! metacharacter, or a substring test) also gets a literal searcher, built once: finding
//! the text is all such a regex does, and the caller can then search the body
//! undecoded.

use std::sync::Arc;

use fancy_regex::Regex;
use memchr::memmem::Finder;
use parking_lot::Mutex;

use crate::user_state::EvalContext;

use crate::expr::Template;
use crate::plan::BuildContext;

/// How a regex pattern is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RegexUse {
    /// Found anywhere in the text.
    Contains,
    /// ORO's "matches" (see the module doc).
    Matches,
}

/// A compiled regex, or the text of the exception JMeter reports for a bad one.
type Compiled = Result<Arc<Regex>, String>;

/// One test string.
pub(super) struct Pattern {
    template: Template,
    /// Compiled at build time when the template is constant.
    fixed: Option<Compiled>,
    /// The last text a non-constant template gave, and its regex.
    last: Mutex<Option<(String, Compiled)>>,
    /// The searcher of a constant pattern whose test is finding it as plain text.
    literal: Option<Finder<'static>>,
}

impl Pattern {
    /// `regex` is `None` for the plain-text test types (equals, substring); `searched`
    /// says whether the test looks for the pattern in the text (substring or contains).
    pub(super) fn build(
        text: &str,
        regex: Option<RegexUse>,
        searched: bool,
        cx: &mut BuildContext<'_>,
    ) -> Pattern {
        let template = cx.compile(text);
        let literal = match template.as_literal() {
            Some(text) if searched && (regex.is_none() || is_plain_text(text)) => {
                Some(Finder::new(text.as_bytes()).into_owned())
            }
            _ => None,
        };
        let fixed = match regex {
            Some(usage) if template.is_constant() => {
                let compiled = compile(template.raw(), usage);
                if let Err(message) = &compiled {
                    cx.warn(format!(
                        "invalid regular expression {text:?}: every check will be an error ({message})"
                    ));
                }
                Some(compiled)
            }
            _ => None,
        };
        Pattern {
            template,
            fixed,
            last: Mutex::new(None),
            literal,
        }
    }

    /// The literal searcher, when finding this pattern as plain text is the whole test.
    pub(super) fn literal(&self) -> Option<&Finder<'static>> {
        self.literal.as_ref()
    }

    /// The pattern text now.
    pub(super) fn text(&self, cx: &mut EvalContext<'_>) -> String {
        self.template.eval(cx)
    }

    /// Whether the regex `text` (this pattern evaluated) is found in / matches `haystack`.
    /// `Err` carries the message of JMeter's "Bad test configuration" error.
    pub(super) fn regex_test(
        &self,
        text: &str,
        usage: RegexUse,
        haystack: &str,
    ) -> Result<bool, String> {
        let regex = match &self.fixed {
            Some(compiled) => compiled.clone()?,
            None => self.cached(text, usage)?,
        };
        let found = regex
            .find(haystack)
            .map_err(|err| format!("regular expression failed on this response: {err}"))?;
        Ok(match (usage, found) {
            (_, None) => false,
            (RegexUse::Contains, Some(_)) => true,
            (RegexUse::Matches, Some(m)) => m.end() == haystack.len(),
        })
    }

    fn cached(&self, text: &str, usage: RegexUse) -> Compiled {
        let mut last = self.last.lock();
        if let Some((cached_text, compiled)) = last.as_ref() {
            if cached_text == text {
                return compiled.clone();
            }
        }
        let compiled = compile(text, usage);
        *last = Some((text.to_string(), compiled.clone()));
        compiled
    }
}

/// Whether `pattern` as a regex matches exactly its own text: no character of it is
/// special in the Perl 5 syntax (flags, classes and escapes all start with one).
fn is_plain_text(pattern: &str) -> bool {
    !pattern.contains([
        '\\', '.', '+', '*', '?', '(', ')', '|', '[', ']', '{', '}', '^', '$',
    ])
}

fn compile(text: &str, usage: RegexUse) -> Compiled {
    let source = match usage {
        RegexUse::Contains => text.to_string(),
        RegexUse::Matches => format!(r"\A(?:{text})"),
    };
    // Check the pattern alone first, so an unbalanced `)` cannot close our group.
    let checked = match usage {
        RegexUse::Contains => Ok(()),
        RegexUse::Matches => Regex::new(text).map(|_| ()),
    };
    checked
        .and_then(|()| Regex::new(&source))
        .map(Arc::new)
        .map_err(|err| {
            format!(
                "org.apache.oro.text.MalformedCachePatternException: Invalid expression: {text}\n{err}"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(pattern: &str, usage: RegexUse, haystack: &str) -> Result<bool, String> {
        let compiled = compile(pattern, usage)?;
        let pattern = Pattern {
            template: Template::literal(pattern),
            fixed: Some(Ok(compiled)),
            last: Mutex::new(None),
            literal: None,
        };
        pattern.regex_test("", usage, haystack)
    }

    #[test]
    fn contains_finds_anywhere() {
        assert_eq!(test("b.d", RegexUse::Contains, "abcde"), Ok(true));
        assert_eq!(test("^b", RegexUse::Contains, "abc"), Ok(false));
    }

    #[test]
    fn matches_needs_the_whole_text() {
        assert_eq!(test("a.c", RegexUse::Matches, "abc"), Ok(true));
        assert_eq!(test("a.", RegexUse::Matches, "abc"), Ok(false));
        assert_eq!(test("b.", RegexUse::Matches, "abc"), Ok(false));
    }

    #[test]
    fn matches_keeps_oro_first_alternative() {
        assert_eq!(test("alp|.lp.*", RegexUse::Matches, "alphabet"), Ok(false));
        assert_eq!(test(".lp.*|alp", RegexUse::Matches, "alphabet"), Ok(true));
    }

    #[test]
    fn lookaround_and_backreferences_work() {
        assert_eq!(
            test("^(?!.*error)", RegexUse::Contains, "all fine"),
            Ok(true)
        );
        assert_eq!(
            test("^(?!.*error)", RegexUse::Contains, "an error"),
            Ok(false)
        );
        assert_eq!(test(r"(\w)\1", RegexUse::Contains, "hello"), Ok(true));
    }

    /// A pattern taken as plain text must be one the regex engine finds exactly where
    /// the text occurs; any special character keeps it a regex.
    #[test]
    fn plain_text_patterns_match_as_themselves() {
        let haystack = "item-144 a.b a+b (x) {1} é € #x y\tz";
        for pattern in [
            "item-144", "é €", "#x", "y\tz", " ", "-", "item-145", "a b", "",
        ] {
            assert!(is_plain_text(pattern), "{pattern:?}");
            assert_eq!(
                test(pattern, RegexUse::Contains, haystack),
                Ok(haystack.contains(pattern)),
                "{pattern:?}"
            );
        }
        for pattern in [
            r"a\.b", "a.b", "a+b", "(x)", "{1}", "x|y", "^i", "4$", "[i]", "x?", "x*",
        ] {
            assert!(!is_plain_text(pattern), "{pattern:?}");
        }
    }

    #[test]
    fn dot_does_not_cross_lines() {
        assert_eq!(test("a.b", RegexUse::Contains, "a\nb"), Ok(false));
    }

    #[test]
    fn bad_patterns_report_like_oro() {
        let err = compile("a(", RegexUse::Contains).unwrap_err();
        assert!(err.starts_with(
            "org.apache.oro.text.MalformedCachePatternException: Invalid expression: a(\n"
        ));
        assert!(compile("a)|(b", RegexUse::Matches).is_err());
    }

    #[test]
    fn dynamic_patterns_are_cached_by_text() {
        let pattern = Pattern {
            template: Template::literal("x"),
            fixed: None,
            last: Mutex::new(None),
            literal: None,
        };
        assert_eq!(
            pattern.regex_test("b+", RegexUse::Contains, "abbc"),
            Ok(true)
        );
        assert_eq!(
            pattern.regex_test("b+", RegexUse::Contains, "ac"),
            Ok(false)
        );
        assert_eq!(pattern.regex_test("c$", RegexUse::Contains, "ac"), Ok(true));
        assert!(pattern.regex_test("(", RegexUse::Contains, "ac").is_err());
    }
}
