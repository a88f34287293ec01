//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 1995, section III) for QUIC.
//! All RTT and rate measurements come from the [`RoundSampler`].
//!
//! - III-B congestion avoidance, once per round: BaseRTT = minimum RTT,
//!   Expected = cwnd / BaseRTT, Actual from the sampler,
//!   Diff = (Expected - Actual) * BaseRTT in packets of max_datagram_size.
//!   Diff < alpha: +1 packet; Diff > beta: -1 packet; otherwise unchanged
//!   (alpha = 1, beta = 3).
//! - III-C modified slow start: the window grows exponentially only every
//!   other round; in between it is held so Expected and Actual can be
//!   compared. When Diff > gamma (one buffer) at the end of a held round,
//!   Vegas leaves slow start and cuts the window by 1/8 (the cut is from
//!   seed 002 section II and seed 004's 7/8 W).
//! - III-A: the window is only decreased for a loss if the lost packet was
//!   sent after the last decrease.
//!
//! Interpretation choices:
//! - A round's +1/-1 step is applied at once when the round ends (as Linux
//!   `tcp_vegas.c`), not spread over the next RTT. Diff == alpha or
//!   Diff == beta holds. Diff is clamped at 0: III-B says it is never
//!   negative; a negative value here comes from ACK compression, not from a
//!   wrong BaseRTT.
//! - Expected uses the window in force when the round started (constant
//!   through congestion-avoidance and held rounds).
//! - Slow start: the first round (and the first after a timeout) is held,
//!   as seed 002 Table 2 (W_0 = W_1). In a growing round the window grows
//!   by the bytes each ACK acknowledges, at most to twice its value at the
//!   round start and to ssthresh. Diff is only tested after held rounds.
//!   Rounds the sampler marks unusable make no decision; in slow start the
//!   next round is then held again.
//! - Slow start is cwnd < ssthresh. Whenever Vegas lowers cwnd it sets
//!   ssthresh = min(ssthresh, cwnd), so it never re-enters slow start by
//!   itself (Linux `tcp_vegas_ssthresh` does the same with cwnd - 1).
//! - Loss (III-A): Vegas keeps Reno's fast retransmit/recovery and timeout
//!   (III-A "extends Reno's retransmission mechanisms", V "Vegas uses
//!   exactly the same coarse-grain mechanism as Reno"); the paper states no
//!   other factor, so the default is Reno's 1/2 (RFC 9002 7.3.2),
//!   configurable. ssthresh = cwnd * factor, cwnd = max(ssthresh, minimum).
//!   "The last decrease" is tracked by packet number and moved by loss, PTO
//!   and persistent-congestion reductions and by the slow-start exit cut,
//!   not by the -1 packet steps: a loss is detected about one RTT after the
//!   send, always after the last per-round step, so counting those steps
//!   would make Vegas ignore nearly every loss while it is decreasing.
//! - After a loss or PTO reduction Vegas is in recovery until a packet sent
//!   after it is acknowledged: no growth, no round decisions (Linux disables
//!   Vegas outside the Open state); then the sampler round restarts.
//! - PTO ([`PtoResponse::RestartSlowStart`], the paper's coarse timeout, in
//!   both constructors): ssthresh = cwnd / 2 (III-C: "Whenever a retransmit
//!   timeout occurs, Reno sets the threshold window to one half of the
//!   congestion window"), cwnd = minimum window (2 packets, the RFC 9002
//!   7.2 floor instead of TCP's one segment), then slow start. A PTO while
//!   the previous PTO's recovery is still open keeps ssthresh (RFC 5681
//!   3.1: ssthresh is only lowered for a segment not yet resent by the
//!   timer). [`PtoResponse::Ignore`] is RFC 9002 6.2 (no change).
//! - Persistent congestion (RFC 9002 7.6.2): cwnd = minimum window, slow
//!   start from a held round.
//! - Pacing: gain * cwnd / smoothed_rtt (RFC 9002 7.7, gain 1.25) by
//!   default; the paper's Vegas is purely ACK-clocked, so `paper()` does
//!   not pace.
//!
//! Slow start (`slow_start_on_ack`, `slow_start_step`) and congestion
//! avoidance (`congestion_avoidance_step`) are separate functions so that a
//! variant (Gallop-Vegas slow start, Vegas-A thresholds) can replace one.
//!
//! Seeds cited: seed 002 = Ho, Chan & Chen, "Gallop-Vegas"; seed 004 =
//! Vanichpun & Feng, "On the Transient Behavior of TCP Vegas".

use std::time::Duration;
use std::time::Instant;

use crate::events::Action;
use crate::events::ReductionCause;
use crate::events::RoundDecision;
use crate::events::SlowStartExitCause;
use crate::sampler::RoundSample;
use crate::sampler::RoundSampler;
use crate::sampler::SamplerConfig;
use crate::AckEvent;
use crate::Controller;
use crate::ControllerEvent;
use crate::EventQueue;
use crate::ParamError;
use crate::Phase;
use crate::SentPacket;

/// III-B: "we set alpha to one and beta to three" (buffers, i.e. packets).
pub const PAPER_ALPHA_PKTS: f64 = 1.0;
/// III-B: beta = 3 packets.
pub const PAPER_BETA_PKTS: f64 = 3.0;
/// III-C: leave slow start when Actual falls below Expected "by the
/// equivalent of one router buffer" (seed 002 section II: gamma = 1).
pub const PAPER_GAMMA_PKTS: f64 = 1.0;
/// Seed 002 section II: on leaving slow start Vegas "decreases its
/// congestion window size by 1/8" (seed 004: 7/8 W).
pub const SLOW_START_EXIT_CUT_DIVISOR: usize = 8;
/// RFC 9002 section 7.2 kMinimumWindow: 2 datagrams.
pub const MIN_WINDOW_PKTS: usize = 2;
/// RFC 9002 section 7.2: initial window of 10 datagrams.
pub const QUIC_INITIAL_WINDOW_PKTS: usize = 10;
/// Seed 002 Table 2: Vegas slow start from W_0 = 2 packets.
pub const PAPER_INITIAL_WINDOW_PKTS: usize = 2;
/// Reno's multiplicative decrease (RFC 9002 7.3.2 kLossReductionFactor),
/// which Vegas keeps (III-A, V).
pub const RENO_LOSS_REDUCTION_FACTOR: f64 = 0.5;
/// III-C: a retransmit timeout sets the threshold to half the window.
const TIMEOUT_SSTHRESH_DIVISOR: usize = 2;
/// RFC 9002 section 7.7: N = 1.25.
pub const PACING_GAIN: f64 = 1.25;
/// RFC 9000 section 14: the smallest QUIC maximum datagram size.
pub const DEFAULT_MAX_DATAGRAM_SIZE: usize = 1200;

/// What a probe timeout does to the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtoResponse {
    /// The paper's coarse-grained timeout (Reno's): ssthresh = cwnd / 2,
    /// cwnd = minimum window, then slow start.
    RestartSlowStart,
    /// RFC 9002 section 6.2: a PTO is not a loss; nothing changes.
    Ignore,
}

/// Vegas parameters. [`VegasConfig::paper`] is the paper's Vegas;
/// [`VegasConfig::default`] the same algorithm with QUIC's initial window,
/// pacing and the robust sampler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasConfig {
    /// Initial window in datagrams (>= 2).
    pub initial_cwnd_pkts: usize,
    /// Maximum datagram size in bytes until `set_max_datagram_size`.
    pub max_datagram_size: usize,
    /// Increase while Diff < alpha (packets, > 0).
    pub alpha_pkts: f64,
    /// Decrease while Diff > beta (packets, >= alpha).
    pub beta_pkts: f64,
    /// Leave slow start when Diff > gamma (packets, > 0).
    pub gamma_pkts: f64,
    /// Multiplicative decrease on loss, in (0, 1).
    pub loss_reduction_factor: f64,
    pub pto_response: PtoResponse,
    /// Pacing gain; None: do not pace.
    pub pacing_gain: Option<f64>,
    pub sampler: SamplerConfig,
}

impl VegasConfig {
    /// The paper's Vegas: initial window 2, alpha/beta/gamma 1/3/1, Reno's
    /// loss and timeout response, no pacing, sampler in paper mode.
    pub fn paper() -> Self {
        VegasConfig {
            initial_cwnd_pkts: PAPER_INITIAL_WINDOW_PKTS,
            max_datagram_size: DEFAULT_MAX_DATAGRAM_SIZE,
            alpha_pkts: PAPER_ALPHA_PKTS,
            beta_pkts: PAPER_BETA_PKTS,
            gamma_pkts: PAPER_GAMMA_PKTS,
            loss_reduction_factor: RENO_LOSS_REDUCTION_FACTOR,
            pto_response: PtoResponse::RestartSlowStart,
            pacing_gain: None,
            sampler: SamplerConfig::paper(),
        }
    }

    /// Checks every field; the error names the first field that is wrong.
    pub fn validate(&self) -> Result<(), ParamError> {
        if self.initial_cwnd_pkts < MIN_WINDOW_PKTS {
            return Err(ParamError::new(
                "initial_cwnd_pkts",
                self.initial_cwnd_pkts,
                "an integer >= 2 (the RFC 9002 7.2 minimum window)",
            ));
        }
        if self.max_datagram_size == 0 {
            return Err(ParamError::new(
                "max_datagram_size",
                self.max_datagram_size,
                "a positive number of bytes",
            ));
        }
        let thresholds = [
            ("alpha_pkts", self.alpha_pkts),
            ("beta_pkts", self.beta_pkts),
            ("gamma_pkts", self.gamma_pkts),
        ];
        for (field, value) in thresholds {
            if !(value.is_finite() && value > 0.0) {
                return Err(ParamError::new(
                    field,
                    value,
                    "a finite number of packets > 0",
                ));
            }
        }
        if self.alpha_pkts > self.beta_pkts {
            return Err(ParamError::new(
                "alpha_pkts",
                self.alpha_pkts,
                format!("at most beta_pkts ({})", self.beta_pkts),
            ));
        }
        let factor = self.loss_reduction_factor;
        if !(factor.is_finite() && factor > 0.0 && factor < 1.0) {
            return Err(ParamError::new(
                "loss_reduction_factor",
                factor,
                "a finite number in (0, 1)",
            ));
        }
        if let Some(gain) = self.pacing_gain {
            if !(gain.is_finite() && gain > 0.0) {
                return Err(ParamError::new(
                    "pacing_gain",
                    gain,
                    "a finite number > 0, or none",
                ));
            }
        }
        self.sampler.validate()
    }
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            initial_cwnd_pkts: QUIC_INITIAL_WINDOW_PKTS,
            pacing_gain: Some(PACING_GAIN),
            sampler: SamplerConfig::default(),
            ..VegasConfig::paper()
        }
    }
}

/// Which kind of slow-start round is in progress (III-C).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlowStartRound {
    /// The window is held so Expected and Actual can be compared.
    Hold,
    /// The window grows by the bytes acknowledged.
    Grow,
}

/// Expected, Actual and Diff of one round (III-B).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundDiff {
    pub expected_bytes_per_sec: f64,
    pub actual_bytes_per_sec: f64,
    /// (Expected - Actual) * BaseRTT / max_datagram_size, at least 0.
    pub diff_pkts: f64,
}

/// TCP Vegas.
#[derive(Debug)]
pub struct Vegas {
    config: VegasConfig,
    sampler: RoundSampler,
    max_datagram_size: usize,
    cwnd_bytes: usize,
    /// `usize::MAX` while infinite.
    ssthresh_bytes: usize,
    /// Thresholds in force (from the config; variants may adapt them).
    alpha_pkts: f64,
    beta_pkts: f64,
    gamma_pkts: f64,
    /// The window when the round in progress started: Expected's
    /// WindowSize, and the base of the slow-start doubling.
    round_start_cwnd_bytes: usize,
    slow_start_round: SlowStartRound,
    largest_sent_pkt_num: Option<u64>,
    /// III-A: packets numbered from here on were sent after the last window
    /// decrease. None: no decrease yet.
    first_pkt_after_reduction: Option<u64>,
    /// Why the recovery in progress started; None: not in recovery.
    recovery_cause: Option<ReductionCause>,
    events: EventQueue,
}

impl Vegas {
    pub fn new(config: VegasConfig) -> Result<Self, ParamError> {
        config.validate()?;
        let cwnd_bytes = config.initial_cwnd_pkts * config.max_datagram_size;
        Ok(Vegas {
            config,
            sampler: RoundSampler::new(config.sampler, config.max_datagram_size)?,
            max_datagram_size: config.max_datagram_size,
            cwnd_bytes,
            ssthresh_bytes: usize::MAX,
            alpha_pkts: config.alpha_pkts,
            beta_pkts: config.beta_pkts,
            gamma_pkts: config.gamma_pkts,
            round_start_cwnd_bytes: cwnd_bytes,
            slow_start_round: SlowStartRound::Hold,
            largest_sent_pkt_num: None,
            first_pkt_after_reduction: None,
            recovery_cause: None,
            events: EventQueue::default(),
        })
    }

    pub fn config(&self) -> &VegasConfig {
        &self.config
    }

    /// The sampler Vegas measures with.
    pub fn sampler(&self) -> &RoundSampler {
        &self.sampler
    }

    /// BaseRTT (III-B), from the sampler.
    pub fn base_rtt(&self) -> Option<Duration> {
        self.sampler.base_rtt()
    }

    fn initial_window_bytes(&self) -> usize {
        self.config.initial_cwnd_pkts * self.max_datagram_size
    }

    fn min_window_bytes(&self) -> usize {
        MIN_WINDOW_PKTS * self.max_datagram_size
    }

    fn in_slow_start(&self) -> bool {
        self.cwnd_bytes < self.ssthresh_bytes
    }

    fn next_pkt_num(&self) -> u64 {
        self.largest_sent_pkt_num.map_or(0, |n| n + 1)
    }

    /// III-A: was this packet sent after the last window decrease?
    fn sent_after_last_reduction(&self, pkt_num: u64) -> bool {
        self.first_pkt_after_reduction
            .is_none_or(|first| pkt_num >= first)
    }

    /// Lowers cwnd (never below the minimum window) and ssthresh with it.
    fn lower_cwnd(&mut self, cwnd_bytes: usize) {
        self.cwnd_bytes = cwnd_bytes.max(self.min_window_bytes());
        self.ssthresh_bytes = self.ssthresh_bytes.min(self.cwnd_bytes);
    }

    /// Starts over after a reduction: losses of packets sent before now no
    /// longer count (III-A) and the next round is measured afresh.
    fn mark_reduction(&mut self) {
        self.first_pkt_after_reduction = Some(self.next_pkt_num());
        self.round_start_cwnd_bytes = self.cwnd_bytes;
        self.slow_start_round = SlowStartRound::Hold;
        self.sampler.restart_round();
    }

    fn push_reduction(
        &mut self,
        now: Instant,
        cause: ReductionCause,
        cwnd_before_bytes: usize,
        was_slow_start: bool,
    ) {
        if was_slow_start && !self.in_slow_start() {
            let cause = match cause {
                ReductionCause::Pto => SlowStartExitCause::Pto,
                _ => SlowStartExitCause::Loss,
            };
            self.events.push(ControllerEvent::SlowStartExit {
                now,
                cause,
                cwnd_bytes: self.cwnd_bytes,
            });
        }
        self.events.push(ControllerEvent::Reduction {
            now,
            cause,
            cwnd_before_bytes,
            cwnd_after_bytes: self.cwnd_bytes,
            ssthresh_bytes: self.ssthresh_bytes,
        });
    }

    // Loss, timeout, persistent congestion (III-A, RFC 9002 7.3.2, 7.6).

    fn on_loss(&mut self, now: Instant, largest_lost_pkt_num: u64) {
        if !self.sent_after_last_reduction(largest_lost_pkt_num) {
            return;
        }
        let was_slow_start = self.in_slow_start();
        let cwnd_before_bytes = self.cwnd_bytes;
        self.ssthresh_bytes = (self.cwnd_bytes as f64 * self.config.loss_reduction_factor) as usize;
        self.cwnd_bytes = self.ssthresh_bytes.max(self.min_window_bytes());
        self.recovery_cause = Some(ReductionCause::Loss);
        self.mark_reduction();
        self.push_reduction(now, ReductionCause::Loss, cwnd_before_bytes, was_slow_start);
    }

    fn on_persistent_congestion(&mut self, now: Instant) {
        let was_slow_start = self.in_slow_start();
        let cwnd_before_bytes = self.cwnd_bytes;
        self.cwnd_bytes = self.min_window_bytes();
        self.recovery_cause = None;
        self.mark_reduction();
        self.push_reduction(
            now,
            ReductionCause::PersistentCongestion,
            cwnd_before_bytes,
            was_slow_start,
        );
    }

    // Modified slow start (III-C).

    /// Per ACK in slow start: a growing round adds the bytes acknowledged,
    /// up to twice the window at the round start and up to ssthresh.
    fn slow_start_on_ack(&mut self, now: Instant, acked_bytes: usize) {
        if self.slow_start_round != SlowStartRound::Grow {
            return;
        }
        let limit_bytes = self
            .round_start_cwnd_bytes
            .saturating_mul(2)
            .min(self.ssthresh_bytes);
        self.cwnd_bytes = self
            .cwnd_bytes
            .saturating_add(acked_bytes)
            .min(limit_bytes)
            .max(self.cwnd_bytes);
        if !self.in_slow_start() {
            self.events.push(ControllerEvent::SlowStartExit {
                now,
                cause: SlowStartExitCause::Ssthresh,
                cwnd_bytes: self.cwnd_bytes,
            });
        }
    }

    /// End of a slow-start round: after a growing round the next is held;
    /// after a held round Diff decides between growing and leaving slow
    /// start with a 1/8 cut.
    fn slow_start_step(&mut self, now: Instant, diff: &RoundDiff) -> Action {
        match self.slow_start_round {
            SlowStartRound::Grow => {
                self.slow_start_round = SlowStartRound::Hold;
                Action::SlowStartGrow
            }
            SlowStartRound::Hold if diff.diff_pkts > self.gamma_pkts => {
                let cut_bytes = self.cwnd_bytes / SLOW_START_EXIT_CUT_DIVISOR;
                self.lower_cwnd(self.cwnd_bytes - cut_bytes);
                self.first_pkt_after_reduction = Some(self.next_pkt_num());
                self.events.push(ControllerEvent::SlowStartExit {
                    now,
                    cause: SlowStartExitCause::DiffAboveGamma,
                    cwnd_bytes: self.cwnd_bytes,
                });
                Action::SlowStartExit
            }
            SlowStartRound::Hold => {
                self.slow_start_round = SlowStartRound::Grow;
                Action::SlowStartHold
            }
        }
    }

    // Congestion avoidance (III-B).

    /// End of a congestion-avoidance round: +1 packet below alpha, -1 packet
    /// above beta, unchanged in between.
    fn congestion_avoidance_step(&mut self, diff: &RoundDiff) -> Action {
        if diff.diff_pkts < self.alpha_pkts {
            self.cwnd_bytes += self.max_datagram_size;
            Action::Increase
        } else if diff.diff_pkts > self.beta_pkts {
            self.lower_cwnd(self.cwnd_bytes.saturating_sub(self.max_datagram_size));
            Action::Decrease
        } else {
            Action::Hold
        }
    }

    /// Expected, Actual and Diff of a finished round (III-B).
    fn round_diff(&self, round: &RoundSample) -> RoundDiff {
        let base_rtt_secs = round.base_rtt.as_secs_f64();
        let expected_bytes_per_sec = self.round_start_cwnd_bytes as f64 / base_rtt_secs;
        let actual_bytes_per_sec = round.actual_bytes_per_sec;
        let diff_bytes = (expected_bytes_per_sec - actual_bytes_per_sec) * base_rtt_secs;
        RoundDiff {
            expected_bytes_per_sec,
            actual_bytes_per_sec,
            diff_pkts: (diff_bytes / self.max_datagram_size as f64).max(0.0),
        }
    }

    /// Once per round: decide and record the decision.
    fn on_round_end(&mut self, now: Instant, round: &RoundSample) {
        if !round.usable {
            // The window was not in use: nothing to learn, nothing decided.
            if self.in_slow_start() {
                self.slow_start_round = SlowStartRound::Hold;
            }
            self.round_start_cwnd_bytes = self.cwnd_bytes;
            return;
        }
        let phase = self.phase();
        let diff = self.round_diff(round);
        let action = if self.in_slow_start() {
            self.slow_start_step(now, &diff)
        } else {
            self.congestion_avoidance_step(&diff)
        };
        self.events.push(ControllerEvent::Round(RoundDecision {
            now,
            base_rtt: round.base_rtt,
            round_rtt: round.round_rtt,
            expected_bytes_per_sec: diff.expected_bytes_per_sec,
            actual_bytes_per_sec: diff.actual_bytes_per_sec,
            diff_pkts: diff.diff_pkts,
            alpha_pkts: self.alpha_pkts,
            beta_pkts: self.beta_pkts,
            gamma_pkts: self.gamma_pkts,
            cwnd_before_bytes: self.round_start_cwnd_bytes,
            cwnd_after_bytes: self.cwnd_bytes,
            action,
            phase,
            samples: round.samples,
            bytes_acked: round.bytes_acked,
        }));
        self.round_start_cwnd_bytes = self.cwnd_bytes;
    }
}

impl Controller for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_packet_sent(&mut self, _now: Instant, packet: &SentPacket) {
        self.largest_sent_pkt_num = Some(packet.pkt_num);
        self.sampler.on_packet_sent(packet, self.cwnd_bytes);
    }

    fn on_ack_event(&mut self, event: &AckEvent<'_>) {
        if let Some(largest_lost) = event.lost.last() {
            self.on_loss(event.now, largest_lost.pkt_num);
        }
        if event.persistent_congestion {
            self.on_persistent_congestion(event.now);
        }
        let round = self.sampler.on_ack_event(event);
        if self.recovery_cause.is_some() {
            let acked_after_reduction = event
                .acked
                .last()
                .is_some_and(|p| self.sent_after_last_reduction(p.pkt_num));
            if acked_after_reduction {
                // Recovery is over; measure a fresh round from here.
                self.recovery_cause = None;
                self.round_start_cwnd_bytes = self.cwnd_bytes;
                self.sampler.restart_round();
            }
            return;
        }
        if self.in_slow_start() {
            let acked_bytes = event.acked.iter().map(|p| p.size_bytes).sum();
            self.slow_start_on_ack(event.now, acked_bytes);
        }
        if let Some(round) = round {
            self.on_round_end(event.now, &round);
        }
    }

    fn on_pto(&mut self, now: Instant) {
        if self.config.pto_response == PtoResponse::Ignore {
            return;
        }
        let was_slow_start = self.in_slow_start();
        let cwnd_before_bytes = self.cwnd_bytes;
        if self.recovery_cause != Some(ReductionCause::Pto) {
            self.ssthresh_bytes =
                (self.cwnd_bytes / TIMEOUT_SSTHRESH_DIVISOR).max(self.min_window_bytes());
        }
        self.cwnd_bytes = self.min_window_bytes();
        self.recovery_cause = Some(ReductionCause::Pto);
        self.mark_reduction();
        self.push_reduction(now, ReductionCause::Pto, cwnd_before_bytes, was_slow_start);
    }

    fn on_app_limited(&mut self, now: Instant, _bytes_in_flight: usize) {
        self.sampler.on_app_limited(now);
    }

    fn on_path_change(&mut self, _now: Instant) {
        // RFC 9000 section 9.4: reset the congestion controller.
        self.sampler.on_path_change();
        self.cwnd_bytes = self.initial_window_bytes();
        self.ssthresh_bytes = usize::MAX;
        self.alpha_pkts = self.config.alpha_pkts;
        self.beta_pkts = self.config.beta_pkts;
        self.gamma_pkts = self.config.gamma_pkts;
        self.round_start_cwnd_bytes = self.cwnd_bytes;
        self.slow_start_round = SlowStartRound::Hold;
        self.first_pkt_after_reduction = None;
        self.recovery_cause = None;
    }

    fn set_max_datagram_size(&mut self, max_datagram_size: usize) {
        if max_datagram_size == 0 {
            return;
        }
        // RFC 9002 section 7.2: recalculate the initial window with the new
        // size; an untouched window follows it.
        let untouched =
            self.cwnd_bytes == self.initial_window_bytes() && self.ssthresh_bytes == usize::MAX;
        self.max_datagram_size = max_datagram_size;
        self.sampler.set_max_datagram_size(max_datagram_size);
        if untouched {
            self.cwnd_bytes = self.initial_window_bytes();
            self.round_start_cwnd_bytes = self.cwnd_bytes;
        }
        self.cwnd_bytes = self.cwnd_bytes.max(self.min_window_bytes());
    }

    fn cwnd_bytes(&self) -> usize {
        self.cwnd_bytes
    }

    fn ssthresh_bytes(&self) -> Option<usize> {
        (self.ssthresh_bytes != usize::MAX).then_some(self.ssthresh_bytes)
    }

    fn pacing_rate_bytes_per_sec(&self, smoothed_rtt: Duration) -> Option<u64> {
        let gain = self.config.pacing_gain?;
        if smoothed_rtt.is_zero() {
            return None;
        }
        Some((gain * self.cwnd_bytes as f64 / smoothed_rtt.as_secs_f64()) as u64)
    }

    fn phase(&self) -> Phase {
        if self.recovery_cause.is_some() {
            Phase::Recovery
        } else if self.in_slow_start() {
            Phase::SlowStart
        } else {
            Phase::CongestionAvoidance
        }
    }

    fn poll_event(&mut self) -> Option<ControllerEvent> {
        self.events.pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AckedPacket;
    use crate::LostPacket;
    use crate::RttSample;

    const MDS: usize = DEFAULT_MAX_DATAGRAM_SIZE;
    const MS: Duration = Duration::from_millis(1);
    const BASE_RTT: Duration = Duration::from_millis(100);

    /// Sends whole windows at one instant and acknowledges them with one
    /// ACK frame a chosen RTT later, so every round's Diff is
    /// W * (1 - BaseRTT / RTT) exactly.
    struct Harness {
        cc: Vegas,
        now: Instant,
        next_pkt_num: u64,
        in_flight: Vec<SentPacket>,
    }

    impl Harness {
        fn new(config: VegasConfig) -> Self {
            Harness {
                cc: Vegas::new(config).unwrap(),
                now: Instant::now(),
                next_pkt_num: 0,
                in_flight: Vec::new(),
            }
        }

        /// Paper Vegas already in congestion avoidance with BaseRTT 100 ms
        /// and a window of `cwnd_pkts`.
        fn in_congestion_avoidance(cwnd_pkts: usize) -> Self {
            let mut h = Harness::new(VegasConfig {
                initial_cwnd_pkts: cwnd_pkts - 1,
                ..VegasConfig::paper()
            });
            h.cc.ssthresh_bytes = h.cc.cwnd_bytes;
            h.round(BASE_RTT); // Diff = 0 < alpha: +1
            assert_eq!(h.cwnd_pkts(), cwnd_pkts as f64);
            h.drain_events();
            h
        }

        fn cwnd_pkts(&self) -> f64 {
            self.cc.cwnd_bytes() as f64 / MDS as f64
        }

        fn bytes_in_flight(&self) -> usize {
            self.in_flight.iter().map(|p| p.size_bytes).sum()
        }

        fn send_one(&mut self) -> u64 {
            let packet = SentPacket {
                pkt_num: self.next_pkt_num,
                time_sent: self.now,
                size_bytes: MDS,
                bytes_in_flight_before: self.bytes_in_flight(),
                in_flight: true,
            };
            self.cc.on_packet_sent(self.now, &packet);
            self.in_flight.push(packet);
            self.next_pkt_num += 1;
            packet.pkt_num
        }

        fn send_window(&mut self) {
            while self.bytes_in_flight() + MDS <= self.cc.cwnd_bytes() {
                self.send_one();
            }
        }

        /// `rtt` later, one ACK frame acknowledges `acked` and declares
        /// `lost` lost (packet numbers).
        fn ack(&mut self, rtt: Duration, acked: &[u64], lost: &[u64]) {
            self.now += rtt;
            let prior_bytes_in_flight = self.bytes_in_flight();
            let take = |in_flight: &mut Vec<SentPacket>, pkt_num: u64| {
                let i = in_flight.iter().position(|p| p.pkt_num == pkt_num).unwrap();
                in_flight.remove(i)
            };
            let acked: Vec<AckedPacket> = acked
                .iter()
                .map(|&n| take(&mut self.in_flight, n))
                .map(|p| AckedPacket {
                    pkt_num: p.pkt_num,
                    time_sent: p.time_sent,
                    size_bytes: p.size_bytes,
                })
                .collect();
            let lost: Vec<LostPacket> = lost
                .iter()
                .map(|&n| take(&mut self.in_flight, n))
                .map(|p| LostPacket {
                    pkt_num: p.pkt_num,
                    time_sent: p.time_sent,
                    size_bytes: p.size_bytes,
                })
                .collect();
            let event = AckEvent {
                now: self.now,
                acked: &acked,
                lost: &lost,
                rtt_sample: (!acked.is_empty()).then_some(RttSample {
                    latest_rtt: rtt,
                    ack_delay: Duration::ZERO,
                }),
                min_rtt: Some(BASE_RTT.min(rtt)),
                smoothed_rtt: rtt,
                max_ack_delay: 25 * MS,
                prior_bytes_in_flight,
                bytes_in_flight: self.bytes_in_flight(),
                persistent_congestion: false,
            };
            self.cc.on_ack_event(&event);
        }

        /// One round: a full window now, all of it acknowledged `rtt` later.
        fn round(&mut self, rtt: Duration) {
            self.send_window();
            let all: Vec<u64> = self.in_flight.iter().map(|p| p.pkt_num).collect();
            self.ack(rtt, &all, &[]);
        }

        fn drain_events(&mut self) -> Vec<ControllerEvent> {
            std::iter::from_fn(|| self.cc.poll_event()).collect()
        }

        fn last_round(&mut self) -> RoundDecision {
            let decisions: Vec<_> = self
                .drain_events()
                .into_iter()
                .filter_map(|e| match e {
                    ControllerEvent::Round(d) => Some(d),
                    _ => None,
                })
                .collect();
            assert_eq!(decisions.len(), 1, "one decision per round");
            decisions[0]
        }
    }

    #[test]
    fn increase_below_alpha() {
        let mut h = Harness::in_congestion_avoidance(12);
        // Diff = 12 * (1 - 100/104) = 0.46 < alpha = 1
        h.round(104 * MS);
        assert_eq!(h.cwnd_pkts(), 13.0);
        let d = h.last_round();
        assert_eq!(d.action, Action::Increase);
        assert!((d.diff_pkts - 12.0 * 4.0 / 104.0).abs() < 1e-9, "{d:?}");
        assert_eq!(d.phase, Phase::CongestionAvoidance);
    }

    #[test]
    fn hold_between_alpha_and_beta() {
        let mut h = Harness::in_congestion_avoidance(12);
        // Diff = 12 * (1 - 100/120) = 2
        h.round(120 * MS);
        assert_eq!(h.cwnd_pkts(), 12.0);
        let d = h.last_round();
        assert_eq!(d.action, Action::Hold);
        assert!((d.diff_pkts - 2.0).abs() < 1e-9);
    }

    #[test]
    fn decrease_above_beta_and_ssthresh_follows_cwnd_down() {
        let mut h = Harness::in_congestion_avoidance(12);
        // Diff = 12 * (1 - 100/150) = 4 > beta = 3
        h.round(150 * MS);
        assert_eq!(h.cwnd_pkts(), 11.0);
        assert_eq!(h.cc.ssthresh_bytes(), Some(11 * MDS));
        assert_eq!(h.last_round().action, Action::Decrease);
        h.round(150 * MS); // Diff = 11/3 > 3
        assert_eq!(h.cwnd_pkts(), 10.0);
        assert_eq!(h.cc.ssthresh_bytes(), Some(10 * MDS));
        assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
    }

    #[test]
    fn alpha_beta_scale_with_max_datagram_size() {
        let mut h = Harness::in_congestion_avoidance(12);
        // 4800 bytes of queue: 4 packets of 1200 bytes, 2 of 2400 bytes.
        h.cc.set_max_datagram_size(2 * MDS);
        h.round(150 * MS);
        let d = h.last_round();
        assert_eq!(d.action, Action::Hold);
        assert!((d.diff_pkts - 2.0).abs() < 1e-9);
    }

    #[test]
    fn slow_start_doubles_every_other_round_and_exits_above_gamma() {
        let mut h = Harness::new(VegasConfig::paper());
        let mut windows = Vec::new();
        // Round 1 grows even though its RTT is high: Diff is only tested
        // after held rounds.
        for rtt in [100, 150, 100, 100] {
            windows.push(h.cwnd_pkts());
            h.round(rtt * MS);
        }
        assert_eq!(windows, [2.0, 2.0, 4.0, 4.0]);
        assert_eq!(h.cwnd_pkts(), 8.0);
        assert_eq!(h.cc.phase(), Phase::SlowStart);
        h.drain_events();
        // Held round at 8 packets: Diff = 8 * (1 - 100/150) = 2.67 > gamma.
        h.round(150 * MS);
        assert_eq!(h.cwnd_pkts(), 7.0, "8 - 8/8");
        assert_eq!(h.cc.ssthresh_bytes(), Some(7 * MDS));
        assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
        let events = h.drain_events();
        assert!(matches!(
            events[0],
            ControllerEvent::SlowStartExit {
                cause: SlowStartExitCause::DiffAboveGamma,
                cwnd_bytes,
                ..
            } if cwnd_bytes == 7 * MDS
        ));
        assert!(matches!(
            events[1],
            ControllerEvent::Round(RoundDecision {
                action: Action::SlowStartExit,
                cwnd_before_bytes,
                cwnd_after_bytes,
                ..
            }) if cwnd_before_bytes == 8 * MDS && cwnd_after_bytes == 7 * MDS
        ));
    }

    /// Seed 002 (Gallop-Vegas) Table 2: Vegas slow start from W_0 = 2 while
    /// Diff stays below gamma: W_i = 2, 2, 4, 4, 8, 8, ... and the increase
    /// z_i = 0, 2, 0, 4, 0, 8, ...
    #[test]
    fn seed002_table2_slow_start_replay() {
        let mut h = Harness::new(VegasConfig::paper());
        let mut windows = Vec::new();
        let mut actions = Vec::new();
        for _ in 0..=11 {
            windows.push(h.cwnd_pkts());
            h.round(BASE_RTT);
            let d = h.last_round();
            assert_eq!(d.diff_pkts, 0.0);
            assert_eq!(d.phase, Phase::SlowStart);
            actions.push(d.action);
        }
        let increases: Vec<f64> = windows.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(
            windows[..11],
            [2.0, 2.0, 4.0, 4.0, 8.0, 8.0, 16.0, 16.0, 32.0, 32.0, 64.0]
        );
        assert_eq!(
            increases[..11],
            [0.0, 2.0, 0.0, 4.0, 0.0, 8.0, 0.0, 16.0, 0.0, 32.0, 0.0]
        );
        for (i, action) in actions.iter().enumerate() {
            let expected = if i % 2 == 0 {
                Action::SlowStartHold
            } else {
                Action::SlowStartGrow
            };
            assert_eq!(*action, expected, "round {i}");
        }
    }

    #[test]
    fn loss_sent_before_last_reduction_does_not_reduce_again() {
        let mut h = Harness::new(VegasConfig {
            initial_cwnd_pkts: 10,
            ..VegasConfig::paper()
        });
        h.send_window(); // packets 0..=9
        h.ack(BASE_RTT, &[0, 1, 2], &[3]);
        assert_eq!(h.cwnd_pkts(), 5.0);
        assert_eq!(h.cc.ssthresh_bytes(), Some(5 * MDS));
        assert_eq!(h.cc.phase(), Phase::Recovery);
        // Packet 7 was sent before the reduction: no second decrease.
        h.ack(MS, &[4, 5, 6], &[7]);
        assert_eq!(h.cwnd_pkts(), 5.0);
        // Packet 10 is sent after it: its loss reduces again.
        let after = h.send_one();
        let after_too = h.send_one();
        h.ack(BASE_RTT, &[8, 9, after_too], &[after]);
        assert_eq!(h.cc.cwnd_bytes(), 5 * MDS / 2);
        let reductions = h
            .drain_events()
            .into_iter()
            .filter(|e| matches!(e, ControllerEvent::Reduction { .. }))
            .count();
        assert_eq!(reductions, 2);
    }

    #[test]
    fn recovery_ends_with_ack_of_packet_sent_after_reduction() {
        let mut h = Harness::new(VegasConfig {
            initial_cwnd_pkts: 10,
            ..VegasConfig::paper()
        });
        h.send_window();
        h.ack(BASE_RTT, &[0], &[1]);
        h.ack(MS, &[2, 3, 4, 5, 6, 7, 8, 9], &[]);
        assert_eq!(h.cc.phase(), Phase::Recovery);
        assert_eq!(h.cwnd_pkts(), 5.0, "no growth in recovery");
        let after = h.send_one();
        h.ack(BASE_RTT, &[after], &[]);
        assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
    }

    #[test]
    fn pto_restarts_slow_start_and_repeated_pto_keeps_ssthresh() {
        let mut h = Harness::new(VegasConfig {
            initial_cwnd_pkts: 10,
            ..VegasConfig::paper()
        });
        h.send_window();
        h.cc.on_pto(h.now);
        assert_eq!(h.cwnd_pkts(), 2.0);
        assert_eq!(h.cc.ssthresh_bytes(), Some(5 * MDS));
        assert_eq!(h.cc.phase(), Phase::Recovery);
        h.cc.on_pto(h.now);
        assert_eq!(h.cc.ssthresh_bytes(), Some(5 * MDS));
        // A probe sent after the PTO is acknowledged: slow start again.
        let probe = h.send_one();
        h.ack(BASE_RTT, &[probe], &[]);
        assert_eq!(h.cc.phase(), Phase::SlowStart);

        let mut h = Harness::new(VegasConfig {
            pto_response: PtoResponse::Ignore,
            ..VegasConfig::paper()
        });
        h.cc.on_pto(h.now);
        assert_eq!(h.cwnd_pkts(), 2.0);
        assert_eq!(h.cc.ssthresh_bytes(), None);
        assert_eq!(h.cc.phase(), Phase::SlowStart);
    }

    #[test]
    fn persistent_congestion_collapses_to_minimum_window() {
        let mut h = Harness::in_congestion_avoidance(12);
        h.send_window();
        h.cc.on_ack_event(&AckEvent {
            now: h.now + 3 * BASE_RTT,
            acked: &[],
            lost: &[],
            rtt_sample: None,
            min_rtt: Some(BASE_RTT),
            smoothed_rtt: BASE_RTT,
            max_ack_delay: 25 * MS,
            prior_bytes_in_flight: 12 * MDS,
            bytes_in_flight: 12 * MDS,
            persistent_congestion: true,
        });
        assert_eq!(h.cwnd_pkts(), 2.0);
        assert!(h.drain_events().iter().any(|e| matches!(
            e,
            ControllerEvent::Reduction {
                cause: ReductionCause::PersistentCongestion,
                ..
            }
        )));
    }

    #[test]
    fn invalid_params_are_rejected_naming_the_field() {
        let bad = |config: VegasConfig| Vegas::new(config).unwrap_err().field;
        let ok = VegasConfig::default();
        let with = |f: fn(&mut VegasConfig)| {
            let mut config = ok;
            f(&mut config);
            config
        };
        assert_eq!(
            bad(with(|c| {
                c.alpha_pkts = 4.0;
                c.beta_pkts = 3.0;
            })),
            "alpha_pkts"
        );
        assert_eq!(bad(with(|c| c.alpha_pkts = 0.0)), "alpha_pkts");
        assert_eq!(bad(with(|c| c.beta_pkts = -1.0)), "beta_pkts");
        assert_eq!(bad(with(|c| c.beta_pkts = f64::INFINITY)), "beta_pkts");
        assert_eq!(bad(with(|c| c.gamma_pkts = f64::NAN)), "gamma_pkts");
        assert_eq!(bad(with(|c| c.initial_cwnd_pkts = 1)), "initial_cwnd_pkts");
        assert_eq!(bad(with(|c| c.max_datagram_size = 0)), "max_datagram_size");
        assert_eq!(
            bad(with(|c| c.loss_reduction_factor = 1.0)),
            "loss_reduction_factor"
        );
        assert_eq!(bad(with(|c| c.pacing_gain = Some(f64::NAN))), "pacing_gain");
        assert_eq!(
            bad(with(|c| c.sampler.min_round_samples = 0)),
            "sampler.min_round_samples"
        );
        assert!(VegasConfig::paper().validate().is_ok());
        assert!(VegasConfig::default().validate().is_ok());
    }

    #[test]
    fn pacing_follows_config() {
        let paced = Vegas::new(VegasConfig::default()).unwrap();
        // 1.25 * 12000 B / 0.1 s
        assert_eq!(paced.pacing_rate_bytes_per_sec(BASE_RTT), Some(150_000));
        let paper = Vegas::new(VegasConfig::paper()).unwrap();
        assert_eq!(paper.pacing_rate_bytes_per_sec(BASE_RTT), None);
    }

    #[test]
    fn default_config_waits_for_three_samples_per_round() {
        let mut h = Harness::new(VegasConfig::default());
        // One ACK per window: rounds are extended until three samples.
        h.round(BASE_RTT);
        h.round(BASE_RTT);
        assert!(h.drain_events().is_empty());
        assert_eq!(h.cwnd_pkts(), 10.0);
        h.round(BASE_RTT);
        let d = h.last_round();
        assert_eq!(d.samples, 3);
        assert_eq!(d.action, Action::SlowStartHold);
    }
}
