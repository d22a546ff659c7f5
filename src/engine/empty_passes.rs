//! Loops whose passes run no sampler. A Runtime Controller over a While whose condition
//! is false, a While or an endless Loop over If Controllers that all say no, a thread
//! group whose children are all skipped: each pass ends at once and the next starts, so
//! the loop would turn at full speed, a CPU core per user, for as long as it lasts.
//!
//! JMeter cannot turn such a loop at all: its controllers ask for the next sampler by
//! recursion and the thread ends with a `StackOverflowError` after a few thousand empty
//! passes. jmxr keeps the loop's meaning (it ends when its time, condition or count says
//! so, and the user goes on) but rests between empty passes once they come in a long
//! run: the first [`PASSES_BEFORE_RESTING`] go at full speed as JMeter's do, then the
//! rests grow from 1 ms to [`LONGEST_REST`]. A pass that runs a sampler ends the run of
//! empty passes.

use std::time::Duration;

use tokio::time::Instant;

use super::vu::VirtualUser;

/// Empty passes in a row that run at full speed (JMeter's recursion goes about as deep).
pub const PASSES_BEFORE_RESTING: u32 = 1000;

/// The longest rest between two empty passes: a loop that waits on a condition another
/// user changes notices within this time.
pub const LONGEST_REST: Duration = Duration::from_millis(100);

/// A loop's run of passes that ran no sampler.
#[derive(Default)]
pub struct EmptyPasses {
    /// Samplers the user had run when the current pass began.
    samplers_at_start: u64,
    /// Empty passes in a row so far.
    streak: u32,
    rest: Duration,
}

impl EmptyPasses {
    /// Call as a pass begins.
    pub fn pass_begins(&mut self, vu: &VirtualUser) {
        self.samplers_at_start = vu.samplers_run;
    }

    /// Call after a pass that the loop follows with another: rests when the pass ran no
    /// sampler and the run of empty passes is long, never past `deadline` (the loop's own
    /// end). A stop or the scheduler's end cuts the rest short; the loop then sees it
    /// before its next pass.
    pub async fn pass_ended(&mut self, vu: &mut VirtualUser, deadline: Option<Instant>) {
        if vu.samplers_run != self.samplers_at_start {
            self.streak = 0;
            self.rest = Duration::ZERO;
            return;
        }
        self.streak = self.streak.saturating_add(1);
        if self.streak < PASSES_BEFORE_RESTING {
            return;
        }
        self.rest = next_rest(self.rest);
        let mut wake = Instant::now() + self.rest;
        if let Some(deadline) = deadline {
            wake = wake.min(deadline);
        }
        vu.send_pending().await;
        vu.user.pause_until(wake.into_std()).await;
    }
}

/// Twice the last rest, from 1 ms up to [`LONGEST_REST`].
fn next_rest(last: Duration) -> Duration {
    (last * 2).clamp(Duration::from_millis(1), LONGEST_REST)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rests_double_up_to_the_longest() {
        let mut rest = Duration::ZERO;
        let mut seen = Vec::new();
        for _ in 0..10 {
            rest = next_rest(rest);
            seen.push(rest.as_millis());
        }
        assert_eq!(seen, [1, 2, 4, 8, 16, 32, 64, 100, 100, 100]);
    }
}
