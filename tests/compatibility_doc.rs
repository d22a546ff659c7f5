//! `docs/compatibility.md` is generated from the compatibility registry; this test fails
//! when the file on disk is not what the registry renders, and rewrites it on request.

use std::path::Path;

use jmxr::assemble::compat_doc;

#[test]
fn compatibility_doc_matches_the_registry() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/compatibility.md");
    let expected = compat_doc::render();
    if std::env::var_os("JMXR_UPDATE_DOCS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &expected)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == expected,
        "{} is out of date with src/plan/registry.rs; regenerate it with:\n    \
         JMXR_UPDATE_DOCS=1 cargo test --test compatibility_doc",
        path.display()
    );
}
