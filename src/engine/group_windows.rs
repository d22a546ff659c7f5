//! When each user of a schedule-driven plugin thread group runs: jmeter-plugins'
//! Ultimate and Stepping Thread Groups create all their users when the group starts and
//! give each its own start and end time (ms after the group's start). A user waits for
//! its start, then stops as a scheduled Thread Group user does at its end: before the
//! next sampler once the end has passed, or at once when a timer would overrun it.
//!
//! The arithmetic is the plugins' own, integer divisions and all, so the users start and
//! stop on the same milliseconds as under JMeter.

use crate::plan::context::{plugin_chunks, plugin_seconds};

/// When one user starts and stops, ms after its group started (`end_ms` `None`: no end,
/// as in a Thread Group without scheduler). `start_ms` may be negative or past `end_ms`,
/// as the plugins' arithmetic allows: the user then starts at once, or never.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserWindow {
    pub start_ms: i64,
    pub end_ms: Option<i64>,
}

/// One row of an Ultimate Thread Group, as evaluated at the group's start (seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UltimateRow {
    pub threads: i64,
    pub initial_delay: i64,
    pub startup: i64,
    pub hold: i64,
    pub shutdown: i64,
}

/// The users of an Ultimate Thread Group, row after row. Within a row of N users the
/// first one created gets the whole startup time and the last one a 1/N share of it (the
/// plugin counts the users still to schedule down from N), and likewise for shutdown:
/// every user of a row holds until the row's common descent point plus its share of the
/// shutdown time. Rows of no users add none (the plugin mis-assigns users after such a
/// row; jmxr skips it).
pub fn ultimate(rows: &[UltimateRow]) -> Vec<UserWindow> {
    let mut users = Vec::new();
    for row in rows.iter().filter(|row| row.threads > 0) {
        let ascent = 1000 * row.initial_delay;
        for to_schedule in (1..=row.threads).rev() {
            let share = |seconds: i64| {
                (1000.0 * seconds as f64 * to_schedule as f64 / row.threads as f64).floor() as i64
            };
            let ramp_delay = share(row.startup);
            let start_ms = ascent + ramp_delay;
            let descent = start_ms + 1000 * row.hold + 1000 * row.startup - ramp_delay;
            users.push(UserWindow {
                start_ms,
                end_ms: Some(descent + share(row.shutdown)),
            });
        }
    }
    users
}

/// The Stepping Thread Group's settings as evaluated at the group's start (seconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stepping {
    pub threads: i64,
    pub initial_delay: i64,
    pub start_count: i64,
    pub start_burst: i64,
    pub start_period: i64,
    pub ramp_up: i64,
    pub hold: i64,
    pub stop_count: i64,
    pub stop_period: i64,
}

/// The users of a Stepping Thread Group: a first burst, then a step of `start_count`
/// users every `start_period + ramp_up` seconds, each step spread over `ramp_up`; the
/// hold starts after the last step's ramp; then `stop_count` users stop every
/// `stop_period` seconds, in creation order.
pub fn stepping(s: &Stepping) -> Vec<UserWindow> {
    let total = s.threads;
    if total <= 0 {
        return Vec::new();
    }
    let step = if s.start_count == 0 {
        total
    } else {
        s.start_count
    };
    let stop_step = if s.stop_count == 0 {
        total
    } else {
        s.stop_count
    };
    let mut burst = s.start_burst.min(total);
    if burst <= 0 {
        burst = step;
    }
    let ascent = 1000 * s.initial_delay;
    let ramp_ms = 1000 * s.ramp_up;
    let step_duration = 1000 * s.start_period + ramp_ms;
    let steps_after_burst = if total < burst {
        1
    } else {
        ((total - burst) as f64 / step as f64).ceil() as i64
    };
    let mut last_step_users = (total - burst) % step;
    if last_step_users == 0 {
        last_step_users = step;
    }
    let descent = ascent
        + steps_after_burst * step_duration
        + ramp_ms / step * last_step_users
        + 1000 * s.hold;
    (0..total)
        .map(|k| {
            let (bucket, bucket_users, position) = if k < burst {
                (0, burst, k)
            } else {
                (1 + (k - burst) / step, step, (k - burst) % step)
            };
            let start_ms = ascent + bucket * step_duration + position * (ramp_ms / bucket_users);
            let end_ms = descent + 1000 * s.stop_period * (k / stop_step);
            UserWindow {
                start_ms,
                end_ms: Some(end_ms),
            }
        })
        .collect()
}

/// The rows of the JMeter property `threads_schedule`, which replaces every Ultimate
/// Thread Group's table: `spawn(threads, initial delay, startup, hold, shutdown)`
/// chunks, durations in seconds or with `s`, `m`, `h`, `d` parts (`1h30m`). A chunk that
/// does not read is left out, as the plugin leaves it out; its text is returned with
/// the reason, for a warning.
pub fn threads_schedule(text: &str) -> (Vec<UltimateRow>, Vec<String>) {
    plugin_chunks(text, spawn_chunk)
}

fn spawn_chunk(parts: &[&str]) -> Result<Vec<UltimateRow>, String> {
    let kind = parts[0].trim();
    if !kind.eq_ignore_ascii_case("spawn") {
        return Err(format!("unknown load type {kind:?}"));
    }
    let field = |i: usize| parts.get(i).copied().ok_or("fewer than five values");
    let threads = field(1)?.trim().parse::<i64>().map_err(|e| e.to_string())?;
    Ok(vec![UltimateRow {
        threads,
        initial_delay: plugin_seconds(field(2)?)?,
        startup: plugin_seconds(field(3)?)?,
        hold: plugin_seconds(field(4)?)?,
        shutdown: plugin_seconds(field(5)?)?,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(start_ms: i64, end_ms: i64) -> UserWindow {
        UserWindow {
            start_ms,
            end_ms: Some(end_ms),
        }
    }

    #[test]
    fn ultimate_rows_start_their_first_user_last() {
        let rows = [
            UltimateRow {
                threads: 4,
                initial_delay: 1,
                startup: 2,
                hold: 3,
                shutdown: 4,
            },
            UltimateRow {
                threads: 0,
                initial_delay: 0,
                startup: 0,
                hold: 9,
                shutdown: 0,
            },
            UltimateRow {
                threads: 1,
                initial_delay: 0,
                startup: 0,
                hold: 5,
                shutdown: 0,
            },
        ];
        assert_eq!(
            ultimate(&rows),
            [
                // ascent 1 s, descent 1 + 2 + 3 = 6 s; shares of 4/4 .. 1/4.
                window(3000, 10_000),
                window(2500, 9000),
                window(2000, 8000),
                window(1500, 7000),
                window(0, 5000),
            ]
        );
    }

    #[test]
    fn ultimate_shares_round_down() {
        let rows = [UltimateRow {
            threads: 3,
            initial_delay: 0,
            startup: 1,
            hold: 0,
            shutdown: 1,
        }];
        let starts: Vec<i64> = ultimate(&rows).iter().map(|w| w.start_ms).collect();
        assert_eq!(starts, [1000, 666, 333]);
        let ends: Vec<i64> = ultimate(&rows).iter().filter_map(|w| w.end_ms).collect();
        assert_eq!(ends, [2000, 1666, 1333]);
    }

    #[test]
    fn stepping_as_in_the_plugins_example() {
        // 50 users, 5 every 5 s each step spread over 2 s, stopped 25 every 5 s.
        let users = stepping(&Stepping {
            threads: 50,
            start_count: 5,
            start_period: 5,
            ramp_up: 2,
            stop_count: 25,
            stop_period: 5,
            ..Stepping::default()
        });
        assert_eq!(users.len(), 50);
        assert_eq!(users[0], window(0, 65_000));
        assert_eq!(users[1], window(400, 65_000));
        assert_eq!(users[5], window(7000, 65_000));
        assert_eq!(users[24], window(29_600, 65_000));
        assert_eq!(users[25], window(35_000, 70_000));
        assert_eq!(users[49], window(64_600, 70_000));
    }

    #[test]
    fn stepping_burst_delay_and_defaults() {
        // A burst of 3 at once after 10 s, then steps of 2 with no ramp; all stop together.
        let users = stepping(&Stepping {
            threads: 6,
            initial_delay: 10,
            start_burst: 3,
            start_count: 2,
            start_period: 4,
            hold: 1,
            ..Stepping::default()
        });
        let starts: Vec<i64> = users.iter().map(|w| w.start_ms).collect();
        assert_eq!(starts, [10_000, 10_000, 10_000, 14_000, 14_000, 18_000]);
        // Two steps after the burst (3 users left in steps of 2), then a 1 s hold.
        assert!(users
            .iter()
            .all(|w| w.end_ms == Some(10_000 + 2 * 4000 + 1000)));
        assert!(stepping(&Stepping::default()).is_empty());
    }

    #[test]
    fn threads_schedule_reads_spawn_chunks() {
        let (rows, ignored) =
            threads_schedule("spawn(10,0s,30s,1m,10s) spawn(2, 1h30m, 5, 2d, 0) ramp(1,2,3,4,5)");
        assert_eq!(
            rows,
            [
                UltimateRow {
                    threads: 10,
                    initial_delay: 0,
                    startup: 30,
                    hold: 60,
                    shutdown: 10
                },
                UltimateRow {
                    threads: 2,
                    initial_delay: 5400,
                    startup: 5,
                    hold: 172_800,
                    shutdown: 0
                },
            ]
        );
        assert_eq!(ignored.len(), 1);
        assert!(ignored[0].contains("ramp"), "{ignored:?}");
        let (rows, ignored) = threads_schedule("spawn(1,0,5x,0,0)");
        assert!(rows.is_empty());
        assert!(ignored[0].contains("not a time unit"), "{ignored:?}");
    }
}
