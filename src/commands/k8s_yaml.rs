//! YAML text for the Kubernetes manifests `k8s_job` prints: scalars quoted so that any
//! string stays a string, and file contents as literal blocks when they read back
//! byte for byte, otherwise as one double-quoted (JSON-escaped) line.

use std::fmt::Write as _;

/// A string as a double-quoted YAML scalar (JSON's escapes are valid YAML).
pub fn quoted(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// `key: <content>` at `indent` spaces, the content as a literal block when that keeps
/// every byte (no carriage returns, no control characters, no lines of only spaces),
/// otherwise quoted.
pub fn file_entry(out: &mut String, indent: usize, key: &str, content: &str) {
    let pad = " ".repeat(indent);
    if content.is_empty() || !block_safe(content) {
        let _ = writeln!(out, "{pad}{}: {}", quoted(key), quoted(content));
        return;
    }
    let trailing = content.len() - content.trim_end_matches('\n').len();
    let chomp = match trailing {
        0 => "-",
        1 => "",
        _ => "+",
    };
    // The indentation indicator keeps a first line that starts with spaces as content.
    let _ = writeln!(out, "{pad}{}: |2{chomp}", quoted(key));
    let body = content.strip_suffix('\n').unwrap_or(content);
    for line in body.split('\n') {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "{pad}  {line}");
        }
    }
}

fn block_safe(content: &str) -> bool {
    let printable = content
        .chars()
        .all(|c| c == '\n' || c == '\t' || !(c.is_control() || c == '\u{feff}'));
    let blank_with_spaces = content
        .split('\n')
        .any(|line| !line.is_empty() && line.trim().is_empty());
    printable && !blank_with_spaces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_say_how_many_newlines_end_the_content() {
        let mut out = String::new();
        file_entry(&mut out, 2, "a", "x\n  y\n");
        file_entry(&mut out, 2, "b", "x");
        file_entry(&mut out, 2, "c", "x\n\n");
        assert_eq!(
            out,
            "  \"a\": |2\n    x\n      y\n  \"b\": |2-\n    x\n  \"c\": |2+\n    x\n\n"
        );
    }

    #[test]
    fn content_a_block_would_change_is_quoted() {
        let mut out = String::new();
        file_entry(&mut out, 0, "a", "x\r\ny");
        file_entry(&mut out, 0, "b", "x\n   \ny");
        assert_eq!(out, "\"a\": \"x\\r\\ny\"\n\"b\": \"x\\n   \\ny\"\n");
    }
}
