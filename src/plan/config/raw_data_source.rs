//! jp@gc - Raw Data Source PreProcessor (`kg.apc.jmeter.modifiers.
//! RawRequestSourcePreProcessor`): before each sampler in scope, reads the next chunk of
//! its file into a variable. The file holds chunks each preceded by a line whose first
//! word is the chunk's length in bytes (`12 anything\r\n` then 12 bytes); empty lines
//! before a length line are skipped.
//!
//! One reader serves every user of the run, as the plugin's element is not cloned per
//! thread: chunks are dealt out in file order. Settings: `filename` (opened on first use,
//! a missing file logs an error and leaves the variable alone), `variable_name`, `rewind`
//! (at the end of the file, or at a length of 0, start again from the top; otherwise the
//! user stops before its sample, as the plugin stops the thread) and `isHex` (the chunk
//! as lower-case hex instead of UTF-8 text). A length line that is not a number or a
//! chunk shorter than announced is the plugin's runtime exception: the run log gets the
//! error and the user stops.

use std::fs::File;
use std::io::{BufReader, Read};

use parking_lot::Mutex;

use super::super::{BuildContext, PreProcessor};
use crate::expr::Template;
use crate::foundation::paths::resolve_input;
use crate::runlog;
use crate::user_state::UserState;

pub struct RawDataSource {
    filename: Template,
    variable: Template,
    rewind: bool,
    hex: bool,
    plan_dir: std::path::PathBuf,
    reader: Mutex<Option<ChunkReader>>,
}

/// Why no chunk was read.
enum ChunkError {
    /// End of file, or a chunk length of 0.
    End,
    /// The plugin's "Error reading next chunk".
    Broken(String),
}

/// The open file, read a byte at a time for the length lines as the plugin does.
struct ChunkReader {
    file: BufReader<File>,
    /// A byte read ahead after a CR or LF that belongs to the next read.
    pushed_back: Option<u8>,
}

/// Longest length line the plugin's buffer holds.
const MAX_LENGTH_LINE: usize = 1024;
/// Rewinds tried in one pre-processing before giving up on a file without chunks (the
/// plugin recurses until its stack overflows).
const MAX_REWINDS: usize = 2;

impl RawDataSource {
    pub fn build(cx: &mut BuildContext<'_>) -> RawDataSource {
        RawDataSource {
            filename: cx.template("filename"),
            variable: cx.template("variable_name"),
            rewind: cx.flag("rewind", false),
            hex: cx.flag("isHex", false),
            plan_dir: cx.plan_dir(),
            reader: Mutex::new(None),
        }
    }

    fn next_chunk(&self, reader: &mut ChunkReader) -> Result<String, ChunkError> {
        let length = reader.length_line()?;
        if length == 0 {
            return Err(ChunkError::End);
        }
        let mut chunk = vec![0; length];
        let mut read = 0;
        while read < length {
            match reader.read(&mut chunk[read..]) {
                Ok(0) => break,
                Ok(n) => read += n,
                Err(err) => return Err(ChunkError::Broken(err.to_string())),
            }
        }
        if read != length {
            return Err(ChunkError::Broken(format!(
                "Expected chunk size ({length}) differs from read bytes count ({})",
                if read == 0 { -1 } else { read as i64 }
            )));
        }
        Ok(if self.hex {
            chunk.iter().map(|b| format!("{b:02x}")).collect()
        } else {
            String::from_utf8_lossy(&chunk).into_owned()
        })
    }
}

impl ChunkReader {
    fn open(path: &std::path::Path) -> std::io::Result<ChunkReader> {
        Ok(ChunkReader {
            file: BufReader::new(File::open(path)?),
            pushed_back: None,
        })
    }

    fn rewind(&mut self) -> std::io::Result<()> {
        use std::io::Seek;
        self.pushed_back = None;
        self.file.rewind()
    }

    fn byte(&mut self) -> Result<u8, ChunkError> {
        if let Some(b) = self.pushed_back.take() {
            return Ok(b);
        }
        let mut one = [0u8];
        match self.file.read(&mut one) {
            Ok(1) => Ok(one[0]),
            Ok(_) => Err(ChunkError::End),
            Err(err) => Err(ChunkError::Broken(err.to_string())),
        }
    }

    /// Reads bytes up to a CR or LF (skipping empty lines first) and returns the line's
    /// first word as a length. As in the plugin, the byte after the line end is read too
    /// and given back unless it is an LF, so the end of file right after a length line is
    /// the end of the data.
    fn length_line(&mut self) -> Result<usize, ChunkError> {
        let mut line = Vec::new();
        loop {
            let b = self.byte()?;
            if b == b'\n' || b == b'\r' {
                let next = self.byte()?;
                if next != b'\n' {
                    self.pushed_back = Some(next);
                }
                if !line.is_empty() {
                    break;
                }
            } else {
                if line.len() == MAX_LENGTH_LINE {
                    return Err(ChunkError::Broken("BufferOverflowException".to_string()));
                }
                line.push(b);
            }
        }
        let text = String::from_utf8_lossy(&line);
        let first = text.trim().split(char::is_whitespace).next().unwrap_or("");
        first
            .parse::<i32>()
            .ok()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| {
                ChunkError::Broken(format!(
                    "Error reading chunk size near: {}: For input string: \"{first}\"",
                    text.trim()
                ))
            })
    }

    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if let Some(b) = self.pushed_back.take() {
            buf[0] = b;
            return Ok(1);
        }
        self.file.read(buf)
    }
}

impl PreProcessor for RawDataSource {
    fn process(&self, user: &mut UserState, sampler_name: &str) {
        let filename = self.filename.eval(&mut user.eval(sampler_name));
        let mut guard = self.reader.lock();
        if guard.is_none() {
            match ChunkReader::open(&resolve_input(&filename, &self.plan_dir)) {
                Ok(reader) => *guard = Some(reader),
                Err(err) => {
                    runlog::error(&format!("{filename}: {err}"));
                    return;
                }
            }
        }
        let reader = guard.as_mut().expect("opened above");
        let mut rewinds = 0;
        let chunk = loop {
            match self.next_chunk(reader) {
                Ok(chunk) => break chunk,
                Err(ChunkError::End) if self.rewind && rewinds < MAX_REWINDS => {
                    rewinds += 1;
                    if let Err(err) = reader.rewind() {
                        runlog::error(&format!("Cannot rewind: {err}"));
                    }
                }
                Err(ChunkError::End) => {
                    runlog::info(&format!("End of file reached: {filename}"));
                    user.stop_thread = true;
                    return;
                }
                Err(ChunkError::Broken(why)) => {
                    runlog::error(&format!("Error reading next chunk: {why}"));
                    user.stop_thread = true;
                    return;
                }
            }
        };
        drop(guard);
        let name = self.variable.eval(&mut user.eval(sampler_name));
        user.vars.put(&name, chunk);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    fn source(data: &[u8], rewind: bool, hex: bool) -> (RawDataSource, tempfile::NamedTempFile) {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        std::io::Write::write_all(&mut file, data).expect("write");
        let el = element(
            "kg.apc.jmeter.modifiers.RawRequestSourcePreProcessor",
            "R",
            vec![
                str_prop("filename", file.path().to_str().unwrap()),
                str_prop("variable_name", "raw"),
                bool_prop("rewind", rewind),
                bool_prop("isHex", hex),
            ],
        );
        (with_cx(&el, RawDataSource::build), file)
    }

    fn next(source: &RawDataSource, user: &mut UserState) -> Option<String> {
        source.process(user, "s");
        (!user.stop_thread).then(|| user.vars.get("raw").unwrap_or_default().to_string())
    }

    #[test]
    fn reads_chunks_in_order_and_rewinds() {
        let (src, _file) = source(b"\r\n5 first\r\nhello\n3\nabc\n", true, false);
        let mut user = user();
        assert_eq!(next(&src, &mut user).as_deref(), Some("hello"));
        assert_eq!(next(&src, &mut user).as_deref(), Some("abc"));
        assert_eq!(next(&src, &mut user).as_deref(), Some("hello"));
    }

    #[test]
    fn end_of_file_without_rewind_stops_the_user() {
        let (src, _file) = source(b"2\nhi\n", false, true);
        let mut user = user();
        assert_eq!(next(&src, &mut user).as_deref(), Some("6869"));
        assert_eq!(next(&src, &mut user), None);
    }

    #[test]
    fn a_bad_length_stops_the_user() {
        let (src, _file) = source(b"x\nhi\n", true, false);
        let mut user = user();
        assert_eq!(next(&src, &mut user), None);
    }
}
