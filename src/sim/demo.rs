//! The demo scenario: one flow moving 1 MB over a drop-tail bottleneck
//! shaped like the Vegas paper's Fig. 6 (Brakmo & Peterson 1995, section
//! IV-A: 200 KB/s, a router buffer of 10 packets, 50 ms round-trip
//! propagation delay).

use std::time::Duration;

use super::FlowSpec;
use super::LinkSpec;
use super::NetworkSpec;
use crate::Algorithm;
use crate::CcSpec;

/// 200 KB/s (KB = 1000 bytes) in bit/s: seed 000, Fig. 6.
pub const BOTTLENECK_RATE_BPS: u64 = 200_000 * 8;
/// 10 packets of router buffer: seed 000, Fig. 6.
pub const BOTTLENECK_BUFFER_PKTS: usize = 10;
/// 50 ms round-trip propagation, split evenly: seed 000, Fig. 6.
pub const ONE_WAY_DELAY: Duration = Duration::from_millis(25);
/// 1 MB (10^6 bytes), the transfer size of the paper's Table I.
pub const TRANSFER_BYTES: u64 = 1_000_000;
/// quiche's default max_send_udp_payload_size; close to the paper's 1 KB
/// segments.
pub const MAX_DATAGRAM_SIZE: usize = 1200;
/// Algorithms `cargo xtask demo` compares.
pub const ALGORITHMS: [Algorithm; 3] =
    [Algorithm::NewReno, Algorithm::Vegas, Algorithm::QuicheCubic];

/// The demo network with one flow of `cc`.
pub fn spec(cc: CcSpec, seed: u64) -> NetworkSpec {
    NetworkSpec {
        bottleneck: LinkSpec {
            rate_bps: BOTTLENECK_RATE_BPS,
            delay_ns: super::to_nanos(ONE_WAY_DELAY),
            buffer_pkts: BOTTLENECK_BUFFER_PKTS,
        },
        // The reverse path is not congested: 100 Mbit/s, ample buffer.
        reverse: LinkSpec {
            rate_bps: 100_000_000,
            delay_ns: super::to_nanos(ONE_WAY_DELAY),
            buffer_pkts: 1000,
        },
        flows: vec![FlowSpec {
            cc,
            bytes: TRANSFER_BYTES,
            start: Duration::ZERO,
            trace: true,
        }],
        seed,
        time_limit: Duration::from_secs(120),
        max_datagram_size: MAX_DATAGRAM_SIZE,
    }
}
