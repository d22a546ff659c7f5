//! jp@gc - HTTP Raw Request (`kg.apc.jmeter.samplers.HTTPRawSampler`): writes its
//! `data` (UTF-8) and then the content of `fileName` to a TCP connection to
//! `hostname:port`, and reads until the server closes the connection.
//!
//! As the plugin (over its `AbstractIPSampler`) does:
//! * success is code `200`, the response the bytes read (at most
//!   `kg.apc.jmeter.samplers.ResultDataLimit` of them are kept);
//!   latency ends at the first bytes read;
//! * `timeout` (ms, 0 or not a number: none) bounds the connect and each read; a read
//!   timeout is `java.net.SocketTimeoutException: Timeout exceeded while reading from
//!   socket`; any failure is code `500` with the exception text as message and data;
//! * `keepalive` keeps the user's connection for its next sample; a connection closed
//!   by a failure stays closed, so with keep-alive every later sample of the user fails
//!   with `java.nio.channels.ClosedChannelException`, as in the plugin;
//! * `parse` reads the response as HTTP: the status line's code (100-599) and reason
//!   become the response code and message, the header lines the response headers, and
//!   the body's first CRLF-delimited piece (leading CRLFs skipped) the response data —
//!   the plugin's `Scanner` reads no further. A port that is not a number is 80.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::foundation::paths::resolve_input;
use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::runlog;
use crate::sample::{SampleResult, Stopwatch};

use super::new_result;

pub const CLASS: &str = "kg.apc.jmeter.samplers.HTTPRawSampler";

const RECEIVE_BUFFER_PROPERTY: &str = "kg.apc.jmeter.samplers.ReceiveBufferSize";
const RECEIVE_BUFFER_DEFAULT: usize = 4096;
const RESULT_DATA_LIMIT_PROPERTY: &str = "kg.apc.jmeter.samplers.ResultDataLimit";
const READ_TIMEOUT: &str =
    "java.net.SocketTimeoutException: Timeout exceeded while reading from socket";
const CLOSED: &str = "java.nio.channels.ClosedChannelException";

pub struct HttpRawRequest {
    hostname: Setting,
    port: Setting,
    timeout: Setting,
    data: Setting,
    file_name: Setting,
    keep_alive: bool,
    parse: bool,
    plan_dir: std::path::PathBuf,
}

/// A user's saved connection.
enum Connection {
    Open(TcpStream),
    /// Closed after a failure but still the saved one: the plugin keeps using it.
    Closed,
}

pub(super) fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    Arc::new(HttpRawRequest {
        hostname: cx.setting("hostname", ""),
        port: cx.setting("port", ""),
        timeout: cx.setting("timeout", ""),
        data: cx.setting("data", ""),
        file_name: cx.setting("fileName", ""),
        keep_alive: cx.flag("keepalive", false),
        parse: cx.flag("parse", false),
        plan_dir: cx.plan_dir(),
    })
}

/// This sample's settings, evaluated.
struct Request {
    host: String,
    port: u16,
    timeout: Option<Duration>,
    data: String,
    file_name: String,
}

#[async_trait]
impl Sampler for HttpRawRequest {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        let request = self.evaluate(cx);
        let mut result = new_result(cx, cx.label.clone());
        result.sampler_data = request.data.clone();
        result.data_type = "text";
        let watch = Stopwatch::start();
        let stop = cx.user.run.stop_now.clone();
        let outcome = tokio::select! {
            outcome = self.exchange(&request, cx, &watch, &mut result) => outcome,
            _ = stop.cancelled() => Err("java.nio.channels.ClosedByInterruptException".to_string()),
        };
        watch.stop(&mut result);
        match outcome {
            Ok(data) => {
                result.response_code = "200".into();
                result.response_data = data;
                result.set_success(true);
                if self.parse {
                    parse_response(&mut result);
                }
            }
            Err(text) => {
                if self.keep_alive {
                    *cx.user.slot(cx.element_id, || None::<Connection>) = Some(Connection::Closed);
                }
                result.response_code = "500".into();
                result.response_data = format!("{text}\r\n").into_bytes();
                result.response_message = text.into();
                result.set_success(false);
            }
        }
        Some(Arc::new(result))
    }
}

impl HttpRawRequest {
    fn evaluate(&self, cx: &mut SampleContext<'_>) -> Request {
        let mut eval = cx.user.eval(&cx.label);
        let port_text = self.port.text(&mut eval);
        let port = port_text
            .parse::<i32>()
            .ok()
            .and_then(|p| u16::try_from(p).ok());
        if port.is_none() {
            runlog::warn(&format!("Wrong port number: {port_text}, defaulting to 80"));
        }
        let timeout_ms = self.timeout.text(&mut eval).parse::<i32>().unwrap_or(0);
        Request {
            host: self.hostname.text(&mut eval),
            port: port.unwrap_or(80),
            timeout: (timeout_ms > 0).then(|| Duration::from_millis(timeout_ms as u64)),
            data: self.data.text(&mut eval),
            file_name: self.file_name.text(&mut eval),
        }
    }

    /// Connects (or takes the saved connection), sends, reads to the end; the data kept.
    async fn exchange(
        &self,
        request: &Request,
        cx: &mut SampleContext<'_>,
        watch: &Stopwatch,
        result: &mut SampleResult,
    ) -> Result<Vec<u8>, String> {
        let id = cx.element_id;
        let saved = if self.keep_alive {
            cx.user.slot(id, || None::<Connection>).take()
        } else {
            None
        };
        let mut stream = match saved {
            Some(Connection::Open(stream)) => stream,
            Some(Connection::Closed) => return Err(CLOSED.to_string()),
            None => connect(request).await?,
        };
        if !request.data.is_empty() {
            stream
                .write_all(request.data.as_bytes())
                .await
                .map_err(|e| io_text(&e))?;
        }
        if !request.file_name.is_empty() {
            let path = resolve_input(&request.file_name, &self.plan_dir);
            let content = tokio::fs::read(&path).await.map_err(|e| {
                format!(
                    "java.io.FileNotFoundException: {} ({})",
                    request.file_name,
                    if e.kind() == std::io::ErrorKind::NotFound {
                        "No such file or directory".to_string()
                    } else {
                        e.to_string()
                    }
                )
            })?;
            stream.write_all(&content).await.map_err(|e| io_text(&e))?;
        }
        let props = &cx.user.run.props;
        let buffer_size = props
            .get(RECEIVE_BUFFER_PROPERTY)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(RECEIVE_BUFFER_DEFAULT)
            .max(1);
        let limit: usize = props
            .get(RESULT_DATA_LIMIT_PROPERTY)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(i32::MAX as usize);
        let mut buffer = vec![0u8; buffer_size];
        let mut response = Vec::new();
        let mut total = 0usize;
        loop {
            let read = match request.timeout {
                None => stream.read(&mut buffer).await,
                Some(limit) => match tokio::time::timeout(limit, stream.read(&mut buffer)).await {
                    Ok(read) => read,
                    Err(_) => return Err(READ_TIMEOUT.to_string()),
                },
            };
            let n = read.map_err(|e| io_text(&e))?;
            if n == 0 {
                break;
            }
            if total == 0 {
                result.latency = watch.elapsed_ms();
            }
            total += n;
            // The plugin checks the size before each append, so it may pass the limit once.
            if response.len() <= limit {
                response.extend_from_slice(&buffer[..n]);
            }
        }
        // `setBytes`: JMeter counts the stored data instead unless it is empty.
        result.bytes_override = total as i64;
        if self.keep_alive {
            let kept = if total == 0 {
                // Read nothing: the plugin closes the channel and keeps it as the saved one.
                Connection::Closed
            } else {
                Connection::Open(stream)
            };
            *cx.user.slot(id, || None::<Connection>) = Some(kept);
        }
        Ok(response)
    }
}

async fn connect(request: &Request) -> Result<TcpStream, String> {
    let address = tokio::net::lookup_host((request.host.as_str(), request.port))
        .await
        .ok()
        .and_then(|mut addrs| addrs.next())
        .ok_or_else(|| "java.nio.channels.UnresolvedAddressException".to_string())?;
    let connecting = TcpStream::connect(address);
    let connected = match request.timeout {
        None => connecting.await,
        Some(limit) => tokio::time::timeout(limit, connecting).await.map_err(|_| {
            format!(
                "java.net.SocketTimeoutException: Failed to connect to {}/{}",
                request.host, address
            )
        })?,
    };
    connected.map_err(|e| io_text(&e))
}

/// An I/O error in the words of the JVM's exceptions.
fn io_text(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::ConnectionRefused => {
            "java.net.ConnectException: Connection refused".to_string()
        }
        _ => format!("java.io.IOException: {error}"),
    }
}

/// The plugin's `parseResponse`: the status line, the header lines, the first body piece.
/// The text is read as JMeter decodes a response without encoding (ISO-8859-1) and the
/// body written back as UTF-8, as the plugin's `getBytes()` does.
fn parse_response(result: &mut SampleResult) {
    let text: String = result.response_data.iter().map(|&b| b as char).collect();
    let mut lines = JavaLines::new(&text);
    let Some(status) = lines.next_line() else {
        return;
    };
    let Some(first_space) = status.find(' ') else {
        return;
    };
    let Some(second_space) = status[first_space + 1..]
        .find(' ')
        .map(|at| at + first_space + 1)
    else {
        return;
    };
    let code = status[first_space..second_space].trim();
    match code.parse::<i32>() {
        Ok(n) if (100..=599).contains(&n) => {}
        _ => return,
    }
    result.response_code = code.to_string().into();
    result.response_message = status[second_space..].trim().to_string().into();
    if lines.at_end() {
        return;
    }
    let mut headers = String::new();
    while let Some(line) = lines.next_line() {
        if line.is_empty() {
            break;
        }
        headers.push_str(line);
        headers.push_str("\r\n");
    }
    result.response_headers = headers;
    let rest = lines.rest().trim_start_matches("\r\n");
    let body = rest.split("\r\n").next().unwrap_or("");
    result.response_data = body.as_bytes().to_vec();
}

/// `Scanner.nextLine` over a string: lines end at CRLF, LF, CR or the Unicode line
/// separators; the text after the last terminator is a last line when not empty.
struct JavaLines<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> JavaLines<'a> {
    fn new(text: &'a str) -> Self {
        JavaLines { text, at: 0 }
    }

    fn at_end(&self) -> bool {
        self.at >= self.text.len()
    }

    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn next_line(&mut self) -> Option<&'a str> {
        if self.at_end() {
            return None;
        }
        let rest = &self.text[self.at..];
        match rest.find(['\r', '\n', '\u{2028}', '\u{2029}', '\u{85}']) {
            Some(end) => {
                let terminator = if rest[end..].starts_with("\r\n") {
                    2
                } else {
                    rest[end..].chars().next().map_or(1, char::len_utf8)
                };
                self.at += end + terminator;
                Some(&rest[..end])
            }
            None => {
                self.at = self.text.len();
                Some(rest)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(raw: &str) -> SampleResult {
        let mut result = SampleResult::new(Arc::from("r"));
        result.response_code = "200".into();
        result.response_data = raw.as_bytes().to_vec();
        parse_response(&mut result);
        result
    }

    #[test]
    fn parses_status_headers_and_the_first_body_piece() {
        let result = parsed("HTTP/1.1 404 Not Found\r\nA: 1\r\nB: 2\r\n\r\n\r\nline1\r\nline2");
        assert_eq!(&*result.response_code, "404");
        assert_eq!(&*result.response_message, "Not Found");
        assert_eq!(result.response_headers, "A: 1\r\nB: 2\r\n");
        assert_eq!(result.response_data, b"line1");
    }

    #[test]
    fn leaves_responses_that_are_not_http_alone() {
        let result = parsed("HTTP/1.1 200");
        assert_eq!(&*result.response_code, "200");
        assert_eq!(result.response_data, b"HTTP/1.1 200");
        let result = parsed("SSH-2.0 xyz here");
        assert_eq!(result.response_data, b"SSH-2.0 xyz here");
        let result = parsed("HTTP/1.0 201 Created\r\n");
        assert_eq!(&*result.response_code, "201");
        assert_eq!(result.response_data, b"HTTP/1.0 201 Created\r\n");
    }
}
