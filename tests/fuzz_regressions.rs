//! Replays the inputs the fuzz targets once failed on (`fuzz/regressions/<target>/`)
//! through the same entry points (`jmxr::commands::fuzzing`), on stable Rust: each must
//! return, without a panic, within a time bound. See `docs/fuzzing.md`.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use jmxr::commands::fuzzing::{run_target, TARGETS};

/// Far above what any input takes (milliseconds), far below a hang.
const BOUND: Duration = Duration::from_secs(10);

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// Runs `target` on `data` in a thread of its own; `Err` says how it failed.
fn replay(target: &'static str, data: Vec<u8>) -> Result<Duration, String> {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(|| run_target(target, &data));
        let _ = done.send((outcome, started.elapsed()));
    });
    match finished.recv_timeout(BOUND) {
        Ok((Ok(true), took)) => Ok(took),
        Ok((Ok(false), _)) => Err(format!("{target} is not a target")),
        Ok((Err(_), _)) => Err("panicked".into()),
        Err(_) => Err(format!("did not return within {BOUND:?}")),
    }
}

#[test]
fn every_kept_input_returns_without_panic_in_time() {
    let mut failures = Vec::new();
    let mut replayed = 0;
    for target in TARGETS {
        let folder = fuzz_dir().join("regressions").join(target);
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).expect("a regression input is readable");
            replayed += 1;
            if let Err(why) = replay(target, data) {
                failures.push(format!("{}: {why}", file.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "failing inputs:\n{}",
        failures.join("\n")
    );
    eprintln!("replayed {replayed} regression inputs");
}

#[test]
fn regression_folders_are_named_after_targets() {
    let Ok(entries) = std::fs::read_dir(fuzz_dir().join("regressions")) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        assert!(
            TARGETS.contains(&name.as_str()),
            "fuzz/regressions/{name} is not named after a target: {TARGETS:?}"
        );
    }
}

#[test]
fn every_target_is_a_cargo_fuzz_binary_and_takes_trivial_input() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).expect("fuzz/Cargo.toml");
    for target in TARGETS {
        assert!(
            manifest.contains(&format!("name = \"{target}\"")),
            "{target} has no [[bin]] in fuzz/Cargo.toml"
        );
        let source = fuzz_dir().join("fuzz_targets").join(format!("{target}.rs"));
        let text = std::fs::read_to_string(&source).expect("the target's source");
        assert!(
            text.contains(&format!("fuzzing::{target}(data)")),
            "{} does not call its entry point",
            source.display()
        );
        for data in [&b""[..], b"\0", b"\x01${", b"\xff\xfe<"] {
            replay(target, data.to_vec())
                .unwrap_or_else(|why| panic!("{target} on {data:?}: {why}"));
        }
    }
}
