//! LDAP Request (`LDAPSampler`) and LDAP Extended Request (`LDAPExtSampler`), with the
//! LDAP Request Defaults and LDAP Extended Request Defaults (`LdapConfigGui`,
//! `LdapExtConfigGui`), the Login Config Element (for the LDAP Request only, as JMeter
//! applies it) and the Simple Config Element filling what a sampler leaves empty.
//!
//! Both speak LDAPv3 through [`directory`], which opens and binds connections and runs
//! operations the way JMeter's JNDI contexts do (names relative to the root DN, JNDI's
//! filter checks and compare detection), failing with JNDI's exceptions ([`naming`]).
//! [`request`] is the LDAP Request: a connection per sample, one add, modify, delete or
//! search (JMeter's built-in test entries when "user defined" is off), `200`/`201`/`500`
//! results. [`extended`] is the LDAP Extended Request: a bound connection per user kept
//! between samples (thread bind and unbind), single bind, search, compare, add, modify,
//! delete and rename, with JMeter's `<ldapanswer>` response ([`answer`]) and its result
//! codes cut out of JNDI's messages.
//!
//! Like JMeter's, these samplers time only the LDAP operation: [`Clock`] is started and
//! ended where JMeter calls `sampleStart` and `sampleEnd`.

pub mod answer;
pub mod directory;
pub mod extended;
pub mod naming;
pub mod request;

use std::collections::HashMap;
use std::sync::Arc;

use crate::expr::Template;
use crate::jmx::{Element, Property};
use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::tcp::merged_text;

/// Builds the LDAP sampler for `class`, or `None` when it is not one.
pub fn build(
    class: &str,
    cx: &mut BuildContext<'_>,
    configs: &[&Element],
) -> Option<Arc<dyn Sampler>> {
    match class {
        "LDAPSampler" | "org.apache.jmeter.protocol.ldap.sampler.LDAPSampler" => {
            Some(request::build(cx, configs))
        }
        "LDAPExtSampler" | "org.apache.jmeter.protocol.ldap.sampler.LDAPExtSampler" => {
            Some(extended::build(cx, configs))
        }
        _ => None,
    }
}

/// A sampler's string fields after JMeter's config merge, compiled.
struct Fields(Vec<(&'static str, Option<Template>)>);

/// One sample's fields, evaluated (absent fields read as empty, as JMeter's getters do).
struct Values(HashMap<&'static str, String>);

impl Fields {
    fn build(cx: &mut BuildContext<'_>, configs: &[&Element], names: &[&'static str]) -> Fields {
        let fields = names
            .iter()
            .map(|&name| {
                let text = merged_text(cx.element, configs, name);
                (name, text.map(|text| cx.compile(&text)))
            })
            .collect();
        Fields(fields)
    }

    fn eval(&self, cx: &mut SampleContext<'_>) -> Values {
        let mut eval = cx.user.eval(&cx.label);
        let values = self
            .0
            .iter()
            .map(|(name, template)| {
                let text = template
                    .as_ref()
                    .map(|t| t.eval(&mut eval))
                    .unwrap_or_default();
                (*name, text)
            })
            .collect();
        Values(values)
    }
}

impl Values {
    fn get(&self, name: &str) -> &str {
        self.0.get(name).map(String::as_str).unwrap_or("")
    }

    /// JMeter's `getPropertyAsBoolean`.
    fn flag(&self, name: &str) -> bool {
        self.get(name).eq_ignore_ascii_case("true")
    }

    /// JMeter's `getPropertyAsLong`/`getPropertyAsInt`: not a number reads 0.
    fn number(&self, name: &str) -> i64 {
        self.get(name).parse().unwrap_or(0)
    }
}

/// One row of an `Arguments` or `LDAPArguments` table.
struct Row {
    name: Template,
    value: Template,
    metadata: String,
    /// `add`, `delete`/`remove` or `replace` (LDAP Extended Request modifications).
    opcode: Template,
}

/// A row, evaluated.
struct RowValues {
    name: String,
    value: String,
    metadata: String,
    opcode: String,
}

/// The rows of the table property `name`: the sampler's own when it has any, else the
/// first applicable config's.
fn rows(cx: &mut BuildContext<'_>, configs: &[&Element], name: &str) -> Vec<Row> {
    let tables = std::iter::once(cx.element).chain(configs.iter().copied());
    let items: Vec<Property> = tables
        .filter_map(|element| element.prop(name))
        .map(|prop| match prop.child("Arguments.arguments") {
            Some(collection) => collection.children().to_vec(),
            None => prop.children().to_vec(),
        })
        .find(|items| !items.is_empty())
        .unwrap_or_default();
    items
        .iter()
        .map(|item| {
            let text = |field: &str| item.child(field).and_then(Property::as_str).unwrap_or("");
            Row {
                name: cx.compile(text("Argument.name")),
                value: cx.compile(text("Argument.value")),
                metadata: text("Argument.metadata").to_string(),
                opcode: cx.compile(text("Argument.opcode")),
            }
        })
        .collect()
}

fn eval_rows(rows: &[Row], cx: &mut SampleContext<'_>) -> Vec<RowValues> {
    let mut eval = cx.user.eval(&cx.label);
    rows.iter()
        .map(|row| RowValues {
            name: row.name.eval(&mut eval),
            value: row.value.eval(&mut eval),
            metadata: row.metadata.clone(),
            opcode: row.opcode.eval(&mut eval),
        })
        .collect()
}

/// JMeter's `sampleStart`/`sampleEnd`, which the LDAP samplers call around the
/// operation alone.
#[derive(Default)]
struct Clock {
    watch: Option<Stopwatch>,
    elapsed: Option<i64>,
}

impl Clock {
    fn start(&mut self) {
        self.watch = Some(Stopwatch::start());
        self.elapsed = None;
    }

    fn end(&mut self) {
        self.elapsed = self.watch.as_ref().map(Stopwatch::elapsed_ms);
    }

    /// Stamps `result`: from the start to the end; a start without an end (an operation
    /// that failed in the LDAP Request) takes no time; a sample that never started is
    /// stamped now, with no time.
    fn stamp(&self, result: &mut SampleResult) {
        let start = match &self.watch {
            Some(watch) => watch.start_ms(),
            None => Stopwatch::start().start_ms(),
        };
        let elapsed = self.elapsed.unwrap_or(0);
        result.start_time = start;
        result.elapsed = elapsed;
        result.end_time = start.saturating_add(elapsed);
    }
}
