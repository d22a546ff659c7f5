//! CSV `.jtl` rows and header, byte for byte as JMeter 5.6.3's `CSVSaveService` writes them.
//!
//! Columns come in a fixed order and only when enabled; text fields are quoted only when they
//! contain the delimiter, `"`, CR or LF; a missing URL or variable prints `null`. Sub-results
//! follow their parent as rows of their own, carrying the parent's sample variables.

use std::borrow::Cow;

use super::{SampleResult, SaveConfig};

/// JMeter stops descending into sub-results after this many levels.
const MAX_SUBRESULT_DEPTH: usize = 10;

/// The header line (without line end): enabled column names, then each sample variable in
/// double quotes.
pub fn csv_header(config: &SaveConfig) -> String {
    let columns: [(bool, &[&str]); 20] = [
        (config.timestamp, &["timeStamp"]),
        (config.time, &["elapsed"]),
        (config.label, &["label"]),
        (config.code, &["responseCode"]),
        (config.message, &["responseMessage"]),
        (config.thread_name, &["threadName"]),
        (config.data_type, &["dataType"]),
        (config.success, &["success"]),
        (
            config.assertion_results_failure_message,
            &["failureMessage"],
        ),
        (config.bytes, &["bytes"]),
        (config.sent_bytes, &["sentBytes"]),
        (config.thread_counts, &["grpThreads", "allThreads"]),
        (config.url, &["URL"]),
        (config.file_name, &["Filename"]),
        (config.latency, &["Latency"]),
        (config.encoding, &["Encoding"]),
        (config.sample_count, &["SampleCount", "ErrorCount"]),
        (config.hostname, &["Hostname"]),
        (config.idle_time, &["IdleTime"]),
        (config.connect_time, &["Connect"]),
    ];
    let mut names: Vec<Cow<str>> = columns
        .iter()
        .filter(|(on, _)| *on)
        .flat_map(|(_, names)| names.iter().map(|n| Cow::Borrowed(*n)))
        .collect();
    names.extend(
        config
            .sample_variables
            .iter()
            .map(|v| Cow::Owned(format!("\"{v}\""))),
    );
    names.join(&config.delimiter.to_string())
}

/// Whether a text field must be quoted: it contains the delimiter, `"`, CR or LF.
fn needs_quotes(field: &str, delimiter: char) -> bool {
    // Every row writes several text fields; an ASCII delimiter (the usual case) lets the
    // check look at bytes instead of decoding characters.
    if delimiter.is_ascii() {
        let delimiter = delimiter as u8;
        field
            .bytes()
            .any(|b| b == delimiter || b == b'"' || b == b'\r' || b == b'\n')
    } else {
        field.contains([delimiter, '"', '\r', '\n'])
    }
}

/// Quotes a text field if it contains the delimiter, `"`, CR or LF, doubling inner quotes.
pub fn quote(field: &str, delimiter: char) -> Cow<'_, str> {
    if !needs_quotes(field, delimiter) {
        return Cow::Borrowed(field);
    }
    let mut quoted = String::with_capacity(field.len() + 4);
    quoted.push('"');
    for c in field.chars() {
        if c == '"' {
            quoted.push('"');
        }
        quoted.push(c);
    }
    quoted.push('"');
    Cow::Owned(quoted)
}

/// Builds one row: adds delimiters between fields and quotes text fields.
struct Row<'a> {
    out: &'a mut String,
    delimiter: char,
    first: bool,
}

impl Row<'_> {
    fn separate(&mut self) {
        if !self.first {
            self.out.push(self.delimiter);
        }
        self.first = false;
    }

    fn text(&mut self, value: &str) {
        self.separate();
        if needs_quotes(value, self.delimiter) {
            self.out.push_str(&quote(value, self.delimiter));
        } else {
            self.out.push_str(value);
        }
    }

    /// An integer column; `itoa` prints the same digits as `Display` without the
    /// formatting machinery (a row has up to ten numbers).
    fn number(&mut self, value: impl itoa::Integer) {
        self.separate();
        self.out.push_str(itoa::Buffer::new().format(value));
    }

    fn boolean(&mut self, value: bool) {
        self.separate();
        self.out.push_str(if value { "true" } else { "false" });
    }
}

/// Appends one row for `sample` (no line end, no sub-results). `variables` are the values of
/// `config.sample_variables` to print (the top-level sample's, for sub-results too).
pub fn write_csv_row(
    out: &mut String,
    config: &SaveConfig,
    sample: &SampleResult,
    variables: &[Option<String>],
    hostname: &str,
) {
    let mut row = Row {
        out,
        delimiter: config.delimiter,
        first: true,
    };
    if config.timestamp {
        let stamp = config.timestamp_of(sample);
        if config.print_milliseconds {
            row.number(stamp);
        } else if let Some(pattern) = &config.date_format {
            row.text(&pattern.format_local(stamp));
        }
    }
    if config.time {
        row.number(sample.elapsed);
    }
    if config.label {
        row.text(&sample.label);
    }
    if config.code {
        row.text(&sample.response_code);
    }
    if config.message {
        row.text(&sample.response_message);
    }
    if config.thread_name {
        row.text(&sample.thread_name);
    }
    if config.data_type {
        row.text(sample.data_type);
    }
    if config.success {
        row.boolean(sample.success);
    }
    if config.assertion_results_failure_message {
        row.text(sample.first_failure_message());
    }
    write_sizes_and_counts(&mut row, config, sample);
    if config.hostname {
        row.text(hostname);
    }
    if config.idle_time {
        row.number(sample.idle_time);
    }
    if config.connect_time {
        row.number(sample.connect_time);
    }
    for i in 0..config.sample_variables.len() {
        let value = variables.get(i).and_then(Option::as_deref);
        row.text(value.unwrap_or("null"));
    }
}

/// The columns from `bytes` to `ErrorCount`.
fn write_sizes_and_counts(row: &mut Row<'_>, config: &SaveConfig, sample: &SampleResult) {
    if config.bytes {
        row.number(sample.bytes());
    }
    if config.sent_bytes {
        row.number(sample.sent_bytes);
    }
    if config.thread_counts {
        row.number(sample.grp_threads);
        row.number(sample.all_threads);
    }
    if config.url {
        row.text(sample.url.as_deref().unwrap_or("null"));
    }
    if config.file_name {
        row.text(&sample.result_file_name);
    }
    if config.latency {
        row.number(sample.latency);
    }
    if config.encoding {
        row.text(config.encoding_of(sample));
    }
    if config.sample_count {
        row.number(sample.sample_count);
        row.number(sample.error_count);
    }
}

/// Appends the rows of one recorded sample, each ending in LF: the sample itself, then (when
/// `subresults` is on) every sub-result, depth first.
pub fn write_csv_sample(out: &mut String, config: &SaveConfig, sample: &SampleResult, host: &str) {
    let variables = &sample.sample_variables;
    write_csv_row(out, config, sample, variables, host);
    out.push('\n');
    if config.subresults {
        write_subresult_rows(out, config, sample, variables, host, 0);
    }
}

fn write_subresult_rows(
    out: &mut String,
    config: &SaveConfig,
    parent: &SampleResult,
    variables: &[Option<String>],
    host: &str,
    depth: usize,
) {
    if depth > MAX_SUBRESULT_DEPTH {
        return;
    }
    for child in &parent.subresults {
        write_csv_row(out, config, child, variables, host);
        out.push('\n');
        write_subresult_rows(out, config, child, variables, host, depth + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Properties;
    use crate::results::AssertionResult;
    use std::sync::Arc;

    fn listener(fields: &[&str]) -> SaveConfig {
        let fields: Vec<(String, String)> = fields
            .iter()
            .map(|f| (f.to_string(), "true".to_string()))
            .collect();
        SaveConfig::from_listener(&fields, &Properties::new()).unwrap()
    }

    fn row(config: &SaveConfig, sample: &SampleResult) -> String {
        let mut out = String::new();
        write_csv_sample(&mut out, config, sample, "host");
        out
    }

    #[test]
    fn quotes_only_when_needed() {
        assert_eq!(quote("plain text", ','), "plain text");
        assert_eq!(quote("a,b", ','), "\"a,b\"");
        assert_eq!(quote("say \"hi\"", ','), "\"say \"\"hi\"\"\"");
        assert_eq!(quote("two\nlines", ','), "\"two\nlines\"");
        assert_eq!(quote("cr\r", ','), "\"cr\r\"");
        assert_eq!(quote("a,b", '\t'), "a,b");
        assert_eq!(quote("a\tb", '\t'), "\"a\tb\"");
    }

    #[test]
    fn default_header_is_jmeters() {
        let config = SaveConfig::from_properties(&Properties::new()).unwrap();
        assert_eq!(
            csv_header(&config),
            "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,\
             failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect"
        );
    }

    #[test]
    fn default_row_for_a_java_request() {
        let config = SaveConfig::from_properties(&Properties::new()).unwrap();
        let mut s = SampleResult::new(Arc::from("JR-OK"));
        s.start_time = 1_551_783_627_191;
        s.end_time = s.start_time + 351;
        s.elapsed = 351;
        s.response_code = "200".into();
        s.response_message = "Good request".into();
        s.thread_name = Arc::from("Thread Group 1-1");
        s.data_type = "text";
        s.response_data = b"0123456789abcdefgh".to_vec();
        s.sent_bytes = 8;
        s.grp_threads = 1;
        s.all_threads = 1;
        assert_eq!(
            row(&config, &s),
            "1551783627191,351,JR-OK,200,Good request,Thread Group 1-1,text,true,,18,8,1,1,null,0,0,0\n"
        );
    }

    #[test]
    fn sample_variables_header_and_row_bug54685() {
        let props = Properties::new();
        props.set("sample_variables", "REFERENCE,JSESSIONID");
        let fields: Vec<(String, String)> =
            ["label", "code", "message", "dataType", "success", "bytes"]
                .iter()
                .map(|f| (f.to_string(), "true".to_string()))
                .collect();
        let config = SaveConfig::from_listener(&fields, &props).unwrap();
        assert_eq!(
            csv_header(&config),
            "label,responseCode,responseMessage,dataType,success,bytes,\"REFERENCE\",\"JSESSIONID\""
        );
        let mut s = SampleResult::new(Arc::from(
            "sample_variables=REFERENCE,JSESSIONID REFERENCE=reference JSESSIONID=jsessionId",
        ));
        s.data_type = "text";
        s.sample_variables = vec![Some("reference".into()), Some("jsessionId".into())];
        assert_eq!(
            row(&config, &s),
            "\"sample_variables=REFERENCE,JSESSIONID REFERENCE=reference JSESSIONID=jsessionId\",,,text,true,0,reference,jsessionId\n"
        );
        s.sample_variables = vec![Some("reference".into())];
        assert!(row(&config, &s).ends_with(",reference,null\n"));
    }

    #[test]
    fn transaction_row_bug56811() {
        let config = listener(&[
            "label",
            "code",
            "message",
            "threadName",
            "dataType",
            "success",
            "saveAssertionResultsFailureMessage",
            "bytes",
            "threadCounts",
            "url",
            "sampleCount",
        ]);
        let mut tc = SampleResult::new(Arc::from("TC"));
        tc.response_code = "200".into();
        tc.response_message =
            "Number of samples in transaction : 1, number of failing samples : 1".into();
        tc.thread_name = Arc::from("TG 1-1");
        tc.set_success(false);
        tc.grp_threads = 1;
        tc.all_threads = 1;
        assert_eq!(
            row(&config, &tc),
            "TC,200,\"Number of samples in transaction : 1, number of failing samples : 1\",TG 1-1,,false,,0,1,1,null,1,1\n"
        );
    }

    #[test]
    fn failure_message_and_subresult_rows() {
        let config = listener(&[
            "label",
            "success",
            "saveAssertionResultsFailureMessage",
            "subresults",
        ]);
        let mut parent = SampleResult::new(Arc::from("P"));
        parent.set_success(false);
        parent.assertions.push(AssertionResult {
            name: Arc::from("RA"),
            failure: true,
            error: false,
            failure_message: Some("Test failed: text expected to contain /x/".into()),
        });
        let mut child = SampleResult::new(Arc::from("P-0"));
        child.add_subresult(SampleResult::new(Arc::from("P-0-0")), false);
        parent.add_subresult(child, false);
        assert_eq!(
            row(&config, &parent),
            "P,false,Test failed: text expected to contain /x/\nP-0,true,\nP-0-0,true,\n"
        );
        let mut no_subs = config.clone();
        no_subs.subresults = false;
        assert_eq!(row(&no_subs, &parent).lines().count(), 1);
    }

    #[test]
    fn timestamp_formats() {
        let props = Properties::new();
        props.set("jmeter.save.saveservice.timestamp_format", "yyyy");
        let mut config = listener(&["timestamp", "label"]);
        let mut s = SampleResult::new(Arc::from("x"));
        s.start_time = 1_551_783_627_191;
        s.end_time = 1_551_783_627_200;
        assert_eq!(row(&config, &s), "1551783627191,x\n");
        config.timestamp_is_start = false;
        assert_eq!(row(&config, &s), "1551783627200,x\n");
        let formatted = SaveConfig::from_listener(
            &[
                ("timestamp".into(), "true".into()),
                ("label".into(), "true".into()),
            ],
            &props,
        )
        .unwrap();
        assert_eq!(row(&formatted, &s), "2019,x\n");
    }

    #[test]
    fn tab_delimiter_encoding_and_hostname() {
        let mut config = listener(&["label", "encoding", "hostname"]);
        config.delimiter = '\t';
        let s = SampleResult::new(Arc::from("a,b"));
        assert_eq!(csv_header(&config), "label\tEncoding\tHostname");
        assert_eq!(row(&config, &s), "a,b\tUTF-8\thost\n");
    }
}
