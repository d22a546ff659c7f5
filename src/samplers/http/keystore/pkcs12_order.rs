//! The order of the key entries in a PKCS#12 file, which Java's `KeyStore.aliases()`
//! keeps and the PKCS#12 reader does not: the friendly names of the key bags in the
//! unencrypted parts of the file, read straight from its DER.
//!
//! The layout walked (RFC 7292): `PFX { version, authSafe ContentInfo, macData }`, the
//! authSafe's `data` holding a sequence of ContentInfo; each `data` ContentInfo holds
//! SafeBags `{ bagId, [0] value, attributes }`, a key bag's `friendlyName` attribute
//! being its alias. `openssl pkcs12` and `keytool` put the key bags in such plain
//! parts (the keys themselves are encrypted inside the bag); bags inside an encrypted
//! ContentInfo are not seen here, and anything that is not plain DER gives no order.

/// `id-data` (1.2.840.113549.1.7.1).
const DATA: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01];
/// `keyBag` (1.2.840.113549.1.12.10.1.1).
const KEY_BAG: &[u8] = &[
    0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x0A, 0x01, 0x01,
];
/// `pkcs8ShroudedKeyBag` (1.2.840.113549.1.12.10.1.2).
const SHROUDED_KEY_BAG: &[u8] = &[
    0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x0C, 0x0A, 0x01, 0x02,
];
/// `friendlyName` (1.2.840.113549.1.9.20).
const FRIENDLY_NAME: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x14];

const SEQUENCE: u8 = 0x30;
const SET: u8 = 0x31;
const OID: u8 = 0x06;
const OCTET_STRING: u8 = 0x04;
const INTEGER: u8 = 0x02;
const BMP_STRING: u8 = 0x1E;
const EXPLICIT_0: u8 = 0xA0;

/// The friendly names of the file's plain key bags, in file order; empty when the file
/// cannot be walked.
pub fn key_bag_aliases(pfx: &[u8]) -> Vec<String> {
    walk(pfx).unwrap_or_default()
}

fn walk(pfx: &[u8]) -> Option<Vec<String>> {
    let (pfx, _) = expect(pfx, SEQUENCE)?;
    let (_version, rest) = expect(pfx, INTEGER)?;
    let (auth_safe, _) = expect(rest, SEQUENCE)?;
    let contents = data_content(auth_safe)?;
    let (mut infos, _) = expect(contents, SEQUENCE)?;
    let mut aliases = Vec::new();
    while !infos.is_empty() {
        let (info, rest) = expect(infos, SEQUENCE)?;
        infos = rest;
        if let Some(safe_contents) = data_content(info) {
            bag_aliases(safe_contents, &mut aliases)?;
        }
    }
    Some(aliases)
}

/// The octets of a `data` ContentInfo (`{ id-data, [0] { OCTET STRING } }`); `None`
/// for any other content type.
fn data_content(info: &[u8]) -> Option<&[u8]> {
    let (content_type, rest) = expect(info, OID)?;
    if content_type != DATA {
        return None;
    }
    let (explicit, _) = expect(rest, EXPLICIT_0)?;
    let (octets, _) = expect(explicit, OCTET_STRING)?;
    Some(octets)
}

/// Appends the friendly names of the key bags in a SafeContents.
fn bag_aliases(safe_contents: &[u8], aliases: &mut Vec<String>) -> Option<()> {
    let (mut bags, _) = expect(safe_contents, SEQUENCE)?;
    while !bags.is_empty() {
        let (bag, rest) = expect(bags, SEQUENCE)?;
        bags = rest;
        let (bag_id, rest) = expect(bag, OID)?;
        if bag_id != KEY_BAG && bag_id != SHROUDED_KEY_BAG {
            continue;
        }
        let (_value, rest) = expect(rest, EXPLICIT_0)?;
        if let Some(name) = friendly_name(rest) {
            aliases.push(name);
        }
    }
    Some(())
}

/// The `friendlyName` among a bag's attributes (`SET OF { OID, SET OF value }`).
fn friendly_name(attributes: &[u8]) -> Option<String> {
    let (mut attributes, _) = expect(attributes, SET)?;
    while !attributes.is_empty() {
        let (attribute, rest) = expect(attributes, SEQUENCE)?;
        attributes = rest;
        let (oid, values) = expect(attribute, OID)?;
        if oid == FRIENDLY_NAME {
            let (values, _) = expect(values, SET)?;
            let (name, _) = expect(values, BMP_STRING)?;
            let units: Vec<u16> = name
                .chunks_exact(2)
                .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
                .collect();
            return String::from_utf16(&units).ok();
        }
    }
    None
}

/// The first element of `data` if its tag is `tag`: its content and what follows it.
/// Only DER's definite lengths are read.
fn expect(data: &[u8], tag: u8) -> Option<(&[u8], &[u8])> {
    let (&first, rest) = data.split_first()?;
    if first != tag {
        return None;
    }
    let (&length_byte, rest) = rest.split_first()?;
    let (length, rest) = if length_byte < 0x80 {
        (usize::from(length_byte), rest)
    } else {
        let count = usize::from(length_byte & 0x7F);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let length = rest[..count]
            .iter()
            .fold(0usize, |n, &b| (n << 8) | usize::from(b));
        (length, &rest[count..])
    };
    (rest.len() >= length).then(|| rest.split_at(length))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_in_long_form_are_read() {
        let mut data = vec![OCTET_STRING, 0x81, 200];
        data.extend(std::iter::repeat_n(7u8, 200));
        data.push(0xFF);
        let (content, rest) = expect(&data, OCTET_STRING).unwrap();
        assert_eq!(content.len(), 200);
        assert_eq!(rest, [0xFF]);
    }

    #[test]
    fn what_is_not_a_pkcs12_file_gives_no_order() {
        assert!(key_bag_aliases(b"not DER at all").is_empty());
        assert!(key_bag_aliases(&[SEQUENCE, 0x80, 0, 0]).is_empty());
    }
}
