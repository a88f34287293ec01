//! BaseRTT drains and the route-change check: how a windowed BaseRTT
//! stays the path's propagation delay (not in the paper, whose BaseRTT is
//! the minimum ever seen).

use super::*;

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
    /// With a pacing cap ([`VegasConfig::pacing_headroom_pkts`]): the
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

impl Vegas {
    /// Starts, continues or ends a BaseRTT drain ([`BaseRttProbe`]) at the
    /// end of a congestion-avoidance round; true when the round belongs to
    /// the drain (no Vegas decision is made on it).
    pub(super) fn base_rtt_probe_round(
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
                self.pacing_cap.skip_next_round();
                self.window.cwnd_bytes = self.window.cwnd_bytes.max(probe.restore_cwnd_bytes);
                // With the flow's own queue drained, an RTT still more than
                // beta packets above BaseRTT is not a queue it can drain:
                // the path got longer, BaseRTT is stale. The packets are
                // counted at the rate before the drain (the drained rounds
                // send less on purpose; with `fair_share` the decreases
                // before the drain already halved the window).
                let queue_pkts = diff
                    .actual_bytes_per_sec
                    .max(probe.actual_before_bytes_per_sec)
                    * probe
                        .min_round_rtt
                        .saturating_sub(round.base_rtt)
                        .as_secs_f64()
                    / self.window.max_datagram_size as f64;
                if queue_pkts > self.beta_pkts {
                    self.sampler.reset_base_rtt(now, probe.min_round_rtt);
                    if let Some(before) = probe.window_before_decreases_bytes {
                        self.window.cwnd_bytes = self.window.cwnd_bytes.max(before);
                    }
                } else if queue_pkts <= (self.alpha_pkts + self.beta_pkts) / 2.0 {
                    // What is left is no more than the middle of the band at
                    // our rate: other family flows' queue (each holds about
                    // that much, [`super::fair_share`]), which one flow's
                    // drain cannot empty. The drain confirms BaseRTT: kept
                    // as measured now, so the windowed minimum does not
                    // slide up to include that queue, flow after flow (ten
                    // flows: 40.1 -> 43.3 ms in 30 s, the queue 17 -> 50
                    // packets). A path longer by less than that is missed:
                    // the flow then keeps less than the middle queued, never
                    // less than the pipe.
                    if let Some(base_rtt) = self.sampler.base_rtt() {
                        self.sampler.reset_base_rtt(now, base_rtt);
                    }
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
        let drain_bytes = (diff.diff_pkts.ceil() as usize + 1) * self.window.max_datagram_size;
        let min_bytes = self.window.min_window_bytes();
        let before = self.window.cwnd_bytes;
        self.probe = Some(BaseRttProbe {
            restore_cwnd_bytes: before,
            rounds_left: 2,
            min_round_rtt: Duration::MAX,
            actual_before_bytes_per_sec: diff.actual_bytes_per_sec,
            window_before_decreases_bytes: route_check
                .then_some(self.decrease_streak_start_cwnd_bytes),
            pacing_bytes_per_sec: self.config.pacing_headroom_pkts.map(|_| {
                let round_secs = round_rtt.as_secs_f64();
                let drained_bytes_per_sec = drain_bytes as f64 / round_secs;
                let one_pkt_per_round = self.window.max_datagram_size as f64 / round_secs;
                (diff.actual_bytes_per_sec - drained_bytes_per_sec).max(one_pkt_per_round)
            }),
        });
        self.last_probe = Some(now);
        self.window.cwnd_bytes = before.saturating_sub(drain_bytes).max(min_bytes);
        self.record_reduction(now, ReductionCause::BaseRttProbe, before);
        true
    }
}
