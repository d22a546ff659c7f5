//! Flow Control Action (`TestAction`): produces no sample; pauses, or steers the thread.

use std::sync::Arc;

use async_trait::async_trait;

use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::SampleAction;
use crate::sample::SampleResult;

/// `ActionProcessor.action` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Stop,
    Pause,
    StopNow,
    StartNextThreadLoop,
    StartNextIterationOfCurrentLoop,
    BreakCurrentLoop,
}

pub struct FlowControlAction {
    action: Action,
    /// `ActionProcessor.target`: 0 = this thread, 2 = the whole test.
    whole_test: bool,
    duration: Setting,
}

pub fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    let action = match cx
        .raw("ActionProcessor.action")
        .map(crate::plan::context::parse_i64)
        .unwrap_or(0)
    {
        1 => Action::Pause,
        2 => Action::StopNow,
        3 => Action::StartNextThreadLoop,
        4 => Action::StartNextIterationOfCurrentLoop,
        5 => Action::BreakCurrentLoop,
        _ => Action::Stop,
    };
    let whole_test = cx
        .raw("ActionProcessor.target")
        .map(crate::plan::context::parse_i64)
        == Some(2);
    let duration = cx.setting("ActionProcessor.duration", "0");
    Arc::new(FlowControlAction {
        action,
        whole_test,
        duration,
    })
}

impl FlowControlAction {
    /// One sample; [`Sampler::sample`] boxes it for the engine.
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> Option<SampleResult> {
        cx.action = match self.action {
            Action::Pause => {
                let ms = self.duration.i64(&mut cx.user.eval(&cx.label)).max(0);
                cx.user.pause(ms as u64).await;
                SampleAction::Continue
            }
            Action::Stop if self.whole_test => SampleAction::StopTest,
            Action::Stop => SampleAction::StopThread,
            Action::StopNow if self.whole_test => SampleAction::StopTestNow,
            Action::StopNow => SampleAction::StopThread,
            Action::StartNextThreadLoop => SampleAction::StartNextThreadLoop,
            Action::StartNextIterationOfCurrentLoop => {
                SampleAction::StartNextIterationOfCurrentLoop
            }
            Action::BreakCurrentLoop => SampleAction::BreakCurrentLoop,
        };
        None
    }
}

#[async_trait]
impl Sampler for FlowControlAction {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        self.sample_unboxed(cx).await.map(Arc::new)
    }
}
