//! `vegas-cc`: the TCP Vegas family of delay-based congestion controllers,
//! written sans-IO so that any QUIC (or TCP) stack can drive them.
//!
//! A controller is a plain state machine. The stack tells it what happened
//! ([`Controller::on_packet_sent`], [`Controller::on_ack_event`],
//! [`Controller::on_pto`], ...) and passes the current time in as `now`; the
//! controller answers with a congestion window, an optional pacing rate and
//! its phase. There is no clock, no I/O and no allocation per ACK in here.
//!
//! Every controller shares the same [`Controller`] trait so that the quiche
//! adapter (in the `quiche-vegas` crate), the simulator and the tests treat
//! them alike.
//!
//! The Vegas family is one controller, [`Vegas`], composed by
//! [`VegasConfig`]: Vegas or Gallop-Vegas slow start ([`gallop`]), Vegas or
//! Vegas-A congestion avoidance ([`vegas_a`]), fixed or Reno-compatible
//! alpha/beta ([`reno_compat`]), fixed or selected gamma ([`transient`]).
//! [`Controller::name`] tells the members apart (`vegas`, `vegas-a`,
//! `gallop-vegas`, `vegas-compat`, ...; see [`vegas`]).
//!
//! # Example
//!
//! A Vegas controller by name with `key=value` parameters ([`spec`]), fed
//! one sent packet and the ACK frame that acknowledges it:
//!
//! ```
//! use std::time::{Duration, Instant};
//! use vegas_cc::spec::{self, Params};
//! use vegas_cc::{AckEvent, AckedPacket, Controller, Phase, RttSample, SentPacket};
//!
//! let params: Params = [("alpha", "2"), ("beta", "4")]
//!     .into_iter()
//!     .map(|(k, v)| (k.to_string(), v.to_string()))
//!     .collect();
//! // 10 datagrams of 1200 bytes to start with.
//! let mut cc = spec::build("vegas", &params, 10, 1200)?;
//! assert_eq!(cc.name(), "vegas");
//! assert_eq!(cc.cwnd_bytes(), 12_000);
//!
//! let sent_at = Instant::now();
//! cc.on_packet_sent(
//!     sent_at,
//!     &SentPacket {
//!         pkt_num: 0,
//!         time_sent: sent_at,
//!         size_bytes: 1200,
//!         bytes_in_flight_before: 0,
//!         in_flight: true,
//!     },
//! );
//!
//! let rtt = Duration::from_millis(50);
//! let acked = [AckedPacket { pkt_num: 0, time_sent: sent_at, size_bytes: 1200 }];
//! cc.on_ack_event(&AckEvent {
//!     now: sent_at + rtt,
//!     acked: &acked,
//!     lost: &[],
//!     rtt_sample: Some(RttSample { latest_rtt: rtt, ack_delay: Duration::ZERO }),
//!     min_rtt: Some(rtt),
//!     smoothed_rtt: rtt,
//!     max_ack_delay: Duration::from_millis(25),
//!     prior_bytes_in_flight: 1200,
//!     bytes_in_flight: 0,
//!     persistent_congestion: false,
//! });
//!
//! assert_eq!(cc.phase(), Phase::SlowStart);
//! assert!(cc.cwnd_bytes() >= 12_000);
//! let _ = cc.pacing_rate_bytes_per_sec(rtt); // bytes per second, or None
//! # Ok::<(), vegas_cc::spec::SpecError>(())
//! ```

#![forbid(unsafe_code)]
#![deny(missing_docs)]

use std::fmt::Debug;
use std::time::Duration;
use std::time::Instant;

pub mod cubic;
mod error;
pub mod events;
pub mod gallop;
pub mod newreno;
#[cfg(feature = "qlog")]
pub mod qlog;
pub mod reno_compat;
pub mod sampler;
pub mod spec;
pub mod transient;
pub mod vegas;
pub mod vegas_a;
mod window;

#[cfg(test)]
mod bottleneck_tests;
#[cfg(test)]
pub(crate) mod test_sender;

pub use error::ParamError;
pub use events::ControllerEvent;
pub use events::EventQueue;
pub use newreno::NewReno;
pub use newreno::NewRenoConfig;
pub use reno_compat::CompatApproach;
pub use sampler::RoundSample;
pub use sampler::RoundSampler;
pub use sampler::SamplerConfig;
pub use transient::GammaApproach;
pub use vegas::AlphaBetaSource;
pub use vegas::AvoidanceKind;
pub use vegas::PacingPeriod;
pub use vegas::PtoResponse;
pub use vegas::SlowStartExitWindow;
pub use vegas::SlowStartGrowth;
pub use vegas::SlowStartKind;
pub use vegas::Vegas;
pub use vegas::VegasConfig;

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

/// The interface every controller implements.
pub trait Controller: Debug + Send + Sync {
    /// Stable algorithm name (`"vegas"`, `"newreno"`, ...).
    fn name(&self) -> &'static str;

    /// A packet was sent.
    fn on_packet_sent(&mut self, now: Instant, packet: &SentPacket);

    /// An ACK frame was processed, or the loss-detection timer declared
    /// packets lost (then `acked` is empty and `rtt_sample` is None).
    fn on_ack_event(&mut self, event: &AckEvent<'_>);

    /// A probe timeout fired (RFC 9002 section 6.2).
    fn on_pto(&mut self, now: Instant);

    /// The sender ran out of data with `bytes_in_flight` below the window.
    fn on_app_limited(&mut self, _now: Instant, _bytes_in_flight: usize) {}

    /// The path changed (migration): forget path state.
    fn on_path_change(&mut self, now: Instant);

    /// The maximum datagram size changed (PMTUD).
    fn set_max_datagram_size(&mut self, max_datagram_size: usize);

    /// Congestion window in bytes.
    fn cwnd_bytes(&self) -> usize;

    /// The bytes the sender may send now with `bytes_in_flight` in flight:
    /// the free window, rounded down to whole datagrams unless the
    /// controller's `whole_datagrams` is off. A stack that sizes packets to
    /// the free window (quiche) asks this; one that sends only when a full
    /// datagram fits (quinn) needs only [`Controller::cwnd_bytes`].
    fn cwnd_available_bytes(&self, bytes_in_flight: usize) -> usize;

    /// Slow-start threshold in bytes (None while infinite).
    fn ssthresh_bytes(&self) -> Option<usize>;

    /// Pacing rate in bytes per second; None means "do not pace".
    fn pacing_rate_bytes_per_sec(&self, smoothed_rtt: Duration) -> Option<u64>;

    /// Current phase.
    fn phase(&self) -> Phase;

    /// Whether the controller is in a recovery period (a loss reduction was
    /// made and no packet sent after it has been acknowledged yet).
    fn in_recovery(&self) -> bool {
        self.phase() == Phase::Recovery
    }

    /// A copy of the controller with all its state (for stacks that keep a
    /// path's controller across a port change, or snapshot it).
    fn clone_box(&self) -> Box<dyn Controller>;

    /// Takes the oldest pending decision record (for qlog), if any.
    fn poll_event(&mut self) -> Option<ControllerEvent> {
        None
    }
}
