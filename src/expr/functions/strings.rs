//! Text functions: `__char`, `__changeCase`, `__urlencode`, `__urldecode`, `__unescape`,
//! `__escapeXml`, `__escapeHtml`, `__unescapeHtml`, and the jmeter-plugins `__strLen`.

use super::html_entities;
use super::log::emit;
use super::{arg, stateless, store, Constructor, Function};
use crate::expr::Template;
use crate::foundation::xml_escape::escape_xml10;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__char", char_fn),
    ("__changeCase", change_case),
    ("__urlencode", urlencode),
    ("__urldecode", urldecode),
    ("__unescape", unescape),
    ("__escapeXml", escape_xml),
    ("__escapeHtml", escape_html),
    ("__unescapeHtml", unescape_html),
    ("__strLen", str_len),
];

/// `__strLen(text[,variable])` (jmeter-plugins): the length in UTF-16 code units, as Java
/// counts it.
fn str_len(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, usize::MAX, |args, ctx| {
        let length = arg(args, 0, ctx).encode_utf16().count().to_string();
        store(args, 1, ctx, &length);
        length
    })
}

/// `__char(n1[,n2...])`: UTF-16 code units written in decimal, `0x`/`#` hex or `0` octal.
/// Like Java's `(char)` cast, each number keeps its low 16 bits, so surrogate pairs can be
/// written as two numbers.
fn char_fn(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, usize::MAX, |args, ctx| {
        let mut units = Vec::with_capacity(args.len());
        for template in args {
            let text = template.eval(ctx);
            match java_decode(text.trim()) {
                Some(value) => units.push(value as u16),
                None => emit(
                    "WARN",
                    &format!("__char: could not parse {:?}", text.trim()),
                ),
            }
        }
        String::from_utf16_lossy(&units)
    })
}

/// Java's `Long.decode`: optional sign, then `0x`, `0X` or `#` for hex, a leading `0` for octal.
fn java_decode(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
        .or_else(|| digits.strip_prefix('#'))
    {
        (16, hex)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    if digits.is_empty() || digits.starts_with(['-', '+']) {
        return None;
    }
    let magnitude = i64::from_str_radix(digits, radix).ok()?;
    Some(if negative { -magnitude } else { magnitude })
}

/// `__changeCase(text[,mode[,var]])`: UPPER (default), LOWER or CAPITALIZE, any case;
/// an unknown mode returns the text unchanged.
fn change_case(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 3, |args, ctx| {
        let text = arg(args, 0, ctx);
        let mode = arg(args, 1, ctx);
        let result = match mode.to_uppercase().as_str() {
            "" | "UPPER" => text.to_uppercase(),
            "LOWER" => text.to_lowercase(),
            "CAPITALIZE" => capitalize(&text),
            _ => {
                emit("ERROR", &format!("__changeCase: unknown mode {mode}"));
                text
            }
        };
        store(args, 2, ctx, &result);
        result
    })
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `application/x-www-form-urlencoded` in UTF-8, as Java's `URLEncoder`.
fn urlencode(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 1, |args, ctx| {
        form_urlencoded::byte_serialize(arg(args, 0, ctx).as_bytes()).collect()
    })
}

fn urldecode(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 1, |args, ctx| {
        let text = arg(args, 0, ctx).replace('+', " ");
        percent_encoding::percent_decode_str(&text)
            .decode_utf8_lossy()
            .into_owned()
    })
}

/// `__unescape(text)`: Java string escapes (`\n`, `\t`, `\uXXXX`, octal).
fn unescape(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 1, |args, ctx| unescape_java(&arg(args, 0, ctx)))
}

/// commons-lang3 `unescapeJava`: a backslash before an unknown character is dropped, and a
/// malformed `\u` is kept as written.
fn unescape_java(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut units: Vec<u16> = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let (decoded, used) = match (c, next) {
            ('\\', Some('u')) => unicode_escape(&chars[i + 1..]),
            ('\\', Some(d @ '0'..='7')) => octal_escape(d, &chars[i + 2..]),
            ('\\', Some(n)) => (Some(control_escape(n)), 2),
            ('\\', None) => (Some(vec![]), 1),
            _ => (None, 1),
        };
        match decoded {
            Some(decoded) => units.extend(decoded),
            None => units.extend(chars[i..i + used].iter().flat_map(|c| utf16(*c))),
        }
        i += used;
    }
    String::from_utf16_lossy(&units)
}

fn utf16(c: char) -> Vec<u16> {
    let mut buf = [0u16; 2];
    c.encode_utf16(&mut buf).to_vec()
}

fn control_escape(c: char) -> Vec<u16> {
    let mapped = match c {
        'b' => '\u{8}',
        'f' => '\u{c}',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        other => other,
    };
    utf16(mapped)
}

/// `after` starts at the `u`: any number of `u`, an optional `+`, then four hex digits.
/// Returns the unit and how many characters (with the backslash) it used.
fn unicode_escape(after: &[char]) -> (Option<Vec<u16>>, usize) {
    let mut pos = after.iter().take_while(|c| **c == 'u').count();
    if after.get(pos) == Some(&'+') {
        pos += 1;
    }
    let hex: String = after.iter().skip(pos).take(4).collect();
    let well_formed = hex.len() == 4 && hex.chars().all(|c| c.is_ascii_hexdigit());
    match u16::from_str_radix(&hex, 16) {
        Ok(unit) if well_formed => (Some(vec![unit]), 1 + pos + 4),
        // Malformed: keep the backslash and let the rest pass through.
        _ => (None, 1),
    }
}

/// Up to three octal digits, the value at most `\377`.
fn octal_escape(first: char, after: &[char]) -> (Option<Vec<u16>>, usize) {
    let max_digits = if first <= '3' { 3 } else { 2 };
    let mut digits = first.to_string();
    digits.extend(
        after
            .iter()
            .take(max_digits - 1)
            .take_while(|c| ('0'..='7').contains(*c)),
    );
    let value = u16::from_str_radix(&digits, 8).unwrap_or(0);
    (Some(vec![value]), 1 + digits.len())
}

/// `__escapeXml`: commons-lang3 `escapeXml10`.
fn escape_xml(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 1, |args, ctx| escape_xml10(&arg(args, 0, ctx)))
}

/// HTML 4 escaping as commons-lang3 `escapeHtml4` (the apostrophe is left alone).
fn escape_html(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 1, |args, ctx| {
        let text = arg(args, 0, ctx);
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            match html_entities::name_of(c) {
                Some(name) => {
                    out.push('&');
                    out.push_str(name);
                    out.push(';');
                }
                None => out.push(c),
            }
        }
        out
    })
}

fn unescape_html(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 1, |args, ctx| unescape_html4(&arg(args, 0, ctx)))
}

/// Named HTML 4 entities and numeric references (`&#233;`, `&#xE9;`); the `;` is required.
pub(crate) fn unescape_html4(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest[1..]
            .find(';')
            .and_then(|end| entity_value(&rest[1..1 + end]).map(|c| (c, end + 2)));
        match decoded {
            Some((c, used)) => {
                out.push(c);
                rest = &rest[used..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity_value(body: &str) -> Option<char> {
    let Some(number) = body.strip_prefix('#') else {
        return html_entities::char_of(body);
    };
    let (radix, digits) = match number.strip_prefix(['x', 'X']) {
        Some(hex) => (16, hex),
        None => (10, number),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u32::from_str_radix(digits, radix)
        .ok()
        .and_then(char::from_u32)
}

#[cfg(test)]
#[path = "strings_tests.rs"]
mod tests;
