//! MySQL and MariaDB connections with mysql_async, behaving as MySQL Connector/J 8
//! (`com.mysql.cj.jdbc.Driver`, `com.mysql.jdbc.Driver`) or MariaDB Connector/J 3
//! (`org.mariadb.jdbc.Driver`) do for JMeter's calls: errors carry the server's message
//! and SQLState in the driver's exception class (MariaDB's prefixed `(conn=<id>)`),
//! a lost connection is Connector/J's `Communications link failure`, Connector/J refuses
//! `executeQuery` of statements that produce no result set, callable statements return
//! their OUT parameters through session variables, and the query timeout kills the
//! statement (`KILL QUERY`) as the drivers' cancel timers do.

use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder, Params, Row};

use super::conn::{CallOutcome, Limits, ResultSet, StatementResult};
use super::errors::JavaError;
use super::java::Cell;
use super::mysql_values;
use super::params::{Direction, Param};
use super::pool::ConnectSpec;
use super::url::{Dialect, Endpoint};

/// One MySQL or MariaDB connection.
pub struct MyConn {
    conn: Conn,
    opts: Opts,
    dialect: Dialect,
    autocommit: bool,
    broken: bool,
    /// When the server last answered and was last written to (Connector/J's link
    /// failure message gives both).
    last_received: Instant,
    last_sent: Instant,
}

/// Opens a connection with the URL's database and the configuration's credentials.
pub async fn connect(spec: &ConnectSpec, endpoint: &Endpoint) -> Result<MyConn, JavaError> {
    let dialect = spec.dialect;
    let ssl = spec
        .property(endpoint, "sslMode")
        .map(|m| !m.eq_ignore_ascii_case("DISABLED"))
        .or_else(|| {
            spec.property(endpoint, "useSSL")
                .map(|v| v.eq_ignore_ascii_case("true"))
        })
        .unwrap_or(false);
    if ssl {
        let mode = spec.property(endpoint, "sslMode").unwrap_or_default();
        if !mode.eq_ignore_ascii_case("PREFERRED") {
            return Err(JavaError::sql(
                "java.sql.SQLNonTransientConnectionException",
                "jmxr connects to MySQL and MariaDB without TLS; set useSSL=false or sslMode=DISABLED",
                Some("08001"),
                0,
            ));
        }
    }
    let timeout = spec
        .property(endpoint, "connectTimeout")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|ms| *ms > 0);
    let opts: Opts = OptsBuilder::default()
        .ip_or_hostname(endpoint.host.clone())
        .tcp_port(endpoint.port)
        .user(spec.property(endpoint, "user"))
        .pass(spec.property(endpoint, "password"))
        .db_name(Some(endpoint.database.clone()).filter(|d| !d.is_empty()))
        .prefer_socket(false)
        .into();
    let started = Instant::now();
    let connecting = Conn::new(opts.clone());
    let conn = match timeout {
        Some(ms) => tokio::time::timeout(Duration::from_millis(ms), connecting)
            .await
            .unwrap_or_else(|_| {
                Err(mysql_async::Error::Io(
                    std::io::Error::from(std::io::ErrorKind::TimedOut).into(),
                ))
            }),
        None => connecting.await,
    };
    let conn = conn.map_err(|e| connect_error(e, dialect, endpoint, started))?;
    let now = Instant::now();
    Ok(MyConn {
        conn,
        opts,
        dialect,
        autocommit: true,
        broken: false,
        last_received: now,
        last_sent: now,
    })
}

fn connect_error(
    e: mysql_async::Error,
    dialect: Dialect,
    endpoint: &Endpoint,
    started: Instant,
) -> JavaError {
    if let mysql_async::Error::Server(server) = &e {
        return server_error(server, dialect, 0);
    }
    match dialect {
        Dialect::MariaDb => JavaError::sql(
            "java.sql.SQLNonTransientConnectionException",
            format!(
                "Could not connect to address=(host={})(port={})(type=primary) : {}",
                endpoint.host,
                endpoint.port,
                io_message(&e)
            ),
            Some("08000"),
            0,
        ),
        _ => JavaError::sql(
            "com.mysql.cj.jdbc.exceptions.CommunicationsException",
            format!(
                "Communications link failure\n\nThe last packet sent successfully to the server \
                 was {} milliseconds ago. The driver has not received any packets from the server.",
                started.elapsed().as_millis()
            ),
            Some("08S01"),
            0,
        ),
    }
}

/// Java's text for an I/O failure (`Connection refused`).
fn io_message(e: &mysql_async::Error) -> String {
    match e {
        mysql_async::Error::Io(io) => {
            let text = io.to_string();
            if text.contains("refused") {
                "Connection refused".into()
            } else {
                text
            }
        }
        other => other.to_string(),
    }
}

/// A server error in the driver's exception class.
fn server_error(e: &mysql_async::ServerError, dialect: Dialect, conn_id: u32) -> JavaError {
    let state = e.state.as_str();
    let code = i32::from(e.code);
    if dialect == Dialect::MariaDb {
        let message = if conn_id != 0 {
            format!("(conn={conn_id}) {}", e.message)
        } else {
            e.message.clone()
        };
        let class = if state == "70100" {
            "java.sql.SQLTimeoutException"
        } else if matches!(code, 1264 | 1265 | 1292 | 1406) {
            "org.mariadb.jdbc.export.MariaDbDataTruncation"
        } else {
            match state.get(..2).unwrap_or("42") {
                "0A" => "java.sql.SQLFeatureNotSupportedException",
                "22" | "26" | "2F" | "20" | "42" | "XA" => "java.sql.SQLSyntaxErrorException",
                "25" | "28" => "java.sql.SQLInvalidAuthorizationSpecException",
                "21" | "23" => "java.sql.SQLIntegrityConstraintViolationException",
                "08" => "java.sql.SQLNonTransientConnectionException",
                "40" => "java.sql.SQLTransactionRollbackException",
                "HY" => "java.sql.SQLException",
                _ => "java.sql.SQLTransientConnectionException",
            }
        };
        return JavaError::sql(class, message, Some(state), code);
    }
    if state.starts_with("22") {
        return JavaError::sql(
            "com.mysql.cj.jdbc.exceptions.MysqlDataTruncation",
            format!("Data truncation: {}", e.message),
            Some("22001"),
            code,
        );
    }
    let class = if state.starts_with("08") {
        "java.sql.SQLNonTransientConnectionException"
    } else if state.starts_with("23") {
        "java.sql.SQLIntegrityConstraintViolationException"
    } else if state.starts_with("42") {
        "java.sql.SQLSyntaxErrorException"
    } else if state.starts_with("40") {
        "com.mysql.cj.jdbc.exceptions.MySQLTransactionRollbackException"
    } else if state.starts_with("70100") {
        "com.mysql.cj.jdbc.exceptions.MySQLQueryInterruptedException"
    } else {
        "java.sql.SQLException"
    };
    JavaError::sql(class, e.message.clone(), Some(state), code)
}

/// Connector/J's `S1009` argument errors.
fn illegal_argument(message: &str) -> JavaError {
    JavaError::sql("java.sql.SQLException", message, Some("S1009"), 0)
}

/// Whether Connector/J counts `sql` among the statements that produce result sets
/// (`QueryInfo.getQueryReturnType`): `Some(true)` produce, `Some(false)` do not,
/// `None` may (`CALL`, `EXECUTE`, `WITH` ...).
fn produces_result_set(sql: &str) -> Option<bool> {
    let mut rest = sql.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r).trim_start();
        } else if rest.starts_with("--") || rest.starts_with('#') {
            rest = rest.split_once('\n').map_or("", |(_, r)| r).trim_start();
        } else if let Some(after) = rest.strip_prefix('(') {
            rest = after.trim_start();
        } else {
            break;
        }
    }
    let word: String = rest
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect::<String>()
        .to_ascii_uppercase();
    match word.as_str() {
        "" => Some(false),
        "CALL" | "EXECUTE" | "WITH" => None,
        "ANALYZE" | "CHECK" | "CHECKSUM" | "DESC" | "DESCRIBE" | "EXPLAIN" | "HELP"
        | "OPTIMIZE" | "REPAIR" | "SELECT" | "SHOW" | "TABLE" | "VALUES" => Some(true),
        _ => Some(false),
    }
}

impl MyConn {
    pub fn autocommit(&self) -> bool {
        self.autocommit
    }

    pub fn is_closed(&self) -> bool {
        self.broken
    }

    pub fn isolation_sql(level: &str) -> String {
        format!("SET SESSION TRANSACTION ISOLATION LEVEL {level}")
    }

    /// Maps a driver error, noting a lost connection.
    fn error(&mut self, e: mysql_async::Error) -> JavaError {
        if let mysql_async::Error::Server(server) = &e {
            return server_error(server, self.dialect, self.conn.id());
        }
        self.broken = true;
        match self.dialect {
            Dialect::MariaDb => JavaError::sql(
                "java.sql.SQLNonTransientConnectionException",
                format!("(conn={}) Socket error", self.conn.id()),
                Some("08000"),
                0,
            ),
            _ => JavaError::sql(
                "com.mysql.cj.jdbc.exceptions.CommunicationsException",
                format!(
                    "Communications link failure\n\nThe last packet successfully received from \
                     the server was {} milliseconds ago. The last packet sent successfully to \
                     the server was {} milliseconds ago.",
                    self.last_received.elapsed().as_millis(),
                    self.last_sent.elapsed().as_millis()
                ),
                Some("08S01"),
                0,
            ),
        }
    }

    /// The drivers' timeout error, after the statement was killed.
    fn timeout_error(&self) -> JavaError {
        match self.dialect {
            Dialect::MariaDb => JavaError::sql(
                "java.sql.SQLTimeoutException",
                format!(
                    "(conn={}) Query execution was interrupted (max_statement_time exceeded)",
                    self.conn.id()
                ),
                Some("70100"),
                1969,
            ),
            _ => JavaError::sql(
                "com.mysql.cj.jdbc.exceptions.MySQLTimeoutException",
                "Statement cancelled due to timeout or client request",
                None,
                0,
            ),
        }
    }

    pub async fn batch(&mut self, sql: &str) -> Result<(), JavaError> {
        self.last_sent = Instant::now();
        match self.conn.query_drop(sql).await {
            Ok(()) => {
                self.last_received = Instant::now();
                Ok(())
            }
            Err(e) => Err(self.error(e)),
        }
    }

    /// Runs `sql` (prepared with `params` when `prepared`) and reads every result, each
    /// result set up to the row limit, under the query timeout.
    async fn run(
        &mut self,
        sql: &str,
        params: Option<&[Param]>,
        limits: &Limits,
    ) -> Result<Vec<StatementResult>, JavaError> {
        self.last_sent = Instant::now();
        let id = self.conn.id();
        let opts = self.opts.clone();
        let max_rows = limits.max_rows;
        let dialect = self.dialect;
        let mut timed_out = false;
        let outcome = {
            let conn = &mut self.conn;
            let work = async move {
                match params {
                    None => {
                        let result = conn.query_iter(sql).await?;
                        read_all(result, max_rows, dialect).await
                    }
                    Some(params) => {
                        let statement = conn.prep(sql).await?;
                        check_count(statement.num_params() as usize, params)
                            .map_err(Outcome::Java)?;
                        let values: Vec<mysql_async::Value> = params
                            .iter()
                            .map(|p| mysql_values::param(&p.value))
                            .collect();
                        let params = if values.is_empty() {
                            Params::Empty
                        } else {
                            Params::Positional(values)
                        };
                        let result = conn.exec_iter(statement, params).await?;
                        read_all(result, max_rows, dialect).await
                    }
                }
            };
            let mut work = std::pin::pin!(work);
            match limits.timeout {
                None => work.await,
                Some(timeout) => {
                    tokio::select! {
                        done = &mut work => done,
                        _ = tokio::time::sleep(timeout) => {
                            timed_out = true;
                            kill_query(opts, id).await;
                            work.await
                        }
                    }
                }
            }
        };
        match outcome {
            Ok(results) => {
                self.last_received = Instant::now();
                Ok(results)
            }
            Err(_) if timed_out => Err(self.timeout_error()),
            Err(Outcome::Java(e)) => Err(e),
            Err(Outcome::Driver(e)) => Err(self.error(e)),
        }
    }

    pub async fn select(
        &mut self,
        sql: &str,
        params: &[Param],
        prepared: bool,
        limits: &Limits,
    ) -> Result<ResultSet, JavaError> {
        if self.dialect == Dialect::MySql && produces_result_set(sql) == Some(false) {
            return Err(illegal_argument(
                "Statement.executeQuery() cannot issue statements that do not produce result sets.",
            ));
        }
        let results = self.run(sql, prepared.then_some(params), limits).await?;
        Ok(results
            .into_iter()
            .find_map(|r| match r {
                StatementResult::Rows(rows) => Some(rows),
                StatementResult::Updates(_) => None,
            })
            .unwrap_or_default())
    }

    pub async fn update(&mut self, sql: &str, limits: &Limits) -> Result<i64, JavaError> {
        if self.dialect == Dialect::MySql && produces_result_set(sql) == Some(true) {
            return Err(illegal_argument(
                "Statement.executeUpdate() or Statement.executeLargeUpdate() cannot issue \
                 statements that produce result sets.",
            ));
        }
        let results = self.run(sql, None, limits).await?;
        Ok(first_count(&results))
    }

    pub async fn prepared_update(
        &mut self,
        sql: &str,
        params: &[Param],
        limits: &Limits,
    ) -> Result<Vec<StatementResult>, JavaError> {
        if self.dialect == Dialect::MySql && produces_result_set(sql) == Some(true) {
            return Err(illegal_argument(
                "Can not issue executeUpdate() or executeLargeUpdate() with statements that \
                 produce result sets",
            ));
        }
        let results = self.run(sql, Some(params), limits).await?;
        Ok(vec![StatementResult::Updates(first_count(&results))])
    }

    /// `CallableStatement.execute`: `{call p(?)}` runs as `CALL p(?)`, `{? = call f(?)}`
    /// as `SELECT f(?)`; OUT and INOUT parameters go through session variables, read
    /// back after the call, as Connector/J does for client-side callable statements.
    pub async fn call(
        &mut self,
        sql: &str,
        params: &[Param],
        limits: &Limits,
    ) -> Result<CallOutcome, JavaError> {
        let (native, function_result) = native_call(sql);
        let mut placeholders = placeholder_positions(&native).into_iter();
        let mut rewritten = String::new();
        let mut last = 0;
        let mut bound = Vec::new();
        let mut outs = Vec::new();
        let mut setup = Vec::new();
        for (i, param) in params.iter().enumerate() {
            if function_result && i == 0 {
                outs.push(None);
                continue;
            }
            let Some(at) = placeholders.next() else {
                return Err(illegal_argument(&format!(
                    "Parameter index out of range ({} > number of parameters, which is {i}).",
                    i + 1
                )));
            };
            rewritten.push_str(&native[last..at]);
            last = at + 1;
            if param.direction == Direction::In {
                rewritten.push('?');
                bound.push(param.clone());
                continue;
            }
            let variable = format!("@jmxr_out_{}", i + 1);
            rewritten.push_str(&variable);
            if param.direction == Direction::InOut {
                setup.push((variable.clone(), param.clone()));
            }
            outs.push(Some(variable));
        }
        rewritten.push_str(&native[last..]);
        for (variable, param) in setup {
            self.run(&format!("SET {variable} = ?"), Some(&[param]), limits)
                .await?;
        }
        let results = self.run(&rewritten, Some(&bound), limits).await?;
        if outs.is_empty() {
            return Ok(CallOutcome {
                results,
                out_values: Vec::new(),
            });
        }
        let mut out_values = Vec::new();
        let mut call_results = results;
        if function_result {
            if let Some(StatementResult::Rows(rows)) = call_results.first() {
                out_values.push(
                    rows.rows
                        .first()
                        .and_then(|r| r.first())
                        .cloned()
                        .unwrap_or(Cell::Null),
                );
            }
            call_results = vec![StatementResult::Updates(-1)];
        }
        let variables: Vec<&String> = outs.iter().flatten().collect();
        if !variables.is_empty() {
            let select = format!(
                "SELECT {}",
                variables
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            );
            let read = self.run(&select, None, &Limits::default()).await?;
            if let Some(StatementResult::Rows(rows)) = read.first() {
                out_values.extend(rows.rows.first().cloned().unwrap_or_default());
            }
        }
        Ok(CallOutcome {
            results: call_results,
            out_values,
        })
    }

    pub async fn commit(&mut self) -> Result<(), JavaError> {
        if self.autocommit && self.dialect == Dialect::MySql {
            return Err(JavaError::plain_sql(
                "Can't call commit when autocommit=true",
            ));
        }
        self.batch("COMMIT").await
    }

    pub async fn rollback(&mut self) -> Result<(), JavaError> {
        if self.autocommit && self.dialect == Dialect::MySql {
            return Err(JavaError::sql(
                "java.sql.SQLNonTransientConnectionException",
                "Can't call rollback when autocommit=true",
                Some("08003"),
                0,
            ));
        }
        self.batch("ROLLBACK").await
    }

    pub async fn set_autocommit(&mut self, on: bool) -> Result<(), JavaError> {
        if on != self.autocommit {
            self.batch(if on {
                "SET autocommit=1"
            } else {
                "SET autocommit=0"
            })
            .await?;
            self.autocommit = on;
        }
        Ok(())
    }
}

/// What a statement run ended with.
enum Outcome {
    Driver(mysql_async::Error),
    Java(JavaError),
}

impl From<mysql_async::Error> for Outcome {
    fn from(e: mysql_async::Error) -> Outcome {
        Outcome::Driver(e)
    }
}

/// Connector/J's client-side parameter checks.
fn check_count(wanted: usize, params: &[Param]) -> Result<(), JavaError> {
    if params.len() > wanted {
        return Err(illegal_argument(&format!(
            "Parameter index out of range ({} > number of parameters, which is {wanted}).",
            wanted + 1
        )));
    }
    if params.len() < wanted {
        return Err(illegal_argument(&format!(
            "No value specified for parameter {}",
            params.len() + 1
        )));
    }
    Ok(())
}

/// Reads every result of a query: result sets up to `max_rows` rows, update counts.
async fn read_all<'a, 't: 'a, P: mysql_async::prelude::Protocol>(
    mut result: mysql_async::QueryResult<'a, 't, P>,
    max_rows: Option<usize>,
    dialect: Dialect,
) -> Result<Vec<StatementResult>, Outcome> {
    let mut results = Vec::new();
    loop {
        let columns = result.columns();
        match columns {
            Some(columns) if !columns.is_empty() => {
                let rows: Vec<Row> = result.collect().await?;
                let names = columns.iter().map(|c| c.name_str().into_owned()).collect();
                let limit = max_rows.unwrap_or(usize::MAX);
                let cells = rows
                    .iter()
                    .take(limit)
                    .map(|row| {
                        columns
                            .iter()
                            .enumerate()
                            .map(|(i, column)| {
                                let value =
                                    row.as_ref(i).cloned().unwrap_or(mysql_async::Value::NULL);
                                mysql_values::cell(column, &value, dialect)
                            })
                            .collect()
                    })
                    .collect();
                results.push(StatementResult::Rows(ResultSet {
                    columns: names,
                    rows: cells,
                }));
            }
            _ => {
                let affected = result.affected_rows();
                let _: Vec<Row> = result.collect().await?;
                results.push(StatementResult::Updates(affected as i64));
            }
        }
        if result.is_empty() {
            break;
        }
    }
    Ok(results)
}

fn first_count(results: &[StatementResult]) -> i64 {
    results
        .iter()
        .find_map(|r| match r {
            StatementResult::Updates(n) => Some(*n),
            StatementResult::Rows(_) => None,
        })
        .unwrap_or(0)
}

/// Kills the running statement of connection `id` from a connection of its own.
async fn kill_query(opts: Opts, id: u32) {
    if let Ok(mut killer) = Conn::new(opts).await {
        let _ = killer.query_drop(format!("KILL QUERY {id}")).await;
        let _ = killer.disconnect().await;
    }
}

/// The SQL the drivers send for a JDBC call escape: `{call p(?)}` is `CALL p(?)`,
/// `{? = call f(?)}` is `SELECT f(?)` whose value is the first parameter.
fn native_call(sql: &str) -> (String, bool) {
    let trimmed = sql.trim();
    let Some(inner) = trimmed.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
        return (sql.to_string(), false);
    };
    let inner = inner.trim();
    if let Some(rest) = inner.strip_prefix('?') {
        let rest = rest
            .trim_start()
            .strip_prefix('=')
            .unwrap_or(rest)
            .trim_start();
        let body = rest
            .get(4..)
            .filter(|_| rest[..4].eq_ignore_ascii_case("call"));
        if let Some(body) = body {
            let body = body.trim();
            let call = if body.contains('(') {
                body.to_string()
            } else {
                format!("{body}()")
            };
            return (format!("SELECT {call}"), true);
        }
    }
    (inner.to_string(), false)
}

/// Byte offsets of the `?` placeholders outside quotes and comments.
fn placeholder_positions(sql: &str) -> Vec<usize> {
    let bytes = sql.as_bytes();
    let mut positions = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            quote @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'?' => positions.push(i),
            _ => {}
        }
        i += 1;
    }
    positions
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_classified_as_connector_j_does() {
        assert_eq!(produces_result_set("  select 1"), Some(true));
        assert_eq!(produces_result_set("/* x */ (SELECT 1)"), Some(true));
        assert_eq!(produces_result_set("insert into t values (1)"), Some(false));
        assert_eq!(produces_result_set("call p()"), None);
    }

    #[test]
    fn call_escapes_and_placeholders() {
        assert_eq!(
            native_call("{call p(?, ?)}"),
            ("call p(?, ?)".into(), false)
        );
        assert_eq!(native_call("{? = call f(?)}"), ("SELECT f(?)".into(), true));
        assert_eq!(native_call("CALL p(?)"), ("CALL p(?)".into(), false));
        assert_eq!(placeholder_positions("a(?, '?', ?) -- ?"), vec![2, 10]);
    }
}
