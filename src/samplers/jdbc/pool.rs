//! The connection pool of a JDBC Connection Configuration, behaving as the DBCP
//! `BasicDataSource` JMeter configures (`DataSourceElement.initPool`):
//!
//! - the first borrow creates the data source: one connection checks the settings
//!   (failure: `Cannot create PoolableConnectionFactory (<driver message>)`, and the
//!   next borrow tries again), then the pool is filled to its size (`initialSize` =
//!   `maxTotal` = pool size);
//! - a borrow waits at most the max wait (`Cannot get a connection, pool error Timeout
//!   waiting for idle object, borrowMaxWaitDuration=PT10S`), a negative one for ever;
//! - idle connections are handed out last-in first-out, and each borrow resets
//!   auto-commit to the pool's default (DBCP's `activateObject`), which commits an
//!   open transaction when the default is on;
//! - connections are opened with the init SQL statements and the isolation level;
//!   one the driver knows is closed is dropped when it comes back;
//! - with keep-alive, an evictor closes connections idle longer than the connection
//!   age and validates the others every trim interval.
//!
//! Waiting never blocks a thread: borrowers wait on an async semaphore.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

use super::conn::Conn;
use super::errors::JavaError;
use super::url::{Dialect, Endpoint};

/// How to open a connection: the driver, where, and the properties it is given.
#[derive(Debug, Clone)]
pub struct ConnectSpec {
    pub dialect: Dialect,
    pub endpoint: Endpoint,
    pub username: String,
    pub password: String,
    /// The configuration's connection properties (`name=value;...`).
    pub properties: BTreeMap<String, String>,
}

impl ConnectSpec {
    /// A driver property: the URL's parameter, else the connection properties, else the
    /// configuration's user name and password (given only when the user name is set).
    pub fn property(&self, endpoint: &Endpoint, name: &str) -> Option<String> {
        if let Some(value) = endpoint.param(name) {
            return Some(value.to_string());
        }
        if let Some(value) = self.properties.get(name) {
            return Some(value.clone());
        }
        match name {
            "user" if !self.username.is_empty() => Some(self.username.clone()),
            "password" if !self.username.is_empty() => Some(self.password.clone()),
            _ => None,
        }
    }

    async fn connect(&self) -> Result<Conn, JavaError> {
        match self.dialect {
            Dialect::Postgres => super::pg::connect(self, &self.endpoint)
                .await
                .map(|c| Conn::Pg(Box::new(c))),
            Dialect::MySql | Dialect::MariaDb => super::mysql::connect(self, &self.endpoint)
                .await
                .map(Conn::My),
        }
    }
}

/// A pool's settings, evaluated.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    pub spec: ConnectSpec,
    /// Connections at most (at least 1).
    pub size: usize,
    /// `None`: wait for ever.
    pub max_wait: Option<Duration>,
    /// The max wait as the timeout message prints it (`PT10S`).
    pub max_wait_text: String,
    pub init_sqls: Vec<String>,
    pub autocommit: bool,
    /// The isolation level in SQL words (`READ COMMITTED`), when one is set.
    pub isolation: Option<&'static str>,
    pub keep_alive: bool,
    pub check_query: String,
    pub connection_age: Duration,
    pub trim_interval: Duration,
    /// The sample's response headers (`DataSourceElement.getConnectionInfo`).
    pub connection_info: String,
}

struct Idle {
    conn: Conn,
    since: Instant,
}

/// One pool; shared by every user of a run under its variable name, or one per user
/// when the pool size is 0.
pub struct Pool {
    config: PoolConfig,
    permits: Arc<Semaphore>,
    idle: Mutex<Vec<Idle>>,
    /// Set once the data source is created: borrows then skip the lock below.
    ready: AtomicBool,
    /// Whether the data source was created (DBCP's `createDataSource`).
    created: tokio::sync::Mutex<bool>,
}

/// A borrowed connection; it goes back to its pool when dropped.
pub struct Pooled {
    conn: Option<Conn>,
    pool: Arc<Pool>,
    _permit: OwnedSemaphorePermit,
}

impl std::ops::Deref for Pooled {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        self.conn
            .as_ref()
            .expect("a pooled connection is held until dropped")
    }
}

impl std::ops::DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut Conn {
        self.conn
            .as_mut()
            .expect("a pooled connection is held until dropped")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            if !conn.is_closed() {
                self.pool.idle.lock().push(Idle {
                    conn,
                    since: Instant::now(),
                });
            }
        }
    }
}

impl Pool {
    pub fn new(config: PoolConfig) -> Pool {
        Pool {
            permits: Arc::new(Semaphore::new(config.size.max(1))),
            config,
            idle: Mutex::new(Vec::new()),
            ready: AtomicBool::new(false),
            created: tokio::sync::Mutex::new(false),
        }
    }

    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    /// `BasicDataSource.getConnection`.
    pub async fn get(self: &Arc<Pool>) -> Result<Pooled, JavaError> {
        self.create_data_source().await?;
        // A free connection is taken without arming the max-wait timer.
        let permit = match self.permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(TryAcquireError::Closed) => return Err(closed()),
            Err(TryAcquireError::NoPermits) => Box::pin(self.wait_for_permit()).await?,
        };
        let idle = self.idle.lock().pop();
        let mut conn = match idle {
            Some(idle) => idle.conn,
            None => Box::pin(self.open()).await?,
        };
        if conn.autocommit() != self.config.autocommit {
            conn.set_autocommit(self.config.autocommit).await?;
        }
        Ok(Pooled {
            conn: Some(conn),
            pool: self.clone(),
            _permit: permit,
        })
    }

    /// Waits for a connection to come back, at most the max wait.
    async fn wait_for_permit(&self) -> Result<OwnedSemaphorePermit, JavaError> {
        let acquire = self.permits.clone().acquire_owned();
        match self.config.max_wait {
            None => acquire.await,
            Some(wait) => match tokio::time::timeout(wait, acquire).await {
                Ok(permit) => permit,
                Err(_) => {
                    return Err(JavaError::plain_sql(format!(
                        "Cannot get a connection, pool error Timeout waiting for idle object, \
                         borrowMaxWaitDuration={}",
                        self.config.max_wait_text
                    )))
                }
            },
        }
        .map_err(|_| closed())
    }

    /// The first borrow checks the settings with one connection and fills the pool.
    /// Boxed past the first check: connecting futures are large, and every borrow's
    /// future would otherwise be as large and be moved whole.
    async fn create_data_source(self: &Arc<Pool>) -> Result<(), JavaError> {
        if self.ready.load(Ordering::Acquire) {
            return Ok(());
        }
        Box::pin(self.fill()).await
    }

    async fn fill(self: &Arc<Pool>) -> Result<(), JavaError> {
        let mut created = self.created.lock().await;
        if *created {
            return Ok(());
        }
        let first = self.open().await.map_err(|e| {
            JavaError::plain_sql(format!(
                "Cannot create PoolableConnectionFactory ({})",
                e.message.unwrap_or_default()
            ))
        })?;
        let more = (1..self.config.size).map(|_| self.open());
        let opened = futures_util::future::join_all(more).await;
        let mut conns = vec![first];
        for conn in opened {
            match conn {
                Ok(conn) => conns.push(conn),
                Err(_) => return Err(JavaError::plain_sql("Error preloading the connection pool")),
            }
        }
        let now = Instant::now();
        self.idle
            .lock()
            .extend(conns.into_iter().map(|conn| Idle { conn, since: now }));
        *created = true;
        self.ready.store(true, Ordering::Release);
        if self.config.keep_alive && !self.config.trim_interval.is_zero() {
            tokio::spawn(evict(Arc::downgrade(self), self.config.trim_interval));
        }
        Ok(())
    }

    /// DBCP's `makeObject`: connect, run the init statements, set the isolation.
    async fn open(&self) -> Result<Conn, JavaError> {
        let mut conn = self.config.spec.connect().await?;
        for sql in &self.config.init_sqls {
            if !sql.trim().is_empty() {
                conn.batch(sql).await?;
            }
        }
        if let Some(level) = self.config.isolation {
            let sql = conn.isolation_sql(level);
            // JMeter logs a failure to set the isolation and goes on.
            let _ = conn.batch(&sql).await;
        }
        Ok(conn)
    }
}

fn closed() -> JavaError {
    JavaError::plain_sql("Data source is closed")
}

/// The keep-alive evictor: every `interval`, idle connections older than the
/// connection age are closed and the others validated (DBCP's `testWhileIdle` with
/// `softMinEvictableIdleTime`).
async fn evict(pool: Weak<Pool>, interval: Duration) {
    loop {
        tokio::time::sleep(interval).await;
        let Some(pool) = pool.upgrade() else {
            return;
        };
        let age = pool.config.connection_age;
        let idle: Vec<Idle> = std::mem::take(&mut *pool.idle.lock());
        let mut kept = Vec::new();
        for mut entry in idle {
            if entry.since.elapsed() > age || entry.conn.is_closed() {
                continue;
            }
            let check = if pool.config.check_query.trim().is_empty() {
                "SELECT 1"
            } else {
                pool.config.check_query.as_str()
            };
            if entry.conn.batch(check).await.is_ok() {
                kept.push(entry);
            }
        }
        // Connections returned meanwhile are newer: they go on top of the stack.
        let mut idle = pool.idle.lock();
        let returned = std::mem::take(&mut *idle);
        idle.extend(kept);
        idle.extend(returned);
    }
}

/// `java.time.Duration.toString()` of `ms` milliseconds (`PT10S`, `PT0.5S`, `PT1M30S`).
pub fn java_duration(ms: i64) -> String {
    let negative = ms < 0;
    let total = ms.unsigned_abs();
    let seconds = total / 1000;
    let millis = total % 1000;
    let (hours, minutes, secs) = (seconds / 3600, seconds % 3600 / 60, seconds % 60);
    let sign = if negative { "-" } else { "" };
    let mut out = String::from("PT");
    if hours != 0 {
        out.push_str(&format!("{sign}{hours}H"));
    }
    if minutes != 0 {
        out.push_str(&format!("{sign}{minutes}M"));
    }
    if secs == 0 && millis == 0 && out.len() > 2 {
        return out;
    }
    out.push_str(sign);
    out.push_str(&secs.to_string());
    if millis != 0 {
        let fraction = format!("{millis:03}");
        out.push('.');
        out.push_str(fraction.trim_end_matches('0'));
    }
    out.push('S');
    out
}

#[cfg(test)]
mod tests {
    use super::java_duration;

    #[test]
    fn max_waits_print_as_java_durations() {
        assert_eq!(java_duration(10_000), "PT10S");
        assert_eq!(java_duration(500), "PT0.5S");
        assert_eq!(java_duration(0), "PT0S");
        assert_eq!(java_duration(90_000), "PT1M30S");
        assert_eq!(java_duration(3_600_000), "PT1H");
        assert_eq!(java_duration(1_250), "PT1.25S");
    }
}
