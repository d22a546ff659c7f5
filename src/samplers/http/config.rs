//! Plan-time reading of an HTTP Request and the config elements in its scope, merged
//! with JMeter's rules (`jmeter-elements.md` §2.6, §7.3–7.5):
//!
//! * HTTP Request Defaults fill string properties the sampler has absent or empty; the
//!   innermost defaults element wins; their arguments are appended to the sampler's.
//!   Booleans come from the sampler only (a default cannot turn a checkbox off), except
//!   "Retrieve All Embedded Resources" and "Parallel downloads": JMeter's GUI leaves those
//!   properties out when unticked, so the defaults' value applies when the sampler has none.
//! * Header Managers: the innermost manager's headers come first, outer managers add
//!   only names not yet present (case-insensitive).
//! * Cookie Manager: only one is used, and JMeter ends up with the **outermost** one.

use super::cache::CacheManagerSpec;
use super::dns::DnsManagerSpec;
use crate::expr::Template;
use crate::jmx::{Element, Property};
use crate::plan::BuildContext;

/// GUI classes of config elements an HTTP Request accepts (JMeter's `HTTPSamplerBase.applies`).
const APPLICABLE_CONFIG_GUIS: [&str; 9] = [
    "LoginConfigGui",
    "HttpDefaultsGui",
    "SimpleConfigGui",
    "HeaderPanel",
    "DNSCachePanel",
    "AuthPanel",
    "CacheManagerGui",
    "CookiePanel",
    "TestBeanGUI",
];

/// One query or form argument (`HTTPArgument`).
pub struct HttpArg {
    pub name: Template,
    pub value: Template,
    /// `HTTPArgument.always_encode`: form-URL-encode name and value.
    pub always_encode: bool,
    /// `HTTPArgument.use_equals`: write `=` even when the value is empty.
    pub use_equals: bool,
}

/// One file to upload (`HTTPFileArg`).
pub struct FileArg {
    pub path: Template,
    pub param: Template,
    pub mime: Template,
}

/// A user-defined cookie of a Cookie Manager.
#[derive(Clone)]
pub struct StaticCookie {
    pub name: String,
    pub value: Template,
    pub domain: Template,
    pub path: Template,
    /// Sent over https only.
    pub secure: bool,
}

/// The Cookie Manager in effect for a sampler.
pub struct CookieManagerSpec {
    /// Identifies the manager, so each user keeps one jar per manager.
    pub key: String,
    pub clear_each_iteration: bool,
    /// `CookieManager.controlledByThreadGroup`: clear when the thread group starts a
    /// new user each iteration, instead of following `clear_each_iteration`.
    pub controlled_by_thread_group: bool,
    /// `ignoreCookies` policy: neither store nor send.
    pub ignore: bool,
    pub cookies: Vec<StaticCookie>,
}

/// One Authorization Manager entry.
pub struct AuthEntry {
    pub url: Template,
    pub username: Template,
    pub password: Template,
    pub mechanism: String,
}

/// Everything an HTTP Request needs, read once at plan time.
pub struct HttpSpec {
    pub domain: Template,
    pub port: Template,
    pub protocol: Template,
    pub path: Template,
    pub method: Template,
    pub content_encoding: Template,
    pub connect_timeout: Template,
    pub response_timeout: Template,
    /// `HttpClient4` (empty) or `Java`: decides how transport errors are named.
    pub implementation: Template,
    pub follow_redirects: bool,
    pub auto_redirects: bool,
    pub keep_alive: bool,
    pub multipart: bool,
    pub browser_compatible_multipart: bool,
    pub post_body_raw: bool,
    /// `HTTPSampler.md5`: keep only the MD5 of the body as response data.
    pub md5: bool,
    pub args: Vec<HttpArg>,
    pub files: Vec<FileArg>,
    /// Merged Header Manager headers, in the order they are sent.
    pub headers: Vec<(String, Template)>,
    pub cookie_manager: Option<CookieManagerSpec>,
    pub auth: Vec<AuthEntry>,
    /// The DNS Cache Manager in scope: per-user cache, static hosts and DNS servers.
    pub dns_manager: Option<DnsManagerSpec>,
    /// `HTTPSampler.ipSource`: the local address (or interface) requests are sent from.
    pub ip_source: Template,
    /// `HTTPSampler.ipSourceType`: 0 IP/hostname, 1 device, 2 device IPv4, 3 device IPv6.
    pub ip_source_type: u8,
    pub cache_manager: Option<CacheManagerSpec>,
    /// `HTTPSampler.image_parser`: retrieve all embedded resources.
    pub embedded_resources: bool,
    /// `HTTPSampler.embedded_url_re` and `HTTPSampler.embedded_url_exclude_re`.
    pub embedded_allow: String,
    pub embedded_exclude: String,
    /// `HTTPSampler.concurrentDwn`: fetch embedded resources in parallel.
    pub concurrent_download: bool,
    /// `HTTPSampler.concurrentPool`: how many at most at once.
    pub concurrent_pool: Template,
    /// The sample's bytes are the response body's alone, as JMeter 2's SOAP/XML-RPC
    /// Request (HttpClient 3) counted them.
    pub body_bytes_only: bool,
}

/// Reads the sampler and merges the config elements that apply to it.
pub fn read(cx: &mut BuildContext<'_>, configs: &[&Element]) -> HttpSpec {
    let configs: Vec<&Element> = configs
        .iter()
        .copied()
        .filter(|c| APPLICABLE_CONFIG_GUIS.contains(&short_gui(c)))
        .collect();
    let defaults: Vec<&Element> = configs
        .iter()
        .copied()
        .filter(|c| short_gui(c) == "HttpDefaultsGui")
        .collect();
    let text = |cx: &mut BuildContext<'_>, name: &str| -> Template {
        let own = cx.raw(name).filter(|t| !t.is_empty());
        let merged = own.or_else(|| {
            defaults
                .iter()
                .find_map(|d| d.str_prop(name).filter(|t| !t.is_empty()))
        });
        cx.compile(merged.unwrap_or(""))
    };
    let mut args = Vec::new();
    if let Some(prop) = cx.element.prop("HTTPsampler.Arguments") {
        read_args(cx, prop, &mut args);
    }
    for d in &defaults {
        if let Some(prop) = d.prop("HTTPsampler.Arguments") {
            read_args(cx, prop, &mut args);
        }
    }
    let files = read_files(cx);
    let defaults_flag = |cx: &BuildContext<'_>, name: &str| -> bool {
        let truthy = |t: &str| t.trim().eq_ignore_ascii_case("true");
        match cx.raw(name) {
            Some(own) => truthy(own),
            None => defaults
                .iter()
                .find_map(|d| d.str_prop(name))
                .is_some_and(truthy),
        }
    };
    let embedded_resources = defaults_flag(cx, "HTTPSampler.image_parser");
    let merged_text = |cx: &BuildContext<'_>, name: &str| -> String {
        cx.raw(name)
            .filter(|t| !t.is_empty())
            .or_else(|| {
                defaults
                    .iter()
                    .find_map(|d| d.str_prop(name).filter(|t| !t.is_empty()))
            })
            .unwrap_or("")
            .to_string()
    };
    let embedded_allow = merged_text(cx, "HTTPSampler.embedded_url_re");
    let embedded_exclude = merged_text(cx, "HTTPSampler.embedded_url_exclude_re");
    let concurrent_download = defaults_flag(cx, "HTTPSampler.concurrentDwn");
    let ip_source_type = cx
        .raw("HTTPSampler.ipSourceType")
        .or_else(|| {
            defaults
                .iter()
                .find_map(|d| d.str_prop("HTTPSampler.ipSourceType"))
        })
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    HttpSpec {
        domain: text(cx, "HTTPSampler.domain"),
        port: text(cx, "HTTPSampler.port"),
        protocol: text(cx, "HTTPSampler.protocol"),
        path: text(cx, "HTTPSampler.path"),
        method: text(cx, "HTTPSampler.method"),
        content_encoding: text(cx, "HTTPSampler.contentEncoding"),
        connect_timeout: text(cx, "HTTPSampler.connect_timeout"),
        response_timeout: text(cx, "HTTPSampler.response_timeout"),
        implementation: text(cx, "HTTPSampler.implementation"),
        follow_redirects: cx.flag("HTTPSampler.follow_redirects", false),
        auto_redirects: cx.flag("HTTPSampler.auto_redirects", false),
        keep_alive: cx.flag("HTTPSampler.use_keepalive", false),
        multipart: cx.flag("HTTPSampler.DO_MULTIPART_POST", false),
        browser_compatible_multipart: cx.flag("HTTPSampler.BROWSER_COMPATIBLE_MULTIPART", false),
        post_body_raw: cx.flag("HTTPSampler.postBodyRaw", false),
        md5: cx.flag("HTTPSampler.md5", false),
        args,
        files,
        headers: merge_headers(cx, &configs),
        cookie_manager: cookie_manager(cx, &configs),
        auth: auth_entries(cx, &configs),
        dns_manager: dns_manager(cx, &configs),
        ip_source: text(cx, "HTTPSampler.ipSource"),
        ip_source_type,
        cache_manager: cache_manager(&configs),
        embedded_resources,
        embedded_allow,
        embedded_exclude,
        concurrent_download,
        concurrent_pool: text(cx, "HTTPSampler.concurrentPool"),
        body_bytes_only: false,
    }
}

fn short_gui(element: &Element) -> &str {
    element.gui.rsplit('.').next().unwrap_or("")
}

fn str_child<'a>(prop: &'a Property, name: &str) -> Option<&'a str> {
    prop.child(name).and_then(Property::as_str)
}

fn bool_child(prop: &Property, name: &str, absent: bool) -> bool {
    str_child(prop, name).map_or(absent, |t| t.trim().eq_ignore_ascii_case("true"))
}

fn read_args(cx: &mut BuildContext<'_>, prop: &Property, out: &mut Vec<HttpArg>) {
    let items = match prop.child("Arguments.arguments") {
        Some(collection) => collection.children(),
        None => prop.children(),
    };
    for item in items {
        let name = str_child(item, "Argument.name").unwrap_or("");
        let value = str_child(item, "Argument.value").unwrap_or("");
        out.push(HttpArg {
            name: cx.compile(name),
            value: cx.compile(value),
            always_encode: bool_child(item, "HTTPArgument.always_encode", false),
            use_equals: bool_child(item, "HTTPArgument.use_equals", true),
        });
    }
}

fn read_files(cx: &mut BuildContext<'_>) -> Vec<FileArg> {
    let Some(prop) = cx.element.prop("HTTPsampler.Files") else {
        return Vec::new();
    };
    let items = match prop.child("HTTPFileArgs.files") {
        Some(collection) => collection.children().to_vec(),
        None => Vec::new(),
    };
    items
        .iter()
        .filter(|item| !str_child(item, "File.path").unwrap_or("").is_empty())
        .map(|item| FileArg {
            path: cx.compile(str_child(item, "File.path").unwrap_or("")),
            param: cx.compile(str_child(item, "File.paramname").unwrap_or("")),
            mime: cx.compile(str_child(item, "File.mimetype").unwrap_or("")),
        })
        .collect()
}

/// Header Managers innermost first: a name already taken by an inner manager is skipped.
/// A row without a name is kept, as JMeter keeps it: HttpClient then sends a `: value`
/// line.
pub(in crate::samplers) fn merge_headers(
    cx: &mut BuildContext<'_>,
    configs: &[&Element],
) -> Vec<(String, Template)> {
    let mut merged: Vec<(String, Template)> = Vec::new();
    for manager in configs.iter().filter(|c| short_gui(c) == "HeaderPanel") {
        let Some(list) = manager.prop("HeaderManager.headers") else {
            continue;
        };
        let mut own: Vec<(String, Template)> = Vec::new();
        for header in list.children() {
            let name = str_child(header, "Header.name").unwrap_or("").trim();
            if merged.iter().any(|(n, _)| n.eq_ignore_ascii_case(name)) {
                continue;
            }
            let value = str_child(header, "Header.value").unwrap_or("");
            own.push((name.to_string(), cx.compile(value)));
        }
        merged.extend(own);
    }
    merged
}

/// The outermost Cookie Manager in scope (JMeter's replace-as-you-go merge keeps it).
pub(in crate::samplers) fn cookie_manager(
    cx: &mut BuildContext<'_>,
    configs: &[&Element],
) -> Option<CookieManagerSpec> {
    let manager = configs
        .iter()
        .rev()
        .find(|c| short_gui(c) == "CookiePanel")?;
    let flag = |name: &str| {
        manager
            .str_prop(name)
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("true"))
    };
    let policy = manager
        .str_prop("CookieManager.policy")
        .unwrap_or("standard");
    let mut cookies = Vec::new();
    if let Some(list) = manager.prop("CookieManager.cookies") {
        for cookie in list.children() {
            cookies.push(StaticCookie {
                name: cookie.name.clone(),
                value: cx.compile(str_child(cookie, "Cookie.value").unwrap_or("")),
                domain: cx.compile(str_child(cookie, "Cookie.domain").unwrap_or("")),
                path: cx.compile(str_child(cookie, "Cookie.path").unwrap_or("")),
                secure: bool_child(cookie, "Cookie.secure", false),
            });
        }
    }
    Some(CookieManagerSpec {
        key: manager.location(),
        clear_each_iteration: flag("CookieManager.clearEachIteration"),
        controlled_by_thread_group: flag("CookieManager.controlledByThreadGroup"),
        ignore: policy.eq_ignore_ascii_case("ignoreCookies"),
        cookies,
    })
}

/// The outermost Cache Manager in scope (JMeter's `setCacheManager` keeps the last one
/// set, which is the outermost).
fn cache_manager(configs: &[&Element]) -> Option<CacheManagerSpec> {
    let manager = configs
        .iter()
        .rev()
        .find(|c| short_gui(c) == "CacheManagerGui")?;
    let flag = |name: &str| {
        manager
            .str_prop(name)
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("true"))
    };
    Some(CacheManagerSpec {
        key: manager.location(),
        clear_each_iteration: flag("clearEachIteration"),
        controlled_by_thread: flag("CacheManager.controlledByThread"),
        use_expires: flag("useExpires"),
        max_size: manager
            .str_prop("maxSize")
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(5000),
    })
}

/// The outermost Authorization Manager's entries (only one manager is used).
fn auth_entries(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Vec<AuthEntry> {
    let Some(manager) = configs.iter().rev().find(|c| short_gui(c) == "AuthPanel") else {
        return Vec::new();
    };
    let Some(list) = manager.prop("AuthManager.auth_list") else {
        return Vec::new();
    };
    let mut entries = Vec::new();
    for entry in list.children() {
        let mechanism = str_child(entry, "Authorization.mechanism")
            .unwrap_or("BASIC")
            .trim()
            .to_ascii_uppercase();
        if !matches!(mechanism.as_str(), "BASIC" | "DIGEST" | "BASIC_DIGEST") {
            cx.warn(format!(
                "Authorization Manager mechanism {mechanism} is not supported; its credentials are not sent"
            ));
        }
        entries.push(AuthEntry {
            url: cx.compile(str_child(entry, "Authorization.url").unwrap_or("")),
            username: cx.compile(str_child(entry, "Authorization.username").unwrap_or("")),
            password: cx.compile(str_child(entry, "Authorization.password").unwrap_or("")),
            mechanism,
        });
    }
    entries
}

/// The outermost DNS Cache Manager in scope (only one is used, as for the other managers).
fn dns_manager(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Option<DnsManagerSpec> {
    let manager = configs.iter().rev().find(|c| {
        short_gui(c) == "DNSCachePanel" || c.class.rsplit('.').next() == Some("DNSCacheManager")
    })?;
    let flag = |name: &str| {
        manager
            .str_prop(name)
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("true"))
    };
    let servers = manager
        .prop("DNSCacheManager.servers")
        .map(|list| {
            list.children()
                .iter()
                .filter_map(Property::as_str)
                .map(|server| cx.compile(server))
                .collect()
        })
        .unwrap_or_default();
    let static_hosts = manager
        .prop("DNSCacheManager.hosts")
        .map(|list| {
            list.children()
                .iter()
                .filter_map(|host| {
                    let name = str_child(host, "StaticHost.Name")?.trim();
                    let address = str_child(host, "StaticHost.Address")?.trim();
                    (!name.is_empty()).then(|| (name.to_ascii_lowercase(), address.to_string()))
                })
                .collect()
        })
        .unwrap_or_default();
    Some(DnsManagerSpec {
        key: manager.location(),
        clear_each_iteration: flag("DNSCacheManager.clearEachIteration"),
        custom: flag("DNSCacheManager.isCustomResolver"),
        servers,
        static_hosts,
    })
}
