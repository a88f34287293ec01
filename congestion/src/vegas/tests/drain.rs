//! BaseRTT drains and the route-change check (`drain.rs`) for a windowed
//! BaseRTT.

use super::*;
use crate::test_sender::MDS;

fn probes(events: &[ControllerEvent]) -> Vec<(usize, usize)> {
    events
        .iter()
        .filter_map(|e| match e {
            ControllerEvent::Reduction {
                cause: ReductionCause::BaseRttProbe,
                cwnd_before_bytes,
                cwnd_after_bytes,
                ..
            } => Some((*cwnd_before_bytes, *cwnd_after_bytes)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_capped_drain_is_paced_below_actual_and_ends_with_an_unused_window() {
    let mut h = Harness::in_congestion_avoidance_with(windowed(2 * SECOND), 20);
    let queued_rtt = Duration::from_micros(111_111);
    let mut drain = None;
    for _ in 0..20 {
        h.round(queued_rtt);
        let events = h.drain_events();
        if let Some(&(before, after)) = probes(&events).first() {
            let decision = events.iter().find_map(|e| match e {
                ControllerEvent::Round(d) => Some(*d),
                _ => None,
            });
            drain = Some(((before - after) / MDS, decision.unwrap()));
            break;
        }
    }
    let (drained_pkts, start) = drain.expect("a drain within 20 rounds");
    assert_eq!(drained_pkts, 3);
    // Actual less the 3 drained packets per round RTT: the window cut
    // alone would not slow a sender the cap keeps below its window.
    let round_secs = start.round_rtt.as_secs_f64();
    let drain_rate = start.actual_bytes_per_sec - 3.0 * MDS as f64 / round_secs;
    let paced = h.cc.pacing_rate_bytes_per_sec(BASE_RTT).unwrap() as f64;
    assert!((paced - drain_rate).abs() <= 1.0, "{paced} vs {drain_rate}");
    // Paced that slowly the sender leaves most of the window unused:
    // the drain's rounds still count, and after two the window and the
    // rate are back.
    for _ in 0..2 {
        let sent: Vec<u64> = (0..5).map(|_| h.send_one()).collect();
        h.ack(BASE_RTT, &sent, &[]);
    }
    assert_eq!(h.cwnd_pkts(), 20.0);
    let after = h.cc.pacing_rate_bytes_per_sec(BASE_RTT).unwrap() as f64;
    assert!(after > drain_rate + MDS as f64, "{after} vs {drain_rate}");
    // The next round was still sent at the drain's pace: its small
    // Actual does not pull the cap down; the one after counts again.
    let before_drain = h.cc.pacing_cap.recent_delivery();
    h.drain_events();
    h.round(BASE_RTT);
    assert_eq!(h.last_round().action, Action::Increase);
    assert_eq!(h.cc.pacing_cap.recent_delivery(), before_drain);
    h.round(BASE_RTT);
    assert_ne!(h.cc.pacing_cap.recent_delivery(), before_drain);
}

#[test]
fn windowed_base_rtt_is_refreshed_by_a_drain_and_the_window_restored() {
    let mut h = Harness::in_congestion_avoidance_with(windowed(2 * SECOND), 20);
    // 2 packets of standing queue at 20 packets: RTT = 100 ms * 20/18.
    let queued_rtt = Duration::from_micros(111_111);
    let mut events = Vec::new();
    let mut rounds = 0;
    while probes(&events).is_empty() && rounds < 20 {
        h.round(queued_rtt);
        events.extend(h.drain_events());
        rounds += 1;
    }
    // Half a window (1 s, 9 to 10 rounds of 111 ms) after BaseRTT was
    // measured: a drain of ceil(Diff = 2) + 1 = 3 packets.
    assert!((9..=10).contains(&rounds), "{rounds}");
    assert_eq!(probes(&events), vec![(20 * MDS, 17 * MDS)], "{events:?}");
    assert_eq!(h.cwnd_pkts(), 17.0);
    // The drained rounds see the empty queue; after two rounds the
    // window is back where it was, ssthresh untouched.
    h.round(BASE_RTT);
    assert_eq!(h.cwnd_pkts(), 17.0);
    h.round(BASE_RTT);
    assert_eq!(h.cwnd_pkts(), 20.0);
    assert_eq!(h.cc.sampler().base_rtt(), Some(BASE_RTT));
    // No second drain until another half window has passed.
    let mut later = Vec::new();
    for _ in 0..5 {
        h.round(queued_rtt);
        later.extend(h.drain_events());
    }
    assert!(probes(&later).is_empty(), "{later:?}");
}

#[test]
fn a_drain_that_finds_only_other_flows_queue_keeps_base_rtt() {
    let mut h = Harness::in_congestion_avoidance_with(windowed(2 * SECOND), 20);
    // Other family flows keep a queue of their own: with our 2 packets
    // (the band's middle) the RTT is 111 ms at 20 packets, and with ours
    // drained 105 ms, one packet at our rate, which no drain of ours
    // empties.
    let queued_rtt = Duration::from_micros(111_111);
    let others_rtt = Duration::from_micros(105_000);
    let mut drains = 0;
    for _ in 0..60 {
        // 6.6 s: more than three BaseRTT windows.
        let rtt = if h.cc.drain.in_progress() {
            others_rtt
        } else {
            queued_rtt
        };
        h.round(rtt);
        drains += probes(&h.drain_events()).len();
    }
    assert!(drains >= 3, "{drains}");
    // Each drain confirmed the 100 ms: the windowed minimum never took the
    // others' queue in (it would be 105 ms after the first window).
    assert_eq!(h.cc.sampler().base_rtt(), Some(BASE_RTT));
}

#[test]
fn a_longer_path_is_detected_and_base_rtt_moves_up() {
    let mut h = Harness::in_congestion_avoidance_with(windowed(10 * SECOND), 20);
    // The propagation delay doubles: every RTT is 200 ms from now on.
    let long = 2 * BASE_RTT;
    let mut events = Vec::new();
    for _ in 0..4 {
        h.round(long);
        events.extend(h.drain_events());
    }
    let decisions: Vec<Action> = events
        .iter()
        .filter_map(|e| match e {
            ControllerEvent::Round(d) => Some(d.action),
            _ => None,
        })
        .collect();
    assert_eq!(decisions, vec![Action::Decrease; 4]);
    // The fifth round starts a drain instead of a fifth decrease.
    h.round(long);
    let drains = probes(&h.drain_events());
    assert_eq!(drains.len(), 1);
    let restore = drains[0].0;
    assert!(restore < 20 * MDS, "{restore}");
    h.round(long);
    h.round(long);
    h.drain_events();
    // The drain found no lower RTT: BaseRTT is the new path's, and the
    // window the four decreases took (they read the longer path as queue)
    // is given back.
    assert_eq!(h.cc.sampler().base_rtt(), Some(long));
    assert_eq!(h.cc.cwnd_bytes(), 20 * MDS);
    // With the new BaseRTT and no queue, Vegas grows again.
    h.round(long);
    assert_eq!(h.last_round().action, Action::Increase);
}

#[test]
fn the_papers_base_rtt_never_moves_and_never_drains() {
    let mut h = Harness::in_congestion_avoidance_with(VegasConfig::paper(), 20);
    let mut events = Vec::new();
    for _ in 0..30 {
        h.round(2 * BASE_RTT);
        events.extend(h.drain_events());
    }
    assert!(probes(&events).is_empty());
    assert_eq!(h.cc.sampler().base_rtt(), Some(BASE_RTT));
    // Diff = cwnd (1 - 100/200) stays above beta until cwnd = 2 beta:
    // Vegas settles at 6 packets where the longer path needs 40.
    assert_eq!(h.cwnd_pkts(), 2.0 * 3.0);
}
