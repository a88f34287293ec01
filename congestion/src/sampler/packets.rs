//! What the sampler remembers of the packets between rounds: the largest
//! packet numbers sent and acknowledged ([`PacketNumbers`]), and what the
//! latest send saw ([`LastSend`]).

use std::time::Duration;

use super::timeline::Nanos;
use super::timeline::Timeline;
use crate::types::SentPacket;

/// The largest packet numbers sent and acknowledged so far: where the next
/// round ends, and which ACK frame's RTT sample counts (RFC 9002 5.1).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PacketNumbers {
    /// The largest packet number sent.
    largest_sent: Option<u64>,
    /// The largest packet number any ACK frame has acknowledged.
    largest_acked: Option<u64>,
}

impl PacketNumbers {
    /// Packet `pkt_num` was sent.
    pub(super) fn on_sent(&mut self, pkt_num: u64) {
        self.largest_sent = Some(pkt_num);
    }

    /// Whether `largest`, the largest packet number an ACK frame newly
    /// acknowledges, is the largest acknowledged yet; records it if so.
    /// (A frame without packets cannot be checked and is believed.)
    pub(super) fn on_acked(&mut self, largest: Option<u64>) -> bool {
        let newly_largest = largest
            .is_none_or(|pkt_num| self.largest_acked.is_none_or(|previous| pkt_num > previous));
        if let Some(pkt_num) = largest.filter(|_| newly_largest) {
            self.largest_acked = Some(pkt_num);
        }
        newly_largest
    }

    /// One past the largest packet number sent: a round that ends now
    /// hands the next one this end (its distinguished packet is the next
    /// send).
    pub(super) fn next_pkt_num(&self) -> u64 {
        self.largest_sent.map_or(0, |n| n + 1)
    }
}

/// What the latest send saw: the window it went out under, and since when
/// nothing has been in flight (set by the ACK frame that empties the path,
/// cleared by the next in-flight send).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LastSend {
    /// The window of the latest send.
    cwnd_bytes: usize,
    /// Since when nothing has been in flight.
    idle_since: Option<Nanos>,
}

impl LastSend {
    /// The window of the latest send, in bytes (0 before the first).
    pub(super) fn cwnd_bytes(&self) -> usize {
        self.cwnd_bytes
    }

    /// A packet was sent under a window of `cwnd_bytes`.
    pub(super) fn on_sent(&mut self, cwnd_bytes: usize) {
        self.cwnd_bytes = cwnd_bytes;
    }

    /// Whether the in-flight `packet` restarts a path that had nothing in
    /// flight for at least `idle_reset` (None: never).
    pub(super) fn idle_for_at_least(
        &self,
        packet: &SentPacket,
        idle_reset: Option<Duration>,
        timeline: &mut Timeline,
    ) -> bool {
        if let (Some(idle_since), Some(idle_reset)) = (self.idle_since, idle_reset) {
            if packet.bytes_in_flight_before == 0
                && timeline
                    .nanos(packet.time_sent)
                    .saturating_duration_since(idle_since)
                    >= idle_reset
            {
                return true;
            }
        }
        false
    }

    /// An in-flight packet was sent, or the path changed: not idle.
    pub(super) fn clear_idle(&mut self) {
        self.idle_since = None;
    }

    /// An ACK frame at `now` left `bytes_in_flight`: with none, the path
    /// is idle from `now`.
    pub(super) fn on_ack_frame(&mut self, now: Nanos, bytes_in_flight: usize) {
        if bytes_in_flight == 0 {
            self.idle_since = Some(now);
        }
    }
}
