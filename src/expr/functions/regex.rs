//! `__regexFunction(regex, template[, which[, between[, default[, name[, input]]]]])`: a
//! regular expression over the previous response (or a variable), as JMeter's
//! `RegexFunction` with its Java-regex engine.
//!
//! `which` is `1` (the default), `n`, `RAND` or `ALL` (results joined by `between`).
//! With a `name` the result goes into that variable too, with `name_matchNr` and the
//! groups of each used match as `name_g0..`. A constant expression is compiled when the
//! plan is built; an invalid one is a plan error. Result templates (`$1$`, also used by
//! the Regular Expression Extractor) are parsed by [`parse_template`].

use fancy_regex::Regex;
use rand::Rng;

use super::{arg, check_count, Constructor, Function};
use crate::expr::Template;
use crate::user_state::EvalContext;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[("__regexFunction", regex_function)];

/// A part of a result template: literal text or `$n$`.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text(String),
    Group(usize),
}

/// Splits a result template into text and `$n$` group references.
pub fn parse_template(text: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(dollar) = rest.find('$') {
        let after = &rest[dollar + 1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let group = (digits > 0 && after[digits..].starts_with('$'))
            .then(|| after[..digits].parse::<usize>().ok())
            .flatten();
        match group {
            Some(n) => {
                literal.push_str(&rest[..dollar]);
                if !literal.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut literal)));
                }
                pieces.push(Piece::Group(n));
                rest = &after[digits + 1..];
            }
            None => {
                literal.push_str(&rest[..=dollar]);
                rest = after;
            }
        }
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        pieces.push(Piece::Text(literal));
    }
    pieces
}

/// Fills a template from one match's groups; a group that did not take part (or does
/// not exist) is written `null`, as Java's `StringBuilder.append(null)` does.
pub fn render_template<S: AsRef<str>>(pieces: &[Piece], groups: &[Option<S>]) -> String {
    let mut out = String::new();
    for piece in pieces {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Group(n) => match groups.get(*n) {
                Some(Some(text)) => out.push_str(text.as_ref()),
                _ => out.push_str("null"),
            },
        }
    }
    out
}

/// Every match of `regex` in `text`, as its groups.
pub fn all_matches(regex: &Regex, text: &str) -> Vec<Vec<Option<String>>> {
    regex
        .captures_iter(text)
        .map_while(Result::ok)
        .map(|c| {
            (0..c.len())
                .map(|i| c.get(i).map(|m| m.as_str().to_string()))
                .collect()
        })
        .collect()
}

struct RegexFunction {
    args: Vec<Template>,
    compiled: Option<Regex>,
}

fn regex_function(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    check_count(&args, 2, 7)?;
    // The argument's text as the function receives it: `\,`, `\$` and `\\` unescaped.
    let compiled = match args.first().and_then(Template::as_literal) {
        Some(pattern) => Some(
            Regex::new(pattern)
                .map_err(|e| format!("invalid regular expression {pattern:?}: {e}"))?,
        ),
        None => None,
    };
    Ok(Box::new(RegexFunction { args, compiled }))
}

impl Function for RegexFunction {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String {
        let args = &self.args;
        let dynamic;
        let regex = match &self.compiled {
            Some(regex) => regex,
            None => match Regex::new(&arg(args, 0, ctx)) {
                Ok(regex) => {
                    dynamic = regex;
                    &dynamic
                }
                Err(_) => return String::new(),
            },
        };
        let template = parse_template(&arg(args, 1, ctx));
        let which = match arg(args, 2, ctx) {
            w if w.is_empty() => "1".to_string(),
            w => w,
        };
        let between = arg(args, 3, ctx);
        let default = arg(args, 4, ctx);
        let name = arg(args, 5, ctx);
        let input = arg(args, 6, ctx);
        if !name.is_empty() {
            ctx.vars.put(name.clone(), default.clone());
        }
        let text = if !input.is_empty() {
            ctx.vars.get(&input).map(str::to_string)
        } else {
            ctx.prev
                .map(|p| String::from_utf8_lossy(&p.response_data).into_owned())
        };
        let Some(text) = text.filter(|t| !t.is_empty()) else {
            return default;
        };
        let matches = all_matches(regex, &text);
        if !name.is_empty() {
            ctx.vars
                .put(format!("{name}_matchNr"), matches.len().to_string());
        }
        if matches.is_empty() {
            return default;
        }
        let result = |groups: &Vec<Option<String>>, ctx: &mut EvalContext<'_>| {
            for (i, group) in groups.iter().enumerate() {
                let key = format!("{name}_g{i}");
                match group {
                    Some(g) => ctx.vars.put(key, g.clone()),
                    None => {
                        ctx.vars.remove(&key);
                    }
                }
            }
            let value = render_template(&template, groups);
            if !name.is_empty() {
                ctx.vars.put(name.clone(), value.clone());
            }
            value
        };
        match which.as_str() {
            "ALL" => {
                let parts: Vec<String> = matches.iter().map(|m| result(m, ctx)).collect();
                parts.join(&between)
            }
            "RAND" => {
                let i = ctx.rng.gen_range(0..matches.len());
                result(&matches[i], ctx)
            }
            n => match n.trim().parse::<usize>() {
                Ok(n) if n >= 1 && n <= matches.len() => result(&matches[n - 1], ctx),
                _ => default,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::functions::testing::*;

    #[test]
    fn templates_split_into_text_and_groups() {
        assert_eq!(
            parse_template("id=$1$,$2$$x$"),
            [
                Piece::Text("id=".into()),
                Piece::Group(1),
                Piece::Text(",".into()),
                Piece::Group(2),
                Piece::Text("$x$".into())
            ]
        );
    }

    #[test]
    fn matches_in_a_variable_with_all_nth_and_default() {
        let mut env = Fixture::new();
        env.vars.put("in", "a=1;a=2;");
        assert_eq!(
            env.eval("${__regexFunction(a=(\\d),$1$,ALL,+,none,r,in)}"),
            "1+2"
        );
        assert_eq!(env.vars.get("r_matchNr"), Some("2"));
        assert_eq!(
            env.eval("${__regexFunction(a=(\\d),[$1$],2,,none,r,in)}"),
            "[2]"
        );
        assert_eq!(env.vars.get("r_g1"), Some("2"));
        assert_eq!(
            env.eval("${__regexFunction(a=(\\d),$1$,3,,none,r,in)}"),
            "none"
        );
        assert_eq!(
            env.eval("${__regexFunction(b=(\\d),$1$,1,,dflt,r,in)}"),
            "dflt"
        );
    }
}
