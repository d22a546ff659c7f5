//! Statements of Groovy, Java, BeanShell and JavaScript into [`super::ast`]; expressions
//! are in [`super::parse_expr`]. Unsupported constructs (class definitions, try with
//! resources...) are recorded as problems and skipped, so that one script reports all
//! of them; a syntax error skips to the next statement.

use super::ast::{Expr, Stmt, StmtKind, SwitchCase};
use super::lexer::{Tok, Token};
use super::names::{DECLARATION_WORDS, PRIMITIVES};
use super::{SourceLanguage, Untranslatable};

pub struct Parser {
    pub(super) tokens: Vec<Token>,
    pub(super) pos: usize,
    pub(super) language: SourceLanguage,
    /// Whether a line break ends the current expression: true in Groovy statement
    /// context, false inside parentheses and brackets.
    pub(super) newline_ends: Vec<bool>,
    pub problems: Vec<Untranslatable>,
    /// Names the script declares (variables, parameters): a capitalised one is then a
    /// variable, not a class.
    pub(super) declared: std::collections::HashSet<String>,
    /// How many statements and expressions enclose the one being parsed.
    depth: usize,
}

/// How deeply statements and expressions may nest. Scripts people write nest a few dozen
/// levels at most; the bound keeps a hostile script from exhausting the stack of the
/// thread that translates it (a runtime worker's stack is 2 MiB).
pub const MAX_NESTING: usize = 200;

/// A syntax error: the line and what was expected.
pub(super) type ParseResult<T> = Result<T, (usize, String)>;

const MODIFIERS: &[&str] = &[
    "final",
    "static",
    "private",
    "public",
    "protected",
    "synchronized",
    "transient",
    "volatile",
];

impl Parser {
    pub fn new(language: SourceLanguage, tokens: Vec<Token>) -> Parser {
        Parser {
            tokens,
            pos: 0,
            language,
            newline_ends: vec![language == SourceLanguage::Groovy],
            problems: Vec::new(),
            declared: std::collections::HashSet::new(),
            depth: 0,
        }
    }

    /// Parses one nested level, refusing to go deeper than [`MAX_NESTING`].
    pub(super) fn nested<T>(
        &mut self,
        level: impl FnOnce(&mut Self) -> ParseResult<T>,
    ) -> ParseResult<T> {
        if self.depth >= MAX_NESTING {
            return Err((
                self.line(),
                format!("nested deeper than {MAX_NESTING} levels"),
            ));
        }
        self.depth += 1;
        let parsed = level(self);
        self.depth -= 1;
        parsed
    }

    pub fn script(&mut self) -> Vec<Stmt> {
        let mut statements = Vec::new();
        while !self.at_eof() {
            if self.is_punct("}") {
                let line = self.line();
                self.problem(line, "unbalanced `}`".into());
                self.pos += 1;
                continue;
            }
            statements.push(self.statement_or_recover());
        }
        statements
    }

    // ---- token helpers ----

    pub(super) fn peek_at(&self, offset: usize) -> &Tok {
        let index = (self.pos + offset).min(self.tokens.len() - 1);
        &self.tokens[index].tok
    }

    pub(super) fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    pub(super) fn line(&self) -> usize {
        self.tokens[self.pos.min(self.tokens.len() - 1)].line
    }

    pub(super) fn newline_before(&self) -> bool {
        self.tokens[self.pos.min(self.tokens.len() - 1)].newline_before
    }

    pub(super) fn at_eof(&self) -> bool {
        matches!(self.peek(), Tok::Eof)
    }

    pub(super) fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    pub(super) fn is_punct_at(&self, offset: usize, p: &str) -> bool {
        matches!(self.peek_at(offset), Tok::Punct(q) if *q == p)
    }

    pub(super) fn is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Tok::Ident(w) if w == word)
    }

    pub(super) fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn eat_word(&mut self, word: &str) -> bool {
        if self.is_word(word) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn expect_punct(&mut self, p: &str) -> ParseResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            Err((self.line(), format!("expected `{p}`")))
        }
    }

    pub(super) fn ident(&mut self) -> ParseResult<String> {
        match self.peek().clone() {
            Tok::Ident(name) => {
                self.pos += 1;
                Ok(name)
            }
            _ => Err((self.line(), "expected a name".into())),
        }
    }

    pub(super) fn problem(&mut self, line: usize, construct: String) {
        self.problems.push(Untranslatable { line, construct });
    }

    /// Whether the current token ends a Groovy statement by starting a new line.
    pub(super) fn ends_at_newline(&self) -> bool {
        self.newline_ends.last().copied().unwrap_or(false) && self.newline_before()
    }

    // ---- statements ----

    fn statement_or_recover(&mut self) -> Stmt {
        let line = self.line();
        let start = self.pos;
        match self.statement() {
            Ok(statement) => statement,
            Err((error_line, message)) => {
                self.problem(error_line, format!("syntax not understood ({message})"));
                self.pos = self.pos.max(start + 1).min(self.tokens.len() - 1);
                self.skip_to_statement_end();
                Stmt {
                    line,
                    kind: StmtKind::Empty,
                }
            }
        }
    }

    /// Skips balanced tokens to the end of the statement (a `;`, a line break in Groovy,
    /// or the `}` that closes the enclosing block, which is left in place).
    fn skip_to_statement_end(&mut self) {
        let mut depth = 0usize;
        while !self.at_eof() {
            if depth == 0 && (self.is_punct("}") || self.ends_at_newline()) {
                return;
            }
            match self.peek() {
                Tok::Punct("(" | "[" | "{") => depth += 1,
                Tok::Punct(")" | "]" | "}") => depth = depth.saturating_sub(1),
                Tok::Punct(";") if depth == 0 => {
                    self.pos += 1;
                    return;
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Skips a balanced `{ .. }` starting at the current token (or up to the end).
    fn skip_braced(&mut self) {
        let mut depth = 0usize;
        while !self.at_eof() {
            match self.peek() {
                Tok::Punct("{") => depth += 1,
                Tok::Punct("}") => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.pos += 1;
                        return;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    pub(super) fn block(&mut self) -> ParseResult<Vec<Stmt>> {
        self.expect_punct("{")?;
        self.newline_ends
            .push(self.language == SourceLanguage::Groovy);
        let mut statements = Vec::new();
        while !self.is_punct("}") {
            if self.at_eof() {
                self.newline_ends.pop();
                return Err((self.line(), "missing `}`".into()));
            }
            statements.push(self.statement_or_recover());
        }
        self.pos += 1;
        self.newline_ends.pop();
        Ok(statements)
    }

    /// A block, or a single statement where Java allows one (`if (x) y = 1;`).
    fn body(&mut self) -> ParseResult<Vec<Stmt>> {
        if self.is_punct("{") {
            self.block()
        } else {
            Ok(vec![self.statement()?])
        }
    }

    fn end_statement(&mut self) -> ParseResult<()> {
        if self.eat_punct(";") || self.is_punct("}") || self.at_eof() || self.newline_before() {
            Ok(())
        } else {
            Err((self.line(), "expected the end of the statement".into()))
        }
    }

    pub(super) fn statement(&mut self) -> ParseResult<Stmt> {
        let line = self.line();
        let kind = self.nested(Self::statement_kind)?;
        Ok(Stmt { line, kind })
    }

    fn statement_kind(&mut self) -> ParseResult<StmtKind> {
        let line = self.line();
        if self.eat_punct(";") {
            return Ok(StmtKind::Empty);
        }
        if self.is_punct("{") {
            return Ok(StmtKind::Block(self.block()?));
        }
        if self.is_punct("@") {
            self.skip_annotation()?;
            return Ok(StmtKind::Empty);
        }
        let Tok::Ident(word) = self.peek().clone() else {
            return self.expression_statement();
        };
        if self.is_punct_at(1, ":") && !self.is_word("default") {
            self.pos += 2;
            return Ok(StmtKind::Empty);
        }
        match word.as_str() {
            "if" => self.if_statement(),
            "while" => {
                self.pos += 1;
                let condition = self.paren_expression()?;
                let body = self.body()?;
                Ok(StmtKind::While { condition, body })
            }
            "do" => {
                self.pos += 1;
                let body = self.body()?;
                if !self.eat_word("while") {
                    return Err((self.line(), "expected `while` after `do`".into()));
                }
                let condition = self.paren_expression()?;
                self.end_statement()?;
                Ok(StmtKind::DoWhile { body, condition })
            }
            "for" => self.for_statement(),
            "switch" => self.switch_statement(),
            "try" => self.try_statement(),
            "break" | "continue" => {
                self.pos += 1;
                if matches!(self.peek(), Tok::Ident(_)) && !self.newline_before() {
                    self.problem(line, format!("labelled `{word}`"));
                    self.pos += 1;
                }
                self.end_statement()?;
                Ok(if word == "break" {
                    StmtKind::Break
                } else {
                    StmtKind::Continue
                })
            }
            "return" => {
                self.pos += 1;
                let value = if self.eat_punct(";")
                    || self.is_punct("}")
                    || self.at_eof()
                    || self.newline_before()
                {
                    None
                } else {
                    let value = self.expression()?;
                    self.end_statement()?;
                    Some(value)
                };
                Ok(StmtKind::Return(value))
            }
            "throw" => {
                self.pos += 1;
                let value = self.expression()?;
                self.end_statement()?;
                Ok(StmtKind::Throw(value))
            }
            "assert" => {
                self.pos += 1;
                let condition = self.expression()?;
                let message = if self.eat_punct(":") || self.eat_punct(",") {
                    self.expression()?
                } else {
                    Expr::Str("assertion failed".into())
                };
                self.end_statement()?;
                Ok(StmtKind::If {
                    condition: Expr::Unary("!", Box::new(condition)),
                    then: vec![Stmt {
                        line,
                        kind: StmtKind::Throw(message),
                    }],
                    otherwise: None,
                })
            }
            "import" | "package" => {
                while !self.at_eof() && !self.eat_punct(";") {
                    self.pos += 1;
                    if self.newline_before() {
                        break;
                    }
                }
                Ok(StmtKind::Empty)
            }
            "class" | "interface" | "enum" | "trait" => {
                self.problem(line, format!("{word} definition"));
                self.skip_braced();
                Ok(StmtKind::Empty)
            }
            "synchronized" if self.is_punct_at(1, "(") => {
                self.pos += 1;
                self.paren_expression()?;
                Ok(StmtKind::Block(self.block()?))
            }
            "function" if self.language == SourceLanguage::JavaScript => {
                self.pos += 1;
                let name = self.ident()?;
                let params = self.parameters()?;
                let body = self.block()?;
                Ok(StmtKind::Function { name, params, body })
            }
            _ => self.declaration_or_expression(),
        }
    }

    fn skip_annotation(&mut self) -> ParseResult<()> {
        self.expect_punct("@")?;
        self.ident()?;
        while self.eat_punct(".") {
            self.ident()?;
        }
        if self.is_punct("(") {
            self.skip_parens();
        }
        Ok(())
    }

    pub(super) fn skip_parens(&mut self) {
        let mut depth = 0usize;
        while !self.at_eof() {
            match self.peek() {
                Tok::Punct("(") => depth += 1,
                Tok::Punct(")") => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.pos += 1;
                        return;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    fn if_statement(&mut self) -> ParseResult<StmtKind> {
        self.pos += 1;
        let condition = self.paren_expression()?;
        let then = self.body()?;
        let save = self.pos;
        self.eat_punct(";");
        let otherwise = if self.eat_word("else") {
            Some(self.body()?)
        } else {
            self.pos = save;
            None
        };
        Ok(StmtKind::If {
            condition,
            then,
            otherwise,
        })
    }

    pub(super) fn paren_expression(&mut self) -> ParseResult<Expr> {
        self.expect_punct("(")?;
        self.newline_ends.push(false);
        let value = self.expression();
        self.newline_ends.pop();
        let value = value?;
        self.expect_punct(")")?;
        Ok(value)
    }

    fn for_statement(&mut self) -> ParseResult<StmtKind> {
        let line = self.line();
        self.pos += 1;
        self.eat_word("each");
        self.expect_punct("(")?;
        self.newline_ends.push(false);
        let header = self.for_header(line);
        self.newline_ends.pop();
        let header = header?;
        let body = self.body()?;
        Ok(match header {
            ForHeader::In(name, iterable) => StmtKind::ForIn {
                name,
                iterable,
                body,
            },
            ForHeader::Counted(init, condition, update) => StmtKind::For {
                init,
                condition,
                update,
                body,
            },
        })
    }

    fn for_header(&mut self, line: usize) -> ParseResult<ForHeader> {
        if !self.header_has_semicolon() {
            while matches!(self.peek(), Tok::Ident(w) if MODIFIERS.contains(&w.as_str()) || DECLARATION_WORDS.contains(&w.as_str()))
            {
                self.pos += 1;
            }
            if let Some(after_type) = self.type_end(self.pos) {
                if matches!(self.tokens[after_type].tok, Tok::Ident(_)) {
                    self.pos = after_type;
                }
            }
            let name = self.ident()?;
            self.declared.insert(name.clone());
            if !(self.eat_punct(":") || self.eat_word("in") || self.eat_word("of")) {
                return Err((self.line(), "expected `:` or `in` in `for`".into()));
            }
            let iterable = self.expression()?;
            self.expect_punct(")")?;
            return Ok(ForHeader::In(name, iterable));
        }
        let mut init = Vec::new();
        if !self.is_punct(";") {
            let kind = self.declaration_or_expression_list()?;
            init.push(Stmt { line, kind });
        }
        self.expect_punct(";")?;
        let condition = if self.is_punct(";") {
            None
        } else {
            Some(self.expression()?)
        };
        self.expect_punct(";")?;
        let mut update = Vec::new();
        while !self.is_punct(")") {
            update.push(self.expression()?);
            if !self.eat_punct(",") {
                break;
            }
        }
        self.expect_punct(")")?;
        Ok(ForHeader::Counted(init, condition, update))
    }

    /// Whether the `for (..)` header being read is C-style.
    fn header_has_semicolon(&self) -> bool {
        let mut depth = 0usize;
        for token in &self.tokens[self.pos..] {
            match token.tok {
                Tok::Punct("(" | "[" | "{") => depth += 1,
                Tok::Punct(")" | "]" | "}") => {
                    if depth == 0 {
                        return false;
                    }
                    depth -= 1;
                }
                Tok::Punct(";") if depth == 0 => return true,
                Tok::Eof => return false,
                _ => {}
            }
        }
        false
    }

    fn switch_statement(&mut self) -> ParseResult<StmtKind> {
        self.pos += 1;
        let subject = self.paren_expression()?;
        self.expect_punct("{")?;
        self.newline_ends
            .push(self.language == SourceLanguage::Groovy);
        let mut cases: Vec<SwitchCase> = Vec::new();
        while !self.eat_punct("}") {
            if self.at_eof() {
                return Err((self.line(), "missing `}` after `switch`".into()));
            }
            if self.eat_word("case") {
                self.newline_ends.push(false);
                let label = self.expression();
                self.newline_ends.pop();
                let label = label?;
                self.expect_punct(":")?;
                cases.push(SwitchCase {
                    labels: vec![label],
                    is_default: false,
                    body: Vec::new(),
                });
            } else if self.eat_word("default") {
                self.expect_punct(":")?;
                cases.push(SwitchCase {
                    labels: Vec::new(),
                    is_default: true,
                    body: Vec::new(),
                });
            } else {
                let statement = self.statement_or_recover();
                match cases.last_mut() {
                    Some(case) => case.body.push(statement),
                    None => return Err((statement.line, "statement before `case`".into())),
                }
            }
        }
        self.newline_ends.pop();
        Ok(StmtKind::Switch { subject, cases })
    }

    fn try_statement(&mut self) -> ParseResult<StmtKind> {
        let line = self.line();
        self.pos += 1;
        if self.is_punct("(") {
            self.problem(line, "try with resources".into());
            self.skip_parens();
        }
        let body = self.block()?;
        let mut catch = None;
        while self.eat_word("catch") {
            self.expect_punct("(")?;
            let mut name = String::new();
            while !self.eat_punct(")") {
                match self.peek().clone() {
                    Tok::Ident(word) => name = word,
                    Tok::Eof => return Err((self.line(), "missing `)` after `catch`".into())),
                    _ => {}
                }
                self.pos += 1;
            }
            let handler = self.block()?;
            // Java orders catch clauses from specific to general: the last one is the
            // handler that a single Rhai `catch` can stand for.
            catch = Some((name, handler));
        }
        let finally = if self.eat_word("finally") {
            self.block()?
        } else {
            Vec::new()
        };
        Ok(StmtKind::Try {
            body,
            catch,
            finally,
        })
    }

    /// `(Type a, b = 1, Type... c)` of a method or closure.
    pub(super) fn parameters(&mut self) -> ParseResult<Vec<String>> {
        self.expect_punct("(")?;
        let mut params = Vec::new();
        while !self.eat_punct(")") {
            while matches!(self.peek(), Tok::Ident(w) if w == "final" || w == "def") {
                self.pos += 1;
            }
            if let Some(after) = self.type_end(self.pos) {
                if matches!(self.tokens[after].tok, Tok::Ident(_))
                    || matches!(self.tokens[after].tok, Tok::Punct("..."))
                {
                    self.pos = after;
                }
            }
            self.eat_punct("...");
            let name = self.ident()?;
            self.declared.insert(name.clone());
            params.push(name);
            if self.eat_punct("=") {
                let line = self.line();
                self.problem(line, "default parameter value".into());
                self.expression()?;
            }
            if !self.eat_punct(",") && !self.is_punct(")") {
                return Err((self.line(), "expected `,` or `)` in parameters".into()));
            }
        }
        Ok(params)
    }

    /// If a type starts at `start` (`int`, `String[]`, `java.util.List<Map<String, X>>`),
    /// the index just after it.
    pub(super) fn type_end(&self, start: usize) -> Option<usize> {
        let tok = |i: usize| &self.tokens[i.min(self.tokens.len() - 1)].tok;
        let Tok::Ident(first) = tok(start) else {
            return None;
        };
        let mut i = start + 1;
        let mut last = first.clone();
        while matches!(tok(i), Tok::Punct(".")) {
            let Tok::Ident(next) = tok(i + 1) else {
                return None;
            };
            last = next.clone();
            i += 2;
        }
        let is_type = PRIMITIVES.contains(&first.as_str())
            || last.chars().next().is_some_and(|c| c.is_ascii_uppercase());
        if !is_type {
            return None;
        }
        if matches!(tok(i), Tok::Punct("<")) {
            let mut depth = 0i32;
            loop {
                match tok(i) {
                    Tok::Punct("<") => depth += 1,
                    Tok::Punct(">") => depth -= 1,
                    Tok::Punct(">>") => depth -= 2,
                    Tok::Punct(">>>") => depth -= 3,
                    Tok::Ident(_) | Tok::Punct("," | "." | "?" | "[" | "]" | "&") => {}
                    _ => return None,
                }
                i += 1;
                if depth <= 0 {
                    break;
                }
            }
            if depth < 0 {
                return None;
            }
        }
        while matches!(tok(i), Tok::Punct("[")) && matches!(tok(i + 1), Tok::Punct("]")) {
            i += 2;
        }
        Some(i)
    }

    fn declaration_or_expression(&mut self) -> ParseResult<StmtKind> {
        let kind = self.declaration_or_expression_list()?;
        if let StmtKind::Function { .. } = kind {
            return Ok(kind);
        }
        self.end_statement()?;
        Ok(kind)
    }

    /// A declaration (`int a = 1, b`, `def x`, `final String s = ..`), a method
    /// definition, or an expression statement.
    fn declaration_or_expression_list(&mut self) -> ParseResult<StmtKind> {
        let start = self.pos;
        let mut declared = false;
        while let Tok::Ident(word) = self.peek() {
            if MODIFIERS.contains(&word.as_str()) || DECLARATION_WORDS.contains(&word.as_str()) {
                declared = true;
                self.pos += 1;
            } else {
                break;
            }
        }
        if let Some(after_type) = self.type_end(self.pos) {
            if matches!(self.tokens[after_type].tok, Tok::Ident(_))
                && self.declaration_follows(after_type + 1)
            {
                self.pos = after_type;
                declared = true;
            }
        }
        if !declared {
            self.pos = start;
            if self.language == SourceLanguage::BeanShell
                && matches!(self.peek(), Tok::Ident(_))
                && self.is_punct_at(1, "(")
                && self.untyped_method_follows()
            {
                return self.function();
            }
            return self.expression_statement_kind();
        }
        if matches!(self.peek(), Tok::Ident(_)) && self.is_punct_at(1, "(") {
            return self.function();
        }
        let mut names = Vec::new();
        loop {
            let name = self.ident()?;
            self.declared.insert(name.clone());
            while self.is_punct("[") && self.is_punct_at(1, "]") {
                self.pos += 2;
            }
            let value = if self.eat_punct("=") {
                Some(self.expression()?)
            } else {
                let primitive = PRIMITIVES.iter().any(|p| {
                    self.tokens[start..self.pos]
                        .iter()
                        .any(|t| t.tok == Tok::Ident(p.to_string()))
                });
                primitive.then(|| self.primitive_default(start))
            };
            names.push((name, value));
            if !self.eat_punct(",") {
                break;
            }
        }
        Ok(StmtKind::Let(names))
    }

    /// Java's default value of a primitive declared without one.
    fn primitive_default(&self, start: usize) -> Expr {
        let words: Vec<&Tok> = self.tokens[start..self.pos]
            .iter()
            .map(|t| &t.tok)
            .collect();
        let has = |w: &str| words.contains(&&Tok::Ident(w.to_string()));
        if has("boolean") {
            Expr::Bool(false)
        } else if has("double") || has("float") {
            Expr::Float(0.0)
        } else {
            Expr::Int(0)
        }
    }

    /// After `Type name`: a declaration continues with `=`, `,`, `;`, `[]`, a line break,
    /// or (a method) `(`.
    fn declaration_follows(&self, index: usize) -> bool {
        let token = &self.tokens[index.min(self.tokens.len() - 1)];
        token.newline_before
            || matches!(
                token.tok,
                Tok::Punct("=" | "," | ";" | "(" | "[" | "}" | ":") | Tok::Eof
            )
            || matches!(&token.tok, Tok::Ident(w) if w == "in")
    }

    /// BeanShell's `name(a, b) {`: a loosely typed method definition.
    fn untyped_method_follows(&self) -> bool {
        let mut i = self.pos + 2;
        loop {
            match &self.tokens[i.min(self.tokens.len() - 1)].tok {
                Tok::Ident(_) | Tok::Punct(",") => i += 1,
                Tok::Punct(")") => {
                    return matches!(
                        self.tokens[(i + 1).min(self.tokens.len() - 1)].tok,
                        Tok::Punct("{")
                    )
                }
                _ => return false,
            }
        }
    }

    fn function(&mut self) -> ParseResult<StmtKind> {
        let name = self.ident()?;
        let params = self.parameters()?;
        if self.eat_word("throws") {
            while !self.is_punct("{") && !self.at_eof() {
                self.pos += 1;
            }
        }
        let body = self.block()?;
        Ok(StmtKind::Function { name, params, body })
    }

    fn expression_statement(&mut self) -> ParseResult<StmtKind> {
        let kind = self.expression_statement_kind()?;
        self.end_statement()?;
        Ok(kind)
    }

    fn expression_statement_kind(&mut self) -> ParseResult<StmtKind> {
        if let Some(command) = self.command_call()? {
            return Ok(StmtKind::Expr(command));
        }
        Ok(StmtKind::Expr(self.expression()?))
    }
}

enum ForHeader {
    In(String, Expr),
    Counted(Vec<Stmt>, Option<Expr>, Vec<Expr>),
}
