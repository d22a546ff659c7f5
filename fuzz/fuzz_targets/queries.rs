//! The `queries` target: see `jmxr::commands::fuzzing::queries`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| jmxr::commands::fuzzing::queries(data));
