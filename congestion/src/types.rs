//! The values a stack and a controller exchange: the packets and ACK events
//! the stack reports, the phase a controller answers with, and the bounds
//! every controller puts on what the stack passes in.
//!
//! The bottom of the crate: this module imports nothing from the crate, and
//! every other module takes these types from here (the crate root
//! re-exports them).

use std::time::Duration;
use std::time::Instant;

/// The largest datagram a controller accepts (RFC 9000 18.2: a
/// max_udp_payload_size above 65527 is meaningless); larger values from
/// the stack are read as this, so that window arithmetic cannot overflow.
pub const MAX_DATAGRAM_SIZE_BYTES: usize = 65_527;

/// The largest configurable initial window. Ten times the 1 Gbit/s x
/// 100 ms pipe; it keeps `initial_cwnd_pkts * max_datagram_size` far from
/// overflow. Our bound, not a paper's.
pub const MAX_INITIAL_WINDOW_PKTS: usize = 100_000;

/// The pacing gains a controller accepts. Below 0.1 a window takes more
/// than ten RTTs to send (a gain of 1e-9 moved no data at all); above 10
/// pacing no longer spreads anything. Our bounds.
pub const PACING_GAIN_RANGE: std::ops::RangeInclusive<f64> = 0.1..=10.0;

/// The slowest pacing rate a controller reports, as a multiple of the
/// datagram size: two datagrams (the RFC 9002 7.2 minimum window) per
/// second. A rate of zero would read as "do not pace" to some stacks and
/// as "never send" to others; nothing slower than this is a real path.
pub fn min_pacing_rate_bytes_per_sec(max_datagram_size: usize) -> u64 {
    (2 * max_datagram_size.clamp(1, MAX_DATAGRAM_SIZE_BYTES)) as u64
}

/// A packet handed to the network, as the controller sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentPacket {
    /// Packet number (strictly increasing on a path).
    pub pkt_num: u64,
    /// When the packet left (or will leave, if paced) the sender.
    pub time_sent: Instant,
    /// Size on the wire in bytes (UDP payload).
    pub size_bytes: usize,
    /// Bytes in flight before this packet was sent.
    pub bytes_in_flight_before: usize,
    /// Whether the packet counts towards bytes in flight (is ack-eliciting
    /// and congestion controlled).
    pub in_flight: bool,
}

/// A packet newly acknowledged by an ACK frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckedPacket {
    /// Packet number, as in its [`SentPacket`].
    pub pkt_num: u64,
    /// When the packet was sent.
    pub time_sent: Instant,
    /// Size on the wire in bytes (UDP payload).
    pub size_bytes: usize,
}

/// A packet newly declared lost by the stack's loss detection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostPacket {
    /// Packet number, as in its [`SentPacket`].
    pub pkt_num: u64,
    /// When the packet was sent.
    pub time_sent: Instant,
    /// Size on the wire in bytes (UDP payload).
    pub size_bytes: usize,
}

/// The RTT sample an ACK frame produced (RFC 9002 section 5.1): taken from
/// the largest newly acknowledged packet when that packet was ack-eliciting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RttSample {
    /// `now - time_sent` of the largest newly acknowledged packet.
    pub latest_rtt: Duration,
    /// The ACK delay the peer reported in this ACK frame, decoded with the
    /// peer's ack_delay_exponent but not capped.
    pub ack_delay: Duration,
}

/// Everything one ACK frame (or one loss-detection timeout) tells the
/// controller. Slices are borrowed from the stack: no allocation.
#[derive(Clone, Copy, Debug)]
pub struct AckEvent<'a> {
    /// When the ACK frame (or the timeout) was processed.
    pub now: Instant,
    /// Newly acknowledged packets, ascending packet number.
    pub acked: &'a [AckedPacket],
    /// Newly lost packets, ascending packet number.
    pub lost: &'a [LostPacket],
    /// Present when the ACK frame produced an RTT sample.
    pub rtt_sample: Option<RttSample>,
    /// The stack's min RTT (None before the first sample).
    pub min_rtt: Option<Duration>,
    /// The stack's smoothed RTT (RFC 9002 section 5.3).
    pub smoothed_rtt: Duration,
    /// The peer's max_ack_delay transport parameter.
    pub max_ack_delay: Duration,
    /// Bytes in flight before the frame was processed.
    pub prior_bytes_in_flight: usize,
    /// Bytes in flight after acked and lost packets were removed.
    pub bytes_in_flight: usize,
    /// RFC 9002 section 7.6: the lost packets span a persistent-congestion
    /// period.
    pub persistent_congestion: bool,
}

/// Coarse state of a controller, for qlog and metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Slow start (cwnd below ssthresh).
    SlowStart,
    /// Congestion avoidance.
    CongestionAvoidance,
    /// A recovery period after a loss reduction.
    Recovery,
}

impl Phase {
    /// The snake_case name the qlog events use.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::SlowStart => "slow_start",
            Phase::CongestionAvoidance => "congestion_avoidance",
            Phase::Recovery => "recovery",
        }
    }
}
