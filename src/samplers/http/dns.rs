//! The DNS Cache Manager (`DNSCacheManager`): each virtual user keeps its own cache of
//! resolved names, and with the custom resolver names are looked up in the manager's
//! static host table, then by asking the manager's DNS servers, bypassing the system
//! resolver as JMeter's dnsjava-based resolver does (`DNSCacheManager.resolve`):
//!
//! * a cached name (the user's cache, cleared at each thread-group iteration when the
//!   manager says so) is answered from the cache;
//! * a name of the static host table resolves to its comma-separated addresses, each
//!   looked up in turn (a literal address stands for itself);
//! * any other name is asked of the DNS servers (`host`, `host:port`, `[v6]:port`; port
//!   53 by default), round robin, over UDP, for A records only (CNAMEs are followed);
//!   no answer fails the sample with `java.net.UnknownHostException: Failed to resolve
//!   host name: <name>`. As in JMeter, a literal IP address is asked of the servers too
//!   (and fails when they do not know it). Without servers (or with the system
//!   resolver) the system resolver answers.
//!
//! [`Resolver`] is what the connect path of [`super::client`] calls; the per-user
//! [`DnsCache`] lives with the user's connections.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::time::Instant;

use super::client::TransportError;
use crate::expr::Template;

/// How long a lookup may take over all servers and attempts (dnsjava's default).
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(10);

/// How long one server is given before the next is asked.
const ATTEMPT_TIMEOUT: Duration = Duration::from_millis(2500);

/// CNAME hops followed before giving up (dnsjava's Lookup stops at 16 iterations).
const MAX_CNAME_HOPS: usize = 16;

/// Record types and class of the messages sent.
const TYPE_A: u16 = 1;
const TYPE_CNAME: u16 = 5;
const CLASS_IN: u16 = 1;

/// A DNS server of the manager, as written in the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DnsServer {
    pub host: String,
    pub port: u16,
}

/// The DNS Cache Manager in scope of a sampler, read at plan time.
pub struct DnsManagerSpec {
    /// Identifies the manager, so each user keeps one cache per manager.
    pub key: String,
    pub clear_each_iteration: bool,
    /// `DNSCacheManager.isCustomResolver`: static hosts and servers apply.
    pub custom: bool,
    /// The servers as written; each user reads them once, as each JMeter thread's copy
    /// of the manager makes its resolver when it is created.
    pub servers: Vec<Template>,
    /// Static host table: name (lower case) → comma-separated addresses or names.
    pub static_hosts: Vec<(String, String)>,
}

/// One user's cache for one manager.
#[derive(Debug, Clone, Default)]
pub struct DnsCache {
    entries: HashMap<String, Vec<IpAddr>>,
    /// Which server the next lookup starts with (dnsjava's load balancing).
    next_server: usize,
    /// The user's servers once read, or why they cannot be used (JMeter's `initFailed`).
    servers: Option<Result<Vec<DnsServer>, String>>,
}

impl DnsCache {
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Whether the manager's servers are still to be read for this user.
    pub fn needs_servers(&self) -> bool {
        self.servers.is_none()
    }

    /// Reads the manager's servers (their text evaluated).
    pub fn set_servers<'t>(&mut self, texts: impl IntoIterator<Item = &'t str>) {
        self.servers = Some(
            texts
                .into_iter()
                .filter(|text| !text.trim().is_empty())
                .map(parse_server)
                .collect(),
        );
    }

    /// Takes the names another copy of this cache resolved meanwhile.
    pub fn absorb(&mut self, other: DnsCache) {
        self.entries.extend(other.entries);
        self.next_server = self.next_server.max(other.next_server);
    }
}

/// Parses a server as `DNSCacheManager.parseHostPort` does: `[v6]`, `[v6]:port`,
/// `host:port` (exactly one colon, numeric port), else the whole text is the host.
pub fn parse_server(text: &str) -> Result<DnsServer, String> {
    let text = text.trim();
    if let Some(rest) = text.strip_prefix('[') {
        let close = rest
            .rfind(']')
            .ok_or_else(|| format!("Invalid IPv6 address format: [{rest}"))?;
        let host = rest[..close].to_string();
        let after = &rest[close + 1..];
        let port = match after.strip_prefix(':') {
            Some(port) => port
                .parse()
                .map_err(|_| format!("Invalid port in: [{rest}"))?,
            None if after.is_empty() => 53,
            None => return Err(format!("Invalid format after IPv6 address: [{rest}")),
        };
        return Ok(DnsServer { host, port });
    }
    let colons = text.matches(':').count();
    if colons == 1 {
        let (host, port) = text.split_once(':').unwrap_or((text, ""));
        if let Ok(port) = port.parse() {
            return Ok(DnsServer {
                host: host.to_string(),
                port,
            });
        }
    }
    Ok(DnsServer {
        host: text.to_string(),
        port: 53,
    })
}

/// Resolves names for one request: the manager in scope, if any, and the user's cache.
pub struct Resolver<'a> {
    pub manager: Option<&'a DnsManagerSpec>,
    pub cache: Option<&'a mut DnsCache>,
}

impl Resolver<'_> {
    /// The addresses of `host` (without brackets), in the order to try them.
    pub async fn resolve(&mut self, host: &str, port: u16) -> Result<Vec<IpAddr>, TransportError> {
        let (Some(manager), Some(cache)) = (self.manager, self.cache.as_deref_mut()) else {
            if let Ok(ip) = host.parse::<IpAddr>() {
                return Ok(vec![ip]);
            }
            return system_lookup(host, port).await;
        };
        let key = host.to_ascii_lowercase();
        if let Some(hit) = cache.entries.get(&key) {
            return Ok(hit.clone());
        }
        let addresses = match static_entry(manager, &key) {
            Some(listed) => {
                let mut addresses = Vec::new();
                for address in listed.split(',').map(str::trim).filter(|a| !a.is_empty()) {
                    // What the lookup cannot resolve is taken as a literal address, or
                    // skipped when it is none (JMeter's `addAsLiteralAddress`).
                    match lookup(manager, cache, address, port).await {
                        Ok(found) => addresses.extend(found),
                        Err(_) => {
                            if let Ok(ip) = address.parse::<IpAddr>() {
                                addresses.push(ip);
                            } else if let Ok(found) = system_lookup(address, port).await {
                                addresses.extend(found.first());
                            }
                        }
                    }
                }
                addresses
            }
            None => lookup(manager, cache, host, port).await?,
        };
        cache.entries.insert(key, addresses.clone());
        Ok(addresses)
    }
}

fn static_entry<'m>(manager: &'m DnsManagerSpec, name: &str) -> Option<&'m str> {
    if !manager.custom {
        return None;
    }
    manager
        .static_hosts
        .iter()
        .find(|(host, _)| host == name)
        .map(|(_, address)| address.as_str())
}

/// JMeter's `requestLookup`: the manager's servers with the custom resolver, else the
/// system resolver. Like JMeter's, the custom resolver asks the servers even for a
/// literal IP address (a server knows no such name, so the lookup fails).
async fn lookup(
    manager: &DnsManagerSpec,
    cache: &mut DnsCache,
    host: &str,
    port: u16,
) -> Result<Vec<IpAddr>, TransportError> {
    if !manager.custom {
        return system_lookup(host, port).await;
    }
    let servers = match &cache.servers {
        None => return system_lookup(host, port).await,
        Some(Ok(servers)) if servers.is_empty() => return system_lookup(host, port).await,
        Some(Ok(servers)) => servers,
        Some(Err(_)) => {
            return Err(unknown_host(format!(
                "Could not resolve host:{host}, failed to initialize resolver or no resolver found"
            )))
        }
    };
    let mut addresses = Vec::with_capacity(servers.len());
    for server in servers {
        match server_address(server).await {
            Some(address) => addresses.push(address),
            None => {
                return Err(unknown_host(format!(
                "Could not resolve host:{host}, failed to initialize resolver or no resolver found"
            )))
            }
        }
    }
    let start = cache.next_server % addresses.len();
    cache.next_server = cache.next_server.wrapping_add(1);
    match query_servers(&addresses, start, host).await {
        Some(found) if !found.is_empty() => Ok(found.into_iter().map(IpAddr::V4).collect()),
        _ => Err(unknown_host(format!("Failed to resolve host name: {host}"))),
    }
}

fn unknown_host(message: String) -> TransportError {
    TransportError {
        class: "java.net.UnknownHostException",
        message,
    }
}

/// The system resolver's answer, as HttpClient's `SystemDefaultDnsResolver` gives it.
pub async fn system_lookup(host: &str, port: u16) -> Result<Vec<IpAddr>, TransportError> {
    let found: Vec<IpAddr> = match tokio::net::lookup_host((host, port)).await {
        Ok(addrs) => addrs.map(|a| a.ip()).collect(),
        Err(_) => Vec::new(),
    };
    if found.is_empty() {
        return Err(unknown_host(format!("{host}: Name or service not known")));
    }
    Ok(found)
}

/// A server's socket address; a server given by name is looked up with the system
/// resolver, as dnsjava needs an address.
async fn server_address(server: &DnsServer) -> Option<SocketAddr> {
    if let Ok(ip) = server.host.parse::<IpAddr>() {
        return Some(SocketAddr::new(ip, server.port));
    }
    tokio::net::lookup_host((server.host.as_str(), server.port))
        .await
        .ok()?
        .next()
}

/// Asks the servers in turn, from `start` on, until one answers or time runs out; the
/// A records of `name` (after CNAMEs), or `None` without an answer.
async fn query_servers(servers: &[SocketAddr], start: usize, name: &str) -> Option<Vec<Ipv4Addr>> {
    let deadline = Instant::now() + LOOKUP_TIMEOUT;
    let mut target = name.trim_end_matches('.').to_string();
    let mut message = encode_query(rand::random(), &target)?;
    let mut hops = 0;
    let mut attempt = 0;
    while Instant::now() < deadline {
        let server = servers[(start + attempt) % servers.len()];
        attempt += 1;
        let limit = ATTEMPT_TIMEOUT.min(deadline.saturating_duration_since(Instant::now()));
        let asked = query(server, &message, &target);
        let Ok(Some(answer)) = tokio::time::timeout(limit, asked).await else {
            continue;
        };
        if answer.rcode != 0 {
            return None;
        }
        if !answer.addresses.is_empty() {
            return Some(answer.addresses);
        }
        // Only a CNAME came back: ask for its target, as dnsjava's Lookup does.
        let next = answer.canonical_name?;
        hops += 1;
        if hops > MAX_CNAME_HOPS {
            return None;
        }
        message = encode_query(rand::random(), &next)?;
        target = next;
        attempt = 0;
    }
    None
}

/// What a server said about a name.
#[derive(Debug, PartialEq, Eq)]
struct Answer {
    rcode: u8,
    addresses: Vec<Ipv4Addr>,
    /// Where the CNAME chain from the name ends when no A record came with it.
    canonical_name: Option<String>,
}

/// One query (`message`, asking for `name`) to one server over UDP; `None` when the
/// socket fails (the caller moves to the next server).
async fn query(server: SocketAddr, message: &[u8], name: &str) -> Option<Answer> {
    let local: SocketAddr = if server.is_ipv4() {
        (Ipv4Addr::UNSPECIFIED, 0).into()
    } else {
        (std::net::Ipv6Addr::UNSPECIFIED, 0).into()
    };
    let socket = UdpSocket::bind(local).await.ok()?;
    socket.connect(server).await.ok()?;
    let id = u16::from_be_bytes([message[0], message[1]]);
    socket.send(message).await.ok()?;
    let mut buf = vec![0u8; 4096];
    loop {
        let n = socket.recv(&mut buf).await.ok()?;
        // A late answer to an earlier query is not this one's.
        if let Some(answer) = parse_answer(&buf[..n], id, name) {
            return Some(answer);
        }
    }
}

/// A standard query for the A records of `name`, recursion desired; `None` when the
/// name cannot be written as DNS labels.
fn encode_query(id: u16, name: &str) -> Option<Vec<u8>> {
    let mut message = Vec::with_capacity(18 + name.len());
    message.extend_from_slice(&id.to_be_bytes());
    message.extend_from_slice(&[0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
    for label in name.trim_end_matches('.').split('.') {
        let length = u8::try_from(label.len())
            .ok()
            .filter(|l| (1..64).contains(l))?;
        message.push(length);
        message.extend_from_slice(label.as_bytes());
    }
    message.push(0);
    message.extend_from_slice(&TYPE_A.to_be_bytes());
    message.extend_from_slice(&CLASS_IN.to_be_bytes());
    Some(message)
}

/// Reads a response to query `id` for `name`: its rcode, the A records at the end of
/// the CNAME chain starting at `name`. `None` when it is not such a response.
fn parse_answer(message: &[u8], id: u16, name: &str) -> Option<Answer> {
    let header = message.get(..12)?;
    let is_response = header[2] & 0x80 != 0;
    if u16::from_be_bytes([header[0], header[1]]) != id || !is_response {
        return None;
    }
    let rcode = header[3] & 0x0f;
    let questions = u16::from_be_bytes([header[4], header[5]]);
    let answers = u16::from_be_bytes([header[6], header[7]]);
    let mut pos = 12;
    for _ in 0..questions {
        let (_, end) = read_name(message, pos)?;
        pos = end + 4;
    }
    let mut a_records: Vec<(String, Ipv4Addr)> = Vec::new();
    let mut cnames: Vec<(String, String)> = Vec::new();
    for _ in 0..answers {
        let (owner, end) = read_name(message, pos)?;
        let fixed = message.get(end..end + 10)?;
        let rtype = u16::from_be_bytes([fixed[0], fixed[1]]);
        let class = u16::from_be_bytes([fixed[2], fixed[3]]);
        let length = usize::from(u16::from_be_bytes([fixed[8], fixed[9]]));
        let data_start = end + 10;
        let data = message.get(data_start..data_start + length)?;
        match (rtype, class) {
            (TYPE_A, CLASS_IN) if length == 4 => {
                a_records.push((owner, Ipv4Addr::new(data[0], data[1], data[2], data[3])));
            }
            (TYPE_CNAME, CLASS_IN) => {
                let (target, _) = read_name(message, data_start)?;
                cnames.push((owner, target));
            }
            _ => {}
        }
        pos = data_start + length;
    }
    let mut current = name.trim_end_matches('.').to_ascii_lowercase();
    for _ in 0..=cnames.len() {
        match cnames.iter().find(|(owner, _)| *owner == current) {
            Some((_, target)) => current = target.clone(),
            None => break,
        }
    }
    let addresses: Vec<Ipv4Addr> = a_records
        .iter()
        .filter(|(owner, _)| *owner == current)
        .map(|(_, ip)| *ip)
        .collect();
    let followed = current != name.trim_end_matches('.').to_ascii_lowercase();
    Some(Answer {
        rcode,
        canonical_name: (addresses.is_empty() && followed).then_some(current),
        addresses,
    })
}

/// The (lower-case, dotted) name at `pos`, following compression pointers, and where
/// the name ends in the message.
fn read_name(message: &[u8], mut pos: usize) -> Option<(String, usize)> {
    let mut labels: Vec<String> = Vec::new();
    let mut end = None;
    let mut jumps = 0;
    loop {
        let length = *message.get(pos)?;
        match length {
            0 => {
                return Some((labels.join("."), end.unwrap_or(pos + 1)));
            }
            l if l & 0xc0 == 0xc0 => {
                let target = (usize::from(l & 0x3f) << 8) | usize::from(*message.get(pos + 1)?);
                end.get_or_insert(pos + 2);
                jumps += 1;
                if jumps > 64 {
                    return None;
                }
                pos = target;
            }
            l if l & 0xc0 == 0 => {
                let label = message.get(pos + 1..pos + 1 + usize::from(l))?;
                labels.push(String::from_utf8_lossy(label).to_ascii_lowercase());
                pos += 1 + usize::from(l);
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A response to `query` answering with `records` (already encoded).
    fn response(query: &[u8], rcode: u8, count: u16, records: &[u8]) -> Vec<u8> {
        let mut message = query.to_vec();
        message[2] |= 0x80;
        message[3] = 0x80 | rcode;
        message[6..8].copy_from_slice(&count.to_be_bytes());
        message.extend_from_slice(records);
        message
    }

    fn record(owner: &[u8], rtype: u16, data: &[u8]) -> Vec<u8> {
        let mut out = owner.to_vec();
        out.extend_from_slice(&rtype.to_be_bytes());
        out.extend_from_slice(&CLASS_IN.to_be_bytes());
        out.extend_from_slice(&60u32.to_be_bytes());
        out.extend_from_slice(&(data.len() as u16).to_be_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn servers_parse_as_jmeter_parses_them() {
        let server = |host: &str, port| DnsServer {
            host: host.into(),
            port,
        };
        assert_eq!(parse_server("10.0.0.1"), Ok(server("10.0.0.1", 53)));
        assert_eq!(parse_server("10.0.0.1:5353"), Ok(server("10.0.0.1", 5353)));
        assert_eq!(parse_server("dns.test:53"), Ok(server("dns.test", 53)));
        assert_eq!(parse_server("::1"), Ok(server("::1", 53)));
        assert_eq!(parse_server("[::1]:5300"), Ok(server("::1", 5300)));
        assert_eq!(parse_server("[::1]"), Ok(server("::1", 53)));
        assert!(parse_server("[::1").is_err());
        assert!(parse_server("[::1]x").is_err());
        assert_eq!(parse_server("host:abc"), Ok(server("host:abc", 53)));
    }

    #[test]
    fn queries_are_standard_recursive_a_questions() {
        let query = encode_query(0x1234, "www.example.test").unwrap();
        assert_eq!(&query[..4], &[0x12, 0x34, 0x01, 0x00]);
        assert_eq!(&query[12..17], b"\x03www\x07");
        assert_eq!(&query[query.len() - 4..], &[0, 1, 0, 1]);
        assert!(encode_query(1, "a..b").is_none());
    }

    #[test]
    fn answers_follow_cnames_and_compression() {
        let query = encode_query(7, "www.Example.test").unwrap();
        // www → (pointer to question name) CNAME web.example.test, then its A record.
        let mut records = record(&[0xc0, 12], TYPE_CNAME, b"\x03web\xc0\x10");
        // The CNAME's data follows the question and the record's 12 fixed bytes.
        let cname_target = query.len() + 12;
        let owner = [0xc0 | (cname_target >> 8) as u8, cname_target as u8];
        records.extend(record(&owner, TYPE_A, &[10, 0, 0, 7]));
        let message = response(&query, 0, 2, &records);
        let answer = parse_answer(&message, 7, "www.example.test").unwrap();
        assert_eq!(answer.addresses, [Ipv4Addr::new(10, 0, 0, 7)]);
        assert_eq!(parse_answer(&message, 8, "www.example.test"), None);
    }

    #[test]
    fn a_lone_cname_names_the_next_question() {
        let query = encode_query(9, "a.test").unwrap();
        let records = record(&[0xc0, 12], TYPE_CNAME, b"\x01b\x04test\x00");
        let answer = parse_answer(&response(&query, 0, 1, &records), 9, "a.test").unwrap();
        assert_eq!(answer.canonical_name.as_deref(), Some("b.test"));
        let nxdomain = parse_answer(&response(&query, 3, 0, &[]), 9, "a.test").unwrap();
        assert_eq!(nxdomain.rcode, 3);
    }
}
