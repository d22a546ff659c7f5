//! `Integer`, `Long`, `Double`, `Boolean`, `BigDecimal`, `Math` and the number methods
//! of Java and Groovy (`intValue`, `toInteger`, `round`, `times`...). Rhai's integers
//! are 64-bit, so `Integer` and `Long` behave alike; decimals are doubles.

use rhai::{Dynamic, Engine, FnPtr, NativeCallContext, FLOAT, INT};

use crate::foundation::java_format::java_double;

use super::conversions::{as_double, as_int, parse_double, parse_int};
use super::func;
use super::{error, java_string, Class, ShimResult};

fn radix_int(text: &str, radix: INT) -> ShimResult<INT> {
    INT::from_str_radix(text.trim(), radix as u32).or_else(|_| {
        error(format!(
            "NumberFormatException: For input string: \"{text}\""
        ))
    })
}

fn integer_class(name: &'static str, max: INT, min: INT) -> Class {
    let mut class = Class::new(name);
    func!(class, "parseInt", |s: &str| parse_int(s));
    func!(class, "parseInt", |s: &str, r: INT| radix_int(s, r));
    func!(class, "parseLong", |s: &str| parse_int(s));
    func!(class, "parseLong", |s: &str, r: INT| radix_int(s, r));
    func!(class, "parseShort", |s: &str| parse_int(s));
    func!(class, "valueOf", |v: Dynamic| as_int(&v));
    func!(class, "decode", |s: &str| parse_int(s));
    func!(class, "toString", |v: Dynamic| java_string(&v));
    func!(class, "toString", |v: INT, r: INT| to_radix(v, r));
    func!(class, "toHexString", |v: INT| format!("{v:x}"));
    func!(class, "toBinaryString", |v: INT| format!("{v:b}"));
    func!(class, "max", |a: INT, b: INT| a.max(b));
    func!(class, "min", |a: INT, b: INT| a.min(b));
    func!(class, "sum", |a: INT, b: INT| a.wrapping_add(b));
    func!(class, "compare", |a: INT, b: INT| a.cmp(&b) as INT);
    func!(class, "signum", |a: INT| a.signum());
    func!(class, "create", |v: Dynamic| as_int(&v));
    class.constant("MAX_VALUE", Dynamic::from(max));
    class.constant("MIN_VALUE", Dynamic::from(min));
    class
}

fn to_radix(mut value: INT, radix: INT) -> String {
    let radix = radix.clamp(2, 36) as u32;
    if value == 0 {
        return "0".into();
    }
    let negative = value < 0;
    let mut digits = Vec::new();
    while value != 0 {
        let digit = (value % radix as INT).unsigned_abs() as u32;
        digits.push(std::char::from_digit(digit, radix).unwrap_or('?'));
        value /= radix as INT;
    }
    if negative {
        digits.push('-');
    }
    digits.iter().rev().collect()
}

fn decimal_class(name: &'static str) -> Class {
    let mut class = Class::new(name);
    func!(class, "parseDouble", |s: &str| parse_double(s));
    func!(class, "parseFloat", |s: &str| parse_double(s));
    func!(class, "valueOf", |v: Dynamic| as_double(&v));
    func!(class, "toString", |v: FLOAT| java_double(v));
    func!(class, "isNaN", |v: FLOAT| v.is_nan());
    func!(class, "compare", |a: FLOAT, b: FLOAT| a
        .partial_cmp(&b)
        .map_or(0, |o| o as INT));
    func!(class, "create", |v: Dynamic| as_double(&v));
    class.constant("MAX_VALUE", Dynamic::from(FLOAT::MAX));
    class.constant("MIN_VALUE", Dynamic::from(FLOAT::MIN_POSITIVE));
    class
}

fn math_class() -> Class {
    let mut math = Class::new("Math");
    func!(math, "abs", |v: INT| v.wrapping_abs());
    func!(math, "abs", |v: FLOAT| v.abs());
    func!(math, "max", |a: INT, b: INT| a.max(b));
    func!(math, "max", |a: Dynamic, b: Dynamic| -> ShimResult<FLOAT> {
        Ok(as_double(&a)?.max(as_double(&b)?))
    });
    func!(math, "min", |a: INT, b: INT| a.min(b));
    func!(math, "min", |a: Dynamic, b: Dynamic| -> ShimResult<FLOAT> {
        Ok(as_double(&a)?.min(as_double(&b)?))
    });
    func!(math, "pow", |a: Dynamic, b: Dynamic| -> ShimResult<FLOAT> {
        Ok(as_double(&a)?.powf(as_double(&b)?))
    });
    func!(math, "sqrt", |a: Dynamic| -> ShimResult<FLOAT> {
        Ok(as_double(&a)?.sqrt())
    });
    func!(math, "cbrt", |a: Dynamic| -> ShimResult<FLOAT> {
        Ok(as_double(&a)?.cbrt())
    });
    func!(math, "floor", |a: Dynamic| -> ShimResult<FLOAT> {
        Ok(as_double(&a)?.floor())
    });
    func!(math, "ceil", |a: Dynamic| -> ShimResult<FLOAT> {
        Ok(as_double(&a)?.ceil())
    });
    func!(math, "round", |a: Dynamic| -> ShimResult<INT> {
        Ok((as_double(&a)? + 0.5).floor() as INT)
    });
    func!(math, "log", |a: Dynamic| -> ShimResult<FLOAT> {
        Ok(as_double(&a)?.ln())
    });
    func!(math, "log10", |a: Dynamic| -> ShimResult<FLOAT> {
        Ok(as_double(&a)?.log10())
    });
    func!(math, "exp", |a: Dynamic| -> ShimResult<FLOAT> {
        Ok(as_double(&a)?.exp())
    });
    func!(math, "floorDiv", |a: INT, b: INT| -> ShimResult<INT> {
        if b == 0 {
            return error("ArithmeticException: / by zero");
        }
        Ok(a.div_euclid(b) - INT::from(b < 0 && a.rem_euclid(b) != 0))
    });
    func!(math, "floorMod", |a: INT, b: INT| -> ShimResult<INT> {
        if b == 0 {
            return error("ArithmeticException: / by zero");
        }
        Ok(((a % b) + b) % b)
    });
    func!(math, "random", rand::random::<FLOAT>);
    func!(math, "toIntExact", |a: INT| a);
    math.constant("PI", Dynamic::from(std::f64::consts::PI));
    math.constant("E", Dynamic::from(std::f64::consts::E));
    math
}

pub(crate) fn classes() -> Vec<Class> {
    let mut boolean = Class::new("Boolean");
    func!(boolean, "parseBoolean", |s: Dynamic| java_string(&s)
        .eq_ignore_ascii_case("true"));
    func!(boolean, "valueOf", |s: Dynamic| {
        s.as_bool()
            .unwrap_or_else(|_| java_string(&s).eq_ignore_ascii_case("true"))
    });
    func!(boolean, "toString", |b: bool| b.to_string());
    func!(boolean, "create", |s: Dynamic| java_string(&s)
        .eq_ignore_ascii_case("true"));
    boolean.constant("TRUE", Dynamic::from(true));
    boolean.constant("FALSE", Dynamic::from(false));
    let mut big_integer = integer_class("BigInteger", INT::MAX, INT::MIN);
    big_integer.constant("ONE", Dynamic::from(1 as INT));
    big_integer.constant("ZERO", Dynamic::from(0 as INT));
    let mut big_decimal = decimal_class("BigDecimal");
    big_decimal.constant("ONE", Dynamic::from(1.0));
    big_decimal.constant("ZERO", Dynamic::from(0.0));
    vec![
        integer_class("Integer", i32::MAX as INT, i32::MIN as INT),
        integer_class("Long", INT::MAX, INT::MIN),
        integer_class("Short", i16::MAX as INT, i16::MIN as INT),
        big_integer,
        decimal_class("Double"),
        decimal_class("Float"),
        big_decimal,
        boolean,
        math_class(),
    ]
}

fn times(context: NativeCallContext, count: INT, body: FnPtr) -> ShimResult<()> {
    for i in 0..count {
        let _ = body.call_within_context::<Dynamic>(&context, (i,))?;
    }
    Ok(())
}

fn upto(context: NativeCallContext, from: INT, to: INT, body: FnPtr) -> ShimResult<()> {
    for i in from..=to {
        let _ = body.call_within_context::<Dynamic>(&context, (i,))?;
    }
    Ok(())
}

/// Groovy's `x.round(places)` on a decimal (half up).
fn round_to(value: FLOAT, places: INT) -> FLOAT {
    let factor = 10f64.powi(places as i32);
    (value * factor).round() / factor
}

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_fn("intValue", |v: INT| v)
        .register_fn("intValue", |v: FLOAT| v as INT)
        .register_fn("longValue", |v: INT| v)
        .register_fn("longValue", |v: FLOAT| v as INT)
        .register_fn("doubleValue", |v: INT| v as FLOAT)
        .register_fn("doubleValue", |v: FLOAT| v)
        .register_fn("floatValue", |v: FLOAT| v)
        .register_fn("toInteger", |v: INT| v)
        .register_fn("toInteger", |v: FLOAT| v as INT)
        .register_fn("toLong", |v: INT| v)
        .register_fn("toLong", |v: FLOAT| v as INT)
        .register_fn("toDouble", |v: INT| v as FLOAT)
        .register_fn("toDouble", |v: FLOAT| v)
        .register_fn("toBigDecimal", |v: INT| v as FLOAT)
        .register_fn("toInteger", |_: ()| -> ShimResult<INT> {
            error("NullPointerException: Cannot invoke toInteger() on null object")
        })
        .register_fn("round", |v: FLOAT| v.round() as INT)
        .register_fn("round", round_to)
        .register_fn("abs", |v: INT| v.wrapping_abs())
        .register_fn("times", times)
        .register_fn("upto", upto)
        .register_fn("toString", |v: FLOAT| java_double(v))
        .register_fn("toString", |v: INT| v.to_string())
        .register_fn("to_string", |v: FLOAT| java_double(v))
        .register_fn("intdiv", |a: INT, b: INT| -> ShimResult<INT> {
            if b == 0 {
                return error("ArithmeticException: Division by zero");
            }
            Ok(a / b)
        })
        .register_fn("setScale", |v: FLOAT, places: INT, _mode: Dynamic| {
            round_to(v, places)
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_double_text() {
        assert_eq!(java_double(1.0), "1.0");
        assert_eq!(java_double(2.5), "2.5");
        assert_eq!(java_double(1e10), "1.0E10");
        assert_eq!(to_radix(255, 16), "ff");
    }
}
