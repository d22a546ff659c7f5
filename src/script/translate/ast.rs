//! The syntax tree shared by the four source languages: Java's statements and
//! expressions plus Groovy's closures, list and map literals, GStrings, Elvis and safe
//! navigation. Types are kept only where they change the meaning (casts, `as`,
//! declarations of primitives, which default to zero).

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// A GString: text and embedded expressions, in order.
    Interpolated(Vec<Interpolation>),
    Ident(String),
    /// `target.name` (a property or field read); `safe` for `?.`.
    Field {
        target: Box<Expr>,
        name: String,
        safe: bool,
    },
    /// `name(args)`: a call of a script method or a global function.
    Call {
        name: String,
        args: Vec<Expr>,
    },
    /// `target.name(args)`; `safe` for `?.`, `spread` for Groovy's `*.`.
    Method {
        target: Box<Expr>,
        name: String,
        args: Vec<Expr>,
        safe: bool,
        spread: bool,
    },
    /// `Class.name(args)` of a library class (`Integer.parseInt`).
    Static {
        class: String,
        name: String,
        args: Vec<Expr>,
    },
    /// `Class.FIELD` of a library class (`Integer.MAX_VALUE`, `System.out`).
    StaticField {
        class: String,
        name: String,
    },
    Index(Box<Expr>, Box<Expr>),
    Unary(&'static str, Box<Expr>),
    /// `++x`, `x--`...: the operator and whether it came first.
    Step {
        op: &'static str,
        prefix: bool,
        target: Box<Expr>,
    },
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Assign(&'static str, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Elvis(Box<Expr>, Box<Expr>),
    New {
        class: String,
        args: Vec<Expr>,
    },
    /// `new T[n]` (filled with `fill`) or `new T[]{..}`.
    NewArray {
        size: Option<Box<Expr>>,
        fill: Box<Expr>,
        items: Vec<Expr>,
    },
    /// `(T) x` or `x as T`.
    Convert(String, Box<Expr>),
    InstanceOf(Box<Expr>, String),
    List(Vec<Expr>),
    Map(Vec<(MapKey, Expr)>),
    Range {
        from: Box<Expr>,
        to: Box<Expr>,
        inclusive: bool,
    },
    Closure {
        params: Vec<String>,
        body: Vec<Stmt>,
    },
    /// Something the parser recognised but cannot carry over; the problem is recorded.
    Unsupported,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Interpolation {
    Text(String),
    Code(Expr),
}

#[derive(Debug, Clone, PartialEq)]
pub enum MapKey {
    Name(String),
    Computed(Expr),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub line: usize,
    pub kind: StmtKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    Expr(Expr),
    /// Declared names with their initial values.
    Let(Vec<(String, Option<Expr>)>),
    If {
        condition: Expr,
        then: Vec<Stmt>,
        otherwise: Option<Vec<Stmt>>,
    },
    While {
        condition: Expr,
        body: Vec<Stmt>,
    },
    DoWhile {
        body: Vec<Stmt>,
        condition: Expr,
    },
    For {
        init: Vec<Stmt>,
        condition: Option<Expr>,
        update: Vec<Expr>,
        body: Vec<Stmt>,
    },
    ForIn {
        name: String,
        iterable: Expr,
        body: Vec<Stmt>,
    },
    Switch {
        subject: Expr,
        cases: Vec<SwitchCase>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Throw(Expr),
    Try {
        body: Vec<Stmt>,
        catch: Option<(String, Vec<Stmt>)>,
        finally: Vec<Stmt>,
    },
    Block(Vec<Stmt>),
    Function {
        name: String,
        params: Vec<String>,
        body: Vec<Stmt>,
    },
    Empty,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SwitchCase {
    /// Empty for `default`.
    pub labels: Vec<Expr>,
    pub is_default: bool,
    pub body: Vec<Stmt>,
}
