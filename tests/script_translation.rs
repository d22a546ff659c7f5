//! The translation report over the real-world corpus: every non-empty inline script of
//! a JSR223, BeanShell or BSF element in `../shared/conformance/real-world/**/*.jmx`
//! (enabled or not) is translated to Rhai, and counts as complete when the translator
//! reports no problem and Rhai (with the shims registered) compiles the result.
//!
//! Counting rule: one script per element. JSR223 elements read `script` in their
//! `scriptLanguage` (empty means Groovy); BeanShell elements read
//! `BeanShellSampler.query` (the sampler) or `script` (the others) as BeanShell; BSF
//! elements read `script` in their `scriptLanguage`. Scripts that are only whitespace
//! are not counted. A language jmxr does not translate counts as incomplete. As at run
//! time, `${..}` references are substituted before translation ([`substituted`]).
//!
//! Run with `--nocapture` to see the report.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use jmxr::jmx::{load_file, Element};
use jmxr::script::translate::{translate, SourceLanguage};

const CORPUS: &str = "../shared/conformance/real-world";

struct Script {
    place: String,
    language: String,
    source: String,
}

fn jmx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            jmx_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "jmx") {
            out.push(path);
        }
    }
}

fn scripts_of(element: &Element, file: &str, out: &mut Vec<Script>) {
    let class = element.class.as_str();
    let found = if class.starts_with("JSR223") || class.starts_with("BSF") {
        element.str_prop("script").map(|s| {
            let language = element.str_prop("scriptLanguage").unwrap_or("");
            let language = if language.trim().is_empty() && class.starts_with("JSR223") {
                "groovy"
            } else {
                language
            };
            (language.to_ascii_lowercase(), s)
        })
    } else if class.starts_with("BeanShell") {
        element
            .str_prop("BeanShellSampler.query")
            .or_else(|| element.str_prop("script"))
            .map(|s| ("beanshell".to_string(), s))
    } else {
        None
    };
    if let Some((language, source)) = found {
        if !source.trim().is_empty() {
            out.push(Script {
                place: format!("{file}:{} [{}] {}", element.span.line, class, element.name),
                language,
                source: source.to_string(),
            });
        }
    }
    for child in &element.children {
        scripts_of(child, file, out);
    }
}

/// The script text as JMeter hands it to the engine, approximately: `${..}` references
/// and function calls outside quotes become a number (their value is only known at
/// run time, when the runtime substitutes them before translating).
fn substituted(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let mut depth = 1;
        let end = after.char_indices().find_map(|(i, c)| {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        });
        let Some(end) = end else {
            out.push_str(&rest[start..]);
            return out;
        };
        let line_so_far = out.rsplit('\n').next().unwrap_or("");
        let inside_quotes = line_so_far.matches('"').count() % 2 == 1;
        if inside_quotes {
            out.push_str(&rest[start..start + 2 + end + 1]);
        } else {
            out.push('1');
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// Why a translation is incomplete: its first problem, with the details that vary
/// between scripts (names, line numbers) left in so that one reason is one construct.
fn reason(language: Option<SourceLanguage>, source: &str) -> Result<(), String> {
    let Some(language) = language else {
        return Err("language not translated".into());
    };
    let translation = translate(language, &substituted(source));
    if let Some(problem) = translation.problems.first() {
        return Err(problem.construct.clone());
    }
    let mut engine = rhai::Engine::new();
    jmxr::script::shims::register(&mut engine);
    engine
        .compile(&translation.rhai)
        .map(|_| ())
        .map_err(|e| format!("Rhai does not compile the translation: {e}"))
}

#[test]
fn most_real_world_scripts_translate_completely() {
    let mut files = Vec::new();
    jmx_files(Path::new(CORPUS), &mut files);
    assert!(!files.is_empty(), "the corpus is missing at {CORPUS}");
    let mut scripts = Vec::new();
    for path in &files {
        let Ok(tree) = load_file(path) else {
            continue;
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        for root in &tree.roots {
            scripts_of(root, &name, &mut scripts);
        }
    }
    let mut every_problem: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_language: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut incomplete: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // `JMXR_SHOW=text` prints the translation of the scripts whose place contains `text`.
    let show = std::env::var("JMXR_SHOW").ok();
    for script in &scripts {
        if show
            .as_ref()
            .is_some_and(|s| script.place.contains(s.as_str()))
        {
            if let Some(language) = SourceLanguage::from_script_language(&script.language) {
                let t = translate(language, &script.source);
                println!(
                    "==== {}\n{}\n---- rhai\n{}\n---- {:?}",
                    script.place, script.source, t.rhai, t.problems
                );
            }
        }
        let language = SourceLanguage::from_script_language(&script.language);
        if let Some(language) = language {
            let mut constructs: Vec<String> = translate(language, &substituted(&script.source))
                .problems
                .into_iter()
                .map(|p| p.construct)
                .collect();
            constructs.dedup();
            for construct in constructs {
                *every_problem.entry(construct).or_default() += 1;
            }
        }
        let counts = by_language.entry(script.language.clone()).or_default();
        counts.0 += 1;
        match reason(language, &script.source) {
            Ok(()) => counts.1 += 1,
            Err(why) => incomplete
                .entry(why)
                .or_default()
                .push(script.place.clone()),
        }
    }
    let total = scripts.len();
    let complete: usize = by_language.values().map(|c| c.1).sum();
    println!(
        "Script translation over {} plans: {complete} of {total} scripts complete ({:.1} %)",
        files.len(),
        100.0 * complete as f64 / total as f64
    );
    for (language, (count, done)) in &by_language {
        println!("  {language:<12} {done:>4} of {count:>4}");
    }
    let mut reasons: Vec<(&String, &Vec<String>)> = incomplete.iter().collect();
    reasons.sort_by_key(|(_, places)| std::cmp::Reverse(places.len()));
    println!("Incomplete, by reason:");
    for (why, places) in reasons {
        println!("  {} × {why}", places.len());
        for place in places {
            println!("      {place}");
        }
    }
    let mut all: Vec<(&String, &usize)> = every_problem.iter().collect();
    all.sort_by_key(|(_, n)| std::cmp::Reverse(**n));
    println!("Every problem, by number of scripts it occurs in:");
    for (construct, n) in all {
        println!("  {n:>3} × {construct}");
    }
    assert!(
        complete * 100 >= total * 80,
        "only {complete} of {total} scripts translate completely"
    );
}

mod support;

#[test]
fn migrate_writes_a_copy_with_rhai_scripts_and_reports_what_it_left() {
    let work = tempfile::tempdir().expect("scratch folder");
    let plan = support::fixtures().join("scripts/migrate.jmx");
    let out = work.path().join("migrated.jmx");
    let output = support::jmxr(
        work.path(),
        &[
            "migrate",
            plan.to_str().expect("UTF-8 path"),
            "-o",
            out.to_str().expect("UTF-8 path"),
        ],
    );
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(report.contains("1 of 3 scripts translated"), "{report}");
    assert!(report.contains("class definition"), "{report}");
    assert!(report.contains("kept as BeanShell"), "{report}");

    let original = std::fs::read_to_string(&plan).expect("fixture");
    let migrated = std::fs::read_to_string(&out).expect("migrated copy");
    assert!(migrated.contains("<stringProp name=\"scriptLanguage\">rhai</stringProp>"));
    assert!(
        migrated.contains("let name = elvis(vars.get(&quot;user&quot;), &quot;world&quot;);"),
        "{migrated}"
    );
    assert!(migrated.contains("for i in 0..3 {"), "{migrated}");
    // What was left, and everything around the scripts, is byte for byte the original.
    let untouched_from = original.find("<JSR223PreProcessor").expect("pre-processor");
    assert!(migrated.ends_with(&original[untouched_from..]));
    let script_start = original
        .find("<stringProp name=\"script\">")
        .expect("script");
    let language_start = original
        .find("<stringProp name=\"scriptLanguage\">")
        .expect("language");
    assert_eq!(migrated[..language_start], original[..language_start]);
    assert!(language_start < script_start);

    // The translated script runs as Rhai with the shims: same variables as Groovy's.
    let translated = jmxr::jmx::load_file(&out).expect("migrated plan loads");
    let mut found = Vec::new();
    for root in &translated.roots {
        scripts_of(root, "migrated.jmx", &mut found);
    }
    let groovy = found
        .iter()
        .find(|s| s.place.contains("Groovy greeting"))
        .expect("script");
    assert_eq!(groovy.language, "rhai");
    let mut engine = rhai::Engine::new();
    jmxr::script::shims::register(&mut engine);
    engine
        .compile(&groovy.source)
        .expect("the translation compiles");
}
