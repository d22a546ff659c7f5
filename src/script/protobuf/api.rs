//! The Rhai API of protobuf messages, the `Protobuf` module:
//!
//! - `Protobuf::encode(type, map)` → blob; `Protobuf::decode(type, blob)` → map;
//! - `Protobuf::to_json(type, blob_or_map)` → text and `Protobuf::from_json(type, text)`
//!   → blob, with proto3's JSON mapping (camelCase names, 64-bit integers as strings,
//!   enums by name, bytes in Base64, default values left out);
//! - `Protobuf::to_text(type, blob_or_map)`: protobuf's text format (Java's `toString()`);
//! - `Protobuf::builder(type[, map_or_blob])`: a builder with `set`, `add`, `add_all`,
//!   `put`, `put_all`, `remove_key`, `clear`, `get`, `has`, `merge`, `build` (→ map) and
//!   `to_bytes`, which translated generated-Java code uses;
//! - helpers for translated getters: `or_default`, `enum_number`, `enum_name`,
//!   `map_get`; and `types()`, the loaded message names.
//!
//! `type` is a message's full name or any unambiguous tail of it (`ChatMessage`).

use std::sync::Arc;

use parking_lot::Mutex;
use prost::Message;
use prost_reflect::{DynamicMessage, MessageDescriptor, ReflectMessage, Value};
use rhai::{Array, Blob, Dynamic, Engine, Map, INT};

use super::values::{self, default_map, from_message, to_message};
use super::Schema;
use crate::foundation::proto_files::map_key_text;
use crate::script::shims::{error, func, java_string, Class, ShimResult};

/// The schema of the running script's element.
fn schema() -> ShimResult<Arc<Schema>> {
    crate::script::bindings::protobuf_schema().map_or_else(
        || {
            error(format!(
                "no .proto files are loaded: name them with -J{}=<folder or files> \
                 (relative to the plan's folder)",
                super::PROPERTY
            ))
        },
        Ok,
    )
}

fn message_type(name: &str) -> ShimResult<MessageDescriptor> {
    schema()?.message(name).or_else(error)
}

/// A message from what a script holds: a map, a builder or encoded bytes.
fn message_of(desc: &MessageDescriptor, value: &Dynamic) -> ShimResult<DynamicMessage> {
    if let Some(builder) = value.read_lock::<ProtoBuilder>() {
        return Ok(builder.message());
    }
    if let Some(map) = value.read_lock::<Map>() {
        return to_message(desc, &map).or_else(error);
    }
    if let Some(bytes) = value.read_lock::<Blob>() {
        return decode_message(desc, &bytes);
    }
    error(format!(
        "a {} message is a map, a builder or bytes, not {}",
        desc.full_name(),
        value.type_name()
    ))
}

fn decode_message(desc: &MessageDescriptor, bytes: &[u8]) -> ShimResult<DynamicMessage> {
    DynamicMessage::decode(desc.clone(), bytes).or_else(|e| {
        error(format!(
            "InvalidProtocolBufferException: not a {} message: {e}",
            desc.full_name()
        ))
    })
}

fn bytes_arg(value: &Dynamic) -> Blob {
    match value.read_lock::<Blob>() {
        Some(bytes) => bytes.clone(),
        None => java_string(value).into_bytes(),
    }
}

/// `X.newBuilder()`: a message being built. Copies share it, as Java's builder is one
/// object that every reference changes.
#[derive(Clone)]
pub struct ProtoBuilder(Arc<Mutex<DynamicMessage>>);

impl ProtoBuilder {
    pub fn message(&self) -> DynamicMessage {
        self.0.lock().clone()
    }

    fn field(&self, name: &str) -> ShimResult<prost_reflect::FieldDescriptor> {
        let desc = self.0.lock().descriptor();
        values::field(&desc, name).or_else(error)
    }

    fn set(&mut self, name: &str, value: Dynamic) -> ShimResult<ProtoBuilder> {
        let field = self.field(name)?;
        if value.is_unit() {
            return error(format!(
                "NullPointerException: field `{name}` of {} cannot be set to null",
                field.parent_message().full_name()
            ));
        }
        let converted = values::to_field_value(&field, &value).or_else(error)?;
        self.0.lock().set_field(&field, converted);
        Ok(self.clone())
    }

    /// Applies `f` to the list or map value of a repeated or map field.
    fn with_value(
        &mut self,
        name: &str,
        f: impl FnOnce(&prost_reflect::FieldDescriptor, &mut Value) -> ShimResult<()>,
    ) -> ShimResult<ProtoBuilder> {
        let field = self.field(name)?;
        let mut message = self.0.lock();
        f(&field, message.get_field_mut(&field))?;
        Ok(self.clone())
    }

    fn item(field: &prost_reflect::FieldDescriptor, value: &Dynamic) -> ShimResult<Value> {
        let single = Dynamic::from_array(vec![value.clone()]);
        match values::to_field_value(field, &single).or_else(error)? {
            Value::List(mut items) if items.len() == 1 => Ok(items.remove(0)),
            _ => error(format!("field `{}` is not repeated", field.name())),
        }
    }

    fn add(&mut self, name: &str, value: Dynamic) -> ShimResult<ProtoBuilder> {
        self.with_value(name, |field, current| {
            let item = Self::item(field, &value)?;
            match current.as_list_mut() {
                Some(list) => {
                    list.push(item);
                    Ok(())
                }
                None => error(format!("field `{}` is not repeated", field.name())),
            }
        })
    }

    fn add_all(&mut self, name: &str, values: Array) -> ShimResult<ProtoBuilder> {
        for value in values {
            self.add(name, value)?;
        }
        Ok(self.clone())
    }

    fn set_at(&mut self, name: &str, index: INT, value: Dynamic) -> ShimResult<ProtoBuilder> {
        self.with_value(name, |field, current| {
            let item = Self::item(field, &value)?;
            match current
                .as_list_mut()
                .and_then(|l| usize::try_from(index).ok().and_then(|i| l.get_mut(i)))
            {
                Some(slot) => {
                    *slot = item;
                    Ok(())
                }
                None => error(format!(
                    "IndexOutOfBoundsException: {index} in field `{}`",
                    field.name()
                )),
            }
        })
    }

    fn put(&mut self, name: &str, key: Dynamic, value: Dynamic) -> ShimResult<ProtoBuilder> {
        self.with_value(name, |field, current| {
            let mut one = Map::new();
            one.insert(java_string(&key).into(), value);
            let Value::Map(entry) =
                values::to_field_value(field, &Dynamic::from_map(one)).or_else(error)?
            else {
                return error(format!("field `{}` is not a map", field.name()));
            };
            match current.as_map_mut() {
                Some(map) => {
                    map.extend(entry);
                    Ok(())
                }
                None => error(format!("field `{}` is not a map", field.name())),
            }
        })
    }

    fn put_all(&mut self, name: &str, entries: Map) -> ShimResult<ProtoBuilder> {
        for (key, value) in entries {
            self.put(name, Dynamic::from(key), value)?;
        }
        Ok(self.clone())
    }

    fn remove_key(&mut self, name: &str, key: Dynamic) -> ShimResult<ProtoBuilder> {
        self.with_value(name, |field, current| {
            let text = java_string(&key);
            if let Some(map) = current.as_map_mut() {
                map.retain(|k, _| map_key_text(k) != text);
                return Ok(());
            }
            error(format!("field `{}` is not a map", field.name()))
        })
    }

    fn clear(&mut self, name: &str) -> ShimResult<ProtoBuilder> {
        let field = self.field(name)?;
        self.0.lock().clear_field(&field);
        Ok(self.clone())
    }

    fn get(&mut self, name: &str) -> ShimResult<Dynamic> {
        let field = self.field(name)?;
        let map = from_message(&self.0.lock());
        Ok(map.get(field.name()).cloned().unwrap_or(Dynamic::UNIT))
    }
}

fn new_builder(name: &str, initial: Option<&Dynamic>) -> ShimResult<ProtoBuilder> {
    let desc = message_type(name)?;
    let message = match initial {
        Some(value) => message_of(&desc, value)?,
        None => DynamicMessage::new(desc),
    };
    Ok(ProtoBuilder(Arc::new(Mutex::new(message))))
}

fn to_json(name: &str, value: &Dynamic) -> ShimResult<String> {
    let desc = message_type(name)?;
    let message = message_of(&desc, value)?;
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::new(&mut out);
    message
        .serialize_with_options(&mut serializer, &Default::default())
        .or_else(|e| error(format!("cannot write {name} as JSON: {e}")))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn from_json(name: &str, text: &str) -> ShimResult<Blob> {
    let desc = message_type(name)?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let message = DynamicMessage::deserialize(desc, &mut deserializer).or_else(|e| {
        error(format!(
            "InvalidProtocolBufferException: not a {name} in JSON: {e}"
        ))
    })?;
    Ok(message.encode_to_vec())
}

fn map_get(map: Dynamic, key: Dynamic, default: Option<Dynamic>) -> ShimResult<Dynamic> {
    let found = map
        .read_lock::<Map>()
        .and_then(|m| m.get(java_string(&key).as_str()).cloned());
    match (found, default) {
        (Some(value), _) => Ok(value),
        (None, Some(default)) => Ok(default),
        (None, None) => error(format!(
            "IllegalArgumentException: no key {}",
            java_string(&key)
        )),
    }
}

pub(crate) fn class() -> Class {
    let mut class = Class::new("Protobuf");
    func!(class, "encode", |name: &str,
                            value: Dynamic|
     -> ShimResult<Blob> {
        let desc = message_type(name)?;
        Ok(message_of(&desc, &value)?.encode_to_vec())
    });
    func!(class, "decode", |name: &str,
                            bytes: Dynamic|
     -> ShimResult<Map> {
        let desc = message_type(name)?;
        decode_message(&desc, &bytes_arg(&bytes)).map(|m| from_message(&m))
    });
    func!(class, "to_json", |name: &str, value: Dynamic| to_json(
        name, &value
    ));
    func!(class, "from_json", |name: &str, text: &str| from_json(
        name, text
    ));
    func!(class, "to_text", |name: &str,
                             value: Dynamic|
     -> ShimResult<String> {
        let desc = message_type(name)?;
        Ok(message_of(&desc, &value)?.to_text_format())
    });
    func!(class, "builder", |name: &str| new_builder(name, None));
    func!(
        class,
        "builder",
        |name: &str, initial: Dynamic| new_builder(name, Some(&initial))
    );
    func!(class, "or_default", |value: Dynamic,
                                name: &str|
     -> ShimResult<Dynamic> {
        if !value.is_unit() {
            return Ok(value);
        }
        Ok(Dynamic::from_map(default_map(&message_type(name)?)))
    });
    func!(class, "enum_number", |name: &str,
                                 value: Dynamic|
     -> ShimResult<INT> {
        let desc = schema()?.enumeration(name).or_else(error)?;
        values::enum_number(&desc, &value)
            .map(INT::from)
            .or_else(error)
    });
    func!(class, "enum_name", |name: &str,
                               number: INT|
     -> ShimResult<Dynamic> {
        let desc = schema()?.enumeration(name).or_else(error)?;
        Ok(i32::try_from(number)
            .ok()
            .and_then(|n| desc.get_value(n))
            .map_or(Dynamic::UNIT, |v| Dynamic::from(v.name().to_string())))
    });
    func!(class, "map_get", |map: Dynamic, key: Dynamic| map_get(
        map, key, None
    ));
    func!(
        class,
        "map_get",
        |map: Dynamic, key: Dynamic, default: Dynamic| map_get(map, key, Some(default))
    );
    func!(class, "types", || -> ShimResult<Array> {
        Ok(schema()?
            .message_names()
            .into_iter()
            .map(Dynamic::from)
            .collect())
    });
    class
}

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_type_with_name::<ProtoBuilder>("ProtoBuilder")
        .register_fn("set", ProtoBuilder::set)
        .register_fn("set", ProtoBuilder::set_at)
        .register_fn("add", ProtoBuilder::add)
        .register_fn("add_all", ProtoBuilder::add_all)
        .register_fn("put", ProtoBuilder::put)
        .register_fn("put_all", ProtoBuilder::put_all)
        .register_fn("remove_key", ProtoBuilder::remove_key)
        .register_fn("clear", ProtoBuilder::clear)
        .register_fn("clear", |b: &mut ProtoBuilder| {
            let desc = b.0.lock().descriptor();
            *b.0.lock() = DynamicMessage::new(desc);
            b.clone()
        })
        .register_fn("get", ProtoBuilder::get)
        .register_fn(
            "has",
            |b: &mut ProtoBuilder, name: &str| -> ShimResult<bool> {
                let field = b.field(name)?;
                Ok(b.0.lock().has_field(&field))
            },
        )
        .register_fn(
            "merge",
            |b: &mut ProtoBuilder, value: Dynamic| -> ShimResult<ProtoBuilder> {
                let desc = b.0.lock().descriptor();
                let other = message_of(&desc, &value)?;
                let bytes = other.encode_to_vec();
                b.0.lock()
                    .merge(bytes.as_slice())
                    .or_else(|e| error(format!("InvalidProtocolBufferException: {e}")))?;
                Ok(b.clone())
            },
        )
        .register_fn("build", |b: &mut ProtoBuilder| from_message(&b.0.lock()))
        .register_fn("to_bytes", |b: &mut ProtoBuilder| {
            b.0.lock().encode_to_vec()
        });
}
