//! Generated-Java protobuf code onto the `Protobuf` Rhai API
//! ([`crate::script::protobuf::api`]), when the message is found in the run's `.proto`
//! files:
//!
//! - `X.newBuilder()` → `Protobuf::builder("pkg.X")`, `X.parseFrom(b)` →
//!   `Protobuf::decode("pkg.X", b)`, `X.getDefaultInstance()`;
//! - on a builder: `setFoo(v)` → `.set("foo", v)`, `addFoo`/`addAllFoo`, `putFoo`/
//!   `putAllFoo`/`removeFoo`, `clearFoo`, `setFooValue` (enums), `build()`;
//! - on a message (a map): `getFoo()` → `m["foo"]`, `getFooList()`, `getFoo(i)`,
//!   `getFooCount()`, `getFooMap()`, `getFooOrDefault(k, d)`, `containsFoo(k)`,
//!   `hasFoo()`, `getFooValue()`, `toByteArray()` → `Protobuf::encode("pkg.X", m)`,
//!   `toBuilder()`, `toString()`;
//! - `Enum.VALUE` → `"VALUE"`, `Enum.forNumber(n)`, `VALUE.getNumber()`.
//!
//! The emitter follows which variables hold a builder or a message of which type
//! (from their initial value or assignment, and `for` loops over a repeated message
//! field); a call on a protobuf value that has no counterpart is reported.

use prost_reflect::{FieldDescriptor, Kind, MessageDescriptor};

use super::ast::Expr;
use super::emit::Emitter;
use super::emit_expr::string_literal;
use crate::script::protobuf::{java_name, Found};

/// What a script expression holds, when it is protobuf.
#[derive(Clone)]
pub(super) enum ProtoType {
    Builder(MessageDescriptor),
    Message(MessageDescriptor),
    /// A repeated message field's list.
    List(MessageDescriptor),
}

/// The dotted class name an expression spells (`ChatMessage`, `ChatProto.ChatMessage`,
/// `com.example.ChatMessage`).
fn class_path(expr: &Expr) -> Option<Vec<String>> {
    match expr {
        Expr::Ident(name) => Some(vec![name.clone()]),
        Expr::StaticField { class, name } => Some(vec![class.clone(), name.clone()]),
        Expr::Field {
            target,
            name,
            safe: false,
        } => {
            let mut path = class_path(target)?;
            path.push(name.clone());
            Some(path)
        }
        _ => None,
    }
}

const STATIC_NAMES: &[&str] = &["newBuilder", "parseFrom", "getDefaultInstance"];

impl Emitter {
    /// The message a class path names, trying its longest tail first (the outer class
    /// of `ChatProto.ChatMessage` is not a protobuf name).
    fn message_named(&mut self, path: &[String]) -> Option<MessageDescriptor> {
        let schema = self.protobuf.clone()?;
        for start in 0..path.len() {
            match schema.find_message(&path[start..].join(".")) {
                Found::One(message) => return Some(message),
                Found::Ambiguous(names) => {
                    self.problem(format!(
                        "protobuf class `{}` is ambiguous ({})",
                        path.join("."),
                        names.join(", ")
                    ));
                    return None;
                }
                Found::None => {}
            }
        }
        None
    }

    fn enum_named(&self, path: &[String]) -> Option<prost_reflect::EnumDescriptor> {
        let schema = self.protobuf.as_ref()?;
        (0..path.len()).find_map(|start| match schema.find_enum(&path[start..].join(".")) {
            Found::One(item) => Some(item),
            _ => None,
        })
    }

    /// What `expr` holds, if it is a protobuf builder, message or message list.
    pub(super) fn proto_type(&mut self, expr: &Expr) -> Option<ProtoType> {
        self.protobuf.as_ref()?;
        match expr {
            Expr::Ident(name) => self.proto_vars.get(name).cloned(),
            Expr::Convert(_, value) => self.proto_type(value),
            Expr::Static { class, name, .. } => self.static_type(std::slice::from_ref(class), name),
            Expr::Index(target, _) => match self.proto_type(target)? {
                ProtoType::List(desc) => Some(ProtoType::Message(desc)),
                _ => None,
            },
            Expr::Method {
                target, name, args, ..
            } => {
                if let Some(path) =
                    class_path(target).filter(|_| STATIC_NAMES.contains(&name.as_str()))
                {
                    if let Some(found) = self.static_type(&path, name) {
                        return Some(found);
                    }
                }
                match self.proto_type(target)? {
                    ProtoType::Builder(desc) => match name.as_str() {
                        "build" | "buildPartial" => Some(ProtoType::Message(desc)),
                        n if n.starts_with("get") || n.starts_with("has") => {
                            getter_type(&desc, n, args.len())
                        }
                        _ => Some(ProtoType::Builder(desc)),
                    },
                    ProtoType::Message(desc) => match name.as_str() {
                        "toBuilder" => Some(ProtoType::Builder(desc)),
                        n => getter_type(&desc, n, args.len()),
                    },
                    ProtoType::List(desc) => (name == "get").then_some(ProtoType::Message(desc)),
                }
            }
            _ => None,
        }
    }

    fn static_type(&mut self, path: &[String], name: &str) -> Option<ProtoType> {
        if !STATIC_NAMES.contains(&name) {
            return None;
        }
        let desc = self.message_named(path)?;
        Some(if name == "newBuilder" {
            ProtoType::Builder(desc)
        } else {
            ProtoType::Message(desc)
        })
    }

    /// Records (or forgets) the protobuf type of a variable given `value`.
    pub(super) fn note_proto_variable(&mut self, name: &str, value: Option<&Expr>) {
        if self.protobuf.is_none() {
            return;
        }
        match value.and_then(|v| self.proto_type(v)) {
            Some(found) => {
                self.proto_vars.insert(name.to_string(), found);
            }
            None => {
                self.proto_vars.remove(name);
            }
        }
    }

    /// `for (Item item : msg.getItemsList())`: the loop variable is a message.
    pub(super) fn note_proto_loop(&mut self, name: &str, iterable: &Expr) {
        match self.proto_type(iterable) {
            Some(ProtoType::List(desc)) => {
                self.proto_vars
                    .insert(name.to_string(), ProtoType::Message(desc));
            }
            _ => {
                self.proto_vars.remove(name);
            }
        }
    }

    /// `X.newBuilder()` and the other static calls on a message class, and the enum
    /// statics; `None` when `path` is no protobuf type.
    pub(super) fn proto_static(
        &mut self,
        path: &[String],
        name: &str,
        args: &[Expr],
    ) -> Option<String> {
        if STATIC_NAMES.contains(&name) {
            let Some(desc) = self.message_named(path) else {
                if name == "newBuilder" || name == "parseFrom" {
                    self.problem(format!(
                        "`{}.{name}`: no protobuf message `{}` in the .proto files named by {}",
                        path.join("."),
                        path.last().map_or("", String::as_str),
                        crate::script::protobuf::PROPERTY
                    ));
                    return Some("()".into());
                }
                return None;
            };
            let full = string_literal(desc.full_name());
            let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
            return Some(match (name, args.as_slice()) {
                ("newBuilder", []) => format!("Protobuf::builder({full})"),
                ("newBuilder", [initial]) => format!("Protobuf::builder({full}, {initial})"),
                ("parseFrom", [bytes]) => format!("Protobuf::decode({full}, {bytes})"),
                ("getDefaultInstance", []) => format!("Protobuf::decode({full}, blob())"),
                _ => {
                    self.problem(format!(
                        "`{}.{name}` with {} arguments",
                        path.join("."),
                        args.len()
                    ));
                    "()".into()
                }
            });
        }
        let item = self.enum_named(path)?;
        let full = string_literal(item.full_name());
        let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        Some(match (name, args.as_slice()) {
            ("forNumber", [n]) => format!("Protobuf::enum_name({full}, {n})"),
            ("valueOf", [text]) if text.starts_with('"') => text.clone(),
            ("valueOf", [n]) => format!("Protobuf::enum_name({full}, {n})"),
            _ => {
                self.problem(format!("`{}.{name}` on a protobuf enum", path.join(".")));
                "()".into()
            }
        })
    }

    /// `Enum.VALUE` → `"VALUE"`; `None` when `path` is no protobuf enum.
    pub(super) fn proto_enum_constant(&mut self, path: &[String], name: &str) -> Option<String> {
        let item = self.enum_named(path)?;
        if item.get_value_by_name(name).is_none() {
            self.problem(format!(
                "`{}.{name}`: {} has no such value",
                path.join("."),
                item.full_name()
            ));
        }
        Some(string_literal(name))
    }

    /// A method call on a protobuf value (or a static call on a class path); `None`
    /// when `target` is not protobuf.
    pub(super) fn proto_method(
        &mut self,
        target: &Expr,
        name: &str,
        args: &[Expr],
    ) -> Option<String> {
        self.protobuf.as_ref()?;
        if let Some(path) = class_path(target) {
            if matches!(target, Expr::StaticField { .. } | Expr::Field { .. }) {
                if let Some(text) = self.proto_static(&path, name, args) {
                    return Some(text);
                }
            }
        }
        if let (Some(path), "getNumber") = (class_path(target), name) {
            if let (Some(constant), Some(item)) =
                (path.last(), self.enum_named(&path[..path.len() - 1]))
            {
                if let Some(value) = item.get_value_by_name(constant) {
                    return Some(value.number().to_string());
                }
            }
        }
        if let Some(text) = self.json_format(target, name, args) {
            return Some(text);
        }
        let found = self.proto_type(target)?;
        if let ProtoType::List(desc) = &found {
            // `msg.getItemsList().collect { it.getName() }`: the closure's parameter is
            // an item.
            if let Some(Expr::Closure { params, .. }) = args.last() {
                let name = params.first().map_or("it", String::as_str).to_string();
                self.proto_vars
                    .insert(name, ProtoType::Message(desc.clone()));
            }
            return None;
        }
        let target_text = self.operand(target);
        let args_text: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        let text = match found {
            ProtoType::Builder(desc) => self.builder_call(&desc, &target_text, name, &args_text),
            ProtoType::Message(desc) => self.message_call(&desc, &target_text, name, &args_text),
            ProtoType::List(_) => return None,
        };
        Some(text.unwrap_or_else(|| {
            self.problem(format!("`{name}()` on a protobuf value"));
            "()".into()
        }))
    }

    /// `JsonFormat.printer().print(msg)` and `JsonFormat.parser().merge(json, builder)`.
    fn json_format(&mut self, target: &Expr, name: &str, args: &[Expr]) -> Option<String> {
        let Expr::Static {
            class,
            name: made_by,
            args: made_with,
        } = target
        else {
            return None;
        };
        if class != "JsonFormat" || !made_with.is_empty() {
            return None;
        }
        match (made_by.as_str(), name, args) {
            ("printer", "print", [message]) => match self.proto_type(message) {
                Some(ProtoType::Message(desc) | ProtoType::Builder(desc)) => {
                    let full = string_literal(desc.full_name());
                    Some(format!("Protobuf::to_json({full}, {})", self.expr(message)))
                }
                _ => None,
            },
            ("parser", "merge", [json, builder]) => match self.proto_type(builder) {
                Some(ProtoType::Builder(desc)) => {
                    let full = string_literal(desc.full_name());
                    let json = self.expr(json);
                    Some(format!(
                        "{}.merge(Protobuf::from_json({full}, {json}))",
                        self.operand(builder)
                    ))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// Groovy's property style on a message (`msg.messageId`) and `Outer.Enum.VALUE`.
    pub(super) fn proto_field(&mut self, target: &Expr, name: &str) -> Option<String> {
        self.protobuf.as_ref()?;
        if let Some(path) = class_path(target) {
            if matches!(target, Expr::StaticField { .. } | Expr::Field { .. }) {
                if let Some(text) = self.proto_enum_constant(&path, name) {
                    return Some(text);
                }
            }
        }
        let Some(ProtoType::Message(desc)) = self.proto_type(target) else {
            return None;
        };
        let getter = format!("get{}", super::parse_expr::capitalize(name));
        let target_text = self.operand(target);
        self.message_call(&desc, &target_text, &getter, &[])
    }

    fn builder_call(
        &mut self,
        desc: &MessageDescriptor,
        target: &str,
        name: &str,
        args: &[String],
    ) -> Option<String> {
        let simple = |method: &str, field: &FieldDescriptor| {
            let mut all = vec![string_literal(field.name())];
            all.extend(args.iter().cloned());
            format!("{target}.{method}({})", all.join(", "))
        };
        match (name, args.len()) {
            ("build" | "buildPartial", 0) => return Some(format!("{target}.build()")),
            ("clear", 0) => return Some(format!("{target}.clear()")),
            ("mergeFrom", 1) => return Some(format!("{target}.merge({})", args[0])),
            _ => {}
        }
        for (prefix, method) in [
            ("addAll", "add_all"),
            ("putAll", "put_all"),
            ("add", "add"),
            ("put", "put"),
            ("remove", "remove_key"),
            ("clear", "clear"),
            ("set", "set"),
        ] {
            let Some(rest) = name.strip_prefix(prefix) else {
                continue;
            };
            let base = rest
                .strip_suffix("Value")
                .filter(|b| field_named(desc, b).is_some_and(|f| matches!(f.kind(), Kind::Enum(_))))
                .or_else(|| {
                    rest.strip_suffix("Bytes")
                        .filter(|b| field_named(desc, b).is_some_and(|f| f.kind() == Kind::String))
                })
                .unwrap_or(rest);
            let field = field_named(desc, base)?;
            let fits = match method {
                "add" | "add_all" => field.is_list() && args.len() == 1,
                "put" => field.is_map() && args.len() == 2,
                "put_all" | "remove_key" => field.is_map() && args.len() == 1,
                "clear" => args.is_empty(),
                _ => args.len() == 1 || (field.is_list() && args.len() == 2),
            };
            return fits.then(|| simple(method, &field));
        }
        if name.starts_with("get") || name.starts_with("has") || name.starts_with("contains") {
            let built = format!("{target}.build()");
            return self.message_call(desc, &built, name, args);
        }
        None
    }

    fn message_call(
        &mut self,
        desc: &MessageDescriptor,
        target: &str,
        name: &str,
        args: &[String],
    ) -> Option<String> {
        let full = string_literal(desc.full_name());
        match (name, args.len()) {
            ("toByteArray" | "toByteString", 0) => {
                // `X.newBuilder()….build().toByteArray()`: encode the builder directly.
                return Some(match target.strip_suffix(".build()") {
                    Some(builder) => format!("{builder}.to_bytes()"),
                    None => format!("Protobuf::encode({full}, {target})"),
                });
            }
            ("toBuilder", 0) => return Some(format!("Protobuf::builder({full}, {target})")),
            ("toString", 0) => return Some(format!("Protobuf::to_text({full}, {target})")),
            ("getSerializedSize", 0) => {
                return Some(format!("Protobuf::encode({full}, {target}).len()"))
            }
            ("isInitialized", 0) => return Some("true".into()),
            _ => {}
        }
        let index = |field: &FieldDescriptor| format!("{target}[{}]", string_literal(field.name()));
        if let Some(rest) = name.strip_prefix("has") {
            let field = field_named(desc, rest)?;
            return (args.is_empty() && field.supports_presence())
                .then(|| format!("!is_null({})", index(&field)));
        }
        if let Some(rest) = name.strip_prefix("contains") {
            let field = field_named(desc, rest).filter(FieldDescriptor::is_map)?;
            return (args.len() == 1)
                .then(|| format!("(as_string({}) in {})", args[0], index(&field)));
        }
        let rest = name.strip_prefix("get")?;
        for (suffix, wanted_args) in [
            ("List", 0),
            ("Count", 0),
            ("Map", 0),
            ("OrDefault", 2),
            ("OrThrow", 1),
            ("Value", 0),
            ("Value", 1),
            ("Bytes", 0),
        ] {
            let Some(base) = rest.strip_suffix(suffix) else {
                continue;
            };
            let Some(field) = field_named(desc, base) else {
                continue;
            };
            if args.len() != wanted_args {
                continue;
            }
            let value = index(&field);
            let text = match suffix {
                "List" if field.is_list() => value,
                "Count" if field.is_list() || field.is_map() => format!("{value}.len()"),
                "Map" if field.is_map() => value,
                "OrDefault" if field.is_map() => {
                    format!("Protobuf::map_get({value}, {}, {})", args[0], args[1])
                }
                "OrThrow" if field.is_map() => format!("Protobuf::map_get({value}, {})", args[0]),
                "Value" => match field.kind() {
                    Kind::Enum(item) => {
                        let item = string_literal(item.full_name());
                        if args.is_empty() {
                            format!("Protobuf::enum_number({item}, {value})")
                        } else {
                            format!("Protobuf::enum_number({item}, {value}[{}])", args[0])
                        }
                    }
                    _ => continue,
                },
                "Bytes" if field.kind() == Kind::String => format!("{value}.getBytes()"),
                _ => continue,
            };
            return Some(text);
        }
        let field = field_named(desc, rest)?;
        let value = index(&field);
        match (args.len(), field.is_list(), field.is_map(), field.kind()) {
            (1, true, _, _) => Some(format!("{value}[{}]", args[0])),
            (0, false, false, Kind::Message(sub)) => Some(format!(
                "Protobuf::or_default({value}, {})",
                string_literal(sub.full_name())
            )),
            (0, ..) => Some(value),
            _ => None,
        }
    }
}

/// The field whose Java accessor base is `base` (`MessageId` → `message_id`).
fn field_named(desc: &MessageDescriptor, base: &str) -> Option<FieldDescriptor> {
    if base.is_empty() {
        return None;
    }
    desc.fields().find(|f| java_name(f.name()) == base)
}

/// The protobuf type a getter of `desc` returns.
fn getter_type(desc: &MessageDescriptor, name: &str, args: usize) -> Option<ProtoType> {
    let rest = name.strip_prefix("get")?;
    if let Some(field) = rest.strip_suffix("List").and_then(|b| field_named(desc, b)) {
        if let (Kind::Message(sub), true, 0) = (field.kind(), field.is_list(), args) {
            return Some(ProtoType::List(sub));
        }
    }
    let field = field_named(desc, rest)?;
    match (field.kind(), field.is_list(), field.is_map(), args) {
        (Kind::Message(sub), false, false, 0) | (Kind::Message(sub), true, _, 1) => {
            Some(ProtoType::Message(sub))
        }
        (Kind::Message(sub), true, false, 0) => Some(ProtoType::List(sub)),
        _ => None,
    }
}
