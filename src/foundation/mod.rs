//! Foundations: small pieces every layer uses and that import nothing of the project.
//!
//! [`properties`] is JMeter's global property table and [`properties_file`] how
//! `.properties` files are read; [`clock`] stamps samples on one wall-clock time line and
//! [`precise_timer`] wakes users with sub-millisecond precision; [`fast_hash`] is the
//! hasher of the per-sample lookups; [`paths`] finds the files a plan names;
//! [`fd_limit`] raises the process's open-file limit for socket-heavy runs;
//! [`java_format`] is Java's date and number patterns, which the `.jtl` writer and
//! reader, the report, the functions and the scripts share; [`java_text`] is Java's
//! `String.trim`, which settings are read with; [`proto_files`] compiles
//! `.proto` files for script protobuf support and the gRPC sampler.

pub mod clock;
pub mod fast_hash;
pub mod fd_limit;
pub mod java_format;
pub mod java_random;
pub mod java_text;
pub mod paths;
pub mod precise_timer;
pub mod properties;
pub mod properties_file;
pub mod proto_files;
pub mod shard;
pub mod xml_escape;
