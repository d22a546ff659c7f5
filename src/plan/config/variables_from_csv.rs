//! jmeter-plugins Variables From CSV File (`kg.apc.jmeter.config.VariablesFromCSV`): a
//! file of `name<delimiter>value` lines read once when the plan is built and added to
//! the variables every user starts with, as User Defined Variables are (the plugin is
//! an `Arguments` element that JMeter reads the same way).
//!
//! The lines are read as the plugin reads them: lines after the first `skipLines`,
//! `#` lines skipped, split at every occurrence of the delimiter text (empty fields
//! kept), the first field the name (after `variablesPrefix`) and the second the value,
//! further fields ignored, a line without a delimiter a variable with an empty value.
//! A value that starts with `"` goes on over the following lines up to a line that
//! ends with `"`, the lines joined with `\n`. Values are used as written, without
//! `${...}` evaluation; the file is found as CSV Data Set files are (working folder,
//! then the plan's folder). `storeSysProp` has no meaning without a JVM.

use crate::expr::Template;
use crate::foundation::paths::resolve_input;
use crate::plan::BuildContext;

/// The variables the element defines, in file order (a later line with the same name
/// wins when they are added), or none after a plan error.
pub fn rows(cx: &mut BuildContext<'_>) -> Vec<(String, Template)> {
    let name = cx.raw("filename").unwrap_or("").to_string();
    let delimiter = cx.raw("delimiter").unwrap_or("").to_string();
    let prefix = cx.raw("variablesPrefix").unwrap_or("").to_string();
    let skip = cx
        .raw("skipLines")
        .map_or(0, |s| s.trim().parse().unwrap_or(0));
    if name.contains("${") {
        cx.error("Variables From CSV File: the file name must be plain text (it is read when the plan is built)");
        return Vec::new();
    }
    if name.is_empty() {
        cx.error("Variables From CSV File has no file name");
        return Vec::new();
    }
    if delimiter.is_empty() {
        cx.error("Variables From CSV File: the delimiter cannot be empty");
        return Vec::new();
    }
    let plan_dir = cx.plan_dir();
    let path = resolve_input(&name, &plan_dir);
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(err) => {
            cx.error(format!(
                "Variables From CSV File {name:?} cannot be read (looked in the working folder and {}): {err}",
                plan_dir.display()
            ));
            return Vec::new();
        }
    };
    parse(&text, &prefix, &delimiter, skip)
        .into_iter()
        .map(|(name, value)| (name, Template::literal(&value)))
        .collect()
}

/// The plugin's reading of the file's text.
fn parse(text: &str, prefix: &str, delimiter: &str, skip: usize) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    // A value begun with `"` and not yet ended: its name and the text so far.
    let mut open: Option<(String, String)> = None;
    for line in text.lines().skip(skip) {
        if line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split(delimiter).collect();
        if let [only] = fields[..] {
            match open.as_mut() {
                Some((name, value)) if only.ends_with('"') => {
                    value.push_str(&only[..only.len() - 1]);
                    rows.push((format!("{prefix}{name}"), std::mem::take(value)));
                    open = None;
                }
                Some((_, value)) => {
                    value.push_str(only);
                    value.push('\n');
                }
                None => rows.push((format!("{prefix}{only}"), String::new())),
            }
            continue;
        }
        let (name, value) = (fields[0], fields[1]);
        match value.strip_prefix('"') {
            Some(rest) => open = Some((name.to_string(), format!("{rest}\n"))),
            None => rows.push((format!("{prefix}{name}"), value.to_string())),
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn pairs(rows: &[(String, String)]) -> Vec<(&str, &str)> {
        rows.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect()
    }

    #[test]
    fn names_values_comments_and_short_lines() {
        let text = "header;line\n# comment\nhost;example.test;ignored\nempty;\nalone\n";
        let rows = parse(text, "p_", ";", 1);
        assert_eq!(
            pairs(&rows),
            [("p_host", "example.test"), ("p_empty", ""), ("p_alone", "")]
        );
    }

    #[test]
    fn a_quoted_value_runs_over_lines_until_a_closing_quote() {
        let text = "body,\"first\nsecond\nthird\"\nnext,1\n";
        let rows = parse(text, "", ",", 0);
        assert_eq!(
            pairs(&rows),
            [("body", "first\nsecond\nthird"), ("next", "1")]
        );
    }

    #[test]
    fn the_delimiter_is_text_not_a_pattern() {
        let rows = parse("a||b|c\n", "", "||", 0);
        assert_eq!(pairs(&rows), [("a", "b|c")]);
    }
}
