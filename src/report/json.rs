//! JSON as JMeter's report writes it: numbers in Java's `Double.toString` / `Float.toString`
//! form (`100.0`, `6.1894261494177E-4`), `statistics.json` pretty-printed like Jackson's
//! default printer, and the graph and table data handed to the page scripts.

use std::fmt::Write as _;

use crate::foundation::java_format;
use crate::results::{Aggregator, Graph, Summary, XAxis, TOTAL};

/// Java's `Double.toString` for `value` (shortest round-trip digits).
pub fn java_double(value: f64) -> String {
    plain_tenths(value).unwrap_or_else(|| java_format::java_double(value))
}

/// The graphs' most common values, whole numbers and tenths (percentile ranks) in plain
/// notation, written without the digit juggling of `Double.toString` (the same text: the
/// double nearest a number of tenths prints as that number, its shortest form).
fn plain_tenths(value: f64) -> Option<String> {
    if !(1e-3..1e7).contains(&value.abs()) {
        return None;
    }
    let tenths = (value * 10.0).round();
    if tenths / 10.0 != value {
        return None;
    }
    let tenths = tenths as i64;
    let sign = if tenths < 0 { "-" } else { "" };
    let tenths = tenths.unsigned_abs();
    Some(format!("{sign}{}.{}", tenths / 10, tenths % 10))
}

/// Java's `Float.toString` for `value` taken as a float (JMeter's `errorPct`).
pub fn java_float(value: f64) -> String {
    java_format::java_float(value as f32)
}

/// A double as Jackson writes it by default: `NaN` and `Infinity` (a row whose samples all
/// start and end in the same millisecond has an infinite throughput) in quotes.
fn jackson_double(value: f64) -> String {
    if value.is_finite() {
        java_double(value)
    } else {
        format!("\"{}\"", java_double(value))
    }
}

/// A JSON string literal.
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Keeps the data safe inside an inline <script>.
            '<' => out.push_str("\\u003c"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A number for the page scripts: finite Java form, or `null`.
fn number(value: f64) -> String {
    if value.is_finite() {
        java_double(value)
    } else {
        "null".into()
    }
}

/// The statistics of one row: `[label, p1, p2, p3 ...]` fields by name, in JMeter's order.
pub struct RowStats {
    pub median: f64,
    pub pct: [f64; 3],
}

pub fn row_stats(summary: &Summary, percentiles: [f64; 3]) -> RowStats {
    let v =
        summary
            .distribution
            .percentiles(&[50.0, percentiles[0], percentiles[1], percentiles[2]]);
    RowStats {
        median: v[0],
        pct: [v[1], v[2], v[3]],
    }
}

/// `statistics.json`: label → `SamplingStatistic`, plus `Total`, Jackson-style layout.
pub fn statistics_json(agg: &Aggregator) -> String {
    let mut rows: Vec<(&str, &Summary)> = agg.labels().collect();
    rows.sort_by(|a, b| a.0.cmp(b.0));
    rows.insert(0, (TOTAL, &agg.total));
    let entries: Vec<String> = rows
        .iter()
        .map(|(label, s)| statistic_entry(label, s, agg.settings.percentiles))
        .collect();
    format!("{{\n{}\n}}\n", entries.join(",\n"))
}

fn statistic_entry(label: &str, s: &Summary, percentiles: [f64; 3]) -> String {
    let stats = row_stats(s, percentiles);
    let error_pct = if s.count == 0 {
        0.0
    } else {
        s.errors as f64 * 100.0 / s.count as f64
    };
    let fields: Vec<(&str, String)> = vec![
        ("transaction", string(label)),
        ("sampleCount", s.count.to_string()),
        ("errorCount", s.errors.to_string()),
        ("errorPct", java_float(error_pct)),
        ("meanResTime", jackson_double(s.mean)),
        ("medianResTime", jackson_double(stats.median)),
        ("minResTime", jackson_double(s.min as f64)),
        ("maxResTime", jackson_double(s.max as f64)),
        ("pct1ResTime", jackson_double(stats.pct[0])),
        ("pct2ResTime", jackson_double(stats.pct[1])),
        ("pct3ResTime", jackson_double(stats.pct[2])),
        ("throughput", jackson_double(s.throughput())),
        (
            "receivedKBytesPerSec",
            jackson_double(s.received_kb_per_sec()),
        ),
        ("sentKBytesPerSec", jackson_double(s.sent_kb_per_sec())),
    ];
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("    \"{k}\" : {v}"))
        .collect();
    format!("  {} : {{\n{}\n  }}", string(label), body.join(",\n"))
}

/// The graphs as a JS object literal: `{id: {title, xAxis, granularity, series: [...]}}`.
pub fn graphs_json(graphs: &[Graph]) -> String {
    let mut out = String::from("{");
    for (i, g) in graphs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let x_axis = match g.x_axis {
            XAxis::Time => "time",
            XAxis::Number => "number",
            XAxis::Category => "category",
        };
        let _ = write!(
            out,
            "\n{}:{{\"title\":{},\"xAxis\":\"{x_axis}\",\"xLabel\":{},\"yLabel\":{},\"granularity\":{},\"contentMessage\":{},\"series\":[",
            string(&g.id),
            string(&g.title),
            string(&g.x_label),
            string(&g.y_label),
            g.granularity.map_or("null".into(), |v| v.to_string()),
            string(&g.content_message)
        );
        for (j, (name, points)) in g.series.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            let _ = write!(out, "{{\"label\":{},\"data\":[", string(name));
            for (k, (x, y)) in points.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                let _ = write!(out, "[{},{}]", number(*x), number(*y));
            }
            out.push_str("]}");
        }
        out.push_str("]}");
    }
    out.push_str("\n}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_and_tenths_print_as_the_general_path_prints_them() {
        let tenths = (-20_000..20_000).map(|i| i as f64 / 10.0);
        let whole = [1e7 - 1.0, 1e7, 123_456.0, -9_999_999.0, 0.001, 0.0011];
        for value in tenths.chain(whole) {
            let general = java_format::java_double(value);
            assert_eq!(java_double(value), general, "{value}");
        }
    }

    #[test]
    fn doubles_print_as_java_prints_them() {
        assert_eq!(java_double(100.0), "100.0");
        assert_eq!(java_double(339.2), "339.2");
        assert_eq!(java_double(6.1894261494177E-4), "6.1894261494177E-4");
        assert_eq!(java_double(0.0015473565373544248), "0.0015473565373544248");
        assert_eq!(java_double(1.0e7), "1.0E7");
        assert_eq!(java_double(12345678.5), "1.23456785E7");
        assert_eq!(java_double(0.001), "0.001");
        assert_eq!(java_double(-2.5), "-2.5");
        assert_eq!(java_float(300.0 / 255.0), "1.1764706");
        assert_eq!(java_float(100.0), "100.0");
        assert_eq!(jackson_double(f64::INFINITY), "\"Infinity\"");
    }

    #[test]
    fn strings_are_escaped_for_json_and_inline_scripts() {
        assert_eq!(
            string("a\"b\\</script>\n"),
            "\"a\\\"b\\\\\\u003c/script>\\n\""
        );
    }
}
