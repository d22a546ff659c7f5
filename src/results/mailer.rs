//! Mailer Visualizer: counts the samples in its scope as JMeter's `MailerModel` does and
//! mails a notice when they start failing and when they recover.
//!
//! The rules are the model's. Every failed sample adds to the failures and clears the
//! run of successes; every success adds to that run. Once the failures exceed the
//! failure limit (and the To list holds an address) the failure mail goes, "URL Failed:
//! " and the label of the sample that tipped it, and the site counts as down; the
//! successes start again. While down, once the run of successes exceeds the success
//! limit the success mail goes ("URL Restarted: " and the label) and the failures
//! start again, so the next failures can send a new failure mail.
//!
//! The sink runs on the results thread; the mails go from a thread of its own
//! ([`Outbox`]), through the SMTP Sampler's client, so a slow or absent mail server
//! never holds samples up. The end of the run waits for the mails already decided.

use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::{SampleEvent, Sink};
use crate::runlog;
use crate::samplers::mail::compose::{compose, Draft};
use crate::samplers::mail::connection::Security;
use crate::samplers::mail::smtp::{deliver, Session};

/// How long a mail may take to connect, and to get each reply: JavaMail waits without
/// limit, but the end of the run waits for the mails.
const MAIL_TIMEOUT_MS: u64 = 30_000;

/// The settings as the run starts, evaluated.
#[derive(Debug, Clone, PartialEq)]
pub struct MailerSettings {
    pub from: String,
    /// The To field: addresses separated by commas.
    pub to: String,
    pub host: String,
    pub port: String,
    pub login: String,
    pub password: String,
    /// `SSL`, `TLS` (STARTTLS) or `NONE`.
    pub auth_type: String,
    pub failure_subject: String,
    pub success_subject: String,
    pub failure_limit: String,
    pub success_limit: String,
}

impl MailerSettings {
    /// `MailerModel.getAddressList`: the comma-separated entries with an `@` after their
    /// first character; others are left out with a warning.
    pub fn addresses(&self) -> Vec<String> {
        let mut out = Vec::new();
        for entry in self.to.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            if entry.find('@').is_some_and(|at| at > 0) {
                out.push(entry.to_string());
            } else {
                runlog::warn(&format!("Ignored unexpected e-mail address: {entry}"));
            }
        }
        out
    }

    /// `getPropertyAsLong`: text that is not a number is 0.
    fn limit(text: &str) -> i64 {
        text.trim().parse().unwrap_or(0)
    }
}

/// Which notice a sample calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notice {
    Failure,
    Success,
}

/// `MailerModel`'s counters.
#[derive(Debug, Default)]
pub struct MailerModel {
    failures: i64,
    successes: i64,
    failure_sent: bool,
    site_down: bool,
    success_sent: bool,
}

impl MailerModel {
    /// Counts one sample; the notice to send, if any. `has_addresses` says whether the
    /// To list holds an address: without one the failure mail is not sent and the site
    /// is not counted down.
    pub fn add(
        &mut self,
        success: bool,
        failure_limit: i64,
        success_limit: i64,
        has_addresses: bool,
    ) -> Option<Notice> {
        let mut notice = None;
        if success {
            self.successes += 1;
        } else {
            self.failures += 1;
            self.successes = 0;
        }
        if self.failures > failure_limit && !self.site_down && !self.failure_sent && has_addresses {
            notice = Some(Notice::Failure);
            self.site_down = true;
            self.failure_sent = true;
            self.successes = 0;
            self.success_sent = false;
        }
        if self.site_down && !self.success_sent && self.successes > success_limit {
            notice = Some(Notice::Success);
            self.site_down = false;
            self.success_sent = true;
            self.failures = 0;
            self.failure_sent = false;
        }
        if self.success_sent && self.failure_sent {
            *self = MailerModel::default();
        }
        notice
    }
}

/// One mail to send.
struct Mail {
    subject: String,
    body: String,
}

/// The thread that sends the mails, one after the other.
struct Outbox {
    queue: Option<mpsc::Sender<Mail>>,
    thread: Option<JoinHandle<()>>,
}

impl Outbox {
    fn start(settings: MailerSettings, path: String) -> Outbox {
        let (queue, mails) = mpsc::channel::<Mail>();
        let thread = std::thread::Builder::new()
            .name("mailer".into())
            .spawn(move || send_all(&settings, &path, &mails))
            .ok();
        Outbox {
            queue: Some(queue),
            thread,
        }
    }

    fn send(&self, mail: Mail) {
        if let Some(queue) = &self.queue {
            let _ = queue.send(mail);
        }
    }

    /// Waits for the mails already queued.
    fn close(&mut self) {
        self.queue = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn send_all(settings: &MailerSettings, path: &str, mails: &mpsc::Receiver<Mail>) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            runlog::error(&format!("{path}: cannot send mail: {e}"));
            return;
        }
    };
    let local = gethostname::gethostname().to_string_lossy().into_owned();
    for mail in mails {
        if let Err(problem) = runtime.block_on(send_one(settings, &mail, &local)) {
            runlog::error(&format!("{path}: Problem sending mail: {problem}"));
        }
    }
}

/// `MailerModel.sendMail`: a plain text message from `from` to every address.
async fn send_one(settings: &MailerSettings, mail: &Mail, local: &str) -> Result<(), String> {
    let security = match settings.auth_type.trim() {
        "NONE" | "" => None,
        "SSL" => Some(Security {
            ssl: true,
            ..Security::default()
        }),
        "TLS" => Some(Security {
            start_tls: true,
            ..Security::default()
        }),
        other => {
            return Err(format!(
                "java.lang.IllegalArgumentException: No enum constant \
                 org.apache.jmeter.reporters.MailerModel.MailAuthType.{other}"
            ))
        }
    };
    let from = settings.from.trim();
    if !from.contains('@') {
        return Err(format!(
            "javax.mail.internet.AddressException: Illegal address in string ``{from}''"
        ));
    }
    let now_ms = chrono::Utc::now().timestamp_millis();
    let draft = Draft {
        from: Some(from.to_string()),
        reply_to: Vec::new(),
        to: settings.addresses(),
        cc: Vec::new(),
        bcc: Vec::new(),
        subject: Some(mail.subject.clone()),
        body: mail.body.clone(),
        plain_body: true,
        attachments: Vec::new(),
        header_fields: Vec::new(),
        eml: None,
    };
    let message = compose(&draft, now_ms, local);
    let port = match settings.port.trim() {
        "" => 25,
        port => port.parse().unwrap_or(-1),
    };
    // The login is used only with SSL or TLS: JavaMail authenticates only when
    // `mail.smtp.auth` is on, which the model sets for those two.
    let login = (security.is_some() && !settings.login.is_empty())
        .then(|| (settings.login.clone(), settings.password.clone()));
    let session = Session {
        server: settings.host.trim().to_string(),
        port,
        security: security.unwrap_or_default(),
        connect_timeout: MAIL_TIMEOUT_MS.to_string(),
        read_timeout: Some(Duration::from_millis(MAIL_TIMEOUT_MS)),
        login,
    };
    deliver(&session, &message, local).await
}

/// The Mailer Visualizer's sink.
pub struct MailerSink {
    listener: usize,
    settings: MailerSettings,
    failure_limit: i64,
    success_limit: i64,
    has_addresses: bool,
    model: MailerModel,
    outbox: Outbox,
}

impl MailerSink {
    /// `path` names the element in the run log's messages.
    pub fn new(listener: usize, settings: MailerSettings, path: &str) -> MailerSink {
        MailerSink {
            listener,
            failure_limit: MailerSettings::limit(&settings.failure_limit),
            success_limit: MailerSettings::limit(&settings.success_limit),
            has_addresses: !settings.addresses().is_empty(),
            outbox: Outbox::start(settings.clone(), path.to_string()),
            settings,
            model: MailerModel::default(),
        }
    }
}

impl Sink for MailerSink {
    fn on_sample(&mut self, event: &SampleEvent) -> std::io::Result<()> {
        let sample = &event.result;
        if sample.ignore || !event.listeners.contains(&self.listener) {
            return Ok(());
        }
        let notice = self.model.add(
            sample.success,
            self.failure_limit,
            self.success_limit,
            self.has_addresses,
        );
        let mail = match notice {
            Some(Notice::Failure) => Mail {
                subject: self.settings.failure_subject.clone(),
                body: format!("URL Failed: {}", sample.label),
            },
            Some(Notice::Success) => Mail {
                subject: self.settings.success_subject.clone(),
                body: format!("URL Restarted: {}", sample.label),
            },
            None => return Ok(()),
        };
        self.outbox.send(mail);
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.outbox.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The notices for a run of outcomes (`F` failed, `s` succeeded), with both limits 2.
    fn notices(outcomes: &str) -> Vec<(usize, Notice)> {
        let mut model = MailerModel::default();
        outcomes
            .chars()
            .enumerate()
            .filter_map(|(i, c)| model.add(c == 's', 2, 2, true).map(|n| (i, n)))
            .collect()
    }

    #[test]
    fn failures_beyond_the_limit_then_successes_beyond_it_send_one_mail_each() {
        // Failures need not be consecutive: the third one sends.
        assert_eq!(notices("FsFsF"), [(4, Notice::Failure)]);
        assert_eq!(
            notices("FFFsssFFssss"),
            [(2, Notice::Failure), (5, Notice::Success)]
        );
        // A failure while down restarts the run of successes.
        assert_eq!(
            notices("FFFssFsss"),
            [(2, Notice::Failure), (8, Notice::Success)]
        );
        // After the success mail the failures count from zero again.
        assert_eq!(
            notices("FFFsssFFF"),
            [
                (2, Notice::Failure),
                (5, Notice::Success),
                (8, Notice::Failure)
            ]
        );
    }

    #[test]
    fn without_an_address_nothing_is_sent() {
        let mut model = MailerModel::default();
        assert!((0..10).all(|_| model.add(false, 2, 2, false).is_none()));
    }

    #[test]
    fn addresses_need_an_at_after_their_first_character() {
        let settings = MailerSettings {
            from: String::new(),
            to: "ops@example.test, @nobody, plain ,dev@example.test".into(),
            host: String::new(),
            port: String::new(),
            login: String::new(),
            password: String::new(),
            auth_type: String::new(),
            failure_subject: String::new(),
            success_subject: String::new(),
            failure_limit: String::new(),
            success_limit: String::new(),
        };
        assert_eq!(
            settings.addresses(),
            ["ops@example.test", "dev@example.test"]
        );
    }
}
