//! Random Variable (`RandomVariableConfig`, reference §7.10): at each iteration of its
//! enclosing controller, a random integer in `[minimumValue, maximumValue]` is put in a
//! variable, optionally formatted with a `DecimalFormat` pattern.
//!
//! The generator is one for the whole run, or one per user with `perThread`. With a
//! `randomSeed` it is Java's `java.util.Random` seeded like JMeter's, so the numbers
//! match JMeter's; without, per-user values come from the user's random source (which
//! `--seed` makes repeatable). Settings are evaluated once, on first use, as JMeter does;
//! a maximum below the minimum produces nothing.

use parking_lot::Mutex;
use rand::Rng;

use crate::expr::Template;
use crate::foundation::java_format::DecimalFormat;
use crate::foundation::java_random::JavaRandom;
use crate::plan::{BuildContext, IterationListener};
use crate::user_state::UserState;

pub struct RandomVariable {
    id: usize,
    variable: Template,
    format: Template,
    minimum: Template,
    maximum: Template,
    seed: Template,
    per_thread: bool,
    /// The run-wide generator and settings, made on first use.
    shared: Mutex<Option<Generator>>,
}

/// Settled settings and the generator state.
struct Generator {
    variable: String,
    format: Option<DecimalFormat>,
    minimum: i64,
    /// Number of values; 0 when the range is invalid.
    range: i32,
    /// `None`: draw from the user's own random source.
    java: Option<JavaRandom>,
}

impl RandomVariable {
    pub fn build(cx: &mut BuildContext<'_>) -> RandomVariable {
        RandomVariable {
            id: cx.id,
            variable: cx.template("variableName"),
            format: cx.template("outputFormat"),
            minimum: cx.template("minimumValue"),
            maximum: cx.template("maximumValue"),
            seed: cx.template("randomSeed"),
            per_thread: cx.flag("perThread", false),
            shared: Mutex::new(None),
        }
    }

    fn settle(&self, user: &mut UserState) -> Generator {
        let mut cx = user.eval("");
        let minimum: i64 = self.minimum.eval(&mut cx).parse().unwrap_or(0);
        let maximum: i64 = self.maximum.eval(&mut cx).parse().unwrap_or(0);
        let range = if minimum > maximum {
            0
        } else {
            match maximum.checked_sub(minimum).and_then(|d| d.checked_add(1)) {
                Some(n) if n <= i32::MAX as i64 => n as i32,
                _ => i32::MAX,
            }
        };
        let seed = self.seed.eval(&mut cx);
        let java = match seed.trim().parse::<i64>() {
            Ok(seed) => Some(JavaRandom::new(seed)),
            Err(_) if self.per_thread => None,
            Err(_) => Some(JavaRandom::new(cx.rng.gen())),
        };
        let format = self.format.eval(&mut cx);
        Generator {
            variable: self.variable.eval(&mut cx),
            format: DecimalFormat::parse(&format).filter(|_| !format.is_empty()),
            minimum,
            range,
            java,
        }
    }
}

impl Generator {
    /// The next value as text, or `None` when the range is invalid.
    fn next(&mut self, user: &mut UserState) -> Option<String> {
        if self.range <= 0 {
            return None;
        }
        let offset = match &mut self.java {
            Some(java) => java.next_int(self.range),
            None => user.rng.gen_range(0..self.range),
        };
        let value = self.minimum + offset as i64;
        Some(match &self.format {
            Some(format) => format.format(value),
            None => value.to_string(),
        })
    }
}

impl IterationListener for RandomVariable {
    fn iteration_start(&self, user: &mut UserState) {
        let drawn = if self.per_thread {
            if user.slot::<Option<Generator>>(self.id, || None).is_none() {
                let settled = self.settle(user);
                *user.slot::<Option<Generator>>(self.id, || None) = Some(settled);
            }
            let mut generator = user.slot::<Option<Generator>>(self.id, || None).take();
            let drawn = generator
                .as_mut()
                .and_then(|g| g.next(user).map(|v| (g.variable.clone(), v)));
            *user.slot::<Option<Generator>>(self.id, || None) = generator;
            drawn
        } else {
            let mut shared = self.shared.lock();
            let generator = shared.get_or_insert_with(|| self.settle(user));
            generator
                .next(user)
                .map(|v| (generator.variable.clone(), v))
        };
        if let Some((name, value)) = drawn {
            user.vars.put(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    fn variable(props: Vec<crate::jmx::Property>) -> RandomVariable {
        let el = element("RandomVariableConfig", "R", props);
        with_cx(&el, RandomVariable::build)
    }

    #[test]
    fn seeded_values_follow_java_random_and_the_format() {
        let rv = variable(vec![
            str_prop("variableName", "r"),
            str_prop("minimumValue", "1"),
            str_prop("maximumValue", "10"),
            str_prop("randomSeed", "42"),
            str_prop("outputFormat", "000"),
        ]);
        let mut user = user();
        rv.iteration_start(&mut user);
        // new Random(42).nextInt(10) is 0.
        assert_eq!(user.vars.get("r"), Some("001"));
    }

    #[test]
    fn values_stay_in_range_and_an_inverted_range_sets_nothing() {
        let rv = variable(vec![
            str_prop("variableName", "r"),
            str_prop("minimumValue", "5"),
            str_prop("maximumValue", "7"),
            bool_prop("perThread", true),
        ]);
        let mut user = user();
        for _ in 0..50 {
            rv.iteration_start(&mut user);
            let v: i64 = user.vars.get("r").unwrap().parse().unwrap();
            assert!((5..=7).contains(&v));
        }
        let rv = variable(vec![
            str_prop("variableName", "bad"),
            str_prop("minimumValue", "9"),
            str_prop("maximumValue", "1"),
        ]);
        rv.iteration_start(&mut user);
        assert_eq!(user.vars.get("bad"), None);
    }
}
