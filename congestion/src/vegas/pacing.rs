//! Pacing (not in the paper, whose Vegas is ACK-clocked): a window per
//! smoothed RTT or credit cycle, capped in congestion avoidance near the
//! recent Actual. [`PacingCap`] owns the cap's state; [`pacing_rate`]
//! composes the rate from what the controller passes in.

use std::time::Duration;

use super::coexist::COMPETITIVE_PACING_GAIN;
use super::config::PacingPeriod;
use super::config::PACING_CAP_ROUNDS;
use super::config::POST_SLOW_START_SKIPPED_ROUNDS;
use super::config::STALE_WINDOW_RATIO;
use crate::events::Action;
use crate::sampler::RoundSample;
use crate::sampler::CREDIT_CYCLE_MAX_STEP;
use crate::types::min_pacing_rate_bytes_per_sec;
use crate::types::Phase;

/// What one decided round tells the pacing cap.
pub(super) struct CapRound<'a> {
    pub(super) round: &'a RoundSample,
    pub(super) round_rtt: Duration,
    /// The phase the round was decided in.
    pub(super) phase: Phase,
    pub(super) action: Action,
    pub(super) diff_pkts: f64,
    pub(super) alpha_pkts: f64,
    pub(super) beta_pkts: f64,
    pub(super) cwnd_bytes: usize,
    pub(super) max_datagram_size: usize,
}

/// The pacing ceiling in congestion avoidance: the mean Actual of the
/// last [`PACING_CAP_ROUNDS`] rounds plus the headroom
/// ([`super::VegasConfig::pacing_headroom_pkts`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct PacingCap {
    /// None: no cap (the key set to `none`).
    headroom_pkts: Option<f64>,
    /// Vegas's slow start doubles every round
    /// ([`super::VegasConfig::doubles_every_round`]).
    doubles_every_round: bool,
    /// Actual of the latest congestion-avoidance rounds, oldest first.
    recent_delivery: [Option<f64>; PACING_CAP_ROUNDS],
    /// The ceiling they give; None: no cap in force.
    cap_bytes_per_sec: Option<f64>,
    /// Rounds whose Actual the cap skips: after a drain's or recovery's
    /// round the next one was sent under that phase's window changes;
    /// after slow start the next two ([`POST_SLOW_START_SKIPPED_ROUNDS`]).
    skip_delivery_rounds: u32,
}

impl PacingCap {
    pub(super) fn new(headroom_pkts: Option<f64>, doubles_every_round: bool) -> Self {
        PacingCap {
            headroom_pkts,
            doubles_every_round,
            recent_delivery: [None; PACING_CAP_ROUNDS],
            cap_bytes_per_sec: None,
            skip_delivery_rounds: 0,
        }
    }

    /// The ceiling in force, in bytes per second.
    pub(super) fn cap_bytes_per_sec(&self) -> Option<f64> {
        self.cap_bytes_per_sec
    }

    /// Actual of the rounds the cap is made of, oldest first.
    #[cfg(test)]
    pub(super) fn recent_delivery(&self) -> [Option<f64>; PACING_CAP_ROUNDS] {
        self.recent_delivery
    }

    /// Forgets the rounds and the ceiling (slow start, recovery, a return
    /// to Vegas).
    pub(super) fn clear(&mut self) {
        self.recent_delivery = [None; PACING_CAP_ROUNDS];
        self.cap_bytes_per_sec = None;
    }

    /// The next round was sent under another phase's window (a drain's
    /// end, a return from competitive mode): its Actual is skipped.
    pub(super) fn skip_next_round(&mut self) {
        self.skip_delivery_rounds = 1;
    }

    /// The cap after a usable round: from congestion-avoidance rounds
    /// Vegas decided on. Slow start and recovery clear it; a drain paces
    /// itself and leaves it as it was.
    pub(super) fn on_round(&mut self, r: &CapRound<'_>) {
        let Some(headroom_pkts) = self.headroom_pkts else {
            return;
        };
        if r.action == Action::BaseRttProbe {
            // The drain paces itself; the rounds before it set the cap
            // again once it is over.
            return;
        }
        if r.phase != Phase::CongestionAvoidance
            || r.round.actual_bytes_per_sec <= 0.0
            || r.round_rtt.is_zero()
        {
            self.clear();
            // After slow start's exit the sender waits for the overshoot
            // to drain, so the first congestion-avoidance round's Actual is
            // low and a cap climbing from it holds the flow there (measured:
            // docs/constants.md, `vegas::POST_SLOW_START_SKIPPED_ROUNDS`).
            self.skip_delivery_rounds = match r.phase {
                Phase::SlowStart if self.doubles_every_round => POST_SLOW_START_SKIPPED_ROUNDS,
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
            self.recent_delivery[PACING_CAP_ROUNDS - 1] = Some(r.round.actual_bytes_per_sec);
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
        // cap at beta costs utilization; our choice. Measured:
        // docs/constants.md, `vegas::VegasConfig::pacing_headroom_pkts`.
        let step_pkts = if r.diff_pkts > r.beta_pkts + 1.0 {
            -1.0
        } else {
            headroom_pkts
        };
        let one_pkt_per_round = r.max_datagram_size as f64 / r.round_rtt.as_secs_f64();
        let mut cap =
            (delivery_bytes_per_sec + step_pkts * one_pkt_per_round).max(one_pkt_per_round);
        // With no queue (Diff below alpha) a round that delivered less than
        // the cap says the sender, not the path, fell short (a late timer,
        // a busy application): the cap stays, or it would follow each
        // shortfall down round after round.
        if r.diff_pkts < r.alpha_pkts {
            if let Some(previous) = self.cap_bytes_per_sec {
                cap = cap.max(previous);
            }
            // And on a path that does not hold ACKs, a window above what
            // the round carried says the cap held the sender: the cap moves
            // halfway to the window's rate: climbing by the headroom alone,
            // one round that delivered less (slow start's exit, a loss)
            // holds the flow below the path. At Vegas's equilibrium the
            // window is the pipe plus alpha..beta packets and halfway adds
            // less than the headroom. Where ACKs are held (hold-bounded
            // rounds) the window always looks unused, and halfway brings
            // back the bursts the cap is for. A window far above what the
            // round carried ([`STALE_WINDOW_RATIO`]) is itself stale, not
            // held back. Measured: docs/constants.md, `vegas::STALE_WINDOW_RATIO`.
            let window_bytes_per_sec = r.cwnd_bytes as f64 / r.round_rtt.as_secs_f64();
            if !r.round.hold_bounded
                && window_bytes_per_sec <= STALE_WINDOW_RATIO * delivery_bytes_per_sec
            {
                cap = cap.max((delivery_bytes_per_sec + window_bytes_per_sec) / 2.0);
            }
        }
        self.cap_bytes_per_sec = Some(cap);
    }
}

/// What the pacing rate is made of, as the controller has it now.
pub(super) struct RateInputs {
    /// [`super::VegasConfig::pacing_gain`] (pacing is on).
    pub(super) gain: f64,
    /// In competitive mode and not testing its return: pace as CUBIC.
    pub(super) competitive: bool,
    pub(super) cwnd_bytes: usize,
    pub(super) max_datagram_size: usize,
    /// The sampler's credit cycle, if it has one.
    pub(super) credit_cycle: Option<Duration>,
    pub(super) pacing_period: PacingPeriod,
    pub(super) in_slow_start: bool,
    /// The pacing cap, applied in congestion avoidance only.
    pub(super) cap_bytes_per_sec: Option<f64>,
    pub(super) in_congestion_avoidance: bool,
    /// A BaseRTT drain's own pace.
    pub(super) drain_bytes_per_sec: Option<f64>,
}

/// The pacing rate ([`crate::Controller::pacing_rate_bytes_per_sec`]).
pub(super) fn pacing_rate(smoothed_rtt: Duration, i: &RateInputs) -> Option<u64> {
    let min_rate = min_pacing_rate_bytes_per_sec(i.max_datagram_size);
    if i.competitive && !smoothed_rtt.is_zero() {
        // Competitive mode paces as RFC 9002 7.7 (a CUBIC window).
        let rate = COMPETITIVE_PACING_GAIN * i.cwnd_bytes as f64 / smoothed_rtt.as_secs_f64();
        return Some((rate as u64).max(min_rate));
    }
    // Slow start keeps the smoothed RTT: its Diff is judged on the
    // queue a doubling builds (III-C), which pacing a window over the
    // longer credit cycle would hide until the next doubling overflows
    // (measured: docs/constants.md, `vegas::PacingPeriod::CreditCycle`).
    // The stack's smoothed RTT takes one sample at 1/8: a frame for
    // packets sent long ago (their ACK frames lost) can raise it
    // many-fold and slow pacing as much (measured: docs/constants.md,
    // `sampler::CREDIT_CYCLE_MAX_STEP`). The credit cycle moves at most
    // 1/8 per frame ([`CREDIT_CYCLE_MAX_STEP`]), so the smoothed RTT
    // counts for at most that many cycles.
    let smoothed_rtt = i.credit_cycle.map_or(smoothed_rtt, |c| {
        smoothed_rtt.min(c.saturating_mul(CREDIT_CYCLE_MAX_STEP))
    });
    let period = match (i.pacing_period, i.credit_cycle) {
        (PacingPeriod::CreditCycle, Some(cycle)) if !i.in_slow_start => cycle.max(smoothed_rtt),
        _ => smoothed_rtt,
    };
    if period.is_zero() {
        return None;
    }
    let mut rate_bytes_per_sec = i.gain * i.cwnd_bytes as f64 / period.as_secs_f64();
    if let Some(cap) = i.cap_bytes_per_sec {
        if i.in_congestion_avoidance {
            rate_bytes_per_sec = rate_bytes_per_sec.min(cap);
        }
    }
    if let Some(drain) = i.drain_bytes_per_sec {
        rate_bytes_per_sec = rate_bytes_per_sec.min(drain);
    }
    Some((rate_bytes_per_sec as u64).max(min_rate))
}
