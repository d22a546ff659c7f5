//! Save Responses to a file (`ResultSaver`): writes the response body of each sample in
//! its scope, and of each sub-sample, to a file of its own, and names that file in the
//! sample's `Filename` field and, when asked, in a variable.
//!
//! It is a sample listener that runs on the virtual user before the sample is recorded,
//! after the assertions (so "errors only" sees the final outcome), as JMeter notifies it
//! in the sampling thread. One instance serves every user, so the file numbers are
//! shared by the whole run, as JMeter's `NoThreadClone` element shares them.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::expr::Template;
use crate::foundation::java_format::{Dialect, JavaDateFormat};
use crate::foundation::paths::resolve_output;
use crate::plan::{BuildContext, SampleListener};
use crate::runlog;
use crate::sample::{SampleAction, SampleResult};
use crate::user_state::UserState;

/// The timestamp JMeter puts after the prefix when "Add timestamp" is on.
const TIMESTAMP_PATTERN: &str = "yyyyMMdd-HHmm_";

pub struct ResultSaver {
    /// The file name prefix (`FileSaver.filename`), evaluated for each sample.
    prefix: Template,
    /// `FileSaver.variablename`: the variable that receives the file name.
    variable: Template,
    errors_only: bool,
    success_only: bool,
    skip_auto_number: bool,
    skip_suffix: bool,
    ignore_transactions: bool,
    /// The run's start time as the timestamp option prints it, or empty.
    timestamp: String,
    number_width: usize,
    sequence: AtomicU64,
    plan_dir: PathBuf,
}

/// Builds the element from its `FileSaver.*` properties.
pub fn build(cx: &mut BuildContext<'_>) -> ResultSaver {
    let timestamp = if cx.flag("FileSaver.addTimstamp", false) {
        let format = JavaDateFormat::compile(TIMESTAMP_PATTERN, Dialect::DateTimeFormatter)
            .expect("the timestamp pattern is valid");
        format.format_local(crate::foundation::clock::wall_clock_ms())
    } else {
        String::new()
    };
    // `getPropertyAsInt`: empty is the default 0, and so is text that is not a number.
    let number_width = cx
        .raw("FileSaver.numberPadLen")
        .and_then(|text| text.trim().parse::<usize>().ok())
        .unwrap_or(0);
    ResultSaver {
        prefix: cx.template("FileSaver.filename"),
        variable: cx.template("FileSaver.variablename"),
        errors_only: cx.flag("FileSaver.errorsonly", false),
        success_only: cx.flag("FileSaver.successonly", false),
        skip_auto_number: cx.flag("FileSaver.skipautonumber", false),
        skip_suffix: cx.flag("FileSaver.skipsuffix", false),
        ignore_transactions: cx.flag("FileSaver.ignoreTC", true),
        timestamp,
        number_width,
        sequence: AtomicU64::new(0),
        plan_dir: cx.plan_dir(),
    }
}

impl SampleListener for ResultSaver {
    fn sample_finished(&self, sample: &mut SampleResult, user: &mut UserState) {
        let mut number = 0;
        self.save_tree(sample, user, &mut number);
    }
}

impl ResultSaver {
    /// The sample, then its sub-samples depth first; `number` counts them so that each
    /// sub-sample's variable gets its own suffix (`name1`, `name2`…).
    fn save_tree(&self, sample: &mut SampleResult, user: &mut UserState, number: &mut usize) {
        self.save(sample, user, *number);
        *number += 1;
        for sub in &mut sample.subresults {
            self.save_tree(sub, user, number);
        }
    }

    fn save(&self, sample: &mut SampleResult, user: &mut UserState, number: usize) {
        if self.ignore_transactions && sample.is_transaction() {
            return;
        }
        if (sample.success && self.errors_only) || (!sample.success && self.success_only) {
            return;
        }
        let (prefix, variable) = {
            let mut cx = user.eval(&sample.label);
            (self.prefix.eval(&mut cx), self.variable.eval(&mut cx))
        };
        let name = self.file_name(&prefix, &sample.content_type);
        sample.result_file_name = name.clone();
        if !variable.is_empty() {
            let variable = if number > 0 {
                format!("{variable}{number}")
            } else {
                variable
            };
            user.vars.put(variable, name.clone());
        }
        let path = PathBuf::from(&name);
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.exists() && std::fs::create_dir_all(parent).is_err() {
                // JMeter stops the test at once when it cannot make the folders.
                runlog::error(&format!(
                    "Save Responses to a file: cannot create path hierarchy for folder {}",
                    absolute(parent).display()
                ));
                sample.action = SampleAction::StopTestNow;
                return;
            }
        }
        if let Err(e) = std::fs::write(&path, &sample.response_data) {
            runlog::error(&format!(
                "Save Responses to a file: error saving sample {} to {name}: {e}",
                sample.label
            ));
        }
    }

    /// `makeFileName`: the prefix (a leading `~/` is the plan's folder), the run's
    /// timestamp, the next number padded with zeros, and a suffix from the content type's
    /// subtype (`text/html;charset=UTF-8` gives `.html`, no type `.unknown`).
    fn file_name(&self, prefix: &str, content_type: &str) -> String {
        let mut name = resolve_output(prefix, &self.plan_dir)
            .to_string_lossy()
            .into_owned();
        name.push_str(&self.timestamp);
        if !self.skip_auto_number {
            let number = self.sequence.fetch_add(1, Ordering::Relaxed) + 1;
            name.push_str(&format!("{number:0width$}", width = self.number_width));
        }
        if !self.skip_suffix {
            name.push('.');
            match content_type.find('/') {
                Some(slash) => {
                    let subtype = &content_type[slash + 1..];
                    name.push_str(subtype.split(';').next().unwrap_or(subtype));
                }
                None => name.push_str("unknown"),
            }
        }
        name
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saver(skip_auto_number: bool, skip_suffix: bool, number_width: usize) -> ResultSaver {
        ResultSaver {
            prefix: Template::literal("test"),
            variable: Template::literal(""),
            errors_only: false,
            success_only: false,
            skip_auto_number,
            skip_suffix,
            ignore_transactions: true,
            timestamp: String::new(),
            number_width,
            sequence: AtomicU64::new(0),
            plan_dir: PathBuf::from("/plans"),
        }
    }

    #[test]
    fn file_names_follow_jmeters_rules() {
        assert_eq!(saver(true, true, 0).file_name("test", ""), "test");
        assert_eq!(
            saver(true, false, 0).file_name("test", "text/plain"),
            "test.plain"
        );
        assert_eq!(
            saver(true, false, 0).file_name("test", "text/plain;charset=UTF-8"),
            "test.plain"
        );
        assert_eq!(saver(true, false, 0).file_name("test", ""), "test.unknown");
        let numbered = saver(false, true, 0);
        assert_eq!(numbered.file_name("test", "text/plain"), "test1");
        assert_eq!(numbered.file_name("test", "text/plain"), "test2");
        let padded = saver(false, false, 5);
        assert_eq!(padded.file_name("", ""), "00001.unknown");
        assert_eq!(
            saver(true, false, 0).file_name("~/out/r", "application/json"),
            "/plans/out/r.json"
        );
    }
}
