//! Java `DateTimeFormatter` patterns (what `__time` accepts since JMeter 5.5), compiled once
//! into tokens and formatted from chrono values.
//!
//! Text is English, as with JMeter's default locale. Zone names are not available from the
//! system clock, so `z` writes `UTC` at offset zero and `GMT+hh:mm` otherwise, and `V` writes
//! the offset; everything else follows Java.

use chrono::{DateTime, Datelike, FixedOffset, Timelike};

/// A compiled pattern.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JavaDateFormat {
    tokens: Vec<Token>,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Literal(String),
    /// A pattern letter and how many times it was repeated.
    Field(char, usize),
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

impl JavaDateFormat {
    /// Compiles a pattern, rejecting what Java rejects (unknown letters, too many letters,
    /// reserved characters, an unterminated quote).
    pub(crate) fn parse(pattern: &str) -> Result<JavaDateFormat, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_ascii_alphabetic() {
                let count = chars[i..].iter().take_while(|x| **x == c).count();
                check_letter(c, count)?;
                tokens.push(Token::Field(c, count));
                i += count;
            } else if c == '\'' {
                let (text, used) = quoted(&chars[i..])?;
                push_literal(&mut tokens, &text);
                i += used;
            } else if matches!(c, '{' | '}' | '#') {
                return Err(format!("Pattern includes reserved character: '{c}'"));
            } else {
                // `[` and `]` mark optional sections; every field is available, so print all.
                if !matches!(c, '[' | ']') {
                    push_literal(&mut tokens, &c.to_string());
                }
                i += 1;
            }
        }
        Ok(JavaDateFormat { tokens })
    }

    pub(crate) fn format(&self, time: &DateTime<FixedOffset>) -> String {
        let mut out = String::new();
        for token in &self.tokens {
            match token {
                Token::Literal(text) => out.push_str(text),
                Token::Field(letter, count) => out.push_str(&field(*letter, *count, time)),
            }
        }
        out
    }
}

impl JavaDateFormat {
    /// Reads a date (and time) written with this pattern: numeric fields, month and
    /// weekday names, `a`, literals. Year, month and day are needed; the time defaults to
    /// midnight. `None` when the text does not fit.
    pub(crate) fn parse_local(&self, text: &str) -> Option<chrono::NaiveDateTime> {
        let mut rest = text;
        let (mut year, mut month, mut day) = (None, None, None);
        let (mut hour, mut minute, mut second, mut nanos, mut pm) = (0, 0, 0, 0, None);
        for token in &self.tokens {
            match token {
                Token::Literal(lit) => rest = rest.strip_prefix(lit.as_str())?,
                Token::Field(letter, count) => {
                    let (value, after) = read_field(*letter, *count, rest)?;
                    rest = after;
                    match letter {
                        'y' | 'u' if *count == 2 => year = Some(2000 + value),
                        'y' | 'u' => year = Some(value),
                        'M' | 'L' => month = Some(value as u32),
                        'd' => day = Some(value as u32),
                        'H' | 'k' => hour = value as u32 % 24,
                        'h' | 'K' => hour = value as u32 % 12,
                        'm' => minute = value as u32,
                        's' => second = value as u32,
                        'S' => nanos = (value as u32) * 10u32.pow(9 - (*count).min(9) as u32),
                        'a' => pm = Some(value == 1),
                        _ => {}
                    }
                }
            }
        }
        if !rest.is_empty() {
            return None;
        }
        if pm == Some(true) {
            hour += 12;
        }
        chrono::NaiveDate::from_ymd_opt(year? as i32, month?, day?)?
            .and_hms_nano_opt(hour, minute, second, nanos)
    }
}

/// One field's value and the text after it. Names read as their index (months from 1,
/// `a`: AM 0, PM 1); numbers take exactly `count` digits when `count` > 1 (a year
/// pattern of four letters or more takes all digits), else one digit or more.
fn read_field(letter: char, count: usize, text: &str) -> Option<(i64, &str)> {
    let lower = text.to_ascii_lowercase();
    if letter == 'a' {
        return match lower.get(..2)? {
            "am" => Some((0, &text[2..])),
            "pm" => Some((1, &text[2..])),
            _ => None,
        };
    }
    if matches!(letter, 'M' | 'L' | 'E') && (count >= 3 || letter == 'E') {
        let names: Vec<&str> = if letter == 'E' {
            DAYS.to_vec()
        } else {
            MONTHS.to_vec()
        };
        for (i, name) in names.iter().enumerate() {
            for form in [*name, &name[..3]] {
                if lower.starts_with(&form.to_ascii_lowercase()) {
                    return Some((i as i64 + 1, &text[form.len()..]));
                }
            }
        }
        return None;
    }
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let width = match letter {
        'y' | 'u' if count >= 4 || count == 1 => digits,
        _ if count > 1 => count,
        _ => digits.clamp(1, 2),
    };
    if width == 0 || digits < width {
        return None;
    }
    Some((text[..width].parse().ok()?, &text[width..]))
}

/// Reads `'...'` from the opening quote; `''` is a quote. Returns the text and length used.
fn quoted(chars: &[char]) -> Result<(String, usize), String> {
    if chars.get(1) == Some(&'\'') {
        return Ok(("'".to_string(), 2));
    }
    let mut text = String::new();
    let mut i = 1;
    while i < chars.len() {
        if chars[i] == '\'' {
            if chars.get(i + 1) == Some(&'\'') {
                text.push('\'');
                i += 2;
                continue;
            }
            return Ok((text, i + 1));
        }
        text.push(chars[i]);
        i += 1;
    }
    Err("Pattern ends with an incomplete string literal".to_string())
}

fn push_literal(tokens: &mut Vec<Token>, text: &str) {
    match tokens.last_mut() {
        Some(Token::Literal(last)) => last.push_str(text),
        _ => tokens.push(Token::Literal(text.to_string())),
    }
}

/// The largest repeat Java accepts for each supported letter.
fn check_letter(letter: char, count: usize) -> Result<(), String> {
    let max = match letter {
        'y' | 'u' | 'Y' => 19,
        'G' | 'M' | 'L' | 'Q' | 'q' | 'E' | 'e' | 'c' | 'Z' | 'X' | 'x' => 5,
        'z' | 'O' => 4,
        'D' => 3,
        'd' | 'H' | 'h' | 'k' | 'K' | 'm' | 's' | 'w' | 'V' => 2,
        'a' | 'W' | 'F' => 1,
        'S' => 9,
        'n' | 'N' | 'A' => 19,
        _ => return Err(format!("Unknown pattern letter: {letter}")),
    };
    if count > max || (letter == 'V' && count != 2) || (letter == 'O' && !matches!(count, 1 | 4)) {
        return Err(format!("Too many pattern letters: {letter}"));
    }
    Ok(())
}

fn pad(value: i64, width: usize) -> String {
    format!("{value:0width$}")
}

fn field(letter: char, count: usize, t: &DateTime<FixedOffset>) -> String {
    let number = |value: i64| pad(value, count);
    match letter {
        'G' => text_form(count, "AD", "Anno Domini", "A"),
        'y' | 'u' => year(t.year() as i64, count),
        'Y' => year(t.iso_week().year() as i64, count),
        'M' | 'L' => month(t.month0() as usize, count),
        'Q' | 'q' => quarter(t.month0() as i64 / 3 + 1, count),
        'd' => number(t.day() as i64),
        'D' => number(t.ordinal() as i64),
        'w' => number(t.iso_week().week() as i64),
        'W' | 'F' => number((t.day() as i64 - 1) / 7 + 1),
        'E' => weekday(t.weekday().num_days_from_monday() as usize, count.max(3)),
        'e' | 'c' if count <= 2 => number(t.weekday().number_from_sunday() as i64),
        'e' | 'c' => weekday(t.weekday().num_days_from_monday() as usize, count),
        'a' => (if t.hour() < 12 { "AM" } else { "PM" }).to_string(),
        'H' => number(t.hour() as i64),
        'k' => number(if t.hour() == 0 { 24 } else { t.hour() as i64 }),
        'K' => number(t.hour() as i64 % 12),
        'h' => number(t.hour12().1 as i64),
        'm' => number(t.minute() as i64),
        's' => number(t.second() as i64),
        'S' => fraction(t.nanosecond() % 1_000_000_000, count),
        'A' => number(day_nanos(t) / 1_000_000),
        'n' => number((t.nanosecond() % 1_000_000_000) as i64),
        'N' => number(day_nanos(t)),
        _ => zone(letter, count, t.offset().local_minus_utc()),
    }
}

fn text_form(count: usize, short: &str, full: &str, narrow: &str) -> String {
    match count {
        4 => full,
        5 => narrow,
        _ => short,
    }
    .to_string()
}

fn year(year: i64, count: usize) -> String {
    if count == 2 {
        pad(year.rem_euclid(100), 2)
    } else {
        pad(year, count)
    }
}

fn month(index: usize, count: usize) -> String {
    let name = MONTHS[index % 12];
    match count {
        1 | 2 => pad(index as i64 + 1, count),
        _ => text_form(count, &name[..3], name, &name[..1]),
    }
}

fn quarter(quarter: i64, count: usize) -> String {
    const ORDINALS: [&str; 4] = ["1st", "2nd", "3rd", "4th"];
    match count {
        2 => pad(quarter, 2),
        1 | 5 => quarter.to_string(),
        3 => format!("Q{quarter}"),
        _ => format!("{} quarter", ORDINALS[(quarter as usize - 1) % 4]),
    }
}

fn weekday(from_monday: usize, count: usize) -> String {
    let name = DAYS[from_monday % 7];
    text_form(count, &name[..3], name, &name[..1])
}

/// The first `digits` digits of the nanoseconds, truncated as Java does.
fn fraction(nanos: u32, digits: usize) -> String {
    let text = format!("{nanos:09}");
    text[..digits.min(9)].to_string()
}

fn day_nanos(t: &DateTime<FixedOffset>) -> i64 {
    t.num_seconds_from_midnight() as i64 * 1_000_000_000 + (t.nanosecond() % 1_000_000_000) as i64
}

/// Zone and offset letters: `z`, `Z`, `O`, `V`, `X`, `x`.
fn zone(letter: char, count: usize, seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let (hours, minutes) = (seconds.abs() / 3600, seconds.abs() / 60 % 60);
    let gmt_long = match seconds {
        0 => "GMT".to_string(),
        _ => format!("GMT{sign}{hours:02}:{minutes:02}"),
    };
    let utc_z = |text: String| if seconds == 0 { "Z".to_string() } else { text };
    let compact = format!("{sign}{hours:02}{minutes:02}");
    let colon = format!("{sign}{hours:02}:{minutes:02}");
    let short = match minutes {
        0 => format!("{sign}{hours:02}"),
        _ => compact.clone(),
    };
    match (letter, count) {
        ('z', _) if seconds == 0 => "UTC".to_string(),
        ('z', _) => gmt_long,
        ('O', 1) if seconds == 0 => "GMT".to_string(),
        ('O', 1) if minutes == 0 => format!("GMT{sign}{hours}"),
        ('O', 1) => format!("GMT{sign}{hours}:{minutes:02}"),
        ('O', _) => gmt_long,
        ('Z', 4) => gmt_long,
        ('Z', 5) => utc_z(colon),
        ('Z', _) => compact,
        ('V', _) => utc_z(colon),
        ('X', 1) => utc_z(short),
        ('X', 2 | 4) => utc_z(compact),
        ('X', _) => utc_z(colon),
        ('x', 1) => short,
        ('x', 2 | 4) => compact,
        _ => colon,
    }
}

#[cfg(test)]
#[path = "time_format_tests.rs"]
mod tests;
