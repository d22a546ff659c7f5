//! Runs `jmxr` with a small tmpfs mounted in a private mount namespace (`unshare -m`),
//! so a test can fill a disk without touching the machine's own file systems. Lines of
//! stderr are timed as they arrive: a test can measure how long the run went on after
//! its first failed write.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Exit code of the wrapper script when the tmpfs cannot be mounted.
const NOT_PERMITTED: i32 = 97;
/// A run that lasts longer than this is a hang.
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// What a run on a tiny tmpfs left behind.
pub struct TmpfsRun {
    /// jmxr's exit code.
    pub code: i32,
    /// stderr lines with when each arrived.
    pub lines: Vec<(Instant, String)>,
    /// When jmxr had exited (the wrapper's last line).
    pub exited: Instant,
    /// Copies of the tmpfs's files, taken before the namespace went away.
    pub kept: PathBuf,
}

impl TmpfsRun {
    /// When the first line containing `text` arrived.
    pub fn first(&self, text: &str) -> Option<Instant> {
        self.lines
            .iter()
            .find(|(_, line)| line.contains(text))
            .map(|(at, _)| *at)
    }

    pub fn stderr(&self) -> String {
        let lines: Vec<&str> = self.lines.iter().map(|(_, l)| l.as_str()).collect();
        lines.join("\n")
    }
}

/// Runs `jmxr <args>` in `work` with a tmpfs of `size` (as `mount -o size=`) mounted at
/// `work/tmpfs`; `args` may name files there. Afterwards the tmpfs's files are copied to
/// `work/kept`. `None` (with a message) when this machine does not allow the mount.
pub fn run_on_tmpfs(work: &Path, size: &str, args: &[&str]) -> Option<TmpfsRun> {
    let mount = work.join("tmpfs");
    let kept = work.join("kept");
    std::fs::create_dir_all(&mount).expect("mount point");
    std::fs::create_dir_all(&kept).expect("copy folder");
    let script = format!(
        "mount -t tmpfs -o size={size} tmpfs tmpfs || exit {NOT_PERMITTED}\n\
         \"$@\"\n\
         code=$?\n\
         echo \"jmxr-exit $code\" >&2\n\
         cp -r tmpfs/. kept/\n\
         exit $code\n"
    );
    let mut child = Command::new("unshare")
        .args(["-m", "sh", "-c", &script, "sh", env!("CARGO_BIN_EXE_jmxr")])
        .process_group(0)
        .args(args)
        .current_dir(work)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("unshare runs");
    let stderr = child.stderr.take().expect("stderr is piped");
    let reader = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .map(|line| (Instant::now(), line))
            .collect::<Vec<_>>()
    });
    let started = Instant::now();
    while child
        .try_wait()
        .expect("unshare can be waited for")
        .is_none()
    {
        if started.elapsed() > RUN_LIMIT {
            // Killing `unshare` alone would leave jmxr running: end the whole group.
            // SAFETY: a plain signal to the group the child leads.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.kill();
            panic!("jmxr {args:?} on a tmpfs did not end within {RUN_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let status = child.wait().expect("unshare ends");
    let lines = reader.join().expect("stderr reader");
    let unshare_refused = lines.iter().any(|(_, l)| l.starts_with("unshare:"));
    if status.code() == Some(NOT_PERMITTED) || unshare_refused {
        eprintln!(
            "skipped: this machine does not let the test mount a tmpfs in a private mount \
             namespace (needs root and unshare -m): {lines:?}"
        );
        return None;
    }
    let (exited, code) = lines
        .iter()
        .find_map(|(at, line)| {
            let code = line.strip_prefix("jmxr-exit ")?.parse::<i32>().ok()?;
            Some((*at, code))
        })
        .unwrap_or_else(|| panic!("the wrapper did not report jmxr's exit: {lines:?}"));
    Some(TmpfsRun {
        code,
        lines,
        exited,
        kept,
    })
}
