//! When users run: the test phases (setUp, main, tearDown thread groups, serialised or
//! together), and within a thread group the ramp-up, start delay and duration.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::vu::VirtualUser;
use super::{RunShared, UserState};
use crate::expr::{ThreadInfo, Variables};
use crate::plan::{TestPlan, ThreadGroup};
use crate::results::ResultsBus;

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
    for groups in phases {
        if run.stop_requested() {
            break;
        }
        errors.extend(run_phase(groups, &plan, &run, &bus, &base).await);
    }
    if !run.stop_requested() || plan.teardown_on_shutdown {
        run.renew_stop_token();
        if !run.stop_now.is_cancelled() {
            errors.extend(run_phase(&plan.teardown_groups, &plan, &run, &bus, &base).await);
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
) -> Vec<GroupError> {
    let mut errors = Vec::new();
    if plan.serialize_threadgroups {
        for group in groups {
            if run.stop_requested() {
                break;
            }
            if let Err(e) = run_group(group.clone(), run.clone(), bus.clone(), base.clone()).await {
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
    let thread = ThreadInfo::default();
    let mut rng = new_rng(run.seed, 0);
    for element in &plan.variables {
        let mut scratch = vars.clone();
        let values: Vec<(String, String)> = element
            .iter()
            .map(|(name, template)| {
                let mut cx = run.eval_context(&mut scratch, &thread, &mut rng);
                (name.clone(), template.eval(&mut cx))
            })
            .collect();
        for (name, value) in values {
            vars.put(name, value);
        }
    }
    vars.put("JMeterThread.last_sample_ok", "true");
    vars
}

fn new_rng(seed: Option<u64>, stream: u64) -> SmallRng {
    match seed {
        Some(seed) => SmallRng::seed_from_u64(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15)),
        None => SmallRng::from_entropy(),
    }
}

/// Starts a thread group's users over its ramp-up and waits for all of them.
async fn run_group(
    group: Arc<ThreadGroup>,
    run: Arc<RunShared>,
    bus: ResultsBus,
    base: Arc<Variables>,
) -> Result<(), GroupError> {
    let mut starter_vars = (*base).clone();
    let thread = ThreadInfo {
        thread_num: 0,
        thread_name: Arc::from(format!("{} {}", group.name, group.number)),
        group_name: group.name.clone(),
    };
    let mut rng = new_rng(run.seed, group.id as u64);
    let mut cx = run.eval_context(&mut starter_vars, &thread, &mut rng);
    let threads = group.num_threads.i64(&mut cx).max(0) as u64;
    let ramp_ms = group.ramp_up.i64(&mut cx).max(0) as u64 * 1000;
    let (delay_s, duration_s) = if group.scheduler {
        (group.delay.i64(&mut cx), group.duration.i64(&mut cx))
    } else {
        (0, 0)
    };
    if group.scheduler && duration_s <= 0 {
        run.request_stop();
        return Err(GroupError {
            group: group.name.to_string(),
            message: format!("Invalid duration {duration_s} set in Thread Group"),
        });
    }
    if delay_s < 0 {
        run.request_stop();
        return Err(GroupError {
            group: group.name.to_string(),
            message: format!("Invalid delay {delay_s} set in Thread Group"),
        });
    }
    let start = Instant::now() + Duration::from_secs(delay_s as u64);
    let end_time = group
        .scheduler
        .then(|| start + Duration::from_secs(duration_s as u64));
    let step_ms = if threads > 0 {
        (ramp_ms as f64 / threads as f64).round() as u64
    } else {
        0
    };
    let group_active = run.group_counter(group.id);
    let mut set = JoinSet::new();
    for k in 0..threads {
        let start_at = start + Duration::from_millis(step_ms * k);
        let mut user = UserState::new(
            run.clone(),
            ThreadInfo {
                thread_num: (k + 1) as u32,
                thread_name: Arc::from(format!("{} {}-{}", group.name, group.number, k + 1)),
                group_name: group.name.clone(),
            },
            (*base).clone(),
            new_rng(run.seed, (group.id as u64) << 32 | k),
        );
        user.same_user_on_next_iteration = group.same_user_on_next_iteration;
        user.group_active = group_active.clone();
        let vu = VirtualUser::new(
            user,
            bus.clone(),
            group.clone(),
            group_active.clone(),
            end_time,
        );
        set.spawn(start_user(vu, start_at));
    }
    while set.join_next().await.is_some() {}
    Ok(())
}

/// Waits for the user's start time (a stop cancels the start) and runs it.
async fn start_user(vu: VirtualUser, start_at: Instant) {
    let stop = vu.user.run.stop_token();
    if start_at > Instant::now() {
        tokio::select! {
            _ = tokio::time::sleep_until(start_at) => {}
            _ = stop.cancelled() => return,
        }
    }
    if stop.is_cancelled() || vu.user.end_time.is_some_and(|end| Instant::now() >= end) {
        return;
    }
    let run = vu.user.run.clone();
    let group_active = vu.group_active.clone();
    run.counts.thread_started();
    group_active.fetch_add(1, Ordering::SeqCst);
    vu.run().await;
    group_active.fetch_sub(1, Ordering::SeqCst);
    run.counts.thread_finished();
}
