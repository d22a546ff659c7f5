//! Java's and Groovy's String methods on Rhai strings (indices count characters), the
//! `String` and `Character` classes, `String.format`, and `StringBuilder`, whose copies
//! share one buffer as Java references do.

use std::sync::Arc;

use parking_lot::Mutex;
use rhai::{Array, Blob, Dynamic, Engine, ImmutableString, INT};

use super::conversions::{as_double, as_int, parse_double, parse_int};
use super::func;
use super::{error, java_string, Class, ShimResult};

fn chars(text: &str) -> Vec<char> {
    text.chars().collect()
}

fn substring(text: &str, begin: INT, end: INT) -> ShimResult<String> {
    let all = chars(text);
    if begin < 0 || end > all.len() as INT || begin > end {
        return error(format!(
            "StringIndexOutOfBoundsException: begin {begin}, end {end}, length {}",
            all.len()
        ));
    }
    Ok(all[begin as usize..end as usize].iter().collect())
}

fn index_of(text: &str, needle: &str, from: INT) -> INT {
    let from = from.max(0) as usize;
    let byte_from = text.char_indices().nth(from).map_or(text.len(), |(i, _)| i);
    if byte_from > text.len() {
        return -1;
    }
    text[byte_from..]
        .find(needle)
        .map_or(-1, |i| text[..byte_from + i].chars().count() as INT)
}

fn last_index_of(text: &str, needle: &str) -> INT {
    text.rfind(needle)
        .map_or(-1, |i| text[..i].chars().count() as INT)
}

fn char_at(text: &str, index: INT) -> ShimResult<String> {
    match text.chars().nth(index.max(0) as usize) {
        Some(c) if index >= 0 => Ok(c.to_string()),
        _ => error(format!("StringIndexOutOfBoundsException: index {index}")),
    }
}

/// Java's `String.hashCode`.
fn hash_code(text: &str) -> INT {
    text.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(c as i32)) as INT
}

fn capitalize(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn pad(text: &str, width: INT, fill: &str, left: bool) -> String {
    let missing = (width.max(0) as usize).saturating_sub(text.chars().count());
    if fill.is_empty() || missing == 0 {
        return text.to_string();
    }
    let padding: String = fill.chars().cycle().take(missing).collect();
    if left {
        format!("{padding}{text}")
    } else {
        format!("{text}{padding}")
    }
}

/// Java's `String.format` for the conversions scripts use: `%s %d %f %x %c %b %e %n %%`
/// with flags (`-`, `0`, `+`, `,`), width and precision.
pub(crate) fn java_format(format: &str, args: &Array) -> ShimResult<String> {
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    let mut next_arg = 0;
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut flags = String::new();
        while let Some(f) = chars.peek().copied().filter(|f| "-0+, #".contains(*f)) {
            flags.push(f);
            chars.next();
        }
        let mut width = String::new();
        while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
            width.push(d);
            chars.next();
        }
        let mut precision = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut p = String::new();
            while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                p.push(d);
                chars.next();
            }
            precision = p.parse::<usize>().ok();
        }
        let Some(conversion) = chars.next() else {
            return error("UnknownFormatConversionException: %");
        };
        if conversion == 'n' {
            out.push('\n');
            continue;
        }
        if conversion == '%' {
            out.push('%');
            continue;
        }
        let arg = args.get(next_arg).cloned().unwrap_or(Dynamic::UNIT);
        next_arg += 1;
        let mut text = match conversion {
            's' | 'S' => {
                let s = java_string(&arg);
                let s = match precision {
                    Some(p) => s.chars().take(p).collect(),
                    None => s,
                };
                if conversion == 'S' {
                    s.to_uppercase()
                } else {
                    s
                }
            }
            'd' => {
                let n = as_int(&arg)?;
                let mut s = n.abs().to_string();
                if flags.contains(',') {
                    s = group_thousands(&s);
                }
                if n < 0 {
                    s.insert(0, '-');
                } else if flags.contains('+') {
                    s.insert(0, '+');
                }
                s
            }
            'f' | 'e' => {
                let x = as_double(&arg)?;
                let p = precision.unwrap_or(6);
                let s = if conversion == 'f' {
                    format!("{x:.p$}")
                } else {
                    format!("{x:.p$e}")
                };
                if flags.contains('+') && x >= 0.0 {
                    format!("+{s}")
                } else {
                    s
                }
            }
            'x' | 'X' => {
                let s = if let Some(bytes) = arg.read_lock::<Blob>() {
                    bytes.iter().map(|b| format!("{b:02x}")).collect()
                } else {
                    format!("{:x}", as_int(&arg)?)
                };
                if conversion == 'X' {
                    s.to_uppercase()
                } else {
                    s
                }
            }
            'c' => java_string(&arg)
                .chars()
                .next()
                .map(String::from)
                .unwrap_or_default(),
            'b' => super::conversions::truthy(&arg).to_string(),
            other => return error(format!("UnknownFormatConversionException: %{other}")),
        };
        let width: usize = width.parse().unwrap_or(0);
        let length = text.chars().count();
        if length < width {
            let fill = width - length;
            if flags.contains('-') {
                text.push_str(&" ".repeat(fill));
            } else if flags.contains('0') && conversion != 's' {
                let sign = text.starts_with(['-', '+']);
                let at = usize::from(sign);
                text.insert_str(at, &"0".repeat(fill));
            } else {
                text.insert_str(0, &" ".repeat(fill));
            }
        }
        out.push_str(&text);
    }
    Ok(out)
}

fn group_thousands(digits: &str) -> String {
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Java's `StringBuilder`; copies share the buffer.
#[derive(Clone, Default)]
pub(crate) struct StringBuilder(Arc<Mutex<String>>);

impl StringBuilder {
    fn text(&self) -> String {
        self.0.lock().clone()
    }
}

fn value_of(v: Dynamic) -> String {
    if let Some(bytes) = v.read_lock::<Blob>() {
        return String::from_utf8_lossy(&bytes).into_owned();
    }
    if let Some(items) = v.read_lock::<Array>() {
        // `String.valueOf(char[])`
        if items.iter().all(|i| i.is_string() || i.is_char()) {
            return items.iter().map(|i| i.to_string()).collect();
        }
    }
    java_string(&v)
}

pub(crate) fn classes() -> Vec<Class> {
    let mut string = Class::new("String");
    func!(string, "valueOf", value_of);
    func!(string, "format", |f: &str, args: Array| java_format(
        f, &args
    ));
    func!(string, "join", |sep: &str, items: Array| -> String {
        items.iter().map(java_string).collect::<Vec<_>>().join(sep)
    });
    func!(string, "create", value_of);
    func!(string, "create", |bytes: Blob, _charset: Dynamic| {
        String::from_utf8_lossy(&bytes).into_owned()
    });
    func!(string, "create", String::new);
    let mut builder = Class::new("StringBuilder");
    func!(builder, "create", StringBuilder::default);
    func!(builder, "create", |initial: Dynamic| -> StringBuilder {
        if initial.is_int() {
            return StringBuilder::default();
        }
        StringBuilder(Arc::new(Mutex::new(java_string(&initial))))
    });
    let mut buffer = Class::new("StringBuffer");
    func!(buffer, "create", StringBuilder::default);
    let mut character = Class::new("Character");
    let first = |s: &str| s.chars().next().unwrap_or('\0');
    func!(character, "isDigit", move |s: &str| first(s)
        .is_ascii_digit());
    func!(character, "isLetter", move |s: &str| first(s)
        .is_alphabetic());
    func!(character, "isLetterOrDigit", move |s: &str| first(s)
        .is_alphanumeric());
    func!(character, "isWhitespace", move |s: &str| first(s)
        .is_whitespace());
    func!(character, "isUpperCase", move |s: &str| first(s)
        .is_uppercase());
    func!(character, "isLowerCase", move |s: &str| first(s)
        .is_lowercase());
    func!(character, "toUpperCase", |s: &str| s.to_uppercase());
    func!(character, "toLowerCase", |s: &str| s.to_lowercase());
    let mut objects = Class::new("Objects");
    func!(objects, "isNull", |v: Dynamic| v.is_unit());
    func!(objects, "nonNull", |v: Dynamic| !v.is_unit());
    func!(objects, "toString", |v: Dynamic| java_string(&v));
    func!(objects, "equals", |a: Dynamic, b: Dynamic| java_string(&a)
        == java_string(&b)
        && a.type_name() == b.type_name());
    let mut utils = Class::new("StringUtils");
    func!(utils, "isEmpty", |v: Dynamic| v.is_unit()
        || java_string(&v).is_empty());
    func!(utils, "isNotEmpty", |v: Dynamic| !(v.is_unit()
        || java_string(&v).is_empty()));
    func!(utils, "isBlank", |v: Dynamic| v.is_unit()
        || java_string(&v).trim().is_empty());
    func!(utils, "isNotBlank", |v: Dynamic| !(v.is_unit()
        || java_string(&v).trim().is_empty()));
    func!(utils, "leftPad", |s: &str, n: INT, f: &str| pad(
        s, n, f, true
    ));
    func!(utils, "leftPad", |s: &str, n: INT| pad(s, n, " ", true));
    func!(utils, "rightPad", |s: &str, n: INT, f: &str| pad(
        s, n, f, false
    ));
    func!(utils, "capitalize", |s: &str| capitalize(s));
    func!(utils, "substringBetween", |s: &str,
                                      open: &str,
                                      close: &str|
     -> Dynamic {
        s.find(open)
            .and_then(|i| {
                let rest = &s[i + open.len()..];
                rest.find(close)
                    .map(|j| Dynamic::from(rest[..j].to_string()))
            })
            .unwrap_or(Dynamic::UNIT)
    });
    vec![string, builder, buffer, character, objects, utils]
}

pub(crate) fn register(engine: &mut Engine) {
    register_java_methods(engine);
    register_groovy_methods(engine);
    register_builder(engine);
}

fn register_java_methods(engine: &mut Engine) {
    engine
        .register_fn("length", |s: &str| s.chars().count() as INT)
        .register_get("length", |s: &mut ImmutableString| s.chars().count() as INT)
        .register_fn("substring", |s: &str, b: INT| {
            substring(s, b, s.chars().count() as INT)
        })
        .register_fn("substring", |s: &str, b: INT, e: INT| substring(s, b, e))
        .register_fn("indexOf", |s: &str, n: &str| index_of(s, n, 0))
        .register_fn("indexOf", |s: &str, n: &str, from: INT| {
            index_of(s, n, from)
        })
        .register_fn("lastIndexOf", |s: &str, n: &str| last_index_of(s, n))
        .register_fn("charAt", |s: &str, i: INT| char_at(s, i))
        .register_fn("toUpperCase", |s: &str| s.to_uppercase())
        .register_fn("toLowerCase", |s: &str| s.to_lowercase())
        .register_fn("trim", |s: &str| s.trim().to_string())
        .register_fn("strip", |s: &str| s.trim().to_string())
        .register_fn("startsWith", |s: &str, p: &str| s.starts_with(p))
        .register_fn("endsWith", |s: &str, p: &str| s.ends_with(p))
        .register_fn("equalsIgnoreCase", |s: &str, o: Dynamic| {
            o.read_lock::<ImmutableString>()
                .is_some_and(|o| o.to_lowercase() == s.to_lowercase())
        })
        .register_fn("isEmpty", |s: &str| s.is_empty())
        .register_fn("isBlank", |s: &str| s.trim().is_empty())
        .register_fn("replace", |s: &str, a: &str, b: &str| s.replace(a, b))
        .register_fn("concat", |s: &str, o: &str| format!("{s}{o}"))
        .register_fn("contains", |s: &str, o: &str| s.contains(o))
        .register_fn("hashCode", |s: &str| hash_code(s))
        .register_fn("getBytes", |s: &str| -> Blob { s.as_bytes().to_vec() })
        .register_fn("getBytes", |s: &str, _charset: Dynamic| -> Blob {
            s.as_bytes().to_vec()
        })
        .register_get("bytes", |s: &mut ImmutableString| -> Blob {
            s.as_bytes().to_vec()
        })
        .register_fn("toCharArray", |s: &str| -> Array {
            s.chars().map(|c| Dynamic::from(c.to_string())).collect()
        })
        .register_fn("compareToIgnoreCase", |s: &str, o: &str| {
            s.to_lowercase().cmp(&o.to_lowercase()) as INT
        })
        .register_fn("format", |s: &str, args: Array| java_format(s, &args))
        .register_fn("intern", |s: &str| s.to_string());
}

fn register_groovy_methods(engine: &mut Engine) {
    engine
        .register_fn("toInteger", |s: &str| parse_int(s.trim()))
        .register_fn("toLong", |s: &str| parse_int(s.trim()))
        .register_fn("toDouble", |s: &str| parse_double(s))
        .register_fn("toFloat", |s: &str| parse_double(s))
        .register_fn("toBigDecimal", |s: &str| parse_double(s))
        .register_fn("toBoolean", |s: &str| {
            matches!(s.trim().to_lowercase().as_str(), "true" | "y" | "1")
        })
        .register_fn("isNumber", |s: &str| parse_double(s).is_ok())
        .register_fn("isInteger", |s: &str| parse_int(s.trim()).is_ok())
        .register_fn("isLong", |s: &str| parse_int(s.trim()).is_ok())
        .register_fn("isDouble", |s: &str| parse_double(s).is_ok())
        .register_fn("size", |s: &str| s.chars().count() as INT)
        .register_fn("padLeft", |s: &str, n: INT| pad(s, n, " ", true))
        .register_fn("padLeft", |s: &str, n: INT, f: &str| pad(s, n, f, true))
        .register_fn("padRight", |s: &str, n: INT| pad(s, n, " ", false))
        .register_fn("padRight", |s: &str, n: INT, f: &str| pad(s, n, f, false))
        .register_fn("capitalize", |s: &str| capitalize(s))
        .register_fn("reverse", |s: &str| s.chars().rev().collect::<String>())
        .register_fn("tokenize", |s: &str| -> Array {
            s.split_whitespace()
                .map(|p| Dynamic::from(p.to_string()))
                .collect()
        })
        .register_fn("tokenize", |s: &str, separators: &str| -> Array {
            s.split(|c| separators.contains(c))
                .filter(|p| !p.is_empty())
                .map(|p| Dynamic::from(p.to_string()))
                .collect()
        })
        .register_fn("readLines", |s: &str| -> Array {
            s.lines().map(|l| Dynamic::from(l.to_string())).collect()
        })
        .register_fn("count", |s: &str, n: &str| s.matches(n).count() as INT)
        .register_fn("multiply", |s: &str, n: INT| s.repeat(n.max(0) as usize))
        .register_fn("*", |s: &str, n: INT| s.repeat(n.max(0) as usize))
        .register_fn("minus", |s: &str, o: &str| s.replacen(o, "", 1))
        .register_fn("plus", |s: &str, o: Dynamic| {
            format!("{s}{}", java_string(&o))
        })
        .register_fn("center", |s: &str, n: INT| {
            let missing = (n.max(0) as usize).saturating_sub(s.chars().count());
            format!(
                "{}{s}{}",
                " ".repeat(missing / 2),
                " ".repeat(missing - missing / 2)
            )
        })
        .register_fn("take", |s: &str, n: INT| {
            s.chars().take(n.max(0) as usize).collect::<String>()
        })
        .register_fn("drop", |s: &str, n: INT| {
            s.chars().skip(n.max(0) as usize).collect::<String>()
        })
        .register_fn("md5", |s: &str| hex_digest("MD5", s))
        .register_fn("sha256", |s: &str| hex_digest("SHA-256", s))
        .register_fn("encodeBase64", |s: &str| {
            crate::expr::functions::encoding::base64(s.as_bytes())
        })
        .register_fn("decodeBase64", |s: &str| -> Blob {
            crate::expr::functions::encoding::unbase64(s)
        })
        .register_fn("stripIndent", |s: &str| {
            s.lines()
                .map(str::trim_start)
                .collect::<Vec<_>>()
                .join("\n")
        });
}

fn hex_digest(algorithm: &str, text: &str) -> String {
    let digest = crate::expr::hashes::digest(algorithm, text.as_bytes()).unwrap_or_default();
    crate::expr::hashes::hex(&digest)
}

fn register_builder(engine: &mut Engine) {
    engine
        .register_type_with_name::<StringBuilder>("StringBuilder")
        .register_fn("append", |b: &mut StringBuilder, v: Dynamic| {
            b.0.lock().push_str(&java_string(&v));
            b.clone()
        })
        .register_fn("push", |b: &mut StringBuilder, v: Dynamic| {
            b.0.lock().push_str(&java_string(&v));
        })
        .register_fn("toString", |b: &mut StringBuilder| b.text())
        .register_fn("to_string", |b: &mut StringBuilder| b.text())
        .register_fn("length", |b: &mut StringBuilder| {
            b.0.lock().chars().count() as INT
        })
        .register_fn("size", |b: &mut StringBuilder| {
            b.0.lock().chars().count() as INT
        })
        .register_fn("insert", |b: &mut StringBuilder, at: INT, v: Dynamic| {
            let mut text = b.0.lock();
            let byte = text
                .char_indices()
                .nth(at.max(0) as usize)
                .map_or(text.len(), |(i, _)| i);
            text.insert_str(byte, &java_string(&v));
            drop(text);
            b.clone()
        })
        .register_fn("reverse", |b: &mut StringBuilder| {
            let reversed: String = b.0.lock().chars().rev().collect();
            *b.0.lock() = reversed;
            b.clone()
        })
        .register_fn("setLength", |b: &mut StringBuilder, n: INT| {
            let mut text = b.0.lock();
            let kept: String = text.chars().take(n.max(0) as usize).collect();
            *text = kept;
        })
        .register_fn("deleteCharAt", |b: &mut StringBuilder, at: INT| {
            let mut text = b.0.lock();
            let kept: String = text
                .chars()
                .enumerate()
                .filter(|(i, _)| *i as INT != at)
                .map(|(_, c)| c)
                .collect();
            *text = kept;
            drop(text);
            b.clone()
        })
        .register_fn("charAt", |b: &mut StringBuilder, i: INT| {
            char_at(&b.text(), i)
        })
        .register_fn("indexOf", |b: &mut StringBuilder, n: &str| {
            index_of(&b.text(), n, 0)
        })
        .register_fn("isEmpty", |b: &mut StringBuilder| b.0.lock().is_empty())
        .register_fn("+", |s: &str, b: StringBuilder| format!("{s}{}", b.text()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_string_format() {
        let args = vec![
            Dynamic::from(5_i64),
            Dynamic::from(1.23456),
            Dynamic::from("x"),
        ];
        assert_eq!(
            java_format("%03d|%.2f|%-3s|%%", &args).unwrap(),
            "005|1.23|x  |%"
        );
        assert_eq!(hash_code("hello"), 99162322);
        assert_eq!(substring("hello", 1, 3).unwrap(), "el");
        assert_eq!(index_of("hello", "l", 0), 2);
    }
}
