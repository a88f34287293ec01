//! Pacing (not in the paper, whose Vegas is ACK-clocked): a window per
//! smoothed RTT or credit cycle, capped in congestion avoidance near the
//! recent Actual.

use super::*;

impl Vegas {
    /// The pacing cap after a usable round: from congestion-avoidance
    /// rounds Vegas decided on. Slow start and recovery clear it; a drain
    /// paces itself ([`BaseRttProbe`]) and leaves it as it was.
    pub(super) fn update_pacing_cap(
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
            self.skip_delivery_rounds = match phase {
                Phase::SlowStart
                    if self.config.slow_start_growth == SlowStartGrowth::EveryRound =>
                {
                    POST_SLOW_START_SKIPPED_ROUNDS
                }
                Phase::SlowStart | Phase::Recovery => 1,
                Phase::CongestionAvoidance => 0,
            };
            return;
        }
        // The first round after a drain was sent at the drain's pace: its
        // Actual says nothing of the path either.
        if self.skip_delivery_rounds > 0 {
            self.skip_delivery_rounds -= 1;
        } else {
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
        let one_pkt_per_round = self.window.max_datagram_size as f64 / round_rtt.as_secs_f64();
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
            let window_bytes_per_sec = self.window.cwnd_bytes as f64 / round_rtt.as_secs_f64();
            if !round.hold_bounded
                && window_bytes_per_sec <= STALE_WINDOW_RATIO * delivery_bytes_per_sec
            {
                cap = cap.max((delivery_bytes_per_sec + window_bytes_per_sec) / 2.0);
            }
        }
        self.pacing_cap_bytes_per_sec = Some(cap);
    }

    pub(super) fn clear_pacing_cap(&mut self) {
        self.recent_delivery = [None; PACING_CAP_ROUNDS];
        self.pacing_cap_bytes_per_sec = None;
    }

    /// The pacing rate ([`Controller::pacing_rate_bytes_per_sec`]).
    pub(super) fn pacing_rate(&self, smoothed_rtt: Duration) -> Option<u64> {
        let gain = self.config.pacing_gain?;
        if self.coexist.mode() == CoexistMode::Competitive
            && !self.coexist.testing()
            && !smoothed_rtt.is_zero()
        {
            // Competitive mode paces as RFC 9002 7.7 (a CUBIC window).
            let rate = coexist::COMPETITIVE_PACING_GAIN * self.window.cwnd_bytes as f64
                / smoothed_rtt.as_secs_f64();
            return Some(
                (rate as u64).max(crate::types::min_pacing_rate_bytes_per_sec(
                    self.window.max_datagram_size,
                )),
            );
        }
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
        let mut rate_bytes_per_sec = gain * self.window.cwnd_bytes as f64 / period.as_secs_f64();
        if let Some(cap) = self.pacing_cap_bytes_per_sec {
            if self.phase() == Phase::CongestionAvoidance {
                rate_bytes_per_sec = rate_bytes_per_sec.min(cap);
            }
        }
        if let Some(drain) = self.probe.and_then(|p| p.pacing_bytes_per_sec) {
            rate_bytes_per_sec = rate_bytes_per_sec.min(drain);
        }
        Some(
            (rate_bytes_per_sec as u64).max(crate::types::min_pacing_rate_bytes_per_sec(
                self.window.max_datagram_size,
            )),
        )
    }
}
