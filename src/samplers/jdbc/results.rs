//! How a JDBC element turns what the database returned into the response text and the
//! user's variables (`AbstractJDBCTestElement.getStringFromResultSet`,
//! `resultSetsToString`):
//!
//! - a result set is the column labels joined by tabs, a newline, then each row's
//!   values (`toString`, `null` for NULL) joined by tabs, each row ending in a newline;
//! - for the Variable Names `a,,c`, row `n` sets `a_n` and `c_n` from columns 1 and 3,
//!   `a_#` and `c_#` hold the row count, and rows left over from a longer earlier
//!   result are removed;
//! - the Result Variable Name holds the rows as a list of column → value maps (an
//!   object variable, [`ResultRows`]);
//! - prepared updates and callable statements list each result (a result set and a
//!   newline, or `N updates.`), and callable statements then `Output variables by
//!   position:` with one `[i] value` line per OUT parameter, whose values also go to
//!   the variable names in order.

use std::sync::Arc;

use super::conn::{CallOutcome, ResultSet, StatementResult};
use super::java::Cell;
use super::params::{Direction, Param};
use crate::user_state::{VariableObject, Variables};

/// The rows of a result set kept in the Result Variable Name: JMeter's
/// `List<Map<String, Object>>`. Scripts read it as a list of maps
/// (`vars.getObject("rows").get(0).get("name")`).
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRows {
    pub columns: Arc<[String]>,
    pub rows: Vec<Vec<Cell>>,
}

/// What the element's settings say about variables.
pub struct Outputs<'a> {
    /// The Variable Names split at commas (not trimmed yet).
    pub variable_names: &'a [&'a str],
    /// The Result Variable Name, trimmed; empty for none.
    pub result_variable: &'a str,
}

impl Outputs<'_> {
    /// Whether a result set sets no variable: its rows then only make the response
    /// text, which a driver may write as it reads them.
    pub fn set_nothing(&self) -> bool {
        self.result_variable.is_empty() && self.variable_names.iter().all(|n| n.trim().is_empty())
    }
}

/// Appends a result set in JMeter's layout and sets the variables from it.
pub fn result_set(out: &mut String, rows: ResultSet, outputs: &Outputs<'_>, vars: &mut Variables) {
    result_set_text(out, &rows);
    for (row_index, row) in rows.rows.iter().enumerate() {
        for (i, cell) in row.iter().enumerate() {
            if let Some(name) = outputs.variable_names.get(i).map(|n| n.trim()) {
                if !name.is_empty() {
                    let key = format!("{name}_{}", row_index + 1);
                    match cell.java_string() {
                        Some(text) => vars.put(key, text),
                        None => {
                            vars.remove(&key);
                        }
                    }
                }
            }
        }
    }
    let current = rows.rows.len();
    for name in outputs.variable_names.iter().map(|n| n.trim()) {
        if name.is_empty() {
            continue;
        }
        let count_name = format!("{name}_#");
        let previous: usize = vars
            .get(&count_name)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        for n in current + 1..=previous {
            vars.remove(&format!("{name}_{n}"));
        }
        vars.put(count_name, current.to_string());
    }
    if !outputs.result_variable.is_empty() {
        let object = ResultRows {
            columns: rows.columns,
            rows: rows.rows,
        };
        vars.put_object(outputs.result_variable, VariableObject(Arc::new(object)));
    }
}

/// Appends a result set in JMeter's layout: the header line, then each row.
pub fn result_set_text(out: &mut String, rows: &ResultSet) {
    let count = rows.columns.len();
    // Room for the header and short values, so that a small result is written without
    // growing the text again and again.
    out.reserve(
        rows.columns.iter().map(|c| c.len() + 1).sum::<usize>() + rows.rows.len() * count * 16,
    );
    header(out, &rows.columns);
    for row in &rows.rows {
        for (i, cell) in row.iter().enumerate() {
            cell.append_to(out);
            out.push(separator(i, count));
        }
    }
}

/// A result set's header line: the column labels joined by tabs.
pub fn header(out: &mut String, columns: &[String]) {
    for (i, label) in columns.iter().enumerate() {
        out.push_str(label);
        out.push(separator(i, columns.len()));
    }
}

/// What follows value `i` of a line of `count` values: a tab, or the line's end.
pub fn separator(i: usize, count: usize) -> char {
    if i + 1 == count {
        '\n'
    } else {
        '\t'
    }
}

/// `resultSetsToString`: each result, then for a callable statement its OUT parameters.
pub fn results(
    out: &mut String,
    results: Vec<StatementResult>,
    outputs: &Outputs<'_>,
    vars: &mut Variables,
) {
    for (i, result) in results.into_iter().enumerate() {
        match result {
            StatementResult::Rows(rows) => {
                result_set(out, rows, outputs, vars);
                out.push('\n');
            }
            StatementResult::Updates(-1) if i > 0 => break,
            StatementResult::Updates(n) => out.push_str(&format!("{n} updates.\n")),
        }
    }
}

/// A callable statement's text: its results, then `Output variables by position:` and
/// one line per OUT parameter (those registered with a type other than `NULL`).
pub fn call(
    out: &mut String,
    outcome: CallOutcome,
    params: &[Param],
    outputs: &Outputs<'_>,
    vars: &mut Variables,
) {
    results(out, outcome.results, outputs, vars);
    out.push_str("Output variables by position:\n");
    let mut values = outcome.out_values.into_iter();
    let mut collected = Vec::new();
    for (i, param) in params.iter().enumerate() {
        if param.direction == Direction::In {
            continue;
        }
        let value = values.next().unwrap_or(Cell::Null);
        if param.sql_type == super::params::types::NULL {
            continue;
        }
        out.push_str(&format!("[{}] ", i + 1));
        value.append_to(out);
        out.push('\n');
        collected.push(value);
    }
    for (name, value) in outputs.variable_names.iter().zip(collected) {
        let name = name.trim();
        if name.is_empty() {
            continue;
        }
        match value.java_string() {
            Some(text) => vars.put(name, text),
            None => {
                vars.remove(name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize) -> ResultSet {
        ResultSet {
            columns: vec!["id".into(), "name".into(), "note".into()].into(),
            rows: (1..=n)
                .map(|i| vec![Cell::Int(i as i64), Cell::Text(format!("n{i}")), Cell::Null])
                .collect(),
        }
    }

    #[test]
    fn result_sets_are_tab_separated_with_a_header_and_set_numbered_variables() {
        let mut vars = Variables::new();
        let names = ["A", "", "C"];
        let outputs = Outputs {
            variable_names: &names,
            result_variable: "all",
        };
        let mut text = String::new();
        result_set(&mut text, rows(3), &outputs, &mut vars);
        assert_eq!(
            text,
            "id\tname\tnote\n1\tn1\tnull\n2\tn2\tnull\n3\tn3\tnull\n"
        );
        assert_eq!(vars.get("A_#"), Some("3"));
        assert_eq!(vars.get("A_2"), Some("2"));
        assert_eq!(vars.get("C_#"), Some("3"));
        assert_eq!(vars.get("C_1"), None, "a NULL value sets no variable");
        assert!(vars.get_object("all").is_some());

        let mut again = String::new();
        result_set(&mut again, rows(1), &outputs, &mut vars);
        assert_eq!(vars.get("A_#"), Some("1"));
        assert_eq!(
            vars.get("A_2"),
            None,
            "rows of the longer earlier result go"
        );
        assert_eq!(vars.get("A_3"), None);
    }

    #[test]
    fn callable_statements_list_results_then_out_parameters() {
        use super::super::params::{types, Value};
        let mut vars = Variables::new();
        let names = ["sum", "note"];
        let outputs = Outputs {
            variable_names: &names,
            result_variable: "",
        };
        let params = [
            Param {
                sql_type: types::INTEGER,
                direction: Direction::Out,
                value: Value::Null,
            },
            Param {
                sql_type: types::INTEGER,
                direction: Direction::In,
                value: Value::Int(2),
            },
            Param {
                sql_type: types::VARCHAR,
                direction: Direction::InOut,
                value: Value::Text("x".into()),
            },
        ];
        let outcome = CallOutcome {
            results: vec![StatementResult::Updates(-1)],
            out_values: vec![Cell::Int(3), Cell::Text("xy".into())],
        };
        let mut text = String::new();
        call(&mut text, outcome, &params, &outputs, &mut vars);
        assert_eq!(
            text,
            "-1 updates.\nOutput variables by position:\n[1] 3\n[3] xy\n"
        );
        assert_eq!(vars.get("sum"), Some("3"));
        assert_eq!(vars.get("note"), Some("xy"));
    }
}
