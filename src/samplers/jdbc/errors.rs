//! The Java exceptions a JDBC sample reports, and how JMeter turns them into a result.
//!
//! `JDBCSampler.sample` catches an `SQLException` and records response code
//! `<SQLState> <vendor code>` (`null 0` when the exception has no SQLState), message
//! `ex.toString()` (`class: message`) and the message as the response body; any other
//! exception gives code `000`, the same message, and the body `NO MESSAGE` when it has
//! none. The drivers build a [`JavaError`] with the class and text their Java
//! counterpart throws (pgjdbc, MySQL Connector/J, MariaDB Connector/J), so the `.jtl` reads
//! as JMeter's would; `docs/jdbc.md` lists them.

use std::borrow::Cow;

use crate::sample::SampleResult;

/// A Java exception as JMeter sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct JavaError {
    /// The fully qualified class (`org.postgresql.util.PSQLException`).
    pub class: Cow<'static, str>,
    /// `getMessage()`; `None` for an exception without one.
    pub message: Option<String>,
    /// For an `SQLException`: its SQLState (`None` prints `null`) and vendor code.
    pub sql: Option<(Option<String>, i32)>,
}

/// `java.sql.SQLException`, the class of JMeter's and DBCP's own SQL errors.
pub const SQL_EXCEPTION: &str = "java.sql.SQLException";

impl JavaError {
    /// An `SQLException` of `class`.
    pub fn sql(
        class: impl Into<Cow<'static, str>>,
        message: impl Into<String>,
        state: Option<&str>,
        vendor_code: i32,
    ) -> JavaError {
        JavaError {
            class: class.into(),
            message: Some(message.into()),
            sql: Some((state.map(str::to_string), vendor_code)),
        }
    }

    /// A plain `java.sql.SQLException` without SQLState (JMeter's and DBCP's messages).
    pub fn plain_sql(message: impl Into<String>) -> JavaError {
        JavaError::sql(SQL_EXCEPTION, message, None, 0)
    }

    /// Any other exception (`java.lang.NumberFormatException`, ...).
    pub fn other(class: &'static str, message: Option<String>) -> JavaError {
        JavaError {
            class: Cow::Borrowed(class),
            message,
            sql: None,
        }
    }

    /// `Throwable.toString()`: the class, then `: message` when there is one.
    pub fn to_java_string(&self) -> String {
        match &self.message {
            Some(message) => format!("{}: {message}", self.class),
            None => self.class.to_string(),
        }
    }

    /// Records the failure on `result` as `JDBCSampler.sample` does.
    pub fn record(&self, result: &mut SampleResult) {
        result.response_message = self.to_java_string().into();
        match &self.sql {
            Some((state, code)) => {
                let state = state.as_deref().unwrap_or("null");
                result.response_code = format!("{state} {code}").into();
                result.response_data = self.message.clone().unwrap_or_default().into_bytes();
            }
            None => {
                result.response_code = "000".into();
                result.response_data = self
                    .message
                    .clone()
                    .unwrap_or_else(|| "NO MESSAGE".into())
                    .into_bytes();
            }
        }
        result.set_success(false);
    }

    /// The SQLState, if this is an `SQLException` with one.
    pub fn sql_state(&self) -> Option<&str> {
        self.sql.as_ref().and_then(|(state, _)| state.as_deref())
    }
}

impl std::fmt::Display for JavaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_java_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn sql_errors_give_state_and_vendor_code_other_errors_000() {
        let mut result = SampleResult::new(Arc::from("q"));
        JavaError::sql(
            "java.sql.SQLSyntaxErrorException",
            "Table 't.x' doesn't exist",
            Some("42S02"),
            1146,
        )
        .record(&mut result);
        assert_eq!(result.response_code, "42S02 1146");
        assert_eq!(
            result.response_message,
            "java.sql.SQLSyntaxErrorException: Table 't.x' doesn't exist"
        );
        assert_eq!(result.response_data, b"Table 't.x' doesn't exist");
        assert!(!result.success);

        JavaError::plain_sql("No pool found").record(&mut result);
        assert_eq!(result.response_code, "null 0");

        JavaError::other("java.lang.IllegalArgumentException", None).record(&mut result);
        assert_eq!(result.response_code, "000");
        assert_eq!(
            result.response_message,
            "java.lang.IllegalArgumentException"
        );
        assert_eq!(result.response_data, b"NO MESSAGE");
    }
}
