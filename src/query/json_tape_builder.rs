//! Stage 2 of the JSON index: the grammar of the text checked over the positions stage
//! 1 found, and the one thing evaluation needs besides them, where each object and
//! array ends. One loop reads the positions in order, keeping the containers not yet
//! closed in a fixed stack (no recursion, no allocation but the result), so the bytes
//! between positions (whitespace, string contents) are never looked at, except a
//! scalar's: numbers are checked as `serde_json` reads them, `true`, `false` and `null`
//! letter by letter, and each must end where the next position or whitespace begins.
//!
//! Strings need nothing here: stage 1 guarantees they are closed and free of control
//! characters, and their escapes are checked apart, all at once ([`valid_escapes`]).
//! Member names are not read at all: duplicates and escaped names matter only in the
//! objects a path looks into, and evaluation checks those (see `json_tape`).

use super::structural::StructuralIndex;

/// Deepest nesting indexed: `serde_json` refuses a 128th level.
pub(super) const MAX_DEPTH: usize = 127;

/// For every position of `index` that opens an object or array, the index of the
/// position that closes it (0 elsewhere); `None` when the text `bytes` is not JSON as
/// `serde_json` reads it, or when it might be read differently (see the module doc of
/// `json_tape`).
pub(super) fn container_ends(bytes: &[u8], index: &StructuralIndex) -> Option<Vec<u32>> {
    valid_escapes(bytes, &index.escapes)?;
    let positions = &index.structurals;
    let mut ends = vec![0u32; positions.len()];
    Grammar {
        bytes,
        positions,
        ends: &mut ends,
        open: [0; MAX_DEPTH],
    }
    .check()?;
    Some(ends)
}

/// The walk over the positions.
struct Grammar<'t> {
    bytes: &'t [u8],
    /// Stage 1's positions, the text's length last.
    positions: &'t [u32],
    ends: &'t mut [u32],
    /// The containers not yet closed, innermost last: the index of each opening
    /// bracket, shifted left once, with bit 0 set for an object.
    open: [u32; MAX_DEPTH],
}

impl Grammar<'_> {
    /// The byte at position index `at`; 0 past the last position.
    #[inline(always)]
    fn byte(&self, at: usize) -> u8 {
        match self.positions.get(at) {
            Some(&position) => self.bytes.get(position as usize).copied().unwrap_or(0),
            None => 0,
        }
    }

    /// Checks every position once. The outer loop reads a value (opening containers as
    /// it meets them), the inner one what follows a complete value: `,` and the next
    /// value, or closing brackets.
    fn check(&mut self) -> Option<()> {
        let mut at = 0;
        let mut depth = 0;
        // Whether the innermost open container is an object, and its closing bracket.
        let mut object = false;
        let mut closing = 0;
        loop {
            match self.byte(at) {
                opening @ (b'{' | b'[') => {
                    *self.open.get_mut(depth)? = (at as u32) << 1 | u32::from(opening == b'{');
                    depth += 1;
                    object = opening == b'{';
                    closing = opening + 2;
                    at += 1;
                    if self.byte(at) != closing {
                        if object {
                            at = self.member_name(at)?;
                        }
                        continue;
                    }
                    // An empty container: closed below.
                }
                first => {
                    self.scalar(at, first)?;
                    at += 1;
                }
            }
            // After a complete value: close containers until a `,` leads to the next.
            loop {
                if depth == 0 {
                    // Nothing but the sentinel may follow the root.
                    return (at + 1 == self.positions.len()).then_some(());
                }
                match self.byte(at) {
                    b',' => {
                        at += 1;
                        if object {
                            at = self.member_name(at)?;
                        }
                        break;
                    }
                    byte if byte == closing => {}
                    _ => return None,
                }
                depth -= 1;
                let opened = (self.open[depth] >> 1) as usize;
                *self.ends.get_mut(opened)? = at as u32;
                at += 1;
                if let Some(&parent) = depth.checked_sub(1).and_then(|d| self.open.get(d)) {
                    object = parent & 1 == 1;
                    closing = if object { b'}' } else { b']' };
                }
            }
        }
    }

    /// Checks a member name and its `:` at position index `at`; the index of its value.
    #[inline(always)]
    fn member_name(&self, at: usize) -> Option<usize> {
        (self.byte(at) == b'"' && self.byte(at + 1) == b':').then_some(at + 2)
    }

    /// Checks the string or scalar at position index `at`, starting with `first`.
    #[inline(always)]
    fn scalar(&self, at: usize, first: u8) -> Option<()> {
        let start = *self.positions.get(at)? as usize;
        let end = match first {
            b'"' => return Some(()),
            b'-' | b'0'..=b'9' => number(self.bytes, start)?,
            b't' => self.literal(start, b"true")?,
            b'f' => self.literal(start, b"false")?,
            b'n' => self.literal(start, b"null")?,
            _ => return None,
        };
        // The scalar's bytes must be all of it: the next position or whitespace follows.
        let next = self.positions.get(at + 1).map_or(0, |&p| p as usize);
        let delimited =
            end == next || matches!(self.bytes.get(end), Some(b' ' | b'\n' | b'\t' | b'\r'));
        delimited.then_some(())
    }

    fn literal(&self, start: usize, word: &[u8]) -> Option<usize> {
        let found = self.bytes.get(start..start + word.len())? == word;
        found.then_some(start + word.len())
    }
}

/// Checks the escape sequences that start at `escapes` (stage 1's, `u32::MAX` last);
/// surrogates are left to `serde_json`. A backslash outside strings is checked too:
/// the text is invalid anyway, the scalar it stands in failing its own check.
fn valid_escapes(bytes: &[u8], escapes: &[u32]) -> Option<()> {
    let (_sentinel, escapes) = escapes.split_last()?;
    escapes
        .iter()
        .all(|&at| valid_escape(bytes, at as usize).is_some())
        .then_some(())
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

#[inline(always)]
fn digits(bytes: &[u8], pos: &mut usize) -> usize {
    let start = *pos;
    while let Some(b'0'..=b'9') = bytes.get(*pos) {
        *pos += 1;
    }
    *pos - start
}
