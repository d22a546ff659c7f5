//! `__XPath(file, xpath)`: the nodes an XPath 1.0 expression selects in an XML file,
//! handed out one per call in turn (wrapping), as JMeter's `XPathWrapper` and
//! `XPathFileContainer` do.
//!
//! One cursor is shared by every user for a (file, expression) pair. The file is parsed
//! once, namespace-unaware like JMeter's default parser, and each node gives JMeter's
//! value (`XPathUtil.getValueForNode`: an element's first child's text, an attribute's
//! value); an element whose first child is an element gives `null`, as JMeter prints its
//! null result. An unreadable file or an expression that selects no nodes gives "". The
//! XPath and DOM come from `plan::extractors` (`xpath`, `xml_dom`); a constant expression
//! is compiled when the plan is built, so an invalid one is a plan error.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use super::files::resolve;
use super::log::emit;
use super::{arg, stateless, Constructor, Function};
use crate::expr::Template;
use crate::query::xml_dom::parse_xml;
use crate::query::xpath::node_value;
use crate::query::xpath::{Value, XPath};
use crate::query::xpath_parse::Version;
use crate::user_state::EvalContext;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[("__XPath", xpath)];

/// The values of one file and expression, and the next to hand out.
struct Container {
    values: Vec<Option<String>>,
    next: Mutex<usize>,
}

impl Container {
    fn next_value(&self) -> String {
        let mut next = self.next.lock();
        let row = *next;
        *next = if row + 1 >= self.values.len() {
            0
        } else {
            row + 1
        };
        self.values[row]
            .clone()
            .unwrap_or_else(|| "null".to_string())
    }
}

/// By (plan file, file name + expression), as JMeter keys them.
type Containers = HashMap<(PathBuf, String), Option<Arc<Container>>>;

fn containers() -> &'static Mutex<Containers> {
    static STATE: OnceLock<Mutex<Containers>> = OnceLock::new();
    STATE.get_or_init(Mutex::default)
}

fn load(file: &str, expression: &str, ctx: &EvalContext<'_>) -> Result<Container, String> {
    let path = resolve(file, ctx.test);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let dom = parse_xml(&text, false).map_err(|e| e.to_string())?;
    let xpath = XPath::compile(expression, Version::One)?;
    let Value::Nodes(nodes) = xpath.evaluate(&dom, &[])? else {
        return Err(format!("{expression} does not select nodes"));
    };
    Ok(Container {
        values: nodes
            .into_iter()
            .map(|n| node_value(&dom, n, false))
            .collect(),
        next: Mutex::new(0),
    })
}

fn xpath(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    if let Some(expression) = args.get(1).and_then(Template::as_literal) {
        XPath::compile(expression, Version::One)
            .map_err(|e| format!("invalid XPath expression {expression:?}: {e}"))?;
    }
    stateless(args, 2, 2, |args, ctx| {
        let file = arg(args, 0, ctx);
        let expression = arg(args, 1, ctx);
        let key = (ctx.test.plan_file.clone(), format!("{file}{expression}"));
        let container = {
            let mut state = containers().lock();
            state
                .entry(key)
                .or_insert_with(|| match load(&file, &expression, ctx) {
                    Ok(container) => Some(Arc::new(container)),
                    Err(err) => {
                        emit("WARN", &format!("__XPath: {err}"));
                        None
                    }
                })
                .clone()
        };
        match container {
            Some(container) if !container.values.is_empty() => container.next_value(),
            Some(_) => {
                emit(
                    "WARN",
                    &format!("XPathFileContainer has no nodes: {file} {expression}"),
                );
                String::new()
            }
            None => String::new(),
        }
    })
}

#[cfg(test)]
mod tests {
    use crate::expr::functions::testing::Fixture;

    #[test]
    fn hands_out_matches_in_turn_and_wraps() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("users.xml"),
            r#"<users><user name="ann">a</user><user name="bob"><x/></user></users>"#,
        )
        .unwrap();
        let mut f = Fixture::new();
        f.test.plan_dir = dir.path().to_path_buf();
        f.test.plan_file = dir.path().join("plan.jmx");
        let text = "${__XPath(users.xml,//user/@name)}-${__XPath(users.xml,//user/@name)}-${__XPath(users.xml,//user/@name)}";
        assert_eq!(f.eval(text), "ann-bob-ann");
        assert_eq!(f.eval("${__XPath(users.xml,//user[2])}"), "null");
        assert_eq!(f.eval("${__XPath(users.xml,//none)}"), "");
        assert!(crate::expr::Template::compile(
            "${__XPath(f,//a[)}",
            crate::expr::functions::standard_registry()
        )
        .is_err());
    }
}
