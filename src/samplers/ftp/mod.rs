//! FTP Request (`FTPSampler`), with FTP Request Defaults (`FtpConfigGui`), Login Config
//! Element and Simple Config Element filling what it leaves empty, as JMeter merges
//! them.
//!
//! Each sample is one session, as JMeter's: connect and read the welcome (the latency
//! ends there), log in, `TYPE I` in binary mode (ASCII is the server's default), then in
//! passive mode either retrieve the remote file (into the response when "save file in
//! response" is on, into the local file when one is named) or store it (from the
//! "local file contents" when given, else from the local file), then `QUIT`. The
//! protocol is in [`client`].
//!
//! Results follow JMeter's `FTPSampler`: `200`/`OK` on success; otherwise the server's
//! last reply code and its full reply text (CRLF-ended lines) — `530 Login incorrect.`,
//! `550 …` for a missing file, the `150 …` of a download that brought no bytes (JMeter
//! counts an empty file as a failure); `501` with the welcome or `Could not connect`
//! when the server refuses the session; `000` with the Java exception text when the
//! network or a local file fails. The sampler data and URL are JMeter's description of
//! the request, `ftp://host:port/remote (Binary)  -> local` (the URL without trailing
//! spaces). A download not saved in the response still counts its bytes; an upload
//! counts its sent bytes.

pub mod client;

use std::io;
use std::sync::Arc;

use async_trait::async_trait;

use crate::expr::Template;
use crate::jmx::Element;
use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::new_result;
use crate::samplers::tcp::connection::{connect, io_text};
use crate::samplers::tcp::{applicable_configs, merged_text};

use client::Control;

/// Config GUI classes an FTP Request takes defaults from (`FTPSampler.applies`).
const APPLICABLE_CONFIG_GUIS: [&str; 3] = ["LoginConfigGui", "FtpConfigGui", "SimpleConfigGui"];

/// FTP's port when the sampler gives none.
const DEFAULT_PORT: u16 = 21;

/// The settings, each a template (absent: `None`).
struct Settings {
    server: Option<Template>,
    port: Option<Template>,
    remote: Option<Template>,
    local: Option<Template>,
    contents: Option<Template>,
    binary: Option<Template>,
    upload: Option<Template>,
    save_response: Option<Template>,
    user: Option<Template>,
    password: Option<Template>,
}

pub struct FtpSampler {
    settings: Settings,
}

/// Builds an FTP Request, merging the applicable config elements among `configs`.
pub fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Arc<dyn Sampler> {
    let applicable = applicable_configs(configs, &APPLICABLE_CONFIG_GUIS);
    let mut merged =
        |name: &str| merged_text(cx.element, &applicable, name).map(|text| cx.compile(&text));
    let settings = Settings {
        server: merged("FTPSampler.server"),
        port: merged("FTPSampler.port"),
        remote: merged("FTPSampler.filename"),
        local: merged("FTPSampler.localfilename"),
        contents: merged("FTPSampler.inputdata"),
        binary: merged("FTPSampler.binarymode"),
        upload: merged("FTPSampler.upload"),
        save_response: merged("FTPSampler.saveresponse"),
        user: merged("ConfigTestElement.username"),
        password: merged("ConfigTestElement.password"),
    };
    Arc::new(FtpSampler { settings })
}

/// One sample's settings, evaluated.
struct Request {
    server: String,
    port: String,
    remote: String,
    local: String,
    contents: String,
    binary: bool,
    upload: bool,
    save_response: bool,
    user: String,
    password: String,
}

impl Request {
    /// JMeter's `getLabel`, used as sampler data and URL.
    fn label(&self) -> String {
        let port = if self.port.is_empty() {
            String::new()
        } else {
            format!(":{}", self.port)
        };
        format!(
            "ftp://{}{port}/{}{}{}{}",
            self.server,
            self.remote,
            if self.binary {
                " (Binary) "
            } else {
                " (Ascii) "
            },
            if self.upload { " <- " } else { " -> " },
            self.local
        )
    }
}

/// How a session ended, before JMeter's result is made of it.
enum Outcome {
    /// The transfer worked; the downloaded bytes (empty for an upload).
    Done(Vec<u8>),
    /// The server said no: the code and reply text to report.
    Refused(String, String),
}

impl FtpSampler {
    fn evaluate(&self, cx: &mut SampleContext<'_>) -> Request {
        let mut eval = cx.user.eval(&cx.label);
        let s = &self.settings;
        let mut text =
            |t: &Option<Template>| t.as_ref().map(|t| t.eval(&mut eval)).unwrap_or_default();
        let flag = |value: String| value.trim().eq_ignore_ascii_case("true");
        Request {
            server: text(&s.server),
            port: text(&s.port),
            remote: text(&s.remote),
            local: text(&s.local),
            contents: text(&s.contents),
            binary: flag(text(&s.binary)),
            upload: flag(text(&s.upload)),
            save_response: flag(text(&s.save_response)),
            user: text(&s.user),
            password: text(&s.password),
        }
    }

    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let request = self.evaluate(cx);
        let mut result = new_result(cx, cx.label.clone());
        let label = request.label();
        // Java's URL parser drops the description's trailing spaces; the sampler data keeps them.
        result.url = Some(label.trim().to_string());
        result.sampler_data = label;
        result.set_success(false);
        let stop = cx.user.run.stop_now.clone();
        let watch = Stopwatch::start();
        let outcome = tokio::select! {
            outcome = session(&request, &watch, &mut result) => outcome,
            _ = stop.cancelled() => Err("java.net.SocketException: Socket closed".to_string()),
        };
        watch.stop(&mut result);
        match outcome {
            Ok(Outcome::Done(bytes)) => {
                result.response_code = "200".into();
                result.response_message = "OK".into();
                result.set_success(true);
                if request.save_response && !request.upload {
                    result.response_data = bytes;
                    if !request.binary {
                        result.data_type = "text";
                    }
                } else {
                    // JMeter counts a download it does not keep (an upload has none).
                    result.bytes_override = bytes.len() as i64;
                }
            }
            Ok(Outcome::Refused(code, message)) => {
                result.response_code = code.into();
                result.response_message = message.into();
            }
            Err(exception) => {
                result.response_code = "000".into();
                result.response_message = exception.into();
            }
        }
        result
    }
}

/// One FTP session; `Err` is the text of the exception JMeter would catch.
async fn session(
    request: &Request,
    watch: &Stopwatch,
    result: &mut SampleResult,
) -> Result<Outcome, String> {
    let port = match request.port.trim().parse::<i64>() {
        Ok(port) if port > 0 => port,
        _ => i64::from(DEFAULT_PORT),
    };
    let stream = connect(&request.server, port, None).await?;
    let mut control = Control::open(stream).await.map_err(|e| ftp_text(&e))?;
    result.latency = watch.elapsed_ms();
    let outcome = transfer(&mut control, request, result).await;
    control.quit().await;
    outcome
}

/// What follows the welcome: login, type, the transfer.
async fn transfer(
    control: &mut Control,
    request: &Request,
    result: &mut SampleResult,
) -> Result<Outcome, String> {
    let refused =
        |control: &Control| Outcome::Refused(control.code.to_string(), control.reply.clone());
    if !client::completed(control.code) {
        let message = if control.reply.is_empty() {
            "Could not connect".to_string()
        } else {
            control.reply.clone()
        };
        return Ok(Outcome::Refused("501".into(), message));
    }
    let net = |e: io::Error| ftp_text(&e);
    if !control
        .login(&request.user, &request.password)
        .await
        .map_err(net)?
    {
        return Ok(refused(control));
    }
    if request.binary {
        control.command("TYPE I").await.map_err(net)?;
    }
    let ascii = !request.binary;
    if request.upload {
        let content = if request.contents.is_empty() {
            tokio::fs::read(&request.local)
                .await
                .map_err(|e| file_text(&request.local, &e))?
        } else {
            request.contents.clone().into_bytes()
        };
        result.sent_bytes = content.len() as i64;
        let stored = control
            .store(&request.remote, &content, ascii)
            .await
            .map_err(net)?;
        return Ok(if stored {
            Outcome::Done(Vec::new())
        } else {
            refused(control)
        });
    }
    // JMeter opens (and so truncates) the local file before asking for the remote one.
    let mut local = None;
    if !request.local.is_empty() {
        let file = tokio::fs::File::create(&request.local)
            .await
            .map_err(|e| file_text(&request.local, &e))?;
        local = Some(file);
    }
    let Some(bytes) = control
        .retrieve(&request.remote, ascii)
        .await
        .map_err(net)?
    else {
        return Ok(refused(control));
    };
    if let Some(mut file) = local {
        use tokio::io::AsyncWriteExt;
        file.write_all(&bytes)
            .await
            .map_err(|e| format!("java.io.IOException: {e}"))?;
    }
    Ok(if bytes.is_empty() {
        refused(control)
    } else {
        Outcome::Done(bytes)
    })
}

/// A network failure in the words of Commons Net and the JVM.
fn ftp_text(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::UnexpectedEof => format!(
            "org.apache.commons.net.ftp.FTPConnectionClosedException: {}",
            error
        ),
        io::ErrorKind::InvalidData => {
            format!("org.apache.commons.net.MalformedServerReplyException: {error}")
        }
        _ => io_text(error),
    }
}

/// A local file that cannot be opened, as `java.io.FileNotFoundException` says it.
fn file_text(path: &str, error: &io::Error) -> String {
    let why = match error.kind() {
        io::ErrorKind::NotFound => "No such file or directory".to_string(),
        io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
        _ if error.raw_os_error() == Some(21) => "Is a directory".to_string(),
        _ => error.to_string(),
    };
    format!("java.io.FileNotFoundException: {path} ({why})")
}

#[async_trait]
impl Sampler for FtpSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(Arc::new(self.sample_unboxed(cx).await))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(upload: bool, binary: bool, port: &str) -> Request {
        Request {
            server: "h".into(),
            port: port.into(),
            remote: "dir/f.txt".into(),
            local: "/tmp/f.txt".into(),
            contents: String::new(),
            binary,
            upload,
            save_response: false,
            user: String::new(),
            password: String::new(),
        }
    }

    #[test]
    fn labels_describe_the_request_as_jmeter_does() {
        assert_eq!(
            request(false, true, "2121").label(),
            "ftp://h:2121/dir/f.txt (Binary)  -> /tmp/f.txt"
        );
        assert_eq!(
            request(true, false, "").label(),
            "ftp://h/dir/f.txt (Ascii)  <- /tmp/f.txt"
        );
    }

    #[test]
    fn missing_local_files_read_as_java_reports_them() {
        let error = io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(
            file_text("in.txt", &error),
            "java.io.FileNotFoundException: in.txt (No such file or directory)"
        );
    }
}
