//! A borrowed index of a JSON document for JSONPath evaluation: every value is recorded
//! as a token (its byte range, its member name, and where its subtree ends), without
//! allocating strings, maps or numbers. Navigation jumps over subtrees; only the values
//! a filter compares or a path selects are materialised, by parsing their slice with
//! `serde_json`, so they are exactly what the full tree holds (plain integers and
//! strings without escapes are compared in place, see [`Scalar`]).
//!
//! The index is built in two stages, as simdjson does:
//! 1. `json_structural` classifies the text 64 bytes at a time (AVX2 when available)
//!    into the positions of its operators, strings and scalars, refusing open strings
//!    and control characters in strings;
//! 2. `json_tape_builder` walks those positions, never the bytes between them: it
//!    checks the grammar (nesting, `:` and `,` in their places, nothing after the
//!    root), each scalar's bytes, each string's escapes, and records the tokens.
//!
//! The index must accept exactly the documents `serde_json` accepts and mean the same
//! thing. It is therefore conservative: whatever it does not handle the same way for
//! certain (invalid text, escaped member names, duplicate member names, surrogate
//! escapes, numbers that could overflow, very deep nesting, texts over 4 GiB) makes
//! [`Tape::build`] answer `None`, and the caller builds the full tree, which decides.

use std::borrow::Cow;

use serde_json::Value;

use super::jsonpath_node::{Node, Scalar};

#[path = "json_structural.rs"]
mod structural;

#[path = "json_tape_builder.rs"]
mod builder;

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
        let index = structural::index(text.as_bytes())?;
        let tokens = builder::tokens(text.as_bytes(), &index)?;
        Some(Tape { text, tokens })
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
        let token = self.token();
        if token.kind != Kind::Object {
            return None;
        }
        let mut index = self.index + 1;
        while index < token.next {
            let child = self.tape.tokens.get(index as usize)?;
            let key = child.key_start as usize..child.key_end as usize;
            if key.len() == name.len()
                && self.tape.text.as_bytes().get(key) == Some(name.as_bytes())
            {
                return Some(TapeNode {
                    tape: self.tape,
                    index,
                });
            }
            index = child.next;
        }
        None
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
            _ => small_integer(text.as_bytes())
                .map(Value::from)
                .or_else(|| serde_json::from_str(text).ok())
                .unwrap_or(Value::Null),
        };
        Cow::Owned(value)
    }

    fn scalar(self) -> Scalar<'t> {
        let token = self.token();
        let text = self.tape.text.as_bytes();
        let Some(bytes) = text.get(token.start as usize..token.end as usize) else {
            return Scalar::Unknown;
        };
        match token.kind {
            Kind::PlainString => match self
                .tape
                .text
                .get(token.start as usize + 1..token.end as usize - 1)
            {
                Some(content) => Scalar::PlainString(content),
                None => Scalar::Unknown,
            },
            Kind::Other => match small_integer(bytes) {
                Some(integer) if integer.unsigned_abs() <= Scalar::EXACT_INTEGER => {
                    Scalar::Integer(integer)
                }
                _ => Scalar::Unknown,
            },
            _ => Scalar::Unknown,
        }
    }
}

/// An integer short enough to read without `serde_json`, which stores it as an `i64`.
fn small_integer(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text {
        [b'-', digits @ ..] => (true, digits),
        digits => (false, digits),
    };
    if digits.is_empty() || digits.len() > 18 {
        return None;
    }
    let mut value = 0i64;
    for &byte in digits {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        value = value * 10 + i64::from(digit);
    }
    match negative {
        // `serde_json` reads `-0` as the float -0.0.
        true if value == 0 => None,
        true => Some(-value),
        false => Some(value),
    }
}

#[cfg(test)]
#[path = "json_tape_tests.rs"]
mod tests;
