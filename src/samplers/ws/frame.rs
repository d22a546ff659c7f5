//! WebSocket frames as the Luminis samplers see them: one frame per read (a fragmented
//! message arrives as its first frame and then continuation frames), with the plugin's
//! names, descriptions and sizes. Frame headers are parsed and written by tungstenite's
//! frame codec; what a frame means (continuation bookkeeping, close status) is here.

use std::io::Cursor;

use tungstenite::protocol::frame::coding::{Control, Data, OpCode};
use tungstenite::protocol::frame::{Frame as WireFrame, FrameHeader};

use super::payload::format_binary;

/// What a frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Binary,
    Close,
    Ping,
    Pong,
}

/// One frame received from (or sent to) the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub kind: Kind,
    /// FIN bit: the last frame of its message.
    pub fin: bool,
    /// A continuation frame (its kind is that of the message it continues).
    pub continuation: bool,
    pub payload: Vec<u8>,
    /// Bytes on the wire, header included.
    pub size: usize,
}

/// The data frame type a continuation frame would continue (the plugin's
/// `lastDataFrameStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    None,
    Text,
    Binary,
}

/// Why the bytes received do not make a frame: an I/O-level protocol problem (the
/// plugin's `ProtocolException`) or something it reports as a failed sampler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// A protocol error the plugin raises as an `IOException` (message).
    Protocol(String),
    /// An error the plugin raises as a `RuntimeException` (message).
    Runtime(String),
}

impl Frame {
    pub fn is_text(&self) -> bool {
        self.kind == Kind::Text
    }

    pub fn is_binary(&self) -> bool {
        self.kind == Kind::Binary
    }

    pub fn is_data(&self) -> bool {
        self.is_text() || self.is_binary()
    }

    /// Payload bytes.
    pub fn payload_size(&self) -> usize {
        self.payload.len()
    }

    /// Header bytes (size less payload), as the plugin counts them into `headersSize`.
    pub fn header_size(&self) -> usize {
        self.size.saturating_sub(self.payload.len())
    }

    /// The text of a text frame (invalid UTF-8 replaced, as Java decodes it).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.payload).into_owned()
    }

    /// The close status and reason of a close frame, as the plugin reads them: the
    /// status from the first two bytes (the high byte signed, as Java widens it), the
    /// reason from the rest.
    pub fn close_status(&self) -> (Option<i32>, Option<String>) {
        let p = &self.payload;
        let status = (p.len() >= 2).then(|| (i32::from(p[0] as i8) << 8) | i32::from(p[1]));
        let reason = (p.len() > 2).then(|| String::from_utf8_lossy(&p[2..]).into_owned());
        (status, reason)
    }

    /// The frame type in the plugin's words (`getTypeAsString`), used in messages.
    pub fn type_name(&self) -> &'static str {
        match (self.kind, self.continuation, self.fin) {
            (Kind::Text | Kind::Binary, true, true) => "final continuation",
            (Kind::Text | Kind::Binary, true, false) => "continuation",
            (Kind::Text, false, true) => "text",
            (Kind::Text, false, false) => "non-final text",
            (Kind::Binary, false, true) => "binary",
            (Kind::Binary, false, false) => "non-final binary",
            (Kind::Close, ..) => "close",
            (Kind::Ping, ..) => "ping",
            (Kind::Pong, ..) => "pong",
        }
    }

    /// The frame as the plugin describes it (`toString`).
    pub fn describe(&self) -> String {
        match self.kind {
            Kind::Text => format!("Text frame with text '{}'", self.text()),
            Kind::Binary if self.payload.is_empty() => "Binary frame, empty payload".into(),
            Kind::Binary => format!(
                "Binary frame, payload (length {}): {}",
                self.payload.len(),
                format_binary(&self.payload, 16, " ...")
            ),
            Kind::Close => {
                let (status, reason) = self.close_status();
                format!(
                    "Close frame with status code {} and close reason '{}'",
                    status.map_or("null".to_string(), |s| s.to_string()),
                    reason.as_deref().unwrap_or("null")
                )
            }
            Kind::Ping | Kind::Pong => {
                let name = if self.kind == Kind::Ping {
                    "Ping"
                } else {
                    "Pong"
                };
                if self.payload.is_empty() {
                    format!("{name} frame with no application data")
                } else {
                    format!(
                        "{name} frame with application data '{}'",
                        String::from_utf8_lossy(&self.payload)
                    )
                }
            }
        }
    }
}

/// Reads one frame from the start of `buffer`. `Ok(None)` when more bytes are needed;
/// otherwise the frame and how many bytes it took. `pending` decides what a
/// continuation frame continues.
pub fn parse(buffer: &[u8], pending: Pending) -> Result<Option<(Frame, usize)>, ParseError> {
    let mut cursor = Cursor::new(buffer);
    let (header, length) = match FrameHeader::parse(&mut cursor) {
        Ok(Some(parsed)) => parsed,
        Ok(None) => return Ok(None),
        Err(_) => {
            let opcode = buffer.first().map_or(0, |b| b & 0x0f);
            return Err(ParseError::Runtime(format!(
                "unsupported frame type: {opcode}"
            )));
        }
    };
    if length > i32::MAX as u64 {
        return Err(ParseError::Runtime(
            "Frame too large; Java does not support arrays longer than 2147483647 bytes.".into(),
        ));
    }
    let header_len = cursor.position() as usize;
    let total = header_len + length as usize;
    if buffer.len() < total {
        return Ok(None);
    }
    let mut payload = buffer[header_len..total].to_vec();
    if let Some(mask) = header.mask {
        for (i, byte) in payload.iter_mut().enumerate() {
            *byte ^= mask[i & 3];
        }
    }
    let (kind, continuation) = match header.opcode {
        OpCode::Data(Data::Continue) => match pending {
            Pending::Text => (Kind::Text, true),
            Pending::Binary => (Kind::Binary, true),
            Pending::None => {
                return Err(ParseError::Protocol(
                    "no continuation frame expected".into(),
                ))
            }
        },
        OpCode::Data(Data::Text) => (Kind::Text, false),
        OpCode::Data(Data::Binary) => (Kind::Binary, false),
        OpCode::Control(Control::Close) => (Kind::Close, false),
        OpCode::Control(Control::Ping) => (Kind::Ping, false),
        OpCode::Control(Control::Pong) => (Kind::Pong, false),
        OpCode::Data(Data::Reserved(code)) | OpCode::Control(Control::Reserved(code)) => {
            return Err(ParseError::Runtime(format!(
                "unsupported frame type: {code}"
            )))
        }
    };
    let frame = Frame {
        kind,
        fin: header.is_final,
        continuation,
        payload,
        size: total,
    };
    Ok(Some((frame, total)))
}

/// A client frame (masked with `mask`, FIN set) ready to write, and the frame as sent.
pub fn encode(kind: Kind, payload: Vec<u8>, mask: [u8; 4]) -> (Vec<u8>, Frame) {
    let opcode = match kind {
        Kind::Text => OpCode::Data(Data::Text),
        Kind::Binary => OpCode::Data(Data::Binary),
        Kind::Close => OpCode::Control(Control::Close),
        Kind::Ping => OpCode::Control(Control::Ping),
        Kind::Pong => OpCode::Control(Control::Pong),
    };
    let mut wire = WireFrame::message(payload.clone(), opcode, true);
    wire.header_mut().mask = Some(mask);
    let mut bytes = Vec::with_capacity(wire.len());
    // Writing into a Vec cannot fail.
    let _ = wire.format(&mut bytes);
    let frame = Frame {
        kind,
        fin: true,
        continuation: false,
        payload,
        size: bytes.len(),
    };
    (bytes, frame)
}

/// The close frame payload: status (two bytes, big-endian) and reason.
pub fn close_payload(status: i32, reason: &str) -> Vec<u8> {
    let mut payload = Vec::with_capacity(2 + reason.len());
    payload.push((status >> 8) as u8);
    payload.push(status as u8);
    payload.extend_from_slice(reason.as_bytes());
    payload
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server_frame(first: u8, payload: &[u8]) -> Vec<u8> {
        let mut bytes = vec![first, payload.len() as u8];
        bytes.extend_from_slice(payload);
        bytes
    }

    #[test]
    fn fragments_are_read_one_frame_at_a_time() {
        let first = server_frame(0x01, b"Hel");
        let (frame, used) = parse(&first, Pending::None).unwrap().unwrap();
        assert_eq!(used, 5);
        assert!(!frame.fin);
        assert_eq!(frame.type_name(), "non-final text");
        let last = server_frame(0x80, b"lo");
        let (frame, _) = parse(&last, Pending::Text).unwrap().unwrap();
        assert!(frame.fin && frame.continuation && frame.is_text());
        assert_eq!(frame.type_name(), "final continuation");
        assert_eq!(frame.describe(), "Text frame with text 'lo'");
        assert_eq!(
            parse(&last, Pending::None),
            Err(ParseError::Protocol(
                "no continuation frame expected".into()
            ))
        );
    }

    #[test]
    fn incomplete_frames_wait_for_more_bytes() {
        let bytes = server_frame(0x82, &[1, 2, 3]);
        assert!(parse(&bytes[..3], Pending::None).unwrap().is_none());
        assert!(parse(&bytes[..1], Pending::None).unwrap().is_none());
        let (frame, _) = parse(&bytes, Pending::None).unwrap().unwrap();
        assert_eq!(
            frame.describe(),
            "Binary frame, payload (length 3): 0x01 0x02 0x03"
        );
        assert_eq!((frame.size, frame.header_size()), (5, 2));
    }

    #[test]
    fn close_frames_and_control_frames_read_as_the_plugin_describes_them() {
        let close = server_frame(0x88, &[0x03, 0xe8, b'b', b'y', b'e']);
        let (frame, _) = parse(&close, Pending::None).unwrap().unwrap();
        assert_eq!(frame.close_status(), (Some(1000), Some("bye".into())));
        assert_eq!(
            frame.describe(),
            "Close frame with status code 1000 and close reason 'bye'"
        );
        let empty_close = server_frame(0x88, &[]);
        let (frame, _) = parse(&empty_close, Pending::None).unwrap().unwrap();
        assert_eq!(
            frame.describe(),
            "Close frame with status code null and close reason 'null'"
        );
        let ping = server_frame(0x89, b"hb");
        let (frame, _) = parse(&ping, Pending::None).unwrap().unwrap();
        assert_eq!(frame.describe(), "Ping frame with application data 'hb'");
        let pong = server_frame(0x8a, b"");
        let (frame, _) = parse(&pong, Pending::None).unwrap().unwrap();
        assert_eq!(frame.describe(), "Pong frame with no application data");
        assert_eq!(
            parse(&server_frame(0x83, b""), Pending::None),
            Err(ParseError::Runtime("unsupported frame type: 3".into()))
        );
    }

    #[test]
    fn client_frames_are_masked_and_sized_as_sent() {
        let (bytes, frame) = encode(Kind::Text, b"hi".to_vec(), [1, 2, 3, 4]);
        assert_eq!(bytes, vec![0x81, 0x82, 1, 2, 3, 4, b'h' ^ 1, b'i' ^ 2]);
        assert_eq!(frame.size, 8);
        let long = vec![0u8; 300];
        let (bytes, frame) = encode(Kind::Binary, long, [0; 4]);
        assert_eq!(&bytes[..4], &[0x82, 0xfe, 0x01, 0x2c]);
        assert_eq!(frame.size, 2 + 2 + 4 + 300);
        assert_eq!(close_payload(1000, "x"), vec![0x03, 0xe8, b'x']);
    }
}
