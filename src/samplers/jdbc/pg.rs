//! PostgreSQL connections with tokio-postgres, behaving as pgjdbc's do for JMeter's
//! calls: prepared statements are kept per connection (pgjdbc's statement cache, so a
//! repeated Prepared Select is one round trip), auto-commit off opens a transaction
//! (`BEGIN`) before the next statement, `Commit`/`Rollback` fail while auto-commit is
//! on, JDBC call escapes (`{? = call f(?)}`) run as `select * from f(?,?) as result`,
//! and errors carry pgjdbc's messages and SQLStates ([`error`]).

use crate::foundation::fast_hash::FastMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{pin_mut, TryStreamExt};
use parking_lot::Mutex;
use tokio_postgres::types::Type;
use tokio_postgres::{CancelToken, Client, NoTls, SimpleQueryMessage, Statement};

use super::conn::{CallOutcome, Limits, ResultSet, StatementResult};
use super::errors::JavaError;
use super::java::Cell;
use super::params::{Direction, Param};
use super::pg_values::{self, PgCell};
use super::pool::ConnectSpec;
use super::url::Endpoint;

const PSQL_EXCEPTION: &str = "org.postgresql.util.PSQLException";

/// pgjdbc's `preparedStatementCacheQueries`.
const STATEMENT_CACHE: usize = 256;

/// How a connection ended: the error its connection task ended with (the server's
/// last word, as after `pg_terminate_backend`), or a failure seen by a statement.
#[derive(Default)]
struct EndState {
    error: Option<tokio_postgres::Error>,
    lost: bool,
}

type Ended = Arc<Mutex<EndState>>;

/// A statement in the connection's cache, with its column labels read once.
#[derive(Clone)]
struct Prepared {
    statement: Statement,
    columns: Arc<[String]>,
}

/// One PostgreSQL connection.
pub struct PgConn {
    client: Client,
    /// Whether and why the connection ended.
    ended_by: Ended,
    cancel: CancelToken,
    autocommit: bool,
    in_transaction: bool,
    /// Prepared statements by SQL, then by parameter types (a sample looks one up
    /// without allocating).
    statements: FastMap<String, Vec<(Vec<Type>, Prepared)>>,
    cached: usize,
}

/// Opens a connection as pgjdbc's `Driver.connect` does with the URL's parameters.
pub async fn connect(spec: &ConnectSpec, endpoint: &Endpoint) -> Result<PgConn, JavaError> {
    let mut config = tokio_postgres::Config::new();
    config.host(&endpoint.host).port(endpoint.port);
    let user = spec
        .property(endpoint, "user")
        .unwrap_or_else(|| std::env::var("USER").unwrap_or_default());
    config.user(&user);
    if let Some(password) = spec.property(endpoint, "password") {
        config.password(password);
    }
    config.dbname(if endpoint.database.is_empty() {
        &user
    } else {
        &endpoint.database
    });
    config.application_name(
        spec.property(endpoint, "ApplicationName")
            .unwrap_or_else(|| "PostgreSQL JDBC Driver".into()),
    );
    if let Some(options) = spec.property(endpoint, "options") {
        config.options(&options);
    }
    let connect_timeout = spec
        .property(endpoint, "connectTimeout")
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(10);
    if connect_timeout > 0 {
        config.connect_timeout(Duration::from_secs(connect_timeout));
    }
    let ssl_mode = spec.property(endpoint, "sslmode").unwrap_or_else(|| {
        match spec.property(endpoint, "ssl").as_deref() {
            Some("true") | Some("") => "require".into(),
            _ => "prefer".into(),
        }
    });
    config.ssl_mode(match ssl_mode.as_str() {
        "disable" | "allow" => tokio_postgres::config::SslMode::Disable,
        "prefer" => tokio_postgres::config::SslMode::Prefer,
        _ => {
            return Err(JavaError::sql(
                PSQL_EXCEPTION,
                format!("jmxr connects to PostgreSQL without TLS; sslmode={ssl_mode} needs it"),
                Some("08004"),
                0,
            ))
        }
    });
    let host_spec = format!("{}:{}", endpoint.host, endpoint.port);
    let (client, connection) = config
        .connect(NoTls)
        .await
        .map_err(|e| connect_error(&e, &host_spec))?;
    let ended_by = Ended::default();
    let ended = ended_by.clone();
    tokio::spawn(async move {
        if let Err(e) = connection.await {
            ended.lock().error = Some(e);
        }
    });
    let cancel = client.cancel_token();
    Ok(PgConn {
        client,
        ended_by,
        cancel,
        autocommit: true,
        in_transaction: false,
        statements: FastMap::default(),
        cached: 0,
    })
}

/// pgjdbc's errors for a connection that could not be made.
fn connect_error(e: &tokio_postgres::Error, host_spec: &str) -> JavaError {
    if e.as_db_error().is_some() {
        return error(e, &Arc::default());
    }
    let io = std::error::Error::source(e).and_then(|s| s.downcast_ref::<std::io::Error>());
    match io.map(std::io::Error::kind) {
        Some(std::io::ErrorKind::ConnectionRefused) => JavaError::sql(
            PSQL_EXCEPTION,
            format!(
                "Connection to {host_spec} refused. Check that the hostname and port are \
                 correct and that the postmaster is accepting TCP/IP connections."
            ),
            Some("08001"),
            0,
        ),
        _ if e.to_string().contains("invalid configuration") => JavaError::sql(
            PSQL_EXCEPTION,
            "The server requested SCRAM-based authentication, but no password was provided.",
            Some("08004"),
            0,
        ),
        _ => JavaError::sql(
            PSQL_EXCEPTION,
            "The connection attempt failed.",
            Some("08001"),
            0,
        ),
    }
}

/// A tokio-postgres error as pgjdbc reports it: the server's error rendered as
/// `ServerErrorMessage.toString()` with its SQLState, a lost connection as the server's
/// last word or `An I/O error occurred while sending to the backend.` (`08006`).
/// A `FATAL` server error or a failed exchange also marks the connection lost, as
/// pgjdbc's `isClosed()` then says, so that the pool drops it.
fn error(e: &tokio_postgres::Error, ended_by: &Ended) -> JavaError {
    if let Some(db) = e.as_db_error() {
        if matches!(db.severity(), "FATAL" | "PANIC") {
            ended_by.lock().lost = true;
        }
        return server_error(db);
    }
    let mut ended = ended_by.lock();
    ended.lost = true;
    if e.is_closed() {
        if let Some(db) = ended.error.as_ref().and_then(|e| e.as_db_error()) {
            return server_error(db);
        }
    }
    JavaError::sql(
        PSQL_EXCEPTION,
        "An I/O error occurred while sending to the backend.",
        Some("08006"),
        0,
    )
}

/// `ServerErrorMessage.toString()`: `SEVERITY: message`, then Detail, Hint, Position
/// and Where lines indented by two spaces.
fn server_error(db: &tokio_postgres::error::DbError) -> JavaError {
    let mut text = format!("{}: {}", db.severity(), db.message());
    if let Some(detail) = db.detail() {
        text.push_str(&format!("\n  Detail: {detail}"));
    }
    if let Some(hint) = db.hint() {
        text.push_str(&format!("\n  Hint: {hint}"));
    }
    if let Some(tokio_postgres::error::ErrorPosition::Original(position)) = db.position() {
        text.push_str(&format!("\n  Position: {position}"));
    }
    if let Some(place) = db.where_() {
        text.push_str(&format!("\n  Where: {place}"));
    }
    JavaError::sql(PSQL_EXCEPTION, text, Some(db.code().code()), 0)
}

fn psql(message: &str, state: &str) -> JavaError {
    JavaError::sql(PSQL_EXCEPTION, message, Some(state), 0)
}

impl PgConn {
    pub fn autocommit(&self) -> bool {
        self.autocommit
    }

    /// Closed, or ended by the server (its last word may be read before the client
    /// notices): DBCP drops such a connection when it comes back.
    pub fn is_closed(&self) -> bool {
        let ended = self.ended_by.lock();
        self.client.is_closed() || ended.lost || ended.error.is_some()
    }

    /// Runs one-off SQL (init statements, isolation, validation).
    pub async fn batch(&mut self, sql: &str) -> Result<(), JavaError> {
        self.client
            .batch_execute(sql)
            .await
            .map_err(|e| error(&e, &self.ended_by))
    }

    /// `SET SESSION CHARACTERISTICS`: the pool's transaction isolation.
    pub fn isolation_sql(level: &str) -> String {
        format!("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {level}")
    }

    /// With auto-commit off, pgjdbc starts a transaction before the first statement.
    /// The `BEGIN` is boxed, as are the other round trips a repeated prepared select
    /// does not make: a statement's future is moved whole at every level of the call,
    /// so it is kept to what that select needs.
    async fn begin_if_needed(&mut self) -> Result<(), JavaError> {
        if !self.autocommit && !self.in_transaction {
            Box::pin(self.batch("BEGIN")).await?;
            self.in_transaction = true;
        }
        Ok(())
    }

    /// Runs `work` under the query timeout: past it the server is asked to cancel the
    /// statement (pgjdbc's cancel timer), which then fails with the server's error.
    async fn timed<T>(
        cancel: &CancelToken,
        limits: &Limits,
        work: impl std::future::Future<Output = T>,
    ) -> T {
        pin_mut!(work);
        let Some(timeout) = limits.timeout else {
            return work.await;
        };
        // Boxed: the timer and the cancel request are large, and without a timeout
        // they would still size (and be copied with) every statement's future.
        Box::pin(Self::cancel_after(cancel, timeout, work)).await
    }

    async fn cancel_after<T>(
        cancel: &CancelToken,
        timeout: Duration,
        mut work: std::pin::Pin<&mut impl std::future::Future<Output = T>>,
    ) -> T {
        tokio::select! {
            done = &mut work => return done,
            _ = tokio::time::sleep(timeout) => {}
        }
        let _ = cancel.cancel_query(NoTls).await;
        work.await
    }

    /// The statement prepared for `sql` with parameter types `types` (an iterator, so
    /// that a cached statement is found without collecting them).
    async fn statement(
        &mut self,
        sql: &str,
        types: impl Iterator<Item = Type> + Clone,
    ) -> Result<Prepared, JavaError> {
        match self.cached_statement(sql, types.clone()) {
            Some(prepared) => Ok(prepared),
            None => Box::pin(self.prepare(sql, types.collect())).await,
        }
    }

    /// The statement the cache holds for `sql` and `types`. The types are compared by
    /// OID: the declared ones are built-in types or OID 0, never two types of one OID.
    fn cached_statement(
        &self,
        sql: &str,
        types: impl Iterator<Item = Type> + Clone,
    ) -> Option<Prepared> {
        let prepared = self.statements.get(sql)?;
        prepared
            .iter()
            .find(|(declared, _)| {
                declared
                    .iter()
                    .map(Type::oid)
                    .eq(types.clone().map(|t| t.oid()))
            })
            .map(|(_, prepared)| prepared.clone())
    }

    /// Prepares a statement the cache does not hold and keeps it.
    async fn prepare(&mut self, sql: &str, types: Vec<Type>) -> Result<Prepared, JavaError> {
        let statement = self
            .client
            .prepare_typed(&super::pg_sql::native_placeholders(sql), &types)
            .await
            .map_err(|e| error(&e, &self.ended_by))?;
        let prepared = Prepared {
            columns: statement
                .columns()
                .iter()
                .map(|c| c.name().to_string())
                .collect(),
            statement,
        };
        if self.cached >= STATEMENT_CACHE {
            self.statements.clear();
            self.cached = 0;
        }
        self.statements
            .entry(sql.to_string())
            .or_default()
            .push((types, prepared.clone()));
        self.cached += 1;
        Ok(prepared)
    }

    /// Binds `params` to `statement` as pgjdbc checks them: every `?` needs a value, and
    /// no value may go past the last `?`.
    fn check_count(statement: &Statement, params: &[Param]) -> Result<(), JavaError> {
        let wanted = statement.params().len();
        if params.len() > wanted {
            return Err(psql(
                &format!(
                    "The column index is out of range: {}, number of columns: {wanted}.",
                    wanted + 1
                ),
                "22023",
            ));
        }
        if params.len() < wanted {
            return Err(psql(
                &format!("No value specified for parameter {}.", params.len() + 1),
                "22023",
            ));
        }
        Ok(())
    }

    /// `Statement.executeQuery` (no parameters) or `PreparedStatement.executeQuery`.
    pub async fn select(
        &mut self,
        sql: &str,
        params: &[Param],
        prepared: bool,
        limits: &Limits,
    ) -> Result<ResultSet, JavaError> {
        self.begin_if_needed().await?;
        if !prepared {
            return Box::pin(self.select_once(sql, limits)).await;
        }
        let Prepared { statement, columns } = self.select_statement(sql, params, limits).await?;
        let rows = self.rows(&statement, params, limits).await?;
        Ok(ResultSet { columns, rows })
    }

    /// `PreparedStatement.executeQuery` whose rows only make the response text: they
    /// are written into `out` as [`super::results::result_set_text`] lays them out while
    /// they are read, without a cell (and a string per text value) for each.
    pub async fn select_text(
        &mut self,
        sql: &str,
        params: &[Param],
        limits: &Limits,
        out: &mut String,
    ) -> Result<(), JavaError> {
        self.begin_if_needed().await?;
        let Prepared { statement, columns } = self.select_statement(sql, params, limits).await?;
        // Room for the header and a row of short values, as for a result set.
        out.reserve(columns.iter().map(|c| c.len() + 1).sum::<usize>() + columns.len() * 16);
        super::results::header(out, &columns);
        let values = params.iter().map(|p| pg_values::Param(&p.value));
        // The query's own future stays inline: every such select makes it, and boxing
        // it cost an allocation and a copy per sample, more than moving it does.
        let work = async {
            let stream = self.client.query_raw(&statement, values).await?;
            write_rows(stream, limits.max_rows, out).await
        };
        Self::timed(&self.cancel, limits, work)
            .await
            .map_err(|e| error(&e, &self.ended_by))
    }

    /// The prepared statement of a select, checked as pgjdbc checks it: a value for
    /// every `?`, and columns to return.
    async fn select_statement(
        &mut self,
        sql: &str,
        params: &[Param],
        limits: &Limits,
    ) -> Result<Prepared, JavaError> {
        let types = params.iter().map(pg_values::declared_type);
        // A repeated select finds its statement without awaiting anything.
        let prepared = match self.cached_statement(sql, types.clone()) {
            Some(prepared) => prepared,
            None => Box::pin(self.prepare(sql, types.collect())).await?,
        };
        Self::check_count(&prepared.statement, params)?;
        if prepared.statement.columns().is_empty() {
            Box::pin(self.execute_statement(&prepared.statement, params, limits)).await?;
            return Err(psql("No results were returned by the query.", "02000"));
        }
        Ok(prepared)
    }

    /// A statement without parameters in one round trip (an unnamed statement); the
    /// column names of an empty result come from describing it again.
    async fn select_once(&mut self, sql: &str, limits: &Limits) -> Result<ResultSet, JavaError> {
        let ended_by = self.ended_by.clone();
        let client = &self.client;
        let work = async {
            let stream = client
                .query_typed_raw(sql, std::iter::empty::<(&str, Type)>())
                .await?;
            collect(stream, limits.max_rows, true).await
        };
        let (columns, rows) = Self::timed(&self.cancel, limits, work)
            .await
            .map_err(|e| error(&e, &ended_by))?;
        let columns = match columns {
            Some(columns) => columns,
            None => {
                let described = self
                    .client
                    .prepare(sql)
                    .await
                    .map_err(|e| error(&e, &ended_by))?;
                if described.columns().is_empty() {
                    return Err(psql("No results were returned by the query.", "02000"));
                }
                described
                    .columns()
                    .iter()
                    .map(|c| c.name().to_string())
                    .collect()
            }
        };
        Ok(ResultSet {
            columns: columns.into(),
            rows,
        })
    }

    async fn rows(
        &self,
        statement: &Statement,
        params: &[Param],
        limits: &Limits,
    ) -> Result<Vec<Vec<Cell>>, JavaError> {
        let values = params.iter().map(|p| pg_values::Param(&p.value));
        let work = async {
            // Boxed: tokio-postgres's future can also prepare a statement given as text,
            // which makes it large; moved whole at every level, it costs more than the
            // allocation.
            let stream = Box::pin(self.client.query_raw(statement, values)).await?;
            collect(stream, limits.max_rows, false).await
        };
        Self::timed(&self.cancel, limits, work)
            .await
            .map(|(_, rows)| rows)
            .map_err(|e| error(&e, &self.ended_by))
    }

    /// Executes a prepared statement and returns its update count.
    async fn execute_statement(
        &self,
        statement: &Statement,
        params: &[Param],
        limits: &Limits,
    ) -> Result<u64, JavaError> {
        let values = params.iter().map(|p| pg_values::Param(&p.value));
        let work = async {
            let stream = Box::pin(self.client.query_raw(statement, values)).await?;
            pin_mut!(stream);
            while stream.try_next().await?.is_some() {}
            Ok::<_, tokio_postgres::Error>(stream.rows_affected().unwrap_or(0))
        };
        Self::timed(&self.cancel, limits, work)
            .await
            .map_err(|e| error(&e, &self.ended_by))
    }

    /// `Statement.executeUpdate`: the update count of the first statement.
    pub async fn update(&mut self, sql: &str, limits: &Limits) -> Result<i64, JavaError> {
        self.begin_if_needed().await?;
        let work = Box::pin(self.client.simple_query(sql));
        let messages = Self::timed(&self.cancel, limits, work)
            .await
            .map_err(|e| error(&e, &self.ended_by))?;
        let mut count = None;
        for message in &messages {
            match message {
                SimpleQueryMessage::Row(_) | SimpleQueryMessage::RowDescription(_) => {
                    return Err(psql(
                        "A result was returned when none was expected.",
                        "0100E",
                    ))
                }
                SimpleQueryMessage::CommandComplete(n) if count.is_none() => count = Some(*n),
                _ => {}
            }
        }
        Ok(count.map_or(0, |n| n as i64))
    }

    /// `PreparedStatement.executeUpdate`.
    pub async fn prepared_update(
        &mut self,
        sql: &str,
        params: &[Param],
        limits: &Limits,
    ) -> Result<Vec<StatementResult>, JavaError> {
        self.begin_if_needed().await?;
        let types = params.iter().map(pg_values::declared_type);
        let statement = self.statement(sql, types).await?.statement;
        Self::check_count(&statement, params)?;
        let count = self.execute_statement(&statement, params, limits).await?;
        if !statement.columns().is_empty() {
            return Err(psql(
                "A result was returned when none was expected.",
                "0100E",
            ));
        }
        Ok(vec![StatementResult::Updates(count as i64)])
    }

    /// `CallableStatement.execute`: a function call's row gives the OUT parameters; a
    /// call without registered OUT parameters returns its rows as a result set.
    pub async fn call(
        &mut self,
        sql: &str,
        params: &[Param],
        limits: &Limits,
    ) -> Result<CallOutcome, JavaError> {
        self.begin_if_needed().await?;
        let (native, is_function) = super::pg_sql::jdbc_call(sql);
        let outs = params
            .iter()
            .filter(|p| p.direction != Direction::In)
            .count();
        // pgjdbc sends OUT-only parameters as `void` nulls.
        let types = params.iter().map(|p| match p.direction {
            Direction::Out if is_function => Type::VOID,
            _ => pg_values::declared_type(p),
        });
        let Prepared {
            statement, columns, ..
        } = self.statement(&native, types).await?;
        Self::check_count(&statement, params)?;
        if statement.columns().is_empty() {
            let count = self.execute_statement(&statement, params, limits).await?;
            return Ok(CallOutcome {
                results: vec![StatementResult::Updates(count as i64)],
                out_values: Vec::new(),
            });
        }
        let rows = self.rows(&statement, params, limits).await?;
        if !is_function || outs == 0 {
            return Ok(CallOutcome {
                results: vec![StatementResult::Rows(ResultSet { columns, rows })],
                out_values: Vec::new(),
            });
        }
        let Some(row) = rows.into_iter().next() else {
            return Err(psql(
                "A CallableStatement was executed with nothing returned.",
                "02000",
            ));
        };
        if row.len() != outs {
            return Err(psql(
                "A CallableStatement was executed with an invalid number of parameters",
                "42601",
            ));
        }
        Ok(CallOutcome {
            results: vec![StatementResult::Updates(-1)],
            out_values: row,
        })
    }

    /// `Connection.commit`.
    pub async fn commit(&mut self) -> Result<(), JavaError> {
        if self.autocommit {
            return Err(psql("Cannot commit when autoCommit is enabled.", "25P01"));
        }
        if self.in_transaction {
            self.in_transaction = false;
            self.batch("COMMIT").await?;
        }
        Ok(())
    }

    /// `Connection.rollback`.
    pub async fn rollback(&mut self) -> Result<(), JavaError> {
        if self.autocommit {
            return Err(psql("Cannot rollback when autoCommit is enabled.", "25P01"));
        }
        if self.in_transaction {
            self.in_transaction = false;
            self.batch("ROLLBACK").await?;
        }
        Ok(())
    }

    /// `Connection.setAutoCommit`: turning it on commits an open transaction.
    pub async fn set_autocommit(&mut self, on: bool) -> Result<(), JavaError> {
        if on && !self.autocommit && self.in_transaction {
            self.in_transaction = false;
            self.batch("COMMIT").await?;
        }
        self.autocommit = on;
        Ok(())
    }
}

/// Writes up to `max_rows` rows into `out`, each value as its cell's text, tab-separated,
/// each row ending in a newline (the rows past the limit are read and dropped).
async fn write_rows(
    stream: tokio_postgres::RowStream,
    max_rows: Option<usize>,
    out: &mut String,
) -> Result<(), tokio_postgres::Error> {
    pin_mut!(stream);
    let mut written = 0;
    while let Some(row) = stream.try_next().await? {
        if max_rows.is_some_and(|max| written >= max) {
            continue;
        }
        written += 1;
        let count = row.len();
        for i in 0..count {
            pg_values::append_value(&row, i, out)?;
            out.push(super::results::separator(i, count));
        }
    }
    Ok(())
}

type Collected = (Option<Vec<String>>, Vec<Vec<Cell>>);

/// Reads up to `max_rows` rows; with `column_names`, the column names come with the
/// first row (a prepared statement already knows them).
async fn collect(
    stream: tokio_postgres::RowStream,
    max_rows: Option<usize>,
    column_names: bool,
) -> Result<Collected, tokio_postgres::Error> {
    pin_mut!(stream);
    let mut columns = None;
    let mut rows = Vec::new();
    while let Some(row) = stream.try_next().await? {
        if column_names && columns.is_none() {
            columns = Some(row.columns().iter().map(|c| c.name().to_string()).collect());
        }
        if max_rows.is_some_and(|max| rows.len() >= max) {
            continue;
        }
        let mut cells = Vec::with_capacity(row.len());
        for i in 0..row.len() {
            cells.push(row.try_get::<_, PgCell>(i)?.0);
        }
        rows.push(cells);
    }
    Ok((columns, rows))
}
