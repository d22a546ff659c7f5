//! The expression of an XPath element as built at plan time ([`Query`]): compiled once
//! when constant, compiled at use when it holds `${...}`.
//!
//! A syntax error is a plan error. Two mistakes JMeter only meets at run time stay run
//! time failures with JMeter's message, so a plan JMeter runs still runs: an empty XPath
//! 1 expression (Xalan's "Empty expression!") and an XPath 2 prefix missing from the
//! element's namespaces (Saxon's "has not been declared"); `jmxr check` warns of both.

use crate::expr::Template;
use crate::plan::BuildContext;
use crate::query::xpath::{Namespaces, XPath};
use crate::query::xpath_parse::Version;
use crate::user_state::EvalContext;

pub enum Query {
    Compiled(XPath),
    Dynamic(Template, Version),
    /// Fails on every use with this message (already reported at plan time).
    Fails(String),
}

impl Query {
    /// Reads `property` (`absent` when missing). XPath 2 prefixes are checked against
    /// `namespaces`.
    pub fn build(
        cx: &mut BuildContext<'_>,
        property: &str,
        absent: &str,
        version: Version,
        namespaces: &Namespaces,
    ) -> Query {
        let text = cx.raw(property).unwrap_or(absent).to_string();
        if text.is_empty() && version == Version::One {
            cx.warn("the XPath expression is empty: JMeter records \"Empty expression!\" on each sample");
            return Query::Fails("Empty expression!".into());
        }
        let template = cx.compile(&text);
        if !template.is_constant() {
            return Query::Dynamic(template, version);
        }
        let xpath = match XPath::compile(template.raw(), version) {
            Ok(xpath) => xpath,
            Err(err) => {
                cx.error(format!(
                    "invalid XPath expression {:?}: {err}",
                    template.raw()
                ));
                return Query::Fails("invalid XPath expression".into());
            }
        };
        if version == Version::Two {
            let undeclared = xpath
                .prefixes()
                .iter()
                .find(|prefix| !namespaces.iter().any(|(p, _)| p == *prefix));
            if let Some(prefix) = undeclared {
                cx.warn(format!(
                    "XPath2 prefix '{prefix}' is not declared in the namespaces: every use fails"
                ));
                return Query::Fails(format!("Namespace prefix '{prefix}' has not been declared"));
            }
        }
        Query::Compiled(xpath)
    }

    /// The compiled expression, or the message of its failure.
    pub fn get<'q>(
        &'q self,
        cx: &mut EvalContext<'_>,
        slot: &'q mut Option<XPath>,
    ) -> Result<&'q XPath, String> {
        match self {
            Query::Compiled(xpath) => Ok(xpath),
            Query::Fails(message) => Err(message.clone()),
            Query::Dynamic(template, version) => {
                let text = template.eval(cx);
                Ok(slot.insert(XPath::compile(&text, *version)?))
            }
        }
    }
}
