//! Congestion avoidance (`avoidance.rs`): the alpha/beta step on Diff and
//! the RTT resolution below which no queue is read.

use super::*;
use crate::test_sender::MDS;
use crate::test_sender::MS;

#[test]
fn increase_below_alpha() {
    let mut h = Harness::in_congestion_avoidance(12);
    // Diff = 12 * (1 - 100/104) = 0.46 < alpha = 1
    h.round(104 * MS);
    assert_eq!(h.cwnd_pkts(), 13.0);
    let d = h.last_round();
    assert_eq!(d.action, Action::Increase);
    assert!((d.diff_pkts - 12.0 * 4.0 / 104.0).abs() < 1e-9, "{d:?}");
    assert_eq!(d.phase, Phase::CongestionAvoidance);
}

#[test]
fn hold_between_alpha_and_beta() {
    let mut h = Harness::in_congestion_avoidance(12);
    // Diff = 12 * (1 - 100/120) = 2
    h.round(120 * MS);
    assert_eq!(h.cwnd_pkts(), 12.0);
    let d = h.last_round();
    assert_eq!(d.action, Action::Hold);
    assert!((d.diff_pkts - 2.0).abs() < 1e-9);
}

#[test]
fn decrease_above_beta_and_ssthresh_follows_cwnd_down() {
    let mut h = Harness::in_congestion_avoidance(12);
    // Diff = 12 * (1 - 100/150) = 4 > beta = 3
    h.round(150 * MS);
    assert_eq!(h.cwnd_pkts(), 11.0);
    assert_eq!(h.cc.ssthresh_bytes(), Some(11 * MDS));
    assert_eq!(h.last_round().action, Action::Decrease);
    h.round(150 * MS); // Diff = 11/3 > 3
    assert_eq!(h.cwnd_pkts(), 10.0);
    assert_eq!(h.cc.ssthresh_bytes(), Some(10 * MDS));
    assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
}

#[test]
fn alpha_beta_scale_with_max_datagram_size() {
    let mut h = Harness::in_congestion_avoidance(12);
    // 4800 bytes of queue: 4 packets of 1200 bytes, 2 of 2400 bytes.
    h.cc.set_max_datagram_size(2 * MDS);
    h.round(150 * MS);
    let d = h.last_round();
    assert_eq!(d.action, Action::Hold);
    assert!((d.diff_pkts - 2.0).abs() < 1e-9);
}

#[test]
fn rtts_below_the_resolution_are_not_a_queue() {
    // A 30 us path whose RTT jumps to 600 us (a late receiver wake-up):
    // as measured, Diff = 20 * (1 - 30/600) = 19 packets, a decrease;
    // with the 1 ms resolution both are 1 ms, Diff 0, an increase.
    let us = Duration::from_micros(1);
    let run = |resolution: Option<Duration>| {
        let mut h = Harness::vegas(VegasConfig {
            initial_cwnd_pkts: 20,
            rtt_resolution: resolution,
            ..windowed(10 * SECOND)
        });
        h.cc.window.ssthresh_bytes = h.cc.window.cwnd_bytes;
        h.round(30 * us);
        h.drain_events();
        h.round(600 * us);
        h.last_round()
    };
    let measured = run(None);
    assert!(measured.diff_pkts > 18.0, "{measured:?}");
    assert_eq!(measured.action, Action::Decrease);
    let floored = run(Some(DEFAULT_RTT_RESOLUTION));
    assert_eq!(floored.diff_pkts, 0.0, "{floored:?}");
    assert_eq!(floored.action, Action::Increase);
    // Above the resolution a queue is a queue: 1 ms -> 1.5 ms.
    let mut h = Harness::vegas(VegasConfig {
        initial_cwnd_pkts: 20,
        ..windowed(10 * SECOND)
    });
    h.cc.window.ssthresh_bytes = h.cc.window.cwnd_bytes;
    h.round(1000 * us);
    h.drain_events();
    h.round(1500 * us);
    assert_eq!(h.last_round().action, Action::Decrease);
}
