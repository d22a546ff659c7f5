//! The wall clock as samples are stamped: the monotonic clock plus an offset to the
//! system clock, so every stamp (sample starts, timers' schedules, the UDP receiver's
//! arrival times) lies on one time line whatever thread takes it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long one pairing of the monotonic and the wall clock is used.
const WALL_CLOCK_REFRESH_NANOS: u64 = 5_000_000_000;

/// The wall clock as the monotonic clock plus an offset, shared by every thread so
/// stamps taken on different threads agree.
struct WallClock {
    origin: Instant,
    /// The wall clock at `origin`, in nanoseconds since the epoch, as of the latest pairing.
    origin_nanos: AtomicU64,
    /// When the latest pairing was taken, in nanoseconds after `origin`.
    paired_at: AtomicU64,
}

static WALL_CLOCK: OnceLock<WallClock> = OnceLock::new();

/// `instant` on the wall clock, in milliseconds since the epoch. As JMeter 5 stamps
/// samples (`sampleresult.useNanoTime`), the time comes from the monotonic clock plus an
/// offset to the wall clock taken again every 5 seconds: one clock read per stamp, and
/// a step of the wall clock reaches the stamps within those seconds.
pub fn wall_clock_ms_at(instant: Instant) -> i64 {
    let clock = WALL_CLOCK.get_or_init(|| WallClock {
        origin: Instant::now(),
        origin_nanos: AtomicU64::new(wall_clock_nanos()),
        paired_at: AtomicU64::new(0),
    });
    let mut origin_nanos = clock.origin_nanos.load(Ordering::Relaxed);
    let nanos = match instant.checked_duration_since(clock.origin) {
        Some(since) => {
            let since = nanos_u64(since);
            let paired_at = clock.paired_at.load(Ordering::Relaxed);
            if since.saturating_sub(paired_at) >= WALL_CLOCK_REFRESH_NANOS {
                // Threads that refresh at once store nearly equal pairings; either does.
                let now = nanos_u64(clock.origin.elapsed());
                origin_nanos = wall_clock_nanos().saturating_sub(now);
                clock.origin_nanos.store(origin_nanos, Ordering::Relaxed);
                clock.paired_at.store(now, Ordering::Relaxed);
            }
            origin_nanos.saturating_add(since)
        }
        None => origin_nanos.saturating_sub(nanos_u64(clock.origin.duration_since(instant))),
    };
    i64::try_from(nanos / 1_000_000).unwrap_or(i64::MAX)
}

/// Nanoseconds since the epoch by the system clock (64 bits last until 2554).
fn wall_clock_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, nanos_u64)
}

fn nanos_u64(duration: Duration) -> u64 {
    let nanos = duration.as_secs().saturating_mul(1_000_000_000);
    nanos.saturating_add(u64::from(duration.subsec_nanos()))
}

/// Milliseconds since the epoch by the wall clock (0 if the clock is before 1970), on
/// the same time line as the samples' stamps ([`wall_clock_ms_at`]).
pub fn wall_clock_ms() -> i64 {
    wall_clock_ms_at(Instant::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_from_the_monotonic_clock_agree_with_the_wall_clock() {
        let wall_ms = || i64::try_from(wall_clock_nanos() / 1_000_000).unwrap();
        let earlier = Instant::now();
        std::thread::sleep(Duration::from_millis(20));
        // Bracketed by wall-clock readings, so that a busy machine pausing this thread
        // between the calls widens the window instead of failing the test.
        let wall_before = wall_ms();
        let now = Instant::now();
        let wall_after = wall_ms();
        let stamp = wall_clock_ms_at(now);
        assert!(
            (wall_before - 2..=wall_after + 2).contains(&stamp),
            "{wall_before} {stamp} {wall_after}"
        );
        // An instant before the pairing is placed before it, not at it.
        let before = wall_clock_ms_at(earlier);
        let slept = i64::try_from((now - earlier).as_millis()).unwrap();
        assert!(
            (stamp - before - slept).abs() <= 2,
            "{before} {stamp} {slept}"
        );
        let later = now + Duration::from_millis(1500);
        assert_eq!(wall_clock_ms_at(later) - stamp, 1500);
    }
}
