//! The run log (`-j FILE`): what JMeter writes to `jmeter.log`, in the same line shape
//! (`2026-11-30 05:30:13,437 INFO jmxr: message`). Without `-j`, warnings and errors go
//! to stderr and information is dropped. `__log` calls in the plan write here too.

use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

use parking_lot::Mutex;

static FILE: OnceLock<Mutex<File>> = OnceLock::new();

/// Opens (truncating) the log file for this process.
pub fn open(path: &Path) -> std::io::Result<()> {
    let file = File::create(path)?;
    let _ = FILE.set(Mutex::new(file));
    Ok(())
}

/// A message of the plan's own making (`__log`, a function reporting trouble): in the
/// run log when there is one, else on stderr whatever its level.
pub fn plan_message(level: &str, message: &str) {
    match FILE.get() {
        Some(_) => write(level, message),
        None => eprintln!("{level} {message}"),
    }
}

/// Writes one line at `level` (INFO, WARN, ERROR, ...).
pub fn write(level: &str, message: &str) {
    match FILE.get() {
        Some(file) => {
            let stamp = chrono::Local::now().format("%Y-%m-%d %H:%M:%S,%3f");
            let _ = writeln!(file.lock(), "{stamp} {level} jmxr: {message}");
        }
        None if level != "INFO" && level != "DEBUG" => eprintln!("{level} {message}"),
        None => {}
    }
}

/// Writes one line to the run log when there is one, and nowhere otherwise: for a
/// message already shown on the console.
pub fn file_only(level: &str, message: &str) {
    if FILE.get().is_some() {
        write(level, message);
    }
}

pub fn info(message: &str) {
    write("INFO", message);
}

pub fn warn(message: &str) {
    write("WARN", message);
}

pub fn error(message: &str) {
    write("ERROR", message);
}
