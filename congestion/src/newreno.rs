//! NewReno congestion control for QUIC, as RFC 9002 section 7 specifies it
//! (pseudocode in RFC 9002 Appendix B). It is the loss-based baseline the
//! Vegas family is compared with.
//!
//! The rules, by RFC 9002 section:
//! - 7.2: the window starts at `initial_cwnd_pkts` datagrams and never goes
//!   below the minimum window of 2 datagrams.
//! - 7.3.1: slow start while cwnd < ssthresh: cwnd grows by the bytes
//!   acknowledged.
//! - 7.3.2 / B.6: a loss starts a recovery period at `now`;
//!   ssthresh = cwnd * kLossReductionFactor, cwnd = max(ssthresh, minimum
//!   window). Only the loss of a packet sent after the recovery period
//!   started can reduce the window again, and packets sent before it do not
//!   grow the window when acknowledged (B.5 `InCongestionRecovery`).
//! - 7.3.3: congestion avoidance: cwnd grows by
//!   max_datagram_size * acked_bytes / cwnd.
//! - 7.6.2 / B.8: persistent congestion: cwnd = minimum window, the recovery
//!   period ends.
//! - 7.8: no increase while the window is not being used (`on_app_limited`).
//! - 6.2 / 7: a probe timeout does not change the window.
//! - 7.7: pacing rate = N * cwnd / smoothed_rtt with N = 1.25.
//! - Whole datagrams (`whole_datagrams`, on by default): the sender may use
//!   the free window only in whole datagrams
//!   ([`Controller::cwnd_available_bytes`]), as a TCP sender sends only
//!   full-sized segments; halving a window leaves a fraction of a datagram
//!   that a stack sizing packets to the free window would fill with a short
//!   packet, every round.
//!
//! [`NewRenoConfig::reno_1995`] makes it behave like the BSD Reno of 1995
//! that Brakmo & Peterson compared Vegas with, so a reader can see which
//! part of Vegas's advantage came from Reno's coarse timeouts: an initial
//! window of 2 (the smallest QUIC allows; 1995's was 1 segment), no pacing,
//! and one loss per window recovered by fast retransmit. Any further loss
//! from the window in recovery (Reno, unlike NewReno, leaves fast recovery
//! on the first new ACK and then lacks the duplicate ACKs to retransmit
//! again) costs a coarse timeout: ssthresh = half the window, the window
//! collapses to the minimum and slow start restarts (Brakmo & Peterson
//! III-A: "Reno ... times out"). The timer's 500 ms tick itself, the wait
//! before the retransmission, is emulated only with
//! [`NewRenoConfig::tick_wait`] and a driver that wakes the sender when the
//! wait ends (the simulator; [`Controller::send_hold_until`]): then a
//! coarse timeout holds the sender until BSD's retransmit timer would have
//! fired ([`crate::bsd_timer`]). QUIC's loss detection and PTO stay the
//! stack's, with fine-grained timers.
//!
//! The tick's wait, interpretation choices:
//! - The BSD timer is restarted by every ACK that advances the window's
//!   left edge. In the recovery that ends in a coarse timeout, the last
//!   such ACK is the one for fast retransmit's segment (the "partial ACK"),
//!   one smoothed RTT after the recovery began: the timer fires at the
//!   `t_rxtcur`-th tick after that, and never before the loss is detected.
//! - During the wait nothing is sent and acknowledgements do not grow the
//!   window: BSD's window was set to one segment when the timer fired,
//!   whatever it had become. A PTO probe is the stack's and still leaves.
//!
//! Interpretation choices:
//! - Congestion avoidance counts acknowledged bytes and adds one
//!   max_datagram_size per cwnd of bytes acknowledged (as quiche's
//!   `recovery/congestion/reno.rs`, RFC 3465 byte counting). This is the
//!   RFC 9002 7.3.3 formula summed without integer truncation.
//! - The initial window is exactly `initial_cwnd_pkts` datagrams, as quiche's
//!   `initial_congestion_window_packets`; RFC 9002 7.2's 14 720-byte limit is
//!   not applied (10 x 1200 bytes is below it anyway).
//! - Losses are processed before acknowledgements of the same ACK frame, in
//!   the order of RFC 9002 A.7 `OnAckReceived`.
//! - The window counts as "used" (RFC 9002 7.8) from a send after which less
//!   than one max_datagram_size of window is left, until `on_app_limited`.

use std::time::Duration;
use std::time::Instant;

use crate::bsd_timer::BsdRetransmitTimer;
use crate::bsd_timer::TICK;
use crate::controller::Controller;
use crate::error::ParamError;
use crate::events::ControllerEvent;
use crate::events::EventQueue;
use crate::events::ReductionCause;
use crate::events::SlowStartExitCause;
use crate::types::AckEvent;
use crate::types::Phase;
use crate::types::SentPacket;
use crate::window::Window;

/// RFC 9002 section 7.2: "Endpoints SHOULD use an initial congestion window
/// of ten times the maximum datagram size".
pub const INITIAL_WINDOW_PKTS: usize = 10;

pub use crate::window::LOSS_REDUCTION_FACTOR;
pub use crate::window::MIN_WINDOW_PKTS;

/// Brakmo & Peterson III-C: 1995's Reno starts with "one segment"; QUIC's
/// minimum window is 2 datagrams (RFC 9002 7.2).
pub const RENO_1995_INITIAL_WINDOW_PKTS: usize = 2;

/// RFC 9002 section 7.7: pacing rate N * cwnd / smoothed_rtt, N = 1.25.
pub const PACING_GAIN: f64 = 1.25;

pub use crate::window::DEFAULT_MAX_DATAGRAM_SIZE;

/// NewReno parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewRenoConfig {
    /// Initial congestion window in datagrams (RFC 9002 7.2; default 10).
    pub initial_cwnd_pkts: usize,
    /// Maximum datagram size in bytes until `set_max_datagram_size`.
    pub max_datagram_size: usize,
    /// Multiplicative decrease on loss, in (0, 1) (RFC 9002 7.3.2; 0.5).
    pub loss_reduction_factor: f64,
    /// Pacing gain N (RFC 9002 7.7; 1.25). None: do not pace.
    pub pacing_gain: Option<f64>,
    /// A loss from a window already in recovery costs a coarse timeout
    /// (module documentation; set by [`NewRenoConfig::reno_1995`]).
    pub coarse_timeouts: bool,
    /// Send the free window in whole datagrams only
    /// ([`Controller::cwnd_available_bytes`]; default true).
    pub whole_datagrams: bool,
    /// A coarse timeout waits for BSD's retransmit timer on its 500 ms
    /// clock before anything is sent again ([`Controller::send_hold_until`];
    /// module documentation). Needs `coarse_timeouts` and a driver that
    /// wakes the sender (default false).
    pub tick_wait: bool,
    /// With `tick_wait`: the clock's first tick comes this long after the
    /// first packet sent, below 500 ms (default 0).
    pub tick_phase: Duration,
}

impl Default for NewRenoConfig {
    fn default() -> Self {
        NewRenoConfig {
            initial_cwnd_pkts: INITIAL_WINDOW_PKTS,
            max_datagram_size: DEFAULT_MAX_DATAGRAM_SIZE,
            loss_reduction_factor: LOSS_REDUCTION_FACTOR,
            pacing_gain: Some(PACING_GAIN),
            coarse_timeouts: false,
            whole_datagrams: true,
            tick_wait: false,
            tick_phase: Duration::ZERO,
        }
    }
}

impl NewRenoConfig {
    /// The 1995 BSD Reno of Brakmo & Peterson's comparisons, as far as QUIC
    /// lets it be (module documentation): initial window 2, no pacing,
    /// coarse timeouts for further losses of a window in recovery.
    pub fn reno_1995() -> Self {
        NewRenoConfig {
            initial_cwnd_pkts: RENO_1995_INITIAL_WINDOW_PKTS,
            pacing_gain: None,
            coarse_timeouts: true,
            ..NewRenoConfig::default()
        }
    }

    /// Checks every field; the error names the first field that is wrong.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check_initial_window(self.initial_cwnd_pkts)?;
        ParamError::check_max_datagram_size(self.max_datagram_size)?;
        ParamError::check_loss_reduction_factor(self.loss_reduction_factor)?;
        ParamError::check_pacing_gain(self.pacing_gain)?;
        if self.tick_phase >= TICK {
            return Err(ParamError::new(
                "tick_phase_ms",
                self.tick_phase.as_millis() as u64,
                "a number of milliseconds from 0 to below 500 (BSD's tick)",
            ));
        }
        if self.tick_wait && !self.coarse_timeouts {
            return Err(ParamError::new(
                "tick_wait",
                "true",
                "false unless reno_1995 = true: the wait is the one of a coarse timeout",
            ));
        }
        Ok(())
    }
}

/// NewReno (RFC 9002 section 7).
#[derive(Clone, Debug)]
pub struct NewReno {
    config: NewRenoConfig,
    window: Window,
    /// Bytes acknowledged in congestion avoidance not yet turned into a
    /// window increase (RFC 9002 7.3.3 summed exactly).
    bytes_acked_ca: usize,
    /// RFC 9002 B.2 `congestion_recovery_start_time`.
    recovery_start_time: Option<Instant>,
    /// A packet sent after `recovery_start_time` has not been acknowledged
    /// yet.
    in_recovery: bool,
    /// RFC 9002 7.8: the sender is not using its window.
    app_limited: bool,
    /// The recovery in progress already cost a coarse timeout
    /// (`coarse_timeouts`).
    timed_out_in_recovery: bool,
    /// With `tick_wait`: BSD's retransmit timer, and the time it fires
    /// after the last coarse timeout.
    bsd_timer: Option<BsdRetransmitTimer>,
    hold_until: Option<Instant>,
    events: EventQueue,
}

impl NewReno {
    /// A controller for `config`, or the first parameter it rejects.
    pub fn new(config: NewRenoConfig) -> Result<Self, ParamError> {
        config.validate()?;
        Ok(NewReno {
            config,
            window: Window::new(config.initial_cwnd_pkts, config.max_datagram_size),
            bytes_acked_ca: 0,
            recovery_start_time: None,
            in_recovery: false,
            app_limited: false,
            timed_out_in_recovery: false,
            bsd_timer: config
                .tick_wait
                .then(|| BsdRetransmitTimer::new(config.tick_phase)),
            hold_until: None,
            events: EventQueue::default(),
        })
    }

    /// The configuration the controller was built with.
    pub fn config(&self) -> &NewRenoConfig {
        &self.config
    }

    fn in_slow_start(&self) -> bool {
        self.window.below_ssthresh()
    }

    /// RFC 9002 B.5 `InCongestionRecovery(sent_time)`.
    fn sent_in_recovery(&self, time_sent: Instant) -> bool {
        self.recovery_start_time
            .is_some_and(|start| time_sent <= start)
    }

    /// RFC 9002 B.6 `OnCongestionEvent(sent_time)`.
    fn on_congestion_event(&mut self, now: Instant, time_sent: Instant) {
        if self.sent_in_recovery(time_sent) {
            return;
        }
        let was_slow_start = self.in_slow_start();
        let cwnd_before_bytes = self.window.cwnd_bytes;
        self.recovery_start_time = Some(now);
        self.in_recovery = true;
        self.timed_out_in_recovery = false;
        self.window.reduce(self.config.loss_reduction_factor);
        self.bytes_acked_ca = 0;
        if was_slow_start {
            self.events.push(ControllerEvent::SlowStartExit {
                now,
                cause: SlowStartExitCause::Loss,
                cwnd_bytes: cwnd_before_bytes,
            });
        }
        self.events.push(ControllerEvent::Reduction {
            now,
            cause: ReductionCause::Loss,
            cwnd_before_bytes,
            cwnd_after_bytes: self.window.cwnd_bytes,
            ssthresh_bytes: self.window.ssthresh_bytes,
        });
    }

    /// A 1995 Reno's coarse timeout, once per recovery: ssthresh = half the
    /// window, the window to the minimum, slow start again; with
    /// `tick_wait`, after BSD's timer fires (module documentation).
    fn on_coarse_timeout(&mut self, now: Instant, smoothed_rtt: Duration) {
        if self.timed_out_in_recovery {
            return;
        }
        self.timed_out_in_recovery = true;
        if let Some(timer) = &mut self.bsd_timer {
            let recovery_start = self.recovery_start_time.unwrap_or(now);
            let partial_ack = recovery_start + smoothed_rtt;
            let until = timer.fire_after(partial_ack, now);
            self.hold_until = Some(until);
            self.events.push(ControllerEvent::SendHold {
                now,
                until,
                timer_ticks: timer.rxtcur_ticks(),
            });
            timer.on_timeout();
        }
        let cwnd_before_bytes = self.window.cwnd_bytes;
        self.window.ssthresh_bytes =
            (self.window.cwnd_bytes / 2).max(self.window.min_window_bytes());
        self.window.collapse();
        self.bytes_acked_ca = 0;
        self.events.push(ControllerEvent::Reduction {
            now,
            cause: ReductionCause::CoarseTimeout,
            cwnd_before_bytes,
            cwnd_after_bytes: self.window.cwnd_bytes,
            ssthresh_bytes: self.window.ssthresh_bytes,
        });
    }

    /// RFC 9002 B.8: persistent congestion collapses the window.
    fn on_persistent_congestion(&mut self, now: Instant) {
        let cwnd_before_bytes = self.window.cwnd_bytes;
        self.window.collapse();
        self.recovery_start_time = None;
        self.in_recovery = false;
        self.timed_out_in_recovery = false;
        self.bytes_acked_ca = 0;
        self.events.push(ControllerEvent::Reduction {
            now,
            cause: ReductionCause::PersistentCongestion,
            cwnd_before_bytes,
            cwnd_after_bytes: self.window.cwnd_bytes,
            ssthresh_bytes: self.window.ssthresh_bytes,
        });
    }

    /// RFC 9002 B.5 `OnPacketAcked` for one packet.
    fn on_packet_acked(&mut self, now: Instant, time_sent: Instant, size_bytes: usize) {
        if self.sent_in_recovery(time_sent) {
            return;
        }
        if self.hold_until.is_some_and(|until| now < until) {
            // Until the timer fires, the window neither grows (BSD's
            // becomes one segment then) nor leaves its recovery.
            return;
        }
        // A packet sent after the recovery start was acknowledged.
        self.in_recovery = false;
        self.timed_out_in_recovery = false;
        if self.app_limited {
            return;
        }
        if self.in_slow_start() {
            self.window.cwnd_bytes += size_bytes;
        } else {
            self.bytes_acked_ca += size_bytes;
            if self.bytes_acked_ca >= self.window.cwnd_bytes {
                self.bytes_acked_ca -= self.window.cwnd_bytes;
                self.window.cwnd_bytes += self.window.max_datagram_size;
            }
        }
    }
}

impl Controller for NewReno {
    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(self.clone())
    }

    fn name(&self) -> &'static str {
        "newreno"
    }

    fn on_packet_sent(&mut self, now: Instant, packet: &SentPacket) {
        if !packet.in_flight {
            return;
        }
        if let Some(timer) = &mut self.bsd_timer {
            timer.on_packet_sent(now, packet.pkt_num);
        }
        let in_flight_after = packet.bytes_in_flight_before + packet.size_bytes;
        if in_flight_after + self.window.max_datagram_size > self.window.cwnd_bytes {
            self.app_limited = false;
        }
    }

    fn on_ack_event(&mut self, event: &AckEvent<'_>) {
        // A 1995 Reno recovers one loss of a window: more than one lost
        // from a window not yet in recovery, or any from the window in
        // recovery, time out (module documentation).
        let from_recovery = event
            .lost
            .iter()
            .filter(|p| self.sent_in_recovery(p.time_sent))
            .count();
        let beyond_first = (event.lost.len() - from_recovery).saturating_sub(1);
        // RFC 9002 B.8 `OnPacketsLost`: one congestion event for the
        // most recently sent lost packet.
        if let Some(last_lost_sent) = event.lost.iter().map(|p| p.time_sent).max() {
            self.on_congestion_event(event.now, last_lost_sent);
        }
        if let Some(timer) = &mut self.bsd_timer {
            if !event.lost.is_empty() {
                timer.on_loss();
            }
            for packet in event.acked {
                timer.on_packet_acked(event.now, packet.pkt_num);
            }
        }
        if self.config.coarse_timeouts && from_recovery + beyond_first > 0 {
            self.on_coarse_timeout(event.now, event.smoothed_rtt);
        }
        if event.persistent_congestion {
            self.on_persistent_congestion(event.now);
        }
        for packet in event.acked {
            self.on_packet_acked(event.now, packet.time_sent, packet.size_bytes);
        }
    }

    fn on_pto(&mut self, _now: Instant) {
        // RFC 9002 section 6.2: a PTO is not a loss; the window is left to
        // loss detection and persistent congestion (section 7.6).
    }

    fn on_app_limited(&mut self, _now: Instant, _bytes_in_flight: usize) {
        self.app_limited = true;
    }

    fn on_path_change(&mut self, _now: Instant) {
        // RFC 9000 section 9.4: reset the congestion controller.
        self.window.reset();
        self.bytes_acked_ca = 0;
        self.recovery_start_time = None;
        self.in_recovery = false;
        self.timed_out_in_recovery = false;
        self.app_limited = false;
        self.hold_until = None;
    }

    fn set_max_datagram_size(&mut self, max_datagram_size: usize) {
        self.window.set_max_datagram_size(max_datagram_size);
    }

    fn cwnd_bytes(&self) -> usize {
        self.window.cwnd_bytes
    }

    fn cwnd_available_bytes(&self, bytes_in_flight: usize) -> usize {
        self.window
            .available_bytes(bytes_in_flight, self.config.whole_datagrams)
    }

    fn ssthresh_bytes(&self) -> Option<usize> {
        self.window.ssthresh()
    }

    fn pacing_rate_bytes_per_sec(&self, smoothed_rtt: Duration) -> Option<u64> {
        let gain = self.config.pacing_gain?;
        if smoothed_rtt.is_zero() {
            return None;
        }
        let rate_bytes_per_sec = gain * self.window.cwnd_bytes as f64 / smoothed_rtt.as_secs_f64();
        Some(
            (rate_bytes_per_sec as u64).max(crate::types::min_pacing_rate_bytes_per_sec(
                self.window.max_datagram_size,
            )),
        )
    }

    fn phase(&self) -> Phase {
        if self.in_recovery {
            Phase::Recovery
        } else if self.in_slow_start() {
            Phase::SlowStart
        } else {
            Phase::CongestionAvoidance
        }
    }

    fn send_hold_until(&self) -> Option<Instant> {
        self.hold_until
    }

    fn poll_event(&mut self) -> Option<ControllerEvent> {
        self.events.pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_sender::acked_packet;
    use crate::test_sender::lost_packet;
    use crate::test_sender::sent_packet;
    use crate::test_sender::AckEventBuilder;
    use crate::test_sender::MDS;
    use crate::types::AckedPacket;
    use crate::types::LostPacket;

    const RTT: Duration = Duration::from_millis(100);

    fn reno() -> NewReno {
        NewReno::new(NewRenoConfig::default()).unwrap()
    }

    /// One ACK frame at `now`: RTT sample, min and smoothed RTT all `RTT`
    /// (lost-only frames too), bytes in flight left at zero.
    fn event<'a>(now: Instant, acked: &'a [AckedPacket], lost: &'a [LostPacket]) -> AckEvent<'a> {
        AckEventBuilder::new(now)
            .acked(acked)
            .lost(lost)
            .rtt(RTT)
            .min_rtt(RTT)
            .build()
    }

    fn reductions(cc: &mut NewReno) -> Vec<(ReductionCause, usize, usize)> {
        std::iter::from_fn(|| cc.poll_event())
            .filter_map(|e| match e {
                ControllerEvent::Reduction {
                    cause,
                    cwnd_after_bytes,
                    ssthresh_bytes,
                    ..
                } => Some((cause, cwnd_after_bytes, ssthresh_bytes)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn reno_1995_recovers_one_loss_per_window_and_times_out_on_the_next() {
        let mut cc = NewReno::new(NewRenoConfig::reno_1995()).unwrap();
        assert_eq!(cc.cwnd_bytes(), 2 * MDS);
        assert_eq!(cc.pacing_rate_bytes_per_sec(RTT), None, "no pacing");
        cc.window.cwnd_bytes = 20 * MDS;
        let t0 = Instant::now();
        // One loss: fast retransmit and recovery, as NewReno.
        cc.on_ack_event(&event(t0 + RTT, &[], &[lost_packet(3, t0)]));
        assert_eq!(
            reductions(&mut cc),
            [(ReductionCause::Loss, 10 * MDS, 10 * MDS)]
        );
        // A second loss from the same window: a coarse timeout, once.
        let later = t0 + RTT + RTT / 4;
        cc.on_ack_event(&event(later, &[], &[lost_packet(7, t0)]));
        assert_eq!(
            reductions(&mut cc),
            [(ReductionCause::CoarseTimeout, 2 * MDS, 5 * MDS)]
        );
        assert_eq!(cc.phase(), Phase::Recovery);
        cc.on_ack_event(&event(later, &[], &[lost_packet(9, t0)]));
        assert!(reductions(&mut cc).is_empty());
        // Slow start again after the recovery, up to the new ssthresh.
        cc.on_ack_event(&event(later + RTT, &[acked_packet(30, later)], &[]));
        assert_eq!(cc.phase(), Phase::SlowStart);
        assert_eq!(cc.cwnd_bytes(), 3 * MDS);
        // Two losses of a window in one ACK frame: recovery, then timeout.
        let mut cc = NewReno::new(NewRenoConfig::reno_1995()).unwrap();
        cc.window.cwnd_bytes = 20 * MDS;
        let lost = [lost_packet(3, t0), lost_packet(4, t0)];
        cc.on_ack_event(&event(t0 + RTT, &[], &lost));
        let causes: Vec<_> = reductions(&mut cc).iter().map(|r| r.0).collect();
        assert_eq!(
            causes,
            [ReductionCause::Loss, ReductionCause::CoarseTimeout]
        );
        // Today's NewReno recovers both without a timeout.
        let mut cc = reno();
        cc.on_ack_event(&event(t0 + RTT, &[], &lost));
        cc.on_ack_event(&event(t0 + 2 * RTT, &[], &[lost_packet(7, t0)]));
        assert_eq!(
            reductions(&mut cc),
            [(ReductionCause::Loss, 5 * MDS, 5 * MDS)]
        );
    }

    #[test]
    fn with_the_tick_a_coarse_timeout_waits_for_bsds_timer() {
        let ms = Duration::from_millis;
        let config = NewRenoConfig {
            tick_wait: true,
            ..NewRenoConfig::reno_1995()
        };
        let mut cc = NewReno::new(config).unwrap();
        let t0 = Instant::now();
        // Ticks at t0, t0 + 500 ms, ...: packet 0 is timed and acknowledged
        // within its tick, t_rtt = 1, so BSD's timer is 3 ticks.
        cc.on_packet_sent(t0, &sent_packet(0, t0, 0));
        cc.on_ack_event(&event(t0 + RTT, &[acked_packet(0, t0)], &[]));
        assert_eq!(cc.bsd_timer.as_ref().unwrap().rxtcur_ticks(), 3);
        // Two losses of a 20-packet window: fast retransmit for the first
        // (no wait), a coarse timeout for the second.
        let recovery = t0 + ms(200);
        let lose_two = |cc: &mut NewReno| {
            cc.window.cwnd_bytes = 20 * MDS;
            cc.on_ack_event(&event(recovery, &[], &[lost_packet(3, t0 + ms(150))]));
            assert_eq!(cc.send_hold_until(), None, "fast retransmit does not wait");
            let second = [lost_packet(4, t0 + ms(160))];
            cc.on_ack_event(&event(recovery + ms(50), &[], &second));
        };
        lose_two(&mut cc);
        // The partial ACK would have come one smoothed RTT after the
        // recovery began (300 ms) and restarted the timer, which fires at
        // the 3rd tick after: 1500 ms.
        assert_eq!(cc.send_hold_until(), Some(t0 + ms(1500)));
        let holds: Vec<_> = std::iter::from_fn(|| cc.poll_event())
            .filter_map(|e| match e {
                ControllerEvent::SendHold {
                    now,
                    until,
                    timer_ticks,
                } => Some((now, until, timer_ticks)),
                _ => None,
            })
            .collect();
        assert_eq!(holds, [(recovery + ms(50), t0 + ms(1500), 3)]);
        assert_eq!(
            cc.bsd_timer.as_ref().unwrap().rxtcur_ticks(),
            6,
            "backed off"
        );
        // Acknowledgements during the wait do not grow the window.
        let sent = recovery + ms(60);
        cc.on_ack_event(&event(t0 + ms(400), &[acked_packet(20, sent)], &[]));
        assert_eq!(cc.cwnd_bytes(), 2 * MDS);
        // After it, slow start from the minimum window.
        let sent = t0 + ms(1500);
        cc.on_ack_event(&event(sent + RTT, &[acked_packet(21, sent)], &[]));
        assert_eq!(cc.cwnd_bytes(), 3 * MDS);
        // Without the tick, the same losses hold nothing.
        let mut cc = NewReno::new(NewRenoConfig::reno_1995()).unwrap();
        lose_two(&mut cc);
        assert_eq!(cc.send_hold_until(), None);
    }

    #[test]
    fn the_tick_needs_coarse_timeouts_and_a_phase_below_a_tick() {
        let no_timeouts = NewRenoConfig {
            tick_wait: true,
            ..NewRenoConfig::default()
        };
        assert_eq!(NewReno::new(no_timeouts).unwrap_err().field, "tick_wait");
        let late = NewRenoConfig {
            tick_wait: true,
            tick_phase: Duration::from_millis(500),
            ..NewRenoConfig::reno_1995()
        };
        let err = NewReno::new(late).unwrap_err();
        assert_eq!((err.field, err.value.as_str()), ("tick_phase_ms", "500"));
    }

    #[test]
    fn initial_window_is_configurable_in_packets() {
        assert_eq!(reno().cwnd_bytes(), 10 * MDS);
        let cc = NewReno::new(NewRenoConfig {
            initial_cwnd_pkts: 4,
            ..NewRenoConfig::default()
        })
        .unwrap();
        assert_eq!(cc.cwnd_bytes(), 4 * MDS);
        assert_eq!(cc.ssthresh_bytes(), None);
        assert_eq!(cc.phase(), Phase::SlowStart);
    }

    #[test]
    fn slow_start_adds_acked_bytes() {
        let mut cc = reno();
        let t0 = Instant::now();
        let acks = [
            acked_packet(0, t0),
            acked_packet(1, t0),
            acked_packet(2, t0),
        ];
        cc.on_ack_event(&event(t0 + RTT, &acks, &[]));
        assert_eq!(cc.cwnd_bytes(), 13 * MDS);
    }

    #[test]
    fn congestion_avoidance_adds_one_datagram_per_window() {
        let mut cc = reno();
        cc.window.ssthresh_bytes = cc.window.cwnd_bytes; // 10 packets, in CA
        let t0 = Instant::now();
        let acks: Vec<_> = (0..9).map(|n| acked_packet(n, t0)).collect();
        cc.on_ack_event(&event(t0 + RTT, &acks, &[]));
        assert_eq!(cc.cwnd_bytes(), 10 * MDS, "9/10 of a window acked");
        cc.on_ack_event(&event(t0 + RTT, &[acked_packet(9, t0)], &[]));
        assert_eq!(cc.cwnd_bytes(), 11 * MDS, "one window acked: +1 MDS");
        assert_eq!(cc.phase(), Phase::CongestionAvoidance);
    }

    #[test]
    fn loss_halves_and_starts_recovery() {
        let mut cc = reno();
        let t0 = Instant::now();
        let now = t0 + RTT;
        cc.on_ack_event(&event(now, &[], &[lost_packet(0, t0)]));
        assert_eq!(cc.ssthresh_bytes(), Some(5 * MDS));
        assert_eq!(cc.cwnd_bytes(), 5 * MDS);
        assert_eq!(cc.phase(), Phase::Recovery);
        assert!(matches!(
            cc.poll_event(),
            Some(ControllerEvent::SlowStartExit { .. })
        ));
        assert!(matches!(
            cc.poll_event(),
            Some(ControllerEvent::Reduction {
                cause: ReductionCause::Loss,
                ..
            })
        ));
    }

    /// Halving 11 datagrams leaves 5.5: only 5 whole ones may be sent, the
    /// half is not filled with a short packet (unless switched off).
    #[test]
    fn a_halved_window_is_sent_in_whole_datagrams() {
        let t0 = Instant::now();
        for (whole_datagrams, free) in [(true, 5 * MDS), (false, 5 * MDS + MDS / 2)] {
            let mut cc = NewReno::new(NewRenoConfig {
                initial_cwnd_pkts: 11,
                whole_datagrams,
                ..NewRenoConfig::default()
            })
            .unwrap();
            cc.on_ack_event(&event(t0 + RTT, &[], &[lost_packet(0, t0)]));
            assert_eq!(cc.cwnd_bytes(), 5 * MDS + MDS / 2);
            assert_eq!(cc.cwnd_available_bytes(0), free, "{whole_datagrams}");
            assert_eq!(cc.cwnd_available_bytes(cc.cwnd_bytes()), 0);
        }
    }

    #[test]
    fn loss_never_goes_below_minimum_window() {
        let mut cc = NewReno::new(NewRenoConfig {
            initial_cwnd_pkts: 3,
            ..NewRenoConfig::default()
        })
        .unwrap();
        let t0 = Instant::now();
        cc.on_ack_event(&event(t0 + RTT, &[], &[lost_packet(0, t0)]));
        assert_eq!(cc.ssthresh_bytes(), Some(3 * MDS / 2));
        assert_eq!(cc.cwnd_bytes(), 2 * MDS);
    }

    #[test]
    fn only_losses_sent_after_recovery_start_reduce_again() {
        let mut cc = reno();
        let t0 = Instant::now();
        let recovery_start = t0 + RTT;
        cc.on_ack_event(&event(recovery_start, &[], &[lost_packet(0, t0)]));
        assert_eq!(cc.cwnd_bytes(), 5 * MDS);
        // Sent before the recovery start: no second reduction.
        let later = recovery_start + RTT / 2;
        cc.on_ack_event(&event(later, &[], &[lost_packet(5, t0 + RTT / 2)]));
        assert_eq!(cc.cwnd_bytes(), 5 * MDS);
        // Sent after the recovery start: a new congestion event.
        let sent_after = recovery_start + Duration::from_millis(1);
        cc.on_ack_event(&event(later + RTT, &[], &[lost_packet(20, sent_after)]));
        assert_eq!(cc.cwnd_bytes(), 2 * MDS + MDS / 2);
    }

    #[test]
    fn no_increase_in_recovery_until_a_new_packet_is_acked() {
        let mut cc = reno();
        let t0 = Instant::now();
        let recovery_start = t0 + RTT;
        cc.on_ack_event(&event(recovery_start, &[], &[lost_packet(0, t0)]));
        let acks: Vec<_> = (1..10).map(|n| acked_packet(n, t0)).collect();
        cc.on_ack_event(&event(recovery_start, &acks, &[]));
        assert_eq!(cc.cwnd_bytes(), 5 * MDS);
        assert_eq!(cc.phase(), Phase::Recovery);
        let sent_after = recovery_start + Duration::from_millis(1);
        cc.on_ack_event(&event(
            sent_after + RTT,
            &[acked_packet(10, sent_after)],
            &[],
        ));
        assert_eq!(cc.phase(), Phase::CongestionAvoidance);
    }

    #[test]
    fn persistent_congestion_collapses_to_minimum_window() {
        let mut cc = reno();
        let t0 = Instant::now();
        let mut ev = event(t0 + 3 * RTT, &[], &[]);
        let lost_pkts = [lost_packet(0, t0), lost_packet(1, t0 + RTT)];
        ev.lost = &lost_pkts;
        ev.persistent_congestion = true;
        cc.on_ack_event(&ev);
        assert_eq!(cc.cwnd_bytes(), 2 * MDS);
        assert_eq!(cc.ssthresh_bytes(), Some(5 * MDS));
        assert_eq!(cc.phase(), Phase::SlowStart);
    }

    #[test]
    fn pto_does_not_change_the_window() {
        let mut cc = reno();
        cc.on_pto(Instant::now());
        assert_eq!(cc.cwnd_bytes(), 10 * MDS);
        assert_eq!(cc.phase(), Phase::SlowStart);
    }

    #[test]
    fn no_increase_while_app_limited() {
        let mut cc = reno();
        let t0 = Instant::now();
        cc.on_app_limited(t0, MDS);
        cc.on_ack_event(&event(t0 + RTT, &[acked_packet(0, t0)], &[]));
        assert_eq!(cc.cwnd_bytes(), 10 * MDS);
        // A send that fills the window ends the app-limited period.
        cc.on_packet_sent(t0 + RTT, &sent_packet(1, t0 + RTT, 9 * MDS));
        cc.on_ack_event(&event(t0 + 2 * RTT, &[acked_packet(1, t0 + RTT)], &[]));
        assert_eq!(cc.cwnd_bytes(), 11 * MDS);
    }

    #[test]
    fn pacing_rate_is_gain_times_cwnd_over_srtt() {
        let cc = reno();
        // 1.25 * 12000 B / 0.1 s
        assert_eq!(cc.pacing_rate_bytes_per_sec(RTT), Some(150_000));
        assert_eq!(cc.pacing_rate_bytes_per_sec(Duration::ZERO), None);
        let unpaced = NewReno::new(NewRenoConfig {
            pacing_gain: None,
            ..NewRenoConfig::default()
        })
        .unwrap();
        assert_eq!(unpaced.pacing_rate_bytes_per_sec(RTT), None);
    }

    #[test]
    fn path_change_resets_to_initial_state() {
        let mut cc = reno();
        let t0 = Instant::now();
        cc.on_ack_event(&event(t0 + RTT, &[], &[lost_packet(0, t0)]));
        cc.on_path_change(t0 + RTT);
        assert_eq!(cc.cwnd_bytes(), 10 * MDS);
        assert_eq!(cc.ssthresh_bytes(), None);
        assert_eq!(cc.phase(), Phase::SlowStart);
    }

    #[test]
    fn invalid_params_are_rejected_naming_the_field() {
        let bad = |config: NewRenoConfig| NewReno::new(config).unwrap_err().field;
        let ok = NewRenoConfig::default();
        assert_eq!(
            bad(NewRenoConfig {
                initial_cwnd_pkts: 1,
                ..ok
            }),
            "initial_cwnd_pkts"
        );
        assert_eq!(
            bad(NewRenoConfig {
                max_datagram_size: 0,
                ..ok
            }),
            "max_datagram_size"
        );
        assert_eq!(
            bad(NewRenoConfig {
                loss_reduction_factor: f64::NAN,
                ..ok
            }),
            "loss_reduction_factor"
        );
        assert_eq!(
            bad(NewRenoConfig {
                pacing_gain: Some(f64::INFINITY),
                ..ok
            }),
            "pacing_gain"
        );
    }
}
