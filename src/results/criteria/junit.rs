//! The verdicts as a JUnit XML report, one test case per criterion (and per label for
//! the copies `--junit-per-label` makes), in the shape Jenkins' and GitLab's JUnit
//! readers take: a met criterion written `as failed` is a `<failure>`.

use std::fmt::Write as _;

use super::Verdict;
use crate::foundation::xml_escape::escape_xml10;

/// What was measured, in words: `p95 of Log in was 412 ms` or `... had no samples`.
pub fn describe(verdict: &Verdict) -> String {
    let c = &verdict.criterion;
    let what = if c.label.is_empty() {
        "the run".to_string()
    } else {
        format!("{:?}", c.label)
    };
    match verdict.value {
        Some(value) => format!(
            "{} was {} for {what}",
            c.subject.name(),
            c.subject.show(value, c.percentage)
        ),
        None => format!("{what} had no samples"),
    }
}

/// The report for `plan` (the suite's name).
pub fn junit_xml(plan: &str, verdicts: &[Verdict]) -> String {
    let failures = verdicts.iter().filter(|v| v.fails()).count();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"jmxr\" tests=\"{}\" failures=\"{failures}\" errors=\"0\">",
        verdicts.len()
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">",
        escape_xml10(&format!("pass/fail criteria of {plan}")),
        verdicts.len()
    );
    for verdict in verdicts {
        let c = &verdict.criterion;
        let class = if c.label.is_empty() {
            "jmxr.criteria".to_string()
        } else {
            format!("jmxr.criteria.{}", c.label)
        };
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}\"",
            escape_xml10(&class),
            escape_xml10(&c.to_string())
        );
        let detail = describe(verdict);
        let _ = writeln!(out, ">");
        if verdict.fails() {
            let _ = writeln!(
                out,
                "      <failure type=\"criterion met\" message=\"{}\">{}</failure>",
                escape_xml10(&format!("{}: {detail}", c.text)),
                escape_xml10(&detail)
            );
        } else {
            let _ = writeln!(
                out,
                "      <system-out>{}</system-out>",
                escape_xml10(&detail)
            );
        }
        let _ = writeln!(out, "    </testcase>");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}
