//! The protobuf wire format, written here from its specification so that tests check
//! (and test servers answer) encoded messages without the code that encoded them:
//! [`fields`] splits a message into its fields by number; [`Encoder`] writes one.

use std::collections::HashMap;

/// One field of the wire format: a varint or a length-delimited payload.
#[derive(Debug, Clone, PartialEq)]
pub enum Wire {
    Varint(u64),
    Bytes(Vec<u8>),
}

fn varint(bytes: &[u8], at: &mut usize) -> u64 {
    let (mut value, mut shift) = (0u64, 0);
    loop {
        let byte = bytes[*at];
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return value;
        }
        shift += 7;
    }
}

/// The fields of an encoded message by number, in the order they came.
pub fn fields(bytes: &[u8]) -> HashMap<u64, Vec<Wire>> {
    let mut fields: HashMap<u64, Vec<Wire>> = HashMap::new();
    let mut at = 0;
    while at < bytes.len() {
        let key = varint(bytes, &mut at);
        let value = match key & 7 {
            0 => Wire::Varint(varint(bytes, &mut at)),
            2 => {
                let len = varint(bytes, &mut at) as usize;
                at += len;
                Wire::Bytes(bytes[at - len..at].to_vec())
            }
            other => panic!("wire type {other} not expected"),
        };
        fields.entry(key >> 3).or_default().push(value);
    }
    fields
}

/// The text of a field that occurs once, length-delimited.
pub fn text(field: &[Wire]) -> String {
    match field {
        [Wire::Bytes(b)] => String::from_utf8(b.clone()).expect("UTF-8"),
        other => panic!("not one length-delimited field: {other:?}"),
    }
}

/// Field `number` of `fields` as text; proto3 leaves empty strings out, so absent is "".
pub fn text_of(fields: &HashMap<u64, Vec<Wire>>, number: u64) -> String {
    fields.get(&number).map(|f| text(f)).unwrap_or_default()
}

/// Field `number` as a varint; absent is 0, as proto3 leaves zeros out.
pub fn varint_of(fields: &HashMap<u64, Vec<Wire>>, number: u64) -> u64 {
    match fields.get(&number).map(Vec::as_slice) {
        None => 0,
        Some([Wire::Varint(v)]) => *v,
        Some(other) => panic!("field {number} is not one varint: {other:?}"),
    }
}

/// A `map<string, string>` field as sorted pairs.
pub fn string_map(fields: &HashMap<u64, Vec<Wire>>, number: u64) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = fields
        .get(&number)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|entry| {
            let Wire::Bytes(entry) = entry else {
                panic!("map entry {entry:?}")
            };
            let entry = self::fields(entry);
            (text_of(&entry, 1), text_of(&entry, 2))
        })
        .collect();
    pairs.sort();
    pairs
}

/// Writes a message field by field.
#[derive(Default)]
pub struct Encoder(pub Vec<u8>);

impl Encoder {
    fn raw_varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.0.push((value as u8 & 0x7f) | 0x80);
            value >>= 7;
        }
        self.0.push(value as u8);
    }

    pub fn varint(mut self, number: u64, value: u64) -> Encoder {
        self.raw_varint(number << 3);
        self.raw_varint(value);
        self
    }

    pub fn bytes(mut self, number: u64, value: &[u8]) -> Encoder {
        self.raw_varint((number << 3) | 2);
        self.raw_varint(value.len() as u64);
        self.0.extend_from_slice(value);
        self
    }
}
