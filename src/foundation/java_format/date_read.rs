//! Reading text written with a date pattern back into an instant.
//!
//! Both dialects read literals exactly, month and day names in full or abbreviated (any
//! case), `AM`/`PM`, eras, and zone offsets (`Z`, `+01`, `+0100`, `+01:00`, `GMT+01:00`,
//! `UTC`); without an offset in the text the time is in the local time zone, as Java's
//! default zone is. Where Java's two classes read differently, the dialect decides:
//!
//! - `SimpleDateFormat` (how JMeter reads `.jtl` timestamps back and the report's date
//!   range): a number takes all its digits unless the next field is a number too (then
//!   at most the letter count, so `yyyyMMddHHmmss` reads); `S` is milliseconds; a two-digit
//!   `yy` year lands within 80 years before and 20 after today; missing fields default to
//!   1970-01-01 00:00; text after the pattern is ignored.
//! - `DateTimeFormatter` (the date functions and scripts): a letter repeated takes exactly
//!   that many digits, once takes one or two (years any number); `S` is a fraction of the
//!   second; `yy` is 2000–2099; year, month and day are required and the whole text must
//!   be used.

use chrono::{DateTime, Datelike, Duration, FixedOffset, Local, NaiveDate, TimeZone};

use super::date::{Dialect, JavaDateFormat};
use super::pattern::{Token, DAYS, MONTHS};

impl JavaDateFormat {
    /// The instant `text` names, read with this pattern; `None` when it does not fit.
    pub fn read(&self, text: &str) -> Option<DateTime<FixedOffset>> {
        let mut fields = Fields::default();
        let mut rest = text;
        for (i, token) in self.tokens.iter().enumerate() {
            rest = match token {
                Token::Literal(literal) => rest.strip_prefix(literal.as_str())?,
                Token::Field(letter, count) => {
                    let abutting = match self.tokens.get(i + 1) {
                        Some(Token::Field(next, count)) => is_number(self.dialect, *next, *count),
                        _ => false,
                    };
                    let field = Field {
                        dialect: self.dialect,
                        letter: *letter,
                        count: *count,
                        abutting,
                    };
                    fields.take(&field, rest)?
                }
            };
        }
        if self.dialect == Dialect::DateTimeFormatter && !rest.is_empty() {
            return None;
        }
        fields.instant(self.dialect)
    }
}

/// One field of the pattern being read.
struct Field {
    dialect: Dialect,
    letter: char,
    count: usize,
    /// The next token is a number field with no literal between.
    abutting: bool,
}

/// What the text has said so far.
#[derive(Default)]
struct Fields {
    year: Option<i32>,
    before_christ: bool,
    month: Option<u32>,
    day: Option<u32>,
    hour: u32,
    minute: u32,
    second: u32,
    nanos: u32,
    /// `SimpleDateFormat`'s `S`, added to the time (Java reads `S` leniently).
    millis: i64,
    pm: Option<bool>,
    /// Seconds east of UTC, when the text gives an offset.
    offset: Option<i32>,
}

/// Whether a letter reads digits (rather than names, `AM`/`PM` or offsets).
fn is_number(dialect: Dialect, letter: char, count: usize) -> bool {
    match letter {
        'G' | 'E' | 'a' | 'z' | 'Z' | 'X' | 'x' | 'O' | 'V' => false,
        'M' | 'L' => count <= 2,
        'e' | 'c' if dialect == Dialect::DateTimeFormatter => count <= 2,
        _ => true,
    }
}

impl Fields {
    /// Reads one field at the start of `text`; returns the text after it.
    fn take<'t>(&mut self, field: &Field, text: &'t str) -> Option<&'t str> {
        let simple = field.dialect == Dialect::SimpleDateFormat;
        match field.letter {
            'G' => {
                let (era, rest) = name(text, &["BC", "AD", "Before Christ", "Anno Domini"])?;
                self.before_christ = era % 2 == 0;
                Some(rest)
            }
            'a' => {
                let (half, rest) = name(text, &["AM", "PM"])?;
                self.pm = Some(half == 1);
                Some(rest)
            }
            'E' => Some(day_or_month_name(text, &DAYS)?.1),
            'e' | 'c' if !is_number(field.dialect, field.letter, field.count) => {
                Some(day_or_month_name(text, &DAYS)?.1)
            }
            'M' | 'L' if field.count >= 3 => {
                let (month, rest) = day_or_month_name(text, &MONTHS)?;
                self.month = Some(month as u32 + 1);
                Some(rest)
            }
            'z' | 'Z' | 'X' | 'x' | 'O' | 'V' => {
                let (seconds, rest) = read_offset(text)?;
                self.offset = Some(seconds);
                Some(rest)
            }
            _ => {
                let (value, digits, rest) = number(field, text)?;
                self.set_number(field, value, digits, simple)?;
                Some(rest)
            }
        }
    }

    /// Keeps a number read for `field`; `None` when it cannot be one (a year too large).
    fn set_number(&mut self, field: &Field, value: i64, digits: usize, simple: bool) -> Option<()> {
        let small = u32::try_from(value).unwrap_or(u32::MAX);
        match field.letter {
            // `SimpleDateFormat`'s day number of the week.
            'u' if simple => {}
            'y' | 'Y' | 'u' if field.count <= 2 && simple && digits == 2 => {
                self.year = Some(two_digit_year(value as i32));
            }
            'y' | 'Y' | 'u' if field.count == 2 && !simple => self.year = Some(2000 + value as i32),
            'y' | 'Y' | 'u' => self.year = Some(i32::try_from(value).ok()?),
            'M' | 'L' => self.month = Some(small),
            'd' => self.day = Some(small),
            'H' | 'k' => self.hour = small % 24,
            'h' | 'K' => self.hour = small % 12,
            'm' => self.minute = small,
            's' => self.second = small,
            'S' if simple => self.millis = value,
            'S' => {
                let scale = 10u32.pow(9 - field.count.min(9) as u32);
                self.nanos = small.saturating_mul(scale);
            }
            // Day of year, week numbers, day of week: Java checks them against the date;
            // the date fields decide here.
            _ => {}
        }
        Some(())
    }

    fn instant(&self, dialect: Dialect) -> Option<DateTime<FixedOffset>> {
        let (year, month, day) = match dialect {
            Dialect::SimpleDateFormat => (
                self.year.unwrap_or(1970),
                self.month.unwrap_or(1),
                self.day.unwrap_or(1),
            ),
            Dialect::DateTimeFormatter => (self.year?, self.month?, self.day?),
        };
        let year = if self.before_christ { 1 - year } else { year };
        let mut hour = self.hour;
        if self.pm == Some(true) && hour < 12 {
            hour += 12;
        }
        let naive = NaiveDate::from_ymd_opt(year, month, day)?
            .and_hms_nano_opt(hour, self.minute, self.second, self.nanos)?
            .checked_add_signed(Duration::try_milliseconds(self.millis)?)?;
        match self.offset {
            Some(seconds) => FixedOffset::east_opt(seconds)?
                .from_local_datetime(&naive)
                .single(),
            None => Local
                .from_local_datetime(&naive)
                .earliest()
                .map(|t| t.fixed_offset()),
        }
    }
}

/// A number at the start of `text`: its value, how many digits it had, the rest.
fn number<'t>(field: &Field, text: &'t str) -> Option<(i64, usize, &'t str)> {
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let width = match field.dialect {
        Dialect::SimpleDateFormat if field.abutting => digits.min(field.count),
        Dialect::SimpleDateFormat => digits,
        Dialect::DateTimeFormatter => formatter_width(field, digits),
    };
    if width == 0 || digits < width {
        return None;
    }
    Some((text[..width].parse().ok()?, width, &text[width..]))
}

/// `DateTimeFormatter`'s widths: a letter repeated takes exactly that many digits, a
/// single letter one or two; years of one or four letters or more take every digit
/// unless a number follows.
fn formatter_width(field: &Field, digits: usize) -> usize {
    let year = matches!(field.letter, 'y' | 'u') && (field.count >= 4 || field.count == 1);
    match field.count {
        count if year && field.abutting => count.max(4),
        _ if year => digits,
        count if count > 1 => count,
        _ => digits.clamp(1, 2),
    }
}

/// A two-digit `SimpleDateFormat` year: the one within 80 years before and 20 after now.
fn two_digit_year(value: i32) -> i32 {
    let start = Local::now().year() - 80;
    let year = start - start.rem_euclid(100) + value;
    if year < start {
        year + 100
    } else {
        year
    }
}

/// Which of `names` (any case) starts `text`: its index and the text after it.
fn name<'t>(text: &'t str, names: &[&str]) -> Option<(usize, &'t str)> {
    names.iter().enumerate().find_map(|(i, name)| {
        let head = text.get(..name.len())?;
        head.eq_ignore_ascii_case(name)
            .then_some((i, &text[name.len()..]))
    })
}

/// A month or day name in full or in three letters: its index and the text after it.
fn day_or_month_name<'t>(text: &'t str, names: &[&str]) -> Option<(usize, &'t str)> {
    names.iter().enumerate().find_map(|(i, full)| {
        let (_, rest) = name(text, &[full]).or_else(|| name(text, &[&full[..3]]))?;
        Some((i, rest))
    })
}

/// An offset from UTC: `Z`, `+hh`, `+hhmm`, `+hh:mm`, or `GMT`/`UTC`/`UT` alone or
/// followed by a signed offset (`GMT+1`, `GMT+01:00`). Returns seconds east and the rest.
fn read_offset(text: &str) -> Option<(i32, &str)> {
    if let Some(rest) = text.strip_prefix('Z') {
        return Some((0, rest));
    }
    for prefix in ["GMT", "UTC", "UT"] {
        if let Some((_, rest)) = name(text, &[prefix]) {
            return signed_offset(rest).or(Some((0, rest)));
        }
    }
    signed_offset(text)
}

fn signed_offset(text: &str) -> Option<(i32, &str)> {
    let sign = match text.chars().next()? {
        '+' => 1,
        '-' => -1,
        _ => return None,
    };
    let text = &text[1..];
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let hours_len = digits.min(2);
    if hours_len == 0 {
        return None;
    }
    let hours: i32 = text[..hours_len].parse().ok()?;
    let rest = &text[hours_len..];
    let (minutes, rest) = if digits >= 4 {
        (two_digits(rest)?, &rest[2..])
    } else if let Some(m) = rest.strip_prefix(':').and_then(two_digits) {
        (m, &rest[3..])
    } else {
        (0, rest)
    };
    if hours > 18 || minutes > 59 {
        return None;
    }
    Some((sign * (hours * 3600 + minutes * 60), rest))
}

/// Two digits at the start of `text`, as a number.
fn two_digits(text: &str) -> Option<i32> {
    let digits = text.get(..2)?;
    digits
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| digits.parse().ok())?
}

#[cfg(test)]
#[path = "date_read_tests.rs"]
mod tests;
