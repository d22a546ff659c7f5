//! Distributed runs: a plan run whole and as shards (`--shard I/N`, started together with
//! `--start-at`) and merged with `jmxr merge` gives the single run's samples at the single
//! run's times; a shard whose clock is off records the offset and the merge corrects it.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::net::UdpSocket;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use support::shards::{
    check_like_single, check_partition, merge_shards, now_ms, run_args, run_single, spawn, wait_ok,
};
use support::Jtl;

/// Runs the plan as `n` shards started together, and merges them into `merged.jtl`.
fn run_shards(work: &Path, n: u32, extra: &[&str]) -> (Jtl, i64) {
    let start_at = now_ms() + 1500;
    let children: Vec<Child> = (1..=n)
        .map(|i| {
            let shard = format!("{i}/{n}");
            let mut args = run_args(&format!("s{i}.jtl"), start_at, extra);
            args.extend(["--shard".to_string(), shard]);
            spawn(work, &args)
        })
        .collect();
    children.into_iter().for_each(wait_ok);
    (merge_shards(work, n), start_at)
}

#[test]
fn shards_merged_reproduce_the_single_run() {
    let _turn = support::shards::one_at_a_time();
    let base = tempfile::tempdir().unwrap();
    let (single, single_start) = run_single(base.path());
    for n in [3u32, 4] {
        let work = base.path().join(format!("n{n}"));
        std::fs::create_dir(&work).unwrap();
        let (merged, start) = run_shards(&work, n, &["-Jjmxr.shard.csv=partition"]);
        check_like_single(&single, single_start, &merged, start, n);
        check_partition(&work, n);
        // Thread counts are summed across shards: the group's full size is reached.
        let max_all = merged
            .rows
            .iter()
            .map(|r| merged.int(r, "allThreads"))
            .max();
        let max_single = single
            .rows
            .iter()
            .map(|r| single.int(r, "allThreads"))
            .max();
        assert!(
            max_all >= max_single.map(|m| m - 2),
            "{n} shards: {max_all:?} vs {max_single:?}"
        );
    }
}

#[test]
fn whole_csv_mode_gives_every_shard_the_whole_file() {
    let _turn = support::shards::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    run_shards(work.path(), 2, &[]);
    for i in 1..=2 {
        let jtl = Jtl::read(&work.path().join(format!("s{i}.jtl")));
        let rows: BTreeSet<String> = jtl.values("row").into_iter().collect();
        assert!(
            rows.contains("acct01"),
            "shard {i} did not read the file from its top"
        );
    }
}

/// An SNTP server on 127.0.0.1 whose clock is `skew_ms` ahead of this machine's.
fn sntp_responder(skew_ms: f64) -> (String, std::thread::JoinHandle<()>) {
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let address = socket.local_addr().unwrap().to_string();
    let handle = std::thread::spawn(move || {
        let mut buf = [0u8; 48];
        // Bounded: the runs ask a few times at start and at end.
        for _ in 0..64 {
            let Ok((n, from)) = socket.recv_from(&mut buf) else {
                return;
            };
            if n < 48 {
                continue;
            }
            let now = (now_ms_f64() + skew_ms) / 1000.0;
            let mut answer = [0u8; 48];
            answer[0] = 0x24; // version 4, server mode
            answer[1] = 1;
            answer[24..32].copy_from_slice(&buf[40..48]);
            answer[32..40].copy_from_slice(&ntp(now));
            answer[40..48].copy_from_slice(&ntp(now));
            let _ = socket.send_to(&answer, from);
        }
    });
    (address, handle)
}

fn now_ms_f64() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

fn ntp(unix_s: f64) -> [u8; 8] {
    let secs = unix_s.floor();
    let fraction = ((unix_s - secs) * 4_294_967_296.0) as u64 as u32;
    let mut out = [0u8; 8];
    out[..4].copy_from_slice(&((secs as u64 + 2_208_988_800) as u32).to_be_bytes());
    out[4..].copy_from_slice(&fraction.to_be_bytes());
    out
}

/// A web server on 127.0.0.1 whose `Date` header runs `skew_ms` ahead of this machine's
/// clock (whole seconds, as HTTP has them). Bounded: it stops answering after 2,000
/// requests or 60 s.
fn date_server(skew_ms: f64) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        for stream in listener.incoming().take(2000) {
            if std::time::Instant::now() > deadline {
                return;
            }
            let Ok(mut stream) = stream else { continue };
            let mut head = [0u8; 1024];
            let _ = std::io::Read::read(&mut stream, &mut head);
            let at = (now_ms_f64() + skew_ms) as i64;
            let date = chrono::DateTime::from_timestamp_millis(at)
                .unwrap()
                .format("%a, %d %b %Y %H:%M:%S GMT");
            let answer = format!("HTTP/1.1 200 OK\r\nDate: {date}\r\nContent-Length: 0\r\n\r\n");
            let _ = std::io::Write::write_all(&mut stream, answer.as_bytes());
        }
    });
    format!("http://{address}/")
}

#[test]
fn a_web_server_s_date_header_measures_the_clock_to_the_millisecond() {
    let _turn = support::shards::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    // A fraction of a second that whole-second Date headers cannot show directly.
    let skew = 3456.7;
    let server = date_server(skew);
    // On the reference clock, which is 3.5 s ahead; the probe itself takes up to 1.3 s.
    let start_at = now_ms() + 7000;
    let mut args = run_args("s1.jtl", start_at, &[]);
    args.extend(["--shard", "1/1", "--ntp", server.as_str()].map(str::to_string));
    wait_ok(spawn(work.path(), &args));
    let meta = std::fs::read_to_string(work.path().join("s1.jtl.shard.json")).unwrap();
    let meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
    for key in ["offsetStartMs", "offsetEndMs"] {
        let offset = meta[key].as_f64().unwrap();
        assert!((offset - skew).abs() < 25.0, "{key} {offset}, skew {skew}");
    }
    assert_eq!(meta["clockReference"], server.as_str());
    // The shard started at the start time on the web server's clock.
    let jtl = Jtl::read(&work.path().join("s1.jtl"));
    let first = jtl
        .rows
        .iter()
        .map(|r| jtl.int(r, "timeStamp"))
        .min()
        .unwrap();
    let on_reference = first as f64 + skew;
    assert!(
        (on_reference - start_at as f64).abs() < 100.0,
        "first sample at {on_reference} on the reference clock, start {start_at}"
    );
}

#[test]
fn a_shard_with_a_wrong_clock_is_corrected_by_the_merge() {
    let _turn = support::shards::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    let (skewed, _a) = sntp_responder(3200.0);
    let (honest, _b) = sntp_responder(0.0);
    // On the reference clock; the skewed shard starts 3.2 s earlier on its own clock.
    let start_at = now_ms() + 5000;
    let children: Vec<Child> = [(1, &skewed), (2, &honest)]
        .into_iter()
        .map(|(i, server)| {
            let mut args = run_args(&format!("s{i}.jtl"), start_at, &[]);
            args.extend(
                ["--shard", &format!("{i}/2"), "--ntp", server.as_str()].map(str::to_string),
            );
            spawn(work.path(), &args)
        })
        .collect();
    children.into_iter().for_each(wait_ok);
    let meta = std::fs::read_to_string(work.path().join("s1.jtl.shard.json")).unwrap();
    let meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
    let offset = meta["offsetStartMs"].as_f64().unwrap();
    assert!((offset - 3200.0).abs() < 50.0, "recorded offset {offset}");
    assert_eq!(meta["finished"], true);
    assert_eq!(meta["shard"], 1);
    let out = support::jmxr(work.path(), &["merge", "m.jtl", "s1.jtl", "s2.jtl"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let raw = Jtl::read(&work.path().join("s1.jtl"));
    let merged = Jtl::read(&work.path().join("m.jtl"));
    // The skewed shard ran 3.2 s before the start time on its clock ...
    let raw_first = raw
        .rows
        .iter()
        .map(|r| raw.int(r, "timeStamp"))
        .min()
        .unwrap();
    assert!(raw_first < start_at - 3000, "{raw_first} vs {start_at}");
    // ... and lands at its corrected times: every one of its rows, moved by the offset.
    let key = |j: &Jtl, r: &[String]| {
        (
            j.get(r, "threadName").to_string(),
            j.get(r, "it").to_string(),
            j.get(r, "label").to_string(),
        )
    };
    let merged_at: BTreeMap<_, i64> = merged
        .rows
        .iter()
        .map(|r| (key(&merged, r), merged.int(r, "timeStamp")))
        .collect();
    for r in &raw.rows {
        let moved = merged_at[&key(&raw, r)] - raw.int(r, "timeStamp");
        assert!(
            (moved as f64 - offset).abs() <= 1.0,
            "moved by {moved}, offset {offset}"
        );
    }
    // No negative gaps: the merged file is in time order and starts at the start time.
    let stamps: Vec<i64> = merged
        .rows
        .iter()
        .map(|r| merged.int(r, "timeStamp"))
        .collect();
    assert!(stamps.windows(2).all(|w| w[0] <= w[1]));
    assert!(stamps[0] >= start_at - 50, "{} vs {start_at}", stamps[0]);
}

#[test]
fn merge_reports_missing_and_unfinished_shards() {
    let _turn = support::shards::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    let header = "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n";
    let row = |t: i64, user: &str, grp: i64, all: i64| {
        format!("{t},1,x,200,OK,{user},text,true,,1,0,{grp},{all},null,0,0,0\n")
    };
    std::fs::write(
        work.path().join("a.jtl"),
        format!(
            "{header}{}{}",
            row(1000, "G 1-1", 1, 2),
            row(1020, "H 2-1", 1, 2)
        ),
    )
    .unwrap();
    std::fs::write(
        work.path().join("b.jtl"),
        format!("{header}{}", row(1010, "G 1-2", 1, 1)),
    )
    .unwrap();
    std::fs::write(
        work.path().join("b.jtl.shard.json"),
        r#"{"started":900,"finished":false,"shard":2,"shards":3}"#,
    )
    .unwrap();
    let out = support::jmxr(work.path(), &["merge", "m.jtl", "a.jtl", "b.jtl", "c.jtl"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("c.jtl: no such results file"), "{stderr}");
    assert!(
        stderr.contains("b.jtl: the shard's run did not finish"),
        "{stderr}"
    );
    assert!(stderr.contains("shard 1/3"), "{stderr}");
    let merged = Jtl::read(&work.path().join("m.jtl"));
    let threads: Vec<(i64, i64)> = merged
        .rows
        .iter()
        .map(|r| (merged.int(r, "grpThreads"), merged.int(r, "allThreads")))
        .collect();
    // A shard counts from its first sample on (b has none at 1000), G's two users on two
    // shards count 2 in their group, and b has ended by H's sample.
    assert_eq!(threads, vec![(1, 2), (2, 3), (1, 2)]);
}
