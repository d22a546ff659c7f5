//! The crate's modules stand in layers: `src/lib.rs` lists its top-level modules bottom to
//! top, and a module may import only modules listed before it. This test reads that list
//! and every `crate::` path in `src/` (comments and string literals aside), then fails on
//! an import loop between top-level modules (naming, for each step of the loop, the
//! files and paths that make it) and on any import of a module listed later.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where one top-level module refers to another: file, line and the path as written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Reference {
    file: String,
    line: usize,
    path: String,
}

/// `from` → `to` → the references that make the edge.
type Graph = BTreeMap<String, BTreeMap<String, Vec<Reference>>>;

#[test]
fn no_module_imports_one_above_it_and_no_imports_loop() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let layers = declared_layers(&lib);
    let modules = declared_modules(&lib);
    let listed: BTreeSet<String> = layers.iter().cloned().collect();
    assert_eq!(
        listed, modules,
        "the layer list in src/lib.rs's docs must name every `pub mod` exactly once"
    );
    let graph = import_graph(&src);
    let problems = check(&layers, &graph);
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn a_loop_and_an_upward_import_are_reported_with_their_files() {
    let layers: Vec<String> = ["base", "middle", "top"].map(String::from).to_vec();
    let mut graph = Graph::new();
    add_edge(
        &mut graph,
        "middle",
        "base",
        "src/middle/a.rs",
        "crate::base::Thing",
    );
    assert!(check(&layers, &graph).is_empty());
    add_edge(
        &mut graph,
        "base",
        "middle",
        "src/base/b.rs",
        "crate::middle::Other",
    );
    let problems = check(&layers, &graph).join("\n");
    assert!(
        problems.contains("import loop: base → middle → base"),
        "{problems}"
    );
    assert!(
        problems.contains("src/base/b.rs:3: crate::middle::Other"),
        "{problems}"
    );
    assert!(
        problems.contains("src/middle/a.rs:3: crate::base::Thing"),
        "{problems}"
    );
    assert!(
        problems.contains("`base` (layer 1) imports `middle` (layer 2)"),
        "{problems}"
    );
}

#[test]
fn paths_are_read_from_code_only() {
    let text = r#"
        //! See [`crate::top::Thing`] for the other end.
        use crate::{base::A, middle::{B, C}};
        use super::sibling;
        let s = "crate::top::not_code";
        /* crate::top::nor_this */
        let x = crate::base::f();
    "#;
    let found: Vec<String> = crate_paths(text).into_iter().map(|f| f.path).collect();
    assert_eq!(
        found,
        [
            "crate::base::A",
            "crate::middle",
            "super::sibling",
            "crate::base::f"
        ],
        "{found:?}"
    );
}

fn add_edge(graph: &mut Graph, from: &str, to: &str, file: &str, path: &str) {
    graph
        .entry(from.to_string())
        .or_default()
        .entry(to.to_string())
        .or_default()
        .push(Reference {
            file: file.to_string(),
            line: 3,
            path: path.to_string(),
        });
}

/// Checks the graph against the layer order; one message per problem.
fn check(layers: &[String], graph: &Graph) -> Vec<String> {
    let rank = |module: &str| layers.iter().position(|m| m == module);
    let mut problems = Vec::new();
    for cycle in cycles(graph) {
        let mut text = format!("import loop: {}", cycle.join(" → "));
        for step in cycle.windows(2) {
            text.push_str(&format!("\n  {} → {}:", step[0], step[1]));
            for r in &graph[&step[0]][&step[1]] {
                text.push_str(&format!("\n    {}:{}: {}", r.file, r.line, r.path));
            }
        }
        problems.push(text);
    }
    for (from, targets) in graph {
        for (to, references) in targets {
            let (Some(from_rank), Some(to_rank)) = (rank(from), rank(to)) else {
                problems.push(format!("`{from}` or `{to}` is not in the layer list"));
                continue;
            };
            if to_rank > from_rank {
                let mut text = format!(
                    "`{from}` (layer {}) imports `{to}` (layer {}), which is above it:",
                    from_rank + 1,
                    to_rank + 1
                );
                for r in references {
                    text.push_str(&format!("\n    {}:{}: {}", r.file, r.line, r.path));
                }
                problems.push(text);
            }
        }
    }
    problems
}

/// Every elementary loop of the module graph, each once, as `a → b → … → a`.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    fn walk(graph: &Graph, start: &str, path: &mut Vec<String>, found: &mut Vec<Vec<String>>) {
        let here = path
            .last()
            .expect("the path starts with its module")
            .clone();
        for next in graph.get(&here).map(|t| t.keys()).into_iter().flatten() {
            if next == start {
                let mut cycle = path.clone();
                cycle.push(start.to_string());
                found.push(cycle);
            } else if next.as_str() > start && !path.contains(next) {
                // Each loop is reported from its smallest module only.
                path.push(next.clone());
                walk(graph, start, path, found);
                path.pop();
            }
        }
    }
    let mut found = Vec::new();
    for start in graph.keys() {
        walk(graph, start, &mut vec![start.clone()], &mut found);
    }
    found
}

/// The numbered `[`module`]` lines of the `# Layers` list in lib.rs's docs, in order.
fn declared_layers(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|line| {
            let item = line.strip_prefix("//! ")?;
            let (number, rest) = item.split_once(". [`")?;
            number.parse::<usize>().ok()?;
            Some(rest.split_once("`]")?.0.to_string())
        })
        .collect()
}

fn declared_modules(lib: &str) -> BTreeSet<String> {
    lib.lines()
        .filter_map(|line| line.strip_prefix("pub mod "))
        .map(|rest| rest.trim_end_matches(';').to_string())
        .collect()
}

fn import_graph(src: &Path) -> Graph {
    let mut graph = Graph::new();
    for file in rust_files(src) {
        let relative = file.strip_prefix(src).expect("below src");
        let Some(module) = top_module(relative) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).expect("readable source");
        let depth = module_depth(relative);
        for Found {
            line,
            path,
            inline_depth,
        } in crate_paths(&text)
        {
            let Some(target) = target_module(&path, depth + inline_depth) else {
                continue;
            };
            if target != module {
                graph
                    .entry(module.clone())
                    .or_default()
                    .entry(target)
                    .or_default()
                    .push(Reference {
                        file: format!("src/{}", relative.display()),
                        line,
                        path,
                    });
            }
        }
    }
    graph
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable folder") {
        let path = entry.expect("folder entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// `engine/vu.rs` → `engine`; `sample.rs` → `sample`; the crate roots → none.
fn top_module(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    match first {
        "lib.rs" | "main.rs" => None,
        name => Some(name.trim_end_matches(".rs").to_string()),
    }
}

/// How many modules deep the file's module is (`sample.rs` 1, `engine/vu.rs` 2,
/// `engine/mod.rs` 1), for `super::` paths that climb to the crate root.
fn module_depth(relative: &Path) -> usize {
    let parts = relative.components().count();
    if relative.file_name().is_some_and(|f| f == "mod.rs") {
        parts - 1
    } else {
        parts
    }
}

/// The top-level module a path names, or `None` for paths inside the file's own module.
fn target_module(path: &str, depth: usize) -> Option<String> {
    let mut rest = path.strip_prefix("crate::").map(|r| (r, 0)).or_else(|| {
        let climbs = path.matches("super::").count();
        (climbs >= depth).then(|| (path.trim_start_matches("super::"), climbs))
    })?;
    if rest.1 > depth {
        return None;
    }
    rest.0 = rest.0.trim_start_matches('{');
    let name: String = rest
        .0
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty() && name != "self").then_some(name)
}

/// A path found in code.
struct Found {
    line: usize,
    path: String,
    /// How many inline `mod name { … }` blocks it sits in (for `super::`).
    inline_depth: usize,
}

/// The `crate::…` and leading `super::…` paths in code, one per imported item, with
/// their line numbers; grouped imports (`crate::{a::X, b}`) give one path per group member.
fn crate_paths(text: &str) -> Vec<Found> {
    let code = code_only(text);
    let inline_modules = inline_module_spans(&code);
    let depth_at = |at: usize| {
        inline_modules
            .iter()
            .filter(|(start, end)| (*start..*end).contains(&at))
            .count()
    };
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < code.len() {
        let rest = &code[at..];
        let starts = ["crate::", "super::"]
            .into_iter()
            .find(|p| rest.starts_with(p) && (at == 0 || !is_ident(bytes[at - 1])));
        let Some(prefix) = starts else {
            at += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let line = code[..at].matches('\n').count() + 1;
        let mut end = at;
        while end < code.len() && (is_ident(bytes[end]) || bytes[end] == b':') {
            end += 1;
        }
        let path = code[at..end].trim_end_matches(':').to_string();
        if prefix == "crate::" && code[end..].starts_with('{') && path == "crate" {
            let close = matching_brace(&code[end..]).map_or(code.len(), |c| end + c);
            for member in top_level_members(&code[end + 1..close]) {
                let member = member.trim();
                let head: String = member
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                let head = head.trim_end_matches(':');
                if !head.is_empty() {
                    let member_path = match head.split_once("::") {
                        Some((module, item)) if !item.is_empty() => {
                            format!("crate::{module}::{item}")
                        }
                        _ => format!("crate::{head}"),
                    };
                    found.push(Found {
                        line,
                        path: member_path,
                        inline_depth: depth_at(at),
                    });
                }
            }
            at = close;
        } else {
            found.push(Found {
                line,
                path,
                inline_depth: depth_at(at),
            });
            at = end.max(at + 1);
        }
    }
    found
}

/// The comma-separated members of a `{…}` group, nested groups kept whole.
fn top_level_members(group: &str) -> Vec<&str> {
    let mut members = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                members.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    members.push(&group[start..]);
    members
}

/// The byte spans of inline module bodies (`mod tests { … }`).
fn inline_module_spans(code: &str) -> Vec<(usize, usize)> {
    let bytes = code.as_bytes();
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(found) = code[from..].find("mod ") {
        let at = from + found;
        from = at + 4;
        if at > 0 && is_ident(bytes[at - 1]) {
            continue;
        }
        let rest = code[from..].trim_start();
        let name_len = rest.bytes().take_while(|&b| is_ident(b)).count();
        let after = rest[name_len..].trim_start();
        if name_len > 0 && after.starts_with('{') {
            let open = code.len() - after.len();
            if let Some(close) = matching_brace(&code[open..]) {
                spans.push((open, open + close));
            }
        }
    }
    spans
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The offset of the `}` closing the `{` that `text` starts with.
fn matching_brace(text: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` with comments and the insides of string literals blanked (line breaks kept, so
/// line numbers stay true). Raw strings, char literals and lifetimes are told apart.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !prev_is_ident(&chars, i)
        {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            if chars.get(i + 1 + hashes) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let mut j = i + 2 + hashes;
            while j < chars.len() {
                if chars[j] == '"'
                    && chars[j + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == '#')
                        .count()
                        == hashes
                {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &k in &chars[i..j.min(chars.len())] {
                out.push(blank(k));
            }
            i = j;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') is blanked; a lifetime is kept.
            let close = if next == Some('\\') {
                chars[i + 2..]
                    .iter()
                    .position(|&k| k == '\'')
                    .map(|p| i + 2 + p)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(end) => {
                    for _ in i..=end {
                        out.push(' ');
                    }
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}
