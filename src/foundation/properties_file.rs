//! Java `.properties` files, read the way `java.util.Properties.load` reads them, and
//! the property defaults jmxr ships (the values of JMeter 5.6.3's `bin/jmeter.properties`
//! that change what a run writes).

use std::collections::HashMap;
use std::path::Path;

/// The settings of JMeter's shipped `jmeter.properties` that are not commented out and
/// that jmxr honours. Used when no `-p` file is given.
pub const SHIPPED_DEFAULTS: &[(&str, &str)] = &[
    ("sampleresult.timestamp.start", "true"),
    ("summariser.name", "summary"),
    ("summariser.interval", "30"),
    ("summariser.log", "true"),
    ("summariser.out", "true"),
    ("jmeter.reportgenerator.apdex_satisfied_threshold", "500"),
    ("jmeter.reportgenerator.apdex_tolerated_threshold", "1500"),
    ("user.properties", "user.properties"),
    ("system.properties", "system.properties"),
];

/// Parses properties text: `key=value`, `key: value` or `key value`, `#`/`!` comments,
/// `\` line continuations, and the escapes `\t \n \r \f \uXXXX`.
pub fn parse(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(first) = lines.next() {
        let mut logical = first.trim_start().to_string();
        if logical.is_empty() || logical.starts_with('#') || logical.starts_with('!') {
            continue;
        }
        while ends_with_continuation(&logical) {
            logical.pop();
            match lines.next() {
                Some(next) => logical.push_str(next.trim_start()),
                None => break,
            }
        }
        out.push(split_entry(&logical));
    }
    out
}

fn ends_with_continuation(line: &str) -> bool {
    line.chars().rev().take_while(|c| *c == '\\').count() % 2 == 1
}

fn split_entry(line: &str) -> (String, String) {
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let mut key_end = chars.len();
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '=' | ':' | ' ' | '\t' | '\x0c' => {
                key_end = i;
                break;
            }
            _ => i += 1,
        }
    }
    let key: String = chars[..key_end.min(chars.len())].iter().collect();
    let mut j = key_end;
    while j < chars.len() && matches!(chars[j], ' ' | '\t' | '\x0c') {
        j += 1;
    }
    if j < chars.len() && matches!(chars[j], '=' | ':') {
        j += 1;
    }
    while j < chars.len() && matches!(chars[j], ' ' | '\t' | '\x0c') {
        j += 1;
    }
    let value: String = chars[j.min(chars.len())..].iter().collect();
    (unescape(&key), unescape(&value))
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\x0c'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) => out.push(decoded),
                    None => out.push_str(&hex),
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// Reads a properties file into `into`, later keys overriding earlier ones.
pub fn load_into(path: &Path, into: &mut HashMap<String, String>) -> std::io::Result<()> {
    let bytes = std::fs::read(path)?;
    // Java reads .properties as ISO-8859-1; bytes above 0x7F map to the same code points.
    let text: String = bytes.iter().map(|&b| b as char).collect();
    into.extend(parse(&text));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_java_properties_syntax() {
        let text = "# comment\n! also\na=1\nb : 2\nc 3\n  d=four \\\n   five\ne=\\u0041\\tx\nf\n";
        let parsed: HashMap<_, _> = parse(text).into_iter().collect();
        assert_eq!(parsed["a"], "1");
        assert_eq!(parsed["b"], "2");
        assert_eq!(parsed["c"], "3");
        assert_eq!(parsed["d"], "four five");
        assert_eq!(parsed["e"], "A\tx");
        assert_eq!(parsed["f"], "");
    }
}
