//! `jmxr check` over every plan of the conformance corpus (JMeter's batch tests, its
//! examples and templates, plugin samples, 160 real-world plans): it never crashes, it
//! lists every element exactly once, and the batch plans jmxr supports pass.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use jmxr::commands::check::{self, Verdict};
use jmxr::jmx::{self, Element};
use jmxr::plan::registry;

/// Batch plans whose every element jmxr runs; `check` must pass them.
const SUPPORTED_BATCH: &[&str] = &[
    "Bug62239",
    "BUG_62847",
    "Bug52968",
    "Bug50898",
    "Bug55375",
    "Bug54685",
    "OS_TESTS",
    "BatchTestLocal",
    "Bug56243",
    "Bug56811",
    "TestResultStatusAction",
    "TestSchedulerWithTimer",
];

fn jmx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            jmx_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "jmx") {
            out.push(path);
        }
    }
}

fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    jmx_files(&support::conformance(), &mut files);
    files.sort();
    assert!(files.len() >= 227, "corpus shrank: {} plans", files.len());
    files
}

fn count(elements: &[Element]) -> usize {
    elements.iter().map(|e| 1 + count(&e.children)).sum()
}

/// Every element of the loaded file appears once: in the run's listing (counted on the
/// rewritten tree, which also holds included files and Module Controller copies) or among
/// the removed ones; and the planner reported each of them.
#[test]
fn check_lists_every_element_exactly_once() {
    let functions = jmxr::script::function_registry();
    let mut failures = Vec::new();
    let mut load_errors = 0;
    for path in corpus() {
        let report = match check::report(&path, &functions) {
            Ok(report) => report,
            Err(err) => {
                // Only Include Controllers pointing at files the corpus does not hold.
                let text = err.to_string();
                assert!(text.contains("Include Controller"), "{text}");
                load_errors += 1;
                continue;
            }
        };
        let mut tree = jmx::load_file(&path).expect("loaded once already");
        jmx::rewrite::apply(&mut tree).expect("rewritten once already");
        if report.rows.len() != count(&tree.roots) {
            failures.push(format!(
                "{}: {} rows for {} elements",
                path.display(),
                report.rows.len(),
                count(&tree.roots)
            ));
        }
        if !report.unmatched.is_empty() {
            failures.push(format!(
                "{}: the planner and the tree disagree at {:?}",
                path.display(),
                report.unmatched
            ));
        }
        let source = std::fs::read_to_string(&path).expect("readable");
        let removed = |pick: &dyn Fn(&check::Row) -> bool| report.removed.iter().any(pick);
        if source.contains("testclass=\"WorkBench\"") && !removed(&|r| r.class == "WorkBench") {
            failures.push(format!("{}: WorkBench not listed", path.display()));
        }
        if source.contains("enabled=\"false\"") && !removed(&|r| r.note == "disabled") {
            failures.push(format!("{}: disabled elements not listed", path.display()));
        }
        let mut text = Vec::new();
        check::print(&report, &mut text).expect("printing to memory");
        println!("{}", String::from_utf8_lossy(&text));
    }
    assert_eq!(load_errors, 3, "plans with missing include files");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The binary on every plan: exit 0, 1 or 2, never a panic; a report on stdout for
/// every plan it could read, and a located error otherwise.
#[test]
fn check_never_crashes_on_the_corpus() {
    let files = Mutex::new(corpus());
    let problems = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let Some(path) = files.lock().expect("queue").pop() else {
                    return;
                };
                if let Some(problem) = check_binary(&path) {
                    problems.lock().expect("problems").push(problem);
                }
            });
        }
    });
    let problems = problems.into_inner().expect("problems");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn check_binary(path: &Path) -> Option<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_jmxr"))
        .arg("check")
        .arg(path)
        .output()
        .expect("jmxr runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let code = output.status.code();
    let shown = path.display();
    match code {
        _ if stderr.contains("panicked") => Some(format!("{shown}: panic: {stderr}")),
        Some(0) | Some(2) if !stdout.contains("  Result: ") => {
            Some(format!("{shown}: no report: {stdout}"))
        }
        Some(1) if !stderr.contains(&format!("{}:", path.display())) => {
            Some(format!("{shown}: error names no location: {stderr}"))
        }
        Some(0..=2) => None,
        _ => Some(format!("{shown}: exit {code:?}: {stderr}")),
    }
}

#[test]
fn supported_batch_plans_pass_check() {
    let functions = jmxr::script::function_registry();
    for name in SUPPORTED_BATCH {
        let path = support::conformance().join(format!("jmeter-batch/{name}.jmx"));
        let report = check::report(&path, &functions).unwrap_or_else(|e| panic!("{e}"));
        let blocking: Vec<_> = report
            .rows
            .iter()
            .filter(|r| r.verdict == Verdict::Unsupported { blocks_run: true })
            .map(|r| &r.path)
            .collect();
        assert!(blocking.is_empty(), "{name}: {blocking:?}");
        assert!(report.runnable(), "{name}: {:?}", report.diagnostics);
        let output = support::jmxr(
            &support::conformance().join("jmeter-batch"),
            &["check", &format!("{name}.jmx")],
        );
        assert_eq!(output.status.code(), Some(0), "{name}");
    }
}

/// Every class and GUI class in the corpus, disabled elements and WorkBench contents
/// included, has a registry row: an unknown one means a row is missing.
#[test]
fn registry_knows_every_corpus_class() {
    fn walk(elements: &[Element], unknown: &mut BTreeSet<String>) {
        for el in elements {
            if registry::lookup(&el.class, &el.gui).is_none() {
                unknown.insert(format!("{} ({})", el.class, el.gui));
            }
            walk(&el.children, unknown);
        }
    }
    let mut unknown = BTreeSet::new();
    for path in corpus() {
        let tree = jmx::load_file(&path).unwrap_or_else(|e| panic!("{e}"));
        walk(&tree.roots, &mut unknown);
    }
    assert!(unknown.is_empty(), "no registry row for {unknown:?}");
}
