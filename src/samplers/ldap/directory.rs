//! One JNDI-like directory context over `ldap3`: a connection opened and bound as JMeter's
//! `InitialDirContext` opens it (provider URL `ldap[s]://host[:port]/rootDN`, simple
//! bind with the user and password as given, the connection timeout applied to the TCP
//! connect and to the bind's answer), and the operations the samplers call, each on a
//! name relative to the root DN as JNDI resolves it. Every failure is a [`Naming`]
//! exception as JNDI would throw it.

use std::collections::HashSet;
use std::time::Duration;

use ldap3::asn1::StructureTag;
use ldap3::{DerefAliases, Ldap, LdapConnAsync, LdapConnSettings, LdapError, Mod, Scope};
use ldap3::{SearchOptions, StdStream};

use super::naming::{checked_filter, compare_assertion, Naming};
use crate::samplers::http::{trust_all_config, verifying_config};
use crate::samplers::tcp::connection::connect as tcp_connect;

/// Where and how to connect (the evaluated sampler fields).
pub struct Endpoint<'a> {
    pub server: &'a str,
    pub port: &'a str,
    pub root_dn: &'a str,
    pub user: &'a str,
    pub password: &'a str,
    /// The connection timeout in milliseconds; `None` waits as long as the system does.
    pub timeout_ms: Option<u64>,
    pub secure: bool,
    pub trust_all: bool,
}

/// An open, bound connection and the root DN names are relative to.
pub struct Directory {
    ldap: Ldap,
    root_dn: String,
}

/// One entry of a search, its attributes as the server named them.
pub struct Entry {
    pub dn: String,
    pub attrs: Vec<(String, Vec<String>)>,
}

/// What a search brought: its entries with their names relative to the search base (as
/// JNDI names them), and the size or time limit failure JNDI raises only after the
/// entries have been read.
pub struct Found {
    pub entries: Vec<(String, Entry)>,
    pub limit: Option<Naming>,
}

/// A modification of the LDAP Extended Request's table.
pub enum Change {
    Add(String, Vec<String>),
    Delete(String, Vec<String>),
    Replace(String, Vec<String>),
}

/// Opens a connection to `endpoint` and binds (anonymously when user and password are
/// empty, as a simple bind with both empty is).
pub async fn open(endpoint: &Endpoint<'_>) -> Result<Directory, Naming> {
    let default_port = if endpoint.secure { 636 } else { 389 };
    let port = if endpoint.port.trim().is_empty() {
        default_port
    } else {
        endpoint.port.trim().parse::<i64>().map_err(|_| {
            Naming::new(
                "javax.naming.NamingException",
                format!("Cannot parse url: {}", url(endpoint, endpoint.port)),
            )
        })?
    };
    let host_port = format!("{}:{port}", endpoint.server);
    let timeout = endpoint.timeout_ms.map(Duration::from_millis);
    let stream = tcp_connect(endpoint.server, port, timeout)
        .await
        .map_err(|root| Naming::communication(&host_port, root))?
        .into_std()
        .map_err(|e| Naming::communication(&host_port, format!("java.io.IOException: {e}")))?;
    let mut settings = LdapConnSettings::new().set_std_stream(StdStream::Tcp(stream));
    if endpoint.secure {
        settings = settings.set_config(if endpoint.trust_all {
            trust_all_config()
        } else {
            verifying_config()
        });
    }
    let bind = async {
        let (conn, mut ldap) =
            LdapConnAsync::with_settings(settings, &url(endpoint, &port.to_string()))
                .await
                .map_err(|e| handshake_failure(&host_port, &e))?;
        tokio::spawn(conn.drive());
        let result = ldap
            .simple_bind(endpoint.user, endpoint.password)
            .await
            .map_err(|e| lost(&host_port, &e))?;
        if result.rc != 0 {
            return Err(Naming::from_result(result.rc, &result.text, None));
        }
        Ok(ldap)
    };
    let ldap = match endpoint.timeout_ms {
        Some(ms) => tokio::time::timeout(Duration::from_millis(ms), bind)
            .await
            .map_err(|_| Naming::read_timeout(ms))??,
        None => bind.await?,
    };
    Ok(Directory {
        ldap,
        root_dn: endpoint.root_dn.to_string(),
    })
}

/// The provider URL (the root DN is left out: names are made absolute here).
fn url(endpoint: &Endpoint<'_>, port: &str) -> String {
    let scheme = if endpoint.secure { "ldaps" } else { "ldap" };
    format!("{scheme}://{}:{port}", endpoint.server)
}

/// A TLS handshake that failed, as JNDI reports it on the first bind.
fn handshake_failure(host_port: &str, error: &LdapError) -> Naming {
    let text = error.to_string();
    let root = if text.contains("certificate") || text.contains("Certificate") {
        "javax.net.ssl.SSLHandshakeException: PKIX path building failed: \
         sun.security.provider.certpath.SunCertPathBuilderException: unable to find valid \
         certification path to requested target"
            .to_string()
    } else {
        format!("javax.net.ssl.SSLException: {text}")
    };
    Naming::new(
        "javax.naming.CommunicationException",
        format!("simple bind failed: {host_port}"),
    )
    .with_root(root)
}

/// A connection that broke while an operation waited for its answer.
fn lost(host_port: &str, error: &LdapError) -> Naming {
    let root = match error {
        LdapError::Io { source } => crate::samplers::tcp::connection::io_text(source),
        other => format!("java.io.IOException: {other}"),
    };
    Naming::communication(host_port, root)
}

impl Directory {
    /// JNDI's fully qualified name of `name`: it below the root DN.
    fn full(&self, name: &str) -> String {
        match (name.is_empty(), self.root_dn.is_empty()) {
            (true, _) => self.root_dn.clone(),
            (false, true) => name.to_string(),
            (false, false) => format!("{name},{}", self.root_dn),
        }
    }

    /// An operation's LDAP result as JNDI judges it.
    fn check(result: Result<ldap3::LdapResult, LdapError>, name: &str) -> Result<(), Naming> {
        let result = result.map_err(|e| failed(&e).about(name))?;
        if result.rc == 0 {
            Ok(())
        } else {
            Err(Naming::from_result(result.rc, &result.text, Some(name)))
        }
    }

    /// Searches below `base` (relative to the root DN). `attrs` `None` asks for every
    /// user attribute; `time_ms` is JNDI's limit in milliseconds (sent as whole
    /// seconds, rounded up past the next second as JNDI does).
    pub async fn search(
        &mut self,
        base: &str,
        scope: i64,
        filter: &str,
        size: i64,
        time_ms: i64,
        attrs: Option<Vec<String>>,
    ) -> Result<Found, Naming> {
        let filter = checked_filter(filter).map_err(|e| e.about(base))?;
        let scope = match scope {
            0 => Scope::Base,
            1 => Scope::OneLevel,
            _ => Scope::Subtree,
        };
        let seconds = if time_ms > 0 { time_ms / 1000 + 1 } else { 0 };
        let attrs = match attrs {
            Some(list) if list.is_empty() => vec!["1.1".to_string()],
            Some(list) => list,
            None => Vec::new(),
        };
        let options = SearchOptions::new()
            .sizelimit(i32::try_from(size.max(0)).unwrap_or(i32::MAX))
            .timelimit(i32::try_from(seconds).unwrap_or(i32::MAX))
            .deref(DerefAliases::Always);
        let full = self.full(base);
        let found = self
            .ldap
            .with_search_options(options)
            .search(&full, scope, &filter, attrs)
            .await
            .map_err(|e| failed(&e).about(base))?;
        let ldap3::SearchResult(raw, result) = found;
        let entries = raw
            .into_iter()
            .filter_map(|r| entry(r.0))
            .map(|e| (relative_name(&e.dn, &full), e))
            .collect();
        let limit = match result.rc {
            0 => None,
            3 | 4 => Some(Naming::from_result(result.rc, &result.text, Some(base))),
            rc => return Err(Naming::from_result(rc, &result.text, Some(base))),
        };
        Ok(Found { entries, limit })
    }

    /// JMeter's compare: an object-scope search for `filter` that asks for no
    /// attributes, which JNDI sends as an LDAP compare when the filter is a single
    /// equality. True when the entry matches.
    pub async fn compare(&mut self, name: &str, filter: &str) -> Result<bool, Naming> {
        let Some((attr, value)) = compare_assertion(filter) else {
            let found = self.search(name, 0, filter, 1, 0, Some(Vec::new())).await?;
            return Ok(!found.entries.is_empty());
        };
        let full = self.full(name);
        let result = self
            .ldap
            .compare(&full, &attr, value)
            .await
            .map_err(|e| failed(&e).about(name))?
            .0;
        match result.rc {
            6 => Ok(true),
            5 => Ok(false),
            rc => Err(Naming::from_result(rc, &result.text, Some(name))),
        }
    }

    pub async fn add(
        &mut self,
        name: &str,
        attrs: Vec<(String, Vec<String>)>,
    ) -> Result<(), Naming> {
        let attrs = attrs
            .into_iter()
            .map(|(id, values)| (id, values.into_iter().collect::<HashSet<_>>()))
            .collect();
        let full = self.full(name);
        Self::check(self.ldap.add(&full, attrs).await, name)
    }

    pub async fn modify(&mut self, name: &str, changes: Vec<Change>) -> Result<(), Naming> {
        let set = |values: Vec<String>| values.into_iter().collect::<HashSet<_>>();
        let mods = changes
            .into_iter()
            .map(|change| match change {
                Change::Add(id, values) => Mod::Add(id, set(values)),
                Change::Delete(id, values) => Mod::Delete(id, set(values)),
                Change::Replace(id, values) => Mod::Replace(id, set(values)),
            })
            .collect();
        let full = self.full(name);
        Self::check(self.ldap.modify(&full, mods).await, name)
    }

    /// JNDI's `destroySubcontext`, which is idempotent: an entry that is already gone
    /// (the server matched all of its name but the first RDN) counts as deleted.
    pub async fn delete(&mut self, name: &str) -> Result<(), Naming> {
        let full = self.full(name);
        let result = self
            .ldap
            .delete(&full)
            .await
            .map_err(|e| failed(&e).about(name))?;
        if result.rc == 32 && rdn_count(&full).checked_sub(rdn_count(&result.matched)) == Some(1) {
            return Ok(());
        }
        Self::check(Ok(result), name)
    }

    /// JNDI's `rename`: the new name's first RDN, its parent as the new superior when it
    /// differs from the old parent, and the old RDN value removed.
    pub async fn rename(&mut self, old: &str, new: &str) -> Result<(), Naming> {
        let (old_full, new_full) = (self.full(old), self.full(new));
        let (rdn, new_parent) = split_rdn(&new_full);
        let old_parent = split_rdn(&old_full).1;
        let superior = (!new_parent.eq_ignore_ascii_case(old_parent)).then_some(new_parent);
        let result = self.ldap.modifydn(&old_full, rdn, true, superior).await;
        Self::check(result, old)
    }

    /// Unbinds and closes the connection.
    pub async fn close(mut self) {
        let _ = self.ldap.unbind().await;
    }
}

/// `dn` relative to `base`: the RDNs before it (empty for the base itself), or `dn`
/// whole when it is not below `base`.
fn relative_name(dn: &str, base: &str) -> String {
    if base.is_empty() {
        return dn.to_string();
    }
    if dn.eq_ignore_ascii_case(base) {
        return String::new();
    }
    let cut = dn.len().checked_sub(base.len() + 1);
    match cut.and_then(|cut| Some((dn.get(..cut)?, dn.get(cut..)?))) {
        Some((head, tail)) if tail.starts_with(',') && tail[1..].eq_ignore_ascii_case(base) => {
            head.to_string()
        }
        _ => dn.to_string(),
    }
}

/// How many RDNs `dn` has.
fn rdn_count(dn: &str) -> usize {
    let mut count = 0;
    let mut rest = dn;
    while !rest.is_empty() {
        count += 1;
        rest = split_rdn(rest).1;
    }
    count
}

/// A DN's first RDN and the rest (its parent), split at the first unescaped comma.
fn split_rdn(dn: &str) -> (&str, &str) {
    let mut escaped = false;
    for (i, c) in dn.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            ',' if !escaped => return (&dn[..i], &dn[i + 1..]),
            _ => escaped = false,
        }
    }
    (dn, "")
}

/// An operation that could not be carried out (the connection broke, or the client
/// refused the request), as JNDI would report it.
fn failed(error: &LdapError) -> Naming {
    match error {
        LdapError::FilterParsing => Naming::bad_filter("invalid attribute description"),
        LdapError::Io { source } => {
            Naming::new("javax.naming.CommunicationException", "connection closed")
                .with_root(crate::samplers::tcp::connection::io_text(source))
        }
        LdapError::AddNoValues => Naming::new(
            "javax.naming.directory.InvalidAttributeValueException",
            "[LDAP: error code 21 - Invalid Attribute Syntax]",
        ),
        other => Naming::new("javax.naming.CommunicationException", "connection closed")
            .with_root(format!("java.io.IOException: {other}")),
    }
}

/// A search result entry read from its BER structure (`None` if malformed); values are
/// read as UTF-8 text, as JMeter turns JNDI's binary values into text.
fn entry(tag: StructureTag) -> Option<Entry> {
    let mut parts = tag.match_id(4)?.expect_constructed()?.into_iter();
    let dn = String::from_utf8_lossy(&parts.next()?.expect_primitive()?).into_owned();
    let mut attrs = Vec::new();
    for attribute in parts.next()?.expect_constructed()? {
        let mut pieces = attribute.expect_constructed()?.into_iter();
        let id = String::from_utf8_lossy(&pieces.next()?.expect_primitive()?).into_owned();
        let values = pieces
            .next()?
            .expect_constructed()?
            .into_iter()
            .filter_map(|v| v.expect_primitive())
            .map(|v| String::from_utf8_lossy(&v).into_owned())
            .collect();
        attrs.push((id, values));
    }
    Some(Entry { dn, attrs })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_names_are_relative_to_the_search_base() {
        assert_eq!(relative_name("cn=a,ou=p,dc=x", "ou=P,dc=x"), "cn=a");
        assert_eq!(relative_name("ou=p,dc=x", "ou=p,dc=x"), "");
        assert_eq!(relative_name("cn=a,dc=y", "dc=x"), "cn=a,dc=y");
    }

    #[test]
    fn rdns_are_counted_at_unescaped_commas() {
        assert_eq!(rdn_count(""), 0);
        assert_eq!(rdn_count("cn=a\\,b,dc=x"), 2);
    }

    #[test]
    fn renames_split_the_new_name_at_its_first_rdn() {
        assert_eq!(split_rdn("cn=a\\,b,ou=x,dc=y"), ("cn=a\\,b", "ou=x,dc=y"));
        assert_eq!(split_rdn("dc=y"), ("dc=y", ""));
    }
}
