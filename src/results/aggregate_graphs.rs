//! The dashboard's graphs, accumulated per series and per time bucket as JMeter's graph
//! consumers define them (`processor/graph/impl`): which time a sample is bucketed by (start
//! for hits, end otherwise), whether Transaction Controller samples count, and whether a
//! bucket shows a mean, a per-second rate or a count.

use std::collections::{BTreeMap, VecDeque};

use super::aggregate::{AggregateSettings, Aggregator, ApdexThresholds, Observation};
use super::aggregate_graphs_buckets::{BucketCache, BucketMap, SmallKeyMap};
use super::aggregate_keys::Interner;
use super::percentile::Distribution;

#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Acc {
    sum: f64,
    count: u64,
}

/// A finished series: its name and `(x, y)` points.
pub type Series = (String, Vec<(f64, f64)>);

/// Series name -> x -> accumulated values.
type SeriesMap = BTreeMap<String, BTreeMap<i64, Acc>>;

/// Per-second samples in one end-time second, for the "vs Request" graphs.
#[derive(Debug, Clone)]
struct SecondBucket {
    count: u64,
    ok_elapsed: Distribution,
    ko_elapsed: Distribution,
    ok_latency: Distribution,
    ko_latency: Distribution,
}

/// One label's sums in one time bucket (end time).
#[derive(Debug, Clone, Copy, Default)]
struct LabelBucket {
    count: u64,
    elapsed: i64,
    latency: i64,
    connect: i64,
    ok: u64,
    ko: u64,
}

/// One label's graph state: kept together so a sample costs one label lookup.
#[derive(Debug, Clone)]
struct LabelSeries {
    name: String,
    over_time: BucketMap<LabelBucket>,
    /// Response time bucket index (elapsed / distribution granularity) -> count.
    distribution: SmallKeyMap<u64>,
    /// `allThreads` -> elapsed.
    vs_threads: SmallKeyMap<Acc>,
}

/// A named series of per-time-bucket values (a thread group's threads, a response code's
/// count), found by id.
#[derive(Debug, Clone)]
struct NamedBuckets<T> {
    ids: Interner<usize>,
    series: Vec<(String, BucketMap<T>)>,
}

impl<T> Default for NamedBuckets<T> {
    fn default() -> NamedBuckets<T> {
        NamedBuckets {
            ids: Interner::default(),
            series: Vec::new(),
        }
    }
}

impl<T: Default> NamedBuckets<T> {
    /// The id of series `name`, made on first sight.
    fn id(&mut self, name: &str) -> usize {
        let series = &mut self.series;
        self.ids.get_or_assign(name, || {
            series.push((name.to_string(), BucketMap::default()));
            series.len() - 1
        })
    }

    fn bucket(&mut self, name: &str, key: i64) -> &mut T {
        let id = self.id(name);
        self.series[id].1.get_or_default(key)
    }
}

/// A thread's group, as JMeter names threads ("<group> <n>-<m>"): up to the last space.
pub fn thread_group(thread_name: &str) -> &str {
    thread_name
        .bytes()
        .rposition(|b| b == b' ')
        .map_or(thread_name, |space| &thread_name[..space])
}

/// A named whole-test series and how to read its value from a bucket.
type GlobalPicker = (&'static str, fn(&GlobalBucket) -> f64);

/// Whole-test values in one time bucket (end time).
#[derive(Debug, Clone)]
struct GlobalBucket {
    /// Non-controller bytes received and sent.
    bytes: i64,
    sent: i64,
    /// Every sample's outcome, controllers included (Total Transactions Per Second).
    ok: u64,
    ko: u64,
    /// Elapsed times of successful non-controller samples (Response Time Percentiles Over
    /// Time; a bucket where it is empty has no point there).
    ok_elapsed: Distribution,
}

impl Default for GlobalBucket {
    fn default() -> GlobalBucket {
        GlobalBucket {
            bytes: 0,
            sent: 0,
            ok: 0,
            ko: 0,
            ok_elapsed: Distribution::new(0),
        }
    }
}

/// The running state of every default graph.
#[derive(Debug, Clone)]
pub struct GraphAccumulators {
    granularity: i64,
    distribution_granularity: i64,
    apdex: ApdexThresholds,
    /// By the aggregator's label id; `None` for labels without a counted sample.
    labels: Vec<Option<LabelSeries>>,
    /// Thread group name -> mean `grpThreads` per bucket.
    threads: NamedBuckets<Acc>,
    global: BucketMap<GlobalBucket>,
    /// Non-controller samples per start-time bucket.
    hits: BucketMap<u64>,
    codes: NamedBuckets<u64>,
    synthetic: [u64; 4],
    /// The end-time, start-time and response-time buckets of the latest samples.
    end_bucket: BucketCache,
    start_bucket: BucketCache,
    elapsed_bucket: BucketCache,
    /// Open end-time seconds in key order; older ones are folded into `by_rate` (see
    /// `fold_old_seconds`).
    seconds: VecDeque<(i64, SecondBucket)>,
    /// The second of the latest sample and its place in `seconds` (any change to
    /// `seconds` goes through the path that sets it again).
    second: BucketCache,
    second_at: Option<(i64, usize)>,
    newest_second: i64,
    /// Requests per second -> the values of every folded second that had that many.
    by_rate: BTreeMap<u64, SecondBucket>,
}

/// Seconds this far (ms) behind the newest one are final: samples arrive in end-time order
/// give or take the slowest response, so folding them keeps memory flat on long runs.
const SECONDS_KEPT_OPEN: i64 = 120_000;

impl SecondBucket {
    fn new() -> SecondBucket {
        SecondBucket {
            count: 0,
            ok_elapsed: Distribution::new(0),
            ko_elapsed: Distribution::new(0),
            ok_latency: Distribution::new(0),
            ko_latency: Distribution::new(0),
        }
    }

    /// Adds a finished second's values to this per-rate bucket.
    fn absorb(&mut self, other: &SecondBucket) {
        self.ok_elapsed.merge(&other.ok_elapsed);
        self.ko_elapsed.merge(&other.ko_elapsed);
        self.ok_latency.merge(&other.ok_latency);
        self.ko_latency.merge(&other.ko_latency);
    }
}

/// Which page a graph is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    OverTime,
    Throughput,
    ResponseTimes,
    /// Custom Graphs (`jmeter.reportgenerator.graph.custom_*`).
    Custom,
}

/// How the x axis reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XAxis {
    /// Epoch ms.
    Time,
    Number,
    /// Bars with names (the synthetic distribution).
    Category,
}

/// A finished graph, ready to draw.
#[derive(Debug, Clone)]
pub struct Graph {
    pub id: String,
    pub title: String,
    pub page: Page,
    pub x_axis: XAxis,
    pub x_label: String,
    pub y_label: String,
    /// Bucket width for over-time graphs, ms.
    pub granularity: Option<i64>,
    pub series: Vec<Series>,
    /// Text before a value in the hover tip (custom graphs), empty for the default.
    pub content_message: String,
}

#[derive(Clone, Copy)]
enum Mode {
    Mean,
    /// Sum per second of bucket.
    Rate(i64),
    Count,
}

fn finish(map: &SeriesMap, mode: Mode) -> Vec<Series> {
    map.iter()
        .map(|(name, points)| {
            let data = points
                .iter()
                .map(|(&x, acc)| {
                    let y = match mode {
                        Mode::Mean => acc.sum / acc.count as f64,
                        Mode::Rate(g) => acc.sum / (g as f64 / 1000.0),
                        Mode::Count => acc.count as f64,
                    };
                    (x as f64, y)
                })
                .collect();
            (name.clone(), data)
        })
        .collect()
}

impl GraphAccumulators {
    pub fn new(settings: &AggregateSettings) -> GraphAccumulators {
        GraphAccumulators {
            granularity: settings.granularity,
            distribution_granularity: settings.distribution_granularity,
            apdex: settings.apdex,
            labels: Vec::new(),
            threads: NamedBuckets::default(),
            global: BucketMap::default(),
            hits: BucketMap::default(),
            codes: NamedBuckets::default(),
            synthetic: [0; 4],
            end_bucket: BucketCache::new(settings.granularity),
            start_bucket: BucketCache::new(settings.granularity),
            elapsed_bucket: BucketCache::new(settings.distribution_granularity),
            seconds: VecDeque::new(),
            second: BucketCache::new(1000),
            second_at: None,
            newest_second: i64::MIN,
            by_rate: BTreeMap::new(),
        }
    }

    /// The id of a thread group's series (the `group` argument of [`Self::add`]).
    pub fn group_id(&mut self, group: &str) -> usize {
        self.threads.id(group)
    }

    /// Counts one sample of label `label` (the aggregator's id for `o.label`) from thread
    /// group `group` (see [`Self::group_id`]).
    pub fn add(&mut self, o: &Observation, label: usize, group: usize, controller: bool) {
        let end = self.end_bucket.key(o.end);
        if label >= self.labels.len() {
            self.labels.resize_with(label + 1, || None);
        }
        let series = self.labels[label].get_or_insert_with(|| LabelSeries {
            name: o.label.to_string(),
            over_time: BucketMap::default(),
            distribution: SmallKeyMap::default(),
            vs_threads: SmallKeyMap::default(),
        });
        let bucket = series.over_time.get_or_default(end);
        bucket.count += 1;
        bucket.elapsed += o.elapsed;
        bucket.latency += o.latency;
        bucket.connect += o.connect;
        *if o.success {
            &mut bucket.ok
        } else {
            &mut bucket.ko
        } += 1;
        *series
            .distribution
            .get_mut(self.elapsed_bucket.number(o.elapsed)) += 1;
        let acc = series.vs_threads.get_mut(o.all_threads);
        acc.sum += o.elapsed as f64;
        acc.count += 1;
        let acc = self.threads.series[group].1.get_or_default(end);
        acc.sum += o.grp_threads as f64;
        acc.count += 1;
        let global = self.global.get_or_default(end);
        *if o.success {
            &mut global.ok
        } else {
            &mut global.ko
        } += 1;
        if controller {
            return;
        }
        global.bytes += o.bytes;
        global.sent += o.sent_bytes;
        if o.success {
            global.ok_elapsed.add(o.elapsed);
        }
        *self.hits.get_or_default(self.start_bucket.key(o.start)) += 1;
        let code = if o.response_code.is_empty() {
            "EMPTY_RES_CODE"
        } else {
            o.response_code
        };
        *self.codes.bucket(code, end) += 1;
        self.synthetic[match () {
            _ if !o.success => 3,
            _ if o.elapsed <= self.apdex.satisfied => 0,
            _ if o.elapsed <= self.apdex.tolerated => 1,
            _ => 2,
        }] += 1;
        self.add_second(o);
    }

    fn add_second(&mut self, o: &Observation) {
        let second = self.second.key(o.end);
        let at = match self.second_at {
            Some((open, at)) if open == second => at,
            _ => {
                if second > self.newest_second {
                    self.newest_second = second;
                    self.fold_old_seconds();
                }
                let at = self.second_bucket(second);
                self.second_at = Some((second, at));
                at
            }
        };
        let bucket = &mut self.seconds[at].1;
        bucket.count += 1;
        if o.success {
            bucket.ok_elapsed.add(o.elapsed);
            bucket.ok_latency.add(o.latency);
        } else {
            bucket.ko_elapsed.add(o.elapsed);
            bucket.ko_latency.add(o.latency);
        }
    }

    /// The place of the open bucket of `second` in `seconds`, searched from the newest end
    /// where samples land.
    fn second_bucket(&mut self, second: i64) -> usize {
        let seconds = &mut self.seconds;
        let after = seconds
            .iter()
            .rposition(|(key, _)| *key <= second)
            .map_or(0, |i| i + 1);
        match after.checked_sub(1) {
            Some(i) if seconds[i].0 == second => i,
            _ => {
                seconds.insert(after, (second, SecondBucket::new()));
                after
            }
        }
    }

    fn fold_old_seconds(&mut self) {
        let cutoff = self.newest_second.saturating_sub(SECONDS_KEPT_OPEN);
        while self.seconds.front().is_some_and(|(key, _)| *key < cutoff) {
            if let Some((_, second)) = self.seconds.pop_front() {
                self.by_rate
                    .entry(second.count)
                    .or_insert_with(SecondBucket::new)
                    .absorb(&second);
            }
        }
    }

    /// Per-label over-time series of one value: `pick` gives (sum, count) of a bucket.
    fn per_label(&self, pick: impl Fn(&LabelBucket) -> Option<(f64, u64)>) -> SeriesMap {
        self.labels
            .iter()
            .flatten()
            .map(|l| {
                let points = l
                    .over_time
                    .iter()
                    .filter_map(|(x, b)| pick(b).map(|(sum, count)| (x, Acc { sum, count })))
                    .collect();
                (l.name.clone(), points)
            })
            .collect()
    }

    /// Transactions Per Second: `<label>-success` and `<label>-failure`.
    fn transactions(&self) -> SeriesMap {
        let mut map = SeriesMap::new();
        for (outcome, ok) in [("success", true), ("failure", false)] {
            let series = self.per_label(|b| {
                let n = if ok { b.ok } else { b.ko };
                (n > 0).then_some((n as f64, n))
            });
            for (name, points) in series {
                if !points.is_empty() {
                    map.insert(format!("{name}-{outcome}"), points);
                }
            }
        }
        map
    }

    /// Whole-test series, one per `(name, value)` picker.
    fn global_series(&self, pickers: &[GlobalPicker]) -> SeriesMap {
        pickers
            .iter()
            .map(|(name, pick)| {
                let points = self
                    .global
                    .iter()
                    .map(|(x, b)| {
                        (
                            x,
                            Acc {
                                sum: pick(b),
                                count: 1,
                            },
                        )
                    })
                    .collect();
                (name.to_string(), points)
            })
            .collect()
    }
}

/// Counts per x, in x order, as accumulated values.
fn counts<'a>(map: impl IntoIterator<Item = (i64, &'a u64)>) -> BTreeMap<i64, Acc> {
    map.into_iter()
        .map(|(x, &n)| {
            (
                x,
                Acc {
                    sum: n as f64,
                    count: n,
                },
            )
        })
        .collect()
}

/// What a default graph is: JMeter's id and title, its page and axes.
struct Spec {
    id: &'static str,
    title: &'static str,
    page: Page,
    x_axis: XAxis,
    x_label: &'static str,
    y_label: &'static str,
}

const TIME: &str = "Elapsed time";
const PER_SECOND: &str = "Global number of requests per second";

const fn spec(
    id: &'static str,
    title: &'static str,
    page: Page,
    x_axis: XAxis,
    x_label: &'static str,
    y_label: &'static str,
) -> Spec {
    Spec {
        id,
        title,
        page,
        x_axis,
        x_label,
        y_label,
    }
}

/// The 16 default graphs of JMeter's `reportgenerator.properties`, page by page.
#[rustfmt::skip]
const SPECS: &[Spec] = &[
    spec("responseTimesOverTime", "Response Time Over Time", Page::OverTime, XAxis::Time, TIME, "Average response time in ms"),
    spec("responseTimePercentilesOverTime", "Response Time Percentiles Over Time (successful requests only)", Page::OverTime, XAxis::Time, TIME, "Response time in ms"),
    spec("activeThreadsOverTime", "Active Threads Over Time", Page::OverTime, XAxis::Time, TIME, "Number of active threads"),
    spec("bytesThroughputOverTime", "Bytes Throughput Over Time", Page::OverTime, XAxis::Time, TIME, "Bytes / sec"),
    spec("latenciesOverTime", "Latencies Over Time", Page::OverTime, XAxis::Time, TIME, "Average latency in ms"),
    spec("connectTimeOverTime", "Connect Time Over Time", Page::OverTime, XAxis::Time, TIME, "Average connect time in ms"),
    spec("hitsPerSecond", "Hits Per Second", Page::Throughput, XAxis::Time, TIME, "Number of hits / sec"),
    spec("codesPerSecond", "Codes Per Second", Page::Throughput, XAxis::Time, TIME, "Number of responses / sec"),
    spec("transactionsPerSecond", "Transactions Per Second", Page::Throughput, XAxis::Time, TIME, "Number of transactions / sec"),
    spec("totalTPS", "Total Transactions Per Second", Page::Throughput, XAxis::Time, TIME, "Number of transactions / sec"),
    spec("responseTimeVsRequest", "Response Time Vs Request", Page::Throughput, XAxis::Number, PER_SECOND, "Median response time in ms"),
    spec("latencyVsRequest", "Latencies Vs Request", Page::Throughput, XAxis::Number, PER_SECOND, "Median latency in ms"),
    spec("responseTimePercentiles", "Response Time Percentiles", Page::ResponseTimes, XAxis::Number, "Percentiles", "Percentile value in ms"),
    spec("timeVsThreads", "Time VS Threads", Page::ResponseTimes, XAxis::Number, "Number of active threads", "Average response time in ms"),
    spec("responseTimeDistribution", "Response Time Distribution", Page::ResponseTimes, XAxis::Number, "Response time in ms", "Number of responses"),
    spec("syntheticResponseTimeDistribution", "Synthetic Response Times Distribution", Page::ResponseTimes, XAxis::Category, "", "Number of responses"),
];

/// A graph's bucket width and series.
fn data(agg: &Aggregator, id: &str) -> (Option<i64>, Vec<Series>) {
    let a = &agg.graphs;
    let g = a.granularity;
    let rate = Mode::Rate(g);
    let mean = |f: fn(&LabelBucket) -> i64| a.per_label(move |b| Some((f(b) as f64, b.count)));
    let of_labels = |f: fn(&LabelSeries) -> BTreeMap<i64, Acc>| -> SeriesMap {
        a.labels
            .iter()
            .flatten()
            .map(|l| (l.name.clone(), f(l)))
            .collect()
    };
    match id {
        "responseTimesOverTime" => (Some(g), finish(&mean(|b| b.elapsed), Mode::Mean)),
        "responseTimePercentilesOverTime" => (Some(g), percentiles_over_time(agg)),
        "activeThreadsOverTime" => {
            let threads: SeriesMap = a
                .threads
                .series
                .iter()
                // A group is named on first sight, before its sample may be left out.
                .filter(|(_, v)| v.iter().next().is_some())
                .map(|(k, v)| (k.clone(), v.iter().map(|(x, acc)| (x, *acc)).collect()))
                .collect();
            (Some(g), finish(&threads, Mode::Mean))
        }
        "bytesThroughputOverTime" => {
            let bytes = a.global_series(&[
                ("Bytes received per second", |b| b.bytes as f64),
                ("Bytes sent per second", |b| b.sent as f64),
            ]);
            (Some(g), finish(&bytes, rate))
        }
        "latenciesOverTime" => (Some(g), finish(&mean(|b| b.latency), Mode::Mean)),
        "connectTimeOverTime" => (Some(g), finish(&mean(|b| b.connect), Mode::Mean)),
        "hitsPerSecond" => {
            let hits = SeriesMap::from([("hitsPerSecond".to_string(), counts(a.hits.iter()))]);
            (Some(g), finish(&hits, rate))
        }
        "codesPerSecond" => {
            let codes: SeriesMap = a
                .codes
                .series
                .iter()
                .map(|(k, v)| (k.clone(), counts(v.iter())))
                .collect();
            (Some(g), finish(&codes, rate))
        }
        "transactionsPerSecond" => (Some(g), finish(&a.transactions(), rate)),
        "totalTPS" => {
            let tps = a.global_series(&[
                ("Transaction-success", |b| b.ok as f64),
                ("Transaction-failure", |b| b.ko as f64),
            ]);
            (Some(g), finish(&tps, rate))
        }
        "responseTimeVsRequest" => (None, vs_request(a, false)),
        "latencyVsRequest" => (None, vs_request(a, true)),
        "responseTimePercentiles" => (None, label_percentiles(agg)),
        "timeVsThreads" => (
            None,
            finish(
                &of_labels(|l| {
                    l.vs_threads
                        .sorted()
                        .into_iter()
                        .map(|(x, &acc)| (x, acc))
                        .collect()
                }),
                Mode::Mean,
            ),
        ),
        "responseTimeDistribution" => (
            Some(a.distribution_granularity),
            finish(
                &a.labels
                    .iter()
                    .flatten()
                    .map(|l| {
                        let buckets = l.distribution.sorted().into_iter();
                        (
                            l.name.clone(),
                            counts(buckets.map(|(i, n)| (i * a.distribution_granularity, n))),
                        )
                    })
                    .collect(),
                Mode::Count,
            ),
        ),
        _ => (None, synthetic(a)),
    }
}

/// Every default graph, then the custom graphs, finished.
pub fn graphs(agg: &Aggregator) -> Vec<Graph> {
    let defaults = SPECS.iter().map(|s| {
        let (granularity, series) = data(agg, s.id);
        Graph {
            id: s.id.to_string(),
            title: s.title.to_string(),
            page: s.page,
            x_axis: s.x_axis,
            x_label: s.x_label.to_string(),
            y_label: s.y_label.to_string(),
            granularity,
            series,
            content_message: String::new(),
        }
    });
    defaults.chain(agg.custom.graphs()).collect()
}

fn percentiles_over_time(agg: &Aggregator) -> Vec<Series> {
    let [p1, p2, p3] = agg.settings.percentiles;
    let names = [
        "Min".to_string(),
        "Max".to_string(),
        "Median".to_string(),
        format!("{p1}th percentile"),
        format!("{p2}th percentile"),
        format!("{p3}th percentile"),
    ];
    let mut series: Vec<Series> = names.into_iter().map(|n| (n, Vec::new())).collect();
    let buckets = agg.graphs.global.iter();
    for (x, d) in buckets
        .map(|(x, b)| (x, &b.ok_elapsed))
        .filter(|(_, d)| !d.is_empty())
    {
        let values = d.percentiles(&[0.0, 100.0, 50.0, p1, p2, p3]);
        for (s, v) in series.iter_mut().zip(values) {
            s.1.push((x as f64, v));
        }
    }
    series
}

fn vs_request(a: &GraphAccumulators, latency: bool) -> Vec<Series> {
    let mut by_rate = a.by_rate.clone();
    for (_, second) in &a.seconds {
        by_rate
            .entry(second.count)
            .or_insert_with(SecondBucket::new)
            .absorb(second);
    }
    let mut ok: BTreeMap<u64, &Distribution> = BTreeMap::new();
    let mut ko: BTreeMap<u64, &Distribution> = BTreeMap::new();
    for (&rate, b) in &by_rate {
        let (s, f) = if latency {
            (&b.ok_latency, &b.ko_latency)
        } else {
            (&b.ok_elapsed, &b.ko_elapsed)
        };
        if !s.is_empty() {
            ok.insert(rate, s);
        }
        if !f.is_empty() {
            ko.insert(rate, f);
        }
    }
    let median = |m: &BTreeMap<u64, &Distribution>| {
        m.iter()
            .map(|(&x, d)| (x as f64, d.percentiles(&[50.0])[0]))
            .collect()
    };
    vec![
        ("Successes".to_string(), median(&ok)),
        ("Failures".to_string(), median(&ko)),
    ]
}

fn label_percentiles(agg: &Aggregator) -> Vec<Series> {
    let ps: Vec<f64> = (0..1000).map(|i| i as f64 / 10.0).collect();
    let mut labels: Vec<_> = agg.labels().collect();
    labels.sort_by(|a, b| a.0.cmp(b.0));
    labels
        .into_iter()
        .map(|(name, s)| {
            let values = s.distribution.percentiles(&ps);
            (name.to_string(), ps.iter().copied().zip(values).collect())
        })
        .collect()
}

fn synthetic(a: &GraphAccumulators) -> Vec<Series> {
    let t = a.apdex;
    let names = [
        format!("Requests having response time <= {}ms", t.satisfied),
        format!(
            "Requests having response time > {}ms and <= {}ms",
            t.satisfied, t.tolerated
        ),
        format!("Requests having response time > {}ms", t.tolerated),
        "Requests in error".to_string(),
    ];
    names
        .into_iter()
        .zip(a.synthetic)
        .enumerate()
        .map(|(i, (n, c))| (n, vec![(i as f64, c as f64)]))
        .collect()
}

#[cfg(test)]
#[path = "aggregate_graphs_tests.rs"]
mod tests;
