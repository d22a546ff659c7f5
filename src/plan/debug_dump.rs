//! The sections JMeter's debug elements write, shared by the Debug Sampler (its body)
//! and the Debug PostProcessor (its sub-result): a title line, the entries sorted with
//! JMeter's alphanumeric comparator, a blank line. There is no JVM, so the system
//! properties are the Java ones that have a native meaning (see the Debug Sampler).

use std::cmp::Ordering;

/// Appends one section: header, sorted `name=value` lines, blank line.
pub fn write_section(
    body: &mut String,
    sections: &mut String,
    title: &str,
    mut entries: Vec<(String, String)>,
) {
    sections.push_str(title);
    sections.push('\n');
    body.push_str(title);
    body.push_str(":\n");
    // Plain order first so names the comparator calls equal (`a01`, `a1`) come out the
    // same on every run; the sort is stable.
    entries.sort();
    entries.sort_by(|a, b| alphanumeric_cmp(&a.0, &b.0));
    for (name, value) in entries {
        body.push_str(&name);
        body.push('=');
        body.push_str(&value);
        body.push('\n');
    }
    body.push('\n');
}

/// JMeter's `AlphaNumericComparator`: both names are cut into (non-digits, digits)
/// runs compared pairwise; text runs compare as Java strings, digit runs as numbers
/// (leading zeros ignored), and a missing digit run sorts first. Two names are equal as
/// soon as a pair of runs has no digits on both sides.
pub fn alphanumeric_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        let (a_text, a_digits, a_rest) = next_run(a);
        let (b_text, b_digits, b_rest) = next_run(b);
        let text = a_text.encode_utf16().cmp(b_text.encode_utf16());
        if text != Ordering::Equal {
            return text;
        }
        match (a_digits.is_empty(), b_digits.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        let a_num = a_digits.trim_start_matches('0');
        let b_num = b_digits.trim_start_matches('0');
        let number = a_num.len().cmp(&b_num.len()).then_with(|| a_num.cmp(b_num));
        if number != Ordering::Equal {
            return number;
        }
        a = a_rest;
        b = b_rest;
    }
}

/// Splits off the leading non-digit run and the digit run after it (ASCII digits, as
/// Java's `\d`), returning them and the rest.
fn next_run(s: &str) -> (&str, &str, &str) {
    let text_end = s.find(|c: char| c.is_ascii_digit()).unwrap_or(s.len());
    let (text, rest) = s.split_at(text_end);
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (digits, rest) = rest.split_at(digits_end);
    (text, digits, rest)
}

/// The native stand-ins for Java system properties (see the module docs).
pub fn system_properties() -> Vec<(String, String)> {
    let os_name = match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "Mac OS X",
        "windows" => "Windows",
        other => other,
    };
    let os_arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "x86" => "x86",
        other => other,
    };
    let env = |names: &[&str]| {
        names
            .iter()
            .find_map(|name| std::env::var(name).ok())
            .unwrap_or_default()
    };
    let current_dir = std::env::current_dir()
        .map(|dir| dir.display().to_string())
        .unwrap_or_default();
    let line_separator = if cfg!(windows) { "\r\n" } else { "\n" };
    let path_separator = if cfg!(windows) { ";" } else { ":" };
    [
        ("file.encoding", "UTF-8".to_string()),
        ("file.separator", std::path::MAIN_SEPARATOR.to_string()),
        ("java.io.tmpdir", std::env::temp_dir().display().to_string()),
        ("jmxr.version", env!("CARGO_PKG_VERSION").to_string()),
        ("line.separator", line_separator.to_string()),
        ("os.arch", os_arch.to_string()),
        ("os.name", os_name.to_string()),
        ("path.separator", path_separator.to_string()),
        ("user.dir", current_dir),
        ("user.home", env(&["HOME", "USERPROFILE"])),
        ("user.name", env(&["USER", "USERNAME", "LOGNAME"])),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_with_numbers_compared_as_numbers() {
        use Ordering::*;
        assert_eq!(alphanumeric_cmp("v2", "v10"), Less);
        assert_eq!(alphanumeric_cmp("v10", "v2"), Greater);
        assert_eq!(alphanumeric_cmp("B", "a"), Less, "case-sensitive, as Java");
        assert_eq!(alphanumeric_cmp("a1", "a1b"), Less);
        assert_eq!(alphanumeric_cmp("a", "a1"), Less);
        assert_eq!(alphanumeric_cmp("a01", "a1"), Equal);
        assert_eq!(alphanumeric_cmp("1x", "x"), Less);
        assert_eq!(alphanumeric_cmp("", "a"), Less);
        assert_eq!(alphanumeric_cmp("abc", "abc"), Equal);
        assert_eq!(alphanumeric_cmp("x_9_b", "x_10_a"), Less);
    }
}
