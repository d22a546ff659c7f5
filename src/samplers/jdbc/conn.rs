//! One pooled database connection, whichever the database: the operations JMeter's
//! JDBC elements call on a `java.sql.Connection` and its statements, dispatched to
//! [`super::pg`] or [`super::mysql`], and what they return.

use std::sync::Arc;
use std::time::Duration;

use super::errors::JavaError;
use super::java::Cell;
use super::mysql::MyConn;
use super::params::Param;
use super::pg::PgConn;

/// Rows a query returned, with the column labels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResultSet {
    /// Shared with the statement cache, which reads them once per statement.
    pub columns: Arc<[String]>,
    pub rows: Vec<Vec<Cell>>,
}

/// One result of a statement, in the order `getMoreResults` walks them.
#[derive(Debug, Clone, PartialEq)]
pub enum StatementResult {
    Rows(ResultSet),
    /// An update count (`-1`: none, as `getUpdateCount` says after a function call).
    Updates(i64),
}

/// What a callable statement returned: its results, then its OUT parameters in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallOutcome {
    pub results: Vec<StatementResult>,
    pub out_values: Vec<Cell>,
}

/// A statement's query timeout and row limit.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    /// `setQueryTimeout` with more than 0 seconds.
    pub timeout: Option<Duration>,
    /// At most this many rows are read (`setMaxRows` and JMeter's own loop).
    pub max_rows: Option<usize>,
}

/// A connection of either database.
pub enum Conn {
    /// Boxed: a PostgreSQL connection holds its statement cache and more state.
    Pg(Box<PgConn>),
    My(MyConn),
}

/// MySQL's statements are boxed futures: mysql_async's are large, and unboxed they
/// would size every statement's future, PostgreSQL's included, which is moved whole
/// at each level of the call.
impl Conn {
    pub fn autocommit(&self) -> bool {
        match self {
            Conn::Pg(c) => c.autocommit(),
            Conn::My(c) => c.autocommit(),
        }
    }

    /// Whether the driver knows the connection is gone (pooled connections that are go
    /// on return, as DBCP drops a closed connection).
    pub fn is_closed(&self) -> bool {
        match self {
            Conn::Pg(c) => c.is_closed(),
            Conn::My(c) => c.is_closed(),
        }
    }

    /// Runs statements whose results nobody reads (init SQL, validation).
    pub async fn batch(&mut self, sql: &str) -> Result<(), JavaError> {
        match self {
            Conn::Pg(c) => c.batch(sql).await,
            Conn::My(c) => Box::pin(c.batch(sql)).await,
        }
    }

    /// The statement that sets the session's transaction isolation
    /// (`READ COMMITTED`...).
    pub fn isolation_sql(&self, level: &str) -> String {
        match self {
            Conn::Pg(_) => PgConn::isolation_sql(level),
            Conn::My(_) => MyConn::isolation_sql(level),
        }
    }

    pub async fn select(
        &mut self,
        sql: &str,
        params: &[Param],
        prepared: bool,
        limits: &Limits,
    ) -> Result<ResultSet, JavaError> {
        match self {
            Conn::Pg(c) => c.select(sql, params, prepared, limits).await,
            Conn::My(c) => Box::pin(c.select(sql, params, prepared, limits)).await,
        }
    }

    /// A select whose rows only make the response text (they set no variable),
    /// appended to `out` as [`super::results::result_set_text`] writes them. A prepared
    /// PostgreSQL select writes them as it reads them.
    pub async fn select_text(
        &mut self,
        sql: &str,
        params: &[Param],
        prepared: bool,
        limits: &Limits,
        out: &mut String,
    ) -> Result<(), JavaError> {
        let rows = match self {
            Conn::Pg(c) if prepared => return c.select_text(sql, params, limits, out).await,
            Conn::Pg(c) => c.select(sql, params, prepared, limits).await?,
            Conn::My(c) => Box::pin(c.select(sql, params, prepared, limits)).await?,
        };
        super::results::result_set_text(out, &rows);
        Ok(())
    }

    pub async fn update(&mut self, sql: &str, limits: &Limits) -> Result<i64, JavaError> {
        match self {
            Conn::Pg(c) => c.update(sql, limits).await,
            Conn::My(c) => Box::pin(c.update(sql, limits)).await,
        }
    }

    pub async fn prepared_update(
        &mut self,
        sql: &str,
        params: &[Param],
        limits: &Limits,
    ) -> Result<Vec<StatementResult>, JavaError> {
        match self {
            Conn::Pg(c) => c.prepared_update(sql, params, limits).await,
            Conn::My(c) => Box::pin(c.prepared_update(sql, params, limits)).await,
        }
    }

    pub async fn call(
        &mut self,
        sql: &str,
        params: &[Param],
        limits: &Limits,
    ) -> Result<CallOutcome, JavaError> {
        match self {
            Conn::Pg(c) => c.call(sql, params, limits).await,
            Conn::My(c) => Box::pin(c.call(sql, params, limits)).await,
        }
    }

    pub async fn commit(&mut self) -> Result<(), JavaError> {
        match self {
            Conn::Pg(c) => c.commit().await,
            Conn::My(c) => Box::pin(c.commit()).await,
        }
    }

    pub async fn rollback(&mut self) -> Result<(), JavaError> {
        match self {
            Conn::Pg(c) => c.rollback().await,
            Conn::My(c) => Box::pin(c.rollback()).await,
        }
    }

    pub async fn set_autocommit(&mut self, on: bool) -> Result<(), JavaError> {
        match self {
            Conn::Pg(c) => c.set_autocommit(on).await,
            Conn::My(c) => Box::pin(c.set_autocommit(on)).await,
        }
    }
}
