//! Java's `Double.toString` and `Float.toString`: the text JMeter writes wherever a Java
//! double or float is turned into a string (the report's JSON, JDBC cells, extracted JSON
//! numbers, Backend Listener metrics, script values).
//!
//! The digits are the shortest that read back as the same value, which is Rust's
//! `{:e}` form and what Java has printed since JDK 19; the layout is Java's: plain
//! notation with at least one digit after the point between 10⁻³ and 10⁷, otherwise
//! `d.dddE±n`.

/// `Double.toString`.
pub fn java_double(value: f64) -> String {
    if let Some(special) = special(value) {
        return special.into();
    }
    java_layout(&format!("{value:e}"), value.abs(), value.is_sign_negative())
}

/// `Float.toString`, with a float's shortest digits.
pub fn java_float(value: f32) -> String {
    if let Some(special) = special(f64::from(value)) {
        return special.into();
    }
    java_layout(
        &format!("{value:e}"),
        f64::from(value.abs()),
        value.is_sign_negative(),
    )
}

/// Java's text for the values that have no digits.
fn special(value: f64) -> Option<&'static str> {
    if value.is_nan() {
        Some("NaN")
    } else if value.is_infinite() {
        Some(if value > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        None
    }
}

/// Lays out Rust's shortest `d.ddde±n` form as Java does.
fn java_layout(scientific: &str, magnitude: f64, negative: bool) -> String {
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0');
    let digits = if digits.is_empty() { "0" } else { digits };
    let mut out = String::with_capacity(digits.len() + 8);
    if negative {
        out.push('-');
    }
    if magnitude == 0.0 {
        out.push_str("0.0");
        return out;
    }
    if (1e-3..1e7).contains(&magnitude) {
        if exponent >= 0 {
            let int_len = exponent as usize + 1;
            if digits.len() <= int_len {
                out.push_str(digits);
                out.extend(std::iter::repeat_n('0', int_len - digits.len()));
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exponent - 1) as usize));
            out.push_str(digits);
        }
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        out.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
        out.push('E');
        out.push_str(&exponent.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_java_prints_them() {
        for (value, java) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (-2.5, "-2.5"),
            (100.0, "100.0"),
            (339.2, "339.2"),
            (0.001, "0.001"),
            (0.0001, "1.0E-4"),
            (6.1894261494177E-4, "6.1894261494177E-4"),
            (0.0015473565373544248, "0.0015473565373544248"),
            (9999999.0, "9999999.0"),
            (1.0e7, "1.0E7"),
            (12345678.5, "1.23456785E7"),
            (1e10, "1.0E10"),
            (-1.5e-5, "-1.5E-5"),
            (f64::MAX, "1.7976931348623157E308"),
            (f64::MIN_POSITIVE, "2.2250738585072014E-308"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(java_double(value), java, "{value:e}");
        }
    }

    #[test]
    fn floats_print_with_a_floats_shortest_digits() {
        for (value, java) in [
            (1.25_f32, "1.25"),
            (100.0, "100.0"),
            (300.0 / 255.0, "1.1764706"),
            (0.1, "0.1"),
            (0.0005, "5.0E-4"),
            (1.0e7, "1.0E7"),
            (-0.0, "-0.0"),
            (f32::NAN, "NaN"),
            (f32::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(java_float(value), java, "{value:e}");
        }
    }
}
