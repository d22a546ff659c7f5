//! bzm - Directory Listing Config: at each iteration of its enclosing controller a user
//! takes the next file of a folder's listing into a variable.
//!
//! As the plugin does: the folder (relative to the working folder) is listed when the run
//! starts, optionally with its sub-folders, in random order when asked; one listing is
//! shared by every user unless "independent list per thread" gives each user its own,
//! listed when it first needs one. At the end of the listing it starts again ("rewind",
//! listing the folder afresh when "re-read" is on, shuffled again in random order) or the
//! users stop at their next iteration. The variable holds the absolute path, or the path
//! below the folder as the plugin cuts it (with its leading `/`). The plugin hands files
//! out in the order the operating system lists them; jmxr sorts them by path so a run is
//! repeatable.

use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::plan::{BuildContext, IterationListener};
use crate::runlog;
use crate::user_state::UserState;

pub struct DirectoryListing {
    id: usize,
    name: String,
    settings: Settings,
    /// The listing every user shares; `None` once it ended for good.
    shared: Mutex<Option<Listing>>,
    independent: bool,
}

#[derive(Clone)]
struct Settings {
    /// The folder as written (its length decides how the plugin cuts sub-paths).
    directory: String,
    variable: String,
    full_path: bool,
    random_order: bool,
    recursive: bool,
    rewind: bool,
    re_read: bool,
}

/// One listing and where it stands.
struct Listing {
    files: Vec<PathBuf>,
    next: usize,
}

impl DirectoryListing {
    pub fn build(cx: &mut BuildContext<'_>) -> DirectoryListing {
        let or_default = |text: Option<&str>, default: &str| match text {
            Some(text) if !text.is_empty() => text.to_string(),
            _ => default.to_string(),
        };
        let settings = Settings {
            directory: or_default(cx.raw("directory"), "."),
            variable: or_default(cx.raw("variableName"), "filename"),
            full_path: cx.flag("useFullPath", false),
            random_order: cx.flag("randomOrder", false),
            recursive: cx.flag("recursiveListing", false),
            rewind: cx.flag("rewindOnTheEndOfList", false),
            re_read: cx.flag("reReadDirectory", false),
        };
        let shared = match settings.list() {
            Ok(files) => Some(Listing { files, next: 0 }),
            Err(why) => {
                cx.error(why);
                None
            }
        };
        DirectoryListing {
            id: cx.id,
            name: cx.element.name.clone(),
            independent: cx.flag("independentListPerThread", false),
            shared: Mutex::new(shared),
            settings,
        }
    }
}

impl Settings {
    /// The folder's files, sorted by path, then shuffled when asked.
    fn list(&self) -> Result<Vec<PathBuf>, String> {
        let root = self.absolute_root();
        if !root.exists() {
            return Err(format!("Directory does not exists: {}", root.display()));
        }
        let mut files = Vec::new();
        collect(&root, self.recursive, &mut files);
        files.sort();
        if self.random_order {
            files.shuffle(&mut SmallRng::from_entropy());
        }
        Ok(files)
    }

    /// The folder as `File.getAbsolutePath` gives it: the working folder joined to a
    /// relative name without normalising it.
    fn absolute_root(&self) -> PathBuf {
        let given = Path::new(&self.directory);
        if given.is_absolute() {
            given.to_path_buf()
        } else {
            std::env::current_dir()
                .unwrap_or_default()
                .join(self.directory.trim_end_matches('/'))
        }
    }

    /// What the variable receives for `file`: its absolute path, or what follows the
    /// folder's own absolute name in it (the plugin cuts by length, so a folder written
    /// with a trailing `/` gives names without a leading one).
    fn value(&self, file: &Path) -> String {
        let full = file.to_string_lossy().into_owned();
        if self.full_path {
            return full;
        }
        let root_length = if Path::new(&self.directory).is_absolute() {
            self.directory.len()
        } else {
            self.absolute_root().to_string_lossy().len()
        };
        full.get(root_length..).unwrap_or_default().to_string()
    }
}

/// Files of `folder` (and of its sub-folders when `recursive`); a folder that cannot be
/// read lists nothing, as `File.listFiles` returning null does.
fn collect(folder: &Path, recursive: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if recursive {
                collect(&path, true, out);
            }
        } else {
            out.push(path);
        }
    }
}

impl Listing {
    /// The next file, starting the listing again at its end when `rewind`.
    fn next(&mut self, settings: &Settings) -> Option<PathBuf> {
        if self.next >= self.files.len() && settings.rewind {
            if settings.re_read {
                self.files = settings.list().unwrap_or_default();
            } else if settings.random_order {
                self.files.shuffle(&mut SmallRng::from_entropy());
            }
            self.next = 0;
        }
        let file = self.files.get(self.next).cloned();
        self.next += 1;
        file
    }
}

impl IterationListener for DirectoryListing {
    fn iteration_start(&self, user: &mut UserState) {
        let file = if self.independent {
            let settings = &self.settings;
            let own = user.slot::<Option<Listing>>(self.id, || match settings.list() {
                Ok(files) => Some(Listing { files, next: 0 }),
                Err(why) => {
                    runlog::error(&why);
                    None
                }
            });
            own.as_mut().and_then(|listing| listing.next(settings))
        } else {
            let mut shared = self.shared.lock();
            let file = shared.as_mut().and_then(|l| l.next(&self.settings));
            if file.is_none() {
                *shared = None;
            }
            file
        };
        match file {
            Some(file) => {
                let value = self.settings.value(&file);
                user.vars.put(self.settings.variable.clone(), value);
            }
            None => {
                // "All files in the directory have been passed."
                runlog::file_only(
                    "INFO",
                    &format!("{}: all files have been passed", self.name),
                );
                user.stop_thread = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(directory: &str) -> Settings {
        Settings {
            directory: directory.into(),
            variable: "filename".into(),
            full_path: false,
            random_order: false,
            recursive: false,
            rewind: false,
            re_read: false,
        }
    }

    #[test]
    fn sub_paths_are_cut_by_the_folder_name_as_written() {
        assert_eq!(settings("/data").value(Path::new("/data/a.txt")), "/a.txt");
        assert_eq!(settings("/data/").value(Path::new("/data/a.txt")), "a.txt");
        let mut full = settings("/data");
        full.full_path = true;
        assert_eq!(full.value(Path::new("/data/a.txt")), "/data/a.txt");
    }
}
