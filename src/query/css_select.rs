//! CSS selectors with jsoup's syntax and meaning, which JMeter's CSS Selector Extractor
//! uses by default: standard selectors and combinators plus jsoup's own pseudo-classes
//! (`:contains`, `:containsOwn`, `:matches`, `:matchesOwn`, `:has`, `:not`, `:eq`,
//! `:lt`, `:gt`) and attribute tests (`[attr~=regex]`, `[^prefix]`, `[attr!=v]`; values
//! compared ignoring case, as jsoup does). A [`Selector`] is parsed once and matched
//! against every element of a [`Dom`], which yields matches in document order.
//! Texts for `:contains` and `:matches` are jsoup's ([`super::css_text`]).

use regex::Regex;

use super::css_text::{normalize, own_text, text};
use super::xml_dom::{Dom, NodeId, NodeKind};

#[derive(Debug, Clone)]
pub struct Selector {
    groups: Vec<Complex>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Combinator {
    Descendant,
    Child,
    Adjacent,
    Sibling,
}

/// Compounds joined by combinators; `leading` relates the first compound to the scope
/// element of a `:has(> p)`.
#[derive(Debug, Clone)]
struct Complex {
    leading: Option<Combinator>,
    first: Vec<Simple>,
    rest: Vec<(Combinator, Vec<Simple>)>,
}

#[derive(Debug, Clone)]
enum AttrOp {
    Exists,
    Equals(String),
    NotEquals(String),
    Starts(String),
    Ends(String),
    Contains(String),
    Matches(Regex),
}

#[derive(Debug, Clone)]
enum Simple {
    Any,
    Tag(String),
    Id(String),
    Class(String),
    Attr(String, AttrOp),
    AttrPrefix(String),
    IndexLess(usize),
    IndexGreater(usize),
    IndexEquals(usize),
    Has(Selector),
    Not(Selector),
    Contains(String),
    ContainsOwn(String),
    ContainsData(String),
    Matches(Regex),
    MatchesOwn(Regex),
    /// `:nth-child(an+b)` and friends: `(a, b, of_type, from_end)`.
    Nth(i64, i64, bool, bool),
    OnlyChild,
    OnlyOfType,
    Empty,
    Root,
}

impl Selector {
    pub fn parse(text: &str) -> Result<Selector, String> {
        let chars: Vec<char> = text.chars().collect();
        let mut parser = Parser { chars, pos: 0 };
        let selector = parser.group()?;
        if parser.pos < parser.chars.len() {
            return Err(format!("unexpected '{}'", parser.chars[parser.pos]));
        }
        Ok(selector)
    }

    /// The matching elements of `dom`, in document order.
    pub fn select(&self, dom: &Dom) -> Vec<NodeId> {
        (1..dom.nodes.len())
            .filter(|&id| dom.node(id).kind == NodeKind::Element && self.matches(dom, id, None))
            .collect()
    }

    fn matches(&self, dom: &Dom, id: NodeId, scope: Option<NodeId>) -> bool {
        self.groups
            .iter()
            .any(|c| matches_complex(dom, c, id, scope))
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn skip_ws(&mut self) -> bool {
        let start = self.pos;
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
        self.pos > start
    }

    fn group(&mut self) -> Result<Selector, String> {
        let mut groups = vec![self.complex()?];
        loop {
            self.skip_ws();
            if self.peek() == Some(',') {
                self.pos += 1;
                groups.push(self.complex()?);
            } else {
                return Ok(Selector { groups });
            }
        }
    }

    fn combinator(&mut self) -> Option<Combinator> {
        let combinator = match self.peek()? {
            '>' => Combinator::Child,
            '+' => Combinator::Adjacent,
            '~' => Combinator::Sibling,
            _ => return None,
        };
        self.pos += 1;
        Some(combinator)
    }

    fn complex(&mut self) -> Result<Complex, String> {
        self.skip_ws();
        let leading = self.combinator();
        self.skip_ws();
        let first = self.compound()?;
        let mut rest = Vec::new();
        loop {
            let spaced = self.skip_ws();
            let combinator = match self.combinator() {
                Some(c) => c,
                None if spaced && !matches!(self.peek(), None | Some(',') | Some(')')) => {
                    Combinator::Descendant
                }
                None => break,
            };
            self.skip_ws();
            rest.push((combinator, self.compound()?));
        }
        Ok(Complex {
            leading,
            first,
            rest,
        })
    }

    fn ident(&mut self) -> String {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '|' | '\\') || !c.is_ascii() {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.chars[start..self.pos]
            .iter()
            .collect::<String>()
            .replace('\\', "")
    }

    fn compound(&mut self) -> Result<Vec<Simple>, String> {
        let mut out = Vec::new();
        loop {
            match self.peek() {
                Some('*') => {
                    self.pos += 1;
                    out.push(Simple::Any);
                }
                Some('#') => {
                    self.pos += 1;
                    out.push(Simple::Id(self.required_ident("#")?));
                }
                Some('.') => {
                    self.pos += 1;
                    out.push(Simple::Class(self.required_ident(".")?));
                }
                Some('[') => {
                    self.pos += 1;
                    let inner = self.until(']')?;
                    out.push(attribute(&inner)?);
                }
                Some(':') => {
                    self.pos += 1;
                    out.push(self.pseudo()?);
                }
                Some(c) if c.is_alphanumeric() || c == '_' || c == '-' || !c.is_ascii() => {
                    out.push(Simple::Tag(self.ident().replace('|', ":").to_lowercase()));
                }
                _ => break,
            }
        }
        if out.is_empty() {
            return Err(match self.peek() {
                Some(c) => format!("unexpected '{c}'"),
                None => "a selector was expected at the end".into(),
            });
        }
        Ok(out)
    }

    fn required_ident(&mut self, after: &str) -> Result<String, String> {
        let name = self.ident();
        if name.is_empty() {
            return Err(format!("a name was expected after '{after}'"));
        }
        Ok(name)
    }

    /// The text up to the matching `close`, quotes and nested brackets respected.
    fn until(&mut self, close: char) -> Result<String, String> {
        let open = if close == ']' { '[' } else { '(' };
        let start = self.pos;
        let mut depth = 0;
        let mut quote = None;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == '"' || c == '\'' => quote = Some(c),
                None if c == open => depth += 1,
                None if c == close && depth == 0 => {
                    return Ok(self.chars[start..self.pos - 1].iter().collect());
                }
                None if c == close => depth -= 1,
                None => {}
            }
        }
        Err(format!("'{close}' is missing"))
    }

    fn pseudo(&mut self) -> Result<Simple, String> {
        let name = self.ident().to_lowercase();
        let argument = if self.peek() == Some('(') {
            self.pos += 1;
            Some(self.until(')')?)
        } else {
            None
        };
        let arg = || {
            argument
                .clone()
                .ok_or_else(|| format!(":{name} needs an argument"))
        };
        let index = || -> Result<usize, String> {
            arg()?
                .trim()
                .parse()
                .map_err(|_| format!(":{name} needs a number"))
        };
        let regex = || {
            Regex::new(&arg()?).map_err(|e| format!("invalid regular expression in :{name}: {e}"))
        };
        Ok(match name.as_str() {
            "lt" => Simple::IndexLess(index()?),
            "gt" => Simple::IndexGreater(index()?),
            "eq" => Simple::IndexEquals(index()?),
            "has" => Simple::Has(Selector::parse(&arg()?)?),
            "not" => Simple::Not(Selector::parse(&arg()?)?),
            "contains" => Simple::Contains(normalize(&arg()?).to_lowercase()),
            "containsown" => Simple::ContainsOwn(normalize(&arg()?).to_lowercase()),
            "containsdata" => Simple::ContainsData(arg()?.to_lowercase()),
            "matches" => Simple::Matches(regex()?),
            "matchesown" => Simple::MatchesOwn(regex()?),
            "first-child" => Simple::Nth(0, 1, false, false),
            "last-child" => Simple::Nth(0, 1, false, true),
            "first-of-type" => Simple::Nth(0, 1, true, false),
            "last-of-type" => Simple::Nth(0, 1, true, true),
            "nth-child" | "nth-last-child" | "nth-of-type" | "nth-last-of-type" => {
                let (a, b) = nth(&arg()?).ok_or_else(|| format!("bad :{name} argument"))?;
                Simple::Nth(a, b, name.ends_with("of-type"), name.contains("last"))
            }
            "only-child" => Simple::OnlyChild,
            "only-of-type" => Simple::OnlyOfType,
            "empty" => Simple::Empty,
            "root" => Simple::Root,
            _ => return Err(format!("unknown pseudo-class :{name}")),
        })
    }
}

fn unquote(text: &str) -> &str {
    let t = text.trim();
    for q in ['"', '\''] {
        if t.len() >= 2 && t.starts_with(q) && t.ends_with(q) {
            return &t[1..t.len() - 1];
        }
    }
    t
}

fn attribute(inner: &str) -> Result<Simple, String> {
    let inner = inner.trim();
    if let Some(prefix) = inner.strip_prefix('^') {
        return Ok(Simple::AttrPrefix(prefix.trim().to_lowercase()));
    }
    for op in ["^=", "$=", "*=", "~=", "!=", "="] {
        if let Some((name, value)) = inner.split_once(op) {
            let name = name.trim().to_lowercase();
            let value = unquote(value);
            let lower = value.trim().to_lowercase();
            let op = match op {
                "^=" => AttrOp::Starts(lower),
                "$=" => AttrOp::Ends(lower),
                "*=" => AttrOp::Contains(lower),
                "~=" => AttrOp::Matches(
                    Regex::new(value)
                        .map_err(|e| format!("invalid regular expression in [{name}~=]: {e}"))?,
                ),
                "!=" => AttrOp::NotEquals(lower),
                _ => AttrOp::Equals(lower),
            };
            if name.is_empty() {
                return Err("an attribute name is missing".into());
            }
            return Ok(Simple::Attr(name, op));
        }
    }
    if inner.is_empty() {
        return Err("an attribute name is missing".into());
    }
    Ok(Simple::Attr(inner.to_lowercase(), AttrOp::Exists))
}

/// `an+b`, `odd`, `even`, `3`, `-n+2`.
fn nth(text: &str) -> Option<(i64, i64)> {
    let t: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_lowercase();
    match t.as_str() {
        "odd" => return Some((2, 1)),
        "even" => return Some((2, 0)),
        _ => {}
    }
    match t.split_once('n') {
        Some((a, b)) => {
            let a = match a {
                "" | "+" => 1,
                "-" => -1,
                other => other.parse().ok()?,
            };
            let b = if b.is_empty() {
                0
            } else {
                b.trim_start_matches('+').parse().ok()?
            };
            Some((a, b))
        }
        None => Some((0, t.trim_start_matches('+').parse().ok()?)),
    }
}

fn matches_complex(dom: &Dom, complex: &Complex, id: NodeId, scope: Option<NodeId>) -> bool {
    let mut compounds: Vec<&Vec<Simple>> = vec![&complex.first];
    let mut combinators = Vec::new();
    for (c, compound) in &complex.rest {
        combinators.push(*c);
        compounds.push(compound);
    }
    matches_from(
        dom,
        &compounds,
        &combinators,
        compounds.len() - 1,
        id,
        complex.leading,
        scope,
    )
}

/// Whether `id` matches compound `at` and, going left, the rest of the chain.
fn matches_from(
    dom: &Dom,
    compounds: &[&Vec<Simple>],
    combinators: &[Combinator],
    at: usize,
    id: NodeId,
    leading: Option<Combinator>,
    scope: Option<NodeId>,
) -> bool {
    if !compounds[at].iter().all(|s| matches_simple(dom, s, id)) {
        return false;
    }
    let next = |candidate: NodeId| {
        matches_from(
            dom,
            compounds,
            combinators,
            at - 1,
            candidate,
            leading,
            scope,
        )
    };
    if at == 0 {
        return match (leading, scope) {
            (_, None) => true,
            (Some(combinator), Some(scope)) => related(dom, combinator, id, |c| c == scope),
            (None, Some(scope)) => related(dom, Combinator::Descendant, id, |c| c == scope),
        };
    }
    related(dom, combinators[at - 1], id, next)
}

/// Whether some element in `combinator` relation to the left of `id` satisfies `test`.
fn related(dom: &Dom, combinator: Combinator, id: NodeId, test: impl Fn(NodeId) -> bool) -> bool {
    match combinator {
        Combinator::Child => dom.node(id).parent.is_some_and(test),
        Combinator::Descendant => {
            let mut current = dom.node(id).parent;
            while let Some(p) = current {
                if test(p) {
                    return true;
                }
                current = dom.node(p).parent;
            }
            false
        }
        Combinator::Adjacent => element_siblings_before(dom, id)
            .last()
            .is_some_and(|&s| test(s)),
        Combinator::Sibling => element_siblings_before(dom, id).into_iter().any(test),
    }
}

fn element_siblings(dom: &Dom, id: NodeId) -> Vec<NodeId> {
    match dom.node(id).parent {
        Some(p) => dom
            .node(p)
            .children
            .iter()
            .copied()
            .filter(|&c| dom.node(c).kind == NodeKind::Element)
            .collect(),
        None => vec![id],
    }
}

fn element_siblings_before(dom: &Dom, id: NodeId) -> Vec<NodeId> {
    let siblings = element_siblings(dom, id);
    let at = siblings.iter().position(|&s| s == id).unwrap_or(0);
    siblings[..at].to_vec()
}

fn sibling_index(dom: &Dom, id: NodeId) -> usize {
    element_siblings(dom, id)
        .iter()
        .position(|&s| s == id)
        .unwrap_or(0)
}

fn attr<'d>(dom: &'d Dom, id: NodeId, name: &str) -> Option<&'d str> {
    dom.node(id)
        .attrs
        .iter()
        .find(|a| a.name.qname.eq_ignore_ascii_case(name))
        .map(|a| a.value.as_str())
}

fn matches_simple(dom: &Dom, simple: &Simple, id: NodeId) -> bool {
    let node = dom.node(id);
    match simple {
        Simple::Any => true,
        Simple::Tag(tag) => node.name.qname.eq_ignore_ascii_case(tag),
        Simple::Id(wanted) => attr(dom, id, "id") == Some(wanted.as_str()),
        Simple::Class(class) => attr(dom, id, "class")
            .is_some_and(|v| v.split_whitespace().any(|c| c.eq_ignore_ascii_case(class))),
        Simple::AttrPrefix(prefix) => node
            .attrs
            .iter()
            .any(|a| a.name.qname.to_lowercase().starts_with(prefix)),
        Simple::Attr(name, op) => {
            let value = attr(dom, id, name);
            match op {
                AttrOp::Exists => value.is_some(),
                AttrOp::Equals(v) => value.is_some_and(|a| a.trim().to_lowercase() == *v),
                AttrOp::NotEquals(v) => value.is_none_or(|a| a.to_lowercase() != *v),
                AttrOp::Starts(v) => {
                    value.is_some_and(|a| a.to_lowercase().starts_with(v.as_str()))
                }
                AttrOp::Ends(v) => value.is_some_and(|a| a.to_lowercase().ends_with(v.as_str())),
                AttrOp::Contains(v) => value.is_some_and(|a| a.to_lowercase().contains(v.as_str())),
                AttrOp::Matches(regex) => value.is_some_and(|a| regex.is_match(a)),
            }
        }
        Simple::IndexLess(n) => sibling_index(dom, id) < *n,
        Simple::IndexGreater(n) => sibling_index(dom, id) > *n,
        Simple::IndexEquals(n) => sibling_index(dom, id) == *n,
        Simple::Has(selector) => dom
            .descendants(id)
            .any(|d| dom.node(d).kind == NodeKind::Element && selector.matches(dom, d, Some(id))),
        Simple::Not(selector) => !selector.matches(dom, id, None),
        Simple::Contains(text_) => text(dom, id).to_lowercase().contains(text_.as_str()),
        Simple::ContainsOwn(text_) => own_text(dom, id).to_lowercase().contains(text_.as_str()),
        Simple::ContainsData(data) => data_of(dom, id).to_lowercase().contains(data.as_str()),
        Simple::Matches(regex) => regex.is_match(&text(dom, id)),
        Simple::MatchesOwn(regex) => regex.is_match(&own_text(dom, id)),
        Simple::Nth(a, b, of_type, from_end) => {
            let mut siblings = element_siblings(dom, id);
            if *of_type {
                siblings.retain(|&s| dom.node(s).name.qname == node.name.qname);
            }
            if *from_end {
                siblings.reverse();
            }
            let position = siblings.iter().position(|&s| s == id).unwrap_or(0) as i64 + 1;
            if *a == 0 {
                position == *b
            } else {
                (position - b) % a == 0 && (position - b) / a >= 0
            }
        }
        Simple::OnlyChild => element_siblings(dom, id).len() == 1,
        Simple::OnlyOfType => {
            element_siblings(dom, id)
                .iter()
                .filter(|&&s| dom.node(s).name.qname == node.name.qname)
                .count()
                == 1
        }
        Simple::Empty => node.children.iter().all(|&c| match dom.node(c).kind {
            NodeKind::Element => false,
            NodeKind::Text => dom.node(c).value.is_empty(),
            _ => true,
        }),
        Simple::Root => node.parent == Some(0),
    }
}

/// Script and style contents (jsoup's "data").
fn data_of(dom: &Dom, id: NodeId) -> String {
    let mut out = String::new();
    for d in dom.descendants(id) {
        let parent = dom.node(d).parent.map(|p| dom.node(p).name.qname.as_str());
        if dom.node(d).kind == NodeKind::Text && matches!(parent, Some("script") | Some("style")) {
            out.push_str(&dom.node(d).value);
        }
    }
    out
}

/// jsoup's `Element.attr(name)`: the value, or empty when absent.
pub fn attribute_value(dom: &Dom, id: NodeId, name: &str) -> String {
    attr(dom, id, name.trim()).unwrap_or("").to_string()
}

#[cfg(test)]
mod tests {
    use super::super::html_parse::parse_html;
    use super::*;

    const PAGE: &str = r#"<html><body>
        <div id="menu" class="top Nav"><ul>
          <li><a href="/a" data-x="1">Alpha  one</a></li>
          <li class="sel"><a href="/b">Beta</a> <span>two</span></li>
          <li><a href="/c">Gamma<br>three</a></li>
        </ul></div>
        <p>First <b>bold</b> para</p><p>Second</p>
        <table><tr><td>1</td><td>2</td></tr></table>
        </body></html>"#;

    fn texts(selector: &str) -> Vec<String> {
        let dom = parse_html(PAGE).dom;
        let selector = Selector::parse(selector).unwrap_or_else(|e| panic!("{selector}: {e}"));
        selector
            .select(&dom)
            .into_iter()
            .map(|id| text(&dom, id))
            .collect()
    }

    #[test]
    fn standard_selectors_and_combinators() {
        assert_eq!(texts("#menu > ul > li:nth-child(2) > a"), ["Beta"]);
        assert_eq!(texts("li.sel span"), ["two"]);
        assert_eq!(texts("div.nav a[href^=/c]"), ["Gamma three"]);
        assert_eq!(texts("a[data-x], p + p"), ["Alpha one", "Second"]);
        assert_eq!(texts("li:first-child ~ li a"), ["Beta", "Gamma three"]);
        assert_eq!(texts("td:last-child"), ["2"]);
    }

    #[test]
    fn jsoup_pseudo_selectors() {
        assert_eq!(texts("a:contains(BETA)"), ["Beta"]);
        assert_eq!(texts("p:containsOwn(para)"), ["First bold para"]);
        assert_eq!(texts("li:eq(0) a"), ["Alpha one"]);
        assert_eq!(texts("li:gt(0) a"), ["Beta", "Gamma three"]);
        assert_eq!(texts("li:lt(1) a"), ["Alpha one"]);
        assert_eq!(texts("li:has(span) a"), ["Beta"]);
        assert_eq!(
            texts("ul:has(> li.sel) > li:not(.sel) a:matches(^G)"),
            ["Gamma three"]
        );
        assert_eq!(texts("a[href~=/[ab]$]"), ["Alpha one", "Beta"]);
        assert_eq!(texts("[^data-]"), ["Alpha one"]);
    }

    #[test]
    fn text_follows_jsoup_spacing() {
        assert_eq!(texts("ul")[0], "Alpha one Beta two Gamma three");
        assert_eq!(
            texts("body")[0],
            "Alpha one Beta two Gamma three First bold para Second 1 2"
        );
    }

    #[test]
    fn bad_selectors_are_errors() {
        assert!(Selector::parse("div >").is_err());
        assert!(Selector::parse("a:nope").is_err());
        assert!(Selector::parse("a[href").is_err());
        assert!(Selector::parse("li:eq(x)").is_err());
    }
}
