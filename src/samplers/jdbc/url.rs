//! JDBC URLs and driver classes: which database a JDBC Connection Configuration talks
//! to and how. `jdbc:postgresql://host:port/db?params` (pgjdbc), `jdbc:mysql://...`
//! (MySQL Connector/J) and `jdbc:mariadb://...` (MariaDB Connector/J) are read into an
//! [`Endpoint`]; the driver class picks the dialect whose messages and value types the
//! sample reproduces, and an empty class is found from the URL as DBCP's
//! `DriverManager` look-up does.

use std::collections::BTreeMap;

use super::errors::JavaError;

/// Which Java driver's behaviour a pool reproduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// pgjdbc, `org.postgresql.Driver`.
    Postgres,
    /// MySQL Connector/J 8, `com.mysql.cj.jdbc.Driver` (and its old name `com.mysql.jdbc.Driver`).
    MySql,
    /// MariaDB Connector/J 3, `org.mariadb.jdbc.Driver`.
    MariaDb,
}

impl Dialect {
    /// The dialect of a driver class; `None` for a class jmxr has no driver for.
    pub fn by_driver_class(class: &str) -> Option<Dialect> {
        match class.trim() {
            "org.postgresql.Driver" => Some(Dialect::Postgres),
            "com.mysql.jdbc.Driver" | "com.mysql.cj.jdbc.Driver" => Some(Dialect::MySql),
            "org.mariadb.jdbc.Driver" => Some(Dialect::MariaDb),
            _ => None,
        }
    }

    /// The dialect whose driver accepts `url` (`Driver.acceptsURL`).
    pub fn by_url(url: &str) -> Option<Dialect> {
        let url = url.trim();
        if url.starts_with("jdbc:postgresql:") {
            Some(Dialect::Postgres)
        } else if url.starts_with("jdbc:mysql:") {
            Some(Dialect::MySql)
        } else if url.starts_with("jdbc:mariadb:") {
            Some(Dialect::MariaDb)
        } else {
            None
        }
    }

    /// Whether this dialect's driver accepts `url`: Connector/J takes `jdbc:mysql:`,
    /// MariaDB's driver `jdbc:mariadb:` and `jdbc:mysql:`.
    pub fn accepts(self, url: &str) -> bool {
        match (self, Dialect::by_url(url)) {
            (Dialect::MariaDb, Some(Dialect::MySql)) => true,
            (own, Some(other)) => own == other,
            _ => false,
        }
    }

    /// The driver class names shown in the connection information.
    pub fn default_port(self) -> u16 {
        match self {
            Dialect::Postgres => 5432,
            Dialect::MySql | Dialect::MariaDb => 3306,
        }
    }
}

/// Where and how to connect, read from a JDBC URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
    /// Empty: the driver's default (the user name for PostgreSQL, none for MySQL).
    pub database: String,
    /// URL parameters, names as written.
    pub params: BTreeMap<String, String>,
}

impl Endpoint {
    /// A URL parameter, its name compared without case.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Why a URL cannot be read: the driver would refuse it too (`Malformed`: every sample
/// fails, as in JMeter), or it uses a form jmxr does not implement (`Unsupported`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlError {
    Malformed(String),
    Unsupported(String),
}

impl std::fmt::Display for UrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UrlError::Malformed(why) | UrlError::Unsupported(why) => f.write_str(why),
        }
    }
}

/// Reads a `jdbc:postgresql:`, `jdbc:mysql:` or `jdbc:mariadb:` URL. Fails as the driver
/// does on a URL it cannot read; hosts beyond the first (fail-over lists) are ignored.
pub fn parse(url: &str, dialect: Dialect) -> Result<Endpoint, UrlError> {
    let url = url.trim();
    let rest = url
        .strip_prefix("jdbc:postgresql:")
        .or_else(|| url.strip_prefix("jdbc:mysql:"))
        .or_else(|| url.strip_prefix("jdbc:mariadb:"))
        .ok_or_else(|| {
            UrlError::Malformed(format!(
                "{url:?} is not a PostgreSQL, MySQL or MariaDB JDBC URL"
            ))
        })?;
    let (location, query) = rest.split_once('?').unwrap_or((rest, ""));
    let mut endpoint = Endpoint {
        host: "localhost".into(),
        port: dialect.default_port(),
        database: String::new(),
        params: BTreeMap::new(),
    };
    match location.strip_prefix("//") {
        Some(authority_and_path) => {
            let (authority, path) = authority_and_path
                .split_once('/')
                .unwrap_or((authority_and_path, ""));
            if authority.contains('(') || authority.contains('@') {
                return Err(UrlError::Unsupported(format!(
                    "{url:?}: only host:port addresses are supported, not the driver's \
                     address=(...) or user@host forms"
                )));
            }
            let first = authority.split(',').next().unwrap_or("");
            if !first.is_empty() {
                let (host, port) = split_host_port(first).map_err(UrlError::Malformed)?;
                endpoint.host = host;
                if let Some(port) = port {
                    endpoint.port = port;
                }
            }
            endpoint.database = decode(path);
        }
        // `jdbc:postgresql:database` (local server, default port).
        None if dialect == Dialect::Postgres && !location.starts_with('/') => {
            endpoint.database = decode(location);
        }
        None if dialect == Dialect::Postgres => {}
        None => {
            return Err(UrlError::Unsupported(format!(
                "{url:?}: a MySQL URL names its server as //host:port (load-balancing and \
                 replication URLs are not supported)"
            )))
        }
    }
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        endpoint.params.insert(decode(name), decode(value));
    }
    Ok(endpoint)
}

fn split_host_port(text: &str) -> Result<(String, Option<u16>), String> {
    if let Some(bracketed) = text.strip_prefix('[') {
        let (host, rest) = bracketed
            .split_once(']')
            .ok_or_else(|| format!("unclosed [ in host {text:?}"))?;
        let port = match rest.strip_prefix(':') {
            Some(port) => Some(parse_port(port)?),
            None => None,
        };
        return Ok((host.to_string(), port));
    }
    match text.rsplit_once(':') {
        Some((host, port)) => Ok((host.to_string(), Some(parse_port(port)?))),
        None => Ok((text.to_string(), None)),
    }
}

fn parse_port(text: &str) -> Result<u16, String> {
    text.parse()
        .map_err(|_| format!("invalid port number {text:?} in the JDBC URL"))
}

fn decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// DBCP's `connectionProperties`: `name=value` pairs separated by `;`.
pub fn connection_properties(text: &str) -> BTreeMap<String, String> {
    text.split(';')
        .filter_map(|pair| {
            let pair = pair.trim();
            if pair.is_empty() {
                return None;
            }
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            Some((name.trim().to_string(), value.trim().to_string()))
        })
        .collect()
}

/// DBCP's failure when the class names no driver jmxr has: JMeter's message when the
/// driver's jar is not in `lib/`.
pub fn unknown_driver(class: &str) -> JavaError {
    JavaError::plain_sql(format!("Cannot load JDBC driver class '{class}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_give_host_port_database_and_parameters() {
        let pg = parse(
            "jdbc:postgresql://db.local:5433/shop?sslmode=disable&ApplicationName=jm",
            Dialect::Postgres,
        )
        .unwrap();
        assert_eq!((pg.host.as_str(), pg.port), ("db.local", 5433));
        assert_eq!(pg.database, "shop");
        assert_eq!(pg.param("SSLMODE"), Some("disable"));
        let my = parse(
            "jdbc:mysql://10.0.0.1/axiz?characterEncoding=utf8&useSSL=true",
            Dialect::MySql,
        )
        .unwrap();
        assert_eq!((my.host.as_str(), my.port), ("10.0.0.1", 3306));
        assert_eq!(my.param("useSSL"), Some("true"));
        let local = parse("jdbc:postgresql:test", Dialect::Postgres).unwrap();
        assert_eq!(
            (local.host.as_str(), local.database.as_str()),
            ("localhost", "test")
        );
        let v6 = parse("jdbc:mariadb://[::1]:3307/x", Dialect::MariaDb).unwrap();
        assert_eq!((v6.host.as_str(), v6.port), ("::1", 3307));
        assert!(parse("jdbc:mysql://h:port/x", Dialect::MySql).is_err());
        assert!(parse("jdbc:oracle:thin:@h:1521:xe", Dialect::Postgres).is_err());
    }

    #[test]
    fn driver_classes_and_urls_pick_the_dialect() {
        assert_eq!(
            Dialect::by_driver_class("com.mysql.jdbc.Driver"),
            Some(Dialect::MySql)
        );
        assert_eq!(Dialect::by_driver_class("oracle.jdbc.OracleDriver"), None);
        assert!(Dialect::MariaDb.accepts("jdbc:mysql://h/db"));
        assert!(!Dialect::MySql.accepts("jdbc:postgresql://h/db"));
        assert_eq!(
            connection_properties("a=1; b = two ;"),
            BTreeMap::from([("a".into(), "1".into()), ("b".into(), "two".into())])
        );
    }
}
