//! `jmxr.sse.ReadEvents`: reads events from the user's stream (see [`super::stream`]
//! for when a read ends and how it reconnects) and makes them the sample's response:
//! the data of the matched events, one after the other separated by a line feed (with
//! one event, exactly its data), and, when `subResults` is on, one sub-result per
//! matched event (its data as response, its type as message, `event:` and `id:` as
//! response headers). After each read the variables `sse.last_event_id` (the
//! stream's) and `sse.event` (the type of the last matched event) are set.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use fancy_regex::Regex;

use super::{
    invalid, millis_setting, put_back, record_open, take, End, Filter, Headers, ReadOutcome,
    DEFAULT_READ_TIMEOUT_MS,
};
use crate::expr::Template;
use crate::jmx::Element;
use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::{SampleResult, Stopwatch};
use crate::samplers::new_result;

/// The variable holding the stream's last event ID after a read.
pub const LAST_EVENT_ID_VARIABLE: &str = "sse.last_event_id";
/// The variable holding the type of the last event a read matched.
pub const EVENT_VARIABLE: &str = "sse.event";

pub struct ReadEvents {
    count: Setting,
    event_type: Template,
    data_regex: Template,
    /// The pattern compiled once when it holds no `${...}`.
    constant_regex: Option<Regex>,
    timeout: Setting,
    reconnect: Setting,
    sub_results: bool,
    headers: Headers,
}

impl ReadEvents {
    pub fn build(cx: &mut BuildContext<'_>, configs: &[&Element]) -> ReadEvents {
        let data_regex = cx.template("dataRegex");
        let mut constant_regex = None;
        if data_regex.is_constant() && !data_regex.raw().is_empty() {
            match Regex::new(data_regex.raw()) {
                Ok(regex) => constant_regex = Some(regex),
                Err(error) => cx.error(format!(
                    "the data pattern {:?} is not a regular expression: {error}",
                    data_regex.raw()
                )),
            }
        }
        ReadEvents {
            count: cx.setting("count", "1"),
            event_type: cx.template("eventType"),
            data_regex,
            constant_regex,
            timeout: cx.setting("timeout", ""),
            reconnect: cx.setting("reconnect", "true"),
            sub_results: cx.flag("subResults", false),
            headers: Headers::build(cx, configs),
        }
    }

    fn filter(&self, cx: &mut SampleContext<'_>) -> Result<Filter, String> {
        let label = cx.label.clone();
        let mut ev = cx.user.eval(&label);
        let count_text = self.count.text(&mut ev);
        let count = match count_text.trim() {
            "" => 1,
            text => text
                .parse::<usize>()
                .map_err(|_| format!("Count '{text}' is not a number of events"))?,
        };
        let regex = match &self.constant_regex {
            Some(regex) => Some(regex.clone()),
            None => {
                let pattern = self.data_regex.eval(&mut ev);
                if pattern.is_empty() {
                    None
                } else {
                    Some(Regex::new(&pattern).map_err(|e| {
                        format!("Data pattern '{pattern}' is not a regular expression: {e}")
                    })?)
                }
            }
        };
        Ok(Filter {
            count,
            types: self
                .event_type
                .eval(&mut ev)
                .split(',')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
                .collect(),
            regex,
            timeout: millis_setting(
                "Timeout",
                &self.timeout.text(&mut ev),
                DEFAULT_READ_TIMEOUT_MS,
            )?,
            reconnect: self.reconnect.bool(&mut ev),
        })
    }
}

#[async_trait]
impl Sampler for ReadEvents {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        let mut result = new_result(cx, cx.label.clone());
        result.set_success(false);
        let filter = match self.filter(cx) {
            Ok(filter) => filter,
            Err(message) => return Some(Arc::new(invalid(result, message))),
        };
        let Some(mut stream) = take(cx.user) else {
            let mut result = invalid(
                result,
                "There is no event stream to read: an SSE Open Stream sampler opens one".into(),
            );
            result.response_code = "No stream".into();
            return Some(Arc::new(result));
        };
        // A reconnection sends the headers as they are now: a cookie may have changed.
        let (headers, _) = self.headers.evaluate(cx, stream.url());
        stream.set_headers(headers);
        result.url = Some(stream.url_text());
        result.sampler_data = describe_read(&filter, &stream.url_text(), stream.last_event_id());
        let watch = Stopwatch::start();
        let stop = cx.user.run.stop_now.clone();
        let outcome = stream.read(&filter, &stop).await;
        for opened in &outcome.reconnections {
            self.headers.store_cookies(cx, stream.url(), opened);
        }
        let props = &cx.user.run.props;
        let rename = !props.get_bool("subresults.disable_renaming", false);
        fill(
            &mut result,
            &outcome,
            &filter,
            &watch,
            self.sub_results.then_some(rename),
        );
        cx.user
            .vars
            .put_str(LAST_EVENT_ID_VARIABLE, stream.last_event_id());
        if let Some(last) = outcome.matched.last() {
            cx.user.vars.put_str(EVENT_VARIABLE, &last.event.event_type);
        }
        put_back(cx.user, stream);
        Some(Arc::new(result))
    }
}

/// What the read was asked, for the sampler data.
fn describe_read(filter: &Filter, url: &str, last_event_id: &str) -> String {
    let count = match filter.count {
        0 => "all".to_string(),
        n => n.to_string(),
    };
    let timeout = filter
        .timeout
        .map_or("none".to_string(), |t| format!("{} ms", t.as_millis()));
    let mut text = format!("Read events from {url}\nCount: {count}\nTimeout: {timeout}\n");
    if !filter.types.is_empty() {
        text.push_str(&format!("Event types: {}\n", filter.types.join(", ")));
    }
    if let Some(regex) = &filter.regex {
        text.push_str(&format!("Data pattern: {}\n", regex.as_str()));
    }
    if !last_event_id.is_empty() {
        text.push_str(&format!("Last-Event-ID: {last_event_id}\n"));
    }
    text
}

/// The sample for a read's outcome; `sub_results` holds whether sub-results are renamed
/// when they are made.
fn fill(
    result: &mut SampleResult,
    outcome: &ReadOutcome,
    filter: &Filter,
    watch: &Stopwatch,
    sub_results: Option<bool>,
) {
    for opened in &outcome.reconnections {
        record_open(result, opened);
    }
    result.data_type = "text";
    result.data_encoding = "UTF-8".into();
    let data: Vec<&str> = outcome
        .matched
        .iter()
        .map(|r| r.event.data.as_str())
        .collect();
    result.response_data = data.join("\n").into_bytes();
    result.body_size = Some(outcome.wire_bytes as i64);
    result.latency = outcome.matched.first().map_or(0, |r| r.at_ms);
    let summary = summary(outcome);
    let last_error = outcome
        .errors
        .last()
        .map(|e| format!("; last error: {e}"))
        .unwrap_or_default();
    let matched = outcome.matched.len();
    let (code, message, success) = match &outcome.end {
        End::Done => ("200".to_string(), summary, true),
        End::TimedOut => (
            "Timeout".to_string(),
            format!(
                "Timed out after {} ms with {matched} of {} events ({summary}){last_error}",
                filter.timeout.unwrap_or(Duration::ZERO).as_millis(),
                filter.count
            ),
            false,
        ),
        End::Closed(reason) => (
            "Closed".to_string(),
            format!(
                "Stream closed ({reason}) with {matched} of {} events ({summary}){last_error}",
                filter.count
            ),
            false,
        ),
        End::Refused(opened) => {
            record_open(result, opened);
            (
                opened.status.to_string(),
                format!("Reconnection refused: {} {}", opened.status, opened.reason),
                false,
            )
        }
        End::Stopped => (
            "Stopped".to_string(),
            format!("The run stopped the read ({summary})"),
            false,
        ),
    };
    result.response_code = code.into();
    result.response_message = message.into();
    result.set_success(success);
    watch.stop(result);
    if let Some(rename) = sub_results {
        for received in &outcome.matched {
            let mut child = SampleResult::new(result.label.clone());
            child.thread_name = result.thread_name.clone();
            child.start_time = result.start_time;
            child.end_time = result.start_time + received.at_ms;
            child.elapsed = received.at_ms;
            child.latency = received.at_ms;
            child.response_code = "200".into();
            child.response_message = received.event.event_type.clone().into();
            child.response_headers = format!(
                "event: {}\nid: {}\n",
                received.event.event_type, received.event.id
            );
            child.response_data = received.event.data.clone().into_bytes();
            child.data_type = "text";
            child.data_encoding = "UTF-8".into();
            child.set_success(true);
            result.add_subresult(child, rename);
        }
    }
}

/// `3 events, 2 skipped, 1 reconnection`.
fn summary(outcome: &ReadOutcome) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut text = plural(outcome.matched.len(), "event");
    if outcome.skipped > 0 {
        text.push_str(&format!(", {} skipped", outcome.skipped));
    }
    if !outcome.reconnections.is_empty() {
        text.push_str(", ");
        text.push_str(&plural(outcome.reconnections.len(), "reconnection"));
    }
    text
}
