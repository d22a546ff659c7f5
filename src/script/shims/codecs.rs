//! Encodings and digests: `Base64` encoders and decoders, `MessageDigest`,
//! Commons Codec's `DigestUtils`, `URLEncoder`/`URLDecoder`, `StandardCharsets`, and
//! Groovy's `encodeBase64`/`encodeHex` on byte arrays (Rhai blobs).

use std::sync::Arc;

use parking_lot::Mutex;
use rhai::{Blob, Dynamic, Engine, ImmutableString};

use super::func;
use super::{error, java_string, Class, ShimResult};
use crate::expr::functions::encoding::{base64, unbase64};
use crate::expr::hashes::{digest, hex};

/// Text or bytes, as the Java APIs take either.
pub(crate) fn bytes_of(value: &Dynamic) -> Vec<u8> {
    if let Some(bytes) = value.read_lock::<Blob>() {
        return bytes.clone();
    }
    java_string(value).into_bytes()
}

/// `Base64.getEncoder()` and friends: which alphabet, and whether to pad.
#[derive(Clone, Copy)]
pub(crate) struct Base64Codec {
    url: bool,
    pad: bool,
}

impl Base64Codec {
    fn encode(&self, data: &[u8]) -> String {
        let mut text = base64(data);
        if self.url {
            text = text.replace('+', "-").replace('/', "_");
        }
        if !self.pad {
            text = text.trim_end_matches('=').to_string();
        }
        text
    }
}

/// A padded Base64 codec, URL-safe or not (jjwt's `Decoders.BASE64`/`BASE64URL`).
pub(crate) fn base64_codec(url: bool) -> Base64Codec {
    Base64Codec { url, pad: true }
}

/// `MessageDigest.getInstance(name)`: the algorithm and what was fed to it so far.
#[derive(Clone)]
pub(crate) struct Digest {
    algorithm: String,
    data: Arc<Mutex<Vec<u8>>>,
}

impl Digest {
    fn finish(&self) -> ShimResult<Blob> {
        let data = std::mem::take(&mut *self.data.lock());
        digest(&self.algorithm, &data).map_or_else(
            || error(format!("NoSuchAlgorithmException: {}", self.algorithm)),
            Ok,
        )
    }
}

fn hex_of(algorithm: &str, value: &Dynamic) -> String {
    hex(&digest(algorithm, &bytes_of(value)).unwrap_or_default())
}

fn url_encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn url_decode(text: &str) -> String {
    form_urlencoded::parse(format!("x={}", text.replace('&', "%26").replace('=', "%3D")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

pub(crate) fn classes() -> Vec<Class> {
    let mut b64 = Class::new("Base64");
    func!(b64, "getEncoder", || Base64Codec {
        url: false,
        pad: true
    });
    func!(b64, "getDecoder", || Base64Codec {
        url: false,
        pad: true
    });
    func!(b64, "getMimeEncoder", || Base64Codec {
        url: false,
        pad: true
    });
    func!(b64, "getMimeDecoder", || Base64Codec {
        url: false,
        pad: true
    });
    func!(b64, "getUrlEncoder", || Base64Codec {
        url: true,
        pad: true
    });
    func!(b64, "getUrlDecoder", || Base64Codec {
        url: true,
        pad: true
    });
    func!(b64, "encodeBase64String", |v: Dynamic| base64(&bytes_of(
        &v
    )));
    func!(b64, "encodeBase64", |v: Dynamic| -> Blob {
        base64(&bytes_of(&v)).into_bytes()
    });
    func!(b64, "decodeBase64", |v: Dynamic| -> Blob {
        unbase64(&String::from_utf8_lossy(&bytes_of(&v)))
    });
    let mut message_digest = Class::new("MessageDigest");
    func!(
        message_digest,
        "getInstance",
        |algorithm: &str| -> ShimResult<Digest> {
            if digest(algorithm, b"").is_none() {
                return error(format!("NoSuchAlgorithmException: {algorithm}"));
            }
            Ok(Digest {
                algorithm: algorithm.to_string(),
                data: Arc::default(),
            })
        }
    );
    let mut digest_utils = Class::new("DigestUtils");
    func!(digest_utils, "md5Hex", |v: Dynamic| hex_of("MD5", &v));
    func!(digest_utils, "sha1Hex", |v: Dynamic| hex_of("SHA-1", &v));
    func!(digest_utils, "sha256Hex", |v: Dynamic| hex_of(
        "SHA-256", &v
    ));
    func!(digest_utils, "sha512Hex", |v: Dynamic| hex_of(
        "SHA-512", &v
    ));
    let mut encoder = Class::new("URLEncoder");
    func!(encoder, "encode", |t: &str| url_encode(t));
    func!(encoder, "encode", |t: &str, _charset: Dynamic| url_encode(
        t
    ));
    let mut decoder = Class::new("URLDecoder");
    func!(decoder, "decode", |t: &str| url_decode(t));
    func!(decoder, "decode", |t: &str, _charset: Dynamic| url_decode(
        t
    ));
    let mut charsets = Class::new("StandardCharsets");
    for name in ["UTF_8", "US_ASCII", "ISO_8859_1", "UTF_16"] {
        charsets.constant(name, Dynamic::from(name.replace('_', "-")));
    }
    // protobuf's `ByteString` is bytes (a blob), as generated messages take it.
    let mut byte_string = Class::new("ByteString");
    func!(byte_string, "copyFromUtf8", |t: &str| -> Blob {
        t.as_bytes().to_vec()
    });
    func!(byte_string, "copyFrom", |v: Dynamic| bytes_of(&v));
    func!(byte_string, "copyFrom", |v: Dynamic, _charset: Dynamic| {
        bytes_of(&v)
    });
    byte_string.constant("EMPTY", Dynamic::from_blob(Blob::new()));
    let mut hex_format = Class::new("HexFormat");
    func!(hex_format, "of", || HexFormat);
    let mut datatype = Class::new("DatatypeConverter");
    func!(datatype, "parseHexBinary", |t: &str| parse_hex(t));
    func!(datatype, "printHexBinary", |b: Blob| hex(&b).to_uppercase());
    func!(datatype, "printBase64Binary", |b: Blob| base64(&b));
    func!(datatype, "parseBase64Binary", |t: &str| -> Blob {
        unbase64(t)
    });
    vec![
        b64,
        message_digest,
        digest_utils,
        encoder,
        decoder,
        charsets,
        hex_format,
        datatype,
        byte_string,
    ]
}

/// Java 17's `HexFormat.of()`.
#[derive(Clone, Copy)]
pub(crate) struct HexFormat;

pub(crate) fn parse_hex(text: &str) -> ShimResult<Blob> {
    let digits: Vec<u8> = text.bytes().collect();
    if !digits.len().is_multiple_of(2) {
        return error(format!(
            "IllegalArgumentException: odd number of hex digits in \"{text}\""
        ));
    }
    digits
        .chunks(2)
        .map(|pair| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|p| u8::from_str_radix(p, 16).ok())
                .map_or_else(
                    || error(format!("IllegalArgumentException: not hex: \"{text}\"")),
                    Ok,
                )
        })
        .collect()
}

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_type_with_name::<HexFormat>("HexFormat")
        .register_fn("parseHex", |_: &mut HexFormat, t: &str| parse_hex(t))
        .register_fn("formatHex", |_: &mut HexFormat, b: Blob| hex(&b));
    engine
        .register_type_with_name::<Base64Codec>("Base64")
        .register_fn("encodeToString", |c: &mut Base64Codec, v: Dynamic| {
            c.encode(&bytes_of(&v))
        })
        .register_fn("encode", |c: &mut Base64Codec, v: Dynamic| -> Blob {
            c.encode(&bytes_of(&v)).into_bytes()
        })
        .register_fn("decode", |_: &mut Base64Codec, v: Dynamic| -> Blob {
            unbase64(&String::from_utf8_lossy(&bytes_of(&v)))
        })
        .register_fn("withoutPadding", |c: &mut Base64Codec| Base64Codec {
            url: c.url,
            pad: false,
        })
        .register_type_with_name::<Digest>("MessageDigest")
        .register_fn("update", |d: &mut Digest, v: Dynamic| {
            d.data.lock().extend(bytes_of(&v));
        })
        .register_fn("digest", |d: &mut Digest| d.finish())
        .register_fn("digest", |d: &mut Digest, v: Dynamic| {
            d.data.lock().extend(bytes_of(&v));
            d.finish()
        })
        .register_fn("reset", |d: &mut Digest| d.data.lock().clear())
        .register_fn("encodeBase64", |b: &mut Blob| base64(b))
        .register_fn("encodeHex", |b: &mut Blob| hex(b))
        .register_fn("encodeHexString", |b: &mut Blob| hex(b))
        .register_fn("toString", |b: &mut Blob| {
            String::from_utf8_lossy(b).into_owned()
        })
        .register_fn("size", |b: &mut Blob| b.len() as rhai::INT)
        .register_fn("toStringUtf8", |b: &mut Blob| {
            String::from_utf8_lossy(b).into_owned()
        })
        .register_fn("toByteArray", |b: &mut Blob| b.clone())
        .register_get("length", |b: &mut Blob| b.len() as rhai::INT)
        .register_fn("encodeURL", |s: ImmutableString| url_encode(&s));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_codec_round_trip() {
        assert_eq!(url_encode("a b&c"), "a+b%26c");
        assert_eq!(url_decode("a+b%26c"), "a b&c");
    }
}
