//! Parameter values and types of prepared and callable statements, read as
//! `AbstractJDBCTestElement.setArguments` reads them: values split as CSV
//! (`CSVSaveService.csvSplitString`), types split at commas, each type an optional
//! `IN`/`OUT`/`INOUT` and a `java.sql.Types` name (any case) or number
//! (`Integer.decode`), the null marker (`]NULL[`, property `jdbcsampler.nullmarker`)
//! for SQL `NULL`, and each value parsed by the Java setter its type selects
//! (`setInt(Integer.parseInt(v))`...), with the errors those parsers throw.

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};

use super::errors::JavaError;
use super::java;

/// `java.sql.Types` constants JMeter maps setters from, and the names it accepts.
pub mod types {
    pub const BIT: i32 = -7;
    pub const TINYINT: i32 = -6;
    pub const SMALLINT: i32 = 5;
    pub const INTEGER: i32 = 4;
    pub const BIGINT: i32 = -5;
    pub const FLOAT: i32 = 6;
    pub const REAL: i32 = 7;
    pub const DOUBLE: i32 = 8;
    pub const NUMERIC: i32 = 2;
    pub const DECIMAL: i32 = 3;
    pub const CHAR: i32 = 1;
    pub const VARCHAR: i32 = 12;
    pub const LONGVARCHAR: i32 = -1;
    pub const DATE: i32 = 91;
    pub const TIME: i32 = 92;
    pub const TIMESTAMP: i32 = 93;
    pub const BINARY: i32 = -2;
    pub const VARBINARY: i32 = -3;
    pub const LONGVARBINARY: i32 = -4;
    pub const NULL: i32 = 0;
    pub const OTHER: i32 = 1111;
    pub const BOOLEAN: i32 = 16;
    pub const NCHAR: i32 = -15;
    pub const NVARCHAR: i32 = -9;
    pub const LONGNVARCHAR: i32 = -16;
    pub const CLOB: i32 = 2005;
    pub const NCLOB: i32 = 2011;
    pub const BLOB: i32 = 2004;
    pub const REF_CURSOR: i32 = 2012;

    /// Every public field of `java.sql.Types` (Java 8 onwards), lower-cased as JMeter keys them.
    pub const NAMES: [(&str, i32); 39] = [
        ("bit", BIT),
        ("tinyint", TINYINT),
        ("smallint", SMALLINT),
        ("integer", INTEGER),
        ("bigint", BIGINT),
        ("float", FLOAT),
        ("real", REAL),
        ("double", DOUBLE),
        ("numeric", NUMERIC),
        ("decimal", DECIMAL),
        ("char", CHAR),
        ("varchar", VARCHAR),
        ("longvarchar", LONGVARCHAR),
        ("date", DATE),
        ("time", TIME),
        ("timestamp", TIMESTAMP),
        ("binary", BINARY),
        ("varbinary", VARBINARY),
        ("longvarbinary", LONGVARBINARY),
        ("null", NULL),
        ("other", OTHER),
        ("java_object", 2000),
        ("distinct", 2001),
        ("struct", 2002),
        ("array", 2003),
        ("blob", BLOB),
        ("clob", CLOB),
        ("ref", 2006),
        ("datalink", 70),
        ("boolean", BOOLEAN),
        ("rowid", -8),
        ("nchar", NCHAR),
        ("nvarchar", NVARCHAR),
        ("longnvarchar", LONGNVARCHAR),
        ("nclob", NCLOB),
        ("sqlxml", 2009),
        ("ref_cursor", REF_CURSOR),
        ("time_with_timezone", 2013),
        ("timestamp_with_timezone", 2014),
    ];
}

/// Whether a parameter is sent, read back, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    In,
    Out,
    InOut,
}

/// A parameter value after the Java setter's parsing.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `setNull`, or an `OUT` parameter (no value sent).
    Null,
    /// `setInt`, `setShort`, `setByte`, `setLong`.
    Int(i64),
    /// `setDouble`.
    Double(f64),
    /// `setFloat`.
    Float(f32),
    /// `setBigDecimal`, the decimal as `BigDecimal.toString` prints it.
    Decimal(String),
    /// `setString`.
    Text(String),
    /// `setBoolean`.
    Bool(bool),
    /// `setDate`.
    Date(NaiveDate),
    /// `setTime`.
    Time(NaiveTime),
    /// `setTimestamp`.
    Timestamp(NaiveDateTime),
    /// `setBytes` (the text's UTF-8 bytes).
    Bytes(Vec<u8>),
    /// `setObject(text, type)`: the driver converts the text.
    Object(String),
}

/// One `?` of a statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// The `java.sql.Types` constant.
    pub sql_type: i32,
    pub direction: Direction,
    pub value: Value,
}

/// One entry of the "Parameter types" field: the `java.sql.Types` constant and whether
/// the parameter is `IN`, `OUT` or `INOUT`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeclaredType {
    pub sql_type: i32,
    pub direction: Direction,
}

/// Reads the evaluated "Parameter types" field (a constant one is read once per element).
/// An entry JMeter does not know stays an error, raised when its parameter is bound.
pub fn declared_types(type_list: &str) -> Vec<Result<DeclaredType, JavaError>> {
    java::split(type_list, ',')
        .into_iter()
        .map(|declared| {
            let parts = java::split(declared, ' ');
            let (direction_word, type_name) = match parts.as_slice() {
                [_, second, ..] => (parts[0], *second),
                _ => ("", declared),
            };
            let direction = if direction_word.eq_ignore_ascii_case("OUT") {
                Direction::Out
            } else if direction_word.eq_ignore_ascii_case("INOUT") {
                Direction::InOut
            } else {
                Direction::In
            };
            Ok(DeclaredType {
                sql_type: jdbc_type(type_name)?,
                direction,
            })
        })
        .collect()
}

/// Reads the parameters of a statement from the evaluated "Parameter values" and
/// "Parameter types" fields. `callable`: whether `OUT` parameters may be registered (a
/// prepared statement that names one fails as JMeter's cast to `CallableStatement` does).
pub fn parse(
    values: &str,
    type_list: &str,
    null_marker: &str,
    callable: bool,
) -> Result<Vec<Param>, JavaError> {
    if values.trim().is_empty() {
        return Ok(Vec::new());
    }
    parse_with_types(values, &declared_types(type_list), null_marker, callable)
}

/// [`parse`] with the types already read.
pub fn parse_with_types(
    values: &str,
    types: &[Result<DeclaredType, JavaError>],
    null_marker: &str,
    callable: bool,
) -> Result<Vec<Param>, JavaError> {
    if values.trim().is_empty() {
        return Ok(Vec::new());
    }
    // Without quotes or line breaks the CSV fields are the text between commas: they
    // are borrowed instead of copied (the usual case, read on every sample).
    let plain = !values.bytes().any(|b| matches!(b, b'"' | b'\n' | b'\r'));
    let quoted = if plain {
        Vec::new()
    } else {
        csv_split(values)?
    };
    let count = if plain {
        values.bytes().filter(|&b| b == b',').count() + 1
    } else {
        quoted.len()
    };
    if count != types.len() {
        return Err(JavaError::plain_sql(format!(
            "number of arguments ({count}) and number of types ({}) are not equal",
            types.len()
        )));
    }
    let arguments: &mut dyn Iterator<Item = &str> = if plain {
        &mut comma_fields(values)
    } else {
        &mut quoted.iter().map(String::as_str)
    };
    let mut params = Vec::with_capacity(count);
    for (argument, declared) in arguments.zip(types) {
        let DeclaredType {
            sql_type,
            direction,
        } = match declared {
            Ok(declared) => *declared,
            Err(e) => return Err(e.clone()),
        };
        if direction != Direction::In && !callable {
            return Err(JavaError::other(
                "java.lang.ClassCastException",
                Some("the prepared statement is not a java.sql.CallableStatement".into()),
            ));
        }
        let value = if direction == Direction::Out || argument == null_marker {
            Value::Null
        } else {
            set_argument(argument, sql_type)?
        };
        params.push(Param {
            sql_type,
            direction,
            value,
        });
    }
    Ok(params)
}

/// The texts between commas, as `str::split(',')` gives them, found byte by byte: the
/// fields of a sample are few and short, too short for the general searcher to pay.
fn comma_fields(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.bytes().position(|b| b == b',') {
            Some(at) => {
                rest = Some(&current[at + 1..]);
                Some(&current[..at])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

/// `getJdbcType`: a `java.sql.Types` field name (any case) or an `Integer.decode` number.
pub fn jdbc_type(name: &str) -> Result<i32, JavaError> {
    let lower = name.to_ascii_lowercase();
    if let Some((_, value)) = types::NAMES.iter().find(|(n, _)| *n == lower) {
        return Ok(*value);
    }
    integer_decode(name).ok_or_else(|| JavaError::plain_sql(format!("Invalid data type: {name}")))
}

/// `Integer.decode`: an optional sign, then decimal, `0x`/`0X`/`#` hex or `0` octal.
fn integer_decode(text: &str) -> Option<i32> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (radix, digits) = if let Some(hex) = body
        .strip_prefix("0x")
        .or_else(|| body.strip_prefix("0X"))
        .or_else(|| body.strip_prefix('#'))
    {
        (16, hex)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    if digits.is_empty() || digits.starts_with(['-', '+']) {
        return None;
    }
    let magnitude = i64::from_str_radix(digits, radix).ok()?;
    i32::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// `setArgument`: the setter the type selects, with its Java parser.
fn set_argument(argument: &str, sql_type: i32) -> Result<Value, JavaError> {
    use types::*;
    Ok(match sql_type {
        INTEGER => Value::Int(parse_int(argument, i32::MIN as i64, i32::MAX as i64)?),
        DECIMAL | NUMERIC => Value::Decimal(parse_big_decimal(argument)?),
        DOUBLE | FLOAT => Value::Double(parse_double(argument)?),
        CHAR | LONGVARCHAR | VARCHAR => Value::Text(argument.to_string()),
        BIT | BOOLEAN => Value::Bool(argument.eq_ignore_ascii_case("true")),
        BIGINT => Value::Int(parse_int(argument, i64::MIN, i64::MAX)?),
        DATE => Value::Date(parse_date(argument)?),
        REAL => Value::Float(parse_double(argument)? as f32),
        TINYINT => Value::Int(parse_int(argument, i8::MIN as i64, i8::MAX as i64)?),
        SMALLINT => Value::Int(parse_int(argument, i16::MIN as i64, i16::MAX as i64)?),
        TIMESTAMP => Value::Timestamp(parse_timestamp(argument)?),
        TIME => Value::Time(parse_time(argument)?),
        BINARY | VARBINARY | LONGVARBINARY => Value::Bytes(argument.as_bytes().to_vec()),
        NULL => Value::Null,
        _ => Value::Object(argument.to_string()),
    })
}

fn number_format(message: String) -> JavaError {
    JavaError::other("java.lang.NumberFormatException", Some(message))
}

/// `Integer.parseInt` / `Long.parseLong` / `Short.parseShort` / `Byte.parseByte`.
fn parse_int(text: &str, min: i64, max: i64) -> Result<i64, JavaError> {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    let negative = text.starts_with('-');
    // Past `i64` no type is in range, and such text fails as any other (`For input
    // string`), so 64 bits decide every case. Accumulated towards the sign, so that
    // `Long.MIN_VALUE` fits.
    let parsed = if digits.is_empty() {
        None
    } else {
        digits.bytes().try_fold(0i64, |value, b| {
            let digit = i64::from(b.wrapping_sub(b'0'));
            if digit > 9 {
                return None;
            }
            let shifted = value.checked_mul(10)?;
            if negative {
                shifted.checked_sub(digit)
            } else {
                shifted.checked_add(digit)
            }
        })
    };
    match parsed {
        Some(value) if (min..=max).contains(&value) => Ok(value),
        // Byte and Short parse as int first and report the range separately.
        Some(value)
            if max < i32::MAX as i64 && (i32::MIN as i64..=i32::MAX as i64).contains(&value) =>
        {
            Err(number_format(format!(
                "Value out of range. Value:\"{text}\" Radix:10"
            )))
        }
        _ => Err(number_format(format!("For input string: \"{text}\""))),
    }
}

/// `Double.parseDouble`: surrounding whitespace allowed, Java's `NaN` and `Infinity`.
fn parse_double(text: &str) -> Result<f64, JavaError> {
    let trimmed = crate::foundation::java_text::java_trim(text);
    if trimmed.is_empty() {
        return Err(number_format("empty String".into()));
    }
    let body = trimmed
        .strip_suffix(['d', 'D', 'f', 'F'])
        .unwrap_or(trimmed);
    let unsigned = body.strip_prefix(['-', '+']).unwrap_or(body);
    let valid = unsigned == "NaN"
        || unsigned == "Infinity"
        || (!unsigned.is_empty()
            && unsigned
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+')));
    let parsed = match unsigned {
        "NaN" => Some(f64::NAN),
        "Infinity" if body.starts_with('-') => Some(f64::NEG_INFINITY),
        "Infinity" => Some(f64::INFINITY),
        _ if valid => body.parse::<f64>().ok(),
        _ => None,
    };
    parsed.ok_or_else(|| number_format(format!("For input string: \"{trimmed}\"")))
}

/// `new BigDecimal(text)`: digits with an optional point and exponent.
fn parse_big_decimal(text: &str) -> Result<String, JavaError> {
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let unsigned = mantissa.strip_prefix(['-', '+']).unwrap_or(mantissa);
    let (int_part, frac_part) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits_ok = !(int_part.is_empty() && frac_part.is_empty())
        && int_part
            .bytes()
            .chain(frac_part.bytes())
            .all(|b| b.is_ascii_digit());
    let exponent: i64 = match exponent {
        None => 0,
        Some(e) => e.parse().map_err(|_| big_decimal_error(text))?,
    };
    if !digits_ok {
        return Err(big_decimal_error(text));
    }
    let negative = mantissa.starts_with('-');
    let digits = format!("{int_part}{frac_part}");
    let scale = frac_part.len() as i64 - exponent;
    Ok(decimal_text(negative, &digits, scale))
}

fn big_decimal_error(text: &str) -> JavaError {
    number_format(format!(
        "Character array is missing \"exponent\" mark 'e' or 'E'. Input: {text}"
    ))
}

/// The plain decimal text of `digits × 10^-scale` (negative scales written out).
fn decimal_text(negative: bool, digits: &str, scale: i64) -> String {
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if scale <= 0 {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (-scale) as usize));
        return out;
    }
    let scale = scale as usize;
    if digits.len() > scale {
        out.push_str(&digits[..digits.len() - scale]);
    } else {
        out.push('0');
    }
    out.push('.');
    if digits.len() < scale {
        out.extend(std::iter::repeat_n('0', scale - digits.len()));
        out.push_str(digits);
    } else {
        out.push_str(&digits[digits.len() - scale..]);
    }
    out
}

fn illegal_argument(message: Option<&str>) -> JavaError {
    JavaError::other(
        "java.lang.IllegalArgumentException",
        message.map(str::to_string),
    )
}

/// `java.sql.Date.valueOf`: `yyyy-[m]m-[d]d`.
fn parse_date(text: &str) -> Result<NaiveDate, JavaError> {
    let parts: Vec<&str> = text.split('-').collect();
    let valid = parts.len() == 3
        && parts[0].len() == 4
        && (1..=2).contains(&parts[1].len())
        && (1..=2).contains(&parts[2].len())
        && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit()));
    let date = valid
        .then(|| {
            NaiveDate::from_ymd_opt(
                parts[0].parse().ok()?,
                parts[1].parse().ok()?,
                parts[2].parse().ok()?,
            )
        })
        .flatten();
    date.ok_or_else(|| illegal_argument(None))
}

/// `java.sql.Time.valueOf`: `hh:mm:ss`.
fn parse_time(text: &str) -> Result<NaiveTime, JavaError> {
    let parts: Vec<&str> = text.split(':').collect();
    let time = (parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
    .then(|| {
        NaiveTime::from_hms_opt(
            parts[0].parse().ok()?,
            parts[1].parse().ok()?,
            parts[2].parse().ok()?,
        )
    })
    .flatten();
    time.ok_or_else(|| illegal_argument(None))
}

/// `java.sql.Timestamp.valueOf`: `yyyy-[m]m-[d]d hh:mm:ss[.f...]`.
fn parse_timestamp(text: &str) -> Result<NaiveDateTime, JavaError> {
    let error = || {
        illegal_argument(Some(
            "Timestamp format must be yyyy-mm-dd hh:mm:ss[.fffffffff]",
        ))
    };
    let trimmed = text.trim();
    let (date, time) = trimmed.split_once(' ').ok_or_else(error)?;
    let date = parse_date(date).map_err(|_| error())?;
    let (clock, fraction) = time.split_once('.').unwrap_or((time, ""));
    let clock = parse_time(clock).map_err(|_| error())?;
    if fraction.len() > 9 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return Err(error());
    }
    let nanos: u32 = if fraction.is_empty() {
        0
    } else {
        format!("{fraction:0<9}").parse().map_err(|_| error())?
    };
    let at = date.and_time(clock);
    Ok(at + chrono::Duration::nanoseconds(i64::from(nanos)))
}

/// `CSVSaveService.csvSplitString(text, ',')`: `"` quotes a field, `""` inside quotes is
/// one quote, and reading stops at the first line end outside quotes.
pub fn csv_split(text: &str) -> Result<Vec<String>, JavaError> {
    #[derive(PartialEq)]
    enum State {
        Initial,
        Plain,
        Quoted,
        EmbeddedQuote,
    }
    let io_error = |message: String| JavaError::other("java.io.IOException", Some(message));
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut state = State::Initial;
    let mut pushed = false;
    let mut chars = text.chars().peekable();
    let mut ended_early = false;
    while let Some(ch) = chars.next() {
        pushed = false;
        let delimiter = ch == ',' || ch == '\n' || ch == '\r';
        match state {
            State::Initial if ch == '"' => state = State::Quoted,
            State::Initial | State::Plain if delimiter => {
                pushed = true;
                state = State::Initial;
            }
            State::Initial | State::Plain if ch == '"' => {
                field.push(ch);
                return Err(io_error(format!(
                    "Cannot have quote-char in plain field:[{field}]"
                )));
            }
            State::Initial | State::Plain => {
                field.push(ch);
                state = State::Plain;
            }
            State::Quoted if ch == '"' => state = State::EmbeddedQuote,
            State::Quoted => field.push(ch),
            State::EmbeddedQuote if ch == '"' => {
                field.push('"');
                state = State::Quoted;
            }
            State::EmbeddedQuote if delimiter => {
                pushed = true;
                state = State::Initial;
            }
            State::EmbeddedQuote => {
                field.push('"');
                return Err(io_error(format!(
                    "Cannot have single quote-char in quoted field:[{field}]"
                )));
            }
        }
        if pushed {
            if ch == '\r' && chars.peek() == Some(&'\n') {
                chars.next();
            }
            fields.push(std::mem::take(&mut field));
        }
        if (ch == '\n' || ch == '\r') && state != State::Quoted {
            ended_early = true;
            break;
        }
    }
    if !ended_early {
        if state == State::Quoted {
            return Err(io_error(format!(
                "Missing trailing quote-char in quoted field:[\"{field}]"
            )));
        }
        if !field.is_empty() || pushed || state == State::EmbeddedQuote {
            fields.push(field);
        }
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_split_as_csv_and_types_by_name_or_number() {
        let params = parse(
            "7,\"a, \"\"b\"\"\",]NULL[,2024-02-03",
            "INTEGER,varchar,VARCHAR,DATE",
            "]NULL[",
            false,
        )
        .unwrap();
        assert_eq!(params[0].value, Value::Int(7));
        assert_eq!(params[1].value, Value::Text("a, \"b\"".into()));
        assert_eq!(params[2].value, Value::Null);
        assert_eq!(params[2].sql_type, types::VARCHAR);
        assert_eq!(
            params[3].value,
            Value::Date(NaiveDate::from_ymd_opt(2024, 2, 3).unwrap())
        );
        let out = parse("0,1", "OUT INTEGER,INOUT -10", "]NULL[", true).unwrap();
        assert_eq!(out[0].direction, Direction::Out);
        assert_eq!(out[0].value, Value::Null);
        assert_eq!(out[1].direction, Direction::InOut);
        assert_eq!(out[1].sql_type, -10);
        assert_eq!(out[1].value, Value::Object("1".into()));
    }

    #[test]
    fn bad_lists_and_values_fail_as_jmeter_fails() {
        let count = parse("1,2", "INTEGER", "]NULL[", false).unwrap_err();
        assert_eq!(
            count.to_java_string(),
            "java.sql.SQLException: number of arguments (2) and number of types (1) are not equal"
        );
        let bad_type = parse("1", "String", "]NULL[", false).unwrap_err();
        assert_eq!(
            bad_type.message.as_deref(),
            Some("Invalid data type: String")
        );
        let bad_int = parse("x1", "INTEGER", "]NULL[", false).unwrap_err();
        assert_eq!(
            bad_int.to_java_string(),
            "java.lang.NumberFormatException: For input string: \"x1\""
        );
        let range = parse("300", "TINYINT", "]NULL[", false).unwrap_err();
        assert_eq!(
            range.message.as_deref(),
            Some("Value out of range. Value:\"300\" Radix:10")
        );
        let stamp = parse("2024-01-01", "TIMESTAMP", "]NULL[", false).unwrap_err();
        assert_eq!(stamp.class, "java.lang.IllegalArgumentException");
        assert!(parse("  ", "INTEGER", "]NULL[", false).unwrap().is_empty());
    }

    #[test]
    fn numbers_read_as_java_parses_them() {
        let p = |v: &str, t: &str| parse(v, t, "]NULL[", false).unwrap()[0].value.clone();
        assert_eq!(p("1.5E2", "DECIMAL"), Value::Decimal("150".into()));
        assert_eq!(p("0.50", "NUMERIC"), Value::Decimal("0.50".into()));
        assert_eq!(p(" 2.5 ", "DOUBLE"), Value::Double(2.5));
        assert_eq!(p("yes", "BOOLEAN"), Value::Bool(false));
        assert_eq!(p("TRUE", "BIT"), Value::Bool(true));
        assert_eq!(p("-9000000000", "BIGINT"), Value::Int(-9_000_000_000));
        assert_eq!(p("+12", "INTEGER"), Value::Int(12));
        assert_eq!(p("-9223372036854775808", "BIGINT"), Value::Int(i64::MIN));
        assert_eq!(p("9223372036854775807", "BIGINT"), Value::Int(i64::MAX));
        let message = |v: &str, t: &str| parse(v, t, "]NULL[", false).unwrap_err().message;
        for (text, sql_type) in [
            ("9223372036854775808", "BIGINT"),
            ("2147483648", "INTEGER"),
            ("99999999999999999999", "SMALLINT"),
            ("-", "INTEGER"),
            ("+-1", "INTEGER"),
            ("1 ", "INTEGER"),
        ] {
            assert_eq!(
                message(text, sql_type),
                Some(format!("For input string: \"{text}\"")),
                "{text:?} as {sql_type}"
            );
        }
        assert_eq!(
            message("-40000", "SMALLINT"),
            Some("Value out of range. Value:\"-40000\" Radix:10".into())
        );
        assert_eq!(
            p("2024-01-02 03:04:05.5", "TIMESTAMP"),
            Value::Timestamp(
                NaiveDate::from_ymd_opt(2024, 1, 2)
                    .unwrap()
                    .and_hms_milli_opt(3, 4, 5, 500)
                    .unwrap()
            )
        );
        assert_eq!(integer_decode("0x1F"), Some(31));
        assert_eq!(integer_decode("010"), Some(8));
    }

    #[test]
    fn plain_values_split_at_commas_as_csv_does() {
        for text in ["7", "a,,b,", ",", "1, 2 ,x", "]NULL[,3"] {
            let fields: Vec<&str> = text.split(',').collect();
            assert_eq!(csv_split(text).unwrap(), fields, "{text:?}");
            assert_eq!(comma_fields(text).collect::<Vec<_>>(), fields, "{text:?}");
        }
        assert_eq!(comma_fields("").collect::<Vec<_>>(), [""]);
        let types = declared_types("INTEGER,VARCHAR,VARCHAR");
        let params = parse_with_types("5,]NULL[, b ", &types, "]NULL[", false).unwrap();
        assert_eq!(params[0].value, Value::Int(5));
        assert_eq!(params[1].value, Value::Null);
        assert_eq!(params[2].value, Value::Text(" b ".into()));
        let wrong = parse_with_types("5,6", &types, "]NULL[", false).unwrap_err();
        assert_eq!(
            wrong.message.as_deref(),
            Some("number of arguments (2) and number of types (3) are not equal")
        );
    }

    #[test]
    fn csv_split_follows_csv_save_service() {
        assert_eq!(csv_split("a,,b,").unwrap(), ["a", "", "b", ""]);
        assert_eq!(csv_split("a\nb").unwrap(), ["a"]);
        assert!(csv_split("a\"b").is_err());
        assert!(csv_split("\"open").is_err());
    }
}
