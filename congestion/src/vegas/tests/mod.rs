//! The Vegas family's tests, through one harness: [`TestSender`] sending
//! whole windows and acknowledging each with one ACK frame a chosen RTT
//! later. One file per concern, named after the file of `vegas/` (or the
//! family member) it tests: Gallop-Vegas, Vegas-A, Reno-compatible
//! alpha/beta, selected gamma, names and validation included.

use super::*;
use crate::test_sender::MinRtt;
use crate::test_sender::TestSender;

mod avoidance;
mod compat;
mod config;
mod drain;
mod gallop;
mod gamma;
mod loss;
mod pacing;
mod slow_start;
mod vegas_a;

const BASE_RTT: Duration = Duration::from_millis(100);
const SECOND: Duration = Duration::from_secs(1);

/// Sends whole windows at one instant and acknowledges them with one
/// ACK frame a chosen RTT later, so every round's Diff is
/// W * (1 - BaseRTT / RTT) exactly. The stack's min RTT is BaseRTT, or the
/// frame's RTT when that is lower.
type Harness = TestSender<Vegas>;

impl Harness {
    fn vegas(config: VegasConfig) -> Self {
        TestSender::new(Vegas::new(config).unwrap(), MinRtt::AtMost(BASE_RTT))
    }

    /// Paper Vegas already in congestion avoidance with BaseRTT 100 ms
    /// and a window of `cwnd_pkts`.
    fn in_congestion_avoidance(cwnd_pkts: usize) -> Self {
        Harness::in_congestion_avoidance_with(VegasConfig::paper(), cwnd_pkts)
    }

    /// `config` already in congestion avoidance with BaseRTT 100 ms and
    /// a window of `cwnd_pkts` (reached by a +1 round with Diff = 0).
    fn in_congestion_avoidance_with(config: VegasConfig, cwnd_pkts: usize) -> Self {
        let mut h = Harness::vegas(VegasConfig {
            initial_cwnd_pkts: cwnd_pkts - 1,
            ..config
        });
        h.cc.window.ssthresh_bytes = h.cc.window.cwnd_bytes;
        h.round(BASE_RTT); // Diff = 0 < alpha: +1
        assert_eq!(h.cwnd_pkts(), cwnd_pkts as f64);
        h.drain_events();
        h
    }

    /// The one round decision among the pending records.
    fn last_round(&mut self) -> RoundDecision {
        let decisions: Vec<_> = self
            .drain_events()
            .into_iter()
            .filter_map(|e| match e {
                ControllerEvent::Round(d) => Some(d),
                _ => None,
            })
            .collect();
        assert_eq!(decisions.len(), 1, "one decision per round");
        decisions[0]
    }
}

/// The robust defaults with a 2 s BaseRTT window and one sample per
/// round (the harness acknowledges a whole round with one ACK frame).
fn windowed(window: Duration) -> VegasConfig {
    let mut c = VegasConfig::default();
    c.sampler.min_round_samples = 1;
    c.sampler.min_round_bytes = 0;
    c.sampler.base_rtt = BaseRttMode::Windowed { window };
    c
}
