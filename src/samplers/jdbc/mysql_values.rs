//! MySQL and MariaDB values as MySQL Connector/J 8 and MariaDB Connector/J 3 return
//! them from `getObject`, read from either protocol mysql_async speaks (text for
//! plain statements, binary for prepared ones): `TINYINT(1)` and `BIT(1)` are
//! `Boolean`s (`tinyInt1isBit`), `DECIMAL` a `BigDecimal`, `DATETIME` a
//! `java.time.LocalDateTime` under Connector/J (`2024-01-02T03:04:05`) and a
//! `java.sql.Timestamp` under MariaDB's driver, `TIMESTAMP` a `Timestamp`, `YEAR` a
//! `java.sql.Date` on 1 January, binary strings `byte[]`.

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use mysql_async::consts::{ColumnFlags, ColumnType};
use mysql_async::{Column, Value};

use super::java::{self, Cell};
use super::params::Value as ParamValue;
use super::url::Dialect;

/// The `binary` collation: `BLOB`/`BINARY` columns, which are `byte[]` in Java.
const BINARY_CHARSET: u16 = 63;

/// Reads one column of a row.
pub fn cell(column: &Column, value: &Value, dialect: Dialect) -> Cell {
    use ColumnType::*;
    if matches!(value, Value::NULL) {
        return Cell::Null;
    }
    let flags = column.flags();
    let unsigned = flags.contains(ColumnFlags::UNSIGNED_FLAG);
    match column.column_type() {
        MYSQL_TYPE_TINY if column.column_length() == 1 => Cell::Bool(int_of(value) != Some(0)),
        MYSQL_TYPE_TINY | MYSQL_TYPE_SHORT | MYSQL_TYPE_INT24 | MYSQL_TYPE_LONG => {
            int_of(value).map_or_else(|| text_cell(value), Cell::Int)
        }
        MYSQL_TYPE_LONGLONG if unsigned => match uint_of(value) {
            Some(n) => i64::try_from(n).map_or_else(|_| Cell::Text(n.to_string()), Cell::Int),
            None => text_cell(value),
        },
        MYSQL_TYPE_LONGLONG => int_of(value).map_or_else(|| text_cell(value), Cell::Int),
        MYSQL_TYPE_FLOAT => match value {
            Value::Float(f) => Cell::Float(*f),
            Value::Double(d) => Cell::Float(*d as f32),
            other => text(other)
                .parse::<f32>()
                .map_or_else(|_| text_cell(other), Cell::Float),
        },
        MYSQL_TYPE_DOUBLE => match value {
            Value::Double(d) => Cell::Double(*d),
            Value::Float(f) => Cell::Double(f64::from(*f)),
            other => text(other)
                .parse::<f64>()
                .map_or_else(|_| text_cell(other), Cell::Double),
        },
        MYSQL_TYPE_DECIMAL | MYSQL_TYPE_NEWDECIMAL => {
            Cell::Text(java::big_decimal_string(&text(value)))
        }
        MYSQL_TYPE_DATE | MYSQL_TYPE_NEWDATE => match date_time_of(value) {
            Some(at) => Cell::Text(java::sql_date(at.date())),
            None => Cell::Null,
        },
        MYSQL_TYPE_DATETIME | MYSQL_TYPE_DATETIME2 => match date_time_of(value) {
            Some(at) if dialect == Dialect::MySql => Cell::Text(java::local_date_time(at)),
            Some(at) => Cell::Text(java::sql_timestamp(at)),
            None => Cell::Null,
        },
        MYSQL_TYPE_TIMESTAMP | MYSQL_TYPE_TIMESTAMP2 => match date_time_of(value) {
            Some(at) => Cell::Text(java::sql_timestamp(at)),
            None => Cell::Null,
        },
        MYSQL_TYPE_TIME | MYSQL_TYPE_TIME2 => Cell::Text(time_text(value)),
        MYSQL_TYPE_YEAR => match int_of(value) {
            Some(year) => Cell::Text(format!("{year:04}-01-01")),
            None => text_cell(value),
        },
        MYSQL_TYPE_BIT if column.column_length() == 1 => {
            Cell::Bool(bytes(value).iter().any(|b| *b != 0))
        }
        MYSQL_TYPE_BIT | MYSQL_TYPE_GEOMETRY => Cell::Bytes(bytes(value)),
        MYSQL_TYPE_TINY_BLOB
        | MYSQL_TYPE_MEDIUM_BLOB
        | MYSQL_TYPE_LONG_BLOB
        | MYSQL_TYPE_BLOB
        | MYSQL_TYPE_VAR_STRING
        | MYSQL_TYPE_STRING
        | MYSQL_TYPE_VARCHAR
            if column.character_set() == BINARY_CHARSET =>
        {
            Cell::Bytes(bytes(value))
        }
        _ => text_cell(value),
    }
}

fn bytes(value: &Value) -> Vec<u8> {
    match value {
        Value::Bytes(b) => b.clone(),
        other => text(other).into_bytes(),
    }
}

/// A value's text, as the text protocol sends it.
fn text(value: &Value) -> String {
    match value {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Int(i) => i.to_string(),
        Value::UInt(u) => u.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Double(d) => d.to_string(),
        Value::NULL => String::new(),
        Value::Date(..) => date_time_of(value)
            .map(|at| at.format("%Y-%m-%d %H:%M:%S%.f").to_string())
            .unwrap_or_default(),
        Value::Time(..) => time_text(value),
    }
}

fn text_cell(value: &Value) -> Cell {
    Cell::Text(text(value))
}

fn int_of(value: &Value) -> Option<i64> {
    match value {
        Value::Int(i) => Some(*i),
        Value::UInt(u) => i64::try_from(*u).ok(),
        Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
        _ => None,
    }
}

fn uint_of(value: &Value) -> Option<u64> {
    match value {
        Value::UInt(u) => Some(*u),
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// A `DATE`, `DATETIME` or `TIMESTAMP`; the zero date reads as `NULL`.
fn date_time_of(value: &Value) -> Option<NaiveDateTime> {
    match value {
        Value::Date(y, mo, d, h, mi, s, us) => NaiveDate::from_ymd_opt(
            (*y).into(),
            (*mo).into(),
            (*d).into(),
        )?
        .and_hms_micro_opt((*h).into(), (*mi).into(), (*s).into(), *us),
        Value::Bytes(b) => {
            let text = std::str::from_utf8(b).ok()?;
            NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f")
                .ok()
                .or_else(|| {
                    NaiveDate::parse_from_str(text, "%Y-%m-%d")
                        .ok()?
                        .and_hms_opt(0, 0, 0)
                })
        }
        _ => None,
    }
}

/// `java.sql.Time.toString` of a `TIME` (hours past 24 as the server gives them).
fn time_text(value: &Value) -> String {
    match value {
        Value::Time(negative, days, h, m, s, _) => {
            let hours = days * 24 + u32::from(*h);
            format!(
                "{}{hours:02}:{m:02}:{s:02}",
                if *negative { "-" } else { "" }
            )
        }
        Value::Bytes(b) => {
            let text = String::from_utf8_lossy(b);
            text.split('.').next().unwrap_or_default().to_string()
        }
        other => text(other),
    }
}

/// A parameter as mysql_async sends it in a prepared statement.
pub fn param(value: &ParamValue) -> Value {
    match value {
        ParamValue::Null => Value::NULL,
        ParamValue::Int(i) => Value::Int(*i),
        ParamValue::Double(d) => Value::Double(*d),
        ParamValue::Float(f) => Value::Float(*f),
        ParamValue::Decimal(text) | ParamValue::Text(text) | ParamValue::Object(text) => {
            Value::Bytes(text.clone().into_bytes())
        }
        ParamValue::Bool(b) => Value::Int(i64::from(*b)),
        ParamValue::Bytes(bytes) => Value::Bytes(bytes.clone()),
        ParamValue::Date(d) => date_value(d.and_time(NaiveTime::MIN)),
        ParamValue::Timestamp(at) => date_value(*at),
        ParamValue::Time(t) => {
            use chrono::Timelike;
            Value::Time(
                false,
                0,
                t.hour() as u8,
                t.minute() as u8,
                t.second() as u8,
                0,
            )
        }
    }
}

fn date_value(at: NaiveDateTime) -> Value {
    use chrono::{Datelike, Timelike};
    Value::Date(
        at.year() as u16,
        at.month() as u8,
        at.day() as u8,
        at.hour() as u8,
        at.minute() as u8,
        at.second() as u8,
        at.nanosecond() / 1000,
    )
}
