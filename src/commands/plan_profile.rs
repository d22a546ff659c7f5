//! `jmxr plan PLAN.jmx [--svg FILE] [-Jname=value ...]`: each thread group's planned
//! users or arrival rate over time, printed without running anything, and optionally
//! drawn as a small SVG chart. The values come from the engine's own schedules
//! (`engine::profile`), so the preview and the run agree.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use super::cli::CliError;
use crate::engine::{self, GroupProfile, Measure};
use crate::foundation::properties::Properties;
use crate::jmx;
use crate::user_state::{RunShared, TestInfo};

/// Rows printed per group.
const ROWS: usize = 12;

#[derive(Debug, Clone)]
pub struct PlanConfig {
    pub plan: PathBuf,
    pub svg: Option<PathBuf>,
    /// `-Jname=value`: properties the settings read (`${__P(users)}`).
    pub properties: HashMap<String, String>,
}

/// Reads `plan.jmx [--svg FILE] [-Jname=value ...]`.
pub fn parse_args(args: &[String]) -> Result<PlanConfig, CliError> {
    let mut plan = None;
    let mut svg = None;
    let mut properties = HashMap::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--svg" => {
                let file = args
                    .next()
                    .ok_or_else(|| CliError::Usage("plan: --svg needs a file".into()))?;
                svg = Some(PathBuf::from(file));
            }
            other if other.starts_with("-J") && other.len() > 2 => {
                let (name, value) = other[2..].split_once('=').unwrap_or((&other[2..], ""));
                properties.insert(name.to_string(), value.to_string());
            }
            other if other.starts_with('-') => {
                return Err(CliError::Usage(format!("plan: unknown option {other}")))
            }
            other => plan = Some(PathBuf::from(other)),
        }
    }
    let plan = plan.ok_or_else(|| {
        CliError::Usage(
            "plan needs a plan: jmxr plan plan.jmx [--svg chart.svg] [-Jname=value ...]".into(),
        )
    })?;
    Ok(PlanConfig {
        plan,
        svg,
        properties,
    })
}

/// Prints every group's profile to `out`; writes the chart when asked. False when the
/// plan cannot be read or the chart cannot be written.
pub fn run(config: &PlanConfig, out: &mut impl Write) -> bool {
    let profiles = match profiles(config) {
        Ok(profiles) => profiles,
        Err(message) => {
            eprintln!("An error occurred: {message}");
            return false;
        }
    };
    for profile in &profiles {
        let _ = write!(out, "{}", describe(profile));
    }
    if let Some(path) = &config.svg {
        if let Err(e) = std::fs::write(path, svg(&profiles)) {
            eprintln!("An error occurred: cannot write {}: {e}", path.display());
            return false;
        }
    }
    true
}

/// Every group's planned profile (also used to size `k8s-job`'s requests).
pub fn profiles(config: &PlanConfig) -> Result<Vec<GroupProfile>, String> {
    let mut tree = jmx::load_file(&config.plan).map_err(|e| e.to_string())?;
    jmx::rewrite::apply(&mut tree).map_err(|e| e.to_string())?;
    let functions = crate::script::function_registry();
    let built = crate::assemble::build_with_properties(&tree, &functions, &config.properties);
    let props = Properties::from_map(config.properties.clone());
    let run = Arc::new(RunShared::new(props, TestInfo::default(), Some(0)));
    let plan = &built.plan;
    let groups = plan
        .setup_groups
        .iter()
        .chain(&plan.groups)
        .chain(&plan.teardown_groups);
    Ok(groups.map(|group| engine::profile(group, &run)).collect())
}

fn unit(measure: Measure) -> &'static str {
    match measure {
        Measure::Users => "users",
        Measure::Rate => "arrivals/s",
    }
}

/// The text block of one group: a header line, then the value at evenly spaced times.
fn describe(profile: &GroupProfile) -> String {
    let mut text = format!("Thread group '{}': {}", profile.name, unit(profile.measure));
    if let Some(end) = profile.end_s {
        let _ = write!(text, " over {}", seconds(end));
    }
    let peak = profile.points.iter().map(|p| p.1).fold(0.0, f64::max);
    let _ = write!(text, ", peak {}", number(peak));
    if let Some(total) = profile.total_arrivals {
        let _ = write!(text, ", {total} arrivals planned");
    }
    text.push('\n');
    if let Some(note) = &profile.note {
        let _ = writeln!(text, "  ({note})");
    }
    let n = profile.points.len();
    if n > 0 {
        for i in 0..=ROWS {
            let (t, value) = profile.points[(i * (n - 1)) / ROWS];
            let _ = writeln!(text, "  {:>10}  {:>10}", seconds(t), number(value));
        }
    }
    text
}

fn seconds(t: f64) -> String {
    if t >= 3600.0 {
        format!("{:.2} h", t / 3600.0)
    } else if t >= 120.0 {
        format!("{:.1} min", t / 60.0)
    } else if t >= 10.0 {
        format!("{t:.1} s")
    } else {
        format!("{t:.2} s")
    }
}

fn number(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.2}")
    }
}

/// One small panel per group, stacked: the planned values as a line over time.
fn svg(profiles: &[GroupProfile]) -> String {
    const WIDTH: f64 = 640.0;
    const PANEL: f64 = 170.0;
    const PLOT_H: f64 = 120.0;
    const LEFT: f64 = 60.0;
    let height = PANEL * profiles.len().max(1) as f64;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">\n"
    );
    for (i, profile) in profiles.iter().enumerate() {
        let top = PANEL * i as f64 + 25.0;
        let span = profile
            .points
            .last()
            .map_or(0.0, |p| p.0)
            .max(f64::MIN_POSITIVE);
        let peak = profile.points.iter().map(|p| p.1).fold(0.0, f64::max);
        let scale = if peak > 0.0 { PLOT_H / peak } else { 0.0 };
        let plot_w = WIDTH - LEFT - 20.0;
        let line: Vec<String> = profile
            .points
            .iter()
            .map(|(t, v)| {
                format!(
                    "{:.1},{:.1}",
                    LEFT + t / span * plot_w,
                    top + PLOT_H - v * scale
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "  <text x=\"{LEFT}\" y=\"{:.1}\">{} ({}, peak {}, {})</text>",
            top - 8.0,
            escape(&profile.name),
            unit(profile.measure),
            number(peak),
            seconds(span)
        );
        let _ = writeln!(
            out,
            "  <rect x=\"{LEFT}\" y=\"{top:.1}\" width=\"{plot_w:.1}\" height=\"{PLOT_H}\" fill=\"none\" stroke=\"#bbb\"/>"
        );
        let _ = writeln!(
            out,
            "  <polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\" points=\"{}\"/>",
            line.join(" ")
        );
    }
    out.push_str("</svg>\n");
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
