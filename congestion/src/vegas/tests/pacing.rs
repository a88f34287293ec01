//! Pacing (`pacing.rs`): the rate, its floor and its cap near the recent
//! Actual.

use super::*;
use crate::test_sender::MDS;
use crate::test_sender::MS;

#[test]
fn a_frame_for_packets_sent_20_s_ago_slows_pacing_at_most_2_25_fold() {
    let mut h = Harness::in_congestion_avoidance_with(VegasConfig::default(), 20);
    for _ in 0..10 {
        h.round(BASE_RTT);
    }
    let before = h.cc.pacing_rate_bytes_per_sec(BASE_RTT).unwrap();
    // The peer's ACK frames for one packet were lost for 20 s; the
    // stack's smoothed RTT takes the 20 s sample at 1/8.
    let old = h.send_one();
    h.now += 20 * SECOND;
    h.ack(BASE_RTT, &[old], &[]);
    let smoothed_rtt = (BASE_RTT * 7 + 20 * SECOND) / 8;
    let after = h.cc.pacing_rate_bytes_per_sec(smoothed_rtt).unwrap();
    // The cycle moves by 1/8 at most and the smoothed RTT counts for
    // two cycles at most: 2 x 9/8.
    assert!(
        9 * after >= 4 * before,
        "pacing fell from {before} to {after} B/s (50-fold before the clamps)"
    );
}

#[test]
fn the_pacing_rate_is_never_zero() {
    let mut h = Harness::in_congestion_avoidance_with(VegasConfig::default(), 4);
    h.round(BASE_RTT);
    let floor = crate::types::min_pacing_rate_bytes_per_sec(MDS);
    for smoothed_rtt in [Duration::from_secs(3_600), Duration::MAX] {
        let rate = h.cc.pacing_rate_bytes_per_sec(smoothed_rtt);
        assert!(rate >= Some(floor), "{rate:?} at {smoothed_rtt:?}");
    }
}

#[test]
fn pacing_follows_config() {
    let paced = Vegas::new(VegasConfig::default()).unwrap();
    // VEGAS_PACING_GAIN (1.0) * 12000 B / 0.1 s
    assert_eq!(paced.pacing_rate_bytes_per_sec(BASE_RTT), Some(120_000));
    let rfc = Vegas::new(VegasConfig {
        pacing_gain: Some(crate::newreno::PACING_GAIN),
        ..VegasConfig::default()
    })
    .unwrap();
    // RFC 9002 7.7's 1.25 * 12000 B / 0.1 s
    assert_eq!(rfc.pacing_rate_bytes_per_sec(BASE_RTT), Some(150_000));
    let paper = Vegas::new(VegasConfig::paper()).unwrap();
    assert_eq!(paper.pacing_rate_bytes_per_sec(BASE_RTT), None);
}

#[test]
fn congestion_avoidance_pacing_is_capped_at_recent_actual_plus_headroom() {
    // A pacing gain of 2 would send two windows per credit cycle; the
    // cap holds the sender to the mean Actual of the last two rounds
    // plus 3 packets per round RTT.
    let run = |headroom: Option<f64>| {
        let config = VegasConfig {
            pacing_gain: Some(2.0),
            pacing_headroom_pkts: headroom,
            ..windowed(10 * SECOND)
        };
        let mut h = Harness::in_congestion_avoidance_with(config, 20);
        let decisions: Vec<RoundDecision> = [100, 111]
            .iter()
            .map(|&rtt_ms| {
                h.round(rtt_ms * MS);
                h.last_round()
            })
            .collect();
        let rate = h.cc.pacing_rate_bytes_per_sec(BASE_RTT).unwrap() as f64;
        (rate, decisions)
    };
    let (uncapped, _) = run(None);
    let (capped, d) = run(Some(DEFAULT_PACING_HEADROOM_PKTS));
    let mean_actual = (d[0].actual_bytes_per_sec + d[1].actual_bytes_per_sec) / 2.0;
    let cap = mean_actual + 3.0 * MDS as f64 / d[1].round_rtt.as_secs_f64();
    assert!(cap < 0.75 * uncapped, "cap {cap} vs {uncapped}");
    assert!((capped - cap).abs() <= 1.0, "{capped} vs {cap}");
    // Slow start is never capped.
    let start = Vegas::new(VegasConfig {
        pacing_gain: Some(2.0),
        ..VegasConfig::default()
    })
    .unwrap();
    assert_eq!(start.pacing_rate_bytes_per_sec(BASE_RTT), Some(240_000));
}

#[test]
fn a_queue_beyond_beta_plus_one_lowers_the_cap_below_actual() {
    // Diff = 20 * (1 - 100/160) = 7.5 packets > beta + 1: the cap is the
    // mean Actual less one packet per round, so a sender the cap (not
    // its window) holds drains the queue.
    let config = VegasConfig {
        pacing_gain: Some(2.0),
        ..windowed(10 * SECOND)
    };
    let mut h = Harness::in_congestion_avoidance_with(config, 20);
    let d: Vec<RoundDecision> = [100, 160]
        .iter()
        .map(|&rtt_ms| {
            h.round(rtt_ms * MS);
            h.last_round()
        })
        .collect();
    assert!(d[1].diff_pkts > 4.0, "{:?}", d[1]);
    let mean_actual = (d[0].actual_bytes_per_sec + d[1].actual_bytes_per_sec) / 2.0;
    let cap = mean_actual - MDS as f64 / d[1].round_rtt.as_secs_f64();
    let capped = h.cc.pacing_rate_bytes_per_sec(BASE_RTT).unwrap() as f64;
    assert!((capped - cap).abs() <= 1.0, "{capped} vs {cap}");
    // Back within beta + 3 packets: the headroom returns; with no queue
    // the cap does not fall below where it was. The window (20 packets
    // over a 100 ms round) is more than STALE_WINDOW_RATIO times what
    // the rounds carried, so the cap does not move toward it either.
    let previous = h.cc.pacing_cap.cap_bytes_per_sec().unwrap();
    h.round(100 * MS);
    let d2 = h.last_round();
    let mean_actual = (d[1].actual_bytes_per_sec + d2.actual_bytes_per_sec) / 2.0;
    let round_secs = d2.round_rtt.as_secs_f64();
    let headroom_cap = mean_actual + 3.0 * MDS as f64 / round_secs;
    assert!(
        headroom_cap < previous,
        "the round delivered less than the cap"
    );
    let window_rate = d2.cwnd_after_bytes as f64 / round_secs;
    assert!(window_rate > STALE_WINDOW_RATIO * mean_actual);
    let capped = h.cc.pacing_cap.cap_bytes_per_sec().unwrap();
    assert!((capped - previous).abs() <= 1.0, "{capped} vs {previous}");
}
