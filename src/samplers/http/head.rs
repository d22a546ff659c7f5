//! The head of an HTTP/1.1 request as JMeter's HttpClient 4 implementation sends it:
//! `Connection` first, then the Header Manager's headers with JMeter's rules (no
//! `Content-Length`; `Host` with the URL's port; a `Connection` beside JMeter's own),
//! `Cookie`, then what HttpClient computes itself (`Authorization`, `Content-Length`,
//! `Content-Type`, `Host`, `User-Agent`) unless the plan set them. The Java
//! implementation adds `HttpURLConnection`'s default `Accept`.
//!
//! HttpClient also refuses, before sending anything, a request with a body whose head
//! already holds `Transfer-Encoding`; [`HttpSampler::refuses_transfer_encoding`] tells.

use std::borrow::Cow;

use super::client::TransportError;
use super::url::Url;
use super::{auth, Hop, HttpSampler, USER_AGENT};
use crate::plan::SampleContext;

/// The head of a request whose method and URL follow from constants, made once: the
/// head as sent and the headers as JMeter records them, for the samples that add
/// nothing of the user's (no cookie, no credentials, no cached validators, no body).
pub(super) struct KeptHead {
    head: String,
    recorded: String,
}

/// What a request's head takes from its user: the Cookie Manager's `Cookie` header
/// (empty for none) and the preemptive `Authorization` value.
#[derive(Default)]
struct UserPart {
    cookie: String,
    authorization: Option<String>,
}

impl HttpSampler {
    /// Whether HttpClient 4 refuses the request before sending it: its `RequestContent`
    /// step will not compute the framing of a request that carries an entity (POST, PUT,
    /// PATCH, DELETE, or any body) when a `Transfer-Encoding` header is there already.
    /// A body-less GET goes out with the header, as in JMeter.
    pub(super) fn refuses_transfer_encoding(
        &self,
        cx: &mut SampleContext<'_>,
        hop: &Hop<'_>,
    ) -> bool {
        self.sets_transfer_encoding
            && !self.http2
            && (hop.body.is_some() || matches!(hop.method, "POST" | "PUT" | "PATCH" | "DELETE"))
            && !self.java_implementation(cx)
    }

    /// The request head in HttpClient 4's order: `Connection`, the Header Manager's
    /// headers (but `Content-Length`; `Host` with JMeter's port rule), `Cookie`, then what
    /// the client adds (`Authorization`, `Content-Length`, `Content-Type`, `Host`,
    /// `User-Agent`) unless the plan set them. Returns the head (a kept one borrowed, not
    /// copied: it is only written to the socket), the request headers as JMeter records
    /// them (all but `Cookie`) and the cookies.
    pub(super) fn request_head<'h>(
        &self,
        cx: &mut SampleContext<'_>,
        hop: &Hop<'h>,
        answer: Option<&str>,
    ) -> (Cow<'h, str>, String, String) {
        let cache_holds = self
            .cache(cx)
            .is_some_and(|cache| cache.holds(hop.url_text));
        match hop.kept_head {
            Some(kept) if answer.is_none() && hop.body.is_none() && !cache_holds => {
                // The Header Manager's headers are constant: reading the user's cookies
                // and credentials first changes nothing they would compute.
                let user = self.user_part(cx, hop.url);
                if user.cookie.is_empty() && user.authorization.is_none() {
                    return (
                        Cow::Borrowed(&kept.head),
                        kept.recorded.clone(),
                        user.cookie,
                    );
                }
                self.build_head(cx, hop, None, Some(user), false)
            }
            _ => self.build_head(cx, hop, answer, None, cache_holds),
        }
    }

    /// The user's part of a request to `url`: the Cookie Manager's cookies and the
    /// Authorization Manager's preemptive credentials.
    fn user_part(&self, cx: &mut SampleContext<'_>, url: &Url) -> UserPart {
        UserPart {
            cookie: self.cookie_header(cx, url),
            authorization: self.credentials(cx, url).and_then(|c| auth::preemptive(&c)),
        }
    }

    /// The head of a kept request (see [`KeptHead`]), when the Header Manager's headers
    /// are constant text and none is a `Cookie` (sent only without the Cookie Manager's),
    /// and the implementation is fixed.
    pub(super) fn kept_head(
        &self,
        cx: &mut SampleContext<'_>,
        url: &Url,
        url_text: &str,
        method: &str,
    ) -> Option<KeptHead> {
        let constant = matches!(self.implementation, super::Implementation::Fixed { .. })
            && self.spec.headers.iter().all(|(name, value)| {
                value.as_literal().is_some() && !name.eq_ignore_ascii_case("Cookie")
            });
        if !constant {
            return None;
        }
        let hop = Hop {
            url,
            url_text,
            method,
            body: None,
            kept_head: None,
        };
        let (head, recorded, _) = self.build_head(cx, &hop, None, Some(UserPart::default()), false);
        Some(KeptHead {
            head: head.into_owned(),
            recorded,
        })
    }

    /// Builds the head. `answer`: a Digest challenge's answer, sent as `Authorization`.
    /// `read`: the user's part when the caller read it already; otherwise it is read
    /// here, in HttpClient's order. `cache_holds`: the Cache Manager has validators for
    /// the URL.
    fn build_head(
        &self,
        cx: &mut SampleContext<'_>,
        hop: &Hop<'_>,
        answer: Option<&str>,
        read: Option<UserPart>,
        cache_holds: bool,
    ) -> (Cow<'static, str>, String, String) {
        let label = cx.label.clone();
        let mut headers: Vec<(Cow<'_, str>, Cow<'_, str>)> = Vec::with_capacity(8);
        let connection = if self.spec.keep_alive {
            "keep-alive"
        } else {
            "close"
        };
        headers.push(("Connection".into(), connection.into()));
        // A Cookie header set in a Header Manager is sent when the Cookie Manager has
        // none to send, and shown as the sample's cookies either way.
        let mut manager_cookie = String::new();
        {
            let mut ev = cx.user.eval(&label);
            for (name, value) in &self.spec.headers {
                // HttpClient computes Content-Length from the body; JMeter never lets a
                // Header Manager set it (a stale recorded value would make the server
                // wait for bytes that never come).
                if name.eq_ignore_ascii_case("Content-Length") {
                    continue;
                }
                let value = match value.as_literal() {
                    Some(text) => Cow::Borrowed(text),
                    None => Cow::Owned(value.eval(&mut ev)),
                };
                if name.eq_ignore_ascii_case("Cookie") {
                    manager_cookie = value.into_owned();
                } else if name.eq_ignore_ascii_case("Host") {
                    let host = hop.url.host_header_from(&value);
                    headers.push((name.as_str().into(), host.into()));
                } else {
                    // A `Connection` header is added beside JMeter's own, as HttpClient's
                    // `addHeader` does: both go out.
                    headers.push((name.as_str().into(), value));
                }
            }
        }
        // The Cache Manager's validators follow the Header Manager's headers.
        if cache_holds {
            let sent: Vec<(String, String)> = headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect();
            if let Some(cache) = self.cache(cx) {
                for (name, value) in cache.conditional_headers(hop.url_text, &sent) {
                    headers.push((name.into(), value.into()));
                }
            }
        }
        let has = |headers: &[(Cow<'_, str>, Cow<'_, str>)], name: &str| {
            headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name))
        };
        let UserPart {
            mut cookie,
            authorization,
        } = match (read, answer) {
            (Some(read), _) => read,
            (None, Some(answer)) => UserPart {
                cookie: self.cookie_header(cx, hop.url),
                authorization: Some(answer.to_string()),
            },
            (None, None) => self.user_part(cx, hop.url),
        };
        if cookie.is_empty() {
            cookie = manager_cookie;
        }
        if let Some(auth) = authorization {
            if !has(&headers, "Authorization") {
                headers.push(("Authorization".into(), auth.into()));
            }
        }
        if let Some(body) = hop.body {
            headers.push(("Content-Length".into(), body.bytes.len().to_string().into()));
            if let Some(content_type) = &body.content_type {
                if !has(&headers, "Content-Type") {
                    headers.push(("Content-Type".into(), content_type.as_str().into()));
                }
            }
        }
        // Java's HttpURLConnection (the Java implementation) asks for any content type
        // unless told otherwise; servers that negotiate on Accept answer it as they
        // answer JMeter.
        if !has(&headers, "Accept") && self.java_implementation(cx) {
            headers.push(("Accept".into(), JAVA_DEFAULT_ACCEPT.into()));
        }
        let mut add_host = !has(&headers, "Host");
        let client_agent = !has(&headers, "User-Agent");
        if client_agent {
            headers.push(("User-Agent".into(), USER_AGENT.into()));
        }
        let mut head = String::with_capacity(256);
        head.push_str(hop.method);
        head.push(' ');
        head.push_str(&hop.url.path_and_query);
        head.push_str(" HTTP/1.1\r\n");
        let mut recorded = String::with_capacity(200);
        let last = headers.len() - 1;
        for (i, (name, value)) in headers.iter().enumerate() {
            if i == 1 && !cookie.is_empty() {
                push_header(&mut head, "Cookie", &cookie, "\r\n");
            }
            // HttpClient adds Host after the body headers and before its User-Agent.
            if add_host && (i == last && client_agent) {
                push_host_header(&mut head, &mut recorded, hop.url);
                add_host = false;
            }
            push_header(&mut head, name, value, "\r\n");
            push_header(&mut recorded, name, value, "\n");
        }
        if add_host {
            push_host_header(&mut head, &mut recorded, hop.url);
        }
        head.push_str("\r\n");
        (Cow::Owned(head), recorded, cookie)
    }
}

/// The `Accept` header Java's `HttpURLConnection` sends when the request has none (Java 9
/// and later).
const JAVA_DEFAULT_ACCEPT: &str = "text/html, image/gif, image/jpeg, */*; q=0.2";

/// HttpClient's `ClientProtocolException` wrapping "Transfer-encoding header already
/// present": it takes its cause without a message, so JMeter shows `null`.
pub(super) fn transfer_encoding_refused() -> TransportError {
    TransportError {
        class: "org.apache.http.client.ClientProtocolException",
        message: "null".to_string(),
    }
}

/// Appends the client's own `Host` header to the head and to the recorded headers.
fn push_host_header(head: &mut String, recorded: &mut String, url: &Url) {
    head.push_str("Host: ");
    let value_start = head.len();
    url.push_host_header(head);
    let value_end = head.len();
    head.push_str("\r\n");
    recorded.push_str("Host: ");
    recorded.push_str(&head[value_start..value_end]);
    recorded.push('\n');
}

/// Appends `name: value` and the line end.
fn push_header(out: &mut String, name: &str, value: &str, end: &str) {
    out.push_str(name);
    out.push_str(": ");
    out.push_str(value);
    out.push_str(end);
}
