//! A private one-node Slurm cluster (Debian's `slurm-wlm` and `munge`, installed by
//! `.ci/run`) for the array-job test: its own munge key and socket, a generated
//! `slurm.conf`, `slurmctld` and `slurmd` in the foreground, all in a temporary folder,
//! on 127.0.0.1 with free ports, as the current user — no system service is touched, and
//! every daemon is killed when the cluster is dropped.
//!
//! What lets it run without root's usual set-up: process tracking by `/proc`
//! (`proctrack/linuxproc`) and no task plugin (`task/none`), so no cgroups; no accounting;
//! `SlurmdParameters=config_overrides`, so the node offers the 4 CPUs the configuration
//! says (three array tasks at once on a 2-core machine) instead of what it detects.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::services::free_port;

/// Why the test cannot run here, when Slurm or munge is not installed.
pub fn missing() -> Option<String> {
    ["slurmctld", "slurmd", "sbatch", "sinfo", "munged"]
        .iter()
        .find(|tool| {
            Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .stdout(Stdio::null())
                .status()
                .map_or(true, |s| !s.success())
        })
        .map(|tool| format!("{tool} is not installed (Debian's slurm-wlm and munge)"))
}

pub struct Slurm {
    dir: tempfile::TempDir,
    daemons: Vec<Child>,
}

const NODE: &str = "jmxrnode";

impl Slurm {
    pub fn start() -> Slurm {
        let dir = tempfile::tempdir().expect("scratch folder");
        let d = dir.path().to_path_buf();
        let mut cluster = Slurm {
            dir,
            daemons: Vec::new(),
        };
        let key: Vec<u8> = (0..1024).map(|_| rand::random::<u8>()).collect();
        let key_path = d.join("munge.key");
        std::fs::write(&key_path, key).expect("munge key written");
        set_mode(&key_path, 0o600);
        // munged wants to reach its socket through folders everyone may traverse.
        set_mode(&d, 0o711);
        let mut munged = Command::new("munged");
        munged.args([
            "--foreground",
            "--force",
            &format!("--key-file={}", key_path.display()),
            &format!("--socket={}", d.join("munge.sock").display()),
            &format!("--pid-file={}", d.join("munged.pid").display()),
            &format!("--log-file={}", d.join("munged.log").display()),
            &format!("--seed-file={}", d.join("munged.seed").display()),
        ]);
        cluster.daemon("munged", munged);
        cluster.wait_for("munge socket", || d.join("munge.sock").exists());
        for sub in ["state", "spool"] {
            std::fs::create_dir(d.join(sub)).expect("folder made");
        }
        std::fs::write(d.join("slurm.conf"), config(&d)).expect("slurm.conf written");
        let mut ctld = cluster.command("slurmctld");
        ctld.args(["-D", "-i"]);
        cluster.daemon("slurmctld", ctld);
        let mut slurmd = cluster.command("slurmd");
        slurmd.args(["-D", "-N", NODE]);
        cluster.daemon("slurmd", slurmd);
        cluster.wait_for("the node to be idle", || {
            let out = cluster.command("sinfo").args(["-h", "-o", "%t"]).output();
            out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
        });
        cluster
    }

    /// A Slurm command that reads this cluster's configuration.
    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", self.dir.path().join("slurm.conf"));
        command
    }

    /// Submits `script` as an array job of task ids `array` (e.g. `0-2`) with its working
    /// folder `work`, and waits for all its tasks (`sbatch --wait`), at most `limit`.
    pub fn run_array(&self, work: &Path, script: &str, array: &str, limit: Duration) -> Output {
        let script_path = work.join("job.sh");
        std::fs::write(&script_path, script).expect("job script written");
        set_mode(&script_path, 0o755);
        let mut child = self
            .command("sbatch")
            .args([
                &format!("--array={array}"),
                "--wait",
                "--chdir",
                work.to_str().expect("UTF-8 path"),
                "--output",
                work.join("task-%a.out").to_str().expect("UTF-8 path"),
            ])
            .arg(&script_path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("sbatch runs");
        let started = Instant::now();
        while child
            .try_wait()
            .expect("sbatch can be waited for")
            .is_none()
        {
            if started.elapsed() > limit {
                let _ = child.kill();
                panic!(
                    "the array job did not end within {limit:?}\n{}",
                    self.logs()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        child.wait_with_output().expect("sbatch output")
    }

    /// The daemons' logs, for a failure message.
    pub fn logs(&self) -> String {
        ["munged.log", "slurmctld.log", "slurmd.log"]
            .iter()
            .map(|name| {
                let text = std::fs::read_to_string(self.dir.path().join(name)).unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(15).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                format!("--- {name}\n{}", tail.join("\n"))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn daemon(&mut self, name: &str, mut command: Command) {
        let log = std::fs::File::create(self.dir.path().join(format!("{name}.out")))
            .expect("daemon output file");
        let child = command
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("{name} runs: {e}"));
        self.daemons.push(child);
    }

    fn wait_for(&self, what: &str, ready: impl Fn() -> bool) {
        let started = Instant::now();
        while !ready() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "Slurm did not start: waited for {what}\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Slurm {
    fn drop(&mut self) {
        // slurmd first (it ends the jobs' step daemons), the controller, then munge.
        for child in self.daemons.iter_mut().rev() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn config(d: &Path) -> String {
    let user = current_user();
    let host = gethostname::gethostname().to_string_lossy().into_owned();
    let host = host.split('.').next().unwrap_or("localhost").to_string();
    let p = |name: &str| -> PathBuf { d.join(name) };
    format!(
        "ClusterName=jmxrtest\n\
         SlurmctldHost={host}(127.0.0.1)\n\
         SlurmUser={user}\nSlurmdUser={user}\n\
         SlurmctldPort={ctld}\nSlurmdPort={slurmd}\n\
         StateSaveLocation={state}\nSlurmdSpoolDir={spool}\n\
         SlurmctldPidFile={ctld_pid}\nSlurmdPidFile={slurmd_pid}\n\
         SlurmctldLogFile={ctld_log}\nSlurmdLogFile={slurmd_log}\n\
         SlurmdParameters=config_overrides\n\
         ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
         JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n\
         SchedulerType=sched/builtin\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n\
         MpiDefault=none\nReturnToService=2\n\
         AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={munge}\n\
         NodeName={NODE} NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN\n\
         PartitionName=jmxr Nodes={NODE} Default=YES MaxTime=INFINITE State=UP\n",
        ctld = free_port(),
        slurmd = free_port(),
        state = p("state").display(),
        spool = p("spool").display(),
        ctld_pid = p("slurmctld.pid").display(),
        slurmd_pid = p("slurmd.pid").display(),
        ctld_log = p("slurmctld.log").display(),
        slurmd_log = p("slurmd.log").display(),
        munge = p("munge.sock").display(),
    )
}

fn current_user() -> String {
    let out = Command::new("id").arg("-un").output().expect("id runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("mode set");
}
