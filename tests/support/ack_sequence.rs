//! One deterministic sequence of sends and ACK frames that every
//! controller and every stack's trait replays: the per-ACK cost benchmark
//! (`benches/per_ack.rs`) and the no-allocation test
//! (`tests/no_alloc_per_ack.rs`).
//!
//! The path: 100 Mbit/s, 1200-byte datagrams sent at exactly the link's
//! rate (one every 96 us), a peer that acknowledges every 2nd packet, and
//! a round-trip time of 40 ms plus a queue that rises from 0 to 3 ms over
//! one second and falls back over the next (a Vegas-sized queue, so that
//! the family takes both its increase and its decrease decisions). One
//! packet in every [`LOSS_INTERVAL_FRAMES`] frames is declared lost
//! instead of acknowledged, so that loss-based controllers leave slow
//! start and run their congestion avoidance. The sequence is open loop: it ignores the controller's window, so every
//! controller sees exactly the same events and their costs compare.

#![allow(dead_code)]

use std::ops::Range;
use std::time::Duration;

/// The size of every datagram.
pub const DATAGRAM_BYTES: usize = 1200;
/// 1200 bytes at 100 Mbit/s.
pub const SEND_INTERVAL: Duration = Duration::from_nanos(96_000);
/// The path's round-trip time without queue.
pub const BASE_RTT: Duration = Duration::from_millis(40);
/// The queue's delay at its peak.
pub const PEAK_QUEUE_DELAY: Duration = Duration::from_millis(3);
/// The queue rises for this long and falls for as long.
pub const QUEUE_HALF_PERIOD: Duration = Duration::from_secs(1);
/// Packets each ACK frame acknowledges.
pub const PACKETS_PER_FRAME: u64 = 2;
/// The first frame that reports a loss (0.96 s in) ...
pub const FIRST_LOSS_FRAME: u64 = 5_000;
/// ... and the frames between two losses (9.6 s).
pub const LOSS_INTERVAL_FRAMES: u64 = 50_000;

/// One ACK frame and the packets sent since the previous one. Times are
/// offsets from the sequence's start (a replay adds its own `Instant`).
#[derive(Clone, Debug)]
pub struct Frame {
    /// When the frame arrives.
    pub at: Duration,
    /// Packet numbers sent after the previous frame and up to this one.
    pub sent: Range<u64>,
    /// Packet numbers this frame acknowledges (consecutive).
    pub acked: Range<u64>,
    /// The packet this frame declares lost, just below `acked`.
    pub lost: Option<u64>,
    /// `at` minus the send time of the largest acknowledged packet.
    pub latest_rtt: Duration,
    /// The smallest `latest_rtt` so far.
    pub min_rtt: Duration,
    /// RFC 9002 section 5.3's smoothed RTT after this frame's sample.
    pub smoothed_rtt: Duration,
}

impl Frame {
    /// Bytes in flight after this frame's packets were sent and its
    /// acknowledged packets removed.
    pub fn bytes_in_flight(&self) -> usize {
        (self.sent.end - self.acked.end) as usize * DATAGRAM_BYTES
    }

    /// Bytes in flight before the acknowledgement (after the sends).
    pub fn prior_bytes_in_flight(&self) -> usize {
        self.bytes_in_flight() + self.acked_bytes() + self.lost_bytes()
    }

    /// Bytes this frame declares lost.
    pub fn lost_bytes(&self) -> usize {
        self.lost.map_or(0, |_| DATAGRAM_BYTES)
    }

    /// Packets acknowledged or lost before this frame.
    pub fn removed_before(&self) -> u64 {
        self.lost.unwrap_or(self.acked.start)
    }

    /// Bytes this frame acknowledges.
    pub fn acked_bytes(&self) -> usize {
        (self.acked.end - self.acked.start) as usize * DATAGRAM_BYTES
    }
}

/// When packet `pkt_num` is sent.
pub fn sent_at(pkt_num: u64) -> Duration {
    SEND_INTERVAL * pkt_num as u32
}

/// The queue's delay at `t`: a triangle wave, so that arrival times stay
/// increasing (it falls by at most 0.6 us per frame).
fn queue_delay(t: Duration) -> Duration {
    let period = 2 * QUEUE_HALF_PERIOD.as_nanos();
    let phase = t.as_nanos() % period;
    let rising = phase.min(period - phase);
    let nanos = PEAK_QUEUE_DELAY.as_nanos() * rising / QUEUE_HALF_PERIOD.as_nanos();
    Duration::from_nanos(nanos as u64)
}

/// The first `frames` ACK frames of the sequence.
pub fn sequence(frames: usize) -> Vec<Frame> {
    let mut out = Vec::with_capacity(frames);
    let mut next_send = 0u64;
    let mut min_rtt = Duration::MAX;
    let mut smoothed_rtt: Option<Duration> = None;
    for k in 0..frames as u64 {
        let mut acked = k * PACKETS_PER_FRAME..(k + 1) * PACKETS_PER_FRAME;
        let loses =
            k >= FIRST_LOSS_FRAME && (k - FIRST_LOSS_FRAME).is_multiple_of(LOSS_INTERVAL_FRAMES);
        let lost = loses.then(|| {
            acked.start += 1;
            acked.start - 1
        });
        let largest_sent = sent_at(acked.end - 1);
        let latest_rtt = BASE_RTT + queue_delay(largest_sent);
        let at = largest_sent + latest_rtt;
        // Everything whose send time has come before the frame arrives.
        let first = next_send;
        while sent_at(next_send) <= at {
            next_send += 1;
        }
        min_rtt = min_rtt.min(latest_rtt);
        let smoothed = match smoothed_rtt {
            None => latest_rtt,
            Some(s) => (s * 7 + latest_rtt) / 8,
        };
        smoothed_rtt = Some(smoothed);
        out.push(Frame {
            at,
            sent: first..next_send,
            acked,
            lost,
            latest_rtt,
            min_rtt,
            smoothed_rtt: smoothed,
        });
    }
    out
}

/// The parameters `name` needs: the `*-compat` names require a buffer,
/// the flow counts and an approach (Feng & Vanichpun); the others none.
pub fn params(name: &str) -> vegas_cc::spec::Params {
    let mut params = vegas_cc::spec::Params::new();
    if name.ends_with("-compat") {
        for (key, value) in [
            ("buffer_pkts", "100"),
            ("reno_flows", "1"),
            ("vegas_flows", "1"),
            ("approach", "1"),
        ] {
            params.insert(key.into(), value.into());
        }
    }
    params
}

/// Replays `frames` into a vegas-cc controller as a stack would: each
/// packet sent, then the ACK frame, then the decision records drained.
/// `acked` is the caller's reused buffer. Returns the records drained.
pub fn replay_vegas_cc(
    controller: &mut dyn vegas_cc::Controller,
    frames: &[Frame],
    start: std::time::Instant,
    acked: &mut Vec<vegas_cc::AckedPacket>,
) -> usize {
    let mut records = 0;
    for f in frames {
        for pkt_num in f.sent.clone() {
            let time_sent = start + sent_at(pkt_num);
            let packet = vegas_cc::SentPacket {
                pkt_num,
                time_sent,
                size_bytes: DATAGRAM_BYTES,
                bytes_in_flight_before: (pkt_num - f.removed_before()) as usize * DATAGRAM_BYTES,
                in_flight: true,
            };
            controller.on_packet_sent(time_sent, &packet);
        }
        acked.clear();
        acked.extend(f.acked.clone().map(|pkt_num| vegas_cc::AckedPacket {
            pkt_num,
            time_sent: start + sent_at(pkt_num),
            size_bytes: DATAGRAM_BYTES,
        }));
        let lost = f.lost.map(|pkt_num| vegas_cc::LostPacket {
            pkt_num,
            time_sent: start + sent_at(pkt_num),
            size_bytes: DATAGRAM_BYTES,
        });
        controller.on_ack_event(&vegas_cc::AckEvent {
            now: start + f.at,
            acked,
            lost: lost.as_slice(),
            rtt_sample: Some(vegas_cc::RttSample {
                latest_rtt: f.latest_rtt,
                ack_delay: Duration::ZERO,
            }),
            min_rtt: Some(f.min_rtt),
            smoothed_rtt: f.smoothed_rtt,
            max_ack_delay: Duration::from_millis(25),
            prior_bytes_in_flight: f.prior_bytes_in_flight(),
            bytes_in_flight: f.bytes_in_flight(),
            persistent_congestion: false,
        });
        while controller.poll_event().is_some() {
            records += 1;
        }
    }
    records
}

/// Replays `frames` through quiche's congestion-control trait (what the
/// patched quiche calls on our adapter). `acked` is the reused buffer.
pub fn replay_quiche(
    controller: &mut dyn quiche::congestion::CongestionController,
    frames: &[Frame],
    start: std::time::Instant,
    acked: &mut Vec<quiche::congestion::Acked>,
) {
    for f in frames {
        for pkt_num in f.sent.clone() {
            let in_flight = (pkt_num - f.removed_before()) as usize * DATAGRAM_BYTES;
            controller.on_packet_sent(
                start + sent_at(pkt_num),
                in_flight,
                pkt_num,
                DATAGRAM_BYTES,
                true,
            );
        }
        acked.clear();
        acked.extend(f.acked.clone().map(|pkt_num| quiche::congestion::Acked {
            pkt_num,
            time_sent: start + sent_at(pkt_num),
            size: DATAGRAM_BYTES,
        }));
        let lost = f.lost.map(|pkt_num| quiche::congestion::Lost {
            packet_number: pkt_num,
            bytes_lost: DATAGRAM_BYTES,
            time_sent: start + sent_at(pkt_num),
        });
        controller.on_congestion_event(&quiche::congestion::CongestionEvent {
            now: start + f.at,
            acked,
            lost: lost.as_slice(),
            rtt_sample: Some(quiche::congestion::RttSample {
                latest_rtt: f.latest_rtt,
                ack_delay: Duration::ZERO,
            }),
            max_ack_delay: Duration::from_millis(25),
            min_rtt: Some(f.min_rtt),
            smoothed_rtt: f.smoothed_rtt,
            prior_bytes_in_flight: f.prior_bytes_in_flight(),
            bytes_in_flight: f.bytes_in_flight(),
            persistent_congestion: false,
        });
    }
}
