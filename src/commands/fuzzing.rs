//! Entry points of the fuzz targets (`fuzz/`, see `docs/fuzzing.md`): each takes the
//! fuzzer's bytes and hands them to the parsers a user's input reaches, as a run would,
//! and ignores the outcome: a target fails only by panicking, hanging or allocating
//! without bound. They sit at the top of the layers so that they can reach every parser,
//! and live in the library so that `tests/fuzz_regressions.rs` replays the kept inputs
//! through the same code on stable Rust.
//!
//! Where a target's input is a choice plus text, the first byte chooses (modulo the
//! number of choices) and the rest, read as UTF-8 with invalid bytes replaced, is the text.
//! Nothing here runs a plan, opens a socket or writes outside its own temporary folder.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::expr::{condition, FunctionRegistry, Template};
use crate::foundation::java_format::{DecimalFormat, Dialect, JavaDateFormat};
use crate::foundation::properties::Properties;
use crate::jmx::{self, Element, PropValue, Property};
use crate::plan::config::csv_file::{CsvFile, Encoding, Split};
use crate::query::jmespath::JmesPath;
use crate::query::jsonpath::JsonPath;
use crate::query::xml_load::{self, ParseOptions};
use crate::query::{css_select::Selector, html_parse, xpath, xpath_parse::Version};
use crate::results::{JtlRecord, ResultsReader, SaveConfig};
use crate::samplers::http::replay::replay;
use crate::script::translate::{translate, SourceLanguage};

/// The names of the targets, as `cargo fuzz list` shows them and as the folders of
/// `fuzz/regressions/` are named.
pub const TARGETS: [&str; 6] = [
    "jmx_plan",
    "expressions",
    "data_files",
    "http_response",
    "queries",
    "script_translation",
];

/// Runs the target named `name` on `data`; `false` when there is no such target.
pub fn run_target(name: &str, data: &[u8]) -> bool {
    match name {
        "jmx_plan" => jmx_plan(data),
        "expressions" => expressions(data),
        "data_files" => data_files(data),
        "http_response" => http_response(data),
        "queries" => queries(data),
        "script_translation" => script_translation(data),
        _ => return false,
    }
    true
}

/// The `.jmx` loader, the structural rewrites (Include and Module Controllers) and the
/// plan builder, on a plan file in the temporary folder. Any property naming an existing
/// file outside that folder is replaced first, so that the builder's reads of CSV files,
/// scripts and included plans stay inside it.
pub fn jmx_plan(data: &[u8]) {
    let dir = sandbox();
    let text = String::from_utf8_lossy(data);
    let Ok(mut tree) = jmx::load_str(&text, &dir.join("plan.jmx")) else {
        return;
    };
    confine_elements(&mut tree.roots, dir);
    if jmx::rewrite::apply(&mut tree).is_err() {
        return;
    }
    let _ = crate::assemble::build(&tree, functions());
}

/// `${...}` templates with every function's argument parsing (0), If/While conditions
/// (1), Java date patterns in both dialects, formatting a fixed instant and reading text
/// back (2: pattern, a line break, text), and `DecimalFormat` patterns (3).
pub fn expressions(data: &[u8]) {
    let (choice, text) = split_choice(data);
    match choice % 4 {
        0 => {
            let _ = Template::compile(&text, functions());
        }
        1 => {
            let _ = condition::check_syntax(&text);
            let _ = condition::evaluate(&text);
        }
        2 => {
            let (pattern, written) = text.split_once('\n').unwrap_or((&text, ""));
            for dialect in [Dialect::SimpleDateFormat, Dialect::DateTimeFormatter] {
                if let Ok(format) = JavaDateFormat::compile(pattern, dialect) {
                    let formatted = format.format_local(1_700_000_000_123);
                    let _ = format.read(&formatted);
                    let _ = format.read(written);
                }
            }
        }
        _ => {
            if let Some(format) = DecimalFormat::parse(&text) {
                for value in [0, -1, 42, i64::MIN, i64::MAX] {
                    let _ = format.format(value);
                }
            }
        }
    }
}

/// Data files: a CSV Data Set file (0: quoted with `,`, 1: plain with `,`, 2: quoted
/// with a header line, 3: Latin-1, plain with `;`), read record by record with
/// recycling off; and a CSV `.jtl` (4: the first line is `timestamp_format`, the rest the
/// file) read to its end as `-g` does.
pub fn data_files(data: &[u8]) {
    let Some((&choice, rest)) = data.split_first() else {
        return;
    };
    match choice % 5 {
        4 => read_jtl(rest),
        mode => read_csv_data_set(mode, rest),
    }
}

/// The HTTP/1.1 response reader and the result filling (status line, headers, framing,
/// chunks, gzip/deflate/brotli decoding) on the bytes a server sent. The first byte
/// chooses the request method (bit 0: `HEAD`, else `GET`) and how many bytes each read
/// of the connection gives (bits 1–4: 1 to 15, 0 meaning all at once); the body limit is
/// 1 MB, so that a decompression bomb is met quickly.
pub fn http_response(data: &[u8]) {
    let Some((&choice, wire)) = data.split_first() else {
        return;
    };
    let method = if choice & 1 == 1 { "HEAD" } else { "GET" };
    let step = usize::from((choice >> 1) & 0x0f);
    let mut wire = Trickle {
        data: wire,
        step: if step == 0 { usize::MAX } else { step },
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(_) => return,
    };
    runtime.block_on(replay(&mut wire, method, 1 << 20));
}

/// Query languages, compiled and then evaluated on a small fixed document: JSONPath (0),
/// JMESPath (1), XPath 1 (2), XPath 2 (3), CSS selectors (4). The documents themselves
/// are also parsed from the fuzzer's text with a fixed query: JSON (5), XML (6), HTML
/// as the tolerant XPath parser and CSS selectors read it (7).
pub fn queries(data: &[u8]) {
    let (choice, text) = split_choice(data);
    match choice % 8 {
        0 => {
            if let Ok(path) = JsonPath::compile(&text) {
                let _ = path.select_text(JSON_DOCUMENT);
                let _ = path.read_text(JSON_DOCUMENT);
            }
        }
        1 => {
            if let (Ok(path), Ok(document)) = (
                JmesPath::compile(&text),
                serde_json::from_str(JSON_DOCUMENT),
            ) {
                let _ = path.search(&document);
            }
        }
        2 | 3 => {
            let version = if choice % 8 == 2 {
                Version::One
            } else {
                Version::Two
            };
            if let (Ok(path), Ok(dom)) = (
                xpath::XPath::compile(&text, version),
                xml_load::load(XML_DOCUMENT, ParseOptions::default()),
            ) {
                let _ = path.evaluate(&dom, &[]);
            }
        }
        4 => {
            if let Ok(selector) = Selector::parse(&text) {
                let _ = selector.select(&html_parse::parse_html(HTML_DOCUMENT).dom);
            }
        }
        5 => {
            if let Ok(path) = JsonPath::compile("$..*") {
                let _ = path.select_text(&text);
            }
            if let Ok(path) = JsonPath::compile("$.a[0].b") {
                let _ = path.read_text(&text);
            }
        }
        6 => {
            let options = ParseOptions {
                namespace: true,
                ..ParseOptions::default()
            };
            if let (Ok(dom), Ok(path)) = (
                xml_load::load(&text, options),
                xpath::XPath::compile("//*[@id]/text()", Version::One),
            ) {
                let _ = path.evaluate(&dom, &[]);
            }
        }
        _ => {
            let options = ParseOptions {
                tolerant: true,
                ..ParseOptions::default()
            };
            let _ = xml_load::load(&text, options);
            if let Ok(selector) = Selector::parse("div > a[href], p:contains(x)") {
                let _ = selector.select(&html_parse::parse_html(&text).dom);
            }
        }
    }
}

/// The translator into Rhai from Groovy (0), Java (1), BeanShell (2), JavaScript (3)
/// and JEXL (4).
pub fn script_translation(data: &[u8]) {
    let (choice, text) = split_choice(data);
    let language = match choice % 5 {
        0 => SourceLanguage::Groovy,
        1 => SourceLanguage::Java,
        2 => SourceLanguage::BeanShell,
        3 => SourceLanguage::JavaScript,
        _ => SourceLanguage::Jexl,
    };
    let _ = translate(language, &text);
}

/// The document the JSONPath and JMESPath targets query.
const JSON_DOCUMENT: &str = r#"{"a":[{"b":1,"c":"x"},{"b":2.5,"c":null,"d":[true,false]}],
"e":{"f":{"g":"h","i":[1,2,3]}},"name":"jmxr","n":-3,"empty":[],"obj":{}}"#;

/// The document the XPath target queries.
const XML_DOCUMENT: &str = r#"<?xml version="1.0"?>
<root xmlns:p="urn:p"><a id="1" p:k="v">text<b>1</b><b>2</b></a><p:c>x</p:c>
<!-- note --><?pi data?><d><![CDATA[<raw>]]></d></root>"#;

/// The document the CSS selector target queries.
const HTML_DOCUMENT: &str = r#"<!DOCTYPE html><html><head><title>t</title></head><body>
<div id="main" class="a b"><p lang="en">one <a href="/x">link</a></p><p>two</p>
<ul><li>1</li><li class="odd">2</li><li>3</li></ul><input name="n" value="v"></div>
</body></html>"#;

fn read_csv_data_set(mode: u8, content: &[u8]) {
    let path = sandbox().join("data.csv");
    if std::fs::write(&path, content).is_err() {
        return;
    }
    let (split, header, encoding) = match mode {
        0 => (Split::Quoted(','), false, Encoding::Utf8),
        1 => (Split::Plain(",".into()), false, Encoding::Utf8),
        2 => (Split::Quoted(','), true, Encoding::Utf8),
        _ => (Split::Plain(";".into()), false, Encoding::Latin1),
    };
    let Ok(mut file) = CsvFile::open(&path, encoding, header) else {
        return;
    };
    // A record per line at most, and one more for the end.
    for _ in 0..=content.len() {
        match file.next_record(false, header, &split) {
            Ok(fields) if !fields.is_empty() => {}
            _ => break,
        }
    }
}

fn read_jtl(content: &[u8]) {
    let (format, file) = match content.iter().position(|&b| b == b'\n') {
        Some(end) => (&content[..end], &content[end + 1..]),
        None => (content, &[][..]),
    };
    let format = String::from_utf8_lossy(format);
    let format = (!format.is_empty()).then_some(format.as_ref());
    let Ok(save) = SaveConfig::from_properties(&Properties::new()) else {
        return;
    };
    let Ok(mut reader) = ResultsReader::open(file, Path::new("fuzz.jtl"), &save, format) else {
        return;
    };
    reader.want_variables(&["var".to_string(), "Latency".to_string()]);
    let mut record = JtlRecord::default();
    for _ in 0..=file.len() {
        match reader.next_record(&mut record) {
            Ok(Some(())) => {}
            _ => break,
        }
    }
}

/// A connection that gives its bytes `step` at a time, as a slow server's packets come.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl tokio::io::AsyncRead for Trickle<'_> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let n = self.data.len().min(self.step).min(buf.remaining());
        let (now, later) = self.data.split_at(n);
        buf.put_slice(now);
        self.data = later;
        std::task::Poll::Ready(Ok(()))
    }
}

/// The first byte and the rest as text.
fn split_choice(data: &[u8]) -> (u8, String) {
    match data.split_first() {
        Some((&choice, rest)) => (choice, String::from_utf8_lossy(rest).into_owned()),
        None => (0, String::new()),
    }
}

fn functions() -> &'static FunctionRegistry {
    static FUNCTIONS: OnceLock<FunctionRegistry> = OnceLock::new();
    FUNCTIONS.get_or_init(crate::script::function_registry)
}

/// This process's temporary folder: the plan's folder of [`jmx_plan`] and where data
/// files are written.
fn sandbox() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("jmxr-fuzz-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        dir
    })
}

/// What a property naming a file outside the sandbox is replaced with.
const CONFINED: &str = "outside-the-fuzzing-folder";

fn confine_elements(elements: &mut [Element], dir: &Path) {
    for element in elements {
        confine_props(&mut element.props, dir);
        confine_elements(&mut element.children, dir);
    }
}

fn confine_props(props: &mut [Property], dir: &Path) {
    for prop in props {
        match &mut prop.value {
            PropValue::Scalar { text, .. } => confine(text, dir),
            PropValue::Element { props, .. } => confine_props(props, dir),
            PropValue::Collection(items) | PropValue::Map(items) => confine_props(items, dir),
            PropValue::Object { fields, .. } => {
                for (_, text) in fields {
                    confine(text, dir);
                }
            }
        }
    }
}

/// Replaces `text` when it names something that exists outside `dir`, as given (from the
/// working folder) or from `dir`.
fn confine(text: &mut String, dir: &Path) {
    let name = text.trim();
    if name.is_empty() || name.contains('\0') {
        return;
    }
    let outside = |path: &Path| {
        path.exists()
            && !path
                .canonicalize()
                .is_ok_and(|real| dir.canonicalize().is_ok_and(|d| real.starts_with(d)))
    };
    if outside(Path::new(name)) || outside(&dir.join(name)) {
        *text = CONFINED.to_string();
    }
}
