//! Sleeps with sub-millisecond precision for every virtual user.
//!
//! Tokio's timer wheel has a 1 ms tick and rounds deadlines up, so a 10 ms pause lasts
//! 10–11 ms and a user paced by timers runs several percent slow. JMeter's threads sleep
//! with the OS's precision. One thread here keeps every pending deadline in a heap and
//! waits on a condition variable until the earliest (the kernel wakes it within tens of
//! microseconds), then wakes the tasks that are due. Waking 10,000 users per second costs
//! that thread little.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Instant;

use tokio::sync::oneshot;

struct Pending {
    deadline: Instant,
    order: u64,
    wake: oneshot::Sender<()>,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        (self.deadline, self.order) == (other.deadline, other.order)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.deadline, self.order).cmp(&(other.deadline, other.order))
    }
}

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Reverse<Pending>>,
    next_order: u64,
}

struct Shared {
    queue: Mutex<Queue>,
    changed: Condvar,
}

fn shared() -> &'static Arc<Shared> {
    static SHARED: OnceLock<Arc<Shared>> = OnceLock::new();
    SHARED.get_or_init(|| {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            changed: Condvar::new(),
        });
        let worker = shared.clone();
        std::thread::Builder::new()
            .name("jmxr-timers".into())
            .spawn(move || run(&worker))
            .expect("the timer thread starts");
        shared
    })
}

/// The timer thread: wake everything due, then wait for the next deadline or a new one.
fn run(shared: &Shared) {
    let mut queue = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        let now = Instant::now();
        while queue
            .heap
            .peek()
            .is_some_and(|Reverse(next)| next.deadline <= now)
        {
            if let Some(Reverse(due)) = queue.heap.pop() {
                // The sleeper may have gone (its pause was cut short): nothing to do.
                let _ = due.wake.send(());
            }
        }
        queue = match queue.heap.peek() {
            Some(Reverse(next)) => {
                let wait = next.deadline.saturating_duration_since(now);
                shared
                    .changed
                    .wait_timeout(queue, wait)
                    .unwrap_or_else(|p| p.into_inner())
                    .0
            }
            None => shared
                .changed
                .wait(queue)
                .unwrap_or_else(|p| p.into_inner()),
        };
    }
}

/// Completes at `deadline`, within the OS's wake-up precision.
pub async fn sleep_until(deadline: Instant) {
    if deadline <= Instant::now() {
        return;
    }
    let (wake, woken) = oneshot::channel();
    let shared = shared();
    {
        let mut queue = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
        let order = queue.next_order;
        queue.next_order += 1;
        let earliest = queue
            .heap
            .peek()
            .is_none_or(|Reverse(next)| deadline < next.deadline);
        queue.heap.push(Reverse(Pending {
            deadline,
            order,
            wake,
        }));
        if earliest {
            shared.changed.notify_one();
        }
    }
    let _ = woken.await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn wakes_in_order_and_on_time() {
        let start = Instant::now();
        let late = tokio::spawn(sleep_until(start + Duration::from_millis(30)));
        sleep_until(start + Duration::from_millis(10)).await;
        let first = start.elapsed();
        late.await.unwrap();
        let second = start.elapsed();
        assert!(first >= Duration::from_millis(10) && first < Duration::from_millis(25));
        assert!(second >= Duration::from_millis(30));
    }

    #[tokio::test]
    async fn a_past_deadline_returns_at_once() {
        sleep_until(Instant::now() - Duration::from_millis(5)).await;
    }
}
