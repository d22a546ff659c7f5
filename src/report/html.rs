//! The report's files: `index.html` with its tables rendered here, the graph pages, the
//! data script the charts read, and the static scripts and styles from `report-templates/`.
//! Templates use `{{NAME}}` placeholders; every value put into HTML is escaped.

use std::fmt::Write as _;
use std::path::Path;

use super::json::{self, graphs_json, row_stats, statistics_json};
use super::ReportInfo;
use crate::foundation::fast_hash::FastMap;
use crate::results::graphs;
use crate::results::Aggregator;
use crate::results::Graph;
use crate::results::Page;
use crate::results::Summary;
use crate::results::TOTAL;

const INDEX: &str = include_str!("../../report-templates/index.html");
const PAGE: &str = include_str!("../../report-templates/page.html");
const CHARTS_JS: &str = include_str!("../../report-templates/content/js/charts.js");
const CSS: &str = include_str!("../../report-templates/content/css/dashboard.css");
const DEFAULT_TITLE: &str = "jmxr Dashboard";

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn fill(template: &str, values: &[(&str, &str)]) -> String {
    values.iter().fold(template.to_string(), |acc, (k, v)| {
        acc.replace(&format!("{{{{{k}}}}}"), v)
    })
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The graph the planned arrival rates join: what was sent, per second.
const PLANNED_RATE_GRAPH: &str = "transactionsPerSecond";

/// Adds a series per arrival-driven group to the transactions-per-second graph: its
/// planned arrivals per second, placed from the run's first sample.
fn add_planned_rates(graphs: &mut [Graph], agg: &Aggregator, info: &ReportInfo) {
    if info.planned_rates.is_empty() || agg.total.count == 0 {
        return;
    }
    let Some(graph) = graphs.iter_mut().find(|g| g.id == PLANNED_RATE_GRAPH) else {
        return;
    };
    let start = agg.total.first_start as f64;
    for (group, points) in &info.planned_rates {
        let placed = points
            .iter()
            .map(|&(seconds, rate)| (start + seconds * 1000.0, rate))
            .collect();
        graph
            .series
            .push((format!("{group} (planned arrivals/s)"), placed));
    }
}

/// Writes every file of the report under `dir` (created).
pub fn write_all(agg: &Aggregator, info: &ReportInfo, dir: &Path) -> Result<(), String> {
    let title = if info.title.is_empty() {
        DEFAULT_TITLE
    } else {
        &info.title
    };
    let title = escape(title);
    let mut graphs = graphs(agg);
    add_planned_rates(&mut graphs, agg, info);
    write(&dir.join("statistics.json"), &statistics_json(agg))?;
    let data = format!(
        "window.JMXR_REPORT = {{\"seriesFilter\":{},\"summary\":{{\"ok\":{},\"ko\":{}}},\"graphs\":{}}};\n",
        json::string(&info.series_filter),
        agg.total.count - agg.total.errors,
        agg.total.errors,
        graphs_json(&graphs)
    );
    write(&dir.join("content/js/report-data.js"), &data)?;
    write(&dir.join("content/js/charts.js"), CHARTS_JS)?;
    write(&dir.join("content/css/dashboard.css"), CSS)?;
    let has_custom = graphs.iter().any(|g| g.page == Page::Custom);
    let index = fill(
        INDEX,
        &[
            ("TITLE", &title),
            ("CUSTOM_NAV", &custom_nav(has_custom, "content/pages/")),
            ("INFO", &info_table(agg, info)),
            ("APDEX", &apdex_table(agg, info)),
            ("STATISTICS", &statistics_table(agg, info)),
            ("ERRORS", &errors_table(agg)),
            ("TOP5", &top5_table(agg, info)),
        ],
    );
    write(&dir.join("index.html"), &index)?;
    let pages = [
        (Page::OverTime, "OverTime.html", "Over Time"),
        (Page::Throughput, "Throughput.html", "Throughput"),
        (Page::ResponseTimes, "ResponseTimes.html", "Response Times"),
        (Page::Custom, CUSTOM_PAGE, "Custom Graphs"),
    ];
    for (page, file, heading) in pages {
        if page == Page::Custom && !has_custom {
            continue;
        }
        let mut charts = String::new();
        for g in graphs.iter().filter(|g| g.page == page) {
            let _ = writeln!(
                charts,
                "<section class=\"panel\"><h2>{}</h2><div class=\"chart\" data-graph=\"{}\"></div></section>",
                escape(&g.title),
                g.id
            );
        }
        let html = fill(
            PAGE,
            &[
                ("TITLE", &title),
                ("HEADING", heading),
                ("CHARTS", &charts),
                ("CUSTOM_NAV", &custom_nav(has_custom, "")),
            ],
        );
        write(&dir.join("content/pages").join(file), &html)?;
    }
    Ok(())
}

/// JMeter's page for custom graphs.
const CUSTOM_PAGE: &str = "CustomsGraphs.html";

/// The navigation link to the custom graphs page, when there are custom graphs.
fn custom_nav(has_custom: bool, folder: &str) -> String {
    if has_custom {
        format!("<a href=\"{folder}{CUSTOM_PAGE}\">Custom Graphs</a>")
    } else {
        String::new()
    }
}

fn date(ms: i64) -> String {
    use chrono::TimeZone;
    chrono::Local
        .timestamp_millis_opt(ms)
        .earliest()
        .map_or_else(
            || ms.to_string(),
            |t| t.format("%Y-%m-%d %H:%M:%S").to_string(),
        )
}

fn info_table(agg: &Aggregator, info: &ReportInfo) -> String {
    let mut rows = vec![
        ("File", info.sources.join(", ")),
        ("Start Time", date(agg.begin)),
        ("End Time", date(agg.end)),
    ];
    if !info.sample_filter.is_empty() {
        rows.push(("Filter for computing", info.sample_filter.clone()));
    }
    if !info.series_filter.is_empty() {
        rows.push(("Filter for display", info.series_filter.clone()));
    }
    let body: String = rows
        .iter()
        .map(|(k, v)| format!("<tr><td>{k}</td><td>{}</td></tr>", escape(v)))
        .collect();
    format!("<table id=\"generalInfos\" class=\"info\"><tbody>{body}</tbody></table>")
}

fn table(id: &str, head: &str, rows: &[String]) -> String {
    format!(
        "<table id=\"{id}\" class=\"sortable\"><thead>{head}</thead><tbody>{}</tbody></table>",
        rows.concat()
    )
}

fn tr(cells: &[String], class: &str) -> String {
    let tds: String = cells.iter().map(|c| format!("<td>{c}</td>")).collect();
    format!("<tr class=\"{class}\">{tds}</tr>")
}

fn th(names: &[&str]) -> String {
    let ths: String = names
        .iter()
        .map(|n| format!("<th>{}</th>", escape(n)))
        .collect();
    format!("<tr>{ths}</tr>")
}

/// Two decimals, as the dashboard shows numbers; Java's words for the non-finite.
fn two(value: f64) -> String {
    match value {
        v if v.is_nan() => "NaN".into(),
        v if v.is_infinite() => if v > 0.0 { "Infinity" } else { "-Infinity" }.into(),
        v => format!("{v:.2}"),
    }
}

fn ms(value: i64) -> String {
    if value % 1000 == 0 && value >= 1000 {
        format!("{} sec", value / 1000)
    } else {
        format!("{value} ms")
    }
}

/// The label rows shown, by name: `series_filter` and `show_controllers_only` applied.
fn sorted_labels<'a>(agg: &'a Aggregator, info: &ReportInfo) -> Vec<(&'a str, &'a Summary)> {
    let mut labels: Vec<_> = agg
        .labels()
        .filter(|(label, s)| info.shows(label, s.is_controller))
        .collect();
    labels.sort_by(|a, b| a.0.cmp(b.0));
    labels
}

fn apdex_table(agg: &Aggregator, info: &ReportInfo) -> String {
    let t = agg.settings.apdex;
    let total = &agg.apdex_total;
    let mut rows = vec![tr(
        &[
            format!("{:.3}", total.apdex_score(total.count)),
            ms(t.satisfied),
            ms(t.tolerated),
            TOTAL.into(),
        ],
        "total",
    )];
    let mut labels: Vec<(f64, &str, &Summary)> = sorted_labels(agg, info)
        .into_iter()
        .map(|(k, s)| (s.apdex_score(s.count), k, s))
        .collect();
    labels.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
    for (score, label, s) in labels {
        rows.push(tr(
            &[
                format!("{score:.3}"),
                ms(s.apdex.satisfied),
                ms(s.apdex.tolerated),
                escape(label),
            ],
            if s.is_controller { "controller" } else { "" },
        ));
    }
    let head = th(&[
        "Apdex",
        "T (Toleration threshold)",
        "F (Frustration threshold)",
        "Label",
    ]);
    table("apdexTable", &head, &rows)
}

fn statistics_row(label: &str, s: &Summary, agg: &Aggregator, class: &str) -> String {
    let r = row_stats(s, agg.settings.percentiles);
    let pct = if s.count == 0 {
        0.0
    } else {
        s.errors as f64 * 100.0 / s.count as f64
    };
    tr(
        &[
            escape(label),
            s.count.to_string(),
            s.errors.to_string(),
            format!("{pct:.2}%"),
            two(s.mean),
            s.min.to_string(),
            s.max.to_string(),
            two(r.median),
            two(r.pct[0]),
            two(r.pct[1]),
            two(r.pct[2]),
            two(s.throughput()),
            two(s.received_kb_per_sec()),
            two(s.sent_kb_per_sec()),
        ],
        class,
    )
}

fn statistics_table(agg: &Aggregator, info: &ReportInfo) -> String {
    let mut rows = vec![statistics_row(TOTAL, &agg.total, agg, "total")];
    for (label, s) in sorted_labels(agg, info) {
        let class = if s.is_controller { "controller" } else { "" };
        rows.push(statistics_row(label, s, agg, class));
    }
    let [p1, p2, p3] = agg.settings.percentiles.map(|p| format!("{p}th pct"));
    let groups = "<tr class=\"groups\"><th colspan=\"1\">Requests</th><th colspan=\"3\">Executions</th><th colspan=\"7\">Response Times (ms)</th><th colspan=\"1\">Throughput</th><th colspan=\"2\">Network (KB/sec)</th></tr>";
    let head = format!(
        "{groups}{}",
        th(&[
            "Label",
            "#Samples",
            "FAIL",
            "Error %",
            "Average",
            "Min",
            "Max",
            "Median",
            &p1,
            &p2,
            &p3,
            "Transactions/s",
            "Received",
            "Sent",
        ])
    );
    table("statisticsTable", &head, &rows)
}

fn errors_table(agg: &Aggregator) -> String {
    let total_errors: u64 = agg.errors.values().sum();
    let mut errors: Vec<(&String, &u64)> = agg.errors.iter().collect();
    errors.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let rows: Vec<String> = errors
        .iter()
        .map(|(key, &count)| {
            tr(
                &[
                    escape(key),
                    count.to_string(),
                    format!("{:.2}%", count as f64 * 100.0 / total_errors as f64),
                    format!("{:.2}%", count as f64 * 100.0 / agg.total.count as f64),
                ],
                "",
            )
        })
        .collect();
    let head = th(&[
        "Type of error",
        "Number of errors",
        "% in errors",
        "% in all samples",
    ]);
    table("errorsTable", &head, &rows)
}

fn top5_row(label: &str, count: u64, keys: &FastMap<String, u64>, class: &str) -> String {
    let mut keys: Vec<(&String, &u64)> = keys.iter().collect();
    keys.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let errors: u64 = keys.iter().map(|(_, &c)| c).sum();
    let mut cells = vec![escape(label), count.to_string(), errors.to_string()];
    for i in 0..5 {
        match keys.get(i) {
            Some((k, c)) => cells.extend([escape(k), c.to_string()]),
            None => cells.extend([String::new(), String::new()]),
        }
    }
    tr(&cells, class)
}

fn top5_table(agg: &Aggregator, info: &ReportInfo) -> String {
    let mut rows = vec![top5_row(
        TOTAL,
        agg.total.count,
        agg.total_error_keys(),
        "total",
    )];
    for (label, s) in sorted_labels(agg, info) {
        if !s.error_keys.is_empty() {
            rows.push(top5_row(label, s.count, &s.error_keys, ""));
        }
    }
    let mut head = vec!["Sample", "#Samples", "#Errors"];
    for _ in 0..5 {
        head.extend(["Error", "#Errors"]);
    }
    table("top5ErrorsBySamplerTable", &th(&head), &rows)
}
