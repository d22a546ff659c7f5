//! SMTP Sampler (`SmtpSampler`): composes the message ([`super::compose`]), then sends it
//! in one SMTP session as JavaMail's `SMTPTransport` does: greeting, `EHLO` (or `HELO`),
//! `STARTTLS` when asked and offered (a failure when enforced but not offered), `AUTH
//! LOGIN` or `PLAIN` when authentication is on and the server offers it, `MAIL FROM`,
//! one `RCPT TO` per To, Cc and Bcc address (any refusal fails the message as
//! "Invalid Addresses"), `DATA`, `QUIT`.
//!
//! Results follow JMeter 5.6.3: `200` and `Message successfully sent!\n`; `500` with the
//! authentication text and the server's reply on a refused login, or the JavaMail
//! exception's message otherwise (`Couldn't connect to host, port: …; timeout 0`,
//! `Invalid Addresses`, `STARTTLS is required but host does not support STARTTLS`, the
//! server's reply to `MAIL FROM` or `DATA`). The response data is the message content,
//! so `bytes` counts it; with an empty content `bytes` is the whole message's size when
//! "Calculate message size" is on and -1 otherwise, as in JMeter. The latency stays 0.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;

use super::compose::{compose, Composed, Draft};
use super::connection::{millis, ConnectError, Connection, Security};
use super::mime;
use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::new_result;

const PREFIX: &str = "SMTPSampler.";

/// The sampler's settings, by their name after `SMTPSampler.`.
const NAMES: [&str; 25] = [
    "server",
    "serverPort",
    "serverTimeout",
    "serverConnectionTimeout",
    "useAuth",
    "username",
    "password",
    "mailFrom",
    "replyTo",
    "receiverTo",
    "receiverCC",
    "receiverBCC",
    "subject",
    "suppressSubject",
    "message",
    "plainBody",
    "include_timestamp",
    "attachFile",
    "messageSizeStatistics",
    "use_eml",
    "emlMessageToSend",
    "useSSL",
    "useStartTLS",
    "trustAllCerts",
    "enforceStartTLS",
];

pub struct SmtpSampler {
    settings: Vec<Setting>,
    headers: Vec<(String, crate::expr::Template)>,
    plan_dir: PathBuf,
}

pub fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    let settings = NAMES
        .iter()
        .map(|name| cx.setting(&format!("{PREFIX}{name}"), ""))
        .collect();
    let headers = cx.arguments("SMTPSampler.headerFields");
    Arc::new(SmtpSampler {
        settings,
        headers,
        plan_dir: cx.plan_dir(),
    })
}

/// One sample's settings, evaluated.
struct Request {
    values: Vec<String>,
    headers: Vec<(String, String)>,
}

impl Request {
    fn text(&self, name: &str) -> &str {
        NAMES
            .iter()
            .position(|n| *n == name)
            .map_or("", |i| self.values[i].as_str())
    }

    fn flag(&self, name: &str) -> bool {
        self.text(name).trim().eq_ignore_ascii_case("true")
    }

    fn security(&self) -> Security {
        Security {
            ssl: self.flag("useSSL"),
            start_tls: self.flag("useStartTLS"),
            enforce_start_tls: self.flag("enforceStartTLS"),
            trust_all: self.flag("trustAllCerts"),
        }
    }

    /// `SendMailCommand.getPort`: the given port, else 465 (SSL), 587 (STARTTLS) or 25.
    fn port(&self) -> i64 {
        let port = self.text("serverPort").trim();
        if !port.is_empty() {
            return port.parse().unwrap_or(-1);
        }
        let security = self.security();
        if security.ssl {
            465
        } else if security.start_tls {
            587
        } else {
            25
        }
    }

    /// The session the sampler's settings describe.
    fn session(&self) -> Session {
        let connect_timeout = match self.text("serverConnectionTimeout").trim() {
            "" => "0".to_string(),
            text => text.to_string(),
        };
        Session {
            server: self.text("server").trim().to_string(),
            port: self.port(),
            security: self.security(),
            connect_timeout,
            read_timeout: millis(self.text("serverTimeout")),
            login: self.flag("useAuth").then(|| {
                (
                    self.text("username").to_string(),
                    self.text("password").to_string(),
                )
            }),
        }
    }

    fn addresses(&self, name: &str) -> Vec<String> {
        let text = self.text(name).trim();
        if text.is_empty() {
            return Vec::new();
        }
        text.split(';').map(encode_address).collect()
    }
}

/// `SmtpSampler.encodeAddress`: a non-ASCII personal name becomes an encoded word.
fn encode_address(address: &str) -> String {
    let trimmed = address.trim();
    match trimmed.find('<') {
        Some(start) if !trimmed.is_ascii() => {
            let personal = &trimmed[..start];
            format!("{}{}", mime::encode_word(personal), &trimmed[start..])
        }
        _ => trimmed.to_string(),
    }
}

/// Why the message could not be sent.
enum Failure {
    /// The server refused the login; its reply.
    Auth(String),
    /// Any other `MessagingException`; its message.
    Other(String),
}

impl SmtpSampler {
    fn evaluate(&self, cx: &mut SampleContext<'_>) -> Request {
        let mut eval = cx.user.eval(&cx.label);
        let values = self.settings.iter().map(|s| s.text(&mut eval)).collect();
        let headers = self
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), v.eval(&mut eval)))
            .collect();
        Request { values, headers }
    }

    /// The draft of the message, or the text of the exception preparing it threw.
    fn draft(&self, request: &Request, now_ms: i64) -> Result<Draft, String> {
        let use_eml = request.flag("use_eml");
        let eml = if use_eml {
            let path = request.text("emlMessageToSend");
            Some(std::fs::read(path).map_err(|e| file_not_found(path, &e))?)
        } else {
            None
        };
        let mut attachments = Vec::new();
        if !use_eml {
            for name in request.text("attachFile").split(';') {
                if name.is_empty() {
                    continue;
                }
                let path = self.attachment_path(name);
                let bytes = std::fs::read(&path)
                    .map_err(|e| file_not_found(&path.display().to_string(), &e))?;
                let shown = path
                    .file_name()
                    .map_or_else(|| name.to_string(), |n| n.to_string_lossy().into_owned());
                attachments.push((shown, bytes));
            }
        }
        let from = request.text("mailFrom");
        let subject = (!request.flag("suppressSubject")).then(|| {
            let subject = request.text("subject").to_string();
            if request.flag("include_timestamp") {
                format!("{subject} <<< current timestamp: {now_ms} >>>")
            } else {
                subject
            }
        });
        Ok(Draft {
            from: from.contains('@').then(|| encode_address(from)),
            reply_to: request.addresses("replyTo"),
            to: request.addresses("receiverTo"),
            cc: request.addresses("receiverCC"),
            bcc: request.addresses("receiverBCC"),
            subject,
            body: if use_eml {
                String::new()
            } else {
                request.text("message").to_string()
            },
            plain_body: request.flag("plainBody"),
            attachments,
            header_fields: request.headers.clone(),
            eml,
        })
    }

    /// A relative attachment that is not in the working folder is looked up beside the plan.
    fn attachment_path(&self, name: &str) -> PathBuf {
        let path = Path::new(name);
        if path.is_absolute() || path.exists() {
            path.to_path_buf()
        } else {
            self.plan_dir.join(path)
        }
    }

    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let request = self.evaluate(cx);
        let mut result = new_result(cx, cx.label.clone());
        result.set_success(false);
        let now_ms = chrono::Utc::now().timestamp_millis();
        let host = local_host_name().to_string();
        let message = match self.draft(&request, now_ms) {
            Ok(draft) => compose(&draft, now_ms, &host),
            Err(exception) => {
                result.response_code = "500".into();
                result.response_message = exception.into();
                return result;
            }
        };
        result.bytes_override = if request.flag("messageSizeStatistics") {
            message.write_to(false).len() as i64
        } else {
            -1
        };
        result.data_type = "text";
        result.request_headers = message.request_headers();
        result.sampler_data = message.sampler_data.clone();
        let stop = cx.user.run.stop_now.clone();
        let session = request.session();
        let watch = Stopwatch::start();
        let outcome = tokio::select! {
            outcome = send(&session, &message, &host) => outcome,
            _ = stop.cancelled() => Err(Failure::Other("Exception reading response".into())),
        };
        watch.stop(&mut result);
        result.response_data = message.response_data;
        match outcome {
            Ok(()) => {
                result.response_code = "200".into();
                result.response_message = "Message successfully sent!\n".into();
                result.set_success(true);
            }
            Err(Failure::Auth(reply)) => {
                result.response_code = "500".into();
                result.response_message = format!(
                    "AuthenticationFailedException: authentication failed - wrong username / \
                     password!\njavax.mail.AuthenticationFailedException: {reply}"
                )
                .into();
            }
            Err(Failure::Other(message)) => {
                result.response_code = "500".into();
                result.response_message = message.into();
            }
        }
        result
    }
}

/// `java.io.FileNotFoundException` as the JVM words it.
fn file_not_found(path: &str, error: &io::Error) -> String {
    let why = match error.kind() {
        io::ErrorKind::NotFound => "No such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        _ => error.to_string(),
    };
    format!("java.io.FileNotFoundException: {path} ({why})")
}

/// An SMTP reply: its code and its lines, each ended by `\n` (JavaMail's
/// `lastServerResponse`).
struct Reply {
    code: u16,
    text: String,
}

async fn reply(connection: &mut Connection) -> Result<Reply, Failure> {
    let mut text = String::new();
    loop {
        let line = connection.read_line().await.map_err(read_failure)?;
        text.push_str(&line);
        text.push('\n');
        if line.as_bytes().get(3) != Some(&b'-') {
            let code = line.get(..3).and_then(|c| c.parse().ok()).unwrap_or(0);
            return Ok(Reply { code, text });
        }
    }
}

fn read_failure(_: io::Error) -> Failure {
    Failure::Other("Exception reading response".into())
}

async fn command(connection: &mut Connection, line: &str) -> Result<Reply, Failure> {
    connection.send_line(line).await.map_err(read_failure)?;
    reply(connection).await
}

/// The name JavaMail gives this machine in `EHLO` and in the `Message-ID` (JMeter's
/// `InetAddress.getLocalHost().getCanonicalHostName()`): the host name resolved, then the
/// address named back (`localhost` when the host name is an alias of 127.0.0.1); the
/// bracketed address when it has no name; `localhost` when the host name does not resolve.
/// Looked up once: the lookups may be slow and the answer does not change during a run.
fn local_host_name() -> &'static str {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        let host = gethostname::gethostname().to_string_lossy().into_owned();
        canonical_name(&host).unwrap_or_else(|| "localhost".into())
    })
}

/// The canonical name of `host`: its first address named back by the resolver, or that
/// address in brackets; `None` when `host` does not resolve.
fn canonical_name(host: &str) -> Option<String> {
    use std::net::{SocketAddr, ToSocketAddrs};
    let address = (host, 0).to_socket_addrs().ok()?.next()?;
    let literal = match address {
        SocketAddr::V4(v4) => format!("[{}]", v4.ip()),
        SocketAddr::V6(v6) => format!("[{}]", v6.ip()),
    };
    Some(name_of(&address).unwrap_or(literal))
}

/// The name the resolver gives `address` (`getnameinfo` with a name required).
fn name_of(address: &std::net::SocketAddr) -> Option<String> {
    let (storage, length) = socket_address(address);
    let mut name = [0 as libc::c_char; 1025];
    // SAFETY: `storage` holds a valid socket address of `length` bytes, and `name` is a
    // writable buffer whose length is passed; no service name is asked for.
    let status = unsafe {
        libc::getnameinfo(
            std::ptr::addr_of!(storage).cast::<libc::sockaddr>(),
            length,
            name.as_mut_ptr(),
            name.len() as libc::socklen_t,
            std::ptr::null_mut(),
            0,
            libc::NI_NAMEREQD,
        )
    };
    if status != 0 {
        return None;
    }
    // SAFETY: getnameinfo succeeded, so `name` holds a NUL-terminated string.
    let text = unsafe { std::ffi::CStr::from_ptr(name.as_ptr()) };
    Some(text.to_string_lossy().into_owned())
}

/// `address` as the C socket address `getnameinfo` reads.
fn socket_address(address: &std::net::SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: an all-zero sockaddr_storage is a valid (unspecified) socket address.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let length = match address {
        std::net::SocketAddr::V4(v4) => {
            let c = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: v4.port().to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from_ne_bytes(v4.ip().octets()),
                },
                sin_zero: [0; 8],
            };
            // SAFETY: sockaddr_storage is larger than sockaddr_in and suitably aligned.
            unsafe { std::ptr::write(std::ptr::addr_of_mut!(storage).cast(), c) };
            std::mem::size_of::<libc::sockaddr_in>()
        }
        std::net::SocketAddr::V6(v6) => {
            let c = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: v6.port().to_be(),
                sin6_flowinfo: v6.flowinfo(),
                sin6_addr: libc::in6_addr {
                    s6_addr: v6.ip().octets(),
                },
                sin6_scope_id: v6.scope_id(),
            };
            // SAFETY: sockaddr_storage is larger than sockaddr_in6 and suitably aligned.
            unsafe { std::ptr::write(std::ptr::addr_of_mut!(storage).cast(), c) };
            std::mem::size_of::<libc::sockaddr_in6>()
        }
    };
    (storage, length as libc::socklen_t)
}

/// The extensions an `EHLO` reply lists, upper-cased (`STARTTLS`, `AUTH LOGIN PLAIN`).
fn extensions(reply: &Reply) -> Vec<String> {
    reply
        .text
        .lines()
        .skip(1)
        .map(|line| line.get(4..).unwrap_or("").to_ascii_uppercase())
        .collect()
}

async fn hello(connection: &mut Connection, host: &str) -> Result<Vec<String>, Failure> {
    let ehlo = command(connection, &format!("EHLO {host}")).await?;
    if ehlo.code == 250 {
        return Ok(extensions(&ehlo));
    }
    let helo = command(connection, &format!("HELO {host}")).await?;
    if helo.code != 250 {
        return Err(Failure::Other(helo.text));
    }
    Ok(Vec::new())
}

/// Where and how an SMTP session goes: the server, its security and the login.
pub struct Session {
    pub server: String,
    pub port: i64,
    pub security: Security,
    /// The connection timeout in ms as written (`0` for none), also named in messages.
    pub connect_timeout: String,
    pub read_timeout: Option<std::time::Duration>,
    /// User and password, when the session authenticates.
    pub login: Option<(String, String)>,
}

/// Sends `message` in one session, as the SMTP Sampler does; the error is the text of
/// JavaMail's exception. For senders other than the sampler (the Mailer Visualizer).
pub async fn deliver(session: &Session, message: &Composed, local: &str) -> Result<(), String> {
    send(session, message, local)
        .await
        .map_err(|failure| match failure {
            Failure::Auth(reply) => format!("javax.mail.AuthenticationFailedException: {reply}"),
            Failure::Other(message) => message,
        })
}

async fn send(session: &Session, message: &Composed, local: &str) -> Result<(), Failure> {
    let server = session.server.as_str();
    let port = session.port;
    let security = session.security;
    let timeout_text = session.connect_timeout.as_str();
    let mut connection = Connection::open(
        server,
        port,
        security.ssl,
        security.trust_all,
        millis(timeout_text),
        session.read_timeout,
    )
    .await
    .map_err(|e| match e {
        ConnectError::UnknownHost(_) => Failure::Other(format!("Unknown SMTP host: {server}")),
        ConnectError::Tls(_) => Failure::Other(format!(
            "Could not connect to SMTP host: {server}, port: {port}"
        )),
        refused => Failure::Other(refused.message(timeout_text)),
    })?;
    let greeting = reply(&mut connection).await?;
    if greeting.code != 220 {
        return Err(Failure::Other(format!(
            "Got bad greeting from SMTP host: {server}, port: {port}, response: {}",
            greeting.text.trim_end()
        )));
    }
    let mut extensions = hello(&mut connection, local).await?;
    if security.start_tls && !security.ssl {
        if extensions.iter().any(|e| e == "STARTTLS") {
            let agreed = command(&mut connection, "STARTTLS").await?;
            if agreed.code == 220 {
                connection = connection
                    .upgrade(security.trust_all)
                    .await
                    .map_err(|_| Failure::Other("Could not convert socket to TLS".into()))?;
                extensions = hello(&mut connection, local).await?;
            }
        } else if security.enforce_start_tls {
            return Err(Failure::Other(
                "STARTTLS is required but host does not support STARTTLS".into(),
            ));
        }
    }
    if let Some((user, password)) = &session.login {
        authenticate(&mut connection, &extensions, user, password).await?;
    }
    transmit(&mut connection, message, local).await?;
    let _ = command(&mut connection, "QUIT").await;
    Ok(())
}

/// `AUTH LOGIN`, else `AUTH PLAIN`, when the server offers them (JavaMail's order).
async fn authenticate(
    connection: &mut Connection,
    extensions: &[String],
    user: &str,
    password: &str,
) -> Result<(), Failure> {
    let offered: Vec<&str> = extensions
        .iter()
        .filter_map(|e| {
            e.strip_prefix("AUTH")
                .map(|m| m.trim_start_matches(['=', ' ']))
        })
        .flat_map(|m| m.split_whitespace())
        .collect();
    let done = if offered.contains(&"LOGIN") {
        let mut step = command(connection, "AUTH LOGIN").await?;
        for secret in [user, password] {
            if step.code != 334 {
                break;
            }
            step = command(connection, &mime::base64_encode(secret.as_bytes())).await?;
        }
        step
    } else if offered.contains(&"PLAIN") {
        let token = mime::base64_encode(format!("\0{user}\0{password}").as_bytes());
        command(connection, &format!("AUTH PLAIN {token}")).await?
    } else {
        return Ok(());
    };
    if done.code == 235 {
        Ok(())
    } else {
        Err(Failure::Auth(done.text))
    }
}

/// `MAIL FROM`, the recipients, `DATA` and the message.
async fn transmit(
    connection: &mut Connection,
    message: &Composed,
    local: &str,
) -> Result<(), Failure> {
    let recipients = message.recipients();
    if recipients.is_empty() {
        return Err(Failure::Other("No recipient addresses".into()));
    }
    let sender = message.sender().unwrap_or_else(|| {
        let user = std::env::var("USER").unwrap_or_else(|_| "jmeter".into());
        format!("{user}@{local}")
    });
    let mail = command(connection, &format!("MAIL FROM:<{sender}>")).await?;
    if mail.code != 250 {
        return Err(Failure::Other(mail.text));
    }
    let mut refused = false;
    for recipient in &recipients {
        let rcpt = command(connection, &format!("RCPT TO:<{recipient}>")).await?;
        refused |= !matches!(rcpt.code, 250 | 251);
    }
    if refused {
        let _ = command(connection, "RSET").await;
        return Err(Failure::Other("Invalid Addresses".into()));
    }
    let data = command(connection, "DATA").await?;
    if data.code != 354 {
        return Err(Failure::Other(data.text));
    }
    connection
        .send_raw(&dot_stuffed(&message.write_to(true)))
        .await
        .map_err(read_failure)?;
    let accepted = reply(connection).await?;
    if accepted.code != 250 {
        return Err(Failure::Other(accepted.text));
    }
    Ok(())
}

/// The message in SMTP's transparency form: CRLF line ends, a leading dot doubled, and
/// the final `.` line.
fn dot_stuffed(message: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(message.len() + 64);
    let mut line_start = true;
    let mut previous = 0u8;
    for &byte in message {
        if line_start && byte == b'.' {
            out.push(b'.');
        }
        if byte == b'\n' && previous != b'\r' {
            out.push(b'\r');
        }
        out.push(byte);
        line_start = byte == b'\n';
        previous = byte;
    }
    if !line_start {
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b".\r\n");
    out
}

#[async_trait]
impl Sampler for SmtpSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(Arc::new(self.sample_unboxed(cx).await))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loopback_address_is_named_back_as_localhost() {
        // What JavaMail writes in the Message-ID when the host name is an alias of
        // 127.0.0.1 (as in containers): the address's own name, not the alias.
        assert_eq!(canonical_name("127.0.0.1").as_deref(), Some("localhost"));
    }

    #[test]
    fn messages_are_dot_stuffed_with_crlf_line_ends() {
        assert_eq!(dot_stuffed(b"a\n.b\r\nc"), b"a\r\n..b\r\nc\r\n.\r\n");
    }

    #[test]
    fn non_ascii_personal_names_become_encoded_words() {
        assert_eq!(
            encode_address(" José <j@x.org> "),
            "=?UTF-8?B?Sm9zw6kg?=<j@x.org>"
        );
        assert_eq!(encode_address("a@x.org"), "a@x.org");
    }
}
