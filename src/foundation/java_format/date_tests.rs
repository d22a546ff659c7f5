//! Formatting in both dialects on fixed instants, and what each dialect rejects.

use chrono::{DateTime, FixedOffset, TimeZone};

use super::{Dialect, JavaDateFormat};

/// Tuesday 2024-03-05 14:07:09.123456789 at +01:00.
fn sample() -> DateTime<FixedOffset> {
    let zone = FixedOffset::east_opt(3600).expect("valid offset");
    let time = zone.with_ymd_and_hms(2024, 3, 5, 14, 7, 9).single();
    let time = time.expect("valid time");
    time + chrono::Duration::nanoseconds(123_456_789)
}

/// `sample()` in the `DateTimeFormatter` dialect, or the compile error.
fn fmt(pattern: &str) -> String {
    match JavaDateFormat::compile(pattern, Dialect::DateTimeFormatter) {
        Ok(format) => format.format(&sample()),
        Err(err) => format!("error: {err}"),
    }
}

/// Epoch milliseconds at an offset of whole hours.
fn at(ms: i64, offset_hours: i32) -> DateTime<FixedOffset> {
    let tz = FixedOffset::east_opt(offset_hours * 3600).expect("valid offset");
    tz.timestamp_millis_opt(ms).single().expect("valid time")
}

/// `time` in the `SimpleDateFormat` dialect, or the compile error.
fn simple(pattern: &str, time: &DateTime<FixedOffset>) -> String {
    match JavaDateFormat::compile(pattern, Dialect::SimpleDateFormat) {
        Ok(format) => format.format(time),
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
    let format = JavaDateFormat::compile("XXX z", Dialect::DateTimeFormatter)
        .map(|f| f.format(&sample().with_timezone(&utc)));
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

#[test]
fn simple_date_format_common_patterns() {
    // 2019-03-05T10:20:27.191Z
    let t = at(1_551_781_227_191, 0);
    assert_eq!(
        simple("yyyy/MM/dd HH:mm:ss.SSS", &t),
        "2019/03/05 10:20:27.191"
    );
    assert_eq!(
        simple("yy-M-d h:mm a EEE MMM Z", &t),
        "19-3-5 10:20 AM Tue Mar +0000"
    );
    assert_eq!(
        simple("EEEE, MMMM dd 'at' HH'h' ''XXX", &at(1_551_781_227_191, 1)),
        "Tuesday, March 05 at 11h '+01:00"
    );
}

#[test]
fn the_dialects_differ_where_java_does() {
    let t = sample();
    // `u`: day number of the week against the year; `S`: milliseconds against a fraction.
    assert_eq!(simple("u S SSSS", &t), "2 123 0123");
    assert_eq!(fmt("u S SSSS"), "2024 1 1234");
    // Five letters: the full name against the narrow one; `#` and `{` are only literals
    // to SimpleDateFormat, which accepts any count of a letter.
    assert_eq!(simple("MMMMM EEEEE #{ddd}", &t), "March Tuesday #{005}");
    assert_eq!(fmt("MMMMM EEEEE"), "M T");
    // Zones: `ZZ` and `X` at a whole-hour offset.
    assert_eq!(simple("ZZ X z", &t), "+01:00 +01 GMT+01:00");
    assert_eq!(fmt("ZZ X"), "+0100 +01");
    // Weeks of the month start on Sunday for SimpleDateFormat (US locale).
    assert_eq!(simple("W F", &t), "2 1");
}

#[test]
fn simple_date_format_refuses_unknown_letters_and_open_quotes() {
    assert_eq!(
        simple("yyyy-qq", &sample()),
        "error: Illegal pattern character 'q'"
    );
    assert_eq!(simple("HH 'open", &sample()), "error: Unterminated quote");
}

#[test]
fn local_time_when_formatting_epoch_milliseconds() {
    let format = JavaDateFormat::compile("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", Dialect::SimpleDateFormat)
        .expect("valid pattern");
    let text = format.format_local(1_551_781_227_191);
    let back = format.read(&text).expect("readable");
    assert_eq!(back.timestamp_millis(), 1_551_781_227_191, "{text}");
}
