//! Precise Throughput Timer (`PreciseThroughputTimer`): samples at the moments of a
//! schedule drawn in advance, so that each `duration` window holds exactly the number
//! of samples the throughput asks for, as JMeter's `ConstantPoissonProcessGenerator`.
//!
//! The rate is `throughput / throughputPeriod` per second. For each window of
//! `duration` seconds the schedule draws `ceil(rate / batchSize × duration)` moments,
//! uniform over the window, and sorts them: exact totals per window, Poisson-like gaps.
//! With `batchSize` above 1, each moment serves that many samples in a row. The next
//! window is drawn when the previous one is used up, or (starting where the previous
//! window ends) when the rate read at a sample differs from the one it was drawn for.
//! A sample waits until its moment, counted from the schedule's start; one that is late
//! goes at once. `randomSeed` (not 0) gives JMeter's own sequence (`java.util.Random`);
//! without one the schedule is seeded from the user's generator, so `--seed` repeats it.
//!
//! One schedule serves a whole thread group, whichever Precise Throughput Timer of the
//! group asks first (JMeter keys it by thread group too). `batchThreadDelay`,
//! `exactLimit` and `allowedThroughputSurplus` are read by JMeter but have no effect
//! there (the first is not implemented, the others are deprecated): none here either.

use std::sync::Arc;

use parking_lot::Mutex;
use rand::Rng;

use crate::foundation::java_random::JavaRandom;
use crate::plan::{BuildContext, Setting, Timer};
use crate::user_state::{EvalContext, UserState};

/// JMeter regenerates the schedule when the rate moved by this much.
const PRECISION: f64 = 0.00001;

pub struct PreciseThroughputTimer {
    id: usize,
    path: Arc<str>,
    /// Samples per `throughputPeriod`.
    throughput: Setting,
    /// Seconds.
    throughput_period: Setting,
    /// Seconds per window.
    duration: Setting,
    batch_size: Setting,
    random_seed: Setting,
}

impl PreciseThroughputTimer {
    pub fn build(cx: &mut BuildContext<'_>) -> PreciseThroughputTimer {
        let timer = PreciseThroughputTimer {
            id: cx.id,
            path: cx.path.clone(),
            throughput: cx.setting("throughput", "100"),
            throughput_period: cx.setting("throughputPeriod", "3600"),
            duration: cx.setting("duration", "3600"),
            batch_size: cx.setting("batchSize", "1"),
            random_seed: cx.setting("randomSeed", "0"),
        };
        for (setting, name) in [
            (&timer.throughput_period, "throughput period"),
            (&timer.duration, "test duration"),
        ] {
            if setting
                .constant_text()
                .map(super::super::context::parse_i64)
                == Some(0)
            {
                cx.error(format!(
                    "Precise Throughput Timer has a {name} of 0 seconds: the schedule needs at least 1"
                ));
            }
        }
        timer
    }

    /// The group's schedule, made on first use; each user keeps it at hand.
    fn schedule(&self, user: &mut UserState) -> Option<Arc<Mutex<Schedule>>> {
        if let Some(schedule) = &user.slot(self.id, GroupSchedule::default).0 {
            return Some(schedule.clone());
        }
        let key = format!(
            "PreciseThroughputTimer:{:p}",
            Arc::as_ptr(&user.group_active)
        );
        let seed = match self.random_seed.i64(&mut user.eval("")) {
            // JMeter looks at the seed's low 32 bits to tell "no seed".
            seed if seed as i32 != 0 => seed,
            _ => user.rng.gen(),
        };
        let started_ms = crate::foundation::clock::wall_clock_ms();
        let schedule = user.run.shared(&key, || {
            Mutex::new(Schedule::new(JavaRandom::new(seed), started_ms))
        });
        user.slot(self.id, GroupSchedule::default).0 = schedule.clone();
        schedule
    }
}

impl Timer for PreciseThroughputTimer {
    fn delay_ms(&self, _cx: &mut EvalContext<'_>) -> i64 {
        // Only reached without a user (never by the engine): no schedule.
        0
    }

    fn delay_for(&self, user: &mut UserState, sampler_name: &str) -> i64 {
        let shard = user.run.shard;
        let (rate, duration, batch) = {
            let mut cx = user.eval(sampler_name);
            let period = self.throughput_period.i64(&mut cx);
            let whole = self.throughput.f64(&mut cx) / period as f64;
            // A shard paces its part of the test-wide rate.
            let rate = crate::foundation::shard::shard_rate(shard, whole);
            (
                rate,
                self.duration.i64(&mut cx),
                self.batch_size.i64(&mut cx),
            )
        };
        let Some(schedule) = self.schedule(user) else {
            return 0;
        };
        let (moment, started_ms) = {
            let mut schedule = schedule.lock();
            (schedule.next(rate, duration, batch), schedule.started_ms)
        };
        let Some(moment) = moment else {
            // JMeter's thread dies on the empty schedule's underflow.
            crate::runlog::error(&format!(
                "{}: Precise Throughput Timer has no sample to schedule at {rate}/s; the thread stops",
                self.path
            ));
            user.stop_thread = true;
            return 0;
        };
        let now = crate::foundation::clock::wall_clock_ms();
        // Java's `(long)` truncates towards zero.
        let delay = (moment * 1000.0 + started_ms as f64 - now as f64) as i64;
        delay.max(0)
    }
}

/// A user's handle on its group's schedule.
#[derive(Default)]
struct GroupSchedule(Option<Arc<Mutex<Schedule>>>);

/// A thread group's schedule: the moments of the current window, in seconds from its
/// start.
struct Schedule {
    random: JavaRandom,
    started_ms: i64,
    /// The rate the current window was drawn for.
    last_rate: f64,
    /// Where the next window starts, seconds.
    window_end: f64,
    moments: Vec<f64>,
    /// The next moment to hand out.
    position: usize,
    /// Samples given the current moment so far (batches).
    batch_index: i64,
}

impl Schedule {
    fn new(random: JavaRandom, started_ms: i64) -> Schedule {
        Schedule {
            random,
            started_ms,
            last_rate: 0.0,
            window_end: 0.0,
            moments: Vec::new(),
            position: 0,
            batch_index: 0,
        }
    }

    /// Draws the next window's moments.
    fn draw(&mut self, rate: f64, duration: i64, batch: i64) {
        self.last_rate = rate;
        let rate = if batch > 1 { rate / batch as f64 } else { rate };
        self.batch_index = 0;
        // Java's `(int) Math.ceil(..)` saturates; a negative count draws nothing.
        let count = (rate * duration as f64).ceil() as i32;
        let count = usize::try_from(count).unwrap_or(0);
        self.moments.clear();
        self.moments.reserve(count);
        for _ in 0..count {
            let moment = self.window_end + self.random.next_double() * duration as f64;
            self.moments.push(moment);
        }
        self.moments.sort_by(f64::total_cmp);
        self.position = 0;
        self.window_end += duration as f64;
    }

    /// The moment of the next sample, seconds from the start; `None` when the window
    /// just drawn is empty.
    fn next(&mut self, rate: f64, duration: i64, batch: i64) -> Option<f64> {
        let used_up = self.position >= self.moments.len();
        if (self.batch_index == 0 && used_up) || (rate - self.last_rate).abs() >= PRECISION {
            self.draw(rate, duration, batch);
        }
        if batch <= 1 {
            let moment = *self.moments.get(self.position)?;
            self.position += 1;
            return Some(moment);
        }
        self.batch_index += 1;
        if self.batch_index == 1 {
            let moment = *self.moments.get(self.position)?;
            self.position += 1;
            return Some(moment);
        }
        if self.batch_index == batch {
            self.batch_index = 0;
        }
        self.position
            .checked_sub(1)
            .and_then(|last| self.moments.get(last))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moments(
        schedule: &mut Schedule,
        rate: f64,
        duration: i64,
        batch: i64,
        n: usize,
    ) -> Vec<f64> {
        (0..n)
            .map(|_| schedule.next(rate, duration, batch).unwrap())
            .collect()
    }

    #[test]
    fn each_window_holds_exactly_the_rate_times_its_length() {
        let mut schedule = Schedule::new(JavaRandom::new(1), 0);
        // 2.5/s over 10 s windows: 25 moments in [0, 10), then 25 in [10, 20).
        let all = moments(&mut schedule, 2.5, 10, 1, 50);
        assert!(all[..25].iter().all(|m| (0.0..10.0).contains(m)));
        assert!(all[25..].iter().all(|m| (10.0..20.0).contains(m)));
        assert!(all.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn a_seed_gives_javas_sequence() {
        let mut schedule = Schedule::new(JavaRandom::new(7), 0);
        // One moment per 1 s window: 0 + first nextDouble of Random(7), then 1 + the second.
        assert_eq!(schedule.next(1.0, 1, 1), Some(0.7306990420600421));
        assert_eq!(schedule.next(1.0, 1, 1), Some(1.0 + 0.7491696031336331));
    }

    #[test]
    fn batches_share_a_moment() {
        let mut schedule = Schedule::new(JavaRandom::new(3), 0);
        // 4/s in batches of 2: 2 moments per 1 s window, each used twice.
        let all = moments(&mut schedule, 4.0, 1, 2, 8);
        assert_eq!(all[0], all[1]);
        assert_eq!(all[2], all[3]);
        assert_ne!(all[1], all[2]);
        assert!(all[..4].iter().all(|m| *m < 1.0));
        assert!(all[4..].iter().all(|m| (1.0..2.0).contains(m)));
    }

    #[test]
    fn a_new_rate_draws_a_new_window_after_the_current_one() {
        let mut schedule = Schedule::new(JavaRandom::new(5), 0);
        let first = schedule.next(10.0, 2, 1).unwrap();
        assert!(first < 2.0);
        let after_change = schedule.next(1.0, 2, 1).unwrap();
        assert!((2.0..4.0).contains(&after_change));
    }

    #[test]
    fn a_rate_of_zero_has_nothing_to_schedule() {
        let mut schedule = Schedule::new(JavaRandom::new(5), 0);
        assert_eq!(schedule.next(0.0, 10, 1), None);
    }
}
