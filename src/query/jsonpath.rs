//! JSONPath as Jayway's JsonPath reads it (what JMeter's JSON Extractor and JSON
//! Assertion use), for the forms plans use: `$.a.b`, `$['a']`, `$..x` (deep scan),
//! `.*` / `[*]`, indexes and negative indexes, index lists, slices `[a:b]`, filters
//! `[?(@.x == 'y' && @.n > 1)]` (`==`, `!=`, `<`, `<=`, `>`, `>=`, `=~ /re/i`, `in`,
//! `nin`, existence, `!`, parentheses) and a trailing function `length()`, `size()`,
//! `min()`, `max()`, `avg()`, `sum()`.
//!
//! A path is compiled once ([`JsonPath::compile`]); evaluation walks any [`Node`]: a
//! parsed `serde_json::Value`, or the cheaper index of `json_tape`, which
//! [`JsonPath::select_text`] uses when it can. A missing property or index simply
//! contributes nothing, which gives Jayway's results both for definite paths (no match)
//! and indefinite ones (missing leaves skipped).

use std::borrow::Cow;

use serde_json::Value;

use super::json_tape::{Tape, TapeIndex};
use super::jsonpath_filter::{parse_filter, Filter};
use super::jsonpath_node::Node;

/// A compiled path.
#[derive(Debug, Clone)]
pub struct JsonPath {
    steps: Vec<Step>,
    function: Option<Function>,
}

#[derive(Debug, Clone)]
struct Step {
    /// `..`: the selector applies to the node and all its descendants.
    deep: bool,
    selector: Selector,
}

#[derive(Debug, Clone)]
enum Selector {
    Names(Vec<String>),
    Wildcard,
    Indexes(Vec<i64>),
    Slice(Option<i64>, Option<i64>),
    Filter(Box<Filter>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Function {
    Length,
    Min,
    Max,
    Avg,
    Sum,
}

impl JsonPath {
    /// Parses `text`; a path without `$` is taken as relative to the root, as Jayway does.
    pub fn compile(text: &str) -> Result<JsonPath, String> {
        let text = text.trim();
        let body = match text.strip_prefix('$') {
            Some(rest) => rest,
            None if text.starts_with('[') || text.starts_with('.') => text,
            None if text.is_empty() => return Err("empty path".into()),
            None => return JsonPath::compile(&format!("$.{text}")),
        };
        let mut parser = Parser { rest: body };
        let mut steps = Vec::new();
        let mut function = None;
        while !parser.rest.is_empty() {
            if function.is_some() {
                return Err(format!("nothing may follow a function: {:?}", parser.rest));
            }
            match parser.step()? {
                Parsed::Step(step) => steps.push(step),
                Parsed::Function(f) => function = Some(f),
            }
        }
        Ok(JsonPath { steps, function })
    }

    /// Whether the path names one place (Jayway's `isDefinite`): no deep scan, wildcard,
    /// filter, slice or list of names or indexes.
    pub fn is_definite(&self) -> bool {
        self.steps.iter().all(|step| {
            !step.deep
                && match &step.selector {
                    Selector::Names(names) => names.len() == 1,
                    Selector::Indexes(indexes) => indexes.len() == 1,
                    _ => false,
                }
        })
    }

    /// Jayway's message when this definite path finds nothing in `root`: a missing leaf
    /// names the whole path, a missing step on the way names the path up to it.
    pub fn not_found_message<'v, N: Node<'v>>(&self, root: N) -> String {
        let mut current: Vec<N> = vec![root];
        for (i, step) in self.steps.iter().enumerate() {
            let mut next = Vec::new();
            for value in current {
                apply(&step.selector, value, root, &mut next);
            }
            if next.is_empty() && i + 1 < self.steps.len() {
                let prefix = JsonPath {
                    steps: self.steps[..=i].to_vec(),
                    function: None,
                };
                return format!("Missing property in path {}", prefix.normalized());
            }
            current = next;
        }
        format!("No results for path: {}", self.normalized())
    }

    /// The path as Jayway prints it in messages: `$['a'][0][*]`.
    pub fn normalized(&self) -> String {
        let mut out = String::from("$");
        for step in &self.steps {
            if step.deep {
                out.push_str("..");
            }
            match &step.selector {
                Selector::Names(names) => {
                    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
                    out.push_str(&format!("[{}]", quoted.join(",")));
                }
                Selector::Wildcard => out.push_str("[*]"),
                Selector::Indexes(indexes) => {
                    let list: Vec<String> = indexes.iter().map(i64::to_string).collect();
                    out.push_str(&format!("[{}]", list.join(",")));
                }
                Selector::Slice(from, to) => {
                    let bound = |b: &Option<i64>| b.map(|v| v.to_string()).unwrap_or_default();
                    out.push_str(&format!("[{}:{}]", bound(from), bound(to)));
                }
                Selector::Filter(_) => out.push_str("[?]"),
            }
        }
        out
    }

    /// The values the path selects in `root`, in document order.
    pub fn select<'v, N: Node<'v>>(&self, root: N) -> Vec<Cow<'v, Value>> {
        let nodes = self.nodes(root, root);
        match self.function {
            None => nodes.into_iter().map(N::value).collect(),
            Some(f) => nodes
                .into_iter()
                .filter_map(|v| call(f, &v.value()))
                .map(Cow::Owned)
                .collect(),
        }
    }

    /// The values the path selects in the JSON `text`, `None` when it is not JSON. The
    /// document is indexed rather than parsed when [`Tape`] can; only the values the
    /// path selects or a filter compares are then built.
    pub fn select_text(&self, text: &str) -> Option<Vec<Value>> {
        self.select_text_with(text, TapeIndex::build(text).as_ref())
    }

    /// [`JsonPath::select_text`] with the text's index already built (`None`: the text
    /// cannot be indexed), so that several paths over one document index it once.
    pub fn select_text_with(&self, text: &str, index: Option<&TapeIndex>) -> Option<Vec<Value>> {
        let owned = |values: Vec<Cow<'_, Value>>| values.into_iter().map(Cow::into_owned).collect();
        if let Some(found) = index.and_then(|index| self.select_indexed(&Tape::over(text, index))) {
            return Some(found);
        }
        let document: Value = serde_json::from_str(text).ok()?;
        Some(owned(self.select(&document)))
    }

    /// The values the path selects over `tape`, `None` when the evaluation found the
    /// tape doubtful (see `json_tape`): the full tree must then decide.
    pub(super) fn select_indexed(&self, tape: &Tape<'_>) -> Option<Vec<Value>> {
        let found = self
            .select(tape.root())
            .into_iter()
            .map(Cow::into_owned)
            .collect();
        (!tape.doubtful()).then_some(found)
    }

    /// Jayway's `JsonPath.read` of the JSON `text`: a definite path's value (`Err` with
    /// Jayway's message when it is missing), or the array of what an indefinite path
    /// found. The outer `Err` is `serde_json`'s when `text` is not JSON.
    pub fn read_text(&self, text: &str) -> Result<Result<Value, String>, serde_json::Error> {
        self.read_text_with(text, TapeIndex::build(text).as_ref())
    }

    /// [`JsonPath::read_text`] with the text's index already built (`None`: the text
    /// cannot be indexed).
    pub fn read_text_with(
        &self,
        text: &str,
        index: Option<&TapeIndex>,
    ) -> Result<Result<Value, String>, serde_json::Error> {
        if let Some(index) = index {
            let tape = Tape::over(text, index);
            let read = self.read(tape.root());
            if !tape.doubtful() {
                return Ok(read);
            }
        }
        Ok(self.read(&serde_json::from_str::<Value>(text)?))
    }

    fn read<'v, N: Node<'v>>(&self, root: N) -> Result<Value, String> {
        let found = self.select(root).into_iter().map(Cow::into_owned);
        if !self.is_definite() {
            return Ok(Value::Array(found.collect()));
        }
        let mut found = found;
        found.next().ok_or_else(|| self.not_found_message(root))
    }

    /// The first value a relative path (`@.a.b` in a filter) selects.
    pub(super) fn first<'v, N: Node<'v>>(&self, node: N, root: N) -> Option<Cow<'v, Value>> {
        let value = match self.walk(node) {
            Some(found) => found?,
            None => self.nodes(node, root).into_iter().next()?,
        };
        match self.function {
            None => Some(value.value()),
            Some(f) => call(f, &value.value()).map(Cow::Owned),
        }
    }

    /// The node a relative path without a function leads to from `start`, when it is
    /// made of single names and indexes: `Some(None)` when that node is missing.
    pub(super) fn first_node<'v, N: Node<'v>>(&self, start: N) -> Option<Option<N>> {
        match self.function {
            None => self.walk(start),
            Some(_) => None,
        }
    }

    /// The node a path of single names and indexes leads to from `start` (the usual
    /// filter operand, `@.id`), found without collecting; `None` for other paths.
    fn walk<'v, N: Node<'v>>(&self, start: N) -> Option<Option<N>> {
        let mut node = start;
        for step in &self.steps {
            let next = match &step.selector {
                _ if step.deep => return None,
                Selector::Names(names) if names.len() == 1 => node.member(&names[0]),
                Selector::Indexes(indexes) if indexes.len() == 1 && indexes[0] >= 0 => {
                    let at = indexes[0] as usize;
                    node.array_len().and_then(|_| node.children().nth(at))
                }
                _ => return None,
            };
            match next {
                Some(next) => node = next,
                None => return Some(None),
            }
        }
        Some(Some(node))
    }

    /// The nodes the steps select from `start`.
    fn nodes<'v, N: Node<'v>>(&self, start: N, root: N) -> Vec<N> {
        let mut current: Vec<N> = vec![start];
        for step in &self.steps {
            let mut next = Vec::new();
            for value in current {
                if step.deep {
                    deep_apply(&step.selector, value, root, &mut next);
                } else {
                    apply(&step.selector, value, root, &mut next);
                }
            }
            current = next;
        }
        current
    }

    /// Parses a relative path after `@` or `$` inside a filter, returning the rest.
    pub(super) fn compile_relative(text: &str) -> Result<(JsonPath, &str), String> {
        let mut parser = Parser { rest: text };
        let mut steps = Vec::new();
        let mut function = None;
        while function.is_none() && (parser.rest.starts_with('.') || parser.rest.starts_with('[')) {
            match parser.step()? {
                Parsed::Step(step) => steps.push(step),
                Parsed::Function(f) => function = Some(f),
            }
        }
        Ok((JsonPath { steps, function }, parser.rest))
    }
}

fn apply<'v, N: Node<'v>>(selector: &Selector, value: N, root: N, out: &mut Vec<N>) {
    match selector {
        Selector::Names(names) if value.is_object() => {
            out.extend(names.iter().filter_map(|n| value.member(n)));
        }
        Selector::Wildcard => out.extend(value.children()),
        Selector::Indexes(indexes) => {
            let Some(len) = value.array_len() else {
                return;
            };
            for &i in indexes {
                let at = if i < 0 { len as i64 + i } else { i };
                if let Some(item) = usize::try_from(at)
                    .ok()
                    .and_then(|at| value.children().nth(at))
                {
                    out.push(item);
                }
            }
        }
        Selector::Slice(from, to) => {
            let Some(len) = value.array_len() else {
                return;
            };
            let len = len as i64;
            let clamp = |i: i64| (if i < 0 { len + i } else { i }).clamp(0, len) as usize;
            let from = clamp(from.unwrap_or(0));
            let to = clamp(to.unwrap_or(len));
            if from < to {
                out.extend(value.children().skip(from).take(to - from));
            }
        }
        Selector::Filter(filter) if value.is_array() => {
            out.extend(value.children().filter(|item| filter.matches(*item, root)));
        }
        Selector::Filter(filter) if value.is_object() && filter.matches(value, root) => {
            out.push(value);
        }
        _ => {}
    }
}

/// Applies `selector` to `value` and every node below it, parents first.
fn deep_apply<'v, N: Node<'v>>(selector: &Selector, value: N, root: N, out: &mut Vec<N>) {
    apply(selector, value, root, out);
    for child in value.children() {
        deep_apply(selector, child, root, out);
    }
}

fn call(function: Function, value: &Value) -> Option<Value> {
    if function == Function::Length {
        return match value {
            Value::Array(items) => Some(Value::from(items.len())),
            Value::Object(map) => Some(Value::from(map.len())),
            Value::String(s) => Some(Value::from(s.chars().count())),
            _ => None,
        };
    }
    let numbers: Vec<f64> = value.as_array()?.iter().filter_map(Value::as_f64).collect();
    if numbers.is_empty() {
        return None;
    }
    let result = match function {
        Function::Min => numbers.iter().copied().fold(f64::INFINITY, f64::min),
        Function::Max => numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Function::Sum => numbers.iter().sum(),
        _ => numbers.iter().sum::<f64>() / numbers.len() as f64,
    };
    serde_json::Number::from_f64(result).map(Value::Number)
}

enum Parsed {
    Step(Step),
    Function(Function),
}

struct Parser<'t> {
    rest: &'t str,
}

impl Parser<'_> {
    fn step(&mut self) -> Result<Parsed, String> {
        let deep = if let Some(rest) = self.rest.strip_prefix("..") {
            self.rest = rest;
            true
        } else if let Some(rest) = self.rest.strip_prefix('.') {
            self.rest = rest;
            false
        } else if self.rest.starts_with('[') {
            false
        } else {
            return Err(format!("expected '.' or '[' at {:?}", self.rest));
        };
        if self.rest.starts_with('[') {
            let selector = self.bracket()?;
            return Ok(Parsed::Step(Step { deep, selector }));
        }
        if let Some(rest) = self.rest.strip_prefix('*') {
            self.rest = rest;
            return Ok(Parsed::Step(Step {
                deep,
                selector: Selector::Wildcard,
            }));
        }
        let end = self
            .rest
            .find(['.', '[', '(', ')', ' ', '<', '>', '=', '!', '&', '|', ','])
            .unwrap_or(self.rest.len());
        let name = &self.rest[..end];
        if name.is_empty() {
            return Err(format!("a property name is missing at {:?}", self.rest));
        }
        self.rest = &self.rest[end..];
        if let Some(rest) = self.rest.strip_prefix("()") {
            self.rest = rest;
            let function = match name {
                "length" | "size" => Function::Length,
                "min" => Function::Min,
                "max" => Function::Max,
                "avg" => Function::Avg,
                "sum" => Function::Sum,
                other => return Err(format!("unknown function {other}()")),
            };
            return Ok(Parsed::Function(function));
        }
        Ok(Parsed::Step(Step {
            deep,
            selector: Selector::Names(vec![name.to_string()]),
        }))
    }

    /// `[...]` after the opening bracket's position.
    fn bracket(&mut self) -> Result<Selector, String> {
        let inner = &self.rest[1..];
        if let Some(filter) = inner.strip_prefix("?(") {
            let (filter, rest) = parse_filter(filter)?;
            let rest = rest.trim_start();
            let rest = rest
                .strip_prefix(')')
                .and_then(|r| r.trim_start().strip_prefix(']'))
                .ok_or_else(|| format!("a filter must end with ')]': {rest:?}"))?;
            self.rest = rest;
            return Ok(Selector::Filter(Box::new(filter)));
        }
        let close = closing_bracket(inner).ok_or("a '[' is not closed")?;
        let content = inner[..close].trim();
        self.rest = &inner[close + 1..];
        if content == "*" {
            return Ok(Selector::Wildcard);
        }
        if content.starts_with('\'') || content.starts_with('"') {
            return quoted_names(content).map(Selector::Names);
        }
        if let Some((from, to)) = content.split_once(':') {
            let bound = |t: &str| -> Result<Option<i64>, String> {
                let t = t.trim();
                if t.is_empty() {
                    return Ok(None);
                }
                t.parse()
                    .map(Some)
                    .map_err(|_| format!("bad slice bound {t:?}"))
            };
            return Ok(Selector::Slice(bound(from)?, bound(to)?));
        }
        content
            .split(',')
            .map(|i| {
                i.trim()
                    .parse::<i64>()
                    .map_err(|_| format!("bad index {i:?}"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Selector::Indexes)
    }
}

/// Position of the `]` that closes a bracket, skipping quoted text.
fn closing_bracket(text: &str) -> Option<usize> {
    let mut quote = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ']') => return Some(i),
            _ => {}
        }
    }
    None
}

/// `'a', "b"` into names.
fn quoted_names(content: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut rest = content.trim();
    while let Some(q) = rest.chars().next() {
        if q != '\'' && q != '"' {
            return Err(format!("expected a quoted name at {rest:?}"));
        }
        let end = rest[1..].find(q).ok_or("a quoted name is not closed")?;
        names.push(rest[1..1 + end].replace("\\'", "'"));
        rest = rest[end + 2..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    Ok(names)
}

#[cfg(test)]
#[path = "jsonpath_tests.rs"]
mod tests;
