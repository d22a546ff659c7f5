//! jmxr runs Apache JMeter test plans natively.
//!
//! The pipeline: [`jmx`] loads a `.jmx` into a lossless tree, [`assemble`] turns it into
//! the typed, scoped, pre-compiled elements of [`plan`], [`samplers`] and [`script`],
//! [`engine`] runs virtual users through it, and every sample flows over the bounded bus
//! in [`results`] to the sinks (`.jtl` writers, the console summariser, the dashboard
//! aggregator that [`report`] turns into the HTML dashboard). [`commands`] holds what the
//! binary runs.
//!
//! # Layers
//!
//! A module imports only modules listed before it, so no two modules import each other,
//! directly or around a loop; `tests/layers.rs` reads this list and the crate's
//! `crate::` paths and fails on any import that goes up or closes a loop.
//!
//! 1. [`foundation`]: properties, the wall clock, fast hashing, file paths, Java's date and
//!    number patterns; imports nothing of jmxr.
//! 2. [`sample`]: what one sample measured (`SampleResult`) and the stopwatch that times it.
//! 3. [`jmx`]: the `.jmx` loader, a lossless tree with file positions.
//! 4. [`runlog`]: the run log (`-j`).
//! 5. [`user_state`]: what a virtual user carries (variables, identity, per-element slots) and what a run shares.
//! 6. [`query`]: XPath, CSS selectors, JSONPath and JMESPath over response documents.
//! 7. [`expr`]: `${...}` templates, the function library, If/While conditions.
//! 8. [`plan`]: element contracts and the behaviour of controllers, config, timers, assertions, extractors.
//! 9. [`samplers`]: one module per protocol.
//! 10. [`script`]: scripts on Rhai and the translators from Groovy, Java, BeanShell and JavaScript.
//! 11. [`assemble`]: the runnable plan built from the tree with the compatibility registry.
//! 12. [`results`]: the results bus, `.jtl` writers and reader, summariser, aggregator.
//! 13. [`engine`]: schedulers, virtual users, controllers.
//! 14. [`report`]: the HTML dashboard.
//! 15. [`commands`]: the command line, run, check, migrate and the UDP receiver.

pub mod assemble;
pub mod commands;
pub mod engine;
pub mod expr;
pub mod foundation;
pub mod jmx;
pub mod plan;
pub mod query;
pub mod report;
pub mod results;
pub mod runlog;
pub mod sample;
pub mod samplers;
pub mod script;
pub mod user_state;
