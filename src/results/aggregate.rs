//! The dashboard aggregator: what JMeter's report generator computes, kept as running
//! aggregates (counts, incremental means, rolling percentile windows, per-time-bucket sums)
//! so memory does not grow with the number of samples.
//!
//! It is fed either live from the results bus (`-e`) or from `.jtl` records (`-g`), both
//! through [`Observation`]. The `report` module turns the result into files.

use regex::Regex;

use super::aggregate_graphs::{thread_group, GraphAccumulators};
use super::aggregate_graphs_custom::{
    custom_graph_specs, custom_value, CustomGraphSpec, CustomGraphs,
};
use super::aggregate_keys::{ArcIds, Interner};
use super::percentile::Distribution;
use super::save_config::save_flag;
use super::JtlRecord;
use crate::foundation::fast_hash::FastMap;
use crate::foundation::java_format::{Dialect, JavaDateFormat};
use crate::foundation::properties::Properties;
use crate::sample::SampleResult;

/// `Total` row name (JMeter's `reportgenerator_summary_total`).
pub const TOTAL: &str = "Total";
const CONTROLLER_PREFIX: &str = "Number of samples in transaction";
const EMPTY_CONTROLLER_PREFIX: &str = "Number of samples in transaction : 0";
const RG: &str = "jmeter.reportgenerator.";

/// APDEX thresholds for a label, in ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApdexThresholds {
    pub satisfied: i64,
    pub tolerated: i64,
}

/// Report settings from `jmeter.reportgenerator.*` and related properties.
#[derive(Debug, Clone)]
pub struct AggregateSettings {
    /// `overall_granularity`, ms.
    pub granularity: i64,
    /// `responseTimeDistribution` bucket width, ms.
    pub distribution_granularity: i64,
    /// `aggregate_rpt_pct1..3`.
    pub percentiles: [f64; 3],
    /// `statistic_window`; 0 = exact percentiles over every value (`jmxr.report.exact_percentiles=true`).
    pub window: usize,
    pub apdex: ApdexThresholds,
    /// `apdex_per_transaction`: whole-label patterns and their thresholds, first match wins.
    pub apdex_per_label: Vec<(Regex, ApdexThresholds)>,
    /// `sampleresult.timestamp.start`.
    pub timestamp_is_start: bool,
    /// `sample_filter`: only labels fully matching are counted.
    pub sample_filter: Option<Regex>,
    /// `start_date` / `end_date`: keep samples starting in this range (epoch ms).
    pub start_date: Option<i64>,
    pub end_date: Option<i64>,
    pub exclude_tc_from_top5: bool,
    /// `jmeter.save.saveservice.assertion_results_failure_message`.
    pub use_failure_message: bool,
    /// `jmeter.save.saveservice.subresults`: live sub-results count as the `.jtl` rows they
    /// become.
    pub subresults: bool,
    /// `jmeter.reportgenerator.graph.custom_*`.
    pub custom_graphs: Vec<CustomGraphSpec>,
    /// `sample_variables`: the order of a live sample's variable values.
    pub sample_variables: Vec<String>,
}

fn full_match(pattern: &str) -> Option<Regex> {
    Regex::new(&format!("^(?:{pattern})$")).ok()
}

/// `start_date` or `end_date` read with `date_format` (a `SimpleDateFormat` pattern, as
/// JMeter's report generator reads it), in epoch milliseconds.
fn date_property(props: &Properties, name: &str) -> Option<i64> {
    let text = props
        .get(&format!("{RG}{name}"))
        .filter(|t| !t.is_empty())?;
    let format = props
        .get(&format!("{RG}date_format"))
        .unwrap_or_else(|| "yyyyMMddHHmmss".into());
    let format = JavaDateFormat::compile(&format, Dialect::SimpleDateFormat).ok()?;
    format.read(&text).map(|t| t.timestamp_millis())
}

impl AggregateSettings {
    pub fn from_properties(props: &Properties) -> Result<AggregateSettings, String> {
        let float = |name: &str, default: f64| {
            props
                .get(name)
                .and_then(|v| v.trim().parse::<f64>().ok())
                .unwrap_or(default)
        };
        let apdex = ApdexThresholds {
            satisfied: props.get_i64(&format!("{RG}apdex_satisfied_threshold"), 500),
            tolerated: props.get_i64(&format!("{RG}apdex_tolerated_threshold"), 1500),
        };
        let mut apdex_per_label = Vec::new();
        if let Some(spec) = props.get(&format!("{RG}apdex_per_transaction")) {
            for entry in spec.split(';').map(str::trim).filter(|e| !e.is_empty()) {
                let parsed = entry.rsplit_once(':').and_then(|(name, t)| {
                    let (s, t) = t.split_once('|')?;
                    Some((
                        full_match(name.trim())?,
                        ApdexThresholds {
                            satisfied: s.trim().parse().ok()?,
                            tolerated: t.trim().parse().ok()?,
                        },
                    ))
                });
                apdex_per_label.push(
                    parsed.ok_or_else(|| {
                        format!("{RG}apdex_per_transaction: cannot read {entry:?}")
                    })?,
                );
            }
        }
        let sample_filter = match props.get(&format!("{RG}sample_filter")) {
            Some(f) if !f.is_empty() => Some(
                full_match(&f).ok_or_else(|| format!("{RG}sample_filter: bad pattern {f:?}"))?,
            ),
            _ => None,
        };
        let exact = props.get_bool("jmxr.report.exact_percentiles", false);
        Ok(AggregateSettings {
            granularity: props
                .get_i64(&format!("{RG}overall_granularity"), 60_000)
                .max(1),
            distribution_granularity: props
                .get_i64(
                    &format!("{RG}graph.responseTimeDistribution.property.set_granularity"),
                    100,
                )
                .max(1),
            percentiles: [
                float("aggregate_rpt_pct1", 90.0),
                float("aggregate_rpt_pct2", 95.0),
                float("aggregate_rpt_pct3", 99.0),
            ],
            window: if exact {
                0
            } else {
                props
                    .get_i64(&format!("{RG}statistic_window"), 20_000)
                    .max(1) as usize
            },
            apdex,
            apdex_per_label,
            timestamp_is_start: props.get_bool("sampleresult.timestamp.start", false),
            sample_filter,
            start_date: date_property(props, "start_date"),
            end_date: date_property(props, "end_date"),
            exclude_tc_from_top5: props
                .get_bool(&format!("{RG}exclude_tc_from_top5_errors_by_sampler"), true),
            use_failure_message: save_flag(props, "assertion_results_failure_message", true),
            subresults: save_flag(props, "subresults", true),
            custom_graphs: custom_graph_specs(
                props,
                props
                    .get_i64(&format!("{RG}overall_granularity"), 60_000)
                    .max(1),
            ),
            sample_variables: props
                .get("sample_variables")
                .unwrap_or_default()
                .split(',')
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
                .collect(),
        })
    }

    /// The thresholds for `label`: the first matching per-transaction entry, else the global.
    pub fn apdex_for(&self, label: &str) -> ApdexThresholds {
        self.apdex_per_label
            .iter()
            .find(|(re, _)| re.is_match(label))
            .map_or(self.apdex, |(_, t)| *t)
    }
}

/// One sample, as the aggregator reads it, from a live result or a `.jtl` record.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    pub start: i64,
    pub end: i64,
    pub elapsed: i64,
    pub latency: i64,
    pub connect: i64,
    pub bytes: i64,
    pub sent_bytes: i64,
    pub grp_threads: i64,
    pub all_threads: i64,
    pub success: bool,
    pub label: &'a str,
    pub response_code: &'a str,
    pub response_message: &'a str,
    pub failure_message: &'a str,
    pub thread_name: &'a str,
    /// Values of the custom graphs' variables, in the order of
    /// `AggregateSettings::custom_graphs` (empty when there are none).
    pub custom: &'a [Option<f64>],
}

impl<'a> Observation<'a> {
    pub fn from_record(r: &'a JtlRecord, timestamp_is_start: bool) -> Observation<'a> {
        let (start, end) = if timestamp_is_start {
            (r.timestamp, r.timestamp + r.elapsed)
        } else {
            (r.timestamp - r.elapsed, r.timestamp)
        };
        Observation {
            start,
            end,
            elapsed: r.elapsed,
            latency: r.latency,
            connect: r.connect,
            bytes: r.bytes,
            sent_bytes: r.sent_bytes,
            grp_threads: r.grp_threads,
            all_threads: r.all_threads,
            success: r.success,
            label: &r.label,
            response_code: &r.response_code,
            response_message: &r.response_message,
            failure_message: &r.failure_message,
            thread_name: &r.thread_name,
            custom: &r.custom,
        }
    }

    pub fn from_sample(s: &'a SampleResult) -> Observation<'a> {
        Observation {
            start: s.start_time,
            end: s.start_time + s.elapsed,
            elapsed: s.elapsed,
            latency: s.latency,
            connect: s.connect_time,
            bytes: s.bytes(),
            sent_bytes: s.sent_bytes,
            grp_threads: s.grp_threads.into(),
            all_threads: s.all_threads.into(),
            success: s.success,
            label: &s.label,
            response_code: &s.response_code,
            response_message: &s.response_message,
            failure_message: s.first_failure_message(),
            thread_name: &s.thread_name,
            custom: &[],
        }
    }

    pub fn is_controller(&self) -> bool {
        self.response_message.starts_with(CONTROLLER_PREFIX)
    }

    fn is_empty_controller(&self) -> bool {
        self.response_message.starts_with(EMPTY_CONTROLLER_PREFIX)
    }

    /// JMeter's error key (`ErrorsSummaryConsumer.getErrorKey`), unescaped.
    pub fn error_key(&self, use_failure_message: bool) -> String {
        let code = self.response_code;
        let success_code = code.parse::<i64>().is_ok_and(|c| (200..=399).contains(&c));
        if success_code || (code.is_empty() && !self.failure_message.trim().is_empty()) {
            if use_failure_message && !self.failure_message.trim().is_empty() {
                return self.failure_message.to_string();
            }
            return "Assertion failed".to_string();
        }
        if self.response_message.is_empty() {
            code.to_string()
        } else {
            format!("{code}/{}", self.response_message)
        }
    }
}

/// One row of the Statistics table.
#[derive(Debug, Clone)]
pub struct Summary {
    pub count: u64,
    pub errors: u64,
    /// Incremental mean, as commons-math computes it.
    pub mean: f64,
    pub min: i64,
    pub max: i64,
    pub first_start: i64,
    pub last_end: i64,
    pub bytes: i64,
    pub sent_bytes: i64,
    pub distribution: Distribution,
    pub is_controller: bool,
    pub apdex: ApdexThresholds,
    pub satisfied: u64,
    pub tolerated: u64,
    /// Error keys and counts for Top 5 Errors by sampler.
    pub error_keys: FastMap<String, u64>,
}

impl Summary {
    fn new(window: usize, apdex: ApdexThresholds, is_controller: bool) -> Summary {
        Summary {
            count: 0,
            errors: 0,
            mean: 0.0,
            min: i64::MAX,
            max: i64::MIN,
            first_start: i64::MAX,
            last_end: i64::MIN,
            bytes: 0,
            sent_bytes: 0,
            distribution: Distribution::new(window),
            is_controller,
            apdex,
            satisfied: 0,
            tolerated: 0,
            error_keys: FastMap::default(),
        }
    }

    #[inline]
    fn add(&mut self, o: &Observation) {
        self.count += 1;
        if !o.success {
            self.errors += 1;
        }
        self.mean += (o.elapsed as f64 - self.mean) / self.count as f64;
        self.min = self.min.min(o.elapsed);
        self.max = self.max.max(o.elapsed);
        self.first_start = self.first_start.min(o.start);
        self.last_end = self.last_end.max(o.end);
        self.bytes += o.bytes;
        self.sent_bytes += o.sent_bytes;
        self.distribution.add(o.elapsed);
    }

    fn add_apdex(&mut self, o: &Observation) {
        if o.success && o.elapsed <= self.apdex.satisfied {
            self.satisfied += 1;
        } else if o.success && o.elapsed <= self.apdex.tolerated {
            self.tolerated += 1;
        }
    }

    /// Samples per second over this row's span.
    pub fn throughput(&self) -> f64 {
        self.count as f64 / self.duration_ms() * 1000.0
    }

    pub fn received_kb_per_sec(&self) -> f64 {
        self.bytes as f64 / (self.duration_ms() / 1000.0) / 1024.0
    }

    pub fn sent_kb_per_sec(&self) -> f64 {
        self.sent_bytes as f64 / (self.duration_ms() / 1000.0) / 1024.0
    }

    fn duration_ms(&self) -> f64 {
        (self.last_end - self.first_start) as f64
    }

    /// (satisfied + tolerated / 2) / count.
    pub fn apdex_score(&self, apdex_count: u64) -> f64 {
        (self.satisfied as f64 + self.tolerated as f64 / 2.0) / apdex_count as f64
    }
}

/// Everything the dashboard shows, built one sample at a time.
///
/// Each label gets an id on first sight (`None` when `sample_filter` leaves it out), which
/// indexes its row here and its series in the graphs; each thread group likewise. Live
/// samples find both by their label's and thread name's `Arc` pointer, so the per-sample
/// path neither hashes nor copies those strings.
pub struct Aggregator {
    pub settings: AggregateSettings,
    /// Label -> id, or `None` for a label the sample filter leaves out.
    label_ids: Interner<Option<usize>>,
    live_label_ids: ArcIds<Option<usize>>,
    /// Thread name -> its group's id in the graphs, for live samples.
    thread_groups: Interner<usize>,
    live_thread_groups: ArcIds<usize>,
    /// Per label id: its name and Statistics row (count 0 until a sample counts).
    rows: Vec<(String, Summary)>,
    /// Non-controller samples (the Total row).
    pub total: Summary,
    /// Every non-empty sample, controllers included, for the overall APDEX.
    pub apdex_total: Summary,
    /// Error key -> count over non-controller samples.
    pub errors: FastMap<String, u64>,
    /// Begin and end of the whole test (every sample, filters aside).
    pub begin: i64,
    pub end: i64,
    pub graphs: GraphAccumulators,
    pub custom: CustomGraphs,
    /// Per custom graph: where its variable is among a live sample's variables.
    live_custom_columns: Vec<Option<usize>>,
    /// Reused buffer for a live sample's custom values.
    live_custom_values: Vec<Option<f64>>,
}

impl Aggregator {
    pub fn new(settings: AggregateSettings) -> Aggregator {
        let window = settings.window;
        let apdex = settings.apdex;
        Aggregator {
            graphs: GraphAccumulators::new(&settings),
            custom: CustomGraphs::new(settings.custom_graphs.clone()),
            live_custom_columns: settings
                .custom_graphs
                .iter()
                .map(|g| {
                    settings
                        .sample_variables
                        .iter()
                        .position(|v| *v == g.variable)
                })
                .collect(),
            live_custom_values: Vec::new(),
            settings,
            label_ids: Interner::default(),
            live_label_ids: ArcIds::default(),
            thread_groups: Interner::default(),
            live_thread_groups: ArcIds::default(),
            rows: Vec::new(),
            total: Summary::new(window, apdex, false),
            apdex_total: Summary::new(window, apdex, false),
            errors: FastMap::default(),
            begin: i64::MAX,
            end: i64::MIN,
        }
    }

    /// Every label's Statistics row, in first-seen order (labels seen only in samples that
    /// do not count, such as empty Transaction Controllers, have none).
    pub fn labels(&self) -> impl Iterator<Item = (&str, &Summary)> + '_ {
        self.rows
            .iter()
            .filter(|(_, s)| s.count > 0)
            .map(|(name, s)| (name.as_str(), s))
    }

    /// The Statistics row of `label`, if it has samples.
    pub fn label(&self, label: &str) -> Option<&Summary> {
        self.labels().find(|(n, _)| *n == label).map(|(_, s)| s)
    }

    /// Counts one sample everywhere it belongs.
    pub fn add(&mut self, o: &Observation) {
        let rows = &mut self.rows;
        let settings = &self.settings;
        let id = self
            .label_ids
            .get_or_assign(o.label, || new_row(settings, rows, o.label));
        let group = self.graphs.group_id(thread_group(o.thread_name));
        self.add_labelled(o, id, group);
    }

    /// Feeds a live result and its sub-results (which JMeter writes as rows of their own).
    pub fn add_sample(&mut self, sample: &SampleResult) {
        let rows = &mut self.rows;
        let settings = &self.settings;
        let id = self
            .live_label_ids
            .get_or_assign(&sample.label, &mut self.label_ids, || {
                new_row(settings, rows, &sample.label)
            });
        let graphs = &mut self.graphs;
        let group = self.live_thread_groups.get_or_assign(
            &sample.thread_name,
            &mut self.thread_groups,
            || graphs.group_id(thread_group(&sample.thread_name)),
        );
        if self.live_custom_columns.is_empty() {
            self.add_labelled(&Observation::from_sample(sample), id, group);
        } else {
            let mut custom = std::mem::take(&mut self.live_custom_values);
            custom.clear();
            custom.extend(self.live_custom_columns.iter().map(|column| {
                let text = column.and_then(|c| sample.sample_variables.get(c)?.as_deref());
                text.and_then(custom_value)
            }));
            let observation = Observation {
                custom: &custom,
                ..Observation::from_sample(sample)
            };
            self.add_labelled(&observation, id, group);
            self.live_custom_values = custom;
        }
        if self.settings.subresults {
            for child in &sample.subresults {
                self.add_sample(child);
            }
        }
    }

    /// Counts a sample whose label has id `id` (`None`: filtered out), from the thread
    /// group whose graph id is `group`.
    fn add_labelled(&mut self, o: &Observation, id: Option<usize>, group: usize) {
        let s = &self.settings;
        if s.start_date.is_some_and(|d| o.start < d) || s.end_date.is_some_and(|d| o.start > d) {
            return;
        }
        self.begin = self.begin.min(o.start);
        self.end = self.end.max(o.end);
        let Some(id) = id else {
            return;
        };
        if o.is_empty_controller() {
            return;
        }
        let controller = o.is_controller();
        let key = (!o.success).then(|| o.error_key(s.use_failure_message));
        let track_top5 = !controller || !s.exclude_tc_from_top5;
        let row = &mut self.rows[id].1;
        if row.count == 0 {
            // The first sample decides, as JMeter's first row does.
            row.is_controller = controller;
        }
        row.add(o);
        row.add_apdex(o);
        if let (Some(key), true) = (&key, track_top5) {
            *row.error_keys.entry(key.clone()).or_insert(0) += 1;
        }
        self.apdex_total.count += 1;
        self.apdex_total.add_apdex(o);
        if !controller {
            self.total.add(o);
            if let Some(key) = key {
                *self.errors.entry(key).or_insert(0) += 1;
            }
        }
        self.graphs.add(o, id, group, controller);
        self.custom.add(o, controller);
    }

    /// Merges the Total row's error keys for Top 5 (every non-controller error).
    pub fn total_error_keys(&self) -> &FastMap<String, u64> {
        &self.errors
    }
}

/// The id of a label seen for the first time: a new row, or `None` when the sample filter
/// leaves it out.
fn new_row(
    settings: &AggregateSettings,
    rows: &mut Vec<(String, Summary)>,
    label: &str,
) -> Option<usize> {
    if settings
        .sample_filter
        .as_ref()
        .is_some_and(|f| !f.is_match(label))
    {
        return None;
    }
    let summary = Summary::new(settings.window, settings.apdex_for(label), false);
    rows.push((label.to_string(), summary));
    Some(rows.len() - 1)
}

#[cfg(test)]
#[path = "aggregate_tests.rs"]
mod tests;
