//! JMESPath (jmespath.org) for the JSON JMESPath Extractor: identifiers and quoted
//! names, sub-expressions, indexes and slices, list and object projections (`[*]`,
//! `.*`), flattening (`[]`), filters (`[?a == 'x']`), multi-select lists and hashes,
//! pipes, `||` `&&` `!`, comparisons, literals (`` `json` ``, `'raw'`) and the functions
//! `length`, `keys`, `values`, `join`, `contains`, `starts_with`, `ends_with`,
//! `to_string`, `to_number`, `max`, `min`, `sum`, `avg`, `sort`, `reverse`, `type`,
//! `abs`, `floor`, `ceil`, `not_null`, `merge`. Expression references (`&expr`, for
//! `sort_by` and friends) are not supported.
//!
//! Compiled once by a Pratt parser following the specification's binding powers, then
//! evaluated over `serde_json::Value`.

use serde_json::{Map, Value};

use super::jmespath_functions::{call, check_function};

#[derive(Debug, Clone)]
pub struct JmesPath(Node);

#[derive(Debug, Clone)]
enum Node {
    Current,
    Field(String),
    Sub(Box<Node>, Box<Node>),
    Index(i64),
    Slice(Option<i64>, Option<i64>, Option<i64>),
    /// Indexing or slicing applied to the left side.
    Indexed(Box<Node>, Box<Node>),
    Projection(Box<Node>, Box<Node>),
    ValueProjection(Box<Node>, Box<Node>),
    Filter(Box<Node>, Box<Node>, Box<Node>),
    Flatten(Box<Node>),
    Literal(Value),
    List(Vec<Node>),
    Hash(Vec<(String, Node)>),
    Or(Box<Node>, Box<Node>),
    And(Box<Node>, Box<Node>),
    Not(Box<Node>),
    Compare(Cmp, Box<Node>, Box<Node>),
    Pipe(Box<Node>, Box<Node>),
    Call(String, Vec<Node>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Quoted(String),
    Literal(Value),
    Number(i64),
    Dot,
    Star,
    LBracket,
    RBracket,
    Flatten,
    Filter,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Comma,
    Colon,
    Pipe,
    Or,
    And,
    Not,
    Cmp(Cmp),
    At,
    End,
}

impl Tok {
    /// Left binding power, as in the specification's reference parser.
    fn power(&self) -> u8 {
        match self {
            Tok::Pipe => 1,
            Tok::Or => 2,
            Tok::And => 3,
            Tok::Cmp(_) => 5,
            Tok::Flatten => 9,
            Tok::Star => 20,
            Tok::Filter => 21,
            Tok::Dot => 40,
            Tok::Not => 45,
            Tok::LBrace => 50,
            Tok::LBracket => 55,
            Tok::LParen => 60,
            _ => 0,
        }
    }
}

fn lex(text: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let (tok, used) = match c {
            ' ' | '\t' | '\n' | '\r' => {
                i += 1;
                continue;
            }
            '.' => (Tok::Dot, 1),
            '*' => (Tok::Star, 1),
            ']' => (Tok::RBracket, 1),
            '[' if next == Some(']') => (Tok::Flatten, 2),
            '[' if next == Some('?') => (Tok::Filter, 2),
            '[' => (Tok::LBracket, 1),
            '{' => (Tok::LBrace, 1),
            '}' => (Tok::RBrace, 1),
            '(' => (Tok::LParen, 1),
            ')' => (Tok::RParen, 1),
            ',' => (Tok::Comma, 1),
            ':' => (Tok::Colon, 1),
            '@' => (Tok::At, 1),
            '|' if next == Some('|') => (Tok::Or, 2),
            '|' => (Tok::Pipe, 1),
            '&' if next == Some('&') => (Tok::And, 2),
            '!' if next == Some('=') => (Tok::Cmp(Cmp::Ne), 2),
            '!' => (Tok::Not, 1),
            '=' if next == Some('=') => (Tok::Cmp(Cmp::Eq), 2),
            '<' if next == Some('=') => (Tok::Cmp(Cmp::Le), 2),
            '<' => (Tok::Cmp(Cmp::Lt), 1),
            '>' if next == Some('=') => (Tok::Cmp(Cmp::Ge), 2),
            '>' => (Tok::Cmp(Cmp::Gt), 1),
            '"' | '\'' | '`' => {
                let end = delimited(&chars, i, c)?;
                let body: String = chars[i + 1..end].iter().collect();
                let tok = match c {
                    '"' => Tok::Quoted(
                        serde_json::from_str(&format!("\"{body}\""))
                            .map_err(|e| format!("bad quoted name: {e}"))?,
                    ),
                    '\'' => Tok::Literal(Value::String(body.replace("\\'", "'"))),
                    _ => Tok::Literal(
                        serde_json::from_str(&body.replace("\\`", "`"))
                            .map_err(|e| format!("bad literal `{body}`: {e}"))?,
                    ),
                };
                (tok, end - i + 1)
            }
            c if c == '-' || c.is_ascii_digit() => {
                let len = 1 + chars[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                let text: String = chars[i..i + len].iter().collect();
                let n = text.parse().map_err(|_| format!("bad number {text}"))?;
                (Tok::Number(n), len)
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let len = chars[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                    .count();
                (Tok::Ident(chars[i..i + len].iter().collect()), len)
            }
            other => return Err(format!("unexpected {other:?}")),
        };
        out.push(tok);
        i += used;
    }
    out.push(Tok::End);
    Ok(out)
}

/// Index of the closing `quote` of the token opened at `start`, skipping `\` escapes.
fn delimited(chars: &[char], start: usize, quote: char) -> Result<usize, String> {
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            c if c == quote => return Ok(i),
            _ => i += 1,
        }
    }
    Err(format!("unclosed {quote}"))
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.at]
    }
    fn peek2(&self) -> &Tok {
        self.toks.get(self.at + 1).unwrap_or(&Tok::End)
    }
    fn take(&mut self) -> Tok {
        let tok = self.toks[self.at].clone();
        if tok != Tok::End {
            self.at += 1;
        }
        tok
    }
    fn expect(&mut self, tok: Tok) -> Result<(), String> {
        match self.take() {
            t if t == tok => Ok(()),
            t => Err(format!("expected {tok:?}, found {t:?}")),
        }
    }

    fn expression(&mut self, power: u8) -> Result<Node, String> {
        let mut left = self.nud()?;
        while power < self.peek().power() {
            left = self.led(left)?;
        }
        Ok(left)
    }

    fn nud(&mut self) -> Result<Node, String> {
        Ok(match self.take() {
            Tok::Literal(v) => Node::Literal(v),
            Tok::Ident(name) | Tok::Quoted(name) => Node::Field(name),
            Tok::At => Node::Current,
            Tok::Star => {
                let rhs = self.projection_rhs(20)?;
                Node::ValueProjection(Box::new(Node::Current), Box::new(rhs))
            }
            Tok::Filter => self.filter(Node::Current)?,
            Tok::LBrace => self.hash()?,
            Tok::LParen => {
                let inner = self.expression(0)?;
                self.expect(Tok::RParen)?;
                inner
            }
            Tok::Flatten => {
                let rhs = self.projection_rhs(9)?;
                Node::Projection(
                    Box::new(Node::Flatten(Box::new(Node::Current))),
                    Box::new(rhs),
                )
            }
            Tok::Not => Node::Not(Box::new(self.expression(45)?)),
            Tok::LBracket => match self.peek() {
                Tok::Number(_) | Tok::Colon => {
                    let index = self.index()?;
                    self.project_if_slice(Node::Current, index)?
                }
                Tok::Star if *self.peek2() == Tok::RBracket => {
                    self.take();
                    self.take();
                    let rhs = self.projection_rhs(20)?;
                    Node::Projection(Box::new(Node::Current), Box::new(rhs))
                }
                _ => self.list()?,
            },
            t => return Err(format!("unexpected {t:?}")),
        })
    }

    fn led(&mut self, left: Node) -> Result<Node, String> {
        let tok = self.take();
        let b = Box::new;
        Ok(match tok {
            Tok::Dot => {
                let rhs = self.dot_rhs(40)?;
                Node::Sub(b(left), b(rhs))
            }
            Tok::Pipe => Node::Pipe(b(left), b(self.expression(1)?)),
            Tok::Or => Node::Or(b(left), b(self.expression(2)?)),
            Tok::And => Node::And(b(left), b(self.expression(3)?)),
            Tok::Cmp(op) => Node::Compare(op, b(left), b(self.expression(5)?)),
            Tok::Flatten => {
                let rhs = self.projection_rhs(9)?;
                Node::Projection(b(Node::Flatten(b(left))), b(rhs))
            }
            Tok::Filter => self.filter(left)?,
            Tok::LParen => {
                let Node::Field(name) = left else {
                    return Err("only a name can be called".into());
                };
                let mut args = Vec::new();
                while *self.peek() != Tok::RParen {
                    args.push(self.expression(0)?);
                    if *self.peek() == Tok::Comma {
                        self.take();
                    }
                }
                self.expect(Tok::RParen)?;
                check_function(&name)?;
                Node::Call(name, args)
            }
            Tok::LBracket => match self.peek() {
                Tok::Number(_) | Tok::Colon => {
                    let index = self.index()?;
                    self.project_if_slice(left, index)?
                }
                _ => {
                    self.expect(Tok::Star)?;
                    self.expect(Tok::RBracket)?;
                    let rhs = self.projection_rhs(20)?;
                    Node::Projection(b(left), b(rhs))
                }
            },
            t => return Err(format!("unexpected {t:?}")),
        })
    }

    fn filter(&mut self, left: Node) -> Result<Node, String> {
        let condition = self.expression(0)?;
        self.expect(Tok::RBracket)?;
        let rhs = self.projection_rhs(21)?;
        Ok(Node::Filter(
            Box::new(left),
            Box::new(condition),
            Box::new(rhs),
        ))
    }

    /// After `[`: a number (index) or a slice, up to and including `]`.
    fn index(&mut self) -> Result<Node, String> {
        let mut parts: [Option<i64>; 3] = [None; 3];
        let mut part = 0;
        loop {
            match self.take() {
                Tok::Number(n) => parts[part] = Some(n),
                Tok::Colon if part < 2 => part += 1,
                Tok::RBracket => break,
                t => return Err(format!("unexpected {t:?} in an index")),
            }
        }
        Ok(match (part, parts[0]) {
            (0, Some(n)) => Node::Index(n),
            (0, None) => return Err("empty index".into()),
            _ => Node::Slice(parts[0], parts[1], parts[2]),
        })
    }

    fn project_if_slice(&mut self, left: Node, index: Node) -> Result<Node, String> {
        let slice = matches!(index, Node::Slice(..));
        let indexed = Node::Indexed(Box::new(left), Box::new(index));
        if slice {
            let rhs = self.projection_rhs(20)?;
            Ok(Node::Projection(Box::new(indexed), Box::new(rhs)))
        } else {
            Ok(indexed)
        }
    }

    fn projection_rhs(&mut self, power: u8) -> Result<Node, String> {
        match self.peek() {
            t if t.power() < 10 => Ok(Node::Current),
            Tok::LBracket | Tok::Filter => self.expression(power),
            Tok::Dot => {
                self.take();
                self.dot_rhs(power)
            }
            t => Err(format!("unexpected {t:?} after a projection")),
        }
    }

    fn dot_rhs(&mut self, power: u8) -> Result<Node, String> {
        match self.peek() {
            Tok::Ident(_) | Tok::Quoted(_) | Tok::Star => self.expression(power),
            Tok::LBracket => {
                self.take();
                self.list()
            }
            Tok::LBrace => {
                self.take();
                self.hash()
            }
            t => Err(format!("unexpected {t:?} after '.'")),
        }
    }

    /// After `[`: `expr, expr]`.
    fn list(&mut self) -> Result<Node, String> {
        let mut items = vec![self.expression(0)?];
        while *self.peek() == Tok::Comma {
            self.take();
            items.push(self.expression(0)?);
        }
        self.expect(Tok::RBracket)?;
        Ok(Node::List(items))
    }

    /// After `{`: `key: expr, ...}`.
    fn hash(&mut self) -> Result<Node, String> {
        let mut pairs = Vec::new();
        loop {
            let key = match self.take() {
                Tok::Ident(k) | Tok::Quoted(k) => k,
                t => return Err(format!("expected a key, found {t:?}")),
            };
            self.expect(Tok::Colon)?;
            pairs.push((key, self.expression(0)?));
            match self.take() {
                Tok::Comma => continue,
                Tok::RBrace => break,
                t => return Err(format!("unexpected {t:?} in a hash")),
            }
        }
        Ok(Node::Hash(pairs))
    }
}

impl JmesPath {
    pub fn compile(text: &str) -> Result<JmesPath, String> {
        let mut parser = Parser {
            toks: lex(text)?,
            at: 0,
        };
        let node = parser.expression(0)?;
        match parser.peek() {
            Tok::End => Ok(JmesPath(node)),
            t => Err(format!("unexpected {t:?}")),
        }
    }

    pub fn search(&self, data: &Value) -> Value {
        eval(&self.0, data)
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::Number(_) => true,
    }
}

fn project(items: &[Value], rhs: &Node) -> Value {
    Value::Array(
        items
            .iter()
            .map(|item| eval(rhs, item))
            .filter(|v| !v.is_null())
            .collect(),
    )
}

fn eval(node: &Node, data: &Value) -> Value {
    match node {
        Node::Current => data.clone(),
        Node::Field(name) => data.get(name).cloned().unwrap_or(Value::Null),
        Node::Sub(l, r) => eval(r, &eval(l, data)),
        Node::Index(i) => match data {
            Value::Array(a) => {
                let at = if *i < 0 { a.len() as i64 + i } else { *i };
                usize::try_from(at)
                    .ok()
                    .and_then(|at| a.get(at))
                    .cloned()
                    .unwrap_or(Value::Null)
            }
            _ => Value::Null,
        },
        Node::Slice(start, stop, step) => match data {
            Value::Array(a) => slice(a, *start, *stop, step.unwrap_or(1)),
            _ => Value::Null,
        },
        Node::Indexed(l, index) => eval(index, &eval(l, data)),
        Node::Projection(l, r) => match eval(l, data) {
            Value::Array(items) => project(&items, r),
            _ => Value::Null,
        },
        Node::ValueProjection(l, r) => match eval(l, data) {
            Value::Object(map) => project(&map.values().cloned().collect::<Vec<_>>(), r),
            _ => Value::Null,
        },
        Node::Filter(l, cond, r) => match eval(l, data) {
            Value::Array(items) => {
                let kept: Vec<Value> = items
                    .into_iter()
                    .filter(|i| truthy(&eval(cond, i)))
                    .collect();
                project(&kept, r)
            }
            _ => Value::Null,
        },
        Node::Flatten(l) => match eval(l, data) {
            Value::Array(items) => Value::Array(
                items
                    .into_iter()
                    .flat_map(|i| match i {
                        Value::Array(inner) => inner,
                        other => vec![other],
                    })
                    .collect(),
            ),
            _ => Value::Null,
        },
        Node::Literal(v) => v.clone(),
        Node::List(items) if !data.is_null() => {
            Value::Array(items.iter().map(|n| eval(n, data)).collect())
        }
        Node::Hash(pairs) if !data.is_null() => Value::Object(
            pairs
                .iter()
                .map(|(k, n)| (k.clone(), eval(n, data)))
                .collect::<Map<_, _>>(),
        ),
        Node::List(_) | Node::Hash(_) => Value::Null,
        Node::Or(l, r) => {
            let left = eval(l, data);
            if truthy(&left) {
                left
            } else {
                eval(r, data)
            }
        }
        Node::And(l, r) => {
            let left = eval(l, data);
            if truthy(&left) {
                eval(r, data)
            } else {
                left
            }
        }
        Node::Not(n) => Value::Bool(!truthy(&eval(n, data))),
        Node::Compare(op, l, r) => compare(*op, &eval(l, data), &eval(r, data)),
        Node::Pipe(l, r) => eval(r, &eval(l, data)),
        Node::Call(name, args) => {
            let args: Vec<Value> = args.iter().map(|a| eval(a, data)).collect();
            call(name, &args)
        }
    }
}

fn slice(items: &[Value], start: Option<i64>, stop: Option<i64>, step: i64) -> Value {
    if step == 0 {
        return Value::Null;
    }
    let len = items.len() as i64;
    let clamp = |v: i64, low: i64, high: i64| {
        let v = if v < 0 { v + len } else { v };
        v.clamp(low, high)
    };
    let mut out = Vec::new();
    if step > 0 {
        let (mut i, end) = (
            clamp(start.unwrap_or(0), 0, len),
            clamp(stop.unwrap_or(len), 0, len),
        );
        while i < end {
            out.push(items[i as usize].clone());
            i += step;
        }
    } else {
        let mut i = clamp(start.unwrap_or(len - 1), -1, len - 1);
        let end = stop.map(|s| clamp(s, -1, len - 1)).unwrap_or(-1);
        while i > end {
            out.push(items[i as usize].clone());
            i += step;
        }
    }
    Value::Array(out)
}

fn compare(op: Cmp, a: &Value, b: &Value) -> Value {
    let equal = match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    };
    match op {
        Cmp::Eq => Value::Bool(equal),
        Cmp::Ne => Value::Bool(!equal),
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => Value::Bool(match op {
                Cmp::Lt => x < y,
                Cmp::Le => x <= y,
                Cmp::Gt => x > y,
                _ => x >= y,
            }),
            _ => Value::Null,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn search(expr: &str, data: &Value) -> Value {
        JmesPath::compile(expr)
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
            .search(data)
    }

    #[test]
    fn paths_projections_and_filters() {
        let d = json!({"a": {"b": [{"n": 1, "t": "x"}, {"n": 2, "t": "y"}, {"n": 3}]}, "m": {"k1": 1, "k2": 2}, "nested": [[1, 2], [3]]});
        assert_eq!(search("a.b[0].n", &d), json!(1));
        assert_eq!(search("a.b[-1].n", &d), json!(3));
        assert_eq!(search("a.b[*].t", &d), json!(["x", "y"]));
        assert_eq!(search("a.b[?n > `1`].n", &d), json!([2, 3]));
        assert_eq!(search("a.b[?t == 'x'] | [0].n", &d), json!(1));
        assert_eq!(search("m.*", &d), json!([1, 2]));
        assert_eq!(search("nested[]", &d), json!([1, 2, 3]));
        assert_eq!(search("a.b[:2].n", &d), json!([1, 2]));
        assert_eq!(search("a.b[::-1].n", &d), json!([3, 2, 1]));
        assert_eq!(search("a.b[0].[n, t]", &d), json!([1, "x"]));
        assert_eq!(search("a.b[0].{num: n}", &d), json!({"num": 1}));
        assert_eq!(search("missing || 'dflt'", &d), json!("dflt"));
        assert_eq!(search("!missing", &d), json!(true));
        assert_eq!(search("\"m\".k1", &d), json!(1));
    }

    #[test]
    fn functions_and_errors() {
        let d = json!({"xs": [3, 1, 2], "s": "hello", "o": {"a": 1}});
        assert_eq!(search("length(xs)", &d), json!(3));
        assert_eq!(search("sort(xs)", &d), json!([1, 2, 3]));
        assert_eq!(search("max(xs)", &d), json!(3));
        assert_eq!(search("sum(xs)", &d), json!(6));
        assert_eq!(search("avg(xs)", &d), json!(2));
        assert_eq!(search("keys(o)", &d), json!(["a"]));
        assert_eq!(search("starts_with(s, 'he')", &d), json!(true));
        assert_eq!(search("join(', ', ['a', 'b'])", &d), json!("a, b"));
        assert_eq!(search("to_number('42')", &d), json!(42));
        for bad in ["a.", "a[", "nope(x)", "[?a]]", "'open"] {
            assert!(JmesPath::compile(bad).is_err(), "{bad}");
        }
    }
}
