//! A small evaluator for JavaScript/JEXL-style expressions.
//!
//! Values are numbers, strings, booleans and null; comparison and `+` follow
//! JavaScript's loose rules (a numeric string compares as a number against a number).

use std::fmt;

use crate::foundation::properties::Properties;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Number(f64),
    Text(String),
    Bool(bool),
    Null,
}

impl Value {
    fn truthy(&self) -> bool {
        match self {
            Value::Number(n) => *n != 0.0 && !n.is_nan(),
            Value::Text(s) => !s.is_empty(),
            Value::Bool(b) => *b,
            Value::Null => false,
        }
    }

    fn number(&self) -> Option<f64> {
        match self {
            Value::Number(n) => Some(*n),
            Value::Text(s) => s.trim().parse().ok(),
            Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            Value::Null => Some(0.0),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => write!(f, "{}", *n as i64),
            Value::Number(n) => write!(f, "{n}"),
            Value::Text(s) => f.write_str(s),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Null => f.write_str("null"),
        }
    }
}

/// Why an expression could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot evaluate expression at {position}: {message}")]
pub struct ConditionError {
    pub position: usize,
    pub message: String,
}

/// Evaluates `text` to a value.
pub fn evaluate(text: &str) -> Result<Value, ConditionError> {
    evaluate_with(text, None)
}

/// Evaluates `text` with the run's properties at hand (`JMeterUtils.getJMeterHome()`
/// reads `jmeter.home`).
pub fn evaluate_with(text: &str, props: Option<&Properties>) -> Result<Value, ConditionError> {
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens,
        pos: 0,
        props,
        depth: 0,
    };
    let value = parser.ternary()?;
    if parser.pos < parser.tokens.len() {
        return Err(parser.error("unexpected text after the expression"));
    }
    Ok(value)
}

/// Checks at plan time that an expression written with `${...}` references is one this
/// language can evaluate: each reference is replaced by a number and the text parsed.
/// Anything else (a Groovy script, JavaScript objects) must be reported, not run to an
/// empty result.
pub fn check_syntax(text_with_references: &str) -> Result<(), ConditionError> {
    let text = replace_references(text_with_references);
    if text.trim().is_empty() {
        return Ok(());
    }
    let tokens = tokenize(&text)?;
    let mut parser = Parser {
        tokens,
        pos: 0,
        props: None,
        depth: 0,
    };
    parser.ternary()?;
    if parser.pos < parser.tokens.len() {
        return Err(parser.error("unexpected text after the expression"));
    }
    Ok(())
}

/// Replaces each `${...}` (nesting included) by `0`.
fn replace_references(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let mut depth = 0usize;
        let mut end = None;
        let bytes = rest.as_bytes();
        let mut i = start;
        while i < bytes.len() {
            if bytes[i] == b'$' && bytes.get(i + 1) == Some(&b'{') {
                depth += 1;
                i += 2;
                continue;
            }
            if bytes[i] == b'}' {
                depth -= 1;
                if depth == 0 {
                    end = Some(i);
                    break;
                }
            }
            i += 1;
        }
        match end {
            Some(end) => {
                out.push('0');
                rest = &rest[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Evaluates a condition: `Some(bool)` for a boolean result (JavaScript mode of the If
/// Controller accepts only booleans), `None` otherwise.
pub fn evaluate_bool(text: &str) -> Option<bool> {
    match evaluate(text) {
        Ok(Value::Bool(b)) => Some(b),
        Ok(Value::Text(s)) if s.eq_ignore_ascii_case("true") => Some(true),
        Ok(Value::Text(s)) if s.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Number(f64),
    Text(String),
    Word(String),
    Op(&'static str),
}

const OPERATORS: [&str; 22] = [
    "===", "!==", "==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "+", "-", "*", "/", "%", "(",
    ")", ".", ",", "?", ":",
];

fn tokenize(text: &str) -> Result<Vec<(Token, usize)>, ConditionError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '"' || c == '\'' {
            let (s, next) = read_string(&chars, i)?;
            out.push((Token::Text(s), i));
            i = next;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            let n = s.parse().map_err(|_| ConditionError {
                position: start,
                message: format!("bad number {s}"),
            })?;
            out.push((Token::Number(n), start));
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            out.push((Token::Word(chars[start..i].iter().collect()), start));
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) else {
                return Err(ConditionError {
                    position: i,
                    message: format!("unexpected character {c:?}"),
                });
            };
            out.push((Token::Op(op), i));
            i += op.chars().count();
        }
    }
    Ok(out)
}

fn read_string(chars: &[char], start: usize) -> Result<(String, usize), ConditionError> {
    let quote = chars[start];
    let mut out = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        match chars[i] {
            c if c == quote => return Ok((out, i + 1)),
            '\\' if i + 1 < chars.len() => {
                out.push(match chars[i + 1] {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    other => other,
                });
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err(ConditionError {
        position: start,
        message: "unterminated string".into(),
    })
}

/// How deeply parentheses, `!`/`-` and `?:` may nest. Real conditions nest a handful of
/// levels; the bound keeps a hostile label from exhausting the stack of the thread that
/// evaluates it.
pub const MAX_NESTING: usize = 200;

struct Parser<'p> {
    tokens: Vec<(Token, usize)>,
    pos: usize,
    props: Option<&'p Properties>,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: &str) -> ConditionError {
        ConditionError {
            position: self.tokens.get(self.pos).map(|t| t.1).unwrap_or(usize::MAX),
            message: message.to_string(),
        }
    }

    fn peek_op(&self) -> Option<&'static str> {
        match self.tokens.get(self.pos) {
            Some((Token::Op(op), _)) => Some(op),
            Some((Token::Word(w), _)) => match w.as_str() {
                "and" => Some("&&"),
                "or" => Some("||"),
                "eq" => Some("=="),
                "ne" => Some("!="),
                "lt" => Some("<"),
                "le" => Some("<="),
                "gt" => Some(">"),
                "ge" => Some(">="),
                "not" => Some("!"),
                _ => None,
            },
            _ => None,
        }
    }

    fn eat(&mut self, op: &str) -> bool {
        if self.peek_op() == Some(op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Runs one nested level, refusing to go deeper than [`MAX_NESTING`].
    fn nested(
        &mut self,
        level: fn(&mut Self) -> Result<Value, ConditionError>,
    ) -> Result<Value, ConditionError> {
        if self.depth >= MAX_NESTING {
            return Err(self.error(&format!(
                "expression nested deeper than {MAX_NESTING} levels"
            )));
        }
        self.depth += 1;
        let value = level(self);
        self.depth -= 1;
        value
    }

    /// `condition ? then : otherwise`, the lowest precedence.
    fn ternary(&mut self) -> Result<Value, ConditionError> {
        self.nested(Self::ternary_level)
    }

    fn ternary_level(&mut self) -> Result<Value, ConditionError> {
        let condition = self.or()?;
        if !self.eat("?") {
            return Ok(condition);
        }
        let then = self.ternary()?;
        if !self.eat(":") {
            return Err(self.error("expected ':'"));
        }
        let otherwise = self.ternary()?;
        Ok(if condition.truthy() { then } else { otherwise })
    }

    fn or(&mut self) -> Result<Value, ConditionError> {
        let mut left = self.and()?;
        while self.eat("||") {
            let right = self.and()?;
            left = Value::Bool(left.truthy() || right.truthy());
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Value, ConditionError> {
        let mut left = self.equality()?;
        while self.eat("&&") {
            let right = self.equality()?;
            left = Value::Bool(left.truthy() && right.truthy());
        }
        Ok(left)
    }

    fn equality(&mut self) -> Result<Value, ConditionError> {
        let mut left = self.comparison()?;
        loop {
            let op = match self.peek_op() {
                Some(op @ ("==" | "!=" | "===" | "!==")) => op,
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.comparison()?;
            let equal = if op.len() == 3 {
                left == right
            } else {
                loose_equal(&left, &right)
            };
            left = Value::Bool(if op.starts_with('!') { !equal } else { equal });
        }
    }

    fn comparison(&mut self) -> Result<Value, ConditionError> {
        let mut left = self.additive()?;
        loop {
            let op = match self.peek_op() {
                Some(op @ ("<" | "<=" | ">" | ">=")) => op,
                _ => return Ok(left),
            };
            self.pos += 1;
            let right = self.additive()?;
            let ordering = match (&left, &right) {
                (Value::Text(a), Value::Text(b)) => a.partial_cmp(b),
                _ => match (left.number(), right.number()) {
                    (Some(a), Some(b)) => a.partial_cmp(&b),
                    _ => None,
                },
            };
            let holds = ordering.is_some_and(|o| match op {
                "<" => o.is_lt(),
                "<=" => o.is_le(),
                ">" => o.is_gt(),
                _ => o.is_ge(),
            });
            left = Value::Bool(holds);
        }
    }

    fn additive(&mut self) -> Result<Value, ConditionError> {
        let mut left = self.multiplicative()?;
        loop {
            if self.eat("+") {
                let right = self.multiplicative()?;
                left = match (&left, &right) {
                    (Value::Text(_), _) | (_, Value::Text(_)) => {
                        Value::Text(format!("{left}{right}"))
                    }
                    _ => Value::Number(
                        left.number().unwrap_or(f64::NAN) + right.number().unwrap_or(f64::NAN),
                    ),
                };
            } else if self.eat("-") {
                let right = self.multiplicative()?;
                left = arithmetic(&left, &right, |a, b| a - b);
            } else {
                return Ok(left);
            }
        }
    }

    fn multiplicative(&mut self) -> Result<Value, ConditionError> {
        let mut left = self.unary()?;
        loop {
            let f: fn(f64, f64) -> f64 = if self.eat("*") {
                |a, b| a * b
            } else if self.eat("/") {
                |a, b| a / b
            } else if self.eat("%") {
                |a, b| a % b
            } else {
                return Ok(left);
            };
            let right = self.unary()?;
            left = arithmetic(&left, &right, f);
        }
    }

    fn unary(&mut self) -> Result<Value, ConditionError> {
        self.nested(Self::unary_level)
    }

    fn unary_level(&mut self) -> Result<Value, ConditionError> {
        if self.eat("!") {
            return Ok(Value::Bool(!self.unary()?.truthy()));
        }
        if self.eat("-") {
            let v = self.unary()?;
            return Ok(Value::Number(-v.number().unwrap_or(f64::NAN)));
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Result<Value, ConditionError> {
        let mut value = self.primary()?;
        while self.eat(".") {
            let Some((Token::Word(method), _)) = self.tokens.get(self.pos).cloned() else {
                return Err(self.error("expected a method name after '.'"));
            };
            self.pos += 1;
            let mut args = Vec::new();
            if self.eat("(") && !self.eat(")") {
                loop {
                    args.push(self.or()?);
                    if self.eat(")") {
                        break;
                    }
                    if !self.eat(",") {
                        return Err(self.error("expected ',' or ')'"));
                    }
                }
            }
            value =
                call_method(&value, &method, &args).ok_or_else(|| self.error("unknown method"))?;
        }
        Ok(value)
    }

    fn primary(&mut self) -> Result<Value, ConditionError> {
        let Some((token, _)) = self.tokens.get(self.pos).cloned() else {
            return Err(self.error("unexpected end of expression"));
        };
        self.pos += 1;
        match token {
            Token::Number(n) => Ok(Value::Number(n)),
            Token::Text(s) => Ok(Value::Text(s)),
            Token::Op("(") => {
                let v = self.ternary()?;
                if !self.eat(")") {
                    return Err(self.error("expected ')'"));
                }
                Ok(v)
            }
            Token::Word(w) => match w.as_str() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                "null" | "undefined" => Ok(Value::Null),
                "empty" if self.eat("(") => {
                    let v = self.or()?;
                    if !self.eat(")") {
                        return Err(self.error("expected ')'"));
                    }
                    Ok(Value::Bool(
                        matches!(&v, Value::Null) || matches!(&v, Value::Text(s) if s.is_empty()),
                    ))
                }
                _ => {
                    self.pos -= 1;
                    self.qualified_name()
                }
            },
            Token::Op(_) => {
                self.pos -= 1;
                Err(self.error("unexpected operator"))
            }
        }
    }
}

impl Parser<'_> {
    /// A dotted Java name (`org.apache.commons.lang3.SystemUtils.IS_OS_LINUX`,
    /// `System.currentTimeMillis()`) from the small table of names plans use.
    fn qualified_name(&mut self) -> Result<Value, ConditionError> {
        let start = self.pos;
        let mut name = String::new();
        while let Some((Token::Word(w), _)) = self.tokens.get(self.pos) {
            name.push_str(w);
            self.pos += 1;
            if let Some(value) = java_static(&name, self.props) {
                if self.eat("(") && !self.eat(")") {
                    return Err(self.error("expected ')'"));
                }
                return Ok(value);
            }
            if !self.eat(".") {
                break;
            }
            name.push('.');
        }
        self.pos = start;
        Err(self.error(&format!("unknown name {name}")))
    }
}

/// Java static fields and methods that conditions in real plans read.
fn java_static(name: &str, props: Option<&Properties>) -> Option<Value> {
    let short = name
        .strip_prefix("org.apache.commons.lang3.")
        .or_else(|| name.strip_prefix("org.apache.jmeter.util."))
        .or_else(|| name.strip_prefix("java.lang."))
        .unwrap_or(name);
    Some(match short {
        "SystemUtils.IS_OS_LINUX" => Value::Bool(cfg!(target_os = "linux")),
        "SystemUtils.IS_OS_MAC" => Value::Bool(cfg!(target_os = "macos")),
        "SystemUtils.IS_OS_WINDOWS" => Value::Bool(cfg!(windows)),
        "SystemUtils.IS_OS_UNIX" => Value::Bool(cfg!(unix)),
        "JMeterUtils.getJMeterHome" => Value::Text(
            props
                .and_then(|p| p.get("jmeter.home"))
                .or_else(|| {
                    std::env::current_dir()
                        .ok()
                        .map(|d| d.display().to_string())
                })
                .unwrap_or_default(),
        ),
        "System.currentTimeMillis" => Value::Number(chrono::Utc::now().timestamp_millis() as f64),
        _ => return None,
    })
}

fn arithmetic(left: &Value, right: &Value, f: fn(f64, f64) -> f64) -> Value {
    Value::Number(f(
        left.number().unwrap_or(f64::NAN),
        right.number().unwrap_or(f64::NAN),
    ))
}

fn loose_equal(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Text(a), Value::Text(b)) => a == b,
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        _ => match (left.number(), right.number()) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        },
    }
}

/// The Java/JavaScript string methods conditions use most.
fn call_method(value: &Value, method: &str, args: &[Value]) -> Option<Value> {
    let text = value.to_string();
    let arg = |i: usize| args.get(i).map(|v| v.to_string()).unwrap_or_default();
    Some(match method {
        "equals" => Value::Bool(text == arg(0)),
        "equalsIgnoreCase" => Value::Bool(text.to_lowercase() == arg(0).to_lowercase()),
        "contains" | "includes" => Value::Bool(text.contains(&arg(0))),
        "startsWith" => Value::Bool(text.starts_with(&arg(0))),
        "endsWith" => Value::Bool(text.ends_with(&arg(0))),
        "isEmpty" => Value::Bool(text.is_empty()),
        "length" | "size" => Value::Number(text.chars().count() as f64),
        "indexOf" => Value::Number(
            text.find(&arg(0))
                .map(|i| text[..i].chars().count() as f64)
                .unwrap_or(-1.0),
        ),
        "toLowerCase" => Value::Text(text.to_lowercase()),
        "toUpperCase" => Value::Text(text.to_uppercase()),
        "trim" => Value::Text(text.trim().to_string()),
        "toString" => Value::Text(text),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str) -> String {
        evaluate(text)
            .map(|v| v.to_string())
            .unwrap_or_else(|e| format!("error: {e}"))
    }

    /// Evaluates on a thread with a runtime worker's 2 MiB stack.
    fn eval_on_small_stack(text: String) -> String {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || eval(&text))
            .expect("a thread starts")
            .join()
            .expect("evaluation returns")
    }

    #[test]
    fn nesting_deeper_than_the_limit_fails_without_exhausting_the_stack() {
        let limit = format!("nested deeper than {MAX_NESTING} levels");
        for deep in [
            format!("{}1{}", "(".repeat(20_000), ")".repeat(20_000)),
            format!("{}true", "!".repeat(20_000)),
            format!("{}1{}", "1?".repeat(20_000), ":1".repeat(20_000)),
        ] {
            let outcome = eval_on_small_stack(deep);
            assert!(outcome.contains(&limit), "{outcome}");
        }
        // Nesting people write still evaluates.
        let fifty = format!("{}2{}", "(".repeat(50), ")".repeat(50));
        assert_eq!(eval_on_small_stack(fifty), "2");
    }

    #[test]
    fn compares_numbers_and_strings_as_javascript_does() {
        assert_eq!(eval("3 == 3"), "true");
        assert_eq!(eval("0 == 3"), "false");
        assert_eq!(eval("\"abc\" == 'abc'"), "true");
        assert_eq!(eval("'10' > 9"), "true");
        assert_eq!(eval("'10' < '9'"), "true");
        assert_eq!(eval("4 != 5 && !(1 > 2)"), "true");
        assert_eq!(eval("1 > 2 || 'a' == 'a'"), "true");
    }

    #[test]
    fn arithmetic_and_string_methods() {
        assert_eq!(eval("1 + 2 * 3"), "7");
        assert_eq!(eval("7 / 2"), "3.5");
        assert_eq!(eval("25 % 25 == 0 ? 402 : 200"), "402");
        assert_eq!(eval("(1 > 2) ? 'a' : 'b'"), "b");
        assert_eq!(eval("'a' + 1"), "a1");
        assert_eq!(eval("'Hello'.length()"), "5");
        assert_eq!(eval("'abc'.equals('abc')"), "true");
        assert_eq!(eval("'abc'.contains('d')"), "false");
    }

    #[test]
    fn jexl_word_operators_and_empty() {
        assert_eq!(eval("1 eq 1 and 2 ne 3"), "true");
        assert_eq!(eval("empty('')"), "true");
    }

    #[test]
    fn unresolved_references_are_errors() {
        assert!(evaluate("${counter} != 10").is_err());
        assert!(evaluate("x == 1").is_err());
        assert_eq!(evaluate_bool("'a' == 'b'"), Some(false));
        assert_eq!(evaluate_bool("1 + 1"), None);
    }

    #[test]
    fn plan_time_syntax_check_replaces_references() {
        assert!(check_syntax("${counter} != 10").is_ok());
        assert!(check_syntax("\"${__P(x,${y})}\" == \"a\"").is_ok());
        assert!(check_syntax("vars.get('x').toInteger() > 2").is_err());
        assert!(check_syntax("def x = 1; x").is_err());
    }

    #[test]
    fn known_java_names() {
        let linux = cfg!(target_os = "linux").to_string();
        assert_eq!(
            eval("org.apache.commons.lang3.SystemUtils.IS_OS_MAC || org.apache.commons.lang3.SystemUtils.IS_OS_LINUX"),
            linux
        );
        assert!(evaluate("org.example.Unknown.FIELD").is_err());
    }
}
