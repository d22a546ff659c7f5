//! The `data_files` target: see `jmxr::commands::fuzzing::data_files`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| jmxr::commands::fuzzing::data_files(data));
