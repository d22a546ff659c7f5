//! HTML Assertion (`HTMLAssertion`, reference §11.9): the response is parsed as HTML
//! (or XML with format 2) and the sample fails when the parser's errors exceed the error
//! threshold, or, unless "errors only", its warnings exceed the warning threshold. The
//! report can be written to a file. Messages are JMeter's.
//!
//! Difference from JMeter (see docs/differences.md): JMeter runs JTidy; jmxr counts an
//! HTML5 parser's complaints as Tidy's warnings and elements unknown to Tidy (HTML 4 and
//! its proprietary tags) as Tidy's errors, so counts can differ on the same page. With
//! format XML a document that is not well-formed counts one error.

use std::sync::Arc;

use super::{grouped, RESPONSE_WAS_NULL};
use crate::plan::{Assertion, BuildContext};
use crate::query::html_parse::parse_html;
use crate::query::xml_dom::{parse_xml, NodeKind};
use crate::query::xml_load::{is_tidy_tag, unknown_elements};
use crate::sample::AssertionResult;
use crate::sample::SampleResult;
use crate::user_state::EvalContext;

pub struct HtmlAssertion {
    name: Arc<str>,
    errors_only: bool,
    error_threshold: i64,
    warning_threshold: i64,
    xml: bool,
    filename: String,
}

/// What the parser found: counts and a Tidy-style report.
struct Report {
    errors: usize,
    warnings: usize,
    lines: Vec<String>,
}

impl HtmlAssertion {
    pub fn build(cx: &mut BuildContext<'_>) -> HtmlAssertion {
        let number = |cx: &BuildContext<'_>, name: &str| -> i64 {
            cx.raw(name)
                .and_then(|t| t.trim().parse().ok())
                .unwrap_or(0)
        };
        HtmlAssertion {
            name: Arc::from(cx.element.name.as_str()),
            errors_only: cx.flag("html_assertion_errorsonly", false),
            error_threshold: number(cx, "html_assertion_error_threshold"),
            warning_threshold: number(cx, "html_assertion_warning_threshold"),
            xml: number(cx, "html_assertion_format") == 2,
            filename: cx.raw("html_assertion_filename").unwrap_or("").to_string(),
        }
    }

    fn report(&self, body: &str) -> Report {
        if self.xml {
            return match parse_xml(body, false) {
                Ok(_) => Report {
                    errors: 0,
                    warnings: 0,
                    lines: Vec::new(),
                },
                Err(error) => Report {
                    errors: 1,
                    warnings: 0,
                    lines: vec![format!(
                        "line {} column {} - Error: {error}",
                        error.pos().row,
                        error.pos().col
                    )],
                },
            };
        }
        let html = parse_html(body);
        let mut lines: Vec<String> = html
            .errors
            .iter()
            .map(|(line, message)| format!("line {line} column 1 - Warning: {message}"))
            .collect();
        for node in &html.dom.nodes {
            if node.kind == NodeKind::Element && !is_tidy_tag(&node.name.local) {
                lines.push(format!("Error: <{}> is not recognized!", node.name.local));
            }
        }
        Report {
            errors: unknown_elements(&html.dom),
            warnings: html.errors.len(),
            lines,
        }
    }

    fn write_report(&self, report: &Report) {
        if self.filename.trim().is_empty() {
            return;
        }
        let mut text = report.lines.join("\n");
        text.push_str(&format!(
            "\n{} warnings, {} errors were found!\n",
            report.warnings, report.errors
        ));
        if let Err(err) = std::fs::write(&self.filename, text) {
            crate::runlog::warn(&format!(
                "writeOutput() -> could not write output to file: {}: {err}",
                self.filename
            ));
        }
    }
}

impl Assertion for HtmlAssertion {
    fn apply(&self, result: &mut SampleResult, _cx: &mut EvalContext<'_>) {
        let mut verdict = AssertionResult {
            name: self.name.clone(),
            ..AssertionResult::default()
        };
        if result.response_data.is_empty() {
            verdict.failure = true;
            verdict.failure_message = Some(RESPONSE_WAS_NULL.to_string());
        } else {
            let report = self.report(&String::from_utf8_lossy(&result.response_data));
            self.write_report(&report);
            let errors_above = report.errors as i64 > self.error_threshold;
            let warnings_above = report.warnings as i64 > self.warning_threshold;
            if errors_above || (!self.errors_only && warnings_above) {
                verdict.failure = true;
                verdict.failure_message = Some(format!(
                    "Tidy Parser errors: {} (allowed {}) Tidy Parser warnings: {} (allowed {})",
                    grouped(report.errors as i64),
                    grouped(self.error_threshold),
                    grouped(report.warnings as i64),
                    grouped(self.warning_threshold)
                ));
            }
        }
        let ok = result.success && !verdict.failure;
        result.set_success(ok);
        result.assertions.push(verdict);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    fn check(props: Vec<crate::jmx::Property>, body: &str) -> Option<String> {
        let el = element("HTMLAssertion", "H", props);
        let assertion = with_cx(&el, HtmlAssertion::build);
        let mut result = sample(1);
        result.set_success(true);
        result.response_data = body.as_bytes().to_vec();
        run(&assertion, &mut result);
        assert_eq!(
            result.success,
            result.assertions[0].failure_message.is_none()
        );
        result.assertions[0].failure_message.clone()
    }

    const CLEAN: &str =
        "<!DOCTYPE html><html><head><title>t</title></head><body><p>x</p></body></html>";

    #[test]
    fn thresholds_errors_only_and_messages() {
        assert_eq!(check(vec![], CLEAN), None);
        let sloppy = "<!DOCTYPE html><p>a</b>";
        assert_eq!(
            check(vec![], sloppy).as_deref(),
            Some("Tidy Parser errors: 0 (allowed 0) Tidy Parser warnings: 1 (allowed 0)")
        );
        assert_eq!(
            check(vec![bool_prop("html_assertion_errorsonly", true)], sloppy),
            None
        );
        assert_eq!(
            check(
                vec![bool_prop("html_assertion_errorsonly", true)],
                "<!DOCTYPE html><blah>x</blah>"
            )
            .as_deref(),
            Some("Tidy Parser errors: 1 (allowed 0) Tidy Parser warnings: 0 (allowed 0)")
        );
        assert_eq!(
            check(
                vec![int_prop("html_assertion_warning_threshold", 5)],
                sloppy
            ),
            None
        );
        assert_eq!(check(vec![], "").as_deref(), Some("Response was null"));
    }

    #[test]
    fn xml_format_needs_well_formed_xml_and_writes_the_report() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tidy.txt");
        let props = || {
            vec![
                int_prop("html_assertion_format", 2),
                str_prop("html_assertion_filename", file.to_str().unwrap()),
            ]
        };
        assert_eq!(check(props(), "<a><b/></a>"), None);
        assert!(check(props(), "<a><b></a>").is_some());
        assert!(std::fs::read_to_string(&file)
            .unwrap()
            .contains("0 warnings, 1 errors were found!"));
    }
}
