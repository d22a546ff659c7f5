//! Message digests for `__digest` and the MD5Hex Assertion: MD5, SHA-1, SHA-224,
//! SHA-256, SHA-384 and SHA-512, written out from their specifications (RFC 1321,
//! FIPS 180-4) to avoid a dependency for a few hundred lines.

/// The digest of `data` with the named algorithm (Java's `MessageDigest` names, any
/// case), or `None` for an algorithm jmxr does not have.
pub fn digest(algorithm: &str, data: &[u8]) -> Option<Vec<u8>> {
    match algorithm.trim().to_ascii_uppercase().as_str() {
        "MD5" => Some(md5(data)),
        "SHA-1" | "SHA1" | "SHA" => Some(sha1(data)),
        "SHA-224" => Some(sha256_family(data, &SHA224_INIT)[..28].to_vec()),
        "SHA-256" => Some(sha256_family(data, &SHA256_INIT)),
        "SHA-384" => Some(sha512_family(data, &SHA384_INIT)[..48].to_vec()),
        "SHA-512" => Some(sha512_family(data, &SHA512_INIT)),
        _ => None,
    }
}

/// Lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Message padding shared by all: `0x80`, zeros, then the bit length in `len_bytes`.
fn pad(data: &[u8], block: usize, len_bytes: usize, little_endian: bool) -> Vec<u8> {
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % block != block - len_bytes {
        msg.push(0);
    }
    let bits = (data.len() as u128) * 8;
    let encoded = if little_endian {
        bits.to_le_bytes()[..len_bytes].to_vec()
    } else {
        bits.to_be_bytes()[16 - len_bytes..].to_vec()
    };
    msg.extend(encoded);
    msg
}

fn md5(data: &[u8]) -> Vec<u8> {
    const S: [u32; 64] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5,
        9, 14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10,
        15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ];
    let k: Vec<u32> = (0..64)
        .map(|i| ((i as f64 + 1.0).sin().abs() * 4_294_967_296.0) as u32)
        .collect();
    let mut h: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    for chunk in pad(data, 64, 8, true).chunks(64) {
        let m: Vec<u32> = chunk
            .chunks(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        let [mut a, mut b, mut c, mut d] = h;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let rotated = a
                .wrapping_add(f)
                .wrapping_add(k[i])
                .wrapping_add(m[g])
                .rotate_left(S[i]);
            a = d;
            d = c;
            c = b;
            b = b.wrapping_add(rotated);
        }
        for (state, v) in h.iter_mut().zip([a, b, c, d]) {
            *state = state.wrapping_add(v);
        }
    }
    h.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn sha1(data: &[u8]) -> Vec<u8> {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    for chunk in pad(data, 64, 8, false).chunks(64) {
        let mut w = [0u32; 80];
        for (i, word) in chunk.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, word) in w.iter().enumerate() {
            let (f, k) = match i / 20 {
                0 => ((b & c) | (!b & d), 0x5A82_7999),
                1 => (b ^ c ^ d, 0x6ED9_EBA1),
                2 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6u32),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*word);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (state, v) in h.iter_mut().zip([a, b, c, d, e]) {
            *state = state.wrapping_add(v);
        }
    }
    h.iter().flat_map(|v| v.to_be_bytes()).collect()
}

const SHA224_INIT: [u32; 8] = [
    0xc105_9ed8,
    0x367c_d507,
    0x3070_dd17,
    0xf70e_5939,
    0xffc0_0b31,
    0x6858_1511,
    0x64f9_8fa7,
    0xbefa_4fa4,
];
const SHA256_INIT: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// The 64 round constants: the first 32 bits of the fractional parts of the cube roots
/// of the first 64 primes.
fn sha256_constants() -> Vec<u32> {
    // Derived from the SHA-512 ones: the same cube roots, first 32 bits.
    sha512_constants()
        .iter()
        .take(64)
        .map(|k| (k >> 32) as u32)
        .collect()
}

fn sha256_family(data: &[u8], init: &[u32; 8]) -> Vec<u8> {
    let k = sha256_constants();
    let mut h = *init;
    for chunk in pad(data, 64, 8, false).chunks(64) {
        let mut w = [0u32; 64];
        for (i, word) in chunk.chunks(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7]
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(k[i])
                .wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v.rotate_right(1);
            v[4] = v[4].wrapping_add(t1);
            v[0] = t1.wrapping_add(t2);
        }
        for (state, x) in h.iter_mut().zip(v) {
            *state = state.wrapping_add(x);
        }
    }
    h.iter().flat_map(|v| v.to_be_bytes()).collect()
}

const SHA384_INIT: [u64; 8] = [
    0xcbbb_9d5d_c105_9ed8,
    0x629a_292a_367c_d507,
    0x9159_015a_3070_dd17,
    0x152f_ecd8_f70e_5939,
    0x6733_2667_ffc0_0b31,
    0x8eb4_4a87_6858_1511,
    0xdb0c_2e0d_64f9_8fa7,
    0x47b5_481d_befa_4fa4,
];
const SHA512_INIT: [u64; 8] = [
    0x6a09_e667_f3bc_c908,
    0xbb67_ae85_84ca_a73b,
    0x3c6e_f372_fe94_f82b,
    0xa54f_f53a_5f1d_36f1,
    0x510e_527f_ade6_82d1,
    0x9b05_688c_2b3e_6c1f,
    0x1f83_d9ab_fb41_bd6b,
    0x5be0_cd19_137e_2179,
];

/// The 80 SHA-512 round constants: the first 64 bits of the fractional parts of the
/// cube roots of the first 80 primes, computed exactly with integer arithmetic.
fn sha512_constants() -> &'static [u64] {
    static CONSTANTS: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    CONSTANTS.get_or_init(compute_sha512_constants)
}

fn compute_sha512_constants() -> Vec<u64> {
    let mut primes = Vec::new();
    let mut n = 2u64;
    while primes.len() < 80 {
        if (2..n)
            .take_while(|d| d * d <= n)
            .all(|d| !n.is_multiple_of(d))
        {
            primes.push(n);
        }
        n += 1;
    }
    primes.iter().map(|&p| cube_root_fraction(p)).collect()
}

/// `floor(frac(cbrt(p)) * 2^64)`, by bisection on `x^3 <= p * 2^192` over 128-bit
/// candidates (the integer part of `cbrt(p)` is below 8 for the first 80 primes).
fn cube_root_fraction(p: u64) -> u64 {
    // Work with x = cbrt(p) * 2^64 as a u128 and compare x^3 to p * 2^192 split in limbs.
    let (mut lo, mut hi) = (0u128, 8u128 << 64);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if cube_at_most(mid, p) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo as u64
}

/// Whether `x^3 <= p * 2^192`, with `x < 2^67`, computed on 64-bit limbs.
fn cube_at_most(x: u128, p: u64) -> bool {
    let square = mul_wide(&[x as u64, (x >> 64) as u64], &[x as u64, (x >> 64) as u64]);
    let cube = mul_wide(&square, &[x as u64, (x >> 64) as u64]);
    // p * 2^192: limb 3 holds p.
    let mut target = vec![0u64; cube.len().max(4)];
    target[3] = p;
    let mut cube = cube;
    cube.resize(target.len(), 0);
    for i in (0..target.len()).rev() {
        if cube[i] != target[i] {
            return cube[i] < target[i];
        }
    }
    true
}

fn mul_wide(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate() {
        let mut carry = 0u128;
        for (j, &y) in b.iter().enumerate() {
            let t = out[i + j] as u128 + x as u128 * y as u128 + carry;
            out[i + j] = t as u64;
            carry = t >> 64;
        }
        out[i + b.len()] = carry as u64;
    }
    out
}

fn sha512_family(data: &[u8], init: &[u64; 8]) -> Vec<u8> {
    let k = sha512_constants();
    let mut h = *init;
    for chunk in pad(data, 128, 16, false).chunks(128) {
        let mut w = [0u64; 80];
        for (i, word) in chunk.chunks(8).enumerate() {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(word);
            w[i] = u64::from_be_bytes(bytes);
        }
        for i in 16..80 {
            let s0 = w[i - 15].rotate_right(1) ^ w[i - 15].rotate_right(8) ^ (w[i - 15] >> 7);
            let s1 = w[i - 2].rotate_right(19) ^ w[i - 2].rotate_right(61) ^ (w[i - 2] >> 6);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..80 {
            let s1 = v[4].rotate_right(14) ^ v[4].rotate_right(18) ^ v[4].rotate_right(41);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7]
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(k[i])
                .wrapping_add(w[i]);
            let s0 = v[0].rotate_right(28) ^ v[0].rotate_right(34) ^ v[0].rotate_right(39);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v.rotate_right(1);
            v[4] = v[4].wrapping_add(t1);
            v[0] = t1.wrapping_add(t2);
        }
        for (state, x) in h.iter_mut().zip(v) {
            *state = state.wrapping_add(x);
        }
    }
    h.iter().flat_map(|v| v.to_be_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hexdigest(algorithm: &str, text: &str) -> String {
        hex(&digest(algorithm, text.as_bytes()).unwrap())
    }

    #[test]
    fn known_digests() {
        assert_eq!(hexdigest("MD5", ""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hexdigest("md5", "abc"), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hexdigest("SHA-1", "abc"),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hexdigest("SHA-256", "abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hexdigest("SHA-224", "abc"),
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
        );
        assert_eq!(
            hexdigest("SHA-512", "abc"),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        );
        assert_eq!(
            hexdigest("SHA-384", "abc"),
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
        );
        let long = "a".repeat(200);
        assert_eq!(hexdigest("MD5", &long).len(), 32);
        assert!(digest("WHIRLPOOL", b"").is_none());
    }
}
