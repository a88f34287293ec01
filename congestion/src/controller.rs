//! The [`Controller`] trait: the interface every controller implements and
//! every stack adapter, the simulator and the tests drive.

use std::fmt::Debug;
use std::time::Duration;
use std::time::Instant;

use crate::events::ControllerEvent;
use crate::types::AckEvent;
use crate::types::Phase;
use crate::types::SentPacket;

/// The interface every controller implements.
pub trait Controller: Debug + Send + Sync {
    /// Stable algorithm name (`"vegas"`, `"newreno"`, ...).
    fn name(&self) -> &'static str;

    /// A packet was sent.
    fn on_packet_sent(&mut self, now: Instant, packet: &SentPacket);

    /// An ACK frame was processed, or the loss-detection timer declared
    /// packets lost (then `acked` is empty and `rtt_sample` is None).
    fn on_ack_event(&mut self, event: &AckEvent<'_>);

    /// A probe timeout fired (RFC 9002 section 6.2).
    fn on_pto(&mut self, now: Instant);

    /// The sender ran out of data with `bytes_in_flight` below the window.
    fn on_app_limited(&mut self, _now: Instant, _bytes_in_flight: usize) {}

    /// The path changed (migration): forget path state.
    fn on_path_change(&mut self, now: Instant);

    /// The maximum datagram size changed (PMTUD).
    fn set_max_datagram_size(&mut self, max_datagram_size: usize);

    /// Congestion window in bytes.
    fn cwnd_bytes(&self) -> usize;

    /// The bytes the sender may send now with `bytes_in_flight` in flight:
    /// the free window, rounded down to whole datagrams unless the
    /// controller's `whole_datagrams` is off. A stack that sizes packets to
    /// the free window (quiche) asks this; one that sends only when a full
    /// datagram fits (quinn) needs only [`Controller::cwnd_bytes`].
    fn cwnd_available_bytes(&self, bytes_in_flight: usize) -> usize;

    /// Slow-start threshold in bytes (None while infinite).
    fn ssthresh_bytes(&self) -> Option<usize>;

    /// Pacing rate in bytes per second; None means "do not pace".
    fn pacing_rate_bytes_per_sec(&self, smoothed_rtt: Duration) -> Option<u64>;

    /// Current phase.
    fn phase(&self) -> Phase;

    /// The time before which the controller sends nothing, whatever its
    /// window (the 500 ms tick a 1995 BSD Reno waited for before its
    /// coarse timeout's retransmission: [`crate::NewRenoConfig::tick_wait`]).
    /// A driver that honours it answers 0 from
    /// [`Controller::cwnd_available_bytes`] until then and wakes the sender
    /// at that time, as nothing else may; one that cannot must refuse the
    /// controller ([`crate::spec::Driver`]). None for every controller
    /// unless a key asks for it.
    fn send_hold_until(&self) -> Option<Instant> {
        None
    }

    /// Whether the controller is in a recovery period (a loss reduction was
    /// made and no packet sent after it has been acknowledged yet).
    fn in_recovery(&self) -> bool {
        self.phase() == Phase::Recovery
    }

    /// A copy of the controller with all its state (for stacks that keep a
    /// path's controller across a port change, or snapshot it).
    fn clone_box(&self) -> Box<dyn Controller>;

    /// Takes the oldest pending decision record (for qlog), if any.
    fn poll_event(&mut self) -> Option<ControllerEvent> {
        None
    }
}
