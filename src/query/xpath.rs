//! XPath evaluation over a [`Dom`]: an [`XPath`] is compiled once (parsed by
//! [`super::xpath_parse`], function names and arities checked) and evaluated per sample.
//!
//! Values follow XPath 1.0 (node-sets in document order, booleans, IEEE doubles,
//! strings, with Xalan's number formatting). XPath 2 expressions additionally produce
//! sequences of atomic values ([`Value::Items`]) and use a few XPath 2 functions.
//! Namespace prefixes are resolved when evaluation starts: first from the configured
//! map, then from the document element's declarations, as JMeter's prefix resolvers do.

use super::xml_dom::{Dom, NodeId, NodeKind, ROOT};
use super::xpath_functions::{call, check_call};
use super::xpath_parse::{parse, ArithOp, Axis, CompareOp, Expr, NodeTest, Step, Version};

/// A node or one attribute of an element; ordering is document order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeRef {
    pub node: NodeId,
    /// 0 for the node itself, `i + 1` for its attribute `i`.
    pub attr: usize,
}

impl NodeRef {
    pub fn node(node: NodeId) -> NodeRef {
        NodeRef { node, attr: 0 }
    }

    pub fn is_attribute(self) -> bool {
        self.attr > 0
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Nodes(Vec<NodeRef>),
    Boolean(bool),
    Number(f64),
    String(String),
    /// XPath 2: a sequence of atomic values (never nested, never nodes).
    Items(Vec<Value>),
}

/// A compiled expression.
#[derive(Debug, Clone)]
pub struct XPath {
    expr: Expr,
    version: Version,
    /// Prefixes the expression uses, resolved at each evaluation.
    prefixes: Vec<String>,
}

/// Where prefixes come from besides the document: `(prefix, uri)` pairs.
pub type Namespaces = [(String, String)];

pub struct Context<'d> {
    pub dom: &'d Dom,
    pub version: Version,
    namespaces: Vec<(String, String)>,
    pub node: NodeRef,
    pub position: usize,
    pub size: usize,
}

impl XPath {
    pub fn compile(text: &str, version: Version) -> Result<XPath, String> {
        let expr = parse(text, version)?;
        let mut prefixes = Vec::new();
        check(&expr, version, &mut prefixes)?;
        Ok(XPath {
            expr,
            version,
            prefixes,
        })
    }

    /// The namespace prefixes the expression uses.
    pub fn prefixes(&self) -> &[String] {
        &self.prefixes
    }

    /// Evaluates against the document root. XPath 1 prefixes fall back to the document
    /// element's declarations (Xalan's resolver); XPath 2 ones must be configured.
    pub fn evaluate(&self, dom: &Dom, configured: &Namespaces) -> Result<Value, String> {
        let mut namespaces = Vec::new();
        for prefix in &self.prefixes {
            let uri = configured
                .iter()
                .find(|(p, _)| p == prefix)
                .map(|(_, uri)| uri.clone())
                .or_else(|| match self.version {
                    Version::One => dom.root_namespace(prefix),
                    Version::Two => None,
                })
                .ok_or_else(|| format!("Prefix must resolve to a namespace: {prefix}"))?;
            namespaces.push((prefix.clone(), uri));
        }
        let mut cx = Context {
            dom,
            version: self.version,
            namespaces,
            node: NodeRef::node(ROOT),
            position: 1,
            size: 1,
        };
        eval(&self.expr, &mut cx)
    }
}

/// Checks function names and arities, and collects the prefixes of name tests.
fn check(expr: &Expr, version: Version, prefixes: &mut Vec<String>) -> Result<(), String> {
    let mut visit = |e: &Expr| check(e, version, prefixes);
    match expr {
        Expr::Or(a, b)
        | Expr::And(a, b)
        | Expr::Compare(_, a, b)
        | Expr::ValueCompare(_, a, b)
        | Expr::Arith(_, a, b)
        | Expr::Union(a, b) => {
            visit(a)?;
            visit(b)
        }
        Expr::Negate(a) => visit(a),
        Expr::If(a, b, c) => {
            visit(a)?;
            visit(b)?;
            visit(c)
        }
        Expr::Sequence(items) => items.iter().try_for_each(visit),
        Expr::Call(name, args) => {
            check_call(name, args.len(), version)?;
            args.iter().try_for_each(visit)
        }
        Expr::Path { steps, .. } => check_steps(steps, version, prefixes),
        Expr::Filter {
            primary,
            predicates,
            steps,
        } => {
            check(primary, version, prefixes)?;
            for p in predicates {
                check(p, version, prefixes)?;
            }
            check_steps(steps, version, prefixes)
        }
        Expr::Literal(_) | Expr::Number(_) | Expr::Variable(_) => Ok(()),
    }
}

fn check_steps(steps: &[Step], version: Version, prefixes: &mut Vec<String>) -> Result<(), String> {
    for step in steps {
        match step {
            Step::Call(call) => check(call, version, prefixes)?,
            Step::Axis {
                test, predicates, ..
            } => {
                if let NodeTest::Name {
                    prefix: Some(p), ..
                }
                | NodeTest::Any { prefix: Some(p) } = test
                {
                    if p != "*" && !prefixes.contains(p) {
                        prefixes.push(p.clone());
                    }
                }
                for p in predicates {
                    check(p, version, prefixes)?;
                }
            }
        }
    }
    Ok(())
}

pub type Evaluated = Result<Value, String>;

pub fn eval(expr: &Expr, cx: &mut Context<'_>) -> Evaluated {
    Ok(match expr {
        Expr::Or(a, b) | Expr::And(a, b) => {
            let is_or = matches!(expr, Expr::Or(..));
            let left = eval(a, cx)?;
            if boolean(cx, &left) == is_or {
                return Ok(Value::Boolean(is_or));
            }
            let right = eval(b, cx)?;
            Value::Boolean(boolean(cx, &right))
        }
        Expr::Compare(op, a, b) => {
            let (a, b) = (eval(a, cx)?, eval(b, cx)?);
            Value::Boolean(compare(cx, *op, &a, &b))
        }
        Expr::ValueCompare(op, a, b) => {
            let (a, b) = (eval(a, cx)?, eval(b, cx)?);
            let (a, b) = (atomize(cx, a), atomize(cx, b));
            if a.len() > 1 || b.len() > 1 {
                return Err("a value comparison needs single values".into());
            }
            match (a.first(), b.first()) {
                (Some(a), Some(b)) => Value::Boolean(compare(cx, *op, a, b)),
                _ => Value::Items(Vec::new()),
            }
        }
        Expr::Arith(op, a, b) => {
            let (a, b) = (eval(a, cx)?, eval(b, cx)?);
            Value::Number(arith(*op, number(cx, &a), number(cx, &b)))
        }
        Expr::Negate(a) => {
            let value = eval(a, cx)?;
            Value::Number(-number(cx, &value))
        }
        Expr::Union(a, b) => {
            let (Value::Nodes(mut a), Value::Nodes(b)) = (eval(a, cx)?, eval(b, cx)?) else {
                return Err("the operands of | must be node-sets".into());
            };
            a.extend(b);
            a.sort_unstable();
            a.dedup();
            Value::Nodes(a)
        }
        Expr::Path { absolute, steps } => {
            let start = if *absolute {
                NodeRef::node(ROOT)
            } else {
                cx.node
            };
            apply_steps(vec![start], steps, cx)?
        }
        Expr::Filter {
            primary,
            predicates,
            steps,
        } => {
            let value = eval(primary, cx)?;
            if predicates.is_empty() && steps.is_empty() {
                return Ok(value);
            }
            let Value::Nodes(nodes) = value else {
                return Err("predicates and paths apply only to node-sets".into());
            };
            let nodes = filter(nodes, predicates, cx)?;
            apply_steps(nodes, steps, cx)?
        }
        Expr::Literal(text) => Value::String(text.clone()),
        Expr::Number(n) => Value::Number(*n),
        Expr::Variable(name) => {
            return Err(format!("Could not find variable with the name of {name}"))
        }
        Expr::Call(name, args) => call(name, args, cx)?,
        Expr::Sequence(items) => {
            let mut nodes = Vec::new();
            let mut atoms = Vec::new();
            for item in items {
                match eval(item, cx)? {
                    Value::Nodes(n) => nodes.extend(n),
                    Value::Items(i) => atoms.extend(i),
                    other => atoms.push(other),
                }
            }
            match (nodes.is_empty(), atoms.is_empty()) {
                (_, true) => Value::Nodes(nodes),
                (true, false) => Value::Items(atoms),
                _ => return Err("sequences mixing nodes and values are not supported".into()),
            }
        }
        Expr::If(condition, then, otherwise) => {
            let condition = eval(condition, cx)?;
            if boolean(cx, &condition) {
                eval(then, cx)?
            } else {
                eval(otherwise, cx)?
            }
        }
    })
}

fn arith(op: ArithOp, a: f64, b: f64) -> f64 {
    match op {
        ArithOp::Add => a + b,
        ArithOp::Sub => a - b,
        ArithOp::Mul => a * b,
        ArithOp::Div => a / b,
        ArithOp::Mod => a % b,
        ArithOp::IntDiv => (a / b).trunc(),
    }
}

fn apply_steps(mut nodes: Vec<NodeRef>, steps: &[Step], cx: &mut Context<'_>) -> Evaluated {
    for (i, step) in steps.iter().enumerate() {
        match step {
            Step::Axis {
                axis,
                test,
                predicates,
            } => {
                let mut next = Vec::new();
                for &node in &nodes {
                    let selected: Vec<NodeRef> = axis_nodes(cx.dom, *axis, node)
                        .into_iter()
                        .filter(|&n| matches_test(cx, *axis, test, n))
                        .collect();
                    next.extend(filter(selected, predicates, cx)?);
                }
                next.sort_unstable();
                next.dedup();
                nodes = next;
            }
            Step::Call(function) => {
                if i + 1 != steps.len() {
                    return Err("a function step must be the last step of a path".into());
                }
                let mut items = Vec::new();
                let size = nodes.len();
                for (position, &node) in nodes.iter().enumerate() {
                    let value = with_focus(cx, node, position + 1, size, |cx| eval(function, cx))?;
                    match value {
                        Value::Items(values) => items.extend(values),
                        Value::Nodes(_) => return Err("a function step must return values".into()),
                        other => items.push(other),
                    }
                }
                return Ok(Value::Items(items));
            }
        }
    }
    Ok(Value::Nodes(nodes))
}

/// Keeps the nodes (in axis order) for which every predicate holds in turn.
fn filter(
    mut nodes: Vec<NodeRef>,
    predicates: &[Expr],
    cx: &mut Context<'_>,
) -> Result<Vec<NodeRef>, String> {
    for predicate in predicates {
        let size = nodes.len();
        let mut kept = Vec::with_capacity(size);
        for (i, &node) in nodes.iter().enumerate() {
            let value = with_focus(cx, node, i + 1, size, |cx| eval(predicate, cx))?;
            let keep = match value {
                Value::Number(n) => n == (i + 1) as f64,
                other => boolean(cx, &other),
            };
            if keep {
                kept.push(node);
            }
        }
        nodes = kept;
    }
    Ok(nodes)
}

pub fn with_focus<T>(
    cx: &mut Context<'_>,
    node: NodeRef,
    position: usize,
    size: usize,
    f: impl FnOnce(&mut Context<'_>) -> T,
) -> T {
    let saved = (cx.node, cx.position, cx.size);
    cx.node = node;
    cx.position = position;
    cx.size = size;
    let out = f(cx);
    (cx.node, cx.position, cx.size) = saved;
    out
}

/// The nodes of `axis` from `from`, in axis order (nearest first for reverse axes).
fn axis_nodes(dom: &Dom, axis: Axis, from: NodeRef) -> Vec<NodeRef> {
    let id = from.node;
    let element_only = from.is_attribute();
    let nodes = |range: std::ops::Range<NodeId>| range.map(NodeRef::node).collect::<Vec<_>>();
    match axis {
        Axis::SelfNode => vec![from],
        Axis::Attribute if !element_only => (0..dom.node(id).attrs.len())
            .map(|i| NodeRef {
                node: id,
                attr: i + 1,
            })
            .collect(),
        Axis::Child if !element_only => dom
            .node(id)
            .children
            .iter()
            .map(|&c| NodeRef::node(c))
            .collect(),
        Axis::Descendant if !element_only => nodes(dom.descendants(id)),
        Axis::DescendantOrSelf => {
            if element_only {
                vec![from]
            } else {
                nodes(id..dom.subtree_end(id))
            }
        }
        Axis::Parent => parent(dom, from).into_iter().collect(),
        Axis::Ancestor | Axis::AncestorOrSelf => {
            let mut out = Vec::new();
            if axis == Axis::AncestorOrSelf {
                out.push(from);
            }
            let mut current = parent(dom, from);
            while let Some(p) = current {
                out.push(p);
                current = parent(dom, p);
            }
            out
        }
        Axis::FollowingSibling | Axis::PrecedingSibling if !element_only => {
            let Some(p) = dom.node(id).parent else {
                return Vec::new();
            };
            let siblings = &dom.node(p).children;
            let at = siblings.iter().position(|&c| c == id).unwrap_or(0);
            if axis == Axis::FollowingSibling {
                siblings[at + 1..]
                    .iter()
                    .map(|&c| NodeRef::node(c))
                    .collect()
            } else {
                siblings[..at]
                    .iter()
                    .rev()
                    .map(|&c| NodeRef::node(c))
                    .collect()
            }
        }
        Axis::Following => {
            let start = if element_only {
                id + 1
            } else {
                dom.subtree_end(id)
            };
            nodes(start..dom.nodes.len())
        }
        Axis::Preceding => {
            let mut ancestors = Vec::new();
            let mut current = dom.node(id).parent;
            while let Some(p) = current {
                ancestors.push(p);
                current = dom.node(p).parent;
            }
            let end = if element_only { id + 1 } else { id };
            (0..end)
                .rev()
                .filter(|n| !ancestors.contains(n) && *n != id)
                .map(NodeRef::node)
                .collect()
        }
        _ => Vec::new(),
    }
}

fn parent(dom: &Dom, node: NodeRef) -> Option<NodeRef> {
    if node.is_attribute() {
        Some(NodeRef::node(node.node))
    } else {
        dom.node(node.node).parent.map(NodeRef::node)
    }
}

fn matches_test(cx: &Context<'_>, axis: Axis, test: &NodeTest, node: NodeRef) -> bool {
    let dom = cx.dom;
    let kind = if node.is_attribute() {
        None
    } else {
        Some(dom.node(node.node).kind)
    };
    let principal = if axis == Axis::Attribute {
        kind.is_none()
    } else {
        kind == Some(NodeKind::Element)
    };
    match test {
        NodeTest::Node => true,
        NodeTest::Text => kind == Some(NodeKind::Text),
        NodeTest::Comment => kind == Some(NodeKind::Comment),
        NodeTest::ProcessingInstruction(target) => {
            kind == Some(NodeKind::ProcessingInstruction)
                && target
                    .as_ref()
                    .is_none_or(|t| *t == dom.node(node.node).name.qname)
        }
        NodeTest::Any { prefix } => {
            principal
                && prefix
                    .as_ref()
                    .is_none_or(|p| name_ns(cx, node) == cx.uri(p))
        }
        NodeTest::Name { prefix, local } => {
            if !principal {
                return false;
            }
            let name = name_of(dom, node);
            match prefix {
                Some(p) if p == "*" => name.local == *local,
                Some(p) => name.local == *local && name.ns.as_deref() == cx.uri(p),
                // Without a namespace the whole written name must match: in a
                // namespace-unaware tree `p:b` is not `b` (Xalan over a Level 1 DOM).
                None => name.ns.is_none() && name.qname == *local,
            }
        }
    }
}

fn name_ns<'d>(cx: &Context<'d>, node: NodeRef) -> Option<&'d str> {
    name_of(cx.dom, node).ns.as_deref()
}

impl Context<'_> {
    fn uri(&self, prefix: &str) -> Option<&str> {
        self.namespaces
            .iter()
            .find(|(p, _)| p == prefix)
            .map(|(_, uri)| uri.as_str())
    }
}

/// The name of an element, attribute or processing instruction.
pub fn name_of(dom: &Dom, node: NodeRef) -> &super::xml_dom::Name {
    let n = dom.node(node.node);
    if node.is_attribute() {
        &n.attrs[node.attr - 1].name
    } else {
        &n.name
    }
}

pub fn node_string(dom: &Dom, node: NodeRef) -> String {
    if node.is_attribute() {
        dom.node(node.node).attrs[node.attr - 1].value.clone()
    } else {
        dom.string_value(node.node)
    }
}

pub fn boolean(_cx: &Context<'_>, value: &Value) -> bool {
    match value {
        Value::Items(items) => match items.as_slice() {
            [single] => scalar_boolean(single),
            _ => !items.is_empty(),
        },
        other => scalar_boolean(other),
    }
}

pub fn number(cx: &Context<'_>, value: &Value) -> f64 {
    match value {
        Value::Number(n) => *n,
        Value::Boolean(b) => f64::from(u8::from(*b)),
        other => parse_number(&string(cx, other)),
    }
}

pub fn string(cx: &Context<'_>, value: &Value) -> String {
    match value {
        Value::Nodes(nodes) => nodes
            .first()
            .map(|&n| node_string(cx.dom, n))
            .unwrap_or_default(),
        Value::Items(items) => items.first().map(scalar_string).unwrap_or_default(),
        other => scalar_string(other),
    }
}

/// XPath 1.0 `number()` of a string: optional whitespace, sign, digits and one point.
pub fn parse_number(text: &str) -> f64 {
    let t = text.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r'));
    let digits = t.strip_prefix('-').unwrap_or(t);
    let valid = !digits.is_empty()
        && digits != "."
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.matches('.').count() <= 1;
    if valid {
        t.parse().unwrap_or(f64::NAN)
    } else {
        f64::NAN
    }
}

/// An XPath number as text: integers without a point, no exponent, `NaN`/`Infinity`.
pub fn format_number(n: f64) -> String {
    if n.is_nan() {
        "NaN".into()
    } else if n.is_infinite() {
        if n > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if n == 0.0 {
        "0".into()
    } else {
        format!("{n}")
    }
}

/// Nodes become their string values; scalars stay.
pub fn atomize(cx: &Context<'_>, value: Value) -> Vec<Value> {
    match value {
        Value::Nodes(nodes) => nodes
            .into_iter()
            .map(|n| Value::String(node_string(cx.dom, n)))
            .collect(),
        Value::Items(items) => items,
        other => vec![other],
    }
}

fn compare(cx: &Context<'_>, op: CompareOp, a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Nodes(_) | Value::Items(_), _) | (_, Value::Nodes(_) | Value::Items(_)) => {
            if let Value::Boolean(flag) = b {
                return compare_scalars(
                    op,
                    &Value::Boolean(boolean(cx, a)),
                    &Value::Boolean(*flag),
                );
            }
            if let Value::Boolean(flag) = a {
                return compare_scalars(
                    op,
                    &Value::Boolean(*flag),
                    &Value::Boolean(boolean(cx, b)),
                );
            }
            let left = atomize(cx, a.clone());
            let right = atomize(cx, b.clone());
            left.iter()
                .any(|l| right.iter().any(|r| compare_scalars(op, l, r)))
        }
        _ => compare_scalars(op, a, b),
    }
}

/// Compares two single values (after node-sets were taken apart).
fn compare_scalars(op: CompareOp, a: &Value, b: &Value) -> bool {
    match op {
        CompareOp::Eq | CompareOp::Ne => {
            let equal = match (a, b) {
                (Value::Boolean(_), _) | (_, Value::Boolean(_)) => {
                    scalar_boolean(a) == scalar_boolean(b)
                }
                (Value::Number(_), _) | (_, Value::Number(_)) => {
                    scalar_number(a) == scalar_number(b)
                }
                _ => scalar_string(a) == scalar_string(b),
            };
            equal == (op == CompareOp::Eq)
        }
        _ => {
            let (x, y) = (scalar_number(a), scalar_number(b));
            match op {
                CompareOp::Lt => x < y,
                CompareOp::Le => x <= y,
                CompareOp::Gt => x > y,
                _ => x >= y,
            }
        }
    }
}

fn scalar_boolean(value: &Value) -> bool {
    match value {
        Value::Boolean(b) => *b,
        Value::Number(n) => *n != 0.0 && !n.is_nan(),
        Value::String(s) => !s.is_empty(),
        Value::Nodes(n) => !n.is_empty(),
        Value::Items(i) => !i.is_empty(),
    }
}

fn scalar_number(value: &Value) -> f64 {
    match value {
        Value::Number(n) => *n,
        Value::Boolean(b) => f64::from(u8::from(*b)),
        other => parse_number(&scalar_string(other)),
    }
}

fn scalar_string(value: &Value) -> String {
    match value {
        Value::Boolean(b) => b.to_string(),
        Value::Number(n) => format_number(*n),
        Value::String(s) => s.clone(),
        Value::Nodes(_) | Value::Items(_) => String::new(),
    }
}

/// JMeter's `XPathUtil.getValueForNode` (or the serialised element for a fragment).
pub fn node_value(dom: &Dom, node: NodeRef, fragment: bool) -> Option<String> {
    if node.is_attribute() {
        return Some(dom.node(node.node).attrs[node.attr - 1].value.clone());
    }
    let n = dom.node(node.node);
    match n.kind {
        NodeKind::Element if fragment => Some(dom.serialize(node.node)),
        NodeKind::Element => {
            let first = *n.children.first()?;
            let child = dom.node(first);
            (child.kind != NodeKind::Element).then(|| child.value.clone())
        }
        NodeKind::Document => None,
        _ => Some(n.value.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::xml_dom::parse_xml;
    use super::*;

    fn strings(xml: &str, xpath: &str) -> Vec<String> {
        let dom = parse_xml(xml, true).unwrap();
        let compiled = XPath::compile(xpath, Version::One).unwrap();
        let cx = Context {
            dom: &dom,
            version: Version::One,
            namespaces: Vec::new(),
            node: NodeRef::node(ROOT),
            position: 1,
            size: 1,
        };
        match compiled.evaluate(&dom, &[]).unwrap() {
            Value::Nodes(nodes) => nodes.iter().map(|&n| node_string(&dom, n)).collect(),
            other => vec![string(&cx, &other)],
        }
    }

    const DOC: &str = r#"<r><a id="1">x</a><a id="2">y<b>z</b></a><c n="5"/><c n="7"/></r>"#;

    #[test]
    fn paths_predicates_and_axes() {
        assert_eq!(strings(DOC, "//a"), ["x", "yz"]);
        assert_eq!(strings(DOC, "//a[2]/@id"), ["2"]);
        assert_eq!(strings(DOC, "//a[last()]/b"), ["z"]);
        assert_eq!(strings(DOC, "//b/ancestor::*[1]/@id"), ["2"]);
        assert_eq!(strings(DOC, "//c[1]/preceding-sibling::a[1]/@id"), ["2"]);
        assert_eq!(strings(DOC, "//a[@id='1']/following::*/@n"), ["5", "7"]);
        assert_eq!(strings(DOC, "(//a | //c)[3]/@n"), ["5"]);
        assert_eq!(strings(DOC, "//text()"), ["x", "y", "z"]);
    }

    #[test]
    fn functions_numbers_and_comparisons() {
        assert_eq!(strings(DOC, "count(//a)"), ["2"]);
        assert_eq!(strings(DOC, "sum(//c/@n) div 4"), ["3"]);
        assert_eq!(strings(DOC, "0.1 + 0.2"), ["0.30000000000000004"]);
        assert_eq!(strings(DOC, "1 div 0"), ["Infinity"]);
        assert_eq!(strings(DOC, "count(//a) > 1 and //c/@n = 7"), ["true"]);
        assert_eq!(
            strings(DOC, "concat(name(/*), '-', string-length('abc'))"),
            ["r-3"]
        );
        assert_eq!(strings(DOC, "normalize-space('  a   b ')"), ["a b"]);
        assert_eq!(strings(DOC, "substring('12345', 1.5, 2.6)"), ["234"]);
        assert_eq!(strings(DOC, "translate('bar','abc','ABC')"), ["BAr"]);
        assert_eq!(strings(DOC, "number('x')"), ["NaN"]);
        assert_eq!(strings(DOC, "round(-2.5)"), ["-2"]);
    }

    #[test]
    fn prefixes_resolve_from_the_document_element_or_fail() {
        let xml = r#"<s:E xmlns:s="urn:s"><s:B>1</s:B><B>2</B></s:E>"#;
        assert_eq!(strings(xml, "//s:B"), ["1"]);
        assert_eq!(strings(xml, "//B"), ["2"]);
        let unaware = parse_xml(xml, false).unwrap();
        let local = XPath::compile("//B", Version::One).unwrap();
        assert!(matches!(local.evaluate(&unaware, &[]), Ok(Value::Nodes(n)) if n.len() == 1));
        let prefixed = XPath::compile("//s:B", Version::One).unwrap();
        assert!(matches!(prefixed.evaluate(&unaware, &[]), Ok(Value::Nodes(n)) if n.is_empty()));
        let dom = parse_xml(xml, true).unwrap();
        let missing = XPath::compile("//q:B", Version::One).unwrap();
        assert_eq!(
            missing.evaluate(&dom, &[]).unwrap_err(),
            "Prefix must resolve to a namespace: q"
        );
        let configured = [("q".to_string(), "urn:s".to_string())];
        assert!(matches!(missing.evaluate(&dom, &configured), Ok(Value::Nodes(n)) if n.len() == 1));
    }

    #[test]
    fn unknown_functions_and_wrong_arities_fail_to_compile() {
        assert!(XPath::compile("foo()", Version::One).is_err());
        assert!(XPath::compile("count()", Version::One).is_err());
        assert!(XPath::compile("lower-case('A')", Version::One).is_err());
        assert!(XPath::compile("lower-case('A')", Version::Two).is_ok());
    }
}
