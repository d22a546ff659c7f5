//! Renders `docs/compatibility.md` from the compatibility [`registry`](crate::plan::registry),
//! so the published list can never drift from what `jmxr check` says. The test
//! `tests/compatibility_doc.rs` compares the file with [`render`] and rewrites it when
//! `JMXR_UPDATE_DOCS=1` is set.

use std::fmt::Write;

use crate::plan::registry::{ElementInfo, Family, Status, ELEMENTS};

/// The whole document.
pub fn render() -> String {
    let mut doc = String::new();
    doc.push_str(HEADER);
    doc.push_str(&totals());
    for family in Family::ALL {
        let rows: Vec<&ElementInfo> = ELEMENTS.iter().filter(|e| e.family == family).collect();
        if rows.is_empty() {
            continue;
        }
        let _ = write!(doc, "\n## {}\n\n", family.title());
        doc.push_str("| Element | Class | Status | Note |\n|---|---|---|---|\n");
        for info in rows {
            doc.push_str(&table_row(info));
        }
    }
    doc.push_str(&functions());
    doc
}

/// JMeter's own functions (5.6); any not in the function library is listed as missing.
const JMETER_FUNCTIONS: &[&str] = &[
    "__BeanShell",
    "__CSVRead",
    "__FileToString",
    "__P",
    "__Random",
    "__RandomDate",
    "__RandomFromMultipleVars",
    "__RandomString",
    "__StringFromFile",
    "__StringToFile",
    "__TestPlanName",
    "__UUID",
    "__V",
    "__XPath",
    "__changeCase",
    "__char",
    "__counter",
    "__dateTimeConvert",
    "__digest",
    "__escapeHtml",
    "__escapeOroRegexpChars",
    "__escapeXml",
    "__eval",
    "__evalVar",
    "__groovy",
    "__intSum",
    "__isPropDefined",
    "__isVarDefined",
    "__javaScript",
    "__jexl2",
    "__jexl3",
    "__log",
    "__logn",
    "__longSum",
    "__machineIP",
    "__machineName",
    "__property",
    "__regexFunction",
    "__samplerName",
    "__setProperty",
    "__split",
    "__threadGroupName",
    "__threadNum",
    "__time",
    "__timeShift",
    "__unescape",
    "__unescapeHtml",
    "__urldecode",
    "__urlencode",
];

/// The function section: what the library has, and JMeter functions it lacks.
fn functions() -> String {
    let registry = crate::script::function_registry();
    let mut have: Vec<&str> = registry.names().collect();
    have.sort_unstable();
    let missing: Vec<&str> = JMETER_FUNCTIONS
        .iter()
        .copied()
        .filter(|name| registry.get(name).is_none())
        .collect();
    let list = |names: &[&str]| {
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "\n## Functions\n\nSupported ({}): {}.\n\nJMeter functions not supported yet ({}): {}. \
         `jmxr check` reports any unknown function with its location.\n",
        have.len(),
        list(&have),
        missing.len(),
        list(&missing),
    )
}

const HEADER: &str = "\
# JMeter compatibility

<!-- Generated from src/plan/registry.rs by src/assemble/compat_doc.rs; do not edit.
     Regenerate with: JMXR_UPDATE_DOCS=1 cargo test --test compatibility_doc -->

What jmxr does with each JMeter element. `jmxr check plan.jmx` prints the same verdict for
every element of a plan, with its path and file:line:column.

- **supported**: runs as JMeter runs it.
- **ignored**: has no effect on a headless run (GUI-only views, recording); skipped safely.
- **unsupported, refuses the run**: skipping it would change the load or the verdict, so
  `jmxr -n -t` refuses the plan and `jmxr check` exits 2; `--skip-unsupported` runs the
  rest anyway.
- **unsupported, warning**: skipping it changes neither the load nor the verdict (most
  listeners); the run goes on with a warning.

Disabled elements and the WorkBench are removed before the run, as JMeter does. An element
class missing from these tables is reported as unknown, and weighed by its name (a class
named like a sampler or a timer refuses the run).
";

fn totals() -> String {
    let count = |status: Status| ELEMENTS.iter().filter(|e| e.status == status).count();
    format!(
        "\n{} element types: {} supported, {} ignored, {} unsupported.\n",
        ELEMENTS.len(),
        count(Status::Supported),
        count(Status::Ignored),
        count(Status::Unsupported),
    )
}

fn table_row(info: &ElementInfo) -> String {
    let class = if info.gui.is_empty() {
        format!("`{}`", info.class)
    } else {
        format!("`{}` (GUI `{}`)", info.class, info.gui)
    };
    let status = match info.status {
        Status::Unsupported if info.blocks_run() => "unsupported, refuses the run",
        Status::Unsupported => "unsupported, warning",
        other => other.word(),
    };
    format!(
        "| {} | {} | {} | {} |\n",
        cell(info.title),
        class,
        status,
        cell(info.note)
    )
}

/// Keeps table cells intact: a `|` would end the cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_rendered_under_its_family() {
        let doc = render();
        for info in ELEMENTS {
            assert!(doc.contains(&format!("`{}`", info.class)), "{}", info.class);
        }
        assert!(doc.contains("## Listeners\n"));
    }

    #[test]
    fn unsupported_rows_say_whether_they_refuse_the_run() {
        let doc = render();
        let ldap = doc
            .lines()
            .find(|l| l.contains("`LDAPSampler`"))
            .expect("LDAP row");
        assert!(ldap.contains("unsupported, refuses the run"), "{ldap}");
        let graphs = doc
            .lines()
            .find(|l| l.contains("`kg.apc.jmeter.listener.GraphsGeneratorListener`"))
            .expect("Graphs Generator row");
        assert!(graphs.contains("unsupported, warning"), "{graphs}");
    }
}
