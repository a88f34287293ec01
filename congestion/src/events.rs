//! Decision records a controller leaves behind for qlog and trace graphs.
//!
//! They are plain `Copy` values kept in a fixed-size [`EventQueue`], so
//! recording a decision never allocates. The quiche adapter drains them
//! with [`crate::Controller::poll_event`] and turns them into qlog events.

use std::collections::VecDeque;
use std::time::Duration;
use std::time::Instant;

use crate::types::Phase;

/// What a Vegas-family round decided to do with the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Congestion avoidance: Diff < alpha, +1 packet per RTT.
    Increase,
    /// Congestion avoidance: alpha <= Diff <= beta, window unchanged.
    Hold,
    /// Congestion avoidance: Diff > beta, -1 packet per RTT.
    Decrease,
    /// Slow start: this round the window grows (Gallop-Vegas: the next
    /// round grows by incr).
    SlowStartGrow,
    /// Slow start: this round the window is held (Vegas grows every other RTT).
    SlowStartHold,
    /// Slow start ends (Diff > gamma): window cut by 1/8 (Gallop-Vegas:
    /// Diff >= beta, cut by the last increment and Diff - beta).
    SlowStartExit,
    /// A round of a BaseRTT drain (no Vegas decision); the window is
    /// restored when the drain ends.
    BaseRttProbe,
    /// Competitive mode (coexistence with a buffer-filling flow): the
    /// window is CUBIC's, Vegas decides nothing.
    Compete,
    /// A round of a return test in competitive mode: the window drained to
    /// the pipe at our own rate to see whether the queue empties.
    ReturnTest,
    /// The first congestion-avoidance round after a slow-start exit that
    /// kept the pipe: the window raised to the pipe read again
    /// (`exit_recheck`, [`crate::vegas::pipe_recheck`]); no Vegas step.
    PipeRecheck,
}

impl Action {
    /// The snake_case name the qlog events use.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Increase => "increase",
            Action::Hold => "hold",
            Action::Decrease => "decrease",
            Action::SlowStartGrow => "slow_start_grow",
            Action::SlowStartHold => "slow_start_hold",
            Action::SlowStartExit => "slow_start_exit",
            Action::BaseRttProbe => "base_rtt_probe",
            Action::Compete => "compete",
            Action::ReturnTest => "return_test",
            Action::PipeRecheck => "pipe_recheck",
        }
    }
}

/// Which of the two modes the flow is in
/// ([`crate::vegas::coexist`]: the mechanism that switches them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CoexistMode {
    /// Vegas as configured.
    Delay,
    /// A loss-based (CUBIC) window beside a buffer-filling flow.
    Competitive,
}

impl CoexistMode {
    /// The snake_case name the qlog events use.
    pub fn as_str(self) -> &'static str {
        match self {
            CoexistMode::Delay => "delay",
            CoexistMode::Competitive => "competitive",
        }
    }
}

/// What completed the evidence behind a mode switch
/// ([`crate::vegas::coexist`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SwitchTrigger {
    /// To competitive: a backoff episode that did not lower the queue.
    IneffectiveBackoff,
    /// To competitive: a loss in congestion avoidance at a deep queue.
    CongestiveLoss,
    /// To competitive: the queue collapsed while our window held, the
    /// other flow's reduction ([`crate::vegas::collapse`]).
    QueueCollapse,
    /// To delay: a return test found the queue empty.
    EmptyQueue,
    /// To delay: return tests kept finding the same floor (a longer path,
    /// not a queue).
    LongerPath,
    /// To delay: the mechanism was reset (a new path, persistent
    /// congestion).
    Reset,
}

impl SwitchTrigger {
    /// The snake_case name the qlog events use.
    pub fn as_str(self) -> &'static str {
        match self {
            SwitchTrigger::IneffectiveBackoff => "ineffective_backoff",
            SwitchTrigger::CongestiveLoss => "congestive_loss",
            SwitchTrigger::QueueCollapse => "queue_collapse",
            SwitchTrigger::EmptyQueue => "empty_queue",
            SwitchTrigger::LongerPath => "longer_path",
            SwitchTrigger::Reset => "reset",
        }
    }
}

/// One per-RTT decision of a Vegas-family controller (Brakmo & Peterson,
/// section III-B): everything needed to redraw the paper's CAM graph.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundDecision {
    /// When the round ended (the ACK that closed it).
    pub now: Instant,
    /// BaseRTT, the smallest RTT the controller trusts.
    pub base_rtt: Duration,
    /// The RTT the sampler took for this round.
    pub round_rtt: Duration,
    /// Expected = W / BaseRTT, W the window in transit (Actual x round
    /// RTT, at most the window; see `vegas` module docs).
    pub expected_bytes_per_sec: f64,
    /// Actual as the sampler's `actual_bytes` says: by default bytes
    /// delivered over the span their packets were sent in; in paper mode
    /// bytes acknowledged in the round / round RTT.
    pub actual_bytes_per_sec: f64,
    /// Diff = (Expected - Actual) * BaseRTT, in packets.
    pub diff_pkts: f64,
    /// The round's reading of the pipe, the window that fills the link with
    /// no queue (what a slow-start exit and the pipe re-read keep), in
    /// bytes.
    pub pipe_bytes: f64,
    /// alpha threshold in effect, in packets.
    pub alpha_pkts: f64,
    /// beta threshold in effect, in packets.
    pub beta_pkts: f64,
    /// gamma (slow-start exit) threshold in effect, in packets.
    pub gamma_pkts: f64,
    /// Congestion window before the decision, in bytes.
    pub cwnd_before_bytes: usize,
    /// Congestion window after the decision, in bytes.
    pub cwnd_after_bytes: usize,
    /// What the round decided.
    pub action: Action,
    /// The controller's phase when the record was made.
    pub phase: Phase,
    /// RTT samples behind this round.
    pub samples: u32,
    /// Bytes acknowledged in this round.
    pub bytes_acked: u64,
    /// The round RTT is the middle of the ACK-hold bounds (the path
    /// aggregates ACKs; [`crate::sampler`] module documentation).
    pub rtt_from_hold_bounds: bool,
}

/// Why slow start ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlowStartExitCause {
    /// Diff exceeded gamma (Vegas modified slow start).
    DiffAboveGamma,
    /// A packet was lost.
    Loss,
    /// A probe timeout fired.
    Pto,
    /// cwnd reached ssthresh.
    Ssthresh,
    /// Gallop-Vegas: Diff >= beta; the window was cut by the last increment
    /// and the surplus Diff - beta (Gallop-Vegas III-C, status 2).
    DiffAtLeastBeta,
    /// Gallop-Vegas: gamma < Diff < beta halved the increment to one
    /// packet (`ssthresh = 2` in Gallop-Vegas III-C); slow start ended one RTT
    /// later.
    IncrementAtOne,
}

impl SlowStartExitCause {
    /// The snake_case name the qlog events use.
    pub fn as_str(self) -> &'static str {
        match self {
            SlowStartExitCause::DiffAboveGamma => "diff_above_gamma",
            SlowStartExitCause::Loss => "loss",
            SlowStartExitCause::Pto => "pto",
            SlowStartExitCause::Ssthresh => "ssthresh",
            SlowStartExitCause::DiffAtLeastBeta => "diff_at_least_beta",
            SlowStartExitCause::IncrementAtOne => "increment_at_one",
        }
    }
}

/// Why the window was reduced outside of a Vegas round decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReductionCause {
    /// Packets were declared lost.
    Loss,
    /// The lost packets spanned a persistent-congestion period (RFC 9002
    /// section 7.6).
    PersistentCongestion,
    /// A probe timeout fired.
    Pto,
    /// A 1995-style Reno's coarse timeout, emulated
    /// ([`crate::NewRenoConfig::reno_1995`]).
    CoarseTimeout,
    /// A short drain so that a windowed BaseRTT can be measured again
    /// without the flow's own queue (the window is restored after it).
    BaseRttProbe,
}

impl ReductionCause {
    /// The snake_case name the qlog events use.
    pub fn as_str(self) -> &'static str {
        match self {
            ReductionCause::Loss => "loss",
            ReductionCause::PersistentCongestion => "persistent_congestion",
            ReductionCause::Pto => "pto",
            ReductionCause::CoarseTimeout => "coarse_timeout",
            ReductionCause::BaseRttProbe => "base_rtt_probe",
        }
    }
}

/// A decision record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ControllerEvent {
    /// A per-RTT Vegas-family decision.
    Round(RoundDecision),
    /// Slow start ended; `cwnd_bytes` is the window it reached, before any
    /// reduction that ended it (a loss's, the 7/8 cut, Gallop's cut).
    SlowStartExit {
        /// When slow start ended.
        now: Instant,
        /// Why it ended.
        cause: SlowStartExitCause,
        /// The window slow start reached, in bytes.
        cwnd_bytes: usize,
    },
    /// The window was reduced outside of a round decision.
    Reduction {
        /// When the window was reduced.
        now: Instant,
        /// Why it was reduced.
        cause: ReductionCause,
        /// Congestion window before the reduction, in bytes.
        cwnd_before_bytes: usize,
        /// Congestion window after the reduction, in bytes.
        cwnd_after_bytes: usize,
        /// Slow-start threshold after the reduction, in bytes (`usize::MAX`
        /// while infinite).
        ssthresh_bytes: usize,
    },
    /// Vegas-A changed alpha/beta.
    ParamsChanged {
        /// When the thresholds changed.
        now: Instant,
        /// The new alpha, in packets.
        alpha_pkts: f64,
        /// The new beta, in packets.
        beta_pkts: f64,
    },
    /// The coexistence mechanism switched mode
    /// ([`crate::vegas::coexist`]), with the evidence it used.
    ModeChange {
        /// When the mode switched.
        now: Instant,
        /// The mode from now on.
        mode: CoexistMode,
        /// To competitive: evidence events in the run (ineffective
        /// backoffs, congestive losses, queue collapses); to delay: return
        /// tests made in competitive mode.
        evidence_count: u32,
        /// The event that completed the evidence.
        trigger: SwitchTrigger,
        /// The queueing delay the last episode or test measured.
        queue_delay: Duration,
        /// The BaseRTT it is measured from.
        base_rtt: Duration,
        /// To competitive: how far the last backoff lowered the RTT, in
        /// seconds (negative: it rose; 0 for a loss; how far the queue fell
        /// for a collapse); to delay: the test's tolerance.
        rtt_change_secs: f64,
        /// Congestion window before the switch, in bytes.
        cwnd_before_bytes: usize,
        /// Congestion window after the switch, in bytes.
        cwnd_after_bytes: usize,
    },
    /// The controller holds the sender until `until`, whatever its window
    /// ([`crate::Controller::send_hold_until`]): a 1995 Reno's coarse
    /// timeout waiting for BSD's retransmit timer on its 500 ms clock
    /// ([`crate::NewRenoConfig::tick_wait`]).
    SendHold {
        /// When the hold began.
        now: Instant,
        /// When the sender may send again (the tick the timer fires on).
        until: Instant,
        /// BSD's timer for this wait (`t_rxtcur`), in 500 ms ticks.
        timer_ticks: u32,
    },
    /// Gallop-Vegas changed incr/maxincr/status.
    GallopUpdate {
        /// When the state changed.
        now: Instant,
        /// Gallop-Vegas `incr`, in packets (Ho, Chan & Chen III-C).
        incr_pkts: f64,
        /// Gallop-Vegas `maxincr`, in packets (III-C).
        maxincr_pkts: f64,
        /// Gallop-Vegas `status` of III-B Table 1
        /// ([`crate::gallop::GallopStatus`] as a number).
        status: u8,
    },
}

/// A bounded FIFO of decision records. When full the oldest record is
/// dropped (and counted), so a stack that never drains it stays bounded.
#[derive(Debug, Clone)]
pub struct EventQueue {
    events: VecDeque<ControllerEvent>,
    capacity: usize,
    dropped: u64,
}

impl EventQueue {
    /// Default capacity: a few rounds' worth of records.
    pub const DEFAULT_CAPACITY: usize = 64;

    /// An empty queue holding at most `capacity` records (at least 1).
    pub fn with_capacity(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        EventQueue {
            events: VecDeque::with_capacity(capacity),
            capacity,
            dropped: 0,
        }
    }

    /// Appends a record; never allocates past the initial capacity.
    pub fn push(&mut self, event: ControllerEvent) {
        if self.events.len() == self.capacity {
            self.events.pop_front();
            self.dropped += 1;
        }
        self.events.push_back(event);
    }

    /// Takes the oldest record, if any.
    pub fn pop(&mut self) -> Option<ControllerEvent> {
        self.events.pop_front()
    }

    /// Number of records waiting.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether no record is waiting.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Records dropped because nobody drained the queue in time.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue::with_capacity(Self::DEFAULT_CAPACITY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exit(now: Instant, cwnd: usize) -> ControllerEvent {
        ControllerEvent::SlowStartExit {
            now,
            cause: SlowStartExitCause::DiffAboveGamma,
            cwnd_bytes: cwnd,
        }
    }

    #[test]
    fn queue_is_fifo_and_bounded() {
        let now = Instant::now();
        let mut q = EventQueue::with_capacity(2);
        q.push(exit(now, 1));
        q.push(exit(now, 2));
        q.push(exit(now, 3));
        assert_eq!(q.dropped(), 1);
        assert_eq!(q.pop(), Some(exit(now, 2)));
        assert_eq!(q.pop(), Some(exit(now, 3)));
        assert_eq!(q.pop(), None);
    }
}
