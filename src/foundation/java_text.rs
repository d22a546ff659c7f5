//! Java's `String.trim`, which the elements' settings are read with.

/// Java's `String.trim`: strips every character up to and including the space (control
/// characters too, but not Unicode's other spaces, which Rust's `trim` would take).
/// All of those characters are single ASCII bytes, so the bytes are looked at directly.
pub fn java_trim(text: &str) -> &str {
    let bytes = text.as_bytes();
    let start = bytes.iter().position(|&b| b > b' ').unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b > b' ')
        .map_or(start, |last| last + 1);
    // Both ends sit next to an ASCII byte or at the text's ends: character boundaries.
    &text[start..end]
}

#[cfg(test)]
mod tests {
    use super::java_trim;

    #[test]
    fn strips_control_characters_and_spaces_but_not_other_unicode_spaces() {
        assert_eq!(java_trim("  a b \t\r\n"), "a b");
        assert_eq!(java_trim("\u{0}\u{1f}x\u{7}"), "x");
        assert_eq!(java_trim("\u{a0}5\u{3000}"), "\u{a0}5\u{3000}");
        assert_eq!(java_trim(" é "), "é");
        assert_eq!(java_trim("   "), "");
        assert_eq!(java_trim(""), "");
        assert_eq!(java_trim("x"), "x");
    }
}
