//! Arrival-driven thread groups: the Open Model Thread Group and the bzm Arrivals and
//! Free-Form Arrivals Thread Groups. A starter follows the group's arrival times and
//! gives each arrival a user that runs one iteration, as `concurrency` does for the
//! Concurrency Thread Group's level.
//!
//! * Open Model (JMeter's `OpenModelThreadGroup`): a new user per arrival, named on
//!   from `Group 1-1`, each ending after its iteration or at the end of the schedule.
//!   With `concurrency(N)` in the schedule an arrival waits for a free user (counted as
//!   delayed) and is dropped when the schedule ends first, as JMeter's `ConcurrencyGate`.
//! * bzm Arrivals: users wait in a pool between arrivals; an arrival wakes a waiting
//!   user, else starts a new one while fewer than `ConcurrencyLimit` are busy, else it
//!   is dropped (the plugin only logs it; jmxr counts it). When the schedule ends,
//!   waiting users leave, and busy ones stop before their next sampler once every
//!   scheduled arrival has begun.
//!
//! Every arrival knows when it was meant to start: the user records how late it began
//! ([`ArrivalTally`]), and the run reports late, delayed and dropped arrivals at the end
//! rather than silently shifting the schedule.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::{oneshot, Notify};
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::scheduler::{self, GroupError};
use crate::plan::arrivals::ArrivalsProfile;
use crate::plan::open_model::{self, Arrivals};
use crate::plan::{ArrivalsSettings, OpenModelSettings, ThreadGroup};
use crate::results::ResultsBus;
use crate::user_state::{EvalContext, RunShared, Variables};

/// An arrival that began more than this after its time counts as late (the starter's
/// timer resolution is about a millisecond).
const LATE_MS: u64 = 10;

/// Key of the run-wide list of end-of-run arrival reports (see `commands::run`).
pub const REPORTS_KEY: &str = "jmxr.arrivals.reports";

/// The end-of-run lines of every arrival-driven group, in the order they ended.
pub type Reports = Mutex<Vec<String>>;

/// What happened to one group's arrivals.
#[derive(Default)]
pub struct ArrivalTally {
    pub scheduled: AtomicU64,
    /// Arrivals a user began.
    pub started: AtomicU64,
    /// Began more than [`LATE_MS`] after their time.
    pub late: AtomicU64,
    /// Waited for a free user under a concurrency limit (JMeter's delayed arrivals).
    pub delayed: AtomicU64,
    pub max_late_ms: AtomicU64,
    pub total_late_ms: AtomicU64,
}

impl ArrivalTally {
    /// A user begins the arrival meant for `intended`; returns how late (ms).
    pub fn began(&self, intended: Instant) -> i64 {
        self.started.fetch_add(1, Ordering::Relaxed);
        let late = Instant::now()
            .saturating_duration_since(intended)
            .as_millis() as u64;
        if late > LATE_MS {
            self.late.fetch_add(1, Ordering::Relaxed);
        }
        self.total_late_ms.fetch_add(late, Ordering::Relaxed);
        self.max_late_ms.fetch_max(late, Ordering::Relaxed);
        late as i64
    }

    fn report(&self, kind: &str, group: &str) -> String {
        let get = |n: &AtomicU64| n.load(Ordering::Relaxed);
        let started = get(&self.started);
        let mean = get(&self.total_late_ms).checked_div(started).unwrap_or(0);
        format!(
            "{kind} '{group}': {} arrivals scheduled, {started} started, {} late (>{LATE_MS} ms; mean {mean} ms, max {} ms behind), {} delayed for a free thread, {} dropped (never began)",
            get(&self.scheduled),
            get(&self.late),
            get(&self.max_late_ms),
            get(&self.delayed),
            // The limit was reached (Arrivals), the schedule ended before a user was
            // free or could start, or the test was stopped.
            get(&self.scheduled).saturating_sub(started),
        )
    }
}

fn publish(run: &RunShared, line: String) {
    crate::runlog::info(&line);
    if let Some(reports) = run.shared::<Reports>(REPORTS_KEY, Default::default) {
        reports.lock().push(line);
    }
}

/// Users busy at once, for a limit: the starter waits or drops when it is reached.
#[derive(Default)]
struct Busy {
    count: AtomicI64,
    freed: Notify,
}

impl Busy {
    fn add(&self) {
        self.count.fetch_add(1, Ordering::SeqCst);
    }
    fn release(&self) {
        self.count.fetch_sub(1, Ordering::SeqCst);
        self.freed.notify_one();
    }
    fn get(&self) -> i64 {
        self.count.load(Ordering::SeqCst)
    }
}

/// Runs an Open Model Thread Group to the end of its schedule.
pub(super) async fn open_model(
    group: &Arc<ThreadGroup>,
    settings: &OpenModelSettings,
    run: &Arc<RunShared>,
    bus: &ResultsBus,
    base: &Arc<Variables>,
    cx: &mut EvalContext<'_>,
) -> Result<(), GroupError> {
    let text = settings.schedule.text(cx);
    let schedule = open_model::parse(&text).map_err(|e| GroupError {
        group: group.name.to_string(),
        message: format!("Failed to start OpenModelThreadGroup: {e}"),
    })?;
    let seed = settings.random_seed.i64(cx);
    let fallback = match run.seed {
        Some(seed) => (seed ^ (group.id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)) as i64,
        None => rand::random(),
    };
    let limits = schedule.concurrency_changes();
    let start = Instant::now();
    let end = start + Duration::from_millis((schedule.total_duration() * 1000.0).round() as u64);
    let group_active = run.group_counter(group.id);
    let tally = Arc::new(ArrivalTally::default());
    let busy = Arc::new(Busy::default());
    let stop = run.stop_token();
    let mut set = JoinSet::new();
    let mut created = 0u64;
    for (arrival, offset) in Arrivals::new(&schedule, seed, fallback).enumerate() {
        // A shard takes every N-th arrival of the single run's sequence, at its time.
        if run.shard.is_some_and(|s| !s.owns_user(arrival as u64)) {
            continue;
        }
        let intended = start + Duration::from_millis((offset * 1000.0).round() as u64);
        tally.scheduled.fetch_add(1, Ordering::Relaxed);
        // Arrivals due already (several per timer tick at high rates) start without
        // registering a wait on the stop signal.
        if intended > Instant::now() {
            tokio::select! {
                _ = tokio::time::sleep_until(intended) => {}
                _ = stop.cancelled() => break,
            }
        } else if stop.is_cancelled() {
            break;
        }
        if !limits.is_empty() && !free_slot(&busy, &limits, start, end, &tally).await {
            continue;
        }
        busy.add();
        // Sharded users are named by arrival, unique across shards.
        let k = if run.shard.is_some_and(|s| s.divides()) {
            arrival as u64
        } else {
            created
        };
        let mut vu = scheduler::new_user(group, run, bus, base, &group_active, k, Some(end));
        created += 1;
        vu.loops_override = Some(1);
        vu.arrival = Some((intended, tally.clone()));
        let busy = busy.clone();
        set.spawn(async move {
            scheduler::start_user(vu, Instant::now()).await;
            busy.release();
        });
        forget_finished(&mut set);
    }
    if !stop.is_cancelled() {
        // A schedule that ends with a pause keeps the group until its end.
        tokio::select! {
            _ = tokio::time::sleep_until(end) => {}
            _ = stop.cancelled() => {}
        }
    }
    while set.join_next().await.is_some() {}
    publish(run, tally.report("Open Model Thread Group", &group.name));
    Ok(())
}

/// Drops the users that have ended from `set`. A finished task stays in a `JoinSet`
/// until it is joined; a group that starts a user per arrival would otherwise hold
/// every user of the run until its end (20,000 arrivals a second kept about 6 KB each).
pub(super) fn forget_finished(set: &mut JoinSet<()>) {
    while set.try_join_next().is_some() {}
}

/// Takes a slot under the schedule's concurrency limit, waiting for a user to end or
/// the limit to rise; false (dropped) when the schedule ends first. The caller counts
/// the user it then starts as busy.
async fn free_slot(
    busy: &Busy,
    limits: &[(f64, u32)],
    start: Instant,
    end: Instant,
    tally: &ArrivalTally,
) -> bool {
    let mut waited = false;
    loop {
        let elapsed = start.elapsed().as_secs_f64();
        if busy.get() < open_model::limit_at(limits, elapsed) as i64 {
            if waited {
                tally.delayed.fetch_add(1, Ordering::Relaxed);
            }
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        waited = true;
        let next_change = limits
            .iter()
            .map(|(time, _)| *time)
            .find(|time| *time > elapsed)
            .map_or(end, |time| start + Duration::from_secs_f64(time));
        let _ = tokio::time::timeout_at(next_change.min(end), busy.freed.notified()).await;
    }
}

/// The users of a bzm Arrivals group waiting for an arrival, and the busy count.
pub struct ArrivalPool {
    waiting: Mutex<Vec<oneshot::Sender<Instant>>>,
    busy: Busy,
    /// Set when the schedule is over: no more arrivals.
    over: AtomicBool,
    pub tally: Arc<ArrivalTally>,
}

impl ArrivalPool {
    /// At an iteration boundary: waits for the next arrival and returns its time; `None`
    /// when the schedule is over (the user leaves).
    pub async fn next_arrival(
        &self,
        stop: &tokio_util::sync::CancellationToken,
    ) -> Option<Instant> {
        let (tx, rx) = oneshot::channel();
        {
            let mut waiting = self.waiting.lock();
            if self.over.load(Ordering::SeqCst) {
                return None;
            }
            waiting.push(tx);
            self.busy.release();
        }
        let arrival = tokio::select! {
            arrival = rx => arrival.ok(),
            _ = stop.cancelled() => None,
        };
        if arrival.is_none() {
            // Leaving: counted busy again, so that its end releases it once.
            self.busy.add();
        }
        arrival
    }

    /// The plugin's arrivals limit: the schedule is over and every scheduled arrival
    /// began. Busy users then stop before their next sampler.
    pub fn limit_reached(&self) -> bool {
        let t = &self.tally;
        self.over.load(Ordering::Relaxed)
            && t.started.load(Ordering::Relaxed) >= t.scheduled.load(Ordering::Relaxed)
    }

    /// Hands an arrival to a waiting user; false when none is waiting.
    fn wake_one(&self, intended: Instant) -> bool {
        let mut waiting = self.waiting.lock();
        while let Some(user) = waiting.pop() {
            self.busy.add();
            if user.send(intended).is_ok() {
                return true;
            }
            self.busy.count.fetch_sub(1, Ordering::SeqCst);
        }
        false
    }

    fn close(&self) {
        let mut waiting = self.waiting.lock();
        self.over.store(true, Ordering::SeqCst);
        waiting.clear();
    }
}

/// Runs a bzm Arrivals or Free-Form Arrivals Thread Group on the plugin's rolling clock.
pub(super) async fn bzm_arrivals(
    group: &Arc<ThreadGroup>,
    settings: &ArrivalsSettings,
    run: &Arc<RunShared>,
    bus: &ResultsBus,
    base: &Arc<Variables>,
    cx: &mut EvalContext<'_>,
) {
    let profile = ArrivalsProfile::evaluate(settings, cx);
    let iterations = match settings.iterations.i64(cx) {
        n if n > 0 => n,
        _ => -1,
    };
    let limit = settings.concurrency_limit.i64(cx);
    let pool = Arc::new(ArrivalPool {
        waiting: Mutex::new(Vec::new()),
        busy: Busy::default(),
        over: AtomicBool::new(false),
        tally: Arc::new(ArrivalTally::default()),
    });
    let group_active = run.group_counter(group.id);
    let start = Instant::now();
    let stop = run.stop_token();
    let mut set = JoinSet::new();
    let mut rolling_ms = 0.0f64;
    let mut scheduled = 0u64;
    let mut created = 0u64;
    'arrivals: loop {
        let rate = loop {
            let at = start + Duration::from_secs_f64(rolling_ms / 1000.0);
            tokio::select! {
                _ = tokio::time::sleep_until(at) => {}
                _ = stop.cancelled() => break 'arrivals,
            }
            let rate = profile.rate(rolling_ms / 1000.0, scheduled);
            if rate != 0.0 {
                break rate;
            }
            // The plugin looks again 200 ms later.
            rolling_ms += 200.0;
        };
        if rate < 0.0 {
            break;
        }
        let intended = start + Duration::from_secs_f64(rolling_ms / 1000.0);
        rolling_ms += 1000.0 / rate;
        scheduled += 1;
        // A shard takes every N-th arrival of the single run's sequence, at its time.
        if run.shard.is_some_and(|s| !s.owns_user(scheduled - 1)) {
            continue;
        }
        pool.tally.scheduled.fetch_add(1, Ordering::Relaxed);
        if pool.wake_one(intended) {
            continue;
        }
        if limit > 0 && pool.busy.get() >= limit {
            continue;
        }
        let mut vu = scheduler::new_user(group, run, bus, base, &group_active, created, None);
        created += 1;
        vu.loops_override = Some(iterations);
        vu.arrival = Some((intended, pool.tally.clone()));
        vu.pool = Some(pool.clone());
        pool.busy.add();
        let pool = pool.clone();
        set.spawn(async move {
            scheduler::start_user(vu, Instant::now()).await;
            pool.busy.release();
        });
        forget_finished(&mut set);
    }
    pool.close();
    while set.join_next().await.is_some() {}
    publish(run, pool.tally.report("Arrivals Thread Group", &group.name));
}
