//! Structural rewrites JMeter performs before a run, so the planner sees the tree that
//! JMeter would execute.
//!
//! What JMeter 5.6 does in non-GUI mode (`JMeter.runNonGui`, then `convertSubTree`):
//!
//! 1. Every Module Controller resolves its target against the tree *as loaded*, disabled
//!    elements included (the GUI tree model is built before anything is removed). That is
//!    why a disabled controller is a valid target (batch test Bug55375).
//! 2. The tree is then walked depth-first: a disabled element is dropped with its subtree;
//!    an enabled Include or Module Controller stays in place as a plain controller, but its
//!    children are *replaced* (`HashTree.set`, not merged) by the replacement tree, which is
//!    itself converted the same way; anything else is converted recursively.
//!
//! The per-thread `TreeCloner` pass that follows only copies elements; it changes no shape.
//! Test Fragments stay where they are: at Test Plan level they belong to no thread group so
//! they never run by themselves, yet remain available as Module Controller targets.
//! The WorkBench root of 2.x/3.x files is dropped: it never runs.

use std::path::PathBuf;

use super::{include, module, Element, LoadError, TestTree};

/// Removes disabled elements and the WorkBench, and fills Include and Module Controllers
/// with the elements they stand for.
pub fn apply(tree: &mut TestTree) -> Result<(), LoadError> {
    let source = tree.roots.clone();
    tree.roots.retain(|root| !is_class(root, "WorkBench"));
    let mut ctx = Context {
        source: &source,
        plan_dir: tree.plan_dir().to_path_buf(),
        includes: vec![include::identity(&tree.file)],
        modules: Vec::new(),
    };
    convert(&mut tree.roots, &mut ctx)
}

/// What a conversion needs besides the subtree being converted.
pub(super) struct Context<'a> {
    /// The main plan as loaded, disabled elements included: where Module Controllers look.
    pub(super) source: &'a [Element],
    /// The main plan's folder, JMeter's `FileServer` base: the second place an include
    /// path is looked for, also for includes nested in included files.
    pub(super) plan_dir: PathBuf,
    /// Files being included, outermost first, to stop include cycles.
    pub(super) includes: Vec<PathBuf>,
    /// Module targets being expanded (as index paths into `source`), to stop module cycles.
    pub(super) modules: Vec<Vec<usize>>,
}

/// Converts a list of siblings in place, as JMeter's `convertSubTree` does.
pub(super) fn convert(elements: &mut Vec<Element>, ctx: &mut Context) -> Result<(), LoadError> {
    elements.retain(|element| element.enabled);
    for element in elements.iter_mut() {
        if is_class(element, "IncludeController") {
            if let Some(children) = include::replacement(element, ctx)? {
                element.children = children;
                continue;
            }
        } else if is_class(element, "ModuleController") {
            element.children = module::replacement(element, ctx)?;
            continue;
        }
        convert(&mut element.children, ctx)?;
    }
    Ok(())
}

/// Whether `element` is the JMeter core class `alias`, written as the alias or as its
/// fully qualified name.
pub(super) fn is_class(element: &Element, alias: &str) -> bool {
    let class = element.class.as_str();
    class == alias
        || (class.starts_with("org.apache.jmeter.") && class.rsplit('.').next() == Some(alias))
}

/// A rewrite error located at `element`.
pub(super) fn error(element: &Element, message: String) -> LoadError {
    LoadError::Rewrite {
        file: element.file.to_path_buf(),
        span: element.span,
        message,
    }
}

#[cfg(test)]
#[path = "rewrite_tests.rs"]
mod tests;
