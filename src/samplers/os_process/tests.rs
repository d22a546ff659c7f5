//! OS Process Sampler tests; they run real Unix programs (`sh`, `printenv`, `sleep`, `cat`).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::*;
use crate::foundation::properties::Properties;
use crate::jmx::{Element, Property};
use crate::samplers::test_support::*;

/// An OS Process Sampler running `command args..` with extra properties.
fn os_sampler(command: &str, args: &[&str], extra: Vec<Property>) -> Element {
    let rows: Vec<(&str, &str)> = args.iter().map(|a| ("", *a)).collect();
    let mut props = vec![
        bool_prop("SystemSampler.checkReturnCode", false),
        string_prop("SystemSampler.expectedReturnCode", "0"),
        string_prop("SystemSampler.command", command),
        arguments_prop("SystemSampler.arguments", &rows),
        arguments_prop("SystemSampler.environment", &[]),
        string_prop("SystemSampler.directory", ""),
    ];
    props.retain(|p| !extra.iter().any(|e| e.name == p.name));
    props.extend(extra);
    element("SystemSampler", "SystemSamplerGui", "OSPS", props)
}

fn body(result: &SampleResult) -> String {
    String::from_utf8_lossy(&result.response_data).into_owned()
}

#[tokio::test]
async fn captures_stdout_and_stderr_in_order_and_reports_the_exit_code() {
    let element = os_sampler("sh", &["-c", "echo out; echo err 1>&2; exit 3"], vec![]);
    let result = build_and_sample(&element).await;
    assert_eq!(result.response_code, "3");
    assert_eq!(result.response_message, "OK");
    assert!(result.success, "return code not checked");
    assert_eq!(body(&result), "out\nerr\n");
    assert_eq!(result.data_type, "text");
    assert_eq!(&*result.label, "OSPS");
}

#[tokio::test]
async fn an_unexpected_return_code_fails_when_checked() {
    let element = os_sampler(
        "sh",
        &["-c", "exit 2"],
        vec![bool_prop("SystemSampler.checkReturnCode", true)],
    );
    let result = build_and_sample(&element).await;
    assert_eq!(result.response_code, "2");
    assert_eq!(
        result.response_message,
        "Unexpected return code.  Expected [0]. Actual [2]."
    );
    assert!(!result.success);
    assert_eq!(result.error_count, 1);
}

#[tokio::test]
async fn passes_the_environment_and_describes_the_call() {
    let element = os_sampler(
        "printenv",
        &["MY_ENV_PROP"],
        vec![
            bool_prop("SystemSampler.checkReturnCode", true),
            arguments_prop("SystemSampler.environment", &[("MY_ENV_PROP", "TEST")]),
        ],
    );
    let result = build_and_sample(&element).await;
    assert_eq!(body(&result), "TEST\n");
    assert!(result.success);
    let cwd = std::env::current_dir().expect("cwd");
    assert_eq!(
        result.sampler_data,
        format!(
            "Working Directory: {}\nEnvironment: {{MY_ENV_PROP=TEST}}\nExecuting: printenv MY_ENV_PROP",
            cwd.display()
        )
    );
}

#[tokio::test]
async fn a_timeout_kills_the_process_and_fails_with_code_500() {
    let element = os_sampler(
        "sleep",
        &["5"],
        vec![
            bool_prop("SystemSampler.checkReturnCode", true),
            long_prop("SystemSampler.timeout", 300),
        ],
    );
    let result = build_and_sample(&element).await;
    assert_eq!(result.response_code, "500");
    assert_eq!(
        result.response_message,
        "Process timeout reached after 300 milliseconds"
    );
    assert!(!result.success);
    assert!(result.elapsed >= 300, "elapsed {}", result.elapsed);
    assert!(result.elapsed < 3000, "elapsed {}", result.elapsed);
}

#[tokio::test]
async fn a_stop_now_kills_the_process() {
    let element = os_sampler("sleep", &["5"], vec![]);
    let (sampler, _) = build_element(&element, &[]);
    let token = CancellationToken::new();
    let mut user = user_with(Properties::new(), token.clone());
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        token.cancel();
    });
    let result = sample(sampler.expect("built").as_ref(), &mut user, "OSPS")
        .await
        .expect("sampled");
    assert_eq!(result.response_code, "500");
    assert!(result
        .response_message
        .starts_with("System Sampler interrupted"));
    assert!(result.elapsed < 3000, "elapsed {}", result.elapsed);
}

#[tokio::test]
async fn runs_in_the_configured_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().to_str().expect("utf-8 path");
    let element = os_sampler(
        "pwd",
        &["-P"],
        vec![string_prop("SystemSampler.directory", path)],
    );
    let result = build_and_sample(&element).await;
    let expected = dir.path().canonicalize().expect("canonical");
    assert_eq!(body(&result).trim_end(), expected.display().to_string());
    assert!(result
        .sampler_data
        .starts_with(&format!("Working Directory: {path}\n")));
}

#[tokio::test]
async fn redirects_stdin_stdout_and_stderr_to_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in.txt");
    let output = dir.path().join("out.txt");
    let errors = dir.path().join("err.txt");
    std::fs::write(&input, "hello\n").expect("write input");
    let element = os_sampler(
        "sh",
        &["-c", "cat; echo oops 1>&2"],
        vec![
            string_prop("SystemSampler.stdin", input.to_str().expect("utf-8")),
            string_prop("SystemSampler.stdout", output.to_str().expect("utf-8")),
            string_prop("SystemSampler.stderr", errors.to_str().expect("utf-8")),
        ],
    );
    let result = build_and_sample(&element).await;
    assert_eq!(result.response_code, "0");
    assert!(result.response_data.is_empty(), "stdout went to the file");
    assert_eq!(std::fs::read_to_string(&output).expect("out"), "hello\n");
    assert_eq!(std::fs::read_to_string(&errors).expect("err"), "oops\n");
}

#[tokio::test]
async fn stderr_follows_a_redirected_stdout_when_not_redirected_itself() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = dir.path().join("out.txt");
    let element = os_sampler(
        "sh",
        &["-c", "echo a; echo b 1>&2"],
        vec![string_prop(
            "SystemSampler.stdout",
            output.to_str().expect("utf-8"),
        )],
    );
    let result = build_and_sample(&element).await;
    assert!(result.response_data.is_empty());
    assert_eq!(std::fs::read_to_string(&output).expect("out"), "a\nb\n");
}

#[tokio::test]
async fn a_missing_program_fails_with_javas_message() {
    let element = os_sampler("jmxr-no-such-program", &[], vec![]);
    let result = build_and_sample(&element).await;
    assert_eq!(result.response_code, "500");
    assert!(!result.success);
    let message = &result.response_message;
    assert!(
        message.starts_with(
            "Exception occurred whilst executing system call: java.io.IOException: \
             Cannot run program \"jmxr-no-such-program\" (in directory \""
        ),
        "{message}"
    );
    assert!(
        message.ends_with("): error=2, No such file or directory"),
        "{message}"
    );
}

#[tokio::test]
async fn a_missing_stdin_file_fails_before_running() {
    let element = os_sampler(
        "cat",
        &[],
        vec![string_prop("SystemSampler.stdin", " /no/such/jmxr-input ")],
    );
    let result = build_and_sample(&element).await;
    assert_eq!(result.response_code, "500");
    assert_eq!(
        result.response_message,
        "Exception occurred whilst executing system call: \
         java.io.FileNotFoundException: /no/such/jmxr-input (No such file or directory)"
    );
}

#[test]
fn the_environment_prints_in_java_hash_map_order() {
    let pairs = |items: &[(&str, &str)]| -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    assert_eq!(java_map_string(&[]), "{}");
    assert_eq!(
        java_map_string(&pairs(&[("b", "1"), ("a", "2")])),
        "{a=2, b=1}"
    );
    // "BB" and "Aa" share a hash: insertion order decides.
    assert_eq!(
        java_map_string(&pairs(&[("BB", "1"), ("Aa", "2")])),
        "{BB=1, Aa=2}"
    );
    assert_eq!(
        java_map_string(&pairs(&[("k", "1"), ("j", "2"), ("k", "3")])),
        "{j=2, k=3}"
    );
}
