//! The `application/x-www-form-urlencoded` body of a POST with named arguments, as each
//! of JMeter's implementations writes it:
//!
//! * HttpClient 4 (the default) form-encodes every name and value. An argument without
//!   "URL-encode?" is taken as already encoded by the user, so it is first URL-decoded
//!   (`java.net.URLDecoder`: `+` is a space, `%XX` a byte) and then encoded again: `p&q`
//!   goes out as `p%26q`, `a b` as `a+b`, `%41` as `A`. A `%` that starts no escape
//!   makes the decoder throw and the sample fail before anything is sent, as in JMeter.
//! * Java's implementation writes the query string: values as they are unless
//!   "URL-encode?" is on (`HTTPArgument.getEncodedValue`).

/// A failure JMeter reports as `java.lang.IllegalArgumentException`.
pub const ILLEGAL_ARGUMENT: &str = "java.lang.IllegalArgumentException";

/// `java.net.URLDecoder.decode(text, UTF-8)`, with its error messages (Java 17).
pub fn url_decode(text: &str) -> Result<String, String> {
    let units: Vec<u16> = text.encode_utf16().collect();
    let n = units.len();
    let mut out: Vec<u16> = Vec::with_capacity(n);
    let mut i = 0;
    while i < n {
        match units[i] {
            0x2B => {
                out.push(u16::from(b' '));
                i += 1;
            }
            0x25 => {
                let mut bytes = Vec::new();
                while i + 2 < n && units[i] == 0x25 {
                    let value = parse_hex_pair(units[i + 1], units[i + 2]).map_err(|e| {
                        format!("URLDecoder: Illegal hex characters in escape (%) pattern - {e}")
                    })?;
                    if value < 0 {
                        return Err(
                            "URLDecoder: Illegal hex characters in escape (%) pattern - negative value"
                                .to_string(),
                        );
                    }
                    bytes.push(value as u8);
                    i += 3;
                }
                if i < n && units[i] == 0x25 {
                    return Err("URLDecoder: Incomplete trailing escape (%) pattern".to_string());
                }
                out.extend(String::from_utf8_lossy(&bytes).encode_utf16());
            }
            unit => {
                out.push(unit);
                i += 1;
            }
        }
    }
    Ok(String::from_utf16_lossy(&out))
}

/// `Integer.parseInt` of two characters in base 16, with its message on failure: a sign
/// is allowed first (`-1` parses, to be refused as negative).
fn parse_hex_pair(first: u16, second: u16) -> Result<i32, String> {
    let digit = |unit: u16| char::from_u32(u32::from(unit)).and_then(|c| c.to_digit(16));
    let text: String = char::decode_utf16([first, second])
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    let error = |at: usize| format!("Error at index {at} in: \"{text}\"");
    let (negative, first_digit) = match first {
        0x2D => (true, None),
        0x2B => (false, None),
        _ => (false, Some(digit(first).ok_or_else(|| error(0))?)),
    };
    let second_digit = digit(second).ok_or_else(|| error(1))? as i32;
    Ok(match (negative, first_digit) {
        (true, _) => -second_digit,
        (false, None) => second_digit,
        (false, Some(high)) => high as i32 * 16 + second_digit,
    })
}

/// Form encoding as HttpClient's `URLEncodedUtils` does it (space → `+`).
pub fn form_encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// The HttpClient 4 form body of `(name, value, always_encode)` arguments.
pub fn httpclient_body<'a>(
    args: impl Iterator<Item = (&'a str, &'a str, bool)>,
) -> Result<String, String> {
    let mut form = form_urlencoded::Serializer::new(String::new());
    for (name, value, always_encode) in args {
        if always_encode {
            form.append_pair(name, value);
        } else {
            form.append_pair(&url_decode(name)?, &url_decode(value)?);
        }
    }
    Ok(form.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_as_java_does() {
        assert_eq!(url_decode("p&q").as_deref(), Ok("p&q"));
        assert_eq!(url_decode("a+b%41%c3%a9").as_deref(), Ok("a bAé"));
        assert_eq!(url_decode("%+1").as_deref(), Ok("\u{1}"));
        assert_eq!(
            url_decode("100%"),
            Err("URLDecoder: Incomplete trailing escape (%) pattern".into())
        );
        assert_eq!(
            url_decode("%zz"),
            Err("URLDecoder: Illegal hex characters in escape (%) pattern - Error at index 0 in: \"zz\"".into())
        );
        assert_eq!(
            url_decode("%4g"),
            Err("URLDecoder: Illegal hex characters in escape (%) pattern - Error at index 1 in: \"4g\"".into())
        );
        assert_eq!(
            url_decode("%-1"),
            Err("URLDecoder: Illegal hex characters in escape (%) pattern - negative value".into())
        );
        // Too short to be a pair: the trailing rule, counted in UTF-16 units.
        assert_eq!(
            url_decode("%é"),
            Err("URLDecoder: Incomplete trailing escape (%) pattern".into())
        );
    }

    #[test]
    fn httpclient_reencodes_values_not_marked_for_encoding() {
        let body = httpclient_body(
            [
                ("v", "p&q", false),
                ("w", "a b&c=d<e>%41+z", false),
                ("x", "a b&c", true),
            ]
            .into_iter(),
        );
        assert_eq!(
            body.as_deref(),
            Ok("v=p%26q&w=a+b%26c%3Dd%3Ce%3EA+z&x=a+b%26c")
        );
    }
}
