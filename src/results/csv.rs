//! CSV `.jtl` rows and header, byte for byte as JMeter 5.6.3's `CSVSaveService` writes them.
//!
//! Columns come in a fixed order and only when enabled; text fields are quoted only when they
//! contain the delimiter, `"`, CR or LF; a missing URL or variable prints `null`. Sub-results
//! follow their parent as rows of their own, carrying the parent's sample variables.

use std::borrow::Cow;
use std::sync::Arc;

use super::SaveConfig;

use crate::sample::SampleResult;

/// JMeter stops descending into sub-results after this many levels.
const MAX_SUBRESULT_DEPTH: usize = 10;

/// The header line (without line end): enabled column names, then each sample variable in
/// double quotes.
pub fn csv_header(config: &SaveConfig) -> String {
    let columns: [(bool, &[&str]); 21] = [
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
        (config.intended_start, &["intendedStart"]),
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
        has_special_byte(field.as_bytes(), delimiter as u8)
    } else {
        field.contains([delimiter, '"', '\r', '\n'])
    }
}

/// Whether `bytes` holds the (ASCII) delimiter, `"`, CR or LF, eight bytes at a time: a
/// row's text fields are mostly plain and this check runs on every byte of them.
fn has_special_byte(bytes: &[u8], delimiter: u8) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH_BITS: u64 = u64::from_ne_bytes([0x80; 8]);
    // Non-zero exactly when some byte of `word` is zero.
    let has_zero_byte = |word: u64| word.wrapping_sub(ONES) & !word & HIGH_BITS;
    let [d, q, cr, lf] = [delimiter, b'"', b'\r', b'\n'].map(|b| ONES * u64::from(b));
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let w = u64::from_ne_bytes(word.try_into().expect("chunks of eight"));
        if has_zero_byte(w ^ d)
            | has_zero_byte(w ^ q)
            | has_zero_byte(w ^ cr)
            | has_zero_byte(w ^ lf)
            != 0
        {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|&b| b == delimiter || b == b'"' || b == b'\r' || b == b'\n')
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

/// Whether names already written needed quotes, found by the name's allocation: labels
/// and thread names are shared `Arc<str>`s, so a row's names are mostly found here rather
/// than scanned again byte by byte.
pub struct QuotingMemo {
    /// Found by address, in its slot or the next ([`places`]); a slot keeps its name
    /// alive, so an address cannot be reused by another name while the slot holds it.
    slots: Vec<Option<(Arc<str>, char, bool)>>,
    /// The same for texts of the program itself (response codes and messages, data
    /// types): they live as long as the program, so their address and length name them.
    constants: Vec<Option<(usize, usize, char, bool)>>,
}

impl QuotingMemo {
    const SLOTS: usize = 256;
    const CONSTANT_SLOTS: usize = 64;

    pub fn new() -> QuotingMemo {
        QuotingMemo {
            slots: vec![None; Self::SLOTS],
            constants: vec![None; Self::CONSTANT_SLOTS],
        }
    }

    fn constant_needs_quotes(&mut self, text: &'static str, delimiter: char) -> bool {
        let (address, len) = (text.as_ptr() as usize, text.len());
        let places = places(address >> 3, Self::CONSTANT_SLOTS);
        for place in places {
            if let Some((seen, seen_len, seen_delimiter, quoted)) = self.constants[place] {
                if seen == address && seen_len == len && seen_delimiter == delimiter {
                    return quoted;
                }
            }
        }
        let quoted = needs_quotes(text, delimiter);
        let place = places
            .into_iter()
            .find(|&place| self.constants[place].is_none())
            .unwrap_or(places[0]);
        self.constants[place] = Some((address, len, delimiter, quoted));
        quoted
    }

    fn needs_quotes(&mut self, name: &Arc<str>, delimiter: char) -> bool {
        let address = Arc::as_ptr(name) as *const u8 as usize;
        let places = places(address >> 4, Self::SLOTS);
        for place in places {
            if let Some((seen, seen_delimiter, quoted)) = &self.slots[place] {
                if Arc::ptr_eq(seen, name) && *seen_delimiter == delimiter {
                    return *quoted;
                }
            }
        }
        let quoted = needs_quotes(name, delimiter);
        let place = places
            .into_iter()
            .find(|&place| self.slots[place].is_none())
            .unwrap_or(places[0]);
        self.slots[place] = Some((name.clone(), delimiter, quoted));
        quoted
    }
}

/// The two slots of `slots` a text remembered under `index` may sit in: its own and the
/// next. The texts' addresses stay the same all run, so two that fell on one slot would
/// otherwise push each other out on every row.
fn places(index: usize, slots: usize) -> [usize; 2] {
    [index % slots, (index + 1) % slots]
}

impl Default for QuotingMemo {
    fn default() -> Self {
        QuotingMemo::new()
    }
}

/// Room reserved before a row: one reservation covers a typical row, so the fields are
/// appended without growing the buffer.
const ROW_RESERVE: usize = 256;

/// Builds one row as bytes: adds delimiters between fields and quotes text fields.
struct Row<'a> {
    out: &'a mut Vec<u8>,
    memo: Option<&'a mut QuotingMemo>,
    delimiter: char,
    /// The delimiter in UTF-8 (`delimiter_len` bytes of it).
    delimiter_bytes: [u8; 4],
    delimiter_len: usize,
    first: bool,
}

impl Row<'_> {
    fn new<'a>(
        out: &'a mut Vec<u8>,
        delimiter: char,
        memo: Option<&'a mut QuotingMemo>,
    ) -> Row<'a> {
        let mut delimiter_bytes = [0; 4];
        let delimiter_len = delimiter.encode_utf8(&mut delimiter_bytes).len();
        out.reserve(ROW_RESERVE);
        Row {
            out,
            memo,
            delimiter,
            delimiter_bytes,
            delimiter_len,
            first: true,
        }
    }

    fn separate(&mut self) {
        if !self.first {
            if self.delimiter_len == 1 {
                self.out.push(self.delimiter_bytes[0]);
            } else {
                self.out
                    .extend_from_slice(&self.delimiter_bytes[..self.delimiter_len]);
            }
        }
        self.first = false;
    }

    fn text(&mut self, value: &str) {
        if value.is_empty() {
            self.separate();
            return;
        }
        let quoted = needs_quotes(value, self.delimiter);
        self.text_quoted_if(value, quoted);
    }

    /// A text of the program itself (a constant response code, message or data type):
    /// whether it needs quotes is looked up when it was seen.
    fn constant(&mut self, value: &'static str) {
        let quoted = match self.memo.as_deref_mut() {
            Some(memo) => memo.constant_needs_quotes(value, self.delimiter),
            None => needs_quotes(value, self.delimiter),
        };
        self.text_quoted_if(value, quoted);
    }

    /// A response code or message: constant texts are looked up, others checked.
    fn code_text(&mut self, value: &crate::sample::Text) {
        match value {
            std::borrow::Cow::Borrowed(constant) => self.constant(constant),
            std::borrow::Cow::Owned(text) => self.text(text),
        }
    }

    /// A label or thread name: whether it needs quotes is looked up when it was seen.
    fn name(&mut self, value: &Arc<str>) {
        let quoted = match self.memo.as_deref_mut() {
            Some(memo) => memo.needs_quotes(value, self.delimiter),
            None => needs_quotes(value, self.delimiter),
        };
        self.text_quoted_if(value, quoted);
    }

    fn text_quoted_if(&mut self, value: &str, quoted: bool) {
        self.separate();
        if quoted {
            self.out
                .extend_from_slice(quote(value, self.delimiter).as_bytes());
        } else {
            self.out.extend_from_slice(value.as_bytes());
        }
    }

    /// An integer column. Most columns of most rows are one digit (latency, idle and
    /// connect times of fast samples, thread counts); `itoa` prints the others with the
    /// digits `Display` would give, without the formatting machinery.
    fn number(&mut self, value: i64) {
        self.separate();
        if (0..10).contains(&value) {
            self.out.push(b'0' + value as u8);
        } else {
            self.out
                .extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
        }
    }

    fn boolean(&mut self, value: bool) {
        self.separate();
        self.out
            .extend_from_slice(if value { b"true" } else { b"false" });
    }
}

/// Appends one row for `sample` (no line end, no sub-results). `variables` are the values of
/// `config.sample_variables` to print (the top-level sample's, for sub-results too).
pub fn write_csv_row(
    out: &mut Vec<u8>,
    config: &SaveConfig,
    sample: &SampleResult,
    variables: &[Option<String>],
    hostname: &str,
) {
    write_row(out, config, sample, variables, hostname, None);
}

fn write_row(
    out: &mut Vec<u8>,
    config: &SaveConfig,
    sample: &SampleResult,
    variables: &[Option<String>],
    hostname: &str,
    memo: Option<&mut QuotingMemo>,
) {
    let mut row = Row::new(out, config.delimiter, memo);
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
        row.name(&sample.label);
    }
    if config.code {
        row.code_text(&sample.response_code);
    }
    if config.message {
        row.code_text(&sample.response_message);
    }
    if config.thread_name {
        row.name(&sample.thread_name);
    }
    if config.data_type {
        row.constant(sample.data_type);
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
    if config.intended_start {
        match sample.intended_start {
            Some(ms) => row.number(ms),
            None => row.text(""),
        }
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
        row.number(i64::from(sample.grp_threads));
        row.number(i64::from(sample.all_threads));
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
        row.number(i64::from(sample.sample_count));
        row.number(i64::from(sample.error_count));
    }
}

/// Appends the rows of one recorded sample, each ending in LF: the sample itself, then (when
/// `subresults` is on) every sub-result, depth first.
pub fn write_csv_sample(out: &mut Vec<u8>, config: &SaveConfig, sample: &SampleResult, host: &str) {
    write_csv_sample_remembering(out, config, sample, host, None);
}

/// [`write_csv_sample`] for a writer of many rows: `memo` keeps what it learnt about
/// the labels and thread names for the next rows.
pub fn write_csv_sample_remembering(
    out: &mut Vec<u8>,
    config: &SaveConfig,
    sample: &SampleResult,
    host: &str,
    memo: Option<&mut QuotingMemo>,
) {
    let variables = &sample.sample_variables;
    write_row(out, config, sample, variables, host, memo);
    out.push(b'\n');
    if config.subresults {
        write_subresult_rows(out, config, sample, variables, host, 0);
    }
}

fn write_subresult_rows(
    out: &mut Vec<u8>,
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
        out.push(b'\n');
        write_subresult_rows(out, config, child, variables, host, depth + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundation::properties::Properties;
    use crate::sample::AssertionResult;
    use std::sync::Arc;

    fn listener(fields: &[&str]) -> SaveConfig {
        let fields: Vec<(String, String)> = fields
            .iter()
            .map(|f| (f.to_string(), "true".to_string()))
            .collect();
        SaveConfig::from_listener(&fields, &Properties::new()).unwrap()
    }

    fn row(config: &SaveConfig, sample: &SampleResult) -> String {
        let mut out = Vec::new();
        write_csv_sample(&mut out, config, sample, "host");
        String::from_utf8(out).expect("rows are UTF-8")
    }

    #[test]
    fn remembered_constant_codes_and_messages_are_quoted_as_when_scanned() {
        let config = listener(&["code", "message", "dataType", "success"]);
        let mut tabs = config.clone();
        tabs.delimiter = '\t';
        let mut memo = QuotingMemo::new();
        let messages: [crate::sample::Text; 4] = [
            "OK".into(),
            "Non HTTP response message: a, b".into(),
            "a\tb".into(),
            String::from("owned, with a comma").into(),
        ];
        for _ in 0..2 {
            for config in [&config, &tabs] {
                for message in &messages {
                    let mut sample = SampleResult::new(Arc::from("s"));
                    sample.response_code = "200".into();
                    sample.response_message = message.clone();
                    sample.data_type = "text";
                    let mut remembered = Vec::new();
                    write_csv_sample_remembering(
                        &mut remembered,
                        config,
                        &sample,
                        "h",
                        Some(&mut memo),
                    );
                    assert_eq!(String::from_utf8(remembered).unwrap(), row(config, &sample));
                }
            }
        }
        let mut sample = SampleResult::new(Arc::from("s"));
        sample.response_message = "a, b".into();
        assert_eq!(row(&config, &sample), ",\"a, b\",,true\n");
    }

    #[test]
    fn remembered_names_are_quoted_as_when_scanned() {
        let config = listener(&["time", "label", "threadName", "success"]);
        let plain: Arc<str> = Arc::from("Users 1-1");
        let comma: Arc<str> = Arc::from("a, \"b\"");
        let mut memo = QuotingMemo::new();
        for _ in 0..3 {
            for (label, thread) in [(&plain, &comma), (&comma, &plain), (&plain, &plain)] {
                let mut sample = SampleResult::new(label.clone());
                sample.thread_name = thread.clone();
                let mut remembered = Vec::new();
                write_csv_sample_remembering(
                    &mut remembered,
                    &config,
                    &sample,
                    "h",
                    Some(&mut memo),
                );
                assert_eq!(
                    String::from_utf8(remembered).unwrap(),
                    row(&config, &sample)
                );
            }
        }
        // The same text in another allocation is looked at again, and so is another
        // delimiter.
        let mut sample = SampleResult::new(Arc::from("x,y"));
        sample.thread_name = plain.clone();
        let mut out = Vec::new();
        write_csv_sample_remembering(&mut out, &config, &sample, "h", Some(&mut memo));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "0,\"x,y\",Users 1-1,true\n"
        );
        let mut tabs = config.clone();
        tabs.delimiter = '\t';
        let mut sample = SampleResult::new(comma.clone());
        sample.thread_name = plain.clone();
        let mut out = Vec::new();
        write_csv_sample_remembering(&mut out, &tabs, &sample, "h", Some(&mut memo));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "0\t\"a, \"\"b\"\"\"\tUsers 1-1\ttrue\n"
        );
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
    fn special_bytes_are_found_at_every_position_of_long_and_short_fields() {
        for delimiter in [',', '\t', ';', '|'] {
            for len in 0..24 {
                let plain: String = "ab\u{e9}cdefghijklmnopqrstuvwxyz"
                    .chars()
                    .take(len)
                    .collect();
                assert!(!needs_quotes(&plain, delimiter), "{plain:?}");
                for special in [delimiter, '"', '\r', '\n'] {
                    for at in 0..=plain.chars().count() {
                        let mut field: String = plain.chars().take(at).collect();
                        field.push(special);
                        field.extend(plain.chars().skip(at));
                        assert!(
                            needs_quotes(&field, delimiter),
                            "{field:?} with {delimiter:?}"
                        );
                    }
                }
            }
        }
        // Bytes of multi-byte characters never pass for a special one.
        assert!(!needs_quotes("\u{80}\u{ff}\u{2c2c}\u{10ffff}\u{a0a0}", ','));
    }

    #[test]
    fn numbers_of_one_and_more_digits_and_negative_ones() {
        let config = listener(&["time", "latency", "idleTime", "connectTime"]);
        let mut s = SampleResult::new(Arc::from("x"));
        for (value, text) in [
            (0, "0"),
            (9, "9"),
            (10, "10"),
            (-1, "-1"),
            (1_234_567, "1234567"),
        ] {
            s.elapsed = value;
            s.latency = value;
            s.idle_time = value;
            s.connect_time = value;
            assert_eq!(row(&config, &s), format!("{text},{text},{text},{text}\n"));
        }
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
