//! What a run does when it is one part of a distributed test: waits for `--start-at`,
//! measures its clock against an SNTP server (`--ntp host:port`) at start and end, and
//! writes its metadata beside the `.jtl` ([`ShardMeta`]) so that `jmxr merge` can correct
//! its timestamps and notice a shard that did not finish.
//!
//! A run with none of `--shard`, `--start-at` or `--ntp` does none of this: its output
//! stays what it was.

use std::net::UdpSocket;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::foundation::shard::Shard;

use super::cli::RunConfig;
use super::shard_meta::ShardMeta;

/// Offsets above this are worth a warning: they skew merged percentiles visibly.
const WARN_OFFSET_MS: f64 = 100.0;

/// Seconds between 1900 (NTP's epoch) and 1970.
const NTP_UNIX_DELTA: u64 = 2_208_988_800;

/// A distributed run in progress: where its metadata goes and what it measured.
pub struct Session {
    /// The local moment `--start-at` names: the run's schedule starts there, however
    /// long this process took to get ready.
    start: Option<StartMoment>,
    jtl: Option<PathBuf>,
    ntp: Option<String>,
    meta: ShardMeta,
}

/// When a run starts: the same moment on the monotonic clock (what the schedule counts
/// from) and on this machine's wall clock (what samples are stamped with).
#[derive(Clone, Copy, Debug)]
pub struct StartMoment {
    pub instant: Instant,
    pub epoch_ms: i64,
}

/// Prepares a distributed run (nothing when no distributed option is given): measures
/// the clock, works out the local moment of `--start-at` on the reference clock, writes
/// the metadata. The caller gets everything else ready, then waits with
/// [`Session::wait_for_start`], so that nothing it does after the start time can delay
/// the schedule.
pub async fn prepare(config: &RunConfig, shard: Option<Shard>) -> Result<Option<Session>, String> {
    if shard.is_none() && config.start_at.is_none() && config.ntp.is_none() {
        return Ok(None);
    }
    let offset = match &config.ntp {
        Some(server) => Some(measure(server).await?),
        None => None,
    };
    if let Some(offset) = offset {
        warn_if_large(offset, "at start");
    }
    let start = config.start_at.map(|start_at| {
        // Start when the reference clock reads `start_at`.
        let local_target = start_at as f64 - offset.unwrap_or(0.0);
        let wait_ms = local_target - now_ms() as f64;
        if wait_ms > 0.0 {
            println!(
                "Waiting {:.1} s for the start time {start_at} (epoch ms)",
                wait_ms / 1000.0
            );
        }
        let now = Instant::now();
        StartMoment {
            instant: if wait_ms > 0.0 {
                now + Duration::from_secs_f64(wait_ms / 1000.0)
            } else {
                now
            },
            epoch_ms: local_target.round() as i64,
        }
    });
    let meta = ShardMeta {
        shard: shard.map(|s| (s.index, s.count)),
        mode: match shard {
            Some(s) if s.replicate => "replicate".into(),
            _ => "divide".into(),
        },
        host: gethostname::gethostname().to_string_lossy().into_owned(),
        version: env!("CARGO_PKG_VERSION").into(),
        started: start.map_or_else(now_ms, |start| start.epoch_ms.max(now_ms())),
        ended: None,
        finished: false,
        reference: config.ntp.clone(),
        offset_start_ms: offset,
        offset_end_ms: None,
    };
    let session = Session {
        start,
        jtl: config.jtl.clone(),
        ntp: config.ntp.clone(),
        meta,
    };
    session.write()?;
    Ok(Some(session))
}

impl Session {
    /// The start moment `--start-at` asked for, if it is still ahead.
    pub fn start(&self) -> Option<StartMoment> {
        self.start.filter(|start| start.instant > Instant::now())
    }

    /// Sleeps until the start moment (at once when there is none or it has passed).
    pub async fn wait_for_start(&self) {
        if let Some(start) = self.start {
            tokio::time::sleep_until(start.instant.into()).await;
        }
    }

    fn write(&self) -> Result<(), String> {
        match &self.jtl {
            Some(jtl) => self.meta.write_beside(jtl),
            None => Ok(()),
        }
    }

    /// Measures the clock again and records the end; `finished` is false when the run
    /// was stopped before its plan ended.
    pub async fn finish(mut self, finished: bool) {
        self.meta.ended = Some(now_ms());
        self.meta.finished = finished;
        if let Some(server) = &self.ntp {
            match measure(server).await {
                Ok(offset) => {
                    warn_if_large(offset, "at end");
                    self.meta.offset_end_ms = Some(offset);
                }
                Err(message) => eprintln!("warning: {message}"),
            }
        }
        if let Err(message) = self.write() {
            eprintln!("An error occurred: {message}");
        }
    }
}

fn warn_if_large(offset: f64, when: &str) {
    if offset.abs() > WARN_OFFSET_MS {
        eprintln!(
            "warning: this machine's clock is {offset:+.1} ms off the reference {when}; the results are corrected by it when merged, but synchronise the clock (chrony, ntpd) for trustworthy timings"
        );
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// The clock offset (reference minus local, ms) from the best of a few SNTP exchanges
/// (the one with the shortest round trip), or from an HTTP server's `Date` header when
/// the reference is an `http://` address.
async fn measure(server: &str) -> Result<f64, String> {
    let server = server.to_string();
    tokio::task::spawn_blocking(move || {
        if server.contains("://") {
            return super::http_clock::http_date_offset(&server);
        }
        let mut best: Option<(f64, f64)> = None;
        let mut last_error = String::new();
        for _ in 0..4 {
            match sntp_exchange(&server) {
                Ok((offset, delay)) => {
                    if best.is_none_or(|(_, d)| delay < d) {
                        best = Some((offset, delay));
                    }
                }
                Err(e) => last_error = e,
            }
        }
        best.map(|(offset, _)| offset)
            .ok_or_else(|| format!("no answer from the SNTP server {server}: {last_error}"))
    })
    .await
    .map_err(|e| format!("clock measurement failed: {e}"))?
}

/// One SNTP exchange (RFC 4330): a 48-byte client request, the server's receive and
/// transmit times back. Returns (offset, round-trip delay) in ms.
pub fn sntp_exchange(server: &str) -> Result<(f64, f64), String> {
    let socket = UdpSocket::bind("0.0.0.0:0").map_err(|e| e.to_string())?;
    socket
        .set_read_timeout(Some(Duration::from_secs(2)))
        .map_err(|e| e.to_string())?;
    socket
        .connect(server)
        .map_err(|e| format!("{server}: {e}"))?;
    let mut request = [0u8; 48];
    request[0] = 0x23; // no leap warning, version 4, client mode
    let t1 = unix_ms_now_f64();
    request[40..48].copy_from_slice(&to_ntp(t1));
    socket
        .send(&request)
        .map_err(|e| format!("{server}: {e}"))?;
    let mut answer = [0u8; 48];
    let n = socket
        .recv(&mut answer)
        .map_err(|e| format!("{server}: {e}"))?;
    let t4 = unix_ms_now_f64();
    if n < 48 || answer[0] & 0x07 != 4 {
        return Err(format!("{server}: not an SNTP server answer"));
    }
    let t2 = from_ntp(&answer[32..40]);
    let t3 = from_ntp(&answer[40..48]);
    let offset = ((t2 - t1) + (t3 - t4)) / 2.0;
    let delay = (t4 - t1) - (t3 - t2);
    Ok((offset, delay))
}

fn unix_ms_now_f64() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// Unix ms as an NTP timestamp (seconds since 1900, 32.32 fixed point).
pub fn to_ntp(unix_ms: f64) -> [u8; 8] {
    let secs = (unix_ms / 1000.0).floor();
    let fraction = ((unix_ms / 1000.0 - secs) * 4_294_967_296.0) as u64;
    let ntp_secs = secs as u64 + NTP_UNIX_DELTA;
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&(ntp_secs as u32).to_be_bytes());
    out[4..].copy_from_slice(&(fraction as u32).to_be_bytes());
    out
}

/// An NTP timestamp as Unix ms.
pub fn from_ntp(bytes: &[u8]) -> f64 {
    let mut secs = [0u8; 4];
    let mut fraction = [0u8; 4];
    secs.copy_from_slice(&bytes[..4]);
    fraction.copy_from_slice(&bytes[4..8]);
    let secs = f64::from(u32::from_be_bytes(secs)) - NTP_UNIX_DELTA as f64;
    let fraction = f64::from(u32::from_be_bytes(fraction)) / 4_294_967_296.0;
    (secs + fraction) * 1000.0
}

/// `--start-at`: RFC 3339 (`2026-12-02T06:00:00Z`) or epoch milliseconds.
pub fn parse_start_at(text: &str) -> Result<i64, String> {
    let text = text.trim();
    if let Ok(ms) = text.parse::<i64>() {
        return Ok(ms);
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| t.timestamp_millis())
        .map_err(|_| {
            format!("--start-at takes an RFC 3339 time (2026-12-02T06:00:00Z) or epoch milliseconds, not {text:?}")
        })
}

/// The shard from the environment of an array job, when `--shard` is not given:
/// Kubernetes Indexed Jobs (`JOB_COMPLETION_INDEX`, 0-based, with the count in
/// `JMXR_SHARDS`), Slurm arrays (`SLURM_ARRAY_TASK_ID` from `SLURM_ARRAY_TASK_MIN`, count
/// `SLURM_ARRAY_TASK_COUNT`). Returns `I/N`.
pub fn shard_from_env(get: impl Fn(&str) -> Option<String>) -> Option<String> {
    let int = |name: &str| get(name)?.trim().parse::<u64>().ok();
    if let (Some(index), Some(count)) = (int("JOB_COMPLETION_INDEX"), int("JMXR_SHARDS")) {
        return Some(format!("{}/{count}", index + 1));
    }
    if let (Some(id), Some(count)) = (int("SLURM_ARRAY_TASK_ID"), int("SLURM_ARRAY_TASK_COUNT")) {
        let min = int("SLURM_ARRAY_TASK_MIN").unwrap_or(0);
        return Some(format!("{}/{count}", id.checked_sub(min)? + 1));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ntp_timestamps_round_trip() {
        let t = 1_764_650_000_123.5;
        assert!((from_ntp(&to_ntp(t)) - t).abs() < 0.01);
    }

    #[test]
    fn array_job_environments_give_a_shard() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let k8s = env(&[("JOB_COMPLETION_INDEX", "0"), ("JMXR_SHARDS", "4")]);
        assert_eq!(shard_from_env(k8s).as_deref(), Some("1/4"));
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ]);
        assert_eq!(shard_from_env(slurm).as_deref(), Some("3/3"));
        assert_eq!(shard_from_env(env(&[])), None);
        assert_eq!(parse_start_at("1000").unwrap(), 1000);
        assert_eq!(parse_start_at("1970-01-01T00:00:01Z").unwrap(), 1000);
    }
}
