//! When users run: the test phases (setUp, main, tearDown thread groups, serialised or
//! together), and within a thread group when each user starts and stops (ramp-up, start
//! delay and duration, or a plugin group's own schedule; a Concurrency Thread Group's
//! starter lives in `concurrency`).

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::arrivals;
use super::concurrency;
use super::group_windows::{self, UserWindow};
use super::vu::VirtualUser;
use crate::plan::{GroupSchedule, Setting, TestPlan, ThreadGroup};
use crate::results::ResultsBus;
use crate::runlog;
use crate::user_state::EvalContext;
use crate::user_state::RunShared;
use crate::user_state::ThreadInfo;
use crate::user_state::UserState;
use crate::user_state::Variables;

/// A problem that ended a thread group before it started (JMeter stops the test).
#[derive(Debug, Clone)]
pub struct GroupError {
    pub group: String,
    pub message: String,
}

/// Runs the plan to the end (or until stopped) and returns problems met on the way.
/// Samples go to `bus`; the bus closes when this returns and every user has ended.
pub async fn run(plan: Arc<TestPlan>, run: Arc<RunShared>, bus: ResultsBus) -> Vec<GroupError> {
    let base = Arc::new(initial_variables(&plan, &run));
    let mut errors = Vec::new();
    let phases = [&plan.setup_groups, &plan.groups];
    // A start time given to the run anchors the first phase that has groups; later
    // phases begin when the one before ends, as in JMeter.
    let mut origin = run.schedule_origin.map(Instant::from_std);
    for groups in phases {
        if run.stop_requested() {
            break;
        }
        if groups.is_empty() {
            continue;
        }
        errors.extend(run_phase(groups, &plan, &run, &bus, &base, origin.take()).await);
    }
    if !run.stop_requested() || plan.teardown_on_shutdown {
        run.renew_stop_token();
        if !run.stop_now.is_cancelled() {
            errors.extend(run_phase(&plan.teardown_groups, &plan, &run, &bus, &base, None).await);
        }
    }
    errors
}

async fn run_phase(
    groups: &[Arc<ThreadGroup>],
    plan: &TestPlan,
    run: &Arc<RunShared>,
    bus: &ResultsBus,
    base: &Arc<Variables>,
    origin: Option<Instant>,
) -> Vec<GroupError> {
    let mut errors = Vec::new();
    if plan.serialize_threadgroups {
        // One after the other: only the first group starts at the origin.
        let mut origin = origin;
        for group in groups {
            if run.stop_requested() {
                break;
            }
            let started = run_group(
                group.clone(),
                run.clone(),
                bus.clone(),
                base.clone(),
                origin.take(),
            );
            if let Err(e) = started.await {
                errors.push(e);
            }
        }
        return errors;
    }
    let mut set = JoinSet::new();
    for group in groups {
        set.spawn(run_group(
            group.clone(),
            run.clone(),
            bus.clone(),
            base.clone(),
            origin,
        ));
    }
    while let Some(done) = set.join_next().await {
        if let Ok(Err(e)) = done {
            errors.push(e);
        }
    }
    errors
}

/// The variables every thread starts with: User Defined Variables evaluated once, in
/// tree order (an element sees earlier elements but not its own rows), and the
/// built-in start-time variables.
fn initial_variables(plan: &TestPlan, run: &RunShared) -> Variables {
    let mut vars = Variables::new();
    for name in ["START.MS", "START.YMD", "START.HMS", "TESTSTART.MS"] {
        if let Some(value) = run.props.get(name) {
            vars.put(name, value);
        }
    }
    let mut rng = new_rng(run.seed, 0);
    crate::expr::add_plan_variables(run, &plan.variables, &mut vars, &mut rng);
    vars.put("JMeterThread.last_sample_ok", "true");
    vars
}

pub(super) fn new_rng(seed: Option<u64>, stream: u64) -> SmallRng {
    match seed {
        Some(seed) => SmallRng::seed_from_u64(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        None => SmallRng::from_entropy(),
    }
}

/// Starts a thread group's users, each in its window counted from `origin` (or from now),
/// and waits for all of them.
async fn run_group(
    group: Arc<ThreadGroup>,
    run: Arc<RunShared>,
    bus: ResultsBus,
    base: Arc<Variables>,
    origin: Option<Instant>,
) -> Result<(), GroupError> {
    let mut starter_vars = (*base).clone();
    let thread = ThreadInfo {
        thread_num: 0,
        thread_name: Arc::from(format!("{} {}", group.name, group.number)),
        group_name: group.name.clone(),
    };
    let mut rng = new_rng(run.seed, group.id as u64);
    let mut cx = run.eval_context(&mut starter_vars, &thread, &mut rng);
    match &group.schedule {
        GroupSchedule::Concurrency(settings) => {
            concurrency::supply_users(&group, settings, &run, &bus, &base, &mut cx).await;
            return Ok(());
        }
        GroupSchedule::OpenModel(settings) => {
            let result = arrivals::open_model(&group, settings, &run, &bus, &base, &mut cx).await;
            if result.is_err() {
                run.request_stop();
            }
            return result;
        }
        GroupSchedule::Arrivals(settings) => {
            arrivals::bzm_arrivals(&group, settings, &run, &bus, &base, &mut cx).await;
            return Ok(());
        }
        _ => {}
    }
    let windows = match user_windows(&group, &run, &mut cx) {
        Ok(windows) => windows,
        Err(message) => {
            run.request_stop();
            return Err(GroupError {
                group: group.name.to_string(),
                message,
            });
        }
    };
    let group_active = run.group_counter(group.id);
    // Counting from the origin rather than from now keeps a shard's users on the single
    // run's schedule even when this process was slow to get here (a busy machine).
    let group_start = origin.unwrap_or_else(Instant::now);
    let mut set = JoinSet::new();
    for (k, window) in windows.into_iter().enumerate() {
        // A shard runs its own users, each at its single-run time and with its name.
        if run.shard.is_some_and(|shard| !shard.owns_user(k as u64)) {
            continue;
        }
        let start_at = group_start + Duration::from_millis(window.start_ms.max(0) as u64);
        let end_time = window
            .end_ms
            .map(|end| group_start + Duration::from_millis(end.max(0) as u64));
        let vu = new_user(&group, &run, &bus, &base, &group_active, k as u64, end_time);
        set.spawn(async move {
            start_user(vu, start_at).await;
        });
    }
    while set.join_next().await.is_some() {}
    Ok(())
}

/// The `k`-th user of a group (0-based), named and seeded as JMeter names its threads.
pub(super) fn new_user(
    group: &Arc<ThreadGroup>,
    run: &Arc<RunShared>,
    bus: &ResultsBus,
    base: &Arc<Variables>,
    group_active: &Arc<AtomicI32>,
    k: u64,
    end_time: Option<Instant>,
) -> Box<VirtualUser> {
    let mut user = UserState::new(
        run.clone(),
        ThreadInfo {
            thread_num: (k + 1) as u32,
            thread_name: Arc::from(format!("{} {}-{}", group.name, group.number, k + 1)),
            group_name: group.name.clone(),
        },
        (**base).clone(),
        new_rng(run.seed, (group.id as u64) << 32 | k),
    );
    user.same_user_on_next_iteration = group.same_user_on_next_iteration;
    user.group_active = group_active.clone();
    Box::new(VirtualUser::new(user, bus.clone(), group.clone(), end_time))
}

/// Runs `read` in a context for evaluating `group`'s settings before any user exists
/// (the run's properties, no variables).
pub(super) fn with_group_context<R>(
    group: &ThreadGroup,
    run: &RunShared,
    read: impl FnOnce(&mut EvalContext<'_>) -> R,
) -> R {
    let mut vars = Variables::new();
    let thread = ThreadInfo {
        thread_num: 0,
        thread_name: Arc::from(format!("{} {}", group.name, group.number)),
        group_name: group.name.clone(),
    };
    let mut rng = new_rng(run.seed, group.id as u64);
    let mut cx = run.eval_context(&mut vars, &thread, &mut rng);
    read(&mut cx)
}

/// When a group's last user ends, from the group's start, when its settings fix it (a
/// scheduler duration, an Ultimate or Stepping schedule, the arrival schedule of an
/// Open Model or bzm Arrivals group as [`super::profile`] plans it); `None` when loops
/// or a Concurrency Thread Group's iterations decide. For the progress display.
pub fn planned_end(group: &ThreadGroup, run: &RunShared) -> Option<Duration> {
    if let GroupSchedule::OpenModel(_) | GroupSchedule::Arrivals(_) = &group.schedule {
        let end_s = super::profile::profile(group, run).end_s?;
        return Duration::try_from_secs_f64(end_s.max(0.0)).ok();
    }
    let windows = with_group_context(group, run, |cx| user_windows(group, run, cx)).ok()?;
    let ends: Option<Vec<i64>> = windows.iter().map(|w| w.end_ms).collect();
    let last = ends?.into_iter().max()?;
    Some(Duration::from_millis(last.max(0) as u64))
}

/// The windows of a group's users in creation order, or why the group cannot start.
pub(super) fn user_windows(
    group: &ThreadGroup,
    run: &RunShared,
    cx: &mut EvalContext<'_>,
) -> Result<Vec<UserWindow>, String> {
    match &group.schedule {
        GroupSchedule::Standard => standard_windows(group, cx),
        // Started by their own starters (`concurrency`, `arrivals`), not on windows.
        GroupSchedule::Concurrency(_)
        | GroupSchedule::OpenModel(_)
        | GroupSchedule::Arrivals(_) => Ok(Vec::new()),
        GroupSchedule::Ultimate(rows) => {
            let rows = match run.props.get("threads_schedule").filter(|s| !s.is_empty()) {
                Some(text) => {
                    let (rows, ignored) = group_windows::threads_schedule(&text);
                    for chunk in ignored {
                        runlog::warn(&format!(
                            "{}: threads_schedule chunk {chunk} is ignored",
                            group.name
                        ));
                    }
                    rows
                }
                None => rows.iter().map(|row| ultimate_row(row, cx)).collect(),
            };
            Ok(group_windows::ultimate(&rows))
        }
        GroupSchedule::Stepping(s) => {
            let mut int = |setting: &Setting| setting.i64(cx);
            Ok(group_windows::stepping(&group_windows::Stepping {
                threads: int(&group.num_threads),
                initial_delay: int(&s.initial_delay),
                start_count: int(&s.start_count),
                start_burst: int(&s.start_burst),
                start_period: int(&s.start_period),
                ramp_up: int(&s.ramp_up),
                hold: int(&s.hold),
                stop_count: int(&s.stop_count),
                stop_period: int(&s.stop_period),
            }))
        }
    }
}

fn ultimate_row(row: &[Setting; 5], cx: &mut EvalContext<'_>) -> group_windows::UltimateRow {
    let [threads, initial_delay, startup, hold, shutdown] = row.each_ref().map(|s| s.i64(cx));
    group_windows::UltimateRow {
        threads,
        initial_delay,
        startup,
        hold,
        shutdown,
    }
}

/// JMeter's Thread Group: users spread evenly over the ramp-up after the start delay,
/// all ending together after the duration when the scheduler is on.
fn standard_windows(
    group: &ThreadGroup,
    cx: &mut EvalContext<'_>,
) -> Result<Vec<UserWindow>, String> {
    let threads = group.num_threads.i64(cx).max(0);
    let ramp_ms = group.ramp_up.i64(cx).max(0) * 1000;
    let (delay_s, duration_s) = if group.scheduler {
        (group.delay.i64(cx), group.duration.i64(cx))
    } else {
        (0, 0)
    };
    if group.scheduler && duration_s <= 0 {
        return Err(format!("Invalid duration {duration_s} set in Thread Group"));
    }
    if delay_s < 0 {
        return Err(format!("Invalid delay {delay_s} set in Thread Group"));
    }
    let start_ms = delay_s * 1000;
    let end_ms = group.scheduler.then(|| start_ms + duration_s * 1000);
    let step_ms = if threads > 0 {
        (ramp_ms as f64 / threads as f64).round() as i64
    } else {
        0
    };
    let windows = (0..threads).map(|k| UserWindow {
        start_ms: start_ms + step_ms * k,
        end_ms,
    });
    Ok(windows.collect())
}

/// Waits for the user's start time (a stop cancels the start) and runs it. True when
/// the user left a Concurrency Thread Group's level on its own (it is no longer counted).
///
/// The user comes boxed: a future keeps its arguments and what it moves into awaited
/// calls side by side, so a user held by value sat in every waiting user's task several
/// times over (about 2.7 KB of each 3.5 KB task).
pub(super) async fn start_user(mut vu: Box<VirtualUser>, start_at: Instant) -> bool {
    let stop = vu.user.run.stop_token();
    if start_at > Instant::now() {
        tokio::select! {
            _ = tokio::time::sleep_until(start_at) => {}
            _ = stop.cancelled() => return false,
        }
    }
    if stop.is_cancelled() || vu.user.end_time.is_some_and(|end| Instant::now() >= end) {
        return false;
    }
    let run = vu.user.run.clone();
    let group_active = vu.user.group_active.clone();
    run.counts.thread_started();
    group_active.fetch_add(1, Ordering::SeqCst);
    let released = vu.run().await;
    group_active.fetch_sub(1, Ordering::SeqCst);
    run.counts.thread_finished();
    released
}

#[cfg(test)]
#[path = "planned_end_tests.rs"]
mod planned_end_tests;
