//! LDAP Request (`LDAPSampler`), with LDAP Request Defaults, the Login Config Element and
//! Simple Config Elements filling what it leaves empty.
//!
//! Each sample opens a connection to `ldap://server:port/rootDN`, binds with the login's
//! user name and password, runs one operation on a name relative to the root DN, and
//! closes. With "user defined test" on: add `base_entry_dn` with the table's attributes
//! (plus JMeter's object classes `top`, `person`, `organizationalPerson` and
//! `inetOrgPerson`), replace the table's attributes of `base_entry_dn`, delete
//! `delete`, or search below `search` for `searchfilter`. Off: JMeter's built-in test,
//! which adds an entry `cn=TestUserN` (N counting up across the run) to work on and
//! deletes it afterwards.
//!
//! Results follow JMeter's: `200` / `OK` with `successful`; a search that finds nothing
//! `201` / `OK - no results` with `successful - no results`; a failure `500` with JNDI's
//! exception text and no response data. Only the operation is timed; a failed
//! operation has no end, so it takes no time (JMeter's sample is never ended either).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;

use super::directory::{self, Change, Directory, Endpoint};
use super::naming::Naming;
use super::{eval_rows, rows, Clock, Fields, Row, RowValues, Values};
use crate::jmx::Element;
use crate::plan::{BuildContext, SampleContext, Sampler};
use crate::sample::SampleResult;
use crate::samplers::new_result;
use crate::samplers::tcp::applicable_configs;

/// Config GUI classes an LDAP Request takes defaults from (`LDAPSampler.applies`).
const APPLICABLE_CONFIG_GUIS: [&str; 3] = ["LoginConfigGui", "LdapConfigGui", "SimpleConfigGui"];

const FIELDS: [&str; 11] = [
    "servername",
    "port",
    "rootdn",
    "test",
    "user_defined",
    "base_entry_dn",
    "search",
    "searchfilter",
    "delete",
    "ConfigTestElement.username",
    "ConfigTestElement.password",
];

/// The object classes JMeter gives every entry it adds.
const OBJECT_CLASSES: [&str; 4] = ["top", "person", "organizationalPerson", "inetOrgPerson"];

/// JMeter's run-wide counter of built-in test entries.
static TEST_USERS: AtomicU64 = AtomicU64::new(0);

pub struct LdapSampler {
    fields: Fields,
    rows: Vec<Row>,
}

pub fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> Arc<dyn Sampler> {
    let applicable = applicable_configs(configs, &APPLICABLE_CONFIG_GUIS);
    let fields = Fields::build(cx, &applicable, &FIELDS);
    let rows = rows(cx, &applicable, "arguments");
    Arc::new(LdapSampler { fields, rows })
}

impl LdapSampler {
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> SampleResult {
        let v = self.fields.eval(cx);
        let table = eval_rows(&self.rows, cx);
        let mut result = new_result(cx, cx.label.clone());
        result.sampler_data = v.get("test").to_string();
        let mut clock = Clock::default();
        let stop = cx.user.run.stop_now.clone();
        let outcome = tokio::select! {
            outcome = session(&v, &table, &mut clock) => outcome,
            _ = stop.cancelled() => Err(Naming::new(
                "javax.naming.InterruptedNamingException",
                "Interrupted during LDAP operation",
            )),
        };
        clock.stamp(&mut result);
        match outcome {
            Ok(found) => {
                let (code, message, data) = if found {
                    ("200", "OK", "successful")
                } else {
                    ("201", "OK - no results", "successful - no results")
                };
                result.response_code = code.into();
                result.response_message = message.into();
                result.response_data = data.as_bytes().to_vec();
                // JMeter marks only a successful answer as text: a failure's row has no
                // data type.
                result.data_type = "text";
                result.set_success(true);
            }
            Err(naming) => {
                result.response_code = "500".into();
                result.response_message = naming.to_string().into();
                result.set_success(false);
            }
        }
        result
    }
}

/// One connection and operation; `Ok(false)` for a search that found nothing.
async fn session(v: &Values, table: &[RowValues], clock: &mut Clock) -> Result<bool, Naming> {
    let endpoint = Endpoint {
        server: v.get("servername"),
        port: v.get("port"),
        root_dn: v.get("rootdn"),
        user: v.get("ConfigTestElement.username"),
        password: v.get("ConfigTestElement.password"),
        timeout_ms: None,
        secure: false,
        trust_all: false,
    };
    let mut directory = directory::open(&endpoint).await?;
    let outcome = operation(&mut directory, v, table, clock).await;
    directory.close().await;
    outcome
}

async fn operation(
    d: &mut Directory,
    v: &Values,
    table: &[RowValues],
    clock: &mut Clock,
) -> Result<bool, Naming> {
    let user_defined = v.flag("user_defined");
    match v.get("test") {
        "add" if user_defined => {
            let attrs = user_attributes(table);
            clock.start();
            d.add(v.get("base_entry_dn"), attrs).await?;
            clock.end();
        }
        "add" => {
            let (name, attrs) = test_user();
            clock.start();
            d.add(&name, attrs).await?;
            clock.end();
            d.delete(&name).await?;
        }
        "delete" if user_defined => {
            clock.start();
            d.delete(v.get("delete")).await?;
            clock.end();
        }
        "delete" => {
            let (name, attrs) = test_user();
            d.add(&name, attrs).await?;
            clock.start();
            d.delete(&name).await?;
            clock.end();
        }
        "modify" if user_defined => {
            let changes = table
                .iter()
                .map(|row| Change::Replace(row.name.clone(), vec![row.value.clone()]))
                .collect();
            clock.start();
            d.modify(v.get("base_entry_dn"), changes).await?;
            clock.end();
        }
        "modify" => {
            let (name, attrs) = test_user();
            d.add(&name, attrs).await?;
            let changes = vec![
                Change::Replace("userpassword".into(), vec!["secret".into()]),
                Change::Add("mobile".into(), vec!["123-456-1234".into()]),
            ];
            clock.start();
            d.modify(&name, changes).await?;
            clock.end();
            d.delete(&name).await?;
        }
        "search" => {
            let (base, filter) = if user_defined {
                (
                    v.get("search").to_string(),
                    v.get("searchfilter").to_string(),
                )
            } else {
                let (name, attrs) = test_user();
                d.add(&name, attrs).await?;
                (name.clone(), name)
            };
            clock.start();
            let found = d.search(&base, 2, &filter, 1, 0, None).await?;
            clock.end();
            if !user_defined {
                d.delete(&base).await?;
            }
            return Ok(!found.entries.is_empty());
        }
        _ => {}
    }
    Ok(true)
}

/// The attributes of a user-defined add: JMeter's object classes, then the table's rows
/// (a row replaces an attribute of the same name, case aside).
fn user_attributes(table: &[RowValues]) -> Vec<(String, Vec<String>)> {
    let mut attrs = vec![(
        "objectclass".to_string(),
        OBJECT_CLASSES.iter().map(|c| c.to_string()).collect(),
    )];
    for row in table {
        attrs.retain(|(name, _)| !name.eq_ignore_ascii_case(&row.name));
        attrs.push((row.name.clone(), vec![row.value.clone()]));
    }
    attrs
}

/// The next built-in test entry: its name and attributes.
fn test_user() -> (String, Vec<(String, Vec<String>)>) {
    let n = TEST_USERS.fetch_add(1, Ordering::Relaxed) + 1;
    let one = |value: &str| vec![value.to_string()];
    let attrs = vec![
        (
            "objectclass".to_string(),
            OBJECT_CLASSES.iter().map(|c| c.to_string()).collect(),
        ),
        ("givenname".to_string(), one("User")),
        ("sn".to_string(), one("Test")),
        ("cn".to_string(), one(&format!("TestUser{n}"))),
        ("uid".to_string(), one("user")),
        ("userpassword".to_string(), one("test")),
    ];
    (format!("cn=TestUser{n}"), attrs)
}

#[async_trait]
impl Sampler for LdapSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(Arc::new(self.sample_unboxed(cx).await))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_replace_the_default_object_classes() {
        let row = |name: &str, value: &str| RowValues {
            name: name.into(),
            value: value.into(),
            metadata: "=".into(),
            opcode: String::new(),
        };
        let attrs = user_attributes(&[row("cn", "a"), row("objectClass", "device")]);
        assert_eq!(
            attrs,
            vec![
                ("cn".to_string(), vec!["a".to_string()]),
                ("objectClass".to_string(), vec!["device".to_string()]),
            ]
        );
    }
}
