//! The numbers behind the Prometheus endpoint and their text exposition.
//!
//! Each metric of a listener's table is a family whose children are keyed by label
//! values, updated as the plugin's updaters update them: counters count samples
//! (`CountTotal`, `SuccessTotal`, `FailureTotal`) or assertion results, success ratios
//! keep `_success`, `_failure` and `_total` counters, histograms and summaries observe
//! a sample's response time, size, latency, idle or connect time. [`render`] writes
//! what the plugin's client library (simpleclient 0.16) writes in text format 0.0.4:
//! counters under `<name>_total`, histograms' cumulative `_bucket{le=…}` lines with
//! `_count` and `_sum`, summaries' quantiles over their sliding window, and the
//! `_created` gauges last.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::sync::Arc;

use crate::foundation::java_format::java_double;
use crate::plan::tree::{PrometheusCollectorSpec, PrometheusKind, PrometheusMeasure};
use crate::sample::SampleResult;
use crate::user_state::ThreadCounts;

/// Where a label's value comes from.
#[derive(Debug, Clone)]
enum Source {
    /// `label`: the sample's label (an assertion's name for assertion results).
    Label,
    /// `code`: the response code.
    Code,
    /// `thread_group`: the user's thread group.
    ThreadGroup,
    /// A `sample_variables` entry, by its index.
    Variable(usize),
    /// Any other name: the plugin reads the user's variables, which the results thread
    /// does not see.
    Unknown,
}

/// One child's numbers.
enum Child {
    Counter(f64),
    Ratio {
        success: f64,
        failure: f64,
    },
    Histogram {
        buckets: Vec<u64>,
        count: u64,
        sum: f64,
    },
    Summary {
        count: u64,
        sum: f64,
        window: Window,
    },
}

struct Family {
    spec: PrometheusCollectorSpec,
    sources: Vec<Source>,
    index: HashMap<Vec<String>, usize>,
    /// Children in creation order: label values, creation time (epoch seconds), numbers.
    children: Vec<(Vec<String>, f64, Child)>,
}

pub(super) struct Registry {
    threads: Option<String>,
    counts: Arc<ThreadCounts>,
    sample_variables: Vec<String>,
    families: Vec<Family>,
}

impl Registry {
    pub(super) fn new(
        threads: Option<String>,
        counts: Arc<ThreadCounts>,
        sample_variables: Vec<String>,
    ) -> Registry {
        Registry {
            threads,
            counts,
            sample_variables,
            families: Vec::new(),
        }
    }

    /// The family's index; a metric defined the same way twice is one metric (the
    /// plugin's registry returns the first), a name defined two ways is refused.
    pub(super) fn register(&mut self, spec: &PrometheusCollectorSpec) -> Result<usize, String> {
        if let Some(i) = self
            .families
            .iter()
            .position(|f| f.spec.metric_name == spec.metric_name)
        {
            return if self.families[i].spec == *spec {
                Ok(i)
            } else {
                Err(format!(
                    "the metric {} is defined twice in different ways; the second is left out",
                    spec.metric_name
                ))
            };
        }
        let sources = spec
            .labels
            .iter()
            .map(|name| {
                if name.eq_ignore_ascii_case("label") {
                    Source::Label
                } else if name.eq_ignore_ascii_case("code") {
                    Source::Code
                } else if name.eq_ignore_ascii_case("thread_group") {
                    Source::ThreadGroup
                } else if let Some(i) = self.sample_variables.iter().position(|v| v == name) {
                    Source::Variable(i)
                } else {
                    Source::Unknown
                }
            })
            .collect();
        self.families.push(Family {
            spec: spec.clone(),
            sources,
            index: HashMap::new(),
            children: Vec::new(),
        });
        Ok(self.families.len() - 1)
    }

    /// Label names whose values cannot be known.
    pub(super) fn unknown_labels(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .families
            .iter()
            .flat_map(|f| f.spec.labels.iter().zip(&f.sources))
            .filter(|(_, s)| matches!(s, Source::Unknown))
            .map(|(name, _)| name.clone())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Adds one sample to family `index`, as the plugin's updater for it does.
    pub(super) fn update(&mut self, index: usize, sample: &SampleResult) {
        let family = &mut self.families[index];
        let measure = family.spec.measuring;
        let counting = matches!(
            measure,
            PrometheusMeasure::CountTotal
                | PrometheusMeasure::SuccessTotal
                | PrometheusMeasure::FailureTotal
                | PrometheusMeasure::SuccessRatio
        );
        if counting && family.spec.assertions {
            for assertion in &sample.assertions {
                let labels = family.label_values(sample, Some(&*assertion.name));
                family.count(labels, !assertion.failure);
            }
        } else if counting {
            let labels = family.label_values(sample, None);
            family.count(labels, sample.success);
        } else {
            let value = match measure {
                PrometheusMeasure::ResponseSize => sample
                    .body_size
                    .unwrap_or(sample.response_data.len() as i64),
                PrometheusMeasure::Latency => sample.latency,
                PrometheusMeasure::IdleTime => sample.idle_time,
                PrometheusMeasure::ConnectTime => sample.connect_time,
                _ => sample.elapsed,
            };
            let labels = family.label_values(sample, None);
            family.observe(labels, value);
        }
    }
}

impl Family {
    fn label_values(&self, sample: &SampleResult, assertion: Option<&str>) -> Vec<String> {
        self.sources
            .iter()
            .map(|source| {
                let value = match (source, assertion) {
                    (Source::Label, Some(name)) => name,
                    (Source::Label, None) => &*sample.label,
                    (Source::Code, None) => &*sample.response_code,
                    (Source::ThreadGroup, None) => thread_group(&sample.thread_name),
                    (Source::Variable(i), _) => sample
                        .sample_variables
                        .get(*i)
                        .and_then(|v| v.as_deref())
                        .unwrap_or(""),
                    // For assertion results the plugin knows only `label` and variables.
                    _ => "",
                };
                (if value.is_empty() { "null" } else { value }).to_string()
            })
            .collect()
    }

    /// The child for `labels`, made on first use with `make`.
    fn child(
        &mut self,
        labels: Vec<String>,
        make: impl FnOnce(&PrometheusCollectorSpec) -> Child,
    ) -> &mut Child {
        let i = match self.index.get(&labels) {
            Some(&i) => i,
            None => {
                let i = self.children.len();
                self.index.insert(labels.clone(), i);
                self.children
                    .push((labels, now_seconds(), make(&self.spec)));
                i
            }
        };
        &mut self.children[i].2
    }

    /// The plugin's `CountTypeUpdater`: counters count what they measure, success
    /// ratios both outcomes; other types are not changed by counting.
    fn count(&mut self, labels: Vec<String>, successful: bool) {
        match self.spec.kind {
            PrometheusKind::Counter => {
                let add = match self.spec.measuring {
                    PrometheusMeasure::CountTotal => true,
                    PrometheusMeasure::SuccessTotal => successful,
                    PrometheusMeasure::FailureTotal => !successful,
                    _ => false,
                };
                if add {
                    if let Child::Counter(n) = self.child(labels, |_| Child::Counter(0.0)) {
                        *n += 1.0;
                    }
                }
            }
            PrometheusKind::SuccessRatio => {
                let make = |_: &PrometheusCollectorSpec| Child::Ratio {
                    success: 0.0,
                    failure: 0.0,
                };
                if let Child::Ratio { success, failure } = self.child(labels, make) {
                    *if successful { success } else { failure } += 1.0;
                }
            }
            _ => {}
        }
    }

    /// The plugin's `AggregatedTypeUpdater`: histograms and summaries observe.
    fn observe(&mut self, labels: Vec<String>, value: i64) {
        let value = value as f64;
        match self.spec.kind {
            PrometheusKind::Histogram => {
                let make = |spec: &PrometheusCollectorSpec| Child::Histogram {
                    buckets: vec![0; spec.buckets.len() + 1],
                    count: 0,
                    sum: 0.0,
                };
                let bounds = &self.spec.buckets;
                let slot = bounds
                    .iter()
                    .position(|b| value <= *b)
                    .unwrap_or(bounds.len());
                if let Child::Histogram {
                    buckets,
                    count,
                    sum,
                } = self.child(labels, make)
                {
                    buckets[slot] += 1;
                    *count += 1;
                    *sum += value;
                }
            }
            PrometheusKind::Summary => {
                let make = |spec: &PrometheusCollectorSpec| Child::Summary {
                    count: 0,
                    sum: 0.0,
                    window: Window::new(spec.window_seconds),
                };
                if let Child::Summary { count, sum, window } = self.child(labels, make) {
                    *count += 1;
                    *sum += value;
                    window.observe(value as i64, now_millis());
                }
            }
            _ => {}
        }
    }
}

/// JMeter names a user `<thread group> <group number>-<user number>`.
fn thread_group(thread_name: &str) -> &str {
    match thread_name.rsplit_once(' ') {
        Some((group, numbers))
            if numbers.split_once('-').is_some_and(|(a, b)| {
                !a.is_empty()
                    && !b.is_empty()
                    && a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit())
            }) =>
        {
            group
        }
        _ => thread_name,
    }
}

/// A summary's sliding window as the client library keeps it: five overlapping
/// buckets, each observation in all of them, the oldest cleared every fifth of the
/// window; quantiles are read from the oldest, which covers between four fifths of the
/// window and all of it. Values are whole milliseconds or bytes, so each bucket counts
/// values exactly and quantiles are exact ranks (the library estimates within the
/// configured error).
struct Window {
    buckets: Vec<BTreeMap<i64, u64>>,
    current: usize,
    rotated_at: i64,
    step: i64,
}

impl Window {
    fn new(seconds: u64) -> Window {
        Window {
            buckets: vec![BTreeMap::new(); 5],
            current: 0,
            rotated_at: now_millis(),
            step: (seconds as i64 * 1000 / 5).max(1),
        }
    }

    fn rotate(&mut self, now: i64) {
        while now - self.rotated_at > self.step {
            self.buckets[self.current].clear();
            self.current = (self.current + 1) % self.buckets.len();
            self.rotated_at += self.step;
        }
    }

    fn observe(&mut self, value: i64, now: i64) {
        self.rotate(now);
        for bucket in &mut self.buckets {
            *bucket.entry(value).or_default() += 1;
        }
    }

    /// The nearest-rank quantile, NaN with no observation in the window.
    fn quantile(&mut self, q: f64, now: i64) -> f64 {
        self.rotate(now);
        let bucket = &self.buckets[self.current];
        let total: u64 = bucket.values().sum();
        if total == 0 {
            return f64::NAN;
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for (value, n) in bucket {
            seen += n;
            if seen >= rank {
                return *value as f64;
            }
        }
        f64::NAN
    }
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

fn now_seconds() -> f64 {
    now_millis() as f64 / 1000.0
}

/// Go's float text as the client library writes it: Java's `Double.toString`, with
/// `+Inf`, `-Inf` and `NaN`.
fn number(value: f64) -> String {
    if value.is_nan() {
        "NaN".into()
    } else if value.is_infinite() {
        (if value > 0.0 { "+Inf" } else { "-Inf" }).into()
    } else {
        java_double(value)
    }
}

/// `{a="x",b="y",}` with the client library's trailing comma; nothing without labels.
fn labels(names: &[String], values: &[String], extra: Option<(&str, &str)>) -> String {
    let mut pairs: Vec<(&str, &str)> = names
        .iter()
        .map(String::as_str)
        .zip(values.iter().map(String::as_str))
        .collect();
    pairs.extend(extra);
    if pairs.is_empty() {
        return String::new();
    }
    let mut out = String::from("{");
    for (name, value) in pairs {
        let escaped = value
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n");
        let _ = write!(out, "{name}=\"{escaped}\",");
    }
    out.push('}');
    out
}

/// The `_count` and `_sum` lines a histogram and a summary both end with.
fn count_and_sum(out: &mut String, name: &str, labels: &str, count: u64, sum: f64) {
    let _ = writeln!(out, "{name}_count{labels} {}", number(count as f64));
    let _ = writeln!(out, "{name}_sum{labels} {}", number(sum));
}

fn header(out: &mut String, name: &str, help: &str, kind: &str) {
    let help = help.replace('\\', "\\\\").replace('\n', "\\n");
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// The endpoint's text: the users gauge, each family, then the `_created` gauges.
pub(super) fn render(registry: &mut Registry) -> String {
    let mut out = String::new();
    // `_created` samples by their name, written last as gauges of their own.
    let mut created: BTreeMap<String, (String, Vec<String>)> = BTreeMap::new();
    if let Some(name) = &registry.threads {
        let counts = registry.counts.snapshot();
        header(&mut out, name, "Gauge for jmeter threads", "gauge");
        for (state, n) in [
            ("active", counts.active),
            ("finished", counts.finished),
            ("started", counts.started),
        ] {
            let _ = writeln!(out, "{name}{{state=\"{state}\",}} {}", number(n as f64));
        }
    }
    let now = now_millis();
    for family in &mut registry.families {
        let spec = &family.spec;
        let names = &spec.labels;
        let mut add_created = |base: &str, values: &[String], at: f64| {
            let entry = created
                .entry(format!("{base}_created"))
                .or_insert_with(|| (spec.help.clone(), Vec::new()));
            entry.1.push(format!(
                "{base}_created{} {}",
                labels(names, values, None),
                number(at)
            ));
        };
        match spec.kind {
            PrometheusKind::Counter => {
                let base = spec
                    .metric_name
                    .strip_suffix("_total")
                    .unwrap_or(&spec.metric_name);
                header(&mut out, &format!("{base}_total"), &spec.help, "counter");
                for (values, at, child) in &family.children {
                    if let Child::Counter(n) = child {
                        let _ = writeln!(
                            out,
                            "{base}_total{} {}",
                            labels(names, values, None),
                            number(*n)
                        );
                        add_created(base, values, *at);
                    }
                }
            }
            PrometheusKind::SuccessRatio => {
                let stem = spec.metric_name.trim_end_matches('_');
                for (part, pick) in [("success", 0), ("failure", 1), ("total", 2)] {
                    let full = format!("{stem}_{part}");
                    let base = full.strip_suffix("_total").unwrap_or(&full).to_string();
                    header(&mut out, &format!("{base}_total"), &spec.help, "counter");
                    for (values, at, child) in &family.children {
                        if let Child::Ratio { success, failure } = child {
                            let n = [*success, *failure, success + failure][pick];
                            let _ = writeln!(
                                out,
                                "{base}_total{} {}",
                                labels(names, values, None),
                                number(n)
                            );
                            add_created(&base, values, *at);
                        }
                    }
                }
            }
            PrometheusKind::Gauge => header(&mut out, &spec.metric_name, &spec.help, "gauge"),
            PrometheusKind::Histogram => {
                let name = &spec.metric_name;
                header(&mut out, name, &spec.help, "histogram");
                for (values, at, child) in &family.children {
                    if let Child::Histogram {
                        buckets,
                        count,
                        sum,
                    } = child
                    {
                        let mut cumulated = 0;
                        for (i, n) in buckets.iter().enumerate() {
                            cumulated += n;
                            let le = spec
                                .buckets
                                .get(i)
                                .map_or("+Inf".to_string(), |b| number(*b));
                            let _ = writeln!(
                                out,
                                "{name}_bucket{} {}",
                                labels(names, values, Some(("le", le.as_str()))),
                                number(cumulated as f64)
                            );
                        }
                        count_and_sum(&mut out, name, &labels(names, values, None), *count, *sum);
                        add_created(name, values, *at);
                    }
                }
            }
            PrometheusKind::Summary => {
                let name = &spec.metric_name;
                header(&mut out, name, &spec.help, "summary");
                for (values, at, child) in &mut family.children {
                    if let Child::Summary { count, sum, window } = child {
                        for (q, _) in &spec.quantiles {
                            let q_text = number(*q);
                            let value = window.quantile(*q, now);
                            let _ = writeln!(
                                out,
                                "{name}{} {}",
                                labels(names, values, Some(("quantile", q_text.as_str()))),
                                number(value)
                            );
                        }
                        count_and_sum(&mut out, name, &labels(names, values, None), *count, *sum);
                        add_created(name, values, *at);
                    }
                }
            }
        }
    }
    for (name, (help, lines)) in created {
        header(&mut out, &name, &help, "gauge");
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
