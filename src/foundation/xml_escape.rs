//! XML 1.0 text escaping as commons-lang3 `escapeXml10` does it, for every XML jmxr writes
//! outside the `.jtl` (whose XStream rules live in `results::xml`).

/// The five entities; characters XML 1.0 forbids are dropped; the C1 control block is
/// written as numeric references.
pub fn escape_xml10(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("&quot;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => {}
            '\u{7f}'..='\u{84}' | '\u{86}'..='\u{9f}' => {
                out.push_str(&format!("&#{};", c as u32));
            }
            _ => out.push(c),
        }
    }
    out
}
