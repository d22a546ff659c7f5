//! Turns what came back (or the transport error) into a `SampleResult` with JMeter's
//! fields and measurements (`jmeter-formats.md` §1.7, §3.1).

use std::io::Read;

use super::client::{body_too_large, Incoming, Known, TransportError};
use crate::sample::SampleResult;
use crate::sample::Text;

/// Status codes JMeter treats as redirects (`HTTPSampleResult.isRedirect`).
pub fn is_redirect_code(code: u16) -> bool {
    matches!(code, 301 | 302 | 303 | 307 | 308)
}

/// Fills `result` from a response: code, message, headers as JMeter lists them
/// (status line, then `Name: value` lines, each ending in `\n`), sizes from the wire
/// count, the decoded body, content type, encoding and data type.
/// The status code as text, without an allocation for the common ones.
fn status_code_text(status: u16) -> Text {
    match status {
        200 => "200".into(),
        201 => "201".into(),
        204 => "204".into(),
        301 => "301".into(),
        302 => "302".into(),
        304 => "304".into(),
        400 => "400".into(),
        401 => "401".into(),
        403 => "403".into(),
        404 => "404".into(),
        500 => "500".into(),
        502 => "502".into(),
        503 => "503".into(),
        other => other.to_string().into(),
    }
}

/// A body that decodes to more than `max_body` bytes fails the sample instead.
pub fn fill(result: &mut SampleResult, mut incoming: Incoming, max_body: usize) {
    // HttpClient's estimate: the condensed header text, one CR per header, one for the
    // status line, and the final CRLF.
    let headers_size = (incoming.head().len() + incoming.header_count() + 1 + 2) as i64;
    result.headers_size = headers_size;
    result.body_size = Some(incoming.received - headers_size);
    result.sent_bytes = incoming.sent;
    result.connect_time = incoming.connect_ms;
    result.latency = incoming.latency_ms;
    result.response_code = status_code_text(incoming.status);
    result.response_message = match incoming.reason() {
        "OK" => "OK".into(),
        reason => reason.to_string().into(),
    };
    result.set_success((200..=399).contains(&incoming.status));
    if let Some(content_type) = incoming.known_header(Known::ContentType) {
        result.content_type = content_type.to_string().into();
        set_encoding_and_type(result, content_type);
    }
    if is_redirect_code(incoming.status) {
        result.redirect_location = incoming.known_header(Known::Location).map(str::to_string);
    }
    let encoding = incoming
        .known_header(Known::ContentEncoding)
        .map(|v| v.trim().to_ascii_lowercase());
    // The head already is the status line and header lines, each ending in `\n`.
    result.response_headers = incoming.take_head();
    let decoded = match encoding.as_deref() {
        Some("gzip" | "x-gzip") => decode_gzip(&incoming.body, max_body),
        Some("deflate") => decode_deflate(&incoming.body, max_body),
        Some("br") => decode_brotli(&incoming.body, max_body),
        _ => Decoded::AsReceived,
    };
    result.response_data = match decoded {
        Decoded::Body(body) => body,
        Decoded::AsReceived => incoming.body,
        Decoded::TooLarge => {
            fill_error(result, &body_too_large(max_body));
            return;
        }
    };
}

/// What content decoding gave.
enum Decoded {
    Body(Vec<u8>),
    /// Not encoded, or not decodable: the body is kept as received.
    AsReceived,
    /// More than the limit once decoded (a decompression bomb).
    TooLarge,
}

/// Reads a decoder to its end, stopping one byte past `limit`.
fn decode_with(decoder: impl Read, input_len: usize, limit: usize) -> Decoded {
    let mut out = Vec::with_capacity(input_len.saturating_mul(4).min(limit));
    match decoder.take(limit as u64 + 1).read_to_end(&mut out) {
        Ok(_) if out.len() > limit => Decoded::TooLarge,
        Ok(_) => Decoded::Body(out),
        Err(_) => Decoded::AsReceived,
    }
}

/// JMeter's `setEncodingAndType`: charset from the Content-Type, `bin` for images,
/// audio and video (bar a few textual ones), `text` otherwise.
pub fn set_encoding_and_type(result: &mut SampleResult, content_type: &str) {
    if let Some(pos) = find_charset(content_type.as_bytes()) {
        let charset = &content_type[pos + "charset=".len()..];
        let charset = charset.split(';').next().unwrap_or("").trim();
        let charset = charset.trim_matches('"');
        if !charset.is_empty() {
            result.data_encoding = charset.to_string().into();
        }
    }
    const NON_BINARY: [&str; 4] = [
        "audio/x-mpegurl",
        "audio/mpegurl",
        "video/f4m",
        "image/svg+xml",
    ];
    let binary = !NON_BINARY.iter().any(|t| content_type.starts_with(t))
        && ["image/", "audio/", "video/"]
            .iter()
            .any(|t| content_type.starts_with(t));
    result.data_type = if binary { "bin" } else { "text" };
}

/// Where `charset=` starts in a Content-Type (any case); most have no `=` at all.
fn find_charset(content_type: &[u8]) -> Option<usize> {
    const NAME: &[u8] = b"charset";
    memchr::memchr_iter(b'=', content_type)
        .filter(|&eq| eq >= NAME.len())
        .map(|eq| eq - NAME.len())
        .find(|&start| content_type[start..start + NAME.len()].eq_ignore_ascii_case(NAME))
}

fn decode_gzip(body: &[u8], limit: usize) -> Decoded {
    decode_with(flate2::read::MultiGzDecoder::new(body), body.len(), limit)
}

/// Zlib-wrapped deflate first, raw deflate when that fails (some servers send it).
fn decode_deflate(body: &[u8], limit: usize) -> Decoded {
    match decode_with(flate2::read::ZlibDecoder::new(body), body.len(), limit) {
        Decoded::AsReceived => {
            decode_with(flate2::read::DeflateDecoder::new(body), body.len(), limit)
        }
        decoded => decoded,
    }
}

fn decode_brotli(body: &[u8], limit: usize) -> Decoded {
    decode_with(
        brotli_decompressor::Decompressor::new(body, 4096),
        body.len(),
        limit,
    )
}

/// A failed sample for a transport error, as `HTTPSamplerBase.errorResult` makes it.
pub fn fill_error(result: &mut SampleResult, error: &TransportError) {
    result.response_code = format!("Non HTTP response code: {}", error.class).into();
    result.response_message = format!("Non HTTP response message: {}", error.message).into();
    result.response_data = format!("{}: {}\n", error.class, error.message).into_bytes();
    result.data_type = "text";
    result.set_success(false);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn encoding_and_type_from_content_type() {
        let mut r = SampleResult::new(Arc::from("x"));
        set_encoding_and_type(&mut r, "text/html; charset=ISO-8859-1; format=flowed");
        assert_eq!((&*r.data_encoding, r.data_type), ("ISO-8859-1", "text"));
        let mut upper = SampleResult::new(Arc::from("x"));
        set_encoding_and_type(&mut upper, "text/plain; q=1; CharSet=\"UTF-8\"");
        assert_eq!(upper.data_encoding, "UTF-8");
        let mut none = SampleResult::new(Arc::from("x"));
        set_encoding_and_type(&mut none, "text/plain; set=x; charset");
        assert_eq!(none.data_encoding, "");
        set_encoding_and_type(&mut r, "image/png");
        assert_eq!(r.data_type, "bin");
        set_encoding_and_type(&mut r, "image/svg+xml");
        assert_eq!(r.data_type, "text");
    }

    #[test]
    fn gzip_and_both_deflates_decode() {
        use flate2::write::{DeflateEncoder, GzEncoder, ZlibEncoder};
        use flate2::Compression;
        use std::io::Write;
        let body = |decoded: Decoded| match decoded {
            Decoded::Body(body) => body,
            _ => panic!("not decoded"),
        };
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(b"hello").unwrap();
        let gz = gz.finish().unwrap();
        assert_eq!(body(decode_gzip(&gz, 100)), b"hello");
        assert!(matches!(decode_gzip(&gz, 4), Decoded::TooLarge));
        let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
        z.write_all(b"zlib").unwrap();
        assert_eq!(body(decode_deflate(&z.finish().unwrap(), 100)), b"zlib");
        let mut d = DeflateEncoder::new(Vec::new(), Compression::default());
        d.write_all(b"raw").unwrap();
        assert_eq!(body(decode_deflate(&d.finish().unwrap(), 100)), b"raw");
        // "hello" compressed by `brotli -q 11`.
        let br = [0x0b, 0x02, 0x80, 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x03];
        assert_eq!(body(decode_brotli(&br, 5)), b"hello");
        assert!(matches!(decode_brotli(&br, 4), Decoded::TooLarge));
    }
}
