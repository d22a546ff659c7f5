//! Rhai values ↔ protobuf values. A message is a Rhai map keyed by the `.proto` field
//! names (JSON names are accepted too on the way in):
//!
//! | `.proto` | Rhai |
//! |---|---|
//! | all integer types, `int64` included | integer (`uint64` above 2^63 wraps negative, as Java's `long`); text holding a number is accepted |
//! | `float`, `double` | floating-point (integers accepted) |
//! | `bool`, `string` | boolean, string |
//! | `bytes` | blob (a string is taken as its UTF-8 bytes) |
//! | enum | the value's name; its number is accepted |
//! | message | map (a builder is accepted) |
//! | `repeated` | array |
//! | `map<K, V>` | map keyed by the key's text |
//!
//! Decoding gives every field: scalars at their default when absent, and `()` for a
//! field that tracks presence (a message, a `optional` or `oneof` member) and is unset.

use prost_reflect::{
    DynamicMessage, EnumDescriptor, FieldDescriptor, Kind, MapKey, MessageDescriptor,
    ReflectMessage, Value,
};
use rhai::{Array, Blob, Dynamic, ImmutableString, Map, INT};

use super::api::ProtoBuilder;
use crate::foundation::proto_files::map_key_text;
use crate::script::shims::java_string;

/// The message `map` describes.
pub fn to_message(desc: &MessageDescriptor, map: &Map) -> Result<DynamicMessage, String> {
    let mut message = DynamicMessage::new(desc.clone());
    for (name, value) in map {
        if value.is_unit() {
            continue;
        }
        let field = field(desc, name)?;
        let converted = to_field_value(&field, value)?;
        message.set_field(&field, converted);
    }
    Ok(message)
}

/// The field a script names: its `.proto` name or its JSON name.
pub fn field(desc: &MessageDescriptor, name: &str) -> Result<FieldDescriptor, String> {
    desc.get_field_by_name(name)
        .or_else(|| desc.get_field_by_json_name(name))
        .ok_or_else(|| format!("{} has no field `{name}`", desc.full_name()))
}

/// A whole field's value: a list for `repeated`, a map for `map<..>`.
pub fn to_field_value(field: &FieldDescriptor, value: &Dynamic) -> Result<Value, String> {
    if field.is_map() {
        let Some(entries) = value.read_lock::<Map>() else {
            return Err(mismatch(field, "a map", value));
        };
        let Kind::Message(entry) = field.kind() else {
            return Err(mismatch(field, "a map", value));
        };
        let key_kind = entry.map_entry_key_field().kind();
        let value_field = entry.map_entry_value_field();
        let mut out = std::collections::HashMap::new();
        for (key, item) in entries.iter() {
            out.insert(
                to_map_key(field, &key_kind, key)?,
                to_single(&value_field, &value_field.kind(), item)?,
            );
        }
        return Ok(Value::Map(out));
    }
    if field.is_list() {
        let Some(items) = value.read_lock::<Array>() else {
            return Err(mismatch(field, "an array", value));
        };
        let kind = field.kind();
        return items
            .iter()
            .map(|item| to_single(field, &kind, item))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::List);
    }
    to_single(field, &field.kind(), value)
}

fn mismatch(field: &FieldDescriptor, wanted: &str, value: &Dynamic) -> String {
    format!(
        "field `{}` of {} needs {wanted}, not {} `{}`",
        field.name(),
        field.parent_message().full_name(),
        value.type_name(),
        java_string(value)
    )
}

fn integer(field: &FieldDescriptor, value: &Dynamic) -> Result<i64, String> {
    if let Ok(n) = value.as_int() {
        return Ok(n);
    }
    if let Ok(f) = value.as_float() {
        if f.fract() == 0.0 && f.abs() < 9.3e18 {
            return Ok(f as i64);
        }
    }
    if value.is_string() {
        let text = java_string(value);
        if let Ok(n) = text.trim().parse::<i64>() {
            return Ok(n);
        }
        if let Ok(n) = text.trim().parse::<u64>() {
            return Ok(n as i64);
        }
    }
    Err(mismatch(field, "an integer", value))
}

fn ranged<T: TryFrom<i64>>(field: &FieldDescriptor, n: i64) -> Result<T, String> {
    T::try_from(n).map_err(|_| {
        format!(
            "{n} is out of range for field `{}` ({:?}) of {}",
            field.name(),
            field.kind(),
            field.parent_message().full_name()
        )
    })
}

/// One value of `kind` (an item of a list, the value of a map entry, or a singular
/// field).
fn to_single(field: &FieldDescriptor, kind: &Kind, value: &Dynamic) -> Result<Value, String> {
    Ok(match kind {
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
            Value::I32(ranged(field, integer(field, value)?)?)
        }
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Value::I64(integer(field, value)?),
        Kind::Uint32 | Kind::Fixed32 => Value::U32(ranged(field, integer(field, value)?)?),
        Kind::Uint64 | Kind::Fixed64 => Value::U64(integer(field, value)? as u64),
        Kind::Float | Kind::Double => {
            let f = value
                .as_float()
                .or_else(|_| value.as_int().map(|n| n as f64))
                .or_else(|_| java_string(value).trim().parse::<f64>())
                .map_err(|_| mismatch(field, "a number", value))?;
            if *kind == Kind::Float {
                Value::F32(f as f32)
            } else {
                Value::F64(f)
            }
        }
        Kind::Bool => match value.as_bool() {
            Ok(b) => Value::Bool(b),
            Err(_) => match java_string(value).as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => return Err(mismatch(field, "a boolean", value)),
            },
        },
        Kind::String => match value.read_lock::<Blob>() {
            Some(bytes) => Value::String(String::from_utf8_lossy(&bytes).into_owned()),
            None => Value::String(java_string(value)),
        },
        Kind::Bytes => match value.read_lock::<Blob>() {
            Some(bytes) => Value::Bytes(bytes.clone().into()),
            None => Value::Bytes(java_string(value).into_bytes().into()),
        },
        Kind::Enum(desc) => Value::EnumNumber(enum_number(desc, value)?),
        Kind::Message(desc) => {
            if let Some(builder) = value.read_lock::<ProtoBuilder>() {
                return Ok(Value::Message(builder.message()));
            }
            match value.read_lock::<Map>() {
                Some(map) => Value::Message(to_message(desc, &map)?),
                None => return Err(mismatch(field, "a map (a message)", value)),
            }
        }
    })
}

/// An enum value from its name or number.
pub fn enum_number(desc: &EnumDescriptor, value: &Dynamic) -> Result<i32, String> {
    if let Ok(n) = value.as_int() {
        return i32::try_from(n).map_err(|_| format!("{n} is not a {} number", desc.full_name()));
    }
    let name = java_string(value);
    desc.get_value_by_name(&name)
        .map(|v| v.number())
        .ok_or_else(|| format!("{} has no value `{name}`", desc.full_name()))
}

fn to_map_key(field: &FieldDescriptor, kind: &Kind, key: &str) -> Result<MapKey, String> {
    let text = Dynamic::from(ImmutableString::from(key));
    Ok(match kind {
        Kind::String => MapKey::String(key.to_string()),
        Kind::Bool => MapKey::Bool(key == "true"),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 => {
            MapKey::I32(ranged(field, integer(field, &text)?)?)
        }
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => MapKey::I64(integer(field, &text)?),
        Kind::Uint32 | Kind::Fixed32 => MapKey::U32(ranged(field, integer(field, &text)?)?),
        _ => MapKey::U64(integer(field, &text)? as u64),
    })
}

/// The map of a message, every field present (see the module doc).
pub fn from_message(message: &DynamicMessage) -> Map {
    let mut map = Map::new();
    for field in message.descriptor().fields() {
        let value = if field.supports_presence() && !message.has_field(&field) {
            Dynamic::UNIT
        } else {
            from_value(&field.kind(), &message.get_field(&field))
        };
        map.insert(field.name().into(), value);
    }
    map
}

fn from_value(kind: &Kind, value: &Value) -> Dynamic {
    match value {
        Value::Bool(b) => Dynamic::from(*b),
        Value::I32(n) => Dynamic::from(INT::from(*n)),
        Value::I64(n) => Dynamic::from(*n),
        Value::U32(n) => Dynamic::from(INT::from(*n)),
        Value::U64(n) => Dynamic::from(*n as INT),
        Value::F32(f) => Dynamic::from(f64::from(*f)),
        Value::F64(f) => Dynamic::from(*f),
        Value::String(s) => Dynamic::from(s.clone()),
        Value::Bytes(b) => Dynamic::from_blob(b.to_vec()),
        Value::EnumNumber(n) => match kind {
            Kind::Enum(desc) => match desc.get_value(*n) {
                Some(v) => Dynamic::from(v.name().to_string()),
                None => Dynamic::from(INT::from(*n)),
            },
            _ => Dynamic::from(INT::from(*n)),
        },
        Value::Message(m) => Dynamic::from_map(from_message(m)),
        Value::List(items) => {
            Dynamic::from_array(items.iter().map(|v| from_value(kind, v)).collect())
        }
        Value::Map(entries) => {
            let value_kind = match kind {
                Kind::Message(entry) => entry.map_entry_value_field().kind(),
                other => other.clone(),
            };
            let mut keys: Vec<(&MapKey, &Value)> = entries.iter().collect();
            keys.sort_by(|a, b| a.0.cmp(b.0));
            Dynamic::from_map(
                keys.into_iter()
                    .map(|(k, v)| (map_key_text(k).into(), from_value(&value_kind, v)))
                    .collect(),
            )
        }
    }
}

/// The value a getter of a message field gives when the field is unset: the message
/// with every field at its default.
pub fn default_map(desc: &MessageDescriptor) -> Map {
    from_message(&DynamicMessage::new(desc.clone()))
}
