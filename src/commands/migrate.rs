//! `jmxr migrate plan.jmx [-o out.jmx]`: writes a copy of a plan whose JSR223 and BSF
//! scripts are translated to Rhai (with `scriptLanguage` set to `rhai`), for users who
//! want to own the translation, and prints what could not be translated.
//!
//! The copy is the original text with only the script and language properties
//! replaced, so everything else stays byte for byte. A script whose translation is
//! incomplete is left as it was (jmxr translates it again when the plan runs, and
//! `check` reports the same problems). BeanShell elements have no language to switch,
//! so their scripts stay BeanShell; the report says how each would translate.

use std::path::{Path, PathBuf};

use std::collections::HashMap;
use std::sync::Arc;

use crate::script::protobuf::{self, Schema};
use crate::script::translate::{translate_with, SourceLanguage};

use super::cli::CliError;

#[derive(Debug, Clone)]
pub struct MigrateConfig {
    pub plan: PathBuf,
    pub out: PathBuf,
    /// `-Jname=value`: the properties translation reads (`jmxr.protobuf.path`).
    pub properties: HashMap<String, String>,
}

/// Reads `plan.jmx [-o out.jmx]`; the copy defaults to `plan-rhai.jmx` beside the plan.
pub fn parse_args(args: &[String]) -> Result<MigrateConfig, CliError> {
    let mut plan = None;
    let mut out = None;
    let mut properties = HashMap::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-J" => {
                let value = args
                    .next()
                    .ok_or_else(|| CliError::Usage("migrate: -J needs name=value".into()))?;
                let (name, value) = value.split_once('=').unwrap_or((value, ""));
                properties.insert(name.to_string(), value.to_string());
            }
            other if other.starts_with("-J") => {
                let (name, value) = other[2..].split_once('=').unwrap_or((&other[2..], ""));
                properties.insert(name.to_string(), value.to_string());
            }
            "-o" | "--out" => {
                let value = args
                    .next()
                    .ok_or_else(|| CliError::Usage("migrate: -o needs a file".into()))?;
                out = Some(PathBuf::from(value));
            }
            other if other.starts_with('-') => {
                return Err(CliError::Usage(format!("migrate: unknown option {other}")))
            }
            other => plan = Some(PathBuf::from(other)),
        }
    }
    let plan = plan.ok_or_else(|| {
        CliError::Usage(
            "migrate needs a plan: jmxr migrate plan.jmx [-o out.jmx] [-Jname=value ...]".into(),
        )
    })?;
    let out = out.unwrap_or_else(|| {
        let stem = plan
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        plan.with_file_name(format!("{stem}-rhai.jmx"))
    });
    Ok(MigrateConfig {
        plan,
        out,
        properties,
    })
}

/// One text replacement in the plan's bytes.
struct Edit {
    range: std::ops::Range<usize>,
    text: String,
}

/// What happened to one script.
pub struct ScriptReport {
    /// `line [class] name`
    pub place: String,
    /// One line per problem, or what was done.
    pub notes: Vec<String>,
}

/// Translates the plan text (generated-Java protobuf code with the `.proto` files of
/// `protobuf`); returns the migrated text and a report per script.
pub fn migrate_text(
    xml: &str,
    protobuf: Option<Arc<Schema>>,
) -> Result<(String, Vec<ScriptReport>), String> {
    let document = roxmltree::Document::parse(xml).map_err(|e| e.to_string())?;
    let mut edits = Vec::new();
    let mut reports = Vec::new();
    for element in document.descendants().filter(|n| n.is_element()) {
        let class = element
            .attribute("testclass")
            .unwrap_or(element.tag_name().name());
        let is_beanshell = class.starts_with("BeanShell");
        if !(class.starts_with("JSR223") || class.starts_with("BSF") || is_beanshell) {
            continue;
        }
        let prop = |name: &str| {
            element
                .children()
                .find(|c| c.is_element() && c.attribute("name") == Some(name))
        };
        let Some(script) = prop("script").or_else(|| prop("BeanShellSampler.query")) else {
            continue;
        };
        let source = script.text().unwrap_or("");
        if source.trim().is_empty() {
            continue;
        }
        let language_prop = prop("scriptLanguage");
        let declared = if is_beanshell {
            "beanshell"
        } else {
            language_prop.and_then(|p| p.text()).unwrap_or("")
        };
        let place = format!(
            "line {} [{class}] {}",
            document.text_pos_at(element.range().start).row,
            element.attribute("testname").unwrap_or("")
        );
        let notes = match SourceLanguage::from_script_language(declared) {
            None => vec![format!("left as is: jmxr does not translate `{declared}`")],
            Some(SourceLanguage::Rhai) => continue,
            Some(language) => {
                let translation = translate_with(language, source, protobuf.clone());
                if !translation.problems.is_empty() {
                    translation
                        .problems
                        .iter()
                        .map(|p| format!("left as is: line {}: {}", p.line, p.construct))
                        .collect()
                } else if is_beanshell {
                    vec!["kept as BeanShell (the element has no language to switch); it translates completely".into()]
                } else {
                    edits.push(Edit {
                        range: content_range(xml, script),
                        text: escape(&translation.rhai),
                    });
                    match language_prop {
                        Some(p) => edits.push(Edit {
                            range: p.range(),
                            text: "<stringProp name=\"scriptLanguage\">rhai</stringProp>".into(),
                        }),
                        None => edits.push(Edit {
                            range: script.range().end..script.range().end,
                            text: "<stringProp name=\"scriptLanguage\">rhai</stringProp>".into(),
                        }),
                    }
                    vec![format!("translated from {declared}")]
                }
            }
        };
        reports.push(ScriptReport { place, notes });
    }
    edits.sort_by_key(|e| e.range.start);
    let mut out = String::with_capacity(xml.len());
    let mut at = 0;
    for edit in edits {
        out.push_str(&xml[at..edit.range.start]);
        out.push_str(&edit.text);
        at = edit.range.end;
    }
    out.push_str(&xml[at..]);
    Ok((out, reports))
}

/// The bytes between a property's start and end tags (empty at the end of a
/// self-closed tag, which then gains content).
fn content_range(xml: &str, node: roxmltree::Node) -> std::ops::Range<usize> {
    let range = node.range();
    let tag = &xml[range.clone()];
    match (tag.find('>'), tag.rfind("</")) {
        (Some(open), Some(close)) if close > open => range.start + open + 1..range.start + close,
        _ => range.start + tag.len()..range.start + tag.len(),
    }
}

/// Text escaped as JMeter writes it.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Runs `jmxr migrate`: writes the copy and prints the report; false when the plan
/// could not be read or the copy written.
pub fn run(config: &MigrateConfig, out: &mut dyn std::io::Write) -> bool {
    let schema = match config.properties.get(protobuf::PROPERTY) {
        Some(setting) if !setting.trim().is_empty() => {
            let plan_dir = config.plan.parent().unwrap_or(Path::new(""));
            match protobuf::load(setting.trim(), plan_dir) {
                Ok(schema) => Some(schema),
                Err(error) => {
                    let _ = writeln!(out, "An error occurred: {error}");
                    return false;
                }
            }
        }
        _ => None,
    };
    let result = std::fs::read_to_string(&config.plan)
        .map_err(|e| e.to_string())
        .and_then(|xml| migrate_text(&xml, schema))
        .and_then(|(text, reports)| {
            write_copy(&config.out, &text)?;
            Ok(reports)
        });
    match result {
        Ok(reports) => {
            let _ = print_report(out, &config.plan, &config.out, &reports);
            true
        }
        Err(error) => {
            let _ = writeln!(out, "An error occurred: {}: {error}", config.plan.display());
            false
        }
    }
}

fn write_copy(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn print_report(
    out: &mut dyn std::io::Write,
    plan: &Path,
    copy: &Path,
    reports: &[ScriptReport],
) -> std::io::Result<()> {
    let translated = reports
        .iter()
        .filter(|r| r.notes.iter().any(|n| n.starts_with("translated")))
        .count();
    writeln!(
        out,
        "{}: {translated} of {} scripts translated to Rhai, written to {}",
        plan.display(),
        reports.len(),
        copy.display()
    )?;
    for report in reports {
        writeln!(out, "  {}", report.place)?;
        for note in &report.notes {
            writeln!(out, "      {note}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_translated_scripts_and_their_language_change() {
        let xml = "<jmeterTestPlan>\n  <JSR223Sampler testclass=\"JSR223Sampler\" testname=\"s\">\n    <stringProp name=\"scriptLanguage\">groovy</stringProp>\n    <stringProp name=\"script\">def x = &quot;a&quot;\nvars.put(&quot;k&quot;, x)</stringProp>\n  </JSR223Sampler>\n  <JSR223Sampler testclass=\"JSR223Sampler\" testname=\"t\">\n    <stringProp name=\"script\">class A {}</stringProp>\n    <stringProp name=\"scriptLanguage\">groovy</stringProp>\n  </JSR223Sampler>\n</jmeterTestPlan>\n";
        let (text, reports) = migrate_text(xml, None).unwrap();
        assert!(text.contains("<stringProp name=\"scriptLanguage\">rhai</stringProp>"));
        assert!(text.contains("let x = &quot;a&quot;;"), "{text}");
        assert!(text.contains("<stringProp name=\"script\">class A {}</stringProp>"));
        assert_eq!(reports.len(), 2);
        assert!(reports[1].notes[0].contains("class definition"));
    }
}
