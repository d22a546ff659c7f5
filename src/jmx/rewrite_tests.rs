//! Unit tests for the structural rewrites.

use std::path::Path;

use super::apply;
use crate::jmx::{load_file, load_str, Element, LoadError, TestTree};

fn load(text: &str, path: &Path) -> TestTree {
    load_str(text, path).unwrap_or_else(|err| panic!("load failed: {err}"))
}

fn rewritten(text: &str) -> TestTree {
    let mut tree = load(text, Path::new("plan.jmx"));
    apply(&mut tree).unwrap_or_else(|err| panic!("rewrite failed: {err}"));
    tree
}

fn rewrite_error(text: &str) -> LoadError {
    let mut tree = load(text, Path::new("plan.jmx"));
    apply(&mut tree).expect_err("the rewrite should fail")
}

/// `elements` as `name(children)` for compact assertions.
fn shape(elements: &[Element]) -> String {
    elements
        .iter()
        .map(|e| {
            if e.children.is_empty() {
                e.name.clone()
            } else {
                format!("{}({})", e.name, shape(&e.children))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `<tag testname="name" enabled=..>props</tag><hashTree>children</hashTree>`.
fn el(tag: &str, name: &str, enabled: bool, props: &str, children: &str) -> String {
    format!(
        r#"<{tag} guiclass="G" testclass="{tag}" testname="{name}" enabled="{enabled}">{props}</{tag}><hashTree>{children}</hashTree>"#
    )
}

fn plan(name: &str, children: &str) -> String {
    format!(
        "<jmeterTestPlan><hashTree>{}</hashTree></jmeterTestPlan>",
        el("TestPlan", name, true, "", children)
    )
}

fn module(name: &str, path: &[&str]) -> String {
    let items: String = path
        .iter()
        .map(|p| format!(r#"<stringProp name="0">{p}</stringProp>"#))
        .collect();
    el(
        "ModuleController",
        name,
        true,
        &format!(r#"<collectionProp name="ModuleController.node_path">{items}</collectionProp>"#),
        "",
    )
}

fn include(name: &str, path: &str) -> String {
    el(
        "IncludeController",
        name,
        true,
        &format!(r#"<stringProp name="IncludeController.includepath">{path}</stringProp>"#),
        "",
    )
}

#[test]
fn disabled_elements_go_with_their_subtrees() {
    let inner = el("S", "s1", true, "", "") + &*el("S", "off", false, "", "");
    let groups = el("TG", "on", true, "", &el("C", "c", true, "", &inner))
        + &*el("TG", "gone", false, "", &el("S", "s2", true, "", ""));
    let tree = rewritten(&plan("P", &groups));
    assert_eq!(shape(&tree.roots), "P(on(c(s1)))");
}

#[test]
fn work_bench_is_dropped() {
    let text = format!(
        "<jmeterTestPlan><hashTree>{}{}</hashTree></jmeterTestPlan>",
        el("TestPlan", "P", true, "", &el("TG", "tg", true, "", "")),
        el(
            "WorkBench",
            "WorkBench",
            true,
            "",
            &el("TG", "spare", true, "", "")
        )
    );
    let tree = rewritten(&text);
    assert_eq!(shape(&tree.roots), "P(tg)");
}

#[test]
fn test_fragments_stay_in_place() {
    let tree = rewritten(&plan(
        "P",
        &el(
            "TestFragmentController",
            "frag",
            true,
            "",
            &el("S", "s", true, "", ""),
        ),
    ));
    assert_eq!(shape(&tree.roots), "P(frag(s))");
}

#[test]
fn module_copies_a_disabled_target_enabled_and_drops_its_disabled_children() {
    let target_children = el("S", "s", true, "", "") + &*el("S", "off", false, "", "");
    let body = el(
        "TestFragmentController",
        "frag",
        false,
        "",
        &el("C", "target", true, "", &target_children),
    ) + &*el(
        "TG",
        "tg",
        true,
        "",
        &module("m", &["Test Plan", "P", "frag", "target"]),
    );
    let tree = rewritten(&plan("P", &body));
    assert_eq!(shape(&tree.roots), "P(tg(m(target(s))))");
    let copy = &tree.roots[0].children[0].children[0].children[0];
    assert!(copy.enabled);
    assert_eq!(copy.class, "C", "the target keeps its kind");
}

#[test]
fn module_replaces_its_own_children_and_skips_modules_named_like_the_target() {
    // As in Bug55375: the module has the target's name but must not select itself.
    let target = el("C", "reload", false, "", &el("S", "reload", true, "", ""));
    let module = module("reload", &["WorkBench", "P", "tg", "reload"]).replace(
        "<hashTree></hashTree>",
        &format!(
            "<hashTree>{}</hashTree>",
            el("S", "own child", true, "", "")
        ),
    );
    let tree = rewritten(&plan(
        "P",
        &el("TG", "tg", true, "", &(target + module.as_str())),
    ));
    assert_eq!(shape(&tree.roots), "P(tg(reload(reload(reload))))");
}

#[test]
fn module_takes_the_last_match_in_tree_order() {
    let body = el(
        "TG",
        "tg",
        true,
        "",
        &el("C", "dup", true, "", &el("S", "first", true, "", "")),
    ) + &*el(
        "TG",
        "tg",
        true,
        "",
        &el("C", "dup", true, "", &el("S", "second", true, "", "")),
    ) + &*el(
        "TG",
        "runner",
        true,
        "",
        &module("m", &["x", "P", "tg", "dup"]),
    );
    let tree = rewritten(&plan("P", &body));
    assert_eq!(shape(&tree.roots[0].children[2].children), "m(dup(second))");
}

#[test]
fn module_targets_may_live_in_a_work_bench() {
    let text = format!(
        "<jmeterTestPlan><hashTree>{}{}</hashTree></jmeterTestPlan>",
        el(
            "TestPlan",
            "P",
            true,
            "",
            &el(
                "TG",
                "tg",
                true,
                "",
                &module("m", &["WorkBench", "WorkBench", "lib"])
            )
        ),
        el(
            "WorkBench",
            "WorkBench",
            true,
            "",
            &el("C", "lib", true, "", &el("S", "s", true, "", ""))
        )
    );
    let tree = rewritten(&text);
    assert_eq!(shape(&tree.roots), "P(tg(m(lib(s))))");
}

#[test]
fn module_without_a_target_is_an_error_at_its_location() {
    let body = el(
        "TG",
        "tg",
        true,
        "",
        &module("lost", &["Test Plan", "P", "tg", "renamed"]),
    );
    let err = rewrite_error(&plan("P", &body));
    let message = err.to_string();
    assert!(matches!(err, LoadError::Rewrite { .. }), "{err:?}");
    assert!(message.starts_with("plan.jmx:1:"), "{message}");
    assert!(
        message.contains("'lost'") && message.contains("P › tg › renamed"),
        "{message}"
    );
}

#[test]
fn module_with_an_empty_path_is_an_error() {
    let err = rewrite_error(&plan("P", &el("TG", "tg", true, "", &module("m", &[]))));
    assert!(err.to_string().contains("cannot find its target"), "{err}");
}

#[test]
fn module_inside_its_own_target_is_an_error_not_a_stack_overflow() {
    let body = el(
        "TG",
        "tg",
        true,
        "",
        &el(
            "C",
            "loop",
            true,
            "",
            &module("m", &["x", "P", "tg", "loop"]),
        ),
    );
    let err = rewrite_error(&plan("P", &body));
    assert!(
        err.to_string().contains("inside its own target 'loop'"),
        "{err}"
    );
}

#[test]
fn disabled_module_is_removed_without_resolving() {
    let module =
        module("m", &["x", "P", "nowhere"]).replace("enabled=\"true\"", "enabled=\"false\"");
    let tree = rewritten(&plan("P", &el("TG", "tg", true, "", &module)));
    assert_eq!(shape(&tree.roots), "P(tg)");
}

#[test]
fn include_takes_the_first_fragment_even_disabled_and_sets_the_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let inc = dir.path().join("inc.jmx");
    let fragments = el(
        "TG",
        "ignored group",
        true,
        "",
        &el("S", "not included", true, "", ""),
    ) + &*el(
        "TestFragmentController",
        "f1",
        false,
        "",
        &(el("S", "a", true, "", "") + &*el("S", "off", false, "", "")),
    ) + &*el(
        "TestFragmentController",
        "f2",
        true,
        "",
        &el("S", "b", true, "", ""),
    );
    std::fs::write(&inc, plan("Inc", &fragments)).expect("write include");
    let main = dir.path().join("main.jmx");
    std::fs::write(
        &main,
        plan("P", &el("TG", "tg", true, "", &include("i", "inc.jmx"))),
    )
    .expect("write plan");
    let mut tree = load_file(&main).expect("load");
    apply(&mut tree).expect("rewrite");
    assert_eq!(shape(&tree.roots), "P(tg(i(a)))");
    let included = &tree.roots[0].children[0].children[0].children[0];
    assert_eq!(included.file.as_path(), inc.as_path());
    assert_eq!(tree.roots[0].file.as_path(), main.as_path());
}

#[test]
fn include_without_a_fragment_includes_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("inc.jmx"),
        plan("Inc", &el("S", "s", true, "", "")),
    )
    .expect("write");
    let main = dir.path().join("main.jmx");
    std::fs::write(&main, plan("P", &include("i", "inc.jmx"))).expect("write");
    let mut tree = load_file(&main).expect("load");
    apply(&mut tree).expect("rewrite");
    assert_eq!(shape(&tree.roots), "P(i)");
}

#[test]
fn nested_includes_resolve_and_cycles_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let fragment = |body: &str| plan("x", &el("TestFragmentController", "f", true, "", body));
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    std::fs::write(
        dir.path().join("sub/a.jmx"),
        fragment(&include("to b", "sub/b.jmx")),
    )
    .expect("write");
    std::fs::write(
        dir.path().join("sub/b.jmx"),
        fragment(&el("S", "leaf", true, "", "")),
    )
    .expect("write");
    let main = dir.path().join("main.jmx");
    std::fs::write(&main, plan("P", &include("to a", "sub/a.jmx"))).expect("write");
    let mut tree = load_file(&main).expect("load");
    apply(&mut tree).expect("rewrite");
    assert_eq!(shape(&tree.roots), "P(to a(to b(leaf)))");

    std::fs::write(
        dir.path().join("sub/b.jmx"),
        fragment(&include("back to a", "sub/a.jmx")),
    )
    .expect("write");
    let mut tree = load_file(&main).expect("load");
    let err = apply(&mut tree).expect_err("cycle");
    assert!(err.to_string().contains("already being included"), "{err}");
    assert!(
        err.to_string().contains("b.jmx:"),
        "located in the including file: {err}"
    );
}

#[test]
fn missing_include_names_the_file_the_element_and_its_location() {
    let err = rewrite_error(&plan("P", &include("inc ctl", "does/not/exist.jmx")));
    let message = err.to_string();
    assert!(matches!(err, LoadError::Rewrite { .. }), "{err:?}");
    assert!(message.starts_with("plan.jmx:1:"), "{message}");
    assert!(
        message.contains("'inc ctl'") && message.contains("does/not/exist.jmx"),
        "{message}"
    );
}
