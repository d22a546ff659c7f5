//! Stage 2 of the JSON index: the tokens of a [`Tape`](super::Tape) from the positions
//! stage 1 found. One loop reads the positions in order, keeping the objects and arrays
//! not yet closed on a stack (no recursion), so the bytes between positions
//! (whitespace, string contents) are never looked at, except:
//!
//! - a string ends at the last non-whitespace byte before the next position (its
//!   closing quote: stage 1 guarantees only whitespace can follow it there), and its
//!   escapes are checked only when stage 1 found a backslash inside it;
//! - a scalar's bytes are checked (numbers as `serde_json` reads them, `true`, `false`,
//!   `null`), and must end where the next position or whitespace begins.
//!
//! Grammar errors, escaped or duplicate member names, surrogate escapes, numbers that
//! might not fit a finite `f64` and very deep nesting all answer `None`.

use std::collections::HashSet;

use super::structural::StructuralIndex;
use super::{Kind, Token};

/// Deepest nesting indexed; `serde_json` refuses 128 levels, deeper documents are left
/// to it.
const MAX_DEPTH: usize = 100;

/// Objects up to this size are checked for duplicate names as each name is read
/// (through a 64-bit filter), larger ones at their end through a set.
const FILTERED_NAMES: u32 = 32;

/// The tokens of the text `bytes` indexed by `index`, the root first.
pub(super) fn tokens(bytes: &[u8], index: &StructuralIndex) -> Option<Vec<Token>> {
    let mut builder = Builder {
        bytes,
        structurals: &index.structurals,
        at: 0,
        escapes: &index.escapes,
        escape_at: 0,
        // Every token starts at a structural position.
        tokens: Vec::with_capacity(index.structurals.len()),
        open: Vec::new(),
    };
    builder.run()?;
    // Nothing but the sentinel may follow the root.
    (builder.at + 1 == builder.structurals.len()).then_some(builder.tokens)
}

struct Builder<'t> {
    bytes: &'t [u8],
    /// Stage 1's positions, the text's length last.
    structurals: &'t [u32],
    /// The next position to read.
    at: usize,
    /// Stage 1's escape positions, `u32::MAX` last.
    escapes: &'t [u32],
    /// The first escape after the strings read so far.
    escape_at: usize,
    tokens: Vec<Token>,
    /// The objects and arrays being indexed, innermost last.
    open: Vec<Open>,
}

/// An object or array whose end is not reached yet.
struct Open {
    /// Its token.
    token: usize,
    /// For an object: how many members it has so far, and a bit per hash of their
    /// names (a name whose bit is set is compared with the earlier ones).
    members: u32,
    name_hashes: u64,
    /// `}` or `]`.
    closing: u8,
}

/// Where the walk is, between values.
enum Expect {
    /// A member name (after `{` or `,` in an object).
    Name,
    /// An array item (after `[` or `,` in an array).
    Item,
    /// A `,` or the closing bracket of the innermost container (after a container
    /// value).
    Next,
}

impl Builder<'_> {
    /// The next structural position and its byte (0 at the end), consumed.
    #[inline(always)]
    fn next_position(&mut self) -> (usize, u8) {
        let position = self
            .structurals
            .get(self.at)
            .map_or(usize::MAX, |&p| p as usize);
        self.at += 1;
        (position, self.bytes.get(position).copied().unwrap_or(0))
    }

    /// The byte at the next structural position, not consumed.
    #[inline(always)]
    fn peek(&self) -> u8 {
        let position = self
            .structurals
            .get(self.at)
            .map_or(usize::MAX, |&p| p as usize);
        self.bytes.get(position).copied().unwrap_or(0)
    }

    /// Walks every position once, without recursion: containers wait on `open`.
    fn run(&mut self) -> Option<()> {
        let (start, first) = self.next_position();
        let index = self.push_token(start, (0, 0));
        let mut expect = match first {
            b'{' | b'[' => self.open(index, first + 2)?,
            _ => return self.end_scalar(index, start, first),
        };
        loop {
            expect = match expect {
                Expect::Name => self.values(true)?,
                Expect::Item => self.values(false)?,
                Expect::Next => {
                    let Some(open) = self.open.last() else {
                        return Some(());
                    };
                    let closing = open.closing;
                    match self.next_position() {
                        (_, b',') if closing == b'}' => Expect::Name,
                        (_, b',') => Expect::Item,
                        (position, byte) if byte == closing => {
                            self.close(position)?;
                            Expect::Next
                        }
                        _ => return None,
                    }
                }
            };
        }
    }

    /// The values of the innermost container from one on, as long as they are scalars:
    /// an object's members (`named`, each after its name, ending at `}`) or an array's
    /// items (ending at `]`); then the state after the container a value opens, or
    /// after the container's end. Both callers pass constants, so each gets its own
    /// loop without the tests.
    #[inline(always)]
    fn values(&mut self, named: bool) -> Option<Expect> {
        let end = if named { b'}' } else { b']' };
        loop {
            let key = if named { self.name()? } else { (0, 0) };
            let (start, first) = self.next_position();
            let index = self.push_token(start, key);
            if let b'{' | b'[' = first {
                return self.open(index, first + 2);
            }
            self.end_scalar(index, start, first)?;
            match self.next_position() {
                (_, b',') => {}
                (position, closer) if closer == end => {
                    self.close(position)?;
                    return Some(Expect::Next);
                }
                _ => return None,
            }
        }
    }

    /// Records a value starting at `start`, as the member `key` (empty for none).
    #[inline(always)]
    fn push_token(&mut self, start: usize, key: (u32, u32)) -> usize {
        let index = self.tokens.len();
        self.tokens.push(Token {
            kind: Kind::Other,
            start: start as u32,
            end: 0,
            key_start: key.0,
            key_end: key.1,
            next: index as u32 + 1,
        });
        index
    }

    /// Checks the string or scalar of token `index` and records its kind and end.
    #[inline(always)]
    fn end_scalar(&mut self, index: usize, start: usize, first: u8) -> Option<()> {
        let (kind, end) = self.scalar(start, first)?;
        let token = self.tokens.get_mut(index)?;
        token.kind = kind;
        token.end = end as u32;
        Some(())
    }

    /// Opens the object or array of token `index`, whose bracket was consumed; what
    /// comes next.
    fn open(&mut self, index: usize, closing: u8) -> Option<Expect> {
        if self.open.len() >= MAX_DEPTH {
            return None;
        }
        let (kind, first) = match closing {
            b'}' => (Kind::Object, Expect::Name),
            _ => (Kind::Array, Expect::Item),
        };
        self.tokens[index].kind = kind;
        self.open.push(Open {
            token: index,
            members: 0,
            name_hashes: 0,
            closing,
        });
        if self.peek() == closing {
            let (position, _) = self.next_position();
            self.close(position)?;
            return Some(Expect::Next);
        }
        Some(first)
    }

    /// Ends the innermost container at its closing bracket, at `position`.
    fn close(&mut self, position: usize) -> Option<()> {
        let open = self.open.pop()?;
        let next = self.tokens.len() as u32;
        let token = &mut self.tokens[open.token];
        token.end = position as u32 + 1;
        token.next = next;
        if token.kind == Kind::Object && open.members > FILTERED_NAMES {
            return self.distinct_names(open.token).then_some(());
        }
        Some(())
    }

    /// Reads a member name and its `:`; the name's range.
    fn name(&mut self) -> Option<(u32, u32)> {
        let (open, byte) = self.next_position();
        if byte != b'"' {
            return None;
        }
        let close = self.string_close(open)?;
        if self.escapes_in(open, close)? {
            return None;
        }
        self.check_name(open + 1, close)?;
        if self.next_position().1 != b':' {
            return None;
        }
        Some((open as u32 + 1, close as u32))
    }

    /// The kind and end of the string or scalar starting at `start` with `first`.
    #[inline(always)]
    fn scalar(&mut self, start: usize, first: u8) -> Option<(Kind, usize)> {
        match first {
            b'"' => {
                let close = self.string_close(start)?;
                let kind = match self.escapes_in(start, close)? {
                    false => Kind::PlainString,
                    true => Kind::Other,
                };
                Some((kind, close + 1))
            }
            b'-' | b'0'..=b'9' => Some((Kind::Other, self.scalar_end(number(self.bytes, start)?)?)),
            b't' => Some((Kind::Other, self.literal(start, b"true")?)),
            b'f' => Some((Kind::Other, self.literal(start, b"false")?)),
            b'n' => Some((Kind::Other, self.literal(start, b"null")?)),
            _ => None,
        }
    }

    /// The closing quote of the string opening at `open`, whose quote was consumed:
    /// the last byte before the next position that is not whitespace.
    #[inline(always)]
    fn string_close(&self, open: usize) -> Option<usize> {
        let next = self.structurals.get(self.at).map_or(0, |&p| p as usize);
        let mut close = next.checked_sub(1)?;
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.bytes.get(close) {
            close -= 1;
        }
        (close > open).then_some(close)
    }

    /// Whether the string `open..=close` has escapes, checking them; `None` when one is
    /// invalid or a surrogate (left to `serde_json`).
    #[inline(always)]
    fn escapes_in(&mut self, open: usize, close: usize) -> Option<bool> {
        match self.escapes.get(self.escape_at) {
            Some(&escape) if (escape as usize) < close => self.check_escapes(open, close),
            _ => Some(false),
        }
    }

    #[inline(never)]
    fn check_escapes(&mut self, open: usize, close: usize) -> Option<bool> {
        let mut found = false;
        while let Some(&escape) = self.escapes.get(self.escape_at) {
            let escape = escape as usize;
            if escape >= close {
                break;
            }
            self.escape_at += 1;
            // A backslash before the string is outside any string: part of a scalar
            // that fails its own check.
            if escape > open {
                found = true;
                valid_escape(self.bytes, escape)?;
            }
        }
        Some(found)
    }

    /// The end of a scalar whose bytes were checked up to `end`: they must be all of it.
    #[inline(always)]
    fn scalar_end(&self, end: usize) -> Option<usize> {
        let next = self.structurals.get(self.at).map_or(0, |&p| p as usize);
        let delimited =
            end == next || matches!(self.bytes.get(end), Some(b' ' | b'\n' | b'\t' | b'\r'));
        delimited.then_some(end)
    }

    fn literal(&self, start: usize, word: &[u8]) -> Option<usize> {
        if !self.bytes.get(start..)?.starts_with(word) {
            return None;
        }
        self.scalar_end(start + word.len())
    }
}

/// Checks the escape whose `\` is at `at`; surrogates are left to `serde_json`.
fn valid_escape(bytes: &[u8], at: usize) -> Option<()> {
    match *bytes.get(at + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(()),
        b'u' => {
            let hex = bytes.get(at + 2..at + 6)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            let hex = std::str::from_utf8(hex).ok()?;
            let code = u16::from_str_radix(hex, 16).ok()?;
            (!(0xD800..0xE000).contains(&code)).then_some(())
        }
        _ => None,
    }
}

/// The end of the number at `start`: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`,
/// refusing those that might not fit a finite `f64`.
#[inline(always)]
fn number(bytes: &[u8], start: usize) -> Option<usize> {
    let mut pos = start;
    if bytes.get(pos) == Some(&b'-') {
        pos += 1;
    }
    let integer = digits(bytes, &mut pos);
    if integer == 0 || (integer > 1 && bytes[pos - integer] == b'0') {
        return None;
    }
    let mut fraction = 0;
    if bytes.get(pos) == Some(&b'.') {
        pos += 1;
        fraction = digits(bytes, &mut pos);
        if fraction == 0 {
            return None;
        }
    }
    if let Some(b'e' | b'E') = bytes.get(pos) {
        pos += 1;
        if let Some(b'+' | b'-') = bytes.get(pos) {
            pos += 1;
        }
        let exponent = digits(bytes, &mut pos);
        if exponent == 0 || exponent > 2 || integer + fraction > 200 {
            return None;
        }
    } else if integer > 300 {
        return None;
    }
    Some(pos)
}

fn digits(bytes: &[u8], pos: &mut usize) -> usize {
    let start = *pos;
    while let Some(b'0'..=b'9') = bytes.get(*pos) {
        *pos += 1;
    }
    *pos - start
}

impl Builder<'_> {
    /// Refuses the name `start..end` of the innermost object when an earlier member
    /// has it: with duplicates `serde_json` keeps the first position and the last
    /// value, which the index does not. Small objects are checked here, cheaply: only
    /// a name whose hash bit was seen before is compared with the earlier names.
    #[inline(always)]
    fn check_name(&mut self, start: usize, end: usize) -> Option<()> {
        let bytes = self.bytes;
        let open = self.open.last_mut()?;
        open.members += 1;
        if open.members > FILTERED_NAMES {
            return Some(());
        }
        let first = u64::from(*bytes.get(start)?);
        let last = u64::from(*bytes.get(end.checked_sub(1)?)?);
        let key = (first << 16) | (last << 8) | (end - start) as u64;
        let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let bit = 1u64 << (mixed >> 58);
        if open.name_hashes & bit != 0 {
            let token = open.token;
            let name = bytes.get(start..end)?;
            if self.member_names(token).any(|earlier| earlier == name) {
                return None;
            }
        }
        self.open.last_mut()?.name_hashes |= bit;
        Some(())
    }

    /// Whether the members of the object of token `object` have distinct names.
    fn distinct_names(&self, object: usize) -> bool {
        let mut seen = HashSet::new();
        self.member_names(object).all(|name| seen.insert(name))
    }

    /// The names of the members recorded so far of the object of token `object`.
    fn member_names(&self, object: usize) -> impl Iterator<Item = &[u8]> + '_ {
        let mut index = object + 1;
        std::iter::from_fn(move || {
            let token = self.tokens.get(index)?;
            index = token.next as usize;
            self.bytes
                .get(token.key_start as usize..token.key_end as usize)
        })
    }
}
