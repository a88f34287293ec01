//! The decision records (`ControllerEvent`s, for qlog and the trace
//! graphs): the one place the Vegas family writes them. Each takes the
//! window and thresholds as they are when it is called.

use std::time::Instant;

use crate::ControllerEvent;

use super::CoexistMode;
use super::ReductionCause;
use super::RoundDecision;
use super::SlowStartExitCause;
use super::SwitchEvidence;
use super::Vegas;

impl Vegas {
    /// Every record goes through here.
    fn record(&mut self, event: ControllerEvent) {
        self.events.push(event);
    }

    /// The decision of a finished round (III-B, III-C).
    pub(super) fn record_round(&mut self, decision: RoundDecision) {
        self.record(ControllerEvent::Round(decision));
    }

    /// Slow start ended, for `cause`, after reaching `reached_bytes` (the
    /// window before any reduction that ended it).
    pub(super) fn record_slow_start_exit(
        &mut self,
        now: Instant,
        cause: SlowStartExitCause,
        reached_bytes: usize,
    ) {
        self.record(ControllerEvent::SlowStartExit {
            now,
            cause,
            cwnd_bytes: reached_bytes,
        });
    }

    /// The window went down from `cwnd_before_bytes`, for `cause`.
    pub(super) fn record_reduction(
        &mut self,
        now: Instant,
        cause: ReductionCause,
        cwnd_before_bytes: usize,
    ) {
        self.record(ControllerEvent::Reduction {
            now,
            cause,
            cwnd_before_bytes,
            cwnd_after_bytes: self.window.cwnd_bytes,
            ssthresh_bytes: self.window.ssthresh_bytes,
        });
    }

    /// alpha and beta changed (Vegas-A, or back to the start on a new path).
    pub(super) fn record_params_changed(&mut self, now: Instant) {
        self.record(ControllerEvent::ParamsChanged {
            now,
            alpha_pkts: self.band.alpha_pkts,
            beta_pkts: self.band.beta_pkts,
        });
    }

    /// Gallop-Vegas's incr/maxincr/status, as taken by the caller
    /// (`GallopSlowStart::event`).
    pub(super) fn record_gallop_update(&mut self, update: ControllerEvent) {
        self.record(update);
    }

    /// The coexistence mechanism switched to `mode` from a window of
    /// `cwnd_before_bytes`.
    pub(super) fn record_mode_change(
        &mut self,
        now: Instant,
        mode: CoexistMode,
        evidence: SwitchEvidence,
        cwnd_before_bytes: usize,
    ) {
        self.record(ControllerEvent::ModeChange {
            now,
            mode,
            evidence_count: evidence.count,
            trigger: evidence.trigger,
            queue_delay: evidence.queue_delay,
            base_rtt: evidence.base_rtt,
            rtt_change_secs: evidence.rtt_change_secs,
            cwnd_before_bytes,
            cwnd_after_bytes: self.window.cwnd_bytes,
        });
    }
}
