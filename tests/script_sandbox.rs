//! Scripts trying to leave the sandbox: files outside the plan's and working folders
//! (named outright, reached with `..` or through a link), huge strings and arrays, deep
//! recursion and a runaway loop. Each attempt fails its own sample with a message that
//! says which limit stopped it; the user goes on to its next sampler and the run ends
//! normally. Fixture: `jmx-fixtures/scripts/sandbox_escapes.jmx`.

mod support;

use std::path::Path;

use support::{run_fixture_in, Jtl};

struct Scene {
    work: tempfile::TempDir,
    outside: tempfile::TempDir,
}

/// A working folder holding `inside.txt` and a link `link` to a folder outside it,
/// which holds `secret.txt`.
fn scene() -> Scene {
    let work = tempfile::tempdir().expect("working folder");
    let outside = tempfile::tempdir().expect("outside folder");
    std::fs::write(work.path().join("inside.txt"), "hello").expect("inside.txt");
    std::fs::write(outside.path().join("secret.txt"), "secret").expect("secret.txt");
    std::os::unix::fs::symlink(outside.path(), work.path().join("link")).expect("link");
    Scene { work, outside }
}

fn run(scene: &Scene, extra: &[&str]) -> Jtl {
    let outside = format!("-Joutside={}", scene.outside.path().display());
    let mut args = vec![outside.as_str(), "-Jjmxr.script.max_cpu_ms=1000"];
    args.extend_from_slice(extra);
    run_fixture_in(scene.work.path(), "scripts/sandbox_escapes.jmx", &args)
}

fn message(jtl: &Jtl, label: &str) -> String {
    let row = jtl.one(label);
    assert_eq!(jtl.get(row, "success"), "false", "{label} succeeded");
    assert_eq!(jtl.get(row, "responseCode"), "500", "{label}");
    jtl.get(row, "responseMessage").to_string()
}

#[test]
fn every_escape_fails_its_own_sample_and_the_user_goes_on() {
    let scene = scene();
    let jtl = run(&scene, &[]);
    assert_eq!(
        jtl.labels_of("Escapes 1-1"),
        [
            "read outside",
            "climb out",
            "link out",
            "write outside",
            "read inside",
            "huge string",
            "huge array",
            "deep recursion",
            "long loop",
            "after inside=hello outside=${outside_text}",
        ]
    );
    for (label, verb) in [
        ("read outside", "read"),
        ("climb out", "read"),
        ("link out", "read"),
        ("write outside", "write"),
    ] {
        let text = message(&jtl, label);
        assert!(
            text.contains("AccessDeniedException")
                && text.contains(&format!("scripts may {verb} files only below"))
                && text.contains("jmxr.script.allowed_paths"),
            "{label}: {text}"
        );
    }
    assert!(!scene.outside.path().join("written.txt").exists());
    assert_eq!(jtl.get(jtl.one("read inside"), "success"), "true");

    let text = message(&jtl, "huge string");
    assert!(text.contains("size limit: Length of string"), "{text}");
    // Growing an array one item at a time costs Rhai quadratic time in size checks
    // between operations: the CPU budget ends it.
    let text = message(&jtl, "huge array");
    assert!(
        text.contains("size limit") || text.contains("ms of CPU"),
        "{text}"
    );
    let (start, end) = jtl.span(jtl.one("huge array"));
    assert!(
        end - start < 10_000,
        "the huge array ran {} ms",
        end - start
    );
    let text = message(&jtl, "deep recursion");
    assert!(text.contains("nested calls deeper than 64"), "{text}");
    let text = message(&jtl, "long loop");
    assert!(
        text.contains("operations") || text.contains("ms of CPU"),
        "{text}"
    );
}

#[test]
fn a_folder_named_in_the_property_opens_to_scripts() {
    let scene = scene();
    let allowed = format!(
        "-Jjmxr.script.allowed_paths={}",
        scene.outside.path().display()
    );
    let jtl = run(&scene, &[&allowed]);
    assert_eq!(jtl.get(jtl.one("read outside"), "success"), "true");
    assert_eq!(jtl.get(jtl.one("write outside"), "success"), "true");
    assert_eq!(
        std::fs::read_to_string(scene.outside.path().join("written.txt")).expect("written"),
        "escaped"
    );
    // A link into an allowed folder is followed; climbing to /etc still is not.
    assert_eq!(jtl.get(jtl.one("link out"), "success"), "true");
    assert!(message(&jtl, "climb out").contains("AccessDeniedException"));
    let last = jtl.labels_of("Escapes 1-1").pop().expect("rows");
    assert_eq!(last, "after inside=hello outside=secret");
    assert!(Path::new(&scene.work.path().join("out.jtl")).exists());
}
