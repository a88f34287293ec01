//! The ACK-aggregation estimator: ACK-frame bursts, the release lattice
//! of a receiver or network that releases ACKs on a clock, the phase lock
//! and the hold bounds a round's RTT is read from on such paths, and the
//! delivery rate over recent frames outside bursts.

use std::time::Duration;
use std::time::Instant;

use super::base_rtt::DEFAULT_BASE_RTT_WINDOW;
use super::timeline::Nanos;
use super::RoundTally;
use super::SMOOTHING_GAIN_DENOMINATOR;

/// RFC 9000 section 13.2.2: a receiver acknowledges at least every second
/// ack-eliciting packet, so a window of 6 packets already gives a round
/// three samples. A peer that acknowledges less often (the ACK frequency
/// extension, ACK thinning) is seen once its frames newly acknowledge more
/// than this many packets on average (2 plus room for the frame after a
/// loss or a reordering that acknowledges a third).
pub const THINNED_ACK_PKTS_PER_FRAME: f64 = 2.5;

/// The fewest packets a delivery rate is read over (the round's fastest rate,
/// `RoundSample::max_ack_rate_bytes_per_sec`). One
/// frame of one or two packets times a gap of a few packet times, and a
/// real receiver's and network's jitter is of that order. 16 packets are
/// one frame of a peer that ACKs every 16, eight of one that ACKs every
/// second packet. Our choice; measured: docs/constants.md,
/// `sampler::FRAME_RATE_MIN_PKTS`.
pub const FRAME_RATE_MIN_PKTS: u64 = 16;

/// The frame rate is read over at least this fraction of the window as
/// well as [`FRAME_RATE_MIN_PKTS`]: a real sender's event loop reads ACK
/// frames in clumps (tens of frames stamped with one arrival time), which
/// over 16 packets read well above the link's rate. Over an eighth of the
/// window a clump moves the rate by its share of those packets. Our
/// choice; measured: docs/constants.md,
/// `sampler::FRAME_RATE_WINDOW_DIVISOR`.
pub const FRAME_RATE_WINDOW_DIVISOR: u64 = 8;

/// The latest ACK frames outside bursts, for a delivery rate over at least
/// a given number of bytes: the bytes of every frame after the oldest kept,
/// over the time since the oldest arrived (the fewest frames that reach the
/// bytes).
#[derive(Clone, Debug, Default)]
pub(super) struct RecentFrames {
    /// (arrival, bytes acknowledged)
    pub(super) frames: std::collections::VecDeque<(Nanos, u64)>,
    /// Bytes of every kept frame but the oldest.
    pub(super) bytes_after_oldest: u64,
}

impl RecentFrames {
    /// Adds a frame; returns the rate over the fewest latest frames whose
    /// bytes (after the oldest of them) reach `min_bytes`.
    pub(super) fn push(&mut self, arrival: Nanos, bytes: u64, min_bytes: u64) -> Option<f64> {
        if !self.frames.is_empty() {
            self.bytes_after_oldest += bytes;
        }
        self.frames.push_back((arrival, bytes));
        while self.frames.len() > 2 {
            let second_bytes = self.frames[1].1;
            if self.bytes_after_oldest - second_bytes < min_bytes {
                break;
            }
            self.frames.pop_front();
            self.bytes_after_oldest -= second_bytes;
        }
        let (oldest, _) = *self.frames.front()?;
        let span = arrival.saturating_duration_since(oldest);
        (self.bytes_after_oldest >= min_bytes && !span.is_zero())
            .then(|| self.bytes_after_oldest as f64 / span.as_secs_f64())
    }
}

/// How long a path that bunched ACK frames is treated as aggregating: as
/// long as BaseRTT remembers a sample ([`DEFAULT_BASE_RTT_WINDOW`]). A
/// window-limited flow can lock into one ACK frame per release, where no
/// single round shows a burst but every sample still carries a hold.
pub const AGGREGATION_MEMORY: Duration = DEFAULT_BASE_RTT_WINDOW;

/// An ACK frame is in a burst when it arrives this many times closer to
/// the previous frame than their packets were sent, and acknowledges bytes
/// this many times faster than frames outside bursts do. Our choice (no
/// paper gives one): an aggregated frame arrives within one ACK
/// serialization of the previous (about 1% of the send spacing on the
/// `ack-frequency` path), while pacing and queue jitter move a frame by a
/// fraction of a packet time; 4 leaves a wide margin on both sides.
pub const BURST_COMPRESSION_FACTOR: u32 = 4;

/// Arrival gaps the release-lattice detector looks at before it trusts a
/// period (8: at an ACK every 8 packets, about one round of frames). Our
/// choice: with a tolerance of 1% of the period, eight unrelated gaps all
/// land on one lattice with a chance near 2^-40.
pub const LATTICE_EVIDENCE_GAPS: usize = 8;

/// How far an arrival gap may be from a whole number of release periods:
/// 1% of the period, at most 200 us (our choice: a release clock is exact
/// to the microsecond, pacing and queue jitter are not).
pub const LATTICE_TOLERANCE_MAX: Duration = Duration::from_micros(200);

/// A release clock that acknowledges fewer than this many max-size
/// packets per period is not taken as ACK aggregation: a busy bottleneck
/// also spaces ACK frames by whole packet times, and when the frames hold
/// different numbers of packets the common period is its service time,
/// one packet per period; there a sample has no hold to remove. (With an
/// ACK every N packets it spaces them N service times apart, but equal
/// gaps alone are never taken as a clock.)
pub const LATTICE_MIN_PERIOD_PKTS: u64 = 4;

/// Consecutive rounds that repeat the previous round's hold bounds (to the
/// lattice tolerance) before a flow is taken as phase-locked to the
/// release clock. Our choice: two repeats; a path whose queue moves
/// changes them every round.
pub const PHASE_LOCK_ROUNDS: u32 = 2;

/// Hold bounds narrower than this many packet times at the delivery rate
/// are not taken as a phase lock: their middle is within 2.5 packets of
/// the truth, and a saturated flow's repeating pattern is not a lock. Our
/// choice; measured: docs/constants.md,
/// `sampler::PHASE_LOCK_MIN_WIDTH_PKTS`.
pub const PHASE_LOCK_MIN_WIDTH_PKTS: u64 = 5;

/// After a phase lock turned out to be a queue (an ACK frame's worth of
/// window bought no rate), no new lock is taken for this long: as long as
/// a burst marks a path as aggregating ([`AGGREGATION_MEMORY`]).
pub const PHASE_LOCK_RETRY: Duration = AGGREGATION_MEMORY;

/// The previous ACK frame with an RTT sample, for burst detection.
#[derive(Clone, Copy, Debug)]
pub(super) struct AckArrival {
    /// When it arrived.
    pub(super) time: Nanos,
    /// Send time of the packet its RTT sample measures.
    pub(super) largest_sent: Nanos,
}

/// A flow locked to the release clock of an aggregating path (module
/// documentation, "ACK aggregation"): rounds that repeat each other's
/// samples exactly, because the flow moves a whole pattern of frames per
/// release and its holds sit wherever Vegas stopped growing. More window
/// only moves the holds, like a queue, until one more frame shares a
/// release; while locked, a round's RTT is its lower bound, so that Vegas
/// grows through the lock.
#[derive(Clone, Debug, Default)]
pub(super) struct PhaseLock {
    /// The previous round's hold bounds (largest lower bound, smallest
    /// sample).
    pub(super) last_bounds: Option<(Duration, Duration)>,
    /// Consecutive rounds that repeated the previous round's bounds.
    pub(super) repeats: u32,
    /// The lock being grown through.
    pub(super) active: Option<ActiveLock>,
    /// No new lock before this: the last one turned out to be a queue.
    pub(super) retry_after: Option<Instant>,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct ActiveLock {
    /// The window when the lock was found.
    pub(super) cwnd_bytes: usize,
    /// Window growth after which, the rate unchanged, the extra RTT is a
    /// queue: one ACK frame's bytes. A flow locked at k frames per release
    /// moves its holds by a period / k per frame of window, and a hold
    /// varies over at most that before one more frame shares a release.
    pub(super) budget_bytes: usize,
    /// The rate has risen once it exceeds this: half a frame more per
    /// release.
    pub(super) risen_bytes_per_sec: f64,
    /// Rounds the lock may still last: Vegas grows a packet per round, so
    /// the budget's packets and as many again; a window that cannot grow
    /// (flow control, a maximum window) must not keep a lock forever.
    pub(super) rounds_left: u32,
}

impl PhaseLock {
    pub(super) fn clear(&mut self) {
        self.last_bounds = None;
        self.repeats = 0;
        self.active = None;
    }

    /// One hold-bounded round on a release clock; true while the flow is
    /// taken as locked.
    pub(super) fn update(&mut self, now: Instant, round: LockRound) -> bool {
        let LockRound {
            period,
            bounds,
            rate_bytes_per_sec,
            bytes_per_frame,
            cwnd_bytes,
            max_datagram_size,
        } = round;
        if let Some(lock) = &mut self.active {
            if rate_bytes_per_sec >= lock.risen_bytes_per_sec {
                // Grown through: one more frame per release.
                self.clear();
                return false;
            }
            lock.rounds_left = lock.rounds_left.saturating_sub(1);
            if cwnd_bytes >= lock.cwnd_bytes + lock.budget_bytes || lock.rounds_left == 0 {
                // A frame's worth of window bought no rate (or the window
                // did not grow): a queue, or nothing to learn.
                self.clear();
                self.retry_after = now.checked_add(PHASE_LOCK_RETRY);
                return false;
            }
            return true;
        }
        let tolerance = ReleaseLattice::tolerance(period);
        let repeated = self.last_bounds.is_some_and(|(lower, upper)| {
            lower.abs_diff(bounds.0) <= tolerance && upper.abs_diff(bounds.1) <= tolerance
        });
        self.last_bounds = Some(bounds);
        self.repeats = if repeated { self.repeats + 1 } else { 0 };
        let may_lock = self.retry_after.is_none_or(|t| now >= t);
        if self.repeats < PHASE_LOCK_ROUNDS || !may_lock {
            return false;
        }
        let period_secs = period.as_secs_f64();
        let budget_pkts = (bytes_per_frame as usize).div_ceil(max_datagram_size.max(1));
        self.active = Some(ActiveLock {
            cwnd_bytes,
            budget_bytes: bytes_per_frame as usize,
            risen_bytes_per_sec: rate_bytes_per_sec + bytes_per_frame as f64 / 2.0 / period_secs,
            rounds_left: 2 * budget_pkts.max(1) as u32,
        });
        true
    }
}

/// What [`PhaseLock::update`] looks at in a round.
#[derive(Clone, Copy, Debug)]
pub(super) struct LockRound {
    /// The release period.
    pub(super) period: Duration,
    /// Largest lower bound and smallest sample.
    pub(super) bounds: (Duration, Duration),
    /// Bytes acknowledged over the round's interval.
    pub(super) rate_bytes_per_sec: f64,
    /// Bytes acknowledged per ACK frame with an RTT sample.
    pub(super) bytes_per_frame: u64,
    /// The window of the latest send.
    pub(super) cwnd_bytes: usize,
    pub(super) max_datagram_size: usize,
}

/// What [`AckAggregation::hold_lower_bound`] learned from one ACK frame.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct HoldBound {
    /// A lower bound on the hold-free RTT of the frame's sample.
    pub(super) lower_bound: Option<Duration>,
}

/// Detects ACK frames that arrive only on the ticks of a release clock
/// (module documentation, "ACK aggregation"): every gap between two frame
/// arrivals a whole number of periods long.
#[derive(Clone, Debug, Default)]
pub(super) struct ReleaseLattice {
    /// The latest gaps between releases, oldest first, each with the bytes
    /// the release that ended it acknowledged and whether that release
    /// carried more than one frame.
    pub(super) gaps: Vec<(Duration, u64, bool)>,
    /// The release period, once the gaps agree on one.
    pub(super) period: Option<Duration>,
    /// The latest frame's arrival.
    pub(super) last_arrival: Option<Nanos>,
    /// The first arrival of the latest cluster of frames that came within
    /// the tolerance of each other (one release: a path that spaces the
    /// frames of one release by their serialization is exact only for the
    /// first of them).
    pub(super) cluster_start: Option<Nanos>,
}

impl ReleaseLattice {
    pub(super) fn tolerance(period: Duration) -> Duration {
        (period / 100).min(LATTICE_TOLERANCE_MAX)
    }

    /// How many periods `gap` is, if it is a whole number of them.
    pub(super) fn periods(gap: Duration, period: Duration) -> Option<u32> {
        let periods = (gap.as_secs_f64() / period.as_secs_f64()).round();
        let off = (gap.as_secs_f64() - periods * period.as_secs_f64()).abs();
        (periods >= 1.0 && off <= Self::tolerance(period).as_secs_f64()).then_some(periods as u32)
    }

    /// The first arrival of the latest release and the period, once the
    /// path is known to release on a clock.
    pub(super) fn release_began(&self) -> Option<(Nanos, Duration)> {
        self.cluster_start.zip(self.period)
    }

    /// One more ACK frame, arriving at `now` (`in_burst` with the previous
    /// one) and acknowledging `acked_bytes`.
    pub(super) fn observe(
        &mut self,
        now: Nanos,
        in_burst: bool,
        acked_bytes: u64,
        max_datagram_size: usize,
    ) {
        let (Some(last), Some(start)) = (self.last_arrival, self.cluster_start) else {
            self.last_arrival = Some(now);
            self.cluster_start = Some(now);
            return;
        };
        self.last_arrival = Some(now);
        let tolerance = self.period.map_or(LATTICE_TOLERANCE_MAX, Self::tolerance);
        if in_burst || now.saturating_duration_since(last) <= tolerance {
            // The same release as the previous frame.
            if let Some((_, bytes, shared)) = self.gaps.last_mut() {
                *bytes += acked_bytes;
                *shared = true;
            }
            return;
        }
        self.cluster_start = Some(now);
        let gap = now.saturating_duration_since(start);
        if let Some(period) = self.period {
            if Self::periods(gap, period).is_some() {
                return;
            }
            // A gap off the lattice: the path does not release on a clock
            // (any more); collect evidence afresh from this gap on (keeping
            // the buffer: this runs per ACK frame and must not allocate).
            self.period = None;
            self.gaps.clear();
        }
        if self.gaps.len() == LATTICE_EVIDENCE_GAPS {
            self.gaps.remove(0);
        }
        self.gaps.push((gap, acked_bytes, false));
        if self.gaps.len() < LATTICE_EVIDENCE_GAPS {
            return;
        }
        let Some(shortest) = self.gaps.iter().map(|&(gap, ..)| gap).min() else {
            return;
        };
        let (mut periods, mut first, mut several, mut shared) = (0u64, None, false, false);
        for &(gap, _, released_together) in &self.gaps {
            let Some(k) = Self::periods(gap, shortest) else {
                return;
            };
            periods += u64::from(k);
            several |= first.is_some_and(|first| first != k);
            first = first.or(Some(k));
            shared |= released_together;
        }
        // Equal gaps are also what a steadily paced flow gives, and a busy
        // bottleneck with an ACK every N packets (N service times apart):
        // a clock shows itself by gaps of several periods or by frames
        // released together.
        if !several && !shared {
            return;
        }
        // The period: the gaps' total over their total periods. A busy
        // bottleneck's service-time lattice acknowledges one packet per
        // period: too few.
        let total: Duration = self.gaps.iter().map(|&(gap, ..)| gap).sum();
        let Ok(periods_u32) = u32::try_from(periods) else {
            return;
        };
        let bytes: u64 = self.gaps.iter().map(|&(_, bytes, _)| bytes).sum();
        if periods_u32 > 0 && bytes >= periods * LATTICE_MIN_PERIOD_PKTS * max_datagram_size as u64
        {
            self.period = Some(total / periods_u32);
        }
    }
}

/// The ACK-aggregation estimator (module documentation, "ACK
/// aggregation"): bursts of ACK frames, the release clock, the phase lock
/// and the frame rates, with their state. The sampler calls it once per
/// frame with an RTT sample ([`AckAggregation::hold_lower_bound`]) and
/// once per round ([`AckAggregation::hold_aware_round_min`]).
#[derive(Clone, Debug, Default)]
pub(super) struct AckAggregation {
    /// The previous frame with an RTT sample.
    last_ack: Option<AckArrival>,
    /// The arrival of the last frame outside a burst: every frame of the
    /// burst after it was released after it.
    burst_prev_arrival: Option<Nanos>,
    lattice: ReleaseLattice,
    phase_lock: PhaseLock,
    /// When a burst was last seen ([`AGGREGATION_MEMORY`]).
    last_burst_at: Option<Nanos>,
    /// Bytes acknowledged per second of arrival gap, smoothed over the
    /// frames outside bursts (1/8 gain).
    ack_rate_bytes_per_sec: Option<f64>,
    /// The same per second of the longer of arrival and send gap
    /// ([`RoundSampler::sent_ack_rate_bytes_per_sec`]).
    sent_ack_rate_bytes_per_sec: Option<f64>,
    recent_frames: RecentFrames,
}

impl AckAggregation {
    /// The smoothed rate of ACK frames outside bursts, no faster than
    /// their packets were sent.
    pub(super) fn sent_ack_rate_bytes_per_sec(&self) -> Option<f64> {
        self.sent_ack_rate_bytes_per_sec
    }

    /// The release clock's period, once found.
    pub(super) fn release_period(&self) -> Option<Duration> {
        self.lattice.period
    }

    /// The path bunches ACK frames now: a release clock, or a burst within
    /// [`AGGREGATION_MEMORY`].
    pub(super) fn path_aggregates(&self, now: Nanos) -> bool {
        self.lattice.period.is_some()
            || self
                .last_burst_at
                .is_some_and(|at| now.saturating_duration_since(at) <= AGGREGATION_MEMORY)
    }

    /// The round's smallest RTT with the ACK holds of an aggregating path
    /// taken out, and whether hold bounds decided it (module documentation,
    /// "ACK aggregation"). Elsewhere it is the round's smallest sample.
    /// `aggregation_aware` is [`SamplerConfig::aggregation_aware`].
    #[allow(clippy::too_many_arguments)]
    pub(super) fn hold_aware_round_min(
        &mut self,
        now: Instant,
        round: &RoundTally,
        interval: Duration,
        base_rtt: Option<Duration>,
        last_cwnd_bytes: usize,
        aggregation_aware: bool,
        max_datagram_size: usize,
    ) -> (Duration, bool) {
        // With ACK aggregation the smallest sample still carries its ACK's
        // hold; the hold-free RTT lies between the largest lower bound and
        // the smallest sample, and the middle of that interval is the
        // estimate (module documentation). An empty interval means the RTT
        // moved within the round: the samples are taken as they are.
        // The round's largest lower bound, if it has one that the smallest
        // sample does not contradict.
        let lower_bound = round
            .rtt_lower_bound
            .filter(|&lower| lower <= round.rtt_min);
        let hold_bounded = aggregation_aware && round.aggregated && lower_bound.is_some();
        let rate_bytes_per_sec = if interval.is_zero() {
            0.0
        } else {
            round.bytes_acked as f64 / interval.as_secs_f64()
        };
        let bytes_per_frame = round.bytes_acked / u64::from(round.samples.max(1));
        let locked = match (round.release_period, lower_bound) {
            (Some(period), Some(lower)) if hold_bounded => {
                // Bounds a few packet times apart decide well enough from
                // their middle ([`PHASE_LOCK_MIN_WIDTH_PKTS`]).
                let width_bytes = (round.rtt_min - lower).as_secs_f64() * rate_bytes_per_sec;
                let min_width_bytes = (PHASE_LOCK_MIN_WIDTH_PKTS * max_datagram_size as u64) as f64;
                width_bytes >= min_width_bytes
                    && self.phase_lock.update(
                        now,
                        LockRound {
                            period,
                            bounds: (lower, round.rtt_min),
                            rate_bytes_per_sec,
                            bytes_per_frame,
                            cwnd_bytes: last_cwnd_bytes,
                            max_datagram_size,
                        },
                    )
            }
            _ => {
                self.phase_lock.clear();
                false
            }
        };
        let hold_aware_min = match lower_bound {
            Some(lower) if hold_bounded => {
                if locked {
                    // The lower bound is a period below the samples;
                    // BaseRTT, the smallest sample, is as fast as the path
                    // has been.
                    base_rtt.map_or(lower, |base| lower.max(base))
                } else {
                    lower + (round.rtt_min - lower) / 2
                }
            }
            _ => round.rtt_min,
        };
        (hold_aware_min, hold_bounded)
    }

    /// A lower bound on the hold-free RTT of the packet an ACK frame's
    /// sample measures (sent at `largest_sent`), and whether the frame
    /// arrived in a burst with the previous one (module documentation, "ACK
    /// aggregation").
    ///
    /// A frame arrives in a burst when it follows the previous frame by
    /// less than a quarter of the time between the sends of the packets the
    /// two frames measure, and faster than a quarter of the time the path
    /// took to deliver its bytes: the path bunched ACKs that the receiver
    /// spread out. A burst's frames were all released after the arrival of
    /// the last frame before it (else they would have come with that one),
    /// so each measures at least `burst_prev_arrival - largest_sent`. On a
    /// release clock ([`ReleaseLattice`]) every frame reached the clock
    /// less than a period before its release began, which bounds frames
    /// outside bursts too. Either bound is less the ack delay the sample
    /// had subtracted.
    ///
    /// Also returns the rate over the latest frames that reach an eighth
    /// of the window ([`RecentFrames::push`]) when this frame gives one:
    /// the round's fastest frame rate is the largest of them.
    pub(super) fn hold_lower_bound(
        &mut self,
        now: Nanos,
        acked_bytes: u64,
        largest_sent: Nanos,
        rtt: Duration,
        max_datagram_size: usize,
        last_cwnd_bytes: usize,
    ) -> (HoldBound, Option<f64>) {
        let previous = self.last_ack.replace(AckArrival {
            time: now,
            largest_sent,
        });
        let Some(previous) = previous else {
            self.lattice
                .observe(now, false, acked_bytes, max_datagram_size);
            return (HoldBound::default(), None);
        };
        let arrival_gap = now.saturating_duration_since(previous.time);
        let send_gap = largest_sent.saturating_duration_since(previous.largest_sent);
        // ...and acknowledges its bytes many times faster than the
        // frames outside bursts do: a queue that drains also brings ACKs
        // closer than their packets were sent, but no faster than the
        // bottleneck delivers.
        let factor = BURST_COMPRESSION_FACTOR;
        let faster_than_delivery = self.ack_rate_bytes_per_sec.is_some_and(|rate| {
            acked_bytes as f64 > f64::from(factor) * rate * arrival_gap.as_secs_f64()
        });
        let in_burst =
            !send_gap.is_zero() && arrival_gap * factor < send_gap && faster_than_delivery;
        let mut span_rate = None;
        if !in_burst {
            self.burst_prev_arrival = Some(previous.time);
            if !arrival_gap.is_zero() {
                let rate = acked_bytes as f64 / arrival_gap.as_secs_f64();
                // For the pipe estimate: no faster than the packets were
                // sent (BBR's guard, draft-ietf-ccwg-bbr, "Delivery Rate
                // Samples": an event loop that reads ACK frames in clumps
                // stamps them closer than they came). Burst detection keeps
                // the arrival rate it compares frames with.
                let sent_rate = acked_bytes as f64 / arrival_gap.max(send_gap).as_secs_f64();
                let min_bytes = (FRAME_RATE_MIN_PKTS * max_datagram_size as u64)
                    .max(last_cwnd_bytes as u64 / FRAME_RATE_WINDOW_DIVISOR);
                span_rate = self.recent_frames.push(now, acked_bytes, min_bytes);
                let smooth = |previous: Option<f64>, rate: f64| {
                    Some(previous.map_or(rate, |smoothed| {
                        let gain = f64::from(SMOOTHING_GAIN_DENOMINATOR);
                        smoothed + (rate - smoothed) / gain
                    }))
                };
                self.ack_rate_bytes_per_sec = smooth(self.ack_rate_bytes_per_sec, rate);
                self.sent_ack_rate_bytes_per_sec =
                    smooth(self.sent_ack_rate_bytes_per_sec, sent_rate);
            }
        }
        self.lattice
            .observe(now, in_burst, acked_bytes, max_datagram_size);
        let raw_rtt = now.saturating_duration_since(largest_sent);
        let subtracted_delay = raw_rtt.saturating_sub(rtt);
        let bound_from = |reached_by: Nanos| {
            reached_by
                .checked_duration_since(largest_sent)
                .map(|d| d.saturating_sub(subtracted_delay))
        };
        let burst_bound = self
            .burst_prev_arrival
            .filter(|_| in_burst)
            .and_then(bound_from);
        let lattice_bound = self
            .lattice
            .release_began()
            .and_then(|(start, period)| start.checked_sub(period).and_then(bound_from));
        let lower_bound = match (burst_bound, lattice_bound) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        if in_burst {
            self.last_burst_at = Some(now);
        }
        (HoldBound { lower_bound }, span_rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampler::tests::run_path;
    use crate::sampler::tests::run_path_with_window;
    use crate::sampler::timeline::Timeline;
    use crate::sampler::*;
    use crate::test_sender::MDS;
    use crate::test_sender::MS;

    /// `t0 + offset` on a timeline that starts at `t0`.
    fn at(t0: Instant, offset: Duration) -> Nanos {
        let mut timeline = Timeline::default();
        timeline.nanos(t0);
        timeline.nanos(t0 + offset)
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
                lattice.observe(at(t0, MS * ms as u32), false, frame_bytes, MDS);
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
            lattice.observe(at(t0, MS * *ms as u32), false, packets * MDS as u64, MDS);
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
            rates.push(frames.push(at(t0, 2 * i * MS), 2 * pkt, min_bytes));
        }
        assert!(rates[..8].iter().all(Option::is_none), "{rates:?}");
        for rate in &rates[8..] {
            let rate = rate.unwrap();
            assert!((rate - 1000.0 * pkt as f64).abs() < 1e-6, "{rate}");
        }
        // A clump (a frame 100 us after the previous) moves the rate over
        // 16 packets by a little, not to the clump's own 20 packets per ms.
        let clumped = frames
            .push(at(t0, 38 * MS + 100 * us), 2 * pkt, min_bytes)
            .unwrap();
        assert!(clumped < 1.3 * 1000.0 * pkt as f64, "{clumped}");
        // The frames kept stay few (bounded memory on the ACK path).
        assert!(frames.frames.len() <= 10, "{}", frames.frames.len());
    }
}
