//! Finding and compiling the `.proto` files a run names. The property holds files or
//! folders (every `*.proto` below a folder), separated by commas or semicolons, relative
//! to the plan's folder. Each folder named, and the folder of each file named, is an
//! import root; Google's well-known types (`google/protobuf/timestamp.proto`...) are
//! built in. A setting is compiled once per process and kept, so every script element
//! of a run shares one [`Schema`]; an error names the file, line and column.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use super::Schema;
use crate::foundation::proto_files::{self, collect_protos};
use crate::plan::BuildContext;

/// The property naming the `.proto` files.
pub const PROPERTY: &str = "jmxr.protobuf.path";

/// The schema of the run an element belongs to: `None` when the property is not set.
pub fn schema_for(cx: &BuildContext<'_>) -> Result<Option<Arc<Schema>>, String> {
    match cx.properties.get(PROPERTY).map(|s| s.trim()) {
        Some(setting) if !setting.is_empty() => load(setting, &cx.plan_dir()).map(Some),
        _ => Ok(None),
    }
}

type Cache = Mutex<HashMap<(PathBuf, String), Result<Arc<Schema>, String>>>;

/// Compiles the files `setting` names, relative to `plan_dir`, once per process.
pub fn load(setting: &str, plan_dir: &Path) -> Result<Arc<Schema>, String> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = (plan_dir.to_path_buf(), setting.to_string());
    let cache = CACHE.get_or_init(Cache::default);
    if let Some(found) = cache.lock().get(&key) {
        return found.clone();
    }
    let compiled = compile(setting, plan_dir).map(Arc::new);
    cache.lock().insert(key, compiled.clone());
    compiled
}

fn compile(setting: &str, plan_dir: &Path) -> Result<Schema, String> {
    let mut includes: Vec<PathBuf> = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    for entry in setting
        .split([',', ';'])
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        let path = plan_dir.join(entry);
        if path.is_dir() {
            let before = files.len();
            collect_protos(&path, &mut files)
                .map_err(|e| format!("{PROPERTY}: cannot read {}: {e}", path.display()))?;
            if files.len() == before {
                return Err(format!(
                    "{PROPERTY} names the folder {}, which holds no .proto file",
                    path.display()
                ));
            }
            includes.push(path);
        } else if path.is_file() {
            includes.push(path.parent().map(Path::to_path_buf).unwrap_or_default());
            files.push(path);
        } else {
            return Err(format!(
                "{PROPERTY} names {entry:?}, which is neither a .proto file nor a folder \
                 (looked for {})",
                path.display()
            ));
        }
    }
    if files.is_empty() {
        return Err(format!("{PROPERTY} names no .proto file"));
    }
    includes.dedup();
    proto_files::compile(&files, &includes, PROPERTY).map(Schema::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_proto_is_reported_with_its_file_and_line() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("bad.proto"),
            "syntax = \"proto3\";\n\nmessage A {\n  strng name = 1;\n}\n",
        )
        .unwrap();
        let err = match compile("bad.proto", dir.path()) {
            Ok(_) => panic!("compiled a bad file"),
            Err(err) => err,
        };
        assert!(err.contains("bad.proto:4:3"), "{err}");
    }

    #[test]
    fn a_folder_loads_every_file_and_their_imports() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("protos/common")).unwrap();
        std::fs::write(
            dir.path().join("protos/common/types.proto"),
            "syntax = \"proto3\";\npackage common;\nmessage Id { string value = 1; }\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("protos/chat.proto"),
            "syntax = \"proto3\";\npackage chat;\nimport \"common/types.proto\";\n\
             import \"google/protobuf/timestamp.proto\";\n\
             message Ping { common.Id id = 1; google.protobuf.Timestamp at = 2; }\n",
        )
        .unwrap();
        let schema = compile("protos/", dir.path()).expect("compiles");
        assert!(schema.message("Ping").is_ok());
        assert!(schema.message("common.Id").is_ok());
        let missing = match compile("nothing/", dir.path()) {
            Ok(_) => panic!("found files in a missing folder"),
            Err(err) => err,
        };
        assert!(
            missing.contains("neither a .proto file nor a folder"),
            "{missing}"
        );
    }
}
