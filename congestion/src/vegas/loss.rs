//! Losses, timeouts and persistent congestion (Brakmo & Peterson III-A,
//! RFC 9002 7.3.2 and 7.6): a window is decreased only for a packet sent
//! after the last decrease.

use std::time::Duration;
use std::time::Instant;

use super::coexist::LossAnswer;
use super::paper;
use super::Avoidance;
use super::CoexistMode;
use super::CoexistStep;
use super::ReductionCause;
use super::SlowStart;
use super::SlowStartExitCause;
use super::Vegas;

impl Vegas {
    /// III-A: was this packet sent after the last window decrease?
    pub(super) fn sent_after_last_reduction(&self, pkt_num: u64) -> bool {
        paper::loss_counts(pkt_num, self.reduction.first_pkt_after)
    }

    /// Lowers cwnd (never below the minimum window) and ssthresh with it.
    pub(super) fn lower_cwnd(&mut self, cwnd_bytes: usize) {
        self.window.cwnd_bytes = cwnd_bytes.max(self.min_window_bytes());
        self.window.ssthresh_bytes = self.window.ssthresh_bytes.min(self.window.cwnd_bytes);
    }

    /// Starts over after a reduction: losses of packets sent before now no
    /// longer count (III-A) and the next round is measured afresh.
    pub(super) fn mark_reduction(&mut self) {
        // A loss, PTO or persistent congestion ends a BaseRTT drain: the
        // reduced window is not restored.
        self.drain.abandon();
        self.pipe_recheck.disarm();
        self.reduction.first_pkt_after = Some(self.next_pkt_num());
        self.round_start_cwnd_bytes = self.window.cwnd_bytes;
        self.hold_next_slow_start_round();
        self.sampler.restart_round();
        if let Avoidance::VegasA(vegas_a) = &mut self.avoidance {
            vegas_a.forget_actual();
        }
    }

    /// Gallop-Vegas "retransmission-timeout phase": incr, maxincr and
    /// status back to their defaults, the first RTT adds nothing.
    pub(super) fn restart_gallop(&mut self, now: Instant) {
        if let SlowStart::Gallop(gallop) = &mut self.slow_start {
            gallop.restart(self.window.cwnd_bytes, self.window.max_datagram_size);
            let update = gallop.event(now);
            self.record_gallop_update(update);
        }
    }

    pub(super) fn push_reduction(
        &mut self,
        now: Instant,
        cause: ReductionCause,
        cwnd_before_bytes: usize,
        was_slow_start: bool,
    ) {
        if was_slow_start && !self.in_slow_start() {
            let exit_cause = match cause {
                ReductionCause::Pto => SlowStartExitCause::Pto,
                _ => SlowStartExitCause::Loss,
            };
            self.record_slow_start_exit(now, exit_cause, cwnd_before_bytes);
        }
        self.record_reduction(now, cause, cwnd_before_bytes);
    }

    // Loss, timeout, persistent congestion (III-A, RFC 9002 7.3.2, 7.6).

    pub(super) fn on_loss(&mut self, now: Instant, largest_lost_pkt_num: u64) {
        if !self.sent_after_last_reduction(largest_lost_pkt_num) {
            return;
        }
        let was_slow_start = self.in_slow_start();
        let cwnd_before_bytes = self.window.cwnd_bytes;
        let min_window_bytes = self.min_window_bytes();
        match self.coexist.competitive_loss(
            now,
            cwnd_before_bytes,
            largest_lost_pkt_num,
            min_window_bytes,
        ) {
            // Competitive mode: CUBIC's decrease (RFC 9438 4.6).
            Some(LossAnswer::Reduce(cwnd_bytes)) => {
                self.window.cwnd_bytes = cwnd_bytes;
                self.window.ssthresh_bytes = cwnd_bytes;
            }
            Some(LossAnswer::Ignore) => return,
            None => self.window.reduce(self.config.loss_reduction_factor),
        }
        self.reduction.recovery_cause = Some(ReductionCause::Loss);
        self.mark_reduction();
        self.push_reduction(now, ReductionCause::Loss, cwnd_before_bytes, was_slow_start);
        if self.config.coexist && !was_slow_start && self.coexist.mode() == CoexistMode::Delay {
            if let CoexistStep::Compete {
                cwnd_bytes,
                evidence,
            } = self.coexist.on_delay_loss(
                now,
                self.sampler.latest_rtt().unwrap_or(Duration::ZERO),
                cwnd_before_bytes,
                self.window.max_datagram_size,
            ) {
                self.start_competing(now, cwnd_bytes, evidence);
            }
        }
    }

    pub(super) fn on_persistent_congestion(&mut self, now: Instant) {
        let was_slow_start = self.in_slow_start();
        let cwnd_before_bytes = self.window.cwnd_bytes;
        self.stop_competing(now, cwnd_before_bytes);
        self.window.collapse();
        self.reduction.recovery_cause = None;
        self.mark_reduction();
        self.restart_gallop(now);
        self.push_reduction(
            now,
            ReductionCause::PersistentCongestion,
            cwnd_before_bytes,
            was_slow_start,
        );
    }
}
