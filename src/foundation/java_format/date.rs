//! A compiled Java date pattern ([`JavaDateFormat`]) and how it formats an instant in each
//! [`Dialect`]. Text is English, as with JMeter's default locale. Zone names are not
//! available from the system clock, so `z` writes `UTC` at offset zero and `GMT+hh:mm`
//! otherwise, and `V` writes the offset. Reading text back is in `date_read.rs`.

use std::fmt::Write;

use chrono::{DateTime, Datelike, FixedOffset, Local, TimeZone, Timelike};

use super::pattern::{tokenize, Token, DAYS, MONTHS};

/// Which Java class's meaning the pattern letters have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `java.text.SimpleDateFormat` (and commons `FastDateFormat`, which JMeter writes
    /// `.jtl` timestamps with): `u` is the day number of the week, `S` milliseconds, any
    /// count of a letter is accepted.
    SimpleDateFormat,
    /// `java.time.format.DateTimeFormatter.ofPattern`: `u` is the year, `S` a fraction of
    /// the second, `n`/`N`/`A`/`Q`/`O`/`V`/`x` exist, repeat counts are limited, `[` `]`
    /// mark optional sections and `{` `}` `#` are reserved.
    DateTimeFormatter,
}

/// A compiled pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct JavaDateFormat {
    pub(super) dialect: Dialect,
    pub(super) tokens: Vec<Token>,
}

impl JavaDateFormat {
    /// Compiles `pattern`, rejecting what the dialect's Java class rejects (with its
    /// message): unknown letters, too many letters, reserved characters, an open quote.
    pub fn compile(pattern: &str, dialect: Dialect) -> Result<JavaDateFormat, String> {
        Ok(JavaDateFormat {
            dialect,
            tokens: tokenize(pattern, dialect)?,
        })
    }

    /// Formats a point in time in its own offset.
    pub fn format(&self, time: &DateTime<FixedOffset>) -> String {
        let mut out = String::new();
        for token in &self.tokens {
            match token {
                Token::Literal(text) => out.push_str(text),
                Token::Field(letter, count) => match self.dialect {
                    Dialect::SimpleDateFormat => simple_field(&mut out, *letter, *count, time),
                    Dialect::DateTimeFormatter => formatter_field(&mut out, *letter, *count, time),
                },
            }
        }
        out
    }

    /// Formats epoch milliseconds in the local time zone (the number itself when the
    /// local time does not exist).
    pub fn format_local(&self, epoch_ms: i64) -> String {
        match Local.timestamp_millis_opt(epoch_ms).earliest() {
            Some(time) => self.format(&time.fixed_offset()),
            None => epoch_ms.to_string(),
        }
    }
}

/// Zero-padded to at least `width` digits.
fn pad(out: &mut String, value: i64, width: usize) {
    let _ = write!(out, "{value:0width$}");
}

/// One `SimpleDateFormat` field, as commons `FastDateFormat` prints it.
fn simple_field(out: &mut String, letter: char, count: usize, t: &DateTime<FixedOffset>) {
    let number = |out: &mut String, value: u32| pad(out, i64::from(value), count);
    let seconds = t.offset().local_minus_utc();
    match letter {
        'G' => out.push_str(if t.year() > 0 { "AD" } else { "BC" }),
        'y' | 'Y' if count == 2 => pad(out, i64::from(t.year().rem_euclid(100)), 2),
        'y' | 'Y' => pad(out, i64::from(t.year()), count.max(4)),
        'M' | 'L' if count >= 3 => simple_text(out, MONTHS[t.month0() as usize], count),
        'M' | 'L' => number(out, t.month()),
        'd' => number(out, t.day()),
        'H' => number(out, t.hour()),
        'k' => number(out, if t.hour() == 0 { 24 } else { t.hour() }),
        'K' => number(out, t.hour() % 12),
        'h' => number(out, t.hour12().1),
        'm' => number(out, t.minute()),
        's' => number(out, t.second()),
        'S' => number(out, t.timestamp_subsec_millis()),
        'E' => simple_text(
            out,
            DAYS[t.weekday().num_days_from_monday() as usize],
            count,
        ),
        'u' => number(out, t.weekday().number_from_monday()),
        'a' => out.push_str(am_pm(t)),
        'D' => number(out, t.ordinal()),
        'F' => number(out, t.day().div_ceil(7)),
        'w' => number(out, t.iso_week().week()),
        'W' => number(out, week_of_month(t)),
        'z' => out.push_str(&gmt(seconds, "UTC")),
        'Z' => out.push_str(&offset(seconds, count > 1, Minutes::Always)),
        'X' if seconds == 0 => out.push('Z'),
        'X' if count == 1 => out.push_str(&offset(seconds, false, Minutes::Never)),
        _ => out.push_str(&offset(seconds, count >= 3, Minutes::Always)),
    }
}

/// Four letters or more: the full name; fewer: its first three letters.
fn simple_text(out: &mut String, full: &str, count: usize) {
    out.push_str(if count >= 4 { full } else { &full[..3] });
}

/// Week of the month with weeks starting on Sunday (the US locale JMeter's batch runs use).
fn week_of_month(t: &DateTime<FixedOffset>) -> u32 {
    let first = t.with_day(1).map(|d| d.weekday().num_days_from_sunday());
    (t.day() + first.unwrap_or(0) - 1) / 7 + 1
}

/// One `DateTimeFormatter` field.
fn formatter_field(out: &mut String, letter: char, count: usize, t: &DateTime<FixedOffset>) {
    let number = |out: &mut String, value: i64| pad(out, value, count);
    match letter {
        'G' => out.push_str(text_form(count, "AD", "Anno Domini", "A")),
        'y' | 'u' => year(out, i64::from(t.year()), count),
        'Y' => year(out, i64::from(t.iso_week().year()), count),
        'M' | 'L' if count <= 2 => number(out, i64::from(t.month())),
        'M' | 'L' => name(out, MONTHS[t.month0() as usize], count),
        'Q' | 'q' => quarter(out, i64::from(t.month0()) / 3 + 1, count),
        'd' => number(out, i64::from(t.day())),
        'D' => number(out, i64::from(t.ordinal())),
        'w' => number(out, i64::from(t.iso_week().week())),
        'W' | 'F' => number(out, (i64::from(t.day()) - 1) / 7 + 1),
        'E' => weekday(out, t, count.max(3)),
        'e' | 'c' if count <= 2 => number(out, i64::from(t.weekday().number_from_sunday())),
        'e' | 'c' => weekday(out, t, count),
        'a' => out.push_str(am_pm(t)),
        'H' => number(out, i64::from(t.hour())),
        'k' => number(out, i64::from(if t.hour() == 0 { 24 } else { t.hour() })),
        'K' => number(out, i64::from(t.hour() % 12)),
        'h' => number(out, i64::from(t.hour12().1)),
        'm' => number(out, i64::from(t.minute())),
        's' => number(out, i64::from(t.second())),
        'S' => fraction(out, t.nanosecond() % 1_000_000_000, count),
        'A' => number(out, day_nanos(t) / 1_000_000),
        'n' => number(out, i64::from(t.nanosecond() % 1_000_000_000)),
        'N' => number(out, day_nanos(t)),
        _ => out.push_str(&formatter_zone(letter, count, t.offset().local_minus_utc())),
    }
}

fn am_pm(t: &DateTime<FixedOffset>) -> &'static str {
    if t.hour() < 12 {
        "AM"
    } else {
        "PM"
    }
}

/// Three letters or fewer: short; four: full; five: narrow.
fn text_form<'a>(count: usize, short: &'a str, full: &'a str, narrow: &'a str) -> &'a str {
    match count {
        4 => full,
        5 => narrow,
        _ => short,
    }
}

fn name(out: &mut String, full: &str, count: usize) {
    out.push_str(text_form(count, &full[..3], full, &full[..1]));
}

fn weekday(out: &mut String, t: &DateTime<FixedOffset>, count: usize) {
    name(
        out,
        DAYS[t.weekday().num_days_from_monday() as usize],
        count,
    );
}

fn year(out: &mut String, year: i64, count: usize) {
    if count == 2 {
        pad(out, year.rem_euclid(100), 2);
    } else {
        pad(out, year, count);
    }
}

fn quarter(out: &mut String, quarter: i64, count: usize) {
    const ORDINALS: [&str; 4] = ["1st", "2nd", "3rd", "4th"];
    let _ = match count {
        2 => write!(out, "{quarter:02}"),
        1 | 5 => write!(out, "{quarter}"),
        3 => write!(out, "Q{quarter}"),
        _ => write!(out, "{} quarter", ORDINALS[(quarter as usize - 1) % 4]),
    };
}

/// The first `digits` digits of the nanoseconds, truncated as Java does.
fn fraction(out: &mut String, nanos: u32, digits: usize) {
    let text = format!("{nanos:09}");
    out.push_str(&text[..digits.min(9)]);
}

fn day_nanos(t: &DateTime<FixedOffset>) -> i64 {
    i64::from(t.num_seconds_from_midnight()) * 1_000_000_000
        + i64::from(t.nanosecond() % 1_000_000_000)
}

/// Whether an offset prints its minutes.
#[derive(Clone, Copy, PartialEq)]
enum Minutes {
    Always,
    /// Only when they are not zero (`+01`, `+0130`).
    IfAny,
    Never,
}

/// `+hh`, `+hhmm` or `+hh:mm`.
fn offset(seconds: i32, colon: bool, minutes_shown: Minutes) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let (hours, minutes) = (seconds.abs() / 3600, seconds.abs() / 60 % 60);
    match minutes_shown {
        Minutes::Never => format!("{sign}{hours:02}"),
        Minutes::IfAny if minutes == 0 => format!("{sign}{hours:02}"),
        _ if colon => format!("{sign}{hours:02}:{minutes:02}"),
        _ => format!("{sign}{hours:02}{minutes:02}"),
    }
}

/// `GMT+hh:mm`, or `at_zero` at offset zero.
fn gmt(seconds: i32, at_zero: &str) -> String {
    match seconds {
        0 => at_zero.to_string(),
        _ => format!("GMT{}", offset(seconds, true, Minutes::Always)),
    }
}

/// `DateTimeFormatter`'s zone and offset letters: `z`, `Z`, `O`, `V`, `X`, `x`.
fn formatter_zone(letter: char, count: usize, seconds: i32) -> String {
    let (hours, minutes) = (seconds.abs() / 3600, seconds.abs() / 60 % 60);
    let sign = if seconds < 0 { '-' } else { '+' };
    let utc_z = |text: String| if seconds == 0 { "Z".to_string() } else { text };
    let compact = offset(seconds, false, Minutes::Always);
    let colon = offset(seconds, true, Minutes::Always);
    match (letter, count) {
        ('z', _) => gmt(seconds, "UTC"),
        ('O', 1) if seconds == 0 => "GMT".to_string(),
        ('O', 1) if minutes == 0 => format!("GMT{sign}{hours}"),
        ('O', 1) => format!("GMT{sign}{hours}:{minutes:02}"),
        ('O', _) | ('Z', 4) => gmt(seconds, "GMT"),
        ('Z', 5) => utc_z(colon),
        ('Z', _) => compact,
        ('V', _) => utc_z(colon),
        ('X', 1) => utc_z(offset(seconds, false, Minutes::IfAny)),
        ('X', 2 | 4) => utc_z(compact),
        ('X', _) => utc_z(colon),
        ('x', 1) => offset(seconds, false, Minutes::IfAny),
        ('x', 2 | 4) => compact,
        _ => colon,
    }
}

#[cfg(test)]
#[path = "date_tests.rs"]
mod tests;
