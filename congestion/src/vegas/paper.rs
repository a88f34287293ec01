//! The paper's Vegas on one screen: Brakmo & Peterson, "TCP Vegas: End to
//! End Congestion Avoidance on a Global Internet", section III, as pure
//! functions of what a round measured. The rest of `vegas/` decides when
//! they apply and with which measurements (the round, BaseRTT and Actual
//! come from the sampler; Expected's window is explained in `mod.rs`).
//!
//! | rule | paper | here |
//! |---|---|---|
//! | Expected = WindowSize / BaseRTT | III-B | [`expected_rate`] |
//! | Diff = (Expected - Actual) x BaseRTT, in buffers | III-B | [`diff_pkts`] (ns-2's whole packets: [`rounded_diff_pkts`]) |
//! | Diff < alpha: +1; Diff > beta: -1; else hold | III-B | [`avoidance_step`] |
//! | slow start doubles every other RTT; leaves when Diff > gamma | III-C | [`slow_start_step`], [`growing_round_limit_bytes`] |
//! | leaving slow start cuts the window by 1/8 | III-C (as Gallop-Vegas II and Vanichpun & Feng state it) | [`exit_window_bytes`] |
//! | a loss decreases the window only if the packet was sent after the last decrease | III-A | [`loss_counts`] |

use crate::events::Action;

use super::config::SLOW_START_EXIT_CUT_DIVISOR;

/// Which kind of slow-start round is in progress (III-C).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStartRound {
    /// The window is held so Expected and Actual can be compared.
    Hold,
    /// The window grows by the bytes acknowledged.
    Grow,
}

/// III-B: Expected = WindowSize / BaseRTT, in bytes per second.
pub fn expected_rate(window_bytes: f64, base_rtt_secs: f64) -> f64 {
    window_bytes / base_rtt_secs
}

/// III-B: Diff = (Expected - Actual) x BaseRTT, in packets of
/// `max_datagram_size` ("extra buffers"); never negative ("by definition,
/// Diff is non-negative").
pub fn diff_pkts(
    expected_bytes_per_sec: f64,
    actual_bytes_per_sec: f64,
    base_rtt_secs: f64,
    max_datagram_size: usize,
) -> f64 {
    let diff_bytes = (expected_bytes_per_sec - actual_bytes_per_sec) * base_rtt_secs;
    (diff_bytes / max_datagram_size as f64).max(0.0)
}

/// Diff to the nearest whole packet, as ns-2's Vegas agent (`tcp-vegas.cc`:
/// `delta = int((expect - v_actual_) * v_baseRTT_ + 0.5)`) compares it: the
/// simulator of Srijith et al., Ho, Chan & Chen, Feng & Vanichpun and
/// Vanichpun & Feng. With alpha = 1 and beta = 3 the window then grows
/// only below Diff 0.5 and falls only from 3.5. Brakmo & Peterson III-B
/// compare Diff as computed ([`diff_pkts`]).
pub fn rounded_diff_pkts(diff_pkts: f64) -> f64 {
    (diff_pkts + 0.5).floor()
}

/// III-B: once per round, one packet more below alpha, one less above
/// beta, the same in between.
pub fn avoidance_step(diff_pkts: f64, alpha_pkts: f64, beta_pkts: f64) -> Action {
    if diff_pkts < alpha_pkts {
        Action::Increase
    } else if diff_pkts > beta_pkts {
        Action::Decrease
    } else {
        Action::Hold
    }
}

/// III-B: the window change of a step, in packets: +1, -1 or 0 per round.
pub fn avoidance_step_pkts(action: Action) -> f64 {
    match action {
        Action::Increase => 1.0,
        Action::Decrease => -1.0,
        _ => 0.0,
    }
}

/// III-C: the end of a slow-start round, and the kind of the next one. A
/// growing round is followed by a held one; a held round compares Expected
/// and Actual and either leaves slow start (Diff > gamma) or lets the next
/// round grow.
pub fn slow_start_step(
    round: SlowStartRound,
    diff_pkts: f64,
    gamma_pkts: f64,
) -> (Action, SlowStartRound) {
    match round {
        SlowStartRound::Grow => (Action::SlowStartGrow, SlowStartRound::Hold),
        SlowStartRound::Hold if diff_pkts > gamma_pkts => {
            (Action::SlowStartExit, SlowStartRound::Hold)
        }
        SlowStartRound::Hold => (Action::SlowStartHold, SlowStartRound::Grow),
    }
}

/// III-C: in a growing round the window grows by the bytes acknowledged,
/// up to twice its size at the round start (and never past ssthresh).
pub fn growing_round_limit_bytes(round_start_cwnd_bytes: usize, ssthresh_bytes: usize) -> usize {
    round_start_cwnd_bytes.saturating_mul(2).min(ssthresh_bytes)
}

/// III-C: leaving slow start, the window is cut by 1/8.
pub fn exit_window_bytes(cwnd_bytes: usize) -> usize {
    cwnd_bytes - cwnd_bytes / SLOW_START_EXIT_CUT_DIVISOR
}

/// III-A: a loss decreases the window only if the lost packet was sent
/// after the last decrease (`first_pkt_after_reduction`; None: none yet).
pub fn loss_counts(pkt_num: u64, first_pkt_after_reduction: Option<u64>) -> bool {
    first_pkt_after_reduction.is_none_or(|first| pkt_num >= first)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-2's `int(x + 0.5)` of a non-negative Diff.
    #[test]
    fn ns2_rounds_diff_to_the_nearest_packet() {
        for (diff, rounded) in [
            (0.0, 0.0),
            (0.49, 0.0),
            (0.5, 1.0),
            (2.94, 3.0),
            (3.49, 3.0),
            (3.5, 4.0),
        ] {
            assert_eq!(rounded_diff_pkts(diff), rounded, "{diff}");
        }
        // So at alpha 1, beta 3: Diff 3.4 holds, where the exact 3.4 falls.
        assert_eq!(
            avoidance_step(rounded_diff_pkts(3.4), 1.0, 3.0),
            Action::Hold
        );
        assert_eq!(avoidance_step(3.4, 1.0, 3.0), Action::Decrease);
        assert_eq!(
            avoidance_step(rounded_diff_pkts(0.6), 1.0, 3.0),
            Action::Hold
        );
    }

    /// III-B's example thresholds: alpha = 1, beta = 3 buffers.
    #[test]
    fn avoidance_keeps_diff_between_alpha_and_beta() {
        assert_eq!(avoidance_step(0.5, 1.0, 3.0), Action::Increase);
        assert_eq!(avoidance_step(1.0, 1.0, 3.0), Action::Hold);
        assert_eq!(avoidance_step(3.0, 1.0, 3.0), Action::Hold);
        assert_eq!(avoidance_step(3.5, 1.0, 3.0), Action::Decrease);
    }

    /// 100 packets of 1000 bytes over a 100 ms BaseRTT: Expected 1 MB/s;
    /// an Actual of 0.96 MB/s leaves 4 packets queued.
    #[test]
    fn diff_is_extra_buffers_and_never_negative() {
        let expected = expected_rate(100_000.0, 0.1);
        assert_eq!(expected, 1_000_000.0);
        assert!((diff_pkts(expected, 960_000.0, 0.1, 1000) - 4.0).abs() < 1e-9);
        assert_eq!(diff_pkts(expected, 1_100_000.0, 0.1, 1000), 0.0);
    }

    /// Grow, hold, grow, hold ... until a held round's Diff exceeds gamma.
    #[test]
    fn slow_start_doubles_every_other_round_and_leaves_above_gamma() {
        use SlowStartRound::*;
        assert_eq!(
            slow_start_step(Grow, 5.0, 1.0),
            (Action::SlowStartGrow, Hold)
        );
        assert_eq!(
            slow_start_step(Hold, 0.5, 1.0),
            (Action::SlowStartHold, Grow)
        );
        assert_eq!(
            slow_start_step(Hold, 1.5, 1.0),
            (Action::SlowStartExit, Hold)
        );
        assert_eq!(growing_round_limit_bytes(4000, usize::MAX), 8000);
        assert_eq!(growing_round_limit_bytes(4000, 6000), 6000);
        assert_eq!(exit_window_bytes(16_000), 14_000);
    }

    #[test]
    fn only_losses_sent_after_the_last_decrease_count() {
        assert!(loss_counts(3, None));
        assert!(!loss_counts(9, Some(10)));
        assert!(loss_counts(10, Some(10)));
    }
}
