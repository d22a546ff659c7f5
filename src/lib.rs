//! jmxr runs Apache JMeter test plans natively.
//!
//! The pipeline: [`jmx`] loads a `.jmx` into a lossless tree, [`plan`] turns it into
//! typed, scoped, pre-compiled elements, [`engine`] runs virtual users through it, and
//! every sample flows over the bounded bus in [`results`] to the sinks (`.jtl` writers,
//! the console summariser). [`expr`] compiles `${...}` expressions; [`samplers`] speak
//! the protocols; [`report`] writes the HTML dashboard. [`cli`] turns JMeter's command
//! line into a run configuration; [`check`] reports what jmxr would do with each element
//! of a plan; [`udp_sink`] is the receiving end of a UDP load test.

pub mod assemble;
pub mod check;
pub mod cli;
pub mod engine;
pub mod expr;
pub mod fd_limit;
pub mod foundation;
pub mod jmx;
pub mod mirror;
pub mod plan;
pub mod query;
pub mod report;
pub mod results;
pub mod run;
pub mod runlog;
pub mod sample;
pub mod samplers;
pub mod script;
pub mod udp_sink;
pub mod user_state;
