//! Tests of the Java date pattern translation, on a fixed instant.

use chrono::{DateTime, FixedOffset, TimeZone};

use super::JavaDateFormat;

/// Tuesday 2024-03-05 14:07:09.123456789 at +01:00.
fn sample() -> DateTime<FixedOffset> {
    let zone = FixedOffset::east_opt(3600).expect("valid offset");
    let time = zone.with_ymd_and_hms(2024, 3, 5, 14, 7, 9).single();
    let time = time.expect("valid time");
    time + chrono::Duration::nanoseconds(123_456_789)
}

fn fmt(pattern: &str) -> String {
    match JavaDateFormat::parse(pattern) {
        Ok(format) => format.format(&sample()),
        Err(err) => format!("error: {err}"),
    }
}

#[test]
fn numeric_fields() {
    assert_eq!(fmt("yyyyMMdd-HHmmss"), "20240305-140709");
    assert_eq!(fmt("yy/M/d H:m:s"), "24/3/5 14:7:9");
    assert_eq!(fmt("y uuuu"), "2024 2024");
    assert_eq!(fmt("h hh a K k"), "2 02 PM 2 14");
    assert_eq!(fmt("S SSS SSSSSS"), "1 123 123456");
    assert_eq!(fmt("D DDD"), "65 065");
}

#[test]
fn text_fields() {
    assert_eq!(fmt("MMM MMMM MMMMM"), "Mar March M");
    assert_eq!(fmt("E EEE EEEE"), "Tue Tue Tuesday");
    assert_eq!(fmt("G QQQ"), "AD Q1");
}

#[test]
fn zones() {
    assert_eq!(fmt("Z"), "+0100");
    assert_eq!(fmt("X XX XXX"), "+01 +0100 +01:00");
    assert_eq!(fmt("xxx ZZZZ O"), "+01:00 GMT+01:00 GMT+1");
    assert_eq!(fmt("z"), "GMT+01:00");
    let utc = FixedOffset::east_opt(0).expect("utc");
    let format = JavaDateFormat::parse("XXX z").map(|f| f.format(&sample().with_timezone(&utc)));
    assert_eq!(format.ok().as_deref(), Some("Z UTC"));
}

#[test]
fn quoted_literals() {
    assert_eq!(fmt("yyyy-MM-dd'T'HH:mm"), "2024-03-05T14:07");
    assert_eq!(fmt("'at' h 'o''clock'"), "at 2 o'clock");
    assert_eq!(fmt("''yy''"), "'24'");
    assert_eq!(fmt("[yyyy]"), "2024");
}

#[test]
fn invalid_patterns_are_rejected() {
    assert!(fmt("bb").starts_with("error: Unknown pattern letter"));
    assert!(fmt("ddd").starts_with("error: Too many"));
    assert!(fmt("'open").starts_with("error: Pattern ends"));
    assert!(fmt("#").starts_with("error: Pattern includes reserved"));
}
