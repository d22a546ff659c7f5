//! The reference client of bench/jdbc_pgbench.sh: the smallest tokio-postgres loop that
//! does what the JDBC benchmark plan does, to see what jmxr's JDBC layer costs.
//!
//!   jdbc_bench CONNINFO CLIENTS SECONDS ROWS [EVENT_INTERVAL]
//!       CLIENTS connections (the plan's pool size), each preparing
//!       `select name from bench_items where id = $1` once and running it with a random
//!       id in 1..=ROWS in a loop for SECONDS; prints
//!       "<queries> <seconds> <queries per second>". The runtime is tokio's default, or
//!       with EVENT_INTERVAL its workers poll the sockets after that many tasks, as
//!       jmxr's `jmxr.event_interval` sets.
//!
//! Built by the script as a Cargo example (`cargo build --release --example jdbc_bench`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (conninfo, clients, seconds, rows, event_interval) = match args.as_slice() {
        [_, conninfo, clients, seconds, rows] => (conninfo, clients, seconds, rows, None),
        [_, conninfo, clients, seconds, rows, interval] => {
            let interval: u32 = interval.parse().expect("event interval");
            (conninfo, clients, seconds, rows, Some(interval))
        }
        _ => {
            eprintln!("usage: jdbc_bench CONNINFO CLIENTS SECONDS ROWS [EVENT_INTERVAL]");
            std::process::exit(2);
        }
    };
    let clients: usize = clients.parse().expect("clients");
    let seconds: u64 = seconds.parse().expect("seconds");
    let rows: i32 = rows.parse().expect("rows");
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    runtime.enable_all();
    if let Some(interval) = event_interval {
        runtime.event_interval(interval);
    }
    let runtime = runtime.build().expect("runtime");
    runtime.block_on(run(conninfo, clients, seconds, rows));
}

async fn run(conninfo: &str, clients: usize, seconds: u64, rows: i32) {
    let queries = Arc::new(AtomicU64::new(0));
    let mut connected = Vec::new();
    for _ in 0..clients {
        let (client, connection) = tokio_postgres::connect(conninfo, tokio_postgres::NoTls)
            .await
            .expect("connect");
        tokio::spawn(connection);
        connected.push(client);
    }
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let tasks: Vec<_> = connected
        .into_iter()
        .enumerate()
        .map(|(i, client)| {
            let queries = queries.clone();
            tokio::spawn(async move {
                let statement = client
                    .prepare("select name from bench_items where id = $1")
                    .await
                    .expect("prepare");
                let mut random = rand::rngs::SmallRng::seed_from_u64(i as u64);
                while Instant::now() < deadline {
                    let id: i32 = random.gen_range(1..=rows);
                    client.query(&statement, &[&id]).await.expect("query");
                    queries.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("client task");
    }
    let elapsed = started.elapsed().as_secs_f64();
    let done = queries.load(Ordering::Relaxed);
    println!("{done} {elapsed:.2} {:.0}", done as f64 / elapsed);
}
