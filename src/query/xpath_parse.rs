//! XPath expressions parsed into a syntax tree ([`Expr`]) once, at plan time; the
//! evaluator is [`super::xpath`].
//!
//! The grammar is XPath 1.0 (with its token disambiguation rules: `*` and `and`/`or`/
//! `div`/`mod` are operators only after an operand). [`Version::Two`] adds the parts of
//! XPath 2.0 plans use: sequences `(a, b)`, value comparisons (`eq`, `ne`, `lt`, ...),
//! `if (..) then .. else ..`, `idiv`, and a function call as the last step of a path
//! (`//a/string()`). Anything else is rejected with a message naming the construct.

use super::xpath_lexer::{tokenize, Token};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    One,
    Two,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    IntDiv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    Child,
    Descendant,
    DescendantOrSelf,
    Parent,
    Ancestor,
    AncestorOrSelf,
    FollowingSibling,
    PrecedingSibling,
    Following,
    Preceding,
    Attribute,
    SelfNode,
}

impl Axis {
    fn named(name: &str) -> Option<Axis> {
        Some(match name {
            "child" => Axis::Child,
            "descendant" => Axis::Descendant,
            "descendant-or-self" => Axis::DescendantOrSelf,
            "parent" => Axis::Parent,
            "ancestor" => Axis::Ancestor,
            "ancestor-or-self" => Axis::AncestorOrSelf,
            "following-sibling" => Axis::FollowingSibling,
            "preceding-sibling" => Axis::PrecedingSibling,
            "following" => Axis::Following,
            "preceding" => Axis::Preceding,
            "attribute" => Axis::Attribute,
            "self" => Axis::SelfNode,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeTest {
    /// `prefix:local` or `local`; the prefix `*` stands for any namespace.
    Name {
        prefix: Option<String>,
        local: String,
    },
    /// `*` or `prefix:*`.
    Any {
        prefix: Option<String>,
    },
    Node,
    Text,
    Comment,
    ProcessingInstruction(Option<String>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Axis {
        axis: Axis,
        test: NodeTest,
        predicates: Vec<Expr>,
    },
    /// XPath 2: a function applied to each node (`//a/string()`).
    Call(Box<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Or(Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    /// General comparison (`=`, `<`, ...): existential over node-sets.
    Compare(CompareOp, Box<Expr>, Box<Expr>),
    /// XPath 2 value comparison (`eq`, `lt`, ...).
    ValueCompare(CompareOp, Box<Expr>, Box<Expr>),
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    Negate(Box<Expr>),
    Union(Box<Expr>, Box<Expr>),
    /// A location path; `absolute` starts at the document root.
    Path {
        absolute: bool,
        steps: Vec<Step>,
    },
    /// A primary expression, its predicates, then a relative path.
    Filter {
        primary: Box<Expr>,
        predicates: Vec<Expr>,
        steps: Vec<Step>,
    },
    Literal(String),
    Number(f64),
    Variable(String),
    Call(String, Vec<Expr>),
    Sequence(Vec<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
}

/// Parses `text` as an XPath expression of `version`.
pub fn parse(text: &str, version: Version) -> Result<Expr, String> {
    let tokens = tokenize(text, version)?;
    if tokens.is_empty() {
        return Err("the expression is empty".into());
    }
    let mut parser = Parser {
        tokens,
        pos: 0,
        version,
    };
    let expr = parser.expr()?;
    match parser.peek() {
        None => Ok(expr),
        Some(token) => Err(format!(
            "unexpected {} after the expression",
            describe(token)
        )),
    }
}

fn describe(token: &Token) -> String {
    match token {
        Token::Punct(p) => format!("'{p}'"),
        Token::Literal(l) => format!("literal {l:?}"),
        Token::Number(n) => format!("number {n}"),
        Token::Name(n) | Token::Operator(n) => format!("'{n}'"),
        Token::Variable(v) => format!("'${v}'"),
    }
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    version: Version,
}

type Parsed = Result<Expr, String>;

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_at(&self, offset: usize) -> Option<&Token> {
        self.tokens.get(self.pos + offset)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        token
    }

    fn eat_punct(&mut self, punct: &str) -> bool {
        if matches!(self.peek(), Some(Token::Punct(p)) if *p == punct) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn eat_operator(&mut self, name: &str) -> bool {
        if matches!(self.peek(), Some(Token::Operator(o)) if o == name) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, punct: &str) -> Result<(), String> {
        if self.eat_punct(punct) {
            return Ok(());
        }
        Err(match self.peek() {
            Some(token) => format!("expected '{punct}' but found {}", describe(token)),
            None => format!("expected '{punct}' at the end of the expression"),
        })
    }

    /// `Expr`: in XPath 2 a comma-separated sequence.
    fn expr(&mut self) -> Parsed {
        let first = self.or()?;
        if self.version == Version::Two && matches!(self.peek(), Some(Token::Punct(","))) {
            let mut items = vec![first];
            while self.eat_punct(",") {
                items.push(self.or()?);
            }
            return Ok(Expr::Sequence(items));
        }
        Ok(first)
    }

    fn or(&mut self) -> Parsed {
        if self.version == Version::Two {
            if let Some(Token::Name(n)) = self.peek() {
                if matches!(n.as_str(), "for" | "some" | "every" | "let")
                    && matches!(self.peek_at(1), Some(Token::Variable(_)))
                {
                    return Err(format!("XPath 2 '{n}' expressions are not supported"));
                }
                if n == "if" && matches!(self.peek_at(1), Some(Token::Punct("("))) {
                    return self.conditional();
                }
            }
        }
        let mut left = self.and()?;
        while self.eat_operator("or") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn conditional(&mut self) -> Parsed {
        self.pos += 2;
        let condition = self.expr()?;
        self.expect_punct(")")?;
        if !self.eat_operator("then") {
            return Err("expected 'then' in an if expression".into());
        }
        let then = self.or()?;
        if !self.eat_operator("else") {
            return Err("expected 'else' in an if expression".into());
        }
        let otherwise = self.or()?;
        Ok(Expr::If(
            Box::new(condition),
            Box::new(then),
            Box::new(otherwise),
        ))
    }

    fn and(&mut self) -> Parsed {
        let mut left = self.equality()?;
        while self.eat_operator("and") {
            left = Expr::And(Box::new(left), Box::new(self.equality()?));
        }
        Ok(left)
    }

    fn equality(&mut self) -> Parsed {
        let mut left = self.relational()?;
        loop {
            let op = if self.eat_punct("=") {
                CompareOp::Eq
            } else if self.eat_punct("!=") {
                CompareOp::Ne
            } else if let Some(op) = self.value_comparison() {
                let right = self.relational()?;
                left = Expr::ValueCompare(op, Box::new(left), Box::new(right));
                continue;
            } else {
                return Ok(left);
            };
            left = Expr::Compare(op, Box::new(left), Box::new(self.relational()?));
        }
    }

    fn value_comparison(&mut self) -> Option<CompareOp> {
        let Some(Token::Operator(name)) = self.peek() else {
            return None;
        };
        let op = match name.as_str() {
            "eq" => CompareOp::Eq,
            "ne" => CompareOp::Ne,
            "lt" => CompareOp::Lt,
            "le" => CompareOp::Le,
            "gt" => CompareOp::Gt,
            "ge" => CompareOp::Ge,
            _ => return None,
        };
        self.pos += 1;
        Some(op)
    }

    fn relational(&mut self) -> Parsed {
        let mut left = self.additive()?;
        loop {
            let op = if self.eat_punct("<") {
                CompareOp::Lt
            } else if self.eat_punct("<=") {
                CompareOp::Le
            } else if self.eat_punct(">") {
                CompareOp::Gt
            } else if self.eat_punct(">=") {
                CompareOp::Ge
            } else {
                return Ok(left);
            };
            left = Expr::Compare(op, Box::new(left), Box::new(self.additive()?));
        }
    }

    fn additive(&mut self) -> Parsed {
        let mut left = self.multiplicative()?;
        loop {
            let op = if self.eat_punct("+") {
                ArithOp::Add
            } else if self.eat_punct("-") {
                ArithOp::Sub
            } else {
                return Ok(left);
            };
            left = Expr::Arith(op, Box::new(left), Box::new(self.multiplicative()?));
        }
    }

    fn multiplicative(&mut self) -> Parsed {
        let mut left = self.unary()?;
        loop {
            let op = if self.eat_operator("*") {
                ArithOp::Mul
            } else if self.eat_operator("div") {
                ArithOp::Div
            } else if self.eat_operator("mod") {
                ArithOp::Mod
            } else if self.eat_operator("idiv") {
                ArithOp::IntDiv
            } else {
                return Ok(left);
            };
            left = Expr::Arith(op, Box::new(left), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Parsed {
        if self.eat_punct("-") {
            return Ok(Expr::Negate(Box::new(self.unary()?)));
        }
        let mut left = self.path()?;
        while self.eat_punct("|") {
            left = Expr::Union(Box::new(left), Box::new(self.path()?));
        }
        Ok(left)
    }

    fn path(&mut self) -> Parsed {
        match self.peek() {
            Some(Token::Punct("/")) => {
                self.pos += 1;
                let steps = if self.starts_step() {
                    self.relative_steps()?
                } else {
                    Vec::new()
                };
                Ok(Expr::Path {
                    absolute: true,
                    steps,
                })
            }
            Some(Token::Punct("//")) => {
                self.pos += 1;
                let mut steps = vec![descendant_or_self()];
                steps.extend(self.relative_steps()?);
                Ok(Expr::Path {
                    absolute: true,
                    steps,
                })
            }
            _ if self.starts_primary() => {
                let primary = self.primary()?;
                let predicates = self.predicates()?;
                let mut steps = Vec::new();
                if self.eat_punct("/") {
                    steps = self.relative_steps()?;
                } else if self.eat_punct("//") {
                    steps.push(descendant_or_self());
                    steps.extend(self.relative_steps()?);
                }
                if predicates.is_empty() && steps.is_empty() {
                    return Ok(primary);
                }
                Ok(Expr::Filter {
                    primary: Box::new(primary),
                    predicates,
                    steps,
                })
            }
            _ => Ok(Expr::Path {
                absolute: false,
                steps: self.relative_steps()?,
            }),
        }
    }

    fn starts_step(&self) -> bool {
        matches!(
            self.peek(),
            Some(Token::Name(_))
                | Some(Token::Punct("."))
                | Some(Token::Punct(".."))
                | Some(Token::Punct("@"))
        )
    }

    /// A primary expression starts here (not a step): a literal, number, variable,
    /// parenthesis, or a name followed by `(` that is not a node-type test.
    fn starts_primary(&self) -> bool {
        match self.peek() {
            Some(Token::Literal(_)) | Some(Token::Number(_)) | Some(Token::Variable(_)) => true,
            Some(Token::Punct("(")) => true,
            Some(Token::Name(name)) => {
                matches!(self.peek_at(1), Some(Token::Punct("("))) && !is_node_type(name)
            }
            _ => false,
        }
    }

    fn primary(&mut self) -> Parsed {
        match self.next() {
            Some(Token::Literal(text)) => Ok(Expr::Literal(text)),
            Some(Token::Number(n)) => Ok(Expr::Number(n)),
            Some(Token::Variable(name)) => Ok(Expr::Variable(name)),
            Some(Token::Punct("(")) => {
                if self.version == Version::Two && self.eat_punct(")") {
                    return Ok(Expr::Sequence(Vec::new()));
                }
                let inner = self.expr()?;
                self.expect_punct(")")?;
                Ok(inner)
            }
            Some(Token::Name(name)) => {
                self.pos += 1;
                let mut args = Vec::new();
                if !self.eat_punct(")") {
                    loop {
                        args.push(self.or()?);
                        if self.eat_punct(")") {
                            break;
                        }
                        self.expect_punct(",")?;
                    }
                }
                Ok(Expr::Call(name, args))
            }
            Some(token) => Err(format!("unexpected {}", describe(&token))),
            None => Err("the expression ends too early".into()),
        }
    }

    fn predicates(&mut self) -> Result<Vec<Expr>, String> {
        let mut out = Vec::new();
        while self.eat_punct("[") {
            out.push(self.expr()?);
            self.expect_punct("]")?;
        }
        Ok(out)
    }

    fn relative_steps(&mut self) -> Result<Vec<Step>, String> {
        let mut steps = vec![self.step()?];
        loop {
            if self.eat_punct("/") {
                steps.push(self.step()?);
            } else if self.eat_punct("//") {
                steps.push(descendant_or_self());
                steps.push(self.step()?);
            } else {
                return Ok(steps);
            }
        }
    }

    fn step(&mut self) -> Result<Step, String> {
        if self.eat_punct(".") {
            return Ok(Step::Axis {
                axis: Axis::SelfNode,
                test: NodeTest::Node,
                predicates: Vec::new(),
            });
        }
        if self.eat_punct("..") {
            return Ok(Step::Axis {
                axis: Axis::Parent,
                test: NodeTest::Node,
                predicates: Vec::new(),
            });
        }
        if self.version == Version::Two && self.starts_primary() {
            return Ok(Step::Call(Box::new(self.primary()?)));
        }
        let axis = if self.eat_punct("@") {
            Axis::Attribute
        } else if let (Some(Token::Name(name)), Some(Token::Punct("::"))) =
            (self.peek(), self.peek_at(1))
        {
            let name = name.clone();
            self.pos += 2;
            if name == "namespace" {
                return Err("the namespace axis is not supported".into());
            }
            Axis::named(&name).ok_or_else(|| format!("unknown axis '{name}'"))?
        } else {
            Axis::Child
        };
        let test = self.node_test()?;
        let predicates = self.predicates()?;
        Ok(Step::Axis {
            axis,
            test,
            predicates,
        })
    }

    fn node_test(&mut self) -> Result<NodeTest, String> {
        let name = match self.next() {
            Some(Token::Name(name)) => name,
            Some(token) => {
                return Err(format!(
                    "a location step was expected, but found {}",
                    describe(&token)
                ))
            }
            None => return Err("a location step was expected at the end".into()),
        };
        if is_node_type(&name) && self.eat_punct("(") {
            let test = match name.as_str() {
                "node" => NodeTest::Node,
                "text" => NodeTest::Text,
                "comment" => NodeTest::Comment,
                _ => match self.peek() {
                    Some(Token::Literal(target)) => {
                        let target = target.clone();
                        self.pos += 1;
                        NodeTest::ProcessingInstruction(Some(target))
                    }
                    _ => NodeTest::ProcessingInstruction(None),
                },
            };
            self.expect_punct(")")?;
            return Ok(test);
        }
        let (prefix, local) = match name.split_once(':') {
            Some((p, l)) => (Some(p.to_string()), l.to_string()),
            None => (None, name),
        };
        Ok(if local == "*" {
            NodeTest::Any { prefix }
        } else {
            NodeTest::Name { prefix, local }
        })
    }
}

fn is_node_type(name: &str) -> bool {
    matches!(name, "node" | "text" | "comment" | "processing-instruction")
}

fn descendant_or_self() -> Step {
    Step::Axis {
        axis: Axis::DescendantOrSelf,
        test: NodeTest::Node,
        predicates: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Expr {
        parse(text, Version::One).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn parses_paths_operators_and_disambiguates_star() {
        ok("//a[@id = 'x']/b[2]/text()");
        ok("count(//a) > 2 and not(//b)");
        ok("2 * 3 div 1 mod 4 - -1");
        ok("//*[local-name()='Body']/child::*[position() < 3]");
        ok("/");
        ok("..//@href | //p:x");
        ok("(//a)[last()]//b");
        assert!(matches!(ok("a*b"), Expr::Arith(ArithOp::Mul, _, _)));
        assert!(matches!(ok("div"), Expr::Path { .. }));
    }

    #[test]
    fn rejects_bad_syntax_and_xpath2_in_version_one() {
        assert!(parse("//a[", Version::One).is_err());
        assert!(parse("//a)", Version::One).is_err());
        assert!(parse("", Version::One).is_err());
        assert!(parse("namespace::*", Version::One).is_err());
        assert!(parse("'a' eq 'b'", Version::One).is_err());
        assert!(parse("'a' eq 'b'", Version::Two).is_ok());
        assert!(parse("if (//a) then 1 else 2", Version::Two).is_ok());
        assert!(parse("//a/string()", Version::Two).is_ok());
        assert!(parse("for $x in //a return $x", Version::Two)
            .unwrap_err()
            .contains("for"));
    }
}
