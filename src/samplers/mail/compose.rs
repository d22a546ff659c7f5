//! The message an SMTP Sampler sends, composed as JMeter's `SendMailCommand` builds its
//! JavaMail `MimeMessage`: a plain text message when "send plain body" is on and there is
//! at most the body or one attachment, otherwise `multipart/mixed` with the body and one
//! part per attached file; or the message of an `.eml` file. Then the sampler's From,
//! Reply-To, Subject, To, Cc, Bcc and its header fields, and what `saveChanges` adds
//! (`MIME-Version`, `Message-ID`, `Date`).
//!
//! Besides the wire form, the sampler reports what JMeter derives from the message:
//! request headers (every header, `Name: value` lines), sampler data (the body, or each
//! part's headers with attachments shown as `<attachment content not shown>`), response
//! data (the content as `getInputStream` gives it) and the message size (`writeTo`).

use std::sync::atomic::{AtomicU64, Ordering};

use super::mime::{self, Part};

/// The message and what the sample shows of it.
pub struct Composed {
    pub headers: Vec<(String, String)>,
    /// The content after the header block, as written (before SMTP's line-end rules).
    pub content: Vec<u8>,
    pub response_data: Vec<u8>,
    pub sampler_data: String,
}

/// What the sampler's settings say about the message.
pub struct Draft {
    pub from: Option<String>,
    pub reply_to: Vec<String>,
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub bcc: Vec<String>,
    pub subject: Option<String>,
    pub body: String,
    pub plain_body: bool,
    /// (file name shown, content) of each attachment.
    pub attachments: Vec<(String, Vec<u8>)>,
    pub header_fields: Vec<(String, String)>,
    /// The bytes of an `.eml` file to send instead.
    pub eml: Option<Vec<u8>>,
}

/// Counts messages and parts, as JavaMail's unique-id counter does.
static SEQUENCE: AtomicU64 = AtomicU64::new(0);

pub fn compose(draft: &Draft, now_ms: i64, host: &str) -> Composed {
    let mut composed = match &draft.eml {
        Some(raw) => from_eml(raw),
        None => from_settings(draft, now_ms),
    };
    let headers = &mut composed.headers;
    if let Some(from) = &draft.from {
        mime::set_header(headers, "From", from);
    }
    if !draft.reply_to.is_empty() {
        mime::set_header(headers, "Reply-To", &draft.reply_to.join(", "));
    }
    if let Some(subject) = &draft.subject {
        mime::set_header(headers, "Subject", &mime::encode_word(subject));
    }
    for (name, list) in [("To", &draft.to), ("Cc", &draft.cc), ("Bcc", &draft.bcc)] {
        if !list.is_empty() {
            mime::set_header(headers, name, &list.join(", "));
        }
    }
    for (name, value) in &draft.header_fields {
        mime::set_header(headers, name, value);
    }
    mime::set_header(headers, "MIME-Version", "1.0");
    let sequence = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let id = format!(
        "<{}.{sequence}.{now_ms}@{host}>",
        rand::random::<u32>() & 0x7fff_ffff
    );
    mime::set_header(headers, "Message-ID", &id);
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("Date")) {
        mime::set_header(headers, "Date", &mail_date(now_ms));
    }
    composed
}

/// `Wed, 2 Dec 2026 07:38:37 +0000 (UTC)`, as JavaMail's `MailDateFormat` writes it.
fn mail_date(now_ms: i64) -> String {
    let time = chrono::DateTime::from_timestamp_millis(now_ms).unwrap_or_default();
    format!("{} (UTC)", time.format("%a, %-d %b %Y %H:%M:%S +0000"))
}

fn from_settings(draft: &Draft, now_ms: i64) -> Composed {
    let simple = draft.plain_body
        && (draft.attachments.is_empty()
            || (draft.body.is_empty() && draft.attachments.len() == 1));
    if simple {
        let text = match draft.attachments.first() {
            Some((_, bytes)) => String::from_utf8_lossy(bytes).into_owned(),
            None => draft.body.clone(),
        };
        let (content_type, encoding, content) = text_part(&text);
        let headers = vec![
            ("Content-Type".to_string(), content_type),
            (
                "Content-Transfer-Encoding".to_string(),
                encoding.to_string(),
            ),
        ];
        return Composed {
            headers,
            content,
            response_data: text.clone().into_bytes(),
            sampler_data: text,
        };
    }
    let sequence = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let boundary = format!(
        "----=_Part_{sequence}_{}.{now_ms}",
        rand::random::<u32>() & 0x7fff_ffff
    );
    let mut parts: Vec<BodyPart> = Vec::new();
    let (content_type, encoding, content) = text_part(&draft.body);
    parts.push(BodyPart {
        headers: vec![
            ("Content-Type".into(), content_type),
            ("Content-Transfer-Encoding".into(), encoding.into()),
        ],
        body: content,
        attachment: false,
    });
    for (name, bytes) in &draft.attachments {
        parts.push(attachment_part(name, bytes));
    }
    let mut content = Vec::new();
    let mut sampler_data = String::new();
    for BodyPart {
        headers,
        body,
        attachment,
    } in &parts
    {
        content.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        sampler_data.push_str(&format!("--{boundary}\n"));
        for (name, value) in headers {
            content.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
            sampler_data.push_str(&format!("{name}: {value}\n"));
        }
        content.extend_from_slice(b"\r\n");
        content.extend_from_slice(body);
        content.extend_from_slice(b"\r\n");
        sampler_data.push('\n');
        if *attachment {
            sampler_data.push_str("<attachment content not shown>");
        } else {
            sampler_data.push_str(&draft.body);
        }
        sampler_data.push('\n');
    }
    content.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    sampler_data.push_str(&format!("--{boundary}--\n"));
    let headers = vec![(
        "Content-Type".to_string(),
        format!("multipart/mixed; \r\n\tboundary=\"{boundary}\""),
    )];
    Composed {
        headers,
        response_data: content.clone(),
        content,
        sampler_data,
    }
}

/// A text body: ASCII goes as 7bit, anything else as base64 UTF-8.
fn text_part(text: &str) -> (String, &'static str, Vec<u8>) {
    if seven_bit(text.as_bytes()) {
        (
            "text/plain; charset=us-ascii".into(),
            "7bit",
            text.as_bytes().to_vec(),
        )
    } else {
        (
            "text/plain; charset=UTF-8".into(),
            "base64",
            mime::base64_lines(text.as_bytes()),
        )
    }
}

/// Whether bytes can travel as 7bit: ASCII without NUL and lines of at most 998.
fn seven_bit(bytes: &[u8]) -> bool {
    bytes.iter().all(|&b| b != 0 && b < 0x80)
        && bytes.split(|&b| b == b'\n').all(|line| line.len() <= 998)
}

/// One part of a multipart message: its headers, its encoded body, whether it is a file.
struct BodyPart {
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    attachment: bool,
}

fn attachment_part(name: &str, bytes: &[u8]) -> BodyPart {
    let quoted = quote_parameter(name);
    let mut content_type = content_type_of(name).to_string();
    if content_type == "text/plain" {
        content_type.push_str("; charset=us-ascii");
    }
    let (encoding, body) = if seven_bit(bytes) {
        ("7bit", bytes.to_vec())
    } else {
        ("base64", mime::base64_lines(bytes))
    };
    let headers = vec![
        (
            "Content-Type".to_string(),
            format!("{content_type}; name={quoted}"),
        ),
        (
            "Content-Transfer-Encoding".to_string(),
            encoding.to_string(),
        ),
        (
            "Content-Disposition".to_string(),
            format!("attachment; filename={quoted}"),
        ),
    ];
    BodyPart {
        headers,
        body,
        attachment: true,
    }
}

/// A parameter value, quoted when it is not a MIME token.
fn quote_parameter(value: &str) -> String {
    let token = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_graphic() && !"()<>@,;:\\\"/[]?=".contains(c));
    if token {
        value.to_string()
    } else {
        format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// The type Java's default file type map gives a file name.
fn content_type_of(name: &str) -> &'static str {
    let extension = name.rsplit_once('.').map_or("", |(_, e)| e);
    match extension.to_ascii_lowercase().as_str() {
        "txt" | "text" => "text/plain",
        "html" | "htm" => "text/html",
        "gif" => "image/gif",
        "jpeg" | "jpg" | "jpe" => "image/jpeg",
        "tiff" | "tif" => "image/tiff",
        "au" => "audio/basic",
        "aiff" | "aif" | "aifc" => "audio/x-aiff",
        "wav" => "audio/x-wav",
        "mpeg" | "mpg" | "mpe" => "video/mpeg",
        "qt" | "mov" => "video/quicktime",
        "avi" => "video/x-msvideo",
        "ps" | "eps" | "ai" => "application/postscript",
        _ => "application/octet-stream",
    }
}

fn from_eml(raw: &[u8]) -> Composed {
    let part = mime::split(raw);
    let mut headers = Vec::new();
    for (name, value) in &part.headers {
        mime::add_header(&mut headers, name, value);
    }
    let content_type = part.content_type();
    let decoded = if content_type.is_multipart() {
        part.body.clone()
    } else {
        part.decoded()
    };
    let sampler_data = String::from_utf8_lossy(&decoded).into_owned();
    Composed {
        headers,
        content: part.body,
        response_data: decoded,
        sampler_data,
    }
}

impl Composed {
    /// `Name: value` lines, as JMeter shows the message's headers.
    pub fn request_headers(&self) -> String {
        self.headers
            .iter()
            .map(|(n, v)| format!("{n}: {v}\n"))
            .collect()
    }

    /// The message as `writeTo` writes it; the transport leaves out Bcc.
    pub fn write_to(&self, for_transport: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.content.len() + 512);
        for (name, value) in &self.headers {
            if for_transport && name.eq_ignore_ascii_case("Bcc") {
                continue;
            }
            let name = if name == "Message-Id" && for_transport {
                "Message-ID"
            } else {
                name
            };
            out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
        }
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(&self.content);
        out
    }

    /// Every recipient's bare address: To, then Cc, then Bcc.
    pub fn recipients(&self) -> Vec<String> {
        let part = Part {
            headers: self.headers.clone(),
            body: Vec::new(),
        };
        ["To", "Cc", "Bcc"]
            .iter()
            .filter_map(|name| part.header(name))
            .flat_map(mime::address_list)
            .map(|a| mime::bare_address(&a))
            .collect()
    }

    /// The envelope sender: the first From address.
    pub fn sender(&self) -> Option<String> {
        let from = self
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("From"))?;
        mime::address_list(&from.1)
            .first()
            .map(|a| mime::bare_address(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft() -> Draft {
        Draft {
            from: Some("Jane <jane@example.com>".into()),
            reply_to: Vec::new(),
            to: vec!["bob@example.com".into()],
            cc: Vec::new(),
            bcc: vec!["erin@example.com".into()],
            subject: Some("Hi".into()),
            body: "Body.".into(),
            plain_body: true,
            attachments: Vec::new(),
            header_fields: vec![("X-Test".into(), "1".into())],
            eml: None,
        }
    }

    #[test]
    fn plain_messages_carry_headers_in_javamails_order() {
        let message = compose(&draft(), 0, "host");
        let names: Vec<&str> = message.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "Date",
                "From",
                "To",
                "Bcc",
                "Message-Id",
                "Subject",
                "MIME-Version",
                "Content-Type",
                "Content-Transfer-Encoding",
                "X-Test"
            ]
        );
        assert_eq!(message.response_data, b"Body.");
        assert_eq!(
            message.recipients(),
            ["bob@example.com", "erin@example.com"]
        );
        let wire = String::from_utf8(message.write_to(true)).expect("ASCII");
        assert!(!wire.contains("Bcc:") && wire.contains("Message-ID: <"));
        assert!(wire.ends_with("\r\n\r\nBody."));
    }

    #[test]
    fn attachments_make_a_multipart_message() {
        let mut d = draft();
        d.attachments = vec![("a.bin".into(), vec![0, 1, 2, 255])];
        let message = compose(&d, 0, "host");
        let text = String::from_utf8_lossy(&message.response_data).into_owned();
        assert!(text.contains("Content-Type: application/octet-stream; name=a.bin\r\n"));
        assert!(text.contains(
            "Content-Transfer-Encoding: base64\r\n\
             Content-Disposition: attachment; filename=a.bin\r\n\r\nAAEC/w=="
        ));
        assert!(message
            .sampler_data
            .contains("<attachment content not shown>"));
    }
}
