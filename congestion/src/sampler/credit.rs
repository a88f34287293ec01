//! The credit cycle: how long the window's bytes take to come back as
//! acknowledged, the period the Vegas family paces one window over; with
//! the peer's ACK frequency, the smoothed estimates of the ACK path
//! ([`AckPathEstimates`]).

use std::time::Duration;

use super::AckedFrame;
use super::RoundSampler;
use super::SMOOTHING_GAIN_DENOMINATOR;

/// One ACK frame's mean age counts for at most this many credit cycles:
/// a frame that reports packets sent long ago (a peer's ACK frames lost)
/// moves the cycle by at most 1/8, as RFC 9002 5.3's gain intends for one
/// sample, instead of slowing pacing many-fold. Our choice; measured:
/// docs/constants.md, `sampler::CREDIT_CYCLE_MAX_STEP`.
pub const CREDIT_CYCLE_MAX_STEP: u32 = 2;

impl RoundSampler {
    /// How long the window's bytes take to come back as acknowledged:
    /// the byte-weighted mean, over every packet an ACK frame reports, of
    /// the time from its send to the frame's arrival, smoothed per frame
    /// with RFC 9002's 1/8 gain. Unlike the RTT sample, which measures only
    /// the largest newly acknowledged packet, it includes the time packets
    /// wait at the receiver for the frame that acknowledges them (with an
    /// ACK every N packets, up to N - 1 packet times) and every ACK's hold
    /// on an aggregating path: a window-limited sender moves one window per
    /// credit cycle, which is the rate to pace at.
    pub fn credit_cycle(&self) -> Option<Duration> {
        self.ack_path.credit_cycle()
    }
}

/// The ACK path's smoothed estimates, each updated once per ACK frame with
/// RFC 9002 5.3's 1/8 gain: the credit cycle and the peer's ACK frequency.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AckPathEstimates {
    /// Smoothed time from a byte's send to the ACK that reports it
    /// ([`RoundSampler::credit_cycle`]).
    credit_cycle: Option<Duration>,
    /// Packets newly acknowledged per ACK frame, smoothed with a 1/8 gain:
    /// the peer's ACK frequency as this sender sees it.
    pkts_per_ack_frame: Option<f64>,
}

impl AckPathEstimates {
    /// The smoothed credit cycle ([`RoundSampler::credit_cycle`]).
    pub(super) fn credit_cycle(&self) -> Option<Duration> {
        self.credit_cycle
    }

    /// The smoothed packets newly acknowledged per ACK frame.
    pub(super) fn pkts_per_ack_frame(&self) -> Option<f64> {
        self.pkts_per_ack_frame
    }

    /// One ACK frame: the credit cycle, then the packets per frame.
    pub(super) fn on_ack_frame(&mut self, frame: &AckedFrame) {
        self.update_credit_cycle(frame);
        self.update_pkts_per_ack_frame(frame);
    }

    /// The path changed: the old path's send-to-ACK time would pace the
    /// new one.
    pub(super) fn forget_credit_cycle(&mut self) {
        self.credit_cycle = None;
    }

    fn update_credit_cycle(&mut self, frame: &AckedFrame) {
        // The byte-weighted ages, summed as the sampler read the frame.
        let (bytes, weighted_nanos) = (frame.credit_bytes, frame.weighted_age_ns);
        if bytes == 0 {
            return;
        }
        let mean_nanos = u64::try_from(weighted_nanos / bytes).unwrap_or(u64::MAX);
        let mean = Duration::from_nanos(mean_nanos);
        self.credit_cycle = Some(match self.credit_cycle {
            None => mean,
            Some(smoothed) => {
                let n = SMOOTHING_GAIN_DENOMINATOR;
                let mean = mean.min(smoothed.saturating_mul(CREDIT_CYCLE_MAX_STEP));
                (smoothed * (n - 1) + mean) / n
            }
        });
    }

    /// Smooths the packets each ACK frame newly acknowledges.
    fn update_pkts_per_ack_frame(&mut self, frame: &AckedFrame) {
        if frame.acked_pkts == 0 {
            return;
        }
        let pkts = frame.acked_pkts as f64;
        self.pkts_per_ack_frame = Some(match self.pkts_per_ack_frame {
            None => pkts,
            Some(smoothed) => {
                let n = f64::from(SMOOTHING_GAIN_DENOMINATOR);
                (smoothed * (n - 1.0) + pkts) / n
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::sampler::tests::ack_event;
    use crate::sampler::SamplerConfig;
    use crate::test_sender::acked_packet;
    use crate::test_sender::sent_packet;
    use crate::test_sender::MDS;
    use crate::test_sender::MS;
    use crate::types::AckedPacket;

    #[test]
    fn credit_cycle_includes_the_wait_for_a_thinned_ack() {
        // Four packets sent 1 ms apart, acknowledged together 50 ms after
        // the last: they waited 53, 52, 51 and 50 ms, a mean of 51.5 ms,
        // while the RTT sample (the largest) is 50 ms.
        let t0 = Instant::now();
        let mut sampler = RoundSampler::new(SamplerConfig::default(), MDS).unwrap();
        let packets: Vec<AckedPacket> = (0..4)
            .map(|n| acked_packet(n, t0 + MS * n as u32))
            .collect();
        for (n, p) in packets.iter().enumerate() {
            sampler.on_packet_sent(&sent_packet(n as u64, p.time_sent, n * MDS), 10 * MDS);
        }
        let now = t0 + 53 * MS;
        sampler.on_ack_frame(&ack_event(now, &packets, 50 * MS));
        assert_eq!(sampler.credit_cycle(), Some(Duration::from_micros(51_500)));
        // Smoothed with RFC 9002's 1/8 gain: a second cycle of 59.5 ms
        // moves it by 1 ms.
        let later: Vec<AckedPacket> = (4..8)
            .map(|n| acked_packet(n, now + MS * (n as u32 - 4)))
            .collect();
        sampler.on_ack_frame(&ack_event(now + 61 * MS, &later, 58 * MS));
        assert_eq!(sampler.credit_cycle(), Some(Duration::from_micros(52_500)));
        // A new path (migration) starts without the old path's cycle.
        sampler.on_path_change();
        assert_eq!(sampler.credit_cycle(), None);
    }
}
