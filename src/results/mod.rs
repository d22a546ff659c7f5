//! Results: what a sample measured ([`SampleResult`]), the bounded bus that carries
//! results from virtual users to sinks, and the sinks themselves (`.jtl` writers in CSV
//! and XML, the console summariser), the `.jtl` CSV reader and the dashboard aggregator
//! that both `-g` (from files) and `-e` (live) feed.
//!
//! Virtual users only ever `send` a [`SampleEvent`] on the bus; one task owns every sink
//! and writes, so a slow disk applies back-pressure instead of losing samples.

mod aggregate;
mod aggregate_graphs;
mod aggregate_graphs_buckets;
mod aggregate_graphs_custom;
mod aggregate_keys;
mod autostop;
mod backend;
mod bus;
mod criteria;
mod csv;
mod flexible_file_writer;
mod intended_start;
mod mailer;
mod progress;
mod prometheus;

mod jtl_file;
mod percentile;
mod read;
mod read_xml;
mod record_file;

mod save_config;
mod summariser;
mod xml;

pub use aggregate::{AggregateSettings, Aggregator, ApdexThresholds, Observation, Summary, TOTAL};
pub use aggregate_graphs::{graphs, Graph, Page, XAxis};
pub use autostop::{AutoStop, AutoStopLimits, StopRun};
pub use backend::{BackendConfig, BackendSink, Parameters as BackendParameters};
pub use bus::{Batch, PendingSamples, ResultsBus, SampleEvent, Sink, BUS_CAPACITY};
pub use criteria::{describe, junit_xml, CriteriaSink, Criterion, Verdict, Verdicts};
pub use csv::{csv_header, quote, write_csv_row, write_csv_sample};
pub use flexible_file_writer::FlexibleFileSink;
pub use intended_start::{IntendedStartLatency, Lines as IntendedStartLines};
pub use jtl_file::{Collector, JtlFileSink, JtlFiles, JtlSink};
pub use mailer::{MailerModel, MailerSettings, MailerSink, Notice as MailerNotice};
pub use percentile::Distribution;
pub use progress::{ConsoleLines, Progress, ProgressSettings, ProgressSink};
pub use prometheus::PrometheusSink;
pub use read::{JtlReader, JtlRecord, ReadError};
pub use read_xml::{ResultsReader, XmlJtlReader};
pub use save_config::{SaveConfig, SaveConfigError};
pub use summariser::{Clock, Summariser, SystemClock};
pub use xml::{
    write_xml_file_end, write_xml_file_start, write_xml_sample, TEST_RESULTS_END,
    TEST_RESULTS_START, XML_DECLARATION,
};
