//! File functions: `__StringFromFile` (next line, shared by all users of a call site),
//! `__FileToString` (the whole file, read at each call) and `__StringToFile` (writes).
//!
//! A relative file name is looked up in the working folder first, then beside the plan.
//! Errors give JMeter's `**ERR**` marker rather than failing the sample.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use parking_lot::Mutex;

use super::log::emit;
use super::{arg, check_count, stateless, store, Constructor, Function};
use crate::expr::Template;
use crate::foundation::java_format::DecimalFormat;
use crate::user_state::EvalContext;
use crate::user_state::TestInfo;

pub(super) const FUNCTIONS: &[(&str, Constructor)] = &[
    ("__StringFromFile", string_from_file),
    ("__FileToString", file_to_string),
    ("__StringToFile", string_to_file),
];

/// `__StringToFile(file,text[,append[,charset]])`: writes (by default appends) the text,
/// the two characters `\n` standing for a line break, and returns `true` or `false`.
/// Writes to one file are serialised. Only UTF-8 is written; another charset is an error.
fn string_to_file(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 2, 4, |args, ctx| {
        static LOCK: Mutex<()> = Mutex::new(());
        let name = arg(args, 0, ctx).trim().to_string();
        let content = arg(args, 1, ctx).replace("\\n", "\n");
        let append = match arg(args, 2, ctx).trim().to_lowercase() {
            a if a.is_empty() => true,
            a => a == "true",
        };
        let charset = arg(args, 3, ctx);
        if name.is_empty() || !(charset.is_empty() || charset.eq_ignore_ascii_case("UTF-8")) {
            emit(
                "ERROR",
                &format!("__StringToFile: cannot write {name:?} in {charset:?}"),
            );
            return "false".into();
        }
        let _guard = LOCK.lock();
        let written = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .append(append)
            .truncate(!append)
            .open(&name)
            .and_then(|mut file| std::io::Write::write_all(&mut file, content.as_bytes()));
        match written {
            Ok(()) => "true".into(),
            Err(err) => {
                emit("ERROR", &format!("__StringToFile: {name}: {err}"));
                "false".into()
            }
        }
    })
}

/// What both functions return when the file cannot be read.
const ERR: &str = "**ERR**";

/// Finds `name` in the working folder, then in the plan's folder.
pub(super) fn resolve(name: &str, test: &TestInfo) -> PathBuf {
    crate::foundation::paths::resolve_input(name, &test.plan_dir)
}

/// One `__StringFromFile(file[,var[,start[,end]]])` occurrence. With `start`, the file name
/// is a number pattern (`data#'.'txt`) and each wrap at end of file opens the next file of
/// the sequence, up to `end`.
struct StringFromFile {
    args: Vec<Template>,
    /// The open file and sequence position, shared by every user of this call site.
    cursor: Mutex<Cursor>,
}

#[derive(Default)]
struct Cursor {
    opened_once: bool,
    reader: Option<BufReader<File>>,
    /// The next number of a file sequence; `None` until the first open.
    next_number: Option<i64>,
    /// The last number of a file sequence, when one was given.
    end: Option<i64>,
}

fn string_from_file(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    check_count(&args, 1, 4)?;
    Ok(Box::new(StringFromFile {
        args,
        cursor: Mutex::new(Cursor::default()),
    }))
}

impl Function for StringFromFile {
    fn call(&self, ctx: &mut EvalContext<'_>) -> String {
        // Without a variable argument JMeter still stores the line, in `StringFromFile_`.
        let var = match self.args.len() {
            1 => "StringFromFile_".to_string(),
            _ => arg(&self.args, 1, ctx).trim().to_string(),
        };
        let value = {
            let mut cursor = self.cursor.lock();
            if !cursor.opened_once {
                cursor.opened_once = true;
                self.open(&mut cursor, ctx);
            }
            self.next_line(&mut cursor, ctx)
        };
        if !var.is_empty() {
            ctx.vars.put(var, value.clone());
        }
        value
    }
}

impl StringFromFile {
    /// Reads the next line, reopening the file (or the next of the sequence) at its end.
    fn next_line(&self, cursor: &mut Cursor, ctx: &mut EvalContext<'_>) -> String {
        if cursor.reader.is_none() {
            return ERR.to_string();
        }
        match read_line(cursor) {
            Ok(Some(line)) => return line,
            Ok(None) => {}
            Err(err) => {
                emit("ERROR", &format!("__StringFromFile: {err}"));
                return ERR.to_string();
            }
        }
        self.open(cursor, ctx);
        match read_line(cursor) {
            Ok(Some(line)) => line,
            // JMeter stops the thread at the end of a sequence; an expression cannot, so the
            // marker is all the user sees.
            _ => ERR.to_string(),
        }
    }

    fn open(&self, cursor: &mut Cursor, ctx: &mut EvalContext<'_>) {
        cursor.reader = None;
        let mut name = arg(&self.args, 0, ctx);
        if self.args.len() >= 3 {
            let start = arg(&self.args, 2, ctx).parse::<i64>().ok();
            let current = *cursor.next_number.get_or_insert(start.unwrap_or(1));
            cursor.end = arg(&self.args, 3, ctx).parse::<i64>().ok();
            if cursor.end.is_some_and(|end| current > end) {
                return;
            }
            if start.is_some() {
                name = sequence_name(&name, current);
            }
            cursor.next_number = Some(current + 1);
        }
        match File::open(resolve(&name, ctx.test)) {
            Ok(file) => cursor.reader = Some(BufReader::new(file)),
            Err(err) => emit("ERROR", &format!("__StringFromFile: {name}: {err}")),
        }
    }
}

/// A line without its terminator; `None` at end of file.
fn read_line(cursor: &mut Cursor) -> std::io::Result<Option<String>> {
    let Some(reader) = cursor.reader.as_mut() else {
        return Ok(None);
    };
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    if line.ends_with('\n') {
        line.pop();
    }
    if line.ends_with('\r') {
        line.pop();
    }
    Ok(Some(line))
}

/// The file of number `number` in a sequence: the name is a `DecimalFormat` pattern, as
/// JMeter formats it (`data_#.csv` gives `data_7.csv`, `f000.csv` gives `f012.csv`; quote
/// what is not part of the number). A name Java refuses as a pattern is used as it is, with
/// a warning.
fn sequence_name(pattern: &str, number: i64) -> String {
    match DecimalFormat::parse(pattern) {
        Some(format) => format.format(number),
        None => {
            emit(
                "WARN",
                &format!("__StringFromFile: bad file name format {pattern:?}, used as it is"),
            );
            pattern.to_string()
        }
    }
}

/// `__FileToString(file[,encoding[,var]])`.
fn file_to_string(args: Vec<Template>, _site: usize) -> Result<Box<dyn Function>, String> {
    stateless(args, 1, 3, |args, ctx| {
        let name = arg(args, 0, ctx);
        let encoding = arg(args, 1, ctx).trim().to_string();
        let value = match read_text(&resolve(&name, ctx.test), &encoding) {
            Ok(text) => text,
            Err(err) => {
                emit(
                    "WARN",
                    &format!("__FileToString: could not read {name}: {err}"),
                );
                ERR.to_string()
            }
        };
        store(args, 2, ctx, &value);
        value
    })
}

/// Reads a whole file in the named encoding (UTF-8 when empty); invalid bytes are an error.
fn read_text(path: &Path, encoding: &str) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    match encoding.to_ascii_uppercase().replace('_', "-").as_str() {
        "" | "UTF-8" | "UTF8" => String::from_utf8(bytes).map_err(|e| e.to_string()),
        "ISO-8859-1" | "ISO8859-1" | "LATIN1" => Ok(bytes.iter().map(|b| *b as char).collect()),
        "US-ASCII" | "ASCII" if bytes.is_ascii() => Ok(bytes.iter().map(|b| *b as char).collect()),
        "US-ASCII" | "ASCII" => Err("input is not ASCII".to_string()),
        other => Err(format!("unsupported encoding {other}")),
    }
}

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;
