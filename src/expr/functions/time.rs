//! `__time([format][,var])`: the current time as epoch milliseconds, epoch divided by a
//! number (`/1000`), a named alias (`YMD`, `HMS`, `YMDHMS`, `USER1`, `USER2`, whose patterns
//! come from the `time.<alias>` properties) or a Java `DateTimeFormatter` pattern.

use chrono::{DateTime, FixedOffset, Local};

use super::log::emit;
use super::{arg, check_count, store, Constructor, Function};
use crate::expr::Template;
use crate::foundation::java_format::{Dialect, JavaDateFormat};
use crate::user_state::EvalContext;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[("__time", time)];

/// What a resolved format asks for.
enum Format {
    EpochMillis,
    /// `/ddd`: epoch milliseconds divided by this.
    Divided(i64),
    Pattern(JavaDateFormat),
}

struct Time {
    args: Vec<Template>,
    /// The format, compiled at plan time when it is a constant that is not an alias.
    fixed: Option<Format>,
}

fn time(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    check_count(&args, 0, 2)?;
    let fixed = match args.first().map(Template::as_literal) {
        None | Some(Some("")) => Some(Format::EpochMillis),
        Some(Some(text)) if alias_property(text).is_none() => Some(resolve(text)?),
        Some(_) => None,
    };
    Ok(Box::new(Time { args, fixed }))
}

impl Function for Time {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String {
        let now = Local::now().fixed_offset();
        let value = match &self.fixed {
            Some(format) => render(format, &now),
            None => {
                let text = arg(&self.args, 0, ctx);
                let resolved = match alias_property(&text) {
                    _ if text.is_empty() => Ok(Format::EpochMillis),
                    Some((property, default)) => resolve(&ctx.props.get_default(property, default)),
                    None => resolve(&text),
                };
                match resolved {
                    Ok(format) => render(&format, &now),
                    Err(err) => {
                        emit("ERROR", &format!("__time: {err}"));
                        String::new()
                    }
                }
            }
        };
        store(&self.args, 1, ctx, &value);
        value
    }
}

/// The property naming an alias's pattern, and the pattern when it is not set.
fn alias_property(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        "YMD" => Some(("time.YMD", "yyyyMMdd")),
        "HMS" => Some(("time.HMS", "HHmmss")),
        "YMDHMS" => Some(("time.YMDHMS", "yyyyMMdd-HHmmss")),
        "USER1" => Some(("time.USER1", "")),
        "USER2" => Some(("time.USER2", "")),
        _ => None,
    }
}

/// An empty format argument means epoch milliseconds, but an alias resolving to an empty
/// pattern formats as the empty string, as JMeter does; `resolve` only sees the latter.
fn resolve(text: &str) -> Result<Format, String> {
    if let Some(digits) = text.strip_prefix('/') {
        if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
            return match digits.parse::<i64>() {
                Ok(divisor) if divisor > 0 => Ok(Format::Divided(divisor)),
                _ => Err(format!("cannot divide by {digits}")),
            };
        }
    }
    JavaDateFormat::compile(text, Dialect::DateTimeFormatter)
        .map(Format::Pattern)
        .map_err(|err| format!("Unable to parse date format {text}: {err}"))
}

fn render(format: &Format, now: &DateTime<FixedOffset>) -> String {
    match format {
        Format::EpochMillis => now.timestamp_millis().to_string(),
        Format::Divided(divisor) => (now.timestamp_millis() / divisor).to_string(),
        Format::Pattern(pattern) => pattern.format(now),
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::functions::testing::Fixture;
    use crate::expr::{FunctionRegistry, Template};

    fn now_ms() -> i64 {
        chrono::Utc::now().timestamp_millis()
    }

    #[test]
    fn no_format_is_epoch_millis() {
        let mut f = Fixture::new();
        let before = now_ms();
        let value: i64 = f.eval("${__time()}").parse().unwrap_or(0);
        assert!(value >= before && value <= now_ms());
        let value: i64 = f.eval("${__time(,T)}").parse().unwrap_or(0);
        assert!(value >= before);
        assert!(f.var("T").is_some());
        assert!(f.eval("${__time}").parse::<i64>().is_ok());
    }

    #[test]
    fn divisor() {
        let mut f = Fixture::new();
        let value: i64 = f.eval("${__time(/1000)}").parse().unwrap_or(0);
        assert!((value - now_ms() / 1000).abs() <= 1);
    }

    #[test]
    fn aliases_and_patterns() {
        let mut f = Fixture::new();
        assert_eq!(f.eval("${__time(YMD)}").len(), 8);
        assert_eq!(f.eval("${__time(YMDHMS)}").len(), 15);
        assert_eq!(f.eval("${__time(HMS)}").len(), 6);
        assert_eq!(f.eval("${__time(USER1)}"), "");
        f.props.set("time.USER1", "yyyy");
        assert_eq!(f.eval("${__time(USER1)}").len(), 4);
        let today = chrono::Local::now().format("%Y-%m-%d").to_string();
        assert_eq!(f.eval("${__time(yyyy-MM-dd)}"), today);
        f.vars.put("F", "yyyy");
        assert_eq!(f.eval("${__time(${F})}").len(), 4);
        f.vars.put("F", "bbb");
        assert_eq!(f.eval("${__time(${F})}"), "");
    }

    #[test]
    fn constant_bad_pattern_is_a_plan_error() {
        let registry = FunctionRegistry::standard();
        assert!(Template::compile("${__time(ddd)}", &registry).is_err());
        assert!(Template::compile("${__time(a,b,c)}", &registry).is_err());
    }
}
