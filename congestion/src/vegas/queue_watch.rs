//! Every-round slow start's stop within a round
//! ([`SlowStartGrowth::EveryRound`](crate::SlowStartGrowth::EveryRound)).
//!
//! Judged only at a round's end, a window that doubles every round is two
//! doublings past the pipe before Diff sees it: a round's ACKs are for
//! packets sent in the round before, under half the window now. The paper's
//! held round (Brakmo & Peterson III-C) avoids that by measuring a steady
//! window; HyStart++ (RFC 9406 4.2) by watching the RTT within the round.
//! This watch does the second in Vegas's terms: once the last
//! [`QUEUE_WATCH_SAMPLES`] RTT samples all say the flow holds more than
//! beta packets in the queue (Little's law on the window at the round's
//! start), the window stops growing for the rest of the round, and the
//! round's end judges Diff as the paper's held round does.

use std::time::Duration;

/// RTT samples whose minimum is read: RFC 9406's N_RTT_SAMPLE (8), so one
/// late timer or jittered packet does not stop slow start.
pub const QUEUE_WATCH_SAMPLES: usize = 8;

/// The last [`QUEUE_WATCH_SAMPLES`] RTT samples of slow start.
#[derive(Clone, Debug, Default)]
pub struct QueueWatch {
    samples: [Duration; QUEUE_WATCH_SAMPLES],
    count: usize,
}

impl QueueWatch {
    /// Forgets the samples (slow start restarts, or the path changed).
    pub fn clear(&mut self) {
        self.count = 0;
    }

    /// Takes one RTT sample.
    pub fn on_rtt_sample(&mut self, rtt: Duration) {
        self.samples[self.count % QUEUE_WATCH_SAMPLES] = rtt;
        self.count += 1;
    }

    /// Packets the flow holds in the queue by the last samples' minimum:
    /// `window_pkts` x (min RTT - BaseRTT - noise) / min RTT. None until
    /// [`QUEUE_WATCH_SAMPLES`] samples are in.
    pub fn queued_pkts(
        &self,
        base_rtt: Duration,
        noise: Duration,
        window_pkts: f64,
    ) -> Option<f64> {
        if self.count < QUEUE_WATCH_SAMPLES {
            return None;
        }
        let min_rtt = self.samples.iter().min()?;
        if min_rtt.is_zero() {
            return None;
        }
        let queue_delay = min_rtt.saturating_sub(base_rtt).saturating_sub(noise);
        Some(window_pkts * queue_delay.as_secs_f64() / min_rtt.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn reads_nothing_before_eight_samples() {
        let mut watch = QueueWatch::default();
        for _ in 0..QUEUE_WATCH_SAMPLES - 1 {
            watch.on_rtt_sample(110 * MS);
        }
        assert_eq!(watch.queued_pkts(100 * MS, Duration::ZERO, 100.0), None);
        watch.on_rtt_sample(110 * MS);
        // 100 packets in flight, 10 ms of 110 queued: 9.1 packets.
        let queued = watch.queued_pkts(100 * MS, Duration::ZERO, 100.0).unwrap();
        assert!((queued - 100.0 * 10.0 / 110.0).abs() < 1e-9, "{queued}");
    }

    #[test]
    fn one_sample_without_queue_among_eight_reads_no_queue() {
        let mut watch = QueueWatch::default();
        for i in 0..2 * QUEUE_WATCH_SAMPLES {
            let rtt = if i == QUEUE_WATCH_SAMPLES + 3 {
                100 * MS
            } else {
                120 * MS
            };
            watch.on_rtt_sample(rtt);
        }
        assert_eq!(
            watch.queued_pkts(100 * MS, Duration::ZERO, 100.0),
            Some(0.0)
        );
        // Eight more with queue: it reads again.
        for _ in 0..QUEUE_WATCH_SAMPLES {
            watch.on_rtt_sample(120 * MS);
        }
        let queued = watch.queued_pkts(100 * MS, Duration::ZERO, 120.0).unwrap();
        assert!((queued - 20.0).abs() < 1e-9, "{queued}");
    }

    #[test]
    fn the_paths_delay_noise_is_not_queue() {
        let mut watch = QueueWatch::default();
        for _ in 0..QUEUE_WATCH_SAMPLES {
            watch.on_rtt_sample(Duration::from_micros(100_500));
        }
        assert_eq!(
            watch.queued_pkts(100 * MS, Duration::from_micros(500), 1000.0),
            Some(0.0)
        );
        watch.clear();
        assert_eq!(watch.queued_pkts(100 * MS, Duration::ZERO, 1000.0), None);
    }
}
