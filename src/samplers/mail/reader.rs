//! Mail Reader Sampler (`MailReaderSampler`): logs in to an IMAP or POP3 store (`imap`,
//! `imaps`, `pop3`, `pop3s`; STARTTLS when asked), opens the folder, reads the first
//! *n* messages (-1: all) and optionally deletes them, as JMeter does through JavaMail.
//! The protocols are in [`super::store`].
//!
//! The response follows JMeter's layout: the parent's data is `N messages found\n`;
//! each message is a sub-sample (`Message i`, renamed `<label>-<i>` as JMeter renames
//! sub-results) whose response headers are the message's headers (encoded words
//! decoded) and whose data is a `Date/To/From/Subject` summary followed by the text
//! body, or the raw message when "Store the message using MIME (raw)" is on, or nothing
//! with "Fetch headers only". A multipart message gets one sub-sample per part
//! (`Part: j`) holding the part's content. Failures are `500` with the JavaMail
//! exception and, for `MessagingException`s, the sampler's description
//! (`imap://user@host:port/folder[n]`) on the next line.

use std::sync::Arc;

use async_trait::async_trait;

use super::connection::{Connection, Security};
use super::mime::{self, Part};
use super::store::{Store, StoreError};
use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::new_result;

/// The encoding of message text without a charset (RFC 822's default in JMeter).
const DEFAULT_ENCODING: &str = "iso-8859-1";

pub struct MailReaderSampler {
    server_type: Setting,
    host: Setting,
    port: Setting,
    user: Setting,
    password: Setting,
    folder: Setting,
    count: Setting,
    delete: Setting,
    store_mime: Setting,
    header_only: Setting,
    security: [Setting; 4],
}

pub fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    Arc::new(MailReaderSampler {
        server_type: cx.setting("host_type", "pop3"),
        host: cx.setting("host", ""),
        port: cx.setting("port", ""),
        user: cx.setting("username", ""),
        password: cx.setting("password", ""),
        folder: cx.setting("folder", "INBOX"),
        count: cx.setting("num_messages", "-1"),
        delete: cx.setting("delete", "false"),
        store_mime: cx.setting("storeMimeMessage", "false"),
        header_only: cx.setting("headerOnly", "false"),
        security: [
            cx.setting("SMTPSampler.useSSL", "false"),
            cx.setting("SMTPSampler.useStartTLS", "false"),
            cx.setting("SMTPSampler.enforceStartTLS", "false"),
            cx.setting("SMTPSampler.trustAllCerts", "false"),
        ],
    })
}

/// One sample's settings, evaluated.
struct Request {
    server_type: String,
    host: String,
    /// -1 when absent or not a number (the protocol's default port).
    port: i64,
    user: String,
    password: String,
    folder: String,
    count: i64,
    delete: bool,
    store_mime: bool,
    header_only: bool,
    security: Security,
}

impl Request {
    /// JMeter's `toString`: `imap://user@host:port/folder[n]`.
    fn describe(&self) -> String {
        let user = if self.user.is_empty() {
            String::new()
        } else {
            format!("{}@", self.user)
        };
        let port = if self.port == -1 {
            String::new()
        } else {
            format!(":{}", self.port)
        };
        format!(
            "{}://{user}{}{port}/{}[{}]",
            self.server_type, self.host, self.folder, self.count
        )
    }

    fn imap(&self) -> bool {
        self.server_type.to_ascii_lowercase().starts_with("imap")
    }

    fn implicit_tls(&self) -> bool {
        self.server_type.to_ascii_lowercase().ends_with('s')
    }

    fn port_or_default(&self) -> i64 {
        if self.port != -1 {
            return self.port;
        }
        match (self.imap(), self.implicit_tls()) {
            (true, false) => 143,
            (true, true) => 993,
            (false, false) => 110,
            (false, true) => 995,
        }
    }
}

impl MailReaderSampler {
    fn evaluate(&self, cx: &mut SampleContext<'_>) -> Request {
        let mut eval = cx.user.eval(&cx.label);
        let [ssl, start_tls, enforce, trust_all] = &self.security;
        let port = self.port.text(&mut eval);
        let count = self.count.text(&mut eval);
        Request {
            server_type: self.server_type.text(&mut eval),
            host: self.host.text(&mut eval),
            port: port.trim().parse().unwrap_or(-1),
            user: self.user.text(&mut eval),
            password: self.password.text(&mut eval),
            folder: self.folder.text(&mut eval),
            count: count.trim().parse().unwrap_or(0),
            delete: self.delete.bool(&mut eval),
            store_mime: self.store_mime.bool(&mut eval),
            header_only: self.header_only.bool(&mut eval),
            security: Security {
                ssl: ssl.bool(&mut eval),
                start_tls: start_tls.bool(&mut eval),
                enforce_start_tls: enforce.bool(&mut eval),
                trust_all: trust_all.bool(&mut eval),
            },
        }
    }

    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let request = self.evaluate(cx);
        let mut parent = new_result(cx, cx.label.clone());
        let description = request.describe();
        parent.sampler_data = description.clone();
        parent.set_success(false);
        let props = &cx.user.run.props;
        let rename = !props.get_bool("subresults.disable_renaming", false);
        let stop = cx.user.run.stop_now.clone();
        let watch = Stopwatch::start();
        let mut children = Vec::new();
        let outcome = tokio::select! {
            outcome = read(&request, rename, &mut children) => outcome,
            _ = stop.cancelled() => Err(StoreError::Io("java.io.InterruptedIOException".into())),
        };
        watch.stop(&mut parent);
        match outcome {
            Ok(found) => {
                parent.response_code = "200".into();
                parent.response_message = "OK".into();
                parent.response_data = format!("{found} messages found\n").into_bytes();
                parent.data_type = "text";
                parent.content_type = "text/plain".into();
                parent.set_success(true);
            }
            Err(StoreError::Messaging(text)) => {
                parent.response_code = "500".into();
                parent.response_message = format!("{text}\n{description}").into();
            }
            Err(StoreError::Io(text)) => {
                parent.response_code = "500".into();
                parent.response_message = text.into();
            }
        }
        for child in children {
            add_sub(&mut parent, child, rename);
        }
        parent
    }
}

/// JMeter's `addSubResult`: the parent's body size grows by the child's.
fn add_sub(parent: &mut SampleResult, mut child: SampleResult, rename: bool) {
    child.thread_name = parent.thread_name.clone();
    for part in &mut child.subresults {
        part.thread_name = parent.thread_name.clone();
    }
    let own = parent
        .body_size
        .unwrap_or(parent.response_data.len() as i64);
    let theirs = child.body_size.unwrap_or(child.response_data.len() as i64);
    parent.add_subresult(child, rename);
    parent.body_size = Some(own + theirs);
}

/// The session: connect, log in, open the folder, read; the number of messages read.
async fn read(
    request: &Request,
    rename: bool,
    children: &mut Vec<SampleResult>,
) -> Result<usize, StoreError> {
    let connection = Connection::open(
        &request.host,
        request.port_or_default(),
        request.implicit_tls(),
        request.security.trust_all,
        None,
        None,
    )
    .await
    .map_err(|e| StoreError::Messaging(e.java_text("-1")))?;
    let (mut store, total) = Store::open(
        request.imap(),
        connection,
        request.security,
        &request.user,
        &request.password,
        &request.folder,
        request.delete,
    )
    .await?;
    let wanted = usize::try_from(request.count).unwrap_or(usize::MAX);
    let n = if request.count == -1 {
        total
    } else {
        wanted.min(total)
    };
    for number in 1..=n {
        let watch = Stopwatch::start();
        let raw = store.fetch(number).await?;
        let mut child = SampleResult::new(Arc::from(format!("Message {number}")));
        child.sampler_data = format!("Message {number}");
        describe_message(&mut child, &raw, request, rename);
        if request.delete {
            store.delete(number).await?;
        }
        child.response_code = "200".into();
        child.response_message = "OK".into();
        child.set_success(true);
        watch.stop(&mut child);
        children.push(child);
    }
    store.close().await?;
    Ok(n)
}

/// Fills a message's sub-sample as JMeter's `MailReaderSampler` does.
fn describe_message(child: &mut SampleResult, raw: &[u8], request: &Request, rename: bool) {
    let message = mime::split(raw);
    let content_type = message.content_type();
    child.content_type = content_type.raw.clone().into();
    child.data_encoding = content_type
        .param("charset")
        .unwrap_or(DEFAULT_ENCODING)
        .to_string()
        .into();
    child.data_type = "text";
    if request.store_mime {
        child.response_data = raw.to_vec();
        return;
    }
    child.response_headers = message
        .headers
        .iter()
        .map(|(n, v)| format!("{n}: {}\n", mime::decode_words(v)))
        .collect();
    if request.header_only {
        return;
    }
    let mut summary = String::new();
    let date = message.header("Date").map_or("null".into(), java_date);
    summary.push_str(&format!("Date: {date}\n"));
    let recipients: Vec<String> = ["To", "Cc", "Bcc"]
        .iter()
        .filter_map(|n| message.header(n))
        .flat_map(mime::address_list)
        .map(|a| mime::decode_words(&a))
        .collect();
    summary.push_str(&format!("To: {}\n", recipients.join("; ")));
    let from: Vec<String> = message
        .header("From")
        .map(mime::address_list)
        .unwrap_or_default()
        .iter()
        .map(|a| mime::decode_words(a))
        .collect();
    summary.push_str(&format!("From: {}\n", from.join("; ")));
    let subject = message
        .header("Subject")
        .map_or("null".into(), mime::decode_words);
    summary.push_str(&format!("Subject: {subject}\n\n"));
    if content_type.is_multipart() {
        let boundary = content_type.param("boundary").unwrap_or("");
        let (preamble, parts) = mime::multipart(&message.body, boundary);
        // JavaMail's IMAP store builds multiparts from the body structure, without the
        // preamble; POP3 parses the whole message and keeps it.
        if let (Some(preamble), false) = (preamble, request.imap()) {
            summary.push_str(&preamble);
        }
        child.response_data = mime::encode_charset(&summary, &child.data_encoding);
        for (j, part) in parts.iter().enumerate() {
            let sub = describe_part(part, j);
            child.add_subresult(sub, rename);
        }
        let total = child.response_data.len() as i64
            + child
                .subresults
                .iter()
                .map(|s| s.response_data.len() as i64)
                .sum::<i64>();
        child.body_size = Some(total);
    } else if content_type.is_text() {
        let charset = content_type.param("charset").unwrap_or("us-ascii");
        summary.push_str(&mime::decode_charset(&message.decoded(), charset));
        child.response_data = mime::encode_charset(&summary, &child.data_encoding);
    } else {
        child.response_data = message.decoded();
    }
}

/// A body part's sub-sample (`Part: j`): its text, or its decoded bytes.
fn describe_part(part: &Part, j: usize) -> SampleResult {
    let watch = Stopwatch::start();
    let content_type = part.content_type();
    let mut sub = SampleResult::new(Arc::from(format!("Part: {j}")));
    sub.content_type = content_type.raw.clone().into();
    sub.data_encoding = content_type
        .param("charset")
        .unwrap_or(DEFAULT_ENCODING)
        .to_string()
        .into();
    sub.data_type = "text";
    sub.response_data = if content_type.is_text() {
        let charset = content_type.param("charset").unwrap_or("us-ascii");
        let text = mime::decode_charset(&part.decoded(), charset);
        mime::encode_charset(&text, &sub.data_encoding)
    } else {
        part.decoded()
    };
    sub.response_code = "200".into();
    sub.response_message = "OK".into();
    sub.set_success(true);
    watch.stop(&mut sub);
    sub
}

/// A `Date` header as Java's `Date.toString` shows it (in UTC): `Tue Dec 01 10:00:00
/// UTC 2026`; `null` when it cannot be read.
fn java_date(value: &str) -> String {
    let unfolded = value.replace(['\r', '\n'], " ");
    let cleaned = match unfolded.find('(') {
        Some(comment) => unfolded[..comment].trim().to_string(),
        None => unfolded.trim().to_string(),
    };
    let normalised = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    chrono::DateTime::parse_from_rfc2822(&normalised)
        .map(|d| {
            d.with_timezone(&chrono::Utc)
                .format("%a %b %d %H:%M:%S UTC %Y")
                .to_string()
        })
        .unwrap_or_else(|_| "null".into())
}

#[async_trait]
impl Sampler for MailReaderSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(Arc::new(self.sample_unboxed(cx).await))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_java_prints_them() {
        assert_eq!(
            java_date("Tue, 01 Dec 2026 10:00:00 +0000"),
            "Tue Dec 01 10:00:00 UTC 2026"
        );
        assert_eq!(
            java_date("Tue, 1 Dec 2026 11:00:00 +0100 (CET)"),
            "Tue Dec 01 10:00:00 UTC 2026"
        );
        assert_eq!(java_date("garbage"), "null");
    }
}
