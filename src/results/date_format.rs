//! A `java.text.SimpleDateFormat` pattern, for `jmeter.save.saveservice.timestamp_format`.
//!
//! JMeter 5.6.3 prints CSV timestamps with commons-lang3 `FastDateFormat` in the JVM's time
//! zone; this covers the pattern letters people use in JTL files (era, years, months, days,
//! hours, minutes, seconds, milliseconds, weekdays, AM/PM, zones) and quoted literals.

use chrono::{DateTime, Datelike, Offset, TimeZone, Timelike};

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
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Literal(String),
    /// A pattern letter repeated `count` times.
    Field(char, usize),
}

/// A parsed date pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct DatePattern {
    tokens: Vec<Token>,
}

/// A pattern letter SimpleDateFormat does not know, or an unterminated quote.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidPattern(pub String);

impl DatePattern {
    pub fn parse(pattern: &str) -> Result<DatePattern, InvalidPattern> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '\'' {
                let (text, next) = quoted(&chars, i)?;
                push_literal(&mut tokens, &text);
                i = next;
            } else if c.is_ascii_alphabetic() {
                if !"GyYMLdHkKhmsSEuaDFwWzZX".contains(c) {
                    return Err(InvalidPattern(pattern.to_string()));
                }
                let count = chars[i..].iter().take_while(|&&d| d == c).count();
                tokens.push(Token::Field(c, count));
                i += count;
            } else {
                push_literal(&mut tokens, &c.to_string());
                i += 1;
            }
        }
        Ok(DatePattern { tokens })
    }

    /// Formats epoch milliseconds in the local time zone.
    pub fn format_local(&self, epoch_ms: i64) -> String {
        match chrono::Local.timestamp_millis_opt(epoch_ms).earliest() {
            Some(t) => self.format(&t),
            None => epoch_ms.to_string(),
        }
    }

    /// Formats a point in time in its own time zone.
    pub fn format<Tz: TimeZone>(&self, t: &DateTime<Tz>) -> String {
        let mut out = String::new();
        for token in &self.tokens {
            match token {
                Token::Literal(s) => out.push_str(s),
                Token::Field(c, n) => format_field(&mut out, *c, *n, t),
            }
        }
        out
    }
}

/// Reads a quoted section starting at `start` (a `'`); `''` is a literal quote.
fn quoted(chars: &[char], start: usize) -> Result<(String, usize), InvalidPattern> {
    if chars.get(start + 1) == Some(&'\'') {
        return Ok(("'".to_string(), start + 2));
    }
    let mut text = String::new();
    let mut i = start + 1;
    loop {
        match chars.get(i) {
            None => return Err(InvalidPattern(chars.iter().collect())),
            Some('\'') if chars.get(i + 1) == Some(&'\'') => {
                text.push('\'');
                i += 2;
            }
            Some('\'') => return Ok((text, i + 1)),
            Some(c) => {
                text.push(*c);
                i += 1;
            }
        }
    }
}

fn push_literal(tokens: &mut Vec<Token>, text: &str) {
    if let Some(Token::Literal(s)) = tokens.last_mut() {
        s.push_str(text);
    } else {
        tokens.push(Token::Literal(text.to_string()));
    }
}

/// A number padded with zeros to at least `width` digits.
fn number(out: &mut String, value: i64, width: usize) {
    out.push_str(&format!("{value:0width$}"));
}

fn text(out: &mut String, full: &str, count: usize) {
    if count >= 4 {
        out.push_str(full);
    } else {
        out.extend(full.chars().take(3));
    }
}

fn format_field<Tz: TimeZone>(out: &mut String, c: char, n: usize, t: &DateTime<Tz>) {
    let offset_secs = t.offset().fix().local_minus_utc();
    match c {
        'G' => out.push_str(if t.year() > 0 { "AD" } else { "BC" }),
        'y' | 'Y' if n == 2 => number(out, i64::from(t.year().rem_euclid(100)), 2),
        'y' | 'Y' => number(out, i64::from(t.year()), n.max(4)),
        'M' | 'L' if n >= 3 => text(out, MONTHS[t.month0() as usize], n),
        'M' | 'L' => number(out, i64::from(t.month()), n),
        'd' => number(out, i64::from(t.day()), n),
        'H' => number(out, i64::from(t.hour()), n),
        'k' => number(out, i64::from(if t.hour() == 0 { 24 } else { t.hour() }), n),
        'K' => number(out, i64::from(t.hour() % 12), n),
        'h' => number(out, i64::from(twelve_hour(t.hour())), n),
        'm' => number(out, i64::from(t.minute()), n),
        's' => number(out, i64::from(t.second()), n),
        'S' => number(out, i64::from(t.timestamp_subsec_millis()), n),
        'E' => text(
            out,
            WEEKDAYS[t.weekday().num_days_from_monday() as usize],
            n,
        ),
        'u' => number(out, i64::from(t.weekday().number_from_monday()), n),
        'a' => out.push_str(if t.hour() < 12 { "AM" } else { "PM" }),
        'D' => number(out, i64::from(t.ordinal()), n),
        'F' => number(out, i64::from(t.day().div_ceil(7)), n),
        'w' => number(out, i64::from(t.iso_week().week()), n),
        'W' => number(out, i64::from(week_of_month(t)), n),
        'z' if offset_secs == 0 => out.push_str("UTC"),
        'z' => out.push_str(&format!("GMT{}", zone(offset_secs, true))),
        'Z' if n == 1 => out.push_str(&zone(offset_secs, false)),
        'Z' => out.push_str(&zone(offset_secs, true)),
        'X' if offset_secs == 0 => out.push('Z'),
        'X' if n == 1 => out.push_str(&zone(offset_secs, false)[..3]),
        'X' => out.push_str(&zone(offset_secs, n >= 3)),
        _ => {}
    }
}

fn twelve_hour(hour: u32) -> u32 {
    match hour % 12 {
        0 => 12,
        h => h,
    }
}

/// Week of the month with weeks starting on Sunday (the US locale JMeter's batch runs use).
fn week_of_month<Tz: TimeZone>(t: &DateTime<Tz>) -> u32 {
    let first = t.with_day(1).map(|d| d.weekday().num_days_from_sunday());
    (t.day() + first.unwrap_or(0) - 1) / 7 + 1
}

/// `+hhmm` or `+hh:mm`.
fn zone(offset_secs: i32, colon: bool) -> String {
    let sign = if offset_secs < 0 { '-' } else { '+' };
    let minutes = offset_secs.abs() / 60;
    let sep = if colon { ":" } else { "" };
    format!("{sign}{:02}{sep}{:02}", minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::FixedOffset;

    fn at(ms: i64, offset_hours: i32) -> DateTime<FixedOffset> {
        let tz = FixedOffset::east_opt(offset_hours * 3600).unwrap();
        tz.timestamp_millis_opt(ms).unwrap()
    }

    #[test]
    fn formats_common_patterns() {
        // 2019-03-05T10:20:27.191Z
        let t = at(1_551_781_227_191, 0);
        let p = DatePattern::parse("yyyy/MM/dd HH:mm:ss.SSS").unwrap();
        assert_eq!(p.format(&t), "2019/03/05 10:20:27.191");
        let p = DatePattern::parse("yy-M-d h:mm a EEE MMM Z").unwrap();
        assert_eq!(p.format(&t), "19-3-5 10:20 AM Tue Mar +0000");
        let p = DatePattern::parse("EEEE, MMMM dd 'at' HH'h' ''XXX").unwrap();
        assert_eq!(
            p.format(&at(1_551_781_227_191, 1)),
            "Tuesday, March 05 at 11h '+01:00"
        );
    }

    #[test]
    fn refuses_unknown_letters_and_open_quotes() {
        assert!(DatePattern::parse("yyyy-qq").is_err());
        assert!(DatePattern::parse("HH 'open").is_err());
    }
}
