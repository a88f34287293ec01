//! Congestion avoidance (Brakmo & Peterson III-B): Expected, Actual and
//! Diff of a round, the alpha/beta step, and Vegas-A and the gamma
//! selection in their places.

use std::time::Duration;
use std::time::Instant;

use crate::RoundSample;

use super::coexist;
use super::fair_share;
use super::paper;
use super::select_gamma_for_available_rate;
use super::Action;
use super::Avoidance;
use super::ExpectedWindow;
use super::RoundDiff;
use super::SlowStart;
use super::Vegas;
use super::VegasSlowStart;

impl Vegas {
    // Congestion avoidance (III-B).

    /// End of a congestion-avoidance round: Gallop-Vegas's hold after a
    /// status-2 exit, then Vegas or Vegas-A.
    pub(super) fn congestion_avoidance_round(&mut self, now: Instant, diff: &RoundDiff) -> Action {
        if let SlowStart::Gallop(gallop) = &mut self.slow_start {
            // "if (status != 2) do the motion of original Vegas else
            // status = 0".
            if gallop.on_congestion_avoidance_round() {
                let update = gallop.event(now);
                self.record_gallop_update(update);
                if let Avoidance::VegasA(vegas_a) = &mut self.avoidance {
                    vegas_a.note_actual(diff.actual_bytes_per_sec);
                }
                return Action::Hold;
            }
        }
        if matches!(self.avoidance, Avoidance::VegasA(_)) {
            self.vegas_a_step(now, diff)
        } else {
            self.congestion_avoidance_step(now, diff)
        }
    }

    /// End of a Vegas-A congestion-avoidance round (Vegas-A section 3,
    /// [`VegasA::on_round`]).
    pub(super) fn vegas_a_step(&mut self, now: Instant, diff: &RoundDiff) -> Action {
        let Avoidance::VegasA(vegas_a) = &mut self.avoidance else {
            return Action::Hold;
        };
        // The band the round was judged by (the step may move it).
        let (alpha_pkts, beta_pkts) = (vegas_a.alpha_pkts(), vegas_a.beta_pkts());
        let step = vegas_a.on_round(
            diff.diff_pkts,
            diff.actual_bytes_per_sec,
            diff.round_rtt,
            self.window.max_datagram_size,
        );
        // Vegas-A holds inside its band: moving toward the band's middle
        // would change Actual every round, which Vegas-A reads as a rise in
        // throughput and answers by raising alpha and beta (to 4 and 6
        // packets in a 5-packet buffer: losses). Its decreases are
        // `fair_share`'s.
        if step.window != Action::Hold {
            self.apply_avoidance_step(now, step.window, diff, alpha_pkts, beta_pkts);
        }
        if step.params_changed {
            self.band.alpha_pkts = step.alpha_pkts;
            self.band.beta_pkts = step.beta_pkts;
            self.record_params_changed(now);
        }
        step.window
    }

    /// Vanichpun & Feng gamma selection at the end of every measured
    /// slow-start round of a path, once BaseRTT is known (module
    /// documentation).
    pub(super) fn select_gamma(&mut self, base_rtt: Duration) {
        let Some(rate_pkts_per_sec) = self.config.gamma_rate_pkts_per_sec else {
            return;
        };
        if self.band.gamma_choice.is_some() && !self.in_slow_start() {
            return;
        }
        // Vanichpun & Feng section IV-B: the slow-start windows W_i "can be
        // determined based upon the knowledge of W_1", doubling every other
        // round. The rule is applied to the windows this connection really
        // produces from the round that just ended: W_1 is that round's
        // window. In QUIC the handshake's packets are acknowledged in the
        // first rounds and grow the window by their bytes (2 -> 3.1
        // packets in paper mode), so the windows are 3.1 * 2^k, not the
        // 2 * 2^k of the initial window; selecting again each round keeps
        // the stop window one the window really reaches.
        let schedule = VegasSlowStart::DoublingEveryOtherRound {
            initial_window_pkts: self.round_start_cwnd_bytes as f64
                / self.window.max_datagram_size as f64,
        };
        // Eq. 12 (W^ = lambda d + alpha) and eq. 14 / 15; cannot fail for a
        // validated config and a positive BaseRTT.
        if let Ok(choice) = select_gamma_for_available_rate(
            self.config.gamma_approach,
            rate_pkts_per_sec,
            base_rtt.as_secs_f64(),
            self.band.alpha_pkts,
            schedule,
        ) {
            self.band.gamma_pkts = choice.gamma_pkts;
            self.band.gamma_choice = Some(choice);
        }
    }

    /// End of a congestion-avoidance round: +1 packet below alpha, -1 packet
    /// above beta, unchanged in between (with `fair_share`, toward the
    /// band's middle: [`fair_share`]).
    pub(super) fn congestion_avoidance_step(&mut self, now: Instant, diff: &RoundDiff) -> Action {
        let action =
            paper::avoidance_step(diff.diff_pkts, self.band.alpha_pkts, self.band.beta_pkts);
        self.apply_avoidance_step(now, action, diff, self.band.alpha_pkts, self.band.beta_pkts);
        action
    }

    /// Moves the window by a congestion-avoidance step: the paper's one
    /// packet, or with `fair_share` FAST TCP's update toward the middle of
    /// the band Diff was judged by ([`fair_share::window_change_pkts`]).
    fn apply_avoidance_step(
        &mut self,
        now: Instant,
        action: Action,
        diff: &RoundDiff,
        alpha_pkts: f64,
        beta_pkts: f64,
    ) {
        let (diff_pkts, round_rtt) = (diff.diff_pkts, diff.round_rtt);
        let datagram_bytes = self.window.max_datagram_size as f64;
        // Just back from competitive mode the paper's steps apply: the
        // competitor may still be there (a return test can meet the trough
        // after its reduction), and halving the excess would hand it our
        // window in a few rounds before the next evidence switches back
        // (vegas against cubic over the coexistence grid: mean share 0.41
        // with fair_share there, 0.45 without).
        let fair_share = self.config.fair_share && !self.coexist.just_returned(now);
        let change_pkts = if fair_share {
            let deep_queue = self.sampler.base_rtt().is_some_and(|base_rtt| {
                round_rtt.saturating_sub(base_rtt).as_secs_f64()
                    > coexist::QUEUE_FRACTION * base_rtt.as_secs_f64()
            });
            fair_share::window_change_pkts(action, diff_pkts, alpha_pkts, beta_pkts, deep_queue)
        } else {
            paper::avoidance_step_pkts(action)
        };
        let change_bytes = (change_pkts * datagram_bytes).round() as isize;
        if change_bytes >= 0 {
            self.window.cwnd_bytes += change_bytes as usize;
        } else {
            self.lower_cwnd(
                self.window
                    .cwnd_bytes
                    .saturating_sub(change_bytes.unsigned_abs()),
            );
        }
    }

    /// The smoothed per-frame rate as a reading of the bottleneck's rate
    /// for the exit's pipe ([`super::SlowStartExitWindow::Pipe`]), 0 when it
    /// reads nothing: its guard (a frame no faster than its packets were
    /// sent) bounds clumped frames only while the packets left no faster
    /// than the bottleneck serves them, and an every-round doubling sends
    /// at twice its rate. Through `vegas-link-emu` at 100 Mbit/s x 200 ms
    /// it read 3.2x the link at the exit, which kept 1.6 pipes (a standing
    /// queue of 400 datagrams over a 4 s transfer); the fastest frame rate
    /// read 1.14x and Actual 1.00x. Measured: docs/constants.md,
    /// `vegas::SlowStartGrowth::EveryRound`.
    fn smoothed_frame_rate_for_the_pipe(&self) -> f64 {
        if self.config.doubles_every_round() {
            return 0.0;
        }
        self.sampler.sent_ack_rate_bytes_per_sec().unwrap_or(0.0)
    }

    /// Expected, Actual and Diff of a finished round (III-B). Expected's
    /// window is the bytes in transit, Actual times the round's RTT, within
    /// [window at the round start, window now] (module documentation):
    /// the window at the round start unless the window grew in the round.
    pub(super) fn round_diff(&self, round: &RoundSample, round_rtt: Duration) -> RoundDiff {
        let floor = self.config.rtt_resolution.unwrap_or(Duration::ZERO);
        let round_rtt = round_rtt.max(floor);
        let base_rtt_secs = round.base_rtt.max(floor).as_secs_f64();
        let actual_bytes_per_sec = round.actual_bytes_per_sec;
        let start_bytes = self.round_start_cwnd_bytes as f64;
        let end_bytes = start_bytes.max(self.window.cwnd_bytes as f64);
        let in_transit_bytes = actual_bytes_per_sec * round_rtt.as_secs_f64();
        let window_bytes = match self.config.expected_window {
            // The paper's cwnd; while the window grew during the round, the
            // part of it that was in transit.
            ExpectedWindow::Cwnd => in_transit_bytes.clamp(start_bytes, end_bytes),
            ExpectedWindow::InTransit => in_transit_bytes.min(end_bytes),
        };
        let expected_bytes_per_sec = paper::expected_rate(window_bytes, base_rtt_secs);
        let diff_pkts = paper::diff_pkts(
            expected_bytes_per_sec,
            actual_bytes_per_sec,
            base_rtt_secs,
            self.window.max_datagram_size,
        );
        RoundDiff {
            expected_bytes_per_sec,
            actual_bytes_per_sec,
            diff_pkts: if self.config.round_diff {
                paper::rounded_diff_pkts(diff_pkts)
            } else {
                diff_pkts
            },
            round_rtt,
            pipe_bytes: round
                .max_ack_rate_bytes_per_sec
                .max(actual_bytes_per_sec)
                .max(self.smoothed_frame_rate_for_the_pipe())
                * base_rtt_secs,
        }
    }
}
