//! BaseRTT drains and the route-change check: how a windowed BaseRTT
//! stays the path's propagation delay (not in the paper, whose BaseRTT is
//! the minimum ever seen). [`BaseRttDrain`] owns the drain's state and
//! tells the controller what to do with the window; the controller applies
//! it (`Vegas::drain_round`).

use std::time::Duration;
use std::time::Instant;

use super::RoundDiff;
use crate::events::Action;

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
pub(super) struct BaseRttProbe {
    pub(super) restore_cwnd_bytes: usize,
    pub(super) rounds_left: u8,
    /// Smallest round RTT seen during the drain.
    pub(super) min_round_rtt: Duration,
    /// With a pacing cap ([`super::VegasConfig::pacing_headroom_pkts`]): the
    /// drain is paced at Actual less the drained bytes per round RTT (at
    /// least one packet per round), so it empties the queue even while
    /// the cap, not the window, set the sending rate.
    pub(super) pacing_bytes_per_sec: Option<f64>,
    /// Actual of the round before the drain: the rate the restored window
    /// sends at, at which a path that got longer is measured.
    pub(super) actual_before_bytes_per_sec: f64,
    /// A route check's drain: the window before the decreases that
    /// started it, restored if the path turns out longer (those decreases
    /// read the longer path as queue).
    pub(super) window_before_decreases_bytes: Option<usize>,
}

/// What the drain makes of a congestion-avoidance round.
#[derive(Clone, Copy, Debug)]
pub(super) enum DrainRound {
    /// No drain: the round gets a Vegas decision.
    Decide,
    /// A round of the drain in progress: no decision.
    Draining,
    /// A drain starts: the window drops to `cwnd_bytes` for two rounds.
    Started { cwnd_bytes: usize },
    /// The drain's last round: the window comes back, and the drain's
    /// RTTs judge BaseRTT ([`BaseRttProbe::queue_left_pkts`]).
    Ended(BaseRttProbe),
}

/// What the controller knows when the drain looks at a round.
pub(super) struct DrainInputs {
    /// The windowed BaseRTT's window; None: a lifetime BaseRTT (no drains).
    pub(super) base_rtt_window: Option<Duration>,
    /// How long ago the BaseRTT sample was taken.
    pub(super) base_rtt_age: Option<Duration>,
    pub(super) in_slow_start: bool,
    /// [`super::VegasConfig::probe_base_rtt`]: periodic drains.
    pub(super) periodic_drains: bool,
    /// [`super::VegasConfig::route_change_rounds`]: decreases in a row that
    /// start a route check (0: never).
    pub(super) route_change_rounds: u32,
    /// Drains are paced ([`super::VegasConfig::pacing_headroom_pkts`] set).
    pub(super) paced: bool,
    pub(super) cwnd_bytes: usize,
    pub(super) min_window_bytes: usize,
    pub(super) max_datagram_size: usize,
}

/// The BaseRTT drains and the route-change check, with their state.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct BaseRttDrain {
    /// The drain in progress, if any.
    probe: Option<BaseRttProbe>,
    /// When the last drain started (or competitive mode handed back).
    last_probe: Option<Instant>,
    /// Consecutive congestion-avoidance decreases.
    decrease_streak: u32,
    /// The window before the first of them: what a route check that finds
    /// a longer path gives back.
    decrease_streak_start_cwnd_bytes: usize,
}

impl BaseRttProbe {
    /// The queue the drain still saw, in packets: its smallest round RTT
    /// above `base_rtt`, counted at the rate before the drain (the drained
    /// rounds send less on purpose; with `fair_share` the decreases before
    /// the drain already halved the window) or at `actual_bytes_per_sec`
    /// if higher.
    pub(super) fn queue_left_pkts(
        &self,
        actual_bytes_per_sec: f64,
        base_rtt: Duration,
        max_datagram_size: usize,
    ) -> f64 {
        actual_bytes_per_sec.max(self.actual_before_bytes_per_sec)
            * self.min_round_rtt.saturating_sub(base_rtt).as_secs_f64()
            / max_datagram_size as f64
    }
}

impl BaseRttDrain {
    /// A drain is in progress.
    pub(super) fn in_progress(&self) -> bool {
        self.probe.is_some()
    }

    /// The drain's own pace, if one is in progress.
    pub(super) fn pacing_bytes_per_sec(&self) -> Option<f64> {
        self.probe.and_then(|p| p.pacing_bytes_per_sec)
    }

    /// A loss, PTO or persistent congestion ends a drain: the reduced
    /// window is not restored.
    pub(super) fn abandon(&mut self) {
        self.probe = None;
    }

    /// Competitive mode starts: no drain, no streak.
    pub(super) fn stop(&mut self) {
        self.probe = None;
        self.decrease_streak = 0;
    }

    /// Competitive mode handed back with a fresh BaseRTT at `now`: it
    /// counts as a drain.
    pub(super) fn drained_at(&mut self, now: Instant) {
        self.last_probe = Some(now);
        self.decrease_streak = 0;
    }

    /// The path changed: forget the drains.
    pub(super) fn reset(&mut self) {
        self.probe = None;
        self.last_probe = None;
        self.decrease_streak = 0;
    }

    /// A decided round's action: decreases in a row start a route check;
    /// `round_start_cwnd_bytes` is the window the round started with.
    pub(super) fn on_decision(&mut self, action: Action, round_start_cwnd_bytes: usize) {
        if action == Action::Decrease {
            if self.decrease_streak == 0 {
                self.decrease_streak_start_cwnd_bytes = round_start_cwnd_bytes;
            }
            self.decrease_streak += 1;
        } else {
            self.decrease_streak = 0;
        }
    }

    /// Starts, continues or ends a drain ([`BaseRttProbe`]) at the end of
    /// a congestion-avoidance round.
    pub(super) fn on_round(
        &mut self,
        now: Instant,
        round_rtt: Duration,
        diff: &RoundDiff,
        i: &DrainInputs,
    ) -> DrainRound {
        if let Some(probe) = &mut self.probe {
            probe.rounds_left -= 1;
            probe.min_round_rtt = probe.min_round_rtt.min(round_rtt);
            if probe.rounds_left == 0 {
                let probe = *probe;
                self.probe = None;
                self.decrease_streak = 0;
                return DrainRound::Ended(probe);
            }
            return DrainRound::Draining;
        }
        let Some(window) = i.base_rtt_window else {
            return DrainRound::Decide;
        };
        if i.in_slow_start {
            return DrainRound::Decide;
        }
        let periodic = i.periodic_drains
            && i.base_rtt_age.is_some_and(|age| age >= window / 2)
            && self
                .last_probe
                .is_none_or(|t| now.saturating_duration_since(t) >= window / 2);
        // A drain that found the flow's own queue (after a slow-start
        // overshoot Vegas decreases for many rounds) is not repeated for a
        // quarter window.
        let route_check = i.route_change_rounds > 0
            && self.decrease_streak >= i.route_change_rounds
            && self
                .last_probe
                .is_none_or(|t| now.saturating_duration_since(t) >= window / 4);
        if !periodic && !route_check {
            return DrainRound::Decide;
        }
        let drain_bytes = (diff.diff_pkts.ceil() as usize + 1) * i.max_datagram_size;
        let before = i.cwnd_bytes;
        self.probe = Some(BaseRttProbe {
            restore_cwnd_bytes: before,
            rounds_left: 2,
            min_round_rtt: Duration::MAX,
            actual_before_bytes_per_sec: diff.actual_bytes_per_sec,
            window_before_decreases_bytes: route_check
                .then_some(self.decrease_streak_start_cwnd_bytes),
            pacing_bytes_per_sec: i.paced.then(|| {
                let round_secs = round_rtt.as_secs_f64();
                let drained_bytes_per_sec = drain_bytes as f64 / round_secs;
                let one_pkt_per_round = i.max_datagram_size as f64 / round_secs;
                (diff.actual_bytes_per_sec - drained_bytes_per_sec).max(one_pkt_per_round)
            }),
        });
        self.last_probe = Some(now);
        DrainRound::Started {
            cwnd_bytes: before.saturating_sub(drain_bytes).max(i.min_window_bytes),
        }
    }
}
