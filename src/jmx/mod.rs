//! The `.jmx` loader: XML bytes in, a lossless tree of [`Element`]s out.
//!
//! This module knows the *shape* of a JMeter file (elements paired with their `hashTree`,
//! every property kind, entities, spans) and nothing of what elements mean. `plan` reads
//! this tree and gives it semantics. Structural rewrites that JMeter performs before a
//! run (disabled elements and the WorkBench removed, Include and Module Controllers kept as
//! plain controllers holding what they stand for, Test Fragments left as targets) live in
//! [`rewrite`].

mod include;
mod load;
mod module;
mod props;
pub mod rewrite;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use load::{load_file, load_str};

/// A position in a source file, 1-based, as editors show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub line: u32,
    pub column: u32,
}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A whole loaded file: the root attributes and the top-level elements (normally one
/// `TestPlan`, sometimes followed by a `WorkBench`).
#[derive(Debug, Clone)]
pub struct TestTree {
    /// The file the tree was read from; relative paths in the plan resolve against its folder.
    pub file: Arc<PathBuf>,
    /// `jmeter="5.6.3"` on the root, if present (informational only).
    pub jmeter_version: Option<String>,
    pub roots: Vec<Element>,
}

impl TestTree {
    pub fn plan_dir(&self) -> &Path {
        self.file.parent().unwrap_or_else(|| Path::new("."))
    }
}

/// One test element with its properties and the children of its `hashTree`.
#[derive(Debug, Clone)]
pub struct Element {
    /// The XML tag (alias or fully qualified class name).
    pub tag: String,
    /// `testclass`, falling back to the tag when absent.
    pub class: String,
    /// `guiclass`, empty when absent.
    pub gui: String,
    /// `testname`.
    pub name: String,
    pub enabled: bool,
    pub props: Vec<Property>,
    pub children: Vec<Element>,
    /// Where the element's start tag is.
    pub span: Span,
    /// The file this element came from (differs from the tree's file for included elements).
    pub file: Arc<PathBuf>,
}

/// A named property of an element (or an item of a collection, whose name is kept but means nothing).
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    pub name: String,
    pub value: PropValue,
    pub span: Span,
}

/// The kinds of scalar property JMeter writes; the text is kept as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarKind {
    String,
    Bool,
    Int,
    Long,
    Double,
    Float,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PropValue {
    /// `stringProp`, `boolProp`, `intProp`, `longProp`, `doubleProp`, `floatProp` (for the last
    /// two, the `<value>` child). Entities are decoded; text is not trimmed.
    Scalar { kind: ScalarKind, text: String },
    /// `elementProp`: a nested element. `element_type` is the `elementType` attribute.
    Element {
        element_type: String,
        class: String,
        gui: String,
        name: String,
        enabled: bool,
        props: Vec<Property>,
    },
    /// `collectionProp`: ordered items of any kind.
    Collection(Vec<Property>),
    /// `objProp` (listener `saveConfig`): the value's class and its fields as (tag, text) in order.
    Object {
        class: String,
        fields: Vec<(String, String)>,
    },
    /// `mapProp`: kept as its items.
    Map(Vec<Property>),
}

impl Property {
    /// The text of a scalar property; `None` for structured ones.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            PropValue::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    /// Properties of a nested element (`elementProp`), or items of a collection / map.
    pub fn children(&self) -> &[Property] {
        match &self.value {
            PropValue::Element { props, .. } => props,
            PropValue::Collection(items) | PropValue::Map(items) => items,
            _ => &[],
        }
    }

    /// Finds a child property of an `elementProp` by name.
    pub fn child(&self, name: &str) -> Option<&Property> {
        self.children().iter().find(|p| p.name == name)
    }
}

/// Looks a property up by name in a property list.
pub fn find_prop<'a>(props: &'a [Property], name: &str) -> Option<&'a Property> {
    props.iter().find(|p| p.name == name)
}

impl Element {
    pub fn prop(&self, name: &str) -> Option<&Property> {
        find_prop(&self.props, name)
    }

    /// The raw text of a scalar property, or `None` when absent (or structured).
    pub fn str_prop(&self, name: &str) -> Option<&str> {
        self.prop(name).and_then(Property::as_str)
    }

    /// Where this element is, for diagnostics: `file:line:column`.
    pub fn location(&self) -> String {
        format!("{}:{}", self.file.display(), self.span)
    }
}

/// A loader error: the file, where in it, and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}:{span}: malformed XML: {message}")]
    Xml {
        file: PathBuf,
        span: Span,
        message: String,
    },
    #[error("{file}:{span}: not a JMeter test plan: {message}")]
    Structure {
        file: PathBuf,
        span: Span,
        message: String,
    },
    #[error("{file}:{span}: {message}")]
    Rewrite {
        file: PathBuf,
        span: Span,
        message: String,
    },
}
