//! HTML into a [`Dom`], as a browser parses it (never failing), through html5ever: its
//! tree builder writes into a small arena ([`HtmlSink`]) that is then copied into a
//! [`Dom`] in document order. Stands in for Tidy (XPath "tolerant" parsing, HTML
//! Assertion) and jsoup (CSS Selector Extractor); the parser's complaints are kept for
//! the HTML Assertion.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};

use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::{Attribute as HtmlAttribute, QualName};

use super::xml_dom::{Attribute, Dom, Name, Node, NodeId, NodeKind, ROOT};

/// A parsed HTML document with the parser's complaints (line, message).
pub struct HtmlDocument {
    pub dom: Dom,
    pub errors: Vec<(u64, String)>,
}

/// Parses any text as HTML, as a browser would: never fails. Element and attribute
/// names carry no namespace, as in the DOM Tidy and jsoup build.
pub fn parse_html(text: &str) -> HtmlDocument {
    let sink = HtmlSink::default();
    let sink = html5ever::parse_document(sink, Default::default()).one(text);
    let nodes = sink.nodes.into_inner();
    let mut dom = Dom {
        nodes: vec![Node::new(NodeKind::Document, None)],
    };
    for &child in &nodes[0].children {
        add_html_node(&mut dom, &nodes, child, ROOT);
    }
    HtmlDocument {
        dom,
        errors: sink.errors.into_inner(),
    }
}

fn add_html_node(dom: &mut Dom, nodes: &[SinkNode], source: usize, parent: NodeId) {
    let (kind, name, value, attrs) = match &nodes[source].data {
        SinkData::Document | SinkData::Doctype => return,
        SinkData::Element { name, attrs, .. } => (
            NodeKind::Element,
            Name::unaware(&name.local),
            String::new(),
            attrs
                .iter()
                .map(|a| Attribute {
                    name: Name::unaware(&html_attr_name(&a.name)),
                    value: a.value.to_string(),
                })
                .collect(),
        ),
        SinkData::Text(text) => (NodeKind::Text, Name::default(), text.clone(), Vec::new()),
        SinkData::Comment(text) => (NodeKind::Comment, Name::default(), text.clone(), Vec::new()),
        SinkData::Pi { target, data } => (
            NodeKind::ProcessingInstruction,
            Name::unaware(target),
            data.clone(),
            Vec::new(),
        ),
    };
    let id = dom.nodes.len();
    let mut node = Node::new(kind, Some(parent));
    node.name = name;
    node.value = value;
    node.attrs = attrs;
    dom.nodes.push(node);
    dom.nodes[parent].children.push(id);
    for &child in &nodes[source].children {
        add_html_node(dom, nodes, child, id);
    }
}

fn html_attr_name(name: &QualName) -> String {
    match &name.prefix {
        Some(prefix) => format!("{prefix}:{}", name.local),
        None => name.local.to_string(),
    }
}

enum SinkData {
    Document,
    Doctype,
    Element {
        name: QualName,
        attrs: Vec<HtmlAttribute>,
        template_contents: Option<usize>,
    },
    Text(String),
    Comment(String),
    Pi {
        target: String,
        data: String,
    },
}

struct SinkNode {
    data: SinkData,
    parent: Option<usize>,
    children: Vec<usize>,
}

/// html5ever's tree builder writes into this arena; [`parse_html`] then copies it into
/// a [`Dom`] in document order (the builder moves nodes around while it parses).
struct HtmlSink {
    nodes: RefCell<Vec<SinkNode>>,
    errors: RefCell<Vec<(u64, String)>>,
    line: Cell<u64>,
}

/// What `elem_name` answers for a handle that is not an element (never asked for).
static NO_NAME: std::sync::LazyLock<QualName> =
    std::sync::LazyLock::new(|| QualName::new(None, html5ever::ns!(), html5ever::local_name!("")));

impl Default for HtmlSink {
    fn default() -> HtmlSink {
        HtmlSink {
            nodes: RefCell::new(vec![SinkNode {
                data: SinkData::Document,
                parent: None,
                children: Vec::new(),
            }]),
            errors: RefCell::new(Vec::new()),
            line: Cell::new(1),
        }
    }
}

impl HtmlSink {
    fn push(&self, data: SinkData) -> usize {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(SinkNode {
            data,
            parent: None,
            children: Vec::new(),
        });
        nodes.len() - 1
    }

    fn detach(&self, child: usize) {
        let mut nodes = self.nodes.borrow_mut();
        if let Some(parent) = nodes[child].parent.take() {
            nodes[parent].children.retain(|&c| c != child);
        }
    }

    /// Inserts `child` into `parent` at `index`, merging text into a text neighbour
    /// before it as the builder expects.
    fn insert(&self, parent: usize, index: usize, child: NodeOrText<usize>) {
        let id = match child {
            NodeOrText::AppendText(text) => {
                let mut nodes = self.nodes.borrow_mut();
                if index > 0 {
                    let before = nodes[parent].children[index - 1];
                    if let SinkData::Text(existing) = &mut nodes[before].data {
                        existing.push_str(&text);
                        return;
                    }
                }
                drop(nodes);
                self.push(SinkData::Text(text.to_string()))
            }
            NodeOrText::AppendNode(node) => {
                self.detach(node);
                node
            }
        };
        let mut nodes = self.nodes.borrow_mut();
        nodes[id].parent = Some(parent);
        nodes[parent].children.insert(index, id);
    }
}

impl TreeSink for HtmlSink {
    type Handle = usize;
    type Output = HtmlSink;
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> HtmlSink {
        self
    }

    fn parse_error(&self, msg: Cow<'static, str>) {
        self.errors
            .borrow_mut()
            .push((self.line.get(), msg.into_owned()));
    }

    fn set_current_line(&self, line: u64) {
        self.line.set(line);
    }

    fn get_document(&self) -> usize {
        0
    }

    fn elem_name<'a>(&'a self, target: &'a usize) -> Ref<'a, QualName> {
        Ref::map(self.nodes.borrow(), |nodes| match &nodes[*target].data {
            SinkData::Element { name, .. } => name,
            _ => &NO_NAME,
        })
    }

    fn create_element(
        &self,
        name: QualName,
        attrs: Vec<HtmlAttribute>,
        flags: ElementFlags,
    ) -> usize {
        let template_contents = flags.template.then(|| self.push(SinkData::Document));
        self.push(SinkData::Element {
            name,
            attrs,
            template_contents,
        })
    }

    fn create_comment(&self, text: StrTendril) -> usize {
        self.push(SinkData::Comment(text.to_string()))
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> usize {
        self.push(SinkData::Pi {
            target: target.to_string(),
            data: data.to_string(),
        })
    }

    fn append(&self, parent: &usize, child: NodeOrText<usize>) {
        let index = self.nodes.borrow()[*parent].children.len();
        self.insert(*parent, index, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &usize,
        prev_element: &usize,
        child: NodeOrText<usize>,
    ) {
        if self.nodes.borrow()[*element].parent.is_some() {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(
        &self,
        _name: StrTendril,
        _public: StrTendril,
        _system: StrTendril,
    ) {
        let id = self.push(SinkData::Doctype);
        self.append(&0, NodeOrText::AppendNode(id));
    }

    fn get_template_contents(&self, target: &usize) -> usize {
        match &self.nodes.borrow()[*target].data {
            SinkData::Element {
                template_contents: Some(contents),
                ..
            } => *contents,
            _ => *target,
        }
    }

    fn same_node(&self, x: &usize, y: &usize) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &usize, new_node: NodeOrText<usize>) {
        let Some(parent) = self.nodes.borrow()[*sibling].parent else {
            return;
        };
        let index = self.nodes.borrow()[parent]
            .children
            .iter()
            .position(|c| c == sibling)
            .unwrap_or(0);
        self.insert(parent, index, new_node);
    }

    fn add_attrs_if_missing(&self, target: &usize, new_attrs: Vec<HtmlAttribute>) {
        if let SinkData::Element { attrs, .. } = &mut self.nodes.borrow_mut()[*target].data {
            for attr in new_attrs {
                if !attrs.iter().any(|a| a.name == attr.name) {
                    attrs.push(attr);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &usize) {
        self.detach(*target);
    }

    fn reparent_children(&self, node: &usize, new_parent: &usize) {
        let children = std::mem::take(&mut self.nodes.borrow_mut()[*node].children);
        let mut nodes = self.nodes.borrow_mut();
        for &child in &children {
            nodes[child].parent = Some(*new_parent);
        }
        nodes[*new_parent].children.extend(children);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_repaired_into_a_tree() {
        let doc = parse_html("<p>one<br><p>two &amp; <b>three</table>");
        let dom = &doc.dom;
        let html = dom.document_element().unwrap();
        assert_eq!(dom.node(html).name.qname, "html");
        assert_eq!(dom.string_value(html), "onetwo & three");
        assert!(!doc.errors.is_empty());
        let ps: Vec<_> = (0..dom.nodes.len())
            .filter(|&i| dom.node(i).name.qname == "p")
            .collect();
        assert_eq!(ps.len(), 2);
        assert!(dom.descendants(ps[0]).len() == 2);
    }
}
