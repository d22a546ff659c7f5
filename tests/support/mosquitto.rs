//! A private Mosquitto broker (Debian's `mosquitto`, installed by `.ci/run`) for the MQTT
//! tests: three listeners on 127.0.0.1 — plain and anonymous, TLS (the tests' own
//! certificate) and plain with a password file — configured in a temporary folder and
//! killed when dropped. `mosquitto_sub` is not needed: the broker's log says what
//! it received.

use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::services::free_port;

pub struct Mosquitto {
    child: Child,
    pub port: u16,
    pub tls_port: u16,
    pub auth_port: u16,
    dir: tempfile::TempDir,
}

/// The user and password the password listener accepts.
pub const USER: &str = "jmxr";
pub const PASSWORD: &str = "s3cret";

impl Mosquitto {
    pub fn start() -> Mosquitto {
        let dir = tempfile::tempdir().expect("scratch folder");
        let (port, tls_port, auth_port) = (free_port(), free_port(), free_port());
        let tls = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/tls");
        let passwords = dir.path().join("passwords");
        let made = Command::new("mosquitto_passwd")
            .arg("-b")
            .arg("-c")
            .arg(&passwords)
            .args([USER, PASSWORD])
            .status()
            .expect("mosquitto_passwd runs (.ci/run installs Debian's mosquitto)");
        assert!(made.success(), "password file made");
        let config = format!(
            "user root\nper_listener_settings true\npersistence false\nlog_dest stderr\n\
             log_type all\nconnection_messages true\n\
             listener {port} 127.0.0.1\nallow_anonymous true\n\
             listener {tls_port} 127.0.0.1\nallow_anonymous true\n\
             certfile {cert}\nkeyfile {key}\n\
             listener {auth_port} 127.0.0.1\nallow_anonymous false\npassword_file {pw}\n",
            cert = tls.join("cert.pem").display(),
            key = tls.join("key.pem").display(),
            pw = passwords.display(),
        );
        let config_path = dir.path().join("mosquitto.conf");
        std::fs::write(&config_path, config).expect("config written");
        let log = std::fs::File::create(dir.path().join("mosquitto.log")).expect("log file");
        let child = Command::new("mosquitto")
            .arg("-c")
            .arg(&config_path)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("mosquitto runs (.ci/run installs Debian's mosquitto)");
        let broker = Mosquitto {
            child,
            port,
            tls_port,
            auth_port,
            dir,
        };
        let started = Instant::now();
        while [port, tls_port, auth_port]
            .iter()
            .any(|p| TcpStream::connect(("127.0.0.1", *p)).is_err())
        {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "mosquitto did not start: {}",
                broker.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        broker
    }

    /// The broker's log (every packet, with `log_type all`).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("mosquitto.log")).unwrap_or_default()
    }
}

impl Drop for Mosquitto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
