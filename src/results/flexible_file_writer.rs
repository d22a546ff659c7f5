//! The jp@gc Flexible File Writer's file: the header when the run starts, one record
//! per sample in the writer's scope made of the pieces its `columns` compiled into
//! (`plan::flexible_file_writer`), and the footer when the run ends. The file is
//! appended to unless `overwrite` is set, as the plugin opens it.
//!
//! Records carry no line end of their own: the plugin writes only what `columns` says,
//! so plans end them with `\r\n` or `\n`. Sub-samples get no record of their own, as
//! listeners hear only of whole samples.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::Path;

use super::bus::{SampleEvent, Sink};
use crate::plan::flexible_file_writer::{Column, Field, FlexibleFileWriterSpec};
use crate::sample::SampleResult;

pub struct FlexibleFileSink {
    listener: usize,
    columns: Vec<Column>,
    footer: String,
    /// How many `sample_variables` the run saves: `variable#N` beyond them is undefined.
    variable_count: usize,
    out: BufWriter<File>,
}

impl FlexibleFileSink {
    /// Opens `path` (truncated or appended to) and writes the header.
    pub fn open(
        spec: &FlexibleFileWriterSpec,
        path: &Path,
        variable_count: usize,
    ) -> std::io::Result<FlexibleFileSink> {
        let file = if spec.overwrite {
            File::create(path)?
        } else {
            OpenOptions::new().create(true).append(true).open(path)?
        };
        let mut out = BufWriter::new(file);
        out.write_all(spec.header.as_bytes())?;
        Ok(FlexibleFileSink {
            listener: spec.id,
            columns: spec.columns.clone(),
            footer: spec.footer.clone(),
            variable_count,
            out,
        })
    }

    /// One sample's record, as the plugin puts it together.
    fn record(&self, sample: &SampleResult) -> Vec<u8> {
        let mut record = Vec::with_capacity(128);
        for column in &self.columns {
            match column {
                Column::Text(text) => record.extend_from_slice(text.as_bytes()),
                Column::Field(field) => write_field(&mut record, sample, *field),
                Column::Variable(n) if *n >= self.variable_count => {
                    record.extend_from_slice(format!("UNDEFINED_variable#{n}").as_bytes());
                }
                Column::Variable(n) => {
                    if let Some(Some(value)) = sample.sample_variables.get(*n) {
                        record.extend_from_slice(value.as_bytes());
                    }
                }
            }
        }
        record
    }
}

/// A field's text, as the plugin writes it.
fn write_field(out: &mut Vec<u8>, sample: &SampleResult, field: Field) {
    let flag = |on: bool| if on { "1" } else { "0" }.to_string();
    let text = match field {
        Field::IsSuccessful => flag(sample.success),
        Field::IsFailed => flag(!sample.success),
        Field::StartTime => sample.start_time.to_string(),
        Field::EndTime => sample.end_time.to_string(),
        // The length of the request text in Java characters, not bytes.
        Field::SentBytes => sample.sampler_data.encode_utf16().count().to_string(),
        Field::ReceivedBytes => sample.response_data.len().to_string(),
        Field::ResponseTime => sample.elapsed.to_string(),
        Field::Latency => sample.latency.to_string(),
        Field::ResponseCode => sample.response_code.to_string(),
        Field::ResponseMessage => sample.response_message.to_string(),
        Field::ThreadName => sample.thread_name.to_string(),
        Field::SampleLabel => sample.label.to_string(),
        Field::StartTimeMillis => seconds_with_millis(sample.start_time),
        Field::EndTimeMillis => seconds_with_millis(sample.end_time),
        Field::ResponseTimeMicros => (sample.elapsed * 1000).to_string(),
        Field::LatencyMicros => (sample.latency * 1000).to_string(),
        // A sampler that set no request text writes "0" in the plugin.
        Field::RequestData if sample.sampler_data.is_empty() => "0".to_string(),
        Field::RequestData => sample.sampler_data.clone(),
        Field::ResponseData => {
            out.extend_from_slice(&sample.response_data);
            return;
        }
        Field::ResponseHeaders => sample.response_headers.clone(),
        Field::ThreadsCount => sample.all_threads.to_string(),
        Field::RequestHeaders => sample.request_headers.clone(),
        Field::ConnectTime => sample.connect_time.to_string(),
        Field::GrpThreads => sample.grp_threads.to_string(),
        Field::SampleCount => sample.sample_count.to_string(),
        Field::ErrorCount => sample.error_count.to_string(),
        Field::ResponseHeaderSize => sample.headers_size.to_string(),
        Field::ResponseSize => sample
            .body_size
            .unwrap_or(sample.response_data.len() as i64)
            .to_string(),
        // `getUrlAsString`: a sample without a URL reads "null", as in the .jtl.
        Field::Url => sample.url.clone().unwrap_or_else(|| "null".to_string()),
    };
    out.extend_from_slice(text.as_bytes());
}

/// Milliseconds since the epoch written as seconds with three decimals
/// (`1700000000123` gives `1700000000.123`); the plugin inserts the point three
/// digits from the end.
fn seconds_with_millis(ms: i64) -> String {
    let mut text = ms.to_string();
    let at = text.len().saturating_sub(3);
    text.insert(at, '.');
    text
}

impl Sink for FlexibleFileSink {
    fn on_sample(&mut self, event: &SampleEvent) -> std::io::Result<()> {
        if event.result.ignore || !event.listeners.contains(&self.listener) {
            return Ok(());
        }
        let record = self.record(&event.result);
        self.out.write_all(&record)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.out.write_all(self.footer.as_bytes())?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_in_seconds_keep_three_decimals() {
        assert_eq!(seconds_with_millis(1_700_000_000_123), "1700000000.123");
    }
}
