//! Gamma selected from the available rate ([`crate::transient`]) in the
//! Vegas controller.

use super::*;
use crate::test_sender::MDS;
use crate::test_sender::MS;
use crate::transient::selection::GammaApproach;

#[test]
fn gamma_selected_at_end_of_first_usable_round() {
    // lambda = 5000 pkt/s, d = 100 ms, alpha = 1: W^ = 501 lies in
    // [7/8 * 512, 7/8 * 1024) of 2, 2, 4, 4, ..., so slow start should
    // stop at 512 with Wbar = 384: gamma = floor(384^2 / (4 * 500 +
    // 384)) = 61 (eq. 14).
    let config = VegasConfig::paper().with_selected_gamma(5000.0, GammaApproach::Basic);
    let mut h = Harness::vegas(config);
    assert_eq!(h.cc.gamma_pkts(), 1.0);
    assert!(h.cc.gamma_choice().is_none());
    h.round(BASE_RTT);
    assert_eq!(h.cc.gamma_pkts(), 61.0);
    assert_eq!(h.last_round().gamma_pkts, 61.0);
    let choice = *h.cc.gamma_choice().unwrap();
    assert_eq!(choice.stop_window_pkts, 512.0);
    assert_eq!(choice.averaged_window_pkts, Some(384.0));
    let schedule = VegasSlowStart::DoublingEveryOtherRound {
        initial_window_pkts: 2.0,
    };
    let direct =
        select_gamma_for_available_rate(GammaApproach::Basic, 5000.0, 0.1, 1.0, schedule).unwrap();
    assert_eq!(choice, direct);
    // A held round with Diff = 3 > 1 but < 61 stays in slow start.
    h.round(BASE_RTT); // grow to 4
    h.drain_events();
    h.round(400 * MS); // Diff = 4 * (1 - 100/400) = 3
    assert_eq!(h.last_round().action, Action::SlowStartHold);
    assert_eq!(h.cc.phase(), Phase::SlowStart);
    // A new path selects again.
    h.cc.on_path_change(h.now);
    assert_eq!(h.cc.gamma_pkts(), 1.0);
    assert!(h.cc.gamma_choice().is_none());
    // Approach 2 (eq. 15): W^ = 801 is in the upper half of
    // [7/8 * 512, 7/8 * 1024) = [448, 896) (split at 672): stop at 1024.
    let config = VegasConfig::paper().with_selected_gamma(8000.0, GammaApproach::Enhanced);
    let mut h = Harness::vegas(config);
    h.round(BASE_RTT);
    let choice = h.cc.gamma_choice().unwrap();
    assert_eq!(choice.stop_window_pkts, 1024.0);
    assert_eq!(choice.averaged_window_pkts, Some(768.0));
    assert_eq!(
        h.cc.gamma_pkts(),
        (768.0f64 * 768.0 / (3200.0 + 768.0)).floor()
    );
}

#[test]
fn gamma_selection_starts_the_window_sequence_at_the_first_measured_window() {
    // A QUIC handshake is acknowledged in slow start before the first
    // round is measured: here the window is 3 packets when it starts, so
    // the sequence is 3, 3, 6, 6, 12, ... and W^ = 501 lies in
    // [7/8 * 384, 7/8 * 768): stop at 384 (from 2 packets it was 512).
    let config = VegasConfig::paper().with_selected_gamma(5000.0, GammaApproach::Basic);
    let mut h = Harness::vegas(config);
    h.cc.window.cwnd_bytes = 3 * MDS;
    h.cc.round_start_cwnd_bytes = 3 * MDS;
    h.round(BASE_RTT);
    let choice = *h.cc.gamma_choice().unwrap();
    assert_eq!(choice.stop_window_pkts, 384.0);
    assert_eq!(choice.averaged_window_pkts, Some(288.0));
    let schedule = VegasSlowStart::DoublingEveryOtherRound {
        initial_window_pkts: 3.0,
    };
    let direct =
        select_gamma_for_available_rate(GammaApproach::Basic, 5000.0, 0.1, 1.0, schedule).unwrap();
    assert_eq!(choice, direct);
}
