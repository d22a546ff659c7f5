//! Private mail servers for the mail sampler tests, on 127.0.0.1 with temporary folders
//! and configuration written here (never system services): SMTP servers on Debian's
//! `python3-aiosmtpd` (`smtp_server.py` beside this file stores each message it accepts),
//! and one Dovecot instance serving IMAP, IMAPS, POP3 and POP3S from Maildir folders.
//! TLS uses the test certificate in `tests/support/tls/`.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::services::free_port;

/// The account both servers accept.
pub const USER: &str = "jmxr";
pub const PASSWORD: &str = "s3cret";

fn support_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support")
}

fn wait_for(port: u16, what: &str, child: &mut Child) {
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{what} exited: {status}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{what} did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// How an SMTP server greets clients.
#[derive(Clone, Copy, PartialEq)]
pub enum SmtpTls {
    /// Plain, no STARTTLS offered.
    None,
    /// Plain, offering STARTTLS.
    StartTls,
    /// TLS from the first byte (SMTPS).
    Implicit,
}

pub struct SmtpServer {
    child: Child,
    pub port: u16,
    folder: tempfile::TempDir,
}

impl SmtpServer {
    /// A server accepting [`USER`]/[`PASSWORD`] and refusing recipients `nobody@…`.
    pub fn start(tls: SmtpTls) -> SmtpServer {
        let folder = tempfile::tempdir().expect("mail folder");
        let port = free_port();
        let support = support_dir();
        let mut command = Command::new("/usr/bin/python3");
        command
            .arg(support.join("smtp_server.py"))
            .arg(port.to_string())
            .arg(folder.path())
            .args([
                "--user",
                USER,
                "--password",
                PASSWORD,
                "--reject",
                "nobody@",
            ]);
        if tls != SmtpTls::None {
            command
                .arg("--cert")
                .arg(support.join("tls/cert.pem"))
                .arg("--key")
                .arg(support.join("tls/key.pem"));
        }
        if tls == SmtpTls::Implicit {
            command.arg("--implicit-tls");
        }
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs (.ci/run installs Debian's python3-aiosmtpd)");
        wait_for(port, "aiosmtpd", &mut child);
        SmtpServer {
            child,
            port,
            folder,
        }
    }

    /// The messages received, in order: (envelope lines, message bytes).
    pub fn messages(&self) -> Vec<(Vec<String>, Vec<u8>)> {
        let mut out = Vec::new();
        for n in 1.. {
            let base = self.folder.path().join(n.to_string());
            let Ok(message) = std::fs::read(base.with_extension("eml")) else {
                break;
            };
            let envelope = std::fs::read_to_string(base.with_extension("env")).unwrap_or_default();
            out.push((envelope.lines().map(str::to_string).collect(), message));
        }
        out
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A private Dovecot serving one user's Maildir over IMAP, IMAPS, POP3 and POP3S.
pub struct Dovecot {
    child: Child,
    pub imap: u16,
    pub imaps: u16,
    pub pop3: u16,
    pub pop3s: u16,
    root: tempfile::TempDir,
}

impl Dovecot {
    /// Starts Dovecot with `messages` in INBOX and `archive` in the `Archive` folder.
    pub fn start(inbox: &[&[u8]], archive: &[&[u8]]) -> Dovecot {
        let root = tempfile::tempdir().expect("dovecot folder");
        let dir = root.path();
        let maildir = dir.join("mail").join(USER);
        for (folder, messages) in [
            (maildir.clone(), inbox),
            (maildir.join(".Archive"), archive),
        ] {
            for sub in ["cur", "new", "tmp"] {
                std::fs::create_dir_all(folder.join(sub)).expect("maildir");
            }
            for (i, message) in messages.iter().enumerate() {
                let name = format!("{}.M{i}P1.jmxr", 1_700_000_000 + i);
                std::fs::write(folder.join("new").join(name), message).expect("message");
            }
        }
        std::fs::write(dir.join("passwd"), format!("{USER}:{{PLAIN}}{PASSWORD}\n"))
            .expect("passwd");
        // Dovecot refuses to run mail processes as root: as root, the mail belongs to its
        // own `dovecot` user; otherwise to whoever runs the tests.
        let root_user = user_id() == 0;
        let (uid, gid) = if root_user {
            let status = Command::new("chown")
                .args(["-R", "dovecot:dovecot"])
                .arg(dir.join("mail"))
                .status()
                .expect("chown runs");
            assert!(status.success(), "chown of the Maildir failed");
            ("dovecot".to_string(), "dovecot".to_string())
        } else {
            (user_id().to_string(), group_id().to_string())
        };
        let [imap, imaps, pop3, pop3s] = [free_port(), free_port(), free_port(), free_port()];
        let support = support_dir();
        let cert = support.join("tls/cert.pem");
        let key = support.join("tls/key.pem");
        let d = dir.display();
        let mut config = format!(
            "base_dir = {d}/run\nstate_dir = {d}/state\nlog_path = {d}/dovecot.log\n\
             protocols = imap pop3\nlisten = 127.0.0.1\nssl = yes\n\
             ssl_cert = <{}\nssl_key = <{}\ndisable_plaintext_auth = no\n\
             auth_failure_delay = 0\nauth_mechanisms = plain login\nfirst_valid_uid = 1\n\
             mail_location = maildir:{d}/mail/%u\n\
             passdb {{\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u {d}/passwd\n}}\n\
             userdb {{\n  driver = static\n  args = uid={uid} gid={gid} home={d}/home/%u\n}}\n\
             service imap-login {{\n  inet_listener imap {{\n    port = {imap}\n  }}\n  \
             inet_listener imaps {{\n    port = {imaps}\n    ssl = yes\n  }}\n}}\n\
             service pop3-login {{\n  inet_listener pop3 {{\n    port = {pop3}\n  }}\n  \
             inet_listener pop3s {{\n    port = {pop3s}\n    ssl = yes\n  }}\n}}\n",
            cert.display(),
            key.display(),
        );
        if !root_user {
            let user = std::env::var("USER").unwrap_or_else(|_| "nobody".into());
            config.push_str(&format!(
                "default_internal_user = {user}\ndefault_login_user = {user}\n\
                 service anvil {{\n  chroot =\n}}\nservice imap-login {{\n  chroot =\n}}\n\
                 service pop3-login {{\n  chroot =\n}}\n"
            ));
        }
        let conf = dir.join("dovecot.conf");
        std::fs::write(&conf, config).expect("dovecot.conf");
        let mut child = Command::new("dovecot")
            .arg("-F")
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("dovecot runs (.ci/run installs dovecot-imapd and dovecot-pop3d)");
        for port in [imap, imaps, pop3, pop3s] {
            wait_for(port, "dovecot", &mut child);
        }
        Dovecot {
            child,
            imap,
            imaps,
            pop3,
            pop3s,
            root,
        }
    }

    /// How many messages a folder (`""` for INBOX) holds now.
    pub fn count(&self, folder: &str) -> usize {
        let mut base = self.root.path().join("mail").join(USER);
        if !folder.is_empty() {
            base = base.join(format!(".{folder}"));
        }
        ["cur", "new"]
            .iter()
            .map(|sub| std::fs::read_dir(base.join(sub)).map_or(0, |d| d.count()))
            .sum()
    }
}

fn user_id() -> u32 {
    id_of("-u")
}

fn group_id() -> u32 {
    id_of("-g")
}

/// The current user's or group's id, from `id`.
fn id_of(flag: &str) -> u32 {
    let output = Command::new("id").arg(flag).output().expect("id runs");
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("a numeric id")
}

impl Drop for Dovecot {
    fn drop(&mut self) {
        // SIGTERM lets the master stop its login and mail processes with it.
        let _ = Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let started = Instant::now();
        while matches!(self.child.try_wait(), Ok(None))
            && started.elapsed() < Duration::from_secs(5)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
