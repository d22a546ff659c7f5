//! Receiving many datagrams per system call (`recvmmsg`, Linux).
//!
//! At hundreds of thousands of datagrams per second a receive per datagram costs the
//! sink about as much CPU as the sender spends sending, which a sink sharing the
//! machine with its sender takes from it. One `recvmmsg` takes every datagram queued
//! (up to [`BATCH`]) after waiting for the first. Only the head of each datagram is
//! copied out: the counts need its length (the kernel reports the full length with
//! `MSG_TRUNC`) and the sequence number at its start.

use std::io;
use std::net::UdpSocket;
use std::os::fd::AsRawFd;

/// Datagrams taken per call at most.
pub const BATCH: usize = 64;
/// Bytes copied out of each datagram (at least the sequence number).
const HEAD: usize = 64;

/// Buffers for one call, reused from call to call.
pub struct BatchReceiver {
    heads: Box<[[u8; HEAD]; BATCH]>,
}

impl Default for BatchReceiver {
    fn default() -> BatchReceiver {
        BatchReceiver {
            heads: Box::new([[0; HEAD]; BATCH]),
        }
    }
}

impl BatchReceiver {
    /// Waits for a datagram (as long as the socket's read timeout allows), then takes
    /// it and every one queued behind it, up to [`BATCH`]; `each` gets the full length
    /// and the head of each, in order. Returns how many were taken.
    pub fn receive(
        &mut self,
        socket: &UdpSocket,
        mut each: impl FnMut(usize, &[u8]),
    ) -> io::Result<usize> {
        let mut heads = self.heads.iter_mut();
        let mut iovecs: [libc::iovec; BATCH] = std::array::from_fn(|_| {
            let head = heads.next().expect("BATCH heads");
            libc::iovec {
                iov_base: head.as_mut_ptr().cast(),
                iov_len: HEAD,
            }
        });
        let mut iovec_slots = iovecs.iter_mut();
        let mut headers: [libc::mmsghdr; BATCH] = std::array::from_fn(|_| {
            // SAFETY: `msghdr` and `mmsghdr` are plain C structs for which all-zero bytes
            // are a valid value (null pointers, zero lengths and flags).
            let mut header: libc::mmsghdr = unsafe { std::mem::zeroed() };
            header.msg_hdr.msg_iov = iovec_slots.next().expect("BATCH iovecs");
            header.msg_hdr.msg_iovlen = 1;
            header
        });
        // SAFETY: `headers` holds BATCH entries, each pointing at one iovec of `iovecs`,
        // which points at HEAD writable bytes of `self.heads`; all outlive the call. No
        // address buffers or control buffers are given (null, zero length).
        let taken = unsafe {
            libc::recvmmsg(
                socket.as_raw_fd(),
                headers.as_mut_ptr(),
                BATCH as libc::c_uint,
                libc::MSG_WAITFORONE | libc::MSG_TRUNC,
                std::ptr::null_mut(),
            )
        };
        if taken < 0 {
            return Err(io::Error::last_os_error());
        }
        let taken = taken as usize;
        for (header, head) in headers.iter().zip(self.heads.iter()).take(taken) {
            let len = header.msg_len as usize;
            each(len, &head[..len.min(HEAD)]);
        }
        Ok(taken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn takes_every_queued_datagram_with_its_full_length() {
        let receiver = UdpSocket::bind("127.0.0.1:0").expect("bind");
        receiver
            .set_read_timeout(Some(Duration::from_millis(500)))
            .expect("timeout");
        let sender = UdpSocket::bind("127.0.0.1:0").expect("bind");
        let target = receiver.local_addr().expect("address");
        let sizes = [1usize, 8, 64, 65, 1500, 9000];
        for (i, size) in sizes.iter().enumerate() {
            let mut datagram = vec![0u8; *size];
            datagram[0] = i as u8;
            sender.send_to(&datagram, target).expect("send");
        }
        let mut batch = BatchReceiver::default();
        let mut seen = Vec::new();
        while seen.len() < sizes.len() {
            batch
                .receive(&receiver, |len, head| seen.push((len, head.len(), head[0])))
                .expect("receive");
        }
        let expected: Vec<(usize, usize, u8)> = sizes
            .iter()
            .enumerate()
            .map(|(i, size)| (*size, (*size).min(HEAD), i as u8))
            .collect();
        assert_eq!(seen, expected);
        // Nothing queued: the read timeout ends the wait with an error, not a hang.
        assert!(batch.receive(&receiver, |_, _| {}).is_err());
    }
}
