//! The check JMeter's HttpClient 4 implementation makes before it sends anything: the
//! sample's URL must parse as a `java.net.URI` (RFC 2396 with Java's deviations). A
//! query value sent without "URL-encode?" may hold characters no URI allows (a space, a
//! quote, braces); JMeter then fails the sample on the client side with
//! `java.net.URISyntaxException` and the parser's message, and the server sees nothing.
//!
//! Only what the parser rejects in a URL jmxr builds matters here: the scheme is `http`
//! or `https` and the host came from the plan, so the check covers the authority loosely
//! (characters only) and the path, query and fragment exactly.

/// The exception class JMeter reports.
pub const URI_SYNTAX_EXCEPTION: &str = "java.net.URISyntaxException";

/// Characters of a URI component, as the parser's character classes.
#[derive(Clone, Copy)]
enum Component {
    Authority,
    Path,
    /// Query and fragment share the class `uric`.
    Uric,
}

impl Component {
    fn name(self) -> &'static str {
        match self {
            Component::Authority => "authority",
            Component::Path => "path",
            Component::Uric => "query",
        }
    }

    /// Whether the ASCII character `c` stands for itself in this component.
    fn allows(self, c: u8) -> bool {
        const MARK: &[u8] = b"-_.!~*'()";
        let unreserved = c.is_ascii_alphanumeric() || MARK.contains(&c);
        unreserved
            || match self {
                // The union of server-based and registry-based authority characters.
                Component::Authority => b";:&=+$,@[].".contains(&c),
                Component::Path => b":@&=+$,;/".contains(&c),
                Component::Uric => b";/?:@&=+$,[]".contains(&c),
            }
    }
}

/// `Ok` when `url` parses as a `java.net.URI`, else the exception's message:
/// `Illegal character in query at index 24: http://host/q?p=a b`.
pub fn check(url: &str) -> Result<(), String> {
    let Some((scheme, rest)) = url.split_once("://") else {
        return Ok(());
    };
    let mut index = utf16_len(scheme) + 3;
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, rest) = rest.split_at(authority_end);
    if first_illegal(authority, Component::Authority).is_some() {
        // The parser reports where the authority starts when neither a server nor a
        // registry name fits.
        return Err(fail("Illegal character in authority", index, url));
    }
    index += utf16_len(authority);
    let path_end = rest.find(['?', '#']).unwrap_or(rest.len());
    let (path, mut rest) = rest.split_at(path_end);
    check_component(path, Component::Path, index, url)?;
    index += utf16_len(path);
    if let Some(after) = rest.strip_prefix('?') {
        index += 1;
        let query_end = after.find('#').unwrap_or(after.len());
        let (query, tail) = after.split_at(query_end);
        check_component(query, Component::Uric, index, url)?;
        index += utf16_len(query);
        rest = tail;
    }
    if let Some(fragment) = rest.strip_prefix('#') {
        index += 1;
        if let Some((at, reason)) = first_illegal(fragment, Component::Uric) {
            let reason = reason.replace("query", "fragment");
            return Err(fail(&reason, index + at, url));
        }
    }
    Ok(())
}

fn check_component(
    text: &str,
    component: Component,
    start: usize,
    url: &str,
) -> Result<(), String> {
    match first_illegal(text, component) {
        Some((at, reason)) => Err(fail(&reason, start + at, url)),
        None => Ok(()),
    }
}

/// The UTF-16 index (Java's string index) and reason of the first character the
/// component does not allow.
fn first_illegal(text: &str, component: Component) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let mut index = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c.is_ascii() {
            let b = c as u8;
            if b == b'%' {
                let hex = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_hexdigit);
                if !(hex(at + 1) && hex(at + 2)) {
                    return Some((index, "Malformed escape pair".to_string()));
                }
                chars.next();
                chars.next();
                index += 3;
                continue;
            }
            if !component.allows(b) {
                return Some((index, format!("Illegal character in {}", component.name())));
            }
        } else if is_java_space_char(c) || c.is_control() {
            // Visible non-ASCII characters may stand unescaped; spaces and controls not.
            return Some((index, format!("Illegal character in {}", component.name())));
        }
        index += c.len_utf16();
    }
    None
}

/// Java's `Character.isSpaceChar`: the Unicode space separators, line and paragraph
/// separators.
fn is_java_space_char(c: char) -> bool {
    matches!(
        c,
        '\u{00A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}' | '\u{2028}' | '\u{2029}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

fn utf16_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

fn fail(reason: &str, index: usize, url: &str) -> String {
    format!("{reason} at index {index}: {url}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_legal_url_passes() {
        for url in [
            "http://h:8080/a/b;c?x=1&y=[2]&z=%41#frag",
            "https://h/",
            "http://h/p%20q?é=ü",
            "http://user@h:1/~x(1)*!'",
        ] {
            assert_eq!(check(url), Ok(()), "{url}");
        }
    }

    #[test]
    fn illegal_query_characters_are_reported_at_their_java_index() {
        assert_eq!(
            check("http://127.0.0.1:8080/q?p=a b\"{c}"),
            Err(
                "Illegal character in query at index 27: http://127.0.0.1:8080/q?p=a b\"{c}".into()
            )
        );
        assert_eq!(
            check("http://h/q?p=<t>"),
            Err("Illegal character in query at index 13: http://h/q?p=<t>".into())
        );
        // Index in UTF-16 units, as Java counts.
        assert_eq!(
            check("http://h/q?é𝄞=a|b"),
            Err("Illegal character in query at index 16: http://h/q?é𝄞=a|b".into())
        );
    }

    #[test]
    fn escapes_paths_and_fragments() {
        assert_eq!(
            check("http://h/q?p=100%"),
            Err("Malformed escape pair at index 16: http://h/q?p=100%".into())
        );
        assert_eq!(
            check("http://h/a{b}"),
            Err("Illegal character in path at index 10: http://h/a{b}".into())
        );
        assert_eq!(
            check("http://h/a?b#c#d"),
            Err("Illegal character in fragment at index 14: http://h/a?b#c#d".into())
        );
        assert_eq!(
            check("http://h/a[1]"),
            Err("Illegal character in path at index 10: http://h/a[1]".into())
        );
    }

    #[test]
    fn an_illegal_authority_is_reported_where_it_starts() {
        assert_eq!(
            check("http://a b/"),
            Err("Illegal character in authority at index 7: http://a b/".into())
        );
    }
}
