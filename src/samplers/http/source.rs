//! The source address of requests (`HTTPSampler.ipSource`, "IP spoofing"), found as
//! `HTTPAbstractImpl.getIpSourceAddress` finds it: with type 0 the text is an address
//! or a host name (its first address); with types 1–3 it names a network interface,
//! whose first address (of any family, IPv4 or IPv6) is used. [`super::client`] binds
//! new connections to it.

use std::ffi::CStr;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::client::TransportError;
use super::dns;

/// Which addresses of an interface qualify (`HTTPSamplerBase.SourceType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Any,
    V4,
    V6,
}

/// The address to send from, `None` when `text` is blank.
pub async fn source_address(text: &str, kind: u8) -> Result<Option<IpAddr>, TransportError> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let (family, class) = match kind {
        1 => (Family::Any, "InetAddress"),
        2 => (Family::V4, "Inet4Address"),
        3 => (Family::V6, "Inet6Address"),
        _ => {
            if let Ok(ip) = text.parse::<IpAddr>() {
                return Ok(Some(ip));
            }
            let found = dns::system_lookup(text, 0).await?;
            return Ok(found.first().copied());
        }
    };
    let Some(addresses) = interface_addresses(text) else {
        return Err(unknown_host(format!("Cannot find interface {text}")));
    };
    addresses
        .into_iter()
        .find(|ip| match family {
            Family::Any => true,
            Family::V4 => ip.is_ipv4(),
            Family::V6 => ip.is_ipv6(),
        })
        .map(Some)
        .ok_or_else(|| {
            unknown_host(format!(
                "Interface {text} does not have address of type {class}"
            ))
        })
}

fn unknown_host(message: String) -> TransportError {
    TransportError {
        class: "java.net.UnknownHostException",
        message,
    }
}

/// The addresses of the interface called `name`, IPv4 first as Java lists them;
/// `None` when there is no such interface.
fn interface_addresses(name: &str) -> Option<Vec<IpAddr>> {
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `list` with a linked list that is freed below.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return None;
    }
    let mut found = false;
    let mut addresses = Vec::new();
    let mut cursor = list;
    while !cursor.is_null() {
        // SAFETY: `cursor` is a node of the list getifaddrs returned, not yet freed.
        let entry = unsafe { &*cursor };
        cursor = entry.ifa_next;
        // SAFETY: ifa_name is a NUL-terminated string owned by the list.
        let entry_name = unsafe { CStr::from_ptr(entry.ifa_name) };
        if entry_name.to_bytes() != name.as_bytes() {
            continue;
        }
        found = true;
        if entry.ifa_addr.is_null() {
            continue;
        }
        // SAFETY: ifa_addr points to a sockaddr whose family says which struct it is.
        let family = i32::from(unsafe { (*entry.ifa_addr).sa_family });
        if family == libc::AF_INET {
            // SAFETY: an AF_INET address is a sockaddr_in.
            let v4 = unsafe { &*(entry.ifa_addr as *const libc::sockaddr_in) };
            let ip = Ipv4Addr::from(u32::from_be(v4.sin_addr.s_addr));
            addresses.push(IpAddr::V4(ip));
        } else if family == libc::AF_INET6 {
            // SAFETY: an AF_INET6 address is a sockaddr_in6.
            let v6 = unsafe { &*(entry.ifa_addr as *const libc::sockaddr_in6) };
            addresses.push(IpAddr::V6(Ipv6Addr::from(v6.sin6_addr.s6_addr)));
        }
    }
    // SAFETY: `list` came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(list) };
    addresses.sort_by_key(|ip| ip.is_ipv6());
    found.then_some(addresses)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn literal_addresses_and_interfaces() {
        assert_eq!(source_address("  ", 0).await, Ok(None));
        assert_eq!(
            source_address("127.0.0.2", 0).await,
            Ok(Some(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2))))
        );
        assert_eq!(
            source_address("lo", 2).await,
            Ok(Some(IpAddr::V4(Ipv4Addr::LOCALHOST)))
        );
        let missing = source_address("no-such-if0", 1).await.unwrap_err();
        assert_eq!(missing.class, "java.net.UnknownHostException");
        assert_eq!(missing.message, "Cannot find interface no-such-if0");
    }
}
