//! Where scripts may read and write files during a run, and how much CPU one script
//! call may use (`jmxr.script.max_cpu_ms`, see `script::engine`).
//!
//! The script shims send every file access through one policy
//! (`script::shims::files::set_access_policy`); this module builds the run's policy and
//! installs it before the first user starts. A path is allowed when, after following
//! `..` and symbolic links, it lies below the plan's folder, the working folder, or a
//! folder named in `jmxr.script.allowed_paths` (comma-separated; `/` allows every
//! path). A refused access fails the script's sample with a message naming the path
//! and the property, never the run.
//!
//! Paths are resolved through the file system rather than by text: the longest part
//! that exists is made canonical (which follows every link in it), and the rest, which
//! does not exist yet and so cannot be a link, must not climb with `..`.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::foundation::properties::Properties;
use crate::script::engine;
use crate::script::shims::files::{set_access_policy, Access, AccessPolicy};

/// The property listing extra folders scripts may use.
pub const ALLOWED_PATHS_PROPERTY: &str = "jmxr.script.allowed_paths";

/// Installs the run's file policy and CPU budget for scripts.
pub fn install(plan_dir: &Path, properties: &Properties) {
    set_access_policy(Some(policy(&allowed_roots(plan_dir, properties))));
    let budget = properties.get_i64(
        engine::MAX_CPU_PROPERTY,
        engine::DEFAULT_MAX_CPU.as_millis() as i64,
    );
    engine::set_max_cpu(Duration::from_millis(budget.max(1) as u64));
}

fn allowed_roots(plan_dir: &Path, properties: &Properties) -> Vec<PathBuf> {
    let mut roots = vec![plan_dir.to_path_buf()];
    if let Ok(working) = std::env::current_dir() {
        roots.push(working);
    }
    if let Some(extra) = properties.get(ALLOWED_PATHS_PROPERTY) {
        roots.extend(
            extra
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(PathBuf::from),
        );
    }
    roots.iter().filter_map(|root| real_path(root)).collect()
}

fn policy(roots: &[PathBuf]) -> AccessPolicy {
    let roots = roots.to_vec();
    Arc::new(move |path: &Path, access: Access| {
        let verb = match access {
            Access::Read => "read",
            Access::Write => "write",
        };
        match real_path(path) {
            Some(real) if roots.iter().any(|root| real.starts_with(root)) => Ok(()),
            _ => Err(format!(
                "AccessDeniedException: {} (scripts may {verb} files only below the plan's \
                 folder and the working folder; add a folder to {ALLOWED_PATHS_PROPERTY} \
                 to allow it)",
                path.display()
            )),
        }
    })
}

/// The path with every link and `..` of its existing part resolved; `None` when the
/// part that does not exist yet climbs with `..` (it could leave any folder).
fn real_path(path: &Path) -> Option<PathBuf> {
    let mut existing = path;
    let mut rest: Vec<Component> = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            if rest.iter().any(|c| !matches!(c, Component::Normal(_))) {
                return None;
            }
            let mut real = real;
            real.extend(rest.iter().rev());
            return Some(real);
        }
        let (Some(parent), Some(last)) = (existing.parent(), existing.components().next_back())
        else {
            return None;
        };
        rest.push(last);
        existing = parent;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(roots: &[PathBuf], path: &Path, access: Access) -> bool {
        policy(roots)(path, access).is_ok()
    }

    #[test]
    fn paths_below_a_root_pass_and_climbing_or_linking_out_does_not() {
        let root = tempfile::tempdir().expect("root");
        let outside = tempfile::tempdir().expect("outside");
        std::fs::write(outside.path().join("secret"), "s").expect("secret");
        std::fs::write(root.path().join("inside"), "i").expect("inside");
        std::os::unix::fs::symlink(outside.path(), root.path().join("link")).expect("link");
        let roots = vec![real_path(root.path()).expect("root is real")];
        let r = root.path();

        assert!(allowed(&roots, &r.join("inside"), Access::Read));
        assert!(allowed(&roots, &r.join("not-yet.txt"), Access::Write));
        assert!(!allowed(&roots, &r.join("../secret"), Access::Read));
        assert!(!allowed(
            &roots,
            &r.join("..")
                .join(outside.path().file_name().unwrap())
                .join("secret"),
            Access::Read
        ));
        assert!(!allowed(&roots, &r.join("link/secret"), Access::Read));
        assert!(!allowed(&roots, &r.join("link/new.txt"), Access::Write));
        assert!(!allowed(&roots, &r.join("missing/../../x"), Access::Write));
        assert!(!allowed(&roots, Path::new("/etc/hostname"), Access::Read));
    }

    #[test]
    fn the_property_adds_folders_and_the_message_names_it() {
        let plan = tempfile::tempdir().expect("plan");
        let extra = tempfile::tempdir().expect("extra");
        let properties = Properties::new();
        let target = extra.path().join("data.csv");
        let refused = policy(&allowed_roots(plan.path(), &properties))(&target, Access::Read);
        let message = refused.expect_err("outside the plan and working folders");
        assert!(message.contains(ALLOWED_PATHS_PROPERTY), "{message}");
        assert!(message.contains("data.csv"), "{message}");

        properties.set(
            ALLOWED_PATHS_PROPERTY,
            format!(" /nonexistent-folder , {}", extra.path().display()),
        );
        let roots = allowed_roots(plan.path(), &properties);
        assert!(allowed(&roots, &target, Access::Write));
    }
}
