//! The BaseRTT filter: the minimum RTT over the connection's life or a
//! sliding window (with its idle reset), and the pair of filters
//! ([`BaseRtts`]) BaseRTT is read from.

use std::time::Duration;

use super::timeline::Nanos;
use super::BaseRttMode;

/// BBR's min RTT filter length, 10 s (draft-ietf-ccwg-bbr, MinRTTFilterLen):
/// long enough to include a quiet moment, short enough to follow a route
/// change.
pub const DEFAULT_BASE_RTT_WINDOW: Duration = Duration::from_secs(10);

/// Forget BaseRTT after this long with nothing in flight: RFC 5681 section
/// 4.1 restarts after an idle period longer than the RTO, whose minimum is
/// 1 s (RFC 6298 section 2.4); Linux `tcp_vegas.c` resets baseRTT when
/// transmission restarts.
pub const DEFAULT_IDLE_RESET: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TimedRtt {
    pub(super) time: Nanos,
    pub(super) rtt: Duration,
}

/// Windowed minimum keeping the best, second-best and third-best samples of
/// successive parts of the window (Linux `lib/minmax.c`): fixed size.
#[derive(Clone, Copy, Debug)]
pub(super) struct WindowedMinRtt {
    /// The window, a quarter and half of it (`Duration` division, as
    /// `lib/minmax.c` divides), in nanoseconds: computed once, not per
    /// sample.
    pub(super) window_ns: u64,
    pub(super) quarter_window_ns: u64,
    pub(super) half_window_ns: u64,
    pub(super) best: Option<[TimedRtt; 3]>,
}

impl WindowedMinRtt {
    pub(super) fn new(window: Duration) -> Self {
        let ns = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        WindowedMinRtt {
            window_ns: ns(window),
            quarter_window_ns: ns(window / 4),
            half_window_ns: ns(window / 2),
            best: None,
        }
    }

    pub(super) fn update(&mut self, time: Nanos, rtt: Duration) {
        let sample = TimedRtt { time, rtt };
        let window_ns = self.window_ns;
        let Some(best) = &mut self.best else {
            self.best = Some([sample; 3]);
            return;
        };
        // A new minimum, or nothing left in the window: start over.
        if rtt <= best[0].rtt || time.saturating_ns_since(best[2].time) > window_ns {
            *best = [sample; 3];
            return;
        }
        if rtt <= best[1].rtt {
            best[1] = sample;
            best[2] = sample;
        } else if rtt <= best[2].rtt {
            best[2] = sample;
        }
        let age_ns = time.saturating_ns_since(best[0].time);
        if age_ns > window_ns {
            // The best one left the window: promote the others.
            best[0] = best[1];
            best[1] = best[2];
            best[2] = sample;
            if time.saturating_ns_since(best[0].time) > window_ns {
                best[0] = best[1];
                best[1] = best[2];
                best[2] = sample;
            }
        } else if best[1].time == best[0].time && age_ns > self.quarter_window_ns {
            // A quarter window without a second choice: take one.
            best[1] = sample;
            best[2] = sample;
        } else if best[2].time == best[1].time && age_ns > self.half_window_ns {
            // Half a window without a third choice: take one.
            best[2] = sample;
        }
    }

    pub(super) fn get(&self) -> Option<Duration> {
        self.best.map(|best| best[0].rtt)
    }

    /// How long ago the current minimum was measured.
    pub(super) fn age(&self, now: Nanos) -> Option<Duration> {
        self.best
            .map(|best| now.saturating_duration_since(best[0].time))
    }
}

/// BaseRTT in either mode.
#[derive(Clone, Copy, Debug)]
pub(super) enum BaseRttFilter {
    Lifetime(Option<Duration>),
    Windowed(WindowedMinRtt),
}

impl BaseRttFilter {
    pub(super) fn new(mode: BaseRttMode) -> Self {
        match mode {
            BaseRttMode::Lifetime => BaseRttFilter::Lifetime(None),
            BaseRttMode::Windowed { window } => {
                BaseRttFilter::Windowed(WindowedMinRtt::new(window))
            }
        }
    }

    pub(super) fn update(&mut self, time: Nanos, rtt: Duration) {
        match self {
            BaseRttFilter::Lifetime(min) => *min = Some(min.map_or(rtt, |m| m.min(rtt))),
            BaseRttFilter::Windowed(filter) => filter.update(time, rtt),
        }
    }

    pub(super) fn get(&self) -> Option<Duration> {
        match self {
            BaseRttFilter::Lifetime(min) => *min,
            BaseRttFilter::Windowed(filter) => filter.get(),
        }
    }
}

/// What the RTT samples said beyond BaseRTT: the latest sample, and the
/// smallest mean RTT of a round so far, which the path's delay noise is
/// measured from (`RoundSampler::delay_noise`). A path change forgets the
/// latest sample only.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RttHistory {
    latest: Option<Duration>,
    min_round_mean: Option<Duration>,
}

impl RttHistory {
    /// A new RTT sample.
    pub(super) fn on_sample(&mut self, rtt: Duration) {
        self.latest = Some(rtt);
    }

    /// The latest RTT sample, if any since the start or the path change.
    pub(super) fn latest(&self) -> Option<Duration> {
        self.latest
    }

    /// A round's mean RTT, from enough samples to count.
    pub(super) fn on_round_mean(&mut self, mean_rtt: Duration) {
        self.min_round_mean = Some(self.min_round_mean.map_or(mean_rtt, |m| m.min(mean_rtt)));
    }

    /// The smallest mean RTT of a round so far.
    pub(super) fn min_round_mean(&self) -> Option<Duration> {
        self.min_round_mean
    }

    /// The path changed: the latest sample was of the old one.
    pub(super) fn forget_latest(&mut self) {
        self.latest = None;
    }
}

/// BaseRTT's two filters: one over every RTT sample, one over samples of
/// full-sized packets (`SamplerConfig::base_rtt_full_sized_only`, module
/// documentation of `sampler`).
#[derive(Clone, Copy, Debug)]
pub(super) struct BaseRtts {
    /// BaseRTT over every sample.
    all: BaseRttFilter,
    /// BaseRTT over samples of full-sized packets.
    full_sized: BaseRttFilter,
    /// `SamplerConfig::base_rtt_full_sized_only`: without it the
    /// full-sized filter is never read, so it is not kept either (one
    /// filter update less per RTT sample, on the per-ACK path).
    full_sized_only: bool,
}

impl BaseRtts {
    /// Both filters empty, in `mode`; BaseRTT from full-sized packets
    /// once there is one with `full_sized_only`.
    pub(super) fn new(mode: BaseRttMode, full_sized_only: bool) -> Self {
        BaseRtts {
            all: BaseRttFilter::new(mode),
            full_sized: BaseRttFilter::new(mode),
            full_sized_only,
        }
    }

    /// A sample `rtt` taken at `time`; `full_sized`: the packet it
    /// measures is a full datagram.
    pub(super) fn update(&mut self, time: Nanos, rtt: Duration, full_sized: bool) {
        self.all.update(time, rtt);
        if full_sized && self.full_sized_only {
            self.full_sized.update(time, rtt);
        }
    }

    /// The filter BaseRTT is read from: full-sized packets' once there is
    /// one (with `full_sized_only`), otherwise every sample's.
    pub(super) fn counted(&self) -> &BaseRttFilter {
        if self.full_sized_only && self.full_sized.get().is_some() {
            &self.full_sized
        } else {
            &self.all
        }
    }

    /// How long ago the counted filter's BaseRTT was measured (None:
    /// lifetime BaseRTT, or no sample yet).
    pub(super) fn age(&self, now: Nanos) -> Option<Duration> {
        match self.counted() {
            BaseRttFilter::Lifetime(_) => None,
            BaseRttFilter::Windowed(filter) => filter.age(now),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use super::*;
    use crate::sampler::tests::ack_event;
    use crate::sampler::RoundSampler;
    use crate::sampler::SamplerConfig;
    use crate::test_sender::acked_packet;
    use crate::test_sender::sent_packet;
    use crate::test_sender::MDS;
    use crate::test_sender::MS;
    use crate::types::AckedPacket;
    use crate::types::RttSample;
    use crate::types::SentPacket;

    #[test]
    fn base_rtt_comes_from_full_sized_packets_once_there_is_one() {
        let t0 = Instant::now();
        // A 100-byte packet (shorter serialization, lower RTT), then a
        // full-sized one; BaseRTT after each.
        let run = |config: SamplerConfig| {
            let mut sampler = RoundSampler::new(config, MDS).unwrap();
            let small = AckedPacket {
                size_bytes: 100,
                ..acked_packet(0, t0)
            };
            let small_sent = SentPacket {
                size_bytes: 100,
                ..sent_packet(0, t0, 0)
            };
            sampler.on_packet_sent(&small_sent, 2 * MDS);
            sampler.on_ack_frame(&ack_event(t0 + 91 * MS, &[small], 91 * MS));
            let after_small = sampler.base_rtt();
            sampler.on_packet_sent(&sent_packet(1, t0 + 91 * MS, 0), 2 * MDS);
            let full = [acked_packet(1, t0 + 91 * MS)];
            sampler.on_ack_frame(&ack_event(t0 + 191 * MS, &full, 100 * MS));
            (after_small, sampler.base_rtt())
        };
        // Until a full-sized packet is measured, every sample counts; then
        // only full-sized packets do.
        assert_eq!(run(SamplerConfig::paper()), (Some(91 * MS), Some(100 * MS)));
        // Without the option the small packet's RTT stays BaseRTT.
        let every_sample = SamplerConfig {
            base_rtt_full_sized_only: false,
            ..SamplerConfig::paper()
        };
        assert_eq!(run(every_sample), (Some(91 * MS), Some(91 * MS)));
    }

    #[test]
    fn a_zero_min_rtt_cannot_make_base_rtt_zero() {
        let mut sampler = RoundSampler::new(SamplerConfig::default(), MDS).unwrap();
        let now = Instant::now();
        let packets = [acked_packet(0, now - 40 * MS)];
        let mut event = ack_event(now, &packets, 40 * MS);
        event.min_rtt = Some(Duration::ZERO);
        event.max_ack_delay = 40 * MS;
        event.rtt_sample = Some(RttSample {
            latest_rtt: 40 * MS,
            ack_delay: 40 * MS,
        });
        sampler.on_ack_frame(&event);
        assert_eq!(sampler.base_rtt(), Some(40 * MS), "the whole sample");
    }

    #[test]
    fn windowed_base_rtt_expires_and_lifetime_does_not() {
        let window = Duration::from_secs(10);
        let windowed = SamplerConfig {
            base_rtt: BaseRttMode::Windowed { window },
            ..SamplerConfig::paper()
        };
        let mut windowed = RoundSampler::new(windowed, MDS).unwrap();
        let mut lifetime = RoundSampler::new(SamplerConfig::paper(), MDS).unwrap();
        let t0 = Instant::now();
        for sampler in [&mut windowed, &mut lifetime] {
            sampler.on_ack_frame(&ack_event(t0, &[], 50 * MS));
            for s in 1..=10 {
                let now = t0 + Duration::from_secs(s);
                sampler.on_ack_frame(&ack_event(now, &[], 80 * MS));
            }
            assert_eq!(sampler.base_rtt(), Some(50 * MS), "10 s: still in");
        }
        let t11 = t0 + Duration::from_secs(11);
        windowed.on_ack_frame(&ack_event(t11, &[], 80 * MS));
        lifetime.on_ack_frame(&ack_event(t11, &[], 80 * MS));
        assert_eq!(windowed.base_rtt(), Some(80 * MS), "50 ms expired");
        assert_eq!(lifetime.base_rtt(), Some(50 * MS));
    }

    #[test]
    fn idle_period_resets_base_rtt() {
        let mut sampler = RoundSampler::new(SamplerConfig::default(), MDS).unwrap();
        let t0 = Instant::now();
        let mut event = ack_event(t0, &[], 50 * MS);
        event.bytes_in_flight = 0;
        sampler.on_ack_frame(&event);
        assert_eq!(sampler.base_rtt(), Some(50 * MS));
        // Sending again after less than the idle threshold keeps it.
        sampler.on_packet_sent(&sent_packet(0, t0 + 500 * MS, 0), 10 * MDS);
        assert_eq!(sampler.base_rtt(), Some(50 * MS));
        event.now = t0 + Duration::from_secs(1);
        sampler.on_ack_frame(&event);
        sampler.on_packet_sent(&sent_packet(1, t0 + Duration::from_secs(3), 0), 10 * MDS);
        assert_eq!(sampler.base_rtt(), None);
    }
}
