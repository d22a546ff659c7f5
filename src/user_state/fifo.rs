//! The named FIFO queues of the jp@gc Inter-Thread Communication plugin: one set per
//! run, shared by every user, as the plugin's JVM-wide `FifoMap` is shared by every
//! thread (the plugin empties it when a test starts, so a fresh set per run is the
//! same thing).
//!
//! The pre- and post-processors (`plan::fifo`) and the `__fifo*` functions
//! (`expr::functions`) read and change these queues. A queue is created on first
//! use under its name. A pop waits for a value up to a timeout; a stop of the run
//! releases every waiting pop (`RunShared` calls [`FifoMap::interrupt`]), as JMeter's
//! stop interrupts the threads blocked in the plugin's `poll`.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// What a pop found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Popped {
    Value(String),
    /// The queue stayed empty until the timeout (the plugin's `null`).
    TimedOut,
    /// The run stopped while the pop waited (the plugin's `InterruptedException`).
    Interrupted,
}

#[derive(Debug, Default)]
struct Queue {
    items: Mutex<VecDeque<String>>,
    /// Wakes one waiting pop per value put.
    available: Notify,
}

/// The run's named queues.
#[derive(Debug, Default)]
pub struct FifoMap {
    queues: Mutex<HashMap<String, Arc<Queue>>>,
    stopped: CancellationToken,
}

impl FifoMap {
    fn queue(&self, name: &str) -> Arc<Queue> {
        self.queues
            .lock()
            .entry(name.to_string())
            .or_default()
            .clone()
    }

    /// Appends `value` to the queue `name`. Queues have no capacity limit.
    pub fn put(&self, name: &str, value: String) {
        let queue = self.queue(name);
        queue.items.lock().push_back(value);
        queue.available.notify_one();
    }

    /// Takes the oldest value without waiting.
    pub fn try_pop(&self, name: &str) -> Option<String> {
        self.queue(name).items.lock().pop_front()
    }

    /// Takes the oldest value, waiting up to `timeout` (`None`: without limit) for one
    /// to be put. A zero timeout does not wait.
    pub async fn pop(&self, name: &str, timeout: Option<Duration>) -> Popped {
        let queue = self.queue(name);
        let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
        loop {
            let notified = queue.available.notified();
            tokio::pin!(notified);
            // Registered before looking, so a value put in between still wakes us.
            notified.as_mut().enable();
            if let Some(value) = queue.items.lock().pop_front() {
                return Popped::Value(value);
            }
            if self.stopped.is_cancelled() {
                return Popped::Interrupted;
            }
            let expired = async {
                match deadline {
                    Some(deadline) => tokio::time::sleep_until(deadline).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = &mut notified => {}
                _ = expired => {
                    return match queue.items.lock().pop_front() {
                        Some(value) => Popped::Value(value),
                        None => Popped::TimedOut,
                    };
                }
                _ = self.stopped.cancelled() => return Popped::Interrupted,
            }
        }
    }

    /// The oldest value without taking it (`__fifoGet`).
    pub fn peek(&self, name: &str) -> Option<String> {
        self.queue(name).items.lock().front().cloned()
    }

    /// How many values the queue holds.
    pub fn len(&self, name: &str) -> usize {
        self.queue(name).items.lock().len()
    }

    /// Releases every pop waiting now or later: the run is stopping.
    pub fn interrupt(&self) {
        self.stopped.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn values_come_out_in_the_order_they_went_in() {
        let fifo = FifoMap::default();
        fifo.put("q", "a".into());
        fifo.put("q", "b".into());
        fifo.put("other", "c".into());
        assert_eq!(fifo.len("q"), 2);
        assert_eq!(fifo.peek("q").as_deref(), Some("a"));
        assert_eq!(fifo.pop("q", None).await, Popped::Value("a".into()));
        assert_eq!(fifo.try_pop("q").as_deref(), Some("b"));
        assert_eq!(fifo.try_pop("q"), None);
        assert_eq!(fifo.len("other"), 1);
    }

    #[tokio::test]
    async fn a_pop_waits_for_a_put_until_its_timeout() {
        let fifo = Arc::new(FifoMap::default());
        let putter = fifo.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            putter.put("q", "late".into());
        });
        assert_eq!(
            fifo.pop("q", Some(Duration::from_secs(30))).await,
            Popped::Value("late".into())
        );
        let started = std::time::Instant::now();
        assert_eq!(
            fifo.pop("q", Some(Duration::from_millis(100))).await,
            Popped::TimedOut
        );
        assert!(started.elapsed() >= Duration::from_millis(100));
        assert_eq!(fifo.pop("q", Some(Duration::ZERO)).await, Popped::TimedOut);
    }

    #[tokio::test]
    async fn a_stop_releases_a_waiting_pop() {
        let fifo = Arc::new(FifoMap::default());
        let stopper = fifo.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            stopper.interrupt();
        });
        assert_eq!(fifo.pop("q", None).await, Popped::Interrupted);
    }
}
