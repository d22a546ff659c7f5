//! The jp@gc Flexible File Writer's settings, read at plan time: the file, its header
//! and footer, overwrite or append, and the `columns` line compiled once into the
//! pieces each sample's record is made of. The sink that writes the file lives in
//! `results::flexible_file_writer`; the run opens it with the other result files.
//!
//! The plugin's syntax: `columns` with `\t`, `\n`, `\r` written as escapes (`\\` is one
//! backslash) is split on `|`; a piece that names a sample field (`endTime`,
//! `responseCode`, ... including the plugin's spelling `isSuccsessful`) is that field,
//! `variable#N` is the `N`th of the run's `sample_variables`, an empty piece between two
//! bars is a literal `|`, and anything else is written as it stands. Trailing empty
//! pieces disappear, as Java's `split` drops them.

use std::sync::Arc;

use super::BuildContext;
use crate::expr::Template;

pub const CLASS: &str = "kg.apc.jmeter.reporters.FlexibleFileWriter";

/// A sample field the plugin can write, in the plugin's order of names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    IsSuccessful,
    StartTime,
    EndTime,
    SentBytes,
    ReceivedBytes,
    ResponseTime,
    Latency,
    ResponseCode,
    ResponseMessage,
    IsFailed,
    ThreadName,
    SampleLabel,
    StartTimeMillis,
    EndTimeMillis,
    ResponseTimeMicros,
    LatencyMicros,
    RequestData,
    ResponseData,
    ResponseHeaders,
    ThreadsCount,
    RequestHeaders,
    ConnectTime,
    GrpThreads,
    SampleCount,
    ErrorCount,
    ResponseHeaderSize,
    ResponseSize,
    Url,
}

/// The names the plugin accepts, with the field each one writes.
const FIELDS: [(&str, Field); 28] = [
    ("isSuccsessful", Field::IsSuccessful),
    ("startTime", Field::StartTime),
    ("endTime", Field::EndTime),
    ("sentBytes", Field::SentBytes),
    ("receivedBytes", Field::ReceivedBytes),
    ("responseTime", Field::ResponseTime),
    ("latency", Field::Latency),
    ("responseCode", Field::ResponseCode),
    ("responseMessage", Field::ResponseMessage),
    ("isFailed", Field::IsFailed),
    ("threadName", Field::ThreadName),
    ("sampleLabel", Field::SampleLabel),
    ("startTimeMillis", Field::StartTimeMillis),
    ("endTimeMillis", Field::EndTimeMillis),
    ("responseTimeMicros", Field::ResponseTimeMicros),
    ("latencyMicros", Field::LatencyMicros),
    ("requestData", Field::RequestData),
    ("responseData", Field::ResponseData),
    ("responseHeaders", Field::ResponseHeaders),
    ("threadsCount", Field::ThreadsCount),
    ("requestHeaders", Field::RequestHeaders),
    ("connectTime", Field::ConnectTime),
    ("grpThreads", Field::GrpThreads),
    ("sampleCount", Field::SampleCount),
    ("errorCount", Field::ErrorCount),
    ("responseHeaderSize", Field::ResponseHeaderSize),
    ("responseSize", Field::ResponseSize),
    ("URL", Field::Url),
];

/// One piece of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    Field(Field),
    /// The value of the `sample_variables` entry with this index.
    Variable(usize),
    Text(String),
}

/// A Flexible File Writer, as the run opens it.
#[derive(Debug, Clone)]
pub struct FlexibleFileWriterSpec {
    /// Its listener id, in the scope lists of the samplers it records.
    pub id: usize,
    pub path: Arc<str>,
    /// `filename`, evaluated when the run starts.
    pub filename: Template,
    pub overwrite: bool,
    pub header: String,
    pub footer: String,
    pub columns: Vec<Column>,
}

/// Reads the element; a `variable#` piece whose number does not parse is reported as
/// the plugin logs it, and written as text, as the plugin does.
pub fn build(cx: &mut BuildContext<'_>) -> FlexibleFileWriterSpec {
    let raw_columns = cx.raw("columns").unwrap_or("").to_string();
    let columns = compile_columns(&raw_columns);
    for column in &columns {
        if let Column::Text(text) = column {
            if text.contains(VARIABLE_PREFIX) {
                cx.warn(format!(
                    "Seems it is not variable spec: {text} (written as text)"
                ));
            }
        }
    }
    FlexibleFileWriterSpec {
        id: cx.id,
        path: cx.path.clone(),
        filename: cx.template("filename"),
        overwrite: cx.flag("overwrite", false),
        header: replace_escapes(cx.raw("header").unwrap_or("")),
        footer: replace_escapes(cx.raw("footer").unwrap_or("")),
        columns,
    }
}

const VARIABLE_PREFIX: &str = "variable#";

/// The plugin's `compileColumns`.
pub fn compile_columns(raw: &str) -> Vec<Column> {
    let text = replace_escapes(raw);
    let mut pieces: Vec<&str> = text.split('|').collect();
    // Java's split: text without a bar is one piece, even when empty; otherwise the
    // empty pieces at the end go (all of them, when every piece is empty).
    if text.contains('|') {
        while pieces.last() == Some(&"") {
            pieces.pop();
        }
    }
    pieces
        .into_iter()
        .map(|piece| {
            if let Some((_, field)) = FIELDS.iter().find(|(name, _)| *name == piece) {
                return Column::Field(*field);
            }
            if piece.contains(VARIABLE_PREFIX) {
                // The plugin reads the number after the first nine characters, wherever
                // the prefix sits.
                let number = piece.get(VARIABLE_PREFIX.len()..).unwrap_or("");
                return match number.parse::<usize>() {
                    Ok(n) => Column::Variable(n),
                    Err(_) => Column::Text(piece.to_string()),
                };
            }
            if piece.is_empty() {
                Column::Text("|".to_string())
            } else {
                Column::Text(piece.to_string())
            }
        })
        .collect()
}

/// The plugin's `replaceRNT`: `\t`, `\n` and `\r` written as two characters become the
/// control characters, and `\\` one backslash.
pub fn replace_escapes(text: &str) -> String {
    const DOUBLE: &str = "VERY BAD WAY";
    text.replace("\\\\", DOUBLE)
        .replace("\\t", "\t")
        .replace("\\n", "\n")
        .replace("\\r", "\r")
        .replace(DOUBLE, "\\")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_follow_the_plugins_syntax() {
        assert_eq!(
            compile_columns(r"endTime|\t|responseCode||variable#1|x|\r\n|"),
            vec![
                Column::Field(Field::EndTime),
                Column::Text("\t".into()),
                Column::Field(Field::ResponseCode),
                Column::Text("|".into()),
                Column::Variable(1),
                Column::Text("x".into()),
                Column::Text("\r\n".into()),
            ]
        );
        assert_eq!(
            compile_columns("isSuccsessful|variable#x|URL"),
            vec![
                Column::Field(Field::IsSuccessful),
                Column::Text("variable#x".into()),
                Column::Field(Field::Url),
            ]
        );
        // Java's split keeps one empty piece for empty text, and that piece is a bar.
        assert_eq!(compile_columns(""), vec![Column::Text("|".into())]);
        assert_eq!(compile_columns("||"), vec![]);
        assert_eq!(
            compile_columns("|a"),
            vec![Column::Text("|".into()), Column::Text("a".into())]
        );
    }

    #[test]
    fn escapes_are_replaced_as_the_plugin_does() {
        assert_eq!(replace_escapes(r"a\tb\r\nc"), "a\tb\r\nc");
        assert_eq!(replace_escapes(r"a\\tb"), r"a\tb");
    }
}
