//! Gallop-Vegas slow start ([`crate::gallop`]) in the Vegas controller.

use super::*;
use crate::test_sender::MDS;
use crate::test_sender::MS;

fn gallop_updates(events: &[ControllerEvent]) -> Vec<(f64, f64, u8)> {
    events
        .iter()
        .filter_map(|e| match *e {
            ControllerEvent::GallopUpdate {
                incr_pkts,
                maxincr_pkts,
                status,
                ..
            } => Some((incr_pkts, maxincr_pkts, status)),
            _ => None,
        })
        .collect()
}

fn exit_cause(events: &[ControllerEvent]) -> Option<SlowStartExitCause> {
    events.iter().find_map(|e| match *e {
        ControllerEvent::SlowStartExit { cause, .. } => Some(cause),
        _ => None,
    })
}

/// Gallop-Vegas Table 3 / eq. 7: Gallop-Vegas slow start from W_0 = 2 while
/// Diff stays below gamma: W_i = (i^2 - i + 4) / 2 = 2, 2, 3, 5, 8, 12,
/// ... and z_i = i; incr = i + 1 after RTT i; every RTT is a growing
/// one (no held rounds).
#[test]
fn gallop_vegas_table_3_gallop_replay() {
    let mut h = Harness::vegas(VegasConfig::paper().with_gallop());
    assert_eq!(h.cc.name(), "gallop-vegas");
    let mut windows = Vec::new();
    for i in 0..=11u32 {
        windows.push(h.cwnd_pkts());
        h.round(BASE_RTT);
        let events = h.drain_events();
        let updates = gallop_updates(&events);
        assert_eq!(updates.len(), 1, "one block per RTT");
        let (incr, maxincr, status) = updates[0];
        assert_eq!(incr, f64::from(i + 2), "incr after RTT {i}");
        assert_eq!(maxincr, h.cwnd_pkts(), "maxincr = cwnd");
        assert_eq!(status, 0);
        let round = events.iter().find_map(|e| match e {
            ControllerEvent::Round(d) => Some(*d),
            _ => None,
        });
        let round = round.unwrap();
        assert_eq!(round.action, Action::SlowStartGrow);
        assert_eq!(round.diff_pkts, 0.0);
        assert_eq!(round.phase, Phase::SlowStart);
    }
    let expected: Vec<f64> = (0..=11)
        .map(crate::transient::analytic::gallop_rtt_window_pkts)
        .collect();
    assert_eq!(windows, expected);
    assert_eq!(
        windows[..11],
        [2.0, 2.0, 3.0, 5.0, 8.0, 12.0, 17.0, 23.0, 30.0, 38.0, 47.0]
    );
    assert_eq!(h.cc.phase(), Phase::SlowStart);
    assert_eq!(h.cc.ssthresh_bytes(), None);
}

#[test]
fn gallop_cut_above_beta_then_first_congestion_avoidance_round_holds() {
    let mut h = Harness::vegas(VegasConfig::paper().with_gallop());
    h.rounds(&[100, 100, 100, 100]); // W: 2, 2, 3, 5 -> 8
    assert_eq!(h.cwnd_pkts(), 8.0);
    h.drain_events();
    // W = 8 at 200 ms: Diff = 8 * (1 - 100/200) = 4 >= beta = 3. This
    // RTT's ACKs added z_4 = 4 (cwnd 12): cut 4 + (4 - 3) = 5.
    h.round(200 * MS);
    assert_eq!(h.cwnd_pkts(), 7.0);
    assert_eq!(h.cc.ssthresh_bytes(), Some(7 * MDS));
    assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
    let events = h.drain_events();
    assert_eq!(
        exit_cause(&events),
        Some(SlowStartExitCause::DiffAtLeastBeta)
    );
    assert_eq!(gallop_updates(&events).last().unwrap().2, 2);
    // First congestion-avoidance round: status 2 -> 0, window held even
    // though Diff = 0 < alpha (maxincr is still the 12 of the cut).
    h.round(BASE_RTT);
    assert_eq!(h.cwnd_pkts(), 7.0);
    let events = h.drain_events();
    assert_eq!(gallop_updates(&events), [(5.0, 12.0, 0)]);
    // Then Vegas again.
    h.round(BASE_RTT);
    assert_eq!(h.cwnd_pkts(), 8.0);
    assert_eq!(h.last_round().action, Action::Increase);
}

#[test]
fn gallop_halves_incr_between_gamma_and_beta_and_leaves_one_rtt_after_incr_one() {
    let mut h = Harness::vegas(VegasConfig::paper().with_gallop());
    h.rounds(&[100, 100, 100, 100]); // cwnd 8, incr 5
    h.drain_events();
    // Diff = 8 * (1 - 100/125) = 1.6 in (gamma, beta), status 0: incr
    // = int(5/2) = 2, status 1. The RTT's z_4 = 4 still lands (cwnd 12).
    h.round(125 * MS);
    assert_eq!(h.cwnd_pkts(), 12.0);
    assert_eq!(gallop_updates(&h.drain_events()), [(2.0, 12.0, 1)]);
    // Diff = 12 * 0.2 = 2.4, status 1 -> 0, incr kept; cwnd + 2.
    h.round(125 * MS);
    assert_eq!(h.cwnd_pkts(), 14.0);
    assert_eq!(gallop_updates(&h.drain_events()), [(2.0, 14.0, 0)]);
    // Diff = 14 * 0.2 = 2.8, status 0: incr = 1 -> ssthresh = 2 (slow
    // start ends after the next RTT), status 1; cwnd + 2.
    h.round(125 * MS);
    assert_eq!(h.cwnd_pkts(), 16.0);
    assert_eq!(gallop_updates(&h.drain_events()), [(1.0, 16.0, 1)]);
    assert_eq!(h.cc.phase(), Phase::SlowStart);
    // The next RTT adds incr = 1, then congestion avoidance decides it
    // (Diff = 0 < alpha: + 1).
    h.round(BASE_RTT);
    assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
    assert_eq!(h.cc.ssthresh_bytes(), Some(17 * MDS));
    assert_eq!(h.cwnd_pkts(), 18.0);
    let events = h.drain_events();
    assert_eq!(
        exit_cause(&events),
        Some(SlowStartExitCause::IncrementAtOne)
    );
    assert!(events.iter().any(|e| matches!(
        e,
        ControllerEvent::Round(RoundDecision {
            action: Action::Increase,
            phase: Phase::CongestionAvoidance,
            ..
        })
    )));
}

#[test]
fn gallop_pto_resets_incr_maxincr_status_and_first_rtt_adds_nothing() {
    let mut h = Harness::vegas(VegasConfig::paper().with_gallop());
    h.rounds(&[100, 100, 100, 100, 100]); // cwnd 12, incr 6
    h.drain_events();
    h.send_window();
    h.cc.on_pto(h.now);
    // maxincr = 2 (the window), incr = 0, status = 0; the first RTT
    // then adds nothing and incr becomes 1.
    assert_eq!(gallop_updates(&h.drain_events()), [(1.0, 2.0, 0)]);
    let gallop = h.cc.gallop().unwrap();
    assert_eq!((gallop.incr_pkts(), gallop.maxincr_pkts()), (1, 2));
    assert_eq!(gallop.increase().target_bytes(), 0);
    assert_eq!(h.cc.ssthresh_bytes(), Some(6 * MDS));
    // Recovery ends with a probe sent after the PTO.
    let all = h.pkt_nums_in_flight();
    let probe = h.send_one();
    let mut acked = all;
    acked.push(probe);
    h.ack(BASE_RTT, &acked, &[]);
    assert_eq!(h.cc.phase(), Phase::SlowStart);
    // Table 3 again from W = 2: 2, 2, 3, 5; the next + 3 is capped at
    // ssthresh = 6, where slow start ends and the round is decided by
    // congestion avoidance (Diff = 0: + 1).
    let mut windows = Vec::new();
    for _ in 0..4 {
        windows.push(h.cwnd_pkts());
        h.round(BASE_RTT);
    }
    assert_eq!(windows, [2.0, 2.0, 3.0, 5.0]);
    assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
    assert_eq!(h.cwnd_pkts(), 7.0);
    let events = h.drain_events();
    assert_eq!(exit_cause(&events), Some(SlowStartExitCause::Ssthresh));
    assert!(events.iter().any(|e| matches!(
        e,
        ControllerEvent::SlowStartExit { cwnd_bytes, .. } if *cwnd_bytes == 6 * MDS
    )));
}
