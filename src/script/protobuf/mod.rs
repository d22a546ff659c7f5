//! Protocol Buffers for scripts, with no jar and no `protoc`: the `.proto` files a run
//! names (`-Jjmxr.protobuf.path=protos/`) are compiled when the plan is built, by a
//! Rust compiler of `.proto` files (protox), into a [`Schema`] that every script
//! element of the run shares.
//!
//! - [`load`] finds and compiles the files (once per distinct setting in a process) and
//!   says which file and line a bad one fails at;
//! - [`values`] converts between Rhai maps and protobuf messages;
//! - [`api`] is the Rhai API (`Protobuf::encode(type, map)` → blob,
//!   `Protobuf::decode(type, blob)` → map, JSON both ways, and the builder that the
//!   translation of generated-Java code uses). Scripts find the run's schema through
//!   their call state ([`crate::script::bindings::CallState`]), set by the element that
//!   runs them;
//! - the translator (`translate::protobuf`) asks the schema which names are messages
//!   and enums to turn `X.newBuilder().setFoo(v)….build().toByteArray()` into that API.

pub mod api;
mod load;
#[cfg(test)]
mod tests;
pub mod values;

use std::collections::HashMap;

use prost_reflect::{DescriptorPool, EnumDescriptor, MessageDescriptor};

pub use load::{load, schema_for, PROPERTY};

/// What a name found in a script stands for in the loaded files.
pub enum Found<T> {
    One(T),
    /// Several types end with that name (`a.Ping` and `b.Ping`): the script must say
    /// which.
    Ambiguous(Vec<String>),
    None,
}

/// The compiled `.proto` files of a run, with the names scripts may use for their
/// messages and enums: the full name (`chat.v1.ChatMessage`) and every shorter tail
/// (`v1.ChatMessage`, `ChatMessage`), as Java code names a nested type `Outer.Inner`.
pub struct Schema {
    pool: DescriptorPool,
    messages: HashMap<String, Vec<MessageDescriptor>>,
    enums: HashMap<String, Vec<EnumDescriptor>>,
}

fn tails(full_name: &str) -> impl Iterator<Item = &str> {
    std::iter::once(full_name).chain(
        full_name
            .match_indices('.')
            .map(move |(at, _)| &full_name[at + 1..]),
    )
}

fn lookup<T: Clone>(
    index: &HashMap<String, Vec<T>>,
    name: &str,
    full: fn(&T) -> String,
) -> Found<T> {
    match index.get(name.trim_start_matches('.')).map(Vec::as_slice) {
        Some([one]) => Found::One(one.clone()),
        Some(many) if !many.is_empty() => Found::Ambiguous(many.iter().map(full).collect()),
        _ => Found::None,
    }
}

impl Schema {
    pub fn new(pool: DescriptorPool) -> Schema {
        let mut messages: HashMap<String, Vec<MessageDescriptor>> = HashMap::new();
        for message in pool.all_messages().filter(|m| !m.is_map_entry()) {
            for tail in tails(message.full_name()) {
                messages
                    .entry(tail.to_string())
                    .or_default()
                    .push(message.clone());
            }
        }
        let mut enums: HashMap<String, Vec<EnumDescriptor>> = HashMap::new();
        for item in pool.all_enums() {
            for tail in tails(item.full_name()) {
                enums
                    .entry(tail.to_string())
                    .or_default()
                    .push(item.clone());
            }
        }
        Schema {
            pool,
            messages,
            enums,
        }
    }

    pub fn find_message(&self, name: &str) -> Found<MessageDescriptor> {
        lookup(&self.messages, name, |m| m.full_name().to_string())
    }

    pub fn find_enum(&self, name: &str) -> Found<EnumDescriptor> {
        lookup(&self.enums, name, |e| e.full_name().to_string())
    }

    /// The message a script names, or the error it fails with.
    pub fn message(&self, name: &str) -> Result<MessageDescriptor, String> {
        match self.find_message(name) {
            Found::One(message) => Ok(message),
            Found::Ambiguous(names) => Err(format!(
                "protobuf message name `{name}` is ambiguous: write one of {}",
                names.join(", ")
            )),
            Found::None => Err(format!(
                "no protobuf message `{name}` in the loaded .proto files"
            )),
        }
    }

    pub fn enumeration(&self, name: &str) -> Result<EnumDescriptor, String> {
        match self.find_enum(name) {
            Found::One(item) => Ok(item),
            Found::Ambiguous(names) => Err(format!(
                "protobuf enum name `{name}` is ambiguous: write one of {}",
                names.join(", ")
            )),
            Found::None => Err(format!(
                "no protobuf enum `{name}` in the loaded .proto files"
            )),
        }
    }

    /// The full names of every message, sorted.
    pub fn message_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .pool
            .all_messages()
            .filter(|m| !m.is_map_entry())
            .map(|m| m.full_name().to_string())
            .collect();
        names.sort();
        names
    }
}

/// The name a generated Java accessor gives a field: `message_id` → `MessageId`,
/// `field2name` → `Field2Name` (protoc capitalises after `_` and after digits).
pub fn java_name(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut upper = true;
    for c in field.chars() {
        if c == '_' {
            upper = true;
            continue;
        }
        if upper {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        upper = c.is_ascii_digit();
    }
    out
}

#[cfg(test)]
mod names_tests {
    use super::*;

    #[test]
    fn java_accessor_names_follow_protoc() {
        assert_eq!(java_name("message_id"), "MessageId");
        assert_eq!(java_name("seq"), "Seq");
        assert_eq!(java_name("field2name"), "Field2Name");
        assert_eq!(java_name("ack_status_"), "AckStatus");
    }
}
