//! Pass/fail criteria on the command line: `--criteria TEXT` (repeatable) and
//! `--criteria-file FILE` (one criterion a line, `#` comments) are read before the run;
//! after it, the verdicts are printed, `--junit FILE` gets them as JUnit XML, and a
//! criterion met `as failed` sets the exit code.

use std::path::{Path, PathBuf};

use crate::results::{describe, junit_xml, Criterion, Verdict};

/// Parses the criteria given inline and in files, in that order; the error names the
/// file and line.
pub fn read(texts: &[String], files: &[PathBuf]) -> Result<Vec<Criterion>, String> {
    let mut criteria = Vec::new();
    for text in texts {
        criteria.push(Criterion::parse(text)?);
    }
    for file in files {
        let content = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read the criteria file {}: {e}", file.display()))?;
        for (n, line) in content.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let criterion =
                Criterion::parse(line).map_err(|e| format!("{}:{}: {e}", file.display(), n + 1))?;
            criteria.push(criterion);
        }
    }
    Ok(criteria)
}

/// Prints every verdict and writes the JUnit file; true when a criterion failed the run.
pub fn report(verdicts: &[Verdict], plan: &Path, junit: Option<&Path>) -> Result<bool, String> {
    if verdicts.is_empty() && junit.is_none() {
        return Ok(false);
    }
    println!("Pass/fail criteria:");
    for verdict in verdicts {
        let state = match (verdict.met, verdict.criterion.fail) {
            (true, true) => "FAILED",
            (true, false) => "met (non-failed)",
            (false, _) => "passed",
        };
        println!("  {state}: {} ({})", verdict.criterion, describe(verdict));
    }
    if let Some(path) = junit {
        let name = plan.display().to_string();
        std::fs::write(path, junit_xml(&name, verdicts))
            .map_err(|e| format!("cannot write the JUnit report {}: {e}", path.display()))?;
    }
    Ok(verdicts.iter().any(Verdict::fails))
}
