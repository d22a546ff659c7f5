//! Filter expressions of JSONPath (`[?(...)]`), as Jayway evaluates them: `@` is the
//! item being filtered, `$` the document; an operand path that selects nothing makes a
//! comparison false; `=~` must match the whole text; numbers compare as numbers and
//! strings as strings, values of different types are never equal.
//!
//! A comparison of a path with a number or string literal is decided on the
//! document's text when the node is a plain integer or a string without escapes
//! ([`Scalar`]); otherwise both sides are built as `serde_json` values.

use std::borrow::Cow;
use std::cmp::Ordering;

use fancy_regex::Regex;
use serde_json::Value;

use super::jsonpath::JsonPath;
use super::jsonpath_node::{Node, Scalar};

#[derive(Debug, Clone)]
pub enum Filter {
    Or(Box<Filter>, Box<Filter>),
    And(Box<Filter>, Box<Filter>),
    Not(Box<Filter>),
    Exists(Operand),
    Compare(Operand, Op, Operand),
}

#[derive(Debug, Clone)]
pub enum Operand {
    Current(JsonPath),
    Root(JsonPath),
    Literal(Value),
    Regex(Regex),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Matches,
    In,
    Nin,
}

impl Filter {
    pub fn matches<'v, N: Node<'v>>(&self, item: N, root: N) -> bool {
        match self {
            Filter::Or(a, b) => a.matches(item, root) || b.matches(item, root),
            Filter::And(a, b) => a.matches(item, root) && b.matches(item, root),
            Filter::Not(f) => !f.matches(item, root),
            // Jayway compiles a bare path into an existence check: a member that is
            // `false` or `null` still exists. A bare `true`/`false` literal keeps its value.
            Filter::Exists(Operand::Literal(Value::Bool(b))) => *b,
            Filter::Exists(operand) => operand.value(item, root).is_some(),
            Filter::Compare(left, op, right) => compare(left, *op, right, item, root),
        }
    }
}

impl Operand {
    fn value<'a, 'v: 'a, N: Node<'v>>(&'a self, item: N, root: N) -> Option<Cow<'a, Value>> {
        match self {
            Operand::Current(path) => path.first(item, root),
            Operand::Root(path) => path.first(root, root),
            Operand::Literal(value) => Some(Cow::Borrowed(value)),
            Operand::Regex(_) => None,
        }
    }
}

fn compare<'v, N: Node<'v>>(left: &Operand, op: Op, right: &Operand, item: N, root: N) -> bool {
    if let Some(decided) = compare_in_place(left, op, right, item, root) {
        return decided;
    }
    let Some(l) = left.value(item, root) else {
        return op == Op::Ne;
    };
    if op == Op::Matches {
        let Operand::Regex(regex) = right else {
            return false;
        };
        let text = match l.as_ref() {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        return regex.is_match(&text).unwrap_or(false);
    }
    let Some(r) = right.value(item, root) else {
        return op == Op::Ne;
    };
    match op {
        Op::Eq => equal(&l, &r),
        Op::Ne => !equal(&l, &r),
        Op::In => r.as_array().is_some_and(|a| a.iter().any(|v| equal(&l, v))),
        Op::Nin => r
            .as_array()
            .is_some_and(|a| !a.iter().any(|v| equal(&l, v))),
        _ => order(&l, &r).is_some_and(|ordering| holds(op, ordering)),
    }
}

/// Whether `op` (not `=~`, `in` or `nin`) holds between operands so ordered.
fn holds(op: Op, ordering: Ordering) -> bool {
    match op {
        Op::Eq => ordering == Ordering::Equal,
        Op::Ne => ordering != Ordering::Equal,
        Op::Lt => ordering == Ordering::Less,
        Op::Le => ordering != Ordering::Greater,
        Op::Gt => ordering == Ordering::Greater,
        _ => ordering != Ordering::Less,
    }
}

/// [`compare`] without building values, when a path of names and indexes meets a number
/// or string literal and the node is a [`Scalar`] the literal can be compared with
/// exactly; `None` when the general comparison must decide.
fn compare_in_place<'v, N: Node<'v>>(
    left: &Operand,
    op: Op,
    right: &Operand,
    item: N,
    root: N,
) -> Option<bool> {
    if matches!(op, Op::Matches | Op::In | Op::Nin) {
        return None;
    }
    let (path, start, literal, literal_first) = match (left, right) {
        (Operand::Current(path), Operand::Literal(literal)) => (path, item, literal, false),
        (Operand::Root(path), Operand::Literal(literal)) => (path, root, literal, false),
        (Operand::Literal(literal), Operand::Current(path)) => (path, item, literal, true),
        (Operand::Literal(literal), Operand::Root(path)) => (path, root, literal, true),
        _ => return None,
    };
    let Some(node) = path.first_node(start)? else {
        // A path that selects nothing makes every comparison but `!=` false.
        return Some(op == Op::Ne);
    };
    let ordering = match (node.scalar(), literal) {
        (Scalar::Integer(integer), Value::Number(number)) => {
            let number = number
                .as_i64()
                .filter(|n| n.unsigned_abs() <= Scalar::EXACT_INTEGER)?;
            integer.cmp(&number)
        }
        (Scalar::PlainString(text), Value::String(string)) => text.cmp(string.as_str()),
        // Values of different types are neither equal nor ordered.
        (Scalar::Integer(_), Value::String(_)) | (Scalar::PlainString(_), Value::Number(_)) => {
            return Some(op == Op::Ne)
        }
        _ => return None,
    };
    let ordering = match literal_first {
        false => ordering,
        true => ordering.reverse(),
    };
    Some(holds(op, ordering))
}

fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn order(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64()?.partial_cmp(&y.as_f64()?),
        (Value::String(x), Value::String(y)) => Some(x.cmp(y)),
        _ => None,
    }
}

/// Parses a filter body (after `?(`); returns it and the text after it (`)]...`).
pub fn parse_filter(text: &str) -> Result<(Filter, &str), String> {
    or(text)
}

fn or(text: &str) -> Result<(Filter, &str), String> {
    let (mut left, mut rest) = and(text)?;
    while let Some(after) = rest.trim_start().strip_prefix("||") {
        let (right, r) = and(after)?;
        left = Filter::Or(Box::new(left), Box::new(right));
        rest = r;
    }
    Ok((left, rest))
}

fn and(text: &str) -> Result<(Filter, &str), String> {
    let (mut left, mut rest) = unary(text)?;
    while let Some(after) = rest.trim_start().strip_prefix("&&") {
        let (right, r) = unary(after)?;
        left = Filter::And(Box::new(left), Box::new(right));
        rest = r;
    }
    Ok((left, rest))
}

fn unary(text: &str) -> Result<(Filter, &str), String> {
    let text = text.trim_start();
    if let Some(rest) = text.strip_prefix('!') {
        let (inner, rest) = unary(rest)?;
        return Ok((Filter::Not(Box::new(inner)), rest));
    }
    if let Some(rest) = text.strip_prefix('(') {
        let (inner, rest) = or(rest)?;
        let rest = rest
            .trim_start()
            .strip_prefix(')')
            .ok_or("a '(' in a filter is not closed")?;
        return Ok((inner, rest));
    }
    let (left, rest) = operand(text)?;
    let Some((op, after)) = operator(rest) else {
        return Ok((Filter::Exists(left), rest));
    };
    let (right, rest) = operand(after)?;
    Ok((Filter::Compare(left, op, right), rest))
}

fn operator(text: &str) -> Option<(Op, &str)> {
    let text = text.trim_start();
    const OPS: [(&str, Op); 9] = [
        ("==", Op::Eq),
        ("!=", Op::Ne),
        ("<=", Op::Le),
        (">=", Op::Ge),
        ("=~", Op::Matches),
        ("<", Op::Lt),
        (">", Op::Gt),
        ("nin ", Op::Nin),
        ("in ", Op::In),
    ];
    OPS.iter()
        .find_map(|(token, op)| text.strip_prefix(token).map(|rest| (*op, rest)))
}

fn operand(text: &str) -> Result<(Operand, &str), String> {
    let text = text.trim_start();
    if let Some(rest) = text.strip_prefix('@') {
        let (path, rest) = JsonPath::compile_relative(rest)?;
        return Ok((Operand::Current(path), rest));
    }
    if let Some(rest) = text.strip_prefix('$') {
        let (path, rest) = JsonPath::compile_relative(rest)?;
        return Ok((Operand::Root(path), rest));
    }
    if let Some(rest) = text.strip_prefix('/') {
        return regex_literal(rest);
    }
    if let Some(q) = text.chars().next().filter(|c| *c == '\'' || *c == '"') {
        let end = text[1..]
            .find(q)
            .ok_or("a string in a filter is not closed")?;
        let value = Value::String(text[1..1 + end].to_string());
        return Ok((Operand::Literal(value), &text[end + 2..]));
    }
    if text.starts_with('[') {
        let end = text.find(']').ok_or("a list in a filter is not closed")?;
        let json = text[..=end].replace('\'', "\"");
        let value: Value = serde_json::from_str(&json)
            .map_err(|e| format!("bad list {:?}: {e}", &text[..=end]))?;
        return Ok((Operand::Literal(value), &text[end + 1..]));
    }
    let end = text
        .find(|c: char| c.is_whitespace() || c == ')' || c == '&' || c == '|')
        .unwrap_or(text.len());
    let word = &text[..end];
    let value: Value =
        serde_json::from_str(word).map_err(|_| format!("unexpected {word:?} in a filter"))?;
    Ok((Operand::Literal(value), &text[end..]))
}

/// `/pattern/flags` after the first `/`; the pattern must match the whole text.
fn regex_literal(text: &str) -> Result<(Operand, &str), String> {
    let end = text
        .find('/')
        .ok_or("a /regex/ in a filter is not closed")?;
    let pattern = &text[..end];
    let rest = &text[end + 1..];
    let flags_end = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    let flags = &rest[..flags_end];
    let prefix = if flags.contains('i') { "(?i)" } else { "" };
    let regex = Regex::new(&format!("{prefix}^(?:{pattern})$"))
        .map_err(|e| format!("bad regular expression {pattern:?}: {e}"))?;
    Ok((Operand::Regex(regex), &rest[flags_end..]))
}
