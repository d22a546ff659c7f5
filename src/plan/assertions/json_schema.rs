//! JSON Schema Assertion (`org.apache.jmeter.assertions.JSONSchemaAssertion`), the
//! third-party plugin "Custom_JsonSchemaAssertion_component" (kde-intro, v0.4): the
//! response must be valid against a JSON Schema.
//!
//! Its one property, `jsonschema_assertion_filename`, names the schema file or, when the
//! text starts with `{` and names no file, is the schema itself. The plugin validates with
//! fge's json-schema-validator 2.2 (draft 4 unless the schema's `$schema` says draft 3);
//! here the `jsonschema` crate validates, with draft 4 as the default.
//!
//! Verdicts follow the plugin: an empty response is an error ("Response was null"), an
//! empty setting a failure ("FileName is required"), a schema violation an *error* whose
//! message is fge's report text (`ListProcessingReport: failure`, one block per message
//! with its level, schema and instance pointers, domain and keyword). The message texts
//! of the common keywords are fge's; other keywords carry the crate's wording. A response
//! that is not JSON is an error prefixed "(responce) " (sic), a schema that cannot be read
//! a failure prefixed "(schema) ", as the plugin writes them.

use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::Value;

use crate::expr::Template;
use crate::foundation::paths::resolve_input;
use crate::plan::{Assertion, BuildContext};
use crate::sample::AssertionResult;
use crate::sample::SampleResult;
use crate::user_state::EvalContext;

use super::RESPONSE_WAS_NULL;

/// The plugin's message for an empty setting.
const FILE_NAME_IS_REQUIRED: &str = "FileName is required";
/// First line of fge's report when validation fails.
const REPORT_HEADER: &str = "com.github.fge.jsonschema.core.report.ListProcessingReport: failure";

pub struct JsonSchemaAssertion {
    name: Arc<str>,
    schema_source: Template,
    plan_dir: PathBuf,
    /// The last schema compiled, by the setting's evaluated text: the setting is nearly
    /// always constant, so one entry spares a compile per sample.
    compiled: Mutex<Option<(String, Arc<CompiledSchema>)>>,
}

/// A schema read and compiled, or why it could not be.
struct CompiledSchema {
    schema: Value,
    validator: Result<jsonschema::Validator, String>,
}

/// What one check found; `error` is fge's "error" level, else a failure.
struct Verdict {
    message: String,
    error: bool,
}

impl JsonSchemaAssertion {
    pub fn build(cx: &mut BuildContext<'_>) -> JsonSchemaAssertion {
        let schema_source = cx.template("jsonschema_assertion_filename");
        let plan_dir = cx.plan_dir();
        // A schema file that is not there fails every sample, as in the plugin; `check`
        // says so beforehand.
        let source = schema_source.raw();
        if schema_source.is_constant()
            && !source.is_empty()
            && !source.trim_start().starts_with('{')
            && !resolve_input(source, &plan_dir).is_file()
        {
            cx.warn(format!(
                "JSON schema file {source:?} not found (looked in the working folder and {}): \
                 every sample it checks will fail",
                plan_dir.display()
            ));
        }
        JsonSchemaAssertion {
            name: Arc::from(cx.element.name.as_str()),
            schema_source,
            plan_dir,
            compiled: Mutex::new(None),
        }
    }

    fn verdict(&self, result: &SampleResult, cx: &mut EvalContext<'_>) -> Option<Verdict> {
        if result.response_data.is_empty() {
            return Some(Verdict {
                message: RESPONSE_WAS_NULL.to_string(),
                error: true,
            });
        }
        let source = self.schema_source.eval(cx);
        if source.is_empty() {
            return Some(Verdict {
                message: FILE_NAME_IS_REQUIRED.to_string(),
                error: false,
            });
        }
        // The plugin reads the response before the schema, so a bad response wins.
        let text = String::from_utf8_lossy(&result.response_data);
        let instance: Value = match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(err) => {
                return Some(Verdict {
                    message: format!("(responce) {}", json_error_text(&err)),
                    error: true,
                })
            }
        };
        let compiled = match self.schema_for(&source) {
            Ok(compiled) => compiled,
            Err(message) => {
                return Some(Verdict {
                    message: format!("(schema) {message}"),
                    error: false,
                })
            }
        };
        let validator = match &compiled.validator {
            Ok(validator) => validator,
            // fge raises invalid schemas as a fatal processing message: a failure.
            Err(message) => {
                return Some(Verdict {
                    message: message.clone(),
                    error: false,
                })
            }
        };
        let messages = fge_messages(&compiled.schema, validator, &instance);
        (!messages.is_empty()).then(|| Verdict {
            message: format!(
                "{REPORT_HEADER}\n--- BEGIN MESSAGES ---\n{messages}---  END MESSAGES  ---\n"
            ),
            error: true,
        })
    }

    /// The compiled schema for the setting's text, from the one-entry cache when it is the
    /// same text as last time; `Err` is the plugin's message for an unreadable schema.
    fn schema_for(&self, source: &str) -> Result<Arc<CompiledSchema>, String> {
        if let Some((key, compiled)) = &*self.compiled.lock() {
            if key == source {
                return Ok(compiled.clone());
            }
        }
        let compiled = Arc::new(self.load(source)?);
        *self.compiled.lock() = Some((source.to_string(), compiled.clone()));
        Ok(compiled)
    }

    fn load(&self, source: &str) -> Result<CompiledSchema, String> {
        let path = resolve_input(source, &self.plan_dir);
        let inline = source.trim_start().starts_with('{') && !path.is_file();
        let text = if inline {
            source.to_string()
        } else {
            std::fs::read_to_string(&path).map_err(|err| {
                // Java's FileNotFoundException text.
                let why = match err.kind() {
                    std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
                    std::io::ErrorKind::PermissionDenied => "Permission denied".to_string(),
                    _ => err.to_string(),
                };
                format!("{source} ({why})")
            })?
        };
        let schema: Value = serde_json::from_str(&text).map_err(|err| json_error_text(&err))?;
        // fge reads a schema without `$schema` as draft 4; with one, the draft it names.
        let mut options = jsonschema::options();
        if schema.get("$schema").is_none() {
            options = options.with_draft(jsonschema::Draft::Draft4);
        }
        let validator = options.build(&schema).map_err(|err| {
            format!(
                "fatal: invalid JSON Schema, cannot continue\nSyntax errors:\n{err}\n    \
                     level: \"fatal\""
            )
        });
        Ok(CompiledSchema { schema, validator })
    }
}

impl Assertion for JsonSchemaAssertion {
    fn apply(&self, result: &mut SampleResult, cx: &mut EvalContext<'_>) {
        let verdict = self.verdict(result, cx);
        if verdict.is_some() {
            result.set_success(false);
        }
        let (failure, error, failure_message) = match verdict {
            None => (false, false, None),
            Some(Verdict { message, error }) => (!error, error, Some(message)),
        };
        result.assertions.push(AssertionResult {
            name: self.name.clone(),
            failure,
            error,
            failure_message,
        });
    }
}

/// A JSON syntax error the way Jackson starts its messages; the position follows as
/// serde reports it (Jackson names the source and counts columns from 1 too).
fn json_error_text(err: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let what = match err.classify() {
        Category::Eof => "Unexpected end-of-input".to_string(),
        _ => {
            let text = err.to_string();
            let detail = text.split(" at line ").next().unwrap_or(&text).to_string();
            if detail.contains("trailing characters") {
                "input has trailing data after first JSON Text".to_string()
            } else {
                format!("Unexpected character: {detail}")
            }
        }
    };
    format!(
        "{what}\n at [Source: (String); line: {}, column: {}]",
        err.line(),
        err.column()
    )
}

/// fge's message blocks for every violation, in the crate's order. Consecutive `required`
/// violations on one object merge into one block, as fge lists all missing members at once.
fn fge_messages(schema: &Value, validator: &jsonschema::Validator, instance: &Value) -> String {
    let mut blocks: Vec<FgeMessage> = Vec::new();
    for error in validator.iter_errors(instance) {
        let message = FgeMessage::from_error(schema, &error);
        if let Some(last) = blocks.last_mut() {
            if last.merge_required(&message) {
                continue;
            }
        }
        blocks.push(message);
    }
    blocks.iter().map(FgeMessage::render).collect()
}

/// One `ProcessingMessage` of fge's report.
struct FgeMessage {
    keyword: String,
    /// Pointer to the schema holding the keyword (fge's `schema.pointer`).
    schema_pointer: String,
    instance_pointer: String,
    text: String,
    /// The keyword's own fields after the common ones, already as JSON text.
    fields: Vec<(&'static str, String)>,
    /// For `required`: the members missing, to merge and reword.
    missing: Vec<Value>,
}

impl FgeMessage {
    fn from_error(schema: &Value, error: &jsonschema::ValidationError<'_>) -> FgeMessage {
        use jsonschema::error::ValidationErrorKind as Kind;
        let schema_path = error.schema_path().to_string();
        let keyword_value = schema.pointer(&schema_path).cloned().unwrap_or(Value::Null);
        let instance = error.instance().as_ref();
        let kind = error.kind();
        let keyword = kind.keyword().to_string();
        let schema_pointer = holder_pointer(&schema_path, &keyword);
        let mut fields = Vec::new();
        let mut missing = Vec::new();
        let text = match kind {
            Kind::Type { .. } => {
                let found = fge_type(instance);
                let expected = expected_types(&keyword_value);
                fields.push(("found", json(&Value::from(found))));
                fields.push(("expected", expected.clone()));
                format!(
                    "instance type ({found}) does not match any allowed primitive type \
                     (allowed: {expected})"
                )
            }
            Kind::Required { property } => {
                missing.push(property.clone());
                String::new()
            }
            Kind::Enum { .. } => {
                fields.push(("value", json(instance)));
                fields.push(("enum", json(&keyword_value)));
                format!(
                    "instance value ({}) not found in enum (possible values: {})",
                    json(instance),
                    json(&keyword_value)
                )
            }
            Kind::MinLength { limit } | Kind::MaxLength { limit } => {
                let found = instance.as_str().map_or(0, |s| s.encode_utf16().count());
                let value = instance.as_str().unwrap_or_default();
                fields.push(("value", json(instance)));
                fields.push(("found", found.to_string()));
                let too_short = matches!(kind, Kind::MinLength { .. });
                fields.push((
                    if too_short { "minLength" } else { "maxLength" },
                    limit.to_string(),
                ));
                if too_short {
                    format!(
                        "string \"{value}\" is too short (length: {found}, required minimum: {limit})"
                    )
                } else {
                    format!(
                        "string \"{value}\" is too long (length: {found}, maximum allowed: {limit})"
                    )
                }
            }
            Kind::MinItems { limit } | Kind::MaxItems { limit } => {
                let found = instance.as_array().map_or(0, Vec::len);
                let too_short = matches!(kind, Kind::MinItems { .. });
                fields.push((
                    if too_short { "minItems" } else { "maxItems" },
                    limit.to_string(),
                ));
                fields.push(("found", found.to_string()));
                if too_short {
                    format!(
                        "array is too short: must have at least {limit} elements but instance \
                         has {found} elements"
                    )
                } else {
                    format!(
                        "array is too long: must have at most {limit} elements but instance \
                         has {found} elements"
                    )
                }
            }
            Kind::Minimum { limit } | Kind::Maximum { limit } => {
                let low = matches!(kind, Kind::Minimum { .. });
                let name = if low { "minimum" } else { "maximum" };
                fields.push((name, json(limit)));
                fields.push(("found", json(instance)));
                let relation = if low {
                    "lower than the required minimum"
                } else {
                    "greater than the required maximum"
                };
                format!(
                    "numeric instance is {relation} ({name}: {}, found: {})",
                    json(limit),
                    json(instance)
                )
            }
            Kind::Pattern { pattern } => {
                let value = instance.as_str().unwrap_or_default();
                fields.push(("regex", json(&Value::from(pattern.as_str()))));
                fields.push(("string", json(instance)));
                format!("ECMA 262 regex \"{pattern}\" does not match input string \"{value}\"")
            }
            Kind::AdditionalProperties { unexpected } => {
                let unwanted = json(&Value::from(unexpected.clone()));
                fields.push(("unwanted", unwanted.clone()));
                format!("object instance has properties which are not allowed by the schema: {unwanted}")
            }
            Kind::UniqueItems => "array must not contain duplicate elements".to_string(),
            Kind::Not { .. } => "instance matched a schema which it should not have".to_string(),
            _ => error.to_string(),
        };
        FgeMessage {
            keyword,
            schema_pointer,
            instance_pointer: error.instance_path().to_string(),
            text,
            fields,
            missing,
        }
        .finish_required(&keyword_value)
    }

    /// Fills the text and fields of a `required` message from its missing members.
    fn finish_required(mut self, required: &Value) -> FgeMessage {
        if self.keyword == "required" {
            let missing = json(&Value::from(self.missing.clone()));
            self.text = format!("object has missing required properties ({missing})");
            self.fields = vec![("required", json(required)), ("missing", missing)];
        }
        self
    }

    /// Folds `next` into this message when both are `required` on the same object.
    fn merge_required(&mut self, next: &FgeMessage) -> bool {
        let same = self.keyword == "required"
            && next.keyword == "required"
            && self.schema_pointer == next.schema_pointer
            && self.instance_pointer == next.instance_pointer;
        if same {
            let required = self.fields[0].1.clone();
            self.missing.extend(next.missing.iter().cloned());
            let missing = json(&Value::from(self.missing.clone()));
            self.text = format!("object has missing required properties ({missing})");
            self.fields = vec![("required", required), ("missing", missing)];
        }
        same
    }

    /// `ProcessingMessage.toString`: level and message, then each field indented.
    fn render(&self) -> String {
        let mut out = format!(
            "error: {}\n    level: \"error\"\n    schema: {{\"loadingURI\":\"#\",\"pointer\":{}}}\n    \
             instance: {{\"pointer\":{}}}\n    domain: \"validation\"\n    keyword: {}\n",
            self.text,
            json(&Value::from(self.schema_pointer.as_str())),
            json(&Value::from(self.instance_pointer.as_str())),
            json(&Value::from(self.keyword.as_str())),
        );
        for (name, value) in &self.fields {
            out.push_str(&format!("    {name}: {value}\n"));
        }
        out
    }
}

/// The pointer of the schema object holding `keyword`: the keyword's path without the
/// keyword (and whatever index follows it, as in `/required/0`).
fn holder_pointer(schema_path: &str, keyword: &str) -> String {
    let marker = format!("/{keyword}");
    match schema_path.rfind(&marker) {
        Some(at)
            if schema_path[at + marker.len()..].is_empty()
                || schema_path[at + marker.len()..].starts_with('/') =>
        {
            schema_path[..at].to_string()
        }
        _ => schema_path
            .rsplit_once('/')
            .map_or(String::new(), |(head, _)| head.to_string()),
    }
}

/// fge's name for a value's type; integral numbers are "integer".
fn fge_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The allowed types as fge lists them: a JSON array, sorted by name.
fn expected_types(type_keyword: &Value) -> String {
    let mut names: Vec<&str> = match type_keyword {
        Value::String(name) => vec![name.as_str()],
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    names.sort_unstable();
    names.dedup();
    json(&Value::from(names))
}

/// Compact JSON text, as Jackson's `JsonNode.toString` writes it.
fn json(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::assertions::test_support::*;

    fn check(schema: &str, body: &str) -> AssertionResult {
        let el = element(
            "JSONSchemaAssertion",
            "S",
            vec![str_prop("jsonschema_assertion_filename", schema)],
        );
        let (assertion, diagnostics) = build_with_diagnostics(&el, JsonSchemaAssertion::build);
        // Only a constant file name that is not there draws a (build-time) warning.
        let missing_file = !schema.is_empty() && !schema.starts_with('{');
        assert_eq!(
            diagnostics.len(),
            usize::from(missing_file),
            "{diagnostics:?}"
        );
        let mut result = sample(1);
        result.set_success(true);
        result.response_data = body.as_bytes().to_vec();
        run(&assertion, &mut result);
        assert_eq!(
            result.success,
            result.assertions[0].failure_message.is_none()
        );
        result.assertions[0].clone()
    }

    const SCHEMA: &str = r#"{"type":"object","required":["id","name"],
        "properties":{"id":{"type":"integer","minimum":1},"tags":{"type":"array","maxItems":1}}}"#;

    #[test]
    fn valid_responses_pass() {
        let verdict = check(SCHEMA, r#"{"id":3,"name":"x","tags":["a"]}"#);
        assert!(!verdict.failure && !verdict.error);
    }

    #[test]
    fn violations_are_errors_with_fge_report() {
        let verdict = check(SCHEMA, r#"{"id":"7"}"#);
        assert!(verdict.error && !verdict.failure);
        let message = verdict.failure_message.unwrap();
        assert!(message.starts_with(
            "com.github.fge.jsonschema.core.report.ListProcessingReport: failure\n--- BEGIN MESSAGES ---\n"
        ));
        assert!(message.ends_with("---  END MESSAGES  ---\n"));
        assert!(message.contains(
            "error: object has missing required properties ([\"name\"])\n    level: \"error\"\n    \
             schema: {\"loadingURI\":\"#\",\"pointer\":\"\"}\n    instance: {\"pointer\":\"\"}\n    \
             domain: \"validation\"\n    keyword: \"required\"\n    required: [\"id\",\"name\"]\n    \
             missing: [\"name\"]\n"
        ), "{message}");
        assert!(message.contains(
            "error: instance type (string) does not match any allowed primitive type (allowed: [\"integer\"])\n    \
             level: \"error\"\n    schema: {\"loadingURI\":\"#\",\"pointer\":\"/properties/id\"}\n    \
             instance: {\"pointer\":\"/id\"}\n    domain: \"validation\"\n    keyword: \"type\"\n    \
             found: \"string\"\n    expected: [\"integer\"]\n"
        ), "{message}");
    }

    #[test]
    fn missing_members_merge_into_one_message() {
        let message = check(SCHEMA, "{}").failure_message.unwrap();
        assert!(
            message.contains("missing required properties ([\"id\",\"name\"])"),
            "{message}"
        );
        assert_eq!(
            message.matches("keyword: \"required\"").count(),
            1,
            "{message}"
        );
    }

    #[test]
    fn plugin_messages_for_bad_input() {
        let empty = check(SCHEMA, "");
        assert!(empty.error);
        assert_eq!(empty.failure_message.as_deref(), Some("Response was null"));
        let unset = check("", "{}");
        assert!(unset.failure && !unset.error);
        assert_eq!(
            unset.failure_message.as_deref(),
            Some("FileName is required")
        );
        let not_json = check(SCHEMA, "{oops");
        assert!(not_json.error);
        assert!(not_json
            .failure_message
            .unwrap()
            .starts_with("(responce) Unexpected character"));
        let no_file = check("/no/such/schema.json", "{}");
        assert!(no_file.failure && !no_file.error);
        assert_eq!(
            no_file.failure_message.as_deref(),
            Some("(schema) /no/such/schema.json (No such file or directory)")
        );
    }

    #[test]
    fn the_draft_is_4_unless_the_schema_names_one() {
        // `const` is not a draft 4 keyword: ignored there, checked in draft 7.
        let draft4 = check(r#"{"const":1}"#, "2");
        assert!(!draft4.failure && !draft4.error);
        let draft7 = check(
            r#"{"$schema":"http://json-schema.org/draft-07/schema#","const":1}"#,
            "2",
        );
        assert!(draft7.error, "{draft7:?}");
    }

    #[test]
    fn holder_pointer_drops_the_keyword() {
        assert_eq!(
            holder_pointer("/properties/id/type", "type"),
            "/properties/id"
        );
        assert_eq!(holder_pointer("/required", "required"), "");
        assert_eq!(holder_pointer("/required/1", "required"), "");
        assert_eq!(
            holder_pointer("/properties/type/type", "type"),
            "/properties/type"
        );
    }
}
