//! The verdicts as a JUnit XML report, one test case per criterion (and per label for
//! the copies `--junit-per-label` makes), in the shape Jenkins' and GitLab's JUnit
//! readers take: a met criterion written `as failed` is a `<failure>`.

use std::fmt::Write as _;

use super::Verdict;

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

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => out.push(c),
        }
    }
    out
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
        escape(&format!("pass/fail criteria of {plan}")),
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
            escape(&class),
            escape(&c.to_string())
        );
        let detail = describe(verdict);
        let _ = writeln!(out, ">");
        if verdict.fails() {
            let _ = writeln!(
                out,
                "      <failure type=\"criterion met\" message=\"{}\">{}</failure>",
                escape(&format!("{}: {detail}", c.text)),
                escape(&detail)
            );
        } else {
            let _ = writeln!(out, "      <system-out>{}</system-out>", escape(&detail));
        }
        let _ = writeln!(out, "    </testcase>");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}
