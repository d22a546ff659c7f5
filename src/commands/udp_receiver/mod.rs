//! `jmxr udp-sink`: the receiving end of a UDP load test.
//!
//! UDP has no reply, so the sender's `.jtl` only says what was sent. The sink binds a
//! port (with a large receive buffer, so bursts are not dropped by the kernel before it
//! reads them), counts datagrams and bytes per second, and with `--sequence` reads the
//! sender's sequence numbers (`samplers::udp::sender`) to count lost, duplicated and
//! out-of-order datagrams. With `--jtl` it reconciles sent against received per second.
//!
//! A plain thread receives (blocking with a short timeout, on Linux many datagrams per
//! call, see [`batch`]: the cheapest way to drain a socket at hundreds of thousands of
//! datagrams per second); the caller's
//! thread waits for the duration, Ctrl-C or SIGTERM, then stops the receiver and prints
//! the summary from the counts it hands back, so a stop never loses counts.

#[cfg(target_os = "linux")]
mod batch;
mod counts;
mod reconcile;

use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use counts::{Counts, Second, Sequences};
pub use reconcile::{reconcile, Reconciliation};

/// How long a blocked receive waits before it checks for a stop.
const POLL: Duration = Duration::from_millis(50);
/// How long the receiver lets datagrams queue after a small batch (Linux).
#[cfg(target_os = "linux")]
const BATCH_PAUSE: Duration = Duration::from_micros(100);
/// The receive buffer asked for; the kernel may cap it (`net.core.rmem_max`).
const RECEIVE_BUFFER: usize = 8 << 20;

/// What `jmxr udp-sink` was asked to do.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkConfig {
    pub host: String,
    pub port: u16,
    /// Stop after this long; `None` runs until a signal.
    pub duration: Option<Duration>,
    /// Per-second CSV.
    pub report: Option<PathBuf>,
    /// Read sequence numbers from the start of each datagram.
    pub sequence: bool,
    /// The sender's `.jtl`, to reconcile with at the end.
    pub jtl: Option<PathBuf>,
}

pub const USAGE: &str = "\
Usage: jmxr udp-sink --port N [--host 127.0.0.1] [--duration S] [--report FILE.csv] [--sequence] [--jtl sender.jtl]";

/// Reads the options after `udp-sink`.
pub fn parse_args(args: &[String]) -> Result<SinkConfig, String> {
    let mut config = SinkConfig {
        host: "127.0.0.1".into(),
        port: 0,
        duration: None,
        report: None,
        sequence: false,
        jtl: None,
    };
    let mut port = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        if name == "--sequence" {
            config.sequence = true;
            continue;
        }
        let value = inline
            .or_else(|| args.next().cloned())
            .ok_or_else(|| format!("{name} needs a value\n{USAGE}"))?;
        match name {
            "--port" => port = Some(value.parse().map_err(|_| format!("bad port {value:?}"))?),
            "--host" => config.host = value,
            "--duration" => {
                let seconds: f64 = value
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| format!("bad duration {value:?} (seconds)"))?;
                config.duration = Some(Duration::from_secs_f64(seconds));
            }
            "--report" => config.report = Some(PathBuf::from(value)),
            "--jtl" => config.jtl = Some(PathBuf::from(value)),
            _ => return Err(format!("unknown udp-sink option {name}\n{USAGE}")),
        }
    }
    config.port = port.ok_or_else(|| format!("udp-sink needs --port\n{USAGE}"))?;
    Ok(config)
}

/// A bound sink, receiving on its own thread until [`RunningSink::stop`].
pub struct RunningSink {
    stop: Arc<AtomicBool>,
    receiver: std::thread::JoinHandle<Counts>,
    started: Instant,
    pub local_addr: SocketAddr,
}

/// Binds and starts receiving.
pub fn start(config: &SinkConfig) -> std::io::Result<RunningSink> {
    let socket = bind(&config.host, config.port)?;
    let local_addr = socket.local_addr()?;
    socket.set_read_timeout(Some(POLL))?;
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let sequence = config.sequence;
    let receiver = std::thread::Builder::new()
        .name("jmxr-udp-sink".into())
        .spawn(move || receive(&socket, sequence, &flag))?;
    Ok(RunningSink {
        stop,
        receiver,
        started: Instant::now(),
        local_addr,
    })
}

impl RunningSink {
    /// Stops receiving and hands back the counts, with how long the sink listened.
    pub fn stop(self) -> (Counts, Duration) {
        self.stop.store(true, Ordering::SeqCst);
        let listened = self.started.elapsed();
        let counts = self.receiver.join().unwrap_or_default();
        (counts, listened)
    }
}

fn bind(host: &str, port: u16) -> std::io::Result<UdpSocket> {
    use std::net::ToSocketAddrs;
    let addr = (host, port).to_socket_addrs()?.next().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no address for {host}"),
        )
    })?;
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::DGRAM,
        Some(socket2::Protocol::UDP),
    )?;
    // Best effort: a smaller buffer still works, it only drops bursts sooner.
    let _ = socket.set_recv_buffer_size(RECEIVE_BUFFER);
    socket.bind(&addr.into())?;
    Ok(socket.into())
}

/// The receiver thread: counts until asked to stop.
#[cfg(target_os = "linux")]
fn receive(socket: &UdpSocket, sequence: bool, stop: &AtomicBool) -> Counts {
    let mut counts = Counts::new(sequence);
    let mut batch = batch::BatchReceiver::default();
    while !stop.load(Ordering::Relaxed) {
        // One clock read per batch: a batch is taken within microseconds.
        let mut second = None;
        // Timeouts (and transient errors such as ICMP reports) only mean: look again.
        let taken = batch
            .receive(socket, |len, head| {
                let second = *second.get_or_insert_with(|| {
                    crate::foundation::clock::wall_clock_ms().div_euclid(1000)
                });
                counts.record_sized(second, len, head);
            })
            .unwrap_or(0);
        // A sink that keeps up would otherwise take one datagram per call and be woken
        // for each, a cost the sender pays too (it wakes the sink in `sendto`). Letting
        // a short pause's worth queue up makes the next call take a batch; the counts
        // are per second, and the pause is far shorter than the receive buffer lasts.
        if (1..batch::BATCH / 2).contains(&taken) {
            std::thread::sleep(BATCH_PAUSE);
        }
    }
    counts
}

/// The receiver thread: counts until asked to stop.
#[cfg(not(target_os = "linux"))]
fn receive(socket: &UdpSocket, sequence: bool, stop: &AtomicBool) -> Counts {
    let mut counts = Counts::new(sequence);
    let mut buffer = vec![0u8; 65_536];
    while !stop.load(Ordering::Relaxed) {
        match socket.recv(&mut buffer) {
            Ok(len) => {
                let second = crate::foundation::clock::wall_clock_ms().div_euclid(1000);
                counts.record(second, &buffer[..len]);
            }
            // Timeouts (and transient errors such as ICMP reports) only mean: look again.
            Err(_) => continue,
        }
    }
    counts
}

/// The subcommand: listens until the duration ends or a signal comes, then writes the
/// per-second CSV and prints the summary (and the reconciliation with `--jtl`).
pub async fn run(config: SinkConfig) -> Result<(), String> {
    let sink = start(&config)
        .map_err(|e| format!("cannot listen on {}:{}: {e}", config.host, config.port))?;
    println!("udp-sink listening on {}", sink.local_addr);
    let stopped = stop_signal();
    match config.duration {
        Some(duration) => {
            tokio::select! {
                _ = tokio::time::sleep(duration) => {}
                _ = stopped => {}
            }
        }
        None => stopped.await,
    }
    let (counts, listened) = sink.stop();
    let reconciliation = match &config.jtl {
        Some(path) => Some(reconcile(path, &counts)?),
        None => None,
    };
    if let Some(path) = &config.report {
        let csv = reconcile::per_second_csv(&counts, reconciliation.as_ref());
        std::fs::write(path, csv)
            .map_err(|e| format!("cannot write the report {}: {e}", path.display()))?;
    }
    print!("{}", counts.summary(listened.as_secs_f64()));
    if let Some(reconciliation) = reconciliation {
        print!("{}", reconciliation.summary());
    }
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM.
async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn reads_its_options() {
        let config = parse_args(&args(
            "--port 9000 --host=0.0.0.0 --duration 2.5 --report r.csv --sequence --jtl s.jtl",
        ))
        .expect("valid");
        assert_eq!(config.port, 9000);
        assert_eq!(config.host, "0.0.0.0");
        assert_eq!(config.duration, Some(Duration::from_millis(2500)));
        assert!(config.sequence);
        assert_eq!(config.jtl, Some(PathBuf::from("s.jtl")));
        assert!(parse_args(&args("--host x")).is_err(), "port is required");
        assert!(parse_args(&args("--port 1 --bogus 2")).is_err());
    }

    #[test]
    fn counts_what_arrives_and_keeps_it_on_stop() {
        let config = parse_args(&args("--port 0 --sequence")).expect("valid");
        let sink = start(&config).expect("binds");
        let sender = UdpSocket::bind("127.0.0.1:0").expect("bind");
        for n in [0u64, 1, 2, 4] {
            sender
                .send_to(&n.to_be_bytes(), sink.local_addr)
                .expect("sent");
        }
        std::thread::sleep(Duration::from_millis(200));
        let (counts, _) = sink.stop();
        assert_eq!(counts.datagrams, 4);
        let sequences = counts.sequences.expect("tracked");
        assert_eq!(sequences.lost(), 1);
    }
}
