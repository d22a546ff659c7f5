//! Text ↔ bytes as the socket samplers' Java code converts them: hex strings (JMeter's
//! `BinaryTCPClientImpl`, the UDP plugin's hex decoder) and Windows-1252 (the UDP
//! plugin's default encoding).

/// Hex digits to bytes: an even number of digits, either case, nothing else (JMeter's
/// `hexStringToByteArray`, with its messages).
pub fn hex_to_bytes(hex: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<char> = hex.chars().collect();
    if !digits.len().is_multiple_of(2) {
        return Err("Hex-encoded binary string contains an uneven no. of digits".into());
    }
    digits
        .chunks(2)
        .map(|pair| match (pair[0].to_digit(16), pair[1].to_digit(16)) {
            (Some(high), Some(low)) => Ok((high << 4 | low) as u8),
            _ => Err(format!(
                "Hex-encoded binary string contains an invalid hex digit in '{}{}'",
                pair[0], pair[1]
            )),
        })
        .collect()
}

/// Bytes as lower-case hex, two digits each (JOrphan's `baToHexString`).
pub fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// The characters Windows-1252 puts at 0x80–0x9F (0 where it has none).
const CP1252_HIGH: [char; 32] = [
    '€', '\0', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\0', 'Ž', '\0', '\0', '‘',
    '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\0', 'ž', 'Ÿ',
];

/// Text as Windows-1252 bytes; a character it cannot encode becomes `?`, as Java's
/// `String.getBytes` does.
pub fn windows_1252(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match u32::from(c) {
            code @ (0..=0x7F | 0xA0..=0xFF) => code as u8,
            _ => CP1252_HIGH
                .iter()
                .position(|special| *special == c && c != '\0')
                .map_or(b'?', |i| 0x80 + i as u8),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_reports_bad_input_as_jmeter_does() {
        assert_eq!(hex_to_bytes("00ffA1"), Ok(vec![0, 0xff, 0xa1]));
        assert_eq!(to_hex(&[0, 0xff, 0xa1]), "00ffa1");
        assert!(hex_to_bytes("abc").unwrap_err().contains("uneven"));
        assert!(hex_to_bytes("zz").unwrap_err().contains("'zz'"));
    }

    #[test]
    fn windows_1252_maps_latin_and_specials_and_replaces_the_rest() {
        assert_eq!(windows_1252("aé€™"), vec![b'a', 0xE9, 0x80, 0x99]);
        assert_eq!(windows_1252("𝄞\u{81}"), b"??");
    }
}
