//! The structural index against a byte-by-byte reading of the same rules, and the AVX2
//! path against the portable one, over generated and mutated texts.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;
use crate::query::test_support::mutate;

/// The index computed one byte at a time, the obvious way.
fn naive(text: &[u8]) -> Option<(Vec<u32>, Vec<u32>)> {
    let mut structurals = Vec::new();
    let mut escapes = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    let mut previous_scalar = false;
    for (i, &byte) in text.iter().enumerate() {
        let i = i as u32;
        let was_escaped = escaped;
        escaped = byte == b'\\' && !was_escaped;
        if escaped {
            escapes.push(i);
        }
        if in_string {
            if byte == b'"' && !was_escaped {
                in_string = false;
            } else if byte < 0x20 {
                return None;
            }
            previous_scalar = false;
            continue;
        }
        let scalar = match byte {
            b'"' if was_escaped => false,
            b'"' => {
                in_string = true;
                structurals.push(i);
                false
            }
            b'{' | b'}' | b'[' | b']' | b':' | b',' => {
                structurals.push(i);
                false
            }
            b' ' | b'\t' | b'\n' | b'\r' => false,
            _ => true,
        };
        if scalar && !previous_scalar {
            structurals.push(i);
        }
        previous_scalar = scalar;
    }
    if in_string {
        return None;
    }
    structurals.push(text.len() as u32);
    escapes.push(u32::MAX);
    Some((structurals, escapes))
}

fn positions(index: Option<StructuralIndex>) -> Option<(Vec<u32>, Vec<u32>)> {
    index.map(|i| (i.structurals, i.escapes))
}

fn check(text: &[u8]) {
    let portable = positions(index_portable(text));
    assert_eq!(
        portable,
        naive(text),
        "portable index of {:?}",
        String::from_utf8_lossy(text)
    );
    #[cfg(target_arch = "x86_64")]
    if avx2::available() {
        assert_eq!(
            positions(avx2::index(text)),
            portable,
            "AVX2 index of {text:?}"
        );
    }
}

#[test]
fn positions_of_a_small_document() {
    let text = br#"{"a" : [1, -2.5e3, "x\"y", true], "b\\":null}"#;
    let (structurals, escapes) = positions(index(text)).expect("indexed");
    let expected = [
        0, 1, 5, 7, 8, 9, 11, 17, 19, 25, 27, 31, 32, 34, 39, 40, 44, 45,
    ];
    assert_eq!(structurals, expected);
    assert_eq!(escapes, [21, 36, u32::MAX]);
}

#[test]
fn open_strings_and_control_characters_in_strings_are_refused() {
    assert!(index(br#"["abc"#).is_none());
    assert!(index(br#"["abc\"]"#).is_none());
    assert!(index(b"[\"a\x01b\"]").is_none());
    assert!(index(b"[\"a\tb\"]").is_none());
    assert!(index(b"[1,\t2]").is_some());
    assert!(index(b"[1,\x01]").is_some(), "left to stage 2");
}

#[test]
fn every_block_classifies_the_same_on_both_paths() {
    let mut rng = SmallRng::seed_from_u64(11);
    for _ in 0..20_000 {
        let mut block = [0u8; BLOCK];
        for byte in &mut block {
            *byte = rng.gen();
        }
        let expected = classify_portable(&block);
        for (i, &byte) in block.iter().enumerate() {
            let bit = |mask: u64| mask >> i & 1 == 1;
            assert_eq!(bit(expected.quote), byte == b'"');
            assert_eq!(bit(expected.backslash), byte == b'\\');
            assert_eq!(bit(expected.operator), b"{}[]:,".contains(&byte));
            assert_eq!(bit(expected.whitespace), b" \t\n\r".contains(&byte));
            assert_eq!(bit(expected.control), byte < 0x20);
        }
        #[cfg(target_arch = "x86_64")]
        if avx2::available() {
            // SAFETY: AVX2 is present.
            let simd = unsafe { avx2::classify(&block) };
            assert_eq!(simd, expected, "{block:?}");
        }
    }
}

#[test]
fn generated_texts_are_indexed_alike_on_both_paths() {
    let mut rng = SmallRng::seed_from_u64(5);
    let alphabet = b"{}[]:,\"\\ \t\n\rabtnu0129-.eE\x01\x1f\x7f";
    for _ in 0..3000 {
        let len = rng.gen_range(0..300);
        let text: Vec<u8> = (0..len)
            .map(|_| match rng.gen_range(0..10) {
                0..=6 => alphabet[rng.gen_range(0..alphabet.len())],
                7 => b'\\',
                8 => b'"',
                _ => rng.gen(),
            })
            .collect();
        check(&text);
    }
}

#[test]
fn mutated_documents_are_indexed_alike_on_both_paths() {
    let mut rng = SmallRng::seed_from_u64(9);
    let mut document = String::from(r#"{"token":"abc123","items":["#);
    for i in 0..40 {
        document.push_str(&format!(
            r#"{{"id":{i},"name":"it\"em-{i}\\","href":"/items/{i}?t=\u00e9","price":{}.5, "ok":true}},"#,
            i * 3
        ));
    }
    document.push_str("null]}");
    let alphabet = b"{}[]\":,\\ \n0a";
    check(document.as_bytes());
    for _ in 0..2000 {
        let mut bytes = document.as_bytes().to_vec();
        let edits = rng.gen_range(1..6);
        mutate(&mut bytes, edits, alphabet, &mut rng);
        let cut = rng.gen_range(0..=bytes.len());
        check(&bytes[..cut]);
        check(&bytes);
    }
}
