//! The property encodings of a `.jmx` element, read into [`Property`] values.
//!
//! Tags are JMeter's XStream aliases (`stringProp`, `boolProp`, `FloatProperty`, ...) or,
//! as XStream also accepts, the fully qualified property class. Anything else inside an
//! element is skipped: JMeter would refuse such a file, but a runner that keeps going on
//! a stray tag is more useful than one that stops.

use roxmltree::Node;

use super::load::LineIndex;
use super::{PropValue, Property, ScalarKind};

/// The kinds of property tag, after resolving aliases.
#[derive(Clone, Copy)]
enum Tag {
    Scalar(ScalarKind),
    /// `doubleProp` / `floatProp`: name and value are child elements.
    Named(ScalarKind),
    Element,
    Collection,
    Map,
    Object,
}

fn classify(tag: &str) -> Option<Tag> {
    let by_alias = match tag {
        "stringProp" => Some(Tag::Scalar(ScalarKind::String)),
        "boolProp" => Some(Tag::Scalar(ScalarKind::Bool)),
        "intProp" => Some(Tag::Scalar(ScalarKind::Int)),
        "longProp" => Some(Tag::Scalar(ScalarKind::Long)),
        "doubleProp" => Some(Tag::Named(ScalarKind::Double)),
        // saveservice.properties aliases FloatProperty to itself ("should really have been
        // floatProp"), so both spellings exist in the wild.
        "floatProp" | "FloatProperty" => Some(Tag::Named(ScalarKind::Float)),
        "elementProp" => Some(Tag::Element),
        "collectionProp" => Some(Tag::Collection),
        "mapProp" => Some(Tag::Map),
        "objProp" => Some(Tag::Object),
        _ => None,
    };
    by_alias.or_else(|| {
        let class = tag.strip_prefix("org.apache.jmeter.testelement.property.")?;
        match class {
            "StringProperty" => Some(Tag::Scalar(ScalarKind::String)),
            "BooleanProperty" => Some(Tag::Scalar(ScalarKind::Bool)),
            "IntegerProperty" => Some(Tag::Scalar(ScalarKind::Int)),
            "LongProperty" => Some(Tag::Scalar(ScalarKind::Long)),
            "DoubleProperty" => Some(Tag::Named(ScalarKind::Double)),
            "FloatProperty" => Some(Tag::Named(ScalarKind::Float)),
            "TestElementProperty" => Some(Tag::Element),
            "CollectionProperty" => Some(Tag::Collection),
            "MapProperty" => Some(Tag::Map),
            "ObjectProperty" => Some(Tag::Object),
            _ => None,
        }
    })
}

/// JMeter's `isEnabled()`: enabled when the attribute is absent, otherwise only when it
/// parses as a Java boolean `true` (case-insensitive), so `enabled=""` means disabled.
pub(super) fn is_enabled(node: Node) -> bool {
    node.attribute("enabled")
        .is_none_or(|value| value.eq_ignore_ascii_case("true"))
}

/// The properties among the child elements of `node`, in file order.
pub(super) fn read_props(node: Node, lines: &LineIndex) -> Vec<Property> {
    node.children()
        .filter(Node::is_element)
        .filter_map(|child| read_prop(child, lines))
        .collect()
}

fn read_prop(node: Node, lines: &LineIndex) -> Option<Property> {
    let tag = classify(node.tag_name().name())?;
    let attr_name = || node.attribute("name").unwrap_or_default().to_owned();
    let (name, value) = match tag {
        Tag::Scalar(kind) => (attr_name(), scalar(kind, text(node))),
        Tag::Named(kind) => {
            let value = child_text(node, "value").unwrap_or_default();
            (child_name(node), scalar(kind, value))
        }
        Tag::Element => (attr_name(), element_prop(node, lines)),
        Tag::Collection => (attr_name(), PropValue::Collection(read_props(node, lines))),
        Tag::Map => (attr_name(), PropValue::Map(read_props(node, lines))),
        Tag::Object => (child_name(node), object_prop(node)),
    };
    Some(Property {
        name,
        value,
        span: lines.span(node.range().start),
    })
}

fn scalar(kind: ScalarKind, text: String) -> PropValue {
    PropValue::Scalar { kind, text }
}

/// `<elementProp>`: a nested test element. Without `testclass` its class is the
/// `elementType` (JMeter instantiates that type).
fn element_prop(node: Node, lines: &LineIndex) -> PropValue {
    let element_type = node.attribute("elementType").unwrap_or_default();
    PropValue::Element {
        element_type: element_type.to_owned(),
        class: node
            .attribute("testclass")
            .unwrap_or(element_type)
            .to_owned(),
        gui: node.attribute("guiclass").unwrap_or_default().to_owned(),
        name: node.attribute("testname").unwrap_or_default().to_owned(),
        enabled: is_enabled(node),
        props: read_props(node, lines),
    }
}

/// `<objProp><name>N</name><value class="C">fields</value></objProp>`; in practice only
/// listeners' `saveConfig`, whose fields are flat `<tag>text</tag>` pairs.
fn object_prop(node: Node) -> PropValue {
    let value = node.children().find(|n| n.has_tag_name("value"));
    PropValue::Object {
        class: value
            .and_then(|v| v.attribute("class"))
            .unwrap_or_default()
            .to_owned(),
        fields: value
            .into_iter()
            .flat_map(|v| v.children().filter(Node::is_element))
            .map(|field| (field.tag_name().name().to_owned(), text(field)))
            .collect(),
    }
}

/// The name of a property written as a `<name>` child, falling back to a `name`
/// attribute for files written by other tools.
fn child_name(node: Node) -> String {
    child_text(node, "name")
        .or_else(|| node.attribute("name").map(str::to_owned))
        .unwrap_or_default()
}

fn child_text(node: Node, tag: &str) -> Option<String> {
    node.children().find(|n| n.has_tag_name(tag)).map(text)
}

/// The text directly inside `node` (text and CDATA, joined across comments); an empty
/// element gives "". Not trimmed: whitespace in a property is part of its value.
fn text(node: Node) -> String {
    node.children()
        .filter(Node::is_text)
        .filter_map(|n| n.text())
        .collect()
}
