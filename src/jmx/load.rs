//! XML → [`TestTree`]: the shape of a `.jmx` file, nothing of its meaning.
//!
//! A `.jmx` root `<jmeterTestPlan>` holds one `<hashTree>`; inside every `<hashTree>` the
//! children come in pairs, a test element followed by the `<hashTree>` of its children.
//! roxmltree does the XML work (entities decoded, CRLF folded to LF as the XML spec asks,
//! `&#13;` kept as a CR), exactly as JMeter's XStream reader sees the text. Properties are
//! read by [`super::props`].

use std::path::Path;
use std::sync::Arc;

use roxmltree::{Document, Node, ParsingOptions};

use super::props::{is_enabled, read_props};
use super::{Element, LoadError, Span, TestTree};

/// How deeply XML elements may nest in a plan. A test element with its `<hashTree>` takes
/// two levels and properties a few more, so real plans stay under a hundred; the bound
/// keeps a hostile file from exhausting the stack of the recursive walks that follow.
pub const MAX_XML_DEPTH: usize = 500;

/// Reads and parses a `.jmx` file.
pub fn load_file(path: &Path) -> Result<TestTree, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    let text = decode(bytes).map_err(|source| LoadError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    load_str(&text, path)
}

/// Parses `.jmx` text; `path` names it in errors and anchors relative paths.
pub fn load_str(text: &str, path: &Path) -> Result<TestTree, LoadError> {
    // Some hand-made plans carry a DOCTYPE; XStream accepts it, so we do too (roxmltree
    // still guards against entity expansion bombs).
    let options = ParsingOptions {
        allow_dtd: true,
        ..ParsingOptions::default()
    };
    let reader = Reader {
        lines: LineIndex::new(text),
        file: Arc::new(path.to_path_buf()),
    };
    if let Some(offset) = first_element_deeper_than(text, MAX_XML_DEPTH) {
        return Err(LoadError::Structure {
            file: path.to_path_buf(),
            span: reader.lines.span(offset),
            message: format!(
                "elements are nested deeper than {MAX_XML_DEPTH} levels; JMeter plans nest a few dozen"
            ),
        });
    }
    let doc = Document::parse_with_options(text, options).map_err(|e| xml_error(path, &e))?;
    let root = doc.root_element();
    if root.tag_name().name() != "jmeterTestPlan" {
        return Err(reader.structure(
            root,
            format!(
                "the root element is <{}>, expected <jmeterTestPlan>",
                root.tag_name().name()
            ),
        ));
    }
    let Some(hash_tree) = root.children().find(|n| n.has_tag_name("hashTree")) else {
        return Err(reader.structure(root, "<jmeterTestPlan> has no <hashTree>".into()));
    };
    Ok(TestTree {
        file: reader.file.clone(),
        jmeter_version: root.attribute("jmeter").map(str::to_owned),
        roots: reader.hash_tree(hash_tree),
    })
}

/// The byte offset of the first element more than `limit` levels deep, found by a scan of
/// the text without recursion (roxmltree's parser recurses once per level, so the check
/// must come before it). Comments, CDATA sections, processing instructions and the
/// DOCTYPE are skipped; quoted attribute values may hold `>` and `/`.
fn first_element_deeper_than(text: &str, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let find = |from: usize, what: &[u8]| {
        bytes[from..]
            .windows(what.len())
            .position(|w| w == what)
            .map_or(bytes.len(), |at| from + at + what.len())
    };
    let mut depth = 0usize;
    let mut pos = 0;
    while let Some(at) = bytes[pos..].iter().position(|&b| b == b'<') {
        let open = pos + at;
        let rest = &bytes[open..];
        pos = if rest.starts_with(b"<!--") {
            find(open, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            find(open, b"]]>")
        } else if rest.starts_with(b"<?") {
            find(open, b"?>")
        } else if rest.starts_with(b"<!") {
            // A DOCTYPE's internal subset holds `>`s of its own.
            let close = find(open, b">");
            match bytes[open..close].iter().position(|&b| b == b'[') {
                Some(_) => find(open, b"]>").max(close),
                None => close,
            }
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            find(open, b">")
        } else {
            let mut quote = None;
            let mut end = open + 1;
            while end < bytes.len() {
                match (quote, bytes[end]) {
                    (None, b'"' | b'\'') => quote = Some(bytes[end]),
                    (Some(q), b) if b == q => quote = None,
                    (None, b'>') => break,
                    _ => {}
                }
                end += 1;
            }
            if bytes.get(end.wrapping_sub(1)) != Some(&b'/') {
                depth += 1;
                if depth > limit {
                    return Some(open);
                }
            }
            (end + 1).min(bytes.len())
        };
    }
    None
}

/// Turns file bytes into text. JMeter always writes UTF-8, but plans edited by hand may
/// declare ISO-8859-1; those are decoded as Latin-1 rather than rejected.
fn decode(bytes: Vec<u8>) -> Result<String, std::io::Error> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(err) => {
            let bytes = err.into_bytes();
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).to_lowercase();
            if head.contains("iso-8859-1") || head.contains("latin1") {
                Ok(bytes.iter().map(|&b| char::from(b)).collect())
            } else {
                Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "the file is not valid UTF-8",
                ))
            }
        }
    }
}

fn xml_error(path: &Path, err: &roxmltree::Error) -> LoadError {
    let pos = err.pos();
    // roxmltree ends its messages with " at line:column"; the span already says where.
    let message = err.to_string();
    let suffix = format!(" at {pos}");
    let message = message.strip_suffix(&suffix).unwrap_or(&message).to_owned();
    LoadError::Xml {
        file: path.to_path_buf(),
        span: Span {
            line: pos.row,
            column: pos.col,
        },
        message,
    }
}

/// Walks the parsed document, turning byte offsets into spans as it goes.
struct Reader<'a> {
    lines: LineIndex<'a>,
    file: Arc<std::path::PathBuf>,
}

impl Reader<'_> {
    fn structure(&self, node: Node, message: String) -> LoadError {
        LoadError::Structure {
            file: self.file.to_path_buf(),
            span: self.lines.span(node.range().start),
            message,
        }
    }

    /// The elements of one `<hashTree>`, each with the children of the `<hashTree>` that
    /// follows it. Stray `<hashTree>`s (no element before them) are skipped and an element
    /// without a following `<hashTree>` simply has no children: old hand-edited plans have
    /// both, and neither should stop a run.
    fn hash_tree(&self, node: Node) -> Vec<Element> {
        let mut elements = Vec::new();
        let mut pending: Option<Element> = None;
        for child in node.children().filter(Node::is_element) {
            if child.has_tag_name("hashTree") {
                if let Some(mut element) = pending.take() {
                    element.children = self.hash_tree(child);
                    elements.push(element);
                }
            } else if let Some(previous) = pending.replace(self.element(child)) {
                elements.push(previous);
            }
        }
        elements.extend(pending);
        elements
    }

    fn element(&self, node: Node) -> Element {
        let tag = node.tag_name().name().to_owned();
        Element {
            class: node.attribute("testclass").unwrap_or(&tag).to_owned(),
            gui: node.attribute("guiclass").unwrap_or_default().to_owned(),
            name: node.attribute("testname").unwrap_or_default().to_owned(),
            enabled: is_enabled(node),
            props: read_props(node, &self.lines),
            children: Vec::new(),
            span: self.lines.span(node.range().start),
            file: self.file.clone(),
            tag,
        }
    }
}

/// Maps byte offsets to 1-based line:column. roxmltree can do this too, but by rescanning
/// the text from the start on every call, which is quadratic on large plans.
pub(super) struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { text, starts }
    }

    /// The position of byte `offset`; the column counts characters, as editors do.
    pub(super) fn span(&self, offset: usize) -> Span {
        let line = self.starts.partition_point(|&start| start <= offset).max(1);
        let start = self.starts[line - 1];
        let column = self
            .text
            .get(start..offset)
            .map_or(0, |prefix| prefix.chars().count());
        Span {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column + 1).unwrap_or(u32::MAX),
        }
    }
}

#[cfg(test)]
#[path = "load_tests.rs"]
mod tests;
