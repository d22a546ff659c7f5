//! The jp@gc Inter-Thread Communication pre- and post-processors, over the run's named
//! queues (`user_state::fifo`).
//!
//! The PostProcessor (`FifoPutPostProcessor`) puts its `Value`, evaluated after the
//! sample, into the queue `FifoName`. The PreProcessor (`FifoPopPreProcessor`) takes the
//! oldest value of `FifoName` into the variable `Variable` before the sample, waiting
//! for one up to `Timeout` seconds (empty: without limit; absent: the property
//! `kg.apc.jmeter.functions.FifoTimeout`, else without limit). A pop that times out
//! leaves the variable unset, as the plugin's Java `null` does; a pop cut short by a
//! stop of the run sets it to `INTERRUPTED`. A wait never runs past the end of the
//! user's scheduled duration.

use std::time::Duration;

use async_trait::async_trait;

use super::{AsyncPreProcessor, BuildContext, PostProcessor, PreProcessor};
use crate::expr::functions::fifo::{seconds, INTERRUPTED, TIMEOUT_PROPERTY};
use crate::expr::Template;
use crate::runlog;
use crate::sample::SampleResult;
use crate::user_state::fifo::Popped;
use crate::user_state::UserState;

pub const PUT_CLASS: &str = "kg.apc.jmeter.modifiers.FifoPutPostProcessor";

/// How long a pop may wait, as the element was saved.
enum Timeout {
    /// `Timeout` was saved: evaluated before each pop (empty means without limit).
    Given(Template),
    /// No `Timeout` property: the plugin's constructor default, read from the run's
    /// properties when the pop happens.
    FromProperty,
}

pub struct FifoPop {
    queue: Template,
    variable: Template,
    timeout: Timeout,
}

impl FifoPop {
    pub fn build(cx: &mut BuildContext<'_>) -> FifoPop {
        let timeout = match cx.raw("Timeout") {
            Some(text) => {
                let literal = !text.contains("${");
                if literal && !text.is_empty() && text.parse::<i64>().is_err() {
                    cx.error(format!(
                        "Timeout {text:?} is not a whole number of seconds \
                         (JMeter fails the thread with a NumberFormatException)"
                    ));
                }
                Timeout::Given(cx.compile(text))
            }
            None => Timeout::FromProperty,
        };
        FifoPop {
            queue: cx.template("FifoName"),
            variable: cx.template("Variable"),
            timeout,
        }
    }

    /// The wait this pop may take; `Err` holds the text that is not a number.
    fn wait(&self, user: &mut UserState, sampler_name: &str) -> Result<Option<Duration>, String> {
        let text = match &self.timeout {
            Timeout::Given(template) => template.eval(&mut user.eval(sampler_name)),
            Timeout::FromProperty => user.run.props.get(TIMEOUT_PROPERTY).unwrap_or_default(),
        };
        if text.is_empty() {
            return Ok(None);
        }
        match text.parse::<i64>() {
            Ok(i64::MAX) => Ok(None),
            Ok(value) => Ok(Some(seconds(value))),
            Err(_) if matches!(self.timeout, Timeout::FromProperty) => Ok(None),
            Err(_) => Err(text),
        }
    }
}

impl PreProcessor for FifoPop {
    /// Never called: the pop waits, so the engine awaits [`AsyncPreProcessor`].
    fn process(&self, _user: &mut UserState, _sampler_name: &str) {}

    fn as_async(&self) -> Option<&dyn AsyncPreProcessor> {
        Some(self)
    }
}

#[async_trait]
impl AsyncPreProcessor for FifoPop {
    async fn process_async(&self, user: &mut UserState, sampler_name: &str) {
        let (queue, variable) = {
            let mut cx = user.eval(sampler_name);
            (self.queue.eval(&mut cx), self.variable.eval(&mut cx))
        };
        let mut wait = match self.wait(user, sampler_name) {
            Ok(wait) => wait,
            Err(text) => {
                // JMeter's thread ends on the uncaught NumberFormatException.
                runlog::error(&format!(
                    "Test failed! java.lang.NumberFormatException: For input string: \"{text}\""
                ));
                user.stop_thread = true;
                return;
            }
        };
        if let Some(end) = user.end_time {
            let left = end.saturating_duration_since(tokio::time::Instant::now());
            wait = Some(wait.map_or(left, |w| w.min(left)));
        }
        let fifo = user.run.test.fifo.clone();
        match fifo.pop(&queue, wait).await {
            Popped::Value(value) => user.vars.put(variable, value),
            Popped::TimedOut => {
                user.vars.remove(&variable);
            }
            Popped::Interrupted => {
                runlog::warn(&format!("Interrupted pop from queue {queue}"));
                user.vars.put(variable, INTERRUPTED);
            }
        }
    }
}

pub struct FifoPut {
    queue: Template,
    value: Template,
}

impl FifoPut {
    pub fn build(cx: &mut BuildContext<'_>) -> FifoPut {
        FifoPut {
            queue: cx.template("FifoName"),
            value: cx.template("Value"),
        }
    }
}

impl PostProcessor for FifoPut {
    fn process(&self, result: &mut SampleResult, user: &mut UserState) {
        let (queue, value) = {
            let mut cx = user.eval(&result.label);
            (self.queue.eval(&mut cx), self.value.eval(&mut cx))
        };
        user.run.test.fifo.put(&queue, value);
    }
}
