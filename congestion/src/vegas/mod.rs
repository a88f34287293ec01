//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 1995, section III) for QUIC.
//! All RTT and rate measurements come from the [`RoundSampler`]. The
//! paper's rules themselves, as pure functions on one screen, are in
//! [`paper`]; this module applies them once per round
//! (`Vegas::on_round_end`).
//!
//! - III-B congestion avoidance, once per round: BaseRTT = minimum RTT,
//!   Expected = W / BaseRTT, Actual from the sampler, where W is the window
//!   in transit: Actual x round RTT, at most the window (the paper's
//!   "WindowSize": with the paper's Actual = W / D it is W itself),
//!   Diff = (Expected - Actual) * BaseRTT in packets of max_datagram_size.
//!   Diff < alpha: +1 packet; Diff > beta: -1 packet; otherwise unchanged
//!   (alpha = 1, beta = 3).
//! - III-C modified slow start: the window grows exponentially only every
//!   other round; in between it is held so Expected and Actual can be
//!   compared. When Diff > gamma (one buffer) at the end of a held round,
//!   Vegas leaves slow start and cuts the window by 1/8 (the cut is from
//!   Gallop-Vegas section II and Vanichpun & Feng's 7/8 W; the library's default
//!   keeps the pipe instead, as Linux does: [`SlowStartExitWindow`]; and
//!   it doubles every round, as Linux does, stopping within a round once
//!   its RTT samples show a queue: [`SlowStartGrowth`], [`queue_watch`]).
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
//!   through congestion-avoidance and held rounds). In a round in which
//!   the window grew it uses the bytes in transit instead (see "Diff of a
//!   round in which the window grew" below); Vegas never tests Diff after
//!   such a round, so its decisions are unchanged, only the recorded Diff.
//! - Slow start: the first round (and the first after a timeout) is held,
//!   as Gallop-Vegas Table 2 (W_0 = W_1). In a growing round the window grows
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
//! - PTO: [`PtoResponse::Ignore`] by default (RFC 9002 6.2: no change;
//!   persistent congestion, below, collapses the window);
//!   [`PtoResponse::RestartSlowStart`] in `paper()`, the paper's coarse
//!   timeout: ssthresh = cwnd / 2 (III-C: "Whenever a retransmit
//!   timeout occurs, Reno sets the threshold window to one half of the
//!   congestion window"), cwnd = minimum window (2 packets, the RFC 9002
//!   7.2 floor instead of TCP's one segment), then slow start. A PTO while
//!   the previous PTO's recovery is still open keeps ssthresh (RFC 5681
//!   3.1: ssthresh is only lowered for a segment not yet resent by the
//!   timer).
//! - Persistent congestion (RFC 9002 7.6.2): cwnd = minimum window, slow
//!   start from a held round.
//! - Pacing by default: gain 1.0 ([`VEGAS_PACING_GAIN`]) x cwnd / the
//!   smoothed RTT in slow start and / the sampler's credit cycle in
//!   congestion avoidance ([`PacingPeriod`]), capped there near the recent
//!   Actual; the paper's Vegas is purely ACK-clocked, so `paper()` does
//!   not pace.
//!
//! Slow start (`slow_start_on_ack`, `slow_start_step`) and congestion
//! avoidance (`congestion_avoidance_step`) are separate functions so that a
//! variant (Gallop-Vegas slow start, Vegas-A thresholds) can replace one.
//!
//! The Vegas family. [`VegasConfig`] composes four independent choices:
//!
//! - slow start ([`SlowStartKind`]): Vegas's III-C doubling (every other
//!   round in paper mode, every round by default: [`SlowStartGrowth`]),
//!   or Gallop-Vegas's stable growth ([`crate::gallop`]);
//! - congestion avoidance ([`AvoidanceKind`]): Vegas's fixed alpha/beta, or
//!   Vegas-A's adaptive ones ([`crate::vegas_a`]);
//! - where alpha/beta come from ([`AlphaBetaSource`]): fixed values, or the
//!   Reno-compatible formulas of Feng & Vanichpun ([`crate::reno_compat`]) from the
//!   bottleneck buffer and the numbers of Reno and Vegas flows, computed
//!   once when the controller is built;
//! - where gamma comes from: `gamma_pkts`, or (with
//!   `gamma_rate_pkts_per_sec` set) Vanichpun & Feng's selection rule, eq. 12 and
//!   14 / 15 ([`crate::transient::select_gamma_for_available_rate`]), run
//!   at the end of every measured slow-start round of a path, once BaseRTT
//!   d is known: target window W^ = lambda d + alpha, lambda the
//!   configured available rate, over the window sequence this Vegas slow
//!   start produces from that round's window (W_1, doubling every other
//!   round; in QUIC the handshake's packets move W_1 above the initial
//!   window). Eq. 14-15 are applied as printed, with lambda in the
//!   denominator 4 lambda d + Wbar (Vanichpun & Feng section IV-B: "mu_1 and W*
//!   should be replaced by the available rate (lambda) and the target
//!   window"; see interpretation 2 of [`crate::transient`] for the
//!   paper's example, which used mu_1). The rule assumes Vegas's doubling
//!   sequence, so it is rejected with Gallop-Vegas slow start.
//!
//! [`Controller::name`] is the family name, [`VegasConfig::family_name`]:
//!
//! | slow start | avoidance | alpha/beta | name |
//! |---|---|---|---|
//! | Vegas | Vegas | fixed | `vegas` |
//! | Vegas | Vegas-A | fixed | `vegas-a` |
//! | Gallop | Vegas | fixed | `gallop-vegas` |
//! | Gallop | Vegas-A | fixed | `gallop-vegas-a` |
//! | Vegas | Vegas | compat | `vegas-compat` |
//! | Vegas | Vegas-A | compat | `vegas-a-compat` |
//! | Gallop | Vegas | compat | `gallop-vegas-compat` |
//! | Gallop | Vegas-A | compat | `gallop-vegas-a-compat` |
//!
//! The gamma source does not change the name (it is a Vegas parameter
//! choice, Vanichpun & Feng). With Vegas-A and compat alpha/beta, Vegas-A starts
//! from the compat values instead of 1 and 3.
//!
//! Diff of a round in which the window grew (Gallop-Vegas every slow-start
//! round, Vegas growing rounds): Expected's WindowSize is the number of
//! bytes in transit (III-B: "the size of the current congestion window,
//! which we assume ... to be equal to the number of bytes in transit"),
//! estimated as Actual times the round's RTT (Little's law) and kept within
//! [window at the round start, window at the round end]. When the window
//! was constant through the round this is the window at the round start,
//! as before. Otherwise, with ACK clocking, packets sent on the growth of
//! the round count in Actual but not in the window at its start, and Diff
//! would read low by about that growth (for Gallop-Vegas the increment
//! incr, which can be tens of packets).
//!
//! References: Brakmo & Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet" (IEEE JSAC 1995); Vegas-A: Srijith,
//! Jacob & Ananda, "TCP Vegas-A: Improving the Performance of TCP Vegas";
//! Gallop-Vegas: Ho, Chan & Chen, "Gallop-Vegas: An Enhanced Slow-Start
//! Mechanism for TCP Vegas"; Feng & Vanichpun, "Enabling Compatibility
//! Between TCP Reno and TCP Vegas"; Vanichpun & Feng, "On the Transient
//! Behavior of TCP Vegas".

use std::time::Duration;
use std::time::Instant;

use crate::controller::Controller;
use crate::error::ParamError;
use crate::events::Action;
use crate::events::ControllerEvent;
use crate::events::EventQueue;
use crate::events::ReductionCause;
use crate::events::RoundDecision;
use crate::events::SlowStartExitCause;
use crate::gallop::GallopSlowStart;
use crate::gallop::GallopStep;
use crate::sampler::BaseRttMode;
use crate::sampler::RoundSample;
use crate::sampler::RoundSampler;
use crate::transient::selection::select_gamma_for_available_rate;
use crate::transient::selection::GammaChoice;
use crate::transient::selection::VegasSlowStart;
use crate::types::AckEvent;
use crate::types::Phase;
use crate::types::SentPacket;
use crate::vegas_a::VegasA;
use crate::window::Window;
use pipe_recheck::PipeRecheck;
use queue_watch::QueueWatch;

mod avoidance;
pub mod coexist;
pub mod collapse;
mod config;
mod drain;
pub mod fair_share;
mod loss;
mod pacing;
pub mod paper;
pub mod pipe_recheck;
pub mod queue_watch;
mod records;
mod slow_start;

pub use coexist::CoexistMode;
use coexist::CoexistStep;
pub use coexist::Coexistence;
use coexist::RoundObservation;
use coexist::SwitchEvidence;
pub use coexist::SwitchTrigger;
pub use config::*;
use drain::BaseRttDrain;
use drain::DrainInputs;
use drain::DrainRound;
use pacing::CapRound;
use pacing::PacingCap;
use pacing::RateInputs;
use paper::SlowStartRound;

/// Expected, Actual and Diff of one round (III-B).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundDiff {
    /// Expected = W / BaseRTT, in bytes per second.
    pub expected_bytes_per_sec: f64,
    /// Actual, from the sampler, in bytes per second.
    pub actual_bytes_per_sec: f64,
    /// (Expected - Actual) * BaseRTT / max_datagram_size, at least 0; to
    /// the nearest packet with `round_diff`.
    pub diff_pkts: f64,
    /// The round RTT Diff used (at least `rtt_resolution`).
    pub round_rtt: Duration,
    /// The window that fills the pipe with no queue: the highest of the
    /// round's fastest delivery rate over 16 packets of ACK frames, the
    /// smoothed ACK rate and Actual, x BaseRTT
    /// ([`SlowStartExitWindow::Pipe`]).
    pub pipe_bytes: f64,
}

/// Slow start (III-C): the paper's held and growing rounds, or
/// Gallop-Vegas's stable growth in their place.
#[derive(Clone, Debug)]
enum SlowStart {
    Vegas(SlowStartRound),
    Gallop(GallopSlowStart),
}

/// Congestion avoidance's thresholds (III-B): the paper's fixed alpha and
/// beta, or Vegas-A's adaptive ones.
#[derive(Clone, Debug)]
enum Avoidance {
    Vegas,
    VegasA(VegasA),
}

/// The phase and thresholds a round was judged by, as its decision record
/// shows them.
#[derive(Clone, Copy, Debug)]
struct Judged {
    phase: Phase,
    alpha_pkts: f64,
    beta_pkts: f64,
}

/// Vegas's thresholds in packets: alpha and beta (Brakmo & Peterson
/// III-B) as they are now and as they started (Vegas-A moves them; a path
/// change puts them back), gamma (III-C) and Vanichpun & Feng's choice of
/// it, once made.
#[derive(Clone, Copy, Debug)]
struct Band {
    alpha_pkts: f64,
    beta_pkts: f64,
    gamma_pkts: f64,
    /// alpha/beta at the start ([`VegasConfig::alpha_beta_pkts`]).
    start_alpha_pkts: f64,
    start_beta_pkts: f64,
    gamma_choice: Option<GammaChoice>,
}

/// The last window reduction: which packets were sent after it (Brakmo &
/// Peterson III-A: only their losses reduce the window again) and, while
/// it lasts, why the recovery it started began.
#[derive(Clone, Copy, Debug, Default)]
struct LastReduction {
    /// Packets numbered from here on were sent after it. None: no
    /// decrease yet.
    first_pkt_after: Option<u64>,
    /// Why the recovery in progress started; None: not in recovery.
    recovery_cause: Option<ReductionCause>,
}

/// TCP Vegas and its family (module documentation).
#[derive(Clone, Debug)]
pub struct Vegas {
    config: VegasConfig,
    sampler: RoundSampler,
    /// cwnd, ssthresh and the datagram size (RFC 9002 section 7).
    window: Window,
    /// alpha, beta and gamma in force, and where they started.
    band: Band,
    /// Slow start: the paper's rounds or Gallop-Vegas's ([`SlowStartKind`]).
    slow_start: SlowStart,
    /// Every-round slow start's stop within a round ([`queue_watch`]).
    queue_watch: QueueWatch,
    /// The pipe read again in the round after the exit ([`pipe_recheck`]).
    pipe_recheck: PipeRecheck,
    /// Congestion avoidance: fixed alpha/beta or Vegas-A's ([`AvoidanceKind`]).
    avoidance: Avoidance,
    /// The window when the round in progress started: Expected's
    /// WindowSize, and the base of the slow-start doubling.
    round_start_cwnd_bytes: usize,
    largest_sent_pkt_num: Option<u64>,
    /// The last window reduction ([`loss`]).
    reduction: LastReduction,
    /// BaseRTT drains and the route-change check ([`drain`]).
    drain: BaseRttDrain,
    /// The pacing ceiling in congestion avoidance ([`pacing`]).
    pacing_cap: PacingCap,
    /// Coexistence with buffer-filling flows ([`coexist`]).
    coexist: Coexistence,
    events: EventQueue,
}

impl Vegas {
    /// A controller for `config`, or the first parameter it rejects.
    pub fn new(config: VegasConfig) -> Result<Self, ParamError> {
        config.validate()?;
        let (alpha_pkts, beta_pkts) = config.alpha_beta_pkts()?;
        let window = Window::new(config.initial_cwnd_pkts, config.max_datagram_size);
        let cwnd_bytes = window.cwnd_bytes;
        Ok(Vegas {
            config,
            sampler: RoundSampler::new(config.sampler, config.max_datagram_size)?,
            window,
            band: Band {
                alpha_pkts,
                beta_pkts,
                gamma_pkts: config.gamma_pkts,
                start_alpha_pkts: alpha_pkts,
                start_beta_pkts: beta_pkts,
                gamma_choice: None,
            },
            slow_start: match config.slow_start {
                SlowStartKind::Vegas => SlowStart::Vegas(SlowStartRound::Hold),
                SlowStartKind::Gallop => SlowStart::Gallop(GallopSlowStart::with_growth(
                    config.gallop_growth,
                    cwnd_bytes,
                    config.max_datagram_size,
                )),
            },
            queue_watch: QueueWatch::default(),
            pipe_recheck: PipeRecheck::default(),
            avoidance: match config.avoidance {
                AvoidanceKind::Vegas => Avoidance::Vegas,
                AvoidanceKind::VegasA => Avoidance::VegasA(
                    VegasA::new(alpha_pkts, beta_pkts)
                        .with_trend_resolution(config.trend_resolution_pkts)
                        .with_probe_needs_falling_diff(config.probe_needs_falling_diff),
                ),
            },
            round_start_cwnd_bytes: cwnd_bytes,
            largest_sent_pkt_num: None,
            reduction: LastReduction::default(),
            drain: BaseRttDrain::default(),
            pacing_cap: PacingCap::new(config.pacing_headroom_pkts, config.doubles_every_round()),
            coexist: Coexistence::default(),
            events: EventQueue::default(),
        })
    }

    /// The configuration the controller was built with.
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

    /// alpha in force (packets): fixed, compat or adapted by Vegas-A.
    pub fn alpha_pkts(&self) -> f64 {
        self.band.alpha_pkts
    }

    /// beta in force (packets).
    pub fn beta_pkts(&self) -> f64 {
        self.band.beta_pkts
    }

    /// gamma in force (packets): `gamma_pkts`, or Vanichpun & Feng's choice once
    /// made.
    pub fn gamma_pkts(&self) -> f64 {
        self.band.gamma_pkts
    }

    /// Vanichpun & Feng's gamma choice (eq. 14 / 15), once BaseRTT is known; None
    /// without `gamma_rate_pkts_per_sec`.
    pub fn gamma_choice(&self) -> Option<&GammaChoice> {
        self.band.gamma_choice.as_ref()
    }

    /// Vegas-A state, with Vegas-A congestion avoidance.
    pub fn vegas_a(&self) -> Option<&VegasA> {
        match &self.avoidance {
            Avoidance::VegasA(vegas_a) => Some(vegas_a),
            Avoidance::Vegas => None,
        }
    }

    /// The coexistence mechanism's mode ([`coexist`]).
    pub fn coexist_mode(&self) -> CoexistMode {
        self.coexist.mode()
    }

    /// Gallop-Vegas state (incr, maxincr, status), with Gallop slow start.
    pub fn gallop(&self) -> Option<&GallopSlowStart> {
        match &self.slow_start {
            SlowStart::Gallop(gallop) => Some(gallop),
            SlowStart::Vegas(_) => None,
        }
    }

    fn min_window_bytes(&self) -> usize {
        self.window.min_window_bytes()
    }

    fn in_slow_start(&self) -> bool {
        // A BaseRTT drain lowers the window below ssthresh for two rounds
        // only; that is not slow start.
        !self.drain.in_progress() && self.window.below_ssthresh()
    }

    /// The paper's slow start measures in its next round (III-C); Gallop
    /// keeps its own state.
    fn hold_next_slow_start_round(&mut self) {
        if let SlowStart::Vegas(round) = &mut self.slow_start {
            *round = SlowStartRound::Hold;
        }
    }

    fn next_pkt_num(&self) -> u64 {
        self.largest_sent_pkt_num.map_or(0, |n| n + 1)
    }

    /// A congestion-avoidance round as the BaseRTT drain sees it; true
    /// when the round belongs to a drain (no Vegas decision is made on it).
    fn drain_round(
        &mut self,
        now: Instant,
        round: &RoundSample,
        round_rtt: Duration,
        diff: &RoundDiff,
    ) -> bool {
        let inputs = DrainInputs {
            base_rtt_window: match self.config.sampler.base_rtt {
                BaseRttMode::Windowed { window } => Some(window),
                BaseRttMode::Lifetime => None,
            },
            base_rtt_age: self.sampler.base_rtt_age(now),
            in_slow_start: self.in_slow_start(),
            periodic_drains: self.config.probe_base_rtt,
            route_change_rounds: self.config.route_change_rounds,
            paced: self.config.pacing_headroom_pkts.is_some(),
            cwnd_bytes: self.window.cwnd_bytes,
            min_window_bytes: self.window.min_window_bytes(),
            max_datagram_size: self.window.max_datagram_size,
        };
        match self.drain.on_round(now, round_rtt, diff, &inputs) {
            DrainRound::Decide => false,
            DrainRound::Draining => true,
            DrainRound::Started { cwnd_bytes } => {
                let before = self.window.cwnd_bytes;
                self.window.cwnd_bytes = cwnd_bytes;
                self.record_reduction(now, ReductionCause::BaseRttProbe, before);
                true
            }
            DrainRound::Ended(probe) => {
                self.pacing_cap.skip_next_round();
                self.window.cwnd_bytes = self.window.cwnd_bytes.max(probe.restore_cwnd_bytes);
                // With the flow's own queue drained, an RTT still more than
                // beta packets above BaseRTT is not a queue it can drain:
                // the path got longer, BaseRTT is stale.
                let queue_pkts = probe.queue_left_pkts(
                    diff.actual_bytes_per_sec,
                    round.base_rtt,
                    self.window.max_datagram_size,
                );
                if queue_pkts > self.band.beta_pkts {
                    self.sampler.reset_base_rtt(now, probe.min_round_rtt);
                    if let Some(before) = probe.window_before_decreases_bytes {
                        self.window.cwnd_bytes = self.window.cwnd_bytes.max(before);
                    }
                } else if queue_pkts <= (self.band.alpha_pkts + self.band.beta_pkts) / 2.0 {
                    // What is left is no more than the middle of the band at
                    // our rate: other family flows' queue (each holds about
                    // that much, [`fair_share`]), which one flow's drain
                    // cannot empty. The drain confirms BaseRTT: kept as
                    // measured now, so the windowed minimum does not slide
                    // up to include that queue, flow after flow (measured:
                    // docs/constants.md, `vegas::VegasConfig::probe_base_rtt`).
                    // A path longer by less than that is missed: the flow
                    // then keeps less than the middle queued, never less
                    // than the pipe.
                    if let Some(base_rtt) = self.sampler.base_rtt() {
                        self.sampler.reset_base_rtt(now, base_rtt);
                    }
                }
                true
            }
        }
    }

    /// Once per round: decide and record the decision, in four steps.
    /// - Measure: a pending Gallop-Vegas exit ends; a round whose window
    ///   was not in use decides nothing (`skip_unused_round`); gamma, the
    ///   phase, the round RTT and Diff (`measure_round`). In competitive
    ///   mode the coexistence return test then decides instead.
    /// - Maybe drain: a BaseRTT drain's round makes no decision
    ///   (`drain_round`).
    /// - The paper's step: slow start (III-C) or congestion avoidance
    ///   (III-B).
    /// - The library's adjustments: the pacing cap (`cap_round`), the
    ///   drain, the decision record and coexistence (`coexist_round`).
    fn on_round_end(&mut self, now: Instant, round: &RoundSample) {
        if self.gallop_exit_pending() {
            self.end_gallop_slow_start(now);
        }
        // A drain's rounds count whether or not the drained window was
        // in use (it is paced below the window on purpose).
        if !round.usable && !self.drain.in_progress() {
            self.skip_unused_round();
            return;
        }
        let (judged, round_rtt, diff) = self.measure_round(round);
        if self.coexist.mode() == CoexistMode::Competitive {
            let action = self.competitive_round(now, round_rtt, &diff);
            self.record_decision(now, round, round_rtt, &diff, action, judged);
            return;
        }
        let action = if self.drain_round(now, round, round_rtt, &diff) {
            // A drain's rounds read the drained window, not the exit's.
            self.pipe_recheck.disarm();
            Action::BaseRttProbe
        } else if self.in_slow_start() {
            self.slow_start_step(now, &diff)
        } else if let Some(action) = self.recheck_round(&diff) {
            action
        } else {
            self.congestion_avoidance_round(now, &diff)
        };
        self.cap_round(round, round_rtt, judged.phase, action, &diff);
        self.drain.on_decision(action, self.round_start_cwnd_bytes);
        let cwnd_before_bytes = self.round_start_cwnd_bytes;
        self.record_decision(now, round, round_rtt, &diff, action, judged);
        self.coexist_round(
            now,
            round_rtt,
            &diff,
            action,
            judged,
            cwnd_before_bytes,
            round.hold_bounded,
        );
    }

    /// The window was not in use: nothing to learn, nothing decided. The
    /// pacing cap forgets its rounds and ceiling, slow start holds (or
    /// Gallop-Vegas skips) its next round, Vegas-A forgets its Actual; the
    /// next round starts from the window now.
    fn skip_unused_round(&mut self) {
        self.pacing_cap.clear();
        self.pipe_recheck.disarm();
        if self.in_slow_start() {
            match &mut self.slow_start {
                SlowStart::Vegas(round) => *round = SlowStartRound::Hold,
                SlowStart::Gallop(gallop) => gallop.skip_round(),
            }
        }
        if let Avoidance::VegasA(vegas_a) = &mut self.avoidance {
            vegas_a.forget_actual();
        }
        self.round_start_cwnd_bytes = self.window.cwnd_bytes;
    }

    /// A usable round's measurement: gamma selected (Vanichpun & Feng, in
    /// slow start), the phase and thresholds the round is judged by, its
    /// RTT (the slow-start one in slow start) and Diff.
    fn measure_round(&mut self, round: &RoundSample) -> (Judged, Duration, RoundDiff) {
        self.select_gamma(round.base_rtt);
        // The phase and thresholds the round was judged by (Vegas-A may
        // move them).
        let judged = Judged {
            phase: self.phase(),
            alpha_pkts: self.band.alpha_pkts,
            beta_pkts: self.band.beta_pkts,
        };
        let round_rtt = if self.in_slow_start() {
            round.slow_start_round_rtt
        } else {
            round.round_rtt
        };
        let diff = self.round_diff(round, round_rtt);
        (judged, round_rtt, diff)
    }

    /// Tells the pacing cap ([`pacing`]) the round and its decision, with
    /// the thresholds and window as the decision left them.
    fn cap_round(
        &mut self,
        round: &RoundSample,
        round_rtt: Duration,
        phase: Phase,
        action: Action,
        diff: &RoundDiff,
    ) {
        self.pacing_cap.on_round(&CapRound {
            round,
            round_rtt,
            phase,
            action,
            diff_pkts: diff.diff_pkts,
            alpha_pkts: self.band.alpha_pkts,
            beta_pkts: self.band.beta_pkts,
            cwnd_bytes: self.window.cwnd_bytes,
            max_datagram_size: self.window.max_datagram_size,
        });
    }

    /// Coexistence's look at a delay-mode round judged in congestion
    /// avoidance ([`coexist`]): enough evidence of a buffer-filling flow
    /// starts competing.
    #[allow(clippy::too_many_arguments)]
    fn coexist_round(
        &mut self,
        now: Instant,
        round_rtt: Duration,
        diff: &RoundDiff,
        action: Action,
        judged: Judged,
        cwnd_before_bytes: usize,
        rtt_from_hold_bounds: bool,
    ) {
        if self.config.coexist && judged.phase == Phase::CongestionAvoidance {
            let obs = RoundObservation {
                rtt_from_hold_bounds,
                ..self.observation(now, round_rtt, diff, action, cwnd_before_bytes)
            };
            if let CoexistStep::Compete {
                cwnd_bytes,
                evidence,
            } = self.coexist.on_delay_round(&obs)
            {
                self.start_competing(now, cwnd_bytes, evidence);
            }
        }
    }

    /// Records the round's decision; the next round starts from the window
    /// now.
    fn record_decision(
        &mut self,
        now: Instant,
        round: &RoundSample,
        round_rtt: Duration,
        diff: &RoundDiff,
        action: Action,
        judged: Judged,
    ) {
        let Judged {
            phase,
            alpha_pkts,
            beta_pkts,
        } = judged;
        self.record_round(RoundDecision {
            now,
            base_rtt: round.base_rtt,
            round_rtt,
            expected_bytes_per_sec: diff.expected_bytes_per_sec,
            actual_bytes_per_sec: diff.actual_bytes_per_sec,
            diff_pkts: diff.diff_pkts,
            pipe_bytes: diff.pipe_bytes,
            alpha_pkts,
            beta_pkts,
            gamma_pkts: self.band.gamma_pkts,
            cwnd_before_bytes: self.round_start_cwnd_bytes,
            cwnd_after_bytes: self.window.cwnd_bytes,
            action,
            phase,
            samples: round.samples,
            bytes_acked: round.bytes_acked,
            rtt_from_hold_bounds: round.hold_bounded,
        });
        self.round_start_cwnd_bytes = self.window.cwnd_bytes;
    }

    /// What the coexistence mechanism reads of a finished round.
    fn observation(
        &self,
        now: Instant,
        round_rtt: Duration,
        diff: &RoundDiff,
        action: Action,
        cwnd_before_bytes: usize,
    ) -> RoundObservation {
        RoundObservation {
            now,
            round_rtt,
            base_rtt: self.sampler.base_rtt().unwrap_or(round_rtt),
            actual_bytes_per_sec: diff.actual_bytes_per_sec,
            action,
            cwnd_before_bytes,
            cwnd_after_bytes: self.window.cwnd_bytes,
            max_datagram_size: self.window.max_datagram_size,
            rtt_from_hold_bounds: false,
        }
    }

    /// Delay mode -> competitive mode with `cwnd_bytes` (never lower than
    /// the window now): a drain in progress ends, the pacing cap goes.
    fn start_competing(&mut self, now: Instant, cwnd_bytes: usize, evidence: SwitchEvidence) {
        let before = self.window.cwnd_bytes;
        self.window.cwnd_bytes = cwnd_bytes.max(before);
        self.window.ssthresh_bytes = self.window.ssthresh_bytes.min(self.window.cwnd_bytes);
        self.round_start_cwnd_bytes = self.window.cwnd_bytes;
        self.drain.stop();
        self.pacing_cap.clear();
        self.pipe_recheck.disarm();
        self.record_mode_change(now, CoexistMode::Competitive, evidence, before);
    }

    /// A round in competitive mode: the return test's steps; CUBIC grows
    /// the window per ACK.
    fn competitive_round(&mut self, now: Instant, round_rtt: Duration, diff: &RoundDiff) -> Action {
        let obs = self.observation(
            now,
            round_rtt,
            diff,
            Action::Compete,
            self.round_start_cwnd_bytes,
        );
        let floor = self.config.rtt_resolution.unwrap_or(Duration::ZERO);
        let step = self.coexist.on_competitive_round(
            &obs,
            self.window.cwnd_bytes,
            self.min_window_bytes(),
            floor,
        );
        match step {
            CoexistStep::Stay | CoexistStep::Compete { .. } => {
                if self.coexist.testing() {
                    Action::ReturnTest
                } else {
                    Action::Compete
                }
            }
            CoexistStep::TestDrain { cwnd_bytes } => {
                self.lower_cwnd(cwnd_bytes);
                Action::ReturnTest
            }
            CoexistStep::Restore { cwnd_bytes } => {
                self.window.cwnd_bytes = self.window.cwnd_bytes.max(cwnd_bytes);
                Action::Compete
            }
            CoexistStep::Return {
                cwnd_bytes,
                base_rtt,
                evidence,
            } => {
                let before = self.window.cwnd_bytes;
                // The pipe at our rate plus alpha: Vegas's equilibrium.
                let alpha_bytes =
                    (self.band.alpha_pkts * self.window.max_datagram_size as f64) as usize;
                self.lower_cwnd(cwnd_bytes + alpha_bytes);
                self.sampler.reset_base_rtt(now, base_rtt);
                self.drain.drained_at(now);
                self.pacing_cap.clear();
                self.pacing_cap.skip_next_round();
                if let Avoidance::VegasA(vegas_a) = &mut self.avoidance {
                    vegas_a.forget_actual();
                }
                self.record_mode_change(now, CoexistMode::Delay, evidence, before);
                Action::ReturnTest
            }
        }
    }

    /// Back to delay mode without a test (a new path, persistent
    /// congestion).
    fn stop_competing(&mut self, now: Instant, cwnd_before_bytes: usize) {
        let was_competing = self.coexist.mode() == CoexistMode::Competitive;
        self.coexist.reset();
        if was_competing {
            let evidence = SwitchEvidence {
                count: 0,
                trigger: SwitchTrigger::Reset,
                queue_delay: Duration::ZERO,
                base_rtt: self.sampler.base_rtt().unwrap_or(Duration::ZERO),
                rtt_change_secs: 0.0,
            };
            self.record_mode_change(now, CoexistMode::Delay, evidence, cwnd_before_bytes);
        }
    }
}

impl Controller for Vegas {
    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn name(&self) -> &'static str {
        self.config.family_name()
    }

    fn on_packet_sent(&mut self, _now: Instant, packet: &SentPacket) {
        self.largest_sent_pkt_num = Some(packet.pkt_num);
        self.sampler.on_packet_sent(packet, self.window.cwnd_bytes);
        self.coexist.on_packet_sent(packet.pkt_num);
    }

    fn on_ack_event(&mut self, event: &AckEvent<'_>) {
        if let Some(largest_lost) = event.lost.last() {
            self.on_loss(event.now, largest_lost.pkt_num);
            self.coexist.count_lost(event.lost.len());
        }
        if event.persistent_congestion {
            self.on_persistent_congestion(event.now);
        }
        let round = self.sampler.on_ack_frame(event);
        if self.reduction.recovery_cause.is_some() {
            let acked_after_reduction = event
                .acked
                .last()
                .is_some_and(|p| self.sent_after_last_reduction(p.pkt_num));
            if acked_after_reduction {
                // Recovery is over; measure a fresh round from here.
                self.reduction.recovery_cause = None;
                if let Some(cwnd_bytes) = self
                    .coexist
                    .on_recovery_end(event.now, self.window.max_datagram_size)
                {
                    // A spurious competitive loss episode: undone.
                    self.window.cwnd_bytes = self.window.cwnd_bytes.max(cwnd_bytes);
                    self.window.ssthresh_bytes = self.window.cwnd_bytes;
                }
                self.round_start_cwnd_bytes = self.window.cwnd_bytes;
                self.sampler.restart_round();
            }
            return;
        }
        if self.in_slow_start() {
            let acked_bytes = event.acked.iter().map(|p| p.size_bytes).sum();
            self.watch_queue_in_slow_start(event);
            self.slow_start_on_ack(event.now, acked_bytes);
        } else if self.coexist.mode() == CoexistMode::Competitive {
            let acked_bytes = event.acked.iter().map(|p| p.size_bytes).sum();
            self.window.cwnd_bytes = self.coexist.competitive_window(
                event.now,
                self.window.cwnd_bytes,
                acked_bytes,
                event.smoothed_rtt,
            );
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
        let cwnd_before_bytes = self.window.cwnd_bytes;
        if self.reduction.recovery_cause != Some(ReductionCause::Pto) {
            self.window.ssthresh_bytes =
                (self.window.cwnd_bytes / TIMEOUT_SSTHRESH_DIVISOR).max(self.min_window_bytes());
        }
        self.window.cwnd_bytes = self.min_window_bytes();
        self.reduction.recovery_cause = Some(ReductionCause::Pto);
        self.mark_reduction();
        self.push_reduction(now, ReductionCause::Pto, cwnd_before_bytes, was_slow_start);
        self.restart_gallop(now);
    }

    fn on_app_limited(&mut self, now: Instant, _bytes_in_flight: usize) {
        self.sampler.on_app_limited(now);
    }

    fn on_path_change(&mut self, now: Instant) {
        // RFC 9000 section 9.4: reset the congestion controller.
        self.stop_competing(now, self.window.cwnd_bytes);
        self.sampler.on_path_change();
        self.queue_watch.clear();
        self.pipe_recheck.disarm();
        self.drain.reset();
        self.window.reset();
        let params_changed = self.band.alpha_pkts != self.band.start_alpha_pkts
            || self.band.beta_pkts != self.band.start_beta_pkts;
        self.band.alpha_pkts = self.band.start_alpha_pkts;
        self.band.beta_pkts = self.band.start_beta_pkts;
        if let Avoidance::VegasA(vegas_a) = &mut self.avoidance {
            vegas_a.reset(self.band.start_alpha_pkts, self.band.start_beta_pkts);
        }
        if params_changed {
            self.record_params_changed(now);
        }
        // Vanichpun & Feng: gamma is selected again for the new path's BaseRTT.
        self.band.gamma_pkts = self.config.gamma_pkts;
        self.band.gamma_choice = None;
        self.round_start_cwnd_bytes = self.window.cwnd_bytes;
        self.hold_next_slow_start_round();
        self.reduction.first_pkt_after = None;
        self.reduction.recovery_cause = None;
        self.restart_gallop(now);
    }

    fn set_max_datagram_size(&mut self, max_datagram_size: usize) {
        if max_datagram_size == 0 {
            return;
        }
        if self.window.set_max_datagram_size(max_datagram_size) {
            self.round_start_cwnd_bytes = self.window.cwnd_bytes;
        }
        self.sampler
            .set_max_datagram_size(self.window.max_datagram_size);
    }

    fn cwnd_bytes(&self) -> usize {
        self.window.cwnd_bytes
    }

    fn cwnd_available_bytes(&self, bytes_in_flight: usize) -> usize {
        self.window
            .available_bytes(bytes_in_flight, self.config.whole_datagrams)
    }

    fn ssthresh_bytes(&self) -> Option<usize> {
        self.window.ssthresh()
    }

    fn pacing_rate_bytes_per_sec(&self, smoothed_rtt: Duration) -> Option<u64> {
        let gain = self.config.pacing_gain?;
        pacing::pacing_rate(
            smoothed_rtt,
            &RateInputs {
                gain,
                competitive: self.coexist.mode() == CoexistMode::Competitive
                    && !self.coexist.testing(),
                cwnd_bytes: self.window.cwnd_bytes,
                max_datagram_size: self.window.max_datagram_size,
                credit_cycle: self.sampler.credit_cycle(),
                pacing_period: self.config.pacing_period,
                in_slow_start: self.in_slow_start(),
                cap_bytes_per_sec: self.pacing_cap.cap_bytes_per_sec(),
                in_congestion_avoidance: self.phase() == Phase::CongestionAvoidance,
                drain_bytes_per_sec: self.drain.pacing_bytes_per_sec(),
            },
        )
    }

    fn phase(&self) -> Phase {
        if self.reduction.recovery_cause.is_some() {
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
mod tests;
