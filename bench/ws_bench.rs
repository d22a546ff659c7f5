//! The other side of the WebSocket benchmarks (bench/ws_many_connections.sh,
//! bench/ws_echo.sh), on tokio-tungstenite:
//!
//!   ws_bench server PORT_FILE
//!       echoes every text and binary message, on 127.0.0.1 (port written to PORT_FILE);
//!   ws_bench client PORT CONNECTIONS SECONDS
//!       the reference client: CONNECTIONS connections, each sending a short text
//!       message and awaiting its echo in a loop for SECONDS; prints
//!       "<messages> <seconds> <messages per second>".
//!
//! Built by the scripts as a Cargo example (`cargo build --release --example ws_bench`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    match args.get(1).map(String::as_str) {
        Some("server") => runtime.block_on(server(&args[2])),
        Some("client") => {
            let port: u16 = args[2].parse().expect("port");
            let connections: usize = args[3].parse().expect("connections");
            let seconds: u64 = args[4].parse().expect("seconds");
            runtime.block_on(client(port, connections, seconds));
        }
        _ => eprintln!("usage: ws_bench server PORT_FILE | client PORT CONNECTIONS SECONDS"),
    }
}

async fn server(port_file: &str) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("address").port();
    let tmp = format!("{port_file}.tmp");
    std::fs::write(&tmp, port.to_string()).expect("port file");
    std::fs::rename(&tmp, port_file).expect("port file");
    loop {
        // Out of descriptors: wait for some to be freed rather than stop accepting.
        let Ok((tcp, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        tokio::spawn(async move {
            let _ = tcp.set_nodelay(true);
            let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
                return;
            };
            while let Some(Ok(message)) = ws.next().await {
                if (message.is_text() || message.is_binary()) && ws.send(message).await.is_err() {
                    return;
                }
            }
        });
    }
}

async fn client(port: u16, connections: usize, seconds: u64) {
    let count = Arc::new(AtomicU64::new(0));
    let url = format!("ws://127.0.0.1:{port}/");
    let mut sockets = Vec::new();
    for _ in 0..connections {
        // Nagle off, as jmxr's connections have it.
        let (ws, _) = tokio_tungstenite::connect_async_with_config(url.as_str(), None, true)
            .await
            .expect("connect");
        sockets.push(ws);
    }
    let started = Instant::now();
    let end = started + Duration::from_secs(seconds);
    let tasks: Vec<_> = sockets
        .into_iter()
        .map(|mut ws| {
            let count = count.clone();
            tokio::spawn(async move {
                while Instant::now() < end {
                    if ws.send(Message::text("heartbeat")).await.is_err() {
                        return;
                    }
                    match ws.next().await {
                        Some(Ok(_)) => count.fetch_add(1, Ordering::Relaxed),
                        _ => return,
                    };
                }
            })
        })
        .collect();
    for task in tasks {
        let _ = task.await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let messages = count.load(Ordering::Relaxed);
    println!("{messages} {elapsed:.3} {:.0}", messages as f64 / elapsed);
}
