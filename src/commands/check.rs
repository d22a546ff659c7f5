//! `jmxr check`: what jmxr would do with each element of a plan, without running it.
//!
//! A plan is loaded and rewritten as for a run, then planned; the planner's
//! [`ElementReport`]s (one per element it met, with the registry's status) are laid out
//! in document order by walking the rewritten tree, so the listing follows the file and
//! every element of the tree appears once, wherever it sits (below an unsupported thread
//! group, in a Test Fragment, in an included file). Elements the rewrite removes
//! (disabled ones, the WorkBench) are listed apart, since JMeter never runs them either.
//!
//! The verdict is the planner's: any error diagnostic (an unsupported element that would
//! change the load or the verdict, an unknown function, an invalid expression) makes the
//! plan unrunnable as written, which is what `jmxr -n -t` refuses. `run` stays the one
//! place that decides exit codes ([`Outcome`]).

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::assemble::ElementReport;
use crate::commands::cli::CheckConfig;
use crate::commands::run::Outcome;
use crate::expr::FunctionRegistry;
use crate::jmx::{self, Element, LoadError};
use crate::plan::registry;
use crate::plan::Diagnostic;
use crate::plan::Severity;

/// What `check` says about one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Supported,
    Ignored,
    /// Unsupported; `blocks_run` tells whether skipping it changes the load or the verdict.
    Unsupported {
        blocks_run: bool,
    },
    /// Removed before the run (disabled, or in the WorkBench).
    Removed,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Supported => "supported",
            Verdict::Ignored => "ignored",
            Verdict::Unsupported { .. } => "unsupported",
            Verdict::Removed => "removed",
        }
    }
}

/// One listed element.
#[derive(Debug, Clone)]
pub struct Row {
    pub verdict: Verdict,
    /// `Test Plan › Users › Login [HTTPSamplerProxy]`.
    pub path: String,
    /// `file:line:column`.
    pub location: String,
    pub class: String,
    /// JMeter's display name of the element type.
    pub title: String,
    pub note: String,
}

/// Everything `check` found in one plan.
#[derive(Debug, Clone)]
pub struct PlanReport {
    pub file: PathBuf,
    /// The elements that take part in the run, in document order.
    pub rows: Vec<Row>,
    /// Disabled elements and WorkBench contents, which the rewrite removes.
    pub removed: Vec<Row>,
    pub diagnostics: Vec<Diagnostic>,
    /// Locations the planner and the tree disagree on (an element the planner did not
    /// report, or a report with no element); empty unless the planner has a gap.
    pub unmatched: Vec<String>,
}

impl PlanReport {
    /// Whether the plan can run as written (no error diagnostics).
    pub fn runnable(&self) -> bool {
        !self
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    fn count(&self, pick: impl Fn(Verdict) -> bool) -> usize {
        self.rows.iter().filter(|r| pick(r.verdict)).count()
    }
}

/// `jmxr check`: prints a report per plan; load errors go to stderr.
pub fn check(config: &CheckConfig, out: &mut dyn Write) -> Outcome {
    check_with(config, out, &mut std::io::stderr())
}

/// [`check`] with the error stream given, for callers that capture both.
pub fn check_with(config: &CheckConfig, out: &mut dyn Write, err: &mut dyn Write) -> Outcome {
    let functions = crate::script::function_registry();
    let mut outcome = Outcome::Completed;
    for path in &config.plans {
        match report_with_properties(path, &functions, &config.properties) {
            Ok(report) => {
                // A broken stdout (closed pipe) must not hide the verdict: ignore write errors.
                let _ = print(&report, out);
                if !report.runnable() && outcome == Outcome::Completed {
                    outcome = Outcome::Unsupported;
                }
            }
            Err(e) => {
                let _ = writeln!(err, "An error occurred: {e}");
                outcome = Outcome::BadInput;
            }
        }
    }
    outcome
}

/// Loads, rewrites and plans `path`, and lays the result out for printing.
pub fn report(path: &Path, functions: &FunctionRegistry) -> Result<PlanReport, LoadError> {
    report_with_properties(path, functions, &HashMap::new())
}

/// [`report`] with the properties of the command line, which decide some elements (the
/// Java Request class table).
pub fn report_with_properties(
    path: &Path,
    functions: &FunctionRegistry,
    properties: &HashMap<String, String>,
) -> Result<PlanReport, LoadError> {
    let mut tree = jmx::load_file(path)?;
    let mut removed = Vec::new();
    for root in &tree.roots {
        removed_rows(root, "", &mut removed);
    }
    jmx::rewrite::apply(&mut tree)?;
    let built = crate::assemble::build_with_properties(&tree, functions, properties);
    let mut reports = ReportQueue::new(built.elements);
    let mut rows = Vec::new();
    for root in &tree.roots {
        planned_rows(root, "", &mut reports, &mut rows);
    }
    let mut unmatched = std::mem::take(&mut reports.missing);
    unmatched.extend(
        reports
            .by_location
            .into_values()
            .flatten()
            .map(|r| r.location),
    );
    Ok(PlanReport {
        file: path.to_path_buf(),
        rows,
        removed,
        diagnostics: built.diagnostics,
        unmatched,
    })
}

/// The planner's reports, waiting to be matched to tree elements by location. Copies of
/// one element (two Include Controllers of the same file, a Module Controller's target)
/// share a location and are identical, so they are taken in any order.
struct ReportQueue {
    by_location: HashMap<String, VecDeque<ElementReport>>,
    missing: Vec<String>,
}

impl ReportQueue {
    fn new(reports: Vec<ElementReport>) -> ReportQueue {
        let mut by_location: HashMap<String, VecDeque<ElementReport>> = HashMap::new();
        for report in reports {
            by_location
                .entry(report.location.clone())
                .or_default()
                .push_back(report);
        }
        ReportQueue {
            by_location,
            missing: Vec::new(),
        }
    }

    fn take(&mut self, location: &str) -> Option<ElementReport> {
        let queue = self.by_location.get_mut(location)?;
        let report = queue.pop_front();
        if queue.is_empty() {
            self.by_location.remove(location);
        }
        report
    }
}

fn display_path(parent: &str, el: &Element) -> (String, String) {
    let names = if parent.is_empty() {
        el.name.clone()
    } else {
        format!("{parent} › {}", el.name)
    };
    let shown = format!("{names} [{}]", el.class);
    (names, shown)
}

/// Rows for the rewritten tree, in document order.
fn planned_rows(el: &Element, parent: &str, reports: &mut ReportQueue, rows: &mut Vec<Row>) {
    let (names, path) = display_path(parent, el);
    let location = el.location();
    let row = match reports.take(&location) {
        Some(report) => {
            let info = registry::lookup(&el.class, &el.gui);
            let verdict = match report.status {
                registry::Status::Supported => Verdict::Supported,
                registry::Status::Ignored => Verdict::Ignored,
                registry::Status::Unsupported => Verdict::Unsupported {
                    blocks_run: registry::affects_run(info, &el.class),
                },
            };
            Row {
                verdict,
                path,
                location,
                class: report.class,
                title: report.title,
                note: report.note,
            }
        }
        None => {
            reports.missing.push(location.clone());
            registry_row(el, path, location)
        }
    };
    rows.push(row);
    for child in &el.children {
        planned_rows(child, &names, reports, rows);
    }
}

/// A row straight from the registry, for elements the planner never met.
fn registry_row(el: &Element, path: String, location: String) -> Row {
    let info = registry::lookup(&el.class, &el.gui);
    let verdict = match info.map(|i| i.status) {
        Some(registry::Status::Supported) => Verdict::Supported,
        Some(registry::Status::Ignored) => Verdict::Ignored,
        _ => Verdict::Unsupported {
            blocks_run: registry::affects_run(info, &el.class),
        },
    };
    Row {
        verdict,
        path,
        location,
        class: el.class.clone(),
        title: info.map_or_else(|| el.class.clone(), |i| i.title.to_string()),
        note: info.map_or("unknown element class", |i| i.note).to_string(),
    }
}

/// Rows for what the rewrite will remove: disabled subtrees and the WorkBench.
fn removed_rows(el: &Element, parent: &str, rows: &mut Vec<Row>) {
    let reason = if !el.enabled {
        Some("disabled")
    } else if el.class == "WorkBench" && parent.is_empty() {
        Some("in the WorkBench, which never runs")
    } else {
        None
    };
    match reason {
        Some(reason) => subtree_rows(el, parent, reason, rows),
        None => {
            let (names, _) = display_path(parent, el);
            for child in &el.children {
                removed_rows(child, &names, rows);
            }
        }
    }
}

fn subtree_rows(el: &Element, parent: &str, reason: &str, rows: &mut Vec<Row>) {
    let (names, path) = display_path(parent, el);
    let title = registry::lookup(&el.class, &el.gui)
        .map_or_else(|| el.class.clone(), |i| i.title.to_string());
    rows.push(Row {
        verdict: Verdict::Removed,
        path,
        location: el.location(),
        class: el.class.clone(),
        title,
        note: reason.to_string(),
    });
    for child in &el.children {
        subtree_rows(child, &names, reason, rows);
    }
}

/// Prints one plan's report: the elements, the problems, a summary and the verdict.
pub fn print(report: &PlanReport, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "{}", report.file.display())?;
    for row in &report.rows {
        print_row(row, out)?;
    }
    if !report.removed.is_empty() {
        writeln!(
            out,
            "  Not part of the run (removed before it starts, as JMeter does):"
        )?;
        for row in &report.removed {
            print_row(row, out)?;
        }
    }
    if !report.diagnostics.is_empty() {
        writeln!(out, "  Problems:")?;
        let mut diagnostics: Vec<&Diagnostic> = report.diagnostics.iter().collect();
        // Errors first: they are what keeps the plan from running.
        diagnostics.sort_by_key(|d| std::cmp::Reverse(d.severity));
        for diagnostic in diagnostics {
            writeln!(out, "    {diagnostic}")?;
        }
    }
    let blocking = report.count(|v| v == Verdict::Unsupported { blocks_run: true });
    let errors = report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    writeln!(
        out,
        "  Summary: {} elements: {} supported, {} ignored, {} unsupported ({} change the load or the verdict); {} removed; {}, {}",
        report.rows.len(),
        report.count(|v| v == Verdict::Supported),
        report.count(|v| v == Verdict::Ignored),
        report.count(|v| matches!(v, Verdict::Unsupported { .. })),
        blocking,
        report.removed.len(),
        plural(errors, "error"),
        plural(report.diagnostics.len() - errors, "warning"),
    )?;
    if report.runnable() {
        writeln!(out, "  Result: jmxr can run this plan")
    } else if blocking > 0 {
        writeln!(
            out,
            "  Result: jmxr cannot run this plan as written ({}); \
             --skip-unsupported runs the rest",
            plural(errors, "error")
        )
    } else {
        writeln!(
            out,
            "  Result: jmxr cannot run this plan as written ({})",
            plural(errors, "error")
        )
    }
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn print_row(row: &Row, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "  {:<11}  {}  ({})",
        row.verdict.word(),
        row.path,
        row.location
    )?;
    let consequence = match row.verdict {
        Verdict::Unsupported { blocks_run: true } => "it changes the load or the verdict",
        Verdict::Unsupported { blocks_run: false } => {
            "skipped without changing the load or the verdict"
        }
        _ => "",
    };
    let detail: Vec<&str> = [row.note.as_str(), consequence]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect();
    if !detail.is_empty() {
        writeln!(out, "               {}: {}", row.title, detail.join("; "))?;
    }
    Ok(())
}
