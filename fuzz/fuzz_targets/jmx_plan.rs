//! The `jmx_plan` target: see `jmxr::commands::fuzzing::jmx_plan`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| jmxr::commands::fuzzing::jmx_plan(data));
