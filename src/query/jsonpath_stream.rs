//! A fast path for definite JSONPaths made only of names and non-negative indexes
//! (`$.token`, `$.data.items[0].id`, the commonest in plans): the response is scanned
//! once and only the selected value is built; everything else is skipped without
//! allocating. Other paths go through the full document tree.

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// One step of a streamable path.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    Name(String),
    Index(usize),
}

/// The value `keys` select in `text`: `Ok(None)` when missing, `Err` when `text` is not
/// JSON. With duplicate names the last one wins, as when the whole tree is built.
pub fn select(keys: &[Key], text: &str) -> Result<Option<Value>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let found = Seek(keys).deserialize(&mut de)?;
    de.end()?;
    Ok(found)
}

struct Seek<'k>(&'k [Key]);

impl<'de> DeserializeSeed<'de> for Seek<'_> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Value>, D::Error> {
        match self.0.split_first() {
            None => Value::deserialize(d).map(Some),
            Some((key, rest)) => d.deserialize_any(Step { key, rest }),
        }
    }
}

struct Step<'k> {
    key: &'k Key,
    rest: &'k [Key],
}

impl<'de> Visitor<'de> for Step<'_> {
    type Value = Option<Value>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Value>, A::Error> {
        let mut found = None;
        while let Some(name) = map.next_key::<String>()? {
            match self.key {
                Key::Name(wanted) if *wanted == name => {
                    found = map.next_value_seed(Seek(self.rest))?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Value>, A::Error> {
        let mut found = None;
        let mut index = 0;
        loop {
            let more = match self.key {
                Key::Index(wanted) if *wanted == index => {
                    match seq.next_element_seed(Seek(self.rest))? {
                        Some(value) => {
                            found = value;
                            true
                        }
                        None => false,
                    }
                }
                _ => seq.next_element::<IgnoredAny>()?.is_some(),
            };
            if !more {
                return Ok(found);
            }
            index += 1;
        }
    }

    fn visit_bool<E>(self, _: bool) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Option<Value>, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Option<Value>, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn name(n: &str) -> Key {
        Key::Name(n.to_string())
    }

    #[test]
    fn selects_only_the_wanted_value() {
        let text = r#"{"a":{"b":[10,{"c":"x"}],"s":"t"},"a2":1,"d":null,"dup":1,"dup":2}"#;
        assert_eq!(
            select(&[name("a"), name("s")], text).unwrap(),
            Some(json!("t"))
        );
        assert_eq!(
            select(&[name("a"), name("b"), Key::Index(1), name("c")], text).unwrap(),
            Some(json!("x"))
        );
        assert_eq!(
            select(&[name("a"), name("b")], text).unwrap(),
            Some(json!([10, {"c": "x"}]))
        );
        assert_eq!(select(&[name("d")], text).unwrap(), Some(Value::Null));
        assert_eq!(select(&[name("dup")], text).unwrap(), Some(json!(2)));
        assert_eq!(select(&[name("nope"), name("x")], text).unwrap(), None);
        assert_eq!(select(&[name("a2"), name("x")], text).unwrap(), None);
        assert_eq!(
            select(&[name("a"), name("b"), Key::Index(5)], text).unwrap(),
            None
        );
        assert!(select(&[name("a")], "{\"a\":1} trailing").is_err());
        assert!(select(&[name("a")], "not json").is_err());
    }
}
