//! What element constructors use while the plan is built: template compilation, typed
//! property access with JMeter's absent/empty rules, and diagnostics with locations.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use crate::user_state::EvalContext;

use crate::expr::FunctionRegistry;

use crate::expr::Template;
use crate::jmx::{Element, Property};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Worth knowing; does not change the run.
    Warning,
    /// The plan cannot run as written (unsupported element that changes the load or the
    /// verdict, invalid setting).
    Error,
}

/// A problem found in a plan, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// `file:line:column`.
    pub location: String,
    /// `Test Plan › Users › Login [HTTPSamplerProxy]`.
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let level = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(
            f,
            "{level}: {}: {} ({})",
            self.location, self.message, self.path
        )
    }
}

/// A setting read from a property: a template evaluated at use time, then parsed.
/// A present but empty or unparseable number is 0, as JMeter's getters return.
#[derive(Debug, Clone)]
pub struct Setting {
    template: Template,
    absent_default: Option<&'static str>,
    present: bool,
}

impl Setting {
    pub fn constant(text: &str) -> Setting {
        Setting {
            template: Template::literal(text),
            absent_default: None,
            present: true,
        }
    }
    /// A present setting from an already compiled template.
    pub fn from_template(template: Template) -> Setting {
        Setting {
            template,
            absent_default: None,
            present: true,
        }
    }
    pub fn raw(&self) -> &str {
        if self.present {
            self.template.raw()
        } else {
            self.absent_default.unwrap_or("")
        }
    }
    pub fn is_present(&self) -> bool {
        self.present
    }
    pub fn template(&self) -> &Template {
        &self.template
    }
    pub fn text(&self, cx: &mut EvalContext<'_>) -> String {
        if self.present {
            self.template.eval(cx)
        } else {
            self.absent_default.unwrap_or("").to_string()
        }
    }
    pub fn i64(&self, cx: &mut EvalContext<'_>) -> i64 {
        parse_i64(&self.text(cx))
    }
    pub fn f64(&self, cx: &mut EvalContext<'_>) -> f64 {
        self.text(cx).trim().parse().unwrap_or(0.0)
    }
    pub fn bool(&self, cx: &mut EvalContext<'_>) -> bool {
        self.text(cx).trim().eq_ignore_ascii_case("true")
    }
    /// The value when it needs no context, else `None`.
    pub fn constant_text(&self) -> Option<&str> {
        if !self.present {
            return Some(self.absent_default.unwrap_or(""));
        }
        self.template.is_constant().then(|| self.template.raw())
    }
}

/// Parses an integer as JMeter's `getPropertyAsLong` does: trimmed, 0 when invalid.
pub fn parse_i64(text: &str) -> i64 {
    text.trim().parse().unwrap_or(0)
}

/// Seconds in jmeter-plugins' short form (`90`, `30s`, `1h30m`, `2d`): digits, each run
/// optionally followed by a unit. Load profiles given as properties use it.
pub fn plugin_seconds(text: &str) -> Result<i64, String> {
    let mut total = 0i64;
    let mut digits = String::new();
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c.to_ascii_lowercase() {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(format!("{c:?} is not a time unit (s, m, h, d)")),
        };
        let value: i64 = digits
            .parse()
            .map_err(|_| format!("no number before {c:?}"))?;
        total += value * unit;
        digits.clear();
    }
    if !digits.is_empty() {
        total += digits.parse::<i64>().map_err(|e| e.to_string())?;
    }
    Ok(total)
}

/// The chunks of a jmeter-plugins load property (`spawn(1,0,5s,1m,0) spawn(...)`,
/// `const(10,1m) line(...)`): the text is cut at each `)` and every chunk at `(` and `,`;
/// `parse` reads the parts (the chunk's kind first) into rows. A chunk that does not
/// read is left out, as the plugins leave it out, and returned with the reason.
pub fn plugin_chunks<T>(
    text: &str,
    parse: impl Fn(&[&str]) -> Result<Vec<T>, String>,
) -> (Vec<T>, Vec<String>) {
    let mut rows = Vec::new();
    let mut ignored = Vec::new();
    for chunk in text.split(')') {
        if chunk.trim().is_empty() {
            continue;
        }
        let parts: Vec<&str> = chunk.split(['(', ',']).collect();
        match parse(&parts) {
            Ok(more) => rows.extend(more),
            Err(why) => ignored.push(format!("{:?}: {why}", chunk.trim())),
        }
    }
    (rows, ignored)
}

/// Construction context for one element.
pub struct BuildContext<'a> {
    pub registry: &'a FunctionRegistry,
    pub element: &'a Element,
    /// Path of the element, for diagnostics.
    pub path: Arc<str>,
    /// Unique id of the element in the plan.
    pub id: usize,
    /// The run's JMeter properties as the command line gave them (`-J`, `-q`,
    /// `user.properties`), for elements whose meaning a property decides at plan time
    /// (the Java Request class table). Empty when a plan is built without a run.
    pub properties: &'a HashMap<String, String>,
    diagnostics: &'a mut Vec<Diagnostic>,
}

/// The properties of a plan built without any (unit tests, tools).
pub fn no_properties() -> &'static HashMap<String, String> {
    static EMPTY: OnceLock<HashMap<String, String>> = OnceLock::new();
    EMPTY.get_or_init(HashMap::new)
}

impl<'a> BuildContext<'a> {
    pub fn new(
        registry: &'a FunctionRegistry,
        element: &'a Element,
        path: Arc<str>,
        id: usize,
        diagnostics: &'a mut Vec<Diagnostic>,
    ) -> Self {
        BuildContext {
            registry,
            element,
            path,
            id,
            properties: no_properties(),
            diagnostics,
        }
    }

    /// The same context, reading plan-time properties from `properties`.
    pub fn with_properties(mut self, properties: &'a HashMap<String, String>) -> Self {
        self.properties = properties;
        self
    }

    /// Runs `build` with a context that reads `element` in place of this one (same
    /// path, id, properties and diagnostics): for a plugin's legacy element whose
    /// properties are translated to its successor's names before it is read.
    pub fn for_element<R>(
        &mut self,
        element: &Element,
        build: impl FnOnce(&mut BuildContext<'_>) -> R,
    ) -> R {
        let mut translated = BuildContext {
            registry: self.registry,
            element,
            path: self.path.clone(),
            id: self.id,
            properties: self.properties,
            diagnostics: &mut *self.diagnostics,
        };
        build(&mut translated)
    }

    pub fn error(&mut self, message: impl Into<String>) {
        self.push(Severity::Error, message.into());
    }

    pub fn warn(&mut self, message: impl Into<String>) {
        self.push(Severity::Warning, message.into());
    }

    fn push(&mut self, severity: Severity, message: String) {
        self.diagnostics.push(Diagnostic {
            severity,
            location: self.element.location(),
            path: self.path.to_string(),
            message,
        });
    }

    /// Compiles text found in this element into a template, reporting unknown functions.
    pub fn compile(&mut self, text: &str) -> Template {
        match Template::compile(text, self.registry) {
            Ok(compiled) => {
                for name in compiled.unknown_functions {
                    let text = excerpt(text);
                    self.error(format!("unknown function {name} in {text:?}"));
                }
                for warning in compiled.warnings {
                    self.warn(warning);
                }
                compiled.template
            }
            Err(err) => {
                let quoted = excerpt(text);
                self.error(format!("invalid expression {quoted:?}: {err}"));
                Template::literal(text)
            }
        }
    }

    /// The folder of the plan file this element comes from: files the element names are
    /// looked for in the working folder, then here (see `build::resolve_input`).
    pub fn plan_dir(&self) -> std::path::PathBuf {
        let file = &self.element.file;
        file.parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default()
    }

    /// Raw text of a scalar property, if present.
    pub fn raw(&self, name: &str) -> Option<&'a str> {
        self.element.str_prop(name)
    }

    /// A string property as a template; absent means empty.
    pub fn template(&mut self, name: &str) -> Template {
        let text = self.raw(name).unwrap_or("");
        self.compile(text)
    }

    /// A setting with the value JMeter uses when the property is absent.
    pub fn setting(&mut self, name: &str, absent_default: &'static str) -> Setting {
        match self.raw(name) {
            Some(text) => Setting {
                template: self.compile(text),
                absent_default: Some(absent_default),
                present: true,
            },
            None => Setting {
                template: Template::literal(absent_default),
                absent_default: Some(absent_default),
                present: false,
            },
        }
    }

    /// A boolean known at plan time (JMeter's `getPropertyAsBoolean` on the raw text).
    pub fn flag(&self, name: &str, absent_default: bool) -> bool {
        match self.raw(name) {
            Some(text) => text.trim().eq_ignore_ascii_case("true"),
            None => absent_default,
        }
    }

    /// A jmeter-plugins table property (a collection of rows, each a collection of `N`
    /// string cells, such as the Ultimate Thread Group's schedule) as settings; a
    /// missing cell reads `0`, a missing table no rows.
    pub fn setting_table<const N: usize>(&mut self, name: &str) -> Vec<[Setting; N]> {
        let element = self.element;
        let Some(table) = element.prop(name) else {
            return Vec::new();
        };
        table
            .children()
            .iter()
            .map(|row| {
                let cells = row.children();
                std::array::from_fn(|i| {
                    let text = cells.get(i).and_then(Property::as_str).unwrap_or("0");
                    Setting::from_template(self.compile(text))
                })
            })
            .collect()
    }

    /// Name/value pairs of an `Arguments` element property (`elementProp name=.. elementType="Arguments"`),
    /// names trimmed, values compiled.
    pub fn arguments(&mut self, name: &str) -> Vec<(String, Template)> {
        let Some(prop) = self.element.prop(name) else {
            return Vec::new();
        };
        let rows: Vec<(String, String)> = argument_rows(prop);
        rows.into_iter()
            .map(|(n, v)| {
                let value = self.compile(&v);
                (n, value)
            })
            .collect()
    }
}

/// Reads `(Argument.name, Argument.value)` rows out of an `Arguments` property.
pub fn argument_rows(prop: &Property) -> Vec<(String, String)> {
    let items = match prop.child("Arguments.arguments") {
        Some(collection) => collection.children(),
        None => prop.children(),
    };
    items
        .iter()
        .map(|arg| {
            let name = arg
                .child("Argument.name")
                .and_then(Property::as_str)
                .unwrap_or("")
                .trim()
                .to_string();
            let value = arg
                .child("Argument.value")
                .and_then(Property::as_str)
                .unwrap_or("")
                .to_string();
            (name, value)
        })
        .collect()
}

/// The start of a long text quoted in a message: enough to find it in the plan, short
/// enough that a hostile value cannot flood the console.
fn excerpt(text: &str) -> std::borrow::Cow<'_, str> {
    const SHOWN: usize = 200;
    match text.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &text[..cut]).into(),
        None => text.into(),
    }
}
