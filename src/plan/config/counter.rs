//! Counter (`CounterConfig`): publishes a number in a variable at each iteration of its
//! enclosing controller, then steps it.
//!
//! Shared mode: one value for the whole run, handed out under a lock, so user #1 gets
//! `start`, user #2 `start + incr`, … and the value wraps back to `start` once it is
//! past `end` (checked before publishing). Per-user mode: each user counts on its own
//! (a slot in its `UserState`) and wraps right after stepping past `end`; with
//! `reset_on_tg_iteration` it restarts from `start` whenever the thread-group iteration
//! number (`UserState::iteration`) differs from the one it last saw.

use parking_lot::Mutex;

use crate::expr::Template;
use crate::foundation::java_format::DecimalFormat;
use crate::plan::context::parse_i64;
use crate::plan::{BuildContext, IterationListener, Setting};
use crate::user_state::UserState;

pub struct Counter {
    /// Element id, the key of the per-user slot.
    id: usize,
    start: Setting,
    /// `CounterConfig.end`; empty or absent means no end (`Long.MAX_VALUE`).
    end: Setting,
    incr: Setting,
    variable: Template,
    format: Format,
    per_user: bool,
    reset_on_tg_iteration: bool,
    /// The next shared value; `i64::MIN` until first used, as in JMeter.
    shared_next: Mutex<i64>,
}

/// `CounterConfig.format`: parsed once when constant.
enum Format {
    /// `None`: no pattern, or one `DecimalFormat` would reject: the plain number.
    Fixed(Option<DecimalFormat>),
    Dynamic(Template),
}

/// A user's own counter state.
struct PerUser {
    next: i64,
    /// The thread-group iteration seen last (JMeter starts it at 1).
    last_iteration: u64,
}

/// The settings as evaluated for one iteration.
struct Values {
    start: i64,
    end: i64,
    incr: i64,
    variable: String,
    /// Present only for a non-constant format.
    pattern: Option<String>,
}

impl Counter {
    pub fn build(cx: &mut BuildContext<'_>) -> Counter {
        let format_text = cx.raw("CounterConfig.format").unwrap_or("");
        let format = match cx.template("CounterConfig.format") {
            t if t.is_constant() => Format::Fixed(parse_format(format_text, Some(cx))),
            t => Format::Dynamic(t),
        };
        Counter {
            id: cx.id,
            start: cx.setting("CounterConfig.start", "0"),
            end: cx.setting("CounterConfig.end", ""),
            incr: cx.setting("CounterConfig.incr", "0"),
            variable: cx.template("CounterConfig.name"),
            format,
            per_user: cx.flag("CounterConfig.per_user", false),
            reset_on_tg_iteration: cx.flag("CounterConfig.reset_on_tg_iteration", false),
            shared_next: Mutex::new(i64::MIN),
        }
    }

    fn values(&self, user: &mut UserState) -> Values {
        let mut cx = user.eval("");
        let end_text = self.end.text(&mut cx);
        Values {
            start: self.start.i64(&mut cx),
            end: if end_text.is_empty() {
                i64::MAX
            } else {
                parse_i64(&end_text)
            },
            incr: self.incr.i64(&mut cx),
            variable: self.variable.eval(&mut cx),
            pattern: match &self.format {
                Format::Fixed(_) => None,
                Format::Dynamic(template) => Some(template.eval(&mut cx)),
            },
        }
    }

    /// The shared value to publish now.
    fn next_shared(&self, v: &Values) -> i64 {
        let mut next = self.shared_next.lock();
        if *next == i64::MIN || *next > v.end {
            *next = v.start;
        }
        let current = *next;
        *next = current.wrapping_add(v.incr);
        current
    }

    /// This user's value to publish now.
    fn next_per_user(&self, v: &Values, user: &mut UserState) -> i64 {
        let iteration = user.iteration;
        let state = user.slot(self.id, || PerUser {
            next: v.start,
            last_iteration: 1,
        });
        let mut current = state.next;
        if self.reset_on_tg_iteration {
            if iteration != state.last_iteration {
                current = v.start;
            }
            state.last_iteration = iteration;
        }
        let mut next = current.wrapping_add(v.incr);
        if next > v.end {
            next = v.start;
        }
        state.next = next;
        current
    }

    fn format(&self, value: i64, pattern: Option<&str>) -> String {
        let parsed;
        let format = match (&self.format, pattern) {
            (Format::Fixed(format), _) => format.as_ref(),
            (Format::Dynamic(_), Some(text)) => {
                parsed = parse_format(text, None);
                parsed.as_ref()
            }
            (Format::Dynamic(_), None) => None,
        };
        match format {
            Some(format) => format.format(value),
            None => value.to_string(),
        }
    }
}

/// An empty pattern means the plain number; a pattern Java rejects too (with a warning
/// when known at plan time, as JMeter logs one).
fn parse_format(text: &str, cx: Option<&mut BuildContext<'_>>) -> Option<DecimalFormat> {
    if text.is_empty() {
        return None;
    }
    let parsed = DecimalFormat::parse(text);
    if let (None, Some(cx)) = (&parsed, cx) {
        cx.warn(format!(
            "counter format {text:?} is not a number pattern jmxr supports: plain numbers are used"
        ));
    }
    parsed
}

impl IterationListener for Counter {
    fn iteration_start(&self, user: &mut UserState) {
        let values = self.values(user);
        let value = if self.per_user {
            self.next_per_user(&values, user)
        } else {
            self.next_shared(&values)
        };
        let text = self.format(value, values.pattern.as_deref());
        user.vars.put(values.variable, text);
    }
}

#[cfg(test)]
mod tests;
