//! Dates: `java.util.Date` with `SimpleDateFormat`, Groovy's `date.format(pattern)`,
//! and the `java.time` basics (`LocalDate`, `LocalDateTime`, `ZonedDateTime`, `Instant`
//! `.now()`, `plusDays`..., `format(DateTimeFormatter.ofPattern(..))`). Times are in the
//! machine's zone, as a JVM's default is; patterns are Java's `DateTimeFormatter`
//! patterns (`crate::foundation::java_format`), for `SimpleDateFormat` too.

use chrono::{DateTime, Duration, FixedOffset, Local, NaiveDateTime, TimeZone};
use rhai::{Dynamic, Engine, INT};

use super::func;
use super::system::now_millis;
use super::{error, Class, ShimResult};
use crate::foundation::java_format::{Dialect, JavaDateFormat};

/// `java.util.Date`: milliseconds since the epoch.
#[derive(Clone, Copy)]
pub(crate) struct JavaDate(pub(crate) INT);

/// A `java.time` value: a local date-time with the zone offset it was taken in, and
/// whether it is a date only (`LocalDate` prints without a time).
#[derive(Clone, Copy)]
pub(crate) struct JavaTime {
    at: DateTime<FixedOffset>,
    date_only: bool,
}

/// A compiled `SimpleDateFormat` or `DateTimeFormatter`.
#[derive(Clone)]
pub(crate) struct DateFormat(std::sync::Arc<JavaDateFormat>);

fn local(millis: INT) -> DateTime<FixedOffset> {
    let utc = DateTime::from_timestamp_millis(millis).unwrap_or_default();
    utc.with_timezone(&Local).fixed_offset()
}

fn compile(pattern: &str) -> ShimResult<DateFormat> {
    JavaDateFormat::compile(pattern, Dialect::DateTimeFormatter)
        .map(|f| DateFormat(std::sync::Arc::new(f)))
        .or_else(|e| error(format!("IllegalArgumentException: {e}")))
}

fn format_millis(pattern: &str, millis: INT) -> ShimResult<String> {
    Ok(compile(pattern)?.0.format(&local(millis)))
}

fn parse(format: &DateFormat, text: &str) -> ShimResult<JavaDate> {
    match format.0.read(text) {
        Some(at) => Ok(JavaDate(at.timestamp_millis())),
        None => error(format!("ParseException: Unparseable date: \"{text}\"")),
    }
}

fn now_time(date_only: bool) -> JavaTime {
    JavaTime {
        at: local(now_millis()),
        date_only,
    }
}

fn plus(time: &JavaTime, amount: Duration) -> JavaTime {
    JavaTime {
        at: time.at + amount,
        date_only: time.date_only,
    }
}

fn iso(time: &JavaTime) -> String {
    if time.date_only {
        time.at.format("%Y-%m-%d").to_string()
    } else {
        time.at
            .naive_local()
            .format("%Y-%m-%dT%H:%M:%S%.3f")
            .to_string()
    }
}

fn time_class(name: &'static str, date_only: bool) -> Class {
    let mut class = Class::new(name);
    func!(class, "now", move || now_time(date_only));
    func!(class, "parse", move |text: &str| -> ShimResult<JavaTime> {
        let naive = NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%.f")
            .or_else(|_| {
                chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                    .map(|d| d.and_hms_opt(0, 0, 0).unwrap_or_default())
            })
            .or_else(|_| {
                error(format!(
                    "DateTimeParseException: Text '{text}' could not be parsed"
                ))
            })?;
        let at = Local
            .from_local_datetime(&naive)
            .earliest()
            .map_or_else(|| local(0), |d| d.fixed_offset());
        Ok(JavaTime { at, date_only })
    });
    class
}

/// `java.util.Calendar`: a moment that `add` and `set` move field by field.
#[derive(Clone, Copy)]
pub(crate) struct Calendar(DateTime<FixedOffset>);

/// Calendar's field numbers, as Java numbers them.
const CALENDAR_FIELDS: &[(&str, INT)] = &[
    ("YEAR", 1),
    ("MONTH", 2),
    ("WEEK_OF_YEAR", 3),
    ("DATE", 5),
    ("DAY_OF_MONTH", 5),
    ("DAY_OF_YEAR", 6),
    ("DAY_OF_WEEK", 7),
    ("HOUR", 10),
    ("HOUR_OF_DAY", 11),
    ("MINUTE", 12),
    ("SECOND", 13),
    ("MILLISECOND", 14),
];

fn calendar_add(calendar: &Calendar, field: INT, amount: INT) -> ShimResult<Calendar> {
    let at = calendar.0;
    let moved = match field {
        1 => months(at, amount * 12),
        2 => months(at, amount),
        3 => Some(at + Duration::weeks(amount)),
        5..=7 => Some(at + Duration::days(amount)),
        10 | 11 => Some(at + Duration::hours(amount)),
        12 => Some(at + Duration::minutes(amount)),
        13 => Some(at + Duration::seconds(amount)),
        14 => Some(at + Duration::milliseconds(amount)),
        _ => return error(format!("IllegalArgumentException: Calendar field {field}")),
    };
    Ok(Calendar(moved.unwrap_or(at)))
}

fn months(at: DateTime<FixedOffset>, n: INT) -> Option<DateTime<FixedOffset>> {
    if n >= 0 {
        at.checked_add_months(chrono::Months::new(n as u32))
    } else {
        at.checked_sub_months(chrono::Months::new(n.unsigned_abs() as u32))
    }
}

fn calendar_get(calendar: &Calendar, field: INT) -> ShimResult<INT> {
    use chrono::{Datelike, Timelike};
    let at = calendar.0;
    Ok(match field {
        1 => at.year() as INT,
        2 => at.month0() as INT,
        3 => at.iso_week().week() as INT,
        5 => at.day() as INT,
        6 => at.ordinal() as INT,
        7 => at.weekday().number_from_sunday() as INT,
        10 => (at.hour() % 12) as INT,
        11 => at.hour() as INT,
        12 => at.minute() as INT,
        13 => at.second() as INT,
        14 => (at.timestamp_subsec_millis()) as INT,
        _ => return error(format!("IllegalArgumentException: Calendar field {field}")),
    })
}

fn calendar_set(calendar: &mut Calendar, field: INT, value: INT) -> ShimResult<()> {
    let current = calendar_get(calendar, field)?;
    let field = if field == 10 { 11 } else { field };
    *calendar = calendar_add(calendar, field, value - current)?;
    Ok(())
}

pub(crate) fn classes() -> Vec<Class> {
    let mut calendar = Class::new("Calendar");
    func!(calendar, "getInstance", || Calendar(local(now_millis())));
    func!(calendar, "getInstance", |_zone: Dynamic| Calendar(local(
        now_millis()
    )));
    for (name, number) in CALENDAR_FIELDS {
        calendar.constant(name, Dynamic::from(*number));
    }
    // Times are in the machine's zone; a named zone is accepted and ignored.
    let mut time_zone = Class::new("TimeZone");
    func!(time_zone, "getTimeZone", |name: &str| name.to_string());
    func!(time_zone, "getDefault", || "default".to_string());
    let mut date = Class::new("Date");
    func!(date, "create", || JavaDate(now_millis()));
    func!(date, "create", JavaDate);
    let mut simple = Class::new("SimpleDateFormat");
    func!(simple, "create", |pattern: &str| compile(pattern));
    func!(simple, "create", |pattern: &str, _locale: Dynamic| compile(
        pattern
    ));
    let mut formatter = Class::new("DateTimeFormatter");
    func!(formatter, "ofPattern", |pattern: &str| compile(pattern));
    func!(formatter, "ofPattern", |pattern: &str, _locale: Dynamic| {
        compile(pattern)
    });
    formatter.constant(
        "ISO_LOCAL_DATE",
        Dynamic::from(compile("yyyy-MM-dd").expect("a valid pattern")),
    );
    formatter.constant(
        "ISO_LOCAL_DATE_TIME",
        Dynamic::from(compile("yyyy-MM-dd'T'HH:mm:ss").expect("a valid pattern")),
    );
    let mut instant = Class::new("Instant");
    func!(instant, "now", || now_time(false));
    func!(instant, "ofEpochMilli", |millis: INT| JavaTime {
        at: local(millis),
        date_only: false,
    });
    vec![
        calendar,
        time_zone,
        date,
        simple,
        formatter,
        instant,
        time_class("LocalDate", true),
        time_class("LocalDateTime", false),
        time_class("ZonedDateTime", false),
        time_class("LocalTime", false),
    ]
}

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_type_with_name::<JavaDate>("Date")
        .register_fn("getTime", |d: &mut JavaDate| d.0)
        .register_get("time", |d: &mut JavaDate| d.0)
        .register_fn("format", |d: &mut JavaDate, pattern: &str| {
            format_millis(pattern, d.0)
        })
        .register_fn("plus", |d: &mut JavaDate, days: INT| {
            JavaDate(d.0 + days * 86_400_000)
        })
        .register_fn("minus", |d: &mut JavaDate, days: INT| {
            JavaDate(d.0 - days * 86_400_000)
        })
        .register_fn("toString", |d: &mut JavaDate| {
            local(d.0).format("%a %b %d %H:%M:%S %Z %Y").to_string()
        })
        .register_fn("to_string", |d: &mut JavaDate| {
            local(d.0).format("%a %b %d %H:%M:%S %Z %Y").to_string()
        })
        .register_fn("before", |a: &mut JavaDate, b: JavaDate| a.0 < b.0)
        .register_fn("after", |a: &mut JavaDate, b: JavaDate| a.0 > b.0)
        .register_type_with_name::<Calendar>("Calendar")
        .register_fn(
            "add",
            |c: &mut Calendar, field: INT, n: INT| -> ShimResult<()> {
                *c = calendar_add(c, field, n)?;
                Ok(())
            },
        )
        .register_fn("get", |c: &mut Calendar, field: INT| calendar_get(c, field))
        .register_fn("set", calendar_set)
        .register_fn("getTime", |c: &mut Calendar| {
            JavaDate(c.0.timestamp_millis())
        })
        .register_fn("getTimeInMillis", |c: &mut Calendar| c.0.timestamp_millis())
        .register_fn("setTime", |c: &mut Calendar, d: JavaDate| {
            *c = Calendar(local(d.0))
        })
        .register_fn("setTimeInMillis", |c: &mut Calendar, ms: INT| {
            *c = Calendar(local(ms))
        })
        .register_type_with_name::<DateFormat>("DateFormat")
        .register_fn("format", |f: &mut DateFormat, d: JavaDate| {
            f.0.format(&local(d.0))
        })
        .register_fn("format", |f: &mut DateFormat, millis: INT| {
            f.0.format(&local(millis))
        })
        .register_fn("format", |f: &mut DateFormat, t: JavaTime| {
            f.0.format(&t.at)
        })
        .register_fn("parse", |f: &mut DateFormat, text: &str| parse(f, text))
        .register_fn("setTimeZone", |_: &mut DateFormat, _zone: Dynamic| ())
        .register_fn("setTimeZone", |_: &mut Calendar, _zone: Dynamic| ())
        .register_fn("setLenient", |_: &mut DateFormat, _lenient: bool| ())
        .register_type_with_name::<JavaTime>("LocalDateTime")
        .register_fn("format", |t: &mut JavaTime, f: DateFormat| {
            f.0.format(&t.at)
        })
        .register_fn("toString", |t: &mut JavaTime| iso(t))
        .register_fn("to_string", |t: &mut JavaTime| iso(t))
        .register_fn("toEpochMilli", |t: &mut JavaTime| t.at.timestamp_millis())
        .register_fn("toInstant", |t: &mut JavaTime| *t)
        .register_fn("atZone", |t: &mut JavaTime, _zone: Dynamic| *t)
        .register_fn("getYear", |t: &mut JavaTime| {
            chrono::Datelike::year(&t.at) as INT
        })
        .register_fn("getMonthValue", |t: &mut JavaTime| {
            chrono::Datelike::month(&t.at) as INT
        })
        .register_fn("getDayOfMonth", |t: &mut JavaTime| {
            chrono::Datelike::day(&t.at) as INT
        })
        .register_fn("plusDays", |t: &mut JavaTime, n: INT| {
            plus(t, Duration::days(n))
        })
        .register_fn("minusDays", |t: &mut JavaTime, n: INT| {
            plus(t, Duration::days(-n))
        })
        .register_fn("plusHours", |t: &mut JavaTime, n: INT| {
            plus(t, Duration::hours(n))
        })
        .register_fn("minusHours", |t: &mut JavaTime, n: INT| {
            plus(t, Duration::hours(-n))
        })
        .register_fn("plusMinutes", |t: &mut JavaTime, n: INT| {
            plus(t, Duration::minutes(n))
        })
        .register_fn("minusMinutes", |t: &mut JavaTime, n: INT| {
            plus(t, Duration::minutes(-n))
        })
        .register_fn("plusSeconds", |t: &mut JavaTime, n: INT| {
            plus(t, Duration::seconds(n))
        })
        .register_fn("minusSeconds", |t: &mut JavaTime, n: INT| {
            plus(t, Duration::seconds(-n))
        })
        .register_fn("plusWeeks", |t: &mut JavaTime, n: INT| {
            plus(t, Duration::weeks(n))
        })
        .register_fn("plusMonths", |t: &mut JavaTime, n: INT| {
            let at = if n >= 0 {
                t.at.checked_add_months(chrono::Months::new(n as u32))
            } else {
                t.at.checked_sub_months(chrono::Months::new(n.unsigned_abs() as u32))
            };
            JavaTime {
                at: at.unwrap_or(t.at),
                date_only: t.date_only,
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_java_patterns() {
        let text = format_millis("yyyy-MM-dd", 0).unwrap();
        assert!(text == "1970-01-01" || text == "1969-12-31", "{text}");
    }
}
