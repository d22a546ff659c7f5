//! JSON Web Tokens as jjwt (`io.jsonwebtoken`) builds them: `Jwts.builder()` with the
//! 0.9–0.11 setters (`setSubject`, `setIssuedAt`, `claim`, `setHeaderParam`,
//! `signWith(SignatureAlgorithm.HS256, secret)` or `signWith(key[, alg])`) and their
//! 0.12 names (`subject`, `issuedAt`, `header().add(..).and()`), `Keys.hmacShaKeyFor`,
//! `Decoders.BASE64`, and `compact()`. HS256/384/512 and RS256/384/512 are signed with
//! [`super::crypto`]; for Rhai scripts `Jwt::sign(alg, claims, key)` does the same.
//!
//! What jjwt decides is kept: claims and header keep their insertion order, `alg` goes
//! last in the header unless the script set it, dates are seconds since the epoch, a
//! `String` secret given with an algorithm (jjwt 0.9's `signWith(alg, String)`) is
//! Base64-decoded, a key given alone picks its algorithm from its size, and a token
//! nothing signs has `alg` `none` and an empty signature.

use std::sync::Arc;

use parking_lot::Mutex;
use rhai::{Blob, Dynamic, Engine, Map};
use serde_json::{Map as JsonMap, Value};

use super::codecs::{base64_codec, bytes_of};
use super::crypto::{hmac, PrivateKey, SecretKey};
use super::dates::JavaDate;
use super::func;
use super::json::to_json;
use super::{error, java_string, Class, ShimResult};
use crate::expr::functions::encoding::{base64, unbase64};

/// The key `signWith` was given.
#[derive(Clone)]
enum SigningKey {
    /// HMAC key bytes, with the JCA algorithm of the key object if it had one.
    Secret(Blob, Option<String>),
    Rsa(PrivateKey),
}

#[derive(Default)]
struct JwtState {
    header: JsonMap<String, Value>,
    claims: JsonMap<String, Value>,
    /// `setPayload`: a body that is not a claims object.
    payload: Option<String>,
    key: Option<SigningKey>,
    /// `HS256`... when the script named one.
    algorithm: Option<String>,
}

/// `Jwts.builder()`. Copies share their state, as the Java builder is one object.
#[derive(Clone, Default)]
pub(crate) struct JwtBuilder(Arc<Mutex<JwtState>>);

/// `builder.header()` in jjwt 0.12: `add(..)`, then `and()` back to the builder.
#[derive(Clone)]
pub(crate) struct JwtHeader(JwtBuilder);

fn base64_url(data: &[u8]) -> String {
    base64(data)
        .trim_end_matches('=')
        .replace('+', "-")
        .replace('/', "_")
}

/// A claim value as jjwt writes it: dates as seconds since the epoch.
fn claim_value(value: &Dynamic) -> Value {
    match value.read_lock::<JavaDate>() {
        Some(date) => Value::from(date.0.div_euclid(1000)),
        None => to_json(value),
    }
}

fn date_seconds(value: &Dynamic, setter: &str) -> ShimResult<Value> {
    if value.is_unit() {
        return Ok(Value::Null);
    }
    match value.read_lock::<JavaDate>() {
        Some(date) => Ok(Value::from(date.0.div_euclid(1000))),
        None => error(format!(
            "{setter} expects a java.util.Date, got {}",
            value.type_name()
        )),
    }
}

/// jjwt's algorithm for a key given without one: by the JCA name of a secret key, by
/// size for an RSA key.
fn algorithm_for(key: &SigningKey) -> ShimResult<String> {
    match key {
        SigningKey::Secret(bytes, name) => {
            let from_name = name
                .as_deref()
                .and_then(|n| match n.to_ascii_uppercase().as_str() {
                    "HMACSHA256" => Some("HS256"),
                    "HMACSHA384" => Some("HS384"),
                    "HMACSHA512" => Some("HS512"),
                    _ => None,
                });
            match from_name {
                Some(alg) => Ok(alg.to_string()),
                None if bytes.len() >= 64 => Ok("HS512".into()),
                None if bytes.len() >= 48 => Ok("HS384".into()),
                None if bytes.len() >= 32 => Ok("HS256".into()),
                None => weak_key(bytes.len()),
            }
        }
        SigningKey::Rsa(key) if key.bits() >= 4096 => Ok("RS512".into()),
        SigningKey::Rsa(key) if key.bits() >= 3072 => Ok("RS384".into()),
        SigningKey::Rsa(_) => Ok("RS256".into()),
    }
}

fn weak_key<T>(bytes: usize) -> ShimResult<T> {
    error(format!(
        "WeakKeyException: The specified key byte array is {} bits which is not secure \
         enough for any JWT HMAC-SHA algorithm (at least 256 bits are needed)",
        bytes * 8
    ))
}

/// The key object a script passes to `signWith`. A string given with an algorithm is
/// jjwt 0.9's Base64-encoded secret.
fn signing_key(key: &Dynamic, with_algorithm: bool) -> SigningKey {
    if let Some(rsa) = key.read_lock::<PrivateKey>() {
        return SigningKey::Rsa(rsa.clone());
    }
    if let Some(secret) = key.read_lock::<SecretKey>() {
        return SigningKey::Secret(secret.bytes.clone(), Some(secret.algorithm.clone()));
    }
    if with_algorithm && key.is_string() {
        return SigningKey::Secret(unbase64(&java_string(key)), None);
    }
    SigningKey::Secret(bytes_of(key), None)
}

fn sign(algorithm: &str, key: &SigningKey, input: &[u8]) -> ShimResult<Blob> {
    let bits = algorithm.get(2..).and_then(|b| b.parse::<u16>().ok());
    match (algorithm.get(..2), bits, key) {
        (Some("HS"), Some(bits), SigningKey::Secret(bytes, _)) => {
            hmac(&format!("HmacSHA{bits}"), bytes, input)
        }
        (Some("RS"), Some(bits), SigningKey::Rsa(rsa)) => rsa.sign(bits, input),
        _ => error(format!(
            "InvalidKeyException: the key given to signWith cannot sign {algorithm}"
        )),
    }
}

impl JwtBuilder {
    fn with(&self, f: impl FnOnce(&mut JwtState)) -> JwtBuilder {
        f(&mut self.0.lock());
        self.clone()
    }

    fn claim(&self, name: &str, value: Value) -> JwtBuilder {
        self.with(|s| {
            if value.is_null() {
                s.claims.remove(name);
            } else {
                s.claims.insert(name.to_string(), value);
            }
        })
    }

    fn sign_with(&self, key: &Dynamic, algorithm: Option<String>) -> JwtBuilder {
        let key = signing_key(key, algorithm.is_some());
        self.with(|s| {
            s.key = Some(key);
            s.algorithm = algorithm;
        })
    }

    fn compact(&self) -> ShimResult<String> {
        let state = self.0.lock();
        let algorithm = match (&state.algorithm, &state.key) {
            (Some(alg), _) => alg.to_ascii_uppercase(),
            (None, Some(key)) => algorithm_for(key)?,
            (None, None) => "none".to_string(),
        };
        let mut header = state.header.clone();
        header
            .entry("alg")
            .or_insert_with(|| Value::from(algorithm.clone()));
        let payload = match &state.payload {
            Some(text) => text.clone(),
            None => Value::Object(state.claims.clone()).to_string(),
        };
        let input = format!(
            "{}.{}",
            base64_url(Value::Object(header).to_string().as_bytes()),
            base64_url(payload.as_bytes())
        );
        let signature = match &state.key {
            Some(key) => base64_url(&sign(&algorithm, key, input.as_bytes())?),
            None => String::new(),
        };
        Ok(format!("{input}.{signature}"))
    }
}

/// `Jwt::sign(alg, claims, key)` for Rhai: a signed token of a map of claims (`iat`,
/// `exp`... as numbers or dates). `key` is the secret (bytes or text) for `HS*`, a PEM
/// text or a key from `Crypto::private_key` for `RS*`.
fn rhai_sign(algorithm: &str, claims: Map, key: Dynamic) -> ShimResult<String> {
    let is_rsa = algorithm.to_ascii_uppercase().starts_with("RS");
    let key = match key.read_lock::<PrivateKey>() {
        Some(rsa) => SigningKey::Rsa(rsa.clone()),
        None if is_rsa => SigningKey::Rsa(super::crypto::private_key_from_pem(&java_string(&key))?),
        None => signing_key(&key, false),
    };
    let builder = JwtBuilder::default();
    for (name, value) in &claims {
        builder.claim(name, claim_value(value));
    }
    builder.with(|s| {
        s.key = Some(key);
        s.algorithm = Some(algorithm.to_string());
    });
    builder.compact()
}

fn is_algorithm_name(value: &Dynamic) -> bool {
    value.is_string()
        && matches!(
            java_string(value).to_ascii_uppercase().as_str(),
            "HS256" | "HS384" | "HS512" | "RS256" | "RS384" | "RS512"
        )
}

pub(crate) fn classes() -> Vec<Class> {
    let mut jwts = Class::new("Jwts");
    func!(jwts, "builder", JwtBuilder::default);
    let mut algorithms = Class::new("SignatureAlgorithm");
    for name in ["HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "NONE"] {
        algorithms.constant(name, Dynamic::from(name.to_string()));
    }
    let mut keys = Class::new("Keys");
    func!(
        keys,
        "hmacShaKeyFor",
        |bytes: Blob| -> ShimResult<SecretKey> {
            let algorithm = match bytes.len() {
                n if n >= 64 => "HmacSHA512",
                n if n >= 48 => "HmacSHA384",
                n if n >= 32 => "HmacSHA256",
                n => return weak_key(n),
            };
            Ok(SecretKey {
                bytes,
                algorithm: algorithm.into(),
            })
        }
    );
    let mut decoders = Class::new("Decoders");
    decoders.constant("BASE64", Dynamic::from(base64_codec(false)));
    decoders.constant("BASE64URL", Dynamic::from(base64_codec(true)));
    let mut rhai_api = Class::new("Jwt");
    func!(rhai_api, "sign", rhai_sign);
    vec![jwts, algorithms, keys, decoders, rhai_api]
}

/// Registers a setter under its jjwt 0.9–0.11 name and its 0.12 name.
fn register_setters(engine: &mut Engine) {
    for (old, new, claim) in [
        ("setSubject", "subject", "sub"),
        ("setIssuer", "issuer", "iss"),
        ("setAudience", "audience", "aud"),
        ("setId", "id", "jti"),
    ] {
        for name in [old, new] {
            engine.register_fn(name, move |b: &mut JwtBuilder, v: Dynamic| {
                b.claim(
                    claim,
                    if v.is_unit() {
                        Value::Null
                    } else {
                        to_json(&v)
                    },
                )
            });
        }
    }
    for (old, new, claim) in [
        ("setIssuedAt", "issuedAt", "iat"),
        ("setExpiration", "expiration", "exp"),
        ("setNotBefore", "notBefore", "nbf"),
    ] {
        for name in [old, new] {
            engine.register_fn(name, move |b: &mut JwtBuilder, v: Dynamic| {
                date_seconds(&v, name).map(|value| b.claim(claim, value))
            });
        }
    }
}

pub(crate) fn register(engine: &mut Engine) {
    engine.register_type_with_name::<JwtBuilder>("JwtBuilder");
    register_setters(engine);
    engine
        .register_fn("claim", |b: &mut JwtBuilder, k: &str, v: Dynamic| {
            b.claim(k, claim_value(&v))
        })
        .register_fn("setClaims", |b: &mut JwtBuilder, claims: Map| {
            b.with(|s| s.claims.clear());
            for (k, v) in &claims {
                b.claim(k, claim_value(v));
            }
            b.clone()
        });
    for name in ["addClaims", "claims"] {
        engine.register_fn(name, |b: &mut JwtBuilder, claims: Map| {
            for (k, v) in &claims {
                b.claim(k, claim_value(v));
            }
            b.clone()
        });
    }
    for name in ["setPayload", "content"] {
        engine.register_fn(name, |b: &mut JwtBuilder, text: Dynamic| {
            let text = java_string(&text);
            b.with(|s| s.payload = Some(text))
        });
    }
    engine
        .register_fn(
            "setHeaderParam",
            |b: &mut JwtBuilder, k: &str, v: Dynamic| {
                let value = to_json(&v);
                b.with(|s| {
                    s.header.insert(k.to_string(), value);
                })
            },
        )
        .register_fn("setHeaderParams", |b: &mut JwtBuilder, params: Map| {
            b.with(|s| {
                for (k, v) in &params {
                    s.header.insert(k.to_string(), to_json(v));
                }
            })
        })
        .register_fn("header", |b: &mut JwtBuilder| JwtHeader(b.clone()))
        .register_fn("signWith", |b: &mut JwtBuilder, key: Dynamic| {
            b.sign_with(&key, None)
        })
        .register_fn("signWith", |b: &mut JwtBuilder, a: Dynamic, c: Dynamic| {
            // jjwt 0.9 `signWith(alg, key)`; 0.10+ `signWith(key, alg)`.
            if is_algorithm_name(&a) {
                b.sign_with(&c, Some(java_string(&a)))
            } else {
                b.sign_with(&a, Some(java_string(&c)))
            }
        })
        .register_fn("compact", |b: &mut JwtBuilder| b.compact());
    engine
        .register_type_with_name::<JwtHeader>("JwtHeaderBuilder")
        .register_fn("add", |h: &mut JwtHeader, k: &str, v: Dynamic| {
            let value = to_json(&v);
            h.0.with(|s| {
                s.header.insert(k.to_string(), value);
            });
            h.clone()
        })
        .register_fn("keyId", |h: &mut JwtHeader, v: &str| {
            let value = Value::from(v);
            h.0.with(|s| {
                s.header.insert("kid".into(), value);
            });
            h.clone()
        })
        .register_fn("type", |h: &mut JwtHeader, v: &str| {
            let value = Value::from(v);
            h.0.with(|s| {
                s.header.insert("typ".into(), value);
            });
            h.clone()
        })
        .register_fn("and", |h: &mut JwtHeader| h.0.clone());
}

#[cfg(test)]
mod tests {
    use super::super::test_support::run;
    use super::*;

    fn part(token: &str, index: usize) -> Value {
        let text = token.split('.').nth(index).expect("part");
        serde_json::from_slice(&unbase64(text)).expect("json")
    }

    /// RFC 7515 appendix A.1's key and input, signed as the RFC does (HS256 over the
    /// exact header and payload bytes the RFC gives).
    #[test]
    fn hs256_matches_rfc_7515() {
        let key = unbase64(
            "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow",
        );
        let input = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ";
        let signature = sign("HS256", &SigningKey::Secret(key, None), input.as_bytes()).unwrap();
        assert_eq!(
            base64_url(&signature),
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        );
    }

    #[test]
    fn builder_idiom_orders_claims_and_puts_alg_last() {
        let (token, _) = run(
            r#"Jwts::builder()
                .setHeaderParam("typ", "JWT")
                .setSubject("user-1")
                .claim("room", 42)
                .setIssuedAt(Date::create(1700000000123))
                .setExpiration(Date::create(1700003600000))
                .signWith(SignatureAlgorithm::HS256, "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTMyYg==")
                .compact()"#,
            &[],
        );
        let token = token.to_string();
        assert_eq!(
            token.split('.').next().unwrap(),
            base64_url(br#"{"typ":"JWT","alg":"HS256"}"#)
        );
        assert_eq!(
            part(&token, 1).to_string(),
            r#"{"sub":"user-1","room":42,"iat":1700000000,"exp":1700003600}"#
        );
        let input = token.rsplit_once('.').unwrap().0;
        let expected = hmac(
            "HmacSHA256",
            b"secret-secret-secret-secret-32b",
            input.as_bytes(),
        )
        .unwrap();
        assert_eq!(token.rsplit('.').next().unwrap(), base64_url(&expected));
    }

    #[test]
    fn a_key_alone_picks_its_algorithm_and_short_keys_are_weak() {
        let (token, _) = run(
            r#"let key = Keys::hmacShaKeyFor("0123456789abcdef0123456789abcdef0123456789abcdef".getBytes());
               Jwts::builder().subject("x").signWith(key).compact()"#,
            &[],
        );
        assert_eq!(part(&token.to_string(), 0)["alg"], "HS384");
        let engine = super::super::test_support::engine();
        let err = engine
            .eval::<Dynamic>(r#"Keys::hmacShaKeyFor("short".getBytes())"#)
            .expect_err("weak");
        assert!(err.to_string().contains("WeakKeyException"), "{err}");
    }

    #[test]
    fn an_unsigned_token_has_alg_none_and_no_signature() {
        let (token, _) = run(r#"Jwts::builder().claim("a", "b").compact()"#, &[]);
        let token = token.to_string();
        assert!(token.ends_with('.'), "{token}");
        assert_eq!(part(&token, 0)["alg"], "none");
    }

    /// RS256 with a key made by OpenSSL and the signature checked by OpenSSL: neither
    /// the key reading nor the signing is checked against itself.
    #[test]
    fn rs256_from_a_pem_file_verifies_with_openssl() {
        let dir = tempfile::tempdir().expect("temp dir");
        let key = dir.path().join("key.pem");
        let public = dir.path().join("public.pem");
        let openssl = |args: &[&str]| {
            let status = std::process::Command::new("openssl")
                .args(args)
                .stderr(std::process::Stdio::null())
                .status()
                .expect("openssl runs");
            assert!(status.success(), "openssl {args:?}");
        };
        let key_text = key.to_str().unwrap();
        openssl(&[
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
            key_text,
        ]);
        openssl(&[
            "pkey",
            "-in",
            key_text,
            "-pubout",
            "-out",
            public.to_str().unwrap(),
        ]);
        let pem = std::fs::read_to_string(&key).unwrap();
        let script = format!(
            r#"let der = Base64::getDecoder().decode({pem:?}.replace("-----BEGIN PRIVATE KEY-----", "").replace("-----END PRIVATE KEY-----", "").replaceAll("\\s", ""));
               let pk = KeyFactory::getInstance("RSA").generatePrivate(PKCS8EncodedKeySpec::create(der));
               Jwts::builder().setSubject("u1").claim("n", 1).signWith(pk, SignatureAlgorithm::RS256).compact()"#
        );
        let verify = |token: &str| {
            let (input, signature) = token.rsplit_once('.').unwrap();
            std::fs::write(dir.path().join("input"), input).unwrap();
            std::fs::write(dir.path().join("sig"), unbase64(signature)).unwrap();
            let verified = std::process::Command::new("openssl")
                .args([
                    "dgst",
                    "-sha256",
                    "-verify",
                    public.to_str().unwrap(),
                    "-signature",
                ])
                .arg(dir.path().join("sig"))
                .arg(dir.path().join("input"))
                .output()
                .expect("openssl runs");
            assert!(
                String::from_utf8_lossy(&verified.stdout).contains("Verified OK"),
                "{verified:?}"
            );
        };
        let (token, _) = run(&script, &[]);
        let token = token.to_string();
        assert_eq!(part(&token, 0)["alg"], "RS256");
        verify(&token);
        let (token, _) = run(
            &format!(r#"Jwt::sign("RS256", #{{sub: "u1", n: 1}}, {pem:?})"#),
            &[],
        );
        let token = token.to_string();
        assert_eq!(part(&token, 1).to_string(), r#"{"n":1,"sub":"u1"}"#);
        verify(&token);
    }
}
