//! The `text/event-stream` format as the WHATWG HTML standard interprets it
//! ("Interpreting an event stream"): bytes become lines ([`Lines`]), lines become
//! events ([`EventParser`]).
//!
//! * A line ends at LF, CR or CRLF; a CR that ends one chunk and a LF that starts the
//!   next are one line end. One UTF-8 byte order mark at the start of the stream is
//!   dropped; lines are decoded as UTF-8 with replacement characters.
//! * An empty line dispatches the event; a line starting with `:` is a comment; else
//!   the field name runs to the first `:` (the whole line without one) and one space
//!   after the colon is dropped from the value.
//! * `event` sets the type (`message` when none), `data` appends its value and a LF
//!   (the last LF is dropped at dispatch; no data, no event), `id` sets the last event
//!   ID unless it holds a NUL, `retry` sets the reconnection time when it is all ASCII
//!   digits; other fields are ignored.
//! * The last event ID outlives events (and reconnections); what was gathered of an
//!   event when the stream ends is discarded ([`EventParser::discard_pending`]).

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// The `event` field, or `message`.
    pub event_type: String,
    pub data: String,
    /// The last event ID when the event was dispatched (empty when none was ever set).
    pub id: String,
}

/// Bytes in, lines out (see the module doc for the line ends and the BOM).
#[derive(Debug, Default)]
pub struct Lines {
    buffer: Vec<u8>,
    /// Where the next line starts in `buffer`.
    start: usize,
    /// The last line ended with a CR at the end of the bytes seen: a LF that comes
    /// next belongs to it.
    skip_lf: bool,
    /// Whether the start of the stream was checked for a byte order mark.
    bom_checked: bool,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl Lines {
    /// Adds bytes read from the stream.
    pub fn push(&mut self, bytes: &[u8]) {
        if self.start > 0 && self.start == self.buffer.len() {
            self.buffer.clear();
            self.start = 0;
        } else if self.start > 4096 && self.start * 2 > self.buffer.len() {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        self.buffer.extend_from_slice(bytes);
        if !self.bom_checked {
            let seen = &self.buffer[self.start..];
            if seen.len() >= BOM.len() || !BOM.starts_with(seen) {
                self.bom_checked = true;
                if seen.starts_with(BOM) {
                    self.start += BOM.len();
                }
            }
        }
    }

    /// The next complete line, if the bytes pushed hold one.
    pub fn next_line(&mut self) -> Option<String> {
        if !self.bom_checked {
            return None;
        }
        if self.skip_lf && self.start < self.buffer.len() {
            self.skip_lf = false;
            if self.buffer[self.start] == b'\n' {
                self.start += 1;
            }
        }
        let rest = &self.buffer[self.start..];
        let end = memchr::memchr2(b'\r', b'\n', rest)?;
        let line = String::from_utf8_lossy(&rest[..end]).into_owned();
        let terminator = rest[end];
        self.start += end + 1;
        if terminator == b'\r' {
            if self.start < self.buffer.len() {
                if self.buffer[self.start] == b'\n' {
                    self.start += 1;
                }
            } else {
                self.skip_lf = true;
            }
        }
        Some(line)
    }

    /// At the end of the stream: the last line when it had no line end (a line reader
    /// returns it; the event parser discards it), and a fresh start for the next
    /// connection (which may begin with a byte order mark again).
    pub fn finish(&mut self) -> Option<String> {
        let rest = &self.buffer[self.start.min(self.buffer.len())..];
        let last = (!rest.is_empty()).then(|| String::from_utf8_lossy(rest).into_owned());
        *self = Lines::default();
        last
    }
}

/// Lines in, events out; see the module doc.
#[derive(Debug, Default)]
pub struct EventParser {
    data: String,
    event_type: String,
    /// The last event ID buffer.
    id_buffer: String,
    /// The event source's last event ID string, set at each dispatch.
    last_event_id: String,
    /// The last valid `retry` value, in milliseconds.
    retry: Option<u64>,
}

impl EventParser {
    /// A parser whose last event ID starts as `id` (a stream resumed from an ID).
    pub fn with_last_event_id(id: &str) -> EventParser {
        EventParser {
            id_buffer: id.to_string(),
            last_event_id: id.to_string(),
            ..EventParser::default()
        }
    }

    /// Processes one line; returns the event an empty line dispatches.
    pub fn line(&mut self, line: &str) -> Option<Event> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "event" => value.clone_into(&mut self.event_type),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => value.clone_into(&mut self.id_buffer),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                // Digits beyond u64 are still a (very long) reconnection time.
                self.retry = Some(value.parse().unwrap_or(u64::MAX));
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<Event> {
        self.last_event_id.clone_from(&self.id_buffer);
        if self.data.is_empty() {
            self.event_type.clear();
            return None;
        }
        let mut data = std::mem::take(&mut self.data);
        if data.ends_with('\n') {
            data.pop();
        }
        let event_type = match std::mem::take(&mut self.event_type) {
            t if t.is_empty() => "message".to_string(),
            t => t,
        };
        Some(Event {
            event_type,
            data,
            id: self.last_event_id.clone(),
        })
    }

    /// Drops the event being gathered (the stream ended before its empty line).
    pub fn discard_pending(&mut self) {
        self.data.clear();
        self.event_type.clear();
    }

    /// The ID a reconnection sends as `Last-Event-ID` (empty: none).
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The reconnection time the server asked for last, in milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event of `chunks` pushed one after the other, and the last event ID.
    fn parse(chunks: &[&[u8]]) -> (Vec<Event>, EventParser) {
        let mut lines = Lines::default();
        let mut parser = EventParser::default();
        let mut events = Vec::new();
        for chunk in chunks {
            lines.push(chunk);
            while let Some(line) = lines.next_line() {
                events.extend(parser.line(&line));
            }
        }
        (events, parser)
    }

    fn event(event_type: &str, data: &str, id: &str) -> Event {
        Event {
            event_type: event_type.into(),
            data: data.into(),
            id: id.into(),
        }
    }

    #[test]
    fn fields_comments_and_multi_line_data() {
        let (events, parser) = parse(&[
            b": hello\n\nevent: chat\ndata: a\ndata:  b\ndata\nid: 7\nretry: 1500\nunknown: x\n\n",
        ]);
        assert_eq!(events, vec![event("chat", "a\n b\n", "7")]);
        assert_eq!(parser.last_event_id(), "7");
        assert_eq!(parser.retry(), Some(1500));
    }

    #[test]
    fn the_standard_examples_give_its_events() {
        // The specification's own examples: the type resets after each event, an empty
        // `data` gives an event with empty data, a lone `data` line too, and the
        // trailing block without its blank line is no event.
        let (events, _) = parse(&[b"data\n\ndata\ndata\n\ndata:"]);
        assert_eq!(
            events,
            vec![event("message", "", ""), event("message", "\n", "")]
        );
        let (events, _) = parse(&[b"data:test\n\ndata: test\n\n"]);
        assert_eq!(
            events,
            vec![event("message", "test", ""), event("message", "test", "")]
        );
        let (events, _) = parse(&[b"event: add\ndata: 1\n\ndata: 2\n\n"]);
        assert_eq!(
            events,
            vec![event("add", "1", ""), event("message", "2", "")]
        );
    }

    #[test]
    fn every_line_end_and_one_split_across_chunks() {
        let (events, _) = parse(&[
            b"data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r",
            b"\n\r",
            b"\n",
        ]);
        assert_eq!(
            events.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
            ["a", "b", "c", "d"]
        );
    }

    #[test]
    fn a_bom_at_the_start_is_dropped_even_when_split() {
        let (events, _) = parse(&[b"\xEF", b"\xBB\xBFdata: x\n\n"]);
        assert_eq!(events, vec![event("message", "x", "")]);
        // Only at the start: later the three bytes are text.
        let (events, _) = parse(&[b"data: x\n\n\xEF\xBB\xBFdata: y\n\n"]);
        assert_eq!(events.len(), 1);
    }

    #[test]
    fn ids_persist_and_an_id_without_data_still_counts() {
        let (events, parser) = parse(&[b"id: 1\ndata: a\n\ndata: b\n\nid: 2\n\nid: bad\0\n\n"]);
        assert_eq!(
            events,
            vec![event("message", "a", "1"), event("message", "b", "1")]
        );
        assert_eq!(parser.last_event_id(), "2");
        let (events, parser) = parse(&[b"id\ndata: c\n\n"]);
        assert_eq!(events, vec![event("message", "c", "")]);
        assert_eq!(parser.last_event_id(), "");
    }

    #[test]
    fn retry_needs_digits_only() {
        let (_, parser) = parse(&[b"retry: 12a\n\nretry: -5\n\n"]);
        assert_eq!(parser.retry(), None);
        let (_, parser) = parse(&[b"retry:250\n\n"]);
        assert_eq!(parser.retry(), Some(250));
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        let (events, _) = parse(&[b"data: \xff\xfe ok\n\n"]);
        assert_eq!(events[0].data, "\u{fffd}\u{fffd} ok");
    }

    #[test]
    fn the_unfinished_last_line_is_given_at_the_end() {
        let mut lines = Lines::default();
        lines.push(b"one\ntwo");
        assert_eq!(lines.next_line().as_deref(), Some("one"));
        assert_eq!(lines.next_line(), None);
        assert_eq!(lines.finish().as_deref(), Some("two"));
        assert_eq!(lines.finish(), None);
    }

    #[test]
    fn a_resumed_parser_keeps_its_id_until_the_server_sets_one() {
        let mut parser = EventParser::with_last_event_id("41");
        assert_eq!(parser.line("data: x"), None);
        assert_eq!(parser.line(""), Some(event("message", "x", "41")));
        parser.line("data: half");
        parser.discard_pending();
        assert_eq!(parser.line(""), None);
    }
}
