//! The method a GRPC Request calls, found in the `.proto` files of its "proto folder".
//!
//! As the plugin runs `protoc`, every `*.proto` below the proto folder is compiled; the
//! "lib folder" entries (comma-separated) are import roots searched first, the proto
//! folder itself last. Google's well-known types are built in. The same folders are
//! compiled once per process however many samplers and users name them (the plugin
//! compiles once per thread).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use prost_reflect::{DescriptorPool, MethodDescriptor};

use crate::foundation::paths::resolve_input;
use crate::foundation::proto_files;

/// A resolved method: what the sampler needs to encode, call and decode.
pub struct Method {
    pub descriptor: MethodDescriptor,
    /// `/package.Service/Method`, the HTTP/2 path.
    pub path: String,
}

/// Finds `full_method` (`package.Service/Method`) in the files below `proto_folder`,
/// with `lib_folders` as import roots; paths are looked for in the working folder, then
/// in `plan_dir`.
pub fn resolve(
    proto_folder: &str,
    lib_folders: &str,
    full_method: &str,
    plan_dir: &Path,
) -> Result<Arc<Method>, String> {
    let (service, method) = split_full_method(full_method)?;
    let pool = load(proto_folder, lib_folders, plan_dir)?;
    let Some(service_descriptor) = pool.get_service_by_name(service) else {
        return Err(format!(
            "fullMethod {full_method:?}: no service {service} in the .proto files below {}",
            proto_folder.trim()
        ));
    };
    let Some(descriptor) = service_descriptor.methods().find(|m| m.name() == method) else {
        return Err(format!(
            "fullMethod {full_method:?}: service {service} has no method {method}"
        ));
    };
    if descriptor.is_client_streaming() || descriptor.is_server_streaming() {
        return Err(format!(
            "fullMethod {full_method:?} is a streaming method; jmxr calls unary methods only"
        ));
    }
    Ok(Arc::new(Method {
        descriptor,
        path: format!("/{service}/{method}"),
    }))
}

/// `package.Service/Method` → (`package.Service`, `Method`), with the plugin's checks:
/// one `/`, a package before the service, a method after it.
fn split_full_method(full_method: &str) -> Result<(&str, &str), String> {
    let text = full_method.trim();
    let Some((service, method)) = text.rsplit_once('/') else {
        return Err(format!(
            "fullMethod {full_method:?} is not of the form package.Service/Method"
        ));
    };
    let has_package = service
        .rsplit_once('.')
        .is_some_and(|(package, name)| !package.is_empty() && !name.is_empty());
    if method.is_empty() || !has_package || service.contains('/') {
        return Err(format!(
            "fullMethod {full_method:?} is not of the form package.Service/Method"
        ));
    }
    Ok((service, method))
}

type Cache = Mutex<HashMap<(PathBuf, String, String), Result<DescriptorPool, String>>>;

fn load(proto_folder: &str, lib_folders: &str, plan_dir: &Path) -> Result<DescriptorPool, String> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = (
        plan_dir.to_path_buf(),
        proto_folder.to_string(),
        lib_folders.to_string(),
    );
    let cache = CACHE.get_or_init(Cache::default);
    if let Some(found) = cache.lock().get(&key) {
        return found.clone();
    }
    let compiled = compile(proto_folder, lib_folders, plan_dir);
    cache.lock().insert(key, compiled.clone());
    compiled
}

fn compile(
    proto_folder: &str,
    lib_folders: &str,
    plan_dir: &Path,
) -> Result<DescriptorPool, String> {
    let folder_name = proto_folder.trim();
    if folder_name.is_empty() {
        return Err("protoFolder is empty: it names the folder of the .proto files".into());
    }
    let root = resolve_input(folder_name, plan_dir);
    if !root.is_dir() {
        return Err(format!(
            "protoFolder {folder_name} does not exist or is not a folder (looked in the \
             working folder and in {})",
            plan_dir.display()
        ));
    }
    let mut includes = Vec::new();
    for lib in lib_folders
        .split(',')
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        let path = resolve_input(lib, plan_dir);
        if !path.exists() {
            return Err(format!(
                "libFolder entry {lib} does not exist (looked in the working folder and in {})",
                plan_dir.display()
            ));
        }
        includes.push(absolute(&path));
    }
    let root = absolute(&root);
    includes.push(root.clone());
    let mut files = Vec::new();
    proto_files::collect_protos(&root, &mut files)
        .map_err(|e| format!("protoFolder {}: {e}", root.display()))?;
    if files.is_empty() {
        return Err(format!(
            "protoFolder {} holds no .proto file",
            root.display()
        ));
    }
    proto_files::compile(&files, &includes, "protoFolder")
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_method_needs_package_service_and_method() {
        assert_eq!(
            split_full_method("bookstore.Bookstore/ListShelves"),
            Ok(("bookstore.Bookstore", "ListShelves"))
        );
        assert_eq!(
            split_full_method("a.b.Greeter/SayHello"),
            Ok(("a.b.Greeter", "SayHello"))
        );
        for bad in [
            "Greeter/SayHello",
            "a.Greeter/",
            "a.Greeter",
            "",
            ".Greeter/X",
        ] {
            assert!(split_full_method(bad).is_err(), "{bad}");
        }
    }
}
