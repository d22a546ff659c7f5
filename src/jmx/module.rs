//! Module Controller: a copy of another part of the plan, found by names.
//!
//! Checked against JMeter 5.6's `ModuleController`:
//! * `ModuleController.node_path` lists the names along the GUI tree path to the target.
//!   Item 0 is the GUI root (the Test Plan node in 4.0+, "WorkBench" in older files) and is
//!   never compared; item 1 is the Test Plan's name; the rest lead down to the target.
//! * At each level every child whose name matches is followed, except Module Controllers
//!   (Bug55375: a module named like its target must not pick itself). When several paths
//!   match, the last one in tree order wins, as JMeter keeps overwriting its selection.
//! * The search runs on the plan as loaded, disabled elements included, before any
//!   rewrite: a disabled controller or Test Fragment is a valid target, and targets inside
//!   included files are not visible.
//! * The replacement is the target element itself (made enabled when it was disabled) with
//!   its subtree, as the Module Controller's only child. So the target's kind still counts:
//!   a Loop or Transaction Controller target loops or reports as such, and a Test Fragment
//!   target behaves as a Simple Controller. The copy is converted like the rest of the
//!   tree (its disabled children go, nested modules and includes expand).
//! * An empty or unresolvable path stops the test in JMeter; here it is an error.
//!
//! Unlike JMeter we also search a WorkBench root at level 1, so module targets kept in the
//! WorkBench of a 2.x plan are still found; and we refuse module cycles, where JMeter
//! overflows its stack.

use super::rewrite::{convert, error, is_class, Context};
use super::{Element, LoadError};

/// The children a Module Controller stands for: a copy of its target.
pub(super) fn replacement(
    controller: &Element,
    ctx: &mut Context,
) -> Result<Vec<Element>, LoadError> {
    let path = node_path(controller);
    let not_found = || {
        error(
            controller,
            format!(
                "Module Controller '{}' cannot find its target [{}]",
                controller.name,
                path.join(" › ")
            ),
        )
    };
    let mut found = None;
    search(ctx.source, &path, 1, &mut Vec::new(), &mut found);
    let location = found.ok_or_else(not_found)?;
    let target = element_at(ctx.source, &location).ok_or_else(not_found)?;
    if ctx.modules.contains(&location) {
        return Err(error(
            controller,
            format!(
                "Module Controller '{}' is inside its own target '{}' (the copy would never end)",
                controller.name, target.name
            ),
        ));
    }
    let mut copy = target.clone();
    copy.enabled = true;
    let mut replacement = vec![copy];
    ctx.modules.push(location);
    let converted = convert(&mut replacement, ctx);
    ctx.modules.pop();
    converted?;
    Ok(replacement)
}

/// The names stored in `ModuleController.node_path`.
fn node_path(controller: &Element) -> Vec<&str> {
    controller
        .prop("ModuleController.node_path")
        .map(|prop| prop.children().iter().filter_map(|p| p.as_str()).collect())
        .unwrap_or_default()
}

/// Follows `path[level..]` down from `elements`, recording in `found` the index path of
/// the last complete match.
fn search(
    elements: &[Element],
    path: &[&str],
    level: usize,
    trail: &mut Vec<usize>,
    found: &mut Option<Vec<usize>>,
) {
    let Some(&wanted) = path.get(level) else {
        return;
    };
    for (index, element) in elements.iter().enumerate() {
        if is_class(element, "ModuleController") || element.name != wanted {
            continue;
        }
        trail.push(index);
        if level + 1 == path.len() {
            *found = Some(trail.clone());
        }
        search(&element.children, path, level + 1, trail, found);
        trail.pop();
    }
}

fn element_at<'a>(elements: &'a [Element], location: &[usize]) -> Option<&'a Element> {
    let (&first, rest) = location.split_first()?;
    let element = elements.get(first)?;
    if rest.is_empty() {
        Some(element)
    } else {
        element_at(&element.children, rest)
    }
}
