//! The family's configuration: the papers' constants, the library's
//! defaults and [`VegasConfig`], which composes a family member.

use std::time::Duration;

use crate::error::ParamError;
use crate::gallop::GallopGrowth;
use crate::reno_compat::compat_alpha_beta;
use crate::reno_compat::CompatApproach;
use crate::sampler::SamplerConfig;
use crate::transient::selection::GammaApproach;

/// III-B: "we set alpha to one and beta to three" (buffers, i.e. packets).
pub const PAPER_ALPHA_PKTS: f64 = 1.0;
/// III-B: beta = 3 packets.
pub const PAPER_BETA_PKTS: f64 = 3.0;
/// III-C: leave slow start when Actual falls below Expected "by the
/// equivalent of one router buffer" (Gallop-Vegas section II: gamma = 1).
pub const PAPER_GAMMA_PKTS: f64 = 1.0;
/// Gallop-Vegas section II: on leaving slow start Vegas "decreases its
/// congestion window size by 1/8" (Vanichpun & Feng: 7/8 W).
pub const SLOW_START_EXIT_CUT_DIVISOR: usize = 8;
pub use crate::window::MIN_WINDOW_PKTS;
/// RFC 9002 section 7.2: initial window of 10 datagrams.
pub const QUIC_INITIAL_WINDOW_PKTS: usize = 10;
/// Gallop-Vegas Table 2: Vegas slow start from W_0 = 2 packets.
pub const PAPER_INITIAL_WINDOW_PKTS: usize = 2;
/// Reno's multiplicative decrease (RFC 9002 7.3.2 kLossReductionFactor),
/// which Vegas keeps (III-A, V).
pub const RENO_LOSS_REDUCTION_FACTOR: f64 = crate::window::LOSS_REDUCTION_FACTOR;
/// III-C: a retransmit timeout sets the threshold to half the window.
pub(super) const TIMEOUT_SSTHRESH_DIVISOR: usize = 2;
/// The Vegas family's default pacing gain: one window per period. Vegas
/// never needs to send faster (its window is the pipe plus alpha..beta);
/// RFC 9002 7.7's 1.25 makes bursts that read as queue. Measurements:
/// `docs/constants.md`.
pub const VEGAS_PACING_GAIN: f64 = 1.0;

/// The time one window of pacing is spread over (rate = gain * cwnd /
/// period).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacingPeriod {
    /// The smoothed RTT (RFC 9002 section 7.7).
    SmoothedRtt,
    /// In congestion avoidance, the window's credit cycle
    /// ([`RoundSampler::credit_cycle`]), or the smoothed RTT if that is
    /// longer (slow start keeps the smoothed RTT): a window-limited sender
    /// moves one window per credit cycle, waits for thinned and aggregated
    /// ACKs included. The default; measurements: `docs/constants.md`.
    ///
    /// [`RoundSampler::credit_cycle`]: crate::sampler::RoundSampler::credit_cycle
    CreditCycle,
}

/// The default pacing headroom ([`VegasConfig::pacing_headroom_pkts`]):
/// in congestion avoidance pace no faster than the mean Actual of the last
/// [`PACING_CAP_ROUNDS`] rounds plus 3 packets per round RTT: room for
/// Vegas's +1 per round and Actual's error. Our choice, no paper gives
/// one; measurements (1 starves the flow): `docs/constants.md`.
pub const DEFAULT_PACING_HEADROOM_PKTS: f64 = 3.0;
/// The default [`VegasConfig::rtt_resolution`]: RFC 9002's timer
/// granularity (kGranularity, section 6.1.2). A path whose RTT is below it
/// (loopback, a data centre: 20-50 us) has a window of a few packets, and
/// delay differences below it are scheduling noise of the two hosts, not a
/// queue Vegas could keep at alpha..beta packets: one late receiver wake-up
/// stalled such a window. Diff counts RTTs below 1 ms as 1 ms, so the flow
/// keeps at least about a millisecond of packets in flight. Paths of 1 ms
/// or more are unaffected.
pub const DEFAULT_RTT_RESOLUTION: Duration = Duration::from_millis(1);
/// A window more than this many times what a round carried (its rate over
/// the round's Actual) is stale, and the pacing cap does not move toward it:
/// a window left above the pipe by slow start's cut is no rate to catch up
/// to. Our choice; measured: docs/constants.md, `vegas::STALE_WINDOW_RATIO`.
pub const STALE_WINDOW_RATIO: f64 = 1.25;
/// Congestion-avoidance rounds after an every-round slow start
/// ([`SlowStartGrowth::EveryRound`]) whose Actual the pacing cap does not
/// take: in the first the overshoot drains while the sender waits, and the
/// second is paced by a smoothed RTT the overshoot raised. After the
/// paper's pace one round is skipped (two upset the coexistence mechanism
/// after a route change). Our choice; measured: docs/constants.md,
/// `vegas::POST_SLOW_START_SKIPPED_ROUNDS`.
pub const POST_SLOW_START_SKIPPED_ROUNDS: u32 = 2;
/// Rounds whose Actual the pacing cap is taken from. One round's Actual
/// moves with how many ACK releases fall into it; the mean of two halves
/// that swing. Our choice; measured: docs/constants.md,
/// `vegas::PACING_CAP_ROUNDS`.
pub const PACING_CAP_ROUNDS: usize = 2;

/// Consecutive Vegas decreases after which a route change is suspected
/// and checked with a drain: a queue Vegas built itself is gone after beta
/// packets of decrease (3 rounds); a fourth says the RTT did not follow.
pub const DEFAULT_ROUTE_CHANGE_ROUNDS: u32 = 4;
pub use crate::window::DEFAULT_MAX_DATAGRAM_SIZE;

/// What a probe timeout does to the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtoResponse {
    /// The paper's coarse-grained timeout (Reno's): ssthresh = cwnd / 2,
    /// cwnd = minimum window, then slow start.
    RestartSlowStart,
    /// RFC 9002 section 6.2: a PTO is not a loss; nothing changes.
    Ignore,
}

/// The window Vegas keeps when Diff > gamma ends its slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStartExitWindow {
    /// Gallop-Vegas section II: "decreases its congestion window size by 1/8"
    /// (Vanichpun & Feng: 7/8 W).
    CutEighth,
    /// The pipe, as Linux `tcp_vegas.c` sets it on leaving slow start
    /// ("cwnd = (actual rate) * baseRTT", plus one packet), but never more
    /// than the 7/8 cut. A 1/8 cut keeps most of a doubling's overshoot,
    /// which congestion avoidance drains one packet per round.
    ///
    /// The rate: once Diff > gamma says a queue is there, ACK frames arrive
    /// at the bottleneck's rate. Each reading of it errs low somewhere, so
    /// the highest counts ([`RoundDiff::pipe_bytes`]):
    /// - the round's fastest rate over at least 16 packets of frames
    ///   ([`crate::sampler::FRAME_RATE_MIN_PKTS`]) and an eighth of the
    ///   window ([`crate::sampler::FRAME_RATE_WINDOW_DIVISOR`]);
    /// - the smoothed per-frame rate, each frame no faster than its packets
    ///   were sent (BBR's delivery-rate guard): alone it lags when a round
    ///   has few frames, while the span rate alone reads low where the
    ///   path holds ACKs (frames keep the holder's clock);
    /// - Actual: alone it averages the doubling round's sends, which reach
    ///   the bottleneck rate only near its end, but it is there when the
    ///   first round's burst ends slow start before any rate reflects the
    ///   path.
    ///
    /// On real sockets an event loop reads ACK frames in clumps and the
    /// frame rates read high; the two guards above keep the exit window
    /// near the pipe. After an every-round doubling, sent at twice the
    /// link's rate, the smoothed rate's guard bounds nothing and that
    /// reading is left out (`Vegas::smoothed_frame_rate_for_the_pipe`).
    /// Gallop-Vegas makes its own cut (Gallop-Vegas III-C) and then keeps at
    /// most the pipe too: its cut alone leaves a queue the BaseRTT drains
    /// keep restoring. Measured: docs/constants.md,
    /// `vegas::SlowStartExitWindow::Pipe`.
    ///
    /// Vegas's exit round ends as soon as a queue forms, so on long real
    /// paths its readings can still fall a few percent short; the round
    /// after the exit reads the pipe again ([`VegasConfig::exit_recheck`],
    /// [`super::pipe_recheck`]).
    ///
    /// [`RoundDiff::pipe_bytes`]: super::RoundDiff::pipe_bytes
    Pipe,
}

/// How often Vegas's slow start grows its window (Gallop-Vegas keeps its
/// own growth).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStartGrowth {
    /// Brakmo & Peterson III-C: "grow exponentially only every other RTT";
    /// in between the window is held so Expected and Actual are compared
    /// on a steady window. Paper mode's, and the only pace Vanichpun &
    /// Feng's gamma selection takes (its model assumes it: `gamma_rate`
    /// sets it).
    EveryOtherRound,
    /// Every round, as Linux `tcp_vegas.c` (`tcp_slow_start` on every ACK
    /// while the round's Diff stays under gamma): each growing round is
    /// judged (Diff on the window in transit, so the round's own growth is
    /// not queue), except while its ACKs are for the initial window's
    /// burst, and within a round the growth stops once the last RTT
    /// samples show more than beta packets queued ([`super::queue_watch`]).
    /// Twice as fast to the pipe: on 4 s transfers through the link
    /// emulator at 80-200 ms the paper's pace left the flow at 0.79-0.92x
    /// CUBIC's goodput. The default: it needs a paced sender (an
    /// ACK-clocked doubling queues half its window behind itself), which
    /// the default is; the within-round stop keeps it from overshooting
    /// the buffer. Measured: docs/constants.md,
    /// `vegas::SlowStartGrowth::EveryRound`.
    EveryRound,
}

/// Which slow start a Vegas-family controller uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlowStartKind {
    /// Brakmo & Peterson III-C: double every other round (every round by
    /// default, [`SlowStartGrowth`]), leave when Diff > gamma (the window
    /// cut by 1/8 in paper mode, to the pipe by default).
    Vegas,
    /// Gallop-Vegas "stable growth" (Gallop-Vegas III-B/C, [`crate::gallop`]).
    Gallop,
}

/// Which congestion avoidance a Vegas-family controller uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AvoidanceKind {
    /// Brakmo & Peterson III-B with fixed alpha and beta.
    Vegas,
    /// Vegas-A: alpha and beta adapt once per round (Vegas-A section 3,
    /// [`crate::vegas_a`]).
    VegasA,
}

/// Where alpha and beta come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AlphaBetaSource {
    /// `alpha_pkts` and `beta_pkts`.
    Fixed,
    /// Feng & Vanichpun: beta = floor(q_v), alpha = beta - 1,
    /// q_v from the bottleneck buffer and the flow counts
    /// ([`compat_alpha_beta`]); `alpha_pkts` and `beta_pkts` are ignored.
    RenoCompat {
        /// Bottleneck buffer B in packets (> 0, large enough that
        /// alpha >= 1).
        buffer_pkts: f64,
        /// N_r >= 1.
        reno_flows: u32,
        /// N_v >= 1.
        vegas_flows: u32,
        /// Approach 1 (Reno drops only) or 2 (both drop), section 3.1.
        approach: CompatApproach,
    },
}

/// Every name [`VegasConfig::family_name`] can return.
pub const FAMILY_NAMES: [&str; 8] = [
    "vegas",
    "vegas-a",
    "gallop-vegas",
    "gallop-vegas-a",
    "vegas-compat",
    "vegas-a-compat",
    "gallop-vegas-compat",
    "gallop-vegas-a-compat",
];

/// Which window Expected is computed from (Expected = window / BaseRTT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpectedWindow {
    /// The congestion window (III-B: "Expected = WindowSize / BaseRTT"),
    /// so Diff = cwnd - Actual * BaseRTT: bytes of the window that are
    /// neither in the pipe nor acknowledged count as queued, including
    /// bytes a receiver holds unacknowledged (delayed or thinned ACKs).
    Cwnd,
    /// The window actually in transit, Actual * round RTT, so that
    /// Diff = Actual * (round RTT - BaseRTT): Little's law for the flow's
    /// packets in the bottleneck queue. With ACK-delay-corrected RTT samples
    /// a receiver that holds its ACKs no longer looks like a queue.
    InTransit,
}

/// Vegas parameters. [`VegasConfig::paper`] is the paper's Vegas;
/// [`VegasConfig::default`] the same algorithm with QUIC's initial window,
/// pacing and the robust sampler. The `with_*` methods turn either into
/// another member of the family; [`VegasConfig::vegas_a`],
/// [`VegasConfig::gallop`] and [`VegasConfig::compat`] are the robust
/// (default-based) variants, and [`VegasConfig::paper_mode`] turns any
/// configuration back to the paper's measurement and window.
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
    /// The window after Diff > gamma ends slow start.
    pub slow_start_exit_window: SlowStartExitWindow,
    /// Multiplicative decrease on loss, in (0, 1).
    pub loss_reduction_factor: f64,
    /// What a probe timeout does to the window.
    pub pto_response: PtoResponse,
    /// Pacing gain; None: do not pace.
    pub pacing_gain: Option<f64>,
    /// The period one window is paced over.
    pub pacing_period: PacingPeriod,
    /// In congestion avoidance, never pace faster than the mean Actual of
    /// the last [`PACING_CAP_ROUNDS`] rounds plus this many packets per
    /// round RTT ([`DEFAULT_PACING_HEADROOM_PKTS`]), and one packet per
    /// round below the mean Actual while Diff exceeds beta + 1 (the
    /// headroom, not the window, then built the queue; measured:
    /// docs/constants.md, `vegas::VegasConfig::pacing_headroom_pkts`).
    /// The first round after a BaseRTT drain, sent at the drain's
    /// pace, does not count in the mean; with no queue (Diff below alpha)
    /// the cap never falls, since a round that delivered less then says
    /// the sender fell short (a real event loop's late timers), not the
    /// path. Pacing one window per
    /// credit cycle runs ahead of the bottleneck whenever the window stalls
    /// on an ACK release (the cycle then measures less than the window
    /// takes): the queue rises for a round and drains in the stall, and the
    /// round's minimum RTT, taken at the trough, hides it. With a cap, a
    /// BaseRTT drain is paced too (at Actual less the drained packets per
    /// round), since a window cut alone does not slow a sender the cap
    /// holds below its window. None: no cap.
    pub pacing_headroom_pkts: Option<f64>,
    /// RTTs (BaseRTT and the round's) below this count as this in Diff
    /// ([`DEFAULT_RTT_RESOLUTION`]); None: the RTTs as measured.
    pub rtt_resolution: Option<Duration>,
    /// Which window Expected uses.
    pub expected_window: ExpectedWindow,
    /// How rounds, RTTs and Actual are measured.
    pub sampler: SamplerConfig,
    /// With a windowed BaseRTT: after this many consecutive decreases, drain
    /// the flow's own queue (as a BaseRTT probe) to check whether BaseRTT
    /// is stale (a route change); 0 disables the check.
    pub route_change_rounds: u32,
    /// With a windowed BaseRTT: drain the flow's own queue for two rounds
    /// once the BaseRTT sample is half a window old, so the filter sees the
    /// path's propagation delay again instead of creeping up with the
    /// standing queue (a drain of the flow's own queue, `BaseRttProbe` in
    /// this module).
    pub probe_base_rtt: bool,
    /// Send the free window in whole datagrams only
    /// ([`crate::Controller::cwnd_available_bytes`]): the papers' TCP sent
    /// full-sized segments (its window counted them), and a QUIC stack that
    /// fills any free window sends a short packet whenever a cut left a
    /// fraction of a datagram, every round after. On in both modes.
    pub whole_datagrams: bool,
    /// Compare Diff to the nearest whole packet, as ns-2's Vegas agent
    /// ([`super::paper::rounded_diff_pkts`]); false (both modes): as
    /// computed, as Brakmo & Peterson III-B. ns-2 also spreads each +1 over
    /// the round's ACKs (1/cwnd each) where this Vegas adds it at the end of
    /// the round, so rounding alone is not ns-2's Vegas: the paper
    /// scenarios leave it off.
    pub round_diff: bool,
    /// Vegas-A: Th(t) and Th(t-rtt) differ when they differ by more than
    /// this many datagrams per round (`vegas_a` interpretation 3): 0 in
    /// paper mode (the paper's exact comparison, whose measurement noise
    /// drives its route-change recovery), half a packet by default
    /// ([`crate::vegas_a::VEGAS_A_TREND_RESOLUTION_PKTS`]).
    pub trend_resolution_pkts: f64,
    /// Vegas-A: probe (lines 02-04) only while Diff falls as well as Th
    /// rises (`vegas_a` interpretation 8), the paper's own reason for the
    /// probe ("the throughput has been increasing ... diff is decreasing.
    /// This is an indication that the network is not fully saturated").
    /// On by default; off in paper mode (line 02 as printed).
    pub probe_needs_falling_diff: bool,
    /// Coexistence with buffer-filling flows ([`super::coexist`]): switch
    /// to a CUBIC window while Vegas's backoffs are taken by another flow,
    /// and back once the queue empties. On by default, off in paper mode.
    pub coexist: bool,
    /// Equal shares among family flows ([`super::fair_share`]): in
    /// congestion avoidance the window moves toward the middle of the
    /// alpha..beta band (FAST TCP's update) instead of holding anywhere in
    /// it, and falls by half its excess above beta. On by default, off in
    /// paper mode (the paper's +1 / hold / -1).
    pub fair_share: bool,
    /// With [`SlowStartExitWindow::Pipe`], the first congestion-avoidance
    /// round after Vegas's slow-start exit reads the pipe again and raises
    /// a window the exit under-read ([`super::pipe_recheck`]). On by
    /// default, off in paper mode (one reading, as Linux `tcp_vegas.c`).
    pub exit_recheck: bool,
    /// Vegas or Gallop-Vegas slow start.
    pub slow_start: SlowStartKind,
    /// Gallop-Vegas slow start as its pseudo code or as its equations and
    /// simulations ran ([`GallopGrowth`]); only with
    /// [`SlowStartKind::Gallop`]. The pseudo code in both modes.
    pub gallop_growth: GallopGrowth,
    /// How often Vegas's slow start doubles ([`SlowStartGrowth`]): every
    /// round by default, every other round in paper mode and with
    /// `gamma_rate`.
    pub slow_start_growth: SlowStartGrowth,
    /// Vegas or Vegas-A congestion avoidance.
    pub avoidance: AvoidanceKind,
    /// Fixed or Reno-compatible alpha/beta.
    pub alpha_beta: AlphaBetaSource,
    /// Available rate lambda (packets per second) for Vanichpun & Feng's gamma
    /// selection; None: gamma is `gamma_pkts`. Field name `gamma_rate`.
    pub gamma_rate_pkts_per_sec: Option<f64>,
    /// Vanichpun & Feng Approach 1 (Basic, eq. 14) or 2 (Enhanced, eq. 15); used
    /// only with `gamma_rate_pkts_per_sec`.
    pub gamma_approach: GammaApproach,
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
            slow_start_exit_window: SlowStartExitWindow::CutEighth,
            loss_reduction_factor: RENO_LOSS_REDUCTION_FACTOR,
            pto_response: PtoResponse::RestartSlowStart,
            pacing_gain: None,
            pacing_period: PacingPeriod::SmoothedRtt,
            pacing_headroom_pkts: None,
            rtt_resolution: None,
            expected_window: ExpectedWindow::InTransit,
            sampler: SamplerConfig::paper(),
            probe_base_rtt: false,
            route_change_rounds: 0,
            whole_datagrams: true,
            round_diff: false,
            trend_resolution_pkts: 0.0,
            probe_needs_falling_diff: false,
            coexist: false,
            fair_share: false,
            exit_recheck: false,
            slow_start: SlowStartKind::Vegas,
            gallop_growth: GallopGrowth::PseudoCode,
            slow_start_growth: SlowStartGrowth::EveryOtherRound,
            avoidance: AvoidanceKind::Vegas,
            alpha_beta: AlphaBetaSource::Fixed,
            gamma_rate_pkts_per_sec: None,
            gamma_approach: GammaApproach::Basic,
        }
    }

    /// Robust Vegas-A: [`VegasConfig::default`] with Vegas-A congestion
    /// avoidance (alpha 1, beta 3 at the start, as Vegas-A section 3).
    pub fn vegas_a() -> Self {
        VegasConfig::default().with_vegas_a()
    }

    /// Robust Gallop-Vegas: [`VegasConfig::default`] with Gallop-Vegas slow
    /// start. `VegasConfig::paper().with_gallop()` is the paper's (initial
    /// window 2, Table 3).
    pub fn gallop() -> Self {
        VegasConfig::default().with_gallop()
    }

    /// Robust Reno-compatible Vegas: [`VegasConfig::default`] with alpha and
    /// beta from Feng & Vanichpun for a bottleneck buffer of `buffer_pkts` shared
    /// by `reno_flows` Reno and `vegas_flows` Vegas flows.
    pub fn compat(
        buffer_pkts: f64,
        reno_flows: u32,
        vegas_flows: u32,
        approach: CompatApproach,
    ) -> Self {
        VegasConfig::default().with_compat(buffer_pkts, reno_flows, vegas_flows, approach)
    }

    /// This configuration with Vegas-A congestion avoidance.
    pub fn with_vegas_a(self) -> Self {
        VegasConfig {
            avoidance: AvoidanceKind::VegasA,
            ..self
        }
    }

    /// This configuration with Gallop-Vegas slow start.
    pub fn with_gallop(self) -> Self {
        VegasConfig {
            slow_start: SlowStartKind::Gallop,
            ..self
        }
    }

    /// This configuration with Reno-compatible alpha/beta (Feng & Vanichpun).
    pub fn with_compat(
        self,
        buffer_pkts: f64,
        reno_flows: u32,
        vegas_flows: u32,
        approach: CompatApproach,
    ) -> Self {
        VegasConfig {
            alpha_beta: AlphaBetaSource::RenoCompat {
                buffer_pkts,
                reno_flows,
                vegas_flows,
                approach,
            },
            ..self
        }
    }

    /// This configuration with gamma selected at run time (Vanichpun & Feng) for an
    /// available rate of `rate_pkts_per_sec`, slow start doubling every
    /// other round as their model does (eq. 8-9).
    pub fn with_selected_gamma(self, rate_pkts_per_sec: f64, approach: GammaApproach) -> Self {
        VegasConfig {
            gamma_rate_pkts_per_sec: Some(rate_pkts_per_sec),
            gamma_approach: approach,
            slow_start_growth: SlowStartGrowth::EveryOtherRound,
            ..self
        }
    }

    /// This configuration measured and started as in the papers: initial
    /// window 2, no pacing, sampler in paper mode, the coarse timeout on a
    /// PTO (the family choices and thresholds are kept).
    pub fn paper_mode(self) -> Self {
        let paper = VegasConfig::paper();
        VegasConfig {
            initial_cwnd_pkts: paper.initial_cwnd_pkts,
            slow_start_exit_window: paper.slow_start_exit_window,
            pacing_gain: paper.pacing_gain,
            pacing_period: paper.pacing_period,
            pacing_headroom_pkts: paper.pacing_headroom_pkts,
            rtt_resolution: paper.rtt_resolution,
            sampler: paper.sampler,
            probe_base_rtt: paper.probe_base_rtt,
            route_change_rounds: paper.route_change_rounds,
            pto_response: paper.pto_response,
            whole_datagrams: paper.whole_datagrams,
            trend_resolution_pkts: paper.trend_resolution_pkts,
            probe_needs_falling_diff: paper.probe_needs_falling_diff,
            coexist: paper.coexist,
            fair_share: paper.fair_share,
            exit_recheck: paper.exit_recheck,
            slow_start_growth: paper.slow_start_growth,
            ..self
        }
    }

    /// Vegas's slow start doubling every round: [`SlowStartGrowth::EveryRound`]
    /// with Vegas's slow start (Gallop-Vegas grows its own way, whatever
    /// `slow_start_growth` says).
    pub fn doubles_every_round(&self) -> bool {
        self.slow_start == SlowStartKind::Vegas
            && self.slow_start_growth == SlowStartGrowth::EveryRound
    }

    /// The algorithm name (table in the module documentation).
    pub fn family_name(&self) -> &'static str {
        let compat = matches!(self.alpha_beta, AlphaBetaSource::RenoCompat { .. });
        let index = match (self.slow_start, self.avoidance) {
            (SlowStartKind::Vegas, AvoidanceKind::Vegas) => 0,
            (SlowStartKind::Vegas, AvoidanceKind::VegasA) => 1,
            (SlowStartKind::Gallop, AvoidanceKind::Vegas) => 2,
            (SlowStartKind::Gallop, AvoidanceKind::VegasA) => 3,
        };
        FAMILY_NAMES[index + if compat { 4 } else { 0 }]
    }

    /// The alpha and beta (packets) the controller starts with: the fixed
    /// fields, or Feng & Vanichpun's formulas.
    pub fn alpha_beta_pkts(&self) -> Result<(f64, f64), ParamError> {
        match self.alpha_beta {
            AlphaBetaSource::Fixed => Ok((self.alpha_pkts, self.beta_pkts)),
            AlphaBetaSource::RenoCompat {
                buffer_pkts,
                reno_flows,
                vegas_flows,
                approach,
            } => {
                let (alpha_pkts, beta_pkts) =
                    compat_alpha_beta(buffer_pkts, reno_flows, vegas_flows, approach)?;
                if alpha_pkts < 1.0 {
                    // Diff is never below 0, so with alpha = 0 Vegas could
                    // never increase its window.
                    return Err(ParamError::new(
                        "buffer_pkts",
                        buffer_pkts,
                        format!(
                            "a buffer large enough that alpha = beta - 1 >= 1 \
                             (here beta = {beta_pkts}, alpha = {alpha_pkts})"
                        ),
                    ));
                }
                Ok((alpha_pkts, beta_pkts))
            }
        }
    }

    /// Checks every field; the error names the first field that is wrong.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check_initial_window(self.initial_cwnd_pkts)?;
        ParamError::check_max_datagram_size(self.max_datagram_size)?;
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
        ParamError::check_loss_reduction_factor(self.loss_reduction_factor)?;
        ParamError::check_pacing_gain(self.pacing_gain)?;
        ParamError::check_positive_or_none("pacing_headroom_pkts", self.pacing_headroom_pkts)?;
        if !(self.trend_resolution_pkts.is_finite()
            && (0.0..=100.0).contains(&self.trend_resolution_pkts))
        {
            return Err(ParamError::new(
                "trend_resolution_pkts",
                self.trend_resolution_pkts,
                "a number of packets per round from 0 (exact, the paper's) to 100",
            ));
        }
        self.alpha_beta_pkts()?;
        if self.gallop_growth != GallopGrowth::PseudoCode
            && self.slow_start != SlowStartKind::Gallop
        {
            return Err(ParamError::new(
                "gallop_growth",
                "equations",
                "pseudo_code without Gallop-Vegas slow start (the gallop-* algorithms)",
            ));
        }
        if let Some(rate) = self.gamma_rate_pkts_per_sec {
            if !(rate.is_finite() && rate > 0.0) {
                return Err(ParamError::new(
                    "gamma_rate",
                    rate,
                    "a finite rate in packets per second > 0, or none",
                ));
            }
            if self.slow_start == SlowStartKind::Gallop {
                return Err(ParamError::new(
                    "gamma_rate",
                    rate,
                    "none with Gallop-Vegas slow start (Vanichpun & Feng eq. 14-15 select \
                     gamma for Vegas's doubling-every-other-round windows)",
                ));
            }
            if self.slow_start_growth != SlowStartGrowth::EveryOtherRound {
                return Err(ParamError::new(
                    "gamma_rate",
                    rate,
                    "none with slow_start_growth=every_round (Vanichpun & Feng eq. 14-15 \
                     select gamma for windows doubling every other round)",
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
            slow_start_exit_window: SlowStartExitWindow::Pipe,
            pacing_gain: Some(VEGAS_PACING_GAIN),
            pacing_period: PacingPeriod::CreditCycle,
            pacing_headroom_pkts: Some(DEFAULT_PACING_HEADROOM_PKTS),
            rtt_resolution: Some(DEFAULT_RTT_RESOLUTION),
            sampler: SamplerConfig::default(),
            probe_base_rtt: true,
            route_change_rounds: DEFAULT_ROUTE_CHANGE_ROUNDS,
            // RFC 9002 6.2: a PTO is a probe, not a loss. The paper's coarse
            // timeout collapsed the window on every PTO a reordered or
            // delayed ACK caused. Measured: docs/constants.md,
            // `vegas::PtoResponse::Ignore`.
            pto_response: PtoResponse::Ignore,
            trend_resolution_pkts: crate::vegas_a::VEGAS_A_TREND_RESOLUTION_PKTS,
            // Three Vegas-A flows 1 s apart at 20 Mbit/s x 40 ms: the
            // paper's line 02 raised one flow's alpha to 15 packets while
            // another yielded, and 3 of 8 seeds switched to competitive
            // mode. Measured: docs/constants.md,
            // `vegas_a::probe_needs_falling_diff`.
            probe_needs_falling_diff: true,
            coexist: true,
            fair_share: true,
            // 4 s transfers at 50 and 100 Mbit/s x 200 ms through
            // `vegas-link-emu` left slow start 6-8% under the pipe.
            // Measured: docs/constants.md, `vegas::VegasConfig::exit_recheck`.
            exit_recheck: true,
            // 4 s transfers at 80-200 ms reached 0.79-0.92x CUBIC's
            // goodput doubling every other round. Measured:
            // docs/constants.md, `vegas::SlowStartGrowth::EveryRound`.
            slow_start_growth: SlowStartGrowth::EveryRound,
            ..VegasConfig::paper()
        }
    }
}
