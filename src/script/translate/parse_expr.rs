//! Expressions, by precedence climbing: assignment, ternary and Elvis, the binary
//! operators, unary operators and casts, then postfix chains (`.name`, calls, `[i]`,
//! Groovy's trailing closures) on primaries.

use super::ast::{Expr, Interpolation, MapKey};
use super::lexer::{tokenize, StrPart, Tok};
use super::names::{looks_like_class, STATIC_CLASSES};
use super::parser::{ParseResult, Parser};
use super::SourceLanguage;

/// Binary operators by precedence, lowest first.
const BINARY_LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!=", "===", "!==", "=~", "==~", "<=>"],
    &["<", ">", "<=", ">=", "instanceof", "in", "as"],
    &["..", "..<"],
    &["<<", ">>", ">>>"],
    &["+", "-"],
    &["*", "/", "%"],
    &["**"],
];

const ASSIGNMENTS: &[&str] = &[
    "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>=", "**=",
];

/// Roots of fully qualified class names (`java.util.UUID`).
const PACKAGE_ROOTS: &[&str] = &["java", "javax", "groovy", "org", "com", "net", "io", "jdk"];

impl Parser {
    pub(super) fn expression(&mut self) -> ParseResult<Expr> {
        self.nested(Self::expression_level)
    }

    fn expression_level(&mut self) -> ParseResult<Expr> {
        let target = self.conditional()?;
        if let Tok::Punct(op) = *self.peek() {
            if ASSIGNMENTS.contains(&op) && !self.ends_at_newline() {
                self.pos += 1;
                let value = self.expression()?;
                return Ok(Expr::Assign(op, Box::new(target), Box::new(value)));
            }
        }
        Ok(target)
    }

    fn conditional(&mut self) -> ParseResult<Expr> {
        let condition = self.binary(0)?;
        if self.ends_at_newline() && !self.is_punct("?") && !self.is_punct("?:") {
            return Ok(condition);
        }
        if self.eat_punct("?:") {
            let fallback = self.conditional()?;
            return Ok(Expr::Elvis(Box::new(condition), Box::new(fallback)));
        }
        if self.eat_punct("?") {
            self.newline_ends.push(false);
            let chosen = self.conditional();
            self.newline_ends.pop();
            let chosen = chosen?;
            if self.is_punct("?:") {
                return Err((self.line(), "nested ternary without spaces".into()));
            }
            self.expect_punct(":")?;
            let otherwise = self.conditional()?;
            return Ok(Expr::Ternary(
                Box::new(condition),
                Box::new(chosen),
                Box::new(otherwise),
            ));
        }
        Ok(condition)
    }

    fn binary(&mut self, level: usize) -> ParseResult<Expr> {
        if level == BINARY_LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            if self.ends_at_newline() {
                return Ok(left);
            }
            let op = match self.peek() {
                Tok::Punct(p) => BINARY_LEVELS[level].iter().find(|o| *o == p).copied(),
                Tok::Ident(w) => BINARY_LEVELS[level].iter().find(|o| *o == w).copied(),
                _ => None,
            };
            let Some(op) = op else {
                return Ok(left);
            };
            self.pos += 1;
            left = match op {
                "instanceof" | "as" => {
                    let start = self.pos;
                    let end = self
                        .type_end(start)
                        .ok_or((self.line(), format!("expected a type after `{op}`")))?;
                    let name = self.type_name(start);
                    self.pos = end;
                    if op == "as" {
                        Expr::Convert(name, Box::new(left))
                    } else {
                        Expr::InstanceOf(Box::new(left), name)
                    }
                }
                ".." | "..<" => Expr::Range {
                    from: Box::new(left),
                    to: Box::new(self.binary(level + 1)?),
                    inclusive: op == "..",
                },
                // `**` is right-associative.
                "**" => Expr::Binary(op, Box::new(left), Box::new(self.binary(level)?)),
                _ => Expr::Binary(op, Box::new(left), Box::new(self.binary(level + 1)?)),
            };
        }
    }

    /// The simple name of the type starting at `start`, with `[]` kept for arrays.
    fn type_name(&self, start: usize) -> String {
        let end = self.type_end(start).unwrap_or(start + 1);
        let mut name = String::new();
        let mut depth = 0;
        for token in &self.tokens[start..end] {
            match &token.tok {
                Tok::Punct("<") => depth += 1,
                Tok::Punct(">") => depth -= 1,
                Tok::Punct(">>") => depth -= 2,
                Tok::Punct(">>>") => depth -= 3,
                Tok::Ident(word) if depth == 0 => name = word.clone(),
                Tok::Punct("[") if depth == 0 => name.push_str("[]"),
                _ => {}
            }
        }
        name
    }

    fn unary(&mut self) -> ParseResult<Expr> {
        self.nested(Self::unary_level)
    }

    fn unary_level(&mut self) -> ParseResult<Expr> {
        if let Tok::Punct(op @ ("!" | "-" | "+" | "~")) = *self.peek() {
            self.pos += 1;
            let operand = self.unary()?;
            return Ok(match (op, operand) {
                ("-", Expr::Int(n)) => Expr::Int(-n),
                ("-", Expr::Float(n)) => Expr::Float(-n),
                ("+", operand) => operand,
                (op, operand) => Expr::Unary(op, Box::new(operand)),
            });
        }
        if let Tok::Punct(op @ ("++" | "--")) = *self.peek() {
            self.pos += 1;
            let target = self.unary()?;
            return self.step(op, true, target);
        }
        if self.is_punct("(") {
            if let Some(cast) = self.cast()? {
                return Ok(cast);
            }
        }
        let primary = self.primary()?;
        self.postfix(primary)
    }

    /// `++`/`--` on `target`, which must be something assignable, as the four languages
    /// require (`--x--` and `- --1` are syntax errors there).
    fn step(&self, op: &'static str, prefix: bool, target: Expr) -> ParseResult<Expr> {
        if !matches!(
            target,
            Expr::Ident(_) | Expr::Field { .. } | Expr::Index(..) | Expr::StaticField { .. }
        ) {
            return Err((
                self.line(),
                format!("`{op}` needs a variable, a field or an element to change"),
            ));
        }
        Ok(Expr::Step {
            op,
            prefix,
            target: Box::new(target),
        })
    }

    /// `(Type) operand`, when what is in parentheses is a type and an operand follows.
    fn cast(&mut self) -> ParseResult<Option<Expr>> {
        let Some(end) = self.type_end(self.pos + 1) else {
            return Ok(None);
        };
        if !matches!(self.tokens[end].tok, Tok::Punct(")")) {
            return Ok(None);
        }
        let after = &self.tokens[(end + 1).min(self.tokens.len() - 1)].tok;
        let operand_follows = match after {
            Tok::Ident(w) => !matches!(w.as_str(), "instanceof" | "in" | "as"),
            Tok::Int(_) | Tok::Float(_) | Tok::Str(_) | Tok::Interpolated(_) => true,
            Tok::Punct(p) => matches!(*p, "(" | "!" | "~"),
            Tok::Eof => false,
        };
        if !operand_follows {
            return Ok(None);
        }
        let name = self.type_name(self.pos + 1);
        self.pos = end + 1;
        let operand = self.unary()?;
        Ok(Some(Expr::Convert(name, Box::new(operand))))
    }

    fn primary(&mut self) -> ParseResult<Expr> {
        let line = self.line();
        let token = self.peek().clone();
        self.pos += 1;
        Ok(match token {
            Tok::Int(n) => Expr::Int(n),
            Tok::Float(n) => Expr::Float(n),
            Tok::Str(text) => Expr::Str(text),
            Tok::Interpolated(parts) => self.interpolated(parts)?,
            Tok::Punct("(") => {
                self.newline_ends.push(false);
                let inner = self.expression();
                self.newline_ends.pop();
                let inner = inner?;
                self.expect_punct(")")?;
                inner
            }
            Tok::Punct("[") => self.list_or_map()?,
            Tok::Punct("{") if self.language == SourceLanguage::JavaScript => {
                self.pos -= 1;
                self.object_literal()?
            }
            Tok::Punct("{") => {
                self.pos -= 1;
                self.closure()?
            }
            Tok::Ident(word) => match word.as_str() {
                "true" => Expr::Bool(true),
                "false" => Expr::Bool(false),
                "null" | "undefined" => Expr::Null,
                "new" => self.new_expression()?,
                "function" if self.language == SourceLanguage::JavaScript => {
                    if matches!(self.peek(), Tok::Ident(_)) {
                        self.pos += 1;
                    }
                    let params = self.parameters()?;
                    let body = self.block()?;
                    Expr::Closure { params, body }
                }
                "this" | "super" => {
                    self.problem(line, format!("`{word}`"));
                    Expr::Unsupported
                }
                _ if PACKAGE_ROOTS.contains(&word.as_str()) && self.is_punct(".") => {
                    self.qualified_class(word)?
                }
                _ => Expr::Ident(word),
            },
            _ => return Err((line, "expected an expression".into())),
        })
    }

    /// `java.util.UUID` → the class `UUID`.
    fn qualified_class(&mut self, root: String) -> ParseResult<Expr> {
        let mut path = root;
        while self.is_punct(".") {
            let Tok::Ident(next) = self.peek_at(1).clone() else {
                break;
            };
            self.pos += 2;
            path.push('.');
            path.push_str(&next);
            if looks_like_class(&next) || STATIC_CLASSES.contains(&next.as_str()) {
                return Ok(Expr::Ident(next));
            }
        }
        let line = self.line();
        self.problem(line, format!("package reference `{path}`"));
        Ok(Expr::Unsupported)
    }

    fn interpolated(&mut self, parts: Vec<StrPart>) -> ParseResult<Expr> {
        let mut out = Vec::new();
        for part in parts {
            match part {
                StrPart::Text(text) => out.push(Interpolation::Text(text)),
                StrPart::Code(code, line) => {
                    let tokens =
                        tokenize(self.language, &code).map_err(|(_, message)| (line, message))?;
                    let mut inner = Parser::new(self.language, tokens);
                    inner.newline_ends = vec![false];
                    let value = inner.expression().map_err(|(_, m)| (line, m))?;
                    if !inner.at_eof() {
                        return Err((line, "unexpected text in ${..}".into()));
                    }
                    for mut problem in inner.problems {
                        problem.line = line;
                        self.problems.push(problem);
                    }
                    out.push(Interpolation::Code(value));
                }
            }
        }
        Ok(Expr::Interpolated(out))
    }

    fn list_or_map(&mut self) -> ParseResult<Expr> {
        self.newline_ends.push(false);
        let result = self.list_or_map_items();
        self.newline_ends.pop();
        result
    }

    fn list_or_map_items(&mut self) -> ParseResult<Expr> {
        if self.eat_punct(":") {
            self.expect_punct("]")?;
            return Ok(Expr::Map(Vec::new()));
        }
        let mut items = Vec::new();
        let mut entries = Vec::new();
        while !self.eat_punct("]") {
            if let Some(key) = self.map_key()? {
                entries.push((key, self.expression()?));
            } else {
                items.push(self.expression()?);
            }
            if !self.eat_punct(",") && !self.is_punct("]") {
                return Err((self.line(), "expected `,` or `]`".into()));
            }
        }
        if !entries.is_empty() && !items.is_empty() {
            return Err((self.line(), "list mixes values and map entries".into()));
        }
        Ok(if entries.is_empty() {
            Expr::List(items)
        } else {
            Expr::Map(entries)
        })
    }

    /// `name:`, `"name":` or `(expr):` before a map value.
    fn map_key(&mut self) -> ParseResult<Option<MapKey>> {
        if !self.is_punct_at(1, ":") {
            if self.is_punct("(") {
                let save = self.pos;
                self.skip_parens();
                let is_key = self.is_punct(":");
                self.pos = save;
                if is_key {
                    let key = self.paren_expression()?;
                    self.expect_punct(":")?;
                    return Ok(Some(MapKey::Computed(key)));
                }
            }
            return Ok(None);
        }
        let key = match self.peek().clone() {
            Tok::Ident(name) | Tok::Str(name) => MapKey::Name(name),
            Tok::Int(n) => MapKey::Name(n.to_string()),
            _ => return Ok(None),
        };
        self.pos += 2;
        Ok(Some(key))
    }

    fn object_literal(&mut self) -> ParseResult<Expr> {
        self.expect_punct("{")?;
        self.newline_ends.push(false);
        let mut entries = Vec::new();
        while !self.eat_punct("}") {
            let key = match self.peek().clone() {
                Tok::Ident(name) | Tok::Str(name) => name,
                _ => {
                    self.newline_ends.pop();
                    return Err((self.line(), "expected a property name".into()));
                }
            };
            self.pos += 1;
            self.expect_punct(":")?;
            entries.push((MapKey::Name(key), self.expression()?));
            self.eat_punct(",");
        }
        self.newline_ends.pop();
        Ok(Expr::Map(entries))
    }

    /// `{ a, b -> .. }` or `{ .. }` (one implicit parameter, `it`).
    pub(super) fn closure(&mut self) -> ParseResult<Expr> {
        let params = self.closure_parameters();
        let params = match params {
            Some(params) => params,
            None => vec!["it".to_string()],
        };
        self.pos -= 1;
        let body = self.block()?;
        Ok(Expr::Closure { params, body })
    }

    /// After `{`: the explicit parameters up to `->`, or None (position kept after `{`).
    fn closure_parameters(&mut self) -> Option<Vec<String>> {
        self.pos += 1;
        let start = self.pos;
        let mut params = Vec::new();
        loop {
            if self.eat_punct("->") {
                self.declared.extend(params.iter().cloned());
                // `block()` expects to open at a `{`: step back onto a token we can reuse.
                self.pos -= 1;
                self.tokens[self.pos].tok = Tok::Punct("{");
                self.pos += 1;
                return Some(params);
            }
            if let Some(end) = self.type_end(self.pos) {
                if matches!(self.tokens[end].tok, Tok::Ident(_)) {
                    self.pos = end;
                }
            }
            match self.peek().clone() {
                Tok::Ident(name) => {
                    params.push(name);
                    self.pos += 1;
                }
                _ => break,
            }
            if !self.eat_punct(",") && !self.is_punct("->") {
                break;
            }
        }
        self.pos = start;
        None
    }

    fn new_expression(&mut self) -> ParseResult<Expr> {
        let line = self.line();
        let start = self.pos;
        let end = self
            .type_end(start)
            .or_else(|| matches!(self.peek(), Tok::Ident(_)).then_some(start + 1))
            .ok_or((line, "expected a class after `new`".into()))?;
        let class = self.type_name(start);
        self.pos = end;
        if class.ends_with("[]") && self.is_punct("{") {
            return self.array_initializer();
        }
        if self.eat_punct("[") {
            self.newline_ends.push(false);
            let size = self.expression();
            self.newline_ends.pop();
            let size = size?;
            self.expect_punct("]")?;
            while self.eat_punct("[") {
                self.problem(line, "multi-dimensional array".into());
                if !self.eat_punct("]") {
                    self.expression()?;
                    self.expect_punct("]")?;
                }
            }
            let fill = match class.as_str() {
                "int" | "long" | "short" | "byte" | "char" => Expr::Int(0),
                "double" | "float" => Expr::Float(0.0),
                "boolean" => Expr::Bool(false),
                _ => Expr::Null,
            };
            return Ok(Expr::NewArray {
                size: Some(Box::new(size)),
                fill: Box::new(fill),
                items: Vec::new(),
            });
        }
        let args = if self.is_punct("(") {
            self.arguments()?
        } else {
            Vec::new()
        };
        if self.is_punct("{") {
            self.problem(line, format!("anonymous class `new {class}() {{..}}`"));
            self.block()?;
            return Ok(Expr::Unsupported);
        }
        Ok(Expr::New { class, args })
    }

    fn array_initializer(&mut self) -> ParseResult<Expr> {
        self.expect_punct("{")?;
        self.newline_ends.push(false);
        let mut items = Vec::new();
        while !self.eat_punct("}") {
            items.push(self.expression()?);
            if !self.eat_punct(",") && !self.is_punct("}") {
                self.newline_ends.pop();
                return Err((self.line(), "expected `,` or `}`".into()));
            }
        }
        self.newline_ends.pop();
        Ok(Expr::NewArray {
            size: None,
            fill: Box::new(Expr::Null),
            items,
        })
    }

    /// `( a, b, name: c )`, then Groovy's trailing closure if one follows.
    pub(super) fn arguments(&mut self) -> ParseResult<Vec<Expr>> {
        self.expect_punct("(")?;
        self.newline_ends.push(false);
        let result = self.argument_list(")");
        self.newline_ends.pop();
        let mut args = result?;
        if self.trailing_closure_follows() {
            args.push(self.closure()?);
        }
        Ok(args)
    }

    fn argument_list(&mut self, close: &str) -> ParseResult<Vec<Expr>> {
        let mut args = Vec::new();
        let mut named = Vec::new();
        while !self.eat_punct(close) {
            if self.language == SourceLanguage::Groovy {
                if let Some(key) = self.map_key()? {
                    named.push((key, self.expression()?));
                    if !self.eat_punct(",") && !self.is_punct(close) {
                        return Err((self.line(), "expected `,` in arguments".into()));
                    }
                    continue;
                }
            }
            args.push(self.java_lambda_or_expression()?);
            if !self.eat_punct(",") && !self.is_punct(close) {
                return Err((self.line(), format!("expected `,` or `{close}`")));
            }
        }
        if !named.is_empty() {
            args.insert(0, Expr::Map(named));
        }
        Ok(args)
    }

    /// Java's `x -> ..` and `(a, b) -> ..` where an argument is expected.
    fn java_lambda_or_expression(&mut self) -> ParseResult<Expr> {
        let single = matches!(self.peek(), Tok::Ident(_)) && self.is_punct_at(1, "->");
        let mut params = Vec::new();
        if single {
            params.push(self.ident()?);
        } else if self.is_punct("(") {
            let save = self.pos;
            self.skip_parens();
            let is_lambda = self.is_punct("->");
            self.pos = save;
            if !is_lambda {
                return self.expression();
            }
            params = self.parameters()?;
        } else {
            return self.expression();
        }
        self.expect_punct("->")?;
        let body = if self.is_punct("{") {
            self.block()?
        } else {
            let line = self.line();
            vec![super::ast::Stmt {
                line,
                kind: super::ast::StmtKind::Expr(self.expression()?),
            }]
        };
        Ok(Expr::Closure { params, body })
    }

    fn trailing_closure_follows(&self) -> bool {
        self.language == SourceLanguage::Groovy && self.is_punct("{") && !self.newline_before()
    }

    fn postfix(&mut self, mut value: Expr) -> ParseResult<Expr> {
        loop {
            let newline = self.newline_before();
            let ends = self.ends_at_newline();
            match self.peek().clone() {
                Tok::Punct(op @ ("." | "?." | "*." | "::")) => {
                    self.pos += 1;
                    let name = match self.peek().clone() {
                        Tok::Ident(name) | Tok::Str(name) => name,
                        _ => return Err((self.line(), format!("expected a name after `{op}`"))),
                    };
                    self.pos += 1;
                    value = self.member(value, name, op)?;
                }
                Tok::Punct("(") if !ends => {
                    let Expr::Ident(name) = value else {
                        return Err((self.line(), "call of something that is not a name".into()));
                    };
                    let args = self.arguments()?;
                    value = Expr::Call { name, args };
                }
                Tok::Punct("[") if !ends => {
                    self.pos += 1;
                    self.newline_ends.push(false);
                    let index = self.expression();
                    self.newline_ends.pop();
                    let index = index?;
                    self.expect_punct("]")?;
                    value = Expr::Index(Box::new(value), Box::new(index));
                }
                Tok::Punct(op @ ("++" | "--")) if !newline => {
                    self.pos += 1;
                    value = self.step(op, false, value)?;
                }
                Tok::Punct("{") if self.trailing_closure_follows() => {
                    let Expr::Ident(name) = value else {
                        return Ok(value);
                    };
                    let closure = self.closure()?;
                    value = Expr::Call {
                        name,
                        args: vec![closure],
                    };
                }
                _ => return Ok(value),
            }
        }
    }

    /// `.name` after `target`: a method call, a static call on a class, or a field.
    fn member(&mut self, target: Expr, name: String, op: &str) -> ParseResult<Expr> {
        let class = match &target {
            Expr::Ident(class) if self.is_class_reference(class) => Some(class.clone()),
            _ => None,
        };
        let has_args = self.is_punct("(") && !self.ends_at_newline();
        if has_args || self.trailing_closure_follows() {
            let args = if has_args {
                self.arguments()?
            } else {
                vec![self.closure()?]
            };
            return Ok(match class {
                Some(class) => Expr::Static { class, name, args },
                None => Expr::Method {
                    target: Box::new(target),
                    name,
                    args,
                    safe: op == "?.",
                    spread: op == "*.",
                },
            });
        }
        if op == "*." {
            return Ok(Expr::Method {
                target: Box::new(target),
                name: format!("get{}", capitalize(&name)),
                args: Vec::new(),
                safe: false,
                spread: true,
            });
        }
        Ok(match class {
            Some(class) => Expr::StaticField { class, name },
            None => Expr::Field {
                target: Box::new(target),
                name,
                safe: op == "?.",
            },
        })
    }

    /// Groovy's command expression at the start of a statement: `println x`,
    /// `log.info "text"`, `vars.put "a", b`.
    pub(super) fn command_call(&mut self) -> ParseResult<Option<Expr>> {
        if self.language != SourceLanguage::Groovy {
            return Ok(None);
        }
        if matches!(self.peek(), Tok::Ident(w) if matches!(w.as_str(), "new" | "this" | "super" | "true" | "false" | "null"))
        {
            return Ok(None);
        }
        let mut i = 0;
        let mut path = Vec::new();
        loop {
            let Tok::Ident(name) = self.peek_at(i).clone() else {
                return Ok(None);
            };
            path.push(name);
            if self.is_punct_at(i + 1, ".") {
                i += 2;
            } else {
                break;
            }
        }
        let next = &self.tokens[(self.pos + i + 1).min(self.tokens.len() - 1)];
        let starts_argument = match &next.tok {
            Tok::Str(_) | Tok::Interpolated(_) | Tok::Int(_) | Tok::Float(_) => true,
            Tok::Ident(w) => !matches!(w.as_str(), "in" | "instanceof" | "as"),
            _ => false,
        };
        if next.newline_before || !starts_argument {
            return Ok(None);
        }
        self.pos += i + 1;
        let mut args = Vec::new();
        loop {
            args.push(self.expression()?);
            if !self.eat_punct(",") {
                break;
            }
        }
        let name = path.pop().unwrap_or_default();
        if path.is_empty() {
            return Ok(Some(Expr::Call { name, args }));
        }
        let mut target = Expr::Ident(path[0].clone());
        for field in &path[1..] {
            target = self.member(target, field.clone(), ".")?;
        }
        Ok(Some(match target {
            Expr::Ident(class) if self.is_class_reference(&class) => {
                Expr::Static { class, name, args }
            }
            target => Expr::Method {
                target: Box::new(target),
                name,
                args,
                safe: false,
                spread: false,
            },
        }))
    }
}

impl Parser {
    /// A capitalised name used with `.`: a class, unless it is one of JMeter's bindings
    /// or a variable the script declared.
    fn is_class_reference(&self, name: &str) -> bool {
        !super::names::is_binding(name)
            && !self.declared.contains(name)
            && (looks_like_class(name) || STATIC_CLASSES.contains(&name))
    }
}

pub(super) fn capitalize(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
