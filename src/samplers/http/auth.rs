//! HTTP Authorization Manager credentials, as JMeter's HttpClient 4 uses them: the
//! first entry whose URL is a prefix of the request URL applies. Basic credentials go
//! with the first request (`httpclient4.auth.preemptive=true`); Digest answers the
//! server's `401` challenge (RFC 2617 with `qop=auth`, or RFC 2069 without qop; MD5),
//! and the sample is the exchange that follows, as HttpClient retries inside one sample.

use md5::{Digest, Md5};

use super::url::Url;
use super::HttpSampler;
use crate::plan::SampleContext;

/// Credentials of the entry that applies to a request.
pub struct Credentials {
    pub mechanism: String,
    pub username: String,
    pub password: String,
}

impl HttpSampler {
    /// The credentials for `url`, if an entry applies.
    pub(super) fn credentials(&self, cx: &mut SampleContext<'_>, url: &Url) -> Option<Credentials> {
        if self.spec.auth.is_empty() {
            return None;
        }
        let label = cx.label.clone();
        let target = url.to_string();
        let mut ev = cx.user.eval(&label);
        let entry = self
            .spec
            .auth
            .iter()
            .find(|e| target.starts_with(e.url.eval(&mut ev).as_str()))?;
        Some(Credentials {
            mechanism: entry.mechanism.clone(),
            username: entry.username.eval(&mut ev),
            password: entry.password.eval(&mut ev),
        })
    }
}

/// The pre-emptive `Authorization` value, for Basic entries.
pub fn preemptive(credentials: &Credentials) -> Option<String> {
    if credentials.mechanism != "BASIC" && credentials.mechanism != "BASIC_DIGEST" {
        return None;
    }
    let pair = format!("{}:{}", credentials.username, credentials.password);
    Some(format!("Basic {}", super::base64(pair.as_bytes())))
}

/// The `Authorization` answer to a `WWW-Authenticate: Digest ...` challenge.
pub fn digest(
    credentials: &Credentials,
    challenge: &str,
    method: &str,
    uri: &str,
    cnonce: &str,
) -> Option<String> {
    if credentials.mechanism != "DIGEST" && credentials.mechanism != "BASIC_DIGEST" {
        return None;
    }
    let params = challenge
        .trim_start()
        .strip_prefix("Digest")
        .or_else(|| challenge.trim_start().strip_prefix("digest"))?;
    let param = |name: &str| parameter(params, name);
    let realm = param("realm").unwrap_or_default();
    let nonce = param("nonce")?;
    let qop_auth = param("qop").is_some_and(|q| q.split(',').any(|v| v.trim() == "auth"));
    let ha1 = md5_hex(format!(
        "{}:{realm}:{}",
        credentials.username, credentials.password
    ));
    let ha2 = md5_hex(format!("{method}:{uri}"));
    let nc = "00000001";
    let response = if qop_auth {
        md5_hex(format!("{ha1}:{nonce}:{nc}:{cnonce}:auth:{ha2}"))
    } else {
        md5_hex(format!("{ha1}:{nonce}:{ha2}"))
    };
    let mut value = format!(
        "Digest username=\"{}\", realm=\"{realm}\", nonce=\"{nonce}\", uri=\"{uri}\", response=\"{response}\"",
        credentials.username
    );
    if qop_auth {
        value.push_str(&format!(", qop=auth, nc={nc}, cnonce=\"{cnonce}\""));
    }
    if let Some(opaque) = param("opaque") {
        value.push_str(&format!(", opaque=\"{opaque}\""));
    }
    value.push_str(", algorithm=MD5");
    Some(value)
}

/// A `name=value` or `name="value"` parameter of a challenge.
fn parameter(params: &str, name: &str) -> Option<String> {
    let mut rest = params;
    while !rest.trim().is_empty() {
        let trimmed = rest.trim_start_matches([' ', ',']);
        let (key, after) = trimmed.split_once('=')?;
        let (value, tail) = if let Some(quoted) = after.strip_prefix('"') {
            let end = quoted.find('"')?;
            (&quoted[..end], &quoted[end + 1..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (after[..end].trim(), &after[end..])
        };
        if key.trim().eq_ignore_ascii_case(name) {
            return Some(value.to_string());
        }
        rest = tail;
    }
    None
}

/// Lower-case hex MD5 (also what "Use MD5" keeps of a response body).
pub fn md5_hex(data: impl AsRef<[u8]>) -> String {
    Md5::digest(data.as_ref())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_2617_example() {
        let credentials = Credentials {
            mechanism: "DIGEST".into(),
            username: "Mufasa".into(),
            password: "Circle Of Life".into(),
        };
        let challenge = r#"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#;
        let value = digest(
            &credentials,
            challenge,
            "GET",
            "/dir/index.html",
            "0a4f113b",
        )
        .expect("digest");
        assert!(
            value.contains(r#"response="6629fae49393a05397450978507c4ef1""#),
            "{value}"
        );
        assert!(value.contains(r#"opaque="5ccc069c403ebaf9f0171e9517f40e41""#));
    }
}
