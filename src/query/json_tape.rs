//! A borrowed index of a JSON document for JSONPath evaluation, without allocating
//! strings, maps or numbers: the positions where values, member names and operators
//! begin, and for each object and array the position that closes it, so navigation
//! jumps over subtrees. Only the values a filter compares or a path selects are
//! materialised, by parsing their slice with `serde_json`, so they are exactly what the
//! full tree holds (plain integers and strings without escapes are compared in place,
//! see [`Scalar`]).
//!
//! The index is built in two stages, as simdjson does:
//! 1. `json_structural` classifies the text 64 bytes at a time (AVX2 when available)
//!    into the positions of its operators, strings and scalars, refusing open strings
//!    and control characters in strings;
//! 2. `json_tape_builder` walks those positions, never the bytes between them: it
//!    checks the grammar (nesting, `:` and `,` in their places, nothing after the
//!    root), each scalar's bytes and the escapes, and records where containers end.
//!
//! The index must accept exactly the documents `serde_json` accepts and mean the same
//! thing. Whatever it cannot decide the same way for certain is left to `serde_json`
//! in one of two ways. Invalid text, surrogate escapes, numbers that could overflow,
//! nesting of 128 levels and texts over 4 GiB make [`Tape::build`] answer `None`.
//! Member names are checked only where a path reads them, since most objects of a
//! response are never looked into: looking a member up reads all the names of its
//! object anyway and keeps the last one that matches, as `serde_json`'s map does with
//! duplicates; listing an object's members (wildcards, deep scans) first checks that
//! its names are distinct. An escaped name in an object read either way, or duplicates
//! in a listed one, mark the tape [doubtful](Tape::doubtful): the caller then discards
//! what the evaluation found and asks the full tree.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashSet;

use serde_json::Value;

use super::jsonpath_node::{Node, Scalar};

#[path = "json_structural.rs"]
mod structural;

#[path = "json_tape_builder.rs"]
mod builder;

/// The positions of a JSON text, owned: built once, it can be kept (a sample keeps the
/// index of its body for every element that reads it) and viewed over the same text
/// again with [`Tape::over`].
#[derive(Debug, Clone)]
pub struct TapeIndex {
    /// Stage 1's positions, in text order, the text's length last: every value and
    /// member name starts at one. Values are named by their index in this list.
    positions: Vec<u32>,
    /// For the index of each `{` and `[`, the index of its closing bracket.
    ends: Vec<u32>,
    /// Stage 1's backslashes that begin an escape, `u32::MAX` last.
    escapes: Vec<u32>,
}

impl TapeIndex {
    /// The index of `text`, or `None` when `serde_json` must decide (see the module doc).
    pub fn build(text: &str) -> Option<TapeIndex> {
        let index = structural::index(text.as_bytes())?;
        let ends = builder::container_ends(text.as_bytes(), &index)?;
        Some(TapeIndex {
            positions: index.structurals,
            ends,
            escapes: index.escapes,
        })
    }
}

/// A [`TapeIndex`] over its text, for one evaluation.
pub struct Tape<'t> {
    text: &'t str,
    index: Cow<'t, TapeIndex>,
    /// Set when an evaluation met names only `serde_json` can read for certain.
    doubtful: Cell<bool>,
}

impl<'t> Tape<'t> {
    /// The index of `text`, or `None` when `serde_json` must decide (see the module doc).
    pub fn build(text: &'t str) -> Option<Tape<'t>> {
        Some(Tape {
            text,
            index: Cow::Owned(TapeIndex::build(text)?),
            doubtful: Cell::new(false),
        })
    }

    /// `index` over `text`, the text it was built from.
    pub fn over(text: &'t str, index: &'t TapeIndex) -> Tape<'t> {
        Tape {
            text,
            index: Cow::Borrowed(index),
            doubtful: Cell::new(false),
        }
    }

    pub fn root(&self) -> TapeNode<'_> {
        TapeNode {
            tape: self,
            index: 0,
        }
    }

    /// Whether an evaluation over this tape met an object whose names only the full
    /// tree reads for certain (see the module doc): what it found must be discarded.
    pub fn doubtful(&self) -> bool {
        self.doubtful.get()
    }

    fn position(&self, at: u32) -> usize {
        self.index
            .positions
            .get(at as usize)
            .map_or(0, |&p| p as usize)
    }

    fn byte(&self, at: u32) -> u8 {
        let position = self.position(at);
        self.text.as_bytes().get(position).copied().unwrap_or(0)
    }

    fn is_container(&self, at: u32) -> bool {
        matches!(self.byte(at), b'{' | b'[')
    }

    /// The index of the closing bracket of the container at `at`.
    fn end(&self, at: u32) -> u32 {
        self.index.ends.get(at as usize).copied().unwrap_or(0)
    }

    /// The index just after the value at `at` (a `,` or a closing bracket).
    #[inline(always)]
    fn after(&self, at: u32) -> u32 {
        match self.is_container(at) {
            true => self.end(at) + 1,
            false => at + 1,
        }
    }

    /// The end of the string or scalar at `at`: the last byte before the next position
    /// that is not whitespace (a string's closing quote: stage 1 lets nothing else
    /// stand between it and the next position).
    fn scalar_end(&self, at: u32) -> usize {
        let bytes = self.text.as_bytes();
        let mut end = self.position(at + 1);
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = bytes.get(end.wrapping_sub(1)) {
            end -= 1;
        }
        end
    }

    /// Whether an escape begins in the bytes `start..end`.
    fn escaped(&self, start: usize, end: usize) -> bool {
        let first = self
            .index
            .escapes
            .partition_point(|&e| (e as usize) < start);
        self.index
            .escapes
            .get(first)
            .is_some_and(|&e| (e as usize) < end)
    }

    /// The raw text (quotes excluded) of the member name at `at`, and whether it has
    /// escapes when `escapes_nearby` says some might.
    fn name(&self, at: u32, escapes_nearby: bool) -> (&'t [u8], bool) {
        let start = self.position(at) + 1;
        let end = self.scalar_end(at).saturating_sub(1);
        let name = self.text.as_bytes().get(start..end).unwrap_or_default();
        (name, escapes_nearby && self.escaped(start, end))
    }

    /// Whether an escape begins inside the container at `at`.
    fn escapes_inside(&self, at: u32) -> bool {
        // Only the sentinel: the common case, answered without a search.
        self.index.escapes.len() > 1 && self.escaped(self.position(at), self.position(self.end(at)))
    }

    /// The indexes of the member names of the object at `at`.
    fn names(&self, at: u32) -> impl Iterator<Item = u32> + '_ {
        let end = self.end(at);
        let mut name = at + 1;
        std::iter::from_fn(move || {
            (name < end).then(|| {
                let found = name;
                name = self.after(name + 2) + 1;
                found
            })
        })
    }

    /// Whether the names of the object at `at` are distinct and without escapes, so
    /// that its members are exactly those of `serde_json`'s map; marks the tape
    /// doubtful otherwise.
    fn plain_distinct_names(&self, at: u32) -> bool {
        let escapes = self.escapes_inside(at);
        let mut names = Vec::new();
        for name in self.names(at) {
            let (name, escaped) = self.name(name, escapes);
            if escaped {
                self.doubtful.set(true);
                return false;
            }
            names.push(name);
        }
        let distinct = match names.len() {
            0..=16 => (1..names.len()).all(|i| !names[..i].contains(&names[i])),
            _ => {
                let mut seen = HashSet::with_capacity(names.len());
                names.iter().all(|name| seen.insert(*name))
            }
        };
        if !distinct {
            self.doubtful.set(true);
        }
        distinct
    }
}

/// A value of a [`Tape`].
#[derive(Clone, Copy)]
pub struct TapeNode<'t> {
    tape: &'t Tape<'t>,
    /// The index of the value's first position.
    index: u32,
}

impl<'t> TapeNode<'t> {
    fn at(self, index: u32) -> TapeNode<'t> {
        TapeNode {
            tape: self.tape,
            index,
        }
    }

    /// The value's text.
    fn text(self) -> &'t str {
        let tape = self.tape;
        let start = tape.position(self.index);
        let end = match tape.is_container(self.index) {
            true => tape.position(tape.end(self.index)) + 1,
            false => tape.scalar_end(self.index),
        };
        tape.text.get(start..end).unwrap_or_default()
    }

    /// The bytes of a scalar that is not a string.
    fn scalar_bytes(self) -> &'t [u8] {
        let tape = self.tape;
        let start = tape.position(self.index);
        tape.text
            .as_bytes()
            .get(start..tape.scalar_end(self.index))
            .unwrap_or_default()
    }

    /// A string's content when it has no escape (its text is then its value).
    fn plain_string(self) -> Option<&'t str> {
        let tape = self.tape;
        if tape.byte(self.index) != b'"' {
            return None;
        }
        let start = tape.position(self.index) + 1;
        let end = tape.scalar_end(self.index).saturating_sub(1);
        match tape.escaped(start, end) {
            true => None,
            false => tape.text.get(start..end),
        }
    }
}

/// The member values of an object or the items of an array.
struct ChildIndexes<'t> {
    tape: &'t Tape<'t>,
    /// The index of the next member's name or the next item.
    at: u32,
    /// The index of the closing bracket.
    end: u32,
    object: bool,
}

impl Iterator for ChildIndexes<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.at >= self.end {
            return None;
        }
        let value = if self.object { self.at + 2 } else { self.at };
        self.at = self.tape.after(value) + 1;
        Some(value)
    }
}

impl<'t> Node<'t> for TapeNode<'t> {
    fn is_object(self) -> bool {
        self.tape.byte(self.index) == b'{'
    }

    fn is_array(self) -> bool {
        self.tape.byte(self.index) == b'['
    }

    fn member(self, name: &str) -> Option<Self> {
        let tape = self.tape;
        if !self.is_object() {
            return None;
        }
        let (positions, bytes) = (&tape.index.positions, tape.text.as_bytes());
        let escapes = tape.escapes_inside(self.index);
        let end = tape.end(self.index) as usize;
        let mut found = None;
        // Each member is a name, a `:`, a value and a `,` or the closing brace.
        let mut at = self.index as usize + 1;
        while at < end {
            let [name_at, colon, value_at] = *positions.get(at..at + 3)? else {
                return None;
            };
            let (start, colon) = (name_at as usize + 1, colon as usize);
            let close = match bytes.get(colon - 1) {
                Some(b'"') => colon - 1,
                _ => tape.scalar_end(at as u32) - 1,
            };
            if escapes && tape.escaped(start, close) {
                tape.doubtful.set(true);
                return None;
            }
            // With duplicate names `serde_json`'s map holds the last value.
            let value = at + 2;
            if bytes.get(start..close)? == name.as_bytes() {
                found = Some(value as u32);
            }
            at = match bytes.get(value_at as usize) {
                Some(b'{' | b'[') => *tape.index.ends.get(value)? as usize + 2,
                _ => value + 2,
            };
        }
        found.map(|index| self.at(index))
    }

    fn children(self) -> impl Iterator<Item = Self> + 't {
        let tape = self.tape;
        let object = self.is_object();
        let listed = (object && tape.plain_distinct_names(self.index)) || self.is_array();
        ChildIndexes {
            tape,
            at: self.index + 1,
            end: if listed { tape.end(self.index) } else { 0 },
            object,
        }
        .map(move |index| self.at(index))
    }

    fn array_len(self) -> Option<usize> {
        self.is_array().then(|| self.children().count())
    }

    fn value(self) -> Cow<'t, Value> {
        if let Some(content) = self.plain_string() {
            return Cow::Owned(Value::String(content.to_string()));
        }
        let text = self.text();
        let value = small_integer(text.as_bytes())
            .map(Value::from)
            .or_else(|| serde_json::from_str(text).ok())
            .unwrap_or(Value::Null);
        Cow::Owned(value)
    }

    fn scalar(self) -> Scalar<'t> {
        match self.tape.byte(self.index) {
            b'"' => self
                .plain_string()
                .map_or(Scalar::Unknown, Scalar::PlainString),
            b'-' | b'0'..=b'9' => match small_integer(self.scalar_bytes()) {
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
