//! What the plugin's later sampler (`vn.zalopay.benchmark.GRPCSampler`) does
//! differently from its TestBean form; the call itself is the same (see the module
//! above).
//!
//! - Metadata is a JSON object of strings or `key1:value1,key2:value2` with each value
//!   URL-decoded; keys are checked only when the call starts (an invalid key fails it).
//! - The request JSON ignores unknown fields, and a blank one is the empty message.
//! - A request it cannot build is a ` 400` row (the leading space is the plugin's), whose
//!   data is the exception; answers are `200` / ` success` with the message printed
//!   with proto field names and default values; a failed call is ` 500` with
//!   ` <number> <CODE>` and the status description as data.
//! - After a failed call (or a request it could not build) it shuts its channel down and
//!   never makes another: every later call of that user fails at once with
//!   `UNAVAILABLE` / `Channel shutdown invoked`, as JMeter's results with the plugin show.

use http::{HeaderName, HeaderValue};

use crate::sample::SampleResult;

use super::call::Status;

/// The response message of a request the sampler could not build.
pub const CLIENT_EXCEPTION_MESSAGE: &str = " GRPCSampler parsing exception: An unknown exception \
     occurred before the GRPC request was initiated, See response body for the stack trace.";

/// The description of every call on a channel that was shut down.
pub const CHANNEL_SHUT_DOWN: &str = "Channel shutdown invoked";

/// The text of the plugin's metadata error.
fn metadata_error(text: &str) -> String {
    format!(
        "Metadata entry must be valid JSON String or in key1:value1,key2:value2 format if not \
         JsonString but found: {text}"
    )
}

/// The metadata as the plugin reads it, entries in the order written. The error is the
/// plugin's exception text (without its class).
pub fn parse_metadata(text: &str) -> Result<Vec<(String, String)>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    if text.starts_with('{') && text.ends_with('}') {
        let object: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(|_| metadata_error(text))?;
        return object
            .into_iter()
            .map(|(key, value)| match value {
                serde_json::Value::String(value) => Ok((key, value)),
                _ => Err(metadata_error(text)),
            })
            .collect();
    }
    // Java's `split(",")` drops empty parts at the end.
    let mut parts: Vec<&str> = text.split(',').collect();
    while parts.last() == Some(&"") {
        parts.pop();
    }
    parts
        .into_iter()
        .map(|part| match part.split_once(':') {
            Some((key, value)) => Ok((key.to_string(), url_decode(value)?)),
            None => Err(metadata_error(text)),
        })
        .collect()
}

/// Java's `URLDecoder.decode(text, "UTF-8")`: `+` is a space, `%XY` a byte.
fn url_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'+' => {
                out.push(b' ');
                index += 1;
            }
            b'%' => {
                let Some(hex) = text.get(index + 1..index + 3) else {
                    return Err("URLDecoder: Incomplete trailing escape (%) pattern".to_string());
                };
                let byte = u8::from_str_radix(hex, 16)
                    .ok()
                    .filter(|_| hex.bytes().all(|b| b.is_ascii_hexdigit()))
                    .ok_or_else(|| {
                        format!(
                            "URLDecoder: Illegal hex characters in escape (%) pattern - \
                             For input string: \"{hex}\""
                        )
                    })?;
                out.push(byte);
                index += 3;
            }
            other => {
                out.push(other);
                index += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The headers for the entries, or `None` when a key is not a valid ASCII metadata key
/// (grpc-java then fails the call as it starts). A value with characters HTTP/2 cannot
/// carry is left out, as grpc-java leaves it out with a warning.
pub fn headers(entries: &[(String, String)]) -> Option<Vec<(HeaderName, HeaderValue)>> {
    let mut headers = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        let name = key.to_ascii_lowercase();
        let valid = !name.is_empty()
            && !name.ends_with("-bin")
            && name
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase() || b"_-.".contains(&b));
        if !valid {
            return None;
        }
        let name = HeaderName::from_bytes(name.as_bytes()).ok()?;
        // The ASCII marshaller turns what is not ASCII into '?'.
        let ascii: String = value
            .chars()
            .map(|c| if c.is_ascii() { c } else { '?' })
            .collect();
        if let Ok(value) = HeaderValue::from_str(&ascii) {
            headers.push((name, value));
        }
    }
    Some(headers)
}

/// The request headers the plugin records: `key: value` lines.
pub fn request_headers(entries: &[(String, String)]) -> String {
    entries
        .iter()
        .map(|(key, value)| format!("{key}: {value}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Java's `Long.parseLong`; `None` where it throws.
pub fn java_long(text: &str) -> Option<i64> {
    text.parse::<i64>().ok()
}

/// A request the sampler could not build: ` 400`, the exception as data.
pub fn init_failure(result: &mut SampleResult, exception: &str) {
    result.set_success(false);
    result.response_code = " 400".into();
    result.data_type = "text";
    result.response_message = CLIENT_EXCEPTION_MESSAGE.into();
    result.response_data = format!("{exception}\n").into_bytes();
}

/// A call that failed with `status`. `None` when the status has no description: the
/// plugin then fails on the missing text and JMeter records no sample.
pub fn call_failure(result: &mut SampleResult, status: &Status) -> Option<()> {
    let description = status.description.as_ref()?;
    result.set_success(false);
    result.response_code = " 500".into();
    result.response_message = format!(" {} {}", status.code, status.code_name()).into();
    result.response_data = description.clone().into_bytes();
    Some(())
}

/// A call ended by an immediate stop: the plugin reports the interruption itself.
pub fn interrupted(result: &mut SampleResult) {
    let text = " java.lang.InterruptedException\n";
    result.set_success(false);
    result.response_code = " 500".into();
    result.response_message = text.into();
    result.response_data = text.as_bytes().to_vec();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn metadata_reads_json_or_url_encoded_pairs() {
        assert_eq!(
            parse_metadata(r#"{"Token":"a b","x-id":"7"}"#),
            Ok(pairs(&[("Token", "a b"), ("x-id", "7")]))
        );
        assert_eq!(
            parse_metadata("token:a%20b+c:d,x-id:7,"),
            Ok(pairs(&[("token", "a b c:d"), ("x-id", "7")]))
        );
        assert_eq!(parse_metadata(""), Ok(Vec::new()));
        let error = parse_metadata("novalue").unwrap_err();
        assert!(
            error.starts_with("Metadata entry must be valid JSON String"),
            "{error}"
        );
        assert!(parse_metadata(r#"{"n": 1}"#).is_err(), "values are strings");
        assert!(parse_metadata("a:1,,b:2").is_err());
        assert!(parse_metadata("a:%zz").unwrap_err().contains("Illegal hex"));
        assert!(parse_metadata("a:%2").unwrap_err().contains("Incomplete"));
    }

    #[test]
    fn keys_are_checked_when_the_call_starts() {
        let ok = headers(&pairs(&[("Token", "café"), ("x.id", "1")])).expect("valid keys");
        assert_eq!(ok[0].0.as_str(), "token");
        assert_eq!(ok[0].1.to_str().ok(), Some("caf?"));
        assert!(headers(&pairs(&[("bad key", "1")])).is_none());
        assert!(headers(&pairs(&[("data-bin", "1")])).is_none());
        assert!(headers(&pairs(&[("", "1")])).is_none());
        assert_eq!(
            request_headers(&pairs(&[("Token", "a"), ("x", "b")])),
            "Token: a\nx: b"
        );
    }

    #[test]
    fn failed_calls_show_the_code_number_and_name() {
        let mut result = SampleResult::new(std::sync::Arc::from("g"));
        call_failure(&mut result, &Status::new(5, "no shelf")).expect("described");
        assert_eq!(&*result.response_code, " 500");
        assert_eq!(&*result.response_message, " 5 NOT_FOUND");
        assert_eq!(result.response_data, b"no shelf");
        let bare = Status {
            code: 2,
            description: None,
        };
        assert!(call_failure(&mut result, &bare).is_none());
    }
}
