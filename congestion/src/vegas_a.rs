//! TCP Vegas-A congestion avoidance: K. N. Srijith, L. Jacob and A. L.
//! Ananda, "TCP Vegas-A: Improving the Performance of TCP Vegas", Computer
//! Communications 2005, section 3.
//!
//! Implemented: the pseudo code of section 3 (lines 01-25). Once per round
//! (RTT) Vegas-A compares Diff with alpha and beta, as Vegas does (Brakmo &
//! Peterson III-B), and the Actual throughput of this round, Th(t), with
//! that of the previous round, Th(t-rtt). alpha and beta start at 1 and 3
//! ("At the start of a connection, alpha is set to 1 and beta to 3"), move
//! together by one packet ("alpha and beta are increased and decreased
//! together to maintain their relationship") and alpha is never lowered
//! below 1 (the `alpha > 1` guards of lines 14 and 21).
//!
//! The pseudo code as this module reads it (numbers as the paper's prose
//! cites them: "line 3", "line 4", "line 15", "lines 20-22"):
//!
//! ```text
//! 01 if beta > diff > alpha {
//! 02   if Th(t) > Th(t-rtt) {                  -> Probe
//! 03     cwnd = cwnd + 1
//! 04     alpha = alpha + 1, beta = beta + 1 }
//! 06   else if Th(t) <= Th(t-rtt) {            -> Wait
//! 07     no update of cwnd, alpha, beta } }
//! 10 else if diff <= alpha {
//! 11   if alpha >= 1 and Th(t) >= Th(t-rtt)    -> IncreaseThroughputHeld
//! 12     cwnd = cwnd + 1
//! 14   else if alpha > 1 and Th(t) < Th(t-rtt) -> Deflate
//! 15     cwnd = cwnd - 1, alpha = alpha - 1, beta = beta - 1
//! 17   else if alpha == 1                      -> IncreaseAtFloor
//! 18     cwnd = cwnd + 1 }
//! 20 else if diff > beta {                     -> Decrease
//! 21   if (alpha > 1) { alpha = alpha - 1, beta = beta - 1 }
//! 22   cwnd = cwnd - 1 }
//! 24 else {                                    -> Steady (diff == beta)
//! 25   no update of cwnd, alpha, beta }
//! ```
//!
//! Interpretation choices (the printed pseudo code lost its indentation
//! and braces, and its line numbers are misaligned with its lines):
//!
//! 1. Branch order of lines 10-19: first match, in the printed order. Line
//!    11 tests `alpha >= 1`, which always holds, so with alpha at its floor
//!    line 12 takes the not-falling throughput and line 18 the falling one:
//!    at the floor cwnd always grows, as in Vegas; above the floor cwnd
//!    grows unless the throughput fell, and then cwnd, alpha and beta all
//!    shrink (line 15). This is what the prose says ("a small value of diff
//!    needs not necessarily imply that the bandwidth utilisation is poor
//!    ... Hence at line 15 the cwnd and inflated alpha and beta have to be
//!    decreased") and what Fig. 4 shows ("This process continues until diff
//!    becomes less than alpha. After that, only cwnd increases"). Testing
//!    `alpha == 1` first, or reading line 11 as `alpha > 1`, gives the same
//!    window and thresholds for every input; only the branch label differs.
//! 2. Lines 20-22 are the outer `else if` of line 10, not a branch nested
//!    in lines 10-19 as the printed indentation suggests (nested it could
//!    never run, since diff <= alpha <= beta there): the prose describes
//!    them as the case "diff is greater than beta".
//! 3. Line 02 is a strict `>` although printed `>=`: line 06 is printed
//!    `<=`, so with `>=` at line 02 the equality would be claimed by both
//!    branches; the prose says "the throughput has been increasing" (line
//!    3) and, for Fig. 3, "when there is a slight improvement in the
//!    throughput ... increases the value of cwnd, alpha and beta". With
//!    `>=` a flow at a saturated bottleneck (constant Th) would raise cwnd,
//!    alpha and beta every RTT without bound, contradicting the bounded
//!    buffer occupancy and the one or two retransmissions of Tables 6-7.
//!    Lines 11 and 14 (`>=` / `<`) already partition and stay as printed.
//!    How exactly Th(t) and Th(t-rtt) are compared is a choice
//!    (`trend_resolution_pkts`): a change counts when
//!    |Th(t) - Th(t-rtt)| x round RTT is more than that many datagrams.
//!    - The paper compares the two rates as computed (0, `mode=paper`). A
//!      held window on a steady path then moves Th only by measurement
//!      noise (bytes per second, ns-2's floating-point RTT means as much as
//!      ours), and the paper's recovery after a route change rests on it:
//!      once Diff is between alpha and beta, "when there is a slight
//!      improvement in the throughput for any particular RTT cycle, the
//!      Vegas-A connection increases the value of cwnd, alpha and beta"
//!      (section 4.1); a window that does not change cannot raise Th
//!      otherwise. The same noise takes line 02 about every other round at
//!      a saturated link, so alpha also rises there (to 68 packets 60 s
//!      after the route change of `vegas-a-reroute`).
//!    - The library's default counts only a change of half a packet per
//!      round or more ([`VEGAS_A_TREND_RESOLUTION_PKTS`], Th to the nearest
//!      packet per round, as ns-2's Vegas rounds Diff, `int(... + 0.5)`):
//!      alpha stays where the path puts it, and a route change is left to
//!      the default's windowed BaseRTT and route-change drain, which find
//!      the new path's BaseRTT; with the paper's lifetime BaseRTT Vegas-A
//!      then stays, as Vegas does, where Diff fell between alpha and beta.
//! 4. Line 10 is `diff <= alpha` as printed (the prose says "below
//!    alpha"); line 01 is strict on both sides, so diff == beta reaches the
//!    final `else` (no update), and diff == alpha lines 10-19.
//! 5. Th is the Actual rate of the round sampler (the paper: "since TCP
//!    Vegas in its present form performs the calculation of the actual
//!    throughput rate, to obtain Th(t-rtt) all that is required is an extra
//!    internal variable"). Th(t-rtt) is the Actual of the previous round the
//!    controller measured, slow-start rounds included. It is unknown at the
//!    start, after a window reduction (loss, timeout) and after a round the
//!    sampler marked unusable; an unknown trend counts as not rising (lines
//!    06-07: no probe without evidence) and not falling (line 12: cwnd + 1,
//!    as Vegas).
//! 6. "alpha never below 1": the floor is 1 packet, or the starting alpha
//!    if that is smaller; alpha (and with it beta) is lowered only when the
//!    result stays at or above the floor, which for the integer values of
//!    the paper is its `alpha > 1`. There is no upper bound (the paper has
//!    none).
//! 7. The cwnd steps of one packet are made by the caller ([`crate::Vegas`])
//!    at the end of the round, as for Vegas.
//! 8. Why line 02 probes, in the paper's words: "the throughput has been
//!    increasing ... diff is decreasing. This is an indication that the
//!    network is not fully saturated and that network bandwidth is still
//!    available". Line 02 tests only the throughput. Where the link is
//!    full and another flow yields, Th rises while Diff (the queue this
//!    flow keeps) grows, and each probe raises alpha further: among three
//!    Vegas-A flows 1 s apart at 20 Mbit/s x 40 ms one flow's alpha rose
//!    from 6 to 15 packets in a second while another flow's window fell
//!    from 24 to 11 packets, and the queue they made read, to the flow
//!    that yielded, as a competitor's ([`crate::vegas::coexist`]).
//!    - The paper tests Th alone (`mode=paper`).
//!    - The library's default also needs Diff to have fallen since the
//!      previous round Vegas-A decided (`probe_needs_falling_diff`); a
//!      round whose previous Diff is unknown (the first after slow start,
//!      a reduction or an unusable round) does not probe. Otherwise the
//!      round waits (lines 06-07). Bandwidth a competitor frees lowers
//!      the RTT, so Diff falls with the rise and the probe goes on.

use std::time::Duration;

use crate::events::Action;

/// Section 3: "At the start of a connection, alpha is set to 1".
pub const VEGAS_A_INITIAL_ALPHA_PKTS: f64 = 1.0;
/// Section 3: "... and beta to 3".
pub const VEGAS_A_INITIAL_BETA_PKTS: f64 = 3.0;
/// Section 3, lines 14 and 21: alpha is only lowered while alpha > 1.
pub const VEGAS_A_ALPHA_FLOOR_PKTS: f64 = 1.0;
/// Section 3, lines 04, 15 and 21: alpha and beta move by one packet.
pub const VEGAS_A_PARAM_STEP_PKTS: f64 = 1.0;
/// Section 3, lines 02, 11 and 14 (interpretation 3), the library's
/// default: Th(t) and Th(t-rtt) differ when they differ by more than half
/// a packet per round (Th to the nearest packet); less is measurement
/// noise. The paper's comparison is exact (0).
pub const VEGAS_A_TREND_RESOLUTION_PKTS: f64 = 0.5;

/// Th(t) against Th(t-rtt).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThroughputTrend {
    /// Th(t) > Th(t-rtt).
    Rising,
    /// Th(t) == Th(t-rtt).
    Flat,
    /// Th(t) < Th(t-rtt).
    Falling,
    /// No previous round to compare with (interpretation 5).
    Unknown,
}

impl ThroughputTrend {
    /// Compares this round's Actual with the previous round's; a change
    /// of `resolution_bytes_per_sec` or less is no change.
    pub fn between(
        previous_bytes_per_sec: Option<f64>,
        current_bytes_per_sec: f64,
        resolution_bytes_per_sec: f64,
    ) -> Self {
        match previous_bytes_per_sec {
            None => ThroughputTrend::Unknown,
            Some(previous) if current_bytes_per_sec - previous > resolution_bytes_per_sec => {
                ThroughputTrend::Rising
            }
            Some(previous) if previous - current_bytes_per_sec > resolution_bytes_per_sec => {
                ThroughputTrend::Falling
            }
            Some(_) => ThroughputTrend::Flat,
        }
    }

    /// The resolution of [`ThroughputTrend::between`] for `resolution_pkts`
    /// datagrams per round (interpretation 3).
    pub fn resolution_bytes_per_sec(
        resolution_pkts: f64,
        round_rtt: Duration,
        max_datagram_size: usize,
    ) -> f64 {
        let round_secs = round_rtt.as_secs_f64();
        if round_secs > 0.0 {
            resolution_pkts * max_datagram_size as f64 / round_secs
        } else {
            0.0
        }
    }

    /// Line 02: Th(t) > Th(t-rtt) (interpretation 3).
    fn rising(self) -> bool {
        self == ThroughputTrend::Rising
    }

    /// Line 14: Th(t) < Th(t-rtt).
    fn falling(self) -> bool {
        self == ThroughputTrend::Falling
    }
}

/// Which branch of the section 3 pseudo code a round took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VegasABranch {
    /// Lines 01-04: alpha < Diff < beta and the throughput rose: cwnd,
    /// alpha and beta + 1.
    Probe,
    /// Lines 06-07: alpha < Diff < beta and the throughput did not rise:
    /// no update.
    Wait,
    /// Lines 10-12: Diff <= alpha and the throughput did not fall: cwnd + 1.
    IncreaseThroughputHeld,
    /// Lines 14-15: Diff <= alpha, alpha > 1 and the throughput fell: cwnd,
    /// alpha and beta - 1.
    Deflate,
    /// Lines 17-18: Diff <= alpha, alpha == 1 (and the throughput fell):
    /// cwnd + 1.
    IncreaseAtFloor,
    /// Lines 20-22: Diff > beta: cwnd - 1, and alpha and beta - 1 if
    /// alpha > 1.
    Decrease,
    /// Lines 24-25: Diff == beta: no update.
    Steady,
}

impl VegasABranch {
    /// The snake_case name of the branch.
    pub fn as_str(self) -> &'static str {
        match self {
            VegasABranch::Probe => "probe",
            VegasABranch::Wait => "wait",
            VegasABranch::IncreaseThroughputHeld => "increase_throughput_held",
            VegasABranch::Deflate => "deflate",
            VegasABranch::IncreaseAtFloor => "increase_at_floor",
            VegasABranch::Decrease => "decrease",
            VegasABranch::Steady => "steady",
        }
    }

    /// What the branch does to cwnd: +1, 0 or -1 packet.
    pub fn window_action(self) -> Action {
        match self {
            VegasABranch::Probe
            | VegasABranch::IncreaseThroughputHeld
            | VegasABranch::IncreaseAtFloor => Action::Increase,
            VegasABranch::Wait | VegasABranch::Steady => Action::Hold,
            VegasABranch::Deflate | VegasABranch::Decrease => Action::Decrease,
        }
    }
}

/// The branch the pseudo code takes for `diff_pkts` against `alpha_pkts`
/// and `beta_pkts`; `alpha_above_floor` is the paper's `alpha > 1`
/// (interpretation 6).
pub fn vegas_a_branch(
    diff_pkts: f64,
    alpha_pkts: f64,
    beta_pkts: f64,
    alpha_above_floor: bool,
    trend: ThroughputTrend,
) -> VegasABranch {
    if beta_pkts > diff_pkts && diff_pkts > alpha_pkts {
        // Lines 01-08.
        if trend.rising() {
            VegasABranch::Probe
        } else {
            VegasABranch::Wait
        }
    } else if diff_pkts <= alpha_pkts {
        // Lines 10-19, first match (interpretation 1).
        if !trend.falling() {
            VegasABranch::IncreaseThroughputHeld
        } else if alpha_above_floor {
            VegasABranch::Deflate
        } else {
            VegasABranch::IncreaseAtFloor
        }
    } else if diff_pkts > beta_pkts {
        // Lines 20-22 (interpretation 2).
        VegasABranch::Decrease
    } else {
        // Lines 24-25.
        VegasABranch::Steady
    }
}

/// What one Vegas-A round decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasAStep {
    /// The branch of the pseudo code taken.
    pub branch: VegasABranch,
    /// Th(t) against Th(t-rtt) in this round.
    pub trend: ThroughputTrend,
    /// cwnd: +1 packet, unchanged or -1 packet.
    pub window: Action,
    /// alpha after the round, in packets.
    pub alpha_pkts: f64,
    /// beta after the round, in packets.
    pub beta_pkts: f64,
    /// alpha and beta changed in this round.
    pub params_changed: bool,
}

/// The adaptive thresholds of Vegas-A and the previous round's throughput.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasA {
    alpha_pkts: f64,
    beta_pkts: f64,
    /// min(1, starting alpha): alpha is never lowered below this.
    alpha_floor_pkts: f64,
    /// Th changes below this many datagrams per round are no change
    /// (interpretation 3; the paper's 0 unless set).
    trend_resolution_pkts: f64,
    /// Th(t-rtt): Actual of the previous round, bytes per second.
    previous_actual_bytes_per_sec: Option<f64>,
    /// Line 02 also needs Diff to have fallen since the previous round
    /// (interpretation 8; the paper's exact line 02 unless set).
    probe_needs_falling_diff: bool,
    /// Diff of the previous round Vegas-A decided, in packets.
    previous_diff_pkts: Option<f64>,
}

impl VegasA {
    /// Starts at `alpha_pkts` / `beta_pkts` (the paper: 1 and 3), Th
    /// compared exactly, as the paper.
    pub fn new(alpha_pkts: f64, beta_pkts: f64) -> Self {
        VegasA {
            alpha_pkts,
            beta_pkts,
            alpha_floor_pkts: VEGAS_A_ALPHA_FLOOR_PKTS.min(alpha_pkts),
            trend_resolution_pkts: 0.0,
            previous_actual_bytes_per_sec: None,
            probe_needs_falling_diff: false,
            previous_diff_pkts: None,
        }
    }

    /// Line 02 probes only while Diff falls as well (interpretation 8).
    pub fn with_probe_needs_falling_diff(self, on: bool) -> Self {
        VegasA {
            probe_needs_falling_diff: on,
            ..self
        }
    }

    /// Th compared to `resolution_pkts` datagrams per round
    /// (interpretation 3).
    pub fn with_trend_resolution(self, resolution_pkts: f64) -> Self {
        VegasA {
            trend_resolution_pkts: resolution_pkts,
            ..self
        }
    }

    /// The paper's start: alpha 1, beta 3.
    pub fn paper() -> Self {
        VegasA::new(VEGAS_A_INITIAL_ALPHA_PKTS, VEGAS_A_INITIAL_BETA_PKTS)
    }

    /// Current alpha, in packets.
    pub fn alpha_pkts(&self) -> f64 {
        self.alpha_pkts
    }

    /// Current beta, in packets.
    pub fn beta_pkts(&self) -> f64 {
        self.beta_pkts
    }

    /// Th(t-rtt), if known.
    pub fn previous_actual_bytes_per_sec(&self) -> Option<f64> {
        self.previous_actual_bytes_per_sec
    }

    /// Back to the starting thresholds (path change); the history is lost.
    pub fn reset(&mut self, alpha_pkts: f64, beta_pkts: f64) {
        *self = VegasA::new(alpha_pkts, beta_pkts)
            .with_trend_resolution(self.trend_resolution_pkts)
            .with_probe_needs_falling_diff(self.probe_needs_falling_diff);
    }

    /// A round Vegas-A does not decide (slow start, a Gallop-Vegas hold):
    /// its Actual becomes Th(t-rtt) for the next round.
    pub fn note_actual(&mut self, actual_bytes_per_sec: f64) {
        self.previous_actual_bytes_per_sec = Some(actual_bytes_per_sec);
        self.previous_diff_pkts = None;
    }

    /// Forgets Th(t-rtt): after a window reduction or an unusable round the
    /// next round has nothing comparable before it (interpretation 5).
    pub fn forget_actual(&mut self) {
        self.previous_actual_bytes_per_sec = None;
        self.previous_diff_pkts = None;
    }

    /// The paper's `alpha > 1` (interpretation 6).
    fn alpha_above_floor(&self) -> bool {
        self.alpha_pkts - VEGAS_A_PARAM_STEP_PKTS >= self.alpha_floor_pkts
    }

    /// One congestion-avoidance round: Diff (packets) and Actual (bytes per
    /// second) of the round that just ended, and its RTT, over which Th is
    /// compared in datagrams of `max_datagram_size` bytes per round
    /// (interpretation 3).
    pub fn on_round(
        &mut self,
        diff_pkts: f64,
        actual_bytes_per_sec: f64,
        round_rtt: Duration,
        max_datagram_size: usize,
    ) -> VegasAStep {
        let trend = ThroughputTrend::between(
            self.previous_actual_bytes_per_sec,
            actual_bytes_per_sec,
            ThroughputTrend::resolution_bytes_per_sec(
                self.trend_resolution_pkts,
                round_rtt,
                max_datagram_size,
            ),
        );
        self.previous_actual_bytes_per_sec = Some(actual_bytes_per_sec);
        let diff_fell = self
            .previous_diff_pkts
            .replace(diff_pkts)
            .is_some_and(|previous| diff_pkts < previous);
        let mut branch = vegas_a_branch(
            diff_pkts,
            self.alpha_pkts,
            self.beta_pkts,
            self.alpha_above_floor(),
            trend,
        );
        if branch == VegasABranch::Probe && self.probe_needs_falling_diff && !diff_fell {
            // Interpretation 8: Th rose while the queue we keep grew, so the
            // link is full and the rise was another flow's yield.
            branch = VegasABranch::Wait;
        }
        let params_changed = match branch {
            // Line 04.
            VegasABranch::Probe => {
                self.alpha_pkts += VEGAS_A_PARAM_STEP_PKTS;
                self.beta_pkts += VEGAS_A_PARAM_STEP_PKTS;
                true
            }
            // Line 15 (the branch is only taken above the floor).
            VegasABranch::Deflate => {
                self.alpha_pkts -= VEGAS_A_PARAM_STEP_PKTS;
                self.beta_pkts -= VEGAS_A_PARAM_STEP_PKTS;
                true
            }
            // Line 21.
            VegasABranch::Decrease if self.alpha_above_floor() => {
                self.alpha_pkts -= VEGAS_A_PARAM_STEP_PKTS;
                self.beta_pkts -= VEGAS_A_PARAM_STEP_PKTS;
                true
            }
            _ => false,
        };
        VegasAStep {
            branch,
            trend,
            window: branch.window_action(),
            alpha_pkts: self.alpha_pkts,
            beta_pkts: self.beta_pkts,
            params_changed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A round of 100 ms with 1200-byte datagrams.
    const RTT: Duration = Duration::from_millis(100);
    const MDS: usize = 1200;

    /// Actual rates in bytes per second of two hand-built rounds.
    const TH_PREV: f64 = 120_000.0;
    const TH_UP: f64 = 130_000.0;
    const TH_DOWN: f64 = 110_000.0;

    /// A pair of rounds: the previous round's Actual, then this round's
    /// Diff and Actual, with Vegas-A at `alpha`/`beta`.
    fn pair(alpha: f64, beta: f64, th_prev: f64, diff: f64, th_now: f64) -> (VegasA, VegasAStep) {
        let mut vegas_a = VegasA::new(alpha, beta);
        vegas_a.note_actual(th_prev);
        let step = vegas_a.on_round(diff, th_now, RTT, MDS);
        (vegas_a, step)
    }

    #[test]
    fn lines_01_04_probe_when_throughput_rises_between_alpha_and_beta() {
        let (vegas_a, step) = pair(1.0, 3.0, TH_PREV, 2.0, TH_UP);
        assert_eq!(step.branch, VegasABranch::Probe);
        assert_eq!(step.trend, ThroughputTrend::Rising);
        assert_eq!(step.window, Action::Increase);
        assert!(step.params_changed);
        assert_eq!((vegas_a.alpha_pkts(), vegas_a.beta_pkts()), (2.0, 4.0));
    }

    /// One flow of three Vegas-A flows at 20 Mbit/s x 40 ms, recorded:
    /// (Diff, Actual, round RTT ms) of each round while another flow
    /// yielded. Th rose in most rounds and Diff with it.
    const FULL_LINK_WHILE_ANOTHER_YIELDS: [(f64, f64, f64); 21] = [
        (6.00, 896_227.0, 48.5),
        (6.13, 919_358.0, 48.5),
        (6.26, 925_926.0, 48.6),
        (7.56, 952_381.0, 50.0),
        (7.91, 963_302.0, 50.3),
        (8.66, 981_309.0, 51.1),
        (9.03, 990_991.0, 51.4),
        (9.37, 1_009_174.0, 51.6),
        (8.97, 1_009_174.0, 51.1),
        (9.17, 1_045_455.0, 51.0),
        (9.59, 1_064_815.0, 51.3),
        (9.64, 1_088_716.0, 51.1),
        (10.01, 1_113_396.0, 51.3),
        (10.14, 1_136_364.0, 51.2),
        (10.91, 1_136_363.0, 52.0),
        (11.40, 1_160_684.0, 52.3),
        (11.56, 1_185_851.0, 52.2),
        (11.88, 1_184_210.0, 52.5),
        (12.43, 1_205_357.0, 52.9),
        (13.10, 1_228_070.0, 53.3),
        (13.62, 1_228_070.0, 53.8),
    ];

    /// Replays recorded rounds from alpha 6 / beta 8 (Th(t-rtt) of the
    /// round before them known): the branches taken and the largest alpha.
    fn replay_rounds(vegas_a: VegasA, rounds: &[(f64, f64, f64)]) -> (Vec<VegasABranch>, f64) {
        let mut vegas_a = vegas_a;
        vegas_a.note_actual(857_143.0);
        let mut peak_alpha = vegas_a.alpha_pkts();
        let branches = rounds
            .iter()
            .map(|&(diff, actual, rtt_ms)| {
                let rtt = Duration::from_secs_f64(rtt_ms / 1e3);
                let step = vegas_a.on_round(diff, actual, rtt, MDS);
                peak_alpha = peak_alpha.max(step.alpha_pkts);
                step.branch
            })
            .collect();
        (branches, peak_alpha)
    }

    #[test]
    fn a_rise_in_throughput_that_grows_diff_probes_only_in_paper_mode() {
        let start = VegasA::new(6.0, 8.0).with_trend_resolution(VEGAS_A_TREND_RESOLUTION_PKTS);
        // Line 02 as printed: alpha climbs with every rise.
        let (_, paper_peak) = replay_rounds(start, &FULL_LINK_WHILE_ANOTHER_YIELDS);
        assert!(paper_peak >= 10.0, "paper: alpha to {paper_peak}");
        // Interpretation 8: Diff grew with Th, so no round probes.
        let (branches, peak) = replay_rounds(
            start.with_probe_needs_falling_diff(true),
            &FULL_LINK_WHILE_ANOTHER_YIELDS,
        );
        assert!(!branches.contains(&VegasABranch::Probe), "{branches:?}");
        assert_eq!(peak, 6.0);
        assert!(branches.contains(&VegasABranch::Wait), "{branches:?}");
    }

    #[test]
    fn freed_bandwidth_still_probes_with_the_diff_check() {
        // A competitor left: the RTT falls, Th rises and Diff falls.
        let mut vegas_a = VegasA::new(2.0, 4.0).with_probe_needs_falling_diff(true);
        vegas_a.note_actual(TH_PREV);
        // The first decided round has no previous Diff: it waits.
        let first = vegas_a.on_round(3.5, TH_UP, RTT, MDS);
        assert_eq!(first.branch, VegasABranch::Wait);
        let step = vegas_a.on_round(3.0, TH_UP + 10_000.0, RTT, MDS);
        assert_eq!(step.branch, VegasABranch::Probe);
        assert_eq!((vegas_a.alpha_pkts(), vegas_a.beta_pkts()), (3.0, 5.0));
        // The check survives a path reset.
        vegas_a.reset(1.0, 3.0);
        vegas_a.note_actual(TH_PREV);
        assert_eq!(
            vegas_a.on_round(2.0, TH_UP, RTT, MDS).branch,
            VegasABranch::Wait
        );
    }

    #[test]
    fn lines_06_07_wait_when_throughput_does_not_rise() {
        for th_now in [TH_PREV, TH_DOWN] {
            let (vegas_a, step) = pair(2.0, 4.0, TH_PREV, 3.0, th_now);
            assert_eq!(step.branch, VegasABranch::Wait, "{th_now}");
            assert_eq!(step.window, Action::Hold);
            assert!(!step.params_changed);
            assert_eq!((vegas_a.alpha_pkts(), vegas_a.beta_pkts()), (2.0, 4.0));
        }
    }

    #[test]
    fn lines_10_12_increase_cwnd_only_when_throughput_held() {
        // Inflated alpha, throughput up or flat: only cwnd grows (Fig. 4).
        for th_now in [TH_UP, TH_PREV] {
            let (vegas_a, step) = pair(4.0, 6.0, TH_PREV, 2.0, th_now);
            assert_eq!(step.branch, VegasABranch::IncreaseThroughputHeld);
            assert_eq!(step.window, Action::Increase);
            assert!(!step.params_changed);
            assert_eq!((vegas_a.alpha_pkts(), vegas_a.beta_pkts()), (4.0, 6.0));
        }
        // Diff == alpha belongs to lines 10-19 (printed `diff <= alpha`).
        let (_, step) = pair(4.0, 6.0, TH_PREV, 4.0, TH_UP);
        assert_eq!(step.branch, VegasABranch::IncreaseThroughputHeld);
    }

    #[test]
    fn lines_14_15_deflate_inflated_alpha_when_throughput_falls() {
        let (vegas_a, step) = pair(4.0, 6.0, TH_PREV, 2.0, TH_DOWN);
        assert_eq!(step.branch, VegasABranch::Deflate);
        assert_eq!(step.trend, ThroughputTrend::Falling);
        assert_eq!(step.window, Action::Decrease);
        assert!(step.params_changed);
        assert_eq!((vegas_a.alpha_pkts(), vegas_a.beta_pkts()), (3.0, 5.0));
    }

    #[test]
    fn lines_17_18_increase_at_alpha_one_even_when_throughput_falls() {
        let (vegas_a, step) = pair(1.0, 3.0, TH_PREV, 0.5, TH_DOWN);
        assert_eq!(step.branch, VegasABranch::IncreaseAtFloor);
        assert_eq!(step.window, Action::Increase);
        assert!(!step.params_changed);
        assert_eq!((vegas_a.alpha_pkts(), vegas_a.beta_pkts()), (1.0, 3.0));
        // With the throughput up, alpha == 1 takes line 12 first.
        let (_, step) = pair(1.0, 3.0, TH_PREV, 0.5, TH_UP);
        assert_eq!(step.branch, VegasABranch::IncreaseThroughputHeld);
    }

    #[test]
    fn lines_20_22_decrease_above_beta_and_lower_alpha_only_above_one() {
        let (vegas_a, step) = pair(3.0, 5.0, TH_PREV, 6.0, TH_UP);
        assert_eq!(step.branch, VegasABranch::Decrease);
        assert_eq!(step.window, Action::Decrease);
        assert!(step.params_changed);
        assert_eq!((vegas_a.alpha_pkts(), vegas_a.beta_pkts()), (2.0, 4.0));
        // At alpha == 1 only cwnd decreases.
        let (vegas_a, step) = pair(1.0, 3.0, TH_PREV, 4.0, TH_DOWN);
        assert_eq!(step.branch, VegasABranch::Decrease);
        assert!(!step.params_changed);
        assert_eq!((vegas_a.alpha_pkts(), vegas_a.beta_pkts()), (1.0, 3.0));
    }

    #[test]
    fn lines_24_25_no_update_at_diff_equal_beta() {
        let (vegas_a, step) = pair(2.0, 4.0, TH_PREV, 4.0, TH_UP);
        assert_eq!(step.branch, VegasABranch::Steady);
        assert_eq!(step.window, Action::Hold);
        assert!(!step.params_changed);
        assert_eq!((vegas_a.alpha_pkts(), vegas_a.beta_pkts()), (2.0, 4.0));
    }

    /// Interpretation 3: at a saturated link Th moves by bytes per second
    /// from round to round. Compared exactly (the paper) that is a rise;
    /// to the nearest packet per round (the default) it is no change
    /// (alpha stays), and a packet more per round is a rise.
    #[test]
    fn throughput_is_compared_exactly_or_to_the_nearest_packet_per_round() {
        let mut exact = VegasA::new(2.0, 4.0);
        exact.note_actual(TH_PREV);
        let step = exact.on_round(3.0, TH_PREV + 1.0, RTT, MDS);
        assert_eq!(step.branch, VegasABranch::Probe);
        assert_eq!(exact.alpha_pkts(), 3.0);

        let one_packet_per_round = MDS as f64 / RTT.as_secs_f64(); // 12 000 B/s
        let mut vegas_a =
            VegasA::new(2.0, 4.0).with_trend_resolution(VEGAS_A_TREND_RESOLUTION_PKTS);
        vegas_a.note_actual(TH_PREV);
        for noise in [1.0, -1.0, 2_000.0, -2_000.0, 5_999.0] {
            let step = vegas_a.on_round(3.0, TH_PREV + noise, RTT, MDS);
            assert_eq!(step.trend, ThroughputTrend::Flat, "{noise}");
            assert_eq!(step.branch, VegasABranch::Wait, "{noise}");
            vegas_a.note_actual(TH_PREV);
        }
        assert_eq!(vegas_a.alpha_pkts(), 2.0);
        let step = vegas_a.on_round(3.0, TH_PREV + one_packet_per_round, RTT, MDS);
        assert_eq!(step.branch, VegasABranch::Probe);
        let step = vegas_a.on_round(1.0, TH_PREV, RTT, MDS);
        assert_eq!(step.trend, ThroughputTrend::Falling);
        // Exactly half a packet per round is no change yet; a longer round
        // makes the same rate change more packets.
        let half = 0.5 * one_packet_per_round;
        assert_eq!(
            ThroughputTrend::between(Some(TH_PREV), TH_PREV + half, half),
            ThroughputTrend::Flat
        );
        assert_eq!(
            ThroughputTrend::resolution_bytes_per_sec(0.5, 2 * RTT, MDS),
            half / 2.0
        );
        assert_eq!(
            ThroughputTrend::resolution_bytes_per_sec(0.5, Duration::ZERO, MDS),
            0.0
        );
        // A path change keeps the resolution.
        vegas_a.reset(1.0, 3.0);
        vegas_a.note_actual(TH_PREV);
        assert_eq!(
            vegas_a.on_round(2.0, TH_PREV + 1.0, RTT, MDS).branch,
            VegasABranch::Wait
        );
    }

    #[test]
    fn unknown_previous_throughput_neither_probes_nor_deflates() {
        let mut vegas_a = VegasA::new(3.0, 5.0);
        let step = vegas_a.on_round(4.0, TH_UP, RTT, MDS);
        assert_eq!(step.trend, ThroughputTrend::Unknown);
        assert_eq!(step.branch, VegasABranch::Wait);
        vegas_a.forget_actual();
        let step = vegas_a.on_round(1.0, TH_DOWN, RTT, MDS);
        assert_eq!(step.branch, VegasABranch::IncreaseThroughputHeld);
        // The round's Actual is remembered for the next comparison.
        assert_eq!(vegas_a.previous_actual_bytes_per_sec(), Some(TH_DOWN));
    }

    #[test]
    fn alpha_never_below_one_and_params_move_together() {
        let mut vegas_a = VegasA::paper();
        vegas_a.note_actual(TH_PREV);
        // Three probes up, then deflate and decrease all the way down.
        let mut th = TH_PREV;
        for _ in 0..3 {
            th += 10_000.0;
            let step = vegas_a.on_round(vegas_a.alpha_pkts() + 1.0, th, RTT, MDS);
            assert_eq!(step.branch, VegasABranch::Probe);
        }
        assert_eq!((vegas_a.alpha_pkts(), vegas_a.beta_pkts()), (4.0, 6.0));
        for _ in 0..10 {
            th -= 10_000.0;
            vegas_a.on_round(100.0, th, RTT, MDS);
            assert!(vegas_a.alpha_pkts() >= 1.0);
            assert_eq!(vegas_a.beta_pkts() - vegas_a.alpha_pkts(), 2.0);
        }
        assert_eq!((vegas_a.alpha_pkts(), vegas_a.beta_pkts()), (1.0, 3.0));
        // A fractional start below 1 is its own floor; 1.5 cannot drop to
        // 0.5.
        let (vegas_a, step) = pair(1.5, 3.0, TH_PREV, 1.0, TH_DOWN);
        assert_eq!(step.branch, VegasABranch::IncreaseAtFloor);
        assert_eq!(vegas_a.alpha_pkts(), 1.5);
        let (vegas_a, _) = pair(0.5, 3.0, TH_PREV, 4.0, TH_DOWN);
        assert_eq!(vegas_a.alpha_pkts(), 0.5);
    }

    #[test]
    fn branch_order_of_lines_10_19_does_not_change_the_outcome() {
        // Interpretation 1: testing `alpha == 1` first gives the same cwnd
        // and thresholds for every input.
        let alternative = |alpha: f64, trend: ThroughputTrend| {
            if alpha - 1.0 < 1.0 {
                Action::Increase
            } else if trend == ThroughputTrend::Falling {
                Action::Decrease
            } else {
                Action::Increase
            }
        };
        for alpha in [1.0, 2.0, 5.0] {
            for trend in [
                ThroughputTrend::Rising,
                ThroughputTrend::Flat,
                ThroughputTrend::Falling,
                ThroughputTrend::Unknown,
            ] {
                let above = alpha - 1.0 >= 1.0;
                let branch = vegas_a_branch(0.5, alpha, alpha + 2.0, above, trend);
                assert_eq!(branch.window_action(), alternative(alpha, trend));
            }
        }
    }
}
