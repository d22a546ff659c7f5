//! Java regular expressions for `split`, `replaceAll`, `matches`, `=~` and `==~`:
//! compiled with `fancy_regex` (which has Java's look-arounds and back-references)
//! and kept in a small per-thread cache, as scripts pass the same pattern every call.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use fancy_regex::Regex;
use rhai::{Array, Dynamic, Engine};

use super::{error, ShimResult};

const CACHE_LIMIT: usize = 64;

thread_local! {
    static CACHE: RefCell<HashMap<String, Arc<Regex>>> = RefCell::new(HashMap::new());
}

pub(crate) fn compile(pattern: &str) -> ShimResult<Arc<Regex>> {
    if let Some(found) = CACHE.with(|c| c.borrow().get(pattern).cloned()) {
        return Ok(found);
    }
    let regex = Regex::new(pattern)
        .map(Arc::new)
        .or_else(|e| error(format!("PatternSyntaxException: {e} in /{pattern}/")))?;
    CACHE.with(|c| {
        let mut cache = c.borrow_mut();
        if cache.len() >= CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(pattern.to_string(), regex.clone());
    });
    Ok(regex)
}

fn failed(e: fancy_regex::Error) -> Box<rhai::EvalAltResult> {
    format!("regular expression failed: {e}").into()
}

/// Java's `String.split(regex)`: trailing empty strings are removed.
pub(crate) fn split(text: &str, pattern: &str) -> ShimResult<Array> {
    if text.is_empty() {
        return Ok(vec![Dynamic::from("")]);
    }
    let regex = compile(pattern)?;
    let mut parts = Vec::new();
    let mut last = 0;
    for found in regex.find_iter(text) {
        let found = found.map_err(failed)?;
        // A zero-width match at the start yields no leading empty string (Java 8+).
        if found.end() == 0 {
            continue;
        }
        if found.start() == found.end() && found.start() >= text.len() {
            break;
        }
        parts.push(text[last..found.start()].to_string());
        last = found.end();
    }
    parts.push(text[last..].to_string());
    while parts.len() > 1 && parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    Ok(parts.into_iter().map(Dynamic::from).collect())
}

/// Java's replacement syntax (`$1`, `\$`) in the syntax `fancy_regex` expands (`${1}`, `$$`).
fn replacement(java: &str) -> String {
    let mut out = String::new();
    let mut chars = java.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('$') => out.push_str("$$"),
                Some(other) => out.push(other),
                None => {}
            },
            '$' => {
                let mut group = String::new();
                while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    group.push(*d);
                    chars.next();
                }
                if group.is_empty() && chars.peek() == Some(&'{') {
                    out.push('$');
                } else {
                    out.push_str(&format!("${{{group}}}"));
                }
            }
            other => out.push(other),
        }
    }
    out
}

pub(crate) fn replace_all(text: &str, pattern: &str, with: &str) -> ShimResult<String> {
    let regex = compile(pattern)?;
    Ok(regex
        .replace_all(text, replacement(with).as_str())
        .into_owned())
}

fn replace_first(text: &str, pattern: &str, with: &str) -> ShimResult<String> {
    let regex = compile(pattern)?;
    Ok(regex
        .replacen(text, 1, replacement(with).as_str())
        .into_owned())
}

/// Whether the whole of `text` matches (`String.matches`, `==~`).
pub(crate) fn matches(text: &str, pattern: &str) -> ShimResult<bool> {
    let anchored = format!("^(?:{pattern})$");
    compile(&anchored)?.is_match(text).map_err(failed)
}

/// Groovy's `text =~ pattern` as the list of matches, each the list of its groups
/// (`matcher[0][1]`); empty, hence false, when nothing matches.
fn matcher(text: &str, pattern: &str) -> ShimResult<Array> {
    let regex = compile(pattern)?;
    let mut all = Array::new();
    for captures in regex.captures_iter(text) {
        let captures = captures.map_err(failed)?;
        let groups: Array = (0..captures.len())
            .map(|i| {
                captures
                    .get(i)
                    .map_or(Dynamic::UNIT, |m| Dynamic::from(m.as_str().to_string()))
            })
            .collect();
        // Without groups Groovy gives the matched text itself.
        if groups.len() == 1 {
            all.push(groups[0].clone());
        } else {
            all.push(Dynamic::from(groups));
        }
    }
    Ok(all)
}

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_fn("split", |t: &str, p: &str| split(t, p))
        .register_fn("split", |t: &str| -> Array {
            t.split_whitespace()
                .map(|p| Dynamic::from(p.to_string()))
                .collect()
        })
        .register_fn("replaceAll", |t: &str, p: &str, w: &str| {
            replace_all(t, p, w)
        })
        .register_fn("replaceFirst", |t: &str, p: &str, w: &str| {
            replace_first(t, p, w)
        })
        .register_fn("matches", |t: &str, p: &str| matches(t, p))
        .register_fn("regex_matches", |t: &str, p: &str| matches(t, p))
        .register_fn("regex_matcher", |t: &str, p: &str| matcher(t, p))
        .register_fn("find", |t: &str, p: &str| -> ShimResult<Dynamic> {
            Ok(matcher(t, p)?.into_iter().next().unwrap_or(Dynamic::UNIT))
        })
        .register_fn("findAll", |t: &str, p: &str| matcher(t, p));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_split_and_replacement() {
        let parts: Vec<String> = split("a,b,,c,,", ",")
            .unwrap()
            .into_iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(parts, ["a", "b", "", "c"]);
        assert_eq!(replace_all("a1b22", "(\\d+)", "<$1>").unwrap(), "a<1>b<22>");
        assert!(matches("abc123", "[a-z]+\\d+").unwrap());
        assert!(!matches("abc123x", "[a-z]+\\d+").unwrap());
    }
}
