//! The round sampler: the one place a Vegas-family controller gets its RTT
//! and rate measurements from (Brakmo & Peterson, "TCP Vegas", JSAC 1995,
//! section III-B: BaseRTT, the distinguished segment, Actual).
//!
//! Files: this one holds the paper's round and [`RoundSampler`];
//! `config.rs` the settings ([`SamplerConfig`]); `base_rtt.rs` the BaseRTT
//! filters; `aggregation.rs` the ACK-aggregation estimator (bursts, release
//! clocks, hold bounds, phase lock); `credit.rs` the credit cycle and the
//! other smoothed estimates of the ACK path; `packets.rs` the largest
//! packet numbers and what the latest send saw; `timeline.rs` the clock
//! the sampler keeps its times on (integer nanoseconds since an origin
//! `Instant`, so that the per-ACK time arithmetic is integer arithmetic).
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
//!   `Sent` is not the paper mode: on an ACK-clocked window below the
//!   path's capacity its distinguished packet is the train's first and
//!   sees no queue, so Diff misses the queue the train builds. Measured:
//!   docs/constants.md, `sampler::ActualBytes::Sent`.
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
//!   (max_datagram_size - size) / rate. Taken as BaseRTT, a full-sized
//!   packet then always looks queued by that much, and Diff reads
//!   Actual * (that gap) packets high. Measured: docs/constants.md,
//!   `sampler::SamplerConfig::base_rtt_full_sized_only`. A sample
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
//!   an ACK spacing. Measured: docs/constants.md,
//!   `sampler::SamplerConfig::aggregation_aware`.
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
//!   pattern of frames per release (one frame of 8 packets every 20 ms,
//!   say). Its rounds repeat each other's samples
//!   exactly, and its holds sit wherever Vegas stopped growing: more window
//!   only moves them, like a queue, until one more frame shares a release.
//!   After two rounds that repeat the previous one's bounds, with the bounds
//!   at least [`PHASE_LOCK_MIN_WIDTH_PKTS`] packet times apart, a round's RTT
//!   is its lower bound (never below BaseRTT), so Vegas grows through the
//!   lock; the lock ends when the delivery rate rises by half a frame per
//!   period, or when the window has grown by one frame's bytes without it,
//!   which says the extra RTT was a queue (then no new lock for
//!   [`PHASE_LOCK_RETRY`]), or after twice that frame's packets of rounds (a
//!   window that cannot grow). Measured: docs/constants.md,
//!   `sampler::PHASE_LOCK_ROUNDS`.
//! - The round's minimum RTT reads the trough of any queue that swings
//!   within a round. Pacing one window per credit cycle ran ahead of the
//!   bottleneck each time the window stalled on a release, so the queue
//!   rose for a round and drained in the stall, unseen. The Vegas family
//!   therefore caps its pacing at the recent Actual plus a few packets per
//!   round and paces its BaseRTT drains (`VegasConfig::pacing_headroom_pkts`
//!   in `vegas/config.rs`; measured: docs/constants.md,
//!   `vegas::DEFAULT_PACING_HEADROOM_PKTS`). With an ACK every 16 packets a
//!   round still has only 3 to 5 frames, and its bounds can be 20 ms apart;
//!   some paths still lock there (docs/ack-frequency.md).
//! - A round that ends with fewer than `min_round_samples` RTT samples or
//!   `min_round_bytes` bytes is extended to the next distinguished packet
//!   instead of being reported. A peer that acknowledges less often than
//!   every second packet (more than [`THINNED_ACK_PKTS_PER_FRAME`] packets
//!   per frame, smoothed) cannot give a small window three samples: the
//!   round then needs only as many as its packets allow at that frequency,
//!   at least one (not on an aggregating path, whose hold bounds need
//!   several frames). Measured: docs/constants.md,
//!   `sampler::THINNED_ACK_PKTS_PER_FRAME`.
//! - Gating (`require_cwnd_limited`): a round is usable only if some send in
//!   it left less than one max_datagram_size of window free and
//!   `on_app_limited` was not signalled in it. Otherwise the bytes sent are
//!   set by the application, not by the window, and say nothing about the
//!   network.

use std::time::Duration;
use std::time::Instant;

use crate::error::ParamError;
use crate::types::AckEvent;
use crate::types::AckedPacket;
use crate::types::SentPacket;

mod aggregation;
mod base_rtt;
mod config;
mod credit;
mod packets;
mod timeline;

use aggregation::*;
pub use aggregation::{
    AGGREGATION_MEMORY, BURST_COMPRESSION_FACTOR, FRAME_RATE_MIN_PKTS, FRAME_RATE_WINDOW_DIVISOR,
    LATTICE_EVIDENCE_GAPS, LATTICE_MIN_PERIOD_PKTS, LATTICE_TOLERANCE_MAX,
    PHASE_LOCK_MIN_WIDTH_PKTS, PHASE_LOCK_RETRY, PHASE_LOCK_ROUNDS, THINNED_ACK_PKTS_PER_FRAME,
};
use base_rtt::BaseRtts;
use base_rtt::RttHistory;
pub use base_rtt::{DEFAULT_BASE_RTT_WINDOW, DEFAULT_IDLE_RESET};
pub use config::{ActualBytes, BaseRttMode, RoundEnd, RoundRttStat, SamplerConfig};
use credit::AckPathEstimates;
pub use credit::CREDIT_CYCLE_MAX_STEP;
use packets::LastSend;
use packets::PacketNumbers;
use timeline::Nanos;
use timeline::Timeline;

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
/// samples: the smallest of several means of few samples sits well below
/// the noise's mean. Our choice; measured: docs/constants.md,
/// `sampler::DELAY_NOISE_MIN_SAMPLES`.
pub const DELAY_NOISE_MIN_SAMPLES: u32 = 16;

/// The largest delay noise the sampler assumes: RFC 9002's timer
/// granularity (kGranularity, 6.1.2), which bounds what hosts' timers and
/// schedulers add. A larger gap between the quietest round's mean and
/// BaseRTT is a queue (a first window queued behind itself), not noise.
/// Measured: docs/constants.md, `sampler::MAX_DELAY_NOISE`.
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
    start: Nanos,
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
    span_start: Option<Nanos>,
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
    /// The RTT of the packet whose ACK ended the round: the distinguished
    /// packet, or the first acknowledged after it
    /// ([`RoundRttStat::Distinguished`]).
    distinguished_rtt: Option<Duration>,
}

impl RoundTally {
    fn new(
        end_pkt_num: u64,
        start: Nanos,
        span_start: Option<Nanos>,
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
            distinguished_rtt: None,
        }
    }
}

/// What the sampler reads of one ACK frame's packets, in one pass: their
/// bytes, the largest newly acknowledged packet (RFC 9002 5.1's sample)
/// and their byte-weighted ages (the credit cycle).
#[derive(Clone, Copy, Debug)]
struct AckedFrame {
    /// The frame's arrival.
    now: Nanos,
    /// Packets newly acknowledged.
    acked_pkts: usize,
    /// Their bytes.
    acked_bytes: u64,
    /// Their bytes again, as the credit cycle sums them.
    credit_bytes: u128,
    /// Sum over them of bytes x (arrival - send), in byte-nanoseconds.
    weighted_age_ns: u128,
    /// The largest packet number among them: (the packet, its send).
    largest: Option<(AckedPacket, Nanos)>,
}

impl AckedFrame {
    /// Reads `event`'s packets; each send time is put on `timeline` once.
    fn read(event: &AckEvent<'_>, timeline: &mut Timeline) -> Self {
        let now = timeline.nanos(event.now);
        let mut frame = AckedFrame {
            now,
            acked_pkts: event.acked.len(),
            acked_bytes: 0,
            credit_bytes: 0,
            weighted_age_ns: 0,
            largest: None,
        };
        for packet in event.acked {
            let sent = timeline.nanos(packet.time_sent);
            let age_ns = now.saturating_ns_since(sent);
            frame.acked_bytes = frame.acked_bytes.wrapping_add(packet.size_bytes as u64);
            frame.credit_bytes += packet.size_bytes as u128;
            frame.weighted_age_ns += packet.size_bytes as u128 * u128::from(age_ns);
            // The last of equal packet numbers, as `Iterator::max_by_key`.
            if frame
                .largest
                .is_none_or(|(largest, _)| packet.pkt_num >= largest.pkt_num)
            {
                frame.largest = Some((*packet, sent));
            }
        }
        frame
    }
}

/// Per-round RTT and rate measurement for Vegas-family controllers.
#[derive(Clone, Debug)]
pub struct RoundSampler {
    config: SamplerConfig,
    max_datagram_size: usize,
    /// Where the sampler's times are measured from ([`timeline`]).
    timeline: Timeline,
    /// BaseRTT over every sample and over full-sized packets' samples.
    base_rtts: BaseRtts,
    /// The latest RTT sample and the smallest round mean RTT.
    rtts: RttHistory,
    /// The largest packet numbers sent and acknowledged.
    pkt_nums: PacketNumbers,
    /// None: no round in progress; the next in-flight send starts one.
    round: Option<RoundTally>,
    /// The latest send's window, and since when nothing has been in flight.
    last_send: LastSend,
    /// The ACK-aggregation estimator ([`aggregation`]).
    aggregation: AckAggregation,
    /// The credit cycle and the packets per ACK frame ([`credit`]).
    ack_path: AckPathEstimates,
}

impl RoundSampler {
    /// A sampler for `config` on a path of `max_datagram_size` bytes, or
    /// the first parameter `config` rejects.
    pub fn new(config: SamplerConfig, max_datagram_size: usize) -> Result<Self, ParamError> {
        config.validate()?;
        Ok(RoundSampler {
            config,
            max_datagram_size,
            timeline: Timeline::default(),
            base_rtts: BaseRtts::new(config.base_rtt, config.base_rtt_full_sized_only),
            rtts: RttHistory::default(),
            pkt_nums: PacketNumbers::default(),
            round: None,
            last_send: LastSend::default(),
            aggregation: AckAggregation::default(),
            ack_path: AckPathEstimates::default(),
        })
    }

    /// The configuration the sampler was built with.
    pub fn config(&self) -> &SamplerConfig {
        &self.config
    }

    /// BaseRTT: the minimum RTT per `config.base_rtt`; None before the
    /// first sample.
    pub fn base_rtt(&self) -> Option<Duration> {
        self.base_rtts.counted().get()
    }

    /// Forgets BaseRTT.
    fn clear_base_rtt(&mut self) {
        self.base_rtts = BaseRtts::new(self.config.base_rtt, self.config.base_rtt_full_sized_only);
    }

    /// Replaces BaseRTT by `rtt` measured at `now` (a controller that has
    /// verified the old BaseRTT is stale, e.g. after a route change).
    pub fn reset_base_rtt(&mut self, now: Instant, rtt: Duration) {
        self.clear_base_rtt();
        let now = self.timeline.nanos(now);
        self.base_rtts.update(now, rtt, true);
    }

    /// How long ago the windowed BaseRTT was measured (None: lifetime
    /// BaseRTT, or no sample yet).
    pub fn base_rtt_age(&self, now: Instant) -> Option<Duration> {
        self.base_rtts.age(self.timeline.nanos_if_started(now)?)
    }

    /// The last RTT sample taken (after ack-delay adjustment).
    pub fn latest_rtt(&self) -> Option<Duration> {
        self.rtts.latest()
    }

    /// Bytes acknowledged per second of ACK arrival gap (or of send gap,
    /// where the packets were sent further apart than their frames
    /// arrived: BBR's delivery-rate guard), smoothed over the frames
    /// outside ACK bursts (1/8 gain): while a queue persists at the
    /// bottleneck, its rate.
    pub fn sent_ack_rate_bytes_per_sec(&self) -> Option<f64> {
        self.aggregation.sent_ack_rate_bytes_per_sec()
    }

    /// The maximum datagram size changed (PMTUD), in bytes.
    pub fn set_max_datagram_size(&mut self, max_datagram_size: usize) {
        self.max_datagram_size = max_datagram_size;
    }

    /// Records a send; `cwnd_bytes` is the window the packet was sent under.
    pub fn on_packet_sent(&mut self, packet: &SentPacket, cwnd_bytes: usize) {
        self.pkt_nums.on_sent(packet.pkt_num);
        self.last_send.on_sent(cwnd_bytes);
        if !packet.in_flight {
            return;
        }
        if self.last_send.idle_for_at_least(
            packet,
            self.config.base_rtt_idle_reset,
            &mut self.timeline,
        ) {
            self.clear_base_rtt();
            self.round = None;
        }
        self.last_send.clear_idle();
        let timeline = &mut self.timeline;
        let round = self.round.get_or_insert_with(|| {
            let start = timeline.nanos(packet.time_sent);
            RoundTally::new(packet.pkt_num, start, None, cwnd_bytes)
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
        let frame = AckedFrame::read(event, &mut self.timeline);
        self.last_send
            .on_ack_frame(frame.now, event.bytes_in_flight);
        self.ack_path.on_ack_frame(&frame);
        let (rtt, hold) = self.take_rtt_sample(event, &frame);
        if !self.tally_frame(event, &frame, rtt, hold)? {
            return None;
        }
        self.close_round(event, &frame)
    }

    /// RFC 9002 5.1's sample of the frame (only when it newly acknowledges
    /// the largest packet), into BaseRTT; and the frame's hold bound on an
    /// aggregating path (`aggregation.rs`).
    fn take_rtt_sample(
        &mut self,
        event: &AckEvent<'_>,
        frame: &AckedFrame,
    ) -> (Option<Duration>, HoldBound) {
        // The sample measures the largest newly acknowledged packet.
        let largest = frame.largest;
        let newly_largest = self.pkt_nums.on_acked(largest.map(|(p, _)| p.pkt_num));
        let rtt = if newly_largest {
            self.rtt_sample(event, frame.now, largest.map(|(_, sent)| sent))
        } else {
            None
        };
        let mut hold = HoldBound::default();
        if let Some(rtt) = rtt {
            let full_sized = largest.is_some_and(|(p, _)| p.size_bytes >= self.max_datagram_size);
            self.base_rtts.update(frame.now, rtt, full_sized);
            self.rtts.on_sample(rtt);
            if let Some((_, largest_sent)) = largest {
                let span_rate;
                (hold, span_rate) = self.aggregation.hold_lower_bound(
                    frame.now,
                    frame.acked_bytes,
                    largest_sent,
                    rtt,
                    self.max_datagram_size,
                    self.last_send.cwnd_bytes(),
                );
                if let (Some(span_rate), Some(round)) = (span_rate, &mut self.round) {
                    round.max_ack_rate_bytes_per_sec =
                        round.max_ack_rate_bytes_per_sec.max(span_rate);
                }
            }
        }
        (rtt, hold)
    }

    /// Adds the frame to the round in progress; whether it ends the round.
    /// None: no round in progress.
    fn tally_frame(
        &mut self,
        event: &AckEvent<'_>,
        frame: &AckedFrame,
        rtt: Option<Duration>,
        hold: HoldBound,
    ) -> Option<bool> {
        let release_period = self.aggregation.release_period();
        let path_aggregates = self.aggregation.path_aggregates(frame.now);
        let ack_count_target = self.ack_count_target();
        let round = self.round.as_mut()?;
        round.bytes_acked += frame.acked_bytes;
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
        if ends && self.config.times_distinguished_packet() {
            let end_pkt_num = round.end_pkt_num;
            let timed = event.acked.iter().find(|p| p.pkt_num >= end_pkt_num);
            let sent = timed.and_then(|p| self.timeline.nanos_if_started(p.time_sent));
            // Raw, as BSD timed it: the packet's age when its ACK came.
            round.distinguished_rtt = sent
                .map(|sent| frame.now.saturating_duration_since(sent))
                .filter(|rtt| !rtt.is_zero());
        }
        Some(ends)
    }

    /// The round ended: its measurement, or None if it is too thin to
    /// measure, in which case it extends to the next distinguished packet.
    fn close_round(&mut self, event: &AckEvent<'_>, frame: &AckedFrame) -> Option<RoundSample> {
        let pkts_per_ack_frame = self.ack_path.pkts_per_ack_frame();
        let last_cwnd_bytes = self.last_send.cwnd_bytes();
        let base_rtt = self.base_rtt();
        let round = self.round.as_mut()?;
        let next_pkt_num = self.pkt_nums.next_pkt_num();
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
        // The last packet's send (the largest is the last, ascending).
        let largest_acked_sent = match (event.acked.last(), frame.largest) {
            (Some(last), Some((largest, sent))) if last.pkt_num == largest.pkt_num => Some(sent),
            (last, _) => last.map(|p| self.timeline.nanos(p.time_sent)),
        };
        let interval = frame.now.saturating_duration_since(round.start);
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
                    RoundRttStat::Distinguished => round.distinguished_rtt.unwrap_or(mean_rtt),
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
        let (hold_aware_min, hold_bounded) = self.aggregation.hold_aware_round_min(
            event.now,
            &tally,
            interval,
            base_rtt,
            last_cwnd_bytes,
            self.config.aggregation_aware,
            self.max_datagram_size,
        );
        let mean_rtt = tally.rtt_sum / tally.samples;
        if tally.samples >= DELAY_NOISE_MIN_SAMPLES {
            self.rtts.on_round_mean(mean_rtt);
        }
        let stat = |stat: RoundRttStat| match stat {
            RoundRttStat::Min => hold_aware_min,
            RoundRttStat::Mean => mean_rtt,
            RoundRttStat::Distinguished => tally.distinguished_rtt.unwrap_or(mean_rtt),
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
        // too: a real event loop paces late. Measured: docs/constants.md,
        // `sampler::RoundSample::usable`.
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
        *round = RoundTally::new(next_pkt_num, frame.now, largest_acked_sent, last_cwnd_bytes);
        Some(sample)
    }

    /// The path's delay noise: the smallest mean RTT of a round so far
    /// (rounds of at least [`DELAY_NOISE_MIN_SAMPLES`] samples) less
    /// BaseRTT. BaseRTT is the smallest of all samples, the one that
    /// carried the least noise; the quietest round's mean (an early one,
    /// its window far below the pipe) carries the mean noise. On a path
    /// without noise that is near zero; where timers, schedulers or a
    /// link emulator add a fraction of a millisecond to each packet it is
    /// about that mean, and a round's mean carries the same, which ends
    /// slow start early (measured: docs/constants.md,
    /// `sampler::RoundSampler::delay_noise`). At most [`MAX_DELAY_NOISE`].
    pub fn delay_noise(&self) -> Option<Duration> {
        Some(
            self.rtts
                .min_round_mean()?
                .saturating_sub(self.base_rtt()?)
                .min(MAX_DELAY_NOISE),
        )
    }

    /// AckCount rounds end after one ACK per packet of the window.
    fn ack_count_target(&self) -> u32 {
        (self.last_send.cwnd_bytes() / self.max_datagram_size.max(1)).max(1) as u32
    }

    /// Drops the round in progress; the next send starts a fresh one (after
    /// a window reduction, as Linux `vegas_enable` does).
    pub fn restart_round(&mut self) {
        self.round = None;
    }

    /// The path changed: forget everything measured.
    pub fn on_path_change(&mut self) {
        self.clear_base_rtt();
        self.rtts.forget_latest();
        self.round = None;
        self.last_send.clear_idle();
        self.aggregation = AckAggregation::default();
        // The old path's send-to-ACK time would pace the new one.
        self.ack_path.forget_credit_cycle();
    }

    /// One RTT sample per ACK event (RFC 9002 5.1), ack-delay adjusted per
    /// RFC 9002 5.3 when configured; zero samples discarded. The caller
    /// passes only frames whose largest newly acknowledged packet is the
    /// largest yet: RFC 9002 5.1 samples a frame's Largest Acknowledged
    /// when it is newly acknowledged, and since ACK frames are cumulative
    /// that packet is the largest ever acknowledged. A frame that newly
    /// reports only older packets (ranges a stack reports late) would
    /// measure their wait, not the path.
    fn rtt_sample(
        &self,
        event: &AckEvent<'_>,
        now: Nanos,
        largest_sent: Option<Nanos>,
    ) -> Option<Duration> {
        let sample = event.rtt_sample?;
        // No sample is longer than its packet (sent at `largest_sent`) is
        // old: a stack that says otherwise is read as the packet's age.
        let age = largest_sent.map(|sent| now.saturating_duration_since(sent));
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
        // lands just below it, and keeping all of it reads the timer as
        // queue (measured: docs/constants.md,
        // `sampler::SamplerConfig::subtract_ack_delay`). Never below
        // min_rtt is the rule's intent; min_rtt is the closest sample
        // that keeps it.
        Some(latest_rtt.saturating_sub(ack_delay).max(min_rtt))
    }
}

/// The RTT samples a round needs: `configured`, or as many as the peer's
/// ACK frames can give when it acknowledges less often than every second
/// packet ([`THINNED_ACK_PKTS_PER_FRAME`]): a round of P packets with an ACK
/// every f packets has about P / f samples, and waiting for `configured`
/// would stretch it over several RTTs (measured: docs/constants.md,
/// `sampler::THINNED_ACK_PKTS_PER_FRAME`).
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
mod tests;
