//! The file under a `.jtl` sink: a write buffer that knows where its records end, so a
//! write that fails half-way (disk full, file system gone read-only) leaves the file on a
//! complete record rather than half a line.
//!
//! [`super::JtlSink`] hands over one whole record per `write` call (the CSV header or XML
//! start, one sample, the XML end); this writer keeps the records' ends while they wait in
//! the buffer. When the operating system refuses part of a buffer, the file is cut back
//! to the end of the last record that reached it, the XML root is closed if there is room,
//! and the error names the file. A file removed while the run writes to it is reported
//! the same way, at the next write to disk.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Write buffer size: large writes keep the sink task off the disk most of the time.
const BUFFER_SIZE: usize = 64 * 1024;

pub struct RecordFile {
    file: File,
    path: PathBuf,
    /// Records not yet handed to the operating system.
    buffer: Vec<u8>,
    /// Where each record in `buffer` ends (offsets into `buffer`).
    ends: Vec<usize>,
    /// Length of the file once everything handed over so far is in it.
    len: u64,
    /// Bytes that close a file cut after a failure (the XML root's end tag).
    closing: &'static [u8],
    /// Set at the first failure: nothing more is written.
    failed: bool,
}

impl RecordFile {
    /// Takes over `file`, opened for appending, at `path` (for messages).
    pub fn new(file: File, path: &Path, closing: &'static [u8]) -> io::Result<RecordFile> {
        let len = file.metadata()?.len();
        Ok(RecordFile {
            file,
            path: path.to_path_buf(),
            buffer: Vec::with_capacity(BUFFER_SIZE),
            ends: Vec::new(),
            len,
            closing,
            failed: false,
        })
    }

    /// Hands the buffer to the operating system; on failure cuts the file back to its
    /// last complete record.
    fn write_buffer(&mut self) -> io::Result<()> {
        if self.failed {
            return Err(io::Error::other(format!(
                "the results file {} failed earlier",
                self.path.display()
            )));
        }
        let mut done = 0;
        while done < self.buffer.len() {
            match self.file.write(&self.buffer[done..]) {
                Ok(0) => return Err(self.cut(done, io::ErrorKind::WriteZero.into())),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.cut(done, e)),
            }
        }
        self.len += done as u64;
        self.buffer.clear();
        self.ends.clear();
        if removed(&self.file) {
            self.failed = true;
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "the results file {} was removed during the run",
                    self.path.display()
                ),
            ));
        }
        Ok(())
    }

    /// After `written` bytes of the buffer reached the file and the rest failed: cuts the
    /// file after the last whole record, closes it if it needs closing, and describes
    /// the failure.
    fn cut(&mut self, written: usize, error: io::Error) -> io::Error {
        self.failed = true;
        let whole = self
            .ends
            .iter()
            .copied()
            .take_while(|&end| end <= written)
            .last()
            .unwrap_or(0);
        let kept = self.len + whole as u64;
        let cut = self.file.set_len(kept);
        if cut.is_ok() && !self.closing.is_empty() {
            // Best effort: the last block of the file usually has room for it; if not,
            // the file stays on its last whole record.
            let closed = self
                .file
                .seek(SeekFrom::Start(kept))
                .and_then(|_| self.file.write_all(self.closing));
            if closed.is_err() {
                let _ = self.file.set_len(kept);
            }
        }
        let state = match cut {
            Ok(()) => {
                "it keeps every sample written before, up to its last complete line".to_string()
            }
            Err(e) => format!("it may end in a partial line (cannot cut it: {e})"),
        };
        io::Error::new(
            error.kind(),
            format!(
                "cannot write the results file {}: {error}; {state}",
                self.path.display()
            ),
        )
    }
}

/// Whether the file's last name is gone (it is still open, so writes "succeed").
#[cfg(unix)]
fn removed(file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    file.metadata().is_ok_and(|m| m.nlink() == 0)
}

#[cfg(not(unix))]
fn removed(_file: &File) -> bool {
    false
}

impl Write for RecordFile {
    /// Takes one whole record.
    fn write(&mut self, record: &[u8]) -> io::Result<usize> {
        if self.buffer.len() + record.len() > BUFFER_SIZE && !self.buffer.is_empty() {
            self.write_buffer()?;
        }
        self.buffer.extend_from_slice(record);
        self.ends.push(self.buffer.len());
        if self.buffer.len() >= BUFFER_SIZE {
            self.write_buffer()?;
        }
        Ok(record.len())
    }

    /// Also notices a file removed since the last write.
    fn flush(&mut self) -> io::Result<()> {
        self.write_buffer()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file on a full device: `/dev/full` accepts nothing.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_refused_write_names_the_file_and_stops_writing() {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let mut out = RecordFile::new(file, Path::new("/dev/full"), b"").unwrap();
        out.write_all(b"a,b\n").unwrap();
        let err = out.flush().unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
        assert!(err.to_string().contains("/dev/full"), "{err}");
        assert!(out.flush().is_err(), "a failed file stays failed");
    }

    #[test]
    fn a_removed_file_is_reported_at_the_next_flush() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jtl");
        let file = File::create(&path).unwrap();
        let mut out = RecordFile::new(file, &path, b"").unwrap();
        out.write_all(b"x\n").unwrap();
        out.flush().unwrap();
        std::fs::remove_file(&path).unwrap();
        let err = out.flush().unwrap_err();
        assert!(err.to_string().contains("was removed"), "{err}");
    }
}
