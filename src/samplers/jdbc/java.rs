//! How Java prints the values a JDBC driver's `getObject` returns: JMeter writes every
//! cell with `StringBuilder.append(Object)` (its `toString`), so the response text of a
//! JDBC sample shows `1.0E10` for a `Double`, `12.50` for a `BigDecimal` and
//! `2024-01-02 03:04:05.0` for a `java.sql.Timestamp`. The drivers in [`super::pg`] and
//! [`super::mysql`] read each column into a [`Cell`] of the Java type their Java
//! counterparts return; this module renders it.

use chrono::{NaiveDate, NaiveDateTime, NaiveTime, Timelike};

use crate::foundation::java_format::{java_double, java_float};

/// One value of a result set, as the Java driver's `getObject` returns it.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// SQL `NULL` (`null`).
    Null,
    /// `java.lang.Boolean`.
    Bool(bool),
    /// `Integer`, `Long`, `Short` or `BigInteger` within range.
    Int(i64),
    /// `java.lang.Double`.
    Double(f64),
    /// `java.lang.Float`.
    Float(f32),
    /// `byte[]`: JMeter decodes it as UTF-8 for the response text.
    Bytes(Vec<u8>),
    /// A `String`, or an object whose `toString` is this text (`BigDecimal`, dates,
    /// `UUID`, the drivers' own objects).
    Text(String),
}

impl Cell {
    /// The value's `toString`, `None` for `null`.
    pub fn java_string(&self) -> Option<String> {
        Some(match self {
            Cell::Null => return None,
            Cell::Bool(b) => b.to_string(),
            Cell::Int(i) => i.to_string(),
            Cell::Double(d) => java_double(*d),
            Cell::Float(f) => java_float(*f),
            Cell::Bytes(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Cell::Text(text) => text.clone(),
        })
    }

    /// Appends the value as `StringBuilder.append(Object)` does (`null` for null).
    pub fn append_to(&self, out: &mut String) {
        match self {
            Cell::Null => out.push_str("null"),
            Cell::Text(text) => out.push_str(text),
            Cell::Int(i) => out.push_str(itoa::Buffer::new().format(*i)),
            Cell::Bytes(bytes) => out.push_str(&String::from_utf8_lossy(bytes)),
            other => out.push_str(&other.java_string().unwrap_or_default()),
        }
    }
}

/// `BigDecimal.toString` of the decimal written `text` (`-12.50`, `0.0000001`), as
/// `new BigDecimal(text)` keeps it: the scale is the number of digits after the point;
/// plain unless the adjusted exponent is below −6, then `1.0E-7`.
pub fn big_decimal_string(text: &str) -> String {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (int_part, frac_part) = body.split_once('.').unwrap_or((body, ""));
    if !int_part
        .bytes()
        .chain(frac_part.bytes())
        .all(|b| b.is_ascii_digit())
        || (int_part.is_empty() && frac_part.is_empty())
    {
        return text.to_string();
    }
    let scale = frac_part.len() as i64;
    let unscaled_all = format!("{int_part}{frac_part}");
    let unscaled = unscaled_all.trim_start_matches('0');
    let unscaled = if unscaled.is_empty() { "0" } else { unscaled };
    let adjusted = -scale + (unscaled.len() as i64 - 1);
    let mut out = String::new();
    if negative && unscaled != "0" {
        out.push('-');
    }
    if adjusted >= -6 {
        if scale == 0 {
            out.push_str(unscaled);
        } else if (unscaled.len() as i64) > scale {
            let point = unscaled.len() - scale as usize;
            out.push_str(&unscaled[..point]);
            out.push('.');
            out.push_str(&unscaled[point..]);
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (scale as usize) - unscaled.len()));
            out.push_str(unscaled);
        }
    } else {
        out.push_str(&unscaled[..1]);
        if unscaled.len() > 1 {
            out.push('.');
            out.push_str(&unscaled[1..]);
        }
        out.push('E');
        out.push_str(&adjusted.to_string());
    }
    out
}

/// `java.sql.Date.toString`: `yyyy-mm-dd`.
pub fn sql_date(date: NaiveDate) -> String {
    date.format("%Y-%m-%d").to_string()
}

/// `java.sql.Time.toString`: `hh:mm:ss`, without fractions.
pub fn sql_time(time: NaiveTime) -> String {
    time.format("%H:%M:%S").to_string()
}

/// `java.sql.Timestamp.toString`: `yyyy-mm-dd hh:mm:ss.f`, the nanoseconds without their
/// trailing zeros but at least one digit (`.0`).
pub fn sql_timestamp(at: NaiveDateTime) -> String {
    let mut out = at.format("%Y-%m-%d %H:%M:%S.").to_string();
    let nanos = at.nanosecond() % 1_000_000_000;
    if nanos == 0 {
        out.push('0');
    } else {
        let digits = format!("{nanos:09}");
        out.push_str(digits.trim_end_matches('0'));
    }
    out
}

/// `java.time.LocalDateTime.toString`: `yyyy-mm-ddThh:mm`, then `:ss` unless seconds and
/// fraction are zero, then the fraction in groups of three digits.
pub fn local_date_time(at: NaiveDateTime) -> String {
    let mut out = at.format("%Y-%m-%dT%H:%M").to_string();
    let nanos = at.nanosecond() % 1_000_000_000;
    if at.second() != 0 || nanos != 0 {
        out.push_str(&format!(":{:02}", at.second()));
    }
    if nanos != 0 {
        if nanos.is_multiple_of(1_000_000) {
            out.push_str(&format!(".{:03}", nanos / 1_000_000));
        } else if nanos.is_multiple_of(1000) {
            out.push_str(&format!(".{:06}", nanos / 1000));
        } else {
            out.push_str(&format!(".{nanos:09}"));
        }
    }
    out
}

/// Java's `String.split(regex)` for a one-character literal: trailing empty strings are
/// removed, and an empty text gives one empty string.
pub fn split(text: &str, separator: char) -> Vec<&str> {
    let mut parts: Vec<&str> = text.split(separator).collect();
    while parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
    }
    if parts.len() == 1 && parts[0].is_empty() && !text.is_empty() {
        parts.clear();
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_java_prints_them() {
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1234567.0, "1234567.0"),
            (1e7, "1.0E7"),
            (1.5e10, "1.5E10"),
            (0.001, "0.001"),
            (0.0001, "1.0E-4"),
            (1.234e-5, "1.234E-5"),
            (0.0, "0.0"),
            (100.0, "100.0"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (value, java) in cases {
            assert_eq!(java_double(value), java, "{value}");
        }
        assert_eq!(java_float(1.25_f32), "1.25");
        assert_eq!(java_float(1e10_f32), "1.0E10");
    }

    #[test]
    fn big_decimals_keep_their_scale_and_switch_to_exponents_below_minus_six() {
        let cases = [
            ("12.50", "12.50"),
            ("-3", "-3"),
            ("0.000001", "0.000001"),
            ("0.0000001", "1E-7"),
            ("0.00000010", "1.0E-7"),
            ("0.00", "0.00"),
            (
                "123456789012345678901234567890",
                "123456789012345678901234567890",
            ),
        ];
        for (text, java) in cases {
            assert_eq!(big_decimal_string(text), java, "{text}");
        }
    }

    #[test]
    fn timestamps_dates_and_times_print_as_java_sql_types_do() {
        let at = NaiveDate::from_ymd_opt(2024, 1, 2)
            .unwrap()
            .and_hms_micro_opt(3, 4, 5, 120_000)
            .unwrap();
        assert_eq!(sql_timestamp(at), "2024-01-02 03:04:05.12");
        assert_eq!(local_date_time(at), "2024-01-02T03:04:05.120");
        let whole = at.with_nanosecond(0).unwrap();
        assert_eq!(sql_timestamp(whole), "2024-01-02 03:04:05.0");
        assert_eq!(
            local_date_time(whole.with_second(0).unwrap()),
            "2024-01-02T03:04"
        );
        assert_eq!(sql_date(at.date()), "2024-01-02");
        assert_eq!(sql_time(at.time()), "03:04:05");
    }

    #[test]
    fn split_drops_trailing_empty_parts_as_java_does() {
        assert_eq!(split("a,,b,,", ','), ["a", "", "b"]);
        assert_eq!(split("", ','), [""]);
        assert_eq!(split(",", ','), Vec::<&str>::new());
    }
}
