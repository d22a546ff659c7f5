//! A response replayed from bytes instead of read from a socket: the HTTP/1.1 reading of
//! [`super::client`] (status line, headers, framing, chunks) and the result filling of
//! [`super::response`] (content decoding, encoding), exactly as a sample runs them.
//! The fuzz targets (`commands::fuzzing`) and their regression test feed it hostile
//! servers' bytes.

use tokio::io::AsyncRead;

use super::client::read_response_from;
use super::response::{fill, fill_error};
use crate::sample::SampleResult;

/// Reads `wire` as the server's side of a connection that was sent a `method` request,
/// keeping at most `max_body` decoded body bytes, and returns the sample JMeter would
/// record: the response, or the failure with its message.
pub async fn replay<S: AsyncRead + Unpin>(
    wire: &mut S,
    method: &str,
    max_body: usize,
) -> SampleResult {
    let mut result = SampleResult::default();
    match read_response_from(wire, method, max_body).await {
        Ok(Some(incoming)) => fill(&mut result, incoming, max_body),
        Ok(None) => result.set_success(false),
        Err(error) => fill_error(&mut result, &error),
    }
    result
}
