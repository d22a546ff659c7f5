//! What JSONPath evaluation needs from a JSON document, so that one evaluator runs
//! over two representations: a parsed `serde_json::Value` (the reference) and the
//! borrowed index of `json_tape` (cheap to build; values are materialised only when a
//! filter compares them or a path selects them; plain integers and strings are
//! compared in place, see [`Scalar`]).

use std::borrow::Cow;

use serde_json::Value;

/// A node of a JSON document. Object members keep document order.
pub trait Node<'v>: Copy {
    fn is_object(self) -> bool;
    fn is_array(self) -> bool;
    /// The value of the member `name` of an object.
    fn member(self, name: &str) -> Option<Self>;
    /// The member values of an object or the items of an array, in document order.
    fn children(self) -> impl Iterator<Item = Self> + 'v;
    /// The number of items of an array.
    fn array_len(self) -> Option<usize>;
    /// The node as a `serde_json::Value` (borrowed when it already is one).
    fn value(self) -> Cow<'v, Value>;
    /// The node as a scalar a filter can compare without building a `Value`, when the
    /// representation knows it exactly; `Unknown` sends the filter to [`Node::value`].
    fn scalar(self) -> Scalar<'v> {
        Scalar::Unknown
    }
}

/// A scalar read in place from the document's text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar<'v> {
    /// An integer within ±2^53, where comparing as `f64` (as filters do) and as
    /// integers agree.
    Integer(i64),
    /// A string without escapes: its text is its value.
    PlainString(&'v str),
    Unknown,
}

impl Scalar<'_> {
    /// The largest magnitude of [`Scalar::Integer`].
    pub const EXACT_INTEGER: u64 = 1 << 53;
}

impl<'v> Node<'v> for &'v Value {
    fn is_object(self) -> bool {
        Value::is_object(self)
    }

    fn is_array(self) -> bool {
        Value::is_array(self)
    }

    fn member(self, name: &str) -> Option<Self> {
        self.as_object()?.get(name)
    }

    fn children(self) -> impl Iterator<Item = Self> + 'v {
        let (values, items) = match self {
            Value::Object(map) => (Some(map.values()), None),
            Value::Array(items) => (None, Some(items.iter())),
            _ => (None, None),
        };
        values
            .into_iter()
            .flatten()
            .chain(items.into_iter().flatten())
    }

    fn array_len(self) -> Option<usize> {
        self.as_array().map(Vec::len)
    }

    fn value(self) -> Cow<'v, Value> {
        Cow::Borrowed(self)
    }
}
