//! Rhai expressions. JMeter's bindings keep their calls (`vars.get("a")`); Groovy's
//! property style on them becomes calls (`vars.a` → `vars.get("a")`,
//! `prev.responseCode` → `prev.getResponseCode()`); library classes become the shim
//! modules (`Integer.parseInt` → `Integer::parseInt`, `new Random()` →
//! `Random::create()`); what Rhai spells differently goes through a shim function
//! (`truthy`, `elvis`, `as_int`, `regex_matcher`...).

use super::ast::{Expr, Interpolation, MapKey};
use super::emit::Emitter;
use super::names::{
    is_binding, is_exception_class, looks_like_class, rhai_name, LIST_CLASSES, MAP_CLASSES,
    RHAI_RESERVED,
};
use super::walk::changes_variables;
use super::SourceLanguage;
use crate::script::shims;

/// Bindings whose Groovy properties are Java getters and setters.
const BEAN_BINDINGS: &[&str] = &["prev", "sampler", "ctx", "SampleResult", "AssertionResult"];

/// Methods whose result is already a boolean (no `truthy` needed in a condition).
const BOOLEAN_METHODS: &[&str] = &[
    "equals",
    "equalsIgnoreCase",
    "contains",
    "containsKey",
    "containsValue",
    "startsWith",
    "endsWith",
    "isEmpty",
    "matches",
    "any",
    "every",
    "exists",
    "isSuccessful",
    "hasNext",
    "isFile",
    "isDirectory",
    "toBoolean",
    "parseBoolean",
    "isBlank",
    "isNotEmpty",
    "isNotBlank",
    "isNumber",
    "isInteger",
    "is_empty",
];

/// Global functions of Groovy and JavaScript, by the shim call they become.
const GLOBAL_CALLS: &[(&str, &str)] = &[
    ("println", "print"),
    ("print", "print"),
    ("sleep", "Thread::sleep"),
    ("parseInt", "Integer::parseInt"),
    ("parseFloat", "Double::parseDouble"),
    ("String", "as_string"),
    ("Number", "as_double"),
    ("isNaN", "is_nan_value"),
];

impl Emitter {
    /// An expression in a condition: Rhai needs a boolean, Groovy accepts any value.
    pub(super) fn condition(&mut self, expr: &Expr) -> String {
        if is_boolean(expr) {
            let text = self.expr(expr);
            match expr {
                Expr::Binary(..) if text.starts_with('(') && text.ends_with(')') => {
                    text[1..text.len() - 1].to_string()
                }
                _ => text,
            }
        } else {
            format!("truthy({})", self.expr(expr))
        }
    }

    /// An expression as the operand of an operator (parenthesised when compound).
    pub(super) fn operand(&mut self, expr: &Expr) -> String {
        let text = self.expr(expr);
        match expr {
            Expr::Binary(..)
            | Expr::Ternary(..)
            | Expr::Range { .. }
            | Expr::Assign(..)
            | Expr::Unary(..) => {
                if text.starts_with('(') && text.ends_with(')') {
                    text
                } else {
                    format!("({text})")
                }
            }
            _ => text,
        }
    }

    pub(super) fn expr(&mut self, expr: &Expr) -> String {
        match expr {
            Expr::Null => "()".into(),
            Expr::Bool(b) => b.to_string(),
            Expr::Int(n) => n.to_string(),
            Expr::Float(f) => float_literal(*f),
            Expr::Str(text) => string_literal(text),
            Expr::Interpolated(parts) => self.interpolated(parts),
            Expr::Ident(name) => self.identifier(name),
            Expr::Field { target, name, safe } => self.field(target, name, *safe),
            Expr::Call { name, args } => self.call(name, args),
            Expr::Method {
                target,
                name,
                args,
                safe,
                spread,
            } => self.method(target, name, args, *safe, *spread),
            Expr::Static { class, name, args } => self.static_call(class, name, args),
            Expr::StaticField { class, name } => self.static_field(class, name),
            Expr::Index(target, index) => {
                format!("{}[{}]", self.operand(target), self.expr(index))
            }
            Expr::Unary("!", operand) => format!("!{}", self.negated(operand)),
            Expr::Unary("~", operand) => format!("(-{} - 1)", self.operand(operand)),
            Expr::Unary(op, operand) => format!("{op}{}", self.operand(operand)),
            Expr::Step { op, prefix, target } => self.step_value(op, *prefix, target),
            Expr::Binary(op, left, right) => self.binary(op, left, right),
            Expr::Assign(op, target, value) => {
                if changes_variables(target) {
                    // The target is written twice below: its changes would happen twice.
                    self.problem(
                        "an assignment as a value into an element whose index changes a variable"
                            .into(),
                    );
                    return "()".into();
                }
                // A statement block is an expression in Rhai: assign, then yield the value.
                let assignment = self.assignment(op, target, value);
                format!("{{ {assignment}; {} }}", self.expr(target))
            }
            Expr::Ternary(condition, chosen, otherwise) => format!(
                "(if {} {{ {} }} else {{ {} }})",
                self.condition(condition),
                self.expr(chosen),
                self.expr(otherwise)
            ),
            Expr::Elvis(value, fallback) => {
                format!("elvis({}, {})", self.expr(value), self.expr(fallback))
            }
            Expr::New { class, args } => self.construct(class, args),
            Expr::NewArray { size, fill, items } => match size {
                Some(size) => format!("new_array({}, {})", self.expr(size), self.expr(fill)),
                None => self.list(items),
            },
            Expr::Convert(class, value) => self.convert(class, value),
            Expr::InstanceOf(value, class) => {
                format!(
                    "instance_of({}, {})",
                    self.expr(value),
                    string_literal(class)
                )
            }
            Expr::List(items) => self.list(items),
            Expr::Map(entries) => self.map(entries),
            Expr::Range {
                from,
                to,
                inclusive,
            } => format!(
                "({}{}{})",
                self.operand(from),
                if *inclusive { "..=" } else { ".." },
                self.operand(to)
            ),
            Expr::Closure { params, body } => self.closure(params, body),
            Expr::Unsupported => "()".into(),
        }
    }

    /// `i++` or `++i` used as a value: a block that steps and yields the old or new value.
    fn step_value(&mut self, op: &str, prefix: bool, target: &Expr) -> String {
        if changes_variables(target) {
            // The target is written twice below: its changes would happen twice.
            self.problem(format!(
                "`{op}` as a value on an element whose index changes a variable"
            ));
            return "()".into();
        }
        let assign = if op == "++" { "+=" } else { "-=" };
        let step = self.assignment(assign, target, &Expr::Int(1));
        let current = self.expr(target);
        if prefix {
            format!("{{ {step}; {current} }}")
        } else {
            let undo = if op == "++" { "-" } else { "+" };
            format!("{{ {step}; {current} {undo} 1 }}")
        }
    }

    fn negated(&mut self, operand: &Expr) -> String {
        if is_boolean(operand) {
            self.operand(operand)
        } else {
            format!("truthy({})", self.expr(operand))
        }
    }

    fn identifier(&mut self, name: &str) -> String {
        if is_binding(name) {
            return name.to_string();
        }
        if looks_like_class(name) && shims::is_static_class(name) {
            self.problem(format!("class `{name}` used as a value"));
        }
        rhai_name(name)
    }

    fn interpolated(&mut self, parts: &[Interpolation]) -> String {
        let text_is_plain = parts.iter().all(|p| match p {
            Interpolation::Text(t) => !t.contains("${") && !t.contains('`'),
            Interpolation::Code(_) => true,
        });
        if text_is_plain {
            let mut out = String::from("`");
            for part in parts {
                match part {
                    Interpolation::Text(text) => out.push_str(text),
                    Interpolation::Code(code) => {
                        out.push_str("${");
                        out.push_str(&self.expr(code));
                        out.push('}');
                    }
                }
            }
            out.push('`');
            return out;
        }
        let mut pieces = vec!["\"\"".to_string()];
        for part in parts {
            pieces.push(match part {
                Interpolation::Text(text) => string_literal(text),
                Interpolation::Code(code) => format!("as_string({})", self.expr(code)),
            });
        }
        format!("({})", pieces.join(" + "))
    }

    fn field(&mut self, target: &Expr, name: &str, safe: bool) -> String {
        if let Some(text) = self.proto_field(target, name) {
            return text;
        }
        if let Expr::Ident(binding) = target {
            if binding == "vars" || binding == "props" {
                return format!("{binding}.get({})", string_literal(name));
            }
        }
        if is_bean(target) {
            return format!("{}.{}()", self.expr(target), getter_name(name));
        }
        if RHAI_RESERVED.contains(&name) {
            self.problem(format!("property `{name}`, a word Rhai reserves"));
        }
        let dot = if safe { "?." } else { "." };
        format!("{}{dot}{name}", self.operand(target))
    }

    fn call(&mut self, name: &str, args: &[Expr]) -> String {
        let mut args_text: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        if let Some(bindings) = self.functions.get(name) {
            args_text.extend(bindings.iter().cloned());
            return format!("{}({})", rhai_name(name), args_text.join(", "));
        }
        if self.closure_variables.contains(name) {
            return format!("{}.call({})", rhai_name(name), args_text.join(", "));
        }
        if let Some((_, shim)) = GLOBAL_CALLS.iter().find(|(n, _)| *n == name) {
            if *shim == "print" && args_text.is_empty() {
                return "print(\"\")".into();
            }
            return format!("{shim}({})", args_text.join(", "));
        }
        if self.language == SourceLanguage::Groovy && !looks_like_class(name) {
            // A closure held in a variable of an enclosing scope (`def f = {..}; f(1)`)
            // is the only other callable a script can name.
            return format!("{}.call({})", rhai_name(name), args_text.join(", "));
        }
        self.problem(format!("call of unknown function `{name}`"));
        format!("{}({})", rhai_name(name), args_text.join(", "))
    }

    fn method(
        &mut self,
        target: &Expr,
        name: &str,
        args: &[Expr],
        safe: bool,
        spread: bool,
    ) -> String {
        if let Some(text) = self.proto_method(target, name, args) {
            return text;
        }
        if let Expr::StaticField { class, name: field } = target {
            if class == "System" && (field == "out" || field == "err") {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                return match name {
                    "println" | "print" if args.is_empty() => "print(\"\")".into(),
                    "println" | "print" => format!("print({})", args.join(", ")),
                    _ => {
                        self.problem(format!("`System.{field}.{name}`"));
                        "()".into()
                    }
                };
            }
        }
        if let Expr::Static {
            class,
            name: static_name,
            ..
        } = target
        {
            if class == "Thread" && static_name == "currentThread" {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                return match name {
                    "getName" => "vars.getThreadName()".into(),
                    "sleep" => format!("Thread::sleep({})", args.join(", ")),
                    _ => {
                        self.problem(format!("`Thread.currentThread().{name}`"));
                        "()".into()
                    }
                };
            }
        }
        let name = match name {
            // `debug` and `print` are Rhai keywords; the logger's `trace` logs at DEBUG
            // and writers have `write`.
            "debug" => "trace",
            "print" => "write",
            other => {
                if RHAI_RESERVED.contains(&other) {
                    self.problem(format!("method `{other}`, a word Rhai reserves"));
                }
                other
            }
        };
        let target_text = self.operand(target);
        let args_text: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        let two_parameter_closure =
            matches!(args.last(), Some(Expr::Closure { params, .. }) if params.len() == 2);
        let name = match name {
            "each" | "collect" | "find" | "findAll" | "any" | "every" | "collectEntries"
                if two_parameter_closure =>
            {
                format!("{name}_kv")
            }
            "getClass" => {
                self.problem("`getClass()`".into());
                name.to_string()
            }
            _ => name.to_string(),
        };
        if spread {
            return format!(
                "{target_text}.collect(|_item| _item.{name}({}))",
                args_text.join(", ")
            );
        }
        let dot = if safe { "?." } else { "." };
        format!("{target_text}{dot}{name}({})", args_text.join(", "))
    }

    fn static_call(&mut self, class: &str, name: &str, args: &[Expr]) -> String {
        if let Some(text) = self.proto_static(&[class.to_string()], name, args) {
            return text;
        }
        let mut args_text: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        match (class, name) {
            ("JMeterUtils", "getProperty" | "getPropDefault") => {
                return format!("props.get({})", args_text.join(", "));
            }
            ("JMeterUtils", "setProperty") => {
                return format!("props.put({})", args_text.join(", "));
            }
            ("JMeterContextService", "getContext") => return "ctx".into(),
            ("String", "format") if !args_text.is_empty() => {
                let rest = args_text.split_off(1);
                args_text.push(format!("[{}]", rest.join(", ")));
            }
            _ => {}
        }
        if !shims::has_static(class, name) {
            self.problem(format!("`{class}.{name}`"));
        } else {
            self.check_event_stream_class(class);
        }
        format!("{class}::{name}({})", args_text.join(", "))
    }

    fn static_field(&mut self, class: &str, name: &str) -> String {
        if let Some(text) = self.proto_enum_constant(&[class.to_string()], name) {
            return text;
        }
        if !shims::has_static(class, name) {
            self.problem(format!("`{class}.{name}`"));
        }
        format!("{class}::{name}")
    }

    fn binary(&mut self, op: &str, left: &Expr, right: &Expr) -> String {
        match op {
            "&&" | "||" => {
                let l = self.logical_operand(left);
                let r = self.logical_operand(right);
                format!("({l} {op} {r})")
            }
            // Rhai has no `==` between a custom type and `()`: test for null directly.
            "==" | "!=" | "===" | "!==" if *right == Expr::Null || *left == Expr::Null => {
                let value = if *right == Expr::Null { left } else { right };
                let negation = if op.starts_with('!') { "!" } else { "" };
                format!("{negation}is_null({})", self.expr(value))
            }
            "=~" => format!("regex_matcher({}, {})", self.expr(left), self.expr(right)),
            "==~" => format!("regex_matches({}, {})", self.expr(left), self.expr(right)),
            "<=>" => format!("compare_to({}, {})", self.expr(left), self.expr(right)),
            "/" if self.language != SourceLanguage::Java
                && self.language != SourceLanguage::BeanShell =>
            {
                format!("divide({}, {})", self.expr(left), self.expr(right))
            }
            "<<" => format!("left_shift({}, {})", self.expr(left), self.expr(right)),
            _ => {
                let op = match op {
                    "===" => "==",
                    "!==" => "!=",
                    ">>>" => ">>",
                    other => other,
                };
                format!("({} {op} {})", self.operand(left), self.operand(right))
            }
        }
    }

    fn logical_operand(&mut self, expr: &Expr) -> String {
        if is_boolean(expr) {
            self.operand(expr)
        } else {
            format!("truthy({})", self.expr(expr))
        }
    }

    fn construct(&mut self, class: &str, args: &[Expr]) -> String {
        let args_text: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        if LIST_CLASSES.contains(&class) {
            return match args_text.first() {
                Some(source) => format!("as_list({source})"),
                None => "[]".into(),
            };
        }
        if MAP_CLASSES.contains(&class) {
            return match args_text.first() {
                Some(source) => format!("as_map({source})"),
                None => "#{}".into(),
            };
        }
        if is_exception_class(class) {
            return match args_text.first() {
                Some(message) => message.clone(),
                None => string_literal(class),
            };
        }
        if !shims::has_static(class, "create") {
            self.problem(format!("class `{class}`"));
        } else {
            self.check_event_stream_class(class);
        }
        format!("{class}::create({})", args_text.join(", "))
    }

    /// Apache HttpClient runs in scripts only to read an event stream: a script that
    /// never asks for `text/event-stream` is reported, not half translated.
    fn check_event_stream_class(&mut self, class: &str) {
        if !self.event_stream && shims::sse_http::CLASSES.contains(&class) {
            self.problem(format!(
                "`{class}` outside an event stream (scripts use Apache HttpClient only to \
                 read `text/event-stream`; send other requests with an HTTP Request sampler)"
            ));
        }
    }

    fn convert(&mut self, class: &str, value: &Expr) -> String {
        let value = self.expr(value);
        let shim = match class {
            "int" | "Integer" | "long" | "Long" | "short" | "Short" | "byte" | "Byte"
            | "BigInteger" => "as_int",
            "double" | "Double" | "float" | "Float" | "BigDecimal" | "Number" => "as_double",
            "String" | "GString" | "CharSequence" => "as_string",
            "boolean" | "Boolean" => "truthy",
            // Bytes stay a blob (`(byte[]) vars.getObject("payload")`).
            "byte[]" | "ByteString" => return value,
            "List" | "ArrayList" | "Set" | "HashSet" | "Collection" => "as_list",
            _ if class.ends_with("[]") => "as_list",
            // Casts that only restate what a value already is.
            "Object" | "Map" | "HashMap" | "LinkedHashMap" | "TreeMap" | "Iterable"
            | "Iterator" | "Closure" | "def" | "var" | "Comparable" => return value,
            // A cast to a class with no shim: its methods would fail at run time.
            _ if !shims::is_static_class(class) => {
                self.problem(format!("class `{class}`"));
                return value;
            }
            _ => return value,
        };
        format!("{shim}({value})")
    }

    fn list(&mut self, items: &[Expr]) -> String {
        let items: Vec<String> = items.iter().map(|i| self.expr(i)).collect();
        format!("[{}]", items.join(", "))
    }

    fn map(&mut self, entries: &[(MapKey, Expr)]) -> String {
        if entries
            .iter()
            .any(|(k, _)| matches!(k, MapKey::Computed(_)))
        {
            let mut flat = Vec::new();
            for (key, value) in entries {
                flat.push(match key {
                    MapKey::Name(name) => string_literal(name),
                    MapKey::Computed(key) => self.expr(key),
                });
                flat.push(self.expr(value));
            }
            return format!("map_of([{}])", flat.join(", "));
        }
        let entries: Vec<String> = entries
            .iter()
            .map(|(key, value)| {
                let MapKey::Name(name) = key else {
                    unreachable!("computed keys are handled above")
                };
                format!("{}: {}", string_literal(name), self.expr(value))
            })
            .collect();
        format!("#{{{}}}", entries.join(", "))
    }

    fn closure(&mut self, params: &[String], body: &[super::ast::Stmt]) -> String {
        let names: Vec<String> = params.iter().map(|p| rhai_name(p)).collect();
        let text = self.closure_body(params, body);
        format!(
            "|{}| {{\n{}{}}}",
            names.join(", "),
            text,
            self.indentation()
        )
    }

    /// An assignment statement (without the `;`).
    pub(super) fn assignment(&mut self, op: &str, target: &Expr, value: &Expr) -> String {
        if let Expr::Field {
            target: object,
            name,
            ..
        } = target
        {
            if let Expr::Ident(binding) = &**object {
                if (binding == "vars" || binding == "props") && op == "=" {
                    let value = self.expr(value);
                    return format!("{binding}.put({}, {value})", string_literal(name));
                }
            }
            if is_bean(object) && op == "=" {
                let value = self.expr(value);
                return format!("{}.set{}({value})", self.expr(object), capitalize(name));
            }
        }
        if let Expr::Index(object, _) | Expr::Field { target: object, .. } = target {
            if matches!(&**object, Expr::Ident(b) if b == "vars" || b == "props") && op != "=" {
                self.problem(format!("`{op}` on a variable subscript"));
            }
            if is_call_result(object) {
                self.problem("assignment into a value a call returned".into());
            }
        }
        let op = match op {
            ">>>=" => ">>=",
            other => other,
        };
        if op == "/="
            && self.language != SourceLanguage::Java
            && self.language != SourceLanguage::BeanShell
        {
            let target_text = self.expr(target);
            let value = self.expr(value);
            return format!("{target_text} = divide({target_text}, {value})");
        }
        let target_text = self.expr(target);
        let value_text = self.expr(value);
        if let (Expr::Ident(name), "=") = (target, op) {
            self.note_proto_variable(name, Some(value));
        }
        format!("{target_text} {op} {value_text}")
    }
}

/// Whether `expr` is written as a call in Rhai (which cannot be assigned into).
fn is_call_result(expr: &Expr) -> bool {
    match expr {
        Expr::Call { .. } | Expr::Method { .. } | Expr::Static { .. } => true,
        Expr::Field { target, .. } => {
            matches!(&**target, Expr::Ident(b) if b == "vars" || b == "props") || is_bean(target)
        }
        Expr::Index(object, _) => is_call_result(object),
        _ => false,
    }
}

fn is_bean(target: &Expr) -> bool {
    match target {
        Expr::Ident(name) => BEAN_BINDINGS.contains(&name.as_str()),
        Expr::Field { target, .. } => is_bean(target),
        Expr::Method { target, name, .. } => name.starts_with("get") && is_bean(target),
        _ => false,
    }
}

/// Groovy's `x.successful` and `x.responseCode` as Java getters.
fn getter_name(property: &str) -> String {
    match property {
        "successful" | "failure" | "error" | "ignore" => format!("is{}", capitalize(property)),
        _ => format!("get{}", capitalize(property)),
    }
}

fn capitalize(name: &str) -> String {
    super::parse_expr::capitalize(name)
}

pub(super) fn is_boolean(expr: &Expr) -> bool {
    match expr {
        Expr::Bool(_) | Expr::InstanceOf(..) => true,
        Expr::Call { name, .. } => name == "is_null",
        Expr::Unary("!", _) => true,
        Expr::Binary(op, ..) => matches!(
            *op,
            "==" | "!=" | "===" | "!==" | "<" | ">" | "<=" | ">=" | "&&" | "||" | "in" | "==~"
        ),
        Expr::Method { name, .. } | Expr::Static { name, .. } => {
            BOOLEAN_METHODS.contains(&name.as_str())
        }
        _ => false,
    }
}

pub(super) fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn float_literal(value: f64) -> String {
    let text = format!("{value:?}");
    if text.contains('.') || text.contains("inf") || text.contains("NaN") {
        return text;
    }
    match text.find('e') {
        Some(e) => format!("{}.0{}", &text[..e], &text[e..]),
        None => format!("{text}.0"),
    }
}
