//! The baseline for bench/udp.sh: the fastest plain way to send UDP datagrams, one
//! blocking `sendto` per datagram from one thread, for a fixed time.
//!
//! usage: sendto_loop HOST:PORT SECONDS SIZE   (prints: datagrams seconds rate)

use std::net::UdpSocket;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: sendto_loop HOST:PORT SECONDS SIZE");
        std::process::exit(1);
    }
    let target = &args[1];
    let seconds: f64 = args[2].parse().expect("SECONDS is a number");
    let size: usize = args[3].parse().expect("SIZE is a number");
    let target: std::net::SocketAddr = target.parse().expect("HOST:PORT is an address");
    // Unconnected, one sendto with the address per datagram: what a UDP sender does.
    let socket = UdpSocket::bind("0.0.0.0:0").expect("a local socket");
    let payload = vec![0u8; size];
    let limit = Duration::from_secs_f64(seconds);
    let started = Instant::now();
    let mut sent: u64 = 0;
    // Checking the clock every datagram would cost as much as the send; every 1,024 is enough.
    while sent % 1024 != 0 || started.elapsed() < limit {
        if socket.send_to(&payload, target).is_ok() {
            sent += 1;
        }
    }
    let took = started.elapsed().as_secs_f64();
    println!("{sent} {took:.3} {:.0}", sent as f64 / took);
}
