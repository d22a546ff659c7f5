//! Transaction Controllers: a sample that sums up the samples of its children.
//!
//! In the default mode the children are recorded normally and one more sample follows
//! them; in parent mode ("Generate parent sample") the children become sub-results of
//! that one sample. Numbers follow reference §3.3.

use std::sync::Arc;
use std::time::Instant;

use super::controllers::Flow;
use super::vu::{OpenTransaction, VirtualUser};
use crate::plan::Controller;
use crate::sample::SampleResult;

fn now_ms() -> i64 {
    crate::foundation::clock::wall_clock_ms()
}

impl VirtualUser {
    pub(super) async fn run_transaction(
        &mut self,
        c: &Arc<Controller>,
        parent_mode: bool,
        include_timers: bool,
    ) -> Flow {
        let start = now_ms();
        let clock = Instant::now();
        self.transactions.push(OpenTransaction::new(parent_mode));
        let flow = self.run_pass_of(c, !parent_mode).await;
        let Some(open) = self.transactions.pop() else {
            return flow;
        };
        if flow == Flow::StopThread && self.user.run.stop_now.is_cancelled() {
            return flow;
        }
        let label: Arc<str> = Arc::from(c.name.eval(&mut self.user.eval("")));
        let total = clock.elapsed().as_millis() as i64;
        let aborted = flow != Flow::Normal;
        let mut result = summarise(open, label, start, total, include_timers, parent_mode);
        if aborted && !parent_mode {
            // JMeter's end-of-loop path takes the status from the last sample and sets no code.
            let last_ok = self.user.vars.get("JMeterThread.last_sample_ok") != Some("false");
            result.set_success(last_ok);
            result.response_code = "".into();
        }
        self.stamp(&mut result);
        if aborted && parent_mode && self.transactions.last().is_some_and(|t| t.parent_mode) {
            // JMeter ends such a nested transaction from `triggerEndOfLoop`, whose sample
            // never gets the thread counts: they stay 0 inside the enclosing sample.
            result.grp_threads = 0;
            result.all_threads = 0;
        }
        if parent_mode {
            let mut cx = self.user.eval("");
            for assertion in &c.scope.assertions {
                assertion.apply(&mut result, &mut cx);
            }
            let ok = result.success;
            self.set_last_ok(ok);
        }
        for listener in &c.scope.sample_listeners {
            listener.sample_finished(&mut result, &mut self.user);
        }
        self.record(Arc::new(result), &c.scope.listeners).await;
        flow
    }
}

/// Builds the transaction's sample from what its children recorded.
fn summarise(
    open: OpenTransaction,
    label: Arc<str>,
    start: i64,
    total: i64,
    include_timers: bool,
    parent_mode: bool,
) -> SampleResult {
    let mut result = SampleResult::new(label);
    let n = if parent_mode {
        open.samples.len()
    } else {
        open.calls
    };
    let failing = open.failing;
    result.start_time = start;
    result.response_message =
        format!("Number of samples in transaction : {n}, number of failing samples : {failing}")
            .into();
    result.data_type = "";
    let success = failing == 0;
    result.set_success(success);
    let (elapsed, idle) = if include_timers {
        (total, 0)
    } else {
        (open.child_elapsed, (total - open.child_elapsed).max(0))
    };
    result.idle_time = idle;
    if parent_mode {
        result.response_code = if success {
            "200".into()
        } else {
            open.code.clone()
        };
        let mut end = start;
        for child in &open.samples {
            result.connect_time += child.connect_time;
            end = end.max(child.end_time);
            result.add_subresult((**child).clone(), false);
        }
        result.end_time = if include_timers {
            end.max(start)
        } else {
            start + total
        };
        result.elapsed = if include_timers {
            result.end_time - start
        } else {
            elapsed
        };
    } else {
        result.response_code = if success { "200" } else { "" }.into();
        let mut bytes = 0;
        for child in &open.samples {
            bytes += child.bytes();
            result.sent_bytes += child.sent_bytes;
            result.latency += child.latency;
            result.connect_time += child.connect_time;
        }
        result.bytes_override = bytes;
        result.end_time = start + total;
        result.elapsed = elapsed;
    }
    result
}
