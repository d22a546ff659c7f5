//! Date functions: `__timeShift`, `__RandomDate` and `__dateTimeConvert`.
//!
//! Dates are read and written with Java `DateTimeFormatter` patterns (as `__time`
//! writes them), in the local time zone as JMeter uses the JVM's default one unless the
//! text gives an offset.
//! An empty format means epoch milliseconds. Shifts are ISO-8601 durations as Java's
//! `Duration.parse` reads them (`P1DT2H`, `PT30M`, `-PT1.5S`). Locales other than
//! English are not available: the locale argument is ignored.

use chrono::{DateTime, Duration, FixedOffset, Local, NaiveDateTime, TimeZone};
use rand::Rng;

use super::log::emit;
use super::{arg, stateless, store, Constructor, Function};
use crate::expr::Template;
use crate::foundation::java_format::{Dialect, JavaDateFormat};

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__timeShift", time_shift),
    ("__RandomDate", random_date),
    ("__dateTimeConvert", date_time_convert),
];

fn local(naive: NaiveDateTime) -> Option<DateTime<FixedOffset>> {
    Local
        .from_local_datetime(&naive)
        .earliest()
        .map(|t| t.fixed_offset())
}

fn from_millis(text: &str) -> Option<DateTime<FixedOffset>> {
    let millis: i64 = text.trim().parse().ok()?;
    Local
        .timestamp_millis_opt(millis)
        .single()
        .map(|t| t.fixed_offset())
}

fn compile(format: &str) -> Option<JavaDateFormat> {
    JavaDateFormat::compile(format, Dialect::DateTimeFormatter).ok()
}

/// Reads `text` with `format` (empty: epoch milliseconds).
fn read(format: &str, text: &str) -> Option<DateTime<FixedOffset>> {
    if format.is_empty() {
        return from_millis(text);
    }
    compile(format)?.read(text)
}

/// Writes `time` with `format` (empty: epoch milliseconds).
fn write(format: &str, time: &DateTime<FixedOffset>) -> Option<String> {
    if format.is_empty() {
        return Some(time.timestamp_millis().to_string());
    }
    Some(compile(format)?.format(time))
}

/// Java's `Duration.parse`: `[-]PnDTnHnMn.nS`, each part optionally signed.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let upper = text.trim().to_ascii_uppercase();
    let (negative, body) = match upper.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, upper.strip_prefix('+').unwrap_or(&upper)),
    };
    let body = body.strip_prefix('P')?;
    let (days, time) = match body.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (body, None),
    };
    let mut total = Duration::zero();
    if !days.is_empty() {
        let n: i64 = days.strip_suffix('D')?.parse().ok()?;
        total += Duration::days(n);
    }
    if let Some(mut time) = time {
        if time.is_empty() {
            return None;
        }
        while !time.is_empty() {
            let end = time.find(['H', 'M', 'S'])?;
            let number = &time[..end];
            total += match &time[end..=end] {
                "H" => Duration::hours(number.parse().ok()?),
                "M" => Duration::minutes(number.parse().ok()?),
                _ => Duration::nanoseconds((number.parse::<f64>().ok()? * 1e9).round() as i64),
            };
            time = &time[end + 1..];
        }
    }
    Some(if negative { -total } else { total })
}

/// `__timeShift(format,date,shift,locale,var)`: `date` (now when empty) moved by `shift`.
fn time_shift(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 0, 5, |args, ctx| {
        let format = arg(args, 0, ctx);
        let date = arg(args, 1, ctx);
        let shift = arg(args, 2, ctx);
        let start = if date.trim().is_empty() {
            Some(Local::now().fixed_offset())
        } else {
            read(&format, &date)
        };
        let Some(mut time) = start else {
            emit(
                "ERROR",
                &format!("__timeShift: cannot read {date:?} with {format:?}"),
            );
            return String::new();
        };
        if !shift.trim().is_empty() {
            match parse_duration(&shift) {
                Some(duration) => time += duration,
                None => emit(
                    "ERROR",
                    &format!("__timeShift: {shift:?} is not a duration"),
                ),
            }
        }
        let value = write(&format, &time).unwrap_or_default();
        store(args, 4, ctx, &value);
        value
    })
}

/// `__RandomDate(format,start,end,locale,var)`: a day in `[start, end)` (start: today),
/// format `yyyy-MM-dd` when empty.
fn random_date(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 3, 5, |args, ctx| {
        let format = match arg(args, 0, ctx) {
            f if f.trim().is_empty() => "yyyy-MM-dd".to_string(),
            f => f,
        };
        let start_text = arg(args, 1, ctx);
        let end_text = arg(args, 2, ctx);
        let start = if start_text.trim().is_empty() {
            Some(Local::now().date_naive())
        } else {
            read(&format, &start_text).map(|t| t.date_naive())
        };
        let end = read(&format, &end_text).map(|t| t.date_naive());
        let (Some(start), Some(end)) = (start, end) else {
            emit(
                "ERROR",
                &format!(
                    "__RandomDate: cannot read {start_text:?} or {end_text:?} with {format:?}"
                ),
            );
            return String::new();
        };
        let days = (end - start).num_days();
        if days <= 0 {
            emit(
                "ERROR",
                "__RandomDate: the end date must be after the start date",
            );
            return String::new();
        }
        let day = start + Duration::days(ctx.rng.gen_range(0..days));
        let value = local(day.and_hms_opt(0, 0, 0).unwrap_or_default())
            .and_then(|t| write(&format, &t))
            .unwrap_or_default();
        store(args, 4, ctx, &value);
        value
    })
}

/// `__dateTimeConvert(date,sourceFormat,targetFormat,var)`.
fn date_time_convert(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 3, 4, |args, ctx| {
        let date = arg(args, 0, ctx);
        let source = arg(args, 1, ctx);
        let target = arg(args, 2, ctx);
        let value = read(&source, &date)
            .and_then(|t| write(&target, &t))
            .unwrap_or_else(|| {
                emit(
                    "ERROR",
                    &format!("__dateTimeConvert: cannot read {date:?} with {source:?}"),
                );
                String::new()
            });
        store(args, 3, ctx, &value);
        value
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::functions::testing::Fixture;

    #[test]
    fn durations_as_java_reads_them() {
        assert_eq!(parse_duration("P1D"), Some(Duration::days(1)));
        assert_eq!(parse_duration("PT1H30M"), Some(Duration::minutes(90)));
        assert_eq!(
            parse_duration("-P1DT1S"),
            Some(-(Duration::days(1) + Duration::seconds(1)))
        );
        assert_eq!(parse_duration("PT-5M"), Some(Duration::minutes(-5)));
        assert_eq!(parse_duration("PT0.5S"), Some(Duration::milliseconds(500)));
        assert_eq!(parse_duration("P1Y"), None);
        assert_eq!(parse_duration("PT"), None);
    }

    #[test]
    fn shift_convert_and_random_dates() {
        let mut f = Fixture::new();
        assert_eq!(
            f.eval("${__timeShift(yyyy-MM-dd HH:mm,2020-02-28 23:30,PT1H,,s)}"),
            "2020-02-29 00:30"
        );
        assert_eq!(f.var("s"), Some("2020-02-29 00:30"));
        assert_eq!(
            f.eval("${__timeShift(dd/MM/yyyy,31/12/2020,P1D)}"),
            "01/01/2021"
        );
        assert_eq!(
            f.eval("${__dateTimeConvert(01 Mar 2021,dd MMM yyyy,yyyy-MM-dd)}"),
            "2021-03-01"
        );
        let millis = f.eval("${__dateTimeConvert(2021-03-01 10:00,yyyy-MM-dd HH:mm,)}");
        assert_eq!(
            f.eval(&format!(
                "${{__dateTimeConvert({millis},,yyyy-MM-dd'T'HH:mm)}}"
            )),
            "2021-03-01T10:00"
        );
        let day = f.eval("${__RandomDate(yyyy-MM-dd,2021-01-01,2021-01-04,,d)}");
        assert!(
            ["2021-01-01", "2021-01-02", "2021-01-03"].contains(&day.as_str()),
            "{day}"
        );
        let now: i64 = f.eval("${__timeShift(,,PT1H)}").parse().unwrap();
        let expected = chrono::Utc::now().timestamp_millis() + 3_600_000;
        assert!((now - expected).abs() < 5_000);
    }
}
