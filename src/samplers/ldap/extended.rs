//! LDAP Extended Request (`LDAPExtSampler`), with LDAP Request Defaults, LDAP Extended
//! Request Defaults and Simple Config Elements (not the Login Config Element: JMeter does
//! not apply it here).
//!
//! "Thread bind" opens and binds a connection that the user keeps (JMeter keys it by
//! thread name) for the search, compare, add, modify, delete and rename samples that
//! follow, whichever LDAP Extended Request they come from, until "thread unbind". "Single
//! bind/unbind" opens, binds and closes. Without a thread bind, operations fail with
//! JNDI's `Context is null`.
//!
//! Each sample answers JMeter's `<ldapanswer>` document ([`super::answer`]): the
//! operation's inputs, the search results (every attribute when "parse the search
//! results" is on, else `hasElements=…`), the response code and message. Success is `0`
//! / `Success`; a compare that does not match is `5` / `compareFalse`; a failure with an
//! LDAP result code gives the code and message JMeter cuts out of JNDI's text (` 49` /
//! ` Invalid Credentials`), other JNDI failures `800` and the exception's text, any
//! other exception `500` and its text.

use std::sync::Arc;

use async_trait::async_trait;

use super::answer::{normalised_name, write_results, Named, XmlBuffer};
use super::directory::{self, Change, Directory, Endpoint};
use super::naming::{extended_code_and_message, Naming};
use super::{eval_rows, rows, Clock, Fields, Row, RowValues, Values};
use crate::foundation::xml_escape::escape_xml10;
use crate::jmx::Element;
use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::SampleResult;
use crate::samplers::new_result;
use crate::samplers::tcp::applicable_configs;
use crate::user_state::UserState;

/// Config GUI classes an LDAP Extended Request takes defaults from (`LDAPExtSampler.applies`).
const APPLICABLE_CONFIG_GUIS: [&str; 3] = ["LdapConfigGui", "LdapExtConfigGui", "SimpleConfigGui"];

/// The user slot of the thread-bound connection (slots are keyed by element id, which
/// count up from 0, so this one never meets an element's).
const CONTEXT_SLOT: usize = usize::MAX - 0x4C44;

/// How many results are sorted before the rest are written as they come.
const MAX_SORTED_PROPERTY: &str = "ldapsampler.max_sorted_results";

const FIELDS: [&str; 22] = [
    "servername",
    "port",
    "rootdn",
    "scope",
    "countlimit",
    "timelimit",
    "attributes",
    "connection_timeout",
    "parseflag",
    "secure",
    "trustall",
    "user_dn",
    "user_pw",
    "comparedn",
    "comparefilt",
    "modddn",
    "newdn",
    "test",
    "search",
    "searchfilter",
    "base_entry_dn",
    "delete",
];

pub struct LdapExtSampler {
    fields: Fields,
    /// The attributes of an add (`arguments`).
    add_rows: Vec<Row>,
    /// The modifications of a modify (`ldaparguments`).
    modify_rows: Vec<Row>,
    max_sorted: usize,
}

pub fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Arc<dyn Sampler> {
    let applicable = applicable_configs(configs, &APPLICABLE_CONFIG_GUIS);
    let fields = Fields::build(cx, &applicable, &FIELDS);
    let add_rows = rows(cx, &applicable, "arguments");
    let modify_rows = rows(cx, &applicable, "ldaparguments");
    let max_sorted = cx
        .properties
        .get(MAX_SORTED_PROPERTY)
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1000);
    Arc::new(LdapExtSampler {
        fields,
        add_rows,
        modify_rows,
        max_sorted,
    })
}

/// The connection a user bound with "thread bind".
#[derive(Default)]
struct ThreadContext(Option<Directory>);

fn take_context(user: &mut UserState) -> Option<Directory> {
    user.slot(CONTEXT_SLOT, ThreadContext::default).0.take()
}

fn keep_context(user: &mut UserState, directory: Option<Directory>) {
    user.slot(CONTEXT_SLOT, ThreadContext::default).0 = directory;
}

/// An operation that changes the directory.
enum Update<'a> {
    Add(&'a str, Vec<(String, Vec<String>)>),
    Delete(&'a str),
    Modify(&'a str, Vec<Change>),
    Rename(&'a str, &'a str),
}

impl Update<'_> {
    async fn apply(self, directory: &mut Directory) -> Result<(), Naming> {
        match self {
            Update::Add(dn, attrs) => directory.add(dn, attrs).await,
            Update::Delete(dn) => directory.delete(dn).await,
            Update::Modify(dn, changes) => directory.modify(dn, changes).await,
            Update::Rename(old, new) => directory.rename(old, new).await,
        }
    }
}

/// How an operation failed: a JNDI exception, another Java exception (its text), or
/// the compare that did not match.
enum Failure {
    Naming(Naming),
    Other(String),
    CompareFalse,
}

impl From<Naming> for Failure {
    fn from(naming: Naming) -> Failure {
        Failure::Naming(naming)
    }
}

/// JNDI's failure for an operation without a thread-bound connection.
fn no_context() -> Failure {
    Failure::Naming(Naming::new(
        "javax.naming.NamingException",
        "Context is null",
    ))
}

/// One sample's work: the evaluated settings, the user's connection, the answer.
struct Run<'a> {
    v: &'a Values,
    add: Vec<RowValues>,
    modify: Vec<RowValues>,
    max_sorted: usize,
    context: Option<Directory>,
    xml: XmlBuffer,
    clock: Clock,
    sampler_data: String,
}

impl LdapExtSampler {
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let v = self.fields.eval(cx);
        let mut run = Run {
            v: &v,
            add: eval_rows(&self.add_rows, cx),
            modify: eval_rows(&self.modify_rows, cx),
            max_sorted: self.max_sorted,
            context: take_context(cx.user),
            xml: XmlBuffer::default(),
            clock: Clock::default(),
            sampler_data: String::new(),
        };
        let mut result = new_result(cx, cx.label.clone());
        result.content_type = "text/xml".into();
        result.data_type = "text";
        run.xml.open_tag("ldapanswer");
        run.xml.open_tag("operation");
        run.xml.tag("opertype", v.get("test"));
        let stop = cx.user.run.stop_now.clone();
        let outcome = tokio::select! {
            outcome = run.operation() => outcome,
            _ = stop.cancelled() => Err(Failure::Naming(Naming::new(
                "javax.naming.InterruptedNamingException",
                "Interrupted during LDAP operation",
            ))),
        };
        keep_context(cx.user, run.context.take());
        let (code, message) = match outcome {
            Ok(()) => ("0".to_string(), "Success".to_string()),
            Err(Failure::CompareFalse) => ("5".to_string(), "compareFalse".to_string()),
            Err(Failure::Naming(naming)) => extended_code_and_message(&naming.to_string()),
            Err(Failure::Other(text)) => ("500".to_string(), text),
        };
        result.set_success(code == "0");
        run.xml.close_tag();
        run.xml.tag("responsecode", &code);
        run.xml.tag("responsemessage", &message);
        result.response_code = code.into();
        result.response_message = message.into();
        result.sampler_data = std::mem::take(&mut run.sampler_data);
        run.clock.stamp(&mut result);
        result.response_data = std::mem::take(&mut run.xml).finish().into_bytes();
        result
    }
}

impl Run<'_> {
    /// The endpoint of a bind, from this sampler's fields.
    fn endpoint(&self) -> Result<Endpoint<'_>, Failure> {
        let v = self.v;
        let timeout = v.get("connection_timeout");
        let timeout_ms = if timeout.is_empty() {
            None
        } else {
            Some(timeout.parse::<u64>().map_err(|_| {
                Failure::Other(format!(
                    "java.lang.NumberFormatException: For input string: \"{timeout}\""
                ))
            })?)
        };
        Ok(Endpoint {
            server: v.get("servername"),
            port: v.get("port"),
            root_dn: v.get("rootdn"),
            user: v.get("user_dn"),
            password: v.get("user_pw"),
            timeout_ms,
            secure: v.flag("secure"),
            trust_all: v.flag("trustall"),
        })
    }

    async fn operation(&mut self) -> Result<(), Failure> {
        let v = self.v;
        match v.get("test") {
            "unbind" => {
                self.sampler_data = "Unbind".into();
                self.xml.tag("baseobj", v.get("rootdn"));
                self.xml.tag("binddn", v.get("user_dn"));
                self.clock.start();
                if let Some(directory) = self.context.take() {
                    directory.close().await;
                }
                self.clock.end();
                Ok(())
            }
            test @ ("bind" | "sbind") => {
                let single = test == "sbind";
                let what = if single { "SingleBind as " } else { "Bind as " };
                self.sampler_data = format!("{what}{}", v.get("user_dn"));
                self.xml.tag("baseobj", v.get("rootdn"));
                self.xml.tag("binddn", v.get("user_dn"));
                self.xml.tag("connectionTO", v.get("connection_timeout"));
                if !single {
                    if let Some(previous) = self.context.take() {
                        previous.close().await;
                    }
                }
                self.clock.start();
                let opened = match self.endpoint() {
                    Ok(endpoint) => directory::open(&endpoint).await.map_err(Failure::from),
                    Err(failure) => Err(failure),
                };
                let outcome = match opened {
                    Ok(directory) if single => {
                        directory.close().await;
                        Ok(())
                    }
                    Ok(directory) => {
                        self.context = Some(directory);
                        Ok(())
                    }
                    Err(failure) => Err(failure),
                };
                self.clock.end();
                outcome
            }
            "compare" => self.compare().await,
            "add" => {
                let dn = v.get("base_entry_dn");
                self.sampler_data = format!("Add object {dn}");
                self.xml.tag("attributes", &arguments_text(&self.add));
                self.xml.tag("dn", dn);
                let attrs = entry_attributes(&self.add);
                self.timed(Update::Add(dn, attrs)).await
            }
            "delete" => {
                self.sampler_data = format!("Delete object {}", v.get("base_entry_dn"));
                self.xml.tag("dn", v.get("base_entry_dn"));
                let dn = v.get("delete");
                self.timed(Update::Delete(dn)).await
            }
            "modify" => {
                let dn = v.get("base_entry_dn");
                self.sampler_data = format!("Modify object {dn}");
                self.xml.tag("dn", dn);
                self.xml
                    .tag("attributes", &ldap_arguments_text(&self.modify));
                let changes = changes(&self.modify);
                self.timed(Update::Modify(dn, changes)).await
            }
            "rename" => {
                let (old, new) = (v.get("modddn"), v.get("newdn"));
                self.sampler_data = format!("ModDN object {old} to {new}");
                self.xml.tag("dn", old);
                self.xml.tag("newdn", new);
                self.timed(Update::Rename(old, new)).await
            }
            "search" => self.search().await,
            _ => Ok(()),
        }
    }

    /// Applies `update` to the thread's connection between the clock's start and end.
    async fn timed(&mut self, update: Update<'_>) -> Result<(), Failure> {
        self.clock.start();
        let outcome = match self.context.as_mut() {
            Some(directory) => update.apply(directory).await.map_err(Failure::from),
            None => Err(no_context()),
        };
        self.clock.end();
        outcome
    }

    async fn compare(&mut self) -> Result<(), Failure> {
        let v = self.v;
        let (dn, filter) = (v.get("comparedn"), v.get("comparefilt"));
        self.sampler_data = format!("Compare {filter} {dn}");
        self.xml.tag("comparedn", dn);
        self.xml.tag("comparefilter", filter);
        self.clock.start();
        let outcome = match self.context.as_mut() {
            Some(directory) => match directory.compare(dn, filter).await {
                Ok(true) => Ok(()),
                Ok(false) => Err(Failure::CompareFalse),
                Err(naming) => Err(naming.into()),
            },
            None => Err(no_context()),
        };
        self.clock.end();
        outcome
    }

    async fn search(&mut self) -> Result<(), Failure> {
        let v = self.v;
        let (filter, base) = (v.get("searchfilter"), v.get("search"));
        self.sampler_data = format!("Search with filter {filter}");
        self.xml.tag("searchfilter", &escape_xml10(filter));
        self.xml.tag("baseobj", v.get("rootdn"));
        self.xml.tag("searchbase", base);
        self.xml.tag("scope", v.get("scope"));
        self.xml.tag("countlimit", v.get("countlimit"));
        self.xml.tag("timelimit", v.get("timelimit"));
        self.clock.start();
        let Some(directory) = self.context.as_mut() else {
            self.clock.end();
            return Err(no_context());
        };
        let attrs = requested_attributes(v.get("attributes"));
        let searched = directory
            .search(
                base,
                v.number("scope"),
                filter,
                v.number("countlimit"),
                v.number("timelimit"),
                attrs,
            )
            .await;
        let found = match searched {
            Ok(found) => found,
            Err(naming) => {
                self.clock.end();
                return Err(naming.into());
            }
        };
        if v.flag("parseflag") {
            self.xml.open_tag("searchresults");
            let named = found
                .entries
                .into_iter()
                .map(|(relative, entry)| Named {
                    name: normalised_name(&relative, base, v.get("rootdn")),
                    entry,
                })
                .collect();
            write_results(&mut self.xml, named, self.max_sorted);
            self.xml.close_tag();
            self.clock.end();
            return found.limit.map_or(Ok(()), |naming| Err(naming.into()));
        }
        let has = !found.entries.is_empty();
        self.xml.tag("searchresults", &format!("hasElements={has}"));
        self.clock.end();
        Ok(())
    }
}

/// JMeter's attribute list: `;`-separated names, `None` (every attribute) when empty.
fn requested_attributes(text: &str) -> Option<Vec<String>> {
    if text.is_empty() {
        return None;
    }
    let text = text.strip_suffix(';').unwrap_or(text);
    Some(text.split(';').map(str::to_string).collect())
}

/// The attributes of an add: rows with the same name (case aside) make one attribute
/// with several values, as JNDI's attribute set gathers them.
fn entry_attributes(rows: &[RowValues]) -> Vec<(String, Vec<String>)> {
    let mut attrs: Vec<(String, Vec<String>)> = Vec::new();
    for row in rows {
        match attrs
            .iter_mut()
            .find(|(name, _)| name.eq_ignore_ascii_case(&row.name))
        {
            Some((_, values)) if values.contains(&row.value) => {}
            Some((_, values)) => values.push(row.value.clone()),
            None => attrs.push((row.name.clone(), vec![row.value.clone()])),
        }
    }
    attrs
}

/// The modifications of a modify; rows with another opcode are left out, as JMeter
/// leaves them out with a warning.
fn changes(rows: &[RowValues]) -> Vec<Change> {
    rows.iter()
        .filter_map(|row| {
            let name = row.name.clone();
            let values = if row.value.is_empty() {
                Vec::new()
            } else {
                vec![row.value.clone()]
            };
            match row.opcode.as_str() {
                "add" => Some(Change::Add(name, values)),
                "delete" | "remove" => Some(Change::Delete(name, values)),
                "replace" => Some(Change::Replace(name, values)),
                _ => None,
            }
        })
        .collect()
}

/// JMeter 5.6's `Arguments.toString()`: `name=value()` joined with `&` (an argument's
/// absent description prints as `()`).
fn arguments_text(rows: &[RowValues]) -> String {
    rows.iter()
        .map(|row| format!("{}{}{}()", row.name, row.metadata, row.value))
        .collect::<Vec<_>>()
        .join("&")
}

/// `LDAPArguments.toString()`: `name=value` joined with `&`.
fn ldap_arguments_text(rows: &[RowValues]) -> String {
    rows.iter()
        .map(|row| format!("{}{}{}", row.name, row.metadata, row.value))
        .collect::<Vec<_>>()
        .join("&")
}

#[async_trait]
impl Sampler for LdapExtSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(Arc::new(self.sample_unboxed(cx).await))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, value: &str, opcode: &str) -> RowValues {
        RowValues {
            name: name.into(),
            value: value.into(),
            metadata: "=".into(),
            opcode: opcode.into(),
        }
    }

    #[test]
    fn attribute_lists_split_on_semicolons() {
        assert_eq!(requested_attributes(""), None);
        assert_eq!(
            requested_attributes("cn;mail;"),
            Some(vec!["cn".to_string(), "mail".to_string()])
        );
    }

    #[test]
    fn add_rows_gather_values_by_attribute() {
        let rows = [
            row("objectClass", "top", ""),
            row("objectclass", "person", ""),
            row("cn", "x", ""),
        ];
        assert_eq!(
            entry_attributes(&rows),
            vec![
                (
                    "objectClass".to_string(),
                    vec!["top".to_string(), "person".to_string()]
                ),
                ("cn".to_string(), vec!["x".to_string()]),
            ]
        );
        assert_eq!(arguments_text(&rows[1..]), "objectclass=person()&cn=x()");
    }

    #[test]
    fn unknown_opcodes_are_left_out() {
        let rows = [
            row("mail", "a", "add"),
            row("sn", "", "remove"),
            row("x", "", "bogus"),
        ];
        let changes = changes(&rows);
        assert_eq!(changes.len(), 2);
        assert!(
            matches!(&changes[1], Change::Delete(name, values) if name == "sn" && values.is_empty())
        );
        assert_eq!(ldap_arguments_text(&rows[..2]), "mail=a&sn=");
    }
}
