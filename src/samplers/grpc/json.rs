//! Messages as text the way the plugin shows them: protobuf-java's
//! `JsonFormat.printer().print(message)`, the proto3 JSON mapping laid out by Java.
//!
//! - An object opens with `{` and a line break, each field sits on its own line indented
//!   two spaces per level, fields are separated by `,` and a line break, and the closing
//!   `}` follows a line break; an object without fields is `{` line break `}`.
//! - A list is `[a, b]` on one line (its messages still break lines inside).
//! - Fields come in field-number order, named by their JSON name; fields at their default
//!   value are left out. 64-bit integers are quoted; `float` and `double` are printed by
//!   Java's `Float.toString`/`Double.toString`; bytes are base64; enums print their
//!   value's name (the number when the value is unknown).
//! - Strings are escaped by Gson's HTML-safe writer: `<`, `>`, `&`, `=` and `'` become
//!   `\u003c`… as well as the quote, the backslash and control characters.
//! - Google's well-known types (`Timestamp`, `Duration`, `Any`, `Struct`, wrappers…) take
//!   their special JSON forms, which prost-reflect produces by the same mapping.

use base64::Engine;
use prost_reflect::{DynamicMessage, FieldDescriptor, Kind, MapKey, ReflectMessage, Value};

use crate::foundation::java_format::{java_double, java_float};
use crate::foundation::proto_files::map_key_text;

/// `JsonFormat.printer().print(message)`.
pub fn print(message: &DynamicMessage) -> String {
    print_with(message, PrintOptions::default())
}

/// The printer's switches that the plugin's later sampler turns on.
#[derive(Debug, Clone, Copy, Default)]
pub struct PrintOptions {
    /// `preservingProtoFieldNames()`: fields named as in the `.proto` file.
    pub proto_names: bool,
    /// `includingDefaultValueFields()`: singular fields at their default, empty lists
    /// and maps are printed too (unset message fields and oneof members are not).
    pub defaults: bool,
}

/// `JsonFormat.printer()` with the given switches.
pub fn print_with(message: &DynamicMessage, options: PrintOptions) -> String {
    let mut out = Printer {
        out: String::new(),
        depth: 0,
        options,
    };
    out.message(message);
    out.out
}

struct Printer {
    out: String,
    depth: usize,
    options: PrintOptions,
}

impl Printer {
    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
    }

    /// `{`, the entries each on their own line, `}`.
    fn object<T>(&mut self, entries: &[T], mut entry: impl FnMut(&mut Printer, &T)) {
        self.out.push('{');
        self.depth += 1;
        for (index, item) in entries.iter().enumerate() {
            if index > 0 {
                self.out.push(',');
            }
            self.newline();
            entry(self, item);
        }
        self.depth -= 1;
        self.newline();
        self.out.push('}');
    }

    fn message(&mut self, message: &DynamicMessage) {
        let descriptor = message.descriptor();
        if is_special_well_known(descriptor.full_name()) {
            let options = prost_reflect::SerializeOptions::new();
            let mut serializer = serde_json::Serializer::new(Vec::new());
            if message
                .serialize_with_options(&mut serializer, &options)
                .is_ok()
            {
                let text = String::from_utf8(serializer.into_inner()).unwrap_or_default();
                if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) {
                    self.json(&value);
                    return;
                }
            }
        }
        let mut fields: Vec<(FieldDescriptor, std::borrow::Cow<'_, Value>)> =
            if self.options.defaults {
                descriptor
                    .fields()
                    .filter(|field| {
                        message.has_field(field)
                            || field.is_list()
                            || field.is_map()
                            || !(matches!(field.kind(), Kind::Message(_))
                                || field.containing_oneof().is_some())
                    })
                    .map(|field| {
                        let value = message.get_field(&field);
                        (field, value)
                    })
                    .collect()
            } else {
                message
                    .fields()
                    .map(|(field, value)| (field, std::borrow::Cow::Borrowed(value)))
                    .collect()
            };
        fields.sort_by_key(|(field, _)| field.number());
        let proto_names = self.options.proto_names;
        self.object(&fields, |printer, (field, value)| {
            printer.out.push('"');
            printer.out.push_str(if proto_names {
                field.name()
            } else {
                field.json_name()
            });
            printer.out.push_str("\": ");
            printer.field_value(field, value);
        });
    }

    fn field_value(&mut self, field: &FieldDescriptor, value: &Value) {
        match value {
            Value::List(items) => {
                self.out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        self.out.push_str(", ");
                    }
                    self.single(&field.kind(), item);
                }
                self.out.push(']');
            }
            Value::Map(entries) => {
                let value_kind = match field.kind() {
                    Kind::Message(entry) => entry.map_entry_value_field().kind(),
                    other => other,
                };
                let mut sorted: Vec<(&MapKey, &Value)> = entries.iter().collect();
                sorted.sort_by(|a, b| a.0.cmp(b.0));
                self.object(&sorted, |printer, (key, value)| {
                    printer.out.push_str(&quoted(&map_key_text(key)));
                    printer.out.push_str(": ");
                    printer.single(&value_kind, value);
                });
            }
            single => self.single(&field.kind(), single),
        }
    }

    fn single(&mut self, kind: &Kind, value: &Value) {
        let text = match value {
            Value::Bool(b) => b.to_string(),
            Value::I32(n) => n.to_string(),
            Value::U32(n) => n.to_string(),
            Value::I64(n) => format!("\"{n}\""),
            Value::U64(n) => format!("\"{n}\""),
            Value::F32(f) if f.is_finite() => java_float(*f),
            Value::F32(f) => format!("\"{}\"", java_float(*f)),
            Value::F64(f) if f.is_finite() => java_double(*f),
            Value::F64(f) => format!("\"{}\"", java_double(*f)),
            Value::String(s) => quoted(s),
            Value::Bytes(b) => format!(
                "\"{}\"",
                base64::engine::general_purpose::STANDARD.encode(b)
            ),
            Value::EnumNumber(number) => match kind {
                Kind::Enum(descriptor) => match descriptor.get_value(*number) {
                    Some(v) => quoted(v.name()),
                    None => number.to_string(),
                },
                _ => number.to_string(),
            },
            Value::Message(message) => {
                self.message(message);
                return;
            }
            // Lists and maps do not nest directly in protobuf.
            Value::List(_) | Value::Map(_) => String::new(),
        };
        self.out.push_str(&text);
    }

    /// A JSON value from prost-reflect's mapping of a well-known type, in Java's layout.
    fn json(&mut self, value: &serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                let entries: Vec<(&String, &serde_json::Value)> = map.iter().collect();
                self.object(&entries, |printer, (key, value)| {
                    printer.out.push_str(&quoted(key));
                    printer.out.push_str(": ");
                    printer.json(value);
                });
            }
            serde_json::Value::Array(items) => {
                self.out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        self.out.push_str(", ");
                    }
                    self.json(item);
                }
                self.out.push(']');
            }
            serde_json::Value::String(s) => self.out.push_str(&quoted(s)),
            serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) if !n.is_f64() => self.out.push_str(&i.to_string()),
                (_, Some(u), _) if !n.is_f64() => self.out.push_str(&u.to_string()),
                (_, _, Some(f)) => self.out.push_str(&java_double(f)),
                _ => self.out.push_str(&n.to_string()),
            },
            serde_json::Value::Bool(b) => self.out.push_str(&b.to_string()),
            serde_json::Value::Null => self.out.push_str("null"),
        }
    }
}

/// The well-known types with a JSON form of their own (`Empty` prints as a message).
fn is_special_well_known(full_name: &str) -> bool {
    matches!(
        full_name,
        "google.protobuf.Any"
            | "google.protobuf.Timestamp"
            | "google.protobuf.Duration"
            | "google.protobuf.FieldMask"
            | "google.protobuf.Struct"
            | "google.protobuf.Value"
            | "google.protobuf.ListValue"
            | "google.protobuf.DoubleValue"
            | "google.protobuf.FloatValue"
            | "google.protobuf.Int64Value"
            | "google.protobuf.UInt64Value"
            | "google.protobuf.Int32Value"
            | "google.protobuf.UInt32Value"
            | "google.protobuf.BoolValue"
            | "google.protobuf.StringValue"
            | "google.protobuf.BytesValue"
    )
}

/// Gson's HTML-safe string literal.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '=' | '\'' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost_reflect::DescriptorPool;

    fn pool() -> DescriptorPool {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("t.proto"),
            "syntax = \"proto3\";\npackage t;\n\
             import \"google/protobuf/timestamp.proto\";\n\
             enum Color { RED = 0; BLUE = 1; }\n\
             message Inner { string name = 1; }\n\
             message All {\n  int32 small = 1;\n  int64 big = 2;\n  double ratio = 3;\n\
               float share = 4;\n  string text = 5;\n  bytes blob = 6;\n  Color color = 7;\n\
               repeated Inner items = 8;\n  map<string, int32> counts = 9;\n\
               repeated int32 numbers = 10;\n  google.protobuf.Timestamp at = 11;\n\
               bool flag = 12;\n  string snake_case_name = 13;\n}\n",
        )
        .unwrap();
        crate::foundation::proto_files::compile(
            &[dir.path().join("t.proto")],
            &[dir.path().to_path_buf()],
            "test",
        )
        .expect("compiles")
    }

    fn parse(json: &str) -> DynamicMessage {
        let descriptor = pool().get_message_by_name("t.All").expect("t.All");
        let mut de = serde_json::Deserializer::from_str(json);
        DynamicMessage::deserialize(descriptor, &mut de).expect("valid JSON")
    }

    #[test]
    fn defaults_and_proto_names_print_when_asked() {
        let options = PrintOptions {
            proto_names: true,
            defaults: true,
        };
        let expected = concat!(
            "{\n",
            "  \"small\": 0,\n",
            "  \"big\": \"0\",\n",
            "  \"ratio\": 0.0,\n",
            "  \"share\": 0.0,\n",
            "  \"text\": \"\",\n",
            "  \"blob\": \"\",\n",
            "  \"color\": \"RED\",\n",
            "  \"items\": [],\n",
            "  \"counts\": {\n",
            "  },\n",
            "  \"numbers\": [],\n",
            "  \"flag\": false,\n",
            "  \"snake_case_name\": \"s\"\n",
            "}"
        );
        assert_eq!(
            print_with(&parse(r#"{"snakeCaseName": "s"}"#), options),
            expected
        );
    }

    #[test]
    fn an_empty_message_is_two_lines() {
        assert_eq!(print(&parse("{}")), "{\n}");
    }

    #[test]
    fn fields_print_as_protobuf_java_prints_them() {
        let message = parse(
            r#"{"snakeCaseName": "s", "flag": true, "big": 7, "small": -3, "ratio": 1e10,
                "share": 0.1, "text": "a<b>'c'&=\"\n", "blob": "AQI=", "color": "BLUE",
                "items": [{"name": "x"}, {}], "counts": {"b": 2, "a": 1},
                "numbers": [1, 2], "at": "2020-09-03T19:27:00.811Z"}"#,
        );
        let expected = concat!(
            "{\n",
            "  \"small\": -3,\n",
            "  \"big\": \"7\",\n",
            "  \"ratio\": 1.0E10,\n",
            "  \"share\": 0.1,\n",
            "  \"text\": \"a\\u003cb\\u003e\\u0027c\\u0027\\u0026\\u003d\\\"\\n\",\n",
            "  \"blob\": \"AQI=\",\n",
            "  \"color\": \"BLUE\",\n",
            "  \"items\": [{\n",
            "    \"name\": \"x\"\n",
            "  }, {\n",
            "  }],\n",
            "  \"counts\": {\n",
            "    \"a\": 1,\n",
            "    \"b\": 2\n",
            "  },\n",
            "  \"numbers\": [1, 2],\n",
            "  \"at\": \"2020-09-03T19:27:00.811Z\",\n",
            "  \"flag\": true,\n",
            "  \"snakeCaseName\": \"s\"\n",
            "}"
        );
        assert_eq!(print(&message), expected);
    }
}
