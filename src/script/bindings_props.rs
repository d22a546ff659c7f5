//! `props` (JMeter's properties, shared by every user) and the objects scripts keep in
//! variables and properties. Strings, numbers and booleans are properties' text, as
//! they always were; other values (counters, lists, maps, bytes) are kept as objects so
//! that every user reaches the same one, as in JMeter. Bytes are stored as a bare
//! `Vec<u8>` in the [`VariableObject`]: samplers send a script's bytes through
//! [`VariableObject::bytes`].

use std::sync::Arc;

use rhai::{Blob, Dynamic, Engine};

use super::bindings::{state, text_of, Props};
use crate::samplers::jdbc::java::Cell;
use crate::samplers::jdbc::ResultRows;
use crate::user_state::VariableObject;

/// A script value as a variable or property object. Bytes are stored as a bare
/// `Vec<u8>` (Rhai's `Blob`): that is the contract samplers rely on to send a script's
/// bytes as they are ([`VariableObject::bytes`]); anything else keeps its `Dynamic`.
pub fn to_object(value: Dynamic) -> VariableObject {
    if value.is_blob() {
        let bytes: Blob = value.try_cast().unwrap_or_default();
        return VariableObject(Arc::new(bytes));
    }
    VariableObject(Arc::new(value))
}

/// The script value a variable or property object holds.
pub fn from_object(object: &VariableObject) -> Dynamic {
    if let Some(bytes) = object.bytes() {
        return Dynamic::from_blob(bytes.to_vec());
    }
    if let Some(rows) = object.0.downcast_ref::<ResultRows>() {
        return result_rows(rows);
    }
    object
        .0
        .downcast_ref::<Dynamic>()
        .cloned()
        .unwrap_or(Dynamic::UNIT)
}

/// A JDBC element's Result Variable: a list of column → value maps, the values as the
/// script's numbers, booleans, strings and blobs (`()` for NULL).
fn result_rows(rows: &ResultRows) -> Dynamic {
    let list: rhai::Array = rows
        .rows
        .iter()
        .map(|row| {
            let map: rhai::Map = rows
                .columns
                .iter()
                .zip(row)
                .map(|(column, cell)| {
                    let value = match cell {
                        Cell::Null => Dynamic::UNIT,
                        Cell::Bool(b) => Dynamic::from_bool(*b),
                        Cell::Int(i) => Dynamic::from_int(*i),
                        Cell::Double(d) => Dynamic::from_float(*d),
                        Cell::Float(f) => Dynamic::from_float(f64::from(*f)),
                        Cell::Bytes(bytes) => Dynamic::from_blob(bytes.clone()),
                        Cell::Text(text) => Dynamic::from(text.clone()),
                    };
                    (column.as_str().into(), value)
                })
                .collect();
            Dynamic::from_map(map)
        })
        .collect();
    Dynamic::from_array(list)
}

/// Whether a value is stored in properties as its text (strings, numbers, booleans), as
/// jmxr always did; other values (counters, lists, maps, bytes) are kept as objects so
/// that every user shares the same one, as in JMeter.
fn stored_as_text(value: &Dynamic) -> bool {
    value.is_unit()
        || value.is_string()
        || value.is_int()
        || value.is_float()
        || value.is_bool()
        || value.is_char()
}

fn props_get(name: &str) -> Dynamic {
    state(Dynamic::UNIT, |s| match s.props.get_object(name) {
        Some(object) => from_object(&object),
        None => s.props.get(name).map_or(Dynamic::UNIT, Dynamic::from),
    })
}

fn props_put(name: &str, value: Dynamic) -> Dynamic {
    state(Dynamic::UNIT, |s| {
        if !stored_as_text(&value) {
            let previous = s.props.get_object(name).map(|o| from_object(&o));
            let text = s.props.get(name);
            s.props.put_object(name, to_object(value), false);
            return previous
                .or_else(|| text.map(Dynamic::from))
                .unwrap_or(Dynamic::UNIT);
        }
        let previous = match text_of(&value) {
            Some(text) => s.props.set(name, text),
            None => s.props.remove(name),
        };
        previous.map_or(Dynamic::UNIT, Dynamic::from)
    })
}

/// `props.putIfAbsent(name, value)`: atomic for objects, so that users racing to create
/// a shared counter all end up with the same one. Returns the value already there, or
/// `null` when `value` was stored.
fn props_put_if_absent(name: &str, value: Dynamic) -> Dynamic {
    state(Dynamic::UNIT, |s| {
        if stored_as_text(&value) {
            if let Some(existing) = s.props.get_object(name) {
                return from_object(&existing);
            }
            return match (s.props.get(name), text_of(&value)) {
                (Some(existing), _) => Dynamic::from(existing),
                (None, Some(text)) => {
                    s.props.set(name, text);
                    Dynamic::UNIT
                }
                (None, None) => Dynamic::UNIT,
            };
        }
        let stored = to_object(value);
        match s.props.put_object(name, stored.clone(), true) {
            Some(now) if Arc::ptr_eq(&now.0, &stored.0) => Dynamic::UNIT,
            Some(existing) => from_object(&existing),
            None => s.props.get(name).map_or(Dynamic::UNIT, Dynamic::from),
        }
    })
}

pub(super) fn register(engine: &mut Engine) {
    engine.register_type_with_name::<Props>("Properties");
    engine.register_fn("get", |_: &mut Props, name: &str| props_get(name));
    engine.register_fn("getProperty", |_: &mut Props, name: &str| props_get(name));
    engine.register_fn(
        "getProperty",
        |_: &mut Props, name: &str, default: Dynamic| {
            let found = props_get(name);
            if found.is_unit() {
                default
            } else {
                found
            }
        },
    );
    engine.register_indexer_get(|_: &mut Props, name: &str| props_get(name));
    engine.register_fn("put", |_: &mut Props, name: &str, value: Dynamic| {
        props_put(name, value)
    });
    engine.register_fn(
        "putIfAbsent",
        |_: &mut Props, name: &str, value: Dynamic| props_put_if_absent(name, value),
    );
    engine.register_fn(
        "setProperty",
        |_: &mut Props, name: &str, value: Dynamic| props_put(name, value),
    );
    engine.register_indexer_set(|_: &mut Props, name: &str, value: Dynamic| {
        let _ = props_put(name, value);
    });
    engine.register_fn("remove", |_: &mut Props, name: &str| {
        state(Dynamic::UNIT, |s| {
            s.props.remove(name).map_or(Dynamic::UNIT, Dynamic::from)
        })
    });
    engine.register_fn("containsKey", |_: &mut Props, name: &str| {
        state(false, |s| s.props.contains(name))
    });
}
