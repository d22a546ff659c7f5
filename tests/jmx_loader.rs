//! The `.jmx` loader and its rewrites against real plans: JMeter's own batch tests,
//! its examples and templates, plugin plans and 160 plans found in public repositories.

use std::path::{Path, PathBuf};

use jmxr::jmx::{load_file, rewrite, Element, LoadError, TestTree};

const CORPUS: &str = "../shared/conformance";
const BATCH: &str = "../shared/conformance/jmeter-batch";

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

fn load(path: &str) -> TestTree {
    load_file(Path::new(path)).unwrap_or_else(|err| panic!("{err}"))
}

fn find<'a>(elements: &'a [Element], name: &str) -> Vec<&'a Element> {
    let mut found = Vec::new();
    for element in elements {
        if element.name == name {
            found.push(element);
        }
        found.extend(find(&element.children, name));
    }
    found
}

#[test]
fn every_corpus_plan_loads_and_rewrites() {
    let mut files = Vec::new();
    jmx_files(Path::new(CORPUS), &mut files);
    files.sort();
    assert!(
        files.len() >= 200,
        "corpus not found: {} plans",
        files.len()
    );
    let mut failures = Vec::new();
    let mut missing_includes = Vec::new();
    for file in &files {
        let mut tree = match load_file(file) {
            Ok(tree) => tree,
            Err(err) => {
                failures.push(format!("load: {err}"));
                continue;
            }
        };
        match rewrite::apply(&mut tree) {
            Ok(()) => {}
            // Real-world plans include files their repositories did not publish.
            Err(err @ LoadError::Rewrite { .. }) if err.to_string().contains("cannot find '") => {
                missing_includes.push(err.to_string());
            }
            Err(err) => failures.push(format!("rewrite: {err}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} plans failed:\n{}\n(missing include files, allowed:\n{})",
        failures.len(),
        files.len(),
        failures.join("\n"),
        missing_includes.join("\n")
    );
    eprintln!(
        "{} plans loaded; missing include files (allowed):\n{}",
        files.len(),
        missing_includes.join("\n")
    );
}

#[test]
fn bug50898_include_controllers_hold_the_fragment_children() {
    let mut tree = load(&format!("{BATCH}/Bug50898.jmx"));
    rewrite::apply(&mut tree).unwrap_or_else(|err| panic!("{err}"));
    let group = &tree.roots[0].children[0];
    assert_eq!(group.name, "Thread Group");
    assert_eq!(
        group.children.len(),
        2,
        "both same-named Include Controllers stay"
    );
    for include in &group.children {
        assert_eq!(include.class, "IncludeController");
        let names: Vec<(&str, &str)> = include
            .children
            .iter()
            .map(|e| (e.class.as_str(), e.name.as_str()))
            .collect();
        assert_eq!(names, vec![("JavaSampler", "Java Request")]);
        let sampler = &include.children[0];
        assert!(
            sampler.file.ends_with("Bug50898_inc.jmx"),
            "{}",
            sampler.file.display()
        );
        assert_eq!(
            sampler.location(),
            format!("{}:16:9", sampler.file.display())
        );
    }
}

#[test]
fn bug55375_module_runs_the_disabled_controller_it_is_named_after() {
    let mut tree = load(&format!("{BATCH}/Bug55375.jmx"));
    rewrite::apply(&mut tree).unwrap_or_else(|err| panic!("{err}"));
    let group = &tree.roots[0].children[0];
    let shape: Vec<(&str, &str)> = group
        .children
        .iter()
        .map(|e| (e.class.as_str(), e.name.as_str()))
        .collect();
    assert_eq!(
        shape,
        vec![("ModuleController", "reload")],
        "the disabled target is gone"
    );
    let target = &group.children[0].children;
    assert_eq!(target.len(), 1);
    assert_eq!(
        (target[0].class.as_str(), target[0].enabled),
        ("GenericController", true)
    );
    let samplers = find(&target[0].children, "reload");
    assert_eq!(samplers.len(), 1);
    assert_eq!(samplers[0].class, "JavaSampler");
}

#[test]
fn batch_local_plan_keeps_test_fragments_and_resolves_its_modules() {
    let mut tree = load(&format!("{BATCH}/BatchTestLocal.jmx"));
    rewrite::apply(&mut tree).unwrap_or_else(|err| panic!("{err}"));
    let modules: Vec<&Element> = all(&tree.roots)
        .into_iter()
        .filter(|e| e.class == "ModuleController")
        .collect();
    assert!(!modules.is_empty());
    for module in modules {
        assert_eq!(module.children.len(), 1, "{}", module.location());
    }
    assert!(all(&tree.roots).iter().all(|e| e.enabled));
}

fn all(elements: &[Element]) -> Vec<&Element> {
    elements
        .iter()
        .flat_map(|e| std::iter::once(e).chain(all(&e.children)))
        .collect()
}
