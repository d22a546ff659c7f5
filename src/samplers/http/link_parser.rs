//! HTML Link Parser (`AnchorModifier`): a pre-processor that makes the coming HTTP
//! Request follow one of the links of the previous HTTP response, as JMeter's
//! `protocol.http.modifier.AnchorModifier` with `HtmlParsingUtils` does.
//!
//! The request's own fields are the pattern. The previous response (any HTTP response:
//! JMeter does not look at its content type) is parsed as HTML; its candidates are, in
//! this order, every `<a href>` (except `javascript:` ones), every form (`action` with
//! its `input`, `textarea` and `select`/`option` fields; a form without `action` is
//! none) and every `<frame src>`. Links and frames resolve against the first `<base
//! href>` (itself resolved against the response's URL), forms against the response's
//! URL, both as Java's `new URL(context, spec)` does. A candidate matches when its
//! protocol equals or matches the request's protocol (`http` when empty), its host the
//! request's domain (when one is given), its path the request's path (or
//! `[/]*` + path as a pattern), and every argument name of the request is in the
//! candidate's decoded query as `name=` or found in it as a pattern. Patterns are Perl 5
//! regexes; "matches" is ORO's whole-text match (see `plan::assertions::pattern`).
//!
//! One matching candidate, chosen at random with the user's random source, gives the
//! request its protocol, domain and path (the port stays the request's). A link or
//! frame replaces the request's arguments with its query's (sent as written); a form
//! instead changes each argument of the request into one of the form's fields whose
//! name and value equal or match the argument's name and value, a field serving once.
//!
//! The element only notes, before the sample, that it ran; the HTTP Request applies it
//! while it builds its URL ([`apply`]), for that sample only (JMeter restores the
//! sampler after each sample). Samplers of other kinds ignore it, as JMeter's element
//! does. Where JMeter would throw (a bad pattern in the request's fields, a `%` escape
//! that is not one in a link's query, a `<base>` without `href`), the request goes
//! unchanged: JMeter then skips the sample with an error in its log.

use std::collections::HashMap;
use std::sync::Arc;

use fancy_regex::Regex;
use rand::Rng;

use super::form::{form_encode, url_decode};
use super::request::Arg;
use crate::plan::extractors::utf8_text;
use crate::plan::PreProcessor;
use crate::query::html_parse::parse_html;
use crate::query::xml_dom::{Dom, NodeId, NodeKind};
use crate::sample::SampleResult;
use crate::user_state::UserState;

/// The user's slot noting the link parsers that ran before the coming sample.
const LINK_PARSER_SLOT: usize = usize::MAX - 0x4C50;

pub struct LinkParser;

pub fn build() -> Arc<dyn PreProcessor> {
    Arc::new(LinkParser)
}

#[derive(Default)]
struct Pending {
    /// Identity of the user's previous sample when the element ran.
    after: usize,
    /// How many link parsers ran for the coming sample (each picks again).
    runs: usize,
}

fn previous_sample(user: &UserState) -> usize {
    user.prev.as_ref().map_or(0, |p| Arc::as_ptr(p) as usize)
}

impl PreProcessor for LinkParser {
    fn process(&self, user: &mut UserState, _sampler_name: &str) {
        let after = previous_sample(user);
        let pending = user.slot(LINK_PARSER_SLOT, Pending::default);
        if pending.after != after {
            *pending = Pending { after, runs: 0 };
        }
        pending.runs += 1;
    }
}

/// Whether a link parser ran for the coming sample (its URL is then made afresh).
pub fn pending(user: &UserState) -> bool {
    user.existing_slot::<Pending>(LINK_PARSER_SLOT)
        .is_some_and(|pending| pending.runs > 0 && pending.after == previous_sample(user))
}

/// The request's fields as evaluated for this sample, which [`apply`] may change.
pub(super) struct Fields<'a> {
    pub protocol: &'a mut String,
    pub domain: &'a mut String,
    pub path: &'a mut String,
    pub args: &'a mut Vec<Arg>,
}

/// Follows a link of the previous response when link parsers ran for this sample.
pub(super) fn apply(user: &mut UserState, fields: Fields<'_>) {
    let after = previous_sample(user);
    let pending = std::mem::take(user.slot(LINK_PARSER_SLOT, Pending::default));
    if pending.runs == 0 || pending.after != after {
        return;
    }
    let Some(previous) = user.prev.clone() else {
        return;
    };
    if !previous.is_http {
        return;
    }
    let Some(candidates) = candidates(&previous) else {
        return;
    };
    let Fields {
        protocol,
        domain,
        path,
        args,
    } = fields;
    let mut patterns = Patterns::default();
    for _ in 0..pending.runs {
        let request = Request {
            protocol: protocol.as_str(),
            domain: domain.as_str(),
            path: path.as_str(),
            args: args.as_slice(),
        };
        let Some(matching) = matching(&candidates, &request, &mut patterns) else {
            return;
        };
        if matching.is_empty() {
            continue;
        }
        let chosen = matching[user.rng.gen_range(0..matching.len())];
        *domain = chosen.domain.clone();
        *path = chosen.path.clone();
        *protocol = chosen.protocol.clone();
        if chosen.form {
            let mut fields = chosen.args.clone();
            for arg in args.iter_mut() {
                replace_argument(arg, &mut fields, &mut patterns, user);
            }
        } else {
            *args = chosen.args.clone();
        }
    }
}

/// The request as the pattern a candidate is checked against.
struct Request<'a> {
    protocol: &'a str,
    domain: &'a str,
    path: &'a str,
    args: &'a [Arg],
}

/// A link, form or frame of the previous response, as JMeter makes a sampler of it.
#[derive(Debug, Clone, PartialEq)]
struct Candidate {
    /// A form (sent as POST); links and frames are GET.
    form: bool,
    protocol: String,
    domain: String,
    path: String,
    args: Vec<Arg>,
}

/// The candidates of the response, or `None` where JMeter's element throws.
fn candidates(previous: &SampleResult) -> Option<Vec<Candidate>> {
    let text = utf8_text(&previous.response_data);
    let html = &text[text.find('<').unwrap_or(0)..];
    let dom = parse_html(html).dom;
    let page = previous.url.as_deref().and_then(|url| resolve(None, url));
    let base = match elements(&dom, "base").next() {
        Some(id) => attribute(&dom, id, "href")?.to_string(),
        None => String::new(),
    };
    let link_base = resolve(page.as_ref(), &base);
    let mut out = links(&dom, link_base.as_ref(), "a", "href");
    walk_forms(&dom, 0, page.as_ref(), None, false, &mut out);
    out.extend(links(&dom, link_base.as_ref(), "frame", "src"));
    Some(out)
}

/// The elements named `tag`, in document order.
fn elements<'d>(dom: &'d Dom, tag: &'static str) -> impl Iterator<Item = NodeId> + 'd {
    (0..dom.nodes.len()).filter(move |&id| {
        let node = dom.node(id);
        node.kind == NodeKind::Element && node.name.qname.eq_ignore_ascii_case(tag)
    })
}

/// `addAnchorUrls` and `addFramesetUrls`: the `attr` of each `tag` resolved against the
/// base (`javascript:` links left out), as GET candidates.
fn links(dom: &Dom, base: Option<&JavaUrl>, tag: &'static str, attr: &str) -> Vec<Candidate> {
    let Some(base) = base else {
        return Vec::new();
    };
    elements(dom, tag)
        .filter_map(|id| {
            let href = attribute(dom, id, attr)?;
            if tag == "a" && href.starts_with("javascript:") {
                return None;
            }
            Some(resolve(Some(base), href)?.candidate(false))
        })
        .collect()
}

fn attribute<'d>(dom: &'d Dom, id: NodeId, name: &str) -> Option<&'d str> {
    dom.node(id)
        .attrs
        .iter()
        .find(|a| a.name.qname.eq_ignore_ascii_case(name))
        .map(|a| a.value.as_str())
}

/// `HtmlParsingUtils.recurseForm`: fields belong to the last form met in document
/// order, even after it has closed, until a form without `action` ends the run of forms.
fn walk_forms(
    dom: &Dom,
    id: NodeId,
    page: Option<&JavaUrl>,
    select: Option<&str>,
    mut in_form: bool,
    forms: &mut Vec<Candidate>,
) -> bool {
    let node = dom.node(id);
    let mut select = select;
    if node.kind == NodeKind::Element {
        let tag = node.name.qname.to_ascii_lowercase();
        let attr = |name: &str| attribute(dom, id, name).unwrap_or("");
        if tag == "form" {
            let action = attribute(dom, id, "action").and_then(|a| resolve(page, a));
            match action {
                Some(url) => {
                    forms.push(url.candidate(true));
                    in_form = true;
                }
                None => in_form = false,
            }
        } else if in_form {
            let form = forms.last_mut().expect("in a form after one was added");
            match tag.as_str() {
                "input" => add_encoded(&mut form.args, attr("name"), attr("value")),
                "textarea" => {
                    let first = node.children.first().map(|&c| dom.node(c));
                    match first {
                        Some(text) if text.kind == NodeKind::Text => {
                            add_encoded(&mut form.args, attr("name"), &text.value)
                        }
                        _ => form.args.push(Arg {
                            name: attr("name").to_string(),
                            value: String::new(),
                            always_encode: true,
                            use_equals: true,
                        }),
                    }
                }
                "select" => select = Some(attr("name")),
                "option" => {
                    if let Some(name) = select {
                        add_encoded(&mut form.args, name, attr("value"));
                    }
                }
                _ => {}
            }
        }
    }
    for &child in &node.children {
        in_form = walk_forms(dom, child, page, select, in_form, forms);
    }
    in_form
}

/// `addEncodedArgument`: a form field's name and value are decoded as URL text; one
/// that encoding gives back unchanged is sent as it is. A field the decoder refuses is
/// left out, as JMeter's parser drops it with a warning.
fn add_encoded(args: &mut Vec<Arg>, name: &str, value: &str) {
    let (Ok(name), Ok(value)) = (url_decode(name), url_decode(value)) else {
        return;
    };
    let always_encode = form_encode(&name) != name || form_encode(&value) != value;
    args.push(Arg {
        name,
        value,
        always_encode,
        use_equals: true,
    });
}

/// The candidates that match the request, or `None` where JMeter throws (a pattern
/// that does not compile, a query that does not decode).
fn matching<'c>(
    candidates: &'c [Candidate],
    request: &Request<'_>,
    patterns: &mut Patterns,
) -> Option<Vec<&'c Candidate>> {
    let protocol = if request.protocol.is_empty() {
        "http"
    } else {
        request.protocol
    };
    let path = request.path.replace(' ', "%20");
    let mut out = Vec::new();
    for candidate in candidates {
        let query = url_decode(&query_string(&candidate.args)).ok()?;
        if !patterns.equal_or_matches(&candidate.protocol, protocol)? {
            continue;
        }
        if !request.domain.is_empty()
            && !patterns.equal_or_matches(&candidate.domain, request.domain)?
        {
            continue;
        }
        let candidate_path = candidate.path.replace(' ', "%20");
        if candidate_path != path && !patterns.matches(&candidate_path, &format!("[/]*{path}"))? {
            continue;
        }
        let mut names_found = true;
        for arg in request.args {
            if !query.contains(&format!("{}=", arg.name))
                && !patterns.contains(&query, &arg.name)?
            {
                names_found = false;
                break;
            }
        }
        if names_found {
            out.push(candidate);
        }
    }
    Some(out)
}

/// `HTTPSamplerBase.getQueryString` of a candidate's arguments.
fn query_string(args: &[Arg]) -> String {
    let mut out = String::new();
    for arg in args {
        let name = if arg.always_encode {
            form_encode(&arg.name)
        } else {
            arg.name.clone()
        };
        if name.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('&');
        }
        out.push_str(&name);
        if arg.use_equals {
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

/// `AnchorModifier.modifyArgument`: the request's argument takes the name and value of
/// a random field whose name and value equal or match its own; the field (and any
/// identical one) is then used up.
fn replace_argument(
    arg: &mut Arg,
    fields: &mut Vec<Arg>,
    patterns: &mut Patterns,
    user: &mut UserState,
) {
    let possible: Vec<usize> = (0..fields.len())
        .filter(|&i| {
            let field = &fields[i];
            // A pattern that does not compile matches nothing here (JMeter logs it).
            patterns
                .equal_or_matches(&field.name, &arg.name)
                .unwrap_or(false)
                && patterns
                    .equal_or_matches(&field.value, &arg.value)
                    .unwrap_or(false)
        })
        .collect();
    if possible.is_empty() {
        return;
    }
    let chosen = fields[possible[user.rng.gen_range(0..possible.len())]].clone();
    arg.name = chosen.name.clone();
    arg.value = chosen.value.clone();
    fields.retain(|field| *field != chosen);
}

/// The patterns of one sample, compiled once each; `None` for one that does not compile.
#[derive(Default)]
struct Patterns {
    compiled: HashMap<(String, bool), Option<Regex>>,
}

impl Patterns {
    fn regex(&mut self, pattern: &str, anchored: bool) -> Option<&Regex> {
        self.compiled
            .entry((pattern.to_string(), anchored))
            .or_insert_with(|| {
                // Checked alone first, so an unbalanced `)` cannot close our group.
                Regex::new(pattern).ok()?;
                if anchored {
                    Regex::new(&format!(r"\A(?:{pattern})")).ok()
                } else {
                    Regex::new(pattern).ok()
                }
            })
            .as_ref()
    }

    /// ORO's `matches`: the leftmost-first match at the start ends at the end.
    fn matches(&mut self, text: &str, pattern: &str) -> Option<bool> {
        let regex = self.regex(pattern, true)?;
        Some(matches!(regex.find(text), Ok(Some(m)) if m.end() == text.len()))
    }

    /// ORO's `contains`: found anywhere.
    fn contains(&mut self, text: &str, pattern: &str) -> Option<bool> {
        let regex = self.regex(pattern, false)?;
        Some(matches!(regex.find(text), Ok(Some(_))))
    }

    /// `HtmlParsingUtils.isEqualOrMatches`.
    fn equal_or_matches(&mut self, text: &str, pattern: &str) -> Option<bool> {
        if text == pattern {
            return Some(true);
        }
        self.matches(text, pattern)
    }
}

/// The parts of a `java.net.URL` the element reads.
#[derive(Debug, Clone, PartialEq)]
struct JavaUrl {
    /// Lower case, as Java keeps it.
    protocol: String,
    /// The authority as written (`user@host:port`).
    authority: String,
    path: String,
    query: Option<String>,
}

impl JavaUrl {
    /// `getHost`: the authority without user information and port.
    fn host(&self) -> &str {
        let host = self.authority.rsplit('@').next().unwrap_or("");
        if host.starts_with('[') {
            return host.find(']').map_or(host, |end| &host[..=end]);
        }
        host.split(':').next().unwrap_or("")
    }

    /// `createUrlFromAnchor`: a sampler with this URL's host, protocol and path, and its
    /// query's arguments as written (`parseArguments` without an encoding).
    fn candidate(self, form: bool) -> Candidate {
        let mut args = Vec::new();
        for part in self.query.as_deref().unwrap_or("").split('&') {
            let (name, value, use_equals) = match part.split_once('=') {
                Some((name, value)) => (name, value, true),
                None => (part, "", false),
            };
            if !name.is_empty() {
                args.push(Arg {
                    name: name.to_string(),
                    value: value.to_string(),
                    always_encode: false,
                    use_equals,
                });
            }
        }
        Candidate {
            form,
            domain: self.host().to_string(),
            protocol: self.protocol,
            path: self.path,
            args,
        }
    }
}

/// Java's `new URL(context, spec)` for hierarchical URLs, then JMeter's
/// `ConversionUtils.makeRelativeURL` fix of leading `../` segments above the root.
/// `None` where Java throws `MalformedURLException`, and for URLs without authority
/// (`mailto:`), which no HTTP Request can follow.
fn resolve(context: Option<&JavaUrl>, spec: &str) -> Option<JavaUrl> {
    let resolved = resolve_java(context, spec)?;
    if !spec.starts_with("../") {
        return Some(resolved);
    }
    let climbs = resolved.path.strip_prefix('/').map_or(0, leading_climbs);
    let prefix = "../".repeat(climbs);
    if climbs > 0 && spec.starts_with(&prefix) {
        return resolve_java(context, &spec[prefix.len()..]);
    }
    Some(resolved)
}

/// How many `../` the path (after its first `/`) starts with.
fn leading_climbs(path: &str) -> usize {
    let mut count = 0;
    let mut rest = path;
    while let Some(next) = rest.strip_prefix("../") {
        count += 1;
        rest = next;
    }
    count
}

fn resolve_java(context: Option<&JavaUrl>, spec: &str) -> Option<JavaUrl> {
    let mut spec = crate::foundation::java_text::java_trim(spec);
    if spec.len() >= 4 && spec[..4].eq_ignore_ascii_case("url:") {
        spec = &spec[4..];
    }
    let spec = spec.split('#').next().unwrap_or("");
    let scheme = scheme_of(spec);
    let relative_to = match (scheme, context) {
        (Some(scheme), Some(context))
            if scheme.eq_ignore_ascii_case(&context.protocol) && context.path.starts_with('/') =>
        {
            Some(context)
        }
        (Some(_), _) => None,
        (None, Some(context)) => Some(context),
        (None, None) => return None,
    };
    let rest = match scheme {
        Some(scheme) => &spec[scheme.len() + 1..],
        None => spec,
    };
    let Some(base) = relative_to else {
        let after = rest.strip_prefix("//")?;
        let end = after.find(['/', '?']).unwrap_or(after.len());
        let (authority, tail) = after.split_at(end);
        let (path, query) = split_query(tail);
        let url = JavaUrl {
            protocol: scheme?.to_ascii_lowercase(),
            authority: authority.to_string(),
            path: path.to_string(),
            query: query.map(str::to_string),
        };
        return valid_port(&url).then_some(url);
    };
    if rest.is_empty() {
        return Some(base.clone());
    }
    let mut url = JavaUrl {
        protocol: base.protocol.clone(),
        authority: base.authority.clone(),
        path: base.path.clone(),
        query: None,
    };
    let (mut tail, query) = split_query(rest);
    url.query = query.map(str::to_string);
    if let Some(after) = tail.strip_prefix("//") {
        let end = after.find('/').unwrap_or(after.len());
        url.authority = after[..end].to_string();
        url.path = String::new();
        tail = &after[end..];
        if !valid_port(&url) {
            return None;
        }
    }
    if tail.is_empty() {
        if rest.starts_with('?') {
            // Java's query-only reference keeps the base's directory.
            let end = url.path.rfind('/').unwrap_or(0);
            url.path = format!("{}/", &url.path[..end]);
        }
    } else if tail.starts_with('/') {
        url.path = tail.to_string();
    } else if !url.path.is_empty() {
        let end = url.path.rfind('/').map_or(0, |i| i + 1);
        let separator = if end == 0 && !url.authority.is_empty() {
            "/"
        } else {
            ""
        };
        url.path = remove_dot_segments(&format!("{}{separator}{tail}", &url.path[..end]));
    } else {
        let separator = if url.authority.is_empty() { "" } else { "/" };
        url.path = format!("{separator}{tail}");
    }
    Some(url)
}

/// A scheme (`http:`) at the start of `spec`: letters, digits, `+`, `-`, `.` after a
/// letter, ended by `:` before any `/`.
fn scheme_of(spec: &str) -> Option<&str> {
    let colon = spec.find(':')?;
    let scheme = &spec[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

fn split_query(text: &str) -> (&str, Option<&str>) {
    match text.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (text, None),
    }
}

/// Java refuses a port that is not a number.
fn valid_port(url: &JavaUrl) -> bool {
    let host_and_port = url.authority.rsplit('@').next().unwrap_or("");
    let port = if host_and_port.starts_with('[') {
        host_and_port
            .find(']')
            .and_then(|end| host_and_port[end + 1..].strip_prefix(':'))
    } else {
        host_and_port.split_once(':').map(|(_, port)| port)
    };
    port.is_none_or(|port| port.is_empty() || port.bytes().all(|b| b.is_ascii_digit()))
}

/// `URLStreamHandler.parseURL`'s clean-up of a relative path: `/./` goes, `/x/../`
/// goes, a trailing `/..` takes its segment, a leading `./` and a trailing `.` go.
fn remove_dot_segments(path: &str) -> String {
    let mut path = path.to_string();
    while let Some(at) = path.find("/./") {
        path.replace_range(at..at + 2, "");
    }
    let mut from = 0;
    while let Some(found) = path[from..].find("/../") {
        let at = from + found;
        match path[..at].rfind('/') {
            Some(start) if at > 0 && !path[start..].starts_with("/../") => {
                path.replace_range(start..at + 3, "");
                from = 0;
            }
            _ => from = at + 3,
        }
    }
    while path.ends_with("/..") {
        let at = path.len() - 3;
        match path[..at].rfind('/') {
            Some(start) => path.truncate(start + 1),
            None => break,
        }
    }
    if path.starts_with("./") && path.len() > 2 {
        path.drain(..2);
    }
    if path.ends_with("/.") {
        path.pop();
    }
    path
}

#[cfg(test)]
#[path = "link_parser_tests.rs"]
mod tests;
