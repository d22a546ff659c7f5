//! `SampleResult`: one measurement, as JMeter's `SampleResult` defines it.

use std::any::{Any, TypeId};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::Mutex;

use crate::foundation::clock::wall_clock_ms_at;

/// A response code or message: mostly a constant of the sampler (`200`, `OK`, `udp send
/// ok`), which then costs no allocation (and no free on the results thread).
pub type Text = std::borrow::Cow<'static, str>;

/// Outcome of one assertion on a sample.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssertionResult {
    /// The assertion element's name.
    pub name: Arc<str>,
    pub failure: bool,
    pub error: bool,
    pub failure_message: Option<String>,
}

/// One sample. Times are epoch milliseconds; `elapsed` excludes `idle_time`.
#[derive(Debug, Clone, Default)]
pub struct SampleResult {
    /// Start time, epoch ms (JMeter's `timeStamp` with `sampleresult.timestamp.start=true`).
    pub start_time: i64,
    /// End time, epoch ms.
    pub end_time: i64,
    /// `elapsed`: end − start − idle.
    pub elapsed: i64,
    pub idle_time: i64,
    pub latency: i64,
    pub connect_time: i64,
    pub label: Arc<str>,
    pub response_code: Text,
    pub response_message: Text,
    pub thread_name: Arc<str>,
    /// `text`, `bin` or empty.
    pub data_type: &'static str,
    pub success: bool,
    /// Response body bytes as received (after decoding for HTTP: JMeter stores the decoded body).
    pub response_data: Vec<u8>,
    pub response_headers: String,
    pub request_headers: String,
    /// `samplerData`: what was sent, as text.
    pub sampler_data: String,
    /// Content-Type of the response (`ct` in XML).
    pub content_type: Text,
    /// Response encoding (`de` in XML, `Encoding` column); empty means the default.
    pub data_encoding: Text,
    /// `None` prints as `null`.
    pub url: Option<String>,
    /// Size of the response headers; counted in `bytes` together with the body.
    pub headers_size: i64,
    /// Body size when it differs from the stored data (HTTP); `None` means `response_data.len()`.
    pub body_size: Option<i64>,
    /// Explicit `setBytes`, used only when headers + body are 0.
    pub bytes_override: i64,
    pub sent_bytes: i64,
    pub grp_threads: i32,
    pub all_threads: i32,
    pub sample_count: i32,
    pub error_count: i32,
    /// `Filename`: set when a response was saved to a file.
    pub result_file_name: String,
    pub assertions: Vec<AssertionResult>,
    pub subresults: Vec<SampleResult>,
    /// Set by scripts (`setIgnore`): the sample is not recorded.
    pub ignore: bool,
    /// Values of `sample_variables`, captured when the sample is published.
    pub sample_variables: Vec<Option<String>>,
    /// What the thread should do after this sample (set by samplers, the Result Status
    /// Action Handler, scripts).
    pub action: SampleAction,
    /// An HTTP sample (JMeter's `HTTPSampleResult`): written as `<httpSample>` in XML, with
    /// the HTTP request fields below instead of `<samplerData>`.
    pub is_http: bool,
    /// HTTP only: the `Cookie` header sent (`<cookies>` in XML).
    pub cookies: String,
    /// HTTP only: the request method; empty means unset, and no `<method>` is written.
    pub http_method: Text,
    /// HTTP only: the query string or form body (`<queryString>` in XML).
    pub query_string: String,
    /// HTTP only: the `Location` of a redirect response (`<redirectLocation>` in XML).
    pub redirect_location: Option<String>,
    /// When an arrival-driven sample was meant to start (epoch ms): its start moved back
    /// by how late its arrival began. `None` for samples of other thread groups.
    pub intended_start: Option<i64>,
    /// Parsed forms of `response_data` (a JSON index, a DOM), built by the first element
    /// that needs one and shared by the rest (see [`SampleResult::parsed`]).
    pub parsed: ParsedResponse,
}

/// The parsed forms of a sample's body. Their types belong to the layers that parse
/// (`query`), so they are kept by type; a clone of the sample starts without them.
#[derive(Default)]
pub struct ParsedResponse {
    forms: Mutex<Vec<ParsedForm>>,
}

struct ParsedForm {
    kind: TypeId,
    variant: u64,
    body: BodyIdentity,
    value: Arc<dyn Any + Send + Sync>,
}

/// Which body a form was parsed from: its address and length. A body replaced by another
/// lives elsewhere or has another length.
#[derive(Clone, Copy, PartialEq, Eq)]
struct BodyIdentity(usize, usize);

impl BodyIdentity {
    fn of(body: &[u8]) -> BodyIdentity {
        BodyIdentity(body.as_ptr() as usize, body.len())
    }
}

impl Clone for ParsedResponse {
    fn clone(&self) -> ParsedResponse {
        ParsedResponse::default()
    }
}

impl std::fmt::Debug for ParsedResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ParsedResponse({} forms)", self.forms.lock().len())
    }
}

/// A request, carried by a sample, to change the thread's course once the sample is recorded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SampleAction {
    #[default]
    Continue,
    StartNextThreadLoop,
    StartNextIterationOfCurrentLoop,
    BreakCurrentLoop,
    StopThread,
    StopTest,
    StopTestNow,
}

thread_local! {
    /// The thread name of a sample not yet stamped by the engine, one per thread so that
    /// counting its uses never contends with other threads.
    static EMPTY_NAME: Arc<str> = Arc::from("");
}

/// Response message prefix that marks a Transaction Controller sample.
pub const TRANSACTION_MESSAGE_PREFIX: &str = "Number of samples in transaction";

impl SampleResult {
    /// A successful-by-default result labelled `label`, counting as one sample.
    #[inline]
    pub fn new(label: Arc<str>) -> SampleResult {
        // Field by field rather than `..Default::default()`: that would also make a default
        // label and thread name, each an atomic count on one static shared by every
        // thread, for every sample.
        SampleResult {
            start_time: 0,
            end_time: 0,
            elapsed: 0,
            idle_time: 0,
            latency: 0,
            connect_time: 0,
            label,
            response_code: Text::Borrowed(""),
            response_message: Text::Borrowed(""),
            thread_name: EMPTY_NAME.with(Arc::clone),
            data_type: "",
            success: true,
            response_data: Vec::new(),
            response_headers: String::new(),
            request_headers: String::new(),
            sampler_data: String::new(),
            content_type: Text::Borrowed(""),
            data_encoding: Text::Borrowed(""),
            url: None,
            headers_size: 0,
            body_size: None,
            bytes_override: 0,
            sent_bytes: 0,
            grp_threads: 0,
            all_threads: 0,
            sample_count: 1,
            error_count: 0,
            result_file_name: String::new(),
            assertions: Vec::new(),
            subresults: Vec::new(),
            ignore: false,
            sample_variables: Vec::new(),
            action: SampleAction::Continue,
            is_http: false,
            cookies: String::new(),
            http_method: Text::Borrowed(""),
            query_string: String::new(),
            redirect_location: None,
            intended_start: None,
            parsed: ParsedResponse::default(),
        }
    }

    /// [`SampleResult::new`], made in its shared allocation: a result is ~600 bytes, and
    /// made on the stack and then moved into an `Arc` it is copied once or twice more.
    #[inline(always)]
    pub fn new_shared(label: Arc<str>) -> Arc<SampleResult> {
        let mut shared = Arc::<SampleResult>::new_uninit();
        Arc::get_mut(&mut shared)
            .expect("a new allocation is not shared")
            .write(SampleResult::new(label));
        // SAFETY: initialised just above.
        unsafe { shared.assume_init() }
    }

    /// The parsed form `T` of the response body in `variant` (the parser's options, `0`
    /// when it has none), made by `parse` the first time an element asks for it and shared
    /// by every element of this sample after it: three JSON Extractors on one sampler
    /// index the body once. A body replaced since (a script's `setResponseData`) is
    /// parsed again.
    pub fn parsed<T: Any + Send + Sync>(
        &self,
        variant: u64,
        parse: impl FnOnce(&[u8]) -> T,
    ) -> Arc<T> {
        if let Some(value) = self.parsed_if_present::<T>(variant) {
            return value;
        }
        let body = BodyIdentity::of(&self.response_data);
        let kind = TypeId::of::<T>();
        let value = Arc::new(parse(&self.response_data));
        let mut forms = self.parsed.forms.lock();
        forms.retain(|f| f.body == body);
        forms.push(ParsedForm {
            kind,
            variant,
            body,
            value: value.clone(),
        });
        value
    }

    /// The parsed form `T` in `variant` when an element has made it for the current body.
    pub fn parsed_if_present<T: Any + Send + Sync>(&self, variant: u64) -> Option<Arc<T>> {
        let body = BodyIdentity::of(&self.response_data);
        let kind = TypeId::of::<T>();
        let found = self
            .parsed
            .forms
            .lock()
            .iter()
            .find(|f| f.kind == kind && f.variant == variant && f.body == body)
            .map(|f| f.value.clone())?;
        found.downcast::<T>().ok()
    }

    /// Drops the parsed forms of this sample and its sub-samples: a recorded sample
    /// (kept as the user's `prev` and on its way to the sinks) needs them no more.
    pub fn forget_parsed(&mut self) {
        self.parsed.forms.get_mut().clear();
        for sub in &mut self.subresults {
            sub.forget_parsed();
        }
    }

    /// JMeter's `getBytesAsLong`: headers + body (body falls back to the stored data length);
    /// an explicit byte count only when that is 0.
    pub fn bytes(&self) -> i64 {
        let body = self.body_size.unwrap_or(self.response_data.len() as i64);
        let total = self.headers_size + body;
        if total == 0 {
            self.bytes_override
        } else {
            total
        }
    }

    /// The `failureMessage` column: JMeter's `getFirstAssertionFailureMessage`, the first
    /// assertion message that is set, whether or not that assertion failed.
    pub fn first_failure_message(&self) -> &str {
        self.assertions
            .iter()
            .find_map(|a| a.failure_message.as_deref())
            .unwrap_or("")
    }

    /// Whether this is a Transaction Controller sample.
    pub fn is_transaction(&self) -> bool {
        self.response_message
            .starts_with(TRANSACTION_MESSAGE_PREFIX)
    }

    /// Error count as JMeter sets it from `success` when not aggregated.
    pub fn set_success(&mut self, success: bool) {
        self.success = success;
        self.error_count = if success { 0 } else { 1 };
    }

    /// Adds a sub-result the way JMeter's `addSubResult` does: sizes add up, the
    /// end time stretches, and the child is renamed `<label>-<n>` unless `keep_label`.
    pub fn add_subresult(&mut self, mut child: SampleResult, rename: bool) {
        if rename {
            child.label = Arc::from(format!("{}-{}", self.label, self.subresults.len()));
        }
        if child.end_time > self.end_time {
            self.end_time = child.end_time;
            self.elapsed = self.end_time - self.start_time - self.idle_time;
        }
        self.bytes_override = self.bytes() + child.bytes();
        self.sent_bytes += child.sent_bytes;
        self.subresults.push(child);
    }
}

/// Times one sample on the monotonic clock, so clock adjustments never distort
/// durations; the start stamp JMeter writes is that instant on the wall clock (see
/// [`wall_clock_ms_at`](crate::foundation::clock::wall_clock_ms_at)).
pub struct Stopwatch {
    start_ms: i64,
    started: Instant,
}

impl Stopwatch {
    pub fn start() -> Stopwatch {
        let started = Instant::now();
        Stopwatch {
            start_ms: wall_clock_ms_at(started),
            started,
        }
    }

    /// The start, epoch ms.
    pub fn start_ms(&self) -> i64 {
        self.start_ms
    }

    /// Milliseconds since the start (for latency and connect time).
    pub fn elapsed_ms(&self) -> i64 {
        i64::try_from(self.started.elapsed().as_millis()).unwrap_or(i64::MAX)
    }

    /// Records start, end and elapsed on `result` (end = start + elapsed).
    pub fn stop(&self, result: &mut SampleResult) {
        let elapsed = i64::try_from(self.started.elapsed().as_millis()).unwrap_or(i64::MAX);
        result.start_time = self.start_ms;
        result.elapsed = elapsed;
        result.end_time = self.start_ms.saturating_add(elapsed);
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    fn body(text: &str) -> SampleResult {
        let mut result = SampleResult::new(Arc::from("s"));
        result.response_data = text.as_bytes().to_vec();
        result
    }

    #[test]
    fn a_parsed_form_is_made_once_and_shared_until_the_body_changes() {
        let parses = Cell::new(0);
        let length = |result: &SampleResult, variant| {
            result.parsed(variant, |b: &[u8]| {
                parses.set(parses.get() + 1);
                b.len()
            })
        };
        let mut result = body("{\"a\":1}");
        assert_eq!(*length(&result, 0), 7);
        assert_eq!(*length(&result, 0), 7);
        assert_eq!(
            parses.get(),
            1,
            "the second element reuses the first one's form"
        );
        // Another variant (parser options) or another type is another form.
        length(&result, 1);
        assert_eq!(parses.get(), 2);
        assert_eq!(*result.parsed(0, |b| b.first().copied()), Some(b'{'));
        // A body replaced by a script is parsed again.
        result.response_data = b"[]".to_vec();
        assert_eq!(*length(&result, 0), 2);
        assert_eq!(parses.get(), 3);
        assert!(result.parsed_if_present::<usize>(0).is_some());
        assert!(result.clone().parsed_if_present::<usize>(0).is_none());
        result.forget_parsed();
        assert!(result.parsed_if_present::<usize>(0).is_none());
    }
}
