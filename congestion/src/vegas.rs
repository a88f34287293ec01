//! TCP Vegas (Brakmo & Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 1995, section III) for QUIC.
//! All RTT and rate measurements come from the [`RoundSampler`].
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
//!   keeps the pipe instead, as Linux does: [`SlowStartExitWindow`]).
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
//! - slow start ([`SlowStartKind`]): Vegas's III-C doubling every other
//!   round, or Gallop-Vegas's stable growth ([`crate::gallop`]);
//! - congestion avoidance ([`AvoidanceKind`]): Vegas's fixed alpha/beta, or
//!   Vegas-A's adaptive ones ([`crate::vegas_a`]);
//! - where alpha/beta come from ([`AlphaBetaSource`]): fixed values, or the
//!   Reno-compatible formulas of Feng & Vanichpun ([`crate::reno_compat`]) from the
//!   bottleneck buffer and the numbers of Reno and Vegas flows, computed
//!   once when the controller is built;
//! - where gamma comes from: `gamma_pkts`, or (with
//!   `gamma_rate_pkts_per_sec` set) Vanichpun & Feng's selection rule, eq. 12 and
//!   14 / 15 ([`crate::transient::select_gamma_for_available_rate`]), run
//!   once per path at the end of the first usable round, when BaseRTT d is
//!   first known: target window W^ = lambda d + alpha, lambda the
//!   configured available rate, over the window sequence this Vegas slow
//!   start produces (W_1 = W_2 = initial window, doubling every other
//!   round). Eq. 14-15 are applied as printed, with lambda in the
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

use crate::events::Action;
use crate::events::ReductionCause;
use crate::events::RoundDecision;
use crate::events::SlowStartExitCause;
use crate::gallop::GallopSlowStart;
use crate::gallop::GallopStep;
use crate::reno_compat::compat_alpha_beta;
use crate::reno_compat::CompatApproach;
use crate::sampler::BaseRttMode;
use crate::sampler::ExpectedWindow;
use crate::sampler::RoundSample;
use crate::sampler::RoundSampler;
use crate::sampler::SamplerConfig;
use crate::transient::select_gamma_for_available_rate;
use crate::transient::GammaApproach;
use crate::transient::GammaChoice;
use crate::transient::VegasSlowStart;
use crate::vegas_a::VegasA;
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
/// equivalent of one router buffer" (Gallop-Vegas section II: gamma = 1).
pub const PAPER_GAMMA_PKTS: f64 = 1.0;
/// Gallop-Vegas section II: on leaving slow start Vegas "decreases its
/// congestion window size by 1/8" (Vanichpun & Feng: 7/8 W).
pub const SLOW_START_EXIT_CUT_DIVISOR: usize = 8;
/// RFC 9002 section 7.2 kMinimumWindow: 2 datagrams.
pub const MIN_WINDOW_PKTS: usize = 2;
/// RFC 9002 section 7.2: initial window of 10 datagrams.
pub const QUIC_INITIAL_WINDOW_PKTS: usize = 10;
/// Gallop-Vegas Table 2: Vegas slow start from W_0 = 2 packets.
pub const PAPER_INITIAL_WINDOW_PKTS: usize = 2;
/// Reno's multiplicative decrease (RFC 9002 7.3.2 kLossReductionFactor),
/// which Vegas keeps (III-A, V).
pub const RENO_LOSS_REDUCTION_FACTOR: f64 = 0.5;
/// III-C: a retransmit timeout sets the threshold to half the window.
const TIMEOUT_SSTHRESH_DIVISOR: usize = 2;
/// The Vegas family's default pacing gain: exactly cwnd / smoothed RTT.
/// Vegas keeps its window at the pipe plus alpha..beta packets, so it never
/// needs to send faster than one window per RTT; a gain above 1 (RFC 9002
/// 7.7 suggests 1.25 for loss-based windows) turns every ACK-clocked burst
/// into a small bottleneck queue whose last packet, the one an ACK frame
/// takes its RTT sample from, reads as standing queue. Measured with an ACK
/// every 16 packets (scenario `ack-frequency`): 1.25 gives 84% steady
/// utilization, 1.0 gives 95%.
pub const VEGAS_PACING_GAIN: f64 = 1.0;

/// The time one window of pacing is spread over (rate = gain * cwnd /
/// period).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacingPeriod {
    /// The smoothed RTT (RFC 9002 section 7.7).
    SmoothedRtt,
    /// In congestion avoidance, the window's credit cycle
    /// ([`RoundSampler::credit_cycle`]), or the smoothed RTT if that is
    /// longer (slow start keeps the smoothed RTT): how long the window's bytes take to
    /// come back acknowledged, including the time packets wait at the
    /// receiver for a thinned ACK and the hold of an aggregated one. A
    /// window-limited sender moves one window per credit cycle, so pacing
    /// over the smoothed RTT instead sends each ACK's credit as a burst
    /// faster than the path drains it. Measured with an ACK every 16
    /// packets (scenario `ack-frequency`): 94.6% steady utilization over
    /// the smoothed RTT, 99.9% over the credit cycle (the default).
    CreditCycle,
}

/// The default pacing headroom ([`VegasConfig::pacing_headroom_pkts`]):
/// in congestion avoidance pace no faster than the mean Actual of the last
/// [`PACING_CAP_ROUNDS`] rounds plus 3 packets per round RTT. Vegas adds at
/// most one packet per round, so 3 leaves room for that and for Actual's
/// measurement error. Our choice, no paper gives one. Measured (scenario
/// `ack-frequency`, 20 ms ACK aggregation, N = 1, 2, 4, 8, 16): mean queue
/// 1.6, 1.6, 1.9, 2.5, 3.6 packets at 95-100% utilization, where pacing
/// cwnd / credit cycle alone gives 2.6, 3.6, 3.9, 4.9, 6.6. A headroom of 1
/// starves the flow (the cap trails its own rate); on a 100-run grid (10
/// and 20 Mbit/s, 40 and 54 ms, aggregation 0-30 ms, N = 1..16) 2, 3 and 4
/// left 17, 16 and 19 runs under 95% utilization (no cap: 26) and 16, 8
/// and 3 with a mean queue above beta + 1 (no cap: 17).
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
/// after slow start's 7/8 cut on real sockets (100 Mbit/s through the link
/// emulator) the window was 1.7 times the pipe, and moving the cap halfway
/// to it queued 180 packets in a round; the cap the sender needs to catch
/// up after a short round was 1.2 times (1 Gbit/s x 200 ms). Our choice.
pub const STALE_WINDOW_RATIO: f64 = 1.25;
/// Rounds whose Actual the pacing cap is taken from. One round's Actual
/// moves with how many ACK releases fall into it (800 to 1058 packets/s
/// on a 1042 packets/s link, ACK every 16 packets, 20 ms aggregation); the
/// mean of two halves that swing. Our choice.
pub const PACING_CAP_ROUNDS: usize = 2;

/// Consecutive Vegas decreases after which a route change is suspected
/// and checked with a drain: a queue Vegas built itself is gone after beta
/// packets of decrease (3 rounds); a fourth says the RTT did not follow.
pub const DEFAULT_ROUTE_CHANGE_ROUNDS: u32 = 4;
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

/// The window Vegas keeps when Diff > gamma ends its slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStartExitWindow {
    /// Gallop-Vegas section II: "decreases its congestion window size by 1/8"
    /// (Vanichpun & Feng: 7/8 W).
    CutEighth,
    /// The pipe, as Linux `tcp_vegas.c` sets it on leaving slow start
    /// ("cwnd = (actual rate) * baseRTT", plus one packet), but never more
    /// than the 7/8 cut. A 1/8 cut keeps most of a doubling's overshoot: at
    /// 1 Gbit/s x 200 ms (20833 packets) slow start left 11,000 packets
    /// queued, which congestion avoidance drains one packet per round.
    ///
    /// The rate: once Diff > gamma says a queue is there, ACK frames arrive
    /// at the bottleneck's rate. Each reading of it errs low somewhere, so
    /// the highest counts ([`RoundDiff::pipe_bytes`]):
    /// - the round's fastest rate over at least 16 packets of frames
    ///   ([`crate::sampler::FRAME_RATE_MIN_PKTS`]);
    /// - the smoothed per-frame rate: alone it lags when a round has few
    ///   frames (an ACK every 16 packets read 38 packets for a pipe of 42),
    ///   while the span rate alone read 9 packets for 42 where the path
    ///   holds ACKs (20 ms aggregation: frames keep the holder's clock);
    /// - Actual: alone it averages the doubling round's sends, which reach
    ///   the bottleneck rate only near its end (1842 packets for 2083 at
    ///   100 Mbit/s x 200 ms), but it is there when the first round's burst
    ///   ends slow start before any rate reflects the path.
    ///
    /// On real sockets ACKs come in clumps and every rate reads high: the
    /// 7/8 bound then holds (100 Mbit/s through the link emulator).
    /// Gallop-Vegas makes its own cut (Gallop-Vegas III-C) and then keeps at
    /// most the pipe too: its cut left 60 packets queued at 100 Mbit/s x
    /// 200 ms, which the BaseRTT drains kept restoring.
    Pipe,
}

/// Which slow start a Vegas-family controller uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlowStartKind {
    /// Brakmo & Peterson III-C: double every other round, leave when
    /// Diff > gamma with a 1/8 cut.
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
    pub pto_response: PtoResponse,
    /// Pacing gain; None: do not pace.
    pub pacing_gain: Option<f64>,
    /// The period one window is paced over.
    pub pacing_period: PacingPeriod,
    /// In congestion avoidance, never pace faster than the mean Actual of
    /// the last [`PACING_CAP_ROUNDS`] rounds plus this many packets per
    /// round RTT ([`DEFAULT_PACING_HEADROOM_PKTS`]), and one packet per
    /// round below the mean Actual while Diff exceeds beta + 1 (the
    /// headroom, not the window, then built the queue: at 100 Mbit/s it
    /// grew 3 packets a round to 98 while the unused window fell one a
    /// round). The first round after a BaseRTT drain, sent at the drain's
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
    /// Vegas or Gallop-Vegas slow start.
    pub slow_start: SlowStartKind,
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
            sampler: SamplerConfig::paper(),
            probe_base_rtt: false,
            route_change_rounds: 0,
            slow_start: SlowStartKind::Vegas,
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
    /// available rate of `rate_pkts_per_sec`.
    pub fn with_selected_gamma(self, rate_pkts_per_sec: f64, approach: GammaApproach) -> Self {
        VegasConfig {
            gamma_rate_pkts_per_sec: Some(rate_pkts_per_sec),
            gamma_approach: approach,
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
            ..self
        }
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
        let factor = self.loss_reduction_factor;
        if !(factor.is_finite() && factor > 0.0 && factor < 1.0) {
            return Err(ParamError::new(
                "loss_reduction_factor",
                factor,
                "a finite number in (0, 1)",
            ));
        }
        ParamError::check_pacing_gain(self.pacing_gain)?;
        ParamError::check_positive_or_none("pacing_headroom_pkts", self.pacing_headroom_pkts)?;
        self.alpha_beta_pkts()?;
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
            // delayed ACK caused: a 1 s delay spike cost 2.1 s instead of
            // 1.0 s for 300 KB (tests/hostile_network.rs's path).
            pto_response: PtoResponse::Ignore,
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
    /// The window that fills the pipe with no queue: the highest of the
    /// round's fastest delivery rate over 16 packets of ACK frames, the
    /// smoothed ACK rate and Actual, x BaseRTT
    /// ([`SlowStartExitWindow::Pipe`]).
    pub pipe_bytes: f64,
}

/// TCP Vegas and its family (module documentation).
#[derive(Clone, Debug)]
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
    /// alpha/beta at the start ([`VegasConfig::alpha_beta_pkts`]).
    start_alpha_pkts: f64,
    start_beta_pkts: f64,
    /// Vegas-A state, with [`AvoidanceKind::VegasA`].
    vegas_a: Option<VegasA>,
    /// Gallop-Vegas state, with [`SlowStartKind::Gallop`].
    gallop: Option<GallopSlowStart>,
    /// Vanichpun & Feng's gamma choice, once made.
    gamma_choice: Option<GammaChoice>,
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
    /// The BaseRTT drain in progress, if any.
    probe: Option<BaseRttProbe>,
    last_probe: Option<Instant>,
    /// Consecutive congestion-avoidance decreases.
    decrease_streak: u32,
    /// Actual of the latest congestion-avoidance rounds, oldest first
    /// ([`VegasConfig::pacing_headroom_pkts`]).
    recent_delivery: [Option<f64>; PACING_CAP_ROUNDS],
    /// The pacing ceiling they give; None: no cap in force.
    pacing_cap_bytes_per_sec: Option<f64>,
    /// The last round was a drain's, slow start's or recovery's: the next
    /// one was sent under that phase's window changes, and its Actual is
    /// not the path's.
    skip_next_delivery: bool,
    events: EventQueue,
}

/// A drain of the flow's own queue for a windowed BaseRTT.
///
/// A windowed minimum forgets the path's propagation delay unless the flow
/// sometimes empties the queue it keeps itself (alpha to beta packets):
/// otherwise each new window's minimum includes that standing queue, Vegas
/// adds alpha..beta on top, and BaseRTT creeps up window after window
/// (BBR's ProbeRTT solves the same problem, draft-ietf-ccwg-bbr section
/// 4.3.4). Once the BaseRTT sample is half a window old the window drops by
/// the last Diff plus one packet for two rounds (one to drain, one whose
/// RTT samples see the empty queue) and is then restored. ssthresh is not
/// touched. On a path whose delay really grew the drain finds no lower RTT
/// and the window's minimum moves up, as it should.
#[derive(Clone, Copy, Debug)]
struct BaseRttProbe {
    restore_cwnd_bytes: usize,
    rounds_left: u8,
    /// Smallest round RTT seen during the drain.
    min_round_rtt: Duration,
    /// With a pacing cap ([`VegasConfig::pacing_headroom_pkts`]): the
    /// drain is paced at Actual less the drained bytes per round RTT (at
    /// least one packet per round), so it empties the queue even while
    /// the cap, not the window, set the sending rate.
    pacing_bytes_per_sec: Option<f64>,
}

impl Vegas {
    pub fn new(config: VegasConfig) -> Result<Self, ParamError> {
        config.validate()?;
        let (alpha_pkts, beta_pkts) = config.alpha_beta_pkts()?;
        let cwnd_bytes = config.initial_cwnd_pkts * config.max_datagram_size;
        Ok(Vegas {
            config,
            sampler: RoundSampler::new(config.sampler, config.max_datagram_size)?,
            max_datagram_size: config.max_datagram_size,
            cwnd_bytes,
            ssthresh_bytes: usize::MAX,
            alpha_pkts,
            beta_pkts,
            gamma_pkts: config.gamma_pkts,
            start_alpha_pkts: alpha_pkts,
            start_beta_pkts: beta_pkts,
            vegas_a: (config.avoidance == AvoidanceKind::VegasA)
                .then(|| VegasA::new(alpha_pkts, beta_pkts)),
            gallop: (config.slow_start == SlowStartKind::Gallop)
                .then(|| GallopSlowStart::new(cwnd_bytes, config.max_datagram_size)),
            gamma_choice: None,
            round_start_cwnd_bytes: cwnd_bytes,
            slow_start_round: SlowStartRound::Hold,
            largest_sent_pkt_num: None,
            first_pkt_after_reduction: None,
            recovery_cause: None,
            probe: None,
            last_probe: None,
            decrease_streak: 0,
            recent_delivery: [None; PACING_CAP_ROUNDS],
            pacing_cap_bytes_per_sec: None,
            skip_next_delivery: false,
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

    /// alpha in force (packets): fixed, compat or adapted by Vegas-A.
    pub fn alpha_pkts(&self) -> f64 {
        self.alpha_pkts
    }

    /// beta in force (packets).
    pub fn beta_pkts(&self) -> f64 {
        self.beta_pkts
    }

    /// gamma in force (packets): `gamma_pkts`, or Vanichpun & Feng's choice once
    /// made.
    pub fn gamma_pkts(&self) -> f64 {
        self.gamma_pkts
    }

    /// Vanichpun & Feng's gamma choice (eq. 14 / 15), once BaseRTT is known; None
    /// without `gamma_rate_pkts_per_sec`.
    pub fn gamma_choice(&self) -> Option<&GammaChoice> {
        self.gamma_choice.as_ref()
    }

    /// Vegas-A state, with Vegas-A congestion avoidance.
    pub fn vegas_a(&self) -> Option<&VegasA> {
        self.vegas_a.as_ref()
    }

    /// Gallop-Vegas state (incr, maxincr, status), with Gallop slow start.
    pub fn gallop(&self) -> Option<&GallopSlowStart> {
        self.gallop.as_ref()
    }

    fn initial_window_bytes(&self) -> usize {
        self.config.initial_cwnd_pkts * self.max_datagram_size
    }

    fn min_window_bytes(&self) -> usize {
        MIN_WINDOW_PKTS * self.max_datagram_size
    }

    fn in_slow_start(&self) -> bool {
        // A BaseRTT drain lowers the window below ssthresh for two rounds
        // only; that is not slow start.
        self.probe.is_none() && self.cwnd_bytes < self.ssthresh_bytes
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
        // A loss, PTO or persistent congestion ends a BaseRTT drain: the
        // reduced window is not restored.
        self.probe = None;
        self.first_pkt_after_reduction = Some(self.next_pkt_num());
        self.round_start_cwnd_bytes = self.cwnd_bytes;
        self.slow_start_round = SlowStartRound::Hold;
        self.sampler.restart_round();
        if let Some(vegas_a) = &mut self.vegas_a {
            vegas_a.forget_actual();
        }
    }

    /// Gallop-Vegas "retransmission-timeout phase": incr, maxincr and
    /// status back to their defaults, the first RTT adds nothing.
    fn restart_gallop(&mut self, now: Instant) {
        if let Some(gallop) = &mut self.gallop {
            gallop.restart(self.cwnd_bytes, self.max_datagram_size);
            self.events.push(gallop.event(now));
        }
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
        self.restart_gallop(now);
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
    ///
    /// Gallop-Vegas instead adds this ACK's share of the RTT's increment
    /// (Gallop-Vegas III-B), up to ssthresh.
    fn slow_start_on_ack(&mut self, now: Instant, acked_bytes: usize) {
        let (grow_bytes, limit_bytes) = match &mut self.gallop {
            Some(gallop) => (gallop.on_ack(acked_bytes), self.ssthresh_bytes),
            None if self.slow_start_round == SlowStartRound::Grow => (
                acked_bytes,
                self.round_start_cwnd_bytes
                    .saturating_mul(2)
                    .min(self.ssthresh_bytes),
            ),
            None => return,
        };
        if grow_bytes == 0 {
            return;
        }
        self.cwnd_bytes = self
            .cwnd_bytes
            .saturating_add(grow_bytes)
            .min(limit_bytes)
            .max(self.cwnd_bytes);
        if !self.in_slow_start() {
            if let Some(gallop) = &mut self.gallop {
                gallop.on_slow_start_exit();
            }
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
        if let Some(vegas_a) = &mut self.vegas_a {
            // Th(t-rtt) for the first congestion-avoidance round.
            vegas_a.note_actual(diff.actual_bytes_per_sec);
        }
        if self.gallop.is_some() {
            return self.gallop_slow_start_step(now, diff);
        }
        match self.slow_start_round {
            SlowStartRound::Grow => {
                self.slow_start_round = SlowStartRound::Hold;
                Action::SlowStartGrow
            }
            SlowStartRound::Hold if diff.diff_pkts > self.gamma_pkts => {
                let cut_bytes = self.cwnd_bytes - self.cwnd_bytes / SLOW_START_EXIT_CUT_DIVISOR;
                self.lower_cwnd(self.at_most_the_pipe(cut_bytes, diff));
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

    /// A slow-start exit window, lowered to the pipe plus one packet with
    /// [`SlowStartExitWindow::Pipe`].
    fn at_most_the_pipe(&self, exit_bytes: usize, diff: &RoundDiff) -> usize {
        match self.config.slow_start_exit_window {
            SlowStartExitWindow::CutEighth => exit_bytes,
            SlowStartExitWindow::Pipe => {
                exit_bytes.min(diff.pipe_bytes as usize + self.max_datagram_size)
            }
        }
    }

    /// End of a Gallop-Vegas slow-start round: the block of Gallop-Vegas III-C
    /// ([`GallopSlowStart::on_round`]).
    fn gallop_slow_start_step(&mut self, now: Instant, diff: &RoundDiff) -> Action {
        let Some(gallop) = &mut self.gallop else {
            return Action::SlowStartHold;
        };
        let step = gallop.on_round(
            self.cwnd_bytes,
            self.max_datagram_size,
            diff.diff_pkts,
            self.gamma_pkts,
            self.beta_pkts,
        );
        self.events.push(gallop.event(now));
        match step {
            GallopStep::Grow { .. } => Action::SlowStartGrow,
            GallopStep::Cut { cut_bytes } => {
                // cwnd -= (last increment + Delta - beta); ssthresh = 2;
                // if (cwnd < 2) cwnd = 2 (interpretations 4 and 5).
                gallop.on_slow_start_exit();
                let exit_bytes = self.cwnd_bytes.saturating_sub(cut_bytes);
                self.lower_cwnd(self.at_most_the_pipe(exit_bytes, diff));
                self.first_pkt_after_reduction = Some(self.next_pkt_num());
                self.events.push(ControllerEvent::SlowStartExit {
                    now,
                    cause: SlowStartExitCause::DiffAtLeastBeta,
                    cwnd_bytes: self.cwnd_bytes,
                });
                Action::SlowStartExit
            }
        }
    }

    /// Gallop-Vegas `ssthresh = 2` from `if (incr <= 1)`: the RTT after it
    /// has ended, slow start ends (Gallop-Vegas III-B: "transit to the
    /// congestion-avoidance phase at the next RTT").
    fn end_gallop_slow_start(&mut self, now: Instant) {
        let Some(gallop) = &mut self.gallop else {
            return;
        };
        gallop.on_slow_start_exit();
        self.ssthresh_bytes = self.cwnd_bytes;
        self.events.push(ControllerEvent::SlowStartExit {
            now,
            cause: SlowStartExitCause::IncrementAtOne,
            cwnd_bytes: self.cwnd_bytes,
        });
    }

    fn gallop_exit_pending(&self) -> bool {
        self.in_slow_start() && self.gallop.as_ref().is_some_and(|g| g.exit_pending())
    }

    // Congestion avoidance (III-B).

    /// End of a congestion-avoidance round: Gallop-Vegas's hold after a
    /// status-2 exit, then Vegas or Vegas-A.
    fn congestion_avoidance_round(&mut self, now: Instant, diff: &RoundDiff) -> Action {
        if let Some(gallop) = &mut self.gallop {
            // "if (status != 2) do the motion of original Vegas else
            // status = 0".
            if gallop.on_congestion_avoidance_round() {
                self.events.push(gallop.event(now));
                if let Some(vegas_a) = &mut self.vegas_a {
                    vegas_a.note_actual(diff.actual_bytes_per_sec);
                }
                return Action::Hold;
            }
        }
        if self.vegas_a.is_some() {
            self.vegas_a_step(now, diff)
        } else {
            self.congestion_avoidance_step(diff)
        }
    }

    /// End of a Vegas-A congestion-avoidance round (Vegas-A section 3,
    /// [`VegasA::on_round`]).
    fn vegas_a_step(&mut self, now: Instant, diff: &RoundDiff) -> Action {
        let Some(vegas_a) = &mut self.vegas_a else {
            return Action::Hold;
        };
        let step = vegas_a.on_round(diff.diff_pkts, diff.actual_bytes_per_sec);
        match step.window {
            Action::Increase => self.cwnd_bytes += self.max_datagram_size,
            Action::Decrease => {
                self.lower_cwnd(self.cwnd_bytes.saturating_sub(self.max_datagram_size))
            }
            _ => {}
        }
        if step.params_changed {
            self.alpha_pkts = step.alpha_pkts;
            self.beta_pkts = step.beta_pkts;
            self.events.push(ControllerEvent::ParamsChanged {
                now,
                alpha_pkts: self.alpha_pkts,
                beta_pkts: self.beta_pkts,
            });
        }
        step.window
    }

    /// Vanichpun & Feng gamma selection, once per path, when BaseRTT is first
    /// known (module documentation).
    fn select_gamma(&mut self, base_rtt: Duration) {
        let Some(rate_pkts_per_sec) = self.config.gamma_rate_pkts_per_sec else {
            return;
        };
        if self.gamma_choice.is_some() {
            return;
        }
        // Our slow start: W_1 = W_2 = initial window, doubling every other
        // round (Vanichpun & Feng section IV-B, "determined based upon W_1").
        let schedule = VegasSlowStart::DoublingEveryOtherRound {
            initial_window_pkts: self.config.initial_cwnd_pkts as f64,
        };
        // Eq. 12 (W^ = lambda d + alpha) and eq. 14 / 15; cannot fail for a
        // validated config and a positive BaseRTT.
        if let Ok(choice) = select_gamma_for_available_rate(
            self.config.gamma_approach,
            rate_pkts_per_sec,
            base_rtt.as_secs_f64(),
            self.alpha_pkts,
            schedule,
        ) {
            self.gamma_pkts = choice.gamma_pkts;
            self.gamma_choice = Some(choice);
        }
    }

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

    /// Expected, Actual and Diff of a finished round (III-B). Expected's
    /// window is the bytes in transit, Actual times the round's RTT, within
    /// [window at the round start, window now] (module documentation):
    /// the window at the round start unless the window grew in the round.
    fn round_diff(&self, round: &RoundSample, round_rtt: Duration) -> RoundDiff {
        let floor = self.config.rtt_resolution.unwrap_or(Duration::ZERO);
        let round_rtt = round_rtt.max(floor);
        let base_rtt_secs = round.base_rtt.max(floor).as_secs_f64();
        let actual_bytes_per_sec = round.actual_bytes_per_sec;
        let start_bytes = self.round_start_cwnd_bytes as f64;
        let end_bytes = start_bytes.max(self.cwnd_bytes as f64);
        let in_transit_bytes = actual_bytes_per_sec * round_rtt.as_secs_f64();
        let window_bytes = match self.sampler.config().expected_window {
            // The paper's cwnd; while the window grew during the round, the
            // part of it that was in transit.
            ExpectedWindow::Cwnd => in_transit_bytes.clamp(start_bytes, end_bytes),
            ExpectedWindow::InTransit => in_transit_bytes.min(end_bytes),
        };
        let expected_bytes_per_sec = window_bytes / base_rtt_secs;
        let diff_bytes = (expected_bytes_per_sec - actual_bytes_per_sec) * base_rtt_secs;
        RoundDiff {
            expected_bytes_per_sec,
            actual_bytes_per_sec,
            diff_pkts: (diff_bytes / self.max_datagram_size as f64).max(0.0),
            pipe_bytes: round
                .max_ack_rate_bytes_per_sec
                .max(actual_bytes_per_sec)
                .max(self.sampler.ack_rate_bytes_per_sec().unwrap_or(0.0))
                * base_rtt_secs,
        }
    }

    /// The pacing cap after a usable round: from congestion-avoidance
    /// rounds Vegas decided on. Slow start and recovery clear it; a drain
    /// paces itself ([`BaseRttProbe`]) and leaves it as it was.
    fn update_pacing_cap(
        &mut self,
        round: &RoundSample,
        round_rtt: Duration,
        phase: Phase,
        action: Action,
        diff_pkts: f64,
    ) {
        let Some(headroom_pkts) = self.config.pacing_headroom_pkts else {
            return;
        };
        if action == Action::BaseRttProbe {
            // The drain paces itself; the rounds before it set the cap
            // again once it is over.
            return;
        }
        if phase != Phase::CongestionAvoidance
            || round.actual_bytes_per_sec <= 0.0
            || round_rtt.is_zero()
        {
            self.clear_pacing_cap();
            // After slow start's exit the sender waits for the overshoot
            // to drain: the first congestion-avoidance round's Actual was
            // 81% of 1 Gbit/s at 200 ms, and the cap, climbing by the
            // headroom from there, held the flow at that for the whole run.
            self.skip_next_delivery = phase != Phase::CongestionAvoidance;
            return;
        }
        // The first round after a drain was sent at the drain's pace: its
        // Actual says nothing of the path either.
        if !std::mem::take(&mut self.skip_next_delivery) {
            self.recent_delivery.rotate_left(1);
            self.recent_delivery[PACING_CAP_ROUNDS - 1] = Some(round.actual_bytes_per_sec);
        }
        let rates = self.recent_delivery.iter().flatten();
        let (sum, count) = rates.fold((0.0, 0.0), |(sum, count), rate| (sum + rate, count + 1.0));
        if count == 0.0 {
            return;
        }
        let delivery_bytes_per_sec = sum / count;
        // A queue beyond beta + 1 packets is one the headroom built (the
        // cap, not the window, set the rate): the cap then steps one packet
        // per round below Actual, Vegas's decrease (Brakmo & Peterson
        // III-B) in rate terms, as a window decrease would not slow a sender
        // the cap holds below its window. The packet above beta is slack for
        // Diff's noise under ACK aggregation, where holding or lowering the
        // cap at beta cost up to 6% utilization (ack-frequency, N = 16,
        // 20 ms aggregation); our choice.
        let step_pkts = if diff_pkts > self.beta_pkts + 1.0 {
            -1.0
        } else {
            headroom_pkts
        };
        let one_pkt_per_round = self.max_datagram_size as f64 / round_rtt.as_secs_f64();
        let mut cap =
            (delivery_bytes_per_sec + step_pkts * one_pkt_per_round).max(one_pkt_per_round);
        // With no queue (Diff below alpha) a round that delivered less than
        // the cap says the sender, not the path, fell short (a late timer,
        // a busy application): the cap stays, or it would follow each
        // shortfall down round after round.
        if diff_pkts < self.alpha_pkts {
            if let Some(previous) = self.pacing_cap_bytes_per_sec {
                cap = cap.max(previous);
            }
            // And on a path that does not hold ACKs, a window above what
            // the round carried says the cap held the sender: the cap moves
            // halfway to the window's rate. Climbing by the headroom alone,
            // one round that delivered less (slow start's exit, a loss)
            // held 1 Gbit/s x 200 ms at 83% for the whole run. At Vegas's
            // equilibrium the window is the pipe plus alpha..beta packets
            // and halfway adds less than the headroom. Where ACKs are held
            // (hold-bounded rounds) the window always looks unused, and
            // halfway brought back the bursts the cap is for (ack-frequency,
            // 20 ms aggregation, N = 16: 0.966 -> 0.944 utilization). A
            // window far above what the round carried ([`STALE_WINDOW_RATIO`])
            // is itself stale, not held back.
            let window_bytes_per_sec = self.cwnd_bytes as f64 / round_rtt.as_secs_f64();
            if !round.hold_bounded
                && window_bytes_per_sec <= STALE_WINDOW_RATIO * delivery_bytes_per_sec
            {
                cap = cap.max((delivery_bytes_per_sec + window_bytes_per_sec) / 2.0);
            }
        }
        self.pacing_cap_bytes_per_sec = Some(cap);
    }

    fn clear_pacing_cap(&mut self) {
        self.recent_delivery = [None; PACING_CAP_ROUNDS];
        self.pacing_cap_bytes_per_sec = None;
    }

    /// Starts, continues or ends a BaseRTT drain ([`BaseRttProbe`]) at the
    /// end of a congestion-avoidance round; true when the round belongs to
    /// the drain (no Vegas decision is made on it).
    fn base_rtt_probe_round(
        &mut self,
        now: Instant,
        round: &RoundSample,
        round_rtt: Duration,
        diff: &RoundDiff,
    ) -> bool {
        if let Some(probe) = &mut self.probe {
            probe.rounds_left -= 1;
            probe.min_round_rtt = probe.min_round_rtt.min(round_rtt);
            if probe.rounds_left == 0 {
                let probe = *probe;
                self.probe = None;
                self.skip_next_delivery = true;
                self.cwnd_bytes = self.cwnd_bytes.max(probe.restore_cwnd_bytes);
                // With the flow's own queue drained, an RTT still more than
                // beta packets above BaseRTT is not a queue it can drain:
                // the path got longer, BaseRTT is stale.
                let queue_pkts = diff.actual_bytes_per_sec
                    * probe
                        .min_round_rtt
                        .saturating_sub(round.base_rtt)
                        .as_secs_f64()
                    / self.max_datagram_size as f64;
                if queue_pkts > self.beta_pkts {
                    self.sampler.reset_base_rtt(now, probe.min_round_rtt);
                }
                self.decrease_streak = 0;
            }
            return true;
        }
        let BaseRttMode::Windowed { window } = self.config.sampler.base_rtt else {
            return false;
        };
        if self.in_slow_start() {
            return false;
        }
        let periodic = self.config.probe_base_rtt
            && self
                .sampler
                .base_rtt_age(now)
                .is_some_and(|age| age >= window / 2)
            && self
                .last_probe
                .is_none_or(|t| now.saturating_duration_since(t) >= window / 2);
        // A drain that found the flow's own queue (after a slow-start
        // overshoot Vegas decreases for many rounds) is not repeated for a
        // quarter window.
        let route_check = self.config.route_change_rounds > 0
            && self.decrease_streak >= self.config.route_change_rounds
            && self
                .last_probe
                .is_none_or(|t| now.saturating_duration_since(t) >= window / 4);
        if !periodic && !route_check {
            return false;
        }
        let drain_bytes = (diff.diff_pkts.ceil() as usize + 1) * self.max_datagram_size;
        let min_bytes = MIN_WINDOW_PKTS * self.max_datagram_size;
        let before = self.cwnd_bytes;
        self.probe = Some(BaseRttProbe {
            restore_cwnd_bytes: before,
            rounds_left: 2,
            min_round_rtt: Duration::MAX,
            pacing_bytes_per_sec: self.config.pacing_headroom_pkts.map(|_| {
                let round_secs = round_rtt.as_secs_f64();
                let drained_bytes_per_sec = drain_bytes as f64 / round_secs;
                let one_pkt_per_round = self.max_datagram_size as f64 / round_secs;
                (diff.actual_bytes_per_sec - drained_bytes_per_sec).max(one_pkt_per_round)
            }),
        });
        self.last_probe = Some(now);
        self.cwnd_bytes = before.saturating_sub(drain_bytes).max(min_bytes);
        self.events.push(ControllerEvent::Reduction {
            now,
            cause: ReductionCause::BaseRttProbe,
            cwnd_before_bytes: before,
            cwnd_after_bytes: self.cwnd_bytes,
            ssthresh_bytes: self.ssthresh_bytes,
        });
        true
    }

    /// Once per round: decide and record the decision.
    fn on_round_end(&mut self, now: Instant, round: &RoundSample) {
        if self.gallop_exit_pending() {
            self.end_gallop_slow_start(now);
        }
        // A drain's rounds count whether or not the drained window was
        // in use (it is paced below the window on purpose).
        if !round.usable && self.probe.is_none() {
            // The window was not in use: nothing to learn, nothing decided.
            self.clear_pacing_cap();
            if self.in_slow_start() {
                self.slow_start_round = SlowStartRound::Hold;
                if let Some(gallop) = &mut self.gallop {
                    gallop.skip_round();
                }
            }
            if let Some(vegas_a) = &mut self.vegas_a {
                vegas_a.forget_actual();
            }
            self.round_start_cwnd_bytes = self.cwnd_bytes;
            return;
        }
        self.select_gamma(round.base_rtt);
        let phase = self.phase();
        let (alpha_pkts, beta_pkts) = (self.alpha_pkts, self.beta_pkts);
        let round_rtt = if self.in_slow_start() {
            round.slow_start_round_rtt
        } else {
            round.round_rtt
        };
        let diff = self.round_diff(round, round_rtt);
        let action = if self.base_rtt_probe_round(now, round, round_rtt, &diff) {
            Action::BaseRttProbe
        } else if self.in_slow_start() {
            self.slow_start_step(now, &diff)
        } else {
            self.congestion_avoidance_round(now, &diff)
        };
        self.update_pacing_cap(round, round_rtt, phase, action, diff.diff_pkts);
        if action == Action::Decrease {
            self.decrease_streak += 1;
        } else {
            self.decrease_streak = 0;
        }
        self.events.push(ControllerEvent::Round(RoundDecision {
            now,
            base_rtt: round.base_rtt,
            round_rtt,
            expected_bytes_per_sec: diff.expected_bytes_per_sec,
            actual_bytes_per_sec: diff.actual_bytes_per_sec,
            diff_pkts: diff.diff_pkts,
            alpha_pkts,
            beta_pkts,
            gamma_pkts: self.gamma_pkts,
            cwnd_before_bytes: self.round_start_cwnd_bytes,
            cwnd_after_bytes: self.cwnd_bytes,
            action,
            phase,
            samples: round.samples,
            bytes_acked: round.bytes_acked,
            rtt_from_hold_bounds: round.hold_bounded,
        }));
        self.round_start_cwnd_bytes = self.cwnd_bytes;
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
        self.restart_gallop(now);
    }

    fn on_app_limited(&mut self, now: Instant, _bytes_in_flight: usize) {
        self.sampler.on_app_limited(now);
    }

    fn on_path_change(&mut self, now: Instant) {
        // RFC 9000 section 9.4: reset the congestion controller.
        self.sampler.on_path_change();
        self.probe = None;
        self.last_probe = None;
        self.decrease_streak = 0;
        self.cwnd_bytes = self.initial_window_bytes();
        self.ssthresh_bytes = usize::MAX;
        let params_changed =
            self.alpha_pkts != self.start_alpha_pkts || self.beta_pkts != self.start_beta_pkts;
        self.alpha_pkts = self.start_alpha_pkts;
        self.beta_pkts = self.start_beta_pkts;
        if let Some(vegas_a) = &mut self.vegas_a {
            vegas_a.reset(self.start_alpha_pkts, self.start_beta_pkts);
        }
        if params_changed {
            self.events.push(ControllerEvent::ParamsChanged {
                now,
                alpha_pkts: self.alpha_pkts,
                beta_pkts: self.beta_pkts,
            });
        }
        // Vanichpun & Feng: gamma is selected again for the new path's BaseRTT.
        self.gamma_pkts = self.config.gamma_pkts;
        self.gamma_choice = None;
        self.round_start_cwnd_bytes = self.cwnd_bytes;
        self.slow_start_round = SlowStartRound::Hold;
        self.first_pkt_after_reduction = None;
        self.recovery_cause = None;
        self.restart_gallop(now);
    }

    fn set_max_datagram_size(&mut self, max_datagram_size: usize) {
        if max_datagram_size == 0 {
            return;
        }
        let max_datagram_size = max_datagram_size.min(crate::MAX_DATAGRAM_SIZE_BYTES);
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
        // Slow start keeps the smoothed RTT: its Diff is judged on the
        // queue a doubling builds (III-C), which pacing a window over the
        // longer credit cycle would hide until the next doubling overflows
        // (measured on the `demo` path: 21 packets lost instead of 0).
        let cycle = self.sampler.credit_cycle();
        // The stack's smoothed RTT takes one sample at 1/8: a frame for
        // packets sent 20 s ago (their ACK frames lost) raised it from 40 ms
        // to 2.5 s and slowed pacing 50-fold. The credit cycle moves at most
        // 1/8 per frame ([`crate::sampler::CREDIT_CYCLE_MAX_STEP`]), so the
        // smoothed RTT counts for at most that many cycles.
        let smoothed_rtt = cycle.map_or(smoothed_rtt, |c| {
            smoothed_rtt.min(c.saturating_mul(crate::sampler::CREDIT_CYCLE_MAX_STEP))
        });
        let period = match (self.config.pacing_period, cycle) {
            (PacingPeriod::CreditCycle, Some(cycle)) if !self.in_slow_start() => {
                cycle.max(smoothed_rtt)
            }
            _ => smoothed_rtt,
        };
        if period.is_zero() {
            return None;
        }
        let mut rate_bytes_per_sec = gain * self.cwnd_bytes as f64 / period.as_secs_f64();
        if let Some(cap) = self.pacing_cap_bytes_per_sec {
            if self.phase() == Phase::CongestionAvoidance {
                rate_bytes_per_sec = rate_bytes_per_sec.min(cap);
            }
        }
        if let Some(drain) = self.probe.and_then(|p| p.pacing_bytes_per_sec) {
            rate_bytes_per_sec = rate_bytes_per_sec.min(drain);
        }
        Some(
            (rate_bytes_per_sec as u64)
                .max(crate::min_pacing_rate_bytes_per_sec(self.max_datagram_size)),
        )
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
    const SECOND: Duration = Duration::from_secs(1);

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
            Harness::in_congestion_avoidance_with(VegasConfig::paper(), cwnd_pkts)
        }

        /// `config` already in congestion avoidance with BaseRTT 100 ms and
        /// a window of `cwnd_pkts` (reached by a +1 round with Diff = 0).
        fn in_congestion_avoidance_with(config: VegasConfig, cwnd_pkts: usize) -> Self {
            let mut h = Harness::new(VegasConfig {
                initial_cwnd_pkts: cwnd_pkts - 1,
                ..config
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

        fn rounds(&mut self, rtts_ms: &[u32]) {
            for &rtt in rtts_ms {
                self.round(rtt * MS);
            }
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

    /// Gallop-Vegas Table 2: Vegas slow start from W_0 = 2 while
    /// Diff stays below gamma: W_i = 2, 2, 4, 4, 8, 8, ... and the increase
    /// z_i = 0, 2, 0, 4, 0, 8, ...
    /// Runs `config` from its initial window through a bottleneck of one
    /// packet per ms behind 100 ms of propagation delay (a pipe of 101
    /// packets with the service time, no buffer limit), every packet
    /// acknowledged, sends ACK-clocked; returns the window when slow start
    /// ends on Diff > gamma and the window before that.
    fn slow_start_exit_windows(config: VegasConfig) -> (f64, f64) {
        let mut cc = Vegas::new(config).unwrap();
        let t0 = Instant::now();
        let (mut now, mut bottleneck_free) = (t0, t0);
        let mut next_pkt_num = 0;
        let mut min_rtt = Duration::MAX;
        // (packet number, sent, ACK arrival)
        let mut in_flight = std::collections::VecDeque::new();
        while now - t0 < 60 * SECOND {
            while (in_flight.len() + 1) * MDS <= cc.cwnd_bytes() {
                let packet = SentPacket {
                    pkt_num: next_pkt_num,
                    time_sent: now,
                    size_bytes: MDS,
                    bytes_in_flight_before: in_flight.len() * MDS,
                    in_flight: true,
                };
                cc.on_packet_sent(now, &packet);
                bottleneck_free = now.max(bottleneck_free) + MS;
                in_flight.push_back((next_pkt_num, now, bottleneck_free + BASE_RTT));
                next_pkt_num += 1;
            }
            let (pkt_num, time_sent, arrival) = in_flight.pop_front().unwrap();
            now = arrival;
            let rtt = now - time_sent;
            min_rtt = min_rtt.min(rtt);
            let cwnd_before = cc.cwnd_bytes() as f64 / MDS as f64;
            let acked = [AckedPacket {
                pkt_num,
                time_sent,
                size_bytes: MDS,
            }];
            cc.on_ack_event(&AckEvent {
                now,
                acked: &acked,
                lost: &[],
                rtt_sample: Some(RttSample {
                    latest_rtt: rtt,
                    ack_delay: Duration::ZERO,
                }),
                min_rtt: Some(min_rtt),
                smoothed_rtt: rtt,
                max_ack_delay: 25 * MS,
                prior_bytes_in_flight: (in_flight.len() + 1) * MDS,
                bytes_in_flight: in_flight.len() * MDS,
                persistent_congestion: false,
            });
            let exited = std::iter::from_fn(|| cc.poll_event()).any(|e| {
                matches!(
                    e,
                    ControllerEvent::SlowStartExit {
                        cause: SlowStartExitCause::DiffAboveGamma,
                        ..
                    }
                )
            });
            if exited {
                return (cwnd_before, cc.cwnd_bytes() as f64 / MDS as f64);
            }
        }
        panic!("slow start did not end");
    }

    #[test]
    fn slow_start_exit_keeps_the_pipe_by_default_and_seven_eighths_in_paper_mode() {
        // Windows 10, 20, 40, 80, 160: the round held at 160 packets sees
        // the 59 packets the doubling queued.
        let (before, pipe) = slow_start_exit_windows(VegasConfig::default());
        assert_eq!(before, 160.0);
        // ACK rate 1 packet/ms x BaseRTT 101 ms, plus one packet.
        assert!((101.5..=102.5).contains(&pipe), "{pipe}");
        let (before, cut) = slow_start_exit_windows(VegasConfig {
            slow_start_exit_window: SlowStartExitWindow::CutEighth,
            ..VegasConfig::default()
        });
        assert_eq!((before, cut), (160.0, 140.0));
        // Never more than the paper's 7/8: an initial burst of 90 packets
        // queues behind itself and ends slow start at once, and the pipe
        // (102 packets) is above 7/8 of 90.
        let (before, small) = slow_start_exit_windows(VegasConfig {
            initial_cwnd_pkts: 90,
            ..VegasConfig::default()
        });
        assert_eq!((before, small), (90.0, 78.75));
    }

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
    fn a_frame_for_packets_sent_20_s_ago_slows_pacing_at_most_2_25_fold() {
        let mut h = Harness::in_congestion_avoidance_with(VegasConfig::default(), 20);
        for _ in 0..10 {
            h.round(BASE_RTT);
        }
        let before = h.cc.pacing_rate_bytes_per_sec(BASE_RTT).unwrap();
        // The peer's ACK frames for one packet were lost for 20 s; the
        // stack's smoothed RTT takes the 20 s sample at 1/8.
        let old = h.send_one();
        h.now += 20 * SECOND;
        h.ack(BASE_RTT, &[old], &[]);
        let smoothed_rtt = (BASE_RTT * 7 + 20 * SECOND) / 8;
        let after = h.cc.pacing_rate_bytes_per_sec(smoothed_rtt).unwrap();
        // The cycle moves by 1/8 at most and the smoothed RTT counts for
        // two cycles at most: 2 x 9/8.
        assert!(
            9 * after >= 4 * before,
            "pacing fell from {before} to {after} B/s (50-fold before the clamps)"
        );
    }

    #[test]
    fn the_pacing_rate_is_never_zero() {
        let mut h = Harness::in_congestion_avoidance_with(VegasConfig::default(), 4);
        h.round(BASE_RTT);
        let floor = crate::min_pacing_rate_bytes_per_sec(MDS);
        for smoothed_rtt in [Duration::from_secs(3_600), Duration::MAX] {
            let rate = h.cc.pacing_rate_bytes_per_sec(smoothed_rtt);
            assert!(rate >= Some(floor), "{rate:?} at {smoothed_rtt:?}");
        }
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
        // Windows whose bytes would overflow are refused, not wrapped.
        assert_eq!(
            bad(with(
                |c| c.initial_cwnd_pkts = crate::MAX_INITIAL_WINDOW_PKTS + 1
            )),
            "initial_cwnd_pkts"
        );
        assert_eq!(
            bad(with(|c| c.initial_cwnd_pkts = usize::MAX)),
            "initial_cwnd_pkts"
        );
        assert_eq!(bad(with(|c| c.max_datagram_size = 0)), "max_datagram_size");
        assert_eq!(
            bad(with(|c| c.max_datagram_size = usize::MAX)),
            "max_datagram_size"
        );
        assert_eq!(bad(with(|c| c.max_datagram_size = 0)), "max_datagram_size");
        assert_eq!(
            bad(with(|c| c.loss_reduction_factor = 1.0)),
            "loss_reduction_factor"
        );
        assert_eq!(bad(with(|c| c.pacing_gain = Some(f64::NAN))), "pacing_gain");
        for headroom in [0.0, -1.0, f64::INFINITY] {
            let config = VegasConfig {
                pacing_headroom_pkts: Some(headroom),
                ..ok
            };
            assert_eq!(bad(config), "pacing_headroom_pkts");
        }
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
        // VEGAS_PACING_GAIN (1.0) * 12000 B / 0.1 s
        assert_eq!(paced.pacing_rate_bytes_per_sec(BASE_RTT), Some(120_000));
        let rfc = Vegas::new(VegasConfig {
            pacing_gain: Some(crate::newreno::PACING_GAIN),
            ..VegasConfig::default()
        })
        .unwrap();
        // RFC 9002 7.7's 1.25 * 12000 B / 0.1 s
        assert_eq!(rfc.pacing_rate_bytes_per_sec(BASE_RTT), Some(150_000));
        let paper = Vegas::new(VegasConfig::paper()).unwrap();
        assert_eq!(paper.pacing_rate_bytes_per_sec(BASE_RTT), None);
    }

    /// The robust defaults with a 2 s BaseRTT window and one sample per
    /// round (the harness acknowledges a whole round with one ACK frame).
    fn windowed(window: Duration) -> VegasConfig {
        let mut c = VegasConfig::default();
        c.sampler.min_round_samples = 1;
        c.sampler.min_round_bytes = 0;
        c.sampler.base_rtt = BaseRttMode::Windowed { window };
        c
    }

    fn probes(events: &[ControllerEvent]) -> Vec<(usize, usize)> {
        events
            .iter()
            .filter_map(|e| match e {
                ControllerEvent::Reduction {
                    cause: ReductionCause::BaseRttProbe,
                    cwnd_before_bytes,
                    cwnd_after_bytes,
                    ..
                } => Some((*cwnd_before_bytes, *cwnd_after_bytes)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn congestion_avoidance_pacing_is_capped_at_recent_actual_plus_headroom() {
        // A pacing gain of 2 would send two windows per credit cycle; the
        // cap holds the sender to the mean Actual of the last two rounds
        // plus 3 packets per round RTT.
        let run = |headroom: Option<f64>| {
            let config = VegasConfig {
                pacing_gain: Some(2.0),
                pacing_headroom_pkts: headroom,
                ..windowed(10 * SECOND)
            };
            let mut h = Harness::in_congestion_avoidance_with(config, 20);
            let decisions: Vec<RoundDecision> = [100, 111]
                .iter()
                .map(|&rtt_ms| {
                    h.round(rtt_ms * MS);
                    h.last_round()
                })
                .collect();
            let rate = h.cc.pacing_rate_bytes_per_sec(BASE_RTT).unwrap() as f64;
            (rate, decisions)
        };
        let (uncapped, _) = run(None);
        let (capped, d) = run(Some(DEFAULT_PACING_HEADROOM_PKTS));
        let mean_actual = (d[0].actual_bytes_per_sec + d[1].actual_bytes_per_sec) / 2.0;
        let cap = mean_actual + 3.0 * MDS as f64 / d[1].round_rtt.as_secs_f64();
        assert!(cap < 0.75 * uncapped, "cap {cap} vs {uncapped}");
        assert!((capped - cap).abs() <= 1.0, "{capped} vs {cap}");
        // Slow start is never capped.
        let start = Vegas::new(VegasConfig {
            pacing_gain: Some(2.0),
            ..VegasConfig::default()
        })
        .unwrap();
        assert_eq!(start.pacing_rate_bytes_per_sec(BASE_RTT), Some(240_000));
    }

    #[test]
    fn a_queue_beyond_beta_plus_one_lowers_the_cap_below_actual() {
        // Diff = 20 * (1 - 100/160) = 7.5 packets > beta + 1: the cap is the
        // mean Actual less one packet per round, so a sender the cap (not
        // its window) holds drains the queue.
        let config = VegasConfig {
            pacing_gain: Some(2.0),
            ..windowed(10 * SECOND)
        };
        let mut h = Harness::in_congestion_avoidance_with(config, 20);
        let d: Vec<RoundDecision> = [100, 160]
            .iter()
            .map(|&rtt_ms| {
                h.round(rtt_ms * MS);
                h.last_round()
            })
            .collect();
        assert!(d[1].diff_pkts > 4.0, "{:?}", d[1]);
        let mean_actual = (d[0].actual_bytes_per_sec + d[1].actual_bytes_per_sec) / 2.0;
        let cap = mean_actual - MDS as f64 / d[1].round_rtt.as_secs_f64();
        let capped = h.cc.pacing_rate_bytes_per_sec(BASE_RTT).unwrap() as f64;
        assert!((capped - cap).abs() <= 1.0, "{capped} vs {cap}");
        // Back within beta + 3 packets: the headroom returns; with no queue
        // the cap does not fall below where it was. The window (20 packets
        // over a 100 ms round) is more than STALE_WINDOW_RATIO times what
        // the rounds carried, so the cap does not move toward it either.
        let previous = h.cc.pacing_cap_bytes_per_sec.unwrap();
        h.round(100 * MS);
        let d2 = h.last_round();
        let mean_actual = (d[1].actual_bytes_per_sec + d2.actual_bytes_per_sec) / 2.0;
        let round_secs = d2.round_rtt.as_secs_f64();
        let headroom_cap = mean_actual + 3.0 * MDS as f64 / round_secs;
        assert!(
            headroom_cap < previous,
            "the round delivered less than the cap"
        );
        let window_rate = d2.cwnd_after_bytes as f64 / round_secs;
        assert!(window_rate > STALE_WINDOW_RATIO * mean_actual);
        let capped = h.cc.pacing_cap_bytes_per_sec.unwrap();
        assert!((capped - previous).abs() <= 1.0, "{capped} vs {previous}");
    }

    #[test]
    fn rtts_below_the_resolution_are_not_a_queue() {
        // A 30 us path whose RTT jumps to 600 us (a late receiver wake-up):
        // as measured, Diff = 20 * (1 - 30/600) = 19 packets, a decrease;
        // with the 1 ms resolution both are 1 ms, Diff 0, an increase.
        let us = Duration::from_micros(1);
        let run = |resolution: Option<Duration>| {
            let mut h = Harness::new(VegasConfig {
                initial_cwnd_pkts: 20,
                rtt_resolution: resolution,
                ..windowed(10 * SECOND)
            });
            h.cc.ssthresh_bytes = h.cc.cwnd_bytes;
            h.round(30 * us);
            h.drain_events();
            h.round(600 * us);
            h.last_round()
        };
        let measured = run(None);
        assert!(measured.diff_pkts > 18.0, "{measured:?}");
        assert_eq!(measured.action, Action::Decrease);
        let floored = run(Some(DEFAULT_RTT_RESOLUTION));
        assert_eq!(floored.diff_pkts, 0.0, "{floored:?}");
        assert_eq!(floored.action, Action::Increase);
        // Above the resolution a queue is a queue: 1 ms -> 1.5 ms.
        let mut h = Harness::new(VegasConfig {
            initial_cwnd_pkts: 20,
            ..windowed(10 * SECOND)
        });
        h.cc.ssthresh_bytes = h.cc.cwnd_bytes;
        h.round(1000 * us);
        h.drain_events();
        h.round(1500 * us);
        assert_eq!(h.last_round().action, Action::Decrease);
    }

    #[test]
    fn a_capped_drain_is_paced_below_actual_and_ends_with_an_unused_window() {
        let mut h = Harness::in_congestion_avoidance_with(windowed(2 * SECOND), 20);
        let queued_rtt = Duration::from_micros(111_111);
        let mut drain = None;
        for _ in 0..20 {
            h.round(queued_rtt);
            let events = h.drain_events();
            if let Some(&(before, after)) = probes(&events).first() {
                let decision = events.iter().find_map(|e| match e {
                    ControllerEvent::Round(d) => Some(*d),
                    _ => None,
                });
                drain = Some(((before - after) / MDS, decision.unwrap()));
                break;
            }
        }
        let (drained_pkts, start) = drain.expect("a drain within 20 rounds");
        assert_eq!(drained_pkts, 3);
        // Actual less the 3 drained packets per round RTT: the window cut
        // alone would not slow a sender the cap keeps below its window.
        let round_secs = start.round_rtt.as_secs_f64();
        let drain_rate = start.actual_bytes_per_sec - 3.0 * MDS as f64 / round_secs;
        let paced = h.cc.pacing_rate_bytes_per_sec(BASE_RTT).unwrap() as f64;
        assert!((paced - drain_rate).abs() <= 1.0, "{paced} vs {drain_rate}");
        // Paced that slowly the sender leaves most of the window unused:
        // the drain's rounds still count, and after two the window and the
        // rate are back.
        for _ in 0..2 {
            let sent: Vec<u64> = (0..5).map(|_| h.send_one()).collect();
            h.ack(BASE_RTT, &sent, &[]);
        }
        assert_eq!(h.cwnd_pkts(), 20.0);
        let after = h.cc.pacing_rate_bytes_per_sec(BASE_RTT).unwrap() as f64;
        assert!(after > drain_rate + MDS as f64, "{after} vs {drain_rate}");
        // The next round was still sent at the drain's pace: its small
        // Actual does not pull the cap down; the one after counts again.
        let before_drain = h.cc.recent_delivery;
        h.drain_events();
        h.round(BASE_RTT);
        assert_eq!(h.last_round().action, Action::Increase);
        assert_eq!(h.cc.recent_delivery, before_drain);
        h.round(BASE_RTT);
        assert_ne!(h.cc.recent_delivery, before_drain);
    }

    #[test]
    fn windowed_base_rtt_is_refreshed_by_a_drain_and_the_window_restored() {
        let mut h = Harness::in_congestion_avoidance_with(windowed(2 * SECOND), 20);
        // 2 packets of standing queue at 20 packets: RTT = 100 ms * 20/18.
        let queued_rtt = Duration::from_micros(111_111);
        let mut events = Vec::new();
        let mut rounds = 0;
        while probes(&events).is_empty() && rounds < 20 {
            h.round(queued_rtt);
            events.extend(h.drain_events());
            rounds += 1;
        }
        // Half a window (1 s, 9 to 10 rounds of 111 ms) after BaseRTT was
        // measured: a drain of ceil(Diff = 2) + 1 = 3 packets.
        assert!((9..=10).contains(&rounds), "{rounds}");
        assert_eq!(probes(&events), vec![(20 * MDS, 17 * MDS)], "{events:?}");
        assert_eq!(h.cwnd_pkts(), 17.0);
        // The drained rounds see the empty queue; after two rounds the
        // window is back where it was, ssthresh untouched.
        h.round(BASE_RTT);
        assert_eq!(h.cwnd_pkts(), 17.0);
        h.round(BASE_RTT);
        assert_eq!(h.cwnd_pkts(), 20.0);
        assert_eq!(h.cc.sampler().base_rtt(), Some(BASE_RTT));
        // No second drain until another half window has passed.
        let mut later = Vec::new();
        for _ in 0..5 {
            h.round(queued_rtt);
            later.extend(h.drain_events());
        }
        assert!(probes(&later).is_empty(), "{later:?}");
    }

    #[test]
    fn a_longer_path_is_detected_and_base_rtt_moves_up() {
        let mut h = Harness::in_congestion_avoidance_with(windowed(10 * SECOND), 20);
        // The propagation delay doubles: every RTT is 200 ms from now on.
        let long = 2 * BASE_RTT;
        let mut events = Vec::new();
        for _ in 0..4 {
            h.round(long);
            events.extend(h.drain_events());
        }
        let decisions: Vec<Action> = events
            .iter()
            .filter_map(|e| match e {
                ControllerEvent::Round(d) => Some(d.action),
                _ => None,
            })
            .collect();
        assert_eq!(decisions, vec![Action::Decrease; 4]);
        // The fifth round starts a drain instead of a fifth decrease.
        h.round(long);
        let drains = probes(&h.drain_events());
        assert_eq!(drains.len(), 1);
        let restore = drains[0].0;
        h.round(long);
        h.round(long);
        h.drain_events();
        // The drain found no lower RTT: BaseRTT is the new path's.
        assert_eq!(h.cc.sampler().base_rtt(), Some(long));
        assert_eq!(h.cc.cwnd_bytes(), restore);
        // With the new BaseRTT and no queue, Vegas grows again.
        h.round(long);
        assert_eq!(h.last_round().action, Action::Increase);
    }

    #[test]
    fn the_papers_base_rtt_never_moves_and_never_drains() {
        let mut h = Harness::in_congestion_avoidance_with(VegasConfig::paper(), 20);
        let mut events = Vec::new();
        for _ in 0..30 {
            h.round(2 * BASE_RTT);
            events.extend(h.drain_events());
        }
        assert!(probes(&events).is_empty());
        assert_eq!(h.cc.sampler().base_rtt(), Some(BASE_RTT));
        // Diff = cwnd (1 - 100/200) stays above beta until cwnd = 2 beta:
        // Vegas settles at 6 packets where the longer path needs 40.
        assert_eq!(h.cwnd_pkts(), 2.0 * 3.0);
    }

    #[test]
    fn default_config_decides_on_the_one_sample_of_a_thinned_peer() {
        let mut h = Harness::new(VegasConfig::default());
        // One ACK frame per 10-packet window: a peer that acknowledges less
        // often than every second packet gives a round one sample, and the
        // round decides on it instead of waiting three RTTs for three (the
        // sampler's tests keep the every-second-packet case at three).
        h.round(BASE_RTT);
        let d = h.last_round();
        assert_eq!(d.samples, 1);
        assert_eq!(d.action, Action::SlowStartHold);
        h.round(BASE_RTT);
        assert_eq!(h.last_round().action, Action::SlowStartGrow);
    }

    // The Vegas family: Gallop-Vegas, Vegas-A, Reno-compatible alpha/beta,
    // selected gamma, names and validation.

    fn gallop_updates(events: &[ControllerEvent]) -> Vec<(f64, f64, u8)> {
        events
            .iter()
            .filter_map(|e| match *e {
                ControllerEvent::GallopUpdate {
                    incr_pkts,
                    maxincr_pkts,
                    status,
                    ..
                } => Some((incr_pkts, maxincr_pkts, status)),
                _ => None,
            })
            .collect()
    }

    fn exit_cause(events: &[ControllerEvent]) -> Option<SlowStartExitCause> {
        events.iter().find_map(|e| match *e {
            ControllerEvent::SlowStartExit { cause, .. } => Some(cause),
            _ => None,
        })
    }

    fn params_changes(events: &[ControllerEvent]) -> Vec<(f64, f64)> {
        events
            .iter()
            .filter_map(|e| match *e {
                ControllerEvent::ParamsChanged {
                    alpha_pkts,
                    beta_pkts,
                    ..
                } => Some((alpha_pkts, beta_pkts)),
                _ => None,
            })
            .collect()
    }

    /// Gallop-Vegas Table 3 / eq. 7: Gallop-Vegas slow start from W_0 = 2 while
    /// Diff stays below gamma: W_i = (i^2 - i + 4) / 2 = 2, 2, 3, 5, 8, 12,
    /// ... and z_i = i; incr = i + 1 after RTT i; every RTT is a growing
    /// one (no held rounds).
    #[test]
    fn seed002_table3_gallop_replay() {
        let mut h = Harness::new(VegasConfig::paper().with_gallop());
        assert_eq!(h.cc.name(), "gallop-vegas");
        let mut windows = Vec::new();
        for i in 0..=11u32 {
            windows.push(h.cwnd_pkts());
            h.round(BASE_RTT);
            let events = h.drain_events();
            let updates = gallop_updates(&events);
            assert_eq!(updates.len(), 1, "one block per RTT");
            let (incr, maxincr, status) = updates[0];
            assert_eq!(incr, f64::from(i + 2), "incr after RTT {i}");
            assert_eq!(maxincr, h.cwnd_pkts(), "maxincr = cwnd");
            assert_eq!(status, 0);
            let round = events.iter().find_map(|e| match e {
                ControllerEvent::Round(d) => Some(*d),
                _ => None,
            });
            let round = round.unwrap();
            assert_eq!(round.action, Action::SlowStartGrow);
            assert_eq!(round.diff_pkts, 0.0);
            assert_eq!(round.phase, Phase::SlowStart);
        }
        let expected: Vec<f64> = (0..=11)
            .map(crate::transient::gallop_rtt_window_pkts)
            .collect();
        assert_eq!(windows, expected);
        assert_eq!(
            windows[..11],
            [2.0, 2.0, 3.0, 5.0, 8.0, 12.0, 17.0, 23.0, 30.0, 38.0, 47.0]
        );
        assert_eq!(h.cc.phase(), Phase::SlowStart);
        assert_eq!(h.cc.ssthresh_bytes(), None);
    }

    #[test]
    fn gallop_cut_above_beta_then_first_congestion_avoidance_round_holds() {
        let mut h = Harness::new(VegasConfig::paper().with_gallop());
        h.rounds(&[100, 100, 100, 100]); // W: 2, 2, 3, 5 -> 8
        assert_eq!(h.cwnd_pkts(), 8.0);
        h.drain_events();
        // W = 8 at 200 ms: Diff = 8 * (1 - 100/200) = 4 >= beta = 3. This
        // RTT's ACKs added z_4 = 4 (cwnd 12): cut 4 + (4 - 3) = 5.
        h.round(200 * MS);
        assert_eq!(h.cwnd_pkts(), 7.0);
        assert_eq!(h.cc.ssthresh_bytes(), Some(7 * MDS));
        assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
        let events = h.drain_events();
        assert_eq!(
            exit_cause(&events),
            Some(SlowStartExitCause::DiffAtLeastBeta)
        );
        assert_eq!(gallop_updates(&events).last().unwrap().2, 2);
        // First congestion-avoidance round: status 2 -> 0, window held even
        // though Diff = 0 < alpha (maxincr is still the 12 of the cut).
        h.round(BASE_RTT);
        assert_eq!(h.cwnd_pkts(), 7.0);
        let events = h.drain_events();
        assert_eq!(gallop_updates(&events), [(5.0, 12.0, 0)]);
        // Then Vegas again.
        h.round(BASE_RTT);
        assert_eq!(h.cwnd_pkts(), 8.0);
        assert_eq!(h.last_round().action, Action::Increase);
    }

    #[test]
    fn gallop_halves_incr_between_gamma_and_beta_and_leaves_one_rtt_after_incr_one() {
        let mut h = Harness::new(VegasConfig::paper().with_gallop());
        h.rounds(&[100, 100, 100, 100]); // cwnd 8, incr 5
        h.drain_events();
        // Diff = 8 * (1 - 100/125) = 1.6 in (gamma, beta), status 0: incr
        // = int(5/2) = 2, status 1. The RTT's z_4 = 4 still lands (cwnd 12).
        h.round(125 * MS);
        assert_eq!(h.cwnd_pkts(), 12.0);
        assert_eq!(gallop_updates(&h.drain_events()), [(2.0, 12.0, 1)]);
        // Diff = 12 * 0.2 = 2.4, status 1 -> 0, incr kept; cwnd + 2.
        h.round(125 * MS);
        assert_eq!(h.cwnd_pkts(), 14.0);
        assert_eq!(gallop_updates(&h.drain_events()), [(2.0, 14.0, 0)]);
        // Diff = 14 * 0.2 = 2.8, status 0: incr = 1 -> ssthresh = 2 (slow
        // start ends after the next RTT), status 1; cwnd + 2.
        h.round(125 * MS);
        assert_eq!(h.cwnd_pkts(), 16.0);
        assert_eq!(gallop_updates(&h.drain_events()), [(1.0, 16.0, 1)]);
        assert_eq!(h.cc.phase(), Phase::SlowStart);
        // The next RTT adds incr = 1, then congestion avoidance decides it
        // (Diff = 0 < alpha: + 1).
        h.round(BASE_RTT);
        assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
        assert_eq!(h.cc.ssthresh_bytes(), Some(17 * MDS));
        assert_eq!(h.cwnd_pkts(), 18.0);
        let events = h.drain_events();
        assert_eq!(
            exit_cause(&events),
            Some(SlowStartExitCause::IncrementAtOne)
        );
        assert!(events.iter().any(|e| matches!(
            e,
            ControllerEvent::Round(RoundDecision {
                action: Action::Increase,
                phase: Phase::CongestionAvoidance,
                ..
            })
        )));
    }

    #[test]
    fn gallop_pto_resets_incr_maxincr_status_and_first_rtt_adds_nothing() {
        let mut h = Harness::new(VegasConfig::paper().with_gallop());
        h.rounds(&[100, 100, 100, 100, 100]); // cwnd 12, incr 6
        h.drain_events();
        h.send_window();
        h.cc.on_pto(h.now);
        // maxincr = 2 (the window), incr = 0, status = 0; the first RTT
        // then adds nothing and incr becomes 1.
        assert_eq!(gallop_updates(&h.drain_events()), [(1.0, 2.0, 0)]);
        let gallop = h.cc.gallop().unwrap();
        assert_eq!((gallop.incr_pkts(), gallop.maxincr_pkts()), (1, 2));
        assert_eq!(gallop.increase().target_bytes(), 0);
        assert_eq!(h.cc.ssthresh_bytes(), Some(6 * MDS));
        // Recovery ends with a probe sent after the PTO.
        let all: Vec<u64> = h.in_flight.iter().map(|p| p.pkt_num).collect();
        let probe = h.send_one();
        let mut acked = all;
        acked.push(probe);
        h.ack(BASE_RTT, &acked, &[]);
        assert_eq!(h.cc.phase(), Phase::SlowStart);
        // Table 3 again from W = 2: 2, 2, 3, 5; the next + 3 is capped at
        // ssthresh = 6, where slow start ends and the round is decided by
        // congestion avoidance (Diff = 0: + 1).
        let mut windows = Vec::new();
        for _ in 0..4 {
            windows.push(h.cwnd_pkts());
            h.round(BASE_RTT);
        }
        assert_eq!(windows, [2.0, 2.0, 3.0, 5.0]);
        assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
        assert_eq!(h.cwnd_pkts(), 7.0);
        let events = h.drain_events();
        assert_eq!(exit_cause(&events), Some(SlowStartExitCause::Ssthresh));
        assert!(events.iter().any(|e| matches!(
            e,
            ControllerEvent::SlowStartExit { cwnd_bytes, .. } if *cwnd_bytes == 6 * MDS
        )));
    }

    #[test]
    fn vegas_a_adapts_alpha_beta_once_per_round_with_params_changed() {
        let config = VegasConfig::paper().with_vegas_a();
        let mut h = Harness::in_congestion_avoidance_with(config, 12);
        assert_eq!(h.cc.name(), "vegas-a");
        // Th(t-rtt) = 11 pkts / 100 ms. 12 pkts at 120 ms: Th = 100 pkt/s
        // fell, Diff = 2 in (1, 3): wait (lines 06-07).
        h.round(120 * MS);
        assert_eq!(h.cwnd_pkts(), 12.0);
        assert_eq!(h.last_round().action, Action::Hold);
        // 110 ms: Th = 109 pkt/s rose, Diff = 1.09 in (1, 3): probe (lines
        // 01-04).
        h.round(110 * MS);
        assert_eq!(h.cwnd_pkts(), 13.0);
        let events = h.drain_events();
        assert_eq!(params_changes(&events), [(2.0, 4.0)]);
        assert!(events.iter().any(|e| matches!(
            e,
            ControllerEvent::Round(RoundDecision {
                action: Action::Increase,
                alpha_pkts,
                beta_pkts,
                ..
            }) if *alpha_pkts == 1.0 && *beta_pkts == 3.0
        )));
        assert_eq!((h.cc.alpha_pkts(), h.cc.beta_pkts()), (2.0, 4.0));
        // 125 ms: Th = 104 fell, Diff = 2.6 in (2, 4): wait.
        h.round(125 * MS);
        assert_eq!(h.cwnd_pkts(), 13.0);
        // 100 ms: Th = 130 rose, Diff = 0 <= alpha: cwnd only (line 12).
        h.round(BASE_RTT);
        assert_eq!(h.cwnd_pkts(), 14.0);
        assert!(params_changes(&h.drain_events()).is_empty());
        // 150 ms: Diff = 4.67 > beta = 4: cwnd, alpha, beta - 1 (20-22).
        h.round(150 * MS);
        assert_eq!(h.cwnd_pkts(), 13.0);
        assert_eq!(params_changes(&h.drain_events()), [(1.0, 3.0)]);
        // At alpha = 1 only cwnd decreases.
        h.round(150 * MS);
        assert_eq!(h.cwnd_pkts(), 12.0);
        assert!(params_changes(&h.drain_events()).is_empty());
        assert_eq!((h.cc.alpha_pkts(), h.cc.beta_pkts()), (1.0, 3.0));
    }

    #[test]
    fn vegas_a_path_change_restores_starting_thresholds() {
        let config = VegasConfig::paper().with_vegas_a();
        let mut h = Harness::in_congestion_avoidance_with(config, 12);
        h.rounds(&[120, 110]);
        assert_eq!(h.cc.alpha_pkts(), 2.0);
        h.drain_events();
        h.cc.on_path_change(h.now);
        assert_eq!((h.cc.alpha_pkts(), h.cc.beta_pkts()), (1.0, 3.0));
        assert_eq!(params_changes(&h.drain_events()), [(1.0, 3.0)]);
        assert_eq!(
            h.cc.vegas_a().unwrap().previous_actual_bytes_per_sec(),
            None
        );
    }

    #[test]
    fn compat_alpha_beta_come_from_buffer_and_flow_counts() {
        // Feng & Vanichpun Fig. 5: B = 10, one flow of each, Approach 1: 3B/7 =
        // 4.28 -> beta 4, alpha 3.
        let config = VegasConfig::paper().with_compat(10.0, 1, 1, CompatApproach::One);
        assert_eq!(config.alpha_beta_pkts(), Ok((3.0, 4.0)));
        let mut h = Harness::in_congestion_avoidance_with(config, 12);
        assert_eq!(h.cc.name(), "vegas-compat");
        assert_eq!((h.cc.alpha_pkts(), h.cc.beta_pkts()), (3.0, 4.0));
        // Diff = 2 < alpha = 3: increase (Vegas's 1/3 would hold).
        h.round(120 * MS);
        assert_eq!(h.cwnd_pkts(), 13.0);
        let d = h.last_round();
        assert_eq!((d.alpha_pkts, d.beta_pkts), (3.0, 4.0));
        // Approach 2, B = 100: 0.4641 B = 46.4 -> 46 / 45 (Table 4).
        let config = VegasConfig::compat(100.0, 1, 1, CompatApproach::Two);
        let cc = Vegas::new(config).unwrap();
        assert_eq!((cc.alpha_pkts(), cc.beta_pkts()), (45.0, 46.0));
        assert_eq!(cc.name(), "vegas-compat");
        // Vegas-A starts from the compat values.
        let cc = Vegas::new(config.with_vegas_a()).unwrap();
        assert_eq!(cc.vegas_a().unwrap().alpha_pkts(), 45.0);
    }

    #[test]
    fn gamma_selected_at_end_of_first_usable_round() {
        // lambda = 5000 pkt/s, d = 100 ms, alpha = 1: W^ = 501 lies in
        // [7/8 * 512, 7/8 * 1024) of 2, 2, 4, 4, ..., so slow start should
        // stop at 512 with Wbar = 384: gamma = floor(384^2 / (4 * 500 +
        // 384)) = 61 (eq. 14).
        let config = VegasConfig::paper().with_selected_gamma(5000.0, GammaApproach::Basic);
        let mut h = Harness::new(config);
        assert_eq!(h.cc.gamma_pkts(), 1.0);
        assert!(h.cc.gamma_choice().is_none());
        h.round(BASE_RTT);
        assert_eq!(h.cc.gamma_pkts(), 61.0);
        assert_eq!(h.last_round().gamma_pkts, 61.0);
        let choice = *h.cc.gamma_choice().unwrap();
        assert_eq!(choice.stop_window_pkts, 512.0);
        assert_eq!(choice.averaged_window_pkts, Some(384.0));
        let schedule = VegasSlowStart::DoublingEveryOtherRound {
            initial_window_pkts: 2.0,
        };
        let direct =
            select_gamma_for_available_rate(GammaApproach::Basic, 5000.0, 0.1, 1.0, schedule)
                .unwrap();
        assert_eq!(choice, direct);
        // A held round with Diff = 3 > 1 but < 61 stays in slow start.
        h.round(BASE_RTT); // grow to 4
        h.drain_events();
        h.round(400 * MS); // Diff = 4 * (1 - 100/400) = 3
        assert_eq!(h.last_round().action, Action::SlowStartHold);
        assert_eq!(h.cc.phase(), Phase::SlowStart);
        // A new path selects again.
        h.cc.on_path_change(h.now);
        assert_eq!(h.cc.gamma_pkts(), 1.0);
        assert!(h.cc.gamma_choice().is_none());
        // Approach 2 (eq. 15): W^ = 801 is in the upper half of
        // [7/8 * 512, 7/8 * 1024) = [448, 896) (split at 672): stop at 1024.
        let config = VegasConfig::paper().with_selected_gamma(8000.0, GammaApproach::Enhanced);
        let mut h = Harness::new(config);
        h.round(BASE_RTT);
        let choice = h.cc.gamma_choice().unwrap();
        assert_eq!(choice.stop_window_pkts, 1024.0);
        assert_eq!(choice.averaged_window_pkts, Some(768.0));
        assert_eq!(
            h.cc.gamma_pkts(),
            (768.0f64 * 768.0 / (3200.0 + 768.0)).floor()
        );
    }

    #[test]
    fn family_names_for_every_combination() {
        let base = VegasConfig::default();
        let compat = |c: VegasConfig| c.with_compat(50.0, 1, 1, CompatApproach::One);
        let cases = [
            (base, "vegas"),
            (base.with_vegas_a(), "vegas-a"),
            (base.with_gallop(), "gallop-vegas"),
            (base.with_gallop().with_vegas_a(), "gallop-vegas-a"),
            (compat(base), "vegas-compat"),
            (compat(base.with_vegas_a()), "vegas-a-compat"),
            (compat(base.with_gallop()), "gallop-vegas-compat"),
            (
                compat(base.with_gallop().with_vegas_a()),
                "gallop-vegas-a-compat",
            ),
            (
                base.with_selected_gamma(1000.0, GammaApproach::Basic),
                "vegas",
            ),
        ];
        for (config, name) in cases {
            assert_eq!(config.family_name(), name);
            assert_eq!(Vegas::new(config).unwrap().name(), name);
        }
        assert_eq!(VegasConfig::vegas_a().family_name(), "vegas-a");
        assert_eq!(VegasConfig::gallop().family_name(), "gallop-vegas");
        assert_eq!(
            VegasConfig::compat(50.0, 2, 3, CompatApproach::Two).family_name(),
            "vegas-compat"
        );
        // Robust constructors keep the defaults; paper_mode() the papers'.
        let gallop = VegasConfig::gallop();
        assert_eq!(gallop.initial_cwnd_pkts, QUIC_INITIAL_WINDOW_PKTS);
        assert_eq!(gallop.sampler, SamplerConfig::default());
        let paper = gallop.paper_mode();
        assert_eq!(paper, VegasConfig::paper().with_gallop());
        assert_eq!(
            VegasConfig::vegas_a().paper_mode(),
            VegasConfig::paper().with_vegas_a()
        );
    }

    #[test]
    fn invalid_family_params_are_rejected_naming_the_field() {
        let bad = |config: VegasConfig| Vegas::new(config).unwrap_err().field;
        let compat = |b: f64, r: u32, v: u32| VegasConfig::compat(b, r, v, CompatApproach::One);
        assert_eq!(bad(compat(-1.0, 1, 1)), "buffer_pkts");
        assert_eq!(bad(compat(f64::NAN, 1, 1)), "buffer_pkts");
        // B = 3: beta = floor(9/7) = 1, alpha = 0: Vegas could never grow.
        assert_eq!(bad(compat(3.0, 1, 1)), "buffer_pkts");
        assert_eq!(bad(compat(50.0, 0, 1)), "reno_flows");
        assert_eq!(bad(compat(50.0, 1, 0)), "vegas_flows");
        let gamma =
            |rate: f64| VegasConfig::default().with_selected_gamma(rate, GammaApproach::Basic);
        assert_eq!(bad(gamma(0.0)), "gamma_rate");
        assert_eq!(bad(gamma(f64::INFINITY)), "gamma_rate");
        assert_eq!(bad(gamma(1000.0).with_gallop()), "gamma_rate");
        assert_eq!("3".parse::<CompatApproach>().unwrap_err().field, "approach");
        assert_eq!(CompatApproach::try_from(0).unwrap_err().field, "approach");
        assert_eq!(
            "three".parse::<GammaApproach>().unwrap_err().field,
            "gamma_approach"
        );
        assert_eq!(
            GammaApproach::try_from(3).unwrap_err().field,
            "gamma_approach"
        );
        for config in [
            VegasConfig::vegas_a(),
            VegasConfig::gallop(),
            compat(50.0, 1, 1),
            gamma(1000.0),
            VegasConfig::paper().with_gallop().with_vegas_a(),
        ] {
            assert!(config.validate().is_ok(), "{config:?}");
        }
    }
}
