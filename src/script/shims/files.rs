//! File access for scripts: Groovy's `new File(p).text`, `readLines()`, `eachLine`,
//! `<<`; Java's `FileWriter`/`BufferedWriter`/`PrintWriter`, `FileReader`/
//! `BufferedReader`, `FileOutputStream`, `Files` and `Paths` (a path is a string); and
//! JMeter's `FileServer.getFileServer().getBaseDir()`.
//!
//! Every access goes through [`resolve`]: a relative path is taken from the base folder
//! ([`set_base_dir`], the working folder until the runtime sets the plan's), and the
//! access policy ([`set_access_policy`]) may refuse it; the runtime installs its
//! sandbox there. Writers write through at each call, so nothing is lost when a script
//! forgets `close()`.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use parking_lot::Mutex;
use rhai::{Array, Blob, Dynamic, Engine, FnPtr, NativeCallContext, INT};

use super::func;
use super::{error, java_string, Class, ShimResult};

/// Whether a script reads or writes a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// Decides whether a script may touch a path (already made absolute); the error is the
/// message the script's sample fails with.
pub type AccessPolicy = Arc<dyn Fn(&Path, Access) -> Result<(), String> + Send + Sync>;

static POLICY: RwLock<Option<AccessPolicy>> = RwLock::new(None);
static BASE_DIR: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Installs the policy every file shim consults (`None`: allow everything).
pub fn set_access_policy(policy: Option<AccessPolicy>) {
    if let Ok(mut slot) = POLICY.write() {
        *slot = policy;
    }
}

/// The folder relative paths start from (`None`: the working folder).
pub fn set_base_dir(dir: Option<PathBuf>) {
    if let Ok(mut slot) = BASE_DIR.write() {
        *slot = dir;
    }
}

fn base_dir() -> PathBuf {
    BASE_DIR
        .read()
        .ok()
        .and_then(|d| d.clone())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

/// The absolute path a script's `path` names, if the policy allows the access.
pub fn resolve(path: &str, access: Access) -> ShimResult<PathBuf> {
    let path = Path::new(path);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        base_dir().join(path)
    };
    let policy = POLICY.read().ok().and_then(|p| p.clone());
    if let Some(policy) = policy {
        policy(&absolute, access).or_else(error)?;
    }
    Ok(absolute)
}

fn read_text(path: &str) -> ShimResult<String> {
    let resolved = resolve(path, Access::Read)?;
    std::fs::read_to_string(&resolved)
        .or_else(|e| error(format!("FileNotFoundException: {path} ({e})")))
}

fn read_lines(path: &str) -> ShimResult<Array> {
    Ok(read_text(path)?
        .lines()
        .map(|l| Dynamic::from(l.to_string()))
        .collect())
}

fn write_bytes(path: &str, data: &[u8], append: bool) -> ShimResult<()> {
    let resolved = resolve(path, Access::Write)?;
    let mut file = OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(&resolved)
        .or_else(|e| error(format!("IOException: {path} ({e})")))?;
    file.write_all(data)
        .or_else(|e| error(format!("IOException: {path} ({e})")))
}

fn bytes_of(value: &Dynamic) -> Vec<u8> {
    if let Some(bytes) = value.read_lock::<Blob>() {
        return bytes.clone();
    }
    java_string(value).into_bytes()
}

/// `new File(path)`.
#[derive(Clone)]
pub(crate) struct JavaFile(String);

/// A writer (`FileWriter`, `BufferedWriter`, `PrintWriter`, `FileOutputStream`).
#[derive(Clone)]
pub(crate) struct Writer(String);

impl Writer {
    fn open(path: &str, append: bool) -> ShimResult<Writer> {
        if !append {
            write_bytes(path, b"", false)?;
        }
        Ok(Writer(path.to_string()))
    }

    fn write(&self, value: &Dynamic) -> ShimResult<()> {
        write_bytes(&self.0, &bytes_of(value), true)
    }
}

/// A reader (`FileReader`, `BufferedReader`): the lines, read at creation, and where
/// `readLine` is.
#[derive(Clone)]
pub(crate) struct Reader(Arc<Mutex<(Vec<String>, usize)>>);

fn path_of(target: &Dynamic) -> String {
    if let Some(file) = target.read_lock::<JavaFile>() {
        return file.0.clone();
    }
    if let Some(writer) = target.read_lock::<Writer>() {
        return writer.0.clone();
    }
    java_string(target)
}

fn reader(target: Dynamic) -> ShimResult<Reader> {
    if let Some(existing) = target.read_lock::<Reader>() {
        return Ok(existing.clone());
    }
    let lines = read_text(&path_of(&target))?
        .lines()
        .map(str::to_string)
        .collect();
    Ok(Reader(Arc::new(Mutex::new((lines, 0)))))
}

fn writer(target: Dynamic, append: bool) -> ShimResult<Writer> {
    if let Some(existing) = target.read_lock::<Writer>() {
        return Ok(existing.clone());
    }
    Writer::open(&path_of(&target), append)
}

fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `FileServer.getFileServer()`.
#[derive(Clone, Copy)]
pub(crate) struct FileServer;

pub(crate) fn classes() -> Vec<Class> {
    let mut file = Class::new("File");
    func!(file, "create", |p: Dynamic| JavaFile(path_of(&p)));
    func!(file, "create", |parent: Dynamic, child: &str| {
        JavaFile(
            Path::new(&path_of(&parent))
                .join(child)
                .display()
                .to_string(),
        )
    });
    func!(file, "separator", || "/".to_string());
    let mut writers = Vec::new();
    for name in [
        "FileWriter",
        "BufferedWriter",
        "PrintWriter",
        "FileOutputStream",
    ] {
        let mut class = Class::new(name);
        func!(class, "create", |target: Dynamic| writer(target, false));
        func!(class, "create", |target: Dynamic, append: bool| writer(
            target, append
        ));
        writers.push(class);
    }
    for name in ["FileReader", "BufferedReader"] {
        let mut class = Class::new(name);
        func!(class, "create", reader);
        writers.push(class);
    }
    let mut files = Class::new("Files");
    func!(files, "readAllLines", |p: Dynamic| read_lines(&path_of(&p)));
    func!(
        files,
        "readAllLines",
        |p: Dynamic, _cs: Dynamic| read_lines(&path_of(&p))
    );
    func!(files, "readString", |p: Dynamic| read_text(&path_of(&p)));
    func!(files, "readAllBytes", |p: Dynamic| -> ShimResult<Blob> {
        Ok(read_text(&path_of(&p))?.into_bytes())
    });
    func!(files, "write", |p: Dynamic, data: Dynamic| {
        write_bytes(&path_of(&p), &bytes_of(&data), false).map(|_| path_of(&p))
    });
    func!(
        files,
        "write",
        |p: Dynamic, data: Dynamic, _option: Dynamic| {
            write_bytes(&path_of(&p), &bytes_of(&data), true).map(|_| path_of(&p))
        }
    );
    func!(files, "exists", |p: Dynamic| {
        resolve(&path_of(&p), Access::Read).is_ok_and(|r| r.exists())
    });
    func!(files, "deleteIfExists", |p: Dynamic| -> ShimResult<bool> {
        let resolved = resolve(&path_of(&p), Access::Write)?;
        Ok(std::fs::remove_file(resolved).is_ok())
    });
    let mut paths = Class::new("Paths");
    func!(paths, "get", |p: Dynamic| path_of(&p));
    func!(paths, "get", |p: Dynamic, child: &str| {
        Path::new(&path_of(&p)).join(child).display().to_string()
    });
    let mut path = Class::new("Path");
    func!(path, "of", |p: Dynamic| path_of(&p));
    let mut file_server = Class::new("FileServer");
    func!(file_server, "getFileServer", || FileServer);
    let mut all = vec![file, files, paths, path, file_server];
    all.extend(writers);
    all
}

fn each_line(ctx: NativeCallContext, f: &mut JavaFile, body: FnPtr) -> ShimResult<()> {
    for line in read_text(&f.0)?.lines() {
        let _ = body.call_within_context::<Dynamic>(&ctx, (line.to_string(),))?;
    }
    Ok(())
}

pub(crate) fn register(engine: &mut Engine) {
    register_file(engine);
    engine
        .register_type_with_name::<Writer>("Writer")
        .register_fn("write", |w: &mut Writer, v: Dynamic| w.write(&v))
        .register_fn(
            "append",
            |w: &mut Writer, v: Dynamic| -> ShimResult<Writer> {
                w.write(&v)?;
                Ok(w.clone())
            },
        )
        .register_fn("print", |w: &mut Writer, v: Dynamic| w.write(&v))
        .register_fn("println", |w: &mut Writer, v: Dynamic| {
            w.write(&Dynamic::from(format!("{}\n", java_string(&v))))
        })
        .register_fn("println", |w: &mut Writer| w.write(&Dynamic::from("\n")))
        .register_fn("newLine", |w: &mut Writer| w.write(&Dynamic::from("\n")))
        .register_fn("push", |w: &mut Writer, v: Dynamic| w.write(&v))
        .register_fn("flush", |_: &mut Writer| ())
        .register_fn("close", |_: &mut Writer| ())
        .register_type_with_name::<Reader>("Reader")
        .register_fn("readLine", |r: &mut Reader| {
            let mut state = r.0.lock();
            let (lines, at) = &mut *state;
            let line = lines.get(*at).cloned();
            *at += 1;
            line.map_or(Dynamic::UNIT, Dynamic::from)
        })
        .register_fn("close", |_: &mut Reader| ())
        .register_fn("ready", |r: &mut Reader| {
            let state = r.0.lock();
            state.1 < state.0.len()
        })
        .register_type_with_name::<FileServer>("FileServer")
        .register_fn("getBaseDir", |_: &mut FileServer| {
            base_dir().display().to_string()
        })
        .register_fn("toFile", |p: &str| JavaFile(p.to_string()))
        .register_fn("getFileName", |p: &str| file_name(p));
}

fn register_file(engine: &mut Engine) {
    engine
        .register_type_with_name::<JavaFile>("File")
        .register_get("text", |f: &mut JavaFile| read_text(&f.0))
        .register_set("text", |f: &mut JavaFile, v: Dynamic| {
            write_bytes(&f.0, &bytes_of(&v), false)
        })
        .register_fn("getText", |f: &mut JavaFile| read_text(&f.0))
        .register_fn("getText", |f: &mut JavaFile, _cs: Dynamic| read_text(&f.0))
        .register_fn("readLines", |f: &mut JavaFile| read_lines(&f.0))
        .register_fn("eachLine", each_line)
        .register_fn("exists", |f: &mut JavaFile| {
            resolve(&f.0, Access::Read).is_ok_and(|r| r.exists())
        })
        .register_fn("isFile", |f: &mut JavaFile| {
            resolve(&f.0, Access::Read).is_ok_and(|r| r.is_file())
        })
        .register_fn("isDirectory", |f: &mut JavaFile| {
            resolve(&f.0, Access::Read).is_ok_and(|r| r.is_dir())
        })
        .register_fn("length", |f: &mut JavaFile| {
            resolve(&f.0, Access::Read)
                .ok()
                .and_then(|r| std::fs::metadata(r).ok())
                .map_or(0, |m| m.len() as INT)
        })
        .register_fn("write", |f: &mut JavaFile, v: Dynamic| {
            write_bytes(&f.0, &bytes_of(&v), false)
        })
        .register_fn("setText", |f: &mut JavaFile, v: Dynamic| {
            write_bytes(&f.0, &bytes_of(&v), false)
        })
        .register_fn("append", |f: &mut JavaFile, v: Dynamic| {
            write_bytes(&f.0, &bytes_of(&v), true)
        })
        .register_fn("push", |f: &mut JavaFile, v: Dynamic| {
            write_bytes(&f.0, &bytes_of(&v), true)
        })
        .register_fn("delete", |f: &mut JavaFile| -> ShimResult<bool> {
            let resolved = resolve(&f.0, Access::Write)?;
            Ok(std::fs::remove_file(resolved).is_ok())
        })
        .register_fn("createNewFile", |f: &mut JavaFile| -> ShimResult<bool> {
            let resolved = resolve(&f.0, Access::Write)?;
            if resolved.exists() {
                return Ok(false);
            }
            write_bytes(&f.0, b"", false).map(|_| true)
        })
        .register_fn("mkdirs", |f: &mut JavaFile| -> ShimResult<bool> {
            let resolved = resolve(&f.0, Access::Write)?;
            Ok(std::fs::create_dir_all(resolved).is_ok())
        })
        .register_fn("getName", |f: &mut JavaFile| file_name(&f.0))
        .register_get("name", |f: &mut JavaFile| file_name(&f.0))
        .register_fn("getPath", |f: &mut JavaFile| f.0.clone())
        .register_get("path", |f: &mut JavaFile| f.0.clone())
        .register_fn(
            "getAbsolutePath",
            |f: &mut JavaFile| -> ShimResult<String> {
                Ok(resolve(&f.0, Access::Read)?.display().to_string())
            },
        )
        .register_fn("getParent", |f: &mut JavaFile| {
            Path::new(&f.0)
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        })
        .register_fn("toPath", |f: &mut JavaFile| f.0.clone())
        .register_fn("toString", |f: &mut JavaFile| f.0.clone())
        .register_fn("newWriter", |f: &mut JavaFile| Writer::open(&f.0, false))
        .register_fn("getBytes", |f: &mut JavaFile| -> ShimResult<Blob> {
            Ok(read_text(&f.0)?.into_bytes())
        });
}
