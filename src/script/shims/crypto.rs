//! The cryptography that request-signing scripts use: `javax.crypto.Mac` with
//! `SecretKeySpec` (HmacSHA1/256/384/512), Commons Codec's `Hex` and `HmacUtils`, RSA
//! private keys (`KeyFactory` + `PKCS8EncodedKeySpec`, or a PEM text) with
//! `java.security.Signature` (SHA256withRSA...), and `Crypto`, the same operations
//! named for Rhai scripts. JSON Web Tokens, built on these, are in [`super::jwt`].
//!
//! The primitives are ring's (already the TLS provider of the HTTP client); digests
//! without a key stay in `MessageDigest` ([`super::codecs`]).

use std::sync::Arc;

use parking_lot::Mutex;
use rhai::{Blob, Dynamic, Engine};
use ring::{hmac, rand::SystemRandom, signature};

use super::codecs::bytes_of;
use super::func;
use super::{error, Class, ShimResult};
use crate::expr::hashes::hex;

/// ring's HMAC for a Java algorithm name (`HmacSHA256`, any case).
fn hmac_algorithm(name: &str) -> Option<hmac::Algorithm> {
    match name.to_ascii_uppercase().replace(['-', '_'], "").as_str() {
        "HMACSHA1" => Some(hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY),
        "HMACSHA256" => Some(hmac::HMAC_SHA256),
        "HMACSHA384" => Some(hmac::HMAC_SHA384),
        "HMACSHA512" => Some(hmac::HMAC_SHA512),
        _ => None,
    }
}

fn no_such_algorithm<T>(name: &str) -> ShimResult<T> {
    error(format!(
        "NoSuchAlgorithmException: Algorithm {name} not available"
    ))
}

/// The HMAC of `data` under `key` with a Java algorithm name.
pub(crate) fn hmac(algorithm: &str, key: &[u8], data: &[u8]) -> ShimResult<Blob> {
    let Some(alg) = hmac_algorithm(algorithm) else {
        return no_such_algorithm(algorithm);
    };
    Ok(hmac::sign(&hmac::Key::new(alg, key), data)
        .as_ref()
        .to_vec())
}

/// `new SecretKeySpec(bytes, "HmacSHA256")`, `Keys.hmacShaKeyFor(bytes)`: key bytes and
/// the algorithm they are meant for.
#[derive(Clone)]
pub(crate) struct SecretKey {
    pub(crate) bytes: Blob,
    pub(crate) algorithm: String,
}

/// An RSA private key (`KeyFactory.generatePrivate`, a PEM text).
#[derive(Clone)]
pub(crate) struct PrivateKey(pub(crate) Arc<signature::RsaKeyPair>);

impl PrivateKey {
    /// The PKCS #1 v1.5 signature of `data` with SHA-256/384/512 (`bits`).
    pub(crate) fn sign(&self, bits: u16, data: &[u8]) -> ShimResult<Blob> {
        let padding: &'static dyn signature::RsaEncoding = match bits {
            256 => &signature::RSA_PKCS1_SHA256,
            384 => &signature::RSA_PKCS1_SHA384,
            512 => &signature::RSA_PKCS1_SHA512,
            _ => return no_such_algorithm(&format!("SHA{bits}withRSA")),
        };
        let mut out = vec![0; self.0.public().modulus_len()];
        self.0
            .sign(padding, &SystemRandom::new(), data, &mut out)
            .or_else(|_| error("SignatureException: RSA signing failed"))?;
        Ok(out)
    }

    pub(crate) fn bits(&self) -> usize {
        self.0.public().modulus_len() * 8
    }
}

/// Reads an RSA private key from DER bytes: PKCS #8, else PKCS #1.
fn rsa_key(der: &[u8]) -> ShimResult<PrivateKey> {
    signature::RsaKeyPair::from_pkcs8(der)
        .or_else(|_| signature::RsaKeyPair::from_der(der))
        .map(|pair| PrivateKey(Arc::new(pair)))
        .or_else(|e| {
            error(format!(
                "InvalidKeySpecException: not an RSA private key ({e})"
            ))
        })
}

/// Reads an RSA private key from a PEM text (`-----BEGIN PRIVATE KEY-----` or
/// `-----BEGIN RSA PRIVATE KEY-----`).
pub(crate) fn private_key_from_pem(pem: &str) -> ShimResult<PrivateKey> {
    if pem.contains("ENCRYPTED") {
        return error("InvalidKeySpecException: encrypted private keys are not supported; decrypt the key first (openssl pkcs8 -nocrypt)");
    }
    let body: String = pem
        .lines()
        .filter(|line| !line.trim_start().starts_with("-----"))
        .collect();
    if body.trim().is_empty() {
        return error("InvalidKeySpecException: no PEM body found");
    }
    rsa_key(&crate::expr::functions::encoding::unbase64(&body))
}

/// `javax.crypto.Mac`: the algorithm, the key once `init` was called, and the bytes
/// fed so far. Copies share their state, as Java references do.
#[derive(Clone)]
pub(crate) struct Mac {
    algorithm: String,
    state: Arc<Mutex<MacState>>,
}

#[derive(Default)]
struct MacState {
    key: Option<Blob>,
    data: Vec<u8>,
}

impl Mac {
    fn finish(&self) -> ShimResult<Blob> {
        let mut state = self.state.lock();
        let Some(key) = state.key.clone() else {
            return error("IllegalStateException: MAC not initialized");
        };
        let data = std::mem::take(&mut state.data);
        hmac(&self.algorithm, &key, &data)
    }
}

/// The key bytes of whatever a script passes as a key.
fn key_bytes(key: &Dynamic) -> Blob {
    match key.read_lock::<SecretKey>() {
        Some(key) => key.bytes.clone(),
        None => bytes_of(key),
    }
}

/// `java.security.Signature` for RSA: the digest size, the key, the bytes fed so far.
#[derive(Clone)]
pub(crate) struct Signer {
    bits: u16,
    state: Arc<Mutex<(Option<PrivateKey>, Vec<u8>)>>,
}

/// `new PKCS8EncodedKeySpec(der)`.
#[derive(Clone)]
pub(crate) struct KeySpec(Blob);

/// `KeyFactory.getInstance("RSA")`.
#[derive(Clone, Copy)]
pub(crate) struct KeyFactory;

/// Java's hex: Commons Codec's `Hex.encodeHexString`, lower case unless asked.
fn hex_text(value: &Dynamic, lower: bool) -> String {
    let text = hex(&bytes_of(value));
    if lower {
        text
    } else {
        text.to_ascii_uppercase()
    }
}

fn decode_hex(text: &str) -> ShimResult<Blob> {
    super::codecs::parse_hex(text)
}

/// `HmacAlgorithms.HMAC_SHA_256` and friends, and `new HmacUtils(alg, key)`.
#[derive(Clone)]
pub(crate) struct HmacUtils {
    algorithm: String,
    key: Blob,
}

fn mac_classes() -> Vec<Class> {
    let mut mac = Class::new("Mac");
    func!(mac, "getInstance", |algorithm: &str| -> ShimResult<Mac> {
        if hmac_algorithm(algorithm).is_none() {
            return no_such_algorithm(algorithm);
        }
        Ok(Mac {
            algorithm: algorithm.to_string(),
            state: Arc::default(),
        })
    });
    let mut spec = Class::new("SecretKeySpec");
    func!(spec, "create", |key: Dynamic, algorithm: &str| SecretKey {
        bytes: bytes_of(&key),
        algorithm: algorithm.to_string(),
    });
    let mut hex_class = Class::new("Hex");
    func!(hex_class, "encodeHexString", |v: Dynamic| hex_text(
        &v, true
    ));
    func!(hex_class, "encodeHexString", |v: Dynamic, lower: bool| {
        hex_text(&v, lower)
    });
    func!(hex_class, "encodeHex", |v: Dynamic| hex_text(&v, true));
    func!(hex_class, "encodeHex", |v: Dynamic, lower: bool| hex_text(
        &v, lower
    ));
    func!(hex_class, "decodeHex", |t: &str| decode_hex(t));
    let mut algorithms = Class::new("HmacAlgorithms");
    for (name, java) in [
        ("HMAC_SHA_1", "HmacSHA1"),
        ("HMAC_SHA_256", "HmacSHA256"),
        ("HMAC_SHA_384", "HmacSHA384"),
        ("HMAC_SHA_512", "HmacSHA512"),
    ] {
        algorithms.constant(name, Dynamic::from(java.to_string()));
    }
    let mut utils = Class::new("HmacUtils");
    func!(utils, "create", |algorithm: &str,
                            key: Dynamic|
     -> ShimResult<HmacUtils> {
        if hmac_algorithm(algorithm).is_none() {
            return no_such_algorithm(algorithm);
        }
        Ok(HmacUtils {
            algorithm: algorithm.to_string(),
            key: key_bytes(&key),
        })
    });
    func!(utils, "hmacSha1", |k: Dynamic, d: Dynamic| hmac(
        "HmacSHA1",
        &key_bytes(&k),
        &bytes_of(&d)
    ));
    func!(utils, "hmacSha256", |k: Dynamic, d: Dynamic| hmac(
        "HmacSHA256",
        &key_bytes(&k),
        &bytes_of(&d)
    ));
    func!(utils, "hmacSha1Hex", |k: Dynamic, d: Dynamic| hmac(
        "HmacSHA1",
        &key_bytes(&k),
        &bytes_of(&d)
    )
    .map(|b| hex(&b)));
    func!(utils, "hmacSha256Hex", |k: Dynamic, d: Dynamic| hmac(
        "HmacSHA256",
        &key_bytes(&k),
        &bytes_of(&d)
    )
    .map(|b| hex(&b)));
    vec![mac, spec, hex_class, algorithms, utils]
}

fn key_classes() -> Vec<Class> {
    let mut spec = Class::new("PKCS8EncodedKeySpec");
    func!(spec, "create", |der: Blob| KeySpec(der));
    let mut factory = Class::new("KeyFactory");
    func!(
        factory,
        "getInstance",
        |algorithm: &str| -> ShimResult<KeyFactory> {
            if !algorithm.eq_ignore_ascii_case("RSA") {
                return no_such_algorithm(algorithm);
            }
            Ok(KeyFactory)
        }
    );
    let mut signature = Class::new("Signature");
    func!(
        signature,
        "getInstance",
        |algorithm: &str| -> ShimResult<Signer> {
            let bits = match algorithm.to_ascii_uppercase().as_str() {
                "SHA256WITHRSA" => 256,
                "SHA384WITHRSA" => 384,
                "SHA512WITHRSA" => 512,
                _ => return no_such_algorithm(algorithm),
            };
            Ok(Signer {
                bits,
                state: Arc::default(),
            })
        }
    );
    let mut rhai_api = Class::new("Crypto");
    func!(
        rhai_api,
        "hmac",
        |algorithm: &str, key: Dynamic, data: Dynamic| hmac(
            algorithm,
            &key_bytes(&key),
            &bytes_of(&data)
        )
    );
    func!(rhai_api, "private_key", |pem: &str| private_key_from_pem(
        pem
    ));
    func!(
        rhai_api,
        "sign_rsa",
        |key: PrivateKey, bits: rhai::INT, data: Dynamic| key.sign(bits as u16, &bytes_of(&data))
    );
    vec![spec, factory, signature, rhai_api]
}

pub(crate) fn classes() -> Vec<Class> {
    let mut all = mac_classes();
    all.extend(key_classes());
    all
}

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_type_with_name::<Mac>("Mac")
        .register_fn("init", |m: &mut Mac, key: Dynamic| {
            let mut state = m.state.lock();
            state.key = Some(key_bytes(&key));
            state.data.clear();
        })
        .register_fn("update", |m: &mut Mac, data: Dynamic| {
            m.state.lock().data.extend(bytes_of(&data))
        })
        .register_fn("doFinal", |m: &mut Mac| m.finish())
        .register_fn("doFinal", |m: &mut Mac, data: Dynamic| {
            m.state.lock().data.extend(bytes_of(&data));
            m.finish()
        })
        .register_fn("reset", |m: &mut Mac| m.state.lock().data.clear())
        .register_fn("getAlgorithm", |m: &mut Mac| m.algorithm.clone())
        .register_fn("getMacLength", |m: &mut Mac| {
            hmac_algorithm(&m.algorithm).map_or(0, |a| a.digest_algorithm().output_len() as i64)
        });
    engine
        .register_type_with_name::<SecretKey>("SecretKeySpec")
        .register_fn("getEncoded", |k: &mut SecretKey| k.bytes.clone())
        .register_fn("getAlgorithm", |k: &mut SecretKey| k.algorithm.clone());
    engine
        .register_type_with_name::<HmacUtils>("HmacUtils")
        .register_fn("hmac", |u: &mut HmacUtils, d: Dynamic| {
            hmac(&u.algorithm, &u.key, &bytes_of(&d))
        })
        .register_fn("hmacHex", |u: &mut HmacUtils, d: Dynamic| {
            hmac(&u.algorithm, &u.key, &bytes_of(&d)).map(|b| hex(&b))
        });
    engine
        .register_type_with_name::<KeySpec>("PKCS8EncodedKeySpec")
        .register_type_with_name::<KeyFactory>("KeyFactory")
        .register_fn("generatePrivate", |_: &mut KeyFactory, spec: KeySpec| {
            rsa_key(&spec.0)
        })
        .register_type_with_name::<PrivateKey>("PrivateKey")
        .register_fn("getAlgorithm", |_: &mut PrivateKey| "RSA".to_string())
        .register_type_with_name::<Signer>("Signature")
        .register_fn("initSign", |s: &mut Signer, key: PrivateKey| {
            *s.state.lock() = (Some(key), Vec::new());
        })
        .register_fn("update", |s: &mut Signer, data: Dynamic| {
            s.state.lock().1.extend(bytes_of(&data))
        })
        .register_fn("sign", |s: &mut Signer| -> ShimResult<Blob> {
            let mut state = s.state.lock();
            let data = std::mem::take(&mut state.1);
            match &state.0 {
                Some(key) => key.sign(s.bits, &data),
                None => error("SignatureException: object not initialized for signing"),
            }
        });
}

#[cfg(test)]
mod tests {
    use super::super::test_support::run;
    use super::*;

    fn unhex(text: &str) -> Vec<u8> {
        decode_hex(text).expect("hex")
    }

    /// RFC 4231 test cases 1, 2 and 6 (HMAC-SHA-256 and -512) and RFC 2202 case 2 (SHA-1).
    #[test]
    fn hmac_matches_the_rfc_vectors() {
        let case1_key = unhex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
        assert_eq!(
            hex(&hmac("HmacSHA256", &case1_key, b"Hi There").unwrap()),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hex(&hmac("HmacSHA512", &case1_key, b"Hi There").unwrap()),
            "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cde\
             daa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"
        );
        assert_eq!(
            hex(&hmac("HmacSHA256", b"Jefe", b"what do ya want for nothing?").unwrap()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        let case6_key = vec![0xaa; 131];
        assert_eq!(
            hex(&hmac(
                "HmacSHA256",
                &case6_key,
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )
            .unwrap()),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
        assert_eq!(
            hex(&hmac("HmacSHA1", b"Jefe", b"what do ya want for nothing?").unwrap()),
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"
        );
        assert!(hmac("HmacMD4", b"k", b"d").is_err());
    }

    #[test]
    fn java_mac_idiom_signs_and_resets() {
        let (value, _) = run(
            r#"let mac = Mac::getInstance("HmacSHA256");
               mac.init(SecretKeySpec::create("Jefe".getBytes("UTF-8"), "HmacSHA256"));
               let first = Hex::encodeHexString(mac.doFinal("what do ya want for nothing?".getBytes()));
               mac.update("what do ya ");
               mac.update("want for nothing?");
               let second = mac.doFinal().encodeHex();
               first + " " + second"#,
            &[],
        );
        let expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
        assert_eq!(value.to_string(), format!("{expected} {expected}"));
    }

    #[test]
    fn mac_without_init_fails_as_java_does() {
        let engine = super::super::test_support::engine();
        let err = engine
            .eval::<Dynamic>(r#"Mac::getInstance("HmacSHA1").doFinal("x")"#)
            .expect_err("not initialised");
        assert!(err.to_string().contains("MAC not initialized"), "{err}");
    }

    #[test]
    fn commons_codec_hmac_and_hex() {
        let (value, _) = run(
            r#"HmacUtils::hmacSha256Hex("Jefe", "what do ya want for nothing?") + " "
               + HmacUtils::create(HmacAlgorithms::HMAC_SHA_1, "Jefe").hmacHex("what do ya want for nothing?") + " "
               + Hex::encodeHexString(Hex::decodeHex("0aFF"), false)"#,
            &[],
        );
        assert_eq!(
            value.to_string(),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843 \
             effcdf6ae5eb2fa2d27416d5f184df9c259a7c79 0AFF"
        );
    }
}
