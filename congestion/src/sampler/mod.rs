//! The round sampler: the one place a Vegas-family controller gets its RTT
//! and rate measurements from (Brakmo & Peterson, "TCP Vegas", JSAC 1995,
//! section III-B: BaseRTT, the distinguished segment, Actual).
//!
//! Files: this one holds the paper's round and [`RoundSampler`];
//! `config.rs` the settings ([`SamplerConfig`]); `base_rtt.rs` the BaseRTT
//! filter; `aggregation.rs` the ACK-aggregation estimator (bursts, release
//! clocks, hold bounds, phase lock); `credit.rs` the credit cycle.
//!
//! A round runs from the send of a distinguished packet to the ACK of that
//! packet or of any later one (by packet number, not by ACK count). The
//! first packet sent after a round ends is the next round's distinguished
//! packet, as `beg_snd_nxt` in Linux `tcp_vegas.c`. Per ACK event the
//! sampler takes one RTT sample, from `event.rtt_sample` (the largest newly
//! acknowledged packet, RFC 9002 section 5.1). When a round ends it reports
//! a [`RoundSample`]: BaseRTT, the round's RTT, the Actual rate, the bytes
//! behind it and whether the round is usable for a window decision.
//!
//! Interpretation choices:
//! - Rounds partition time: round k covers (end of round k-1, end of round
//!   k], and `interval` is that span (the first round starts at the send of
//!   its distinguished packet). When sending is ACK-clocked the distinguished
//!   packet leaves as the previous round ends, so `interval` is the RTT of
//!   the distinguished segment the paper divides by (III-B). Because every
//!   byte falls into exactly one round, thinned or bunched ACKs move round
//!   boundaries but not the rate: N bytes over T seconds stay N/T.
//! - Actual, four ways ([`ActualBytes`]):
//!   - `AckedOverRoundRtt` (paper mode; Gallop-Vegas and Vanichpun & Feng): Actual = W / D,
//!     W the bytes acknowledged in the round and D the mean RTT of their
//!     samples. Gallop-Vegas section II: "Expected = W/d and Actual = W/D";
//!     IV-A: "In an actual Vegas implementation, D is the smoothed RTT ...
//!     the average of the actual RTTs of all packets in the same round";
//!     Vanichpun & Feng section III models the same. With Expected's window the
//!     same W ([`crate::vegas::ExpectedWindow::InTransit`]), Diff = W (1 - d / D), the
//!     formula both papers' analyses and tables use.
//!   - `Sent` (III-B read literally): bytes *sent* in the round / interval:
//!     "recording how many bytes are transmitted between the time that
//!     segment is sent and its acknowledgment is received ... dividing the
//!     number of bytes transmitted by the sample RTT".
//!   - `Acked`: bytes acknowledged in the round / interval. With ACK
//!     clocking the bytes acknowledged in a round were sent under the
//!     previous round's window, so after a +1 step Diff reads about one
//!     packet too high for one round.
//!   - `Delivered` (default): bytes acknowledged in the round over the span
//!     of their *send* times (from the send of the largest packet acked at
//!     the previous round end to that of the largest packet acked at this
//!     one). Round boundaries fall on ACK arrivals, so with an ACK every N
//!     packets, a delayed-ACK timer, ACK aggregation or pacing gaps the
//!     interval jitters by up to an ACK spacing and `Sent`/`Acked` misread
//!     Diff by several packets; the send span of the delivered packets does
//!     not depend on when ACKs arrive at all.
//!
//!   `Sent` was the paper mode until it was measured on ACK-clocked
//!   windows below the path's capacity (the slow start of a large-BDP
//!   path): the window leaves as a train, the distinguished packet is the
//!   train's first and sees no queue, so `interval` is BaseRTT and Actual
//!   is the bytes sent over BaseRTT. Diff then reads only the window's
//!   bookkeeping (the window at the round's end minus the bytes sent in
//!   it, 0 or 1 packet in alternate rounds) and none of the queue the
//!   train builds: in the `gallop-vegas` scenarios round RTTs 1 to 3
//!   packets above BaseRTT gave Diff 0.00, and Gallop-Vegas halved its
//!   increment on the alternate Diff = 1.00 rounds.
//! - Per-ACK RTT sample: RFC 9002 5.3 ack-delay adjustment when
//!   `subtract_ack_delay` (the delay is capped at max_ack_delay, and a
//!   result below min RTT becomes min RTT where RFC 9002 keeps the whole
//!   sample); zero samples are discarded (a `Duration` cannot be
//!   negative).
//! - BaseRTT is the minimum of the (adjusted) samples: over the whole
//!   connection ([`BaseRttMode::Lifetime`], III-B) or over a sliding window
//!   ([`BaseRttMode::Windowed`], Kathleen Nichols' windowed min filter as
//!   in Linux `lib/minmax.c`), optionally forgotten after an idle period.
//! - BaseRTT from full-sized packets (`base_rtt_full_sized_only`, on in
//!   paper mode): the papers' senders move equal-sized segments, so
//!   BaseRTT is the RTT of a full segment. A QUIC connection also sends
//!   small packets (handshake completion, the tail of a stream write),
//!   whose RTT is lower by their shorter serialization at the bottleneck:
//!   (max_datagram_size - size) / rate, 0.15 ms at 50 Mbit/s but 8.8 ms
//!   at 1 Mbit/s for a 100-byte packet. Taken as BaseRTT, a full-sized
//!   packet then always looks queued by that much, and Diff reads
//!   Actual * (that gap) packets high (measured: 0.3 to 0.7 packets in the
//!   `gallop-vegas` scenario, a third to two thirds of gamma). A sample
//!   counts for BaseRTT when the packet it measures (the largest newly
//!   acknowledged, RFC 9002 5.1) is a full datagram; until the first such
//!   sample, every sample counts. Round RTTs still use every sample.
//! - ACK aggregation (`aggregation_aware`): a path that holds ACK frames
//!   and releases them together (Wi-Fi, cellular, a token bucket) adds the
//!   hold to every RTT sample, and the smallest sample of a round keeps
//!   its share: with an ACK every N packets, up to N packet times. A frame
//!   is in a burst when it follows the previous one by less than a quarter
//!   of the time between the sends of the packets the two measure and
//!   acknowledges its bytes at over four times the smoothed rate of the
//!   frames outside bursts (a draining queue also brings ACKs closer, but
//!   no faster than the bottleneck delivers). Every
//!   frame of a burst was released after the last frame before the burst
//!   arrived (else it would have come with that one), so its packet's
//!   hold-free RTT is at least `that arrival - its send time` (a lower
//!   bound), and at most its sample (an upper bound). Once the path has
//!   shown a burst within [`AGGREGATION_MEMORY`] or has a release clock
//!   (below), a round's `Min` RTT is
//!   the middle of [largest lower bound, smallest sample] over the round,
//!   or the smallest sample if the interval is empty (the RTT moved within
//!   the round). On a path that does not bunch ACKs nothing changes: the
//!   smallest sample is exact there, and the middle would be off by half
//!   an ACK spacing. Measured on the `ack-frequency` scenario with 20 ms
//!   aggregation: an ACK every 4 packets gives 49% steady utilization
//!   with the smallest sample and 99.8% with the bounds.
//! - Release clocks: many aggregators (a Wi-Fi TXOP, a cellular scheduler,
//!   our simulator's `reverse.aggregation`) release on the ticks of a clock.
//!   When eight gaps between releases (frames within a burst or 200 us of
//!   each other count as one release) are all whole multiples of one period,
//!   to 1% of it (at most 200 us), and either differ in multiple or include a
//!   release of several frames, the path has a release period P (and at least
//!   4 packets are acknowledged per period, so that a busy bottleneck's
//!   service time is not taken for one). Every frame, in a burst or not, then
//!   reached the clock less than P before its release began: its lower bound
//!   is `sample - P`. This sees the hold of a flow that gets one frame per
//!   release, where no burst ever shows. One gap off the lattice forgets the
//!   period.
//! - Phase lock: a window-limited flow on a release clock can lock to a whole
//!   pattern of frames per release (one frame of 8 packets every 20 ms, 38%
//!   of the `ack-frequency` path). Its rounds repeat each other's samples
//!   exactly, and its holds sit wherever Vegas stopped growing: more window
//!   only moves them, like a queue, until one more frame shares a release.
//!   After two rounds that repeat the previous one's bounds, with the bounds
//!   at least [`PHASE_LOCK_MIN_WIDTH_PKTS`] packet times apart, a round's RTT
//!   is its lower bound (never below BaseRTT), so Vegas grows through the
//!   lock; the lock ends when the delivery rate rises by half a frame per
//!   period, or when the window has grown by one frame's bytes without it,
//!   which says the extra RTT was a queue (then no new lock for
//!   [`PHASE_LOCK_RETRY`]), or after twice that frame's packets of rounds (a
//!   window that cannot grow). Measured with 20 ms aggregation: an ACK every
//!   8 packets goes from 37% to 99.4% steady utilization, every 16 from 55%
//!   to 99.9%.
//! - The round's minimum RTT reads the trough of any queue that swings
//!   within a round. Pacing one window per credit cycle ran ahead of the
//!   bottleneck each time the window stalled on a release, so the queue
//!   rose for a round and drained in the stall, unseen (mean 4.9 and 6.6
//!   packets at N = 8 and 16 with 20 ms aggregation). The Vegas family
//!   therefore caps its pacing at the recent Actual plus a few packets per
//!   round and paces its BaseRTT drains (`VegasConfig::pacing_headroom_pkts`
//!   in `vegas/config.rs`): 2.5 and 3.6 packets. With an ACK every 16 packets a
//!   round still has only 3 to 5 frames, and its bounds can be 20 ms apart;
//!   some paths still lock there (docs/ack-frequency.md).
//! - A round that ends with fewer than `min_round_samples` RTT samples or
//!   `min_round_bytes` bytes is extended to the next distinguished packet
//!   instead of being reported. A peer that acknowledges less often than
//!   every second packet (more than [`THINNED_ACK_PKTS_PER_FRAME`] packets
//!   per frame, smoothed) cannot give a small window three samples: the
//!   round then needs only as many as its packets allow at that frequency,
//!   at least one (not on an aggregating path, whose hold bounds need
//!   several frames). Measured on `ack-frequency` with an ACK every 16
//!   packets: rounds of 2.5 RTTs became rounds of about one.
//! - Gating (`require_cwnd_limited`): a round is usable only if some send in
//!   it left less than one max_datagram_size of window free and
//!   `on_app_limited` was not signalled in it. Otherwise the bytes sent are
//!   set by the application, not by the window, and say nothing about the
//!   network.

use std::time::Duration;
use std::time::Instant;

use crate::error::ParamError;
use crate::types::AckEvent;
use crate::types::SentPacket;

mod aggregation;
mod base_rtt;
mod config;
mod credit;

use aggregation::*;
pub use aggregation::{
    AGGREGATION_MEMORY, BURST_COMPRESSION_FACTOR, FRAME_RATE_MIN_PKTS, FRAME_RATE_WINDOW_DIVISOR,
    LATTICE_EVIDENCE_GAPS, LATTICE_MIN_PERIOD_PKTS, LATTICE_TOLERANCE_MAX,
    PHASE_LOCK_MIN_WIDTH_PKTS, PHASE_LOCK_RETRY, PHASE_LOCK_ROUNDS, THINNED_ACK_PKTS_PER_FRAME,
};
use base_rtt::*;
pub use base_rtt::{DEFAULT_BASE_RTT_WINDOW, DEFAULT_IDLE_RESET};
pub use config::{ActualBytes, BaseRttMode, RoundEnd, RoundRttStat, SamplerConfig};
pub use credit::CREDIT_CYCLE_MAX_STEP;

/// III-B: Actual is computed from one distinguished segment per RTT.
pub const PAPER_MIN_ROUND_SAMPLES: u32 = 1;

/// Linux `tcp_vegas.c` only trusts a round with more than two RTT samples
/// ("cntRTT <= 2": with delayed ACKs fewer samples are not reliable).
pub const DEFAULT_MIN_ROUND_SAMPLES: u32 = 3;

/// The smallest window RFC 9002 section 7.2 allows (kMinimumWindow, two
/// datagrams) at the smallest QUIC datagram size (1200 bytes, RFC 9000
/// section 14): a rate from less than that is not a window's rate.
pub const DEFAULT_MIN_ROUND_BYTES: u64 = 2 * 1200;

/// RFC 9002 section 5.3's smoothing gain (1/8), used for the credit cycle
/// and the ACK rate outside bursts.
const SMOOTHING_GAIN_DENOMINATOR: u32 = 8;

/// The delay noise is read from round means of at least this many
/// samples: the smallest of several means of five samples each was 0.2 ms
/// below the noise's 0.6 ms mean (virtual time, 300 us of jitter each
/// way), of 16 and more about 0.05 ms. Our choice.
pub const DELAY_NOISE_MIN_SAMPLES: u32 = 16;

/// The largest delay noise the sampler assumes: RFC 9002's timer
/// granularity (kGranularity, 6.1.2), which bounds what hosts' timers and
/// schedulers add. A larger gap between the quietest round's mean and
/// BaseRTT is a queue: a first window of 90 packets queued behind itself
/// at 1 packet per ms read as 45 ms of "noise" and hid the queue from
/// slow start for a doubling.
pub const MAX_DELAY_NOISE: Duration = Duration::from_millis(1);

/// What one finished round measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundSample {
    /// BaseRTT when the round ended.
    pub base_rtt: Duration,
    /// The round's RTT (min or mean of its samples, per `round_rtt`).
    pub round_rtt: Duration,
    /// The round's RTT per `slow_start_round_rtt`, less the path's delay
    /// noise with `subtract_delay_noise` (never below the round's
    /// smallest sample).
    pub slow_start_round_rtt: Duration,
    /// Actual = counted bytes / interval or send span, per
    /// `SamplerConfig::actual_bytes`.
    pub actual_bytes_per_sec: f64,
    /// Bytes sent in the round (in-flight packets only).
    pub bytes_sent: u64,
    /// Bytes newly acknowledged in the round.
    pub bytes_acked: u64,
    /// RTT samples in the round.
    pub samples: u32,
    /// From the end of the previous round to the end of this one.
    pub interval: Duration,
    /// Some send in the round left less than one datagram of window.
    pub cwnd_limited: bool,
    /// `on_app_limited` was signalled during the round.
    pub app_limited: bool,
    /// The controller may base a window decision on this round.
    pub usable: bool,
    /// `round_rtt` (with [`RoundRttStat::Min`]) is the middle of the hold
    /// bounds because the path aggregates ACKs (module documentation).
    pub hold_bounded: bool,
    /// The round's fastest delivery rate over at least
    /// [`FRAME_RATE_MIN_PKTS`] packets of ACK frames outside bursts, in
    /// bytes per second of arrival time (0 without one).
    pub max_ack_rate_bytes_per_sec: f64,
}

/// What the round in progress has collected.
#[derive(Clone, Copy, Debug)]
struct RoundTally {
    /// The round ends at an ACK of this packet number or a larger one.
    end_pkt_num: u64,
    start: Instant,
    bytes_sent: u64,
    ack_events: u32,
    bytes_acked: u64,
    samples: u32,
    rtt_min: Duration,
    rtt_sum: Duration,
    cwnd_limited: bool,
    app_limited: bool,
    /// Send time of the largest packet acknowledged when the previous round
    /// ended (the start of the delivered bytes' send span).
    span_start: Option<Instant>,
    /// The window when the round started.
    start_cwnd_bytes: usize,
    /// Largest lower bound on a hold-free RTT found in the round
    /// ([`RoundSampler::hold_lower_bound`]).
    rtt_lower_bound: Option<Duration>,
    /// The path aggregated ACKs (a burst within [`AGGREGATION_MEMORY`], or
    /// a release clock) when one of the round's frames arrived.
    aggregated: bool,
    /// The release period of the ACK aggregation, if one was found when
    /// the round's last frame arrived ([`ReleaseLattice`]).
    release_period: Option<Duration>,
    /// The fastest rate over [`FRAME_RATE_MIN_PKTS`] packets of frames
    /// outside ACK bursts ([`RecentFrames`]).
    max_ack_rate_bytes_per_sec: f64,
}

impl RoundTally {
    fn new(
        end_pkt_num: u64,
        start: Instant,
        span_start: Option<Instant>,
        start_cwnd_bytes: usize,
    ) -> Self {
        RoundTally {
            end_pkt_num,
            start,
            span_start,
            start_cwnd_bytes,
            bytes_sent: 0,
            ack_events: 0,
            bytes_acked: 0,
            samples: 0,
            rtt_min: Duration::MAX,
            rtt_sum: Duration::ZERO,
            cwnd_limited: false,
            app_limited: false,
            rtt_lower_bound: None,
            aggregated: false,
            release_period: None,
            max_ack_rate_bytes_per_sec: 0.0,
        }
    }
}

/// Per-round RTT and rate measurement for Vegas-family controllers.
#[derive(Clone, Debug)]
pub struct RoundSampler {
    config: SamplerConfig,
    max_datagram_size: usize,
    /// BaseRTT over every sample.
    base_rtt: BaseRttFilter,
    /// BaseRTT over samples of full-sized packets.
    full_sized_base_rtt: BaseRttFilter,
    latest_rtt: Option<Duration>,
    largest_sent_pkt_num: Option<u64>,
    /// The largest packet number any ACK frame has acknowledged.
    largest_acked_pkt_num: Option<u64>,
    /// None: no round in progress; the next in-flight send starts one.
    round: Option<RoundTally>,
    /// Since when nothing has been in flight.
    idle_since: Option<Instant>,
    /// The window of the latest send.
    last_cwnd_bytes: usize,
    /// The previous ACK frame with an RTT sample.
    last_ack: Option<AckArrival>,
    /// Arrival of the last ACK frame before the current burst.
    burst_prev_arrival: Option<Instant>,
    /// The release clock of an aggregating path, if frames arrive on one.
    lattice: ReleaseLattice,
    /// Whether the flow is locked to that clock.
    phase_lock: PhaseLock,
    /// When an ACK frame last arrived in a burst.
    last_burst_at: Option<Instant>,
    /// Bytes acknowledged per second of ACK arrival gap over frames that
    /// did not arrive in a burst, smoothed with a 1/8 gain.
    ack_rate_bytes_per_sec: Option<f64>,
    /// The same, each frame's rate no faster than its packets were sent
    /// ([`RoundSampler::sent_ack_rate_bytes_per_sec`]).
    sent_ack_rate_bytes_per_sec: Option<f64>,
    /// Smoothed time from a byte's send to the ACK that reports it
    /// ([`RoundSampler::credit_cycle`]).
    credit_cycle: Option<Duration>,
    /// The latest frames outside bursts, for each round's fastest rate.
    recent_frames: RecentFrames,
    /// Packets newly acknowledged per ACK frame, smoothed with a 1/8 gain:
    /// the peer's ACK frequency as this sender sees it.
    pkts_per_ack_frame: Option<f64>,
    /// The smallest mean RTT of a round so far ([`RoundSampler::delay_noise`]).
    min_round_mean_rtt: Option<Duration>,
}

impl RoundSampler {
    /// A sampler for `config` on a path of `max_datagram_size` bytes, or
    /// the first parameter `config` rejects.
    pub fn new(config: SamplerConfig, max_datagram_size: usize) -> Result<Self, ParamError> {
        config.validate()?;
        Ok(RoundSampler {
            config,
            max_datagram_size,
            base_rtt: BaseRttFilter::new(config.base_rtt),
            full_sized_base_rtt: BaseRttFilter::new(config.base_rtt),
            latest_rtt: None,
            largest_sent_pkt_num: None,
            largest_acked_pkt_num: None,
            round: None,
            idle_since: None,
            last_cwnd_bytes: 0,
            last_ack: None,
            burst_prev_arrival: None,
            lattice: ReleaseLattice::default(),
            phase_lock: PhaseLock::default(),
            last_burst_at: None,
            ack_rate_bytes_per_sec: None,
            sent_ack_rate_bytes_per_sec: None,
            credit_cycle: None,
            min_round_mean_rtt: None,
            recent_frames: RecentFrames::default(),
            pkts_per_ack_frame: None,
        })
    }

    /// The configuration the sampler was built with.
    pub fn config(&self) -> &SamplerConfig {
        &self.config
    }

    /// BaseRTT: the minimum RTT per `config.base_rtt`; None before the
    /// first sample.
    pub fn base_rtt(&self) -> Option<Duration> {
        self.base_rtt_filter().get()
    }

    /// The filter BaseRTT is read from: full-sized packets' once there is
    /// one (with `base_rtt_full_sized_only`), otherwise every sample's.
    fn base_rtt_filter(&self) -> &BaseRttFilter {
        if self.config.base_rtt_full_sized_only && self.full_sized_base_rtt.get().is_some() {
            &self.full_sized_base_rtt
        } else {
            &self.base_rtt
        }
    }

    /// Forgets BaseRTT.
    fn clear_base_rtt(&mut self) {
        self.base_rtt = BaseRttFilter::new(self.config.base_rtt);
        self.full_sized_base_rtt = BaseRttFilter::new(self.config.base_rtt);
    }

    /// Replaces BaseRTT by `rtt` measured at `now` (a controller that has
    /// verified the old BaseRTT is stale, e.g. after a route change).
    pub fn reset_base_rtt(&mut self, now: Instant, rtt: Duration) {
        self.clear_base_rtt();
        self.base_rtt.update(now, rtt);
        self.full_sized_base_rtt.update(now, rtt);
    }

    /// How long ago the windowed BaseRTT was measured (None: lifetime
    /// BaseRTT, or no sample yet).
    pub fn base_rtt_age(&self, now: Instant) -> Option<Duration> {
        match self.base_rtt_filter() {
            BaseRttFilter::Lifetime(_) => None,
            BaseRttFilter::Windowed(filter) => filter.age(now),
        }
    }

    /// The last RTT sample taken (after ack-delay adjustment).
    pub fn latest_rtt(&self) -> Option<Duration> {
        self.latest_rtt
    }

    /// Bytes acknowledged per second of ACK arrival gap (or of send gap,
    /// where the packets were sent further apart than their frames
    /// arrived: BBR's delivery-rate guard), smoothed over the frames
    /// outside ACK bursts (1/8 gain): while a queue persists at the
    /// bottleneck, its rate.
    pub fn sent_ack_rate_bytes_per_sec(&self) -> Option<f64> {
        self.sent_ack_rate_bytes_per_sec
    }

    /// The maximum datagram size changed (PMTUD), in bytes.
    pub fn set_max_datagram_size(&mut self, max_datagram_size: usize) {
        self.max_datagram_size = max_datagram_size;
    }

    /// Records a send; `cwnd_bytes` is the window the packet was sent under.
    pub fn on_packet_sent(&mut self, packet: &SentPacket, cwnd_bytes: usize) {
        self.largest_sent_pkt_num = Some(packet.pkt_num);
        self.last_cwnd_bytes = cwnd_bytes;
        if !packet.in_flight {
            return;
        }
        if let (Some(idle_since), Some(idle_reset)) =
            (self.idle_since, self.config.base_rtt_idle_reset)
        {
            if packet.bytes_in_flight_before == 0
                && packet.time_sent.saturating_duration_since(idle_since) >= idle_reset
            {
                self.clear_base_rtt();
                self.round = None;
            }
        }
        self.idle_since = None;
        let round = self.round.get_or_insert_with(|| {
            RoundTally::new(packet.pkt_num, packet.time_sent, None, cwnd_bytes)
        });
        if round.bytes_sent == 0 {
            // The window the round's first send went out under.
            round.start_cwnd_bytes = cwnd_bytes;
        }
        round.bytes_sent += packet.size_bytes as u64;
        let in_flight_after = packet.bytes_in_flight_before + packet.size_bytes;
        if in_flight_after + self.max_datagram_size > cwnd_bytes {
            round.cwnd_limited = true;
        }
    }

    /// The sender ran out of data below its window.
    pub fn on_app_limited(&mut self, _now: Instant) {
        if let Some(round) = &mut self.round {
            round.app_limited = true;
        }
    }

    /// One ACK frame: its RTT sample feeds BaseRTT and the round in
    /// progress; returns the round's measurement when this frame ends it
    /// (Brakmo & Peterson III-B: one decision per RTT).
    pub fn on_ack_frame(&mut self, event: &AckEvent<'_>) -> Option<RoundSample> {
        if event.bytes_in_flight == 0 {
            self.idle_since = Some(event.now);
        }
        self.update_credit_cycle(event);
        self.update_pkts_per_ack_frame(event);
        let acked_bytes: u64 = event.acked.iter().map(|p| p.size_bytes as u64).sum();
        let (rtt, hold) = self.take_rtt_sample(event, acked_bytes);
        if !self.tally_frame(event, acked_bytes, rtt, hold)? {
            return None;
        }
        self.close_round(event)
    }

    /// RFC 9002 5.1's sample of the frame (only when it newly acknowledges
    /// the largest packet), into BaseRTT; and the frame's hold bound on an
    /// aggregating path (`aggregation.rs`).
    fn take_rtt_sample(
        &mut self,
        event: &AckEvent<'_>,
        acked_bytes: u64,
    ) -> (Option<Duration>, HoldBound) {
        // The sample measures the largest newly acknowledged packet.
        let largest = event.acked.iter().max_by_key(|p| p.pkt_num);
        // (A frame without packets cannot be checked and is believed.)
        let newly_largest = largest.is_none_or(|p| {
            self.largest_acked_pkt_num
                .is_none_or(|previous| p.pkt_num > previous)
        });
        if let Some(p) = largest.filter(|_| newly_largest) {
            self.largest_acked_pkt_num = Some(p.pkt_num);
        }
        let rtt = if newly_largest {
            self.rtt_sample(event, largest.map(|p| p.time_sent))
        } else {
            None
        };
        let mut hold = HoldBound::default();
        if let Some(rtt) = rtt {
            self.base_rtt.update(event.now, rtt);
            if largest.is_some_and(|p| p.size_bytes >= self.max_datagram_size) {
                self.full_sized_base_rtt.update(event.now, rtt);
            }
            self.latest_rtt = Some(rtt);
            if let Some(largest) = largest {
                hold = self.hold_lower_bound(event, acked_bytes, largest.time_sent, rtt);
            }
        }
        if hold.in_burst {
            self.last_burst_at = Some(event.now);
        }
        (rtt, hold)
    }

    /// Adds the frame to the round in progress; whether it ends the round.
    /// None: no round in progress.
    fn tally_frame(
        &mut self,
        event: &AckEvent<'_>,
        acked_bytes: u64,
        rtt: Option<Duration>,
        hold: HoldBound,
    ) -> Option<bool> {
        let release_period = self.lattice.period;
        let path_aggregates = release_period.is_some()
            || self
                .last_burst_at
                .is_some_and(|at| event.now.saturating_duration_since(at) <= AGGREGATION_MEMORY);
        let ack_count_target = self.ack_count_target();
        let round = self.round.as_mut()?;
        round.bytes_acked += acked_bytes;
        if let Some(rtt) = rtt {
            round.samples += 1;
            round.rtt_min = round.rtt_min.min(rtt);
            round.rtt_sum = round.rtt_sum.saturating_add(rtt);
        }
        if let Some(lower_bound) = hold.lower_bound {
            round.rtt_lower_bound = Some(
                round
                    .rtt_lower_bound
                    .map_or(lower_bound, |b| b.max(lower_bound)),
            );
        }
        round.aggregated |= path_aggregates;
        round.release_period = release_period;
        round.ack_events += 1;
        let ends = match self.config.round_end {
            RoundEnd::PacketNumber => event
                .acked
                .last()
                .is_some_and(|p| p.pkt_num >= round.end_pkt_num),
            RoundEnd::AckCount => round.ack_events >= ack_count_target,
        };
        Some(ends)
    }

    /// The round ended: its measurement, or None if it is too thin to
    /// measure, in which case it extends to the next distinguished packet.
    fn close_round(&mut self, event: &AckEvent<'_>) -> Option<RoundSample> {
        let pkts_per_ack_frame = self.pkts_per_ack_frame;
        let last_cwnd_bytes = self.last_cwnd_bytes;
        let base_rtt = self.base_rtt();
        let round = self.round.as_mut()?;
        let next_pkt_num = self.largest_sent_pkt_num.map_or(0, |n| n + 1);
        // Hold bounds need several frames of a round (module
        // documentation): an aggregating path keeps the configured minimum.
        let min_round_samples = if round.aggregated {
            self.config.min_round_samples
        } else {
            min_round_samples(
                self.config.min_round_samples,
                round.bytes_acked,
                self.max_datagram_size,
                pkts_per_ack_frame,
            )
        };
        let largest_acked_sent = event.acked.last().map(|p| p.time_sent);
        let interval = event.now.saturating_duration_since(round.start);
        // The first round has no previous largest acked packet: its span
        // starts at its distinguished packet's send.
        let span_start = round.span_start.unwrap_or(round.start);
        let send_span =
            largest_acked_sent.map_or(Duration::ZERO, |t| t.saturating_duration_since(span_start));
        let mean_rtt = round.rtt_sum.checked_div(round.samples).unwrap_or_default();
        let (counted_bytes, denominator) = match self.config.actual_bytes {
            ActualBytes::AckedOverRoundRtt => (
                round.bytes_acked,
                match self.config.round_rtt {
                    RoundRttStat::Min => round.rtt_min.min(mean_rtt),
                    RoundRttStat::Mean => mean_rtt,
                },
            ),
            ActualBytes::Sent => (round.bytes_sent, interval),
            ActualBytes::Acked => (round.bytes_acked, interval),
            // BBR's delivery-rate guard (draft-ietf-ccwg-bbr, "Delivery
            // Rate Samples"): the longer of the send and ACK spans, so a
            // send burst (slow start) or an ACK burst cannot inflate it.
            ActualBytes::Delivered => (round.bytes_acked, send_span.max(interval)),
        };
        if round.samples < min_round_samples
            || counted_bytes < self.config.min_round_bytes
            || denominator.is_zero()
        {
            // Too little to go on: extend to the next distinguished packet.
            round.end_pkt_num = next_pkt_num;
            return None;
        }
        let tally = *round;
        let (hold_aware_min, hold_bounded) =
            self.hold_aware_round_min(event.now, &tally, interval, base_rtt, last_cwnd_bytes);
        let mean_rtt = tally.rtt_sum / tally.samples;
        if tally.samples >= DELAY_NOISE_MIN_SAMPLES {
            self.min_round_mean_rtt = Some(
                self.min_round_mean_rtt
                    .map_or(mean_rtt, |m| m.min(mean_rtt)),
            );
        }
        let stat = |stat: RoundRttStat| match stat {
            RoundRttStat::Min => hold_aware_min,
            RoundRttStat::Mean => mean_rtt,
        };
        let round_rtt = stat(self.config.round_rtt);
        let mut slow_start_round_rtt = stat(self.config.slow_start_round_rtt);
        if self.config.subtract_delay_noise {
            let noise = self.delay_noise().unwrap_or_default();
            slow_start_round_rtt = slow_start_round_rtt
                .saturating_sub(noise)
                .max(tally.rtt_min.min(mean_rtt));
        }
        let round = self.round.as_mut()?;
        // The round's own sends must have used the window: a round that
        // mostly waited on packets of the previous one (a QUIC handshake,
        // a request in flight) measures nothing about the path. A paced
        // sender rarely has the whole window in flight at one instant, so
        // sending two thirds of a window in the round counts as using it
        // too (measured with the h3 example over the link emulator: a real
        // event loop paces late enough that three quarters froze Vegas).
        let own_sends = 2 * round.bytes_sent >= round.start_cwnd_bytes as u64;
        let window_used =
            round.cwnd_limited || 3 * round.bytes_sent >= 2 * round.start_cwnd_bytes as u64;
        // `app_limited` is recorded but does not decide: a stack may report
        // it for any packet built without application data while the window
        // had room (quiche does so for an ACK-only packet between two
        // application writes), so one signal says little; the bytes the
        // round sent do.
        let usable = !self.config.require_cwnd_limited || (own_sends && window_used);
        let sample = RoundSample {
            // A windowed BaseRTT can expire every sample of a round that
            // outlasted the window (packets outstanding for longer than
            // it); the round's own smallest sample bounds it still.
            base_rtt: base_rtt?.min(round.rtt_min),
            round_rtt,
            slow_start_round_rtt,
            actual_bytes_per_sec: counted_bytes as f64 / denominator.as_secs_f64(),
            bytes_sent: round.bytes_sent,
            bytes_acked: round.bytes_acked,
            samples: round.samples,
            interval,
            cwnd_limited: round.cwnd_limited,
            app_limited: round.app_limited,
            usable,
            hold_bounded: hold_bounded && self.config.round_rtt == RoundRttStat::Min,
            max_ack_rate_bytes_per_sec: round.max_ack_rate_bytes_per_sec,
        };
        *round = RoundTally::new(next_pkt_num, event.now, largest_acked_sent, last_cwnd_bytes);
        Some(sample)
    }

    /// The path's delay noise: the smallest mean RTT of a round so far
    /// (rounds of at least [`DELAY_NOISE_MIN_SAMPLES`] samples) less
    /// BaseRTT. BaseRTT is the smallest of all samples, the one that
    /// carried the least noise; the quietest round's mean (an early one,
    /// its window far below the pipe) carries the mean noise. On a path
    /// without noise that is near zero; where timers, schedulers or a
    /// link emulator add a fraction of a millisecond to each packet it is
    /// about that mean, and a round's mean carries the same: at
    /// 100 Mbit/s x 80 ms a 0.2 ms noise reads as 1.9 packets of Diff in a
    /// 650-packet window, and slow start, which judges the mean, left at
    /// 0.86 of the pipe (virtual time with 100 us of jitter each way).
    /// At most [`MAX_DELAY_NOISE`].
    pub fn delay_noise(&self) -> Option<Duration> {
        Some(
            self.min_round_mean_rtt?
                .saturating_sub(self.base_rtt()?)
                .min(MAX_DELAY_NOISE),
        )
    }

    /// Smooths the packets each ACK frame newly acknowledges.
    fn update_pkts_per_ack_frame(&mut self, event: &AckEvent<'_>) {
        if event.acked.is_empty() {
            return;
        }
        let pkts = event.acked.len() as f64;
        self.pkts_per_ack_frame = Some(match self.pkts_per_ack_frame {
            None => pkts,
            Some(smoothed) => {
                let n = f64::from(SMOOTHING_GAIN_DENOMINATOR);
                (smoothed * (n - 1.0) + pkts) / n
            }
        });
    }

    /// AckCount rounds end after one ACK per packet of the window.
    fn ack_count_target(&self) -> u32 {
        (self.last_cwnd_bytes / self.max_datagram_size.max(1)).max(1) as u32
    }

    /// Drops the round in progress; the next send starts a fresh one (after
    /// a window reduction, as Linux `vegas_enable` does).
    pub fn restart_round(&mut self) {
        self.round = None;
    }

    /// The path changed: forget everything measured.
    pub fn on_path_change(&mut self) {
        self.clear_base_rtt();
        self.latest_rtt = None;
        self.round = None;
        self.idle_since = None;
        self.last_ack = None;
        self.burst_prev_arrival = None;
        self.lattice = ReleaseLattice::default();
        self.phase_lock = PhaseLock::default();
        self.last_burst_at = None;
        self.ack_rate_bytes_per_sec = None;
        self.sent_ack_rate_bytes_per_sec = None;
        self.recent_frames = RecentFrames::default();
        // The old path's send-to-ACK time would pace the new one.
        self.credit_cycle = None;
    }

    /// One RTT sample per ACK event (RFC 9002 5.1), ack-delay adjusted per
    /// RFC 9002 5.3 when configured; zero samples discarded. The caller
    /// passes only frames whose largest newly acknowledged packet is the
    /// largest yet: RFC 9002 5.1 samples a frame's Largest Acknowledged
    /// when it is newly acknowledged, and since ACK frames are cumulative
    /// that packet is the largest ever acknowledged. A frame that newly
    /// reports only older packets (ranges a stack reports late) would
    /// measure their wait, not the path.
    fn rtt_sample(&self, event: &AckEvent<'_>, largest_sent: Option<Instant>) -> Option<Duration> {
        let sample = event.rtt_sample?;
        // No sample is longer than its packet (sent at `largest_sent`) is
        // old: a stack that says otherwise is read as the packet's age.
        let age = largest_sent.map(|sent| event.now.saturating_duration_since(sent));
        let latest_rtt = age.map_or(sample.latest_rtt, |age| sample.latest_rtt.min(age));
        if latest_rtt.is_zero() {
            return None;
        }
        if !self.config.subtract_ack_delay {
            return Some(latest_rtt);
        }
        // A min_rtt of zero is no min_rtt: with an ACK delay as long as the
        // sample it would make BaseRTT zero and Expected infinite.
        let min_rtt = event
            .min_rtt
            .filter(|m| !m.is_zero())
            .map_or(latest_rtt, |m| m.min(latest_rtt));
        let ack_delay = sample.ack_delay.min(event.max_ack_delay);
        // RFC 9002 5.3 keeps the whole sample when subtracting would go
        // below min_rtt. The stack's min_rtt is itself a raw sample with
        // its own ack delay, so a sample held by a delayed-ACK timer often
        // lands just below it: keeping all of it read an 8.8 ms timer as
        // 8 packets of queue (an ACK every 16 packets, 10 Mbit/s). Never
        // below min_rtt is the rule's intent; min_rtt is the closest
        // sample that keeps it.
        Some(latest_rtt.saturating_sub(ack_delay).max(min_rtt))
    }
}

/// The RTT samples a round needs: `configured`, or as many as the peer's
/// ACK frames can give when it acknowledges less often than every second
/// packet ([`THINNED_ACK_PKTS_PER_FRAME`]): a round of P packets with an ACK
/// every f packets has about P / f samples, and waiting for `configured`
/// would stretch it over several RTTs (with an ACK every 16 packets and a
/// 20-packet window, rounds of 2.5 RTTs: a third of Vegas's growth).
fn min_round_samples(
    configured: u32,
    acked_bytes: u64,
    max_datagram_size: usize,
    pkts_per_ack_frame: Option<f64>,
) -> u32 {
    match pkts_per_ack_frame {
        Some(per_frame) if per_frame > THINNED_ACK_PKTS_PER_FRAME => {
            let acked_pkts = acked_bytes as f64 / max_datagram_size.max(1) as f64;
            let frames = (acked_pkts / per_frame).floor() as u32;
            configured.min(frames.max(1))
        }
        _ => configured,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_sender::acked_packet;
    use crate::test_sender::sent_packet;
    use crate::test_sender::AckEventBuilder;
    use crate::test_sender::MDS;
    use crate::test_sender::MS;
    use crate::types::AckedPacket;
    use crate::types::RttSample;

    /// One ACK frame at `now` with an RTT sample of `latest_rtt` (also the
    /// smoothed RTT), no min RTT, no bytes in flight before and one packet
    /// after.
    fn ack_event(now: Instant, acked: &[AckedPacket], latest_rtt: Duration) -> AckEvent<'_> {
        AckEventBuilder::new(now)
            .acked(acked)
            .rtt(latest_rtt)
            .bytes_in_flight(0, MDS)
            .build()
    }

    /// An ACK-clocked flow with a fixed window of `cwnd_pkts` through a
    /// bottleneck serving one packet per `spacing`, with `prop_rtt` of
    /// propagation delay; the receiver acknowledges every `ack_every`-th
    /// packet (cumulatively). Returns the sampler's round measurements.
    fn run_bottleneck(config: SamplerConfig, ack_every: u64, acks: usize) -> Vec<RoundSample> {
        let cwnd_pkts: u64 = 80;
        let spacing = MS;
        let prop_rtt = 50 * MS;
        let mut sampler = RoundSampler::new(config, MDS).unwrap();
        let t0 = Instant::now();
        let mut now = t0;
        let mut bottleneck_free = t0;
        let mut send_time = Vec::new();
        let mut ack_arrival = Vec::new();
        let mut next_pkt: u64 = 0;
        let mut first_unacked: u64 = 0;
        let mut rounds = Vec::new();
        let mut acked_buf = Vec::new();
        for _ in 0..acks {
            while next_pkt - first_unacked < cwnd_pkts {
                let in_flight = (next_pkt - first_unacked) as usize * MDS;
                sampler.on_packet_sent(
                    &sent_packet(next_pkt, now, in_flight),
                    cwnd_pkts as usize * MDS,
                );
                let departure = now.max(bottleneck_free) + spacing;
                bottleneck_free = departure;
                send_time.push(now);
                ack_arrival.push(departure + prop_rtt);
                next_pkt += 1;
            }
            let last = first_unacked + ack_every - 1;
            now = ack_arrival[last as usize];
            acked_buf.clear();
            acked_buf
                .extend((first_unacked..=last).map(|n| acked_packet(n, send_time[n as usize])));
            let rtt = now - send_time[last as usize];
            if let Some(round) = sampler.on_ack_frame(&ack_event(now, &acked_buf, rtt)) {
                rounds.push(round);
            }
            first_unacked = last + 1;
        }
        rounds
    }

    /// A paced flow with a fixed window of 80 packets, sending one packet
    /// per ms into a bottleneck that serves one per ms, `prop_rtt` of
    /// propagation delay, an ACK every `ack_every` packets and, with
    /// `aggregation`, ACK frames held on the way back until the next
    /// multiple of it. Returns the rounds and, for each, the smallest
    /// hold-free RTT of its samples (the truth the sampler estimates).
    fn run_path(
        config: SamplerConfig,
        ack_every: u64,
        aggregation: Option<Duration>,
        prop_rtt: Duration,
        acks: usize,
    ) -> (Vec<RoundSample>, Vec<Duration>) {
        run_path_with_window(config, ack_every, |_| aggregation, prop_rtt, acks, |_| 80)
    }

    /// `run_path` with the aggregation period and the window (in packets)
    /// functions of the ACK frames received so far.
    fn run_path_with_window(
        config: SamplerConfig,
        ack_every: u64,
        aggregation: impl Fn(usize) -> Option<Duration>,
        prop_rtt: Duration,
        acks: usize,
        window_pkts: impl Fn(usize) -> u64,
    ) -> (Vec<RoundSample>, Vec<Duration>) {
        let spacing = MS;
        let mut sampler = RoundSampler::new(config, MDS).unwrap();
        let t0 = Instant::now();
        let release = |arrival: Instant, acks_done: usize| match aggregation(acks_done) {
            None => arrival,
            Some(period) => {
                let periods = (arrival - t0).as_nanos().div_ceil(period.as_nanos()) as u32;
                t0 + period * periods
            }
        };
        let mut next_send = t0;
        let mut bottleneck_free = t0;
        let mut send_time = Vec::new();
        let mut ack_arrival = Vec::new();
        let mut next_pkt: u64 = 0;
        let mut first_unacked: u64 = 0;
        let (mut rounds, mut truth) = (Vec::new(), Vec::new());
        let mut true_min = Duration::MAX;
        let mut acked_buf = Vec::new();
        let mut acks_done = 0;
        while acks_done < acks {
            let cwnd_pkts = window_pkts(acks_done);
            let last = first_unacked + ack_every - 1;
            let ack_due = (last < next_pkt).then(|| release(ack_arrival[last as usize], acks_done));
            let can_send = next_pkt - first_unacked < cwnd_pkts;
            if can_send && ack_due.is_none_or(|due| next_send < due) {
                let in_flight = (next_pkt - first_unacked) as usize * MDS;
                let packet = sent_packet(next_pkt, next_send, in_flight);
                sampler.on_packet_sent(&packet, cwnd_pkts as usize * MDS);
                let departure = next_send.max(bottleneck_free) + spacing;
                bottleneck_free = departure;
                send_time.push(next_send);
                ack_arrival.push(departure + prop_rtt);
                next_pkt += 1;
                next_send += spacing;
                continue;
            }
            let now = ack_due.expect("a full window has an ACK due");
            next_send = next_send.max(now);
            true_min = true_min.min(ack_arrival[last as usize] - send_time[last as usize]);
            acked_buf.clear();
            acked_buf
                .extend((first_unacked..=last).map(|n| acked_packet(n, send_time[n as usize])));
            let rtt = now - send_time[last as usize];
            if let Some(round) = sampler.on_ack_frame(&ack_event(now, &acked_buf, rtt)) {
                rounds.push(round);
                truth.push(std::mem::replace(&mut true_min, Duration::MAX));
            }
            first_unacked = last + 1;
            acks_done += 1;
        }
        (rounds, truth)
    }

    /// Mean absolute error of the rounds' RTT against the hold-free truth,
    /// in ms, over the rounds after the first `skip`.
    fn rtt_error_ms(rounds: &[RoundSample], truth: &[Duration], skip: usize) -> f64 {
        let errors: Vec<f64> = rounds
            .iter()
            .zip(truth)
            .skip(skip)
            .map(|(r, t)| (r.round_rtt.as_secs_f64() - t.as_secs_f64()).abs() * 1e3)
            .collect();
        errors.iter().sum::<f64>() / errors.len() as f64
    }

    /// The default sampler, and the same with `aggregation_aware` off.
    fn aware_and_plain() -> (SamplerConfig, SamplerConfig) {
        let aware = SamplerConfig::default();
        let plain = SamplerConfig {
            aggregation_aware: false,
            ..aware
        };
        (aware, plain)
    }

    #[test]
    fn hold_bounds_remove_most_of_an_aggregated_acks_hold() {
        // 80-packet window, 1 ms per packet, 50.3 ms propagation, an ACK
        // every 4 packets, ACKs released every 20 ms (5 per release).
        let (aware, plain) = aware_and_plain();
        let agg = Some(20 * MS);
        let prop = Duration::from_micros(50_300);
        let (aware_rounds, truth) = run_path(aware, 4, agg, prop, 400);
        let (plain_rounds, plain_truth) = run_path(plain, 4, agg, prop, 400);
        assert_eq!(truth, plain_truth, "the same path");
        assert!(aware_rounds.len() > 10);
        assert!(aware_rounds.iter().skip(1).all(|r| r.hold_bounded));
        assert!(plain_rounds.iter().all(|r| !r.hold_bounded));
        let aware_error = rtt_error_ms(&aware_rounds, &truth, 1);
        let plain_error = rtt_error_ms(&plain_rounds, &truth, 1);
        // The smallest sample keeps its ACK's hold (1.7 ms); the bounds'
        // middle is within an eighth of the 4 ms between ACKs.
        assert!(plain_error > 1.5, "smallest sample: {plain_error} ms off");
        assert!(aware_error < 0.5, "hold bounds: {aware_error} ms off");
    }

    #[test]
    fn a_release_clock_bounds_the_hold_of_a_flow_locked_to_it() {
        // An ACK every 8 packets, ACKs released every 20 ms, 40.3 ms
        // propagation. 80 packets of window first (2 to 3 frames per
        // release, BaseRTT close to the truth), then 20: one frame per
        // release, and every sample carries the same hold.
        let (aware, plain) = aware_and_plain();
        let window = |acks: usize| if acks < 300 { 80 } else { 20 };
        let (agg, prop) = (Some(20 * MS), Duration::from_micros(40_300));
        let (aware_rounds, _) = run_path_with_window(aware, 8, |_| agg, prop, 600, window);
        let (plain_rounds, _) = run_path_with_window(plain, 8, |_| agg, prop, 600, window);
        let locked = |rounds: &[RoundSample]| -> Vec<(Duration, Duration)> {
            let tail = rounds.len() - 20;
            rounds[tail..]
                .iter()
                .map(|r| (r.round_rtt, r.base_rtt))
                .collect()
        };
        // Without the clock the locked samples read as a standing queue
        // of more than a millisecond...
        for (rtt, base) in locked(&plain_rounds) {
            assert!(rtt > base + MS, "plain: {rtt:?} vs BaseRTT {base:?}");
        }
        // ...with it, every frame's lower bound is its sample less the
        // period, and the bounds' middle reads no queue.
        for (rtt, base) in locked(&aware_rounds) {
            assert!(rtt <= base, "aware: {rtt:?} vs BaseRTT {base:?}");
        }
    }

    #[test]
    fn release_clock_found_from_whole_periods_and_lost_off_them() {
        let t0 = Instant::now();
        let frame_bytes = 8 * MDS as u64;
        let feed = |lattice: &mut ReleaseLattice, at_ms: &[u64]| {
            for &ms in at_ms {
                lattice.observe(t0 + MS * ms as u32, false, frame_bytes, MDS);
            }
        };
        // Gaps of 1, 2 and 3 periods of 20 ms.
        let mut lattice = ReleaseLattice::default();
        feed(&mut lattice, &[0, 20, 60, 80, 140, 160, 200, 220]);
        assert_eq!(lattice.period, None, "seven gaps are not enough");
        feed(&mut lattice, &[240]);
        assert_eq!(lattice.period, Some(20 * MS));
        // Whole periods keep it; a gap off the clock forgets it.
        feed(&mut lattice, &[300, 320]);
        assert_eq!(lattice.period, Some(20 * MS));
        feed(&mut lattice, &[327]);
        assert_eq!(lattice.period, None);

        // Frames released together count only while their gap is among
        // the last eight: a shared release, a gap off any lattice, then
        // equal gaps alone (a busy bottleneck with an ACK every 8 packets)
        // are not a clock.
        let mut lattice = ReleaseLattice::default();
        feed(&mut lattice, &[0, 8, 8, 13]);
        feed(
            &mut lattice,
            &(0..30).map(|k| 21 + k * 8).collect::<Vec<_>>(),
        );
        assert_eq!(lattice.period, None);

        // Equal gaps alone are what any steadily paced flow gives.
        let mut lattice = ReleaseLattice::default();
        feed(&mut lattice, &(0..20).map(|k| k * 20).collect::<Vec<_>>());
        assert_eq!(lattice.period, None);

        // A busy bottleneck spaces frames by whole service times too,
        // but acknowledges one packet per service time, not four.
        let mut lattice = ReleaseLattice::default();
        for (k, ms) in [0u64, 1, 3, 4, 6, 7, 8, 10, 11, 13].iter().enumerate() {
            let packets = if k == 0 { 1 } else { 1 + (ms % 2) };
            lattice.observe(t0 + MS * *ms as u32, false, packets * MDS as u64, MDS);
        }
        assert_eq!(lattice.period, None);
    }

    #[test]
    fn a_phase_lock_ends_when_the_rate_rises_or_a_frame_of_window_buys_none() {
        let t0 = Instant::now();
        let period = 20 * MS;
        let frame = 8 * MDS as u64;
        let bounds = (30 * MS, 46 * MS);
        // 400 packets/s: one frame per release.
        let rate = (frame as f64) / period.as_secs_f64();
        let round = |bounds, rate_bytes_per_sec, cwnd_bytes| LockRound {
            period,
            bounds,
            rate_bytes_per_sec,
            bytes_per_frame: frame,
            cwnd_bytes,
            max_datagram_size: MDS,
        };
        let mut lock = PhaseLock::default();
        assert!(!lock.update(t0, round(bounds, rate, 24 * MDS)));
        assert!(!lock.update(t0, round(bounds, rate, 24 * MDS)));
        assert!(lock.update(t0, round(bounds, rate, 24 * MDS)));
        assert!(lock.update(t0, round((31 * MS, 47 * MS), rate, 27 * MDS)));
        // Half a frame more per release: grown through.
        assert!(!lock.update(t0, round(bounds, rate * 2.0, 28 * MDS)));

        let mut lock = PhaseLock::default();
        for _ in 0..3 {
            lock.update(t0, round(bounds, rate, 24 * MDS));
        }
        // Eight packets more window and the same rate: a queue...
        assert!(!lock.update(t0, round(bounds, rate, 32 * MDS)));
        // ...and no new lock until PHASE_LOCK_RETRY has passed.
        for _ in 0..5 {
            assert!(!lock.update(t0 + MS, round(bounds, rate, 32 * MDS)));
        }
        let later = t0 + PHASE_LOCK_RETRY;
        assert!(lock.update(later, round(bounds, rate, 32 * MDS)));

        // A window that cannot grow (flow control) ends the lock after
        // twice the frame's packets of rounds.
        let mut lock = PhaseLock::default();
        for _ in 0..3 {
            lock.update(t0, round(bounds, rate, 24 * MDS));
        }
        let locked_rounds = (0..40)
            .take_while(|_| lock.update(t0, round(bounds, rate, 24 * MDS)))
            .count();
        assert_eq!(locked_rounds, 15);
    }

    #[test]
    fn rounds_without_a_lower_bound_keep_their_smallest_sample() {
        // ACKs aggregated every 20 ms for the first 300 frames, then not:
        // the path still counts as aggregating for AGGREGATION_MEMORY, but
        // frames outside bursts have no lower bound, and the round RTT is
        // the smallest sample, exactly the truth on this path.
        let agg = |acks: usize| (acks < 300).then_some(20 * MS);
        let prop = Duration::from_micros(50_300);
        let (rounds, truth) =
            run_path_with_window(SamplerConfig::default(), 4, agg, prop, 900, |_| 80);
        let tail = rounds.len() - 10;
        for (round, truth) in rounds[tail..].iter().zip(&truth[tail..]) {
            assert!(!round.hold_bounded);
            assert_eq!(round.round_rtt, *truth);
        }
    }

    #[test]
    fn without_bursts_the_smallest_sample_stays_the_round_rtt() {
        // An ACK every 16 packets and no aggregation: the arrivals follow
        // the sends, no burst is seen and the round RTT is exact, although
        // the lower bounds are 16 ms below it.
        let (rounds, truth) = run_path(SamplerConfig::default(), 16, None, 50 * MS, 200);
        assert!(rounds.len() > 10);
        assert!(rounds.iter().all(|r| !r.hold_bounded));
        assert_eq!(rtt_error_ms(&rounds, &truth, 0), 0.0);
    }

    #[test]
    fn credit_cycle_includes_the_wait_for_a_thinned_ack() {
        // Four packets sent 1 ms apart, acknowledged together 50 ms after
        // the last: they waited 53, 52, 51 and 50 ms, a mean of 51.5 ms,
        // while the RTT sample (the largest) is 50 ms.
        let t0 = Instant::now();
        let mut sampler = RoundSampler::new(SamplerConfig::default(), MDS).unwrap();
        let packets: Vec<AckedPacket> = (0..4)
            .map(|n| acked_packet(n, t0 + MS * n as u32))
            .collect();
        for (n, p) in packets.iter().enumerate() {
            sampler.on_packet_sent(&sent_packet(n as u64, p.time_sent, n * MDS), 10 * MDS);
        }
        let now = t0 + 53 * MS;
        sampler.on_ack_frame(&ack_event(now, &packets, 50 * MS));
        assert_eq!(sampler.credit_cycle(), Some(Duration::from_micros(51_500)));
        // Smoothed with RFC 9002's 1/8 gain: a second cycle of 59.5 ms
        // moves it by 1 ms.
        let later: Vec<AckedPacket> = (4..8)
            .map(|n| acked_packet(n, now + MS * (n as u32 - 4)))
            .collect();
        sampler.on_ack_frame(&ack_event(now + 61 * MS, &later, 58 * MS));
        assert_eq!(sampler.credit_cycle(), Some(Duration::from_micros(52_500)));
        // A new path (migration) starts without the old path's cycle.
        sampler.on_path_change();
        assert_eq!(sampler.credit_cycle(), None);
    }

    #[test]
    fn base_rtt_comes_from_full_sized_packets_once_there_is_one() {
        let t0 = Instant::now();
        // A 100-byte packet (shorter serialization, lower RTT), then a
        // full-sized one; BaseRTT after each.
        let run = |config: SamplerConfig| {
            let mut sampler = RoundSampler::new(config, MDS).unwrap();
            let small = AckedPacket {
                size_bytes: 100,
                ..acked_packet(0, t0)
            };
            let small_sent = SentPacket {
                size_bytes: 100,
                ..sent_packet(0, t0, 0)
            };
            sampler.on_packet_sent(&small_sent, 2 * MDS);
            sampler.on_ack_frame(&ack_event(t0 + 91 * MS, &[small], 91 * MS));
            let after_small = sampler.base_rtt();
            sampler.on_packet_sent(&sent_packet(1, t0 + 91 * MS, 0), 2 * MDS);
            let full = [acked_packet(1, t0 + 91 * MS)];
            sampler.on_ack_frame(&ack_event(t0 + 191 * MS, &full, 100 * MS));
            (after_small, sampler.base_rtt())
        };
        // Until a full-sized packet is measured, every sample counts; then
        // only full-sized packets do.
        assert_eq!(run(SamplerConfig::paper()), (Some(91 * MS), Some(100 * MS)));
        // Without the option the small packet's RTT stays BaseRTT.
        let every_sample = SamplerConfig {
            base_rtt_full_sized_only: false,
            ..SamplerConfig::paper()
        };
        assert_eq!(run(every_sample), (Some(91 * MS), Some(91 * MS)));
    }

    #[test]
    fn paper_actual_is_the_window_over_the_mean_rtt() {
        // Gallop-Vegas II / IV-A: Actual = W / D, D the round's mean RTT, so
        // Diff = W (1 - d / D) whatever the round's interval.
        let t0 = Instant::now();
        let mut sampler = RoundSampler::new(SamplerConfig::paper(), MDS).unwrap();
        for n in 0..4 {
            sampler.on_packet_sent(&sent_packet(n, t0, n as usize * MDS), 4 * MDS);
        }
        // RTTs 100, 102, 104, 106 ms: D = 103 ms; the round ends at the
        // first ACK (packet 0), so use a second round of four.
        let mut last = None;
        for (n, rtt_ms) in [(0u64, 100u32), (1, 102), (2, 104), (3, 106)] {
            let now = t0 + rtt_ms * MS;
            last = sampler.on_ack_frame(&ack_event(now, &[acked_packet(n, t0)], rtt_ms * MS));
            if n == 0 {
                for m in 4..8 {
                    sampler.on_packet_sent(&sent_packet(m, now, 3 * MDS), 4 * MDS);
                }
            }
        }
        assert!(last.is_none());
        let t1 = t0 + 100 * MS;
        let round = sampler
            .on_ack_frame(&ack_event(t1 + 100 * MS, &[acked_packet(4, t1)], 100 * MS))
            .unwrap();
        // Acknowledged in the round: packets 1-4; samples 102, 104, 106, 100.
        assert_eq!(round.bytes_acked, 4 * MDS as u64);
        assert_eq!(round.round_rtt, 103 * MS);
        let expected = 4.0 * MDS as f64 / 0.103;
        assert!((round.actual_bytes_per_sec - expected).abs() < 1e-6 * expected);
    }

    #[test]
    fn thinned_acks_give_the_same_actual_rate() {
        for actual_bytes in [
            ActualBytes::Sent,
            ActualBytes::Acked,
            ActualBytes::Delivered,
        ] {
            let config = SamplerConfig {
                actual_bytes,
                ..SamplerConfig::paper()
            };
            let per_packet = run_bottleneck(config, 1, 2000);
            let thinned = run_bottleneck(config, 8, 250);
            // The bottleneck delivers one 1200-byte packet per ms.
            let bottleneck_rate = 1_200_000.0;
            for rounds in [&per_packet, &thinned] {
                assert!(rounds.len() > 10);
                for round in &rounds[3..] {
                    let error = (round.actual_bytes_per_sec - bottleneck_rate).abs();
                    assert!(
                        error < 1e-6 * bottleneck_rate,
                        "{actual_bytes:?}: {round:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn round_boundaries_follow_packet_numbers() {
        let mut sampler = RoundSampler::new(SamplerConfig::paper(), MDS).unwrap();
        let t0 = Instant::now();
        let cwnd = 4 * MDS;
        for n in 0..4 {
            sampler.on_packet_sent(&sent_packet(n, t0, n as usize * MDS), cwnd);
        }
        // Round 0 ends with the ACK of its distinguished packet 0.
        let r0 = sampler
            .on_ack_frame(&ack_event(t0 + 100 * MS, &[acked_packet(0, t0)], 100 * MS))
            .expect("packet 0 ends round 0");
        assert_eq!(r0.bytes_sent, 4 * MDS as u64);
        assert_eq!(r0.interval, 100 * MS);
        // Round 1's distinguished packet is the next one sent: 4.
        let t1 = t0 + 100 * MS;
        sampler.on_packet_sent(&sent_packet(4, t1, 3 * MDS), cwnd);
        let acks_1_3 = [
            acked_packet(1, t0),
            acked_packet(2, t0),
            acked_packet(3, t0),
        ];
        assert!(sampler
            .on_ack_frame(&ack_event(t1 + MS, &acks_1_3, 101 * MS))
            .is_none());
        sampler.on_packet_sent(&sent_packet(5, t1 + MS, 3 * MDS), cwnd);
        // Packet 4 is lost: the ACK of the later packet 5 ends the round.
        let t2 = t1 + 101 * MS;
        let r1 = sampler
            .on_ack_frame(&ack_event(t2, &[acked_packet(5, t1 + MS)], 100 * MS))
            .expect("a later packet ends the round");
        assert_eq!(r1.bytes_sent, 2 * MDS as u64);
        assert_eq!(r1.bytes_acked, 4 * MDS as u64);
        assert_eq!(r1.samples, 2);
        assert_eq!(r1.interval, t2 - t1);
        assert_eq!(r1.round_rtt, Duration::from_micros(100_500), "mean");
    }

    #[test]
    fn ack_delay_is_subtracted_capped_and_never_below_min_rtt() {
        let sampler = RoundSampler::new(SamplerConfig::default(), MDS).unwrap();
        let now = Instant::now();
        let mut event = ack_event(now, &[], 100 * MS);
        event.min_rtt = Some(60 * MS);
        event.max_ack_delay = 25 * MS;
        event.rtt_sample = Some(RttSample {
            latest_rtt: 100 * MS,
            ack_delay: 30 * MS,
        });
        assert_eq!(
            sampler.rtt_sample(&event, None),
            Some(75 * MS),
            "capped at 25 ms"
        );
        event.rtt_sample = Some(RttSample {
            latest_rtt: 100 * MS,
            ack_delay: 10 * MS,
        });
        assert_eq!(sampler.rtt_sample(&event, None), Some(90 * MS));
        // 70 - 20 would be below min RTT 60: the sample is min RTT (RFC
        // 9002 would keep 70 ms, 10 ms of a delayed-ACK timer read as a
        // queue).
        event.rtt_sample = Some(RttSample {
            latest_rtt: 70 * MS,
            ack_delay: 20 * MS,
        });
        assert_eq!(sampler.rtt_sample(&event, None), Some(60 * MS));
        // An ack delay longer than the sample cannot make it negative.
        event.min_rtt = None;
        event.rtt_sample = Some(RttSample {
            latest_rtt: 10 * MS,
            ack_delay: 20 * MS,
        });
        assert_eq!(sampler.rtt_sample(&event, None), Some(10 * MS));
        // Paper mode keeps the raw sample.
        let paper = RoundSampler::new(SamplerConfig::paper(), MDS).unwrap();
        event.rtt_sample = Some(RttSample {
            latest_rtt: 100 * MS,
            ack_delay: 10 * MS,
        });
        assert_eq!(paper.rtt_sample(&event, None), Some(100 * MS));
        // Zero samples are discarded.
        event.rtt_sample = Some(RttSample {
            latest_rtt: Duration::ZERO,
            ack_delay: Duration::ZERO,
        });
        assert_eq!(paper.rtt_sample(&event, None), None);
    }

    #[test]
    fn a_zero_min_rtt_cannot_make_base_rtt_zero() {
        let mut sampler = RoundSampler::new(SamplerConfig::default(), MDS).unwrap();
        let now = Instant::now();
        let packets = [acked_packet(0, now - 40 * MS)];
        let mut event = ack_event(now, &packets, 40 * MS);
        event.min_rtt = Some(Duration::ZERO);
        event.max_ack_delay = 40 * MS;
        event.rtt_sample = Some(RttSample {
            latest_rtt: 40 * MS,
            ack_delay: 40 * MS,
        });
        sampler.on_ack_frame(&event);
        assert_eq!(sampler.base_rtt(), Some(40 * MS), "the whole sample");
    }

    #[test]
    fn a_frame_for_older_packets_only_gives_no_rtt_sample() {
        let mut sampler = RoundSampler::new(SamplerConfig::default(), MDS).unwrap();
        let t0 = Instant::now();
        let t1 = t0 + 50 * MS;
        sampler.on_ack_frame(&ack_event(t1, &[acked_packet(5, t0)], 50 * MS));
        assert_eq!(sampler.latest_rtt(), Some(50 * MS));
        // Packets 1-4, sent 20 s before, reported late.
        let late = t1 + Duration::from_secs(20);
        let old: Vec<AckedPacket> = (1..5).map(|n| acked_packet(n, t0)).collect();
        sampler.on_ack_frame(&ack_event(late, &old, late - t0));
        assert_eq!(sampler.latest_rtt(), Some(50 * MS));
        assert_eq!(sampler.base_rtt(), Some(50 * MS));
        // Their age moved the credit cycle by at most 1/8.
        let cycle = sampler.credit_cycle().unwrap();
        assert!(cycle <= 50 * MS * 9 / 8, "{cycle:?}");
    }

    #[test]
    fn windowed_base_rtt_expires_and_lifetime_does_not() {
        let window = Duration::from_secs(10);
        let windowed = SamplerConfig {
            base_rtt: BaseRttMode::Windowed { window },
            ..SamplerConfig::paper()
        };
        let mut windowed = RoundSampler::new(windowed, MDS).unwrap();
        let mut lifetime = RoundSampler::new(SamplerConfig::paper(), MDS).unwrap();
        let t0 = Instant::now();
        for sampler in [&mut windowed, &mut lifetime] {
            sampler.on_ack_frame(&ack_event(t0, &[], 50 * MS));
            for s in 1..=10 {
                let now = t0 + Duration::from_secs(s);
                sampler.on_ack_frame(&ack_event(now, &[], 80 * MS));
            }
            assert_eq!(sampler.base_rtt(), Some(50 * MS), "10 s: still in");
        }
        let t11 = t0 + Duration::from_secs(11);
        windowed.on_ack_frame(&ack_event(t11, &[], 80 * MS));
        lifetime.on_ack_frame(&ack_event(t11, &[], 80 * MS));
        assert_eq!(windowed.base_rtt(), Some(80 * MS), "50 ms expired");
        assert_eq!(lifetime.base_rtt(), Some(50 * MS));
    }

    #[test]
    fn idle_period_resets_base_rtt() {
        let mut sampler = RoundSampler::new(SamplerConfig::default(), MDS).unwrap();
        let t0 = Instant::now();
        let mut event = ack_event(t0, &[], 50 * MS);
        event.bytes_in_flight = 0;
        sampler.on_ack_frame(&event);
        assert_eq!(sampler.base_rtt(), Some(50 * MS));
        // Sending again after less than the idle threshold keeps it.
        sampler.on_packet_sent(&sent_packet(0, t0 + 500 * MS, 0), 10 * MDS);
        assert_eq!(sampler.base_rtt(), Some(50 * MS));
        event.now = t0 + Duration::from_secs(1);
        sampler.on_ack_frame(&event);
        sampler.on_packet_sent(&sent_packet(1, t0 + Duration::from_secs(3), 0), 10 * MDS);
        assert_eq!(sampler.base_rtt(), None);
    }

    #[test]
    fn short_rounds_are_extended() {
        let config = SamplerConfig {
            min_round_samples: 3,
            ..SamplerConfig::paper()
        };
        let mut sampler = RoundSampler::new(config, MDS).unwrap();
        let t0 = Instant::now();
        let cwnd = 2 * MDS;
        sampler.on_packet_sent(&sent_packet(0, t0, 0), cwnd);
        sampler.on_packet_sent(&sent_packet(1, t0, MDS), cwnd);
        // One ACK for both packets: 1 sample < 3, the round goes on.
        let t1 = t0 + 100 * MS;
        let both = [acked_packet(0, t0), acked_packet(1, t0)];
        assert!(sampler
            .on_ack_frame(&ack_event(t1, &both, 100 * MS))
            .is_none());
        sampler.on_packet_sent(&sent_packet(2, t1, 0), cwnd);
        sampler.on_packet_sent(&sent_packet(3, t1, MDS), cwnd);
        // Packet 2 ends the extended round with 2 samples: extended again,
        // now to the next packet sent (4).
        let t2 = t1 + 100 * MS;
        assert!(sampler
            .on_ack_frame(&ack_event(t2, &[acked_packet(2, t1)], 100 * MS))
            .is_none());
        sampler.on_packet_sent(&sent_packet(4, t2, MDS), cwnd);
        assert!(sampler
            .on_ack_frame(&ack_event(t2, &[acked_packet(3, t1)], 100 * MS))
            .is_none());
        let t3 = t2 + 100 * MS;
        let round = sampler
            .on_ack_frame(&ack_event(t3, &[acked_packet(4, t2)], 100 * MS))
            .expect("enough samples");
        assert_eq!(round.samples, 4);
        assert_eq!(round.bytes_sent, 5 * MDS as u64);
        assert_eq!(round.interval, 300 * MS);
    }

    #[test]
    fn rounds_not_using_the_window_are_not_usable() {
        let gated = SamplerConfig {
            require_cwnd_limited: true,
            ..SamplerConfig::paper()
        };
        let t0 = Instant::now();
        let t1 = t0 + 100 * MS;
        let cwnd = 4 * MDS;
        // Two packets in a four-packet window: not cwnd-limited.
        let mut sampler = RoundSampler::new(gated, MDS).unwrap();
        sampler.on_packet_sent(&sent_packet(0, t0, 0), cwnd);
        sampler.on_packet_sent(&sent_packet(1, t0, MDS), cwnd);
        let round = sampler
            .on_ack_frame(&ack_event(t1, &[acked_packet(0, t0)], 100 * MS))
            .unwrap();
        assert!(!round.cwnd_limited && !round.usable);
        // A full window, but the application said it ran dry.
        let mut sampler = RoundSampler::new(gated, MDS).unwrap();
        for n in 0..4 {
            sampler.on_packet_sent(&sent_packet(n, t0, n as usize * MDS), cwnd);
        }
        sampler.on_app_limited(t0);
        let round = sampler
            .on_ack_frame(&ack_event(t1, &[acked_packet(0, t0)], 100 * MS))
            .unwrap();
        // The app-limited signal is recorded; the full window sent decides.
        assert!(round.cwnd_limited && round.app_limited && round.usable);
        // A round that sent under half its window (the QUIC handshake
        // pattern) is not usable even if some send found the window full.
        let mut sampler = RoundSampler::new(gated, MDS).unwrap();
        sampler.on_packet_sent(&sent_packet(0, t0, 3 * MDS), cwnd);
        let round = sampler
            .on_ack_frame(&ack_event(t1, &[acked_packet(0, t0)], 100 * MS))
            .unwrap();
        assert!(round.cwnd_limited && !round.usable);
        // Without gating every round counts.
        let ungated = SamplerConfig {
            require_cwnd_limited: false,
            ..SamplerConfig::paper()
        };
        let mut sampler = RoundSampler::new(ungated, MDS).unwrap();
        sampler.on_packet_sent(&sent_packet(0, t0, 0), cwnd);
        let round = sampler
            .on_ack_frame(&ack_event(t1, &[acked_packet(0, t0)], 100 * MS))
            .unwrap();
        assert!(round.usable);
    }

    #[test]
    fn invalid_sampler_params_are_rejected_naming_the_field() {
        let config = SamplerConfig {
            min_round_samples: 0,
            ..SamplerConfig::default()
        };
        assert_eq!(
            RoundSampler::new(config, MDS).unwrap_err().field,
            "sampler.min_round_samples"
        );
        let config = SamplerConfig {
            base_rtt: BaseRttMode::Windowed {
                window: Duration::ZERO,
            },
            ..SamplerConfig::default()
        };
        assert_eq!(
            config.validate().unwrap_err().field,
            "sampler.base_rtt_window"
        );
    }

    #[test]
    fn the_samples_a_round_needs_follow_the_peers_ack_frequency() {
        let pkts = |n: u64| n * MDS as u64;
        // Every second packet (or unknown): the configured minimum.
        assert_eq!(min_round_samples(3, pkts(4), MDS, None), 3);
        assert_eq!(min_round_samples(3, pkts(4), MDS, Some(2.0)), 3);
        assert_eq!(min_round_samples(3, pkts(4), MDS, Some(2.5)), 3);
        // An ACK every 16 packets: what the round's packets allow.
        assert_eq!(min_round_samples(3, pkts(20), MDS, Some(16.0)), 1);
        assert_eq!(min_round_samples(3, pkts(40), MDS, Some(16.0)), 2);
        assert_eq!(min_round_samples(3, pkts(64), MDS, Some(16.0)), 3);
        // Never more than configured, never fewer than one.
        assert_eq!(min_round_samples(2, pkts(640), MDS, Some(16.0)), 2);
        assert_eq!(min_round_samples(3, pkts(2), MDS, Some(16.0)), 1);
    }

    #[test]
    fn thinned_acks_do_not_stretch_rounds_over_several_rtts() {
        // A 20-packet window, an ACK every 16 packets: one or two frames a
        // round. Rounds still end about one RTT (50 ms + 20 packet times)
        // after they start instead of waiting for three samples.
        let (rounds, _) =
            run_path_with_window(SamplerConfig::default(), 16, |_| None, 50 * MS, 60, |_| 20);
        assert!(rounds.len() >= 40, "{} rounds", rounds.len());
        for round in &rounds[2..] {
            assert!(round.interval < 90 * MS, "{round:?}");
            assert!(round.samples < 3, "{round:?}");
        }
    }

    #[test]
    fn every_second_packet_acks_still_need_three_samples() {
        // A 4-packet window acknowledged every second packet has two frames
        // per RTT: its rounds are extended to three samples, as before.
        let (rounds, _) =
            run_path_with_window(SamplerConfig::default(), 2, |_| None, 50 * MS, 60, |_| 4);
        assert!(rounds.len() >= 5, "{} rounds", rounds.len());
        assert!(rounds.iter().all(|r| r.samples >= 3), "{rounds:?}");
    }

    #[test]
    fn recent_frames_read_a_rate_over_the_fewest_frames_that_reach_the_bytes() {
        let t0 = Instant::now();
        let us = Duration::from_micros(1);
        let pkt = MDS as u64;
        let min_bytes = FRAME_RATE_MIN_PKTS * pkt;
        let mut frames = RecentFrames::default();
        // Two packets every 2 ms (one per ms): no rate until 16 packets
        // follow the oldest frame, then exactly one packet per ms.
        let mut rates = Vec::new();
        for i in 0..20 {
            rates.push(frames.push(t0 + 2 * i * MS, 2 * pkt, min_bytes));
        }
        assert!(rates[..8].iter().all(Option::is_none), "{rates:?}");
        for rate in &rates[8..] {
            let rate = rate.unwrap();
            assert!((rate - 1000.0 * pkt as f64).abs() < 1e-6, "{rate}");
        }
        // A clump (a frame 100 us after the previous) moves the rate over
        // 16 packets by a little, not to the clump's own 20 packets per ms.
        let last = t0 + 38 * MS;
        let clumped = frames.push(last + 100 * us, 2 * pkt, min_bytes).unwrap();
        assert!(clumped < 1.3 * 1000.0 * pkt as f64, "{clumped}");
        // The frames kept stay few (bounded memory on the ACK path).
        assert!(frames.frames.len() <= 10, "{}", frames.frames.len());
    }
}
