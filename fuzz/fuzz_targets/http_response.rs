//! The `http_response` target: see `jmxr::commands::fuzzing::http_response`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| jmxr::commands::fuzzing::http_response(data));
