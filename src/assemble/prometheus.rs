//! The Prometheus Listener plugin's table of metrics, read and checked as the plugin
//! checks it when the test starts. A row the plugin would refuse (an unknown type or
//! measure, a name Prometheus does not accept, buckets that do not increase) is left
//! out with a warning, as the plugin leaves it out with a logged error; the rest run
//! (`results::prometheus`).

use crate::jmx::{PropValue, Property};
use crate::plan::tree::{
    PrometheusCollectorSpec, PrometheusKind, PrometheusListenerSpec, PrometheusMeasure,
};
use crate::plan::BuildContext;

/// The plugin's defaults: histogram bounds, summary quantiles (quantile, error) and the
/// summary window in seconds.
const DEFAULT_BUCKETS: [f64; 4] = [100.0, 500.0, 1000.0, 3000.0];
const DEFAULT_QUANTILES: [(f64, f64); 3] = [(0.75, 0.5), (0.95, 0.1), (0.99, 0.01)];
const DEFAULT_WINDOW_SECONDS: u64 = 60;

pub(super) fn spec(cx: &mut BuildContext<'_>) -> PrometheusListenerSpec {
    let rows: Vec<Property> = cx
        .element
        .prop("prometheus.collector_definitions")
        .map(|p| p.children().to_vec())
        .unwrap_or_default();
    let mut collectors = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        match collector(row) {
            Ok(spec) => collectors.push(spec),
            Err(why) => cx.warn(format!(
                "metric {} of the Prometheus Listener is left out: {why}",
                i + 1
            )),
        }
    }
    PrometheusListenerSpec {
        id: cx.id,
        path: cx.path.clone(),
        collectors,
    }
}

fn text<'p>(row: &'p Property, name: &str) -> &'p str {
    row.child(name).and_then(Property::as_str).unwrap_or("")
}

/// One row of the table.
fn collector(row: &Property) -> Result<PrometheusCollectorSpec, String> {
    let metric_name = text(row, "collector.metric_name").trim().to_string();
    if !valid_name(&metric_name, true) {
        return Err(format!("{metric_name:?} is not a Prometheus metric name"));
    }
    let help = match text(row, "collector.help") {
        "" => "default help string".to_string(),
        help => help.to_string(),
    };
    let kind = match text(row, "collector.type").trim() {
        "COUNTER" | "" => PrometheusKind::Counter,
        "GAUGE" => PrometheusKind::Gauge,
        "HISTOGRAM" => PrometheusKind::Histogram,
        "SUMMARY" => PrometheusKind::Summary,
        "SUCCESS_RATIO" => PrometheusKind::SuccessRatio,
        other => return Err(format!("{metric_name}: the type {other:?} is not one of COUNTER, GAUGE, HISTOGRAM, SUMMARY, SUCCESS_RATIO")),
    };
    let labels: Vec<String> = match row.child("collector.labels").map(|p| &p.value) {
        Some(PropValue::Collection(items)) => items
            .iter()
            .filter_map(Property::as_str)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        // Rows written by hand sometimes give the labels as one comma-separated text.
        Some(PropValue::Scalar { text, .. }) => text
            .split(',')
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    if let Some(bad) = labels.iter().find(|l| !valid_name(l, false)) {
        return Err(format!(
            "{metric_name}: {bad:?} is not a Prometheus label name"
        ));
    }
    let measuring = match text(row, "listener.collector.measuring").trim() {
        "ResponseTime" | "" => PrometheusMeasure::ResponseTime,
        "ResponseSize" => PrometheusMeasure::ResponseSize,
        "Latency" => PrometheusMeasure::Latency,
        "IdleTime" => PrometheusMeasure::IdleTime,
        "ConnectTime" => PrometheusMeasure::ConnectTime,
        "SuccessTotal" => PrometheusMeasure::SuccessTotal,
        "FailureTotal" => PrometheusMeasure::FailureTotal,
        "CountTotal" => PrometheusMeasure::CountTotal,
        "SuccessRatio" => PrometheusMeasure::SuccessRatio,
        other => {
            return Err(format!(
                "{metric_name}: it measures {other:?}, which the plugin does not know"
            ))
        }
    };
    let setting = text(row, "collector.quantiles_or_buckets").trim();
    let buckets = match kind {
        PrometheusKind::Histogram => buckets(setting),
        _ => Vec::new(),
    };
    if buckets.windows(2).any(|w| w[0] >= w[1]) {
        return Err(format!(
            "{metric_name}: the histogram's buckets {setting:?} do not increase"
        ));
    }
    let (quantiles, window_seconds) = match kind {
        PrometheusKind::Summary => quantiles(setting),
        _ => (Vec::new(), DEFAULT_WINDOW_SECONDS),
    };
    let outside = |x: &f64| !(0.0..=1.0).contains(x);
    if let Some((q, _)) = quantiles.iter().find(|(q, e)| outside(q) || outside(e)) {
        return Err(format!(
            "{metric_name}: the quantile {q} or its error is not between 0 and 1"
        ));
    }
    let assertions = text(row, "listener.collector.listen_to")
        .trim()
        .eq_ignore_ascii_case("assertions");
    Ok(PrometheusCollectorSpec {
        metric_name,
        help,
        kind,
        labels,
        buckets,
        quantiles,
        window_seconds,
        assertions,
        measuring,
    })
}

/// Prometheus' names: `[a-zA-Z_:][a-zA-Z0-9_:]*` for metrics, without `:` for labels.
fn valid_name(name: &str, metric: bool) -> bool {
    let ok = |c: char, first: bool| {
        c.is_ascii_alphabetic()
            || c == '_'
            || (metric && c == ':')
            || (!first && c.is_ascii_digit())
    };
    let mut chars = name.chars();
    chars.next().is_some_and(|c| ok(c, true)) && chars.all(|c| ok(c, false))
}

/// `100,500,1000,3000`: entries that are not numbers are left out, as the plugin does;
/// none left means its defaults.
fn buckets(setting: &str) -> Vec<f64> {
    let list: Vec<f64> = setting
        .split(',')
        .filter_map(|b| b.trim().parse::<f64>().ok())
        .collect();
    if list.is_empty() {
        DEFAULT_BUCKETS.to_vec()
    } else {
        list
    }
}

/// `0.75,0.5|0.95,0.1;120`: quantile,error pairs and an optional window in seconds.
fn quantiles(setting: &str) -> (Vec<(f64, f64)>, u64) {
    if setting.is_empty() {
        return (DEFAULT_QUANTILES.to_vec(), DEFAULT_WINDOW_SECONDS);
    }
    let mut parts = setting.split(';');
    let list = parts
        .next()
        .unwrap_or("")
        .split('|')
        .filter_map(|def| {
            let (q, e) = def.split_once(',')?;
            Some((q.trim().parse().ok()?, e.trim().parse().ok()?))
        })
        .collect();
    let window = parts
        .next()
        .and_then(|w| w.trim().parse().ok())
        .unwrap_or(DEFAULT_WINDOW_SECONDS);
    (list, window)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_and_quantiles_read_as_the_plugin_reads_them() {
        assert_eq!(buckets(""), DEFAULT_BUCKETS);
        assert_eq!(buckets("10, x,20"), [10.0, 20.0]);
        assert_eq!(quantiles(""), (DEFAULT_QUANTILES.to_vec(), 60));
        assert_eq!(
            quantiles("0.5,0.05|0.9,0.01;30"),
            (vec![(0.5, 0.05), (0.9, 0.01)], 30)
        );
        assert_eq!(quantiles("0.5,0.05"), (vec![(0.5, 0.05)], 60));
    }

    #[test]
    fn names_are_prometheus_names() {
        assert!(valid_name("jmeter_rt:sum", true));
        assert!(!valid_name("jmeter_rt:sum", false));
        assert!(!valid_name("1abc", true));
        assert!(!valid_name("", true));
        assert!(valid_name("thread_group", false));
    }
}
