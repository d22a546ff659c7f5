//! PostgreSQL values as pgjdbc's `getObject` returns them, read from the binary
//! format tokio-postgres receives: `int4` is an `Integer`, `numeric` a `BigDecimal`
//! (scale as the server keeps it), `timestamp` a `java.sql.Timestamp`, `timestamptz`
//! the same instant shown in the local time zone (as in the JVM's default zone),
//! `interval` a `PGInterval` (`1 days 2 hours 0.5 secs`), `money` a `Double`, arrays
//! and other server types their text form (`PgArray`/`PGobject.toString`).
//! [`Param`] sends parameters as pgjdbc binds them: with the type its setter declares,
//! in text form (`bytea` in binary).

use std::error::Error;

use bytes::{BufMut, BytesMut};
use chrono::{DateTime, Local, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use postgres_protocol::types as wire;
use tokio_postgres::types::{FromSql, IsNull, Kind, ToSql, Type};

use super::java::{self, Cell};
use super::params::{self, types, Value};
use crate::foundation::java_format;

type BoxError = Box<dyn Error + Sync + Send>;

/// A result column read as a [`Cell`].
pub struct PgCell(pub Cell);

impl<'a> FromSql<'a> for PgCell {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> Result<PgCell, BoxError> {
        decode(ty, raw).map(PgCell)
    }

    fn from_sql_null(_: &Type) -> Result<PgCell, BoxError> {
        Ok(PgCell(Cell::Null))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// A result column's bytes as received (`None` for `NULL`), not decoded.
struct Received<'a>(Option<&'a [u8]>);

impl<'a> FromSql<'a> for Received<'a> {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Received<'a>, BoxError> {
        Ok(Received(Some(raw)))
    }

    fn from_sql_null(_: &Type) -> Result<Received<'a>, BoxError> {
        Ok(Received(None))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// Appends column `i` of `row` as its [`Cell`] writes itself ([`Cell::append_to`]);
/// text columns, which [`decode`] reads as their UTF-8 text, are copied from the
/// message without a string of their own.
pub fn append_value(
    row: &tokio_postgres::Row,
    i: usize,
    out: &mut String,
) -> Result<(), tokio_postgres::Error> {
    let text_column = matches!(
        *row.columns()[i].type_(),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME
    );
    if text_column {
        match row.try_get::<_, Received>(i)?.0 {
            None => Cell::Null.append_to(out),
            Some(raw) => match std::str::from_utf8(raw) {
                Ok(text) => out.push_str(text),
                Err(_) => out.push_str(&text_or_hex(raw)),
            },
        }
    } else {
        row.try_get::<_, PgCell>(i)?.0.append_to(out);
    }
    Ok(())
}

/// 2000-01-01, PostgreSQL's epoch for dates and times.
fn pg_epoch() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2000, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap_or_default()
}

fn decode(ty: &Type, raw: &[u8]) -> Result<Cell, BoxError> {
    Ok(match *ty {
        Type::BOOL => Cell::Bool(wire::bool_from_sql(raw)?),
        Type::INT2 => Cell::Int(wire::int2_from_sql(raw)?.into()),
        Type::INT4 => Cell::Int(wire::int4_from_sql(raw)?.into()),
        Type::INT8 => Cell::Int(wire::int8_from_sql(raw)?),
        Type::OID => Cell::Int(wire::oid_from_sql(raw)?.into()),
        Type::FLOAT4 => Cell::Float(wire::float4_from_sql(raw)?),
        Type::FLOAT8 => Cell::Double(wire::float8_from_sql(raw)?),
        Type::NUMERIC => match numeric_text(raw)? {
            text if text == "NaN" => Cell::Double(f64::NAN),
            text => Cell::Text(java::big_decimal_string(&text)),
        },
        Type::MONEY => Cell::Double(wire::int8_from_sql(raw)? as f64 / 100.0),
        Type::BYTEA => Cell::Bytes(raw.to_vec()),
        Type::JSONB => Cell::Text(String::from_utf8_lossy(raw.get(1..).unwrap_or_default()).into()),
        Type::DATE => Cell::Text(date_text(wire::date_from_sql(raw)?)),
        Type::TIME => Cell::Text(java::sql_time(time_of(wire::time_from_sql(raw)?))),
        Type::TIMETZ => Cell::Text(time_tz_text(raw)?),
        Type::TIMESTAMP => Cell::Text(timestamp_text(wire::timestamp_from_sql(raw)?, false)),
        Type::TIMESTAMPTZ => Cell::Text(timestamp_text(wire::timestamp_from_sql(raw)?, true)),
        Type::INTERVAL => Cell::Text(interval_text(raw)?),
        Type::UUID => Cell::Text(uuid::Uuid::from_bytes(wire::uuid_from_sql(raw)?).to_string()),
        Type::INET | Type::CIDR => Cell::Text(inet_text(raw, *ty == Type::CIDR)?),
        Type::MACADDR => Cell::Text(
            wire::macaddr_from_sql(raw)?
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(":"),
        ),
        Type::POINT => {
            let p = wire::point_from_sql(raw)?;
            Cell::Text(format!(
                "({},{})",
                java_format::java_double(p.x()),
                java_format::java_double(p.y())
            ))
        }
        Type::BIT | Type::VARBIT => {
            let bits = wire::varbit_from_sql(raw)?;
            let text = bits_text(bits.bytes(), bits.len());
            if *ty == Type::BIT && bits.len() == 1 {
                Cell::Bool(text == "1")
            } else {
                Cell::Text(text)
            }
        }
        Type::CHAR => Cell::Text(char::from(raw.first().copied().unwrap_or(0)).to_string()),
        _ => match ty.kind() {
            Kind::Array(element) => Cell::Text(array_text(element, raw)?),
            _ => Cell::Text(text_or_hex(raw)),
        },
    })
}

/// A value of a type read as text: its UTF-8 form, or `\x` and hex digits.
fn text_or_hex(raw: &[u8]) -> String {
    match std::str::from_utf8(raw) {
        Ok(text) => text.to_string(),
        Err(_) => {
            let mut out = String::from("\\x");
            for b in raw {
                out.push_str(&format!("{b:02x}"));
            }
            out
        }
    }
}

/// `numeric` in binary (base-10000 digits, weight, sign, display scale) as decimal text.
fn numeric_text(raw: &[u8]) -> Result<String, BoxError> {
    let word = |i: usize| -> Result<i16, BoxError> {
        raw.get(i..i + 2)
            .map(|b| i16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| "truncated numeric".into())
    };
    let ndigits = word(0)? as usize;
    let weight = word(2)? as i32;
    let sign = word(4)? as u16;
    let dscale = word(6)? as usize;
    match sign {
        0xC000 => return Ok("NaN".into()),
        0xD000 => return Ok("Infinity".into()),
        0xF000 => return Ok("-Infinity".into()),
        _ => {}
    }
    let digits: Vec<i16> = (0..ndigits)
        .map(|i| word(8 + 2 * i))
        .collect::<Result<_, _>>()?;
    let mut int_part = String::new();
    for i in 0..=weight.max(-1) {
        let digit = digits.get(i as usize).copied().unwrap_or(0);
        if int_part.is_empty() {
            if digit != 0 {
                int_part = digit.to_string();
            }
        } else {
            int_part.push_str(&format!("{digit:04}"));
        }
    }
    if int_part.is_empty() {
        int_part.push('0');
    }
    let mut frac = String::new();
    let mut position = weight + 1;
    while frac.len() < dscale {
        let digit = if position < 0 {
            0
        } else {
            digits.get(position as usize).copied().unwrap_or(0)
        };
        frac.push_str(&format!("{digit:04}"));
        position += 1;
    }
    frac.truncate(dscale);
    let mut out = String::new();
    if sign == 0x4000 {
        out.push('-');
    }
    out.push_str(&int_part);
    if dscale > 0 {
        out.push('.');
        out.push_str(&frac);
    }
    Ok(out)
}

fn date_text(days: i32) -> String {
    match days {
        i32::MAX => "infinity".into(),
        i32::MIN => "-infinity".into(),
        _ => java::sql_date((pg_epoch() + chrono::Duration::days(days.into())).date()),
    }
}

fn time_of(micros: i64) -> NaiveTime {
    NaiveTime::MIN + chrono::Duration::microseconds(micros)
}

/// `timetz` becomes a `java.sql.Time` on 1970-01-01 shown in the local zone.
fn time_tz_text(raw: &[u8]) -> Result<String, BoxError> {
    let micros = wire::time_from_sql(raw.get(..8).ok_or("truncated timetz")?)?;
    let zone_west = wire::int4_from_sql(raw.get(8..12).ok_or("truncated timetz")?)?;
    let utc = NaiveDate::from_ymd_opt(1970, 1, 1)
        .unwrap_or_default()
        .and_time(time_of(micros))
        + chrono::Duration::seconds(zone_west.into());
    Ok(java::sql_time(Local.from_utc_datetime(&utc).time()))
}

fn timestamp_text(micros: i64, with_zone: bool) -> String {
    match micros {
        i64::MAX => return "infinity".into(),
        i64::MIN => return "-infinity".into(),
        _ => {}
    }
    let at = pg_epoch() + chrono::Duration::microseconds(micros);
    if with_zone {
        let utc: DateTime<Utc> = Utc.from_utc_datetime(&at);
        java::sql_timestamp(utc.with_timezone(&Local).naive_local())
    } else {
        java::sql_timestamp(at)
    }
}

/// `PGInterval.getValue()`: the non-zero units, then seconds with their microseconds.
fn interval_text(raw: &[u8]) -> Result<String, BoxError> {
    let micros = wire::int8_from_sql(raw.get(..8).ok_or("truncated interval")?)?;
    let days = wire::int4_from_sql(raw.get(8..12).ok_or("truncated interval")?)?;
    let months = wire::int4_from_sql(raw.get(12..16).ok_or("truncated interval")?)?;
    let mut out = String::new();
    let mut unit = |value: i64, name: &str| {
        if value != 0 {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&format!("{value}{name}"));
        }
    };
    unit((months / 12).into(), " years");
    unit((months % 12).into(), " mons");
    unit(days.into(), " days");
    unit(micros / 3_600_000_000, " hours");
    unit(micros % 3_600_000_000 / 60_000_000, " mins");
    let seconds = micros % 60_000_000 / 1_000_000;
    let fraction = micros % 1_000_000;
    if out.is_empty() || seconds != 0 || fraction != 0 {
        if !out.is_empty() {
            out.push(' ');
        }
        if seconds < 0 || fraction < 0 {
            out.push('-');
        }
        out.push_str(&seconds.abs().to_string());
        if fraction != 0 {
            let digits = format!("{:06}", fraction.abs());
            out.push('.');
            out.push_str(digits.trim_end_matches('0'));
        }
        out.push_str(" secs");
    }
    Ok(out)
}

fn inet_text(raw: &[u8], cidr: bool) -> Result<String, BoxError> {
    let inet = wire::inet_from_sql(raw)?;
    let full = if inet.addr().is_ipv4() { 32 } else { 128 };
    Ok(if cidr || inet.netmask() != full {
        format!("{}/{}", inet.addr(), inet.netmask())
    } else {
        inet.addr().to_string()
    })
}

fn bits_text(bytes: &[u8], len: usize) -> String {
    (0..len)
        .map(|i| {
            let set = bytes.get(i / 8).is_some_and(|b| b & (0x80 >> (i % 8)) != 0);
            if set {
                '1'
            } else {
                '0'
            }
        })
        .collect()
}

/// `PgArray.toString()`: the array's text literal (`{1,2,NULL}`), elements in the
/// server's text form, quoted when they need it.
fn array_text(element: &Type, raw: &[u8]) -> Result<String, BoxError> {
    use fallible_iterator::FallibleIterator;
    let array = wire::array_from_sql(raw)?;
    let dimensions: Vec<i32> = array.dimensions().map(|d| Ok(d.len)).collect()?;
    let values: Vec<Option<&[u8]>> = array.values().collect()?;
    if dimensions.is_empty() {
        return Ok("{}".into());
    }
    let mut texts = values.into_iter().map(|v| match v {
        None => Ok("NULL".to_string()),
        Some(bytes) => element_text(element, bytes).map(|t| quote_element(&t)),
    });
    let mut out = String::new();
    nest(&dimensions, &mut texts, &mut out)?;
    Ok(out)
}

fn nest(
    dimensions: &[i32],
    texts: &mut dyn Iterator<Item = Result<String, BoxError>>,
    out: &mut String,
) -> Result<(), BoxError> {
    out.push('{');
    for i in 0..dimensions[0].max(0) {
        if i > 0 {
            out.push(',');
        }
        if dimensions.len() > 1 {
            nest(&dimensions[1..], texts, out)?;
        } else {
            out.push_str(&texts.next().unwrap_or_else(|| Ok(String::new()))?);
        }
    }
    out.push('}');
    Ok(())
}

/// An array element in PostgreSQL's text output (not Java's): `t`, `1.5`, `2024-01-02`.
fn element_text(ty: &Type, raw: &[u8]) -> Result<String, BoxError> {
    Ok(match *ty {
        Type::BOOL => if wire::bool_from_sql(raw)? { "t" } else { "f" }.into(),
        Type::FLOAT4 => wire::float4_from_sql(raw)?.to_string(),
        Type::FLOAT8 => wire::float8_from_sql(raw)?.to_string(),
        Type::TIMESTAMP | Type::TIMESTAMPTZ => {
            let at = pg_epoch() + chrono::Duration::microseconds(wire::timestamp_from_sql(raw)?);
            let text = at.format("%Y-%m-%d %H:%M:%S%.f").to_string();
            if *ty == Type::TIMESTAMPTZ {
                format!("{text}+00")
            } else {
                text
            }
        }
        _ => match decode(ty, raw)? {
            Cell::Bytes(bytes) => text_or_hex(&bytes),
            cell => cell.java_string().unwrap_or_default(),
        },
    })
}

fn quote_element(text: &str) -> String {
    let needs = text.is_empty()
        || text.eq_ignore_ascii_case("null")
        || text
            .chars()
            .any(|c| matches!(c, '{' | '}' | ',' | '"' | '\\') || c.is_whitespace());
    if !needs {
        return text.to_string();
    }
    let mut out = String::from("\"");
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// The PostgreSQL type pgjdbc declares for a parameter: the setter's type, or none
/// (`unspecified`, OID 0) where pgjdbc lets the server decide (dates, times, objects).
pub fn declared_type(param: &params::Param) -> Type {
    let by_sql_type = |sql_type: i32| match sql_type {
        types::INTEGER => Type::INT4,
        types::TINYINT | types::SMALLINT => Type::INT2,
        types::BIGINT => Type::INT8,
        types::REAL => Type::FLOAT4,
        types::DOUBLE | types::FLOAT => Type::FLOAT8,
        types::DECIMAL | types::NUMERIC => Type::NUMERIC,
        types::CHAR => Type::BPCHAR,
        types::VARCHAR | types::LONGVARCHAR => Type::VARCHAR,
        types::DATE => Type::DATE,
        types::BIT | types::BOOLEAN => Type::BOOL,
        types::BINARY | types::VARBINARY | types::LONGVARBINARY => Type::BYTEA,
        _ => unspecified(),
    };
    match &param.value {
        Value::Null => by_sql_type(param.sql_type),
        Value::Int(_) => match param.sql_type {
            types::BIGINT => Type::INT8,
            types::SMALLINT | types::TINYINT => Type::INT2,
            _ => Type::INT4,
        },
        Value::Double(_) => Type::FLOAT8,
        Value::Float(_) => Type::FLOAT4,
        Value::Decimal(_) => Type::NUMERIC,
        Value::Text(_) => Type::VARCHAR,
        Value::Bool(_) => Type::BOOL,
        Value::Bytes(_) => Type::BYTEA,
        Value::Date(_) | Value::Time(_) | Value::Timestamp(_) | Value::Object(_) => unspecified(),
    }
}

/// OID 0: the server infers the parameter's type from the statement.
pub fn unspecified() -> Type {
    Type::new("unspecified".into(), 0, Kind::Pseudo, String::new())
}

/// A parameter value as pgjdbc sends it.
#[derive(Debug)]
pub struct Param<'a>(pub &'a Value);

impl ToSql for Param<'_> {
    fn to_sql(&self, _ty: &Type, out: &mut BytesMut) -> Result<IsNull, BoxError> {
        // Values already text (or bytes) are written as they are, without a copy.
        let text = match self.0 {
            Value::Null => return Ok(IsNull::Yes),
            Value::Bytes(bytes) => {
                out.put_slice(bytes);
                return Ok(IsNull::No);
            }
            Value::Int(i) => {
                out.put_slice(itoa::Buffer::new().format(*i).as_bytes());
                return Ok(IsNull::No);
            }
            Value::Decimal(text) | Value::Text(text) | Value::Object(text) => {
                out.put_slice(text.as_bytes());
                return Ok(IsNull::No);
            }
            Value::Bool(b) => {
                out.put_slice(if *b { b"true" } else { b"false" });
                return Ok(IsNull::No);
            }
            Value::Double(d) => java_format::java_double(*d),
            Value::Float(f) => java_format::java_float(*f),
            Value::Date(d) => java::sql_date(*d),
            Value::Time(t) => java::sql_time(*t),
            // pgjdbc sends a Timestamp with the JVM zone's offset for that moment.
            Value::Timestamp(at) => {
                let offset = Local
                    .from_local_datetime(at)
                    .earliest()
                    .map(|local| local.format("%:z").to_string())
                    .unwrap_or_default();
                format!("{}{offset}", at.format("%Y-%m-%d %H:%M:%S%.f"))
            }
        };
        out.put_slice(text.as_bytes());
        Ok(IsNull::No)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    fn encode_format(&self, _ty: &Type) -> tokio_postgres::types::Format {
        match self.0 {
            Value::Bytes(_) => tokio_postgres::types::Format::Binary,
            _ => tokio_postgres::types::Format::Text,
        }
    }

    tokio_postgres::types::to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(weight: i16, sign: u16, dscale: u16, digits: &[i16]) -> Vec<u8> {
        let mut raw = Vec::new();
        for word in [digits.len() as i16, weight, sign as i16, dscale as i16] {
            raw.extend_from_slice(&word.to_be_bytes());
        }
        for d in digits {
            raw.extend_from_slice(&d.to_be_bytes());
        }
        raw
    }

    #[test]
    fn numerics_keep_their_display_scale() {
        assert_eq!(
            numeric_text(&numeric(0, 0, 2, &[12, 5000])).unwrap(),
            "12.50"
        );
        assert_eq!(
            numeric_text(&numeric(1, 0x4000, 0, &[1, 2345])).unwrap(),
            "-12345"
        );
        assert_eq!(
            numeric_text(&numeric(-2, 0, 7, &[10])).unwrap(),
            "0.0000001"
        );
        assert_eq!(numeric_text(&numeric(0, 0, 0, &[])).unwrap(), "0");
        assert_eq!(numeric_text(&numeric(0, 0xC000, 0, &[])).unwrap(), "NaN");
    }

    #[test]
    fn intervals_print_as_pg_interval_does() {
        let raw = |micros: i64, days: i32, months: i32| {
            let mut raw = micros.to_be_bytes().to_vec();
            raw.extend_from_slice(&days.to_be_bytes());
            raw.extend_from_slice(&months.to_be_bytes());
            raw
        };
        assert_eq!(
            interval_text(&raw(7_384_500_000, 3, 14)).unwrap(),
            "1 years 2 mons 3 days 2 hours 3 mins 4.5 secs"
        );
        assert_eq!(interval_text(&raw(0, 0, 0)).unwrap(), "0 secs");
    }

    #[test]
    fn array_elements_are_quoted_as_the_server_quotes_them() {
        assert_eq!(quote_element("a b"), "\"a b\"");
        assert_eq!(quote_element("x\"y"), "\"x\\\"y\"");
        assert_eq!(quote_element("plain"), "plain");
    }
}
