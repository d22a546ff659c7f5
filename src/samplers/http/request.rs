//! Sample-time assembly of one request from an [`HttpSpec`]: the URL with its query
//! string, and the body with JMeter's encoding rules (`jmeter-elements.md` §6.1):
//!
//! * GET, DELETE and OPTIONS put the named arguments in the query string; names and
//!   values are form-URL-encoded (space → `+`) only when `always_encode` is on.
//! * POST, PUT and PATCH (and GET-like methods in Body Data mode) carry a body: the
//!   argument values concatenated (Body Data, or all names empty), a single unnamed
//!   file, multipart, or a form body ([`form`] has the rules of each implementation).
//! * Without a Content-Type from a Header Manager, HttpClient 4 derives one from the
//!   body: `text/plain; charset=<enc>` for raw bodies,
//!   `application/x-www-form-urlencoded; charset=<enc>` for forms, and
//!   `multipart/form-data; boundary=…; charset=<enc>` for multipart.

use std::path::Path;

use rand::Rng;

use super::client::TransportError;
use super::config::HttpSpec;
use super::form::{self, form_encode};
use super::url::Url;
use crate::user_state::UserState;

/// One argument evaluated for this sample.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Arg {
    pub name: String,
    pub value: String,
    pub always_encode: bool,
    pub use_equals: bool,
}

/// A body and the Content-Type HttpClient would give it.
pub struct Body {
    pub bytes: Vec<u8>,
    /// What JMeter shows of the body in the sampler data / query string.
    pub shown: String,
    pub content_type: Option<String>,
}

/// Methods whose arguments go to the query string.
pub fn is_query_method(method: &str) -> bool {
    matches!(method, "GET" | "DELETE" | "OPTIONS")
}

/// Methods that carry a body built from the arguments.
fn is_body_method(method: &str) -> bool {
    matches!(method, "POST" | "PUT" | "PATCH")
}

fn eval_args(spec: &HttpSpec, user: &mut UserState, label: &str) -> Vec<Arg> {
    let mut args: Vec<Arg> = {
        let mut cx = user.eval(label);
        spec.args
            .iter()
            .map(|a| Arg {
                name: a.name.eval(&mut cx),
                value: a.value.eval(&mut cx),
                always_encode: a.always_encode,
                use_equals: a.use_equals,
            })
            .collect()
    };
    if !args.is_empty() {
        super::regex_user_parameters::apply(
            user,
            args.iter_mut().map(|a| (a.name.as_str(), &mut a.value)),
        );
    }
    args
}

/// The query string JMeter builds from the named arguments.
fn query_string(args: &[Arg]) -> String {
    let mut out = String::new();
    for arg in args.iter().filter(|a| !a.name.is_empty()) {
        if !out.is_empty() {
            out.push('&');
        }
        if arg.always_encode {
            out.push_str(&form_encode(&arg.name));
        } else {
            out.push_str(&arg.name);
        }
        if arg.use_equals || !arg.value.is_empty() {
            out.push('=');
        }
        if arg.always_encode {
            out.push_str(&form_encode(&arg.value));
        } else {
            out.push_str(&arg.value);
        }
    }
    out
}

/// Why a request could not be made.
pub struct RequestError {
    pub error: TransportError,
    /// The URL, when the failure came after it was made (JMeter then records it).
    pub url: Option<Url>,
}

impl RequestError {
    fn malformed_url(message: String) -> RequestError {
        RequestError {
            error: TransportError {
                class: "java.net.MalformedURLException",
                message,
            },
            url: None,
        }
    }
}

/// The URL of the sample: a full URL in the path wins; otherwise protocol, host, port
/// and path, plus the query string for GET-like methods. `java` is JMeter's Java
/// implementation, whose POST form body keeps raw values.
pub fn build_url(
    spec: &HttpSpec,
    user: &mut UserState,
    label: &str,
    method: &str,
    java: bool,
) -> Result<(Url, Option<Body>), RequestError> {
    let mut args = eval_args(spec, user, label);
    let (mut path, mut domain, port, mut protocol) = {
        let mut cx = user.eval(label);
        (
            spec.path.eval(&mut cx),
            spec.domain.eval(&mut cx),
            spec.port.eval(&mut cx),
            spec.protocol.eval(&mut cx),
        )
    };
    let fields = super::link_parser::Fields {
        protocol: &mut protocol,
        domain: &mut domain,
        path: &mut path,
        args: &mut args,
    };
    super::link_parser::apply(user, fields);
    match super::url_rewriting::take(user) {
        Some(super::url_rewriting::Rewrite::PathExtension { name, extension }) => {
            path = super::url_rewriting::rewrite_path(&path, &name, &extension);
        }
        Some(super::url_rewriting::Rewrite::Argument { name, value }) => {
            args.retain(|a| a.name != name);
            args.push(Arg {
                name,
                value,
                always_encode: true,
                use_equals: true,
            });
        }
        None => {}
    }
    let raw_body =
        spec.post_body_raw || (!args.is_empty() && args.iter().all(|a| a.name.is_empty()));
    let (mut url, full_url_path) =
        base_url(&path, &domain, &port, &protocol).map_err(RequestError::malformed_url)?;
    if is_query_method(method) && !full_url_path && !raw_body {
        let query = query_string(&args);
        url.append_query(&query);
    }
    let body = if is_body_method(method) || (raw_body && !args.is_empty()) {
        let encoding = content_encoding(spec, user, label);
        let form = if java && method == "POST" {
            FormRules::JavaQueryString
        } else {
            FormRules::HttpClient
        };
        // JMeter makes the body (reads files, decodes form values) once the URL is
        // made, so a failure here is recorded with the URL and the sampler's name.
        match build_body(spec, user, label, &args, raw_body, &encoding, form) {
            Ok(body) => Some(body),
            Err(error) => {
                return Err(RequestError {
                    error,
                    url: Some(url),
                })
            }
        }
    } else {
        None
    };
    Ok((url, body))
}

/// How a form body is written (see [`form`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum FormRules {
    HttpClient,
    JavaQueryString,
}

/// The URL from the sampler fields, without query arguments; true when the path was a
/// full URL (then domain, port, protocol and arguments are ignored).
fn base_url(path: &str, domain: &str, port: &str, protocol: &str) -> Result<(Url, bool), String> {
    let path: std::borrow::Cow<'_, str> = if path.contains(' ') {
        path.replace(' ', "%20").into()
    } else {
        path.into()
    };
    if path.starts_with("http://") || path.starts_with("https://") {
        return Ok((Url::parse(&path)?, true));
    }
    let protocol = if protocol.trim().is_empty() {
        "http".to_string()
    } else {
        protocol.trim().to_ascii_lowercase()
    };
    // Java's URL knows these protocols and no others.
    const KNOWN: [&str; 7] = ["http", "https", "file", "ftp", "jar", "mailto", "jrt"];
    if !KNOWN.contains(&protocol.as_str()) {
        return Err(format!("unknown protocol: {protocol}"));
    }
    // A port that is not a number counts as none (`getPortIfSpecified`).
    let port: u16 = port.trim().parse().unwrap_or(0);
    Ok((
        Url::from_parts(&protocol, domain.trim(), port, &path),
        false,
    ))
}

/// Whether a pre-processor (URL Re-writing Modifier, HTML Link Parser) changes the
/// coming sample's URL: it is then made for this sample, never kept.
pub fn changed_by_preprocessors(user: &mut UserState) -> bool {
    super::url_rewriting::pending(user) || super::link_parser::pending(user)
}

/// True when method and URL follow from the properties alone (`${__P(host)}`), so that
/// they can be kept until a property changes. Requests with arguments, files or a body
/// are built every time.
pub fn url_reads_only_properties(spec: &HttpSpec) -> bool {
    spec.args.is_empty()
        && spec.files.is_empty()
        && !spec.post_body_raw
        && [
            &spec.method,
            &spec.path,
            &spec.domain,
            &spec.port,
            &spec.protocol,
        ]
        .iter()
        .all(|t| t.reads_only_properties())
}

fn content_encoding(spec: &HttpSpec, user: &mut UserState, label: &str) -> String {
    let text = spec.content_encoding.eval(&mut user.eval(label));
    if text.trim().is_empty() {
        "UTF-8".to_string()
    } else {
        text.trim().to_string()
    }
}

fn build_body(
    spec: &HttpSpec,
    user: &mut UserState,
    label: &str,
    args: &[Arg],
    raw_body: bool,
    encoding: &str,
    rules: FormRules,
) -> Result<Body, TransportError> {
    let files: Vec<(String, String, String)> = {
        let mut cx = user.eval(label);
        spec.files
            .iter()
            .map(|f| {
                (
                    f.path.eval(&mut cx),
                    f.param.eval(&mut cx),
                    f.mime.eval(&mut cx),
                )
            })
            .collect()
    };
    if spec.multipart || !files.iter().all(|(_, p, _)| p.is_empty()) && !files.is_empty() {
        return multipart(spec, user, args, &files, encoding);
    }
    if args.is_empty() && files.len() == 1 {
        let (path, _, mime) = &files[0];
        let bytes = std::fs::read(path).map_err(|e| unreadable(path, &e))?;
        return Ok(Body {
            bytes,
            shown: "<actual file content, not shown here>".into(),
            content_type: (!mime.is_empty()).then(|| mime.clone()),
        });
    }
    if raw_body {
        let text: String = args
            .iter()
            .map(|a| {
                if a.always_encode {
                    form_encode(&a.value)
                } else {
                    a.value.clone()
                }
            })
            .collect();
        return Ok(Body {
            bytes: text.clone().into_bytes(),
            shown: text,
            content_type: Some(format!("text/plain; charset={encoding}")),
        });
    }
    let (text, content_type) = match rules {
        FormRules::HttpClient => {
            let named = args.iter().filter(|a| !a.name.is_empty());
            let text = form::httpclient_body(
                named.map(|a| (a.name.as_str(), a.value.as_str(), a.always_encode)),
            )
            .map_err(|message| TransportError {
                class: form::ILLEGAL_ARGUMENT,
                message,
            })?;
            let content_type = format!("application/x-www-form-urlencoded; charset={encoding}");
            (text, content_type)
        }
        // The type `HttpURLConnection` gives a POST body that has none.
        FormRules::JavaQueryString => (
            query_string(args),
            "application/x-www-form-urlencoded".to_string(),
        ),
    };
    Ok(Body {
        bytes: text.clone().into_bytes(),
        shown: text,
        content_type: Some(content_type),
    })
}

/// An unreadable file to send, as Java's `FileNotFoundException` names it:
/// `upload.csv (No such file or directory)`.
fn unreadable(path: &str, err: &std::io::Error) -> TransportError {
    let reason = match err.kind() {
        std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
        _ => {
            let text = err.to_string();
            match text.rfind(" (os error ") {
                Some(at) => text[..at].to_string(),
                None => text,
            }
        }
    };
    TransportError {
        class: "java.io.FileNotFoundException",
        message: format!("{path} ({reason})"),
    }
}

/// A multipart body as HttpClient 4's builder writes it (RFC 6532 mode, or "browser
/// compatible" mode where text parts carry only their Content-Disposition).
fn multipart(
    spec: &HttpSpec,
    user: &mut UserState,
    args: &[Arg],
    files: &[(String, String, String)],
    encoding: &str,
) -> Result<Body, TransportError> {
    let boundary = boundary(user);
    let lax = spec.browser_compatible_multipart;
    let mut bytes = Vec::new();
    let mut shown = Vec::new();
    for arg in args.iter().filter(|a| !a.name.is_empty()) {
        let mut head = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{}\"\r\n",
            arg.name
        );
        if !lax {
            head.push_str(&format!(
                "Content-Type: text/plain; charset={encoding}\r\nContent-Transfer-Encoding: 8bit\r\n"
            ));
        }
        head.push_str("\r\n");
        for out in [&mut bytes, &mut shown] {
            out.extend_from_slice(head.as_bytes());
            out.extend_from_slice(arg.value.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
    }
    for (path, param, mime) in files {
        let content = std::fs::read(path).map_err(|e| unreadable(path, &e))?;
        let file_name = Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mime = if mime.is_empty() {
            "application/octet-stream"
        } else {
            mime
        };
        let mut head = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{param}\"; filename=\"{file_name}\"\r\nContent-Type: {mime}\r\n"
        );
        if !lax {
            head.push_str("Content-Transfer-Encoding: binary\r\n");
        }
        head.push_str("\r\n");
        bytes.extend_from_slice(head.as_bytes());
        bytes.extend_from_slice(&content);
        bytes.extend_from_slice(b"\r\n");
        shown.extend_from_slice(head.as_bytes());
        shown.extend_from_slice(b"<actual file content, not shown here>\r\n");
    }
    let tail = format!("--{boundary}--\r\n");
    bytes.extend_from_slice(tail.as_bytes());
    shown.extend_from_slice(tail.as_bytes());
    Ok(Body {
        bytes,
        shown: String::from_utf8_lossy(&shown).into_owned(),
        content_type: Some(format!(
            "multipart/form-data; boundary={boundary}; charset={encoding}"
        )),
    })
}

/// A random boundary from the alphabet HttpClient uses.
fn boundary(user: &mut UserState) -> String {
    const CHARS: &[u8] = b"-_1234567890abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let len = user.rng.gen_range(30..41);
    (0..len)
        .map(|_| CHARS[user.rng.gen_range(0..CHARS.len())] as char)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(name: &str, value: &str, always_encode: bool) -> Arg {
        Arg {
            name: name.into(),
            value: value.into(),
            always_encode,
            use_equals: true,
        }
    }

    #[test]
    fn query_encodes_only_when_asked_and_skips_unnamed() {
        let args = [
            arg("a b", "c d", true),
            arg("x", "y z", false),
            arg("", "ignored", true),
        ];
        assert_eq!(query_string(&args), "a+b=c+d&x=y z");
    }

    #[test]
    fn a_port_that_is_no_number_is_none_and_unknown_protocols_are_refused() {
        let (url, _) = base_url("/x", "h", "port", "http").unwrap();
        assert_eq!(url.to_string(), "http://h/x");
        assert_eq!(
            base_url("/x", "h", "", "htp").err().as_deref(),
            Some("unknown protocol: htp")
        );
        assert!(base_url("/x", "h", "", "HTTPS").is_ok());
    }

    #[test]
    fn empty_value_without_equals() {
        let mut a = arg("flag", "", false);
        a.use_equals = false;
        assert_eq!(query_string(&[a]), "flag");
    }
}
