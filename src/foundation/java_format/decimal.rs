//! The part of `java.text.DecimalFormat` that formats whole numbers, for the Counter, the
//! Random Variable and `__StringFromFile`'s file sequences: literal prefix and suffix
//! (quoted as in date patterns), `0` for required digits, `#` for optional ones, `,`
//! grouping, a `.` with `0`s for a fixed fraction, `%` and `‰` multipliers. Patterns
//! Java would reject are rejected (each caller then does what JMeter does: a counter
//! prints the plain number, a file sequence keeps the name); exponents, currency signs
//! and negative sub-patterns are not supported and are rejected too.

use super::pattern::quoted;

/// A parsed pattern, ready to format `i64`s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecimalFormat {
    prefix: String,
    suffix: String,
    /// Integer digits always printed (leading zeros).
    min_int: usize,
    /// Digits per group when the pattern has a `,`.
    grouping: Option<usize>,
    /// Zeros printed after the point (a whole number has no other fraction digits).
    min_frac: usize,
    /// `0.` or `.#`: the point is printed even without fraction digits.
    point_always: bool,
    multiplier: i128,
}

/// Counts of the number part, as Java's `applyPattern` keeps them.
#[derive(Default)]
struct NumberPart {
    /// `#` before any `0`.
    optional_left: usize,
    zeros: usize,
    /// `#` after a `0`.
    optional_right: usize,
    /// Digits seen since the last `,`; `None` before any `,`.
    since_grouping: Option<usize>,
    /// Digits before the `.`, once seen.
    point_at: Option<usize>,
    /// Zeros after the `.`.
    fraction_zeros: usize,
}

impl NumberPart {
    /// Takes one pattern character; `Err` when Java would reject the pattern.
    fn take(&mut self, ch: char) -> Result<(), ()> {
        let digits = self.optional_left + self.zeros + self.optional_right;
        match ch {
            '#' if self.zeros > 0 => self.optional_right += 1,
            '#' => self.optional_left += 1,
            '0' if self.optional_right > 0 => return Err(()),
            '0' => {
                self.zeros += 1;
                if self.point_at.is_some() {
                    self.fraction_zeros += 1;
                }
            }
            ',' => {
                self.since_grouping = Some(0);
                return Ok(());
            }
            '.' if self.point_at.is_some() => return Err(()),
            '.' => {
                self.point_at = Some(digits);
                return Ok(());
            }
            _ => return Err(()),
        }
        if self.point_at.is_none() {
            self.since_grouping = self.since_grouping.map(|n| n + 1);
        }
        Ok(())
    }
}

/// A pattern character with a meaning in the number part.
fn is_number_char(ch: char) -> bool {
    matches!(ch, '#' | '0' | ',' | '.')
}

/// Reads a prefix or suffix starting at `chars[*at]`, stopping before a number
/// character (prefix) or at the end. Returns the literal text and the multiplier.
fn affix(chars: &[char], at: &mut usize, multiplier: &mut i128) -> Result<String, ()> {
    let mut text = String::new();
    while let Some(&ch) = chars.get(*at) {
        match ch {
            '\'' => {
                let (literal, next) = quoted(chars, *at).ok_or(())?;
                text.push_str(&literal);
                *at = next;
                continue;
            }
            _ if is_number_char(ch) => break,
            '%' => *multiplier = 100,
            '\u{2030}' => *multiplier = 1000,
            ';' | '\u{a4}' => return Err(()),
            _ => {}
        }
        text.push(ch);
        *at += 1;
    }
    Ok(text)
}

impl DecimalFormat {
    /// Parses `pattern`; `None` when Java would reject it or it needs what is not supported.
    pub fn parse(pattern: &str) -> Option<DecimalFormat> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut at = 0;
        let mut multiplier = 1;
        let prefix = affix(&chars, &mut at, &mut multiplier).ok()?;
        let mut number = NumberPart::default();
        while let Some(&ch) = chars.get(at) {
            if !is_number_char(ch) {
                break;
            }
            number.take(ch).ok()?;
            at += 1;
        }
        if chars.get(at) == Some(&'E') {
            // An exponent (`0E0`); an `E` elsewhere is a literal.
            return None;
        }
        let suffix = affix(&chars, &mut at, &mut multiplier).ok()?;
        if at < chars.len() {
            // A number character in the suffix.
            return None;
        }
        Self::from_parts(prefix, suffix, &number, multiplier)
    }

    fn from_parts(
        prefix: String,
        suffix: String,
        number: &NumberPart,
        multiplier: i128,
    ) -> Option<DecimalFormat> {
        let digits = number.optional_left + number.zeros + number.optional_right;
        if number.since_grouping == Some(0) {
            return None;
        }
        let (min_int, point_always) = match number.point_at {
            None if number.optional_right > 0 => return None,
            None => (number.zeros, false),
            // `#.##` and `.##` (no zero at all): Java makes one integer digit required
            // (none for `.##`) before it checks the shape.
            Some(point) if number.zeros == 0 => (point.min(1), point == 0 || point == digits),
            Some(point) if point < number.optional_left => return None,
            Some(point) if point > number.optional_left + number.zeros => return None,
            Some(point) => (point - number.optional_left, point == 0 || point == digits),
        };
        Some(DecimalFormat {
            prefix,
            suffix,
            min_int,
            grouping: number.since_grouping,
            min_frac: number.fraction_zeros,
            point_always,
            multiplier,
        })
    }

    pub fn format(&self, value: i64) -> String {
        let scaled = i128::from(value) * self.multiplier;
        let mut digits = if scaled == 0 {
            String::new()
        } else {
            scaled.unsigned_abs().to_string()
        };
        if digits.len() < self.min_int {
            digits.insert_str(0, &"0".repeat(self.min_int - digits.len()));
        }
        if digits.is_empty() && self.min_frac == 0 {
            digits.push('0');
        }
        let mut out =
            String::with_capacity(self.prefix.len() + digits.len() * 2 + self.suffix.len());
        if scaled < 0 {
            out.push('-');
        }
        out.push_str(&self.prefix);
        for (i, digit) in digits.chars().enumerate() {
            let left = digits.len() - i;
            if i > 0 && self.grouping.is_some_and(|size| left.is_multiple_of(size)) {
                out.push(',');
            }
            out.push(digit);
        }
        if self.point_always || self.min_frac > 0 {
            out.push('.');
            out.push_str(&"0".repeat(self.min_frac));
        }
        out.push_str(&self.suffix);
        out
    }
}

#[cfg(test)]
#[path = "decimal_tests.rs"]
mod tests;
