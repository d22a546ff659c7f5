//! `__CSVRead(file, column|next|*alias)`: columns of a CSV file read whole into memory,
//! as JMeter's `FileWrapper` does.
//!
//! A file (or an alias opened with `*alias`) is loaded once per run and per plan, up to
//! its first empty line, each line split on `,` keeping empty fields. Rows are handed out
//! in turn to users as they first read a column (wrapping at the end); a user keeps its
//! row until it calls `next`. JMeter keeps this state for the JVM; jmxr keeps it for
//! the process, keyed by the plan file and the user's thread name.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use super::files::resolve;
use super::log::emit;
use super::{arg, stateless, Constructor, Function};
use crate::expr::Template;
use crate::user_state::EvalContext;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[("__CSVRead", csv_read)];

/// A loaded file and the next row to hand out.
struct Container {
    rows: Vec<Vec<String>>,
    next: Mutex<usize>,
}

impl Container {
    fn next_row(&self) -> usize {
        let mut next = self.next.lock();
        let row = *next;
        *next = if row + 1 >= self.rows.len() {
            0
        } else {
            row + 1
        };
        row
    }
}

#[derive(Default)]
struct State {
    /// By (plan file, alias).
    files: HashMap<(PathBuf, String), Arc<Container>>,
    /// Each user's current row, by (plan file, thread name, alias).
    rows: HashMap<(PathBuf, String, String), usize>,
}

fn state() -> &'static Mutex<State> {
    static STATE: OnceLock<Mutex<State>> = OnceLock::new();
    STATE.get_or_init(Mutex::default)
}

fn load(name: &str, ctx: &EvalContext<'_>) -> std::io::Result<Container> {
    let file = std::fs::File::open(resolve(name, ctx.test))?;
    let mut rows = Vec::new();
    for line in BufReader::new(file).lines() {
        let line = line?;
        if line.is_empty() {
            break;
        }
        rows.push(line.split(',').map(str::to_string).collect());
    }
    Ok(Container {
        rows,
        next: Mutex::new(0),
    })
}

/// The container for `alias` (opening `file` under it the first time).
fn container(file: &str, alias: &str, ctx: &EvalContext<'_>) -> Option<Arc<Container>> {
    let key = (ctx.test.plan_file.clone(), alias.to_string());
    let mut state = state().lock();
    if let Some(found) = state.files.get(&key) {
        return Some(found.clone());
    }
    match load(file, ctx) {
        Ok(loaded) => {
            let loaded = Arc::new(loaded);
            state.files.insert(key, loaded.clone());
            Some(loaded)
        }
        Err(err) => {
            emit("ERROR", &format!("__CSVRead: cannot read {file}: {err}"));
            None
        }
    }
}

fn csv_read(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 2, 2, |args, ctx| {
        let file = arg(args, 0, ctx);
        let what = arg(args, 1, ctx);
        let user_key = |alias: &str, ctx: &EvalContext<'_>| {
            (
                ctx.test.plan_file.clone(),
                ctx.thread.thread_name.to_string(),
                alias.to_string(),
            )
        };
        if what.starts_with('*') {
            container(&file, &what, ctx);
            return String::new();
        }
        if what == "next" || what == "next()" {
            state().lock().rows.remove(&user_key(&file, ctx));
            return String::new();
        }
        let Ok(column) = what.trim().parse::<usize>() else {
            emit(
                "ERROR",
                &format!("__CSVRead: {what:?} is not a column number"),
            );
            return String::new();
        };
        let Some(found) = container(&file, &file, ctx) else {
            return String::new();
        };
        let key = user_key(&file, ctx);
        let row = *state()
            .lock()
            .rows
            .entry(key)
            .or_insert_with(|| found.next_row());
        found
            .rows
            .get(row)
            .and_then(|r| r.get(column))
            .cloned()
            .unwrap_or_default()
    })
}
