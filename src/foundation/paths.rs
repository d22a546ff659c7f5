//! Where a file named by a plan is found.

use std::path::{Path, PathBuf};

/// Resolves a relative file name as JMeter does for input files (CSV data, scripts,
/// `__StringFromFile`): the working folder first, then the plan's folder.
pub fn resolve_input(name: &str, plan_dir: &Path) -> PathBuf {
    let given = Path::new(name);
    if given.is_absolute() || given.exists() {
        return given.to_path_buf();
    }
    let beside = plan_dir.join(given);
    if beside.exists() {
        beside
    } else {
        given.to_path_buf()
    }
}

/// Resolves an output file name as JMeter does (`FileServer.resolveBaseRelativeName`):
/// relative to the working folder, except that a leading `~/` means the plan's folder.
pub fn resolve_output(name: &str, plan_dir: &Path) -> PathBuf {
    match name.strip_prefix("~/") {
        Some(rest) => plan_dir.join(rest),
        None => PathBuf::from(name),
    }
}
