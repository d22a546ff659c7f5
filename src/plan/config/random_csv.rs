//! bzm - Random CSV Data Set Config: at each iteration of its enclosing controller a user
//! takes a record of a CSV file, in random order without repeats or in file order, into
//! variables.
//!
//! As the plugin does, the file is read when the run starts (here on first use, with the
//! first user's variables), records are handed out from one cursor that every user shares,
//! and when the records run out the list starts again ("rewind on the end of list", a new
//! shuffle in random order) or every user stops at its next iteration. The plugin's
//! "independent list per thread" also shares the cursor (each thread is handed the same
//! reader), so it changes nothing here either. Records follow JMeter's CSV reading:
//! `"` quoting, quoted fields spanning lines; the first line is the header that names the
//! variables when "Variable names" is empty, and is skipped then or when "Ignore first
//! line" is on.

use std::sync::OnceLock;

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::csv_file::{split_quoted, Encoding, Quoted};
use crate::expr::Template;
use crate::foundation::paths::resolve_input;
use crate::plan::{BuildContext, IterationListener};
use crate::runlog;
use crate::user_state::UserState;

pub struct RandomCsvDataSet {
    name: String,
    filename: Template,
    encoding: Encoding,
    delimiter: char,
    variable_names: Vec<String>,
    random_order: bool,
    ignore_first_line: bool,
    rewind: bool,
    plan_dir: std::path::PathBuf,
    /// Read on first use; `Err` holds why the file could not be read.
    records: OnceLock<Result<Records, String>>,
}

/// The file's records and the shared cursor over them.
struct Records {
    names: Vec<String>,
    cursor: Mutex<Cursor>,
}

struct Cursor {
    rows: Vec<Vec<String>>,
    /// The rows not handed out yet in this pass are `order[next..]`.
    order: Vec<usize>,
    next: usize,
    random: Option<SmallRng>,
    exhausted: bool,
}

impl RandomCsvDataSet {
    pub fn build(cx: &mut BuildContext<'_>) -> RandomCsvDataSet {
        let encoding_name = cx.raw("fileEncoding").unwrap_or("UTF-8");
        let encoding = Encoding::parse(encoding_name).unwrap_or_else(|| {
            cx.warn(format!("file encoding {encoding_name:?} is read as UTF-8"));
            Encoding::Utf8
        });
        let delimiter = match cx.raw("delimiter").unwrap_or(",") {
            "\\t" => '\t',
            "" => ',',
            text => text.chars().next().unwrap_or(','),
        };
        let variable_names = cx
            .raw("variableNames")
            .unwrap_or("")
            .split(',')
            .filter(|name| !name.is_empty())
            .map(str::to_string)
            .collect();
        let element = RandomCsvDataSet {
            name: cx.element.name.clone(),
            filename: cx.template("filename"),
            encoding,
            delimiter,
            variable_names,
            random_order: cx.flag("randomOrder", false),
            ignore_first_line: cx.flag("ignoreFirstLine", false),
            rewind: cx.flag("rewindOnTheEndOfList", false),
            plan_dir: cx.plan_dir(),
            records: OnceLock::new(),
        };
        if element.filename.is_constant() {
            let path = resolve_input(element.filename.raw(), &element.plan_dir);
            if !path.is_file() {
                cx.error(format!("cannot read the CSV file {}", path.display()));
            }
        }
        element
    }

    fn load(&self, user: &mut UserState) -> Result<Records, String> {
        let name = self.filename.eval(&mut user.eval(&self.name));
        let path = resolve_input(&name, &self.plan_dir);
        let bytes = std::fs::read(&path)
            .map_err(|e| format!("cannot read the CSV file {}: {e}", path.display()))?;
        let mut rows = records(&self.encoding.decode(&bytes), self.delimiter)
            .map_err(|why| format!("{}: {why}", path.display()))?;
        let header = if rows.is_empty() {
            Vec::new()
        } else {
            rows[0].clone()
        };
        // The plugin reads the first line as data only when names are given and it is
        // not told to ignore that line.
        if self.ignore_first_line || self.variable_names.is_empty() {
            rows.drain(..rows.len().min(1));
        }
        let names = if self.variable_names.is_empty() {
            header
        } else {
            self.variable_names.clone()
        };
        let order = (0..rows.len()).collect();
        Ok(Records {
            names,
            cursor: Mutex::new(Cursor {
                rows,
                order,
                next: 0,
                random: self.random_order.then(SmallRng::from_entropy),
                exhausted: false,
            }),
        })
    }
}

impl Cursor {
    /// The next record, or `None` once every record was handed out and the list does not
    /// start again (from then on for every user).
    fn next(&mut self, rewind: bool) -> Option<Vec<String>> {
        if self.exhausted {
            return None;
        }
        if self.next >= self.order.len() {
            if !rewind || self.order.is_empty() {
                self.exhausted = true;
                return None;
            }
            self.next = 0;
            if self.random.is_some() {
                self.random = Some(SmallRng::from_entropy());
            }
        }
        if let Some(random) = &mut self.random {
            // One step of a shuffle: draw among the records left in this pass.
            let pick = self.next + random.gen_range(0..self.order.len() - self.next);
            self.order.swap(self.next, pick);
        }
        let row = self.rows[self.order[self.next]].clone();
        self.next += 1;
        Some(row)
    }
}

impl IterationListener for RandomCsvDataSet {
    fn iteration_start(&self, user: &mut UserState) {
        let records = match self.records.get() {
            Some(loaded) => loaded,
            None => {
                let loaded = self.load(user);
                self.records.get_or_init(|| loaded)
            }
        };
        let records = match records {
            Ok(records) => records,
            Err(why) => {
                runlog::error(&format!("{}: {why}", self.name));
                user.stop_thread = true;
                return;
            }
        };
        let Some(values) = records.cursor.lock().next(self.rewind) else {
            // "All records in the CSV file have been passed."
            user.stop_thread = true;
            return;
        };
        for (name, value) in records.names.iter().zip(values) {
            user.vars.put(name.clone(), value);
        }
    }
}

/// Splits the file's text into records with JMeter's quoting; a quoted field may span
/// lines.
fn records(text: &str, delimiter: char) -> Result<Vec<Vec<String>>, &'static str> {
    let mut rows = Vec::new();
    let mut pending = String::new();
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if !pending.is_empty() {
            pending.push('\n');
        }
        pending.push_str(line);
        match split_quoted(&pending, delimiter) {
            Quoted::Done(fields) => {
                rows.push(fields);
                pending.clear();
            }
            Quoted::Open => {}
            Quoted::Malformed(why) => return Err(why),
        }
    }
    // The text after the last line end is a record only when it holds something.
    if rows
        .last()
        .is_some_and(|row| row.len() == 1 && row[0].is_empty())
        && text.ends_with('\n')
    {
        rows.pop();
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(rows: usize, random: bool) -> Cursor {
        Cursor {
            rows: (0..rows).map(|i| vec![i.to_string()]).collect(),
            order: (0..rows).collect(),
            next: 0,
            random: random.then(|| SmallRng::seed_from_u64(7)),
            exhausted: false,
        }
    }

    #[test]
    fn random_order_hands_out_every_record_once_per_pass() {
        let mut cursor = cursor(50, true);
        let mut first: Vec<String> = (0..50)
            .map(|_| cursor.next(true).unwrap()[0].clone())
            .collect();
        let mut second: Vec<String> = (0..50)
            .map(|_| cursor.next(true).unwrap()[0].clone())
            .collect();
        assert_ne!(first, (0..50).map(|i| i.to_string()).collect::<Vec<_>>());
        first.sort();
        second.sort();
        assert_eq!(first, second);
        assert_eq!(first.len(), 50);
        first.dedup();
        assert_eq!(first.len(), 50);
    }

    #[test]
    fn without_rewind_the_list_ends_for_good() {
        let mut cursor = cursor(2, false);
        assert_eq!(cursor.next(false).unwrap(), ["0"]);
        assert_eq!(cursor.next(false).unwrap(), ["1"]);
        assert_eq!(cursor.next(false), None);
        assert_eq!(cursor.next(true), None);
    }

    #[test]
    fn records_follow_quoting_across_lines() {
        let rows = records("a,b\r\n\"x\ny\",2\n3,4\n", ',').unwrap();
        assert_eq!(rows, [vec!["a", "b"], vec!["x\ny", "2"], vec!["3", "4"]]);
    }
}
