//! OS Process Sampler (`SystemSampler`): runs a program and reports its exit code.
//!
//! Follows JMeter's `SystemSampler` and `SystemCommand`:
//! * the program is `command` followed by the *values* of the `arguments` table; the
//!   `environment` table is added to the inherited environment; the working directory
//!   is `directory`, or jmxr's current directory when empty (JMeter's `user.dir`);
//! * stdin comes from the `stdin` file, else the child sees end of input at once;
//!   stdout goes to the `stdout` file, else it is captured as the response body;
//!   stderr goes to the `stderr` file, else it is merged into stdout (one pipe, so the
//!   interleaving is the child's own);
//! * response code = exit code (128 + signal when killed by a signal), message `OK`,
//!   or `Unexpected return code...` when `checkReturnCode` is on and the code differs
//!   from `expectedReturnCode`;
//! * `timeout` (ms, 0 = none): past it the child is killed and the sample fails with
//!   code 500 and `Process timeout reached after <n> milliseconds`; other failures
//!   (cannot start, cannot open a redirect file) give 500 with JMeter's wording;
//! * a "Stop now" kills the child and fails the sample as an interrupted one.
//!
//! The sampler data is `Working Directory: ..\nEnvironment: {..}\nExecuting: ..`, with
//! the environment printed in the order Java's `HashMap.toString` gives.

use std::fs::File;
use std::io::{PipeReader, Read};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use parking_lot::Mutex;
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::expr::Template;
use crate::plan::{BuildContext, SampleContext, Sampler, Setting};
use crate::sample::SampleResult;

use super::new_result;

use crate::sample::Stopwatch;

/// An OS Process Sampler with its compiled settings.
pub struct OsProcessSampler {
    command: Template,
    /// Values of the arguments table (JMeter ignores the names).
    arguments: Vec<Template>,
    environment: Vec<(String, Template)>,
    directory: Template,
    check_return_code: bool,
    expected_return_code: Setting,
    stdin: Template,
    stdout: Template,
    stderr: Template,
    timeout_ms: Setting,
}

pub(super) fn build(cx: &mut BuildContext<'_>) -> Arc<dyn Sampler> {
    Arc::new(OsProcessSampler {
        command: cx.template("SystemSampler.command"),
        arguments: cx
            .arguments("SystemSampler.arguments")
            .into_iter()
            .map(|(_, value)| value)
            .collect(),
        environment: cx.arguments("SystemSampler.environment"),
        directory: cx.template("SystemSampler.directory"),
        check_return_code: cx.flag("SystemSampler.checkReturnCode", false),
        expected_return_code: cx.setting("SystemSampler.expectedReturnCode", "0"),
        stdin: cx.template("SystemSampler.stdin"),
        stdout: cx.template("SystemSampler.stdout"),
        stderr: cx.template("SystemSampler.stderr"),
        timeout_ms: cx.setting("SystemSampler.timeout", "0"),
    })
}

/// One run's evaluated settings.
struct Invocation {
    program: String,
    args: Vec<String>,
    /// Name/value pairs in table order; a later duplicate overrides an earlier one.
    env: Vec<(String, String)>,
    /// Absolute working directory.
    directory: PathBuf,
    stdin: Option<String>,
    stdout: Option<String>,
    stderr: Option<String>,
    timeout_ms: i64,
    check_return_code: bool,
    expected_return_code: i64,
}

/// How the child's run ended.
enum Ending {
    Exited(i32),
    TimedOut(i64),
    Interrupted,
    /// Could not run; the Java exception text JMeter shows.
    Failed(String),
}

impl OsProcessSampler {
    /// One sample; [`Sampler::sample`] boxes it for the engine.
    async fn sample_unboxed(&self, cx: &mut SampleContext<'_>) -> Option<SampleResult> {
        let invocation = self.evaluate(cx);
        let mut result = new_result(cx, cx.label.clone());
        result.data_type = "text";
        result.sampler_data = invocation.sampler_data();
        let watch = Stopwatch::start();
        let (ending, output) = execute(&invocation, &cx.user.run.stop_now).await;
        watch.stop(&mut result);
        result.response_data = output;
        let (code, message, success) = match ending {
            Ending::Exited(code) => {
                let expected = invocation.expected_return_code;
                if invocation.check_return_code && i64::from(code) != expected {
                    let message =
                        format!("Unexpected return code.  Expected [{expected}]. Actual [{code}].");
                    (code.to_string(), message, false)
                } else {
                    (code.to_string(), "OK".to_string(), true)
                }
            }
            Ending::TimedOut(ms) => (
                "500".to_string(),
                format!("Process timeout reached after {ms} milliseconds"),
                false,
            ),
            Ending::Interrupted => (
                "500".to_string(),
                "System Sampler interrupted whilst executing system call: \
                 java.lang.InterruptedException"
                    .to_string(),
                false,
            ),
            Ending::Failed(exception) => (
                "500".to_string(),
                format!("Exception occurred whilst executing system call: {exception}"),
                false,
            ),
        };
        result.response_code = code.into();
        result.response_message = message.into();
        result.set_success(success);
        Some(result)
    }
}

#[async_trait]
impl Sampler for OsProcessSampler {
    async fn sample(&self, cx: &mut SampleContext<'_>) -> Option<Arc<SampleResult>> {
        self.sample_unboxed(cx).await.map(Arc::new)
    }
}

impl OsProcessSampler {
    fn evaluate(&self, cx: &mut SampleContext<'_>) -> Invocation {
        let mut eval = cx.user.eval(&cx.label);
        let directory = self.directory.eval(&mut eval);
        let current = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let directory = if directory.is_empty() {
            current
        } else {
            current.join(directory)
        };
        // JMeter trims the stdin name but opens the output files by their name as given.
        let stdin = self.stdin.eval(&mut eval).trim().to_string();
        let stdout = self.stdout.eval(&mut eval);
        let stderr = self.stderr.eval(&mut eval);
        let non_blank = |text: String| (!text.trim().is_empty()).then_some(text);
        Invocation {
            program: self.command.eval(&mut eval),
            args: self.arguments.iter().map(|t| t.eval(&mut eval)).collect(),
            env: self
                .environment
                .iter()
                // The JVM refuses an empty variable name; jmxr leaves such rows out.
                .filter(|(name, _)| !name.is_empty())
                .map(|(name, value)| (name.clone(), value.eval(&mut eval)))
                .collect(),
            directory,
            stdin: non_blank(stdin),
            stdout: non_blank(stdout),
            stderr: non_blank(stderr),
            timeout_ms: self.timeout_ms.i64(&mut eval),
            check_return_code: self.check_return_code,
            expected_return_code: self.expected_return_code.i64(&mut eval),
        }
    }
}

impl Invocation {
    fn sampler_data(&self) -> String {
        let mut command_line = self.program.clone();
        for arg in &self.args {
            command_line.push(' ');
            command_line.push_str(arg);
        }
        format!(
            "Working Directory: {}\nEnvironment: {}\nExecuting: {command_line}",
            self.directory.display(),
            java_map_string(&self.env)
        )
    }
}

/// Runs the child to its end, its timeout or a stop; returns how it ended and the
/// captured output.
async fn execute(invocation: &Invocation, stop_now: &CancellationToken) -> (Ending, Vec<u8>) {
    let (mut command, capture) = match command_for(invocation) {
        Ok(prepared) => prepared,
        Err(exception) => return (Ending::Failed(exception), Vec::new()),
    };
    let spawned = command.spawn();
    // The command holds our copies of the pipe's write end; the reader only sees the
    // end of output once they are closed.
    drop(command);
    let mut child = match spawned {
        Ok(child) => child,
        Err(err) => return (Ending::Failed(cannot_run(invocation, &err)), Vec::new()),
    };
    let reader = capture.map(OutputReader::start);
    let ending = wait_for_exit(&mut child, invocation.timeout_ms, stop_now).await;
    let output = match reader {
        Some(reader) => {
            let exited = matches!(ending, Ending::Exited(_));
            reader.finish(exited, stop_now).await
        }
        None => Vec::new(),
    };
    (ending, output)
}

/// The command with its redirections, and the read end of the capture pipe when
/// stdout is captured. Files are opened in JMeter's order: stdin, stdout, stderr.
fn command_for(invocation: &Invocation) -> Result<(Command, Option<PipeReader>), String> {
    let stdin = match &invocation.stdin {
        Some(path) => Stdio::from(File::open(path).map_err(|e| file_not_found(path, &e))?),
        None => Stdio::null(),
    };
    let (stdout, merged_stderr, capture) = match &invocation.stdout {
        Some(path) => {
            let file = File::create(path).map_err(|e| file_not_found(path, &e))?;
            let copy = file.try_clone().map_err(|e| io_exception(&e))?;
            (Stdio::from(file), Stdio::from(copy), None)
        }
        None => {
            let (read, write) = std::io::pipe().map_err(|e| io_exception(&e))?;
            let copy = write.try_clone().map_err(|e| io_exception(&e))?;
            (Stdio::from(write), Stdio::from(copy), Some(read))
        }
    };
    let stderr = match &invocation.stderr {
        Some(path) => Stdio::from(File::create(path).map_err(|e| file_not_found(path, &e))?),
        None => merged_stderr,
    };
    let mut command = Command::new(&invocation.program);
    command
        .args(&invocation.args)
        .envs(invocation.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&invocation.directory)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(stderr)
        .kill_on_drop(true);
    Ok((command, capture))
}

/// Waits for the child; on timeout or stop it is killed (JMeter destroys it too).
async fn wait_for_exit(child: &mut Child, timeout_ms: i64, stop_now: &CancellationToken) -> Ending {
    let deadline = async {
        match u64::try_from(timeout_ms) {
            Ok(ms) if ms > 0 => tokio::time::sleep(Duration::from_millis(ms)).await,
            _ => std::future::pending().await,
        }
    };
    let ending = tokio::select! {
        biased;
        _ = stop_now.cancelled() => Ending::Interrupted,
        status = child.wait() => match status {
            Ok(status) => Ending::Exited(exit_code(status)),
            Err(err) => Ending::Failed(io_exception(&err)),
        },
        _ = deadline => Ending::TimedOut(timeout_ms),
    };
    if !matches!(ending, Ending::Exited(_)) {
        // Errors here mean the child is already gone, which is the goal.
        let _ = child.start_kill();
        let _ = child.wait().await;
    }
    ending
}

/// The exit code as Java reports it: 128 + signal number for a child killed by a signal.
fn exit_code(status: ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return 128 + signal;
        }
    }
    -1
}

/// Copies the capture pipe into a buffer on a blocking thread, so what arrived can be
/// taken even while the pipe is still open (a timed-out child's children may hold it).
struct OutputReader {
    buffer: Arc<Mutex<Vec<u8>>>,
    done: JoinHandle<()>,
}

impl OutputReader {
    fn start(mut pipe: PipeReader) -> OutputReader {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&buffer);
        let done = tokio::task::spawn_blocking(move || {
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => sink.lock().extend_from_slice(&chunk[..n]),
                    Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        });
        OutputReader { buffer, done }
    }

    /// The output. After a normal exit it waits for the end of the output, as JMeter
    /// joins its copier; after a timeout or stop it takes what has arrived.
    async fn finish(self, wait_for_end: bool, stop_now: &CancellationToken) -> Vec<u8> {
        if wait_for_end {
            tokio::select! {
                _ = stop_now.cancelled() => {}
                _ = self.done => {}
            }
        }
        std::mem::take(&mut *self.buffer.lock())
    }
}

/// Java's `FileNotFoundException` text for a redirect file that cannot be opened.
fn file_not_found(path: &str, err: &std::io::Error) -> String {
    format!("java.io.FileNotFoundException: {path} ({})", os_reason(err))
}

fn io_exception(err: &std::io::Error) -> String {
    format!("java.io.IOException: {}", os_reason(err))
}

/// Java's `ProcessBuilder.start` failure text.
fn cannot_run(invocation: &Invocation, err: &std::io::Error) -> String {
    let cause = match err.raw_os_error() {
        Some(code) => format!("error={code}, {}", os_reason(err)),
        None => os_reason(err),
    };
    format!(
        "java.io.IOException: Cannot run program \"{}\" (in directory \"{}\"): {cause}",
        invocation.program,
        invocation.directory.display()
    )
}

/// The OS's text for an error without Rust's ` (os error N)` suffix.
fn os_reason(err: &std::io::Error) -> String {
    let text = err.to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// Renders name/value pairs as Java's `HashMap.toString` does: `{k=v, k2=v2}` in bucket
/// order (String hash, spread, table sized for the entry count), insertion order within
/// a bucket; a repeated name keeps its first place and takes the last value. Tree bins
/// (8+ names in one bucket) are not modelled.
fn java_map_string(entries: &[(String, String)]) -> String {
    let mut unique: Vec<(&str, &str)> = Vec::with_capacity(entries.len());
    for (name, value) in entries {
        match unique.iter_mut().find(|(n, _)| *n == name.as_str()) {
            Some(entry) => entry.1 = value.as_str(),
            None => unique.push((name.as_str(), value.as_str())),
        }
    }
    let mut capacity = 16usize;
    while unique.len() > capacity / 4 * 3 {
        capacity *= 2;
    }
    unique.sort_by_key(|(name, _)| java_hash_spread(name) as usize & (capacity - 1));
    let body: Vec<String> = unique.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{{{}}}", body.join(", "))
}

/// Java's `String.hashCode` spread as `HashMap.hash` does.
fn java_hash_spread(text: &str) -> u32 {
    let hash = text.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    });
    let hash = hash as u32;
    hash ^ (hash >> 16)
}

#[cfg(all(test, unix))]
mod tests;
