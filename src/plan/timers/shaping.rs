//! jmeter-plugins Throughput Shaping Timer (`kg.apc.jmeter.timers.VariableThroughputTimer`):
//! one throttle shared by every user in its scope that makes the samples follow a load
//! profile of requests per second, then stops those users when the profile ends.
//!
//! The profile is a table of rows (start RPS, end RPS, duration in seconds), the rate
//! moving linearly within a row; second 0 is the wall-clock second in which the first
//! sample reached the timer, and the rate of each second is the profile's value at its
//! start. Within a second of rate R the k-th sample (from 0) goes no earlier than
//! k × 1000 / R ms into it, as the plugin counts: a second's count starts again at 0, so
//! samples missed for want of threads are not made up later.
//!
//! The plugin parks waiting threads and lets them poll; here a sample books the next
//! free place in the current or a later second (whose rate the profile already knows)
//! and its user sleeps until then, which releases the same samples at the same moments
//! without polling. A user whose next place would lie past the end of the profile stops,
//! as the plugin stops the thread groups then. The JMeter property `load_profile`
//! (`const(...)`, `line(...)`, `step(...)` chunks) replaces the table, as in the plugin.
//!
//! At the first sample of each second the timer publishes, as the plugin does, the
//! properties `<name>_rps` (the new second's rate), `<name>_cntSent` (samples it let go
//! in the second that ended) and `<name>_cntDelayed` (users waiting in it), which the
//! `__tstFeedback` function turns into a Concurrency Thread Group's level.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use crate::plan::context::{plugin_chunks, plugin_seconds};
use crate::plan::{BuildContext, Setting, Timer};
use crate::user_state::EvalContext;
use crate::user_state::UserState;

/// A row with its values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub start_rps: f64,
    pub end_rps: f64,
    pub duration_s: i64,
}

pub struct ThroughputShapingTimer {
    name: String,
    /// Start RPS, end RPS and duration (s) of each row, as the plan gives them.
    rows: Vec<[Setting; 3]>,
    /// The `load_profile` property's rows, which replace the table.
    override_rows: Option<Vec<Rate>>,
    warned_short_of_users: AtomicBool,
    /// The booking state every user in scope shares (a plan is built for one run).
    bookings: Mutex<Option<Booking>>,
}

struct Booking {
    profile: Vec<Rate>,
    /// Second 0 of the profile, epoch ms.
    origin_ms: i64,
    /// The second being booked, epoch ms, its rate (`None` past the profile) and the
    /// places taken in it.
    second_ms: i64,
    rps: Option<f64>,
    taken: u64,
    /// Set when a second with a rate began with no sample booked in it: every user was
    /// busy (the plugin's "No free threads available" warning).
    short_of_users: bool,
    /// Places booked per second (epoch ms), for the seconds not yet published.
    booked: BTreeMap<i64, u64>,
    /// When each waiting user's place comes, epoch ms.
    wakes: BinaryHeap<Reverse<i64>>,
    /// The latest second whose feedback was published, epoch ms.
    published_ms: Option<i64>,
}

/// What the timer publishes at the start of a second, for `__tstFeedback`.
#[derive(Debug, PartialEq)]
struct Feedback {
    rps: f64,
    sent: u64,
    delayed: usize,
}

/// What a sample gets from the throttle.
#[derive(Debug, PartialEq)]
enum Place {
    /// Go after this many ms.
    After(i64),
    /// The profile is over: the user stops.
    Ended,
}

/// How far ahead one booking may look for a second with room (a profile of zero rates
/// for longer stops the user, as the end of the profile would).
const MAX_SECONDS_AHEAD: i64 = 86_400;

impl ThroughputShapingTimer {
    pub fn build(cx: &mut BuildContext<'_>) -> ThroughputShapingTimer {
        let rows = cx.setting_table("load_profile");
        let override_rows = match cx.properties.get("load_profile") {
            Some(text) if !text.is_empty() => {
                let (rows, ignored) = load_profile(text);
                for chunk in ignored {
                    cx.warn(format!("load_profile chunk {chunk} is ignored"));
                }
                Some(rows)
            }
            _ => None,
        };
        ThroughputShapingTimer {
            name: cx.element.name.clone(),
            rows,
            override_rows,
            warned_short_of_users: AtomicBool::new(false),
            bookings: Mutex::new(None),
        }
    }

    /// The schedule, each rate divided among shards when the run is one.
    fn profile(&self, user: &mut UserState) -> Vec<Rate> {
        let shard = user.run.shard;
        let divide = |rate: Rate| Rate {
            start_rps: crate::foundation::shard::shard_rate(shard, rate.start_rps),
            end_rps: crate::foundation::shard::shard_rate(shard, rate.end_rps),
            duration_s: rate.duration_s,
        };
        if let Some(rows) = &self.override_rows {
            return rows.iter().copied().map(divide).collect();
        }
        let mut cx = user.eval(&self.name);
        self.rows
            .iter()
            .map(|[start_rps, end_rps, duration]| Rate {
                start_rps: start_rps.f64(&mut cx),
                end_rps: end_rps.f64(&mut cx),
                duration_s: duration.i64(&mut cx),
            })
            .map(divide)
            .collect()
    }
}

impl Timer for ThroughputShapingTimer {
    fn delay_ms(&self, _cx: &mut EvalContext<'_>) -> i64 {
        // Only reached without a user (never by the engine): no throttle to book in.
        0
    }

    fn delay_for(&self, user: &mut UserState, _sampler_name: &str) -> i64 {
        let now = crate::foundation::clock::wall_clock_ms();
        let (place, short_of_users, feedback) = {
            let mut state = self.bookings.lock();
            let booking = match state.as_mut() {
                Some(booking) => booking,
                None => state.insert(Booking::start(self.profile(user), now)),
            };
            let feedback = booking.feedback(now);
            (
                booking.place(now),
                std::mem::take(&mut booking.short_of_users),
                feedback,
            )
        };
        if let Some(feedback) = feedback {
            let props = &user.run.props;
            let name = &self.name;
            props.set(format!("{name}_cntDelayed"), feedback.delayed.to_string());
            props.set(format!("{name}_cntSent"), feedback.sent.to_string());
            // As Java prints a double: `20.0`, `15.671562`.
            props.set(format!("{name}_rps"), format!("{:?}", feedback.rps));
        }
        if short_of_users && !self.warned_short_of_users.swap(true, Ordering::Relaxed) {
            crate::runlog::warn(&format!(
                "{}: a second of the load profile began with every user busy, so its rate \
                 may not be reached; give the thread group more threads",
                self.name
            ));
        }
        match place {
            Place::After(ms) => ms,
            Place::Ended => {
                user.stop_thread = true;
                0
            }
        }
    }
}

impl Booking {
    fn start(profile: Vec<Rate>, now_ms: i64) -> Booking {
        let origin_ms = now_ms - now_ms.rem_euclid(1000);
        Booking {
            rps: rps_at(&profile, 0.0),
            profile,
            origin_ms,
            second_ms: origin_ms,
            taken: 0,
            short_of_users: false,
            booked: BTreeMap::new(),
            wakes: BinaryHeap::new(),
            published_ms: None,
        }
    }

    /// The feedback of the second `now_ms` is in, the first time it is asked for.
    fn feedback(&mut self, now_ms: i64) -> Option<Feedback> {
        let current = now_ms - now_ms.rem_euclid(1000);
        if self
            .published_ms
            .is_some_and(|published| published >= current)
        {
            return None;
        }
        self.published_ms = Some(current);
        while self.wakes.peek().is_some_and(|Reverse(at)| *at <= now_ms) {
            self.wakes.pop();
        }
        let sent = self.booked.get(&(current - 1000)).copied().unwrap_or(0);
        self.booked = self.booked.split_off(&current);
        let elapsed = (current - self.origin_ms) as f64 / 1000.0;
        Some(Feedback {
            rps: rps_at(&self.profile, elapsed).unwrap_or(0.0),
            sent,
            delayed: self.wakes.len(),
        })
    }

    fn move_to(&mut self, second_ms: i64) {
        self.second_ms = second_ms;
        self.taken = 0;
        let elapsed = (second_ms - self.origin_ms) as f64 / 1000.0;
        self.rps = rps_at(&self.profile, elapsed);
    }

    /// Books the next free place at or after `now_ms`.
    fn place(&mut self, now_ms: i64) -> Place {
        let current = now_ms - now_ms.rem_euclid(1000);
        if self.second_ms < current {
            self.move_to(current);
            if self.rps.is_some_and(|rps| rps > 0.0) {
                self.short_of_users = true;
            }
        }
        for _ in 0..MAX_SECONDS_AHEAD {
            let Some(rps) = self.rps else {
                return Place::Ended;
            };
            if rps > 0.0 {
                let offset = self.taken as f64 * 1000.0 / rps;
                if offset < 1000.0 {
                    self.taken += 1;
                    *self.booked.entry(self.second_ms).or_insert(0) += 1;
                    let at = self.second_ms + offset.ceil() as i64;
                    if at > now_ms {
                        self.wakes.push(Reverse(at));
                    }
                    return Place::After((at - now_ms).max(0));
                }
            }
            self.move_to(self.second_ms + 1000);
        }
        Place::Ended
    }
}

/// The rate `elapsed_s` seconds into the profile (the plugin's `getRPSForSecond`);
/// `None` past its end or where it is negative.
fn rps_at(profile: &[Rate], elapsed_s: f64) -> Option<f64> {
    let mut left = elapsed_s;
    for row in profile {
        let duration = row.duration_s as f64;
        if left - duration <= 0.0 {
            let rps = row.start_rps + left * (row.end_rps - row.start_rps) / duration;
            // A row of 0 s at its own start gives 0/0 in the plugin too; it then lets one
            // sample through. Here it has no room.
            let rps = if rps.is_nan() { 0.0 } else { rps };
            return (rps >= 0.0).then_some(rps);
        }
        left -= duration;
    }
    None
}

/// The rows of the `load_profile` property: `const(rps, duration)`,
/// `line(from, to, duration)` and `step(from, to, increment, duration)` (one constant row
/// per step) chunks, durations in the plugins' short form. Chunks that do not read are
/// left out, as the plugin leaves them out, and returned with the reason.
pub fn load_profile(text: &str) -> (Vec<Rate>, Vec<String>) {
    plugin_chunks(text, profile_chunk)
}

fn profile_chunk(parts: &[&str]) -> Result<Vec<Rate>, String> {
    let field = |i: usize| parts.get(i).copied().ok_or("too few values");
    let int = |i: usize| -> Result<i64, String> {
        let text = field(i)?.trim();
        text.parse::<i32>()
            .map(i64::from)
            .map_err(|_| format!("{text:?} is not a whole number"))
    };
    let constant = |rps: i64, duration_s: i64| Rate {
        start_rps: rps as f64,
        end_rps: rps as f64,
        duration_s,
    };
    let kind = parts[0].trim();
    match kind.to_ascii_lowercase().as_str() {
        "const" => Ok(vec![constant(int(1)?, plugin_seconds(field(2)?)?)]),
        "line" => Ok(vec![Rate {
            start_rps: int(1)? as f64,
            end_rps: int(2)? as f64,
            duration_s: plugin_seconds(field(3)?)?,
        }]),
        "step" => {
            let (from, to) = (int(1)?, int(2)?);
            let increment = int(3)? * if from > to { -1 } else { 1 };
            let duration_s = plugin_seconds(field(4)?)?;
            if increment == 0 {
                return Err("an increment of 0 never reaches the end".to_string());
            }
            let mut rows = Vec::new();
            let mut rps = from;
            while if increment > 0 { rps <= to } else { rps > to } {
                rows.push(constant(rps, duration_s));
                rps += increment;
            }
            Ok(rows)
        }
        _ => Err(format!("unknown load type {kind:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(start_rps: f64, end_rps: f64, duration_s: i64) -> Rate {
        Rate {
            start_rps,
            end_rps,
            duration_s,
        }
    }

    #[test]
    fn the_rate_moves_linearly_within_a_row_and_ends_with_the_profile() {
        let profile = [rate(0.0, 10.0, 10), rate(10.0, 10.0, 5)];
        assert_eq!(rps_at(&profile, 0.0), Some(0.0));
        assert_eq!(rps_at(&profile, 4.0), Some(4.0));
        assert_eq!(rps_at(&profile, 10.0), Some(10.0));
        assert_eq!(rps_at(&profile, 15.0), Some(10.0));
        assert_eq!(rps_at(&profile, 15.5), None);
        assert_eq!(rps_at(&[], 0.0), None);
        assert_eq!(rps_at(&[rate(-1.0, -1.0, 5)], 1.0), None);
    }

    #[test]
    fn places_are_spaced_within_a_second_and_spill_into_the_next() {
        // 4 per second from 12:00:00.000; the users arrive together at .250.
        let base = 1_700_000_000_000;
        let mut booking = Booking::start(vec![rate(4.0, 4.0, 2)], base + 250);
        let places: Vec<Place> = (0..6).map(|_| booking.place(base + 250)).collect();
        assert_eq!(
            places,
            [
                Place::After(0),
                Place::After(0),
                Place::After(250),
                Place::After(500),
                Place::After(750),
                Place::After(1000),
            ]
        );
        assert!(
            !booking.short_of_users,
            "second 1 was booked before it began"
        );
        // Late in a second with room left: at once (what was missed is not made up).
        assert_eq!(booking.place(base + 1900), Place::After(0));
        // Each second counts from 0 again; the profile's end (2 s) is a second of its own.
        assert_eq!(booking.place(base + 2000), Place::After(0));
        assert!(
            booking.short_of_users,
            "second 2 began with nobody waiting for it"
        );
        assert_eq!(booking.place(base + 2000), Place::After(250));
        // Past the profile: the users stop.
        assert_eq!(booking.place(base + 3000), Place::Ended);
    }

    #[test]
    fn each_second_publishes_its_rate_the_samples_let_go_and_the_users_waiting() {
        let base = 1_700_000_000_000;
        let mut booking = Booking::start(vec![rate(4.0, 4.0, 2), rate(6.0, 6.0, 1)], base + 100);
        assert_eq!(
            booking.feedback(base + 100),
            Some(Feedback {
                rps: 4.0,
                sent: 0,
                delayed: 0
            })
        );
        assert_eq!(booking.feedback(base + 900), None);
        // Six users arrive at once: places at +0, +250, +500, +750, then +1000, +1250.
        for _ in 0..6 {
            booking.place(base + 100);
        }
        // At +1100 the place at +1250 is still to come; four went in the first second.
        assert_eq!(
            booking.feedback(base + 1100),
            Some(Feedback {
                rps: 4.0,
                sent: 4,
                delayed: 1
            })
        );
        // Second 2 still has the first row's rate (a row's end is its own, as in the
        // plugin); second 3 the second row's.
        assert_eq!(
            booking.feedback(base + 2000),
            Some(Feedback {
                rps: 4.0,
                sent: 2,
                delayed: 0
            })
        );
        assert_eq!(
            booking.feedback(base + 3000),
            Some(Feedback {
                rps: 6.0,
                sent: 0,
                delayed: 0
            })
        );
    }

    #[test]
    fn seconds_without_room_are_skipped() {
        let base = 1_700_000_000_000;
        let mut booking = Booking::start(vec![rate(0.0, 0.0, 2), rate(2.0, 2.0, 1)], base);
        // Seconds 0, 1 and 2 (the first row's end) have a rate of 0.
        assert_eq!(booking.place(base), Place::After(3000));
        assert_eq!(booking.place(base), Place::After(3500));
        assert_eq!(booking.place(base), Place::Ended);
    }

    #[test]
    fn load_profile_reads_const_line_and_step() {
        let (rows, ignored) =
            load_profile("const(10,1m) line(10, 100, 1m30s) step(5,15,5,10) wave(1,2)");
        assert_eq!(
            rows,
            [
                rate(10.0, 10.0, 60),
                rate(10.0, 100.0, 90),
                rate(5.0, 5.0, 10),
                rate(10.0, 10.0, 10),
                rate(15.0, 15.0, 10),
            ]
        );
        assert_eq!(ignored.len(), 1);
        assert!(ignored[0].contains("wave"), "{ignored:?}");
        // Stepping down stops short of the lower bound, as the plugin's loop does.
        let (rows, _) = load_profile("step(15,5,5,1)");
        let starts: Vec<f64> = rows.iter().map(|r| r.start_rps).collect();
        assert_eq!(starts, [15.0, 10.0]);
    }
}
