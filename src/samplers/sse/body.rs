//! The body of an event-stream response as it arrives: de-chunked (`Transfer-Encoding:
//! chunked`), bounded by `Content-Length`, or running until the server closes; then
//! inflated when the server compressed it (`Content-Encoding: gzip` or `deflate`, which
//! only happens when a Header Manager asked with `Accept-Encoding`). Each piece is
//! decoded as it comes, so events are seen as soon as their bytes are.

use std::io::Write;

use flate2::write::{GzDecoder, ZlibDecoder};

/// How the body ends.
#[derive(Debug)]
enum Framing {
    Chunked(Chunk),
    /// Bytes still to come.
    Length(u64),
    /// Until the connection closes.
    Close,
}

/// Where the chunked decoder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chunk {
    /// Reading the size line; the size so far, and whether an extension started.
    Size(u64, bool),
    /// The CR was seen; the LF ends the size line.
    SizeLf(u64),
    Data(u64),
    /// The CRLF after the data.
    DataCr,
    DataLf,
    /// Trailer lines after the last chunk; whether the current line is empty so far.
    Trailer(bool),
    Done,
}

enum Inflate {
    Gzip(GzDecoder<Vec<u8>>),
    Zlib(ZlibDecoder<Vec<u8>>),
}

/// Decodes one response body; see the module doc.
pub struct Body {
    framing: Framing,
    inflate: Option<Inflate>,
}

impl Body {
    /// The decoder for a response with these headers (`None` values: header absent).
    pub fn new(
        transfer_encoding: Option<&str>,
        content_length: Option<&str>,
        content_encoding: Option<&str>,
    ) -> Result<Body, String> {
        let framing =
            if transfer_encoding.is_some_and(|t| t.to_ascii_lowercase().contains("chunked")) {
                Framing::Chunked(Chunk::Size(0, false))
            } else if let Some(length) = content_length {
                Framing::Length(
                    length
                        .trim()
                        .parse()
                        .map_err(|_| format!("invalid Content-Length: {length}"))?,
                )
            } else {
                Framing::Close
            };
        let inflate = match content_encoding.map(|e| e.trim().to_ascii_lowercase()) {
            None => None,
            Some(e) if e.is_empty() || e == "identity" => None,
            Some(e) if e == "gzip" || e == "x-gzip" => {
                Some(Inflate::Gzip(GzDecoder::new(Vec::new())))
            }
            Some(e) if e == "deflate" => Some(Inflate::Zlib(ZlibDecoder::new(Vec::new()))),
            Some(other) => {
                return Err(format!(
                    "Content-Encoding {other} cannot be read as it arrives"
                ))
            }
        };
        Ok(Body { framing, inflate })
    }

    /// Whether the body is complete (the server may then keep the connection open).
    pub fn ended(&self) -> bool {
        matches!(
            self.framing,
            Framing::Chunked(Chunk::Done) | Framing::Length(0)
        )
    }

    /// Decodes `raw` bytes from the wire, appending the content to `out`. Bytes after the
    /// end of the body are ignored.
    pub fn feed(&mut self, raw: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        let mut content = Vec::new();
        let target = if self.inflate.is_some() {
            &mut content
        } else {
            &mut *out
        };
        match &mut self.framing {
            Framing::Close => target.extend_from_slice(raw),
            Framing::Length(left) => {
                let take = raw.len().min(usize::try_from(*left).unwrap_or(usize::MAX));
                target.extend_from_slice(&raw[..take]);
                *left -= take as u64;
            }
            Framing::Chunked(state) => dechunk(state, raw, target)?,
        }
        if let Some(inflate) = &mut self.inflate {
            let decoded = match inflate {
                Inflate::Gzip(d) => d
                    .write_all(&content)
                    .and_then(|()| d.flush())
                    .map(|()| d.get_mut()),
                Inflate::Zlib(d) => d
                    .write_all(&content)
                    .and_then(|()| d.flush())
                    .map(|()| d.get_mut()),
            }
            .map_err(|e| format!("cannot inflate the body: {e}"))?;
            out.append(decoded);
        }
        Ok(())
    }
}

fn hex_digit(byte: u8) -> Option<u64> {
    char::from(byte).to_digit(16).map(u64::from)
}

/// Runs the chunked decoder over `raw`.
fn dechunk(state: &mut Chunk, raw: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let mut at = 0;
    while at < raw.len() {
        let byte = raw[at];
        *state = match *state {
            Chunk::Size(size, extension) => match byte {
                b'\r' => Chunk::SizeLf(size),
                b'\n' => after_size(size),
                _ if extension => Chunk::Size(size, true),
                b';' | b' ' | b'\t' => Chunk::Size(size, true),
                _ => {
                    let digit = hex_digit(byte).ok_or("invalid chunk size")?;
                    let size = size
                        .checked_mul(16)
                        .and_then(|s| s.checked_add(digit))
                        .ok_or("chunk size too large")?;
                    Chunk::Size(size, false)
                }
            },
            Chunk::SizeLf(size) if byte == b'\n' => after_size(size),
            Chunk::SizeLf(_) => return Err("invalid chunk size line".into()),
            Chunk::Data(left) => {
                let take = (raw.len() - at).min(usize::try_from(left).unwrap_or(usize::MAX));
                out.extend_from_slice(&raw[at..at + take]);
                at += take;
                let left = left - take as u64;
                *state = if left == 0 {
                    Chunk::DataCr
                } else {
                    Chunk::Data(left)
                };
                continue;
            }
            Chunk::DataCr if byte == b'\r' => Chunk::DataLf,
            Chunk::DataCr | Chunk::DataLf if byte == b'\n' => Chunk::Size(0, false),
            Chunk::DataCr | Chunk::DataLf => return Err("chunk not followed by CRLF".into()),
            Chunk::Trailer(empty) => match byte {
                b'\n' if empty => Chunk::Done,
                b'\n' => Chunk::Trailer(true),
                b'\r' => Chunk::Trailer(empty),
                _ => Chunk::Trailer(false),
            },
            Chunk::Done => return Ok(()),
        };
        at += 1;
    }
    Ok(())
}

fn after_size(size: u64) -> Chunk {
    if size == 0 {
        Chunk::Trailer(true)
    } else {
        Chunk::Data(size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `wire` one byte at a time and in one piece; both must give the same.
    fn decode(body: impl Fn() -> Body, wire: &[u8]) -> (Vec<u8>, bool) {
        let mut whole = body();
        let mut out = Vec::new();
        whole.feed(wire, &mut out).unwrap();
        let mut bytewise = body();
        let mut out_bytewise = Vec::new();
        for byte in wire {
            bytewise
                .feed(std::slice::from_ref(byte), &mut out_bytewise)
                .unwrap();
        }
        assert_eq!(out, out_bytewise);
        assert_eq!(whole.ended(), bytewise.ended());
        (out, whole.ended())
    }

    #[test]
    fn chunks_with_extensions_and_trailers() {
        let chunked = || Body::new(Some("chunked"), None, None).unwrap();
        let wire = b"5;name=x\r\ndata:\r\n3\r\n a\n\r\n0\r\nX-T: 1\r\n\r\nafter";
        assert_eq!(decode(chunked, wire), (b"data: a\n".to_vec(), true));
        let (out, ended) = decode(chunked, b"A\r\n0123456789\r\n");
        assert_eq!((out.len(), ended), (10, false));
        let mut bad = chunked();
        assert!(bad.feed(b"zz\r\n", &mut Vec::new()).is_err());
    }

    #[test]
    fn length_and_close_delimited() {
        let length = || Body::new(None, Some("4"), None).unwrap();
        assert_eq!(decode(length, b"abcdef"), (b"abcd".to_vec(), true));
        let close = || Body::new(None, None, None).unwrap();
        assert_eq!(decode(close, b"abc"), (b"abc".to_vec(), false));
    }

    #[test]
    fn gzip_inflates_as_it_arrives() {
        use flate2::write::GzEncoder;
        use flate2::Compression;
        let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(b"data: one\n\n").unwrap();
        encoder.flush().unwrap();
        let first = encoder.get_ref().len();
        encoder.write_all(b"data: two\n\n").unwrap();
        let wire = encoder.finish().unwrap();
        let mut body = Body::new(None, None, Some("gzip")).unwrap();
        let mut out = Vec::new();
        body.feed(&wire[..first], &mut out).unwrap();
        assert_eq!(out, b"data: one\n\n");
        body.feed(&wire[first..], &mut out).unwrap();
        assert_eq!(out, b"data: one\n\ndata: two\n\n");
        assert!(Body::new(None, None, Some("br")).is_err());
    }
}
