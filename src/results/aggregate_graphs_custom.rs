//! Custom Graphs: JMeter 5's `CustomGraphConsumer`, configured by
//! `jmeter.reportgenerator.graph.custom_<name>.*` properties, draws the mean of one value
//! per end-time bucket, usually a sample variable (a `sample_variables` column of the
//! `.jtl`), or else one of the native numeric columns.
//!
//! The reader (`-g`) and the live sink (`-e`) hand the aggregator each sample's values of
//! the wanted variables, parsed, in the order of [`CustomGraphSpec`]s, through
//! [`Observation::custom`]; native columns are read from the observation itself.

use super::aggregate::Observation;
use super::aggregate_graphs::{Graph, Page, XAxis};
use super::aggregate_graphs_buckets::BucketMap;
use crate::foundation::properties::Properties;

const PREFIX: &str = "jmeter.reportgenerator.graph.";
const CUSTOM_CLASS: &str = "org.apache.jmeter.report.processor.graph.impl.CustomGraphConsumer";

/// One configured custom graph.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomGraphSpec {
    /// `custom_<name>`, the graph's id in the report.
    pub id: String,
    pub title: String,
    pub y_axis: String,
    pub x_axis: String,
    /// Bucket width, ms (`property.set_granularity`, else the overall granularity).
    pub granularity: i64,
    /// `property.setSampleVariableName`: the series name and the column it reads.
    pub variable: String,
    /// `property.setContentMessage`: the text before a value in the hover tip.
    pub content_message: String,
    /// `exclude_controllers`: Transaction Controller samples left out.
    pub exclude_controllers: bool,
}

/// The custom graphs the properties configure, by id.
pub fn custom_graph_specs(props: &Properties, overall_granularity: i64) -> Vec<CustomGraphSpec> {
    let snapshot = props.snapshot();
    let mut ids: Vec<&str> = snapshot
        .iter()
        .filter_map(|(key, value)| {
            let id = key.strip_prefix(PREFIX)?.strip_suffix(".classname")?;
            (id.starts_with("custom_") && value.trim() == CUSTOM_CLASS).then_some(id)
        })
        .collect();
    ids.sort_unstable();
    ids.into_iter()
        .map(|id| {
            let get = |name: &str| {
                props
                    .get(&format!("{PREFIX}{id}.{name}"))
                    .unwrap_or_default()
            };
            let property = |name: &str| get(&format!("property.{name}"));
            CustomGraphSpec {
                id: id.to_string(),
                title: get("title"),
                y_axis: property("set_Y_Axis"),
                x_axis: property("set_X_Axis"),
                granularity: property("set_granularity")
                    .trim()
                    .parse::<i64>()
                    .ok()
                    .filter(|g| *g > 0)
                    .unwrap_or(overall_granularity),
                variable: property("setSampleVariableName"),
                content_message: property("setContentMessage"),
                exclude_controllers: get("exclude_controllers").trim() == "true",
            }
        })
        .collect()
}

/// A custom value as JMeter converts it: empty and `null` mean "no value", as does text
/// that is not a number (where JMeter would stop the report).
pub fn custom_value(text: &str) -> Option<f64> {
    let text = text.trim();
    if text.is_empty() || text == "null" {
        return None;
    }
    text.parse().ok()
}

/// The native numeric column `name` of a sample, for a custom graph that reads one.
fn native_value(name: &str, o: &Observation) -> Option<Option<f64>> {
    let value = match name {
        "elapsed" => o.elapsed,
        "Latency" => o.latency,
        "Connect" => o.connect,
        "bytes" => o.bytes,
        "sentBytes" => o.sent_bytes,
        "grpThreads" => o.grp_threads,
        "allThreads" => o.all_threads,
        _ => return None,
    };
    Some(Some(value as f64))
}

#[derive(Debug, Clone, Copy, Default)]
struct Mean {
    sum: f64,
    count: u64,
}

/// The running state of every custom graph.
#[derive(Debug, Clone, Default)]
pub struct CustomGraphs {
    specs: Vec<CustomGraphSpec>,
    /// Per spec: mean value per end-time bucket.
    buckets: Vec<BucketMap<Mean>>,
}

impl CustomGraphs {
    pub fn new(specs: Vec<CustomGraphSpec>) -> CustomGraphs {
        let buckets = specs.iter().map(|_| BucketMap::default()).collect();
        CustomGraphs { specs, buckets }
    }

    pub fn specs(&self) -> &[CustomGraphSpec] {
        &self.specs
    }

    #[inline]
    pub fn add(&mut self, o: &Observation, controller: bool) {
        if self.specs.is_empty() {
            return;
        }
        for (i, spec) in self.specs.iter().enumerate() {
            if controller && spec.exclude_controllers {
                continue;
            }
            let value = native_value(&spec.variable, o)
                .unwrap_or_else(|| o.custom.get(i).copied().flatten());
            if let Some(value) = value {
                let g = spec.granularity;
                let mean = self.buckets[i].get_or_default(o.end - o.end.rem_euclid(g));
                mean.sum += value;
                mean.count += 1;
            }
        }
    }

    /// The finished graphs, one series each.
    pub fn graphs(&self) -> Vec<Graph> {
        self.specs
            .iter()
            .zip(&self.buckets)
            .map(|(spec, buckets)| {
                let points = buckets
                    .iter()
                    .map(|(x, m)| (x as f64, m.sum / m.count as f64))
                    .collect();
                Graph {
                    id: spec.id.clone(),
                    title: spec.title.clone(),
                    page: Page::Custom,
                    x_axis: XAxis::Time,
                    x_label: spec.x_axis.clone(),
                    y_label: spec.y_axis.clone(),
                    granularity: Some(spec.granularity),
                    series: vec![(spec.variable.clone(), points)],
                    content_message: spec.content_message.clone(),
                }
            })
            .collect()
    }
}
