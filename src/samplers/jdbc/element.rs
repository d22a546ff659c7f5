//! The settings every JDBC element shares (`AbstractJDBCTestElement`: pool variable
//! name, query type, SQL, parameter values and types, variable names, result variable,
//! query timeout, row limit) and what running them does (`execute`): the statement
//! the query type selects, its response text, its variables.

use std::sync::Arc;
use std::time::Duration;

use super::conn::{Conn, Limits};
use super::datasource::{self, DataSources};
use super::errors::JavaError;
use super::params;
use super::pool::Pool;
use super::results::{self, Outputs};
use crate::expr::{Template, TemplateValue};
use crate::plan::BuildContext;
use crate::user_state::UserState;

/// JMeter's query types, as saved in `.jmx` files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryType {
    Select,
    Update,
    Callable,
    PreparedSelect,
    PreparedUpdate,
    Commit,
    Rollback,
    AutoCommitFalse,
    AutoCommitTrue,
}

impl QueryType {
    pub fn parse(text: &str) -> Option<QueryType> {
        Some(match text {
            "Select Statement" => QueryType::Select,
            "Update Statement" => QueryType::Update,
            "Callable Statement" => QueryType::Callable,
            "Prepared Select Statement" => QueryType::PreparedSelect,
            "Prepared Update Statement" => QueryType::PreparedUpdate,
            "Commit" => QueryType::Commit,
            "Rollback" => QueryType::Rollback,
            "AutoCommit(false)" => QueryType::AutoCommitFalse,
            "AutoCommit(true)" => QueryType::AutoCommitTrue,
            _ => return None,
        })
    }
}

/// The evaluated settings of one execution; constant settings are borrowed from the
/// element.
pub struct Request<'e> {
    pub data_source: TemplateValue<'e>,
    pub query_type: TemplateValue<'e>,
    pub query: TemplateValue<'e>,
    pub arguments: TemplateValue<'e>,
    pub argument_types: TemplateValue<'e>,
    pub variable_names: TemplateValue<'e>,
    pub result_variable: TemplateValue<'e>,
    pub query_timeout: TemplateValue<'e>,
    pub max_rows: TemplateValue<'e>,
}

impl Request<'_> {
    /// `AbstractJDBCTestElement.toString()`, the sample's request data.
    pub fn describe(&self) -> String {
        // Built by hand: `format!` costs more than the copying on every sample.
        let parts: [&str; 4] = [
            &self.query_type,
            &self.query,
            &self.arguments,
            &self.argument_types,
        ];
        let mut text = String::with_capacity(parts.iter().map(|p| p.len()).sum::<usize>() + 5);
        text.push('[');
        text.push_str(parts[0]);
        text.push_str("] ");
        text.push_str(parts[1]);
        text.push('\n');
        text.push_str(parts[2]);
        text.push('\n');
        text.push_str(parts[3]);
        text
    }

    /// `getIntegerQueryTimeout`: empty or not a number is 0 (no timeout), negative
    /// leaves the driver's default (none).
    fn limits(&self) -> Limits {
        let timeout: i64 = self.query_timeout.parse().unwrap_or(0);
        let max_rows: i64 = if self.max_rows.is_empty() {
            -1
        } else {
            self.max_rows.parse().unwrap_or(-1)
        };
        Limits {
            timeout: (timeout > 0).then(|| Duration::from_secs(timeout as u64)),
            max_rows: usize::try_from(max_rows).ok(),
        }
    }
}

/// One JDBC Request, PreProcessor or PostProcessor.
pub struct JdbcElement {
    /// The element's name, which JMeter's messages quote.
    name: String,
    data_source: Template,
    query_type: Template,
    query: Template,
    arguments: Template,
    argument_types: Template,
    variable_names: Template,
    result_variable: Template,
    query_timeout: Template,
    max_rows: Template,
    /// The parameter types read once when the field is constant.
    constant_types: Option<Vec<Result<params::DeclaredType, JavaError>>>,
    /// `jdbcsampler.nullmarker`, which JMeter reads once.
    null_marker: String,
    sources: Arc<DataSources>,
    /// The configuration of a constant, non-blank pool name, when it does not depend
    /// on the user (see [`DataSources::find_constant`]).
    constant_source: Option<Arc<datasource::DataSourceDef>>,
}

const QUERY_TYPES: [&str; 9] = [
    "Select Statement",
    "Update Statement",
    "Callable Statement",
    "Prepared Select Statement",
    "Prepared Update Statement",
    "Commit",
    "Rollback",
    "AutoCommit(false)",
    "AutoCommit(true)",
];

/// Reads the element's settings; a constant query type JMeter does not know and a
/// pool name no configuration declares are reported (both fail every execution).
pub fn build(cx: &mut BuildContext<'_>, sources: Arc<DataSources>) -> JdbcElement {
    let mut element = JdbcElement {
        name: cx.element.name.clone(),
        data_source: cx.template("dataSource"),
        query_type: match cx.raw("queryType") {
            Some(_) => cx.template("queryType"),
            None => Template::literal("Select Statement"),
        },
        query: cx.template("query"),
        arguments: cx.template("queryArguments"),
        argument_types: cx.template("queryArgumentsTypes"),
        variable_names: cx.template("variableNames"),
        result_variable: cx.template("resultVariable"),
        query_timeout: cx.template("queryTimeout"),
        max_rows: cx.template("resultSetMaxRows"),
        constant_types: None,
        null_marker: cx
            .properties
            .get("jdbcsampler.nullmarker")
            .cloned()
            .unwrap_or_else(|| "]NULL[".into()),
        sources,
        constant_source: None,
    };
    element.constant_source = element
        .data_source
        .as_literal()
        .filter(|name| !name.trim().is_empty())
        .and_then(|name| element.sources.find_constant(name));
    element.constant_types = element
        .argument_types
        .as_literal()
        .map(params::declared_types);
    if element.query_type.is_constant() && QueryType::parse(element.query_type.raw()).is_none() {
        cx.error(format!(
            "query type {:?} is not one of JMeter's ({})",
            element.query_type.raw(),
            QUERY_TYPES.join(", ")
        ));
    }
    if element.data_source.is_constant() {
        let name = element.data_source.raw().trim();
        if name.is_empty() {
            cx.error("the pool's variable name is empty; name the JDBC Connection Configuration's Variable Name");
        } else if !element.sources.knows(name) {
            cx.warn(format!(
                "no JDBC Connection Configuration declares the pool {name:?}; every execution fails"
            ));
        }
    }
    element
}

impl JdbcElement {
    /// The settings evaluated for this execution.
    pub fn evaluate(&self, user: &mut UserState, sampler_name: &str) -> Request<'_> {
        let mut cx = user.eval(sampler_name);
        Request {
            data_source: self.data_source.eval_shared(&mut cx),
            query_type: self.query_type.eval_shared(&mut cx),
            query: self.query.eval_shared(&mut cx),
            arguments: self.arguments.eval_shared(&mut cx),
            argument_types: self.argument_types.eval_shared(&mut cx),
            variable_names: self.variable_names.eval_shared(&mut cx),
            result_variable: self.result_variable.eval_shared(&mut cx),
            query_timeout: self.query_timeout.eval_shared(&mut cx),
            max_rows: self.max_rows.eval_shared(&mut cx),
        }
    }

    /// `DataSourceElement.getConnection`'s look-up: the pool bound to the name.
    pub fn pool(
        &self,
        request: &Request<'_>,
        user: &mut UserState,
    ) -> Result<Arc<Pool>, JavaError> {
        let name = &*request.data_source;
        if let Some(def) = &self.constant_source {
            return datasource::pool_for(def, name, user);
        }
        if name.trim().is_empty() {
            return Err(JavaError::other(
                "java.lang.IllegalArgumentException",
                Some(format!(
                    "Name for DataSoure must not be empty in {}",
                    self.name
                )),
            ));
        }
        let def = self.sources.find(name, &mut user.eval("")).ok_or_else(|| {
            JavaError::plain_sql(format!(
                "No pool found named: '{name}', ensure Variable Name matches Variable Name of \
                 JDBC Connection Configuration"
            ))
        })?;
        datasource::pool_for(&def, name, user)
    }

    /// `execute(conn, sample)`: runs the statement and returns the response text.
    /// `executed` is called when the database has answered (JMeter's `latencyEnd`).
    pub async fn execute(
        &self,
        conn: &mut Conn,
        request: &Request<'_>,
        user: &mut UserState,
        executed: &mut (dyn FnMut() + Send),
    ) -> Result<String, JavaError> {
        let query_type = QueryType::parse(&request.query_type).ok_or_else(|| {
            JavaError::other(
                "java.lang.UnsupportedOperationException",
                Some(format!("Unexpected query type: {}", &*request.query_type)),
            )
        })?;
        let limits = request.limits();
        let names = if request.variable_names.is_empty() {
            Vec::new()
        } else {
            super::java::split(&request.variable_names, ',')
        };
        let outputs = Outputs {
            variable_names: &names,
            result_variable: request.result_variable.trim(),
        };
        let null_marker = self.null_marker.as_str();
        let parameters = |callable: bool| match &self.constant_types {
            Some(types) => {
                params::parse_with_types(&request.arguments, types, null_marker, callable)
            }
            None => params::parse(
                &request.arguments,
                &request.argument_types,
                null_marker,
                callable,
            ),
        };
        let mut text = String::new();
        match query_type {
            QueryType::Select | QueryType::PreparedSelect => {
                let prepared = query_type == QueryType::PreparedSelect;
                let params = if prepared {
                    parameters(false)?
                } else {
                    Vec::new()
                };
                if outputs.set_nothing() {
                    conn.select_text(&request.query, &params, prepared, &limits, &mut text)
                        .await?;
                    executed();
                } else {
                    let rows = conn
                        .select(&request.query, &params, prepared, &limits)
                        .await?;
                    executed();
                    results::result_set(&mut text, rows, &outputs, &mut user.vars);
                }
            }
            QueryType::Update => {
                let count = conn.update(&request.query, &limits).await?;
                executed();
                text = format!("{count} updates");
            }
            QueryType::PreparedUpdate => {
                let params = parameters(false)?;
                let outcome = conn
                    .prepared_update(&request.query, &params, &limits)
                    .await?;
                executed();
                results::results(&mut text, outcome, &outputs, &mut user.vars);
            }
            QueryType::Callable => {
                let params = parameters(true)?;
                let outcome = conn.call(&request.query, &params, &limits).await?;
                executed();
                results::call(&mut text, outcome, &params, &outputs, &mut user.vars);
            }
            QueryType::Commit => {
                conn.commit().await?;
                executed();
                text = request.query_type.to_string();
            }
            QueryType::Rollback => {
                conn.rollback().await?;
                executed();
                text = request.query_type.to_string();
            }
            QueryType::AutoCommitFalse | QueryType::AutoCommitTrue => {
                conn.set_autocommit(query_type == QueryType::AutoCommitTrue)
                    .await?;
                executed();
                text = request.query_type.to_string();
            }
        }
        Ok(text)
    }
}
