//! Tests of the `DecimalFormat` subset: padding, affixes, grouping, fractions, rejections.

use super::*;

fn fmt(pattern: &str, value: i64) -> Option<String> {
    DecimalFormat::parse(pattern).map(|f| f.format(value))
}

#[test]
fn zero_padding() {
    assert_eq!(fmt("000", 7).as_deref(), Some("007"));
    assert_eq!(fmt("000", 1234).as_deref(), Some("1234"));
    assert_eq!(fmt("000", 0).as_deref(), Some("000"));
    assert_eq!(fmt("#00", 5).as_deref(), Some("05"));
}

#[test]
fn optional_digits() {
    assert_eq!(fmt("#", 0).as_deref(), Some("0"));
    assert_eq!(fmt("###", 42).as_deref(), Some("42"));
}

#[test]
fn literal_prefix_and_suffix() {
    assert_eq!(fmt("USER_000", 5).as_deref(), Some("USER_005"));
    assert_eq!(fmt("0 EUR", 5).as_deref(), Some("5 EUR"));
    assert_eq!(fmt("id-0000-x", 42).as_deref(), Some("id-0042-x"));
    assert_eq!(fmt("'#'000", 5).as_deref(), Some("#005"));
    assert_eq!(fmt("'it''s '0", 5).as_deref(), Some("it's 5"));
    assert_eq!(fmt("''0", 5).as_deref(), Some("'5"));
}

#[test]
fn grouping() {
    assert_eq!(fmt("#,##0", 1234567).as_deref(), Some("1,234,567"));
    assert_eq!(fmt("#,##0", 12).as_deref(), Some("12"));
    assert_eq!(fmt("#,#0", 12345).as_deref(), Some("1,23,45"));
}

#[test]
fn fraction_and_point() {
    assert_eq!(fmt("0.00", 5).as_deref(), Some("5.00"));
    assert_eq!(fmt("#.##", 5).as_deref(), Some("5"));
    assert_eq!(fmt("#.##", 0).as_deref(), Some("0"));
    assert_eq!(fmt("0.", 5).as_deref(), Some("5."));
    assert_eq!(fmt("0.0#", 5).as_deref(), Some("5.0"));
}

#[test]
fn negative_numbers_get_a_minus_before_the_prefix() {
    assert_eq!(fmt("U000", -5).as_deref(), Some("-U005"));
}

#[test]
fn percent_multiplies() {
    assert_eq!(fmt("0%", 5).as_deref(), Some("500%"));
    assert_eq!(fmt("0\u{2030}", 5).as_deref(), Some("5000\u{2030}"));
}

#[test]
fn java_rejects_these() {
    for pattern in [
        "0#", "#.#0", "0.0.0", "#,", "0,.0", "'abc", "0x0", "0E0", "0;(0)",
    ] {
        assert_eq!(DecimalFormat::parse(pattern), None, "{pattern}");
    }
}
