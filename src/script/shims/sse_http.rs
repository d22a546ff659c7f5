//! The Apache HttpClient calls with which JMeter users follow an event stream from a
//! Groovy script, mapped onto the scripts' event streams ([`super::sse`]):
//! `HttpClients.createDefault()`, `new HttpGet(url)` with `setHeader`/`addHeader`,
//! `client.execute(get)`, `response.getStatusLine().getStatusCode()`,
//! `response.getEntity().getContent()`, and `new BufferedReader(new
//! InputStreamReader(content))` whose `readLine()` gives the stream's events as lines.
//!
//! Only event streams: the translator maps these classes when the script asks for
//! `text/event-stream`, and `execute` refuses a request that does not (other HTTP
//! belongs in an HTTP Request sampler).

use rhai::{Dynamic, Engine, Map};

use super::sse::{open, SseStream};
use super::{error, func, Class, ShimResult};

/// `new HttpGet(url)`: the URL and the headers set on it.
#[derive(Clone)]
pub struct HttpGet {
    url: String,
    headers: Map,
}

/// `HttpClients.createDefault()`: nothing to keep; `execute` opens the stream.
#[derive(Clone, Copy)]
pub struct HttpClient;

/// `client.execute(get)`: the stream, its status and its entity (itself).
#[derive(Clone)]
pub struct HttpResponse(SseStream);

/// The translator asks for these classes only in scripts that read an event stream.
pub const CLASSES: &[&str] = &["HttpClients", "HttpGet", "InputStreamReader"];

pub(crate) fn classes() -> Vec<Class> {
    let mut clients = Class::new("HttpClients");
    func!(clients, "createDefault", || HttpClient);
    func!(clients, "createSystem", || HttpClient);
    let mut get = Class::new("HttpGet");
    func!(get, "create", |url: &str| HttpGet {
        url: url.to_string(),
        headers: Map::new(),
    });
    // The reader over the content is the stream itself.
    let mut input = Class::new("InputStreamReader");
    func!(input, "create", |s: SseStream| s);
    func!(input, "create", |s: SseStream, _charset: Dynamic| s);
    let mut buffered = Class::new("BufferedReader");
    func!(buffered, "create", |s: SseStream| s);
    vec![clients, get, input, buffered]
}

fn set_header(get: &mut HttpGet, name: &str, value: Dynamic) {
    get.headers.retain(|k, _| !k.eq_ignore_ascii_case(name));
    get.headers
        .insert(name.into(), super::java_string(&value).into());
}

fn execute(get: &HttpGet) -> ShimResult<HttpResponse> {
    let asks_for_stream = get.headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("Accept") && super::java_string(v).contains("text/event-stream")
    });
    if !asks_for_stream {
        return error(format!(
            "HttpClient.execute {}: scripts use HttpClient only for event streams \
             (Accept: text/event-stream); send other requests with an HTTP Request sampler",
            get.url
        ));
    }
    let mut options = Map::new();
    options.insert("headers".into(), Dynamic::from_map(get.headers.clone()));
    Ok(HttpResponse(open(&get.url, &options)?))
}

pub(crate) fn register(engine: &mut Engine) {
    engine
        .register_type_with_name::<HttpGet>("HttpGet")
        .register_fn("setHeader", |g: &mut HttpGet, n: &str, v: Dynamic| {
            set_header(g, n, v)
        })
        .register_fn("addHeader", |g: &mut HttpGet, n: &str, v: Dynamic| {
            set_header(g, n, v)
        })
        .register_fn("getURI", |g: &mut HttpGet| g.url.clone())
        .register_type_with_name::<HttpClient>("CloseableHttpClient")
        .register_fn("execute", |_: &mut HttpClient, g: HttpGet| execute(&g))
        .register_fn("close", |_: &mut HttpClient| {})
        .register_type_with_name::<HttpResponse>("CloseableHttpResponse")
        // An answer that is no event stream fails `execute`: what is left is 200.
        .register_fn("getStatusLine", |r: &mut HttpResponse| r.clone())
        .register_fn("getStatusCode", |_: &mut HttpResponse| 200_i64)
        .register_fn("getEntity", |r: &mut HttpResponse| r.clone())
        .register_fn("getContent", |r: &mut HttpResponse| r.0.clone())
        .register_fn("close", |r: &mut HttpResponse| r.0.close());
}
