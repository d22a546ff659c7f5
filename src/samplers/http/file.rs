//! `file:` URLs: JMeter reads the file through Java's URL connection (its Java HTTP
//! implementation). The sample has code `200`, message `OK`, no headers, the file as
//! body and its length as bytes; a missing file is a `FileNotFoundException`.
//! Relative paths resolve against the working folder, as Java does. Every file is typed
//! `text/html` with the sampler's content encoding as charset (UTF-8 when empty, JMeter
//! 5.6's default), as `HTTPFileImpl` does.

use std::sync::Arc;

use super::client::TransportError;
use super::response;
use super::url::Url;
use crate::plan::SampleContext;
use crate::sample::SampleResult;
use crate::sample::Stopwatch;
use crate::samplers::new_result;

pub fn sample(cx: &SampleContext<'_>, label: Arc<str>, url: &Url, encoding: &str) -> SampleResult {
    let mut result = new_result(cx, label);
    result.is_http = true;
    result.http_method = "GET".into();
    result.url = Some(url.to_string());
    let watch = Stopwatch::start();
    let path = percent_encoding::percent_decode_str(&url.path_and_query)
        .decode_utf8_lossy()
        .into_owned();
    match std::fs::read(&path) {
        Ok(data) => {
            result.response_code = "200".into();
            result.response_message = "OK".into();
            let encoding = if encoding.trim().is_empty() {
                "UTF-8"
            } else {
                encoding.trim()
            };
            result.data_type = "text";
            result.content_type = format!("text/html; charset={encoding}").into();
            result.data_encoding = encoding.to_string().into();
            result.response_data = data;
            result.set_success(true);
        }
        Err(err) => {
            let reason = match err.kind() {
                std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
                _ => err.to_string(),
            };
            let error = TransportError {
                class: "java.io.FileNotFoundException",
                message: format!("{path} ({reason})"),
            };
            response::fill_error(&mut result, &error);
        }
    }
    watch.stop(&mut result);
    result
}
