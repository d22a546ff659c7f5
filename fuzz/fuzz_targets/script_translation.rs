//! The `script_translation` target: see `jmxr::commands::fuzzing::script_translation`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| jmxr::commands::fuzzing::script_translation(data));
