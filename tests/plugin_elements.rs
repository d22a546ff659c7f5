//! Third-party plugin elements, end to end: the JSON Schema Assertion.

mod support;

use support::{run_fixture, Jtl};

/// (success, failureMessage) of the only row with this label.
fn verdict<'a>(jtl: &'a Jtl, label: &str) -> (&'a str, &'a str) {
    let row = jtl.one(label);
    (jtl.get(row, "success"), jtl.get(row, "failureMessage"))
}

#[test]
fn json_schema_assertion_judges_responses_against_the_schema() {
    let jtl = run_fixture("plugins/json_schema_assertion.jmx", &[]);
    assert_eq!(verdict(&jtl, "valid"), ("true", ""));
    let (success, message) = verdict(&jtl, "violation");
    assert_eq!(success, "false");
    assert_eq!(
        message,
        "com.github.fge.jsonschema.core.report.ListProcessingReport: failure\n\
         --- BEGIN MESSAGES ---\n\
         error: object has missing required properties ([\"name\"])\n    \
         level: \"error\"\n    \
         schema: {\"loadingURI\":\"#\",\"pointer\":\"\"}\n    \
         instance: {\"pointer\":\"\"}\n    \
         domain: \"validation\"\n    \
         keyword: \"required\"\n    \
         required: [\"id\",\"name\"]\n    \
         missing: [\"name\"]\n\
         error: instance type (string) does not match any allowed primitive type (allowed: [\"integer\"])\n    \
         level: \"error\"\n    \
         schema: {\"loadingURI\":\"#\",\"pointer\":\"/properties/id\"}\n    \
         instance: {\"pointer\":\"/id\"}\n    \
         domain: \"validation\"\n    \
         keyword: \"type\"\n    \
         found: \"string\"\n    \
         expected: [\"integer\"]\n\
         ---  END MESSAGES  ---\n"
    );
    // An inline schema, its variables evaluated per sample.
    let (success, message) = verdict(&jtl, "inline-object");
    assert_eq!(success, "false");
    assert!(
        message.contains("instance type (array) does not match any allowed primitive type (allowed: [\"object\"])"),
        "{message}"
    );
    let (success, message) = verdict(&jtl, "not-json");
    assert_eq!(success, "false");
    assert!(
        message.starts_with("(responce) Unexpected character"),
        "{message}"
    );
    assert_eq!(
        verdict(&jtl, "no-schema-file"),
        (
            "false",
            "(schema) missing.schema.json (No such file or directory)"
        )
    );
}
