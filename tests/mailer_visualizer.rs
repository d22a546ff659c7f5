//! Mailer Visualizer end to end: `jmx-fixtures/mail/mailer.jmx` runs four requests to a
//! closed port on 127.0.0.1, then four Debug Samplers, under a Mailer Visualizer with
//! both limits at 2. The private aiosmtpd server (`support::mail_servers`) must receive
//! JMeter's two notices: the failure mail at the third failure, the success mail at the
//! third success after it, each to the listed addresses that are addresses.

mod support;

use support::mail_servers::{SmtpServer, SmtpTls};
use support::run_fixture;
use support::services::free_port;

/// The value of header `name` in a message, and its body.
fn header_and_body(message: &[u8], name: &str) -> (String, String) {
    let text = String::from_utf8_lossy(message).replace("\r\n", "\n");
    let (head, body) = text.split_once("\n\n").expect("a header block");
    let prefix = format!("{name}: ");
    let value = head
        .lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {name} in {head}"));
    (value.to_string(), body.trim_end().to_string())
}

#[test]
fn a_failure_mail_and_then_a_success_mail_reach_the_server() {
    let server = SmtpServer::start(SmtpTls::None);
    let smtp_port = format!("-Jsmtp_port={}", server.port);
    let closed_port = format!("-Jclosed_port={}", free_port());
    let jtl = run_fixture("mail/mailer.jmx", &[&smtp_port, &closed_port]);
    assert_eq!(
        jtl.values("success"),
        ["false", "false", "false", "false", "true", "true", "true", "true"]
    );

    let messages = server.messages();
    assert_eq!(messages.len(), 2, "one failure mail, one success mail");
    let recipients = [
        "auth=no",
        "jmeter@example.test",
        "ops@example.test",
        "dev@example.test",
    ];
    let (envelope, message) = &messages[0];
    assert_eq!(envelope, &recipients);
    assert_eq!(
        header_and_body(message, "Subject"),
        ("site down".to_string(), "URL Failed: down".to_string())
    );
    assert_eq!(
        header_and_body(message, "To").0,
        "ops@example.test, dev@example.test"
    );
    let (envelope, message) = &messages[1];
    assert_eq!(envelope, &recipients);
    assert_eq!(
        header_and_body(message, "Subject"),
        ("site up again".to_string(), "URL Restarted: up".to_string())
    );
    assert_eq!(header_and_body(message, "From").0, "jmeter@example.test");
}
