//! SMTP Sampler and Mail Reader Sampler end to end against private servers
//! (`support::mail_servers`: aiosmtpd for SMTP, Dovecot for IMAP and POP3), checking
//! JMeter's codes, messages, response layouts and byte counts. The expected texts and
//! sizes are those JMeter (2.13 with JavaMail 1.6, read against 5.6.3's sources) reported
//! for the same plans on the same servers (see docs/mail.md).

mod support;

use support::mail_servers::{Dovecot, SmtpServer, SmtpTls};
use support::services::free_port;
use support::xml_jtl::{self, Sample};

fn fixture_file(name: &str) -> String {
    format!("{}/jmx-fixtures/mail/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// This machine's canonical name as `getent` finds it: the host name's first address,
/// named back (the bracketed address when it has no name).
fn canonical_host_name() -> String {
    let getent = |args: &[&str]| {
        let output = std::process::Command::new("getent")
            .args(args)
            .output()
            .expect("getent runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let host = String::from_utf8_lossy(
        &std::process::Command::new("hostname")
            .output()
            .expect("hostname runs")
            .stdout,
    )
    .trim()
    .to_string();
    let addresses = getent(&["ahosts", &host]);
    let address = addresses
        .split_whitespace()
        .next()
        .expect("the host name resolves")
        .to_string();
    getent(&["hosts", &address])
        .split_whitespace()
        .nth(1)
        .map_or_else(|| format!("[{address}]"), str::to_string)
}

fn failed(sample: &Sample, code: &str, message: &str) {
    assert_eq!(
        (
            sample.code.as_str(),
            sample.message.as_str(),
            sample.success
        ),
        (code, message, false),
        "{}",
        sample.label
    );
}

fn sent(sample: &Sample) {
    assert_eq!(
        (
            sample.code.as_str(),
            sample.message.as_str(),
            sample.success
        ),
        ("200", "Message successfully sent!\n", true),
        "{}",
        sample.label
    );
}

/// The header names of a sample's request headers, in order.
fn header_names(sample: &Sample) -> Vec<String> {
    sample
        .request_headers
        .lines()
        .filter(|l| !l.starts_with(['\t', ' ']))
        .filter_map(|l| l.split_once(':').map(|(n, _)| n.to_string()))
        .collect()
}

#[test]
fn smtp_sampler_sends_over_plain_starttls_and_ssl_and_fails_as_jmeter() {
    let plain = SmtpServer::start(SmtpTls::None);
    let starttls = SmtpServer::start(SmtpTls::StartTls);
    let ssl = SmtpServer::start(SmtpTls::Implicit);
    let closed = free_port();
    let samples = xml_jtl::run(
        "mail/smtp.jmx",
        &[
            ("smtp_port", plain.port.to_string()),
            ("smtp_tls_port", starttls.port.to_string()),
            ("smtp_ssl_port", ssl.port.to_string()),
            ("closed_port", closed.to_string()),
            ("eml", fixture_file("message.eml")),
        ],
    );
    let get = |label: &str| xml_jtl::get(&samples, label);

    // A plain text message: JavaMail's header order (Bcc shown, not sent), the body as
    // response data, whose length is the byte count even with "message size" on.
    let text = get("plain text");
    sent(text);
    assert_eq!(
        header_names(text),
        [
            "Date",
            "From",
            "Reply-To",
            "To",
            "Cc",
            "Bcc",
            "Message-Id",
            "Subject",
            "MIME-Version",
            "Content-Type",
            "Content-Transfer-Encoding",
            "X-Campaign",
            "X-Priority"
        ]
    );
    // The Message-ID ends with this machine's canonical name, as JavaMail's does: the host
    // name's address named back by the resolver (`localhost` for an alias of 127.0.0.1).
    let message_id = text
        .request_headers
        .lines()
        .find_map(|l| l.strip_prefix("Message-Id: "))
        .expect("a Message-Id");
    assert!(
        message_id.ends_with(&format!("@{}>", canonical_host_name())),
        "{message_id}"
    );
    for line in [
        "From: Jane Sender <jane@example.com>",
        "Cc: carol@example.com, dave@example.com",
        "Bcc: erin@example.com",
        "Subject: Hello from jmxr",
        "Content-Type: text/plain; charset=us-ascii",
        "X-Campaign: spring",
    ] {
        assert!(text.request_headers.lines().any(|l| l == line), "{line}");
    }
    assert_eq!(text.data, "Hello from the plan.");
    assert_eq!(text.sampler_data, "Hello from the plan.");
    assert_eq!(
        (text.bytes, text.data_type.as_str(), text.latency),
        (20, "text", 0)
    );

    let received = plain.messages();
    let (envelope, message) = &received[0];
    assert_eq!(
        envelope,
        &[
            "auth=no",
            "jane@example.com",
            "bob@example.com",
            "carol@example.com",
            "dave@example.com",
            "erin@example.com"
        ]
    );
    let message = String::from_utf8_lossy(message);
    assert!(!message.contains("Bcc:") && message.contains("\r\nX-Priority: 3\r\n"));
    assert!(
        message.ends_with("\r\n\r\nHello from the plan.\r\n"),
        "{message}"
    );

    // Authentication, then a multipart body: the raw multipart is the response data.
    let auth = get("auth ok");
    sent(auth);
    assert!(auth.data.starts_with("------=_Part_"), "{}", auth.data);
    assert!(auth
        .data
        .contains("Content-Transfer-Encoding: 7bit\r\n\r\nMultipart body.\r\n------=_Part_"));
    assert!(auth
        .sampler_data
        .contains("\n\nMultipart body.\n------=_Part_"));
    assert_eq!(auth.bytes, auth.data.len() as i64);
    assert_eq!(received[1].0[0], "auth=yes");
    failed(
        get("auth failure"),
        "500",
        "AuthenticationFailedException: authentication failed - wrong username / password!\n\
         javax.mail.AuthenticationFailedException: 535 5.7.8 Authentication credentials invalid\n",
    );

    // STARTTLS and SSL sessions, both authenticated (neither server accepts a message
    // without TLS).
    sent(get("starttls"));
    sent(get("ssl"));
    // The STARTTLS server accepts nothing before the upgrade.
    assert_eq!(starttls.messages().len(), 1);
    assert_eq!(ssl.messages()[0].0[0], "auth=yes");

    // Attachments: parts with the files' types and names; the sampler data hides them.
    let attached = get("attachments");
    sent(attached);
    assert!(attached.data.contains(
        "Content-Type: text/plain; charset=us-ascii; name=notes.txt\r\n\
         Content-Transfer-Encoding: 7bit\r\nContent-Disposition: attachment; filename=notes.txt\r\n\
         \r\nNotes line one.\nNotes line two.\n\r\n"
    ));
    assert!(attached
        .data
        .contains("Content-Type: application/octet-stream; name=data.csv\r\n"));
    assert_eq!(
        attached
            .sampler_data
            .matches("<attachment content not shown>")
            .count(),
        2
    );
    let with_files = String::from_utf8_lossy(&received[2].1).into_owned();
    assert!(with_files.contains("id,name\r\n1,alpha\r\n2,beta\r\n"));

    let stamped = get("timestamp subject");
    let subject = stamped
        .request_headers
        .lines()
        .find_map(|l| l.strip_prefix("Subject: "))
        .expect("a subject");
    let stamp = subject
        .strip_prefix("Hello from jmxr <<< current timestamp: ")
        .and_then(|s| s.strip_suffix(" >>>"))
        .expect("the timestamp suffix");
    assert!(stamp.parse::<i64>().is_ok(), "{subject}");

    // No content: bytes are -1, or the whole message's size with "message size" on.
    let bare = get("no subject");
    sent(bare);
    assert!(!header_names(bare).contains(&"Subject".to_string()));
    assert_eq!(bare.bytes, -1);
    let sized = get("empty body size");
    sent(sized);
    let sized_message = &received[5].1;
    assert_eq!(sized.bytes, sized_message.len() as i64);

    // An .eml file: its headers in JavaMail's order, the sampler's subject over its own.
    let eml = get("eml file");
    sent(eml);
    assert!(eml.request_headers.contains("X-Origin: eml\n"));
    assert!(eml.request_headers.contains("Subject: Hello from jmxr\n"));
    assert_eq!(eml.data, "Body of the eml file.\r\n");
    assert_eq!(plain.messages().len(), 7);

    // Failures.
    failed(
        get("eml missing"),
        "500",
        "java.io.FileNotFoundException: absent.eml (No such file or directory)",
    );
    failed(get("bad recipient"), "500", "Invalid Addresses");
    failed(
        get("starttls required"),
        "500",
        "STARTTLS is required but host does not support STARTTLS",
    );
    failed(
        get("refused"),
        "500",
        &format!("Couldn't connect to host, port: 127.0.0.1, {closed}; timeout 0"),
    );
}

const FIRST: &[u8] = b"From: Alice <alice@example.com>\r\nTo: bob@example.com\r\n\
Subject: First\r\nDate: Tue, 01 Dec 2026 10:00:00 +0000\r\nMessage-ID: <1@example.com>\r\n\r\n\
Hello Bob.\r\n";
const SECOND: &[u8] = b"From: carol@example.com\r\nTo: bob@example.com, dave@example.com\r\n\
Subject: =?UTF-8?Q?Caf=C3=A9?=\r\nDate: Tue, 01 Dec 2026 11:00:00 +0000\r\nMIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"XYZ\"\r\n\r\npreamble\r\n--XYZ\r\n\
Content-Type: text/plain; charset=us-ascii\r\n\r\nSee attached.\r\n--XYZ\r\n\
Content-Type: application/octet-stream; name=\"a.bin\"\r\nContent-Transfer-Encoding: base64\r\n\
Content-Disposition: attachment; filename=\"a.bin\"\r\n\r\ngJD+/w==\r\n--XYZ--\r\n";
const ARCHIVED: &[u8] = b"From: archive@example.com\r\nTo: jmxr@example.com\r\n\
Subject: Archived\r\nDate: Mon, 30 Nov 2026 09:00:00 +0000\r\n\r\nOld news.\r\n";

fn ok(sample: &Sample, found: usize) {
    assert_eq!(
        (
            sample.code.as_str(),
            sample.message.as_str(),
            sample.success
        ),
        ("200", "OK", true),
        "{}: {}",
        sample.label,
        sample.message
    );
    assert_eq!(
        sample.data,
        format!("{found} messages found\n"),
        "{}",
        sample.label
    );
    assert_eq!(sample.subresults.len(), found, "{}", sample.label);
}

#[test]
fn mail_reader_reads_imap_and_pop3_as_jmeter_lays_it_out() {
    let dovecot = Dovecot::start(&[FIRST, SECOND], &[ARCHIVED]);
    let closed = free_port();
    let samples = xml_jtl::run(
        "mail/reader.jmx",
        &[
            ("imap_port", dovecot.imap.to_string()),
            ("imaps_port", dovecot.imaps.to_string()),
            ("pop3_port", dovecot.pop3.to_string()),
            ("pop3s_port", dovecot.pop3s.to_string()),
            ("closed_port", closed.to_string()),
        ],
    );
    let get = |label: &str| xml_jtl::get(&samples, label);
    let imap = dovecot.imap;

    // One sub-sample per message: headers as response headers, a summary and the body
    // as data; a multipart message has one sub-sample per part. Sizes add up as JMeter's.
    let all = get("imap all");
    ok(all, 2);
    assert_eq!(
        all.sampler_data,
        format!("imap://jmxr@127.0.0.1:{imap}/INBOX[-1]")
    );
    let first = &all.subresults[0];
    assert_eq!(first.label, "imap all-0");
    assert_eq!(first.sampler_data, "Message 1");
    assert_eq!(
        first.response_headers,
        "From: Alice <alice@example.com>\nTo: bob@example.com\nSubject: First\n\
         Date: Tue, 01 Dec 2026 10:00:00 +0000\nMessage-ID: <1@example.com>\n"
    );
    assert_eq!(
        first.data,
        "Date: Tue Dec 01 10:00:00 UTC 2026\nTo: bob@example.com\n\
         From: Alice <alice@example.com>\nSubject: First\n\nHello Bob.\r\n"
    );
    let second = &all.subresults[1];
    assert!(second.response_headers.contains("Subject: Café\n"));
    assert_eq!(
        second.data,
        "Date: Tue Dec 01 11:00:00 UTC 2026\nTo: bob@example.com; dave@example.com\n\
         From: carol@example.com\nSubject: Café\n\n"
    );
    let parts: Vec<(&str, i64)> = second
        .subresults
        .iter()
        .map(|p| (p.label.as_str(), p.bytes))
        .collect();
    assert_eq!(parts, [("Message 2-0", 13), ("Message 2-1", 4)]);
    assert_eq!(second.subresults[0].data, "See attached.");
    // The byte counts JMeter reported for these messages.
    assert_eq!((first.bytes, second.bytes, all.bytes), (115, 129, 261));

    let mime = get("imap one mime");
    ok(mime, 1);
    assert_eq!(mime.subresults[0].data.as_bytes(), FIRST);
    assert_eq!((mime.subresults[0].bytes, mime.bytes), (152, 169));
    let headers_only = get("imap header only");
    ok(headers_only, 2);
    assert_eq!(headers_only.subresults[0].data, "");
    assert_eq!(headers_only.bytes, 17);

    // TLS from the start, and STARTTLS, read the same.
    for label in ["imaps", "imap starttls"] {
        ok(get(label), 2);
        assert_eq!(get(label).bytes, 261, "{label}");
    }
    ok(get("imap archive"), 1);

    // POP3 keeps the multipart preamble, which IMAP's body structure leaves out.
    let pop3 = get("pop3 all");
    ok(pop3, 2);
    assert!(pop3.subresults[1]
        .data
        .ends_with("Subject: Café\n\npreamble\n"));
    assert_eq!(pop3.bytes, 270);
    let pop3s = get("pop3s one");
    ok(pop3s, 1);
    assert_eq!(
        pop3s.sampler_data,
        format!("pop3s://jmxr@127.0.0.1:{}/INBOX[1]", dovecot.pop3s)
    );

    // Deleting empties the folder; the next read finds what is left.
    ok(get("imap delete"), 1);
    ok(get("imap after delete"), 0);
    assert_eq!(dovecot.count("Archive"), 0);
    ok(get("pop3 delete"), 1);
    ok(get("pop3 after delete"), 1);
    assert_eq!(dovecot.count(""), 1);

    // Failures: the JavaMail exception and the sampler's description.
    let describe = |port: u16, folder: &str, kind: &str| {
        format!("{kind}://jmxr@127.0.0.1:{port}/{folder}[-1]")
    };
    failed(
        get("imap missing folder"),
        "500",
        &format!(
            "javax.mail.FolderNotFoundException: Missing not found\n{}",
            describe(imap, "Missing", "imap")
        ),
    );
    failed(
        get("imap bad login"),
        "500",
        &format!(
            "javax.mail.AuthenticationFailedException: [AUTHENTICATIONFAILED] Authentication \
             failed.\n{}",
            describe(imap, "INBOX", "imap")
        ),
    );
    failed(
        get("imap refused"),
        "500",
        &format!(
            "com.sun.mail.util.MailConnectException: Couldn't connect to host, port: \
             127.0.0.1, {closed}; timeout -1;\n  nested exception is:\n\t\
             java.net.ConnectException: Connection refused\n{}",
            describe(closed, "INBOX", "imap")
        ),
    );
    failed(
        get("pop3 missing folder"),
        "500",
        &format!(
            "javax.mail.FolderNotFoundException: folder is not INBOX\n{}",
            describe(dovecot.pop3, "Archive", "pop3")
        ),
    );
    failed(
        get("pop3 bad login"),
        "500",
        &format!(
            "javax.mail.AuthenticationFailedException: [AUTH] Authentication failed.\n{}",
            describe(dovecot.pop3, "INBOX", "pop3")
        ),
    );
    assert_eq!(get("pop3 bad login").bytes, 0);
}
