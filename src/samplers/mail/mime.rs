//! Just enough MIME for the mail samplers: splitting a message into headers and body,
//! content types and their parameters, transfer decodings (base64, quoted-printable),
//! encoded words in headers (RFC 2047), multipart bodies, address lists, and the header
//! order JavaMail keeps (its `InternetHeaders` placeholders).

use base64::Engine;

/// A message or body part: its headers (name, value with folding kept) and raw body.
#[derive(Debug, Clone, Default)]
pub struct Part {
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Splits `raw` at the first empty line; header lines are unfolded into their header.
pub fn split(raw: &[u8]) -> Part {
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut pos = 0;
    while pos < raw.len() {
        let end = memchr::memchr(b'\n', &raw[pos..]).map_or(raw.len(), |i| pos + i + 1);
        let line = String::from_utf8_lossy(&raw[pos..end]);
        let text = line.trim_end_matches(['\r', '\n']);
        pos = end;
        if text.is_empty() {
            break;
        }
        if text.starts_with([' ', '\t']) {
            if let Some((_, value)) = headers.last_mut() {
                value.push_str("\r\n");
                value.push_str(text);
            }
            continue;
        }
        let Some((name, value)) = text.split_once(':') else {
            continue;
        };
        headers.push((name.trim().to_string(), value.trim_start().to_string()));
    }
    Part {
        headers,
        body: raw[pos.min(raw.len())..].to_vec(),
    }
}

impl Part {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The content type, `text/plain` when none is given (RFC 2045).
    pub fn content_type(&self) -> ContentType {
        ContentType::parse(self.header("Content-Type").unwrap_or("text/plain"))
    }

    /// The body with its transfer encoding undone.
    pub fn decoded(&self) -> Vec<u8> {
        let encoding = self
            .header("Content-Transfer-Encoding")
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match encoding.as_str() {
            "base64" => base64_decode(&self.body),
            "quoted-printable" => quoted_printable_decode(&self.body),
            _ => self.body.clone(),
        }
    }
}

/// `type/subtype; name=value; ...`, the type lower-cased.
#[derive(Debug, Clone)]
pub struct ContentType {
    pub raw: String,
    pub mime: String,
    params: Vec<(String, String)>,
}

impl ContentType {
    pub fn parse(value: &str) -> ContentType {
        let unfolded = value.replace(['\r', '\n'], "");
        let mut pieces = split_unquoted(&unfolded, ';').into_iter();
        let mime = pieces
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let params = pieces
            .filter_map(|p| {
                let (n, v) = p.split_once('=')?;
                Some((n.trim().to_ascii_lowercase(), unquote(v.trim())))
            })
            .collect();
        ContentType {
            raw: value.to_string(),
            mime,
            params,
        }
    }

    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn is_text(&self) -> bool {
        self.mime.starts_with("text/")
    }

    pub fn is_multipart(&self) -> bool {
        self.mime.starts_with("multipart/")
    }
}

/// Splits at `sep` outside double quotes.
fn split_unquoted(text: &str, sep: char) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut angle = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            '<' if !quoted => angle = true,
            '>' if !quoted => angle = false,
            _ => {}
        }
        if c == sep && !quoted && !angle {
            out.push(String::new());
        } else if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out
}

fn unquote(text: &str) -> String {
    text.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .map_or_else(|| text.to_string(), |t| t.replace("\\\"", "\""))
}

/// The parts of a multipart body and its preamble (the text before the first boundary,
/// each line ended by `\n`, as JavaMail keeps it; `None` when there is none).
pub fn multipart(body: &[u8], boundary: &str) -> (Option<String>, Vec<Part>) {
    let delimiter = format!("--{boundary}");
    let mut preamble = String::new();
    let mut parts = Vec::new();
    let mut current: Option<Vec<u8>> = None;
    let mut pos = 0;
    while pos < body.len() {
        let end = memchr::memchr(b'\n', &body[pos..]).map_or(body.len(), |i| pos + i + 1);
        let line = &body[pos..end];
        pos = end;
        let trimmed = trim_line_end(line);
        if trimmed.starts_with(delimiter.as_bytes()) {
            let rest = &trimmed[delimiter.len()..];
            if let Some(part) = current.take() {
                parts.push(split(strip_final_line_end(&part)));
            }
            if rest.starts_with(b"--") {
                break;
            }
            current = Some(Vec::new());
        } else if let Some(part) = current.as_mut() {
            part.extend_from_slice(line);
        } else {
            preamble.push_str(&String::from_utf8_lossy(trimmed));
            preamble.push('\n');
        }
    }
    if let Some(part) = current {
        parts.push(split(&part));
    }
    ((!preamble.is_empty()).then_some(preamble), parts)
}

fn trim_line_end(line: &[u8]) -> &[u8] {
    let mut end = line.len();
    while end > 0 && matches!(line[end - 1], b'\r' | b'\n') {
        end -= 1;
    }
    &line[..end]
}

/// The line end before a boundary belongs to the boundary.
fn strip_final_line_end(part: &[u8]) -> &[u8] {
    let part = part.strip_suffix(b"\n").unwrap_or(part);
    part.strip_suffix(b"\r").unwrap_or(part)
}

pub fn base64_decode(body: &[u8]) -> Vec<u8> {
    let clean: Vec<u8> = body
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(&clean)
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(&clean))
        .unwrap_or_default()
}

pub fn base64_encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Base64 in lines of 76 characters separated by CRLF, as MIME bodies carry it.
pub fn base64_lines(bytes: &[u8]) -> Vec<u8> {
    let text = base64_encode(bytes);
    text.as_bytes()
        .chunks(76)
        .collect::<Vec<_>>()
        .join(&b"\r\n"[..])
}

pub fn quoted_printable_decode(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        if body[i] == b'=' {
            let next = &body[i + 1..];
            if next.starts_with(b"\r\n") {
                i += 3;
                continue;
            }
            if next.starts_with(b"\n") {
                i += 2;
                continue;
            }
            let hex = next.get(..2).and_then(|h| std::str::from_utf8(h).ok());
            if let Some(byte) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(body[i]);
        i += 1;
    }
    out
}

/// Bytes as text in `charset` (UTF-8, or ISO-8859-1 for the ASCII family and the rest).
pub fn decode_charset(bytes: &[u8], charset: &str) -> String {
    if charset.eq_ignore_ascii_case("utf-8") || charset.eq_ignore_ascii_case("utf8") {
        String::from_utf8_lossy(bytes).into_owned()
    } else {
        bytes.iter().map(|&b| char::from(b)).collect()
    }
}

/// Text as bytes in `charset` (UTF-8, or ISO-8859-1 with `?` for what it cannot hold).
pub fn encode_charset(text: &str, charset: &str) -> Vec<u8> {
    if charset.eq_ignore_ascii_case("utf-8") || charset.eq_ignore_ascii_case("utf8") {
        text.as_bytes().to_vec()
    } else {
        text.chars()
            .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
            .collect()
    }
}

/// Decodes RFC 2047 encoded words (`=?charset?B|Q?text?=`); other text is kept.
pub fn decode_words(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    let mut after_word = false;
    while let Some(start) = rest.find("=?") {
        let (before, word) = rest.split_at(start);
        let Some(decoded) = decode_word(word) else {
            out.push_str(&rest[..start + 2]);
            rest = &rest[start + 2..];
            after_word = false;
            continue;
        };
        // White space between two encoded words is not part of the text.
        if !(after_word && before.trim().is_empty()) {
            out.push_str(before);
        }
        out.push_str(&decoded.0);
        rest = &word[decoded.1..];
        after_word = true;
    }
    out.push_str(rest);
    out
}

/// One encoded word at the start of `word`: its text and its length.
fn decode_word(word: &str) -> Option<(String, usize)> {
    let inner = &word[2..];
    let (charset, inner) = inner.split_once('?')?;
    let (encoding, inner) = inner.split_once('?')?;
    let end = inner.find("?=")?;
    let text = &inner[..end];
    let bytes = match encoding {
        "B" | "b" => base64_decode(text.as_bytes()),
        "Q" | "q" => quoted_printable_decode(text.replace('_', " ").as_bytes()),
        _ => return None,
    };
    let length = 2 + charset.len() + 1 + encoding.len() + 1 + end + 2;
    Some((decode_charset(&bytes, charset), length))
}

/// Encodes `text` as one UTF-8 encoded word when it is not plain ASCII.
pub fn encode_word(text: &str) -> String {
    if text.is_ascii() {
        text.to_string()
    } else {
        format!("=?UTF-8?B?{}?=", base64_encode(text.as_bytes()))
    }
}

/// The addresses of an address-list header, each as written (trimmed).
pub fn address_list(value: &str) -> Vec<String> {
    split_unquoted(&value.replace(['\r', '\n'], ""), ',')
        .into_iter()
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect()
}

/// The bare address (`local@domain`) of `Name <local@domain>` or `local@domain`.
pub fn bare_address(address: &str) -> String {
    match (address.rfind('<'), address.rfind('>')) {
        (Some(open), Some(close)) if open < close => address[open + 1..close].trim().to_string(),
        _ => address.trim().to_string(),
    }
}

/// JavaMail's header order: known headers have a place, others go before
/// `Content-Length` (the `:` slot).
const ORDER: [&str; 30] = [
    "Return-Path",
    "Received",
    "Resent-Date",
    "Resent-From",
    "Resent-Sender",
    "Resent-To",
    "Resent-Cc",
    "Resent-Bcc",
    "Resent-Message-Id",
    "Date",
    "From",
    "Sender",
    "Reply-To",
    "To",
    "Cc",
    "Bcc",
    "Message-Id",
    "In-Reply-To",
    "References",
    "Subject",
    "Comments",
    "Keywords",
    "Errors-To",
    "MIME-Version",
    "Content-Type",
    "Content-Transfer-Encoding",
    "Content-MD5",
    ":",
    "Content-Length",
    "Status",
];

fn rank(name: &str) -> (usize, Option<&'static str>) {
    match ORDER.iter().position(|n| n.eq_ignore_ascii_case(name)) {
        Some(i) => (i, Some(ORDER[i])),
        None => (27, None),
    }
}

/// Sets header `name` to `value` as `MimeMessage.setHeader` does: the first header of
/// that name takes the value (others go), or a new one takes its place in the order.
pub fn set_header(headers: &mut Vec<(String, String)>, name: &str, value: &str) {
    if let Some(first) = headers
        .iter()
        .position(|(n, _)| n.eq_ignore_ascii_case(name))
    {
        headers[first].1 = value.to_string();
        let mut index = 0;
        headers.retain(|(n, _)| {
            let keep = index <= first || !n.eq_ignore_ascii_case(name);
            index += 1;
            keep
        });
        return;
    }
    add_header(headers, name, value);
}

/// Adds header `name` after the last of the same name, or in its place in the order.
pub fn add_header(headers: &mut Vec<(String, String)>, name: &str, value: &str) {
    let (own, spelling) = rank(name);
    let name = spelling.unwrap_or(name).to_string();
    let position = match headers
        .iter()
        .rposition(|(n, _)| n.eq_ignore_ascii_case(&name))
    {
        Some(last) => last + 1,
        None => headers
            .iter()
            .rposition(|(n, _)| rank(n).0 <= own)
            .map_or(0, |i| i + 1),
    };
    headers.insert(position, (name, value.to_string()));
}

pub fn remove_header(headers: &mut Vec<(String, String)>, name: &str) {
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipart_bodies_split_into_parts_and_preamble() {
        let body =
            b"pre\r\n--B\r\nContent-Type: text/plain\r\n\r\nOne.\r\n--B\r\n\r\nTwo\r\n--B--\r\n";
        let (preamble, parts) = multipart(body, "B");
        assert_eq!(preamble.as_deref(), Some("pre\n"));
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].body, b"One.");
        assert_eq!(parts[1].body, b"Two");
        assert_eq!(parts[0].content_type().mime, "text/plain");
    }

    #[test]
    fn encoded_words_decode_and_adjacent_words_join() {
        assert_eq!(decode_words("=?UTF-8?Q?Caf=C3=A9?="), "Café");
        assert_eq!(decode_words("=?UTF-8?B?YQ==?= =?UTF-8?B?Yg==?= c"), "ab c");
        assert_eq!(decode_words("plain =? text"), "plain =? text");
    }

    #[test]
    fn headers_take_javamails_order() {
        let mut headers = Vec::new();
        set_header(&mut headers, "X-Custom", "1");
        set_header(&mut headers, "Subject", "s");
        set_header(&mut headers, "From", "f");
        set_header(&mut headers, "Message-ID", "<m>");
        set_header(&mut headers, "Content-Type", "text/plain");
        let names: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["From", "Message-Id", "Subject", "Content-Type", "X-Custom"]
        );
    }

    #[test]
    fn addresses_split_outside_quotes_and_angles() {
        let list = address_list("\"Doe, Jane\" <j@x.org>, b@y.org");
        assert_eq!(list, ["\"Doe, Jane\" <j@x.org>", "b@y.org"]);
        assert_eq!(bare_address(&list[0]), "j@x.org");
    }
}
