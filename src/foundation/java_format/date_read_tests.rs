//! Reading text back in both dialects: literals, widths, names, AM/PM, offsets, the local
//! zone, and what each dialect refuses.

use chrono::{DateTime, FixedOffset, Local, NaiveDate, TimeZone};

use super::{Dialect, JavaDateFormat};

fn compile(pattern: &str, dialect: Dialect) -> JavaDateFormat {
    JavaDateFormat::compile(pattern, dialect).expect("valid pattern")
}

fn simple(pattern: &str, text: &str) -> Option<DateTime<FixedOffset>> {
    compile(pattern, Dialect::SimpleDateFormat).read(text)
}

fn formatter(pattern: &str, text: &str) -> Option<DateTime<FixedOffset>> {
    compile(pattern, Dialect::DateTimeFormatter).read(text)
}

/// Epoch milliseconds of a local date and time.
fn local_ms(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32, ms: u32) -> i64 {
    let naive = NaiveDate::from_ymd_opt(y, mo, d)
        .and_then(|date| date.and_hms_milli_opt(h, mi, s, ms))
        .expect("valid date");
    Local
        .from_local_datetime(&naive)
        .earliest()
        .expect("a local time")
        .timestamp_millis()
}

fn ms(time: Option<DateTime<FixedOffset>>) -> Option<i64> {
    time.map(|t| t.timestamp_millis())
}

#[test]
fn quoted_literals_are_matched_as_text() {
    let read = simple("yyyy-MM-dd'T'HH:mm:ss.SSS", "2019-03-05T10:20:27.191");
    assert_eq!(ms(read), Some(local_ms(2019, 3, 5, 10, 20, 27, 191)));
    let read = simple("'at' HH 'o''clock' dd/MM/yyyy", "at 10 o'clock 05/03/2019");
    assert_eq!(ms(read), Some(local_ms(2019, 3, 5, 10, 0, 0, 0)));
    assert_eq!(simple("yyyy-MM-dd'T'HH", "2019-03-05 10"), None);
}

#[test]
fn zone_offsets_in_the_text_win_over_the_local_zone() {
    let utc_ms = 1_551_781_227_191; // 2019-03-05T10:20:27.191Z
    for (pattern, text) in [
        ("yyyy/MM/dd HH:mm:ss.SSS Z", "2019/03/05 11:20:27.191 +0100"),
        ("yyyy/MM/dd HH:mm:ss.SSS Z", "2019/03/05 05:50:27.191 -0430"),
        ("yyyy-MM-dd'T'HH:mm:ss.SSSX", "2019-03-05T10:20:27.191Z"),
        ("yyyy-MM-dd'T'HH:mm:ss.SSSX", "2019-03-05T11:20:27.191+01"),
        (
            "yyyy-MM-dd'T'HH:mm:ss.SSSXXX",
            "2019-03-05T11:20:27.191+01:00",
        ),
        (
            "yyyy-MM-dd HH:mm:ss.SSS z",
            "2019-03-05 11:20:27.191 GMT+01:00",
        ),
        ("yyyy-MM-dd HH:mm:ss.SSS z", "2019-03-05 10:20:27.191 UTC"),
    ] {
        assert_eq!(ms(simple(pattern, text)), Some(utc_ms), "{pattern} {text}");
    }
    let read = formatter("yyyy-MM-dd HH:mm:ss.SSS O", "2019-03-05 11:20:27.191 GMT+1");
    assert_eq!(ms(read), Some(utc_ms));
    let read = formatter(
        "yyyy-MM-dd'T'HH:mm:ss.SSSxx",
        "2019-03-05T11:20:27.191+0100",
    );
    assert_eq!(ms(read), Some(utc_ms));
}

#[test]
fn names_and_am_pm_in_any_case_full_or_short() {
    let expected = Some(local_ms(2019, 3, 5, 22, 20, 27, 0));
    let read = simple(
        "EEE, dd MMM yyyy hh:mm:ss a",
        "Tue, 05 Mar 2019 10:20:27 PM",
    );
    assert_eq!(ms(read), expected);
    let read = simple(
        "EEE, dd MMM yyyy hh:mm:ss a",
        "tuesday, 05 MARCH 2019 10:20:27 pm",
    );
    assert_eq!(ms(read), expected);
    let read = simple("dd MMM yyyy h:mm:ss a", "05 Mar 2019 12:00:00 AM");
    assert_eq!(ms(read), Some(local_ms(2019, 3, 5, 0, 0, 0, 0)));
    let read = formatter("dd MMMM yyyy", "01 June 2021");
    assert_eq!(ms(read), Some(local_ms(2021, 6, 1, 0, 0, 0, 0)));
    assert_eq!(simple("dd MMM yyyy", "05 Foo 2019"), None);
}

#[test]
fn simple_date_format_numbers_take_their_digits_unless_a_number_follows() {
    let expected = Some(local_ms(2019, 3, 5, 10, 20, 27, 0));
    assert_eq!(ms(simple("yyyyMMddHHmmss", "20190305102027")), expected);
    assert_eq!(ms(simple("y-M-d H:m:s", "2019-3-5 10:20:27")), expected);
    assert_eq!(
        ms(simple("yyyy-MM-dd HH:mm:ss", "2019-3-05 10:20:27")),
        expected
    );
    // `S` counts milliseconds, whatever its width.
    let read = simple("HH:mm:ss.S", "10:20:27.5");
    assert_eq!(ms(read), Some(local_ms(1970, 1, 1, 10, 20, 27, 5)));
}

#[test]
fn simple_date_format_two_digit_years_are_near_today() {
    let this_year = chrono::Datelike::year(&Local::now());
    let two = |year: i32| format!("{:02}", year.rem_euclid(100));
    let read = simple("yy-MM-dd", &format!("{}-03-05", two(this_year)));
    assert_eq!(read.map(|t| chrono::Datelike::year(&t)), Some(this_year));
    let read = simple("yy-MM-dd", &format!("{}-03-05", two(this_year - 70)));
    assert_eq!(
        read.map(|t| chrono::Datelike::year(&t)),
        Some(this_year - 70)
    );
    // Three digits or more are the year itself.
    let read = simple("yy-MM-dd", "0019-03-05");
    assert_eq!(read.map(|t| chrono::Datelike::year(&t)), Some(19));
}

#[test]
fn simple_date_format_ignores_what_follows_and_defaults_the_date() {
    let read = simple("dd MMM yyyy HH:mm:ss", "05 Mar 2019 10:20:27.191");
    assert_eq!(ms(read), Some(local_ms(2019, 3, 5, 10, 20, 27, 0)));
    let read = simple("HH:mm", "10:20");
    assert_eq!(ms(read), Some(local_ms(1970, 1, 1, 10, 20, 0, 0)));
}

#[test]
fn date_time_formatter_widths_are_exact_and_the_whole_text_is_used() {
    let expected = Some(local_ms(2021, 3, 1, 10, 0, 0, 0));
    assert_eq!(
        ms(formatter("yyyy-MM-dd HH:mm", "2021-03-01 10:00")),
        expected
    );
    assert_eq!(ms(formatter("yyyyMMddHHmm", "202103011000")), expected);
    assert_eq!(ms(formatter("yyyy-M-d H:m", "2021-3-1 10:0")), expected);
    assert_eq!(formatter("yyyy-MM-dd HH:mm", "2021-3-01 10:00"), None);
    assert_eq!(
        formatter("yyyy-MM-dd HH:mm", "2021-03-01 10:00 extra"),
        None
    );
    // `yy` is 2000–2099; `S` is a fraction of the second.
    let read = formatter("yy-MM-dd HH:mm:ss.SS", "21-03-01 10:00:00.5");
    assert_eq!(read, None, "SS takes exactly two digits");
    let read = formatter("yy-MM-dd HH:mm:ss.S", "21-03-01 10:00:00.5");
    assert_eq!(ms(read), Some(local_ms(2021, 3, 1, 10, 0, 0, 500)));
    // Year, month and day are needed.
    assert_eq!(formatter("HH:mm", "10:00"), None);
}

#[test]
fn nonsense_is_refused_without_panicking() {
    for text in [
        "",
        "x",
        "2019-13-05",
        "99999999999999999999-01-01",
        "2019-02-30",
        "é",
    ] {
        assert_eq!(simple("yyyy-MM-dd", text), None, "{text:?}");
        assert_eq!(formatter("yyyy-MM-dd", text), None, "{text:?}");
    }
    assert_eq!(simple("Z", "+99"), None);
    assert_eq!(simple("SSS", "99999999999999999"), None);
}
