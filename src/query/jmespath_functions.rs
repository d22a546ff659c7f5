//! The JMESPath built-in functions jmxr has (see [`super::jmespath`]).

use serde_json::{Map, Value};

const FUNCTIONS: &[&str] = &[
    "length",
    "keys",
    "values",
    "join",
    "contains",
    "starts_with",
    "ends_with",
    "to_string",
    "to_number",
    "max",
    "min",
    "sum",
    "avg",
    "sort",
    "reverse",
    "type",
    "abs",
    "floor",
    "ceil",
    "not_null",
    "merge",
];

pub(super) fn check_function(name: &str) -> Result<(), String> {
    if FUNCTIONS.contains(&name) {
        Ok(())
    } else {
        Err(format!("unknown function {name}()"))
    }
}

fn number(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9e15 {
        Value::from(f as i64)
    } else {
        serde_json::Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

pub(super) fn call(name: &str, args: &[Value]) -> Value {
    let first = args.first().unwrap_or(&Value::Null);
    let numbers = || -> Vec<f64> {
        first
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default()
    };
    match name {
        "length" => match first {
            Value::String(s) => Value::from(s.chars().count()),
            Value::Array(a) => Value::from(a.len()),
            Value::Object(o) => Value::from(o.len()),
            _ => Value::Null,
        },
        "keys" => first
            .as_object()
            .map(|o| Value::Array(o.keys().cloned().map(Value::String).collect()))
            .unwrap_or(Value::Null),
        "values" => first
            .as_object()
            .map(|o| Value::Array(o.values().cloned().collect()))
            .unwrap_or(Value::Null),
        "join" => {
            let glue = first.as_str().unwrap_or("");
            let parts: Vec<&str> = args
                .get(1)
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            Value::String(parts.join(glue))
        }
        "contains" => {
            let needle = args.get(1).unwrap_or(&Value::Null);
            Value::Bool(match first {
                Value::String(s) => needle.as_str().is_some_and(|n| s.contains(n)),
                Value::Array(a) => a.contains(needle),
                _ => false,
            })
        }
        "starts_with" | "ends_with" => {
            let (Some(s), Some(p)) = (first.as_str(), args.get(1).and_then(Value::as_str)) else {
                return Value::Null;
            };
            Value::Bool(if name == "starts_with" {
                s.starts_with(p)
            } else {
                s.ends_with(p)
            })
        }
        "to_string" => match first {
            Value::String(_) => first.clone(),
            other => Value::String(other.to_string()),
        },
        "to_number" => match first {
            Value::Number(_) => first.clone(),
            Value::String(s) => s.trim().parse::<f64>().map(number).unwrap_or(Value::Null),
            _ => Value::Null,
        },
        "max" | "min" => {
            let items = first.as_array().cloned().unwrap_or_default();
            let mut best: Option<Value> = None;
            for item in items {
                let better = match (&best, &item) {
                    (None, _) => true,
                    (Some(Value::Number(b)), Value::Number(i)) => {
                        (i.as_f64() > b.as_f64()) == (name == "max")
                    }
                    (Some(Value::String(b)), Value::String(i)) => (i > b) == (name == "max"),
                    _ => false,
                };
                if better {
                    best = Some(item);
                }
            }
            best.unwrap_or(Value::Null)
        }
        "sum" => number(numbers().iter().sum()),
        "avg" => {
            let n = numbers();
            if n.is_empty() {
                Value::Null
            } else {
                number(n.iter().sum::<f64>() / n.len() as f64)
            }
        }
        "sort" => {
            let mut items = first.as_array().cloned().unwrap_or_default();
            items.sort_by(|a, b| match (a, b) {
                (Value::Number(x), Value::Number(y)) => x
                    .as_f64()
                    .partial_cmp(&y.as_f64())
                    .unwrap_or(std::cmp::Ordering::Equal),
                _ => a.as_str().cmp(&b.as_str()),
            });
            Value::Array(items)
        }
        "reverse" => match first {
            Value::String(s) => Value::String(s.chars().rev().collect()),
            Value::Array(a) => Value::Array(a.iter().rev().cloned().collect()),
            _ => Value::Null,
        },
        "type" => Value::String(
            match first {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(_) => "number",
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
            }
            .into(),
        ),
        "abs" => first
            .as_f64()
            .map(|f| number(f.abs()))
            .unwrap_or(Value::Null),
        "floor" => first
            .as_f64()
            .map(|f| number(f.floor()))
            .unwrap_or(Value::Null),
        "ceil" => first
            .as_f64()
            .map(|f| number(f.ceil()))
            .unwrap_or(Value::Null),
        "not_null" => args
            .iter()
            .find(|a| !a.is_null())
            .cloned()
            .unwrap_or(Value::Null),
        _ => {
            let mut merged = Map::new();
            for arg in args {
                if let Value::Object(o) = arg {
                    merged.extend(o.clone());
                }
            }
            Value::Object(merged)
        }
    }
}
