//! The `expressions` target: see `jmxr::commands::fuzzing::expressions`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| jmxr::commands::fuzzing::expressions(data));
