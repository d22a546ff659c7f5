//! What a WebSocket sampler element says, read at plan time, and its values for one
//! sample with the plugin's validation messages.

use crate::user_state::EvalContext;

use crate::expr::Template;
use crate::plan::{BuildContext, Setting};

use super::connection::Target;

/// The six Luminis samplers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Open,
    RequestResponse,
    SingleWrite,
    SingleRead,
    PingPong,
    Close,
}

impl Operation {
    pub fn by_class(class: &str) -> Option<Operation> {
        let short = class.strip_prefix("eu.luminis.jmeter.wssampler.")?;
        Some(match short {
            "OpenWebSocketSampler" => Operation::Open,
            "RequestResponseWebSocketSampler" => Operation::RequestResponse,
            "SingleWriteWebSocketSampler" => Operation::SingleWrite,
            "SingleReadWebSocketSampler" => Operation::SingleRead,
            "PingPongSampler" => Operation::PingPong,
            "CloseWebSocketSampler" => Operation::Close,
            _ => return None,
        })
    }

    /// Whether the sampler may open a connection of its own.
    fn connects(self) -> bool {
        !matches!(self, Operation::PingPong | Operation::Close)
    }
}

/// The request-response and single-write samplers' payload type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadType {
    Text,
    Binary,
    /// Text where `^@` stands for NUL.
    TextStomp,
}

/// What a single read accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    Text,
    Binary,
    Any,
}

/// The settings of one sampler element.
pub struct Settings {
    pub operation: Operation,
    server: Template,
    port: Setting,
    path: Template,
    tls: Setting,
    connect_timeout: Setting,
    read_timeout: Setting,
    create_new: Setting,
    pub request: Template,
    pub payload_type: PayloadType,
    load_from_file: Setting,
    data_file: Template,
    pub data_type: DataType,
    optional: Setting,
    /// Ping/Pong sampler: `Pong` sends an unsolicited pong and reads nothing.
    pub pong_only: bool,
    status_code: Setting,
}

impl Settings {
    pub fn read(cx: &mut BuildContext<'_>, operation: Operation) -> Settings {
        // The request-response sampler's constructor ticks "new connection".
        let create_default = if operation == Operation::RequestResponse {
            "true"
        } else {
            "false"
        };
        let payload_type = match cx.raw("payloadType").map(str::trim) {
            Some("Binary") => PayloadType::Binary,
            Some("TextStomp") => PayloadType::TextStomp,
            Some("Text") => PayloadType::Text,
            Some(other) => {
                cx.warn(format!(
                    "payload type {other:?} is not one the plugin knows; Text is used, as the \
                     plugin does"
                ));
                PayloadType::Text
            }
            None if cx.flag("binaryPayload", false) => PayloadType::Binary,
            None => PayloadType::Text,
        };
        let data_type = match cx.raw("dataType").map(str::trim).unwrap_or("") {
            "" if cx.flag("binaryPayload", false) => DataType::Binary,
            "" | "Text" => DataType::Text,
            "Binary" => DataType::Binary,
            "Any" => DataType::Any,
            other => {
                cx.error(format!(
                    "data type {other:?} is not Text, Binary or Any: the plugin fails every \
                     sample of this sampler"
                ));
                DataType::Text
            }
        };
        let pong_only = match cx.raw("type").map(str::trim) {
            None | Some("PingPong") => false,
            Some("Pong") => true,
            Some(other) if operation == Operation::PingPong => {
                cx.error(format!(
                    "ping/pong type {other:?} is not PingPong or Pong: the plugin fails every \
                     sample of this sampler"
                ));
                false
            }
            Some(_) => false,
        };
        Settings {
            operation,
            server: cx.template("server"),
            port: cx.setting("port", "80"),
            path: cx.template("path"),
            tls: cx.setting("TLS", "false"),
            connect_timeout: cx.setting("connectTimeout", "20000"),
            read_timeout: cx.setting("readTimeout", "6000"),
            create_new: cx.setting("createNewConnection", create_default),
            request: cx.template("requestData"),
            payload_type,
            load_from_file: cx.setting("loadDataFromFile", "false"),
            data_file: cx.template("dataFile"),
            data_type,
            optional: cx.setting("optional", "false"),
            pong_only,
            status_code: cx.setting("statusCode", "1000"),
        }
    }

    /// This sample's values, or the plugin's validation message.
    pub fn evaluate(&self, cx: &mut EvalContext<'_>) -> Result<Request, String> {
        let create_new = match self.operation {
            Operation::Open => true,
            Operation::PingPong | Operation::Close => false,
            _ => self.create_new.bool(cx),
        };
        let port_text = self.port.text(cx).trim().to_string();
        let connect_text = self.connect_timeout.text(cx).trim().to_string();
        let read_text = self.read_timeout.text(cx).trim().to_string();
        let mut port = 0;
        let mut connect_timeout = 0;
        if create_new && self.operation.connects() {
            port = parse_port(&port_text)?;
            connect_timeout = parse_bounded("Connection timeout", &connect_text, 1, 999_999)?;
        }
        let checks_read = self.operation != Operation::SingleWrite;
        let read_timeout = if checks_read {
            parse_bounded("Read timeout", &read_text, 0, 9_999_999)?
        } else {
            java_int(&read_text).unwrap_or(6000)
        };
        let mut path = self.path.eval(cx);
        if !path.starts_with('/') {
            path.insert(0, '/');
        }
        Ok(Request {
            target: Target {
                tls: self.tls.bool(cx),
                host: self.server.eval(cx),
                port: u16::try_from(port).unwrap_or(0),
                path,
            },
            create_new,
            connect_timeout_ms: connect_timeout,
            read_timeout_ms: read_timeout,
            data_file: self
                .load_from_file
                .bool(cx)
                .then(|| self.data_file.eval(cx)),
            optional: self.optional.bool(cx),
            status_code: self.status_code.text(cx),
        })
    }
}

/// One sample's evaluated settings (the request data is read separately: it may be
/// bytes from an object variable).
pub struct Request {
    pub target: Target,
    pub create_new: bool,
    pub connect_timeout_ms: i64,
    pub read_timeout_ms: i64,
    /// The file the payload comes from, when "load data from file" is on.
    pub data_file: Option<String>,
    pub optional: bool,
    pub status_code: String,
}

/// `Integer.parseInt`: an optional sign and decimal digits, within an `int`.
pub fn java_int(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value: i64 = text.parse().ok()?;
    i32::try_from(value).ok().map(i64::from)
}

fn parse_port(text: &str) -> Result<i64, String> {
    match java_int(text) {
        Some(port) if (1..=65535).contains(&port) => Ok(port),
        Some(_) => Err(format!("Port number '{text}' is not valid.")),
        None => Err(format!("Port number '{text}' is not a number.")),
    }
}

fn parse_bounded(what: &str, text: &str, min: i64, max: i64) -> Result<i64, String> {
    match java_int(text) {
        Some(value) if (min..=max).contains(&value) => Ok(value),
        Some(value) => Err(format!(
            "{what} '{value}' is not valid; should between {min} and {max}"
        )),
        None => Err(format!("{what} '{text}' is not a number.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_messages_are_the_plugins() {
        assert_eq!(parse_port("80"), Ok(80));
        assert_eq!(parse_port("0"), Err("Port number '0' is not valid.".into()));
        assert_eq!(
            parse_port("x"),
            Err("Port number 'x' is not a number.".into())
        );
        assert_eq!(
            parse_bounded("Read timeout", "-1", 0, 9_999_999),
            Err("Read timeout '-1' is not valid; should between 0 and 9999999".into())
        );
        assert_eq!(
            parse_bounded("Connection timeout", "", 1, 999_999),
            Err("Connection timeout '' is not a number.".into())
        );
        assert_eq!(java_int("+5"), Some(5));
        assert_eq!(java_int("99999999999"), None);
    }
}
