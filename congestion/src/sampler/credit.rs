//! The credit cycle: how long the window's bytes take to come back as
//! acknowledged, the period the Vegas family paces one window over.

use super::*;

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
        self.credit_cycle
    }

    pub(super) fn update_credit_cycle(&mut self, event: &AckEvent<'_>) {
        let (mut bytes, mut weighted_nanos) = (0u128, 0u128);
        for packet in event.acked {
            let age = event.now.saturating_duration_since(packet.time_sent);
            bytes += packet.size_bytes as u128;
            weighted_nanos += packet.size_bytes as u128 * age.as_nanos();
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampler::tests::ack_event;
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
