//! The SQL text pgjdbc sends for a prepared or callable statement (`Parser.parseJdbcSql`):
//! each JDBC `?` placeholder becomes PostgreSQL's `$1`, `$2`..., while `?` inside
//! string literals, quoted identifiers, dollar-quoted bodies and comments stays as
//! written, and `??` stands for one literal `?` (the JSON operators); JDBC call escapes
//! become `select * from f(...) as result` ([`jdbc_call`]).

/// Rewrites the `?` placeholders of `sql` to `$n`.
pub fn native_placeholders(sql: &str) -> String {
    let bytes = sql.as_bytes();
    let mut out = String::with_capacity(sql.len() + 8);
    let mut copied = 0;
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() {
        let skip_to = match bytes[i] {
            b'\'' => closing(bytes, i + 1, b'\''),
            b'"' => closing(bytes, i + 1, b'"'),
            b'-' if bytes.get(i + 1) == Some(&b'-') => bytes[i..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| i + p + 1),
            b'/' if bytes.get(i + 1) == Some(&b'*') => block_comment_end(bytes, i + 2),
            b'$' => dollar_quote_end(sql, i).unwrap_or(i + 1),
            b'?' => {
                out.push_str(&sql[copied..i]);
                if bytes.get(i + 1) == Some(&b'?') {
                    out.push('?');
                    copied = i + 2;
                    i += 2;
                } else {
                    count += 1;
                    out.push('$');
                    out.push_str(&count.to_string());
                    copied = i + 1;
                    i += 1;
                }
                continue;
            }
            _ => i + 1,
        };
        i = skip_to;
    }
    out.push_str(&sql[copied.min(sql.len())..]);
    out
}

/// The index after the quote closing a literal opened before `from` (a doubled quote
/// is part of the literal).
fn closing(bytes: &[u8], from: usize, quote: u8) -> usize {
    let mut i = from;
    while i < bytes.len() {
        if bytes[i] == quote {
            if bytes.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    bytes.len()
}

/// The index after a block comment whose body starts at `from`; comments nest.
fn block_comment_end(bytes: &[u8], from: usize) -> usize {
    let mut depth = 1;
    let mut i = from;
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// For a `$tag$` starting at `at`, the index after its closing `$tag$`; `None` when
/// the `$` opens no dollar quote (`$1`, or a `$` inside an identifier).
fn dollar_quote_end(sql: &str, at: usize) -> Option<usize> {
    let bytes = sql.as_bytes();
    if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
        return None;
    }
    let tag_len = bytes[at + 1..]
        .iter()
        .position(|&b| !(b.is_ascii_alphabetic() || b == b'_' || b.is_ascii_digit()))?;
    if bytes.get(at + 1 + tag_len) != Some(&b'$')
        || bytes.get(at + 1).is_some_and(u8::is_ascii_digit)
    {
        return None;
    }
    let tag = &sql[at..at + tag_len + 2];
    let body = at + tag.len();
    Some(
        sql[body..]
            .find(tag)
            .map_or(sql.len(), |p| body + p + tag.len()),
    )
}

/// What pgjdbc makes of a callable statement's SQL (`Parser.modifyJdbcCall`): the JDBC
/// escape `{[? =] call f(...)}` becomes `select * from f(...) as result` (the `?` before
/// `=` moved in as the first argument); a native `CALL` stays. The flag says whether
/// the call returns its OUT parameters as one row.
pub fn jdbc_call(sql: &str) -> (String, bool) {
    let trimmed = sql.trim();
    let Some(inner) = trimmed.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
        let native_call = trimmed.len() > 5
            && trimmed[..4].eq_ignore_ascii_case("call")
            && trimmed[4..].starts_with(char::is_whitespace);
        return (sql.to_string(), native_call);
    };
    let inner = inner.trim();
    let (out_first, call) = match inner.strip_prefix('?') {
        Some(rest) => (
            true,
            rest.trim_start()
                .strip_prefix('=')
                .unwrap_or(rest)
                .trim_start(),
        ),
        None => (false, inner),
    };
    let body = if call.len() > 4 && call[..4].eq_ignore_ascii_case("call") {
        call[4..].trim_start()
    } else {
        return (sql.to_string(), false);
    };
    let mut text = String::from("select * from ");
    match body.find('(') {
        None => {
            text.push_str(body);
            text.push_str(if out_first { "(?)" } else { "()" });
        }
        Some(open) => {
            text.push_str(&body[..=open]);
            let args = &body[open + 1..];
            if out_first {
                let empty = args.trim_start().starts_with(')');
                text.push_str(if empty { "?" } else { "?," });
            }
            text.push_str(args);
        }
    }
    text.push_str(" as result");
    (text, true)
}

#[cfg(test)]
mod tests {
    use super::{jdbc_call, native_placeholders};

    #[test]
    fn placeholders_are_numbered_outside_literals_and_comments() {
        assert_eq!(
            native_placeholders("select a from t where id = ? and p > ?"),
            "select a from t where id = $1 and p > $2"
        );
        assert_eq!(
            native_placeholders(
                "select '?', \"a?\", x ?? 'k' from t -- ?\nwhere y = ? /* ? /* ? */ */"
            ),
            "select '?', \"a?\", x ? 'k' from t -- ?\nwhere y = $1 /* ? /* ? */ */"
        );
        assert_eq!(
            native_placeholders("select $q$ it's ? $q$, 'it''s ?', ?"),
            "select $q$ it's ? $q$, 'it''s ?', $1"
        );
        assert_eq!(native_placeholders("select $1, ?"), "select $1, $1");
    }

    #[test]
    fn jdbc_call_escapes_become_selects_as_pgjdbc_rewrites_them() {
        assert_eq!(
            jdbc_call("{? = call add_one(?)}"),
            ("select * from add_one(?,?) as result".into(), true)
        );
        assert_eq!(
            jdbc_call("{call f(?, ?)}"),
            ("select * from f(?, ?) as result".into(), true)
        );
        assert_eq!(
            jdbc_call("{ ? = call now }"),
            ("select * from now(?) as result".into(), true)
        );
        assert_eq!(jdbc_call("CALL p(?)"), ("CALL p(?)".into(), true));
        assert_eq!(jdbc_call("select f(?)"), ("select f(?)".into(), false));
    }
}
