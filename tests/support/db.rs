//! Private PostgreSQL and MariaDB servers for the JDBC tests: each starts once per test
//! binary on a free port of 127.0.0.1 with a data folder in a temporary directory
//! (Debian's `postgresql` and `mariadb-server` packages, which `.ci/run` installs), and
//! stops with the test process (the server gets SIGTERM when the thread that started it
//! ends, and that thread lives as long as the process). When the tests run as root the
//! servers run as the packages' `postgres` and `mysql` users, which they require.
//! Tests seed and inspect the databases with the `psql` and `mariadb` command-line
//! clients, a second connection independent of jmxr.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The user and password both servers accept, and the database they hold.
pub const USER: &str = "jmxr";
pub const PASSWORD: &str = "secret";
pub const DATABASE: &str = "jmxr";

/// A running server.
pub struct Server {
    pub port: u16,
    /// The temporary folder (data, socket); removed when the test process ends.
    pub dir: PathBuf,
}

/// The PostgreSQL server of this test binary.
pub fn postgres() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(start_postgres)
}

/// The MariaDB server of this test binary.
pub fn mariadb() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(start_mariadb)
}

/// A free TCP port on 127.0.0.1.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("bound address").port()
}

/// The uid and gid of `name` when the tests run as root (the servers refuse root).
fn run_as(name: &str) -> Option<(u32, u32)> {
    if unsafe { libc::geteuid() } != 0 {
        return None;
    }
    let c_name = std::ffi::CString::new(name).ok()?;
    let entry = unsafe { libc::getpwnam(c_name.as_ptr()) };
    if entry.is_null() {
        panic!("user {name} is missing: install Debian's database server packages");
    }
    let entry = unsafe { &*entry };
    Some((entry.pw_uid, entry.pw_gid))
}

/// A command that runs as `user` (when root) and gets SIGTERM when the thread that
/// spawned it ends.
fn command_as(program: &Path, user: Option<(u32, u32)>) -> Command {
    let mut command = Command::new(program);
    unsafe {
        command.pre_exec(move || {
            if let Some((uid, gid)) = user {
                if libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setgid(gid) != 0
                    || libc::setuid(uid) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
            }
            // After the identity change, which would clear it.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        });
    }
    command
}

fn chown_tree(path: &Path, user: Option<(u32, u32)>) {
    if let Some((uid, gid)) = user {
        std::os::unix::fs::chown(path, Some(uid), Some(gid)).expect("chown");
        if path.is_dir() {
            for entry in std::fs::read_dir(path).expect("listing") {
                chown_tree(&entry.expect("entry").path(), user);
            }
        }
    }
}

/// Runs `command` to completion; panics with its output when it fails.
fn run(mut command: Command, what: &str) -> Output {
    let output = command
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{what} cannot start: {e}"));
    assert!(
        output.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The servers started and their folders, stopped and removed when the process exits.
static STARTED: std::sync::Mutex<Vec<(u32, PathBuf)>> = std::sync::Mutex::new(Vec::new());

/// Registered with `atexit` once: stops every server (SIGTERM, then waits for it) and
/// removes its folder.
extern "C" fn stop_servers() {
    let started = std::mem::take(&mut *STARTED.lock().unwrap_or_else(|e| e.into_inner()));
    for (pid, dir) in started {
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGTERM);
            let mut status = 0;
            libc::waitpid(pid as libc::pid_t, &mut status, 0);
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}

fn register(pid: u32, dir: &Path) {
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    AT_EXIT.call_once(|| unsafe {
        libc::atexit(stop_servers);
    });
    STARTED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((pid, dir.to_path_buf()));
}

/// Starts a long-running server from a thread that never ends, so the server's parent
/// death signal fires only when the test process exits; returns its process id.
fn spawn_forever(make: impl FnOnce() -> Command + Send + 'static) -> u32 {
    let (started, wait) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut command = make();
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let _ = started.send(child.map(|c| c.id()).map_err(|e| e.to_string()));
        loop {
            std::thread::park();
        }
    });
    wait.recv()
        .expect("the server thread reports")
        .unwrap_or_else(|e| panic!("the server cannot start: {e}"))
}

fn scratch_dir(prefix: &str) -> PathBuf {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("temporary folder")
        .keep();
    let mut permissions = std::fs::metadata(&dir).expect("metadata").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&dir, permissions).expect("chmod");
    dir
}

/// `/usr/lib/postgresql/<version>/bin/<tool>`, Debian's place, else the `PATH`.
fn postgres_tool(tool: &str) -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|dir| {
            dir.flatten()
                .map(|e| e.path().join("bin").join(tool))
                .collect()
        })
        .unwrap_or_default();
    versions.sort();
    versions
        .pop()
        .filter(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from(tool))
}

fn wait_until(what: &str, mut ready: impl FnMut() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what} did not become ready"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn start_postgres() -> Server {
    let user = run_as("postgres");
    let dir = scratch_dir("jmxr-pg-");
    let data = dir.join("data");
    let password_file = dir.join("pw");
    std::fs::write(&password_file, PASSWORD).expect("password file");
    chown_tree(&dir, user);
    let mut initdb = command_as(&postgres_tool("initdb"), user);
    initdb
        .arg("-D")
        .arg(&data)
        .args([
            "-U",
            USER,
            "-A",
            "scram-sha-256",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ])
        .arg(format!("--pwfile={}", password_file.display()));
    run(initdb, "initdb");
    let port = free_port();
    let postgres = postgres_tool("postgres");
    let socket_dir = dir.clone();
    let data_dir = data.clone();
    let pid = spawn_forever(move || {
        let mut command = command_as(&postgres, user);
        command
            .arg("-D")
            .arg(&data_dir)
            .args(["-p", &port.to_string(), "-c", "listen_addresses=127.0.0.1"])
            .arg("-c")
            .arg(format!("unix_socket_directories={}", socket_dir.display()))
            .args(["-c", "fsync=off", "-c", "max_connections=200"]);
        command
    });
    register(pid, &dir);
    let server = Server { port, dir };
    wait_until("PostgreSQL", || {
        psql_command(&server, "select 1", "postgres")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    psql(&server, &format!("create database {DATABASE}"));
    server
}

fn psql_command(server: &Server, sql: &str, database: &str) -> Command {
    let mut command = Command::new("psql");
    command
        .env("PGPASSWORD", PASSWORD)
        .args([
            "-h",
            "127.0.0.1",
            "-p",
            &server.port.to_string(),
            "-U",
            USER,
        ])
        .args([
            "-v",
            "ON_ERROR_STOP=1",
            "-X",
            "-q",
            "-A",
            "-t",
            "-d",
            database,
        ])
        .arg("-c")
        .arg(sql);
    command
}

/// Runs SQL on the PostgreSQL server as a separate client; returns its unaligned output.
pub fn psql(server: &Server, sql: &str) -> String {
    let database = if sql.starts_with("create database") {
        "postgres"
    } else {
        DATABASE
    };
    let output = run(psql_command(server, sql, database), "psql");
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

fn start_mariadb() -> Server {
    let user = run_as("mysql");
    let dir = scratch_dir("jmxr-maria-");
    let data = dir.join("data");
    std::fs::create_dir(&data).expect("data folder");
    chown_tree(&dir, user);
    let mut install = command_as(Path::new("mariadb-install-db"), user);
    install
        .args(["--no-defaults", "--auth-root-authentication-method=normal"])
        .args(["--skip-test-db", "--skip-name-resolve"])
        .arg(format!("--datadir={}", data.display()));
    run(install, "mariadb-install-db");
    let port = free_port();
    let socket = dir.join("mysqld.sock");
    let (data_dir, socket_path, pid_file) = (data.clone(), socket.clone(), dir.join("mysqld.pid"));
    let pid = spawn_forever(move || {
        let mut command = command_as(Path::new("/usr/sbin/mariadbd"), user);
        command
            .arg("--no-defaults")
            .arg(format!("--datadir={}", data_dir.display()))
            .arg(format!("--socket={}", socket_path.display()))
            .arg(format!("--pid-file={}", pid_file.display()))
            .arg(format!("--port={port}"))
            .args([
                "--bind-address=127.0.0.1",
                "--skip-name-resolve",
                "--skip-log-bin",
            ])
            .args(["--innodb-buffer-pool-size=16M", "--max-connections=200"]);
        command
    });
    register(pid, &dir);
    let server = Server { port, dir };
    wait_until("MariaDB", || {
        mariadb_root(&server, "select 1")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let setup = format!(
        "create database {DATABASE}; create user '{USER}'@'%' identified by '{PASSWORD}'; \
         grant all on *.* to '{USER}'@'%'; flush privileges;"
    );
    run(mariadb_root(&server, &setup), "MariaDB set-up");
    server
}

fn mariadb_root(server: &Server, sql: &str) -> Command {
    let mut command = Command::new("mariadb");
    command
        .arg("--no-defaults")
        .arg(format!(
            "--socket={}",
            server.dir.join("mysqld.sock").display()
        ))
        .args(["-uroot", "-e", sql]);
    command
}

/// Runs SQL on the MariaDB server as a separate client; returns its tab-separated output.
pub fn mariadb_sql(server: &Server, sql: &str) -> String {
    let mut command = Command::new("mariadb");
    command
        .arg("--no-defaults")
        .args(["-h", "127.0.0.1", "-P", &server.port.to_string()])
        .args([
            "-u",
            USER,
            &format!("-p{PASSWORD}"),
            "-N",
            "-B",
            DATABASE,
            "-e",
            sql,
        ]);
    String::from_utf8_lossy(&run(command, "mariadb").stdout)
        .trim()
        .to_string()
}
