//! Include Controller: the content of another `.jmx` file, loaded before the run.
//!
//! Checked against JMeter 5.6's `IncludeController.loadIncludedElements`:
//! * the path (`IncludeController.includepath`, no `${}` evaluation) is tried as given,
//!   i.e. relative to the working folder; if that file does not exist and the path is
//!   relative, it is tried relative to the main plan's folder (`FileServer` base dir, which
//!   is the main plan's even for includes nested in included files);
//! * of the included file only one branch is used (`getProperBranch`): walking its top
//!   level in order, a Test Plan is descended into and the first Test Fragment found —
//!   enabled or not, the GUI creates them disabled — gives its *children*. Other elements
//!   of the included plan (thread groups, config at plan level) are ignored, and a file
//!   without a Test Fragment includes nothing;
//! * disabled elements of that branch are removed and nested Include / Module Controllers
//!   expanded, like the rest of the tree.
//!
//! Where JMeter only logs a missing file and includes nothing, we stop with an error: a
//! plan that silently loses part of its load is worse than one that does not start. We
//! also try the including file's own folder last, which only matters for nested includes
//! that JMeter would not find, and we refuse include cycles (JMeter overflows its stack).
//! The `includecontroller.prefix` property is not applied.

use std::path::{Path, PathBuf};

use super::rewrite::{convert, error, is_class, Context};
use super::{load_file, Element, LoadError};

/// The children an Include Controller stands for, or `None` when its path is empty
/// (JMeter then leaves the controller as it is).
pub(super) fn replacement(
    controller: &Element,
    ctx: &mut Context,
) -> Result<Option<Vec<Element>>, LoadError> {
    let raw = controller
        .str_prop("IncludeController.includepath")
        .unwrap_or_default();
    let wanted = raw.trim();
    if wanted.is_empty() {
        return Ok(None);
    }
    let found = locate(wanted, controller, ctx)?;
    let id = identity(&found);
    if ctx.includes.contains(&id) {
        let chain: Vec<String> = ctx
            .includes
            .iter()
            .chain(std::iter::once(&id))
            .map(|p| p.display().to_string())
            .collect();
        return Err(error(
            controller,
            format!(
                "Include Controller '{}' includes a file that is already being included: {}",
                controller.name,
                chain.join(" → ")
            ),
        ));
    }
    let included = load_file(&found)?;
    let mut branch = proper_branch(included.roots);
    ctx.includes.push(id);
    let converted = convert(&mut branch, ctx);
    ctx.includes.pop();
    converted?;
    Ok(Some(branch))
}

/// Finds the included file: as given (working folder), then the main plan's folder, then
/// the including file's folder.
fn locate(wanted: &str, controller: &Element, ctx: &Context) -> Result<PathBuf, LoadError> {
    let given = PathBuf::from(wanted);
    let mut tried = vec![given.clone()];
    if given.is_relative() {
        tried.push(ctx.plan_dir.join(&given));
        if let Some(dir) = controller.file.parent() {
            let beside = dir.join(&given);
            if !tried.contains(&beside) {
                tried.push(beside);
            }
        }
    }
    if let Some(found) = tried.iter().find(|path| path.is_file()) {
        return Ok(found.clone());
    }
    let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
    Err(error(
        controller,
        format!(
            "Include Controller '{}' cannot find '{}' (tried {})",
            controller.name,
            wanted,
            tried.join(", ")
        ),
    ))
}

/// The part of an included file that is used: the children of its first Test Fragment,
/// looking inside a Test Plan on the way.
fn proper_branch(elements: Vec<Element>) -> Vec<Element> {
    for element in elements {
        if is_class(&element, "TestPlan") {
            return proper_branch(element.children);
        }
        if is_class(&element, "TestFragmentController") {
            return element.children;
        }
    }
    Vec::new()
}

/// A stable name for a file, so that two spellings of one path count as the same include.
pub(super) fn identity(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}
