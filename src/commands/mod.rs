//! The commands, at the top of the layers: [`cli`] reads JMeter's command line and jmxr's
//! subcommands into a command; [`run`] carries one invocation end to end (load, assemble,
//! refuse or run, sinks, report); [`check`] lists what jmxr does with every element of a
//! plan; [`migrate`] writes a plan whose scripts are translated to Rhai;
//! [`udp_receiver`] is the receiving end of a UDP load test (`jmxr udp-sink`);
//! `script_sandbox` sets where a run's scripts may read and write files; [`fuzzing`]
//! holds the entry points of the fuzz targets; [`merge`] merges shards' results, using
//! the metadata a shard writes beside them ([`shard_meta`]); [`k8s_job`] prints the
//! Kubernetes manifests that run a plan as shards. The HTTP
//! mirror they can serve lives with the HTTP sampler (`samplers::http::mirror`).

pub mod check;
pub mod cli;
pub mod criteria;
pub mod distributed;
mod flexible_file_sinks;
pub mod fuzzing;
mod http_clock;
pub mod k8s_job;
mod k8s_yaml;
mod live_sinks;
pub mod merge;
mod merge_input;
pub mod migrate;
pub mod plan_profile;
mod progress;
pub mod run;
mod script_sandbox;
pub mod shard_meta;
mod shard_options;
pub mod udp_receiver;
