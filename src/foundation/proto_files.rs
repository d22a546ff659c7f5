//! Compiling `.proto` files in the process, with no `protoc`: protox reads the files and
//! their imports from a list of import roots (Google's well-known types are built in)
//! into a `prost_reflect::DescriptorPool`. Script protobuf support (`script::protobuf`)
//! and the gRPC sampler (`samplers::grpc`) both compile through here, so a bad file is
//! reported the same way: the file as found below a root, its line and column.

use std::path::{Path, PathBuf};

use miette::Diagnostic;
use prost_reflect::DescriptorPool;

/// Compiles `files` (paths below one of `includes`) and everything they import.
/// `label` names the setting in an error that has no file (`jmxr.protobuf.path: …`).
pub fn compile(
    files: &[PathBuf],
    includes: &[PathBuf],
    label: &str,
) -> Result<DescriptorPool, String> {
    let mut compiler =
        protox::Compiler::new(includes).map_err(|e| describe(&e, includes, label))?;
    compiler.include_imports(true);
    for file in files {
        compiler
            .open_file(file)
            .map_err(|e| describe(&e, includes, label))?;
    }
    Ok(compiler.descriptor_pool())
}

/// Every `*.proto` below `dir`, in name order.
pub fn collect_protos(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_protos(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "proto") {
            out.push(path);
        }
    }
    Ok(())
}

/// `protos/chat.proto:12:5: message …` from protox's error: the file as found below
/// an import root, and the line and column of its first label.
fn describe(err: &protox::Error, includes: &[PathBuf], label: &str) -> String {
    let file = err.file().map(|name| {
        includes
            .iter()
            .map(|root| root.join(name))
            .find(|p| p.is_file())
            .map_or_else(|| name.to_string(), |p| p.display().to_string())
    });
    let position = err
        .labels()
        .and_then(|mut labels| labels.next())
        .and_then(|label| {
            let source = err.source_code()?;
            let span = source.read_span(label.inner(), 0, 0).ok()?;
            Some((span.line() + 1, span.column() + 1))
        });
    match (file, position) {
        (Some(file), Some((line, column))) => format!("{file}:{line}:{column}: {err}"),
        (Some(file), None) => format!("{file}: {err}"),
        _ => format!("{label}: {err}"),
    }
}

/// A map key as text: how JSON prints it and how scripts name it.
pub fn map_key_text(key: &prost_reflect::MapKey) -> String {
    use prost_reflect::MapKey;
    match key {
        MapKey::Bool(b) => b.to_string(),
        MapKey::I32(n) => n.to_string(),
        MapKey::I64(n) => n.to_string(),
        MapKey::U32(n) => n.to_string(),
        MapKey::U64(n) => n.to_string(),
        MapKey::String(s) => s.clone(),
    }
}
