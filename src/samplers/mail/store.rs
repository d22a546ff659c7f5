//! The two mail stores a Mail Reader Sampler reads: IMAP (RFC 3501: `LOGIN`, `EXAMINE`
//! or `SELECT`, `FETCH n BODY[]`, `STORE +FLAGS (\Deleted)`, `CLOSE`) and POP3 (RFC 1939:
//! `USER`/`PASS`, `STAT`, `RETR`, `DELE`, `QUIT`), each with its `STARTTLS`/`STLS`
//! upgrade. Only these commands are needed, so they are spoken here on the shared
//! [`Connection`] rather than through a general client library; failures carry the text
//! of the JavaMail exception JMeter reports.

use std::io;

use super::connection::{java_io_text, Connection, Security};

/// A failure in the words of JavaMail: `MessagingException`s (JMeter appends the
/// sampler's description to them) or plain I/O exceptions.
pub enum StoreError {
    Messaging(String),
    Io(String),
}

fn io_error(error: io::Error) -> StoreError {
    StoreError::Messaging(format!(
        "javax.mail.MessagingException: {};\n  nested exception is:\n\t{}",
        error,
        java_io_text(&error)
    ))
}

fn auth_failed(text: &str) -> StoreError {
    StoreError::Messaging(format!("javax.mail.AuthenticationFailedException: {text}"))
}

fn start_tls_missing() -> StoreError {
    StoreError::Messaging(
        "javax.mail.MessagingException: STARTTLS is required but host does not support STARTTLS"
            .into(),
    )
}

/// An open folder of either store.
pub enum Store {
    Imap(Imap),
    Pop3(Pop3),
}

impl Store {
    /// Logs in and opens `folder` (read-write when messages are to be deleted).
    pub async fn open(
        imap: bool,
        connection: Connection,
        security: Security,
        user: &str,
        password: &str,
        folder: &str,
        read_write: bool,
    ) -> Result<(Store, usize), StoreError> {
        if imap {
            let mut store = Imap::start(connection, security).await?;
            store.login(user, password).await?;
            let count = store.select(folder, read_write).await?;
            Ok((Store::Imap(store), count))
        } else {
            let mut store = Pop3::start(connection, security).await?;
            store.login(user, password).await?;
            if !folder.eq_ignore_ascii_case("INBOX") {
                return Err(StoreError::Messaging(
                    "javax.mail.FolderNotFoundException: folder is not INBOX".into(),
                ));
            }
            let count = store.count().await?;
            Ok((Store::Pop3(store), count))
        }
    }

    /// The raw message `number` (1-based).
    pub async fn fetch(&mut self, number: usize) -> Result<Vec<u8>, StoreError> {
        match self {
            Store::Imap(s) => s.fetch(number).await,
            Store::Pop3(s) => s.retrieve(number).await,
        }
    }

    pub async fn delete(&mut self, number: usize) -> Result<(), StoreError> {
        match self {
            Store::Imap(s) => s.delete(number).await,
            Store::Pop3(s) => s.delete(number).await,
        }
    }

    /// Closes the folder, expunging deleted messages, and ends the session.
    pub async fn close(self) -> Result<(), StoreError> {
        match self {
            Store::Imap(s) => s.close().await,
            Store::Pop3(s) => s.close().await,
        }
    }
}

/// One IMAP reply line with the literals it carried.
struct ImapLine {
    text: String,
    literals: Vec<Vec<u8>>,
}

pub struct Imap {
    connection: Connection,
    tag: u32,
    read_write: bool,
}

impl Imap {
    async fn start(connection: Connection, security: Security) -> Result<Imap, StoreError> {
        let mut imap = Imap {
            connection,
            tag: 0,
            read_write: false,
        };
        imap.line().await.map_err(io_error)?;
        if security.start_tls && !security.ssl {
            let (lines, _, _) = imap.command("CAPABILITY").await?;
            let offered = lines
                .iter()
                .any(|l| l.text.to_ascii_uppercase().contains(" STARTTLS"));
            if offered {
                let (_, status, _) = imap.command("STARTTLS").await?;
                if status == "OK" {
                    imap.connection = imap
                        .connection
                        .upgrade(security.trust_all)
                        .await
                        .map_err(io_error)?;
                }
            } else if security.enforce_start_tls {
                return Err(start_tls_missing());
            }
        }
        Ok(imap)
    }

    /// A reply line, with any `{n}` literals read in.
    async fn line(&mut self) -> io::Result<ImapLine> {
        let mut text = self.connection.read_line().await?;
        let mut literals = Vec::new();
        while let Some(size) = literal_size(&text) {
            literals.push(self.connection.read_exact(size).await?);
            text.push_str(&self.connection.read_line().await?);
        }
        Ok(ImapLine { text, literals })
    }

    /// Sends a tagged command; returns the untagged lines, the status and its text.
    async fn command(
        &mut self,
        command: &str,
    ) -> Result<(Vec<ImapLine>, String, String), StoreError> {
        self.tag += 1;
        let tag = format!("A{}", self.tag);
        self.connection
            .send_line(&format!("{tag} {command}"))
            .await
            .map_err(io_error)?;
        let mut untagged = Vec::new();
        loop {
            let line = self.line().await.map_err(io_error)?;
            if let Some(rest) = line.text.strip_prefix(&format!("{tag} ")) {
                let (status, text) = rest.split_once(' ').unwrap_or((rest, ""));
                return Ok((untagged, status.to_ascii_uppercase(), text.to_string()));
            }
            untagged.push(line);
        }
    }

    async fn login(&mut self, user: &str, password: &str) -> Result<(), StoreError> {
        let (_, status, text) = self
            .command(&format!("LOGIN {} {}", quote(user), quote(password)))
            .await?;
        if status == "OK" {
            Ok(())
        } else {
            Err(auth_failed(&text))
        }
    }

    /// Opens `folder` (`EXAMINE` read-only, `SELECT` read-write); its message count.
    async fn select(&mut self, folder: &str, read_write: bool) -> Result<usize, StoreError> {
        let verb = if read_write { "SELECT" } else { "EXAMINE" };
        let (lines, status, text) = self.command(&format!("{verb} {}", quote(folder))).await?;
        if status != "OK" {
            let (listed, _, _) = self
                .command(&format!("LIST \"\" {}", quote(folder)))
                .await?;
            if !listed.iter().any(|l| l.text.starts_with("* LIST")) {
                return Err(StoreError::Messaging(format!(
                    "javax.mail.FolderNotFoundException: {folder} not found"
                )));
            }
            return Err(StoreError::Messaging(format!(
                "javax.mail.MessagingException: {text}"
            )));
        }
        self.read_write = read_write;
        Ok(lines
            .iter()
            .filter_map(|l| {
                let rest = l.text.strip_prefix("* ")?;
                let (count, word) = rest.split_once(' ')?;
                word.eq_ignore_ascii_case("EXISTS")
                    .then(|| count.parse().ok())
                    .flatten()
            })
            .next_back()
            .unwrap_or(0))
    }

    /// The whole message; reading it marks it seen only in a read-write folder, as
    /// JavaMail's fetches do.
    async fn fetch(&mut self, number: usize) -> Result<Vec<u8>, StoreError> {
        let item = if self.read_write {
            "BODY[]"
        } else {
            "BODY.PEEK[]"
        };
        let (lines, status, text) = self.command(&format!("FETCH {number} ({item})")).await?;
        if status != "OK" {
            return Err(StoreError::Messaging(format!(
                "javax.mail.MessagingException: {text}"
            )));
        }
        Ok(lines
            .into_iter()
            .find_map(|l| l.literals.into_iter().next())
            .unwrap_or_default())
    }

    async fn delete(&mut self, number: usize) -> Result<(), StoreError> {
        self.command(&format!("STORE {number} +FLAGS (\\Deleted)"))
            .await
            .map(drop)
    }

    async fn close(mut self) -> Result<(), StoreError> {
        if self.read_write {
            self.command("CLOSE").await?;
        }
        self.command("LOGOUT").await.map(drop)
    }
}

/// The size of the literal that ends `line` (`… {123}`).
fn literal_size(line: &str) -> Option<usize> {
    let inner = line.strip_suffix('}')?;
    let open = inner.rfind('{')?;
    inner[open + 1..].trim_end_matches('+').parse().ok()
}

/// An IMAP quoted string.
fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

pub struct Pop3 {
    connection: Connection,
}

impl Pop3 {
    async fn start(connection: Connection, security: Security) -> Result<Pop3, StoreError> {
        let mut pop3 = Pop3 { connection };
        let greeting = pop3.connection.read_line().await.map_err(io_error)?;
        if !greeting.starts_with("+OK") {
            return Err(StoreError::Io(format!("java.io.IOException: {greeting}")));
        }
        if security.start_tls && !security.ssl {
            let offered = match pop3.command("CAPA").await? {
                Ok(_) => pop3
                    .lines()
                    .await?
                    .iter()
                    .any(|l| l.eq_ignore_ascii_case(b"STLS")),
                Err(_) => false,
            };
            if offered {
                if pop3.command("STLS").await?.is_ok() {
                    pop3.connection = pop3
                        .connection
                        .upgrade(security.trust_all)
                        .await
                        .map_err(io_error)?;
                }
            } else if security.enforce_start_tls {
                return Err(start_tls_missing());
            }
        }
        Ok(pop3)
    }

    /// Sends a command; `Ok(text)` after `+OK`, `Err(text)` after `-ERR`.
    async fn command(&mut self, command: &str) -> Result<Result<String, String>, StoreError> {
        self.connection.send_line(command).await.map_err(io_error)?;
        let line = self.connection.read_line().await.map_err(io_error)?;
        Ok(match line.strip_prefix("+OK") {
            Some(rest) => Ok(rest.trim_start().to_string()),
            None => Err(line
                .strip_prefix("-ERR")
                .unwrap_or(&line)
                .trim_start()
                .to_string()),
        })
    }

    /// The lines of a multi-line reply, dot-stuffing undone.
    async fn lines(&mut self) -> Result<Vec<Vec<u8>>, StoreError> {
        let mut lines = Vec::new();
        loop {
            let line = self.connection.read_line_raw().await.map_err(io_error)?;
            if line == b"." {
                return Ok(lines);
            }
            lines.push(line.strip_prefix(b".").map_or(line.clone(), <[u8]>::to_vec));
        }
    }

    async fn login(&mut self, user: &str, password: &str) -> Result<(), StoreError> {
        if let Err(text) = self.command(&format!("USER {user}")).await? {
            return Err(auth_failed(&text));
        }
        if let Err(text) = self.command(&format!("PASS {password}")).await? {
            return Err(auth_failed(&text));
        }
        Ok(())
    }

    async fn count(&mut self) -> Result<usize, StoreError> {
        match self.command("STAT").await? {
            Ok(text) => Ok(text
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0)),
            Err(text) => Err(StoreError::Messaging(format!(
                "javax.mail.MessagingException: {text}"
            ))),
        }
    }

    async fn retrieve(&mut self, number: usize) -> Result<Vec<u8>, StoreError> {
        if let Err(text) = self.command(&format!("RETR {number}")).await? {
            return Err(StoreError::Messaging(format!(
                "javax.mail.MessagingException: {text}"
            )));
        }
        let mut message = Vec::new();
        for line in self.lines().await? {
            message.extend_from_slice(&line);
            message.extend_from_slice(b"\r\n");
        }
        Ok(message)
    }

    async fn delete(&mut self, number: usize) -> Result<(), StoreError> {
        self.command(&format!("DELE {number}")).await.map(drop)
    }

    async fn close(mut self) -> Result<(), StoreError> {
        self.command("QUIT").await.map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_found_at_line_ends() {
        assert_eq!(literal_size("* 1 FETCH (BODY[] {152}"), Some(152));
        assert_eq!(literal_size("* 1 FETCH (FLAGS ())"), None);
        assert_eq!(quote("a\"b"), "\"a\\\"b\"");
    }
}
