//! How a virtual user walks logic controllers.
//!
//! Each controller runs as a small async function over its children. A pass over a
//! controller's children first fires its iteration listeners (Counter, CSV Data Set,
//! ...), as JMeter does when a controller starts an iteration. The [`Flow`] a child
//! returns carries "continue/break current loop", "start next thread loop" and "stop"
//! up to the controller that handles it: loops handle the first two; the thread group
//! handles the rest.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rand::seq::SliceRandom;
use rand::Rng;

use super::empty_passes::EmptyPasses;
use super::vu::VirtualUser;
use crate::expr::condition;
use crate::expr::Template;
use crate::plan::{Controller, ControllerKind, Node, SamplerNode, Setting, ThroughputStyle};
use crate::user_state::Counter;

/// What happens after a node ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Normal,
    /// Start the next iteration of the innermost loop.
    ContinueLoop,
    /// Leave the innermost loop.
    BreakLoop,
    /// Abandon the thread-group iteration and start the next one.
    NextThreadLoop,
    StopThread,
}

type FlowFuture<'a> = Pin<Box<dyn Future<Output = Flow> + Send + 'a>>;

/// What a loop does with the flow one pass returned.
enum LoopStep {
    Next,
    Exit,
    Return(Flow),
}

fn loop_step(flow: Flow) -> LoopStep {
    match flow {
        Flow::Normal | Flow::ContinueLoop => LoopStep::Next,
        Flow::BreakLoop => LoopStep::Exit,
        other => LoopStep::Return(other),
    }
}

impl VirtualUser {
    pub(super) fn run_node<'a>(&'a mut self, node: &'a Node) -> FlowFuture<'a> {
        Box::pin(async move {
            match node {
                Node::Sampler(sampler) => self.run_sampler(sampler).await,
                Node::Controller(controller) => self.run_controller(controller).await,
            }
        })
    }

    /// One pass over a controller's children, iteration listeners first.
    pub(super) async fn run_pass(&mut self, controller: &Controller) -> Flow {
        self.run_pass_of(controller, false).await
    }

    /// One pass over the children. `transaction_count` is set for a Transaction
    /// Controller in its default (non-parent) mode: when one of its child controllers
    /// finishes, JMeter's `GenericController` asks the transaction for its next sampler
    /// through a nested `next()` call, and both calls count that sampler — so the
    /// sampler after a child controller counts twice in "Number of samples in
    /// transaction".
    pub(super) async fn run_pass_of(
        &mut self,
        controller: &Controller,
        transaction_count: bool,
    ) -> Flow {
        for listener in &controller.iteration_listeners {
            listener.iteration_start(&mut self.user);
        }
        for child in &controller.children {
            // A sampler runs without the boxed future `run_node` needs for recursion.
            let flow = match child {
                Node::Sampler(sampler) => self.run_sampler(sampler).await,
                Node::Controller(_) => {
                    let flow = self.run_node(child).await;
                    if transaction_count && flow == Flow::Normal {
                        if let Some(open) = self.transactions.last_mut() {
                            open.count_next_twice = true;
                        }
                    }
                    flow
                }
            };
            if flow != Flow::Normal {
                return flow;
            }
        }
        Flow::Normal
    }

    /// Sets a Parameterized Controller's variables: all values evaluated, then all set.
    pub(super) fn set_parameters(&mut self, variables: &[(String, Template)]) {
        let values: Vec<String> = variables
            .iter()
            .map(|(_, value)| value.eval(&mut self.user.eval("")))
            .collect();
        for ((name, _), value) in variables.iter().zip(values) {
            self.user.vars.put(name.as_str(), value);
        }
    }

    fn eval_text(&mut self, template: &Template) -> String {
        template.eval(&mut self.user.eval("")).trim().to_string()
    }

    fn eval_setting_i64(&mut self, setting: &Setting) -> i64 {
        setting.i64(&mut self.user.eval(""))
    }

    async fn run_controller(&mut self, c: &Arc<Controller>) -> Flow {
        match &c.kind {
            ControllerKind::Simple => self.run_pass(c).await,
            ControllerKind::Loop {
                loops,
                continue_forever,
            } => self.run_loop(c, loops, *continue_forever).await,
            ControllerKind::While { condition } => self.run_while(c, condition).await,
            ControllerKind::If {
                condition,
                use_expression,
                evaluate_all,
            } => {
                self.run_if(c, condition, *use_expression, *evaluate_all)
                    .await
            }
            ControllerKind::Transaction {
                parent,
                include_timers,
            } => self.run_transaction(c, *parent, *include_timers).await,
            ControllerKind::OnceOnly => {
                if self.passes.last().copied().unwrap_or(0) == 0 {
                    self.run_pass(c).await
                } else {
                    Flow::Normal
                }
            }
            ControllerKind::Interleave {
                across_threads,
                ignore_sub_controllers,
            } => {
                self.run_interleave(c, *across_threads, *ignore_sub_controllers)
                    .await
            }
            ControllerKind::Random { .. } => {
                if c.children.is_empty() {
                    return Flow::Normal;
                }
                let pick = self.user.rng.gen_range(0..c.children.len());
                self.run_one(c, pick).await
            }
            ControllerKind::RandomOrder => self.run_random_order(c).await,
            ControllerKind::Throughput {
                style,
                per_thread,
                max_throughput,
                percent,
            } => {
                if self.throughput_decides(c, *style, *per_thread, max_throughput, percent) {
                    self.run_pass(c).await
                } else {
                    Flow::Normal
                }
            }
            ControllerKind::Runtime { seconds } => self.run_runtime(c, seconds).await,
            ControllerKind::Switch { value } => self.run_switch(c, value).await,
            ControllerKind::ForEach {
                input,
                output,
                use_separator,
                start,
                end,
            } => {
                let spec = ForEachSpec {
                    input,
                    output,
                    use_separator: *use_separator,
                    start,
                    end,
                };
                self.run_foreach(c, spec).await
            }
            ControllerKind::CriticalSection { lock_name } => {
                let name = self.eval_text(lock_name);
                if name.is_empty() {
                    return self.run_pass(c).await;
                }
                let lock = self.user.run.lock_named(&name);
                self.send_pending().await;
                let _held = lock.lock().await;
                self.run_pass(c).await
            }
            ControllerKind::WeightedSwitch { weights, random } => {
                self.run_weighted_switch(c, weights, *random).await
            }
            ControllerKind::Parallel {
                generate_parent,
                max_parallel,
            } => self.run_parallel(c, *generate_parent, *max_parallel).await,
            ControllerKind::Parameterized { variables } => {
                self.parameter_scopes.push(variables.clone());
                let flow = self.run_pass(c).await;
                self.parameter_scopes.pop();
                // The plugin sets them in every `next()`, also the last one that finds
                // no more children: they hold after the controller too.
                self.set_parameters(variables);
                flow
            }
        }
    }

    /// Runs one child of `c` as the controller's pass (listeners fire first).
    pub(super) async fn run_one(&mut self, c: &Controller, index: usize) -> Flow {
        for listener in &c.iteration_listeners {
            listener.iteration_start(&mut self.user);
        }
        match c.children.get(index) {
            Some(child) => self.run_node(child).await,
            None => Flow::Normal,
        }
    }

    fn idx_var(c: &Controller) -> String {
        format!("__jm__{}__idx", c.name.raw())
    }

    /// Runs passes while `more(pass)` holds, publishing the loop index; the index goes
    /// back to 0 when the loop ends, as JMeter resets its loop count.
    async fn run_loop(&mut self, c: &Controller, loops: &Setting, continue_forever: bool) -> Flow {
        if !continue_forever && self.memory.get(&c.id) == Some(&1) {
            return Flow::Normal;
        }
        let idx = Self::idx_var(c);
        let mut pass: i64 = 0;
        let mut result = Flow::Normal;
        // JMeter resets the index when the loop runs out by itself; when the last pass
        // was cut short by "start next iteration of current loop", the loop ends from
        // `next()` without that reset and the index keeps the loop count.
        let mut keep_count = false;
        let mut empty = EmptyPasses::default();
        loop {
            let count = self.eval_setting_i64(loops);
            if count >= 0 && pass >= count {
                break;
            }
            if self.should_stop() {
                result = Flow::StopThread;
                break;
            }
            self.user.vars.put(idx.clone(), pass.to_string());
            self.passes.push(pass as u64);
            empty.pass_begins(self);
            let flow = self.run_pass(c).await;
            self.passes.pop();
            pass += 1;
            keep_count = flow == Flow::ContinueLoop;
            match loop_step(flow) {
                LoopStep::Next => {
                    empty.pass_ended(self, None).await;
                    tokio::task::yield_now().await
                }
                LoopStep::Exit => break,
                LoopStep::Return(flow) => {
                    result = flow;
                    break;
                }
            }
        }
        if keep_count && result == Flow::Normal {
            self.user.vars.put(idx, pass.to_string());
        } else {
            self.user.vars.put(idx, "0");
        }
        if !continue_forever {
            self.memory.insert(c.id, 1);
        }
        result
    }

    async fn run_while(&mut self, c: &Controller, condition: &Template) -> Flow {
        let idx = Self::idx_var(c);
        let mut pass: u64 = 0;
        let mut result = Flow::Normal;
        let mut empty = EmptyPasses::default();
        loop {
            let text = self.eval_text(condition);
            let last_ok = self.user.vars.get("JMeterThread.last_sample_ok") != Some("false");
            let enter = if text.is_empty() {
                pass == 0 || last_ok
            } else if text.eq_ignore_ascii_case("LAST") {
                last_ok
            } else {
                !text.eq_ignore_ascii_case("false")
            };
            if !enter {
                break;
            }
            if self.should_stop() {
                result = Flow::StopThread;
                break;
            }
            self.user.vars.put(idx.clone(), pass.to_string());
            self.passes.push(pass);
            empty.pass_begins(self);
            let flow = self.run_pass(c).await;
            self.passes.pop();
            pass += 1;
            match loop_step(flow) {
                LoopStep::Next => {
                    empty.pass_ended(self, None).await;
                    tokio::task::yield_now().await
                }
                LoopStep::Exit => break,
                LoopStep::Return(flow) => {
                    result = flow;
                    break;
                }
            }
        }
        self.user.vars.put(idx, "0");
        result
    }

    fn condition_holds(&mut self, condition: &Template, use_expression: bool) -> bool {
        let text = self.eval_text(condition);
        if use_expression {
            text.eq_ignore_ascii_case("true")
        } else {
            condition::evaluate_bool(&text).unwrap_or(false)
        }
    }

    async fn run_if(
        &mut self,
        c: &Controller,
        condition: &Template,
        use_expression: bool,
        evaluate_all: bool,
    ) -> Flow {
        if !self.condition_holds(condition, use_expression) {
            return Flow::Normal;
        }
        if !evaluate_all {
            return self.run_pass(c).await;
        }
        for listener in &c.iteration_listeners {
            listener.iteration_start(&mut self.user);
        }
        for (i, child) in c.children.iter().enumerate() {
            if i > 0 && !self.condition_holds(condition, use_expression) {
                break;
            }
            let flow = self.run_node(child).await;
            if flow != Flow::Normal {
                return flow;
            }
        }
        Flow::Normal
    }

    /// Runs the next child in turn. With "ignore sub-controller blocks" a child made of
    /// Simple Controllers gives one sampler per turn, resuming where it left off.
    async fn run_interleave(
        &mut self,
        c: &Controller,
        across_threads: bool,
        ignore_sub_controllers: bool,
    ) -> Flow {
        let n = c.children.len();
        if n == 0 {
            return Flow::Normal;
        }
        let pick = if across_threads {
            let mut shared = self.user.run.shared_counters.lock();
            let position = shared.entry((c.id, Counter::Position)).or_insert(0);
            let pick = *position as usize % n;
            *position += 1;
            pick
        } else {
            let position = self.memory.entry(c.id).or_insert(0);
            let pick = *position as usize % n;
            *position += 1;
            pick
        };
        if ignore_sub_controllers {
            if let Node::Controller(sub) = &c.children[pick] {
                let mut leaves = Vec::new();
                if simple_leaves(sub, &mut leaves) && !leaves.is_empty() {
                    return self.run_leaf_in_turn(c, sub, &leaves).await;
                }
            }
        }
        self.run_one(c, pick).await
    }

    /// Runs the next sampler of `sub`'s block, as one turn of interleave `c`.
    async fn run_leaf_in_turn(
        &mut self,
        c: &Controller,
        sub: &Controller,
        leaves: &[Arc<SamplerNode>],
    ) -> Flow {
        for listener in &c.iteration_listeners {
            listener.iteration_start(&mut self.user);
        }
        let step = self.memory.entry(sub.id).or_insert(0);
        let index = *step as usize % leaves.len();
        *step += 1;
        if index == 0 {
            for listener in &sub.iteration_listeners {
                listener.iteration_start(&mut self.user);
            }
        }
        self.run_sampler(&leaves[index]).await
    }

    async fn run_random_order(&mut self, c: &Controller) -> Flow {
        let mut order: Vec<usize> = (0..c.children.len()).collect();
        order.shuffle(&mut self.user.rng);
        for listener in &c.iteration_listeners {
            listener.iteration_start(&mut self.user);
        }
        for i in order {
            let flow = self.run_node(&c.children[i]).await;
            if flow != Flow::Normal {
                return flow;
            }
        }
        Flow::Normal
    }

    /// JMeter's decision: total executions below the maximum, or the deterministic
    /// spreading `(100 × executions + 50) / (iterations + 1) < percent`.
    fn throughput_decides(
        &mut self,
        c: &Controller,
        style: ThroughputStyle,
        per_thread: bool,
        max_throughput: &Setting,
        percent: &Setting,
    ) -> bool {
        let max = self.eval_setting_i64(max_throughput);
        let pct = percent.f64(&mut self.user.eval(""));
        let (exec_key, iter_key) = ((c.id, Counter::Executions), (c.id, Counter::Iterations));
        let decide = |counters: &mut std::collections::HashMap<(usize, Counter), i64>| {
            let executions = *counters.get(&exec_key).unwrap_or(&0);
            let iterations = *counters.get(&iter_key).unwrap_or(&0);
            let run = match style {
                ThroughputStyle::TotalExecutions => executions < max,
                ThroughputStyle::Percent => {
                    (100.0 * executions as f64 + 50.0) / (iterations as f64 + 1.0) < pct
                }
            };
            counters.insert(iter_key, iterations + 1);
            if run {
                counters.insert(exec_key, executions + 1);
            }
            run
        };
        if per_thread {
            decide(&mut self.throughput)
        } else {
            decide(&mut self.user.run.shared_counters.lock())
        }
    }

    async fn run_runtime(&mut self, c: &Controller, seconds: &Setting) -> Flow {
        let limit = self.eval_setting_i64(seconds);
        if limit <= 0 {
            return Flow::Normal;
        }
        let end = tokio::time::Instant::now() + std::time::Duration::from_secs(limit as u64);
        let mut pass = 0u64;
        let mut empty = EmptyPasses::default();
        while tokio::time::Instant::now() < end {
            if self.should_stop() {
                return Flow::StopThread;
            }
            for listener in &c.iteration_listeners {
                listener.iteration_start(&mut self.user);
            }
            self.passes.push(pass);
            empty.pass_begins(self);
            let mut flow = Flow::Normal;
            for child in &c.children {
                if tokio::time::Instant::now() >= end {
                    break;
                }
                flow = self.run_node(child).await;
                if flow != Flow::Normal {
                    break;
                }
            }
            self.passes.pop();
            pass += 1;
            match loop_step(flow) {
                LoopStep::Next => {
                    empty.pass_ended(self, Some(end)).await;
                    tokio::task::yield_now().await
                }
                LoopStep::Exit => break,
                LoopStep::Return(flow) => return flow,
            }
        }
        Flow::Normal
    }

    async fn run_switch(&mut self, c: &Controller, value: &Template) -> Flow {
        let selector = self.eval_text(value);
        let pick = switch_pick(c, &selector);
        match pick {
            Some(index) => self.run_one(c, index).await,
            None => Flow::Normal,
        }
    }

    async fn run_foreach(&mut self, c: &Controller, spec: ForEachSpec<'_>) -> Flow {
        let input = spec.input.eval(&mut self.user.eval(""));
        let output = spec.output.eval(&mut self.user.eval(""));
        let start = self.eval_setting_i64(spec.start);
        let end_text = spec.end.text(&mut self.user.eval(""));
        let end = end_text.trim().parse::<i64>().ok();
        let separator = if spec.use_separator { "_" } else { "" };
        let idx = Self::idx_var(c);
        let mut i = start + 1;
        let mut pass = 0u64;
        let mut result = Flow::Normal;
        loop {
            if end.is_some_and(|end| i > end) {
                break;
            }
            let Some(value) = self
                .user
                .vars
                .get(&format!("{input}{separator}{i}"))
                .map(str::to_string)
            else {
                break;
            };
            if self.should_stop() {
                result = Flow::StopThread;
                break;
            }
            self.user.vars.put(output.clone(), value);
            self.user.vars.put(idx.clone(), pass.to_string());
            self.passes.push(pass);
            let flow = self.run_pass(c).await;
            self.passes.pop();
            pass += 1;
            i += 1;
            match loop_step(flow) {
                LoopStep::Next => {}
                LoopStep::Exit => break,
                LoopStep::Return(flow) => {
                    result = flow;
                    break;
                }
            }
        }
        self.user.vars.put(idx, "0");
        result
    }
}

/// The samplers of a block made only of Simple Controllers, in order; false when it
/// holds another kind of controller (such a block runs whole).
fn simple_leaves(c: &Controller, out: &mut Vec<Arc<SamplerNode>>) -> bool {
    if !matches!(c.kind, ControllerKind::Simple) {
        return false;
    }
    for child in &c.children {
        match child {
            Node::Sampler(sampler) => out.push(sampler.clone()),
            Node::Controller(inner) if !simple_leaves(inner, out) => return false,
            Node::Controller(_) => {}
        }
    }
    true
}

struct ForEachSpec<'a> {
    input: &'a Template,
    output: &'a Template,
    use_separator: bool,
    start: &'a Setting,
    end: &'a Setting,
}

/// Switch Controller selection: empty → first child; digits → that index (out of
/// range → first); else the child of that name, else one named `default`.
fn switch_pick(c: &Controller, selector: &str) -> Option<usize> {
    if c.children.is_empty() {
        return None;
    }
    if selector.is_empty() {
        return Some(0);
    }
    if selector.bytes().all(|b| b.is_ascii_digit()) {
        let index = selector.parse::<usize>().unwrap_or(0);
        return Some(if index < c.children.len() { index } else { 0 });
    }
    let name_of = |node: &Node| match node {
        Node::Sampler(s) => s.name.raw().to_string(),
        Node::Controller(c) => c.name.raw().to_string(),
    };
    c.children
        .iter()
        .position(|n| name_of(n) == selector)
        .or_else(|| {
            c.children
                .iter()
                .position(|n| name_of(n).eq_ignore_ascii_case("default"))
        })
}
