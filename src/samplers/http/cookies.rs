//! A virtual user's cookie jar, as an HTTP Cookie Manager keeps it per thread with the
//! `standard` policy (RFC 6265 matching, as HttpClient 4's standard spec):
//!
//! * `Set-Cookie` is stored unless its `Domain` does not domain-match the request host
//!   (a cross-domain cookie is rejected); an empty value or an expiry in the past
//!   deletes the cookie; without `Domain` the cookie is host-only; without `Path` its
//!   path is the request path's directory.
//! * A request carries the cookies whose domain and path match (and `Secure` ones only
//!   over https), most specific path first, in one `Cookie: a=1; b=2` header.

use chrono::{DateTime, NaiveDateTime, Utc};

use super::url::Url;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Cookie {
    name: String,
    value: String,
    domain: String,
    host_only: bool,
    path: String,
    secure: bool,
    /// Expiry, epoch seconds; `None` for a session cookie.
    expires: Option<i64>,
}

/// The cookies one user holds for one Cookie Manager.
#[derive(Debug, Default, Clone)]
pub struct Jar {
    cookies: Vec<Cookie>,
    /// The thread-group iteration the jar was last used in (for clearEachIteration).
    pub iteration: Option<u64>,
    /// Whether the manager's own cookies are in the jar (they come back after a clear).
    pub seeded: bool,
}

impl Jar {
    pub fn clear(&mut self) {
        self.cookies.clear();
        self.seeded = false;
    }

    /// Adds a user-defined cookie of the manager (kept across clears by re-adding).
    pub fn add_static(&mut self, name: &str, value: &str, domain: &str, path: &str, secure: bool) {
        let path = if path.is_empty() { "/" } else { path };
        self.put(Cookie {
            name: name.to_string(),
            value: value.to_string(),
            domain: domain.trim_start_matches('.').to_ascii_lowercase(),
            host_only: false,
            path: path.to_string(),
            secure,
            expires: None,
        });
    }

    fn put(&mut self, cookie: Cookie) {
        self.cookies.retain(|c| {
            !(c.name == cookie.name && c.domain == cookie.domain && c.path == cookie.path)
        });
        self.cookies.push(cookie);
    }

    /// Adds every cookie of `other` (a copy of this jar used by a parallel download),
    /// replacing those of the same name, domain and path, as JMeter's `CookieManager.add`.
    pub fn absorb(&mut self, other: &Jar) {
        for cookie in &other.cookies {
            self.put(cookie.clone());
        }
    }

    /// Stores the cookies of a response received from `url`.
    pub fn store(&mut self, url: &Url, set_cookie_values: &[&str]) {
        let now = Utc::now().timestamp();
        for header in set_cookie_values {
            if let Some(cookie) = parse_set_cookie(header, url, now) {
                let expired = cookie.expires.is_some_and(|t| t <= now);
                if cookie.value.is_empty() || expired {
                    self.cookies.retain(|c| {
                        !(c.name == cookie.name
                            && c.domain == cookie.domain
                            && c.path == cookie.path)
                    });
                } else {
                    self.put(cookie);
                }
            }
        }
    }

    /// The `Cookie` header value for a request to `url`, or empty.
    pub fn header_for(&mut self, url: &Url) -> String {
        let now = Utc::now().timestamp();
        self.cookies.retain(|c| c.expires.is_none_or(|t| t > now));
        let host = url.host.to_ascii_lowercase();
        let path = url.path();
        let mut matching: Vec<&Cookie> = self
            .cookies
            .iter()
            .filter(|c| {
                let domain_ok = if c.host_only {
                    host == c.domain
                } else {
                    domain_matches(&host, &c.domain)
                };
                domain_ok && path_matches(path, &c.path) && (!c.secure || url.scheme == "https")
            })
            .collect();
        matching.sort_by_key(|c| std::cmp::Reverse(c.path.len()));
        let mut out = String::new();
        for cookie in matching {
            if !out.is_empty() {
                out.push_str("; ");
            }
            out.push_str(&cookie.name);
            out.push('=');
            out.push_str(&cookie.value);
        }
        out
    }
}

fn domain_matches(host: &str, domain: &str) -> bool {
    host == domain
        || (host.ends_with(domain)
            && host.as_bytes().get(host.len() - domain.len() - 1) == Some(&b'.'))
}

fn path_matches(request: &str, cookie: &str) -> bool {
    request == cookie
        || (request.starts_with(cookie)
            && (cookie.ends_with('/') || request.as_bytes().get(cookie.len()) == Some(&b'/')))
}

fn parse_set_cookie(header: &str, url: &Url, now: i64) -> Option<Cookie> {
    let mut parts = header.split(';');
    let (name, value) = parts.next()?.split_once('=')?;
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let host = url.host.to_ascii_lowercase();
    let mut cookie = Cookie {
        name: name.to_string(),
        value: value.trim().trim_matches('"').to_string(),
        domain: host.clone(),
        host_only: true,
        path: default_path(url.path()),
        secure: false,
        expires: None,
    };
    let mut max_age = None;
    for attribute in parts {
        let (key, val) = attribute.split_once('=').unwrap_or((attribute, ""));
        let val = val.trim();
        match key.trim().to_ascii_lowercase().as_str() {
            "domain" if !val.is_empty() => {
                let domain = val.trim_start_matches('.').to_ascii_lowercase();
                if !domain_matches(&host, &domain) {
                    return None;
                }
                cookie.domain = domain;
                cookie.host_only = false;
            }
            "path" if val.starts_with('/') => cookie.path = val.to_string(),
            "secure" => cookie.secure = true,
            "max-age" => max_age = val.parse::<i64>().ok(),
            "expires" => cookie.expires = parse_expires(val).or(cookie.expires),
            _ => {}
        }
    }
    if let Some(seconds) = max_age {
        cookie.expires = Some(now + seconds);
    }
    Some(cookie)
}

fn default_path(path: &str) -> String {
    match path.rfind('/') {
        Some(0) | None => "/".to_string(),
        Some(pos) => path[..pos].to_string(),
    }
}

fn parse_expires(text: &str) -> Option<i64> {
    if let Ok(date) = DateTime::parse_from_rfc2822(text) {
        return Some(date.timestamp());
    }
    [
        "%a, %d-%b-%Y %H:%M:%S GMT",
        "%a, %d-%b-%y %H:%M:%S GMT",
        "%A, %d-%b-%y %H:%M:%S GMT",
    ]
    .iter()
    .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
    .map(|date| date.and_utc().timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    #[test]
    fn stores_and_sends_matching_cookies() {
        let mut jar = Jar::default();
        let page = url("http://a.example.com/app/page");
        jar.store(&page, &["s=1; Path=/", "t=2", "x=3; Domain=other.org"]);
        assert_eq!(
            jar.header_for(&url("http://a.example.com/app/x")),
            "t=2; s=1"
        );
        assert_eq!(jar.header_for(&url("http://a.example.com/")), "s=1");
        assert_eq!(jar.header_for(&url("http://b.example.com/")), "");
    }

    #[test]
    fn empty_value_or_past_expiry_deletes() {
        let mut jar = Jar::default();
        let page = url("http://h/");
        jar.store(&page, &["a=1", "b=2"]);
        jar.store(&page, &["a=", "b=2; Expires=Thu, 01 Jan 1970 00:00:00 GMT"]);
        assert_eq!(jar.header_for(&page), "");
    }

    #[test]
    fn domain_cookies_reach_subdomains_and_secure_needs_https() {
        let mut jar = Jar::default();
        jar.store(
            &url("https://www.x.org/"),
            &["d=1; Domain=.x.org", "s=2; Secure"],
        );
        assert_eq!(jar.header_for(&url("http://api.x.org/")), "d=1");
        assert_eq!(jar.header_for(&url("https://www.x.org/")), "d=1; s=2");
    }
}
