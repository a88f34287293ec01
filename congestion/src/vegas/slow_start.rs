//! Modified slow start (Brakmo & Peterson III-C), and Gallop-Vegas slow
//! start in its place ([`crate::gallop`]).

use std::time::Duration;
use std::time::Instant;

use crate::AckEvent;
use crate::SlowStartExitWindow;
use crate::SlowStartGrowth;

use super::paper;
use super::Action;
use super::Avoidance;
use super::GallopStep;
use super::RoundDiff;
use super::SlowStart;
use super::SlowStartExitCause;
use super::SlowStartRound;
use super::Vegas;

impl Vegas {
    // Modified slow start (III-C).

    /// Per ACK in slow start: a growing round adds the bytes acknowledged,
    /// up to twice the window at the round start and up to ssthresh.
    ///
    /// Gallop-Vegas instead adds this ACK's share of the RTT's increment
    /// (Gallop-Vegas III-B), up to ssthresh.
    pub(super) fn slow_start_on_ack(&mut self, now: Instant, acked_bytes: usize) {
        let (grow_bytes, limit_bytes) = match &mut self.slow_start {
            SlowStart::Gallop(gallop) => (gallop.on_ack(acked_bytes), self.window.ssthresh_bytes),
            SlowStart::Vegas(SlowStartRound::Grow) => (
                acked_bytes,
                paper::growing_round_limit_bytes(
                    self.round_start_cwnd_bytes,
                    self.window.ssthresh_bytes,
                ),
            ),
            SlowStart::Vegas(SlowStartRound::Hold) => return,
        };
        if grow_bytes == 0 {
            return;
        }
        self.window.cwnd_bytes = self
            .window
            .cwnd_bytes
            .saturating_add(grow_bytes)
            .min(limit_bytes)
            .max(self.window.cwnd_bytes);
        if !self.in_slow_start() {
            if let SlowStart::Gallop(gallop) = &mut self.slow_start {
                gallop.on_slow_start_exit();
            }
            self.record_slow_start_exit(now, SlowStartExitCause::Ssthresh, self.window.cwnd_bytes);
        }
    }

    /// Every-round slow start: the window stops growing for the rest of
    /// the round once the last RTT samples say the flow queues more than
    /// beta packets ([`QueueWatch`]); the round's end then judges Diff
    /// against gamma.
    ///
    /// Beta, not gamma: a flow joining a shared link reads the others'
    /// queue swings (its BaseRTT holds their standing queue) as its own,
    /// and one packet of that stopped its rounds early. The joiners then
    /// left slow start without the queue spike whose drain lets every flow
    /// see the path's floor; their BaseRTTs stayed 0.3-3 ms high, later
    /// drains read the standing queue as a longer path, and ten flows
    /// joining 1 s apart took about 20 s to share evenly (measured:
    /// docs/constants.md, `vegas::SlowStartGrowth::EveryRound`).
    pub(super) fn watch_queue_in_slow_start(&mut self, event: &AckEvent<'_>) {
        if self.config.slow_start_growth != SlowStartGrowth::EveryRound
            || !matches!(self.slow_start, SlowStart::Vegas(SlowStartRound::Grow))
            || self.round_carries_initial_burst()
            || event.rtt_sample.is_none()
        {
            return;
        }
        let (Some(rtt), Some(base_rtt)) = (self.sampler.latest_rtt(), self.sampler.base_rtt())
        else {
            return;
        };
        self.queue_watch.on_rtt_sample(rtt);
        let noise = if self.sampler.config().subtract_delay_noise {
            self.sampler.delay_noise().unwrap_or(Duration::ZERO)
        } else {
            Duration::ZERO
        };
        let window_pkts = self.round_start_cwnd_bytes as f64 / self.window.max_datagram_size as f64;
        if self
            .queue_watch
            .queued_pkts(base_rtt, noise, window_pkts)
            .is_some_and(|queued| queued > self.band.beta_pkts)
        {
            self.slow_start = SlowStart::Vegas(SlowStartRound::Hold);
        }
    }

    /// End of a slow-start round: after a growing round the next is held;
    /// after a held round Diff decides between growing and leaving slow
    /// start with a 1/8 cut.
    pub(super) fn slow_start_step(&mut self, now: Instant, diff: &RoundDiff) -> Action {
        if let Avoidance::VegasA(vegas_a) = &mut self.avoidance {
            // Th(t-rtt) for the first congestion-avoidance round.
            vegas_a.note_actual(diff.actual_bytes_per_sec);
        }
        let SlowStart::Vegas(round) = self.slow_start else {
            return self.gallop_slow_start_step(now, diff);
        };
        let (action, next_round) = match (self.config.slow_start_growth, round) {
            (SlowStartGrowth::EveryRound, SlowStartRound::Grow) => {
                // A growing round is judged as a held one, and the next one
                // grows again; but not while its ACKs are for the initial
                // window, which leaves as one burst and queues behind
                // itself (measured: docs/constants.md,
                // `vegas::SlowStartGrowth::EveryRound`).
                let judged = !self.round_carries_initial_burst();
                match paper::slow_start_step(
                    SlowStartRound::Hold,
                    diff.diff_pkts,
                    self.band.gamma_pkts,
                ) {
                    (Action::SlowStartExit, next) if judged => (Action::SlowStartExit, next),
                    _ => (Action::SlowStartGrow, SlowStartRound::Grow),
                }
            }
            (_, SlowStartRound::Hold)
            | (SlowStartGrowth::EveryOtherRound, SlowStartRound::Grow) => {
                paper::slow_start_step(round, diff.diff_pkts, self.band.gamma_pkts)
            }
        };
        self.slow_start = SlowStart::Vegas(next_round);
        if action == Action::SlowStartExit {
            // A later slow start (after a timeout) watches its own samples.
            self.queue_watch.clear();
            let reached_bytes = self.window.cwnd_bytes;
            let cut_bytes = paper::exit_window_bytes(reached_bytes);
            let exit_bytes = self.at_most_the_pipe(cut_bytes, diff);
            self.lower_cwnd(exit_bytes);
            if self.config.exit_recheck {
                self.pipe_recheck.arm(exit_bytes, cut_bytes);
            }
            self.reduction.first_pkt_after = Some(self.next_pkt_num());
            self.record_slow_start_exit(now, SlowStartExitCause::DiffAboveGamma, reached_bytes);
        }
        action
    }

    /// The round in progress started at no more than the initial window:
    /// its ACKs are for packets a stack sends as one burst.
    fn round_carries_initial_burst(&self) -> bool {
        self.round_start_cwnd_bytes <= self.config.initial_cwnd_pkts * self.window.max_datagram_size
    }

    /// A slow-start exit window, lowered to the pipe plus one packet with
    /// [`SlowStartExitWindow::Pipe`].
    pub(super) fn at_most_the_pipe(&self, exit_bytes: usize, diff: &RoundDiff) -> usize {
        match self.config.slow_start_exit_window {
            SlowStartExitWindow::CutEighth => exit_bytes,
            SlowStartExitWindow::Pipe => {
                exit_bytes.min(diff.pipe_bytes as usize + self.window.max_datagram_size)
            }
        }
    }

    /// The first congestion-avoidance round after an exit that kept the
    /// pipe: the window raised to the pipe read again
    /// ([`super::pipe_recheck`]); None when nothing was raised (the round
    /// is then decided as any other).
    pub(super) fn recheck_round(&mut self, diff: &RoundDiff) -> Option<Action> {
        let raised_bytes = self.pipe_recheck.on_round(
            self.window.cwnd_bytes,
            diff.pipe_bytes,
            self.window.max_datagram_size,
        )?;
        self.window.cwnd_bytes = raised_bytes;
        if let Avoidance::VegasA(vegas_a) = &mut self.avoidance {
            // Th(t-rtt) for the next round, as a decided round leaves it
            // (forgetting it instead gave the same ten-flow runs).
            vegas_a.note_actual(diff.actual_bytes_per_sec);
        }
        Some(Action::PipeRecheck)
    }

    /// End of a Gallop-Vegas slow-start round: the block of Gallop-Vegas III-C
    /// ([`GallopSlowStart::on_round`]).
    pub(super) fn gallop_slow_start_step(&mut self, now: Instant, diff: &RoundDiff) -> Action {
        let SlowStart::Gallop(gallop) = &mut self.slow_start else {
            return Action::SlowStartHold;
        };
        let step = gallop.on_round(
            self.window.cwnd_bytes,
            self.window.max_datagram_size,
            diff.diff_pkts,
            self.band.gamma_pkts,
            self.band.beta_pkts,
        );
        let update = gallop.event(now);
        if let GallopStep::Cut { .. } = step {
            gallop.on_slow_start_exit();
        }
        self.record_gallop_update(update);
        match step {
            GallopStep::Grow { .. } => Action::SlowStartGrow,
            GallopStep::Cut { cut_bytes } => {
                // cwnd -= (last increment + Delta - beta); ssthresh = 2;
                // if (cwnd < 2) cwnd = 2 (interpretations 4 and 5);
                // Gallop left slow start above.
                let reached_bytes = self.window.cwnd_bytes;
                let exit_bytes = reached_bytes.saturating_sub(cut_bytes);
                self.lower_cwnd(self.at_most_the_pipe(exit_bytes, diff));
                self.reduction.first_pkt_after = Some(self.next_pkt_num());
                self.record_slow_start_exit(
                    now,
                    SlowStartExitCause::DiffAtLeastBeta,
                    reached_bytes,
                );
                Action::SlowStartExit
            }
        }
    }

    /// Gallop-Vegas `ssthresh = 2` from `if (incr <= 1)`: the RTT after it
    /// has ended, slow start ends (Gallop-Vegas III-B: "transit to the
    /// congestion-avoidance phase at the next RTT").
    pub(super) fn end_gallop_slow_start(&mut self, now: Instant) {
        let SlowStart::Gallop(gallop) = &mut self.slow_start else {
            return;
        };
        gallop.on_slow_start_exit();
        self.window.ssthresh_bytes = self.window.cwnd_bytes;
        self.record_slow_start_exit(
            now,
            SlowStartExitCause::IncrementAtOne,
            self.window.cwnd_bytes,
        );
    }

    pub(super) fn gallop_exit_pending(&self) -> bool {
        self.in_slow_start()
            && matches!(&self.slow_start, SlowStart::Gallop(gallop) if gallop.exit_pending())
    }
}
