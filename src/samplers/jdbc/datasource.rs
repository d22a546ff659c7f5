//! JDBC Connection Configuration (`DataSourceElement`, saved as `JDBCDataSource`): its
//! settings, read once, and the pool they describe, made the first time a JDBC element
//! of the run asks for the pool's variable name. As in JMeter, a configuration anywhere
//! in the plan serves every thread group (the pool is bound to a variable name, not a
//! scope), the first configuration of a name wins, and a pool size of 0 gives each
//! user a pool of one connection of its own.

use std::sync::Arc;
use std::time::Duration;

use super::errors::JavaError;
use super::pool::{java_duration, ConnectSpec, Pool, PoolConfig};
use super::url::{self, Dialect};
use crate::plan::{BuildContext, Setting};
use crate::user_state::{EvalContext, UserState};

/// One JDBC Connection Configuration.
pub struct DataSourceDef {
    /// The element id: the key of the per-user pool slot.
    pub id: usize,
    name: Setting,
    driver: Setting,
    url: Setting,
    username: Setting,
    password: Setting,
    connection_properties: Setting,
    init_query: Setting,
    pool_max: Setting,
    timeout: Setting,
    trim_interval: Setting,
    autocommit: Setting,
    /// Not an expression in JMeter: read as written.
    isolation: String,
    keep_alive: Setting,
    connection_age: Setting,
    check_query: Setting,
}

/// Every JDBC Connection Configuration of a plan, in tree order.
#[derive(Default)]
pub struct DataSources {
    defs: Vec<Arc<DataSourceDef>>,
}

impl DataSources {
    pub fn new(defs: Vec<Arc<DataSourceDef>>) -> DataSources {
        DataSources { defs }
    }

    /// The configurations, for merging the lists of subtrees.
    pub fn into_defs(self) -> Vec<Arc<DataSourceDef>> {
        self.defs
    }

    /// Whether a configuration's name is `name` as written (for plan checks; names
    /// that are expressions are not known before the run).
    pub fn knows(&self, name: &str) -> bool {
        self.defs
            .iter()
            .any(|d| d.name.constant_text().is_none_or(|n| n == name))
    }

    /// The configuration [`DataSources::find`] finds for `name` whoever asks, when no
    /// configuration before it has a name that is an expression (which each user
    /// evaluates): a JDBC element with a constant pool name looks it up once.
    pub fn find_constant(&self, name: &str) -> Option<Arc<DataSourceDef>> {
        for def in &self.defs {
            match def.name.constant_text() {
                Some(constant) if constant == name => return Some(def.clone()),
                Some(_) => {}
                None => return None,
            }
        }
        None
    }

    /// The first configuration whose variable name is `name`.
    pub fn find(&self, name: &str, cx: &mut EvalContext<'_>) -> Option<Arc<DataSourceDef>> {
        self.defs
            .iter()
            .find(|d| match d.name.constant_text() {
                Some(constant) => constant == name,
                None => d.name.text(cx) == name,
            })
            .cloned()
    }
}

/// Reads a JDBC Connection Configuration; drivers jmxr has no counterpart for are plan
/// errors.
pub fn build(cx: &mut BuildContext<'_>) -> DataSourceDef {
    let def = DataSourceDef {
        id: cx.id,
        name: cx.setting("dataSource", ""),
        driver: cx.setting("driver", ""),
        url: cx.setting("dbUrl", ""),
        username: cx.setting("username", ""),
        password: cx.setting("password", ""),
        connection_properties: cx.setting("connectionProperties", ""),
        init_query: cx.setting("initQuery", ""),
        pool_max: cx.setting("poolMax", "0"),
        timeout: cx.setting("timeout", "10000"),
        trim_interval: cx.setting("trimInterval", "60000"),
        autocommit: cx.setting("autocommit", "true"),
        isolation: cx
            .raw("transactionIsolation")
            .unwrap_or("DEFAULT")
            .to_string(),
        keep_alive: cx.setting("keepAlive", "true"),
        connection_age: cx.setting("connectionAge", "5000"),
        check_query: cx.setting("checkQuery", ""),
    };
    if def
        .name
        .constant_text()
        .is_some_and(|n| n.trim().is_empty())
    {
        cx.error("the JDBC Connection Configuration has no Variable Name for its pool");
    }
    let driver = def.driver.constant_text().map(str::trim);
    if let Some(driver) = driver.filter(|d| !d.is_empty()) {
        if Dialect::by_driver_class(driver).is_none() {
            cx.error(format!(
                "JDBC driver {driver:?} is not supported: jmxr connects to PostgreSQL \
                 (org.postgresql.Driver), MySQL (com.mysql.cj.jdbc.Driver, \
                 com.mysql.jdbc.Driver) and MariaDB (org.mariadb.jdbc.Driver)"
            ));
            return def;
        }
    }
    if let Some(url) = def.url.constant_text() {
        let dialect = driver
            .and_then(Dialect::by_driver_class)
            .or_else(|| Dialect::by_url(url));
        match dialect {
            Some(dialect) if !dialect.accepts(url) => cx.error(format!(
                "the database URL {url:?} is not one the driver {} accepts",
                driver.unwrap_or("")
            )),
            Some(dialect) => {
                match url::parse(url, dialect) {
                    Ok(_) => {}
                    Err(url::UrlError::Unsupported(why)) => cx.error(why),
                    // JMeter runs such a plan: every sample of the pool fails.
                    Err(url::UrlError::Malformed(why)) => cx.warn(format!(
                        "{why}: every sample using this pool fails (Cannot create \
                         PoolableConnectionFactory)"
                    )),
                }
            }
            None => cx.error(format!(
                "the database URL {url:?} is not a PostgreSQL, MySQL or MariaDB JDBC URL"
            )),
        }
    }
    if !isolation_known(&def.isolation) {
        cx.warn(format!(
            "transaction isolation {:?} is not one jmxr sets; the driver's default is kept",
            def.isolation
        ));
    }
    def
}

fn isolation_known(text: &str) -> bool {
    matches!(
        text.trim(),
        "" | "DEFAULT"
            | "TRANSACTION_NONE"
            | "TRANSACTION_READ_COMMITTED"
            | "TRANSACTION_READ_UNCOMMITTED"
            | "TRANSACTION_REPEATABLE_READ"
            | "TRANSACTION_SERIALIZABLE"
            | "-1"
            | "0"
            | "1"
            | "2"
            | "4"
            | "8"
    )
}

/// `DataSourceElementBeanInfo.getTransactionIsolationMode`, as SQL words.
fn isolation_level(text: &str) -> Option<&'static str> {
    match text.trim() {
        "TRANSACTION_READ_UNCOMMITTED" | "1" => Some("READ UNCOMMITTED"),
        "TRANSACTION_READ_COMMITTED" | "2" => Some("READ COMMITTED"),
        "TRANSACTION_REPEATABLE_READ" | "4" => Some("REPEATABLE READ"),
        "TRANSACTION_SERIALIZABLE" | "8" => Some("SERIALIZABLE"),
        _ => None,
    }
}

/// `Long.parseLong` of a setting, failing as Java does.
fn long(setting: &Setting, cx: &mut EvalContext<'_>) -> Result<i64, JavaError> {
    let text = setting.text(cx);
    text.parse().map_err(|_| {
        JavaError::other(
            "java.lang.NumberFormatException",
            Some(format!("For input string: \"{text}\"")),
        )
    })
}

fn millis(ms: i64) -> Duration {
    Duration::from_millis(ms.max(0) as u64)
}

impl DataSourceDef {
    /// The pool's settings for this run, evaluated as JMeter's `testStarted` does, and
    /// whether each user gets a pool of its own (pool size 0).
    pub fn evaluate(&self, cx: &mut EvalContext<'_>) -> Result<(PoolConfig, bool), JavaError> {
        let driver = self.driver.text(cx).trim().to_string();
        let url = self.url.text(cx).trim().to_string();
        let dialect = if driver.is_empty() {
            Dialect::by_url(&url).ok_or_else(|| {
                JavaError::sql(
                    super::errors::SQL_EXCEPTION,
                    "No suitable driver",
                    Some("08001"),
                    0,
                )
            })?
        } else {
            Dialect::by_driver_class(&driver).ok_or_else(|| url::unknown_driver(&driver))?
        };
        if !dialect.accepts(&url) {
            return Err(JavaError::sql(
                super::errors::SQL_EXCEPTION,
                "No suitable driver",
                Some("08001"),
                0,
            ));
        }
        let endpoint = url::parse(&url, dialect).map_err(|why| {
            JavaError::plain_sql(format!("Cannot create PoolableConnectionFactory ({why})"))
        })?;
        let pool_max = long(&self.pool_max, cx)?;
        let per_thread = pool_max == 0;
        let wait = long(&self.timeout, cx)?;
        let username = self.username.text(cx);
        let shown_user = if username.is_empty() {
            "null"
        } else {
            username.as_str()
        };
        let driver_shown = if driver.is_empty() {
            "null"
        } else {
            driver.as_str()
        };
        let init_query = self.init_query.text(cx);
        let config = PoolConfig {
            connection_info: format!(
                "shared:{}, driver:{driver_shown}, url:{url}, user:{shown_user}",
                !per_thread
            ),
            spec: ConnectSpec {
                dialect,
                endpoint,
                password: self.password.text(cx),
                username,
                properties: url::connection_properties(&self.connection_properties.text(cx)),
            },
            size: if per_thread {
                1
            } else {
                pool_max.max(1) as usize
            },
            max_wait: (wait >= 0).then(|| millis(wait)),
            max_wait_text: java_duration(wait),
            init_sqls: if init_query.is_empty() {
                Vec::new()
            } else {
                init_query.split('\n').map(str::to_string).collect()
            },
            autocommit: self.autocommit.bool(cx),
            isolation: isolation_level(&self.isolation),
            keep_alive: self.keep_alive.bool(cx),
            check_query: self.check_query.text(cx),
            connection_age: millis(self.connection_age.i64(cx)),
            trim_interval: millis(self.trim_interval.i64(cx)),
        };
        Ok((config, per_thread))
    }
}

/// The pool a user borrows from for the configuration `def`: the run's pool of that
/// name, or the user's own when the pool size is 0; kept in the user's slot after the
/// first look-up.
pub fn pool_for(
    def: &DataSourceDef,
    name: &str,
    user: &mut UserState,
) -> Result<Arc<Pool>, JavaError> {
    #[derive(Default)]
    struct Slot(Option<Arc<Pool>>);
    if let Some(pool) = &user.slot(def.id, Slot::default).0 {
        return Ok(pool.clone());
    }
    let (config, per_thread) = def.evaluate(&mut user.eval(""))?;
    let pool = if per_thread {
        Arc::new(Pool::new(config))
    } else {
        user.run
            .shared(&format!("jdbc.pool.{name}"), || Pool::new(config))
            .ok_or_else(|| JavaError::plain_sql(format!("No pool found named: '{name}'")))?
    };
    user.slot(def.id, Slot::default).0 = Some(pool.clone());
    Ok(pool)
}
