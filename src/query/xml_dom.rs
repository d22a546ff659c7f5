//! The document tree the XPath evaluator ([`super::xpath`]) and the CSS selector engine
//! ([`super::css_select`]) walk: built here from strict XML (through `roxmltree`), or
//! from any HTML by [`super::html_parse`] (standing in for JMeter's Tidy and jsoup).
//!
//! Nodes live in one vector in document order, so comparing ids compares positions;
//! attributes are not nodes here but are addressed as (element, index) by the XPath
//! evaluator. A namespace-unaware tree (JMeter's default `namespace=false`) keeps every
//! name's prefix in its qualified name and gives it no namespace URI, as a
//! non-namespace-aware Xerces DOM seen through Xalan does.

pub type NodeId = usize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Document,
    Element,
    Text,
    Comment,
    ProcessingInstruction,
}

/// A qualified name: `qname` as written (`soap:Body`), its local part and its
/// namespace URI (none in a namespace-unaware tree).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Name {
    pub qname: String,
    pub local: String,
    pub ns: Option<String>,
}

impl Name {
    pub(super) fn unaware(qname: &str) -> Name {
        Name {
            qname: qname.to_string(),
            local: qname.rsplit(':').next().unwrap_or(qname).to_string(),
            ns: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Attribute {
    pub name: Name,
    pub value: String,
}

#[derive(Debug, Clone)]
pub struct Node {
    pub kind: NodeKind,
    /// Element name, or a processing instruction's target.
    pub name: Name,
    /// Text, comment or processing-instruction data.
    pub value: String,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    /// Attributes other than namespace declarations, in source order.
    pub attrs: Vec<Attribute>,
    /// Namespace declarations written on this element (`""` for the default one).
    pub ns_decls: Vec<(String, String)>,
}

impl Node {
    pub(super) fn new(kind: NodeKind, parent: Option<NodeId>) -> Node {
        Node {
            kind,
            name: Name::default(),
            value: String::new(),
            parent,
            children: Vec::new(),
            attrs: Vec::new(),
            ns_decls: Vec::new(),
        }
    }
}

/// A parsed document; node 0 is the document node.
#[derive(Debug, Clone)]
pub struct Dom {
    pub nodes: Vec<Node>,
}

/// The root of the document.
pub const ROOT: NodeId = 0;

impl Dom {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// The first element child of the document.
    pub fn document_element(&self) -> Option<NodeId> {
        self.nodes[ROOT]
            .children
            .iter()
            .copied()
            .find(|&c| self.nodes[c].kind == NodeKind::Element)
    }

    /// XPath's string-value: the text of all descendant text nodes for the document and
    /// elements, the node's own data otherwise.
    pub fn string_value(&self, id: NodeId) -> String {
        let node = &self.nodes[id];
        match node.kind {
            NodeKind::Document | NodeKind::Element => {
                let mut out = String::new();
                self.collect_text(id, &mut out);
                out
            }
            _ => node.value.clone(),
        }
    }

    fn collect_text(&self, id: NodeId, out: &mut String) {
        for &child in &self.nodes[id].children {
            match self.nodes[child].kind {
                NodeKind::Text => out.push_str(&self.nodes[child].value),
                NodeKind::Element => self.collect_text(child, out),
                _ => {}
            }
        }
    }

    /// All descendants of `id` (not itself), in document order: ids are pre-order, so
    /// they are the ids after `id` up to the end of its subtree.
    pub fn descendants(&self, id: NodeId) -> std::ops::Range<NodeId> {
        id + 1..self.subtree_end(id)
    }

    /// One past the last id in the subtree of `id`.
    pub fn subtree_end(&self, mut id: NodeId) -> NodeId {
        loop {
            match self.nodes[id].children.last() {
                Some(&last) => id = last,
                None => return id + 1,
            }
        }
    }

    /// The namespace URI bound to `prefix` on the document element, as Xalan's default
    /// prefix resolver finds it (`xml` is always bound).
    pub fn root_namespace(&self, prefix: &str) -> Option<String> {
        if prefix == "xml" {
            return Some("http://www.w3.org/XML/1998/namespace".to_string());
        }
        let root = self.document_element()?;
        self.nodes[root]
            .ns_decls
            .iter()
            .find(|(p, _)| p == prefix)
            .map(|(_, uri)| uri.clone())
    }

    /// Serialises `id` as XML text, as JMeter's identity transform does for a
    /// "fragment": no declaration, empty elements as `<a/>`, attributes (namespace
    /// declarations among them) sorted by name, as Xerces keeps them.
    pub fn serialize(&self, id: NodeId) -> String {
        let mut out = String::new();
        self.write_node(id, &[], true, &mut out);
        out
    }

    /// Serialises `id` as Saxon prints a node: the namespaces in scope declared on it
    /// (by prefix), then its attributes in document order.
    pub fn serialize_with_namespaces(&self, id: NodeId) -> String {
        let mut in_scope: Vec<(String, String)> = Vec::new();
        let mut chain = vec![id];
        let mut current = self.nodes[id].parent;
        while let Some(p) = current {
            chain.push(p);
            current = self.nodes[p].parent;
        }
        for &ancestor in chain.iter().rev() {
            for (prefix, uri) in &self.nodes[ancestor].ns_decls {
                in_scope.retain(|(p, _)| p != prefix);
                in_scope.push((prefix.clone(), uri.clone()));
            }
        }
        in_scope.sort();
        let mut out = String::new();
        self.write_node(id, &in_scope, false, &mut out);
        out
    }

    fn write_node(
        &self,
        id: NodeId,
        namespaces: &[(String, String)],
        xerces: bool,
        out: &mut String,
    ) {
        let node = &self.nodes[id];
        match node.kind {
            NodeKind::Document => {
                for &child in &node.children {
                    self.write_node(child, &[], xerces, out);
                }
            }
            NodeKind::Text => escape_into(&node.value, false, out),
            NodeKind::Comment => {
                out.push_str("<!--");
                out.push_str(&node.value);
                out.push_str("-->");
            }
            NodeKind::ProcessingInstruction => {
                out.push_str("<?");
                out.push_str(&node.name.qname);
                if !node.value.is_empty() {
                    out.push(' ');
                    out.push_str(&node.value);
                }
                out.push_str("?>");
            }
            NodeKind::Element => {
                out.push('<');
                out.push_str(&node.name.qname);
                // Below the top element only its own declarations are written.
                let declarations = if namespaces.is_empty() {
                    &node.ns_decls[..]
                } else {
                    namespaces
                };
                let mut attrs: Vec<(String, &str)> = declarations
                    .iter()
                    .map(|(p, uri)| {
                        let name = if p.is_empty() {
                            "xmlns".to_string()
                        } else {
                            format!("xmlns:{p}")
                        };
                        (name, uri.as_str())
                    })
                    .collect();
                attrs.extend(
                    node.attrs
                        .iter()
                        .map(|a| (a.name.qname.clone(), a.value.as_str())),
                );
                if xerces {
                    attrs.sort_by(|a, b| a.0.cmp(&b.0));
                }
                for (name, value) in attrs {
                    out.push(' ');
                    out.push_str(&name);
                    out.push_str("=\"");
                    escape_into(value, true, out);
                    out.push('"');
                }
                if node.children.is_empty() {
                    out.push_str("/>");
                } else {
                    out.push('>');
                    for &child in &node.children {
                        self.write_node(child, &[], xerces, out);
                    }
                    out.push_str("</");
                    out.push_str(&node.name.qname);
                    out.push('>');
                }
            }
        }
    }
}

fn escape_into(text: &str, attribute: bool, out: &mut String) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' if attribute => out.push_str("&quot;"),
            '\n' if attribute => out.push_str("&#10;"),
            _ => out.push(c),
        }
    }
}

/// Whether the text starts as JMeter's `JOrphanUtils.isXML` checks: with `<?xml `.
pub fn looks_like_xml(text: &str) -> bool {
    text.trim_start_matches('\u{feff}').starts_with("<?xml ")
}

/// Parses well-formed XML. `namespace_aware` decides whether names get their URI (and
/// lose nothing else) or keep only their written form.
pub fn parse_xml(text: &str, namespace_aware: bool) -> Result<Dom, roxmltree::Error> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options)?;
    let mut dom = Dom {
        nodes: vec![Node::new(NodeKind::Document, None)],
    };
    for child in doc.root().children() {
        add_xml_node(&mut dom, child, ROOT, namespace_aware);
    }
    Ok(dom)
}

fn xml_name(
    node: roxmltree::Node<'_, '_>,
    name: roxmltree::ExpandedName<'_, '_>,
    aware: bool,
) -> Name {
    let prefix = name.namespace().and_then(|uri| node.lookup_prefix(uri));
    let qname = match prefix {
        Some(p) if !p.is_empty() => format!("{p}:{}", name.name()),
        _ => name.name().to_string(),
    };
    if aware {
        Name {
            qname,
            local: name.name().to_string(),
            ns: name.namespace().map(str::to_string),
        }
    } else {
        Name::unaware(&qname)
    }
}

fn add_xml_node(dom: &mut Dom, source: roxmltree::Node<'_, '_>, parent: NodeId, aware: bool) {
    let kind = match source.node_type() {
        roxmltree::NodeType::Element => NodeKind::Element,
        roxmltree::NodeType::Text => NodeKind::Text,
        roxmltree::NodeType::Comment => NodeKind::Comment,
        roxmltree::NodeType::PI => NodeKind::ProcessingInstruction,
        roxmltree::NodeType::Root => return,
    };
    let id = dom.nodes.len();
    let mut node = Node::new(kind, Some(parent));
    match kind {
        NodeKind::Element => {
            node.name = xml_name(source, source.tag_name(), aware);
            let inherited: Vec<(Option<&str>, &str)> = source
                .parent_element()
                .map(|p| p.namespaces().map(|n| (n.name(), n.uri())).collect())
                .unwrap_or_default();
            node.ns_decls = source
                .namespaces()
                .filter(|n| n.name() != Some("xml") && !inherited.contains(&(n.name(), n.uri())))
                .map(|n| (n.name().unwrap_or("").to_string(), n.uri().to_string()))
                .collect();
            node.attrs = source
                .attributes()
                .map(|a| {
                    let qname = match a.namespace().and_then(|uri| source.lookup_prefix(uri)) {
                        Some(p) if !p.is_empty() => format!("{p}:{}", a.name()),
                        _ => a.name().to_string(),
                    };
                    let name = if aware {
                        Name {
                            qname,
                            local: a.name().to_string(),
                            ns: a.namespace().map(str::to_string),
                        }
                    } else {
                        Name::unaware(&qname)
                    };
                    Attribute {
                        name,
                        value: a.value().to_string(),
                    }
                })
                .collect();
        }
        NodeKind::ProcessingInstruction => {
            if let Some(pi) = source.pi() {
                node.name = Name::unaware(pi.target);
                node.value = pi.value.unwrap_or("").to_string();
            }
        }
        _ => node.value = source.text().unwrap_or("").to_string(),
    }
    dom.nodes.push(node);
    dom.nodes[parent].children.push(id);
    for child in source.children() {
        add_xml_node(dom, child, id, aware);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_tree_is_in_document_order_with_namespaces() {
        let dom = parse_xml(
            r#"<r xmlns:p="urn:p"><p:a k="1">x<b/></p:a><!--c--></r>"#,
            true,
        )
        .unwrap();
        let root = dom.document_element().unwrap();
        assert_eq!(
            dom.node(root).ns_decls,
            [("p".to_string(), "urn:p".to_string())]
        );
        let a = dom.node(root).children[0];
        assert_eq!(dom.node(a).name.ns.as_deref(), Some("urn:p"));
        assert_eq!(dom.node(a).name.qname, "p:a");
        assert_eq!(dom.string_value(root), "x");
        assert_eq!(dom.serialize(a), r#"<p:a k="1">x<b/></p:a>"#);
        assert_eq!(dom.descendants(root), root + 1..dom.nodes.len());
        let unaware = parse_xml(r#"<r xmlns:p="urn:p"><p:a/></r>"#, false).unwrap();
        assert_eq!(unaware.node(2).name.local, "a");
        assert_eq!(unaware.node(2).name.qname, "p:a");
        assert_eq!(unaware.node(2).name.ns, None);
    }
}
