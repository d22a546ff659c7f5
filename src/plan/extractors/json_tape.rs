//! A borrowed index of a JSON document for JSONPath evaluation: one pass over the text
//! records every value as a token (its byte range, its member name, and where its
//! subtree ends), without allocating strings, maps or numbers. Navigation jumps over
//! subtrees; only the values a filter compares or a path selects are materialised, by
//! parsing their slice with `serde_json`, so they are exactly what the full tree holds.
//!
//! The index must accept exactly the documents `serde_json` accepts and mean the same
//! thing. It is therefore conservative: whatever it does not handle the same way for
//! certain (invalid text, escaped member names, duplicate member names, surrogate
//! escapes, numbers that could overflow, very deep nesting, texts over 4 GiB) makes
//! [`Tape::build`] answer `None`, and the caller builds the full tree, which decides.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::Value;

use super::jsonpath_node::Node;

// Stage 1 of the coming structural index; used by the tape in the next step.
#[cfg(test)]
#[path = "json_structural.rs"]
mod structural;

/// Deepest nesting indexed; `serde_json` refuses 128 levels, deeper documents are left
/// to it.
const MAX_DEPTH: u32 = 100;

/// Objects up to this size are checked for duplicate names pairwise, larger ones
/// through a set.
const PAIRWISE_NAMES: usize = 16;

pub struct Tape<'t> {
    text: &'t str,
    tokens: Vec<Token>,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Object,
    Array,
    /// A string whose text has no escape: its content is the slice between the quotes.
    PlainString,
    Other,
}

#[derive(Clone, Copy)]
struct Token {
    kind: Kind,
    /// The value's text is `text[start..end]`.
    start: u32,
    end: u32,
    /// The member name (no quotes, never escaped) when the value is an object member.
    key_start: u32,
    key_end: u32,
    /// The index of the first token after this value's subtree.
    next: u32,
}

impl<'t> Tape<'t> {
    /// The index of `text`, or `None` when `serde_json` must decide (see the module doc).
    pub fn build(text: &'t str) -> Option<Tape<'t>> {
        u32::try_from(text.len()).ok()?;
        let mut builder = Builder {
            bytes: text.as_bytes(),
            pos: 0,
            tokens: Vec::with_capacity(text.len() / 12 + 4),
            names: Vec::new(),
        };
        builder.value(0)?;
        builder.skip_whitespace();
        if builder.pos != builder.bytes.len() {
            return None;
        }
        Some(Tape {
            text,
            tokens: builder.tokens,
        })
    }

    pub fn root(&self) -> TapeNode<'_> {
        TapeNode {
            tape: self,
            index: 0,
        }
    }
}

/// A value of a [`Tape`].
#[derive(Clone, Copy)]
pub struct TapeNode<'t> {
    tape: &'t Tape<'t>,
    index: u32,
}

impl<'t> TapeNode<'t> {
    fn token(self) -> Token {
        self.tape.tokens[self.index as usize]
    }

    fn text(self) -> &'t str {
        let token = self.token();
        &self.tape.text[token.start as usize..token.end as usize]
    }

    fn key(self) -> &'t str {
        let token = self.token();
        &self.tape.text[token.key_start as usize..token.key_end as usize]
    }

    fn child_indexes(self) -> ChildIndexes<'t> {
        let token = self.token();
        let container = matches!(token.kind, Kind::Object | Kind::Array);
        ChildIndexes {
            tokens: &self.tape.tokens,
            at: self.index + 1,
            end: if container { token.next } else { 0 },
        }
    }
}

struct ChildIndexes<'t> {
    tokens: &'t [Token],
    at: u32,
    end: u32,
}

impl Iterator for ChildIndexes<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.at >= self.end {
            return None;
        }
        let index = self.at;
        self.at = self.tokens[index as usize].next;
        Some(index)
    }
}

impl<'t> Node<'t> for TapeNode<'t> {
    fn is_object(self) -> bool {
        self.token().kind == Kind::Object
    }

    fn is_array(self) -> bool {
        self.token().kind == Kind::Array
    }

    fn member(self, name: &str) -> Option<Self> {
        if !self.is_object() {
            return None;
        }
        let tape = self.tape;
        self.child_indexes()
            .map(|index| TapeNode { tape, index })
            .find(|child| child.key() == name)
    }

    fn children(self) -> impl Iterator<Item = Self> + 't {
        let tape = self.tape;
        self.child_indexes()
            .map(move |index| TapeNode { tape, index })
    }

    fn array_len(self) -> Option<usize> {
        self.is_array().then(|| self.child_indexes().count())
    }

    fn value(self) -> Cow<'t, Value> {
        let text = self.text();
        let value = match self.token().kind {
            Kind::PlainString => Value::String(text[1..text.len() - 1].to_string()),
            _ => small_integer(text)
                .or_else(|| serde_json::from_str(text).ok())
                .unwrap_or(Value::Null),
        };
        Cow::Owned(value)
    }
}

/// An integer short enough to read without `serde_json`, as `serde_json` stores it.
fn small_integer(text: &str) -> Option<Value> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    // `serde_json` reads `-0` as the float -0.0.
    if text == "-0"
        || digits.is_empty()
        || digits.len() > 18
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    text.parse::<i64>().ok().map(Value::from)
}

/// Whether an object's member names are distinct: with duplicates `serde_json` keeps
/// the first position and the last value, which the index does not.
fn unique(names: &[&[u8]]) -> bool {
    if names.len() <= PAIRWISE_NAMES {
        return (1..names.len()).all(|i| !names[..i].contains(&names[i]));
    }
    let mut seen = HashSet::with_capacity(names.len());
    names.iter().all(|name| seen.insert(*name))
}

struct Builder<'t> {
    bytes: &'t [u8],
    pos: usize,
    tokens: Vec<Token>,
    /// The member names of the objects being indexed, innermost last.
    names: Vec<&'t [u8]>,
}

impl Builder<'_> {
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Indexes the value at the cursor (after whitespace) and its subtree.
    fn value(&mut self, depth: u32) -> Option<()> {
        self.skip_whitespace();
        let index = self.tokens.len();
        let start = self.pos;
        self.tokens.push(Token {
            kind: Kind::Other,
            start: start as u32,
            end: 0,
            key_start: 0,
            key_end: 0,
            next: 0,
        });
        let kind = match self.peek()? {
            b'{' => self.object(depth + 1)?,
            b'[' => self.array(depth + 1)?,
            b'"' => match self.string()? {
                false => Kind::PlainString,
                true => Kind::Other,
            },
            b'-' | b'0'..=b'9' => self.number()?,
            b't' => self.literal(b"true")?,
            b'f' => self.literal(b"false")?,
            b'n' => self.literal(b"null")?,
            _ => return None,
        };
        let next = self.tokens.len() as u32;
        let token = &mut self.tokens[index];
        token.kind = kind;
        token.end = self.pos as u32;
        token.next = next;
        Some(())
    }

    fn object(&mut self, depth: u32) -> Option<Kind> {
        if depth > MAX_DEPTH {
            return None;
        }
        let first_name = self.names.len();
        self.pos += 1;
        self.skip_whitespace();
        if self.peek()? == b'}' {
            self.pos += 1;
            return Some(Kind::Object);
        }
        loop {
            self.skip_whitespace();
            if self.peek()? != b'"' {
                return None;
            }
            let key_start = self.pos + 1;
            if self.string()? {
                return None;
            }
            let key_end = self.pos - 1;
            self.names.push(&self.bytes[key_start..key_end]);
            self.skip_whitespace();
            if self.peek()? != b':' {
                return None;
            }
            self.pos += 1;
            let member = self.tokens.len();
            self.value(depth)?;
            let token = &mut self.tokens[member];
            token.key_start = key_start as u32;
            token.key_end = key_end as u32;
            self.skip_whitespace();
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    break;
                }
                _ => return None,
            }
        }
        let unique = unique(&self.names[first_name..]);
        self.names.truncate(first_name);
        unique.then_some(Kind::Object)
    }

    fn array(&mut self, depth: u32) -> Option<Kind> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        self.skip_whitespace();
        if self.peek()? == b']' {
            self.pos += 1;
            return Some(Kind::Array);
        }
        loop {
            self.value(depth)?;
            self.skip_whitespace();
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Some(Kind::Array);
                }
                _ => return None,
            }
        }
    }

    /// Skips the string at the cursor; `Some(true)` when it has escapes.
    fn string(&mut self) -> Option<bool> {
        self.pos += 1;
        let mut escaped = false;
        loop {
            self.pos = special_byte(self.bytes, self.pos)?;
            match self.bytes[self.pos] {
                b'"' => {
                    self.pos += 1;
                    return Some(escaped);
                }
                b'\\' => {
                    escaped = true;
                    self.escape()?;
                }
                _ => return None,
            }
        }
    }

    /// Skips the escape at the cursor (its `\`); surrogates are left to `serde_json`.
    fn escape(&mut self) -> Option<()> {
        match *self.bytes.get(self.pos + 1)? {
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.pos += 2,
            b'u' => {
                let hex = self.bytes.get(self.pos + 2..self.pos + 6)?;
                let hex = std::str::from_utf8(hex).ok()?;
                let code = u16::from_str_radix(hex, 16).ok()?;
                if !hex.bytes().all(|b| b.is_ascii_hexdigit()) || (0xD800..0xE000).contains(&code) {
                    return None;
                }
                self.pos += 6;
            }
            _ => return None,
        }
        Some(())
    }

    /// Skips a number: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, refusing those
    /// that might not fit a finite `f64`.
    fn number(&mut self) -> Option<Kind> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let integer = self.digits();
        if integer == 0 || (integer > 1 && self.bytes[self.pos - integer] == b'0') {
            return None;
        }
        let mut fraction = 0;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            fraction = self.digits();
            if fraction == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            let exponent = self.digits();
            if exponent == 0 || exponent > 2 || integer + fraction > 200 {
                return None;
            }
        } else if integer > 300 {
            return None;
        }
        Some(Kind::Other)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn literal(&mut self, word: &[u8]) -> Option<Kind> {
        if !self.bytes[self.pos..].starts_with(word) {
            return None;
        }
        self.pos += word.len();
        Some(Kind::Other)
    }
}

/// The position of the first `"`, `\\` or control character from `at` on, looking at
/// eight bytes at a time (the usual bit tricks: a byte's high bit is set in the mask
/// when it equals the pattern or is below 0x20; the lowest such byte is exact).
fn special_byte(bytes: &[u8], mut at: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = bytes.get(at..).and_then(|rest| rest.first_chunk::<8>()) {
        let word = u64::from_le_bytes(*chunk);
        let zero_in = |v: u64| v.wrapping_sub(ONES) & !v;
        let quote = zero_in(word ^ (ONES * u64::from(b'"')));
        let backslash = zero_in(word ^ (ONES * u64::from(b'\\')));
        let control = word.wrapping_sub(ONES * 0x20) & !word;
        let found = (quote | backslash | control) & HIGHS;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = bytes.get(at..)?;
    let offset = rest
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    Some(at + offset)
}

#[cfg(test)]
#[path = "json_tape_tests.rs"]
mod tests;
