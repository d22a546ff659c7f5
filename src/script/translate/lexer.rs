//! Tokens of Groovy, Java, BeanShell and JavaScript source: the union of their lexical
//! syntax, read once into a flat list that [`super::parser`] walks. Each token remembers
//! its line (for problems) and whether a line break preceded it (Groovy ends statements
//! at line breaks).

use super::SourceLanguage;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    /// An integer literal without its type suffix, as written (decimal or `0x..`).
    Int(i64),
    Float(f64),
    /// A string without interpolation, escapes resolved.
    Str(String),
    /// A Groovy GString with at least one `${..}` or `$name`.
    Interpolated(Vec<StrPart>),
    Punct(&'static str),
    Eof,
}

/// A piece of an interpolated string.
#[derive(Debug, Clone, PartialEq)]
pub enum StrPart {
    Text(String),
    /// The source of an embedded expression and the line it starts on.
    Code(String, usize),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
    pub newline_before: bool,
}

/// Operators, longest first so that the first match is the longest.
const PUNCTUATION: &[&str] = &[
    ">>>=", ">>>", "...", "..<", "<<=", ">>=", "<=>", "===", "!==", "==~", "**=", "?.", "?:", "*.",
    "..", "=~", "==", "!=", "<=", ">=", ">>", "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=",
    "&=", "|=", "^=", "<<", "->", "::", "**", "+", "-", "*", "/", "%", "=", "<", ">", "!", "&",
    "|", "^", "~", "?", ":", ";", ",", ".", "(", ")", "[", "]", "{", "}", "@",
];

/// Splits `source` into tokens; the error names the line of a malformed literal.
pub fn tokenize(language: SourceLanguage, source: &str) -> Result<Vec<Token>, (usize, String)> {
    let mut lexer = Lexer {
        chars: source.chars().collect(),
        pos: 0,
        line: 1,
        language,
        tokens: Vec::new(),
    };
    lexer.run()?;
    Ok(lexer.tokens)
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    line: usize,
    language: SourceLanguage,
    tokens: Vec<Token>,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> char {
        self.chars.get(self.pos + ahead).copied().unwrap_or('\0')
    }

    fn starts_with(&self, text: &str) -> bool {
        text.chars().enumerate().all(|(i, c)| self.peek(i) == c)
    }

    fn bump(&mut self) -> char {
        let c = self.peek(0);
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        c
    }

    fn run(&mut self) -> Result<(), (usize, String)> {
        let mut newline_before = true;
        loop {
            newline_before |= self.skip_space_and_comments()?;
            let line = self.line;
            if self.pos >= self.chars.len() {
                self.tokens.push(Token {
                    tok: Tok::Eof,
                    line,
                    newline_before: true,
                });
                return Ok(());
            }
            let tok = self.token()?;
            self.tokens.push(Token {
                tok,
                line,
                newline_before,
            });
            newline_before = false;
        }
    }

    /// Skips blanks and comments; true when a line break was among them.
    fn skip_space_and_comments(&mut self) -> Result<bool, (usize, String)> {
        let mut newline = false;
        loop {
            let c = self.peek(0);
            if c == '\n' {
                newline = true;
                self.bump();
            } else if c.is_whitespace() {
                self.bump();
            } else if c == '\\' && self.peek(1) == '\n' {
                self.bump();
                self.bump();
            } else if self.starts_with("//") || (self.pos == 0 && self.starts_with("#!")) {
                while self.pos < self.chars.len() && self.peek(0) != '\n' {
                    self.bump();
                }
            } else if self.starts_with("/*") {
                let line = self.line;
                self.pos += 2;
                while !self.starts_with("*/") {
                    if self.pos >= self.chars.len() {
                        return Err((line, "unterminated comment".into()));
                    }
                    if self.bump() == '\n' {
                        newline = true;
                    }
                }
                self.pos += 2;
            } else {
                return Ok(newline);
            }
        }
    }

    fn token(&mut self) -> Result<Tok, (usize, String)> {
        let c = self.peek(0);
        if c.is_alphabetic() || c == '_' || c == '$' {
            let start = self.pos;
            while self.peek(0).is_alphanumeric() || self.peek(0) == '_' || self.peek(0) == '$' {
                self.bump();
            }
            return Ok(Tok::Ident(self.chars[start..self.pos].iter().collect()));
        }
        if c.is_ascii_digit() || (c == '.' && self.peek(1).is_ascii_digit()) {
            return self.number();
        }
        let groovy = self.language == SourceLanguage::Groovy;
        if self.starts_with("\"\"\"") {
            return self.string("\"\"\"", groovy);
        }
        if self.starts_with("'''") {
            return self.string("'''", false);
        }
        if c == '"' {
            return self.string("\"", groovy);
        }
        if c == '\'' {
            return self.string("'", false);
        }
        if c == '/' && self.slash_starts_regex() {
            return self.slashy();
        }
        for punct in PUNCTUATION {
            if self.starts_with(punct) {
                self.pos += punct.chars().count();
                return Ok(Tok::Punct(punct));
            }
        }
        Err((self.line, format!("unexpected character `{c}`")))
    }

    /// A `/` opens a Groovy slashy string or a JavaScript regex literal where an operand is
    /// expected, that is, not after a value.
    fn slash_starts_regex(&self) -> bool {
        if !matches!(
            self.language,
            SourceLanguage::Groovy | SourceLanguage::JavaScript
        ) || self.peek(1) == '='
        {
            return false;
        }
        match self.tokens.last().map(|t| &t.tok) {
            None => true,
            Some(Tok::Punct(p)) => !matches!(*p, ")" | "]" | "}"),
            Some(Tok::Ident(word)) => matches!(word.as_str(), "return" | "in" | "case"),
            Some(_) => false,
        }
    }

    fn number(&mut self) -> Result<Tok, (usize, String)> {
        let start = self.pos;
        if self.starts_with("0x") || self.starts_with("0X") {
            self.pos += 2;
            let digits_start = self.pos;
            while self.peek(0).is_ascii_hexdigit() || self.peek(0) == '_' {
                self.pos += 1;
            }
            let digits: String = self.chars[digits_start..self.pos]
                .iter()
                .filter(|c| **c != '_')
                .collect();
            if matches!(self.peek(0), 'L' | 'l') {
                self.pos += 1;
            }
            return i64::from_str_radix(&digits, 16)
                .map(Tok::Int)
                .map_err(|_| (self.line, "malformed hexadecimal number".into()));
        }
        let mut is_float = false;
        while self.peek(0).is_ascii_digit() || self.peek(0) == '_' {
            self.pos += 1;
        }
        if self.peek(0) == '.' && self.peek(1).is_ascii_digit() {
            is_float = true;
            self.pos += 1;
            while self.peek(0).is_ascii_digit() || self.peek(0) == '_' {
                self.pos += 1;
            }
        }
        if matches!(self.peek(0), 'e' | 'E')
            && (self.peek(1).is_ascii_digit()
                || (matches!(self.peek(1), '+' | '-') && self.peek(2).is_ascii_digit()))
        {
            is_float = true;
            self.pos += 2;
            while self.peek(0).is_ascii_digit() {
                self.pos += 1;
            }
        }
        let text: String = self.chars[start..self.pos]
            .iter()
            .filter(|c| **c != '_')
            .collect();
        match self.peek(0) {
            'd' | 'D' | 'f' | 'F' => {
                self.pos += 1;
                is_float = true;
            }
            'L' | 'l' | 'g' | 'G' | 'i' | 'I' => self.pos += 1,
            _ => {}
        }
        let malformed = || (self.line, format!("malformed number `{text}`"));
        if is_float {
            text.parse().map(Tok::Float).map_err(|_| malformed())
        } else {
            text.parse().map(Tok::Int).map_err(|_| malformed())
        }
    }

    /// Reads a quoted string; `interpolate` turns on Groovy's `${..}` and `$name`.
    fn string(&mut self, quote: &str, interpolate: bool) -> Result<Tok, (usize, String)> {
        let line = self.line;
        self.pos += quote.len();
        let mut parts = Vec::new();
        let mut text = String::new();
        loop {
            if self.pos >= self.chars.len() {
                return Err((line, "unterminated string".into()));
            }
            if self.starts_with(quote) {
                self.pos += quote.len();
                break;
            }
            let c = self.bump();
            if c == '\\' {
                self.escape(&mut text);
            } else if c == '$' && interpolate && self.interpolation(&mut parts, &mut text)? {
                continue;
            } else {
                text.push(c);
            }
        }
        Ok(finish_string(parts, text))
    }

    /// Reads `/regex/`, where only `\/` is an escape.
    fn slashy(&mut self) -> Result<Tok, (usize, String)> {
        let line = self.line;
        self.pos += 1;
        let mut parts = Vec::new();
        let mut text = String::new();
        loop {
            if self.pos >= self.chars.len() || self.peek(0) == '\n' {
                return Err((line, "unterminated slashy string".into()));
            }
            let c = self.bump();
            if c == '/' {
                break;
            }
            if c == '\\' && self.peek(0) == '/' {
                text.push(self.bump());
            } else if c == '$'
                && self.language == SourceLanguage::Groovy
                && self.interpolation(&mut parts, &mut text)?
            {
                continue;
            } else {
                text.push(c);
            }
        }
        if self.language == SourceLanguage::JavaScript {
            while self.peek(0).is_ascii_alphabetic() {
                self.bump();
            }
        }
        Ok(finish_string(parts, text))
    }

    fn escape(&mut self, text: &mut String) {
        let c = self.bump();
        match c {
            'n' => text.push('\n'),
            't' => text.push('\t'),
            'r' => text.push('\r'),
            'b' => text.push('\u{8}'),
            'f' => text.push('\u{c}'),
            '0' => text.push('\0'),
            'u' => {
                let hex: String = (0..4).map(|i| self.peek(i)).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) => {
                        self.pos += 4;
                        text.push(decoded);
                    }
                    None => text.push('u'),
                }
            }
            '\n' => {}
            other => text.push(other),
        }
    }

    /// After a `$` in a GString: reads `${code}` or `$name.name`, or returns false when
    /// the `$` is a plain character.
    fn interpolation(
        &mut self,
        parts: &mut Vec<StrPart>,
        text: &mut String,
    ) -> Result<bool, (usize, String)> {
        let line = self.line;
        if self.peek(0) == '{' {
            self.bump();
            let start = self.pos;
            let mut depth = 1;
            while depth > 0 {
                if self.pos >= self.chars.len() {
                    return Err((line, "unterminated ${..} in a string".into()));
                }
                match self.peek(0) {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    quote @ ('"' | '\'') => {
                        self.bump();
                        while self.pos < self.chars.len() && self.peek(0) != quote {
                            if self.peek(0) == '\\' {
                                self.bump();
                            }
                            self.bump();
                        }
                    }
                    _ => {}
                }
                self.bump();
            }
            let code: String = self.chars[start..self.pos - 1].iter().collect();
            parts.push(StrPart::Text(std::mem::take(text)));
            parts.push(StrPart::Code(code, line));
            return Ok(true);
        }
        if !(self.peek(0).is_alphabetic() || self.peek(0) == '_') {
            return Ok(false);
        }
        let start = self.pos;
        loop {
            while self.peek(0).is_alphanumeric() || self.peek(0) == '_' {
                self.bump();
            }
            if self.peek(0) == '.' && (self.peek(1).is_alphabetic() || self.peek(1) == '_') {
                self.bump();
            } else {
                break;
            }
        }
        let code: String = self.chars[start..self.pos].iter().collect();
        parts.push(StrPart::Text(std::mem::take(text)));
        parts.push(StrPart::Code(code, line));
        Ok(true)
    }
}

fn finish_string(mut parts: Vec<StrPart>, text: String) -> Tok {
    if parts.is_empty() {
        return Tok::Str(text);
    }
    parts.push(StrPart::Text(text));
    parts.retain(|p| !matches!(p, StrPart::Text(t) if t.is_empty()));
    Tok::Interpolated(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(language: SourceLanguage, source: &str) -> Vec<Tok> {
        tokenize(language, source)
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn gstring_parts_and_suffixes() {
        let got = toks(SourceLanguage::Groovy, "\"a${x + 1}b$name.c\" 10L 1.5d");
        assert_eq!(
            got,
            vec![
                Tok::Interpolated(vec![
                    StrPart::Text("a".into()),
                    StrPart::Code("x + 1".into(), 1),
                    StrPart::Text("b".into()),
                    StrPart::Code("name.c".into(), 1),
                ]),
                Tok::Int(10),
                Tok::Float(1.5),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn java_strings_do_not_interpolate_and_slash_divides_after_a_value() {
        assert_eq!(
            toks(SourceLanguage::Java, "\"${x}\""),
            vec![Tok::Str("${x}".into()), Tok::Eof]
        );
        assert_eq!(
            toks(SourceLanguage::Groovy, "a / b =~ /\\d+/"),
            vec![
                Tok::Ident("a".into()),
                Tok::Punct("/"),
                Tok::Ident("b".into()),
                Tok::Punct("=~"),
                Tok::Str("\\d+".into()),
                Tok::Eof
            ]
        );
    }
}
