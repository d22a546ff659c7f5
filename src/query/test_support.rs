//! Helpers for the query engines' unit tests.

/// Applies `edits` random one-byte edits to `bytes` (removing a byte, inserting one of
/// `alphabet`, or replacing one by it), stopping when nothing is left: the mutation step
/// of the tests that compare the JSON index with `serde_json` on broken documents.
pub fn mutate(bytes: &mut Vec<u8>, edits: usize, alphabet: &[u8], rng: &mut impl rand::Rng) {
    for _ in 0..edits {
        if bytes.is_empty() {
            break;
        }
        let at = rng.gen_range(0..bytes.len());
        match rng.gen_range(0..3) {
            0 => {
                bytes.remove(at);
            }
            1 => bytes.insert(at, alphabet[rng.gen_range(0..alphabet.len())]),
            _ => bytes[at] = alphabet[rng.gen_range(0..alphabet.len())],
        }
    }
}
