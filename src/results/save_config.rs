//! `SaveConfig`: which fields a result writer saves and how, as JMeter's
//! `SampleSaveConfiguration` defines them.
//!
//! Two sources: the `jmeter.save.saveservice.*` properties (the `-l` file and listeners without
//! a `saveConfig`), and a Result Collector's `saveConfig` object property in the plan, where a
//! missing field means *false* (JMeter's converter presets every flag to false before reading
//! the element). The delimiter, the timestamp format and `sample_variables` always come from
//! the properties.

use std::sync::Arc;

use thiserror::Error;

use crate::foundation::java_format::{Dialect, JavaDateFormat};
use crate::foundation::properties::Properties;
use crate::sample::SampleResult;

const PREFIX: &str = "jmeter.save.saveservice.";

/// A save configuration that JMeter refuses to start with.
#[derive(Debug, Error, PartialEq)]
pub enum SaveConfigError {
    #[error("Delimiter '{0}' must be of length 1.")]
    DelimiterLength(String),
    #[error("Delimiter '{0}' must not be alphanumeric or \".")]
    DelimiterAlphanumeric(char),
    #[error("Delimiter (code {0}) must be printable.")]
    DelimiterNotPrintable(u32),
}

/// What to save for each sample. Field names follow `SampleSaveConfiguration`.
#[derive(Debug, Clone, PartialEq)]
pub struct SaveConfig {
    /// XML `.jtl` instead of CSV.
    pub xml: bool,
    /// CSV header line.
    pub field_names: bool,
    pub timestamp: bool,
    /// `elapsed` / `t`.
    pub time: bool,
    pub label: bool,
    pub code: bool,
    pub message: bool,
    pub thread_name: bool,
    pub data_type: bool,
    pub success: bool,
    /// CSV `failureMessage` column.
    pub assertion_results_failure_message: bool,
    pub bytes: bool,
    pub sent_bytes: bool,
    /// `grpThreads` and `allThreads` together.
    pub thread_counts: bool,
    pub url: bool,
    pub file_name: bool,
    pub latency: bool,
    pub connect_time: bool,
    pub encoding: bool,
    /// `SampleCount` and `ErrorCount` together.
    pub sample_count: bool,
    pub hostname: bool,
    pub idle_time: bool,
    /// jmxr's own `intendedStart` column (`jmxr.save.intended_start=true`): when an
    /// arrival-driven sample was meant to start. Off by default, so the file stays
    /// JMeter's.
    pub intended_start: bool,
    pub request_headers: bool,
    pub sampler_data: bool,
    pub response_headers: bool,
    pub response_data: bool,
    /// Save response and sampler data of failed samples (XML).
    pub response_data_on_error: bool,
    pub subresults: bool,
    /// XML `<assertionResult>` children.
    pub assertions: bool,
    /// `assertion_results` (0 none, 1 first, 2 all): kept for completeness, JMeter's writers
    /// never read it.
    pub assertions_results_to_save: u8,
    /// The single field separator of CSV files.
    pub delimiter: char,
    /// `timestamp_format=ms`: epoch milliseconds. When false, `date_format` formats the
    /// CSV timestamp; when that is `None` too (`none` or an invalid pattern) nothing is written.
    pub print_milliseconds: bool,
    pub date_format: Option<JavaDateFormat>,
    /// Names from the `sample_variables` property, saved as extra columns / attributes.
    pub sample_variables: Arc<[String]>,
    /// `sampleresult.timestamp.start`: `timeStamp` is the start time (else the end time).
    pub timestamp_is_start: bool,
    /// `sampleresult.default.encoding`, used when a sample has no encoding of its own.
    pub default_encoding: String,
    /// The Test Plan's functional mode: response and sampler data are always saved (XML).
    pub functional_mode: bool,
    /// `xml_pi`: an optional processing instruction written as line 2 of an XML file.
    pub xml_pi: String,
    /// `autoflush`: flush after every sample.
    pub autoflush: bool,
}

/// Reads `jmeter.save.saveservice.<suffix>` as `SampleSaveConfiguration` does:
/// `"true".equalsIgnoreCase(value)` on the value as written (not trimmed, unlike the
/// properties read through `getPropDefault`).
pub fn save_flag(props: &Properties, suffix: &str, default: bool) -> bool {
    props
        .get(&format!("{PREFIX}{suffix}"))
        .map_or(default, |value| value.eq_ignore_ascii_case("true"))
}

impl SaveConfig {
    /// JMeter 5.6.3's defaults, overridden by the `jmeter.save.saveservice.*` properties.
    pub fn from_properties(props: &Properties) -> Result<SaveConfig, SaveConfigError> {
        let mut config = SaveConfig::all(false, props)?;
        let format = props
            .get(&format!("{PREFIX}timestamp_format"))
            .unwrap_or_else(|| "ms".to_string());
        config.timestamp = !format.eq_ignore_ascii_case("none");
        config.xml = props.get(&format!("{PREFIX}output_format")).as_deref() == Some("xml");
        config.field_names = save_flag(props, "print_field_names", true);
        config.time = save_flag(props, "time", true);
        config.label = save_flag(props, "label", true);
        config.code = save_flag(props, "response_code", true);
        config.message = save_flag(props, "response_message", true);
        config.thread_name = save_flag(props, "thread_name", true);
        config.data_type = save_flag(props, "data_type", true);
        config.success = save_flag(props, "successful", true);
        config.assertion_results_failure_message =
            save_flag(props, "assertion_results_failure_message", true);
        config.bytes = save_flag(props, "bytes", true);
        config.sent_bytes = save_flag(props, "sent_bytes", true);
        config.thread_counts = save_flag(props, "thread_counts", true);
        config.url = save_flag(props, "url", true);
        config.file_name = save_flag(props, "filename", false);
        config.latency = save_flag(props, "latency", true);
        config.connect_time = save_flag(props, "connect_time", true);
        config.encoding = save_flag(props, "encoding", false);
        config.sample_count = save_flag(props, "sample_count", false);
        config.hostname = save_flag(props, "hostname", false);
        config.idle_time = save_flag(props, "idle_time", true);
        config.intended_start = props.get_bool("jmxr.save.intended_start", false);
        config.request_headers = save_flag(props, "requestHeaders", false);
        config.sampler_data = save_flag(props, "samplerData", false);
        config.response_headers = save_flag(props, "responseHeaders", false);
        config.response_data = save_flag(props, "response_data", false);
        config.response_data_on_error = save_flag(props, "response_data.on_error", false);
        config.subresults = save_flag(props, "subresults", true);
        config.assertions = save_flag(props, "assertions", true);
        Ok(config)
    }

    /// A Result Collector's `saveConfig` object property: `(tag, text)` pairs such as
    /// `("time", "false")`. Every flag not listed is false.
    pub fn from_listener(
        fields: &[(String, String)],
        props: &Properties,
    ) -> Result<SaveConfig, SaveConfigError> {
        let mut config = SaveConfig::all(false, props)?;
        for (tag, text) in fields {
            config.set_field(tag, text);
        }
        Ok(config)
    }

    /// Every flag set to `value`; the property-derived settings filled in (JMeter's
    /// `SampleSaveConfiguration(boolean)`).
    fn all(value: bool, props: &Properties) -> Result<SaveConfig, SaveConfigError> {
        let format = props
            .get(&format!("{PREFIX}timestamp_format"))
            .unwrap_or_else(|| "ms".to_string());
        let print_milliseconds = format.eq_ignore_ascii_case("ms");
        let date_format = if print_milliseconds || format.eq_ignore_ascii_case("none") {
            None
        } else {
            // JMeter logs an invalid pattern and carries on without a timestamp value.
            JavaDateFormat::compile(&format, Dialect::SimpleDateFormat).ok()
        };
        let assertions_results_to_save =
            match props.get(&format!("{PREFIX}assertion_results")).as_deref() {
                Some("first") => 1,
                Some("all") => 2,
                _ => 0,
            };
        Ok(SaveConfig {
            xml: value,
            field_names: value,
            timestamp: value,
            time: value,
            label: value,
            code: value,
            message: value,
            thread_name: value,
            data_type: value,
            success: value,
            assertion_results_failure_message: value,
            bytes: value,
            sent_bytes: value,
            thread_counts: value,
            url: value,
            file_name: value,
            latency: value,
            connect_time: value,
            encoding: value,
            sample_count: value,
            hostname: value,
            idle_time: value,
            intended_start: false,
            request_headers: value,
            sampler_data: value,
            response_headers: value,
            response_data: value,
            response_data_on_error: value,
            subresults: value,
            assertions: value,
            assertions_results_to_save,
            delimiter: delimiter_from(props)?,
            print_milliseconds,
            date_format,
            sample_variables: sample_variables_from(props),
            timestamp_is_start: props.get_bool("sampleresult.timestamp.start", true),
            default_encoding: props.get_default("sampleresult.default.encoding", "UTF-8"),
            functional_mode: false,
            xml_pi: props.get(&format!("{PREFIX}xml_pi")).unwrap_or_default(),
            autoflush: save_flag(props, "autoflush", false),
        })
    }

    /// Applies one child element of a `saveConfig` object property. Unknown tags (and the
    /// obsolete `formatter`) are ignored.
    fn set_field(&mut self, tag: &str, text: &str) {
        let on = text.trim().eq_ignore_ascii_case("true");
        let flag = match tag {
            "time" => &mut self.time,
            "latency" => &mut self.latency,
            "timestamp" => &mut self.timestamp,
            "success" => &mut self.success,
            "label" => &mut self.label,
            "code" => &mut self.code,
            "message" => &mut self.message,
            "threadName" => &mut self.thread_name,
            "dataType" => &mut self.data_type,
            "encoding" => &mut self.encoding,
            "assertions" => &mut self.assertions,
            "subresults" => &mut self.subresults,
            "responseData" => &mut self.response_data,
            "samplerData" => &mut self.sampler_data,
            "xml" => &mut self.xml,
            "fieldNames" => &mut self.field_names,
            "responseHeaders" => &mut self.response_headers,
            "requestHeaders" => &mut self.request_headers,
            "responseDataOnError" => &mut self.response_data_on_error,
            "saveAssertionResultsFailureMessage" => &mut self.assertion_results_failure_message,
            "bytes" => &mut self.bytes,
            "sentBytes" => &mut self.sent_bytes,
            "url" => &mut self.url,
            "fileName" => &mut self.file_name,
            "hostname" => &mut self.hostname,
            "threadCounts" => &mut self.thread_counts,
            "sampleCount" => &mut self.sample_count,
            "idleTime" => &mut self.idle_time,
            "connectTime" => &mut self.connect_time,
            "printMilliseconds" => &mut self.print_milliseconds,
            "assertionsResultsToSave" => {
                self.assertions_results_to_save = text.trim().parse().unwrap_or(0);
                return;
            }
            // JMeter never writes it, but its converter restores any field it finds.
            "delimiter" => {
                let mut chars = text.chars();
                if let (Some(c), None) = (chars.next(), chars.next()) {
                    self.delimiter = c;
                }
                return;
            }
            _ => return,
        };
        *flag = on;
    }

    /// The sample's `timeStamp`: its start or end time, as `sampleresult.timestamp.start` says.
    pub fn timestamp_of(&self, sample: &SampleResult) -> i64 {
        if self.timestamp_is_start {
            sample.start_time
        } else {
            sample.end_time
        }
    }

    /// The sample's encoding, or `sampleresult.default.encoding` when it has none.
    pub fn encoding_of<'a>(&'a self, sample: &'a SampleResult) -> &'a str {
        if sample.data_encoding.is_empty() {
            &self.default_encoding
        } else {
            &sample.data_encoding
        }
    }

    /// Whether `<responseData>` is written for this sample.
    pub fn save_response_data(&self, success: bool) -> bool {
        self.response_data || self.functional_mode || (self.response_data_on_error && !success)
    }

    /// Whether `<samplerData>` (or the HTTP request fields) is written for this sample.
    pub fn save_sampler_data(&self, success: bool) -> bool {
        self.sampler_data || self.functional_mode || (self.response_data_on_error && !success)
    }
}

/// `default_delimiter`: one character, `\t` meaning TAB; letters, digits, `"` and
/// non-printable characters other than TAB are refused, as JMeter refuses them.
fn delimiter_from(props: &Properties) -> Result<char, SaveConfigError> {
    let raw = props
        .get(&format!("{PREFIX}default_delimiter"))
        .unwrap_or_else(|| ",".to_string());
    let text = if raw == "\\t" { "\t" } else { raw.as_str() };
    let mut chars = text.chars();
    let c = match (chars.next(), chars.next()) {
        (Some(c), None) => c,
        _ => return Err(SaveConfigError::DelimiterLength(raw)),
    };
    if c.is_ascii_alphanumeric() || c == '"' {
        return Err(SaveConfigError::DelimiterAlphanumeric(c));
    }
    if c != '\t' && !(' '..='~').contains(&c) {
        return Err(SaveConfigError::DelimiterNotPrintable(c as u32));
    }
    Ok(c)
}

/// `sample_variables`: comma-separated names (JMeter splits on commas and keeps blanks).
fn sample_variables_from(props: &Properties) -> Arc<[String]> {
    match props.get("sample_variables") {
        Some(list) => list.split(',').map(str::to_string).collect(),
        None => Arc::from(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn props(pairs: &[(&str, &str)]) -> Properties {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Properties::from_map(map)
    }

    #[test]
    fn defaults_match_jmeter_5_6_3() {
        let c = SaveConfig::from_properties(&Properties::new()).unwrap();
        assert!(!c.xml && c.field_names && c.timestamp && c.print_milliseconds);
        assert!(c.time && c.latency && c.connect_time && c.idle_time && c.url);
        assert!(!c.encoding && !c.sample_count && !c.hostname && !c.file_name);
        assert!(c.subresults && c.assertions && !c.response_data);
        assert_eq!(c.delimiter, ',');
        assert!(c.timestamp_is_start);
    }

    #[test]
    fn properties_override_defaults() {
        let p = props(&[
            ("jmeter.save.saveservice.output_format", "xml"),
            ("jmeter.save.saveservice.default_delimiter", "\\t"),
            ("jmeter.save.saveservice.timestamp_format", "none"),
            ("jmeter.save.saveservice.url", "FALSE"),
            ("sample_variables", "A,B"),
        ]);
        let c = SaveConfig::from_properties(&p).unwrap();
        assert!(c.xml && !c.timestamp && !c.url);
        assert_eq!(c.delimiter, '\t');
        assert_eq!(&*c.sample_variables, &["A".to_string(), "B".to_string()]);
    }

    #[test]
    fn bad_delimiters_are_refused() {
        for (d, err) in [
            ("ab", SaveConfigError::DelimiterLength("ab".into())),
            ("x", SaveConfigError::DelimiterAlphanumeric('x')),
            ("\"", SaveConfigError::DelimiterAlphanumeric('"')),
            ("\u{1}", SaveConfigError::DelimiterNotPrintable(1)),
        ] {
            let p = props(&[("jmeter.save.saveservice.default_delimiter", d)]);
            assert_eq!(SaveConfig::from_properties(&p), Err(err));
        }
    }

    #[test]
    fn listener_fields_missing_mean_false() {
        let fields: Vec<(String, String)> = [("label", "true"), ("xml", "true"), ("time", "false")]
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let c = SaveConfig::from_listener(&fields, &Properties::new()).unwrap();
        assert!(c.label && c.xml && !c.time && !c.url && !c.thread_counts && !c.subresults);
        assert!(
            c.print_milliseconds,
            "timestamp format still comes from the properties"
        );
    }
}
