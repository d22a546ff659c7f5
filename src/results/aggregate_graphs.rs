//! The dashboard's graphs, accumulated per series and per time bucket as JMeter's graph
//! consumers define them (`processor/graph/impl`): which time a sample is bucketed by (start
//! for hits, end otherwise), whether Transaction Controller samples count, and whether a
//! bucket shows a mean, a per-second rate or a count.

use std::collections::BTreeMap;

use super::aggregate::{AggregateSettings, Aggregator, ApdexThresholds, Observation};
use super::percentile::Distribution;

#[derive(Debug, Clone, Copy, Default)]
struct Acc {
    sum: f64,
    count: u64,
}

/// A finished series: its name and `(x, y)` points.
pub type Series = (String, Vec<(f64, f64)>);

/// Series name → x → accumulated values.
type SeriesMap = BTreeMap<String, BTreeMap<i64, Acc>>;

fn add_to(map: &mut SeriesMap, series: &str, x: i64, value: f64) {
    if !map.contains_key(series) {
        map.insert(series.to_string(), BTreeMap::new());
    }
    if let Some(points) = map.get_mut(series) {
        let acc = points.entry(x).or_default();
        acc.sum += value;
        acc.count += 1;
    }
}

/// Per-second samples in one end-time second, for the "vs Request" graphs.
#[derive(Debug, Clone)]
struct SecondBucket {
    count: u64,
    ok_elapsed: Distribution,
    ko_elapsed: Distribution,
    ok_latency: Distribution,
    ko_latency: Distribution,
}

/// The running state of every default graph.
#[derive(Debug, Clone)]
pub struct GraphAccumulators {
    granularity: i64,
    distribution_granularity: i64,
    apdex: ApdexThresholds,
    response_times: SeriesMap,
    latencies: SeriesMap,
    connect: SeriesMap,
    threads: SeriesMap,
    bytes: SeriesMap,
    hits: SeriesMap,
    codes: SeriesMap,
    total_tps: SeriesMap,
    tps: SeriesMap,
    distribution: SeriesMap,
    time_vs_threads: SeriesMap,
    synthetic: [u64; 4],
    percentiles_over_time: BTreeMap<i64, Distribution>,
    seconds: BTreeMap<i64, SecondBucket>,
}

/// Which page a graph is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Page {
    OverTime,
    Throughput,
    ResponseTimes,
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
    pub id: &'static str,
    pub title: String,
    pub page: Page,
    pub x_axis: XAxis,
    pub x_label: &'static str,
    pub y_label: &'static str,
    /// Bucket width for over-time graphs, ms.
    pub granularity: Option<i64>,
    pub series: Vec<Series>,
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
            response_times: SeriesMap::new(),
            latencies: SeriesMap::new(),
            connect: SeriesMap::new(),
            threads: SeriesMap::new(),
            bytes: SeriesMap::new(),
            hits: SeriesMap::new(),
            codes: SeriesMap::new(),
            total_tps: SeriesMap::new(),
            tps: SeriesMap::new(),
            distribution: SeriesMap::new(),
            time_vs_threads: SeriesMap::new(),
            synthetic: [0; 4],
            percentiles_over_time: BTreeMap::new(),
            seconds: BTreeMap::new(),
        }
    }

    pub fn add(&mut self, o: &Observation, controller: bool) {
        let g = self.granularity;
        let end = o.end - o.end.rem_euclid(g);
        let start = o.start - o.start.rem_euclid(g);
        add_to(&mut self.response_times, o.label, end, o.elapsed as f64);
        add_to(&mut self.latencies, o.label, end, o.latency as f64);
        add_to(&mut self.connect, o.label, end, o.connect as f64);
        let group = o
            .thread_name
            .rsplit_once(' ')
            .map_or(o.thread_name, |(g, _)| g);
        add_to(&mut self.threads, group, end, o.grp_threads as f64);
        let outcome = if o.success { "success" } else { "failure" };
        add_to(
            &mut self.total_tps,
            &format!("Transaction-{outcome}"),
            end,
            1.0,
        );
        add_to(&mut self.tps, &format!("{}-{outcome}", o.label), end, 1.0);
        let d = self.distribution_granularity;
        add_to(
            &mut self.distribution,
            o.label,
            o.elapsed - o.elapsed.rem_euclid(d),
            1.0,
        );
        add_to(
            &mut self.time_vs_threads,
            o.label,
            o.all_threads,
            o.elapsed as f64,
        );
        if controller {
            return;
        }
        add_to(
            &mut self.bytes,
            "Bytes received per second",
            end,
            o.bytes as f64,
        );
        add_to(
            &mut self.bytes,
            "Bytes sent per second",
            end,
            o.sent_bytes as f64,
        );
        add_to(&mut self.hits, "hitsPerSecond", start, 1.0);
        let code = if o.response_code.is_empty() {
            "EMPTY_RES_CODE"
        } else {
            o.response_code
        };
        add_to(&mut self.codes, code, end, 1.0);
        self.synthetic[match () {
            _ if !o.success => 3,
            _ if o.elapsed <= self.apdex.satisfied => 0,
            _ if o.elapsed <= self.apdex.tolerated => 1,
            _ => 2,
        }] += 1;
        if o.success {
            self.percentiles_over_time
                .entry(end)
                .or_insert_with(|| Distribution::new(0))
                .add(o.elapsed);
        }
        let second = o.end - o.end.rem_euclid(1000);
        let bucket = self.seconds.entry(second).or_insert_with(|| SecondBucket {
            count: 0,
            ok_elapsed: Distribution::new(0),
            ko_elapsed: Distribution::new(0),
            ok_latency: Distribution::new(0),
            ko_latency: Distribution::new(0),
        });
        bucket.count += 1;
        if o.success {
            bucket.ok_elapsed.add(o.elapsed);
            bucket.ok_latency.add(o.latency);
        } else {
            bucket.ko_elapsed.add(o.elapsed);
            bucket.ko_latency.add(o.latency);
        }
    }
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
    match id {
        "responseTimesOverTime" => (Some(g), finish(&a.response_times, Mode::Mean)),
        "responseTimePercentilesOverTime" => (Some(g), percentiles_over_time(agg)),
        "activeThreadsOverTime" => (Some(g), finish(&a.threads, Mode::Mean)),
        "bytesThroughputOverTime" => (Some(g), finish(&a.bytes, rate)),
        "latenciesOverTime" => (Some(g), finish(&a.latencies, Mode::Mean)),
        "connectTimeOverTime" => (Some(g), finish(&a.connect, Mode::Mean)),
        "hitsPerSecond" => (Some(g), finish(&a.hits, rate)),
        "codesPerSecond" => (Some(g), finish(&a.codes, rate)),
        "transactionsPerSecond" => (Some(g), finish(&a.tps, rate)),
        "totalTPS" => (Some(g), finish(&a.total_tps, rate)),
        "responseTimeVsRequest" => (None, vs_request(a, false)),
        "latencyVsRequest" => (None, vs_request(a, true)),
        "responseTimePercentiles" => (None, label_percentiles(agg)),
        "timeVsThreads" => (None, finish(&a.time_vs_threads, Mode::Mean)),
        "responseTimeDistribution" => (
            Some(a.distribution_granularity),
            finish(&a.distribution, Mode::Count),
        ),
        _ => (None, synthetic(a)),
    }
}

/// Every default graph, finished.
pub fn graphs(agg: &Aggregator) -> Vec<Graph> {
    SPECS
        .iter()
        .map(|s| {
            let (granularity, series) = data(agg, s.id);
            Graph {
                id: s.id,
                title: s.title.to_string(),
                page: s.page,
                x_axis: s.x_axis,
                x_label: s.x_label,
                y_label: s.y_label,
                granularity,
                series,
            }
        })
        .collect()
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
    for (&x, d) in &agg.graphs.percentiles_over_time {
        let values = d.percentiles(&[0.0, 100.0, 50.0, p1, p2, p3]);
        for (s, v) in series.iter_mut().zip(values) {
            s.1.push((x as f64, v));
        }
    }
    series
}

fn vs_request(a: &GraphAccumulators, latency: bool) -> Vec<Series> {
    let mut ok: BTreeMap<u64, Distribution> = BTreeMap::new();
    let mut ko: BTreeMap<u64, Distribution> = BTreeMap::new();
    for b in a.seconds.values() {
        let (s, f) = if latency {
            (&b.ok_latency, &b.ko_latency)
        } else {
            (&b.ok_elapsed, &b.ko_elapsed)
        };
        if !s.is_empty() {
            ok.entry(b.count)
                .or_insert_with(|| Distribution::new(0))
                .merge(s);
        }
        if !f.is_empty() {
            ko.entry(b.count)
                .or_insert_with(|| Distribution::new(0))
                .merge(f);
        }
    }
    let median = |m: &BTreeMap<u64, Distribution>| {
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
    let mut labels: Vec<_> = agg.labels.iter().collect();
    labels.sort_by(|a, b| a.0.cmp(b.0));
    labels
        .into_iter()
        .map(|(name, s)| {
            let values = s.distribution.percentiles(&ps);
            (name.clone(), ps.iter().copied().zip(values).collect())
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
