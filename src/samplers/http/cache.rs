//! HTTP Cache Manager (`CacheManager`), per virtual user as JMeter keeps it (one cache
//! per thread):
//!
//! * after a cacheable response (a `cacheable_methods` method, GET by default; code
//!   2xx or 304; not `Vary: *`) that carries `Last-Modified`, `Expires`, `ETag` or
//!   `Cache-Control`, the URL's entry is stored (a later response does not replace an
//!   entry without `Vary`, as in JMeter); with "Use Cache-Control/Expires" its expiry
//!   comes from `max-age`, else `Expires`, else a tenth of `Date` − `Last-Modified`,
//!   else one year; `no-store` stores nothing and `no-cache` forces revalidation;
//! * a request for a URL with an entry carries `If-Modified-Since` / `If-None-Match`;
//! * a GET of a URL whose entry has not expired is not sent at all: by default it
//!   produces no sample (`cache_manager.cached_resource_mode=RETURN_NO_SAMPLE`), or a
//!   `200 (ex cache)` sample (`RETURN_200_CACHE`, message `RETURN_200_CACHE.message`),
//!   or a sample with `RETURN_CUSTOM_STATUS.code` / `.message` (`RETURN_CUSTOM_STATUS`);
//! * the cache holds at most `maxSize` entries (5000), and is cleared at each iteration
//!   when the manager asks (or, when "controlled by thread group", when the group starts
//!   a new user each iteration).
//!
//! One difference: JMeter clears the caches of all threads when any thread starts an
//! iteration with "clear each iteration"; jmxr clears only that user's cache.

use std::collections::{HashMap, VecDeque};
use std::time::{SystemTime, UNIX_EPOCH};

/// The Cache Manager in effect for a sampler, read at plan time.
pub struct CacheManagerSpec {
    /// Identifies the manager, so each user keeps one cache per manager.
    pub key: String,
    pub clear_each_iteration: bool,
    pub controlled_by_thread: bool,
    pub use_expires: bool,
    pub max_size: usize,
}

/// What a fresh cache entry turns a request into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CachedMode {
    /// No sample at all.
    NoSample,
    /// A successful sample with this code and message.
    Sample { code: String, message: String },
}

impl CachedMode {
    /// From `cache_manager.cached_resource_mode` and its companion properties.
    pub fn from_properties(get: impl Fn(&str) -> Option<String>) -> CachedMode {
        let mode = get("cache_manager.cached_resource_mode").unwrap_or_default();
        match mode.trim() {
            "RETURN_200_CACHE" => CachedMode::Sample {
                code: "200".into(),
                // Read through `getPropDefault`, which trims.
                message: get("RETURN_200_CACHE.message").map_or_else(
                    || "(ex cache)".into(),
                    |m| crate::foundation::java_text::java_trim(&m).to_string(),
                ),
            },
            "RETURN_CUSTOM_STATUS" => CachedMode::Sample {
                code: get("RETURN_CUSTOM_STATUS.code").unwrap_or_default(),
                message: get("RETURN_CUSTOM_STATUS.message").unwrap_or_default(),
            },
            _ => CachedMode::NoSample,
        }
    }
}

#[derive(Debug, Clone)]
struct Entry {
    last_modified: Option<String>,
    etag: Option<String>,
    /// Epoch ms; `None` means "revalidate" (never fresh).
    expires: Option<i64>,
    /// Set on the entry stored under the plain URL when the response varied.
    vary_header: Option<String>,
}

/// One user's cache for one manager.
#[derive(Default, Clone)]
pub struct Cache {
    entries: HashMap<String, Entry>,
    /// Insertion order, for the size bound.
    order: VecDeque<String>,
    /// The iteration the cache was last used in.
    pub iteration: Option<u64>,
}

impl Cache {
    pub fn clear(&mut self) {
        self.entries.clear();
        self.order.clear();
    }

    /// Takes the entries of `other` (a copy of this cache used by a parallel download):
    /// the downloads share one cache in JMeter, so what they stored is kept.
    pub fn absorb(&mut self, other: Cache, max_size: usize) {
        let mut other = other;
        for key in other.order {
            if let Some(entry) = other.entries.remove(&key) {
                self.put(key, entry, max_size);
            }
        }
    }

    /// Stores or replaces `key`'s entry; the oldest keys go beyond `max_size`.
    fn put(&mut self, key: String, entry: Entry, max_size: usize) {
        if self.entries.insert(key.clone(), entry).is_none() {
            self.order.push_back(key);
            while self.order.len() > max_size.max(1) {
                if let Some(oldest) = self.order.pop_front() {
                    self.entries.remove(&oldest);
                }
            }
        }
    }

    /// JMeter's `getEntry`: the plain entry, or through its `Vary` header the entry
    /// for these request headers.
    fn entry(&self, url: &str, request_headers: &[(String, String)]) -> Option<&Entry> {
        let entry = self.entries.get(url)?;
        match &entry.vary_header {
            None => Some(entry),
            Some(vary) => {
                let key = vary_key(url, vary, &vary_values(vary, request_headers));
                self.entries.get(&key).filter(|e| e.vary_header.is_none())
            }
        }
    }

    /// Whether there is an entry for `url` (fresh or not).
    pub fn holds(&self, url: &str) -> bool {
        self.entries.contains_key(url)
    }

    /// Whether a GET of `url` can be answered from the cache without a request.
    pub fn is_fresh(&self, url: &str, request_headers: &[(String, String)], now_ms: i64) -> bool {
        self.entry(url, request_headers)
            .and_then(|e| e.expires)
            .is_some_and(|expires| expires > now_ms)
    }

    /// The conditional request headers for `url`: `If-Modified-Since`, `If-None-Match`.
    pub fn conditional_headers(
        &self,
        url: &str,
        request_headers: &[(String, String)],
    ) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(entry) = self.entry(url, request_headers) {
            if let Some(lm) = &entry.last_modified {
                out.push(("If-Modified-Since", lm.clone()));
            }
            if let Some(etag) = &entry.etag {
                out.push(("If-None-Match", etag.clone()));
            }
        }
        out
    }

    /// JMeter's `saveDetails` for one response.
    #[allow(clippy::too_many_arguments)]
    pub fn save(
        &mut self,
        spec: &CacheManagerSpec,
        cacheable_method: bool,
        response_code: &str,
        url: &str,
        response_headers: &str,
        request_headers: &[(String, String)],
        now_ms: i64,
    ) {
        let header = |name: &str| last_header(response_headers, name);
        let vary = header("Vary");
        if vary.as_deref() == Some("*") || !cacheable_method {
            return;
        }
        // JMeter compares the code as a string: "200" <= code <= "299", or "304".
        let code_ok = ("200"..="299").contains(&response_code) || response_code == "304";
        if !code_ok {
            return;
        }
        let last_modified = header("Last-Modified");
        let expires = header("Expires");
        let etag = header("ETag");
        let cache_control = header("Cache-Control");
        let date = header("Date");
        let blank = |v: &Option<String>| v.as_deref().is_none_or(|t| t.trim().is_empty());
        if [&last_modified, &expires, &etag, &cache_control]
            .iter()
            .all(|v| blank(v))
        {
            return;
        }
        let mut expires_at = None;
        if spec.use_expires {
            if cache_control
                .as_deref()
                .is_some_and(|cc| cc.contains("no-store"))
            {
                return;
            }
            if let Some(text) = &expires {
                // An invalid date counts as expired.
                expires_at = Some(parse_http_date(text).unwrap_or(0));
            }
            if !cache_control
                .as_deref()
                .is_some_and(|cc| cc.contains("no-cache"))
            {
                expires_at = expiry_from_cache_control(
                    last_modified.as_deref(),
                    cache_control.as_deref(),
                    expires.is_some(),
                    date.as_deref(),
                    now_ms,
                )
                .or(expires_at);
            }
        }
        let entry = Entry {
            last_modified,
            etag,
            expires: expires_at,
            vary_header: None,
        };
        match vary {
            Some(vary) => {
                // A varying response always replaces the plain entry (now pointing to
                // the per-value entries) and the entry for these request headers.
                let key = vary_key(url, &vary, &vary_values(&vary, request_headers));
                let pointer = Entry {
                    vary_header: Some(vary),
                    ..entry.clone()
                };
                self.put(url.to_string(), pointer, spec.max_size);
                self.put(key, entry, spec.max_size);
            }
            None => {
                if !self.entries.contains_key(url) {
                    self.put(url.to_string(), entry, spec.max_size);
                }
            }
        }
    }
}

/// `max-age` wins; without `max-age` and without `Expires`, a heuristic from `Date` and
/// `Last-Modified`, else one year. `None` keeps the `Expires` value.
fn expiry_from_cache_control(
    last_modified: Option<&str>,
    cache_control: Option<&str>,
    has_expires: bool,
    date: Option<&str>,
    now_ms: i64,
) -> Option<i64> {
    const ONE_YEAR_MS: i64 = 365 * 24 * 60 * 60 * 1000;
    if let Some(cc) = cache_control.filter(|cc| cc.contains("max-age=")) {
        let after = &cc[cc.find("max-age=").unwrap_or(0) + "max-age=".len()..];
        let seconds: i64 = after
            .split([',', ' '])
            .next()
            .unwrap_or("")
            .parse()
            .unwrap_or(0);
        return Some(now_ms + seconds * 1000);
    }
    if has_expires {
        return None;
    }
    let heuristic = match (last_modified, date) {
        (Some(lm), Some(date)) if !lm.is_empty() && !date.is_empty() => {
            match (parse_http_date(date), parse_http_date(lm)) {
                (Some(d), Some(l)) => Some(now_ms + ((d - l) as f64 * 0.1).round() as i64),
                _ => None,
            }
        }
        _ => None,
    };
    Some(heuristic.unwrap_or(now_ms + ONE_YEAR_MS))
}

/// The names listed in a `Vary` header with the values the request sent for them, in
/// a stable form (the key only has to be the same for the same request).
fn vary_values(vary: &str, request_headers: &[(String, String)]) -> String {
    let mut parts: Vec<String> = vary
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|name| {
            let values: Vec<&str> = request_headers
                .iter()
                .filter(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
                .collect();
            format!("{name}=[{}]", values.join(", "))
        })
        .collect();
    parts.sort();
    format!("{{{}}}", parts.join(", "))
}

fn vary_key(url: &str, header: &str, values: &str) -> String {
    format!("vary-{header}-{values}-{url}")
}

/// The last value of header `name` in a response head as JMeter records it.
fn last_header(head: &str, name: &str) -> Option<String> {
    head.lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .filter(|(n, _)| n.trim().eq_ignore_ascii_case(name))
        .map(|(_, v)| v.trim().to_string())
        .last()
}

/// The current time, epoch ms.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Parses the HTTP date formats HttpClient's `DateUtils` accepts (RFC 1123, RFC 1036,
/// asctime) into epoch ms.
fn parse_http_date(text: &str) -> Option<i64> {
    let text = text.trim();
    for format in [
        "%a, %d %b %Y %H:%M:%S GMT",
        "%A, %d-%b-%y %H:%M:%S GMT",
        "%a %b %e %H:%M:%S %Y",
    ] {
        if let Ok(parsed) = chrono::NaiveDateTime::parse_from_str(text, format) {
            return Some(parsed.and_utc().timestamp_millis());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(use_expires: bool) -> CacheManagerSpec {
        CacheManagerSpec {
            key: "m".into(),
            clear_each_iteration: false,
            controlled_by_thread: false,
            use_expires,
            max_size: 2,
        }
    }

    const NOW: i64 = 1_700_000_000_000;

    /// A response to a GET without request headers, stored at `NOW`.
    fn store(cache: &mut Cache, code: &str, url: &str, head: &str) {
        cache.save(&spec(true), true, code, url, head, &[], NOW);
    }

    #[test]
    fn max_age_makes_an_entry_fresh_and_validators_are_sent() {
        let mut cache = Cache::default();
        let head = "HTTP/1.1 200 OK\nCache-Control: public, max-age=60\nETag: \"v1\"\n";
        cache.save(&spec(true), true, "200", "http://h/a", head, &[], NOW);
        assert!(cache.is_fresh("http://h/a", &[], NOW + 59_000));
        assert!(!cache.is_fresh("http://h/a", &[], NOW + 61_000));
        assert_eq!(
            cache.conditional_headers("http://h/a", &[]),
            [("If-None-Match", "\"v1\"".to_string())]
        );
    }

    #[test]
    fn without_use_expires_entries_only_revalidate() {
        let mut cache = Cache::default();
        let head = "HTTP/1.1 200 OK\nLast-Modified: Wed, 21 Oct 2015 07:28:00 GMT\nCache-Control: max-age=60\n";
        cache.save(&spec(false), true, "200", "http://h/a", head, &[], NOW);
        assert!(!cache.is_fresh("http://h/a", &[], NOW));
        assert_eq!(
            cache.conditional_headers("http://h/a", &[]),
            [(
                "If-Modified-Since",
                "Wed, 21 Oct 2015 07:28:00 GMT".to_string()
            )]
        );
    }

    #[test]
    fn no_store_errors_and_unmarked_responses_are_not_cached() {
        let mut cache = Cache::default();
        store(
            &mut cache,
            "200",
            "http://h/1",
            "HTTP/1.1 200 OK\nCache-Control: no-store, max-age=9\n",
        );
        store(&mut cache, "404", "http://h/2", "HTTP/1.1 404 X\nETag: x\n");
        store(
            &mut cache,
            "200",
            "http://h/3",
            "HTTP/1.1 200 OK\nContent-Type: a\n",
        );
        cache.save(
            &spec(true),
            false,
            "200",
            "http://h/4",
            "HTTP/1.1 200 OK\nETag: x\n",
            &[],
            NOW,
        );
        store(
            &mut cache,
            "200",
            "http://h/5",
            "HTTP/1.1 200 OK\nETag: x\nVary: *\n",
        );
        for n in 1..=5 {
            assert!(
                cache
                    .conditional_headers(&format!("http://h/{n}"), &[])
                    .is_empty(),
                "{n}"
            );
        }
    }

    #[test]
    fn expires_no_cache_and_the_size_bound() {
        let mut cache = Cache::default();
        store(
            &mut cache,
            "200",
            "http://h/e",
            "HTTP/1.1 200 OK\nExpires: Thu, 01 Jan 2099 00:00:00 GMT\n",
        );
        assert!(cache.is_fresh("http://h/e", &[], NOW));
        store(
            &mut cache,
            "200",
            "http://h/n",
            "HTTP/1.1 200 OK\nExpires: Thu, 01 Jan 2099 00:00:00 GMT\nCache-Control: no-cache\n",
        );
        assert!(
            cache.is_fresh("http://h/n", &[], NOW),
            "Expires still counts with no-cache"
        );
        store(
            &mut cache,
            "200",
            "http://h/x",
            "HTTP/1.1 200 OK\nExpires: garbage\n",
        );
        // Three entries in a cache of two: the oldest went.
        assert!(!cache.is_fresh("http://h/e", &[], NOW));
        assert!(
            !cache.is_fresh("http://h/x", &[], NOW),
            "an invalid date is expired"
        );
    }

    #[test]
    fn vary_keeps_one_entry_per_request_header_value() {
        let mut cache = Cache::default();
        let s = spec(true);
        let gzip = vec![("Accept-Encoding".to_string(), "gzip".to_string())];
        let head = "HTTP/1.1 200 OK\nCache-Control: max-age=60\nVary: Accept-Encoding\n";
        cache.save(&s, true, "200", "http://h/v", head, &gzip, NOW);
        assert!(cache.is_fresh("http://h/v", &gzip, NOW));
        assert!(!cache.is_fresh("http://h/v", &[], NOW));
    }

    #[test]
    fn cached_mode_from_properties() {
        let props = |mode: &'static str| {
            move |name: &str| {
                (name == "cache_manager.cached_resource_mode").then(|| mode.to_string())
            }
        };
        assert_eq!(CachedMode::from_properties(props("")), CachedMode::NoSample);
        assert_eq!(
            CachedMode::from_properties(props("RETURN_200_CACHE")),
            CachedMode::Sample {
                code: "200".into(),
                message: "(ex cache)".into()
            }
        );
    }
}
