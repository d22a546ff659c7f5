//! The global functions translated code calls where Rhai's semantics differ from
//! Groovy's: truth of any value, Elvis, casts and `as`, `instanceof`, `<=>`, Groovy's
//! division, `<<`, map literals with computed keys, and `toString`/`equals` on any value.

use rhai::{Array, Dynamic, Engine, ImmutableString, Map, INT};

use super::{error, java_string, ShimResult};

/// Groovy truth: null, false, zero, and empty strings, collections and maps are false.
pub(crate) fn truthy(value: &Dynamic) -> bool {
    if value.is_unit() {
        return false;
    }
    if let Ok(b) = value.as_bool() {
        return b;
    }
    if let Ok(n) = value.as_int() {
        return n != 0;
    }
    if let Ok(f) = value.as_float() {
        return f != 0.0;
    }
    if let Some(s) = value.read_lock::<ImmutableString>() {
        return !s.is_empty();
    }
    if let Ok(c) = value.as_char() {
        return c != '\0';
    }
    if let Some(a) = value.read_lock::<Array>() {
        return !a.is_empty();
    }
    if let Some(m) = value.read_lock::<Map>() {
        return !m.is_empty();
    }
    if let Some(b) = value.read_lock::<rhai::Blob>() {
        return !b.is_empty();
    }
    true
}

/// `(int) x`, `x as Integer`, `Integer.valueOf(x)`: numbers truncate, text parses.
pub(crate) fn as_int(value: &Dynamic) -> ShimResult<INT> {
    if let Ok(n) = value.as_int() {
        return Ok(n);
    }
    if let Ok(f) = value.as_float() {
        return Ok(f as INT);
    }
    if let Ok(c) = value.as_char() {
        return Ok(c as INT);
    }
    if let Ok(b) = value.as_bool() {
        return Ok(b as INT);
    }
    if let Some(s) = value.read_lock::<ImmutableString>() {
        return parse_int(&s);
    }
    error(format!("Cannot convert {} to a number", java_string(value)))
}

pub(crate) fn parse_int(text: &str) -> ShimResult<INT> {
    let trimmed = text.strip_prefix('+').unwrap_or(text);
    trimmed.parse::<INT>().or_else(|_| {
        error(format!(
            "NumberFormatException: For input string: \"{text}\""
        ))
    })
}

pub(crate) fn as_double(value: &Dynamic) -> ShimResult<f64> {
    if let Ok(f) = value.as_float() {
        return Ok(f);
    }
    if let Ok(n) = value.as_int() {
        return Ok(n as f64);
    }
    if let Some(s) = value.read_lock::<ImmutableString>() {
        return parse_double(&s);
    }
    error(format!("Cannot convert {} to a number", java_string(value)))
}

pub(crate) fn parse_double(text: &str) -> ShimResult<f64> {
    let trimmed = text.trim();
    let trimmed = trimmed
        .strip_suffix(['d', 'D', 'f', 'F'])
        .unwrap_or(trimmed);
    trimmed.parse::<f64>().or_else(|_| {
        error(format!(
            "NumberFormatException: For input string: \"{text}\""
        ))
    })
}

fn as_list(value: Dynamic) -> Array {
    if value.is_array() {
        return value.cast::<Array>();
    }
    if let Some(map) = value.read_lock::<Map>() {
        return map.values().cloned().collect();
    }
    if let Some(text) = value.read_lock::<ImmutableString>() {
        return text.chars().map(|c| Dynamic::from(c.to_string())).collect();
    }
    if value.is_unit() || value.is_int() {
        return Array::new();
    }
    vec![value]
}

fn as_map(value: Dynamic) -> Map {
    if value.is_map() {
        return value.cast::<Map>();
    }
    Map::new()
}

/// A map from alternating keys and values (Groovy's `[(k): v]`).
fn map_of(flat: Array) -> Map {
    let mut map = Map::new();
    let mut items = flat.into_iter();
    while let (Some(key), Some(value)) = (items.next(), items.next()) {
        map.insert(java_string(&key).into(), value);
    }
    map
}

fn instance_of(value: Dynamic, class: &str) -> bool {
    let class = class.rsplit('.').next().unwrap_or(class);
    match class {
        "String" | "CharSequence" | "GString" => value.is_string(),
        "Integer" | "Long" | "Short" | "Byte" | "BigInteger" => value.is_int(),
        "Double" | "Float" | "BigDecimal" => value.is_float(),
        "Number" => value.is_int() || value.is_float(),
        "Boolean" => value.is_bool(),
        "List" | "ArrayList" | "Collection" | "Set" | "Object[]" => value.is_array(),
        "Map" | "HashMap" | "LinkedHashMap" => value.is_map(),
        "Object" => !value.is_unit(),
        _ => value.type_name().ends_with(class),
    }
}

/// `a <=> b`, `a.compareTo(b)`: -1, 0 or 1 for numbers, Java's difference for text.
pub(crate) fn compare_to(a: Dynamic, b: Dynamic) -> ShimResult<INT> {
    if let (Some(x), Some(y)) = (
        a.read_lock::<ImmutableString>(),
        b.read_lock::<ImmutableString>(),
    ) {
        return Ok(java_compare_strings(&x, &y));
    }
    let (x, y) = (as_double(&a)?, as_double(&b)?);
    Ok(x.partial_cmp(&y).map_or(0, |o| o as INT))
}

fn java_compare_strings(x: &str, y: &str) -> INT {
    for (a, b) in x.encode_utf16().zip(y.encode_utf16()) {
        if a != b {
            return a as INT - b as INT;
        }
    }
    x.encode_utf16().count() as INT - y.encode_utf16().count() as INT
}

/// Groovy's `/`: a whole quotient stays whole, otherwise it is a decimal.
fn divide(a: Dynamic, b: Dynamic) -> ShimResult<Dynamic> {
    if let (Ok(x), Ok(y)) = (a.as_int(), b.as_int()) {
        if y == 0 {
            return error("ArithmeticException: Division by zero");
        }
        if x % y == 0 {
            return Ok(Dynamic::from(x / y));
        }
        return Ok(Dynamic::from(x as f64 / y as f64));
    }
    Ok(Dynamic::from(as_double(&a)? / as_double(&b)?))
}

/// `a << b` in an expression: a shift for numbers, an append (returning the target)
/// otherwise.
fn left_shift(a: Dynamic, b: Dynamic) -> ShimResult<Dynamic> {
    if let (Ok(x), Ok(y)) = (a.as_int(), b.as_int()) {
        return Ok(Dynamic::from(x.wrapping_shl(y as u32)));
    }
    if a.is_array() {
        let mut items = a.cast::<Array>();
        items.push(b);
        return Ok(Dynamic::from(items));
    }
    if let Some(text) = a.read_lock::<ImmutableString>() {
        return Ok(Dynamic::from(format!(
            "{}{}",
            text.as_str(),
            java_string(&b)
        )));
    }
    error(format!("Cannot append to {}", a.type_name()))
}

fn java_equals(a: Dynamic, b: Dynamic) -> bool {
    if let (Ok(x), Ok(y)) = (as_double(&a), as_double(&b)) {
        if !a.is_string() && !b.is_string() {
            return x == y;
        }
    }
    if a.type_name() != b.type_name() {
        return false;
    }
    java_string(&a) == java_string(&b)
}

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_fn("truthy", |v: Dynamic| truthy(&v))
        .register_fn(
            "elvis",
            |v: Dynamic, fallback: Dynamic| {
                if truthy(&v) {
                    v
                } else {
                    fallback
                }
            },
        )
        .register_fn("as_int", |v: Dynamic| as_int(&v))
        .register_fn("as_double", |v: Dynamic| as_double(&v))
        .register_fn("as_string", |v: Dynamic| java_string(&v))
        .register_fn("as_list", as_list)
        .register_fn("as_map", as_map)
        .register_fn("map_of", map_of)
        .register_fn("new_array", |size: INT, fill: Dynamic| {
            vec![fill; size.max(0) as usize]
        })
        .register_fn("instance_of", instance_of)
        .register_fn("compare_to", compare_to)
        .register_fn("compareTo", compare_to)
        .register_fn("divide", divide)
        .register_fn("left_shift", left_shift)
        .register_fn("is_nan_value", |v: Dynamic| {
            as_double(&v).map_or(true, f64::is_nan)
        })
        .register_fn("toString", |v: Dynamic| java_string(&v))
        .register_fn("equals", java_equals)
        .register_fn("is_null", |v: Dynamic| v.is_unit());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groovy_truth_and_division() {
        assert!(!truthy(&Dynamic::from("")));
        assert!(truthy(&Dynamic::from("0")));
        assert!(!truthy(&Dynamic::from(Array::new())));
        assert!(!truthy(&Dynamic::UNIT));
        assert_eq!(
            divide(Dynamic::from(6_i64), Dynamic::from(3_i64))
                .unwrap()
                .as_int(),
            Ok(2)
        );
        assert_eq!(
            divide(Dynamic::from(5_i64), Dynamic::from(2_i64))
                .unwrap()
                .as_float(),
            Ok(2.5)
        );
        assert_eq!(java_compare_strings("a", "b"), -1);
    }
}
