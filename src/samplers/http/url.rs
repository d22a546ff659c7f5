//! The small part of URL handling HTTP samples need: `scheme://host[:port]/path?query`,
//! written back the way Java's `URL.toString` writes it (the port only when given), and
//! redirect targets resolved against the current URL.

/// An absolute `http`, `https` or `file` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    pub scheme: String,
    pub host: String,
    /// The port as written; 0 when absent (the scheme's default applies).
    pub port: u16,
    /// Path and query, starting with `/` for http(s).
    pub path_and_query: String,
}

impl Url {
    /// Builds from the sampler fields; a port equal to the scheme's default is dropped,
    /// as JMeter does.
    pub fn from_parts(scheme: &str, host: &str, port: u16, path: &str) -> Url {
        let mut path_and_query = String::with_capacity(path.len() + 1);
        if scheme != "file" && !path.starts_with('/') {
            path_and_query.push('/');
        }
        path_and_query.push_str(path);
        let port = if port == default_port(scheme) {
            0
        } else {
            port
        };
        Url {
            scheme: scheme.to_string(),
            host: host.to_string(),
            port,
            path_and_query,
        }
    }

    /// Parses an absolute URL.
    pub fn parse(text: &str) -> Result<Url, String> {
        let (scheme, rest) = text
            .split_once("://")
            .ok_or_else(|| format!("no protocol: {text}"))?;
        let scheme = scheme.to_ascii_lowercase();
        let split = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(split);
        let authority = authority.rsplit('@').next().unwrap_or(authority);
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) if !port.contains(']') => {
                let port = if port.is_empty() {
                    0
                } else {
                    port.parse()
                        .map_err(|_| format!("For input string: \"{port}\""))?
                };
                (host, port)
            }
            _ => (authority, 0),
        };
        let path = path.split('#').next().unwrap_or("");
        let path = if path.starts_with('?') || path.is_empty() {
            format!("/{path}")
        } else {
            path.to_string()
        };
        Ok(Url {
            scheme,
            host: host.to_string(),
            port,
            path_and_query: path,
        })
    }

    /// Appends a query string with `?`, or `&` when the path has one already.
    pub fn append_query(&mut self, query: &str) {
        if query.is_empty() {
            return;
        }
        let separator = if self.path_and_query.contains('?') {
            '&'
        } else {
            '?'
        };
        self.path_and_query.push(separator);
        self.path_and_query.push_str(query);
    }

    /// The port to connect to.
    pub fn effective_port(&self) -> u16 {
        if self.port == 0 {
            default_port(&self.scheme)
        } else {
            self.port
        }
    }

    /// The `Host` header value HttpClient derives from the URL: the port whenever the
    /// URL names one, even the scheme's default (`http://h:80/` sends `Host: h:80`).
    pub fn host_header(&self) -> String {
        let mut header = String::with_capacity(self.host.len() + 6);
        self.push_host_header(&mut header);
        header
    }

    /// Appends [`Url::host_header`] to `out`: a request head takes it without a string
    /// of its own.
    pub fn push_host_header(&self, out: &mut String) {
        out.push_str(&self.host);
        if self.port != 0 {
            out.push(':');
            out.push_str(itoa::Buffer::new().format(self.port));
        }
    }

    /// The `Host` header JMeter sends for a Header Manager's `Host: value`: the value's
    /// own port, else the URL's, dropped when it is the scheme's default
    /// (`HTTPHC4Impl.setConnectionHeaders`).
    pub fn host_header_from(&self, value: &str) -> String {
        let explicit = (self.port != 0).then_some(self.port);
        let port = port_of_host_value(value).or(explicit);
        let name = strip_port(value);
        match port {
            Some(port) if port != default_port(&self.scheme) => format!("{name}:{port}"),
            _ => name.to_string(),
        }
    }

    /// The path without the query.
    pub fn path(&self) -> &str {
        self.path_and_query
            .split('?')
            .next()
            .unwrap_or(&self.path_and_query)
    }

    /// Resolves a `Location` value against this URL.
    pub fn join(&self, location: &str) -> Result<Url, String> {
        if location.contains("://") {
            return Url::parse(location);
        }
        let mut next = self.clone();
        if let Some(rest) = location.strip_prefix("//") {
            return Url::parse(&format!("{}://{rest}", self.scheme));
        }
        if location.starts_with('/') {
            next.path_and_query = location.to_string();
        } else if location.starts_with('?') {
            next.path_and_query = format!("{}{location}", self.path());
        } else {
            let dir = self.path().rsplit_once('/').map_or("", |(dir, _)| dir);
            next.path_and_query = format!("{dir}/{location}");
        }
        Ok(next)
    }
}

impl std::fmt::Display for Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Plain writes: every sample prints its URL, and `write!` costs more than the text.
        f.write_str(&self.scheme)?;
        f.write_str(":")?;
        // As Java's `URL.toExternalForm`: `//` and the authority only when there is one
        // (an empty domain makes `http:/path`).
        if !self.host.is_empty() || self.port != 0 {
            f.write_str("//")?;
            f.write_str(&self.host)?;
            if self.port != 0 {
                f.write_str(":")?;
                f.write_str(itoa::Buffer::new().format(self.port))?;
            }
        }
        f.write_str(&self.path_and_query)
    }
}

/// The port a `Host` value ends with: its last `:`-separated part when that is all
/// digits (`[::1]` has none; `h:` has none).
fn port_of_host_value(value: &str) -> Option<u16> {
    let mut parts: Vec<&str> = value.split(':').collect();
    // Java's `split` drops trailing empty parts.
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    match parts.as_slice() {
        [_, .., last] if last.bytes().all(|b| b.is_ascii_digit()) => last.parse().ok(),
        _ => None,
    }
}

/// The value without a trailing `:digits`.
fn strip_port(value: &str) -> &str {
    match value.rsplit_once(':') {
        Some((name, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => value,
    }
}

/// 80 for http, 443 for https.
pub fn default_port(scheme: &str) -> u16 {
    match scheme {
        "https" => 443,
        _ => 80,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_drop_default_port_and_add_slash() {
        let url = Url::from_parts("http", "h", 80, "x?a=1");
        assert_eq!(url.to_string(), "http://h/x?a=1");
        assert_eq!(
            Url::from_parts("http", "h", 8081, "/").to_string(),
            "http://h:8081/"
        );
    }

    #[test]
    fn an_empty_domain_has_no_authority_as_in_java() {
        assert_eq!(
            Url::from_parts("https", "", 0, "/start.html").to_string(),
            "https:/start.html"
        );
        assert_eq!(
            Url::from_parts("http", "", 8080, "/a").to_string(),
            "http://:8080/a"
        );
    }

    #[test]
    fn host_headers_follow_httpclient_and_jmeter() {
        let explicit = Url::parse("http://h:80/").unwrap();
        assert_eq!(explicit.host_header(), "h:80");
        assert_eq!(Url::from_parts("http", "h", 80, "/").host_header(), "h");
        let url = Url::from_parts("http", "h", 8080, "/");
        assert_eq!(url.host_header_from("example.test"), "example.test:8080");
        assert_eq!(
            url.host_header_from("example.test:9999"),
            "example.test:9999"
        );
        assert_eq!(url.host_header_from("example.test:80"), "example.test");
        let default = Url::from_parts("https", "h", 443, "/");
        assert_eq!(default.host_header_from("example.test"), "example.test");
        assert_eq!(default.host_header_from("[::1]"), "[::1]");
        assert_eq!(default.host_header_from("[::1]:8443"), "[::1]:8443");
    }

    #[test]
    fn parse_and_join() {
        let url = Url::parse("http://localhost:8081/a/b?q").unwrap();
        assert_eq!(url.port, 8081);
        assert_eq!(url.path_and_query, "/a/b?q");
        assert_eq!(
            url.join("c").unwrap().to_string(),
            "http://localhost:8081/a/c"
        );
        assert_eq!(
            url.join("/d").unwrap().to_string(),
            "http://localhost:8081/d"
        );
        assert_eq!(
            url.join("https://e.org/").unwrap().to_string(),
            "https://e.org/"
        );
    }
}
