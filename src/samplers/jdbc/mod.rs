//! JDBC Request, JDBC PreProcessor and JDBC PostProcessor on PostgreSQL, MySQL and
//! MariaDB through native async drivers (tokio-postgres, mysql_async), with the pools
//! of the plan's JDBC Connection Configurations.
//!
//! How the pieces relate: [`datasource`] reads each JDBC Connection Configuration (the
//! assembler collects them from the whole plan first, since a pool serves every thread
//! group) and makes its [`pool`] on first use; [`element`] holds the settings the three
//! JDBC elements share and runs one statement on a pooled [`conn::Conn`], which
//! dispatches to [`pg`] or [`mysql`]; values come back as the Java driver's objects
//! ([`java::Cell`]), and [`results`] lays them out as JMeter does and sets the
//! variables. Failures are the Java exceptions JMeter would report ([`errors`]).
//! `docs/jdbc.md` cites the JMeter and driver sources each rule comes from.

pub mod conn;
pub mod datasource;
pub mod element;
pub mod errors;
pub mod java;
pub mod mysql;
pub mod mysql_values;
pub mod params;
pub mod pg;
pub mod pg_sql;
pub mod pg_values;
pub mod pool;
pub mod results;
pub mod url;

use std::future::Future;
use std::sync::Arc;
use std::task::Poll;

use async_trait::async_trait;

use crate::plan::{
    AsyncPostProcessor, AsyncPreProcessor, BuildContext, PostProcessor, PreProcessor,
    SampleContext, Sampler,
};
use crate::runlog;
use crate::sample::{SampleResult, Stopwatch};
use crate::user_state::UserState;

pub use datasource::DataSources;
pub use results::ResultRows;

/// The JDBC Connection Configuration's class as `.jmx` files save it.
pub const DATA_SOURCE_CLASS: &str = "JDBCDataSource";

/// Whether `class` is a JDBC Connection Configuration.
pub fn is_data_source(class: &str) -> bool {
    class == DATA_SOURCE_CLASS
        || class == "org.apache.jmeter.protocol.jdbc.config.DataSourceElement"
}

/// Whether `class` is the JDBC Request sampler.
pub fn is_sampler(class: &str) -> bool {
    class == "JDBCSampler" || class == "org.apache.jmeter.protocol.jdbc.sampler.JDBCSampler"
}

/// The JDBC PreProcessor (`Some(true)`) or PostProcessor (`Some(false)`).
pub fn processor_kind(class: &str) -> Option<bool> {
    match class {
        "JDBCPreProcessor" | "org.apache.jmeter.protocol.jdbc.processor.JDBCPreProcessor" => {
            Some(true)
        }
        "JDBCPostProcessor" | "org.apache.jmeter.protocol.jdbc.processor.JDBCPostProcessor" => {
            Some(false)
        }
        _ => None,
    }
}

/// A JDBC Request.
pub struct JdbcSampler {
    element: element::JdbcElement,
}

/// Builds a JDBC Request against the plan's configurations.
pub fn build_sampler(cx: &mut BuildContext<'_>, sources: Arc<DataSources>) -> Arc<dyn Sampler> {
    Arc::new(JdbcSampler {
        element: element::build(cx, sources),
    })
}

impl JdbcSampler {
    /// `JDBCSampler.sample`: connect time is the wait for a pooled connection, latency
    /// ends when the database has answered, the response is UTF-8 text. The result is
    /// made in its shared allocation: made on the stack and moved into an `Arc` at the
    /// end, its ~600 bytes were copied twice more per sample.
    async fn sample_shared(&self, cx: &mut SampleContext<'_>) -> Arc<SampleResult> {
        let mut shared = SampleResult::new_shared(cx.label.clone());
        let result = Arc::get_mut(&mut shared).expect("a new result is not shared");
        result.thread_name = cx.user.thread.thread_name.clone();
        let request = self.element.evaluate(cx.user, &cx.label);
        result.sampler_data = request.describe();
        result.data_type = "text";
        result.content_type = "text/plain".into();
        result.data_encoding = "UTF-8".into();
        result.response_code = "200".into();
        result.response_message = "OK".into();
        result.set_success(true);
        let watch = Stopwatch::start();
        // "Stop now": the user polls the sample once more after an immediate stop, and
        // a statement still waiting then ends. Looking at the run's flag on each poll
        // costs nothing per statement, unlike waiting on the stop token.
        let run = cx.user.run.clone();
        let outcome = {
            let mut statement = std::pin::pin!(self.run(&request, cx.user, &watch, result));
            std::future::poll_fn(|task| match statement.as_mut().poll(task) {
                Poll::Pending if run.interrupting() => {
                    Poll::Ready(Err(errors::JavaError::plain_sql("The sample was stopped")))
                }
                polled => polled,
            })
            .await
        };
        match outcome {
            Ok(text) => result.response_data = text.into_bytes(),
            Err(e) => e.record(result),
        }
        watch.stop(result);
        shared
    }

    async fn run(
        &self,
        request: &element::Request<'_>,
        user: &mut UserState,
        watch: &Stopwatch,
        result: &mut SampleResult,
    ) -> Result<String, errors::JavaError> {
        let pool = self.element.pool(request, user);
        let conn = match pool {
            Ok(pool) => pool.get().await.map(|conn| (pool, conn)),
            Err(e) => Err(e),
        };
        result.connect_time = watch.elapsed_ms();
        let (pool, mut conn) = conn?;
        result.response_headers = pool.config().connection_info.clone();
        let mut latency = 0;
        let text = self
            .element
            .execute(&mut conn, request, user, &mut || {
                latency = watch.elapsed_ms()
            })
            .await;
        result.latency = latency;
        text
    }
}

#[async_trait]
impl Sampler for JdbcSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        Some(self.sample_shared(cx).await)
    }
}

/// A JDBC PreProcessor or PostProcessor: runs its statement for the variables it sets;
/// a failure is logged as JMeter logs it (`SQL Problem in <name>: <exception>`).
pub struct JdbcProcessor {
    element: element::JdbcElement,
    name: String,
}

/// Builds a JDBC PreProcessor or PostProcessor.
pub fn build_processor(cx: &mut BuildContext<'_>, sources: Arc<DataSources>) -> Arc<JdbcProcessor> {
    Arc::new(JdbcProcessor {
        name: cx.element.name.clone(),
        element: element::build(cx, sources),
    })
}

impl JdbcProcessor {
    /// `AbstractJDBCProcessor.process`.
    async fn run(&self, user: &mut UserState, sampler_name: &str) {
        let request = self.element.evaluate(user, sampler_name);
        let outcome = match self.element.pool(&request, user) {
            Ok(pool) => match pool.get().await {
                Ok(mut conn) => {
                    self.element
                        .execute(&mut conn, &request, user, &mut || {})
                        .await
                }
                Err(e) => Err(e),
            },
            Err(e) => Err(e),
        };
        if let Err(e) = outcome {
            let kind = if e.sql.is_some() { "SQL" } else { "Execution" };
            runlog::warn(&format!(
                "{kind} Problem in {}: {}",
                self.name,
                e.to_java_string()
            ));
        }
    }
}

impl PreProcessor for JdbcProcessor {
    fn process(&self, _user: &mut UserState, _sampler_name: &str) {}

    fn as_async(&self) -> Option<&dyn AsyncPreProcessor> {
        Some(self)
    }
}

#[async_trait]
impl AsyncPreProcessor for JdbcProcessor {
    async fn process_async(&self, user: &mut UserState, sampler_name: &str) {
        self.run(user, sampler_name).await;
    }
}

impl PostProcessor for JdbcProcessor {
    fn process(&self, _result: &mut SampleResult, _user: &mut UserState) {}

    fn as_async(&self) -> Option<&dyn AsyncPostProcessor> {
        Some(self)
    }
}

#[async_trait]
impl AsyncPostProcessor for JdbcProcessor {
    async fn process_async(&self, result: &mut SampleResult, user: &mut UserState) {
        let name = result.label.clone();
        self.run(user, &name).await;
    }
}
