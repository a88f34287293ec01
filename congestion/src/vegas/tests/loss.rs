//! Losses, PTOs and persistent congestion (`loss.rs`).

use super::*;
use crate::test_sender::AckEventBuilder;
use crate::test_sender::MDS;
use crate::test_sender::MS;

#[test]
fn loss_sent_before_last_reduction_does_not_reduce_again() {
    let mut h = Harness::vegas(VegasConfig {
        initial_cwnd_pkts: 10,
        ..VegasConfig::paper()
    });
    h.send_window(); // packets 0..=9
    h.ack(BASE_RTT, &[0, 1, 2], &[3]);
    assert_eq!(h.cwnd_pkts(), 5.0);
    assert_eq!(h.cc.ssthresh_bytes(), Some(5 * MDS));
    assert_eq!(h.cc.phase(), Phase::Recovery);
    // Packet 7 was sent before the reduction: no second decrease.
    h.ack(MS, &[4, 5, 6], &[7]);
    assert_eq!(h.cwnd_pkts(), 5.0);
    // Packet 10 is sent after it: its loss reduces again.
    let after = h.send_one();
    let after_too = h.send_one();
    h.ack(BASE_RTT, &[8, 9, after_too], &[after]);
    assert_eq!(h.cc.cwnd_bytes(), 5 * MDS / 2);
    let reductions = h
        .drain_events()
        .into_iter()
        .filter(|e| matches!(e, ControllerEvent::Reduction { .. }))
        .count();
    assert_eq!(reductions, 2);
}

/// ns-2's Vegas cut to 3/4 leaves 7.5 of 10 packets: 7 whole datagrams may
/// be sent, as ns-2 sends int(cwnd) packets; the half-datagram is not sent
/// as a short packet (unless `whole_datagrams` is off).
#[test]
fn a_cut_window_is_sent_in_whole_datagrams() {
    for (whole_datagrams, free) in [(true, 7 * MDS), (false, 7 * MDS + MDS / 2)] {
        let mut h = Harness::vegas(VegasConfig {
            initial_cwnd_pkts: 10,
            loss_reduction_factor: 0.75,
            whole_datagrams,
            ..VegasConfig::paper()
        });
        h.send_window();
        h.ack(BASE_RTT, &[0, 1, 2], &[3]);
        assert_eq!(h.cwnd_pkts(), 7.5);
        assert_eq!(h.cc.cwnd_available_bytes(0), free, "{whole_datagrams}");
        // Six packets still in flight: one whole datagram fits, not 1.5.
        let expected = if whole_datagrams { MDS } else { MDS + MDS / 2 };
        assert_eq!(h.cc.cwnd_available_bytes(6 * MDS), expected);
    }
}

#[test]
fn recovery_ends_with_ack_of_packet_sent_after_reduction() {
    let mut h = Harness::vegas(VegasConfig {
        initial_cwnd_pkts: 10,
        ..VegasConfig::paper()
    });
    h.send_window();
    h.ack(BASE_RTT, &[0], &[1]);
    h.ack(MS, &[2, 3, 4, 5, 6, 7, 8, 9], &[]);
    assert_eq!(h.cc.phase(), Phase::Recovery);
    assert_eq!(h.cwnd_pkts(), 5.0, "no growth in recovery");
    let after = h.send_one();
    h.ack(BASE_RTT, &[after], &[]);
    assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
}

#[test]
fn pto_restarts_slow_start_and_repeated_pto_keeps_ssthresh() {
    let mut h = Harness::vegas(VegasConfig {
        initial_cwnd_pkts: 10,
        ..VegasConfig::paper()
    });
    h.send_window();
    h.cc.on_pto(h.now);
    assert_eq!(h.cwnd_pkts(), 2.0);
    assert_eq!(h.cc.ssthresh_bytes(), Some(5 * MDS));
    assert_eq!(h.cc.phase(), Phase::Recovery);
    h.cc.on_pto(h.now);
    assert_eq!(h.cc.ssthresh_bytes(), Some(5 * MDS));
    // A probe sent after the PTO is acknowledged: slow start again.
    let probe = h.send_one();
    h.ack(BASE_RTT, &[probe], &[]);
    assert_eq!(h.cc.phase(), Phase::SlowStart);

    let mut h = Harness::vegas(VegasConfig {
        pto_response: PtoResponse::Ignore,
        ..VegasConfig::paper()
    });
    h.cc.on_pto(h.now);
    assert_eq!(h.cwnd_pkts(), 2.0);
    assert_eq!(h.cc.ssthresh_bytes(), None);
    assert_eq!(h.cc.phase(), Phase::SlowStart);
}

#[test]
fn persistent_congestion_collapses_to_minimum_window() {
    let mut h = Harness::in_congestion_avoidance(12);
    h.send_window();
    let event = AckEventBuilder::new(h.now + 3 * BASE_RTT)
        .min_rtt(BASE_RTT)
        .smoothed_rtt(BASE_RTT)
        .bytes_in_flight(12 * MDS, 12 * MDS)
        .persistent_congestion()
        .build();
    h.cc.on_ack_event(&event);
    assert_eq!(h.cwnd_pkts(), 2.0);
    assert!(h.drain_events().iter().any(|e| matches!(
        e,
        ControllerEvent::Reduction {
            cause: ReductionCause::PersistentCongestion,
            ..
        }
    )));
}
