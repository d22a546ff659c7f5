//! XPath tokens, with XPath 1.0's disambiguation rules: after an operand, `*` is the
//! multiplication operator and `and`/`or`/`div`/`mod` (plus XPath 2's `eq`, `idiv`,
//! `then`...) are operators, elsewhere they are names. Used by [`super::xpath_parse`].

use super::xpath_parse::Version;

#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Punct(&'static str),
    Literal(String),
    Number(f64),
    /// A name; `*` stands for a wildcard part (`*`, `p:*`).
    Name(String),
    /// An operator spelt as a name (`and`, `div`, `eq`...).
    Operator(String),
    Variable(String),
}

const PUNCTS: [&str; 19] = [
    "::", "//", "..", "!=", "<=", ">=", "(", ")", "[", "]", ".", "@", ",", "/", "|", "+", "-", "=",
    "<",
];

fn name_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || (!c.is_ascii() && !c.is_whitespace())
}

fn name_char(c: char) -> bool {
    name_start(c) || c.is_ascii_digit() || c == '-' || c == '.'
}

fn operator_names(version: Version) -> &'static [&'static str] {
    match version {
        Version::One => &["and", "or", "div", "mod"],
        Version::Two => &[
            "and", "or", "div", "mod", "idiv", "eq", "ne", "lt", "le", "gt", "ge", "then", "else",
        ],
    }
}

pub fn tokenize(text: &str, version: Version) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens: Vec<Token> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        // After an operand, `*` multiplies and a name may be an operator.
        let after_operand = match tokens.last() {
            None | Some(Token::Operator(_)) => false,
            Some(Token::Punct(p)) => matches!(*p, ")" | "]" | "." | ".."),
            _ => true,
        };
        if c == '"' || c == '\'' {
            let end = chars[i + 1..]
                .iter()
                .position(|&q| q == c)
                .ok_or("a string literal is not closed")?;
            tokens.push(Token::Literal(chars[i + 1..i + 1 + end].iter().collect()));
            i += end + 2;
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let number: String = chars[start..i].iter().collect();
            tokens.push(Token::Number(
                number
                    .parse()
                    .map_err(|_| format!("bad number {number:?}"))?,
            ));
        } else if c == '*'
            && !after_operand
            && version == Version::Two
            && chars.get(i + 1) == Some(&':')
            && chars.get(i + 2).is_some_and(|&n| name_start(n))
        {
            // XPath 2's `*:local`: the local name in any namespace.
            let end = scan_name(&chars, i + 2);
            tokens.push(Token::Name(format!(
                "*:{}",
                chars[i + 2..end].iter().collect::<String>()
            )));
            i = end;
        } else if c == '*' {
            tokens.push(if after_operand {
                Token::Operator("*".into())
            } else {
                Token::Name("*".into())
            });
            i += 1;
        } else if c == '$' {
            let start = i + 1;
            i = scan_name(&chars, start);
            if i == start {
                return Err("a variable name is missing after $".into());
            }
            tokens.push(Token::Variable(chars[start..i].iter().collect()));
        } else if name_start(c) {
            let start = i;
            i = scan_name(&chars, i);
            let name: String = chars[start..i].iter().collect();
            if after_operand && operator_names(version).contains(&name.as_str()) {
                tokens.push(Token::Operator(name));
            } else {
                tokens.push(Token::Name(name));
            }
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let punct = PUNCTS
                .iter()
                .find(|p| rest.starts_with(**p))
                .copied()
                .or(match c {
                    '>' => Some(">"),
                    _ => None,
                })
                .ok_or_else(|| format!("unexpected character {c:?}"))?;
            if version == Version::Two && rest == "||" {
                return Err("the string concatenation operator || is not supported".into());
            }
            tokens.push(Token::Punct(punct));
            i += punct.len();
        }
    }
    Ok(tokens)
}

/// Scans a QName (`p:l`, `p:*`) from `i`; stops before `::`.
fn scan_name(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && name_char(chars[i]) {
        i += 1;
    }
    if i + 1 < chars.len() && chars[i] == ':' && chars[i + 1] != ':' {
        if chars[i + 1] == '*' {
            return i + 2;
        }
        if name_start(chars[i + 1]) {
            i += 1;
            while i < chars.len() && name_char(chars[i]) {
                i += 1;
            }
        }
    }
    i
}
