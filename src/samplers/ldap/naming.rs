//! LDAP failures in the words of Java's JNDI LDAP provider, which JMeter's LDAP samplers
//! use: the exception class a result code maps to, the `[LDAP: error code N - text]`
//! message (the server's diagnostic text, or JNDI's built-in name of the code when the
//! server sent none), and `NamingException.toString()` with its root cause and remaining
//! name. The LDAP Request reports that text whole; the LDAP Extended Request cuts its
//! code and message out of it ([`extended_code_and_message`]).
//!
//! Search filters are checked here as JNDI checks them before sending (so a bad filter
//! fails with JNDI's `InvalidSearchFilterException`), and a compare filter is
//! recognised as JNDI recognises the searches it turns into LDAP compare operations.

use std::fmt;

/// A JNDI `NamingException` (or subclass), as its `toString()` prints it.
#[derive(Debug, Clone, PartialEq)]
pub struct Naming {
    /// The fully qualified Java class name.
    pub class: &'static str,
    pub message: String,
    /// The root cause's `toString()`, printed as ` [Root exception is …]`.
    pub root: Option<String>,
    /// The name that could not be resolved, printed as `; remaining name '…'`.
    pub remaining: Option<String>,
}

const NAMING: &str = "javax.naming.NamingException";
const COMMUNICATION: &str = "javax.naming.CommunicationException";
const INVALID_FILTER: &str = "javax.naming.directory.InvalidSearchFilterException";

impl Naming {
    pub fn new(class: &'static str, message: impl Into<String>) -> Naming {
        Naming {
            class,
            message: message.into(),
            root: None,
            remaining: None,
        }
    }

    /// A failure of the connection to `host:port` caused by the Java exception `root`.
    pub fn communication(host_port: &str, root: String) -> Naming {
        Naming::new(COMMUNICATION, host_port).with_root(root)
    }

    /// A response that did not come within `ms` milliseconds (JNDI's read timeout).
    pub fn read_timeout(ms: u64) -> Naming {
        Naming::new(
            NAMING,
            format!("LDAP response read timed out, timeout used: {ms} ms."),
        )
    }

    /// A search filter JNDI refuses before sending it.
    pub fn bad_filter(why: &str) -> Naming {
        Naming::new(INVALID_FILTER, why)
    }

    /// The exception for LDAP result code `rc` with the server's diagnostic `text`, about
    /// the entry `remaining` (`None` for a bind).
    pub fn from_result(rc: u32, text: &str, remaining: Option<&str>) -> Naming {
        let message = error_message(rc, text);
        let (class, message) = match rc {
            // JNDI names the entry in the message of a bad or misplaced name.
            34 | 64 => (
                "javax.naming.InvalidNameException",
                match remaining {
                    Some(name) => format!("{name}: {message}"),
                    None => message,
                },
            ),
            _ => (class_for(rc), message),
        };
        Naming {
            remaining: remaining.map(str::to_string),
            ..Naming::new(class, message)
        }
    }

    /// The same failure caused by the Java exception `root`.
    pub fn with_root(mut self, root: String) -> Naming {
        self.root = Some(root);
        self
    }

    /// The same failure about the entry `name`.
    pub fn about(mut self, name: &str) -> Naming {
        self.remaining = Some(name.to_string());
        self
    }
}

impl fmt::Display for Naming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.class, self.message)?;
        if let Some(root) = &self.root {
            write!(f, " [Root exception is {root}]")?;
        }
        if let Some(name) = &self.remaining {
            write!(f, "; remaining name '{name}'")?;
        }
        Ok(())
    }
}

/// `[LDAP: error code N - text]`, with JNDI's built-in text when the server gave none.
fn error_message(rc: u32, text: &str) -> String {
    if !text.is_empty() {
        return format!("[LDAP: error code {rc} - {text}]");
    }
    match builtin_text(rc) {
        Some(name) => format!("[LDAP: error code {rc} - {name}]"),
        None => format!("[LDAP: error code {rc}]"),
    }
}

/// JNDI's names of the LDAP result codes.
fn builtin_text(rc: u32) -> Option<&'static str> {
    Some(match rc {
        0 => "Success",
        1 => "Operations Error",
        2 => "Protocol Error",
        3 => "Timelimit Exceeded",
        4 => "Sizelimit Exceeded",
        5 => "Compare False",
        6 => "Compare True",
        7 => "Authentication Method Not Supported",
        8 => "Strong Authentication Required",
        10 => "Referral",
        11 => "Administrative Limit Exceeded",
        12 => "Unavailable Critical Extension",
        13 => "Confidentiality Required",
        14 => "SASL Bind In Progress",
        16 => "No Such Attribute",
        17 => "Undefined Attribute Type",
        18 => "Inappropriate Matching",
        19 => "Constraint Violation",
        20 => "Attribute Or Value Exists",
        21 => "Invalid Attribute Syntax",
        32 => "No Such Object",
        33 => "Alias Problem",
        34 => "Invalid DN Syntax",
        36 => "Alias Dereferencing Problem",
        48 => "Inappropriate Authentication",
        49 => "Invalid Credentials",
        50 => "Insufficient Access Rights",
        51 => "Busy",
        52 => "Unavailable",
        53 => "Unwilling To Perform",
        54 => "Loop Detect",
        64 => "Naming Violation",
        65 => "Object Class Violation",
        66 => "Not Allowed On Non-leaf",
        67 => "Not Allowed On RDN",
        68 => "Entry Already Exists",
        69 => "Object Class Modifications Prohibited",
        71 => "Affects Multiple DSAs",
        80 => "Other",
        _ => return None,
    })
}

/// The `NamingException` subclass JNDI throws for result code `rc`.
fn class_for(rc: u32) -> &'static str {
    match rc {
        20 => "javax.naming.directory.AttributeInUseException",
        7 | 8 | 13 | 48 => "javax.naming.AuthenticationNotSupportedException",
        68 => "javax.naming.NameAlreadyBoundException",
        14 | 49 => "javax.naming.AuthenticationException",
        18 => INVALID_FILTER,
        50 => "javax.naming.NoPermissionException",
        19 | 21 => "javax.naming.directory.InvalidAttributeValueException",
        16 => "javax.naming.directory.NoSuchAttributeException",
        32 => "javax.naming.NameNotFoundException",
        65 | 67 | 69 => "javax.naming.directory.SchemaViolationException",
        66 => "javax.naming.ContextNotEmptyException",
        2 => COMMUNICATION,
        4 => "javax.naming.SizeLimitExceededException",
        3 => "javax.naming.TimeLimitExceededException",
        12 | 53 => "javax.naming.OperationNotSupportedException",
        51 | 52 => "javax.naming.ServiceUnavailableException",
        17 => "javax.naming.directory.InvalidAttributeIdentifierException",
        11 => "javax.naming.LimitExceededException",
        _ => NAMING,
    }
}

/// The LDAP Extended Request's response code and message for a failure: the three
/// characters after `LDAP: error code` (so ` 32`, or ` 5 ` for a one-digit code) and
/// the text from 21 characters after it to the first `]`, cut as JMeter cuts them; or
/// `800` and the whole text when it names no LDAP error code.
pub fn extended_code_and_message(text: &str) -> (String, String) {
    const PREFIX: &str = "LDAP: error code";
    let Some(at) = text.find(PREFIX) else {
        return ("800".to_string(), text.to_string());
    };
    let chars: Vec<char> = text.chars().collect();
    let start = text[..at].chars().count();
    let slice = |from: usize, to: usize| -> String {
        chars
            .get(from..to.min(chars.len()))
            .map(|c| c.iter().collect())
            .unwrap_or_default()
    };
    let code = slice(start + PREFIX.len(), start + 19);
    let close = chars.iter().position(|&c| c == ']').unwrap_or(chars.len());
    (code, slice(start + 21, close))
}

/// Checks `filter` as JNDI's filter encoder does, returning it with the outer
/// parentheses that JNDI lets a plan leave out.
pub fn checked_filter(filter: &str) -> Result<String, Naming> {
    if filter.is_empty() {
        return Err(Naming::bad_filter("Empty filter"));
    }
    let mut depth = 0i32;
    let mut escaped = false;
    for c in filter.chars() {
        match c {
            '\\' if !escaped => {
                escaped = true;
                continue;
            }
            '(' if !escaped => depth += 1,
            ')' if !escaped => depth -= 1,
            _ => {}
        }
        escaped = false;
        if depth < 0 {
            return Err(Naming::bad_filter("Unbalanced parenthesis"));
        }
    }
    if depth != 0 {
        return Err(Naming::bad_filter("Unbalanced parenthesis"));
    }
    if !filter.contains('=') {
        return Err(Naming::bad_filter("Missing 'equals'"));
    }
    let trimmed = filter.trim_start_matches(' ');
    Ok(if trimmed.starts_with('(') {
        trimmed.to_string()
    } else {
        format!("({trimmed})")
    })
}

/// The attribute and value of a filter JNDI sends as an LDAP compare: `attr=value` or
/// `(attr=value)`, one `=`, no wildcard, no nested expression. Escapes (`\2a`) in the
/// value are decoded.
pub fn compare_assertion(filter: &str) -> Option<(String, Vec<u8>)> {
    let (left, right) = filter.split_once('=')?;
    if left.is_empty() || right.is_empty() || right.contains('=') || right.contains('*') {
        return None;
    }
    let parens = left.starts_with('(') && right.ends_with(')');
    if !parens && (left.starts_with('(') || right.ends_with(')')) {
        return None;
    }
    let (attr, value) = if parens {
        (&left[1..], &right[..right.len() - 1])
    } else {
        (left, right)
    };
    let special = |s: &str| s.chars().any(|c| "()&|!=~><*".contains(c));
    if attr.is_empty() || value.is_empty() || special(attr) || special(value) {
        return None;
    }
    Some((attr.to_string(), unescape_value(value)?))
}

/// `\hh` escapes of a filter value decoded to bytes (`\x` for another `x` is `x`).
fn unescape_value(value: &str) -> Option<Vec<u8>> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        let hex = |b: Option<&u8>| b.and_then(|b| (*b as char).to_digit(16));
        match (hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
            (Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (Some(_), None) => return None,
            (None, _) => {
                out.push(*bytes.get(i + 1)?);
                i += 2;
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_codes_read_as_jndi_prints_them() {
        let missing = Naming::from_result(32, "", Some("cn=x,ou=people"));
        assert_eq!(
            missing.to_string(),
            "javax.naming.NameNotFoundException: [LDAP: error code 32 - No Such Object]; \
             remaining name 'cn=x,ou=people'"
        );
        let bind = Naming::from_result(49, "", None);
        assert_eq!(
            bind.to_string(),
            "javax.naming.AuthenticationException: [LDAP: error code 49 - Invalid Credentials]"
        );
        let bad_dn = Naming::from_result(34, "invalid DN", Some("x"));
        assert_eq!(
            bad_dn.to_string(),
            "javax.naming.InvalidNameException: x: [LDAP: error code 34 - invalid DN]; \
             remaining name 'x'"
        );
    }

    #[test]
    fn the_extended_request_cuts_code_and_message_as_jmeter_does() {
        let two = Naming::from_result(68, "", Some("cn=a")).to_string();
        assert_eq!(
            extended_code_and_message(&two),
            (" 68".to_string(), " Entry Already Exists".to_string())
        );
        let one = Naming::from_result(4, "", Some("")).to_string();
        assert_eq!(
            extended_code_and_message(&one),
            (" 4 ".to_string(), "Sizelimit Exceeded".to_string())
        );
        let refused = Naming::communication(
            "127.0.0.1:1",
            "java.net.ConnectException: Connection refused".into(),
        )
        .to_string();
        assert_eq!(
            extended_code_and_message(&refused),
            (
                "800".to_string(),
                "javax.naming.CommunicationException: 127.0.0.1:1 [Root exception is \
                 java.net.ConnectException: Connection refused]"
                    .to_string()
            )
        );
    }

    #[test]
    fn filters_are_checked_and_completed_as_jndi_does() {
        assert_eq!(checked_filter("cn=Bob").unwrap(), "(cn=Bob)");
        assert_eq!(checked_filter("(&(a=1)(b=2))").unwrap(), "(&(a=1)(b=2))");
        assert_eq!(
            checked_filter("(cn=Bob").unwrap_err().message,
            "Unbalanced parenthesis"
        );
        assert_eq!(
            checked_filter("(cn=a\\))").unwrap(),
            "(cn=a\\))",
            "an escaped parenthesis does not count"
        );
        assert_eq!(
            checked_filter("(cn)").unwrap_err().message,
            "Missing 'equals'"
        );
        assert_eq!(checked_filter("").unwrap_err().message, "Empty filter");
    }

    #[test]
    fn simple_equality_filters_become_compares() {
        assert_eq!(
            compare_assertion("mail=a@b.c"),
            Some(("mail".to_string(), b"a@b.c".to_vec()))
        );
        assert_eq!(
            compare_assertion("(cn=a\\2ab)"),
            Some(("cn".to_string(), b"a*b".to_vec()))
        );
        assert_eq!(compare_assertion("cn=a*"), None);
        assert_eq!(compare_assertion("(&(cn=a)(sn=b))"), None);
        assert_eq!(compare_assertion("(cn=a"), None);
    }
}
