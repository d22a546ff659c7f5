//! jsoup's element texts, which the CSS Selector Extractor returns and `:contains` /
//! `:matches` test: [`text`] (`Element.text()`: whitespace collapsed, a space between
//! block elements and at `<br>`, `<pre>` kept) and [`own_text`] (`ownText()`).

use super::xml_dom::{Dom, NodeId, NodeKind};

/// jsoup's whitespace normalisation of a search text: runs collapsed, ends trimmed.
pub fn normalize(text: &str) -> String {
    let mut out = String::new();
    append_normalised(&mut out, text, true);
    out.trim().to_string()
}

fn is_jsoup_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{c}' | '\r' | '\u{a0}')
}

fn append_normalised(out: &mut String, text: &str, strip_leading: bool) {
    let mut last_white = false;
    let mut reached = false;
    for c in text.chars() {
        if is_jsoup_whitespace(c) {
            if (strip_leading && !reached) || last_white {
                continue;
            }
            out.push(' ');
            last_white = true;
        } else if c != '\u{200b}' && c != '\u{ad}' {
            out.push(c);
            last_white = false;
            reached = true;
        }
    }
}

const BLOCK_TAGS: &[&str] = &[
    "html",
    "head",
    "body",
    "frameset",
    "script",
    "noscript",
    "style",
    "meta",
    "link",
    "title",
    "frame",
    "noframes",
    "section",
    "nav",
    "aside",
    "hgroup",
    "header",
    "footer",
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "pre",
    "div",
    "blockquote",
    "hr",
    "address",
    "figure",
    "figcaption",
    "form",
    "fieldset",
    "ins",
    "del",
    "dl",
    "dt",
    "dd",
    "li",
    "table",
    "caption",
    "thead",
    "tfoot",
    "tbody",
    "colgroup",
    "col",
    "tr",
    "th",
    "td",
    "video",
    "audio",
    "canvas",
    "details",
    "menu",
    "plaintext",
    "template",
    "article",
    "main",
    "svg",
    "math",
    "center",
    "dir",
    "applet",
    "marquee",
    "listing",
];

/// Block tags jsoup nonetheless formats inline.
const FORMAT_INLINE: &[&str] = &[
    "title", "a", "p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "address", "li", "th", "td",
    "script", "style", "ins", "del", "s", "button",
];

fn is_block(name: &str) -> bool {
    BLOCK_TAGS.contains(&name)
}

/// jsoup's `!tag.formatAsBlock()`.
fn formats_inline(name: &str) -> bool {
    !is_block(name) || FORMAT_INLINE.contains(&name)
}

fn ends_with_space(out: &str) -> bool {
    out.ends_with(' ')
}

fn preserves_whitespace(dom: &Dom, mut id: NodeId) -> bool {
    for _ in 0..6 {
        let node = dom.node(id);
        if node.kind == NodeKind::Element
            && matches!(
                node.name.qname.as_str(),
                "pre" | "plaintext" | "title" | "textarea"
            )
        {
            return true;
        }
        match node.parent {
            Some(p) => id = p,
            None => return false,
        }
    }
    false
}

/// jsoup's `Element.text()`.
pub fn text(dom: &Dom, id: NodeId) -> String {
    let mut out = String::new();
    accumulate(dom, id, &mut out);
    out.trim().to_string()
}

fn accumulate(dom: &Dom, id: NodeId, out: &mut String) {
    let children = &dom.node(id).children;
    for (i, &child) in children.iter().enumerate() {
        let node = dom.node(child);
        match node.kind {
            NodeKind::Text => {
                if preserves_whitespace(dom, id) {
                    out.push_str(&node.value);
                } else {
                    let strip = ends_with_space(out);
                    append_normalised(out, &node.value, strip);
                }
            }
            NodeKind::Element => {
                let name = node.name.qname.as_str();
                if !out.is_empty() && (is_block(name) || name == "br") && !ends_with_space(out) {
                    out.push(' ');
                }
                accumulate(dom, child, out);
                let inline_next = children.get(i + 1).is_some_and(|&n| {
                    let next = dom.node(n);
                    next.kind == NodeKind::Text
                        || (next.kind == NodeKind::Element && formats_inline(&next.name.qname))
                });
                if is_block(name) && inline_next && !ends_with_space(out) {
                    out.push(' ');
                }
            }
            _ => {}
        }
    }
}

/// jsoup's `Element.ownText()`: the element's own text nodes, a space for `<br>`.
pub fn own_text(dom: &Dom, id: NodeId) -> String {
    let mut out = String::new();
    for &child in &dom.node(id).children {
        let node = dom.node(child);
        match node.kind {
            NodeKind::Text => {
                let strip = ends_with_space(&out);
                append_normalised(&mut out, &node.value, strip);
            }
            NodeKind::Element if node.name.qname == "br" && !ends_with_space(&out) => out.push(' '),
            _ => {}
        }
    }
    out.trim().to_string()
}
