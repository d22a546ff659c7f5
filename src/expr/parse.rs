//! Parsing `${...}` references into template parts, with JMeter's rules.
//!
//! The scanner mirrors how JMeter 5.6 reads a property value:
//! - `${name}` is a variable; the name is used exactly as written (no trimming).
//! - `${__fn(a,b)}` and `${__fn}` are calls when the name (trimmed, for the form with
//!   parentheses) is a registered function. A registered name always wins over a variable.
//! - `${foo(x)}` with an unregistered `foo` is a variable named `foo(x)`; when the name starts
//!   with `__` it is also reported as an unknown function.
//! - Arguments split on commas outside any nested `${...}`; ordinary parentheses only matter
//!   for finding the `)` that closes the call. Each argument is compiled on its own.
//! - `\$`, `\,` and `\\` are escapes. At the top level they only apply when the text holds at
//!   least one reference: a text without one is used raw. In arguments they always apply.
//! - An unterminated `${` is kept literally. A call that is not closed properly makes JMeter
//!   reject the whole value (it then uses the raw text): we do the same and report a warning.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::functions::Constructor;
use super::{Compiled, FunctionRegistry, Part, Template};
use crate::foundation::java_text::java_trim;

/// Call-site ids are unique across every template compiled in the process, so per-site state
/// (`__counter(TRUE)` in a user's variables) can never collide between two plans or two fields.
static NEXT_SITE: AtomicUsize = AtomicUsize::new(1);

#[derive(Debug, thiserror::Error)]
pub enum ExprError {
    #[error("function {name}: {message}")]
    BadArguments { name: String, message: String },
    #[error("function calls nested deeper than {MAX_CALL_NESTING} levels")]
    NestedTooDeep,
}

/// How deeply `${__fn(...)}` calls may nest inside each other. Plans nest a few levels;
/// the bound keeps a hostile value from exhausting the stack and from the quadratic
/// re-scanning of ever longer arguments.
pub const MAX_CALL_NESTING: usize = 100;

/// Why scanning stopped early.
enum Failure {
    /// The text is not a well-formed call; the whole value stays raw (JMeter logs and moves on).
    Malformed(String),
    /// A function refused its arguments; that is a plan error.
    Bad(ExprError),
}

/// The parts found in one text, and whether any of them is a reference.
struct Scan {
    parts: Vec<Part>,
    references: bool,
}

pub(super) fn compile(text: &str, registry: &FunctionRegistry) -> Result<Compiled, ExprError> {
    super::functions::compiling_with(registry, || compile_with(text, registry))
}

fn compile_with(text: &str, registry: &FunctionRegistry) -> Result<Compiled, ExprError> {
    let mut parser = Parser::new(registry);
    let mut warnings = Vec::new();
    let template = if !text.contains("${") {
        Template::literal(text)
    } else {
        match parser.scan(text) {
            Ok(scan) if scan.references => Template::from_parts(text, scan.parts),
            Ok(_) => Template::literal(text),
            Err(Failure::Malformed(message)) => {
                warnings.push(message);
                Template::literal(text)
            }
            Err(Failure::Bad(err)) => return Err(err),
        }
    };
    Ok(Compiled {
        template,
        unknown_functions: parser.unknown,
        warnings,
    })
}

/// Compiles text the way a function argument is compiled: escapes always apply. `__eval`
/// uses this at run time; `None` when the text is malformed or a function rejects it.
pub(super) fn compile_argument(text: &str, registry: &FunctionRegistry) -> Option<Template> {
    super::functions::compiling_with(registry, || Parser::new(registry).argument(text).ok())
}

struct Parser<'r> {
    registry: &'r FunctionRegistry,
    unknown: Vec<String>,
    /// How many calls enclose the argument being compiled.
    depth: usize,
}

/// A position in the characters of one text.
struct Cursor {
    chars: Vec<char>,
    pos: usize,
}

impl Cursor {
    fn new(text: &str) -> Cursor {
        Cursor {
            chars: text.chars().collect(),
            pos: 0,
        }
    }

    fn next(&mut self) -> Option<char> {
        let c = self.chars.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    /// Skips space separators (Java's `Character.isSpaceChar`: not tabs or newlines).
    fn first_non_space(&mut self) -> Option<char> {
        while let Some(c) = self.next() {
            let space_separator = c.is_whitespace() && !c.is_control();
            if !space_separator {
                return Some(c);
            }
        }
        None
    }

    fn rest_from(&self, start: usize) -> String {
        self.chars[start.min(self.chars.len())..].iter().collect()
    }
}

impl<'r> Parser<'r> {
    fn new(registry: &'r FunctionRegistry) -> Parser<'r> {
        Parser {
            registry,
            unknown: Vec::new(),
            depth: 0,
        }
    }

    /// Splits `text` into literal text and references, removing escapes from the literals.
    fn scan(&mut self, text: &str) -> Result<Scan, Failure> {
        let mut cur = Cursor::new(text);
        let mut parts = Vec::new();
        let mut buf = String::new();
        let mut references = false;
        // A space never starts a reference, so it is a safe "nothing before" marker.
        let mut prev = ' ';
        while let Some(c) = cur.next() {
            if c == '\\' {
                match cur.next() {
                    Some(n) => {
                        if !matches!(n, '$' | ',' | '\\') {
                            buf.push('\\');
                        }
                        buf.push(n);
                    }
                    None => buf.push('\\'),
                }
                prev = ' ';
            } else if c == '{' && prev == '$' {
                buf.pop();
                let after_open = cur.pos;
                match self.reference(&mut cur)? {
                    Some(part) => {
                        flush(&mut buf, &mut parts);
                        parts.push(part);
                        references = true;
                    }
                    None => {
                        buf.push_str("${");
                        buf.push_str(&cur.rest_from(after_open));
                    }
                }
                prev = ' ';
            } else {
                buf.push(c);
                prev = c;
            }
        }
        flush(&mut buf, &mut parts);
        Ok(Scan { parts, references })
    }

    /// Reads what follows `${` up to its `}`. `None` when the text ends first.
    fn reference(&mut self, cur: &mut Cursor) -> Result<Option<Part>, Failure> {
        let mut name = String::new();
        let mut prev = ' ';
        while let Some(c) = cur.next() {
            match c {
                '\\' => {
                    if let Some(n) = cur.next() {
                        name.push(n);
                    }
                    prev = ' ';
                }
                // `${ (x)}` and `${__P (x)}` are variables: a call needs a name character
                // right before the parenthesis.
                '(' if prev != ' ' => {
                    let trimmed = java_trim(&name);
                    if let Some(ctor) = self.registry.get(trimmed) {
                        let trimmed = trimmed.to_string();
                        return self.call(&trimmed, ctor, cur).map(Some);
                    }
                    if trimmed.starts_with("__") && !self.unknown.iter().any(|u| u == trimmed) {
                        self.unknown.push(trimmed.to_string());
                    }
                    name.push('(');
                }
                '}' => {
                    let part = match self.registry.get(&name) {
                        Some(ctor) => construct(&name, ctor, Vec::new())?,
                        None => Part::Variable(name),
                    };
                    return Ok(Some(part));
                }
                _ => {
                    name.push(c);
                    prev = c;
                }
            }
        }
        Ok(None)
    }

    /// Reads the argument list after `__fn(` and the `}` that must follow it.
    fn call(&mut self, name: &str, ctor: Constructor, cur: &mut Cursor) -> Result<Part, Failure> {
        let Some(raw_args) = split_arguments(cur) else {
            return Err(Failure::Malformed(format!(
                "missing ) closing the {name} function call"
            )));
        };
        if cur.first_non_space() != Some('}') {
            return Err(Failure::Malformed(format!(
                "expected }} after the {name} function call"
            )));
        }
        if self.depth >= MAX_CALL_NESTING {
            return Err(Failure::Bad(ExprError::NestedTooDeep));
        }
        self.depth += 1;
        let args: Result<Vec<Template>, Failure> =
            raw_args.iter().map(|raw| self.argument(raw)).collect();
        self.depth -= 1;
        construct(name, ctor, args?)
    }

    /// Compiles one argument: escapes always apply, constants fold into one literal.
    fn argument(&mut self, raw: &str) -> Result<Template, Failure> {
        let scan = self.scan(raw)?;
        if scan.references {
            return Ok(Template::from_parts(raw, scan.parts));
        }
        let mut value = String::new();
        for part in scan.parts {
            if let Part::Literal(text) = part {
                value.push_str(&text);
            }
        }
        Ok(Template::from_parts(raw, vec![Part::Literal(value)]))
    }
}

/// Splits the raw text of a call's arguments, consuming the closing `)`.
/// `None` when the text ends before the call is closed.
fn split_arguments(cur: &mut Cursor) -> Option<Vec<String>> {
    let mut args = Vec::new();
    let mut buf = String::new();
    let mut prev = ' ';
    let mut nested_refs = 0usize;
    let mut parens = 0usize;
    while let Some(c) = cur.next() {
        match c {
            // Escapes are kept for the argument's own compilation to remove.
            '\\' => {
                buf.push(c);
                buf.push(cur.next()?);
                prev = ' ';
                continue;
            }
            ',' if nested_refs == 0 => {
                args.push(std::mem::take(&mut buf));
                continue;
            }
            ')' if nested_refs == 0 && parens == 0 => {
                // `__fn()` has no arguments rather than one empty one.
                if !(buf.is_empty() && args.is_empty()) {
                    args.push(buf);
                }
                return Some(args);
            }
            '{' if prev == '$' => nested_refs += 1,
            '}' if nested_refs > 0 => nested_refs -= 1,
            ')' if nested_refs == 0 => parens -= 1,
            '(' if nested_refs == 0 => parens += 1,
            _ => {}
        }
        buf.push(c);
        prev = c;
    }
    None
}

fn construct(name: &str, ctor: Constructor, args: Vec<Template>) -> Result<Part, Failure> {
    let site = NEXT_SITE.fetch_add(1, Ordering::Relaxed);
    ctor(args, site).map(Part::Call).map_err(|message| {
        Failure::Bad(ExprError::BadArguments {
            name: name.to_string(),
            message,
        })
    })
}

fn flush(buf: &mut String, parts: &mut Vec<Part>) {
    if !buf.is_empty() {
        parts.push(Part::Literal(std::mem::take(buf)));
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
