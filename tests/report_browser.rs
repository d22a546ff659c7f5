//! The dashboard in a real browser: headless Chromium opens `index.html` and every graph
//! page from `file://`, and each page must draw all its charts without a script error.
//! Screenshots are kept under `target/tmp/report-screenshots/` as artifacts.
//!
//! Needs Debian's `chromium` (installed by `.ci/run`). Without it the test is skipped
//! locally and fails under CI (`CI=true`).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{conformance, jmxr};

const PAGES: &[(&str, usize)] = &[
    ("index.html", 1),
    ("content/pages/OverTime.html", 6),
    ("content/pages/Throughput.html", 6),
    ("content/pages/ResponseTimes.html", 4),
];

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            let out = Command::new("which").arg(name).output().ok()?;
            out.status
                .success()
                .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        })
}

/// Runs headless Chromium on `url` with `extra` flags; returns (stdout, stderr).
fn headless(browser: &Path, profile: &Path, url: &str, extra: &[&str]) -> (String, String) {
    let output = Command::new("timeout")
        .arg("90")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            "--window-size=1400,1800",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("chromium runs");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn attribute(dom: &str, name: &str) -> Option<String> {
    let body = &dom[dom.find("<body")?..];
    let tag = &body[..body.find('>')?];
    let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
    Some(tag[start..].split('"').next()?.to_string())
}

#[test]
fn every_page_draws_its_charts_in_headless_chromium() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var("CI").is_err(),
            "chromium is missing: .ci/run must install it"
        );
        eprintln!(
            "skipped: chromium is not installed (apt-get install -y chromium chromium-driver)"
        );
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let input = conformance().join("jmeter-batch/HTMLReportTestFile.csv");
    let output = jmxr(
        work.path(),
        &[
            "-g",
            input.to_str().unwrap(),
            "-o",
            "report",
            "-Jjmeter.reportgenerator.overall_granularity=2000",
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let profile = work.path().join("profile");
    for (page, charts) in PAGES {
        let url = format!("file://{}", work.path().join("report").join(page).display());
        let (dom, log) = headless(&browser, &profile, &url, &["--dump-dom"]);
        let console_errors: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("CONSOLE") && (l.contains("Error") || l.contains("Uncaught")))
            .collect();
        assert!(console_errors.is_empty(), "{page}: {console_errors:?}");
        assert_eq!(
            attribute(&dom, "data-script-errors"),
            None,
            "{page}: script errors"
        );
        assert_eq!(
            attribute(&dom, "data-charts-drawn").as_deref(),
            Some(charts.to_string().as_str()),
            "{page}: charts drawn; browser log: {log}"
        );
        assert_eq!(
            dom.matches("data-drawn=\"true\"").count(),
            *charts,
            "{page}"
        );
        assert!(
            dom.matches("<svg").count() >= *charts,
            "{page}: no SVG drawn"
        );
        let name = page.rsplit('/').next().unwrap().replace(".html", ".png");
        let shot = shots.join(&name);
        headless(
            &browser,
            &profile,
            &url,
            &[&format!("--screenshot={}", shot.display())],
        );
        assert!(
            shot.is_file(),
            "{page}: no screenshot at {}",
            shot.display()
        );
    }
}
