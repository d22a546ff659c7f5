//! The XPath function library: the XPath 1.0 core functions, plus, for XPath 2
//! expressions, the string, sequence and numeric functions plans use (`ends-with`,
//! `matches`, `replace`, `lower-case`, `string-join`, `tokenize`, `distinct-values`,
//! `exists`, `empty`, `min`, `max`, ...). Names and arities are checked at plan time
//! ([`check_call`]); [`call`] runs them.

use super::xpath::{
    atomize, boolean, eval, name_of, node_string, number, string, Context, Evaluated, NodeRef,
    Value,
};
use super::xpath_parse::{Expr, Version};

/// `(name, min args, max args, XPath 2 only)`; `usize::MAX` for variadic.
const FUNCTIONS: &[(&str, usize, usize, bool)] = &[
    ("last", 0, 0, false),
    ("position", 0, 0, false),
    ("count", 1, 1, false),
    ("id", 1, 1, false),
    ("local-name", 0, 1, false),
    ("namespace-uri", 0, 1, false),
    ("name", 0, 1, false),
    ("string", 0, 1, false),
    ("concat", 2, usize::MAX, false),
    ("starts-with", 2, 2, false),
    ("contains", 2, 2, false),
    ("substring-before", 2, 2, false),
    ("substring-after", 2, 2, false),
    ("substring", 2, 3, false),
    ("string-length", 0, 1, false),
    ("normalize-space", 0, 1, false),
    ("translate", 3, 3, false),
    ("boolean", 1, 1, false),
    ("not", 1, 1, false),
    ("true", 0, 0, false),
    ("false", 0, 0, false),
    ("lang", 1, 1, false),
    ("number", 0, 1, false),
    ("sum", 1, 1, false),
    ("floor", 1, 1, false),
    ("ceiling", 1, 1, false),
    ("round", 1, 1, false),
    ("ends-with", 2, 2, true),
    ("matches", 2, 3, true),
    ("replace", 3, 4, true),
    ("lower-case", 1, 1, true),
    ("upper-case", 1, 1, true),
    ("string-join", 1, 2, true),
    ("tokenize", 1, 3, true),
    ("distinct-values", 1, 1, true),
    ("exists", 1, 1, true),
    ("empty", 1, 1, true),
    ("abs", 1, 1, true),
    ("min", 1, 1, true),
    ("max", 1, 1, true),
    ("avg", 1, 1, true),
    ("data", 0, 1, true),
    ("reverse", 1, 1, true),
    ("subsequence", 2, 3, true),
    ("head", 1, 1, true),
    ("tail", 1, 1, true),
    ("compare", 2, 2, true),
];

fn local(name: &str, version: Version) -> &str {
    match version {
        Version::Two => name.strip_prefix("fn:").unwrap_or(name),
        Version::One => name,
    }
}

/// Checks that `name` is a function of `version` taking `arity` arguments.
pub fn check_call(name: &str, arity: usize, version: Version) -> Result<(), String> {
    let short = local(name, version);
    let Some(&(_, min, max, two_only)) = FUNCTIONS.iter().find(|f| f.0 == short) else {
        return Err(format!("unknown function {name}()"));
    };
    if two_only && version == Version::One {
        return Err(format!(
            "{name}() is an XPath 2 function (use the XPath2 elements)"
        ));
    }
    if arity < min || arity > max {
        return Err(format!("{name}() does not take {arity} argument(s)"));
    }
    Ok(())
}

pub fn call(name: &str, args: &[Expr], cx: &mut Context<'_>) -> Evaluated {
    let mut values = Vec::with_capacity(args.len());
    for arg in args {
        values.push(eval(arg, cx)?);
    }
    let here = cx.node;
    let arg_or_context = |values: &mut Vec<Value>| {
        if values.is_empty() {
            Value::Nodes(vec![here])
        } else {
            values.remove(0)
        }
    };
    let text = |cx: &Context<'_>, i: usize, values: &[Value]| string(cx, &values[i]);
    Ok(match local(name, cx.version) {
        "last" => Value::Number(cx.size as f64),
        "position" => Value::Number(cx.position as f64),
        "count" => Value::Number(match &values[0] {
            Value::Nodes(n) => n.len(),
            Value::Items(i) => i.len(),
            _ => 1,
        } as f64),
        "id" => Value::Nodes(Vec::new()),
        "local-name" | "name" | "namespace-uri" => {
            let target = arg_or_context(&mut values);
            let first = match target {
                Value::Nodes(nodes) => nodes.first().copied(),
                _ => return Err(format!("{name}() needs a node-set")),
            };
            Value::String(first.map(|n| node_name(cx, n, name)).unwrap_or_default())
        }
        "string" => Value::String(string(cx, &arg_or_context(&mut values))),
        "data" => Value::Items(atomize(cx, arg_or_context(&mut values))),
        "concat" => Value::String(values.iter().map(|v| string(cx, v)).collect()),
        "starts-with" => Value::Boolean(text(cx, 0, &values).starts_with(&text(cx, 1, &values))),
        "ends-with" => Value::Boolean(text(cx, 0, &values).ends_with(&text(cx, 1, &values))),
        "contains" => Value::Boolean(text(cx, 0, &values).contains(&text(cx, 1, &values))),
        "substring-before" => {
            let (s, pat) = (text(cx, 0, &values), text(cx, 1, &values));
            Value::String(s.find(&pat).map(|i| s[..i].to_string()).unwrap_or_default())
        }
        "substring-after" => {
            let (s, pat) = (text(cx, 0, &values), text(cx, 1, &values));
            Value::String(
                s.find(&pat)
                    .map(|i| s[i + pat.len()..].to_string())
                    .unwrap_or_default(),
            )
        }
        "substring" => {
            let length = values.get(2).map(|v| number(cx, v));
            Value::String(substring(
                &text(cx, 0, &values),
                number(cx, &values[1]),
                length,
            ))
        }
        "string-length" => {
            Value::Number(string(cx, &arg_or_context(&mut values)).chars().count() as f64)
        }
        "normalize-space" => Value::String(
            string(cx, &arg_or_context(&mut values))
                .split([' ', '\t', '\n', '\r'])
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
        ),
        "translate" => Value::String(translate(
            &text(cx, 0, &values),
            &text(cx, 1, &values),
            &text(cx, 2, &values),
        )),
        "lower-case" => Value::String(text(cx, 0, &values).to_lowercase()),
        "upper-case" => Value::String(text(cx, 0, &values).to_uppercase()),
        "boolean" => Value::Boolean(boolean(cx, &values[0])),
        "not" => Value::Boolean(!boolean(cx, &values[0])),
        "exists" => Value::Boolean(!is_empty(&values[0])),
        "empty" => Value::Boolean(is_empty(&values[0])),
        "true" => Value::Boolean(true),
        "false" | "lang" => Value::Boolean(false),
        "number" => Value::Number(number(cx, &arg_or_context(&mut values))),
        "sum" => Value::Number(
            atomize(cx, values.remove(0))
                .iter()
                .map(|v| number(cx, v))
                .sum(),
        ),
        "floor" => Value::Number(number(cx, &values[0]).floor()),
        "ceiling" => Value::Number(number(cx, &values[0]).ceil()),
        "round" => Value::Number(round(number(cx, &values[0]))),
        "abs" => Value::Number(number(cx, &values[0]).abs()),
        "min" | "max" | "avg" => aggregate(cx, name, values.remove(0)),
        "matches" => {
            let regex = xpath_regex(&text(cx, 1, &values), values.get(2).map(|v| string(cx, v)))?;
            Value::Boolean(regex.is_match(&text(cx, 0, &values)))
        }
        "replace" => {
            let regex = xpath_regex(&text(cx, 1, &values), values.get(3).map(|v| string(cx, v)))?;
            let input = text(cx, 0, &values);
            Value::String(
                regex
                    .replace_all(&input, text(cx, 2, &values).as_str())
                    .into_owned(),
            )
        }
        "tokenize" => {
            let input = text(cx, 0, &values);
            let parts: Vec<Value> = if values.len() == 1 {
                input
                    .split_whitespace()
                    .map(|p| Value::String(p.into()))
                    .collect()
            } else {
                let regex =
                    xpath_regex(&text(cx, 1, &values), values.get(2).map(|v| string(cx, v)))?;
                if input.is_empty() {
                    Vec::new()
                } else {
                    regex
                        .split(&input)
                        .map(|p| Value::String(p.into()))
                        .collect()
                }
            };
            Value::Items(parts)
        }
        "string-join" => {
            let separator = values.get(1).map(|v| string(cx, v)).unwrap_or_default();
            let parts: Vec<String> = atomize(cx, values.remove(0))
                .iter()
                .map(|v| string(cx, v))
                .collect();
            Value::String(parts.join(&separator))
        }
        "distinct-values" => {
            let mut seen: Vec<Value> = Vec::new();
            for value in atomize(cx, values.remove(0)) {
                if !seen.contains(&value) {
                    seen.push(value);
                }
            }
            Value::Items(seen)
        }
        "reverse" | "head" | "tail" | "subsequence" => sequence_function(cx, name, values),
        "compare" => {
            let (a, b) = (text(cx, 0, &values), text(cx, 1, &values));
            Value::Number(match a.cmp(&b) {
                std::cmp::Ordering::Less => -1.0,
                std::cmp::Ordering::Equal => 0.0,
                std::cmp::Ordering::Greater => 1.0,
            })
        }
        other => return Err(format!("unknown function {other}()")),
    })
}

fn node_name(cx: &Context<'_>, node: NodeRef, function: &str) -> String {
    let dom = cx.dom;
    let kind = dom.node(node.node).kind;
    if !node.is_attribute()
        && !matches!(
            kind,
            super::xml_dom::NodeKind::Element | super::xml_dom::NodeKind::ProcessingInstruction
        )
    {
        return String::new();
    }
    let name = name_of(dom, node);
    match function.trim_start_matches("fn:") {
        "local-name" => name.local.clone(),
        "namespace-uri" => name.ns.clone().unwrap_or_default(),
        _ => name.qname.clone(),
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Nodes(n) => n.is_empty(),
        Value::Items(i) => i.is_empty(),
        _ => false,
    }
}

fn aggregate(cx: &Context<'_>, name: &str, value: Value) -> Value {
    let numbers: Vec<f64> = atomize(cx, value).iter().map(|v| number(cx, v)).collect();
    if numbers.is_empty() {
        return Value::Items(Vec::new());
    }
    Value::Number(match name.trim_start_matches("fn:") {
        "min" => numbers.iter().copied().fold(f64::INFINITY, f64::min),
        "max" => numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        _ => numbers.iter().sum::<f64>() / numbers.len() as f64,
    })
}

fn sequence_function(cx: &Context<'_>, name: &str, mut values: Vec<Value>) -> Value {
    let start = values.get(1).map(|v| round(number(cx, v)));
    let length = values.get(2).map(|v| round(number(cx, v)));
    let pick = |len: usize| -> Vec<usize> {
        match name.trim_start_matches("fn:") {
            "reverse" => (0..len).rev().collect(),
            "head" => (0..len.min(1)).collect(),
            "tail" => (1.min(len)..len).collect(),
            _ => (0..len)
                .filter(|&i| {
                    let position = (i + 1) as f64;
                    position >= start.unwrap_or(1.0)
                        && length.is_none_or(|l| position < start.unwrap_or(1.0) + l)
                })
                .collect(),
        }
    };
    match values.remove(0) {
        Value::Nodes(nodes) => {
            let picked: Vec<NodeRef> = pick(nodes.len()).into_iter().map(|i| nodes[i]).collect();
            if name.ends_with("reverse") {
                // Node sequences are kept in document order here; reversing yields values.
                Value::Items(
                    picked
                        .into_iter()
                        .map(|n| Value::String(node_string(cx.dom, n)))
                        .collect(),
                )
            } else {
                Value::Nodes(picked)
            }
        }
        Value::Items(items) => Value::Items(
            pick(items.len())
                .into_iter()
                .map(|i| items[i].clone())
                .collect(),
        ),
        single => Value::Items(pick(1).into_iter().map(|_| single.clone()).collect()),
    }
}

/// XPath's `round`: halves go towards positive infinity.
fn round(n: f64) -> f64 {
    if n.is_nan() || n.is_infinite() {
        n
    } else {
        (n + 0.5).floor()
    }
}

fn substring(s: &str, start: f64, length: Option<f64>) -> String {
    let first = round(start);
    let end = length.map(|l| first + round(l));
    s.chars()
        .enumerate()
        .filter(|(i, _)| {
            let position = (*i + 1) as f64;
            position >= first && end.is_none_or(|e| position < e)
        })
        .map(|(_, c)| c)
        .collect()
}

fn translate(s: &str, from: &str, to: &str) -> String {
    let from: Vec<char> = from.chars().collect();
    let to: Vec<char> = to.chars().collect();
    s.chars()
        .filter_map(|c| match from.iter().position(|&f| f == c) {
            Some(i) => to.get(i).copied(),
            None => Some(c),
        })
        .collect()
}

fn xpath_regex(pattern: &str, flags: Option<String>) -> Result<regex::Regex, String> {
    let flags: String = flags
        .unwrap_or_default()
        .chars()
        .filter(|c| matches!(c, 'i' | 's' | 'm' | 'x'))
        .collect();
    let pattern = if flags.is_empty() {
        pattern.to_string()
    } else {
        format!("(?{flags}){pattern}")
    };
    regex::Regex::new(&pattern).map_err(|e| format!("invalid regular expression: {e}"))
}
