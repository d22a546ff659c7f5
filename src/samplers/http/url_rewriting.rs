//! HTTP URL Re-writing Modifier (`URLRewritingModifier`): a pre-processor that finds a
//! session id in the previous response (a `;name=value` path extension, a `name=value`
//! query parameter, or a hidden form field) and puts it into the coming HTTP Request,
//! as JMeter's `protocol.http.modifier` class does: as a path extension
//! (`;name=value`, or `;namevalue` without the equals sign) or as an argument that
//! replaces any of the same name.
//!
//! The element decides the value before the sample; the HTTP Request applies it when it
//! builds its URL ([`apply`]), for that sample only (JMeter restores the sampler after
//! each sample). Samplers of other kinds ignore it, as JMeter's element does. With
//! "cache value" on (the default) a response without the id keeps the last one found
//! by this element for this user.

use std::collections::HashMap;
use std::sync::Arc;

use regex::Regex;

use crate::expr::Template;
use crate::plan::{BuildContext, PreProcessor};
use crate::user_state::UserState;

/// The user's slot for the rewrite of the coming sample and the cached values.
const REWRITE_SLOT: usize = usize::MAX - 0x5552;

/// The characters a value stops at, as JMeter's expressions have them.
const PATH_VALUE: &str = r#"[^"'<>&\s;]*"#;
const PATH_VALUE_NO_QUESTIONMARK: &str = r#"[^"'<>&\s;?]*"#;

#[derive(Default)]
struct UserRewrites {
    /// Identity of the user's previous sample when `pending` was decided.
    after: usize,
    pending: Option<Rewrite>,
    /// Last value each element found (by element identity), for "cache value".
    saved: HashMap<usize, String>,
}

/// What the coming HTTP Request gets.
#[derive(Clone, Debug, PartialEq)]
pub enum Rewrite {
    /// Appended to the path: `;` + this text.
    PathExtension { name: String, extension: String },
    /// An argument replacing those of the same name; `value` as it will be encoded.
    Argument { name: String, value: String },
}

pub struct UrlRewriting {
    name: Template,
    /// The session-id expression, compiled once when the name holds no `${}`.
    constant_pattern: Option<Regex>,
    path_extension: bool,
    no_equals: bool,
    no_questionmark: bool,
    cache: bool,
    encode: bool,
}

pub fn build(cx: &mut BuildContext<'_>) -> Arc<dyn PreProcessor> {
    let mut element = UrlRewriting {
        name: cx.template("argument_name"),
        constant_pattern: None,
        path_extension: cx.flag("path_extension", false),
        no_equals: cx.flag("path_extension_no_equals", false),
        no_questionmark: cx.flag("path_extension_no_questionmark", false),
        cache: cx.flag("cache_value", true),
        encode: cx.flag("encode", false),
    };
    element.constant_pattern = element
        .name
        .as_literal()
        .and_then(|name| element.pattern(name));
    Arc::new(element)
}

fn previous_sample(user: &UserState) -> usize {
    user.prev.as_ref().map_or(0, |p| Arc::as_ptr(p) as usize)
}

impl UrlRewriting {
    /// JMeter's expression for the session id named `name`, in this element's mode.
    fn pattern(&self, name: &str) -> Option<Regex> {
        let quoted = regex::escape(name);
        let value_class = if self.no_questionmark {
            PATH_VALUE_NO_QUESTIONMARK
        } else {
            PATH_VALUE
        };
        let pattern = if self.path_extension {
            let equals = if self.no_equals { "" } else { "=" };
            format!("(?m);{quoted}{equals}({value_class})")
        } else {
            // `;name=value` or `?name=value` or `&name=value`; a hidden field with the
            // name before the value; or the value before the name.
            format!(
                r#"(?m)[;?&]{quoted}=([^"'<>&\s;\\]*)|\s[Nn][Aa][Mm][Ee]\s*=\s*["']{quoted}["'][^>]*\s[vV][Aa][Ll][Uu][Ee]\s*=\s*["']([^"']*)["']|\s[vV][Aa][Ll][Uu][Ee]\s*=\s*["']([^"']*)["'][^>]*\s[Nn][Aa][Mm][Ee]\s*=\s*["']{quoted}["']"#
            )
        };
        Regex::new(&pattern).ok()
    }

    /// The session id in `text`, or "" when there is none.
    fn find(&self, name: &str, text: &str) -> String {
        let compiled;
        let regex = match &self.constant_pattern {
            Some(regex) => regex,
            None => match self.pattern(name) {
                Some(regex) => {
                    compiled = regex;
                    &compiled
                }
                None => return String::new(),
            },
        };
        regex
            .captures(text)
            .and_then(|found| {
                found
                    .iter()
                    .skip(1)
                    .flatten()
                    .next()
                    .map(|m| m.as_str().to_string())
            })
            .unwrap_or_default()
    }
}

impl PreProcessor for UrlRewriting {
    fn process(&self, user: &mut UserState, sampler_name: &str) {
        let Some(previous) = user.prev.clone() else {
            return;
        };
        let name = {
            let mut cx = user.eval(sampler_name);
            self.name.eval(&mut cx)
        };
        let text = String::from_utf8_lossy(&previous.response_data);
        let mut value = self.find(&name, &text);
        let after = previous_sample(user);
        let element = self as *const Self as usize;
        let slot = user.slot(REWRITE_SLOT, UserRewrites::default);
        if self.cache {
            if value.is_empty() {
                value = slot.saved.get(&element).cloned().unwrap_or_default();
            } else {
                slot.saved.insert(element, value.clone());
            }
        }
        let rewrite = if self.path_extension {
            let extension = if self.no_equals {
                format!("{name}{value}")
            } else {
                format!("{name}={value}")
            };
            Rewrite::PathExtension { name, extension }
        } else {
            // JMeter adds `HTTPArgument(name, value, alreadyEncoded = !encode)`: always
            // encoded when sent, and decoded first unless "encode" is on.
            let value = if self.encode {
                value
            } else {
                url_decode(&value)
            };
            let name = if self.encode { name } else { url_decode(&name) };
            Rewrite::Argument { name, value }
        };
        slot.after = after;
        slot.pending = Some(rewrite);
    }
}

/// Java's `URLDecoder.decode` in UTF-8: `+` is a space, `%XX` a byte; a malformed
/// escape leaves the text as it was.
fn url_decode(text: &str) -> String {
    if !text.contains(['%', '+']) {
        return text.to_string();
    }
    let spaced = text.replace('+', " ");
    let bytes = spaced.as_bytes();
    let malformed = bytes.iter().enumerate().any(|(i, b)| {
        *b == b'%'
            && !(bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
    });
    if malformed {
        return text.to_string();
    }
    percent_encoding::percent_decode_str(&spaced)
        .decode_utf8_lossy()
        .into_owned()
}

/// Whether a rewrite is decided for the coming sample.
pub fn pending(user: &UserState) -> bool {
    user.existing_slot::<UserRewrites>(REWRITE_SLOT)
        .is_some_and(|slot| slot.pending.is_some() && slot.after == previous_sample(user))
}

/// The rewrite decided for this sample, if any (taken: it holds for one sample).
pub fn take(user: &mut UserState) -> Option<Rewrite> {
    let after = previous_sample(user);
    let slot = user.slot(REWRITE_SLOT, UserRewrites::default);
    let pending = slot.pending.take()?;
    (slot.after == after).then_some(pending)
}

/// The path with its old `;name…` extension cut (keeping a query string after it) and
/// the new one appended, as JMeter's `modify` does.
pub fn rewrite_path(path: &str, name: &str, extension: &str) -> String {
    let marker = format!(";{name}");
    let mut kept = path.to_string();
    if let Some(at) = path.find(&marker) {
        kept = match path.find('?') {
            Some(question) => format!("{}{}", &path[..at], &path[question..]),
            None => path[..at].to_string(),
        };
    }
    format!("{kept};{extension}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(path_extension: bool, no_equals: bool, no_questionmark: bool) -> UrlRewriting {
        UrlRewriting {
            name: Template::literal("jsessionid"),
            constant_pattern: None,
            path_extension,
            no_equals,
            no_questionmark,
            cache: true,
            encode: false,
        }
    }

    #[test]
    fn session_ids_are_found_as_jmeter_finds_them() {
        let query = element(false, false, false);
        assert_eq!(
            query.find("jsessionid", r#"<a href="/x?a=1&jsessionid=AB12%3D">"#),
            "AB12%3D"
        );
        assert_eq!(
            query.find(
                "jsessionid",
                r#"<input type="hidden" name="jsessionid" value="F00D">"#
            ),
            "F00D"
        );
        assert_eq!(
            query.find(
                "jsessionid",
                r#"<input value="BEEF" type="hidden" name="jsessionid">"#
            ),
            "BEEF"
        );
        assert_eq!(query.find("jsessionid", "nothing here"), "");
        let path = element(true, false, false);
        assert_eq!(
            path.find("jsessionid", r#"<a href="/a;jsessionid=XY?q=1">"#),
            "XY?q=1"
        );
        let path = element(true, false, true);
        assert_eq!(
            path.find("jsessionid", r#"<a href="/a;jsessionid=XY?q=1">"#),
            "XY"
        );
        let no_equals = element(true, true, true);
        assert_eq!(no_equals.find("jsessionid", "/a;jsessionidZZ9?q"), "ZZ9");
    }

    #[test]
    fn an_old_extension_is_replaced_and_the_query_kept() {
        assert_eq!(
            rewrite_path("/shop/cart", "jsessionid", "jsessionid=N1"),
            "/shop/cart;jsessionid=N1"
        );
        assert_eq!(
            rewrite_path("/cart;jsessionid=OLD?item=2", "jsessionid", "jsessionid=N1"),
            "/cart?item=2;jsessionid=N1"
        );
    }

    #[test]
    fn values_are_decoded_as_java_decodes_them() {
        assert_eq!(url_decode("a%3Db+c"), "a=b c");
        assert_eq!(url_decode("100%"), "100%");
        assert_eq!(url_decode("plain"), "plain");
    }
}
