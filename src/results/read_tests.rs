use super::*;
use crate::foundation::properties::Properties;
use crate::results::write_csv_sample;

const HEADER: &str = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect";

fn save() -> SaveConfig {
    SaveConfig::from_properties(&Properties::new()).unwrap()
}

fn read_all(text: &str) -> Result<(Vec<JtlRecord>, Vec<String>), ReadError> {
    let mut reader = JtlReader::new(text.as_bytes(), Path::new("t.jtl"), &save(), None)?;
    let mut out = Vec::new();
    let mut record = JtlRecord::default();
    while reader.next_record(&mut record)?.is_some() {
        out.push(record.clone());
    }
    Ok((out, reader.warnings().to_vec()))
}

#[test]
fn reads_the_5x_default_layout() {
    let text = format!("{HEADER}\n1551783627191,351,JR-OK,200,Good request,Thread Group 1-1,text,true,,18,8,1,1,null,3,0,2\n");
    let (records, warnings) = read_all(&text).unwrap();
    assert!(warnings.is_empty());
    let r = &records[0];
    assert_eq!(r.timestamp, 1551783627191);
    assert_eq!(
        (r.elapsed, r.bytes, r.sent_bytes, r.latency, r.connect),
        (351, 18, 8, 3, 2)
    );
    assert_eq!(r.label, "JR-OK");
    assert!(r.success);
}

#[test]
fn a_quoted_field_may_span_lines_and_hold_quotes() {
    let text = format!("{HEADER}\n1,2,\"a,\"\"b\"\"\nc\",500,\"multi\r\nline\",T 1-1,text,false,\"x\",1,0,1,1,null,0,0,0\n");
    let (records, _) = read_all(&text).unwrap();
    assert_eq!(records[0].label, "a,\"b\"\nc");
    assert_eq!(records[0].response_message, "multi\r\nline");
    assert_eq!(records[0].failure_message, "x");
}

#[test]
fn a_custom_column_subset_in_any_order_without_optional_columns() {
    let text = "label,timeStamp,elapsed,success,responseCode,responseMessage,threadName,bytes,grpThreads,allThreads,Latency\nL,10,5,true,200,OK,T 1-1,7,1,1,0\n";
    let (records, _) = read_all(text).unwrap();
    assert_eq!(
        (
            records[0].timestamp,
            records[0].sent_bytes,
            records[0].bytes
        ),
        (10, 0, 7)
    );
}

#[test]
fn a_headerless_file_follows_the_save_properties() {
    let props = Properties::new();
    props.set("jmeter.save.saveservice.default_delimiter", ";");
    props.set("jmeter.save.saveservice.url", "false");
    let save = SaveConfig::from_properties(&props).unwrap();
    let text = "1,2,L,200,OK,T 1-1,text,true,,5,6,1,1,3,0,4\n";
    let text = text.replace(',', ";");
    let mut reader = JtlReader::new(text.as_bytes(), Path::new("t.jtl"), &save, None).unwrap();
    let mut record = JtlRecord::default();
    reader.next_record(&mut record).unwrap().unwrap();
    assert_eq!(
        (record.latency, record.connect, record.sent_bytes),
        (3, 4, 6)
    );
}

#[test]
fn a_truncated_last_line_is_a_warning_and_complete_rows_are_kept() {
    let text = format!("{HEADER}\n1,2,L,200,OK,T 1-1,text,true,,5,6,1,1,null,3,0,4\n3,4,L,2");
    let (records, warnings) = read_all(&text).unwrap();
    assert_eq!(records.len(), 1);
    assert!(warnings[0].contains("t.jtl:3"), "{warnings:?}");
}

#[test]
fn a_garbage_line_is_an_error_with_file_and_line() {
    let text = format!("{HEADER}\n1,2,L,200,OK,T 1-1,text,true,,5,6,1,1,null,3,0,4\nhello world\n1,2,L,200,OK,T 1-1,text,true,,5,6,1,1,null,3,0,4\n");
    let err = read_all(&text).unwrap_err().to_string();
    assert!(err.starts_with("t.jtl:3: expected 17 fields"), "{err}");
    let text = format!("{HEADER}\n1,x,L,200,OK,T 1-1,text,true,,5,6,1,1,null,3,0,4\n");
    let err = read_all(&text).unwrap_err().to_string();
    assert!(err.contains("t.jtl:2: elapsed is not a number"), "{err}");
}

#[test]
fn missing_columns_fail_as_jmeter_words_it() {
    let text = "timeStamp,elapsed,label,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n";
    let err = read_all(text).unwrap_err().to_string();
    assert!(
        err.starts_with("Error while processing samples: Consumer failed with message :No column <responseCode> found in sample metadata <timeStamp,elapsed,"),
        "{err}"
    );
}

#[test]
fn dates_as_jmeter_retries_them_and_custom_patterns() {
    assert!(parse_time("2019/03/05 11:00:27.191", &TimeFormat::Millis).is_ok());
    let pattern = JavaDateFormat::compile("yyyy-MM-dd HH:mm:ss.SSS", Dialect::SimpleDateFormat);
    let pattern = TimeFormat::Pattern(pattern.unwrap());
    let a = parse_time("2019-03-05 11:00:27.191", &pattern).unwrap();
    let b = parse_time("2019-03-05 11:00:27.000", &pattern).unwrap();
    assert_eq!(a - b, 191);
}

#[test]
fn a_header_with_another_delimiter_is_recognised() {
    let text = format!(
        "{}\n1,2,L,200,OK,T 1-1,text,true,,5,6,1,1,null,3,0,4\n",
        HEADER
    )
    .replace(',', "\t");
    let (records, _) = read_all(&text).unwrap();
    assert_eq!((records[0].elapsed, records[0].connect), (2, 4));
}

#[test]
fn a_jmeter_2_layout_without_sent_bytes_or_connect() {
    let text = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,bytes,grpThreads,allThreads,Latency\n1400000000000,5,L,200,OK,T 1-1,text,true,9,1,1,2\n";
    let (records, _) = read_all(text).unwrap();
    assert_eq!(
        (records[0].bytes, records[0].sent_bytes, records[0].connect),
        (9, 0, 0)
    );
}

/// Writes one row per timestamp with `timestamp_format=format` (header included), reads
/// the file back with the same property, and returns (timestamp, elapsed, label) per row.
fn write_and_read(format: &str, stamps: &[i64]) -> Vec<(i64, i64, String)> {
    let props = Properties::new();
    props.set("jmeter.save.saveservice.timestamp_format", format);
    let config = SaveConfig::from_properties(&props).unwrap();
    let mut file = format!("{}\n", csv_header(&config)).into_bytes();
    for (i, stamp) in stamps.iter().enumerate() {
        let mut sample = crate::sample::SampleResult::new(format!("L{i}").into());
        (sample.start_time, sample.end_time, sample.elapsed) = (*stamp, stamp + 7, 7);
        write_csv_sample(&mut file, &config, &sample, "host");
    }
    let text = String::from_utf8(file).unwrap();
    let mut reader =
        JtlReader::new(text.as_bytes(), Path::new("t.jtl"), &config, Some(format)).unwrap();
    let mut rows = Vec::new();
    let mut record = JtlRecord::default();
    while reader
        .next_record(&mut record)
        .unwrap_or_else(|e| panic!("{format}: {e}\n{text}"))
        .is_some()
    {
        rows.push((record.timestamp, record.elapsed, record.label.clone()));
    }
    rows
}

#[test]
fn every_timestamp_format_the_writer_writes_reads_back() {
    // Midday and the last millisecond of a year, in winter and summer time, and a PM hour.
    let stamps = [
        1_551_781_227_191,
        1_704_067_199_999,
        1_718_971_234_567,
        1_719_000_000_001,
    ];
    // (format, precision kept in ms)
    let formats = [
        ("ms", 1),
        ("yyyy-MM-dd'T'HH:mm:ss.SSS", 1),
        ("yyyy/MM/dd HH:mm:ss.SSS Z", 1),
        ("dd MMM yyyy HH:mm:ss", 1000),
        ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", 1),
        ("EEE, d MMMM yy hh:mm:ss.SSS a z", 1),
        ("yyyyMMddHHmmssSSS", 1),
        ("'at' HH'h'mm'm'ss.SSS 'on' dd/MM/yyyy", 1),
        ("EEEE dd-MM-yyyy k:mm:ss", 1000),
    ];
    for (format, precision) in formats {
        let rows = write_and_read(format, &stamps);
        let expected: Vec<(i64, i64, String)> = stamps
            .iter()
            .enumerate()
            .map(|(i, s)| (s - s % precision, 7, format!("L{i}")))
            .collect();
        assert_eq!(rows, expected, "{format}");
    }
}

#[test]
fn a_timestamp_format_java_refuses_names_itself_in_the_error() {
    let text = format!("{HEADER}\n2019-03-05,1,L,200,OK,T 1-1,text,true,,5,6,1,1,null,3,0,4\n");
    let mut reader = JtlReader::new(
        text.as_bytes(),
        Path::new("t.jtl"),
        &save(),
        Some("yyyy-qq"),
    )
    .unwrap();
    let err = reader
        .next_record(&mut JtlRecord::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("t.jtl:2: timeStamp \"2019-03-05\" cannot be read: the timestamp_format \"yyyy-qq\" is not a date pattern: Illegal pattern character 'q'"),
        "{err}"
    );
}

#[test]
fn an_xml_results_file_is_named_as_such() {
    for text in [
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testResults version=\"1.2\">\n</testResults>\n",
        "\u{feff}<testResults version=\"1.2\">\n<httpSample t=\"5\" lb=\"a\"/>\n</testResults>\n",
    ] {
        let err = read_all(text).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            err.starts_with("t.jtl:1: an XML results file")
                && err.contains("jmeter.save.saveservice.output_format=csv"),
            "{err}"
        );
    }
}
