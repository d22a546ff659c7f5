//! HTTP Request (`HTTPSamplerProxy`, and the legacy `HTTPSampler`/`HTTPSampler2`
//! classes), with the managers and defaults that reach it through its scope.
//!
//! How the parts connect:
//! * [`config`] reads the sampler and merges HTTP Request Defaults, Header, Cookie and
//!   Authorization Managers once, at plan time, into an [`config::HttpSpec`].
//! * At sample time [`request`] evaluates the templates into a URL and a body ([`form`]
//!   has the form-body rules of JMeter's two implementations), [`uri_syntax`] makes the
//!   URL check HttpClient 4's implementation makes before sending, [`head`] writes the
//!   request head (headers in HttpClient 4's order, with JMeter's Header Manager rules)
//!   and [`client`] exchanges it over the user's own keep-alive connections.
//! * [`response`] turns the answer or the transport error into a `SampleResult`;
//!   redirects followed by JMeter become sub-results here, as `HTTPSamplerBase` makes them.
//! * Each virtual user keeps its connections and cookie jars in one slot
//!   ([`UserHttp`]), shared by all its HTTP samplers, as a JMeter thread does.
//!
//! * [`embedded`] fetches the resources of HTML and CSS responses as sub-results when
//!   "Retrieve All Embedded Resources" is on; [`parallel_requests`] (bzm Parallel HTTP
//!   Requests) fetches a list of URLs the same way, as the resources of a page it makes.
//!
//! * [`dns`] is the DNS Cache Manager (per-user cache, static hosts, DNS servers) and
//!   [`source`] the source address (`ipSource`) new connections are bound to.
//!
//! HTTPS is in [`tls`] (any certificate trusted by default, as in JMeter). HTTP/2 is in
//! [`http2`], used by the bzm HTTP/2 Sampler ([`bzm`] maps its properties) and by HTTP
//! Requests when the run sets [`HTTP2_PROPERTY`]. Not done yet (reported by `jmxr check`
//! through the registry notes): Kerberos.

mod auth;
mod branch;
mod bzm;
mod cache;
mod client;
mod config;
mod cookies;
mod dns;
mod embedded;
mod file;
mod form;
mod head;
mod http2;
pub mod keystore;
pub mod mirror;
pub use branch::{lend_to_branch, take_back_from_branch};
pub mod link_parser;
mod parallel;
mod parallel_requests;
mod redirects;
pub mod regex_user_parameters;
pub mod replay;
mod request;
mod response;
mod soap;
mod source;
mod tls;
mod uri_syntax;
mod url;
pub mod url_rewriting;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;

use crate::jmx::Element;
use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::SampleResult;

use self::config::HttpSpec;
use super::new_result;
use crate::foundation::clock::{wall_clock_ms, wall_clock_ms_at};

pub(super) use self::bzm::build as build_bzm_http2;
pub(super) use self::parallel_requests::build as build_parallel_http_requests;
pub(super) use self::soap::build as build_soap;
// The WebSocket samplers' upgrade request takes its headers, cookies and TLS from here.
pub(super) use self::config::{cookie_manager, merge_headers, CookieManagerSpec};
// The gRPC sampler's channel is HTTP/2 over the same TLS, offering only h2.
pub(super) use self::tls::{
    handshake as tls_handshake, handshake_h2_only, trust_all_config, verifying_config, Stream,
    VERIFY_PROPERTY,
};
// The SSE samplers open their streams with the HTTP sampler's connect, TLS and errors.
pub(super) use self::client::{
    connect_with_user_dns, Outgoing, Pool, TransportError, DEFAULT_MAX_BODY,
};
pub(super) use self::response::fill_error;
pub(super) use self::url::Url;

/// The JMeter property that sends HTTP Requests over HTTP/2 where the server offers it.
pub const HTTP2_PROPERTY: &str = "jmxr.http.http2";

/// The slot holding a user's HTTP state; one per user whatever the sampler, as JMeter's
/// per-thread HttpClient state is.
const HTTP_SLOT: usize = usize::MAX - 0x4854;

/// What a virtual user keeps between HTTP samples.
#[derive(Default)]
struct UserHttp {
    pool: Pool,
    /// HTTP/2 connections, for samplers that use HTTP/2.
    h2: http2::Sessions,
    /// The thread-group iteration of the last request.
    iteration: Option<u64>,
    /// One jar per Cookie Manager, keyed by the manager's location in the plan.
    jars: HashMap<String, cookies::Jar>,
    /// One cache per Cache Manager, keyed likewise.
    caches: HashMap<String, cache::Cache>,
    /// Set in the copy of a user that downloads an embedded resource in parallel when
    /// `httpsampler.embedded_resources_use_md5` is true: bodies keep only their MD5.
    md5_only: bool,
}

impl UserHttp {
    /// Sends `out` over HTTP/2 where offered when `http2`, else over HTTP/1.1.
    async fn exchange(
        &mut self,
        out: &Outgoing<'_>,
        started: Instant,
        http2: bool,
    ) -> Result<client::Incoming, TransportError> {
        if http2 {
            // Boxed: its future is twice the HTTP/1.1 one's, and inline it would make
            // every sample's future as large.
            Box::pin(http2::exchange(&mut self.h2, &mut self.pool, out, started)).await
        } else {
            client::exchange(&mut self.pool, out, started).await
        }
    }
}

/// The user's state for one manager (cookie jar, cache), made on first use; looked up
/// without copying the key, since this runs for every request.
fn per_manager<'m, V: Default>(map: &'m mut HashMap<String, V>, key: &str) -> &'m mut V {
    if !map.contains_key(key) {
        map.insert(key.to_string(), V::default());
    }
    map.get_mut(key).expect("inserted above")
}

/// What jmxr sends as `User-Agent` unless the plan sets one.
const USER_AGENT: &str = concat!("jmxr/", env!("CARGO_PKG_VERSION"));

/// An HTTP Request with its merged configuration.
pub struct HttpSampler {
    spec: HttpSpec,
    /// For requests whose method and URL follow from constants and properties alone:
    /// the request as made at a property version (`None` inside when it has a body).
    kept_request: Option<parking_lot::RwLock<(u64, Option<Arc<FixedRequest>>)>>,
    /// Connect and response timeouts when both are constants.
    fixed_timeouts: Option<(Option<Duration>, Option<Duration>)>,
    /// Set when the sampler retrieves embedded resources.
    embedded: Option<embedded::EmbeddedSpec>,
    /// HTTPS requests offer HTTP/2 in ALPN and use it when the server agrees.
    http2: bool,
    /// A Header Manager in scope sets `Transfer-Encoding`, which HttpClient refuses on a
    /// request with a body.
    sets_transfer_encoding: bool,
    /// A Header Manager in scope sets `Connection`: a `close` among the values sent ends
    /// the connection after the response, as HttpClient's reuse strategy reads the
    /// request's headers too.
    sets_connection: bool,
    /// Which of JMeter's implementations the sampler stands for.
    implementation: Implementation,
    /// Largest response body read or decoded (`jmxr.http.max_response_body`).
    max_body: usize,
}

/// JMeter's HTTP implementation of a sampler: HttpClient 4 unless the sampler's field
/// (or, when empty, property `jmeter.httpsampler`, read once as JMeter does) says `Java`.
enum Implementation {
    /// The field is constant text.
    Fixed { java: bool },
    /// The field has variables or functions; `default_java` applies when it comes out empty.
    Evaluated { default_java: bool },
}

/// A request whose method and URL follow from constants and properties alone.
struct FixedRequest {
    method: String,
    url: Url,
    /// `url` as text.
    url_text: String,
    /// The request's head when it follows from constants too (see [`KeptHead`]).
    head: Option<head::KeptHead>,
}

/// The version a kept request starts at: properties never reach it.
const NOT_MADE_YET: u64 = u64::MAX;

/// Builds an HTTP Request from its element and the config elements in its scope.
pub(super) fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Arc<dyn Sampler> {
    let http2 = cx
        .properties
        .get(HTTP2_PROPERTY)
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    build_with(cx, configs, http2, |_| {})
}

/// Builds an HTTP Request; `adjust` changes the merged configuration (a plugin's own
/// defaults) before the rest is derived from it.
fn build_with(
    cx: &mut BuildContext<'_>,
    configs: &[&Element],
    http2: bool,
    adjust: impl FnOnce(&mut HttpSpec),
) -> Arc<dyn Sampler> {
    Arc::new(http_sampler(cx, configs, http2, adjust))
}

/// The HTTP Request [`build_with`] makes, for plugin samplers that wrap one.
fn http_sampler(
    cx: &mut BuildContext<'_>,
    configs: &[&Element],
    http2: bool,
    adjust: impl FnOnce(&mut HttpSpec),
) -> HttpSampler {
    let mut spec = config::read(cx, configs);
    adjust(&mut spec);
    let kept_request = request::url_reads_only_properties(&spec)
        .then(|| parking_lot::RwLock::new((NOT_MADE_YET, None)));
    let fixed_timeouts = match (
        spec.connect_timeout.as_literal(),
        spec.response_timeout.as_literal(),
    ) {
        (Some(connect), Some(response)) => Some((timeout(connect), timeout(response))),
        _ => None,
    };
    let embedded = spec.embedded_resources.then(|| {
        let (embedded, warnings) =
            embedded::EmbeddedSpec::new(&spec.embedded_allow, &spec.embedded_exclude);
        for warning in warnings {
            cx.warn(warning);
        }
        embedded
    });
    let default_java = cx
        .properties
        .get("jmeter.httpsampler")
        .is_some_and(|name| name.trim().eq_ignore_ascii_case("Java"));
    let implementation = match spec.implementation.as_literal() {
        Some(own) if own.trim().is_empty() => Implementation::Fixed { java: default_java },
        Some(own) => Implementation::Fixed {
            java: own.trim().eq_ignore_ascii_case("Java"),
        },
        None => Implementation::Evaluated { default_java },
    };
    let sets = |header: &str| {
        spec.headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case(header))
    };
    let max_body = cx
        .properties
        .get(client::MAX_BODY_PROPERTY)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(client::DEFAULT_MAX_BODY);
    let sets_transfer_encoding = sets("Transfer-Encoding");
    let sets_connection = sets("Connection");
    HttpSampler {
        spec,
        kept_request,
        fixed_timeouts,
        embedded,
        http2,
        sets_transfer_encoding,
        sets_connection,
        implementation,
        max_body,
    }
}

/// A timeout in ms; empty, 0 or invalid means none.
fn timeout(text: &str) -> Option<Duration> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|ms| *ms > 0)
        .map(Duration::from_millis)
}

/// One hop's request, evaluated.
struct Hop<'a> {
    url: &'a Url,
    /// `url` as text.
    url_text: &'a str,
    method: &'a str,
    body: Option<&'a request::Body>,
    /// The head this request is sent with when nothing of the user's adds to it.
    kept_head: Option<&'a head::KeptHead>,
}

impl HttpSampler {
    /// One sample; [`Sampler::sample`] boxes it for the engine.
    ///
    /// The result lives in its shared allocation from the hop that makes it to the
    /// recorded sample: a `SampleResult` is several hundred bytes, and returned by value
    /// it was copied at every step of the way (hop, redirects, resources, boxing).
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        if let Some(kept) = self.kept_request(cx) {
            let FixedRequest {
                method,
                url,
                url_text,
                head,
            } = &*kept;
            if url.scheme != "file" {
                let hop = Hop {
                    url,
                    url_text,
                    method,
                    body: None,
                    kept_head: head.as_ref(),
                };
                if let Some(cached) = self.answered_from_cache(cx, url_text, method) {
                    return cached.map(Arc::new);
                }
                let first = self.one_hop(cx, &hop).await;
                return Some(self.after_first(cx, first, method, 0).await);
            }
        }
        let label = cx.label.clone();
        let method = self.method(cx, &label);
        let java = self.java_implementation(cx);
        let (url, body) = match request::build_url(&self.spec, cx.user, &label, &method, java) {
            Ok(built) => built,
            Err(failed) => {
                let url = failed.url.map(|url| url.to_string());
                let method = url.is_some().then_some(method);
                // Without a URL, JMeter's sampler fails before it names its result:
                // the row has an empty label (`HTTPSamplerBase.sample`).
                let label = if url.is_some() { label } else { Arc::from("") };
                return Some(Arc::new(failed_before_sending(
                    cx,
                    label,
                    url,
                    method,
                    &failed.error,
                )));
            }
        };
        if url.scheme == "file" {
            let encoding = self.spec.content_encoding.eval(&mut cx.user.eval(&label));
            if self.embedded.is_none() {
                return Some(Arc::new(file::sample(cx, label, &url, &encoding)));
            }
            // Java's file URL connection labels the sample with the URL, which names the
            // sub-results; the sampler's name goes on the top result at the end.
            let page = file::sample(cx, Arc::from(url.to_string()), &url, &encoding);
            let mut result = self.with_embedded_resources(cx, Arc::new(page), 0).await;
            unshared(&mut result).label = label;
            return Some(result);
        }
        let url_text = url.to_string();
        if let Err(error) = self.client_accepts(cx, &url, &url_text) {
            let (url, method) = (Some(url_text), Some(method));
            return Some(Arc::new(failed_before_sending(
                cx, label, url, method, &error,
            )));
        }
        let hop = Hop {
            url: &url,
            url_text: &url_text,
            method: &method,
            body: body.as_ref(),
            kept_head: None,
        };
        if let Some(cached) = self.answered_from_cache(cx, &url_text, &method) {
            return cached.map(Arc::new);
        }
        let first = self.one_hop(cx, &hop).await;
        Some(self.after_first(cx, first, &method, 0).await)
    }
}

#[async_trait]
impl Sampler for HttpSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        let mut result = self.sample_unboxed(cx).await?;
        if self.spec.body_bytes_only {
            let result = unshared(&mut result);
            result.headers_size = 0;
            result.body_size = None;
        }
        Some(result)
    }
}

impl HttpSampler {
    /// Redirects after the first response, as the sampler is set to handle them, then
    /// the embedded resources of the page (`HTTPSamplerBase.resultProcessing`): when
    /// JMeter follows the redirects, each hop has fetched its own resources already.
    /// `depth` is the frame depth of the page (0 for the sampler's own URL).
    /// The method, upper case; empty means GET.
    fn method(&self, cx: &mut SampleContext<'_>, label: &str) -> String {
        let text = self.spec.method.eval(&mut cx.user.eval(label));
        let text = text.trim().to_ascii_uppercase();
        if text.is_empty() {
            "GET".to_string()
        } else {
            text
        }
    }

    /// The method and URL kept for the current property version, made again after a
    /// property changed. `None` when the sampler builds its request every time: its
    /// fields use variables, it sends a body, or building failed (the ordinary path then
    /// reports it). That answer is kept too, so it is not worked out again per sample.
    fn kept_request(&self, cx: &mut SampleContext<'_>) -> Option<Arc<FixedRequest>> {
        let kept = self.kept_request.as_ref()?;
        if request::changed_by_preprocessors(cx.user) {
            return None;
        }
        let label = cx.label.clone();
        let version = cx.user.eval(&label).props.version();
        {
            let (at, request) = &*kept.read();
            if *at == version {
                return request.clone();
            }
        }
        let method = self.method(cx, &label);
        let java = self.java_implementation(cx);
        let request = match request::build_url(&self.spec, cx.user, &label, &method, java) {
            Ok((url, None)) => {
                let text = url.to_string();
                let legal = url.scheme == "file" || self.client_accepts(cx, &url, &text).is_ok();
                legal.then(|| {
                    let head = self.kept_head(cx, &url, &text, &method);
                    Arc::new(FixedRequest {
                        method,
                        url,
                        url_text: text,
                        head,
                    })
                })
            }
            _ => None,
        };
        *kept.write() = (version, request.clone());
        request
    }

    async fn after_first(
        &self,
        cx: &mut SampleContext<'_>,
        first: Arc<SampleResult>,
        method: &str,
        depth: usize,
    ) -> Arc<SampleResult> {
        let redirect = first.redirect_location.is_some();
        // Redirects are boxed: their futures hold further requests, and kept inline they
        // would make every sample's future (moved at each call) several times larger.
        let result = if redirect && self.spec.auto_redirects && matches!(method, "GET" | "HEAD") {
            Arc::new(Box::pin(self.auto_redirects(cx, Arc::unwrap_or_clone(first))).await)
        } else if redirect && self.spec.follow_redirects && !self.spec.auto_redirects {
            let first = Arc::unwrap_or_clone(first);
            return Arc::new(Box::pin(self.follow_redirects(cx, first, depth)).await);
        } else {
            first
        };
        self.with_embedded_resources(cx, result, depth).await
    }

    /// Sends one request and records it as one sample.
    async fn one_hop(&self, cx: &mut SampleContext<'_>, hop: &Hop<'_>) -> Arc<SampleResult> {
        let label = cx.label.clone();
        let mut shared = SampleResult::new_shared(label.clone());
        let result = unshared(&mut shared);
        result.thread_name = cx.user.thread.thread_name.clone();
        result.is_http = true;
        result.url = Some(hop.url_text.to_string());
        result.http_method = method_text(hop.method);
        let (head, request_headers, cookie) = self.request_head(cx, hop, None);
        result.request_headers = request_headers;
        result.cookies = cookie;
        result.query_string = match hop.body {
            Some(body) => body.shown.clone(),
            // A byte search: paths are short, and `split_once` costs more to start.
            None => {
                let path = hop.url.path_and_query.as_str();
                match path.bytes().position(|b| b == b'?') {
                    Some(at) => path[at + 1..].to_string(),
                    None => String::new(),
                }
            }
        };
        result.sampler_data = sampler_data(hop, &result.cookies);
        if self.refuses_transfer_encoding(cx, hop) {
            result.start_time = wall_clock_ms();
            result.end_time = result.start_time;
            response::fill_error(result, &head::transfer_encoding_refused());
            return shared;
        }
        let (connect_timeout, read_timeout) = match self.fixed_timeouts {
            Some(fixed) => fixed,
            None => self.timeouts(cx, &label),
        };
        let local_address = match self.source_address(cx).await {
            Ok(local) => local,
            Err(error) => {
                result.start_time = wall_clock_ms();
                result.end_time = result.start_time;
                response::fill_error(result, &error);
                return shared;
            }
        };
        let client_cert = if hop.url.scheme == "https" {
            let vars = &cx.user.vars;
            keystore::ClientCert::for_sample(&cx.user.run, |name| {
                vars.get(name).map(str::to_string)
            })
        } else {
            None
        };
        let mut out = Outgoing {
            url: hop.url,
            method: hop.method,
            head: head.as_bytes(),
            body: hop.body.map_or(&[][..], |b| &b.bytes[..]),
            keep_alive: self.spec.keep_alive
                && !(self.sets_connection && asks_to_close(&result.request_headers)),
            connect_timeout,
            read_timeout,
            verify_certificates: hop.url.scheme == "https" && verify_certificates(cx),
            client_cert: client_cert.as_ref(),
            dns: self.spec.dns_manager.as_ref(),
            local_address,
            max_body: self.max_body,
        };
        self.reset_connections_for_a_new_user(cx);
        // One clock read for both: the stamp and the start of the elapsed time.
        let started = Instant::now();
        let start_ms = wall_clock_ms_at(started);
        let mut exchanged = {
            let (state, run) = cx.user.slot_and_run(HTTP_SLOT, UserHttp::default);
            let exchange = std::pin::pin!(state.exchange(&out, started, self.http2));
            interruptible(exchange, run).await
        };
        // A Digest challenge is answered within the same sample, as HttpClient does.
        if let Some(answer) = self.digest_answer(cx, hop, &exchanged) {
            let (answered, request_headers, _) = self.request_head(cx, hop, Some(&answer));
            out.head = answered.as_bytes();
            result.request_headers = request_headers;
            let (state, run) = cx.user.slot_and_run(HTTP_SLOT, UserHttp::default);
            let exchange = std::pin::pin!(state.exchange(&out, started, self.http2));
            exchanged = interruptible(exchange, run).await;
        }
        let elapsed = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        result.start_time = start_ms;
        result.elapsed = elapsed;
        result.end_time = start_ms + elapsed;
        match exchanged {
            Ok(incoming) => {
                if http2::answered(&incoming) {
                    result.request_headers = http2::sent_headers(&result.request_headers);
                }
                let set_cookies: Vec<String> =
                    if incoming.known_header(client::Known::SetCookie).is_some() {
                        incoming
                            .headers()
                            .filter(|(n, _)| n.eq_ignore_ascii_case("Set-Cookie"))
                            .map(|(_, v)| v.to_string())
                            .collect()
                    } else {
                        Vec::new()
                    };
                response::fill(result, incoming, self.max_body);
                let md5_only =
                    self.embedded.is_some() && cx.user.slot(HTTP_SLOT, UserHttp::default).md5_only;
                if self.spec.md5 || md5_only {
                    result.response_data = auth::md5_hex(&result.response_data).into_bytes();
                }
                self.store_cookies(cx, hop.url, &set_cookies);
                self.save_in_cache(cx, result);
            }
            Err(error) if self.java_implementation(cx) => {
                response::fill_error(result, &java_error(error));
            }
            Err(error) => response::fill_error(result, &error),
        }
        shared
    }

    /// The checks HttpClient 4's implementation makes before sending: the URL must be a
    /// `java.net.URI` (`URL.toURI`), and one with a host (an empty domain fails with
    /// HttpClient's "URI does not specify a valid host name"). Java's implementation
    /// sends the URL as it is.
    fn client_accepts(
        &self,
        cx: &mut SampleContext<'_>,
        url: &Url,
        url_text: &str,
    ) -> Result<(), TransportError> {
        let refused = match uri_syntax::check(url_text) {
            Err(message) => TransportError {
                class: uri_syntax::URI_SYNTAX_EXCEPTION,
                message,
            },
            Ok(()) if url.host.is_empty() => TransportError {
                class: "org.apache.http.client.ClientProtocolException",
                message: format!("URI does not specify a valid host name: {url_text}"),
            },
            Ok(()) => return Ok(()),
        };
        if self.java_implementation(cx) {
            return Ok(());
        }
        Err(refused)
    }

    /// The source address of the request, when the sampler sets one.
    async fn source_address(
        &self,
        cx: &mut SampleContext<'_>,
    ) -> Result<Option<std::net::IpAddr>, TransportError> {
        if self.spec.ip_source.as_literal() == Some("") {
            return Ok(None);
        }
        let label = cx.label.clone();
        let text = self.spec.ip_source.eval(&mut cx.user.eval(&label));
        source::source_address(&text, self.spec.ip_source_type).await
    }

    /// Whether the sampler runs as JMeter's `Java` implementation (its own field, the
    /// defaults', else property `jmeter.httpsampler`): error names, the URL check and
    /// the POST form body differ.
    fn java_implementation(&self, cx: &mut SampleContext<'_>) -> bool {
        match self.implementation {
            Implementation::Fixed { java } => java,
            Implementation::Evaluated { default_java } => {
                let label = cx.label.clone();
                let own = self.spec.implementation.eval(&mut cx.user.eval(&label));
                match own.trim() {
                    "" => default_java,
                    name => name.eq_ignore_ascii_case("Java"),
                }
            }
        }
    }

    fn timeouts(
        &self,
        cx: &mut SampleContext<'_>,
        label: &str,
    ) -> (Option<Duration>, Option<Duration>) {
        let mut ev = cx.user.eval(label);
        (
            timeout(&self.spec.connect_timeout.eval(&mut ev)),
            timeout(&self.spec.response_timeout.eval(&mut ev)),
        )
    }

    /// The user's jar for the Cookie Manager in scope (see [`user_jar`]).
    fn jar<'u>(&self, cx: &'u mut SampleContext<'_>) -> Option<&'u mut cookies::Jar> {
        user_jar(cx, self.spec.cookie_manager.as_ref())
    }

    /// The user's cache for the Cache Manager in scope, cleared at a new iteration when
    /// the manager asks.
    fn cache<'u>(&self, cx: &'u mut SampleContext<'_>) -> Option<&'u mut cache::Cache> {
        let manager = self.spec.cache_manager.as_ref()?;
        let iteration = cx.user.iteration;
        let clears = if manager.controlled_by_thread {
            !cx.user.same_user_on_next_iteration
        } else {
            manager.clear_each_iteration
        };
        let state = cx.user.slot(HTTP_SLOT, UserHttp::default);
        let cache = per_manager(&mut state.caches, &manager.key);
        if cache.iteration != Some(iteration) && clears {
            cache.clear();
        }
        cache.iteration = Some(iteration);
        Some(cache)
    }

    /// The Header Manager's headers as they will be sent (what a `Vary` entry is keyed by).
    fn manager_headers(&self, cx: &mut SampleContext<'_>) -> Vec<(String, String)> {
        let label = cx.label.clone();
        let mut ev = cx.user.eval(&label);
        self.spec
            .headers
            .iter()
            .map(|(name, value)| (name.clone(), value.eval(&mut ev)))
            .collect()
    }

    /// A GET the Cache Manager answers without a request: `Some(None)` when it makes no
    /// sample (JMeter's default), `Some(Some(result))` for the configured stand-in
    /// sample, `None` when the request must be sent.
    fn answered_from_cache(
        &self,
        cx: &mut SampleContext<'_>,
        url_text: &str,
        method: &str,
    ) -> Option<Option<SampleResult>> {
        if self.spec.cache_manager.is_none() || !method.eq_ignore_ascii_case("GET") {
            return None;
        }
        // Most requests have no entry: the headers are evaluated only for those that do.
        if !self.cache(cx)?.holds(url_text) {
            return None;
        }
        let sent = self.manager_headers(cx);
        let now = cache::now_ms();
        if !self.cache(cx)?.is_fresh(url_text, &sent, now) {
            return None;
        }
        let props = &cx.user.run.props;
        match cache::CachedMode::from_properties(|name| props.get(name).map(|v| v.to_string())) {
            cache::CachedMode::NoSample => Some(None),
            cache::CachedMode::Sample { code, message } => {
                let mut result = new_result(cx, cx.label.clone());
                result.is_http = true;
                result.url = Some(url_text.to_string());
                result.http_method = "GET".into();
                result.start_time = wall_clock_ms();
                result.end_time = result.start_time;
                result.response_code = code.into();
                result.response_message = message.into();
                result.set_success(true);
                Some(Some(result))
            }
        }
    }

    /// JMeter's `CacheManager.saveDetails` after a response.
    fn save_in_cache(&self, cx: &mut SampleContext<'_>, result: &SampleResult) {
        let Some(spec) = self.spec.cache_manager.as_ref() else {
            return;
        };
        let cacheable_method = cx
            .user
            .run
            .props
            .get_default("cacheable_methods", "GET")
            .split([' ', ','])
            .any(|m| m.eq_ignore_ascii_case(&result.http_method));
        let sent: Vec<(String, String)> = result
            .request_headers
            .lines()
            .filter_map(|line| line.split_once(':'))
            .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
            .collect();
        let url = result.url.clone().unwrap_or_default();
        if let Some(cache) = self.cache(cx) {
            cache.save(
                spec,
                cacheable_method,
                &result.response_code,
                &url,
                &result.response_headers,
                &sent,
                cache::now_ms(),
            );
        }
    }

    fn cookie_header(&self, cx: &mut SampleContext<'_>, url: &Url) -> String {
        self.jar(cx)
            .map(|jar| jar.header_for(url))
            .unwrap_or_default()
    }

    fn store_cookies(&self, cx: &mut SampleContext<'_>, url: &Url, values: &[String]) {
        if values.is_empty() {
            return;
        }
        if let Some(jar) = self.jar(cx) {
            let refs: Vec<&str> = values.iter().map(String::as_str).collect();
            jar.store(url, &refs);
        }
    }

    /// When the thread group starts a new user each iteration, the connections of the
    /// previous iteration are closed (`httpclient.reset_state_on_thread_group_iteration`,
    /// true unless set to false), as JMeter resets its HttpClient state. The DNS Cache
    /// Manager's cache of the user is cleared at a new iteration when the manager asks,
    /// and its servers are read on the user's first request.
    fn reset_connections_for_a_new_user(&self, cx: &mut SampleContext<'_>) {
        let iteration = cx.user.iteration;
        let reset = !cx.user.same_user_on_next_iteration
            && cx
                .user
                .run
                .props
                .get("httpclient.reset_state_on_thread_group_iteration")
                .is_none_or(|v| !v.trim().eq_ignore_ascii_case("false"));
        let state = cx.user.slot(HTTP_SLOT, UserHttp::default);
        if state.iteration != Some(iteration) {
            if reset && state.iteration.is_some() {
                state.pool.clear();
                state.h2.clear();
            }
            state.iteration = Some(iteration);
        }
        if let Some(manager) = &self.spec.dns_manager {
            if state.pool.dns_cache(manager, iteration).needs_servers() {
                let label = cx.label.clone();
                let mut ev = cx.user.eval(&label);
                let texts: Vec<String> = manager.servers.iter().map(|t| t.eval(&mut ev)).collect();
                let state = cx.user.slot(HTTP_SLOT, UserHttp::default);
                state
                    .pool
                    .dns_cache(manager, iteration)
                    .set_servers(texts.iter().map(String::as_str));
            }
        }
    }

    /// The `Authorization` answer to a Digest challenge in `exchanged`, when an
    /// Authorization Manager entry with Digest credentials applies.
    fn digest_answer(
        &self,
        cx: &mut SampleContext<'_>,
        hop: &Hop<'_>,
        exchanged: &Result<client::Incoming, TransportError>,
    ) -> Option<String> {
        let incoming = exchanged.as_ref().ok().filter(|i| i.status == 401)?;
        let challenge = incoming
            .headers()
            .filter(|(n, _)| n.eq_ignore_ascii_case("WWW-Authenticate"))
            .map(|(_, v)| v)
            .find(|v| {
                v.trim_start()
                    .get(..6)
                    .is_some_and(|p| p.eq_ignore_ascii_case("digest"))
            })?
            .to_string();
        let credentials = self.credentials(cx, hop.url)?;
        let cnonce = format!("{:016x}", rand::Rng::gen::<u64>(&mut cx.user.rng));
        auth::digest(
            &credentials,
            &challenge,
            hop.method,
            &hop.url.path_and_query,
            &cnonce,
        )
    }
}

/// The user's jar for `manager`, cleared at a new iteration when the manager asks, and
/// seeded with the manager's own cookies. One jar per manager and user, whichever
/// sampler uses it (HTTP Requests and WebSocket upgrades alike).
fn user_jar<'u>(
    cx: &'u mut SampleContext<'_>,
    manager: Option<&CookieManagerSpec>,
) -> Option<&'u mut cookies::Jar> {
    let manager = manager.filter(|m| !m.ignore)?;
    let label = cx.label.clone();
    let iteration = cx.user.iteration;
    let clears = if manager.controlled_by_thread_group {
        !cx.user.same_user_on_next_iteration
    } else {
        manager.clear_each_iteration
    };
    let fresh = {
        let state = cx.user.slot(HTTP_SLOT, UserHttp::default);
        let jar = per_manager(&mut state.jars, &manager.key);
        if jar.iteration != Some(iteration) && clears {
            jar.clear();
        }
        jar.iteration = Some(iteration);
        !std::mem::replace(&mut jar.seeded, true)
    };
    if fresh && !manager.cookies.is_empty() {
        let seeded: Vec<(String, String, String, String, bool)> = {
            let mut ev = cx.user.eval(&label);
            manager
                .cookies
                .iter()
                .map(|c| {
                    (
                        c.name.clone(),
                        c.value.eval(&mut ev),
                        c.domain.eval(&mut ev),
                        c.path.eval(&mut ev),
                        c.secure,
                    )
                })
                .collect()
        };
        let state = cx.user.slot(HTTP_SLOT, UserHttp::default);
        let jar = per_manager(&mut state.jars, &manager.key);
        for (name, value, domain, path, secure) in seeded {
            jar.add_static(&name, &value, &domain, &path, secure);
        }
    }
    let state = cx.user.slot(HTTP_SLOT, UserHttp::default);
    state.jars.get_mut(&manager.key)
}

/// The `Cookie` header value the user's jar for `manager` holds for a WebSocket upgrade
/// to `host:port/path` (`https` for `wss`), as JMeter's `getCookieHeaderForURL`.
pub(super) fn upgrade_cookie_header(
    cx: &mut SampleContext<'_>,
    manager: Option<&CookieManagerSpec>,
    https: bool,
    host: &str,
    port: u16,
    path: &str,
) -> Option<String> {
    let scheme = if https { "https" } else { "http" };
    let url = Url::from_parts(scheme, host, port, path);
    let header = user_jar(cx, manager)?.header_for(&url);
    (!header.is_empty()).then_some(header)
}

/// Stores the `Set-Cookie` values of a response from `url` (an event stream's) in the
/// user's jar for `manager`, as an HTTP Request's response stores them.
pub(super) fn store_cookies(
    cx: &mut SampleContext<'_>,
    manager: Option<&CookieManagerSpec>,
    url: &Url,
    set_cookie_values: &[&str],
) {
    if let Some(jar) = user_jar(cx, manager) {
        jar.store(url, set_cookie_values);
    }
}

/// Whether the run asked for certificate checking (see [`tls`]).
fn verify_certificates(cx: &SampleContext<'_>) -> bool {
    cx.user
        .run
        .props
        .get(tls::VERIFY_PROPERTY)
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
}

/// Ends the exchange when the run stops at once, as JMeter aborts the request in
/// progress (`HTTPHC4Impl.interrupt`): the sample fails with the `SocketException` the
/// aborted connection gives. Looking at the run's flag costs nothing per request; the
/// user polls the sample once more after an immediate stop, and that poll ends it.
fn interruptible<'a, F>(
    mut exchange: std::pin::Pin<&'a mut F>,
    run: &'a crate::user_state::RunShared,
) -> impl std::future::Future<Output = Result<client::Incoming, TransportError>> + 'a
where
    F: std::future::Future<Output = Result<client::Incoming, TransportError>> + ?Sized,
{
    // The exchange is pinned where the caller made it: taken by value, it would be
    // stored twice in the sample's future (as the argument and as the pinned copy).
    std::future::poll_fn(move |task| {
        if run.interrupting() {
            return std::task::Poll::Ready(Err(TransportError {
                class: "java.net.SocketException",
                message: "Socket closed".to_string(),
            }));
        }
        exchange.as_mut().poll(task)
    })
}

/// The method as the sample records it: the usual ones without a copy.
fn method_text(method: &str) -> crate::sample::Text {
    const USUAL: [&str; 7] = ["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"];
    match USUAL.iter().find(|usual| **usual == method) {
        Some(usual) => crate::sample::Text::Borrowed(usual),
        None => crate::sample::Text::Owned(method.to_string()),
    }
}

/// Whether recorded request headers (`name: value` lines) hold `Connection: close`.
fn asks_to_close(request_headers: &str) -> bool {
    request_headers.lines().any(|line| {
        line.split_once(':').is_some_and(|(name, value)| {
            name.trim().eq_ignore_ascii_case("Connection")
                && value
                    .split(',')
                    .any(|token| token.trim().eq_ignore_ascii_case("close"))
        })
    })
}

/// The result of a sample that nothing else holds yet, to fill in.
fn unshared(result: &mut Arc<SampleResult>) -> &mut SampleResult {
    Arc::get_mut(result).expect("a result is shared only once it is recorded")
}

/// A sample that failed before a request was sent: at the current time, taking no time,
/// with the URL and method when JMeter had made them.
fn failed_before_sending(
    cx: &mut SampleContext<'_>,
    label: Arc<str>,
    url: Option<String>,
    method: Option<String>,
    error: &TransportError,
) -> SampleResult {
    let mut result = new_result(cx, label);
    result.is_http = true;
    result.url = url;
    if let Some(method) = method {
        result.http_method = method.into();
    }
    result.start_time = wall_clock_ms();
    result.end_time = result.start_time;
    response::fill_error(&mut result, error);
    result
}

/// The exception Java's `HttpURLConnection` throws where HttpClient 4 throws `error`.
fn java_error(error: TransportError) -> TransportError {
    let (class, message) = match error.class {
        "org.apache.http.conn.HttpHostConnectException" => (
            "java.net.ConnectException",
            "Connection refused".to_string(),
        ),
        "org.apache.http.conn.ConnectTimeoutException" => (
            "java.net.SocketTimeoutException",
            "Connect timed out".to_string(),
        ),
        "org.apache.http.NoHttpResponseException" => (
            "java.net.SocketException",
            "Unexpected end of file from server".to_string(),
        ),
        _ => return error,
    };
    TransportError { class, message }
}

/// JMeter's sampler data for an HTTP sample: method and URL, the body or query, cookies.
fn sampler_data(hop: &Hop<'_>, cookies: &str) -> String {
    let body_len = hop.body.map_or(0, |b| b.shown.len() + 16);
    let mut data = String::with_capacity(hop.url_text.len() + body_len + cookies.len() + 32);
    for part in [hop.method, " ", hop.url_text, "\n"] {
        data.push_str(part);
    }
    if let Some(body) = hop.body {
        for part in ["\n", hop.method, " data:\n", &body.shown, "\n"] {
            data.push_str(part);
        }
    }
    if cookies.is_empty() {
        data.push_str("\n[no cookies]\n");
    } else {
        for part in ["\nCookie Data:\n", cookies, "\n"] {
            data.push_str(part);
        }
    }
    data
}

/// Standard base64 with padding (for Basic credentials).
fn base64(input: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
