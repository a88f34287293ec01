//! UDP socket buffers large enough for a fast path, and the machine's count
//! of datagrams its kernel dropped because a receive buffer was full.
//!
//! Linux gives a UDP socket 208 KiB of receive buffer by default
//! (`net.core.rmem_default`), about 90 datagrams of 1350 bytes once the
//! kernel's per-datagram overhead is counted: 10 ms at 100 Mbit/s. A
//! process that is not scheduled for that long (two cores shared by a
//! server, a client and this emulator) loses datagrams in the kernel, not
//! in the emulated link, and a QUIC sender takes them as congestion.
//! Measured here: one 30 s download at 100 Mbit/s x 200 ms lost 741
//! datagrams to full receive buffers, Vegas halved its window and finished
//! at 37.7 Mbit/s; the run before it lost none, 89.2 Mbit/s
//! (`docs/real-rates.md`). QUIC stacks ask for several MiB
//! (quic-go: 7 MiB); the kernel caps the request at `net.core.rmem_max`
//! and `net.core.wmem_max` and reports twice what it grants.

use std::io;
use std::os::fd::AsFd;

/// The buffer asked for each direction of every emulator socket: 4 MiB,
/// a few hundred milliseconds of 100 Mbit/s, so a stall of a process that
/// shares the cores does not overflow it. The kernel caps the request at
/// its maximum.
pub const DEFAULT_SOCKET_BUFFER_BYTES: usize = 4 << 20;

/// What the kernel granted a socket (Linux reports twice the request, its
/// bookkeeping overhead included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SocketBuffers {
    pub receive_bytes: usize,
    pub send_bytes: usize,
}

/// Asks for `bytes` of receive and send buffer on `socket` and returns what
/// the kernel granted; `bytes` = 0 leaves the system defaults.
pub fn enlarge(socket: &impl AsFd, bytes: usize) -> io::Result<SocketBuffers> {
    let socket = socket2::SockRef::from(socket);
    if bytes > 0 {
        socket.set_recv_buffer_size(bytes)?;
        socket.set_send_buffer_size(bytes)?;
    }
    Ok(SocketBuffers {
        receive_bytes: socket.recv_buffer_size()?,
        send_bytes: socket.send_buffer_size()?,
    })
}

/// UDP datagrams this machine's kernel has dropped because a socket's
/// receive buffer was full, over all sockets since boot (`RcvbufErrors` of
/// `/proc/net/snmp`); `None` where the file is missing or unreadable.
pub fn machine_receive_buffer_drops() -> Option<u64> {
    let snmp = std::fs::read_to_string("/proc/net/snmp").ok()?;
    receive_buffer_drops_in(&snmp)
}

/// `RcvbufErrors` of the `Udp:` lines of a `/proc/net/snmp` text (a header
/// line of names, then a line of values).
fn receive_buffer_drops_in(snmp: &str) -> Option<u64> {
    let mut udp = snmp.lines().filter(|l| l.starts_with("Udp: "));
    let names = udp.next()?;
    let values = udp.next()?;
    let column = names.split_whitespace().position(|n| n == "RcvbufErrors")?;
    values.split_whitespace().nth(column)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_granted_buffers_are_the_request_or_the_kernels_maximum() {
        let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let default = enlarge(&socket, 0).unwrap();
        let asked = 1 << 20;
        let granted = enlarge(&socket, asked).unwrap();
        // Linux caps a request at net.core.rmem_max / wmem_max and reports
        // twice what it grants; elsewhere at least the request is granted.
        let cap = |file: &str| {
            std::fs::read_to_string(file)
                .ok()
                .and_then(|t| t.trim().parse::<usize>().ok())
        };
        let expected = |max: Option<usize>| match max {
            Some(max) => 2 * asked.min(max),
            None => asked,
        };
        let receive = expected(cap("/proc/sys/net/core/rmem_max"));
        let send = expected(cap("/proc/sys/net/core/wmem_max"));
        assert!(
            granted.receive_bytes >= receive,
            "receive buffer {} B, expected at least {receive} B (default {} B)",
            granted.receive_bytes,
            default.receive_bytes
        );
        assert!(
            granted.send_bytes >= send,
            "send buffer {} B, expected at least {send} B (default {} B)",
            granted.send_bytes,
            default.send_bytes
        );
    }

    #[test]
    fn receive_buffer_drops_are_read_from_the_udp_lines() {
        let snmp = "Ip: Forwarding DefaultTTL\nIp: 1 64\n\
                    Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n\
                    Udp: 120918802 6740 743098 121359443 741 0\n\
                    UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors\n\
                    UdpLite: 0 0 0 0 5 0\n";
        assert_eq!(receive_buffer_drops_in(snmp), Some(741));
        assert_eq!(receive_buffer_drops_in("Ip: Forwarding\nIp: 1\n"), None);
        assert_eq!(
            receive_buffer_drops_in("Udp: InDatagrams RcvbufErrors\nUdp: 5 x\n"),
            None
        );
    }
}
