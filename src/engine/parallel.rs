//! bzm Parallel Controller (`ParallelSampler`): the controller's children run at the
//! same time, each as a branch of the virtual user, as the plugin runs each child in a
//! thread of its own.
//!
//! The plugin is a sampler to JMeter: the pre-processors and timers in its scope run
//! before it, and with "Generate parent sample" it returns one sample that goes through
//! its scope's post-processors, assertions and listeners like any other. That sample
//! starts before the branches start and ends with the last sample a branch recorded
//! (JMeter's `addSubResult` extends it), or when the branches are done if none recorded
//! any; it is successful unless a branch's sample failed, with code 200 "OK", and holds
//! the branches' samples as sub-results in the order they ended. Without a parent sample
//! the branches' samples are recorded as they happen and nothing more.
//!
//! A branch is a copy of the user ([`crate::user_state::UserState::copy_for_branch`])
//! with the user's cookies ([`crate::samplers::http::lend_to_branch`]). The plugin's
//! branches write into the user's own variables while they run; here each branch works
//! on a copy taken when the controller starts, and what it set or removed is written back
//! when all are done, branch by branch in the children's order (so where two branches set
//! the same variable, the later child's value stays). A branch that stops its thread
//! stops the user after the controller; one that asks for the next thread iteration
//! makes the user start it.

use std::sync::Arc;

use futures_util::stream::StreamExt;

use super::controllers::Flow;
use super::vu::{OpenTransaction, VirtualUser};
use crate::plan::{Controller, Node};
use crate::sample::SampleResult;
use crate::user_state::{UserState, Variables};

impl VirtualUser {
    pub(super) async fn run_parallel(
        &mut self,
        c: &Arc<Controller>,
        generate_parent: bool,
        max_parallel: Option<usize>,
    ) -> Flow {
        if self.should_stop() {
            return Flow::StopThread;
        }
        let name = c.name.raw();
        self.run_pre_processors(&c.scope, name).await;
        if !self.apply_timers(&c.scope, name).await {
            return Flow::StopThread;
        }
        let label: Arc<str> = Arc::from(c.name.eval(&mut self.user.eval(name)));
        let mut parent = SampleResult::new(label.clone());
        parent.response_code = "200".into();
        parent.response_message = "OK".into();
        parent.sampler_data = sampler_data(c);
        self.send_pending().await;
        let before = self.user.vars.clone();
        let mut branches: Vec<VirtualUser> = c
            .children
            .iter()
            .map(|child| self.branch(&label, child, generate_parent))
            .collect();
        let stopwatch = crate::sample::Stopwatch::start();
        parent.start_time = stopwatch.start_ms();
        let flows = run_branches(&mut branches, &c.children, max_parallel).await;
        let mut ended = Vec::new();
        for branch in &mut branches {
            branch.send_pending().await;
            self.samplers_run += branch.samplers_run;
            if let Some(open) = branch.transactions.pop() {
                ended.extend(open.samples);
            }
            write_back(&before, &branch.user.vars, &mut self.user.vars);
            crate::samplers::http::take_back_from_branch(&mut self.user, &mut branch.user);
        }
        let flow = combined_flow(&flows);
        if generate_parent {
            ended.sort_by_key(|sample| sample.end_time);
            for sample in ended {
                if !sample.success {
                    parent.set_success(false);
                }
                parent.add_subresult((*sample).clone(), false);
            }
            if parent.end_time == 0 {
                parent.end_time = parent.start_time + stopwatch.elapsed_ms();
                parent.elapsed = parent.end_time - parent.start_time;
            }
            let after = self.after_sample(Arc::new(parent), &c.scope, name).await;
            if flow == Flow::Normal {
                return after;
            }
        }
        flow
    }

    /// A branch of this user for `child`: its own copy of the user, thread name and
    /// results, collected for the parent sample when there is one.
    fn branch(&mut self, label: &str, child: &Node, generate_parent: bool) -> VirtualUser {
        let mut user: UserState = self.user.copy_for_branch();
        let child_name = match child {
            Node::Sampler(s) => s.name.raw(),
            Node::Controller(c) => c.name.raw(),
        };
        user.thread.thread_name = Arc::from(format!(
            "{} - {label} - {child_name}",
            user.thread.thread_name
        ));
        crate::samplers::http::lend_to_branch(&mut self.user, &mut user);
        let end_time = user.end_time;
        let mut branch = VirtualUser::new(user, self.bus.clone(), self.group.clone(), end_time);
        if generate_parent {
            branch.transactions.push(OpenTransaction::new(true));
        }
        branch
    }
}

/// Runs each branch over its child, at most `limit` at once (all at once without one),
/// starting them in the children's order.
async fn run_branches(
    branches: &mut [VirtualUser],
    children: &[Node],
    limit: Option<usize>,
) -> Vec<Flow> {
    let count = branches.len().max(1);
    // A plain loop: iterator closures here would make the user's future lose `Send`.
    let mut runs = Vec::with_capacity(branches.len());
    for (branch, child) in branches.iter_mut().zip(children) {
        runs.push(branch.run_node(child));
    }
    futures_util::stream::iter(runs)
        .buffer_unordered(limit.unwrap_or(count).clamp(1, count))
        .collect()
        .await
}

/// What the user does after its branches: stop when one stopped its thread, else start
/// the next thread iteration when one asked for it; loop flows stay inside the branch.
fn combined_flow(flows: &[Flow]) -> Flow {
    if flows.contains(&Flow::StopThread) {
        Flow::StopThread
    } else if flows.contains(&Flow::NextThreadLoop) {
        Flow::NextThreadLoop
    } else {
        Flow::Normal
    }
}

/// The plugin's request text: "Parallel items:" and the children's names, a line each.
fn sampler_data(c: &Controller) -> String {
    let mut text = String::from("Parallel items:\n");
    for child in &c.children {
        let name = match child {
            Node::Sampler(s) => s.name.raw(),
            Node::Controller(c) => c.name.raw(),
        };
        text.push_str(name);
        text.push('\n');
    }
    text
}

/// Writes into `user` what a branch changed in its copy of the variables `before`.
fn write_back(before: &Variables, branch: &Variables, user: &mut Variables) {
    for (name, value) in branch.iter() {
        if before.get(name) != Some(value.as_str()) {
            user.put(name.clone(), value.clone());
        }
    }
    for (name, _) in before.iter() {
        if !branch.contains(name) {
            user.remove(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn branch_changes_are_written_back() {
        let mut before = Variables::new();
        before.put("kept", "1");
        before.put("changed", "a");
        before.put("dropped", "x");
        let mut branch = before.clone();
        branch.put("changed", "b");
        branch.put("added", "new");
        branch.remove("dropped");
        let mut user = before.clone();
        user.put("kept", "set meanwhile");
        write_back(&before, &branch, &mut user);
        assert_eq!(user.get("kept"), Some("set meanwhile"));
        assert_eq!(user.get("changed"), Some("b"));
        assert_eq!(user.get("added"), Some("new"));
        assert_eq!(user.get("dropped"), None);
    }

    #[test]
    fn a_stopped_branch_stops_the_user() {
        assert_eq!(
            combined_flow(&[Flow::Normal, Flow::NextThreadLoop, Flow::StopThread]),
            Flow::StopThread
        );
        assert_eq!(
            combined_flow(&[Flow::BreakLoop, Flow::NextThreadLoop]),
            Flow::NextThreadLoop
        );
        assert_eq!(combined_flow(&[Flow::ContinueLoop]), Flow::Normal);
    }
}
