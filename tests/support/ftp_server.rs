//! A private FTP server for the FTP Request tests: Debian's `python3-pyftpdlib`
//! (installed by `.ci/run`) on 127.0.0.1, serving a temporary folder to one user with
//! write access, killed when dropped.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::services::free_port;

pub struct FtpServer {
    child: Child,
    pub port: u16,
    root: tempfile::TempDir,
}

/// The user and password the server accepts.
pub const USER: &str = "jmxr";
pub const PASSWORD: &str = "s3cret";

impl FtpServer {
    pub fn start() -> FtpServer {
        let root = tempfile::tempdir().expect("server folder");
        let port = free_port();
        let child = Command::new("/usr/bin/python3")
            .args([
                "-m",
                "pyftpdlib",
                "-i",
                "127.0.0.1",
                "-w",
                "-u",
                USER,
                "-P",
                PASSWORD,
            ])
            .arg("-p")
            .arg(port.to_string())
            .arg("-d")
            .arg(root.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs (.ci/run installs Debian's python3-pyftpdlib)");
        let server = FtpServer { child, port, root };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "pyftpdlib did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// The folder the server serves.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }
}

impl Drop for FtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
