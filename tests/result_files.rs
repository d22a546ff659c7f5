//! Results files that can no longer be written: a full disk under the `.jtl` (CSV and
//! XML), a full disk under the dashboard's folder, a `.jtl` removed during the run. The
//! run stops within a second or two with exit code 6, and what was written reads back.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::tmpfs::{run_on_tmpfs, TmpfsRun};
use support::{fixtures, jmxr, parse_csv};

/// The documented exit code of a run whose results could not be written.
const RESULTS_NOT_WRITTEN: i32 = 6;
/// Most time from the first failed write to the end of the process.
const PROMPT: Duration = Duration::from_secs(2);

fn busy_plan() -> String {
    fixtures()
        .join("stopping/forever.jmx")
        .to_str()
        .expect("UTF-8 path")
        .to_string()
}

/// jmxr stopped promptly after the first failed write, naming it.
fn assert_stopped_promptly(run: &TmpfsRun, failure: &str) {
    assert_eq!(run.code, RESULTS_NOT_WRITTEN, "{}", run.stderr());
    let failed = run
        .first(failure)
        .unwrap_or_else(|| panic!("no {failure:?} in stderr: {}", run.stderr()));
    let after = run.exited.duration_since(failed);
    assert!(after < PROMPT, "jmxr went on {after:?} after the failure");
    eprintln!("jmxr ended {after:?} after the first failed write");
}

/// `jmxr -g` reads the whole file back without a warning; returns the sample count.
fn read_back(jtl: &Path) -> u64 {
    let work = jtl.parent().expect("folder");
    let output = jmxr(work, &["-g", jtl.to_str().expect("UTF-8"), "-o", "back"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("warning"), "{stderr}");
    let text = std::fs::read_to_string(work.join("back/statistics.json")).expect("statistics");
    let stats: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    stats["Total"]["sampleCount"].as_u64().expect("a count")
}

/// Runs the busy plan (20 users, 1 ms pauses, 30 s) with its results file `jtl` on a
/// 256 KiB tmpfs, which fills within a second; checks that the run stopped promptly.
fn fill_tmpfs(work: &Path, jtl: &str, extra: &[&str]) -> Option<TmpfsRun> {
    let plan = busy_plan();
    let mut args = vec!["-n", "-t", &plan, "-l", jtl, "-Jduration=30", "-Jdelay=1"];
    args.extend_from_slice(extra);
    let run = run_on_tmpfs(work, "256k", &args)?;
    assert_stopped_promptly(&run, "cannot write the results file");
    Some(run)
}

#[test]
fn a_full_disk_under_the_csv_jtl_stops_the_run_and_keeps_whole_lines() {
    let work = tempfile::tempdir().unwrap();
    let Some(run) = fill_tmpfs(work.path(), "tmpfs/out.jtl", &[]) else {
        return;
    };
    assert!(
        run.stderr().contains("No space left on device"),
        "{}",
        run.stderr()
    );
    let jtl = run.kept.join("out.jtl");
    let text = std::fs::read_to_string(&jtl).unwrap();
    assert!(text.ends_with('\n'), "the file ends in half a line");
    let rows = parse_csv(&text);
    assert!(rows.len() > 100, "only {} rows were kept", rows.len());
    assert!(rows.iter().all(|row| row.len() == rows[0].len()));
    assert_eq!(read_back(&jtl), rows.len() as u64 - 1);
}

#[test]
fn a_full_disk_under_the_xml_jtl_leaves_a_well_formed_file() {
    let work = tempfile::tempdir().unwrap();
    let xml = "-Jjmeter.save.saveservice.output_format=xml";
    let Some(run) = fill_tmpfs(work.path(), "tmpfs/out.xml", &[xml]) else {
        return;
    };
    let text = std::fs::read_to_string(run.kept.join("out.xml")).unwrap();
    assert!(
        text.ends_with("</testResults>\n"),
        "{:?}",
        &text[text.len() - 80..]
    );
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let samples = doc
        .root_element()
        .children()
        .filter(|n| n.has_tag_name("sample"));
    assert!(samples.count() > 100);
}

#[test]
fn a_full_disk_under_the_dashboard_folder_is_an_error_and_the_jtl_stays_whole() {
    let work = tempfile::tempdir().unwrap();
    let plan = fixtures().join("results/round_trip.jmx");
    let plan = plan.to_str().expect("UTF-8 path");
    let args = [
        "-n",
        "-t",
        plan,
        "-l",
        "out.jtl",
        "-e",
        "-o",
        "tmpfs/report",
    ];
    let Some(run) = run_on_tmpfs(work.path(), "64k", &args) else {
        return;
    };
    let stderr = run.stderr();
    assert_eq!(run.code, RESULTS_NOT_WRITTEN, "{stderr}");
    assert!(stderr.contains("dashboard not written"), "{stderr}");
    assert!(
        stderr.contains("jmxr -g out.jtl -o tmpfs/report"),
        "{stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(&run.kept).unwrap().collect();
    assert!(left.is_empty(), "a partial dashboard was left: {left:?}");
    let jtl = work.path().join("out.jtl");
    let rows = parse_csv(&std::fs::read_to_string(&jtl).unwrap()).len() as u64;
    assert_eq!(read_back(&jtl), rows - 1);
}

#[test]
fn a_jtl_removed_during_the_run_stops_it() {
    let work = tempfile::tempdir().unwrap();
    let plan = busy_plan();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_jmxr"))
        .args(["-n", "-t", &plan, "-l", "out.jtl", "-Jduration=30"])
        .current_dir(work.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let jtl = work.path().join("out.jtl");
    let started = Instant::now();
    while !std::fs::metadata(&jtl).is_ok_and(|m| m.len() > 1000) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "nothing written"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::fs::remove_file(&jtl).unwrap();
    let removed = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if removed.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("the run went on after its results file was removed");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let took = removed.elapsed();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(RESULTS_NOT_WRITTEN), "{stderr}");
    assert!(stderr.contains("was removed during the run"), "{stderr}");
    assert!(took < PROMPT, "the run went on {took:?} after the removal");
}
