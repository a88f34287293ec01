//! Vegas-A congestion avoidance ([`crate::vegas_a`]) in the Vegas controller.

use super::*;
use crate::test_sender::MS;

fn params_changes(events: &[ControllerEvent]) -> Vec<(f64, f64)> {
    events
        .iter()
        .filter_map(|e| match *e {
            ControllerEvent::ParamsChanged {
                alpha_pkts,
                beta_pkts,
                ..
            } => Some((alpha_pkts, beta_pkts)),
            _ => None,
        })
        .collect()
}

#[test]
fn vegas_a_adapts_alpha_beta_once_per_round_with_params_changed() {
    let config = VegasConfig::paper().with_vegas_a();
    let mut h = Harness::in_congestion_avoidance_with(config, 12);
    assert_eq!(h.cc.name(), "vegas-a");
    // Th(t-rtt) = 11 pkts / 100 ms. 12 pkts at 120 ms: Th = 100 pkt/s
    // fell, Diff = 2 in (1, 3): wait (lines 06-07).
    h.round(120 * MS);
    assert_eq!(h.cwnd_pkts(), 12.0);
    assert_eq!(h.last_round().action, Action::Hold);
    // 110 ms: Th = 109 pkt/s rose, Diff = 1.09 in (1, 3): probe (lines
    // 01-04).
    h.round(110 * MS);
    assert_eq!(h.cwnd_pkts(), 13.0);
    let events = h.drain_events();
    assert_eq!(params_changes(&events), [(2.0, 4.0)]);
    assert!(events.iter().any(|e| matches!(
        e,
        ControllerEvent::Round(RoundDecision {
            action: Action::Increase,
            alpha_pkts,
            beta_pkts,
            ..
        }) if *alpha_pkts == 1.0 && *beta_pkts == 3.0
    )));
    assert_eq!((h.cc.alpha_pkts(), h.cc.beta_pkts()), (2.0, 4.0));
    // 125 ms: Th = 104 fell, Diff = 2.6 in (2, 4): wait.
    h.round(125 * MS);
    assert_eq!(h.cwnd_pkts(), 13.0);
    // 100 ms: Th = 130 rose, Diff = 0 <= alpha: cwnd only (line 12).
    h.round(BASE_RTT);
    assert_eq!(h.cwnd_pkts(), 14.0);
    assert!(params_changes(&h.drain_events()).is_empty());
    // 150 ms: Diff = 4.67 > beta = 4: cwnd, alpha, beta - 1 (20-22).
    h.round(150 * MS);
    assert_eq!(h.cwnd_pkts(), 13.0);
    assert_eq!(params_changes(&h.drain_events()), [(1.0, 3.0)]);
    // At alpha = 1 only cwnd decreases.
    h.round(150 * MS);
    assert_eq!(h.cwnd_pkts(), 12.0);
    assert!(params_changes(&h.drain_events()).is_empty());
    assert_eq!((h.cc.alpha_pkts(), h.cc.beta_pkts()), (1.0, 3.0));
}

#[test]
fn vegas_a_path_change_restores_starting_thresholds() {
    let config = VegasConfig::paper().with_vegas_a();
    let mut h = Harness::in_congestion_avoidance_with(config, 12);
    h.rounds(&[120, 110]);
    assert_eq!(h.cc.alpha_pkts(), 2.0);
    h.drain_events();
    h.cc.on_path_change(h.now);
    assert_eq!((h.cc.alpha_pkts(), h.cc.beta_pkts()), (1.0, 3.0));
    assert_eq!(params_changes(&h.drain_events()), [(1.0, 3.0)]);
    assert_eq!(
        h.cc.vegas_a().unwrap().previous_actual_bytes_per_sec(),
        None
    );
}
