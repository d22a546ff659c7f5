//! "Retrieve All Embedded Resources": after a successful text response, the page is
//! parsed for the resources a browser would load (images, scripts, stylesheets, frames,
//! backgrounds, `url(...)` in styles) and each is fetched as a sub-result, the way
//! `HTTPSamplerBase.downloadPageResources` does it:
//!
//! * the page's result is copied into a container; the page itself becomes the first
//!   sub-result (`<label>-0`), each resource the next (`<label>-1`, ...), their sizes
//!   and end times added to the container; frames and iframes are pages too, so they
//!   nest (up to `httpsampler.max_frame_depth`);
//! * the URL list is the parser's, in document order without duplicates, filtered by
//!   the sampler's "URLs must match" and "URLs must not match" regular expressions
//!   (whole-URL matches);
//! * a failed resource fails the container, whose message lists the failures, unless
//!   `httpsampler.ignore_failed_embedded_resources` is true;
//! * with parallel downloads the resources are fetched by [`super::parallel`], and added
//!   in the same order.
//!
//! The parsers follow JMeter's default ones: [`html_resource_urls`] reads tags and
//! attributes as the Lagarto-based parser does, [`css_resource_urls`] reads `url(...)`
//! and `@import` as the CSS parser does. Which parser applies is decided by the media
//! type (`htmlParser.types`, `cssParser.types` defaults).

use std::sync::Arc;

use fancy_regex::Regex;

use super::redirects::accumulate_sizes;
use super::url::Url;
use super::{file, Hop, HttpSampler};
use crate::plan::SampleContext;
use crate::sample::SampleResult;

/// What the sampler was told about embedded resources, read at plan time.
#[derive(Clone)]
pub struct EmbeddedSpec {
    /// `HTTPSampler.embedded_url_re`: only URLs matching it are fetched.
    pub allow: Option<Regex>,
    /// `HTTPSampler.embedded_url_exclude_re`: URLs matching it are skipped.
    pub exclude: Option<Regex>,
}

impl EmbeddedSpec {
    /// Compiles the two filters; an invalid one is ignored with a warning, as JMeter
    /// does ("Ignoring embedded URL ... string").
    pub fn new(allow: &str, exclude: &str) -> (EmbeddedSpec, Vec<String>) {
        let mut warnings = Vec::new();
        let mut compile = |text: &str, what: &str| -> Option<Regex> {
            if text.is_empty() {
                return None;
            }
            match Regex::new(&format!("^(?:{text})$")) {
                Ok(regex) => Some(regex),
                Err(err) => {
                    warnings.push(format!("Ignoring embedded URL {what} string: {err}"));
                    None
                }
            }
        };
        let spec = EmbeddedSpec {
            allow: compile(allow, "allow"),
            exclude: compile(exclude, "exclude"),
        };
        (spec, warnings)
    }

    fn wanted(&self, url: &str) -> bool {
        let allowed = self
            .allow
            .as_ref()
            .is_none_or(|re| re.is_match(url).unwrap_or(false));
        let excluded = self
            .exclude
            .as_ref()
            .is_some_and(|re| re.is_match(url).unwrap_or(false));
        allowed && !excluded
    }
}

/// `httpsampler.max_frame_depth` default.
const DEFAULT_MAX_FRAME_DEPTH: usize = 5;

/// Which of JMeter's default parsers reads a response of this media type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parser {
    Html,
    Css,
}

fn parser_for(content_type: &str) -> Option<Parser> {
    let media = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match media.as_str() {
        "text/html"
        | "application/xhtml+xml"
        | "application/xml"
        | "text/xml"
        | "text/vnd.wap.wml" => Some(Parser::Html),
        "text/css" => Some(Parser::Css),
        _ => None,
    }
}

impl HttpSampler {
    /// Downloads the resources of `page` when it is a successful text response, and
    /// returns the container (or `page` itself when there is nothing to fetch).
    /// `depth` is the frame depth: 0 for the sampler's own page.
    pub(super) async fn with_embedded_resources(
        &self,
        cx: &mut SampleContext<'_>,
        page: Arc<SampleResult>,
        depth: usize,
    ) -> Arc<SampleResult> {
        match &self.embedded {
            Some(spec) if page.success && page.data_type == "text" => {
                let page = Arc::unwrap_or_clone(page);
                Arc::new(self.download_embedded(cx, spec, page, depth).await)
            }
            _ => page,
        }
    }

    /// Downloads the resources of `page`. Boxed, since frames nest (the call recurses)
    /// and its future is many kilobytes: a sample that fetches nothing never builds it.
    fn download_embedded<'a>(
        &'a self,
        cx: &'a mut SampleContext<'_>,
        spec: &'a EmbeddedSpec,
        mut page: SampleResult,
        depth: usize,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = SampleResult> + Send + 'a>> {
        Box::pin(async move {
            let max_depth = property_usize(cx, "httpsampler.max_frame_depth")
                .unwrap_or(DEFAULT_MAX_FRAME_DEPTH);
            if depth > max_depth {
                let mut error = page.clone();
                error.subresults.clear();
                error.set_success(false);
                error.response_code = "Non HTTP response code: java.lang.Exception".into();
                error.response_message =
                    "Non HTTP response message: Maximum frame/iframe nesting depth exceeded."
                        .into();
                error.response_data =
                    b"java.lang.Exception: Maximum frame/iframe nesting depth exceeded.".to_vec();
                add_child(&mut page, error, true);
                return page;
            }
            let urls = resource_urls(spec, &page);
            if urls.is_empty() {
                return page;
            }
            // The container is a copy of the page; the page goes in first, unrenamed
            // sizes (the container already counts them).
            let mut container = page.clone();
            container.subresults.clear();
            add_child(&mut container, page, false);
            // JMeter names the sub-results of a nested container after the thread running
            // it (the page inside keeps its empty name); the top container's children are
            // left unnamed here because the engine names them with the thread counts.
            container.thread_name = if depth > 0 {
                cx.user.thread.thread_name.clone()
            } else {
                Arc::from("")
            };
            self.download_into(cx, &mut container, urls, depth).await;
            container
        })
    }

    /// Fetches `urls`, the resources of a page at frame depth `depth`, and adds each
    /// to `container` in the order of `urls` (`downloadPageResources` after its URL
    /// list is made): in parallel or one after the other as the sampler is set, a
    /// failure failing the container unless failures are ignored.
    pub(super) async fn download_into(
        &self,
        cx: &mut SampleContext<'_>,
        container: &mut SampleResult,
        urls: Vec<Url>,
        depth: usize,
    ) {
        let ignore_failures = cx
            .user
            .run
            .props
            .get("httpsampler.ignore_failed_embedded_resources")
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
        let resources = match self.parallel_limit(cx) {
            Some(limit) => self.fetch_all_in_parallel(cx, urls, depth, limit).await,
            None => {
                let mut resources = Vec::with_capacity(urls.len());
                for url in urls {
                    // A resource the Cache Manager holds is not fetched (and, by
                    // default, leaves no sub-result).
                    match self.answered_from_cache(cx, &url.to_string(), "GET") {
                        Some(None) => {}
                        Some(Some(cached)) => resources.push(cached),
                        None => resources.push(self.fetch_resource(cx, url, depth + 1).await),
                    }
                }
                resources
            }
        };
        for resource in resources {
            let ok = resource.success;
            add_child(container, resource, true);
            if !ok && !ignore_failures {
                mark_failed(container);
            }
        }
    }

    /// The resources of one page fetched in parallel: the Cache Manager answers first,
    /// then the others are downloaded at most `limit` at once; in the order of `urls`.
    async fn fetch_all_in_parallel(
        &self,
        cx: &mut SampleContext<'_>,
        urls: Vec<Url>,
        depth: usize,
        limit: usize,
    ) -> Vec<SampleResult> {
        let mut answered: Vec<Option<SampleResult>> = Vec::with_capacity(urls.len());
        let mut to_fetch = Vec::new();
        for url in urls {
            match self.answered_from_cache(cx, &url.to_string(), "GET") {
                Some(None) => {}
                Some(Some(cached)) => answered.push(Some(cached)),
                None => {
                    answered.push(None);
                    to_fetch.push(url);
                }
            }
        }
        let mut fetched = self
            .fetch_in_parallel(cx, to_fetch, depth + 1, limit)
            .await
            .into_iter();
        answered
            .into_iter()
            .filter_map(|slot| slot.or_else(|| fetched.next()))
            .collect()
    }

    /// One embedded resource, sampled as the sampler samples its own URL: a GET with
    /// the same headers, cookies and redirect handling, and its own resources in turn.
    pub(super) async fn fetch_resource(
        &self,
        cx: &mut SampleContext<'_>,
        url: Url,
        depth: usize,
    ) -> SampleResult {
        let url_text = url.to_string();
        let result = if url.scheme == "file" {
            // Java's file URL connection labels the sample with the URL.
            let label = cx.label.clone();
            let encoding = self.spec.content_encoding.eval(&mut cx.user.eval(&label));
            file::sample(cx, Arc::from(url_text.as_str()), &url, &encoding)
        } else {
            let hop = Hop {
                url: &url,
                url_text: &url_text,
                method: "GET",
                body: None,
                kept_head: None,
            };
            let first = self.one_hop(cx, &hop).await;
            return Arc::unwrap_or_clone(self.after_first(cx, first, "GET", depth).await);
        };
        Arc::unwrap_or_clone(
            self.with_embedded_resources(cx, Arc::new(result), depth)
                .await,
        )
    }
}

/// The resources `page` references, as the parser for its media type finds them (none
/// for an empty body or another type), less those the sampler's URL filters reject.
pub(super) fn resource_urls(spec: &EmbeddedSpec, page: &SampleResult) -> Vec<Url> {
    let Some(base) = page.url.as_deref().and_then(parse_any) else {
        return Vec::new();
    };
    let urls = match (
        page.response_data.is_empty(),
        parser_for(&page.content_type),
    ) {
        (false, Some(Parser::Html)) => {
            html_resource_urls(&decode(&page.response_data, &page.data_encoding), &base)
        }
        (false, Some(Parser::Css)) => {
            css_resource_urls(&decode(&page.response_data, &page.data_encoding), &base)
        }
        _ => Vec::new(),
    };
    urls.into_iter()
        .filter(|url| spec.wanted(&url.to_string()))
        .collect()
}

/// Adds `child` as JMeter's `addSubResult` (sizes and end time accumulate) or, with
/// `accumulate` false, `addRawSubResult`; both rename it `<label>-<n>` and give it the
/// container's thread name.
fn add_child(container: &mut SampleResult, mut child: SampleResult, accumulate: bool) {
    child.label = Arc::from(format!(
        "{}-{}",
        container.label,
        container.subresults.len()
    ));
    // addSubResult passes the container's thread name on; addRawSubResult leaves the
    // page's own, which a sampler never sets (the engine names top-level children).
    child.thread_name = if accumulate {
        container.thread_name.clone()
    } else {
        Arc::from("")
    };
    if accumulate {
        accumulate_sizes(container, &child);
    }
    container.subresults.push(child);
}

/// JMeter's `setParentSampleSuccess(res, false)`: the container fails and its message
/// lists every failed sub-result.
fn mark_failed(container: &mut SampleResult) {
    container.set_success(false);
    let mut message = String::from("Embedded resource download error:");
    for sub in container.subresults.iter().filter(|s| !s.success) {
        message.push_str(sub.url.as_deref().unwrap_or("null"));
        message.push_str(" code:");
        message.push_str(&sub.response_code);
        message.push_str(" message:");
        message.push_str(&sub.response_message);
        message.push_str(", ");
    }
    container.response_message = message.into();
}

fn property_usize(cx: &SampleContext<'_>, name: &str) -> Option<usize> {
    cx.user
        .run
        .props
        .get(name)
        .and_then(|v| v.trim().parse().ok())
}

/// The body as text in its declared encoding (ISO-8859-1, HTTP's default, otherwise).
fn decode(data: &[u8], encoding: &str) -> String {
    if encoding.eq_ignore_ascii_case("utf-8") || encoding.eq_ignore_ascii_case("utf8") {
        String::from_utf8_lossy(data).into_owned()
    } else {
        data.iter().map(|&b| b as char).collect()
    }
}

/// Parses an absolute `http(s)://` URL or a `file:` URL as the sampler writes it.
fn parse_any(text: &str) -> Option<Url> {
    if let Some(path) = text.strip_prefix("file:") {
        if !path.starts_with("//") {
            return Some(Url::from_parts("file", "", 0, path));
        }
    }
    Url::parse(text).ok()
}

/// Resolves `reference` against `base` as Java's `new URL(base, reference)` followed by
/// `toURI().normalize()`: `.` and `..` segments removed, fragments dropped.
fn resolve(base: &Url, reference: &str) -> Option<Url> {
    let reference = reference.split('#').next().unwrap_or("");
    if reference.is_empty() {
        return None;
    }
    let lower = reference.to_ascii_lowercase();
    if lower.starts_with("data:")
        || lower.starts_with("javascript:")
        || lower.starts_with("mailto:")
    {
        return None;
    }
    let mut url = if lower.starts_with("file:") {
        parse_any(reference)?
    } else if reference.contains("://") || reference.starts_with("//") {
        base.join(reference).ok()?
    } else if let Some(colon) = reference.find(':') {
        // Some other scheme (`about:`, `tel:`...): nothing a sampler fetches.
        if reference[..colon]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        {
            return None;
        }
        base.join(reference).ok()?
    } else {
        base.join(reference).ok()?
    };
    if !matches!(url.scheme.as_str(), "http" | "https" | "file") {
        return None;
    }
    url.path_and_query = normalize_path(&url.path_and_query).replace(' ', "%20");
    Some(url)
}

/// Removes `.` and `..` segments from the path part (the query is kept as is).
fn normalize_path(path_and_query: &str) -> String {
    let (path, query) = match path_and_query.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path_and_query, None),
    };
    if !path.split('/').any(|s| s == "." || s == "..") {
        return path_and_query.to_string();
    }
    let absolute = path.starts_with('/');
    let mut segments: Vec<&str> = Vec::new();
    let parts: Vec<&str> = path.split('/').collect();
    let last = parts.len().saturating_sub(1);
    for (i, segment) in parts.iter().enumerate() {
        match *segment {
            "." => {
                if i == last {
                    segments.push("");
                }
            }
            ".." => {
                if segments.last().is_some_and(|s| !s.is_empty() && *s != "..") {
                    segments.pop();
                } else if !absolute {
                    segments.push("..");
                }
                if i == last {
                    segments.push("");
                }
            }
            other => segments.push(other),
        }
    }
    let mut out = segments.join("/");
    if absolute && !out.starts_with('/') {
        out.insert(0, '/');
    }
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}

/// Collects URLs in order, without duplicates (JMeter's `LinkedHashSet` of URL strings).
struct UrlList<'b> {
    base: &'b Url,
    /// The document's `<base href>` replaces the page URL for later references.
    base_override: Option<Url>,
    urls: Vec<Url>,
    seen: std::collections::HashSet<String>,
}

impl<'b> UrlList<'b> {
    fn new(base: &'b Url) -> Self {
        UrlList {
            base,
            base_override: None,
            urls: Vec::new(),
            seen: std::collections::HashSet::new(),
        }
    }

    fn base(&self) -> &Url {
        self.base_override.as_ref().unwrap_or(self.base)
    }

    fn add(&mut self, raw: &str) {
        // JMeter strips line breaks, backspace and form feed, trims, then unescapes XML
        // entities.
        let cleaned: String = raw
            .trim()
            .chars()
            .filter(|c| !matches!(c, '\n' | '\r' | '\u{8}' | '\u{c}'))
            .collect();
        if cleaned.is_empty() {
            return;
        }
        let unescaped = unescape_entities(&cleaned);
        let Some(url) = resolve(self.base(), &unescaped) else {
            return;
        };
        if self.seen.insert(url.to_string()) {
            self.urls.push(url);
        }
    }
}

/// The resources an HTML page references, as JMeter's default (Lagarto-based) parser
/// finds them: `img`, `script`, `frame`/`iframe`, `embed`, `bgsound` `src`; `input
/// type=image` `src`; `link rel=stylesheet|icon|shortcut icon|preload` `href`;
/// `object` `codebase` and `data`; `applet` code; `body` and every other tag's
/// `background`; `url(...)` in `style` attributes; `base href` changes the base.
pub fn html_resource_urls(html: &str, base: &Url) -> Vec<Url> {
    let mut list = UrlList::new(base);
    for tag in Tags::new(html) {
        let attr = |name: &str| tag.attribute(name);
        match tag.name.as_str() {
            "body" => add_opt(&mut list, attr("background")),
            "base" => {
                if let Some(href) = attr("href").filter(|h| !h.is_empty()) {
                    if let Some(url) = resolve(list.base(), &unescape_entities(href.trim())) {
                        list.base_override = Some(url);
                    }
                }
            }
            "img" | "script" | "frame" | "iframe" | "embed" | "bgsound" => {
                add_opt(&mut list, attr("src"))
            }
            "applet" => {
                let codebase = attr("codebase").filter(|c| !c.trim().is_empty());
                let archive = attr("archive").filter(|a| !a.trim().is_empty());
                match codebase {
                    Some(codebase) => {
                        let target = archive.or(attr("code")).unwrap_or("null");
                        list.add(&format!("{codebase}/{target}"));
                    }
                    None => add_opt(&mut list, attr("code")),
                }
            }
            "object" => {
                add_opt(&mut list, attr("codebase"));
                add_opt(&mut list, attr("data"));
            }
            "input" => {
                if attr("type").is_some_and(|t| t.eq_ignore_ascii_case("image")) {
                    add_opt(&mut list, attr("src"));
                }
            }
            "link" => {
                let rel = attr("rel").unwrap_or("");
                if ["stylesheet", "icon", "shortcut icon", "preload"]
                    .iter()
                    .any(|r| rel.eq_ignore_ascii_case(r))
                {
                    add_opt(&mut list, attr("href"));
                }
            }
            _ => add_opt(&mut list, attr("background")),
        }
        if let Some(style) = attr("style").filter(|s| !s.is_empty()) {
            for reference in css_urls(style) {
                list.add(&reference);
            }
        }
    }
    list.urls
}

/// The resources a stylesheet references: `url(...)` values and `@import` targets.
pub fn css_resource_urls(css: &str, base: &Url) -> Vec<Url> {
    let mut list = UrlList::new(base);
    for reference in css_urls(css) {
        list.add(&reference);
    }
    list.urls
}

fn add_opt(list: &mut UrlList<'_>, value: Option<&str>) {
    if let Some(value) = value {
        list.add(value);
    }
}

/// `url(...)` and `@import "..."` references in CSS text, comments skipped.
fn css_urls(css: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = css.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if css[i..].starts_with("/*") {
            i = css[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |end| i + 2 + end + 2);
            continue;
        }
        if css[i..].len() >= 4 && css[i..i + 4].eq_ignore_ascii_case("url(") {
            let rest = &css[i + 4..];
            let Some(close) = rest.find(')') else {
                break;
            };
            let value = rest[..close].trim().trim_matches(|c| c == '"' || c == '\'');
            if !value.is_empty() {
                out.push(value.to_string());
            }
            i += 4 + close + 1;
            continue;
        }
        if css[i..].len() >= 7 && css[i..i + 7].eq_ignore_ascii_case("@import") {
            let rest = css[i + 7..].trim_start();
            if let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') {
                if let Some(end) = rest[1..].find(quote) {
                    out.push(rest[1..1 + end].to_string());
                }
            }
            i += 7;
            continue;
        }
        i += css[i..].chars().next().map_or(1, char::len_utf8);
    }
    out
}

/// XML's five named entities and numeric references (what JMeter's `unescapeXml` and
/// the HTML parser's attribute decoding leave in a URL).
fn unescape_entities(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        let Some(end) = rest.find(';').filter(|e| *e <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..end];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .or_else(|| entity.strip_prefix("#X"))
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A start (or self-closing) tag: lower-case name and attributes as written.
struct Tag<'h> {
    name: String,
    attributes: Vec<(String, &'h str)>,
}

impl<'h> Tag<'h> {
    /// The first attribute of that name (names compare case-insensitively).
    fn attribute(&self, name: &str) -> Option<&'h str> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }
}

/// A forgiving scanner over the start tags of an HTML document: comments, doctype,
/// processing instructions and end tags are skipped, and the content of `script`,
/// `style`, `textarea` and `title` is raw text (no tags inside).
struct Tags<'h> {
    html: &'h str,
    pos: usize,
}

impl<'h> Tags<'h> {
    fn new(html: &'h str) -> Self {
        Tags { html, pos: 0 }
    }

    fn skip_raw_text(&mut self, name: &str) {
        let closing = format!("</{name}");
        let rest = &self.html[self.pos..];
        let lower = rest.to_ascii_lowercase();
        self.pos = match lower.find(&closing) {
            Some(at) => self.pos + at,
            None => self.html.len(),
        };
    }
}

impl<'h> Iterator for Tags<'h> {
    type Item = Tag<'h>;

    fn next(&mut self) -> Option<Tag<'h>> {
        let html = self.html;
        let bytes = html.as_bytes();
        loop {
            let lt = html[self.pos..].find('<')? + self.pos;
            let rest = &html[lt..];
            if let Some(comment) = rest.strip_prefix("<!--") {
                self.pos = comment.find("-->").map_or(html.len(), |e| lt + 4 + e + 3);
                continue;
            }
            if rest.starts_with("<![CDATA[") {
                self.pos = rest.find("]]>").map_or(html.len(), |e| lt + e + 3);
                continue;
            }
            if rest.starts_with("<!") || rest.starts_with("<?") || rest.starts_with("</") {
                self.pos = rest.find('>').map_or(html.len(), |e| lt + e + 1);
                continue;
            }
            let mut i = lt + 1;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'-' | b'_' | b':'))
            {
                i += 1;
            }
            if i == lt + 1 {
                self.pos = lt + 1;
                continue;
            }
            let name = html[lt + 1..i].to_ascii_lowercase();
            let mut attributes = Vec::new();
            // Attributes until `>` (quoted values may hold `>`).
            loop {
                while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
                    i += 1;
                }
                if i >= bytes.len() {
                    break;
                }
                if bytes[i] == b'>' {
                    i += 1;
                    break;
                }
                let start = i;
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && !matches!(bytes[i], b'=' | b'>' | b'/')
                {
                    i += 1;
                }
                if i == start {
                    // A stray character such as a lone quote: step over it.
                    i += 1;
                    continue;
                }
                let attr_name = html[start..i].to_ascii_lowercase();
                let mut j = i;
                while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
                let mut value = "";
                if j < bytes.len() && bytes[j] == b'=' {
                    j += 1;
                    while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                        j += 1;
                    }
                    if j < bytes.len() && (bytes[j] == b'"' || bytes[j] == b'\'') {
                        let quote = bytes[j];
                        let value_start = j + 1;
                        let value_end = bytes[value_start..]
                            .iter()
                            .position(|&b| b == quote)
                            .map_or(bytes.len(), |p| value_start + p);
                        value = &html[value_start..value_end];
                        j = (value_end + 1).min(bytes.len());
                    } else {
                        let value_start = j;
                        while j < bytes.len() && !bytes[j].is_ascii_whitespace() && bytes[j] != b'>'
                        {
                            j += 1;
                        }
                        value = &html[value_start..j];
                    }
                    i = j;
                }
                attributes.push((attr_name, value));
            }
            self.pos = i.min(html.len());
            if matches!(name.as_str(), "script" | "style" | "textarea" | "title") {
                self.skip_raw_text(&name);
            }
            return Some(Tag { name, attributes });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urls(html: &str) -> Vec<String> {
        let base = Url::parse("http://h/dir/page.html").unwrap();
        html_resource_urls(html, &base)
            .iter()
            .map(Url::to_string)
            .collect()
    }

    #[test]
    fn finds_resources_in_document_order_without_duplicates() {
        let html = r#"<html><head><link rel="StyleSheet" href="a.css"><link rel="next" href="no.html">
            <script src="/js/x.js"></script><script>var s = "<img src='inside.png'>";</script></head>
            <body background="bg.png"><!-- <img src="commented.png"> -->
            <IMG SRC="i.png"><img src=i.png><iframe src='f.html'></iframe>
            <input type="IMAGE" src="btn.png"><input type="text" src="no.png">
            <td background="td.png" style="background: url('s.png')"></td>
            <object codebase="cb/" data="obj.swf"></object><embed src="e.swf"><a href="no.html">x</a>
            </body></html>"#;
        assert_eq!(
            urls(html),
            [
                "http://h/dir/a.css",
                "http://h/js/x.js",
                "http://h/dir/bg.png",
                "http://h/dir/i.png",
                "http://h/dir/f.html",
                "http://h/dir/btn.png",
                "http://h/dir/td.png",
                "http://h/dir/s.png",
                "http://h/dir/cb/",
                "http://h/dir/obj.swf",
                "http://h/dir/e.swf",
            ]
        );
    }

    #[test]
    fn base_href_entities_dot_segments_and_other_schemes() {
        let html = r#"<base href="http://other/x/"><img src="../up.png?a=1&amp;b=2">
            <img src="data:image/png;base64,AAAA"><img src="javascript:void(0)"><img src=" ">"#;
        assert_eq!(urls(html), ["http://other/up.png?a=1&b=2"]);
    }

    #[test]
    fn css_urls_and_imports() {
        let base = Url::parse("http://h/css/site.css").unwrap();
        let css = r#"@import "print.css"; /* url(no.png) */ body { background: url( "../img/b.png" ) }
            .a { background-image: URL(c.gif) }"#;
        let found: Vec<String> = css_resource_urls(css, &base)
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            found,
            [
                "http://h/css/print.css",
                "http://h/img/b.png",
                "http://h/css/c.gif"
            ]
        );
    }

    #[test]
    fn file_urls_resolve_relative_to_the_page() {
        let base = parse_any("file:testfiles/page.html").unwrap();
        let found: Vec<String> = html_resource_urls(r#"<img src="page_files/a.gif">"#, &base)
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(found, ["file:testfiles/page_files/a.gif"]);
    }

    #[test]
    fn filters_match_whole_urls() {
        let (spec, warnings) = EmbeddedSpec::new(r"http://h/.*", r".*\.png");
        assert!(warnings.is_empty());
        assert!(spec.wanted("http://h/a.css"));
        assert!(!spec.wanted("http://h/a.png"));
        assert!(!spec.wanted("http://other/a.css"));
        let (_, warnings) = EmbeddedSpec::new("(", "");
        assert_eq!(warnings.len(), 1);
    }
}
