//! CSV Data Set Config (`CSVDataSet`): at each iteration of its enclosing controller a
//! user takes the next record of a file into variables (reference §7.2).
//!
//! Readers are shared as JMeter's `FileServer` shares them, by a key made of the file
//! name as written and the share mode: `shareMode.all` one reader for the whole run,
//! `shareMode.group` one per thread group, `shareMode.thread` one per user (kept in the
//! user's slot, closed with it), any other text a named reader shared by every CSV
//! element using that name with that file. Run-wide readers live in the run
//! (`RunShared::shared`), each behind its own lock; records are handed out in the order
//! users ask. The file name, names and delimiter are evaluated when a user first uses the
//! element, as JMeter does once per thread.
//!
//! At end of file without `recycle` the variables become `<EOF>` (property
//! `csvdataset.eofstring`), or with `stopThread` the user stops before the iteration
//! runs (`UserState::stop_thread`).

use std::sync::Arc;

use parking_lot::Mutex;

use super::csv_file::{split_quoted, CsvFile, Encoding, Quoted, Split};
use crate::expr::Template;
use crate::foundation::paths::resolve_input;
use crate::plan::{BuildContext, IterationListener};
use crate::user_state::UserState;

/// JMeter's default value of `csvdataset.eofstring`.
const EOF_VALUE: &str = "<EOF>";

pub struct CsvDataSet {
    /// Element id, the key of the per-user slot.
    id: usize,
    filename: Template,
    encoding: Encoding,
    variable_names: Template,
    delimiter: Template,
    ignore_first_line: bool,
    quoted: bool,
    recycle: bool,
    stop_thread: bool,
    share: ShareMode,
}

/// Who reads from the same cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ShareMode {
    All,
    Group,
    Thread,
    Named(String),
}

impl ShareMode {
    fn parse(text: &str) -> ShareMode {
        match text {
            "" | "shareMode.all" | "All threads" => ShareMode::All,
            "shareMode.group" | "Current thread group" => ShareMode::Group,
            "shareMode.thread" | "Current thread" => ShareMode::Thread,
            other => ShareMode::Named(other.to_string()),
        }
    }
}

/// Where a user's records come from.
enum Source {
    Shared(Arc<Mutex<Option<CsvFile>>>),
    Own(Option<CsvFile>),
}

/// What a user settled on when it first used the element.
struct UserCsv {
    names: Arc<[String]>,
    split: Split,
    skip_first: bool,
    source: Source,
}

impl CsvDataSet {
    pub fn build(cx: &mut BuildContext<'_>) -> CsvDataSet {
        let encoding_name = cx.raw("fileEncoding").unwrap_or("");
        let encoding = Encoding::parse(encoding_name).unwrap_or_else(|| {
            cx.warn(format!(
                "file encoding {encoding_name:?} is not one jmxr decodes: UTF-8 is used"
            ));
            Encoding::Utf8
        });
        let filename = cx.template("filename");
        if filename.is_constant() {
            check_file(cx, filename.raw().trim());
        }
        CsvDataSet {
            id: cx.id,
            filename,
            encoding,
            variable_names: cx.template("variableNames"),
            delimiter: match cx.raw("delimiter") {
                Some(_) => cx.template("delimiter"),
                None => Template::literal(","),
            },
            ignore_first_line: cx.flag("ignoreFirstLine", false),
            quoted: cx.flag("quotedData", false),
            recycle: cx.flag("recycle", true),
            stop_thread: cx.flag("stopThread", false),
            share: ShareMode::parse(cx.raw("shareMode").unwrap_or("")),
        }
    }

    /// Settles names, delimiter and reader for a user's first iteration.
    fn settle(&self, user: &mut UserState) -> UserCsv {
        let (filename, names, delimiter) = {
            let mut cx = user.eval("");
            (
                self.filename.eval(&mut cx).trim().to_string(),
                self.variable_names.eval(&mut cx),
                self.delimiter.eval(&mut cx),
            )
        };
        let delimiter = match delimiter.as_str() {
            "\\t" => "\t".to_string(),
            "" => ",".to_string(),
            _ => delimiter,
        };
        let first = delimiter.chars().next().unwrap_or(',');
        let split = if self.quoted {
            Split::Quoted(first)
        } else {
            Split::Plain(delimiter)
        };
        let from_header = names.is_empty();
        let has_header = from_header || self.ignore_first_line;
        let path = resolve_input(&filename, &user.run.test.plan_dir);
        let open = || CsvFile::open(&path, self.encoding, from_header).ok();
        let source = match &self.share {
            ShareMode::Thread => Source::Own(open()),
            mode => {
                let key = match mode {
                    ShareMode::Group => format!("csv:{filename}@group:{}", user.thread.group_name),
                    ShareMode::Named(name) => format!("csv:{filename}@{name}"),
                    _ => format!("csv:{filename}"),
                };
                // In partition mode a shard reads only its records of a shared file.
                let partition = user.run.shard.and_then(|s| s.csv_partition());
                let open_part = || {
                    let mut file = open();
                    if let (Some(file), Some((index0, count))) = (file.as_mut(), partition) {
                        file.partition(index0, count);
                    }
                    file
                };
                let shared = user.run.shared(&key, || Mutex::new(open_part()));
                Source::Shared(shared.unwrap_or_else(|| Arc::new(Mutex::new(None))))
            }
        };
        let names = if from_header {
            let header = match &source {
                Source::Shared(file) => file
                    .lock()
                    .as_ref()
                    .and_then(|f| f.header().map(str::to_string)),
                Source::Own(file) => file.as_ref().and_then(|f| f.header().map(str::to_string)),
            };
            header_names(header.as_deref().unwrap_or(""), first)
        } else {
            names.split(',').map(|n| n.trim().to_string()).collect()
        };
        UserCsv {
            names: Arc::from(names),
            split,
            skip_first: has_header,
            source,
        }
    }
}

/// Names from a header line, split with quoting on the delimiter's first character.
fn header_names(header: &str, delimiter: char) -> Vec<String> {
    let fields = match split_quoted(header, delimiter) {
        Quoted::Done(fields) => fields,
        _ => header.split(delimiter).map(str::to_string).collect(),
    };
    fields.into_iter().map(|n| n.trim().to_string()).collect()
}

/// A constant file name must name a file: the working folder, then the plan's folder.
fn check_file(cx: &mut BuildContext<'_>, name: &str) {
    let plan_dir = cx.plan_dir();
    if name.is_empty() {
        cx.error("CSV Data Set Config has no file name");
        return;
    }
    if !resolve_input(name, &plan_dir).is_file() {
        cx.error(format!(
            "CSV Data Set Config file {name:?} not found (looked in the working folder and {})",
            plan_dir.display()
        ));
    }
}

impl UserCsv {
    fn next(&mut self, recycle: bool) -> Vec<String> {
        let read = |file: &mut Option<CsvFile>| match file {
            Some(file) => file
                .next_record(recycle, self.skip_first, &self.split)
                .unwrap_or_default(),
            None => Vec::new(),
        };
        match &mut self.source {
            Source::Shared(file) => read(&mut file.lock()),
            Source::Own(file) => read(file),
        }
    }
}

impl IterationListener for CsvDataSet {
    fn iteration_start(&self, user: &mut UserState) {
        if user.slot::<Option<UserCsv>>(self.id, || None).is_none() {
            let settled = self.settle(user);
            *user.slot::<Option<UserCsv>>(self.id, || None) = Some(settled);
        }
        let Some(state) = user.slot::<Option<UserCsv>>(self.id, || None).as_mut() else {
            return;
        };
        let values = state.next(self.recycle);
        let names = state.names.clone();
        if values.is_empty() {
            user.stop_thread |= self.stop_thread;
            let eof = user
                .run
                .props
                .get("csvdataset.eofstring")
                .unwrap_or_else(|| EOF_VALUE.to_string());
            for name in names.iter() {
                user.vars.put(name.clone(), eof.clone());
            }
        } else {
            for (name, value) in names.iter().zip(values) {
                user.vars.put(name.clone(), value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn share_modes_map_localised_names_back() {
        assert_eq!(ShareMode::parse("shareMode.all"), ShareMode::All);
        assert_eq!(ShareMode::parse("Current thread group"), ShareMode::Group);
        assert_eq!(ShareMode::parse("Current thread"), ShareMode::Thread);
        assert_eq!(ShareMode::parse("mykey"), ShareMode::Named("mykey".into()));
    }

    #[test]
    fn header_names_are_trimmed_and_may_be_quoted() {
        assert_eq!(header_names(" a ,\"b,c\",d", ','), ["a", "b,c", "d"]);
    }
}
