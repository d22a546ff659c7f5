//! The plugin's frame filters (Ping, Text and Binary Frame Filter): config elements that
//! make the WebSocket samplers in their scope skip frames while reading. Each discarded
//! frame becomes a sub-result of the sample; the time spent on discarded frames comes
//! off the read timeout.
//!
//! Filters form a chain, innermost scope first: the first filter reads through the
//! others, as the plugin's `FrameFilter.receiveFrame` recursion does.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fancy_regex::Regex;

use super::connection::{Connection, WsError};
use super::frame::{Frame, Kind};
use super::payload::parse_binary;
use crate::expr::Template;
use crate::jmx::Element;
use crate::plan::BuildContext;
use crate::sample::SampleResult;
use crate::sample::Stopwatch;
use crate::user_state::EvalContext;

/// The property that counts discarded frames into the sample's size.
pub const SIZE_INCLUDES_FILTERED: &str = "websocket.result.size_includes_filtered_frames";

/// The plugin's comparison types (text filters use them all, binary filters all but
/// the regex ones, where they match nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Comparison {
    IsPlain,
    Equals,
    EqualsRegex,
    Contains,
    ContainsRegex,
    StartsWith,
    EndsWith,
    NotEquals,
    NotEqualsRegex,
    NotContains,
    NotContainsRegex,
    NotStartsWith,
    NotEndsWith,
}

impl Comparison {
    fn parse(text: &str) -> Option<Comparison> {
        use Comparison::*;
        Some(match text {
            "IsPlain" => IsPlain,
            "Equals" => Equals,
            "EqualsRegex" => EqualsRegex,
            "Contains" => Contains,
            "ContainsRegex" => ContainsRegex,
            "StartsWith" => StartsWith,
            "EndsWith" => EndsWith,
            "NotEquals" => NotEquals,
            "NotEqualsRegex" => NotEqualsRegex,
            "NotContains" => NotContains,
            "NotContainsRegex" => NotContainsRegex,
            "NotStartsWith" => NotStartsWith,
            "NotEndsWith" => NotEndsWith,
            _ => return None,
        })
    }

    fn is_regex(self) -> bool {
        use Comparison::*;
        matches!(
            self,
            EqualsRegex | ContainsRegex | NotEqualsRegex | NotContainsRegex
        )
    }

    /// Whether the comparison is one of the `Not...` kinds.
    fn negated(self) -> bool {
        use Comparison::*;
        matches!(
            self,
            NotEquals
                | NotEqualsRegex
                | NotContains
                | NotContainsRegex
                | NotStartsWith
                | NotEndsWith
        )
    }
}

/// Which control frames a Ping Frame Filter drops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PingKind {
    All,
    PingOnly,
    PongOnly,
}

#[derive(Debug, Clone)]
enum Rule {
    Ping {
        kind: PingKind,
        reply: bool,
    },
    Text {
        comparison: Comparison,
        value: Template,
    },
    Binary {
        comparison: Comparison,
        value: Template,
        position: Template,
    },
}

/// One frame filter element, as planned.
#[derive(Debug, Clone)]
pub struct FrameFilter {
    name: Arc<str>,
    rule: Rule,
}

const PING: &str = "eu.luminis.jmeter.wssampler.PingFrameFilter";
const TEXT: &str = "eu.luminis.jmeter.wssampler.TextFrameFilter";
const BINARY: &str = "eu.luminis.jmeter.wssampler.BinaryFrameFilter";

/// The frame filters among the config elements in a sampler's scope (innermost first),
/// each once.
pub fn from_configs(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Vec<FrameFilter> {
    let mut filters = Vec::new();
    for config in configs {
        let Some(filter) = build(cx, config) else {
            continue;
        };
        filters.push(filter);
    }
    filters
}

fn build(cx: &mut BuildContext<'_>, element: &Element) -> Option<FrameFilter> {
    let text = |name: &str, absent: &'static str| {
        element.str_prop(name).unwrap_or(absent).trim().to_string()
    };
    let comparison = |cx: &mut BuildContext<'_>| {
        let raw = text("comparisonType", "IsPlain");
        Comparison::parse(&raw).unwrap_or_else(|| {
            cx.error(format!(
                "frame filter {:?}: comparison type {raw:?} is not one the plugin knows",
                element.name
            ));
            Comparison::IsPlain
        })
    };
    let rule = match element.class.as_str() {
        PING => {
            let raw = text("filterType", "FilterAll");
            let kind = match raw.as_str() {
                "FilterAll" => PingKind::All,
                "FilterPingOnly" => PingKind::PingOnly,
                "FilterPongOnly" => PingKind::PongOnly,
                _ => {
                    cx.error(format!(
                        "Ping Frame Filter {:?}: filter type {raw:?} is not one the plugin knows",
                        element.name
                    ));
                    PingKind::All
                }
            };
            let reply = element
                .str_prop("replyToPing")
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
            Rule::Ping { kind, reply }
        }
        TEXT => {
            let comparison = comparison(cx);
            let raw = element.str_prop("matchValue").unwrap_or("").to_string();
            let value = cx.compile(&raw);
            if comparison.is_regex() && value.is_constant() {
                if let Err(error) = Regex::new(&raw) {
                    cx.error(format!(
                        "Text Frame Filter {:?}: invalid regular expression {raw:?}: {error}",
                        element.name
                    ));
                }
            }
            Rule::Text { comparison, value }
        }
        BINARY => {
            let comparison = comparison(cx);
            let raw = element.str_prop("matchValue").unwrap_or("").to_string();
            let value = cx.compile(&raw);
            let position = cx.compile(element.str_prop("matchPosition").unwrap_or(""));
            Rule::Binary {
                comparison,
                value,
                position,
            }
        }
        _ => return None,
    };
    Some(FrameFilter {
        name: Arc::from(element.name.as_str()),
        rule,
    })
}

/// A filter with its values evaluated for one sample (the plugin's `prepareFilter`).
pub struct ReadyFilter {
    name: Arc<str>,
    test: Test,
}

enum Test {
    Ping {
        kind: PingKind,
        reply: bool,
    },
    Text {
        comparison: Comparison,
        value: String,
        regex: Option<Regex>,
    },
    Binary {
        comparison: Comparison,
        value: Vec<u8>,
        position: Option<usize>,
    },
}

impl FrameFilter {
    /// Evaluates the filter's settings for one sample. An invalid regular expression
    /// made from variables is the error the plugin's `Pattern.compile` raises.
    pub fn ready(&self, cx: &mut EvalContext<'_>) -> Result<ReadyFilter, WsError> {
        let test = match &self.rule {
            Rule::Ping { kind, reply } => Test::Ping {
                kind: *kind,
                reply: *reply,
            },
            Rule::Text { comparison, value } => {
                let value = value.eval(cx);
                let regex = if comparison.is_regex() {
                    Some(Regex::new(&value).map_err(|e| {
                        WsError::Other(format!("java.util.regex.PatternSyntaxException: {e}"))
                    })?)
                } else {
                    None
                };
                Test::Text {
                    comparison: *comparison,
                    value,
                    regex,
                }
            }
            Rule::Binary {
                comparison,
                value,
                position,
            } => {
                use Comparison::*;
                let compares_bytes = matches!(
                    comparison,
                    Contains
                        | NotContains
                        | Equals
                        | NotEquals
                        | StartsWith
                        | NotStartsWith
                        | EndsWith
                        | NotEndsWith
                );
                // A value that is not hex filters nothing, as the plugin logs and goes on.
                let bytes = if compares_bytes {
                    parse_binary(&value.eval(cx)).unwrap_or_default()
                } else {
                    Vec::new()
                };
                let position = if matches!(comparison, Contains | NotContains) {
                    position.eval(cx).trim().parse::<usize>().ok()
                } else {
                    None
                };
                Test::Binary {
                    comparison: *comparison,
                    value: bytes,
                    position,
                }
            }
        };
        Ok(ReadyFilter {
            name: self.name.clone(),
            test,
        })
    }
}

impl ReadyFilter {
    /// Whether the filter drops `frame`.
    fn matches(&self, frame: &Frame) -> bool {
        match &self.test {
            Test::Ping { kind, .. } => match kind {
                PingKind::All => matches!(frame.kind, Kind::Ping | Kind::Pong),
                PingKind::PingOnly => frame.kind == Kind::Ping,
                PingKind::PongOnly => frame.kind == Kind::Pong,
            },
            Test::Text {
                comparison,
                value,
                regex,
            } => frame.is_text() && text_matches(*comparison, value, regex.as_ref(), &frame.text()),
            Test::Binary {
                comparison,
                value,
                position,
            } => frame.is_binary() && binary_matches(*comparison, value, *position, &frame.payload),
        }
    }

    /// The pong a Ping Frame Filter that replies sends for `frame`.
    fn reply(&self, frame: &Frame) -> Option<Vec<u8>> {
        match self.test {
            Test::Ping { reply: true, .. } if frame.kind == Kind::Ping => {
                Some(frame.payload.clone())
            }
            _ => None,
        }
    }
}

fn text_matches(comparison: Comparison, value: &str, regex: Option<&Regex>, text: &str) -> bool {
    use Comparison::*;
    let found = |whole: bool| {
        regex.is_some_and(|r| match r.find(text) {
            Ok(Some(m)) if whole => m.start() == 0 && m.end() == text.len(),
            Ok(Some(_)) => true,
            _ => false,
        })
    };
    let hit = match comparison {
        IsPlain => return true,
        Equals | NotEquals => text == value,
        Contains | NotContains => text.contains(value),
        StartsWith | NotStartsWith => text.starts_with(value),
        EndsWith | NotEndsWith => text.ends_with(value),
        ContainsRegex | NotContainsRegex => found(false),
        EqualsRegex | NotEqualsRegex => whole_match(regex, text),
    };
    hit != comparison.negated()
}

/// Java's `Matcher.matches()`: the pattern matches the whole text.
fn whole_match(regex: Option<&Regex>, text: &str) -> bool {
    let Some(regex) = regex else {
        return false;
    };
    let anchored = format!("^(?:{})$", regex.as_str());
    Regex::new(&anchored)
        .ok()
        .and_then(|r| r.is_match(text).ok())
        .unwrap_or(false)
}

fn binary_matches(
    comparison: Comparison,
    value: &[u8],
    position: Option<usize>,
    data: &[u8],
) -> bool {
    use Comparison::*;
    let at = |offset: usize| {
        offset
            .checked_add(value.len())
            .is_some_and(|end| end <= data.len() && &data[offset..end] == value)
    };
    let hit = match comparison {
        IsPlain => return true,
        Equals | NotEquals => data == value,
        Contains | NotContains => match position {
            Some(offset) => !value.is_empty() && at(offset),
            None => !value.is_empty() && data.windows(value.len()).any(|w| w == value),
        },
        StartsWith | NotStartsWith => at(0),
        EndsWith | NotEndsWith => at(data.len().saturating_sub(value.len())),
        // Regex comparisons are not offered for binary frames: they match nothing.
        _ => return false,
    };
    hit != comparison.negated()
}

/// How discarded frames are recorded.
pub struct Recording {
    /// `websocket.result.size_includes_filtered_frames`.
    pub size_includes_filtered: bool,
    /// Sub-results are renamed `<label>-<n>` (unless `subresults.disable_renaming`).
    pub rename: bool,
}

type Receive<'a> = Pin<Box<dyn Future<Output = Result<Frame, WsError>> + Send + 'a>>;

/// Reads the next frame that no filter drops, waiting at most `timeout_ms` in all
/// (0: no limit on the read itself, as a Java socket timeout of 0).
pub fn receive<'a>(
    filters: &'a [ReadyFilter],
    connection: &'a mut Connection,
    timeout_ms: i64,
    result: &'a mut SampleResult,
    recording: &'a Recording,
) -> Receive<'a> {
    Box::pin(async move {
        let Some((first, rest)) = filters.split_first() else {
            return connection.read_frame(read_limit(timeout_ms)).await;
        };
        let mut remaining = timeout_ms;
        loop {
            let watch = Stopwatch::start();
            let started = Instant::now();
            let frame = receive(rest, connection, remaining, result, recording).await?;
            let spent = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
            let dropped = first.matches(&frame);
            if dropped {
                let mut sub = SampleResult::new(Arc::from(format!(
                    "Discarded {} frame (by filter '{}')",
                    frame.type_name(),
                    first.name
                )));
                watch.stop(&mut sub);
                let sent = match first.reply(&frame) {
                    Some(pong) => Some(connection.send(Kind::Pong, pong).await?),
                    None => None,
                };
                record(result, sub, &frame, sent.as_ref(), recording);
            }
            // Once the time spent reaches what was left, a further frame would come too
            // late: the read has timed out, even when this frame passed.
            if spent < remaining {
                remaining -= spent;
            } else {
                return Err(WsError::Timeout);
            }
            if !dropped {
                return Ok(frame);
            }
        }
    })
}

/// The read timeout of one read: none for 0.
pub fn read_limit(timeout_ms: i64) -> Option<Duration> {
    u64::try_from(timeout_ms)
        .ok()
        .filter(|ms| *ms > 0)
        .map(Duration::from_millis)
}

/// Adds the sub-result of a discarded frame.
fn record(
    result: &mut SampleResult,
    mut sub: SampleResult,
    frame: &Frame,
    sent: Option<&Frame>,
    recording: &Recording,
) {
    sub.set_success(true);
    sub.response_message = format!("Received {}", frame.describe()).into();
    sub.headers_size = frame.header_size() as i64;
    sub.body_size = (frame.payload_size() > 0).then_some(frame.payload_size() as i64);
    if let Some(sent) = sent {
        sub.sent_bytes = sent.size as i64;
    }
    if recording.size_includes_filtered {
        result.headers_size += frame.header_size() as i64;
        let body = result.body_size.unwrap_or(0) + frame.payload_size() as i64;
        result.body_size = (body > 0).then_some(body);
        if let Some(sent) = sent {
            result.sent_bytes += sent.size as i64;
        }
    }
    if frame.is_data() {
        sub.response_data = frame.payload.clone();
    }
    if recording.rename {
        sub.label = Arc::from(format!("{}-{}", result.label, result.subresults.len()));
    }
    result.subresults.push(sub);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_comparisons_follow_the_plugin() {
        use Comparison::*;
        assert!(text_matches(IsPlain, "", None, "anything"));
        assert!(text_matches(Contains, "ping", None, "a ping"));
        assert!(!text_matches(NotContains, "ping", None, "a ping"));
        assert!(text_matches(NotEquals, "x", None, "y"));
        assert!(text_matches(StartsWith, "{\"type\"", None, "{\"type\":1}"));
        let regex = Regex::new("msg_type\":\\s*0").unwrap();
        assert!(text_matches(
            ContainsRegex,
            "",
            Some(&regex),
            "{\"msg_type\": 0}"
        ));
        assert!(!text_matches(
            EqualsRegex,
            "",
            Some(&regex),
            "{\"msg_type\": 0}"
        ));
        let whole = Regex::new("a|ab").unwrap();
        assert!(text_matches(EqualsRegex, "", Some(&whole), "ab"));
        assert!(text_matches(NotContainsRegex, "", Some(&regex), "other"));
    }

    #[test]
    fn binary_comparisons_follow_the_plugin() {
        use Comparison::*;
        let data = [0xca, 0xfe, 0xba, 0xbe];
        assert!(binary_matches(StartsWith, &[0xca], None, &data));
        assert!(binary_matches(EndsWith, &[0xbe], None, &data));
        assert!(binary_matches(Contains, &[0xfe, 0xba], None, &data));
        assert!(binary_matches(Contains, &[0xba], Some(2), &data));
        assert!(!binary_matches(Contains, &[0xba], Some(1), &data));
        assert!(!binary_matches(Contains, &[], None, &data), "empty value");
        assert!(binary_matches(NotContains, &[0x00], None, &data));
        assert!(binary_matches(Equals, &data, None, &data));
        assert!(binary_matches(IsPlain, &[], None, &data));
    }
}
