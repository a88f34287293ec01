//! Vegas slow start (`slow_start.rs`): doubling every other round or every
//! round, the exit on Diff > gamma and the window it leaves.

use super::*;
use crate::test_sender::Bottleneck;
use crate::test_sender::MDS;
use crate::test_sender::MS;

#[test]
fn slow_start_doubles_every_other_round_and_exits_above_gamma() {
    let mut h = Harness::vegas(VegasConfig::paper());
    let mut windows = Vec::new();
    // Round 1 grows even though its RTT is high: Diff is only tested
    // after held rounds.
    for rtt in [100, 150, 100, 100] {
        windows.push(h.cwnd_pkts());
        h.round(rtt * MS);
    }
    assert_eq!(windows, [2.0, 2.0, 4.0, 4.0]);
    assert_eq!(h.cwnd_pkts(), 8.0);
    assert_eq!(h.cc.phase(), Phase::SlowStart);
    h.drain_events();
    // Held round at 8 packets: Diff = 8 * (1 - 100/150) = 2.67 > gamma.
    h.round(150 * MS);
    assert_eq!(h.cwnd_pkts(), 7.0, "8 - 8/8");
    assert_eq!(h.cc.ssthresh_bytes(), Some(7 * MDS));
    assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
    let events = h.drain_events();
    assert!(
        matches!(
            events[0],
            ControllerEvent::SlowStartExit {
                cause: SlowStartExitCause::DiffAboveGamma,
                cwnd_bytes,
                ..
            } if cwnd_bytes == 8 * MDS
        ),
        "the record carries the window slow start reached, before the cut"
    );
    assert!(matches!(
        events[1],
        ControllerEvent::Round(RoundDecision {
            action: Action::SlowStartExit,
            cwnd_before_bytes,
            cwnd_after_bytes,
            ..
        }) if cwnd_before_bytes == 8 * MDS && cwnd_after_bytes == 7 * MDS
    ));
}

/// Runs `config` from its initial window through a bottleneck of one
/// packet per ms behind 100 ms of propagation delay (a pipe of 101
/// packets with the service time, no buffer limit), every packet
/// acknowledged, sends ACK-clocked, the stack's min RTT the smallest
/// sample; returns the window when slow start ends on Diff > gamma and the
/// window before that.
fn slow_start_exit_windows(config: VegasConfig) -> (f64, f64) {
    let (_, before, after) = run_to_exit(config);
    (before, after)
}

/// [`slow_start_exit_windows`], with the path left where the exit was
/// decided.
fn run_to_exit(config: VegasConfig) -> (Bottleneck<Vegas>, f64, f64) {
    let cc = Vegas::new(config).unwrap();
    let mut path = Bottleneck::new(cc, MinRtt::Tracked(None), 1000, BASE_RTT);
    while path.sender.now - path.start < 60 * SECOND {
        let cwnd_before = path.cwnd_pkts();
        let seen = path.events.len();
        path.step();
        let exited = path.events[seen..].iter().any(|(_, e)| {
            matches!(
                e,
                ControllerEvent::SlowStartExit {
                    cause: SlowStartExitCause::DiffAboveGamma,
                    ..
                }
            )
        });
        if exited {
            let after = path.cwnd_pkts();
            return (path, cwnd_before, after);
        }
    }
    panic!("slow start did not end");
}

#[test]
fn slow_start_exit_keeps_the_pipe_by_default_and_seven_eighths_in_paper_mode() {
    // Doubling every other round, windows 10, 20, 40, 80, 160: the round
    // held at 160 packets sees
    // the 59 packets the doubling queued.
    let every_other_round = VegasConfig {
        slow_start_growth: SlowStartGrowth::EveryOtherRound,
        ..VegasConfig::default()
    };
    let (before, pipe) = slow_start_exit_windows(every_other_round);
    assert_eq!(before, 160.0);
    // ACK rate 1 packet/ms x BaseRTT 101 ms, plus one packet.
    assert!((101.5..=102.5).contains(&pipe), "{pipe}");
    let (before, cut) = slow_start_exit_windows(VegasConfig {
        slow_start_exit_window: SlowStartExitWindow::CutEighth,
        ..every_other_round
    });
    assert_eq!((before, cut), (160.0, 140.0));
    // Never more than the paper's 7/8: an initial burst of 90 packets
    // queues behind itself and ends slow start at once, and the pipe
    // (102 packets) is above 7/8 of 90.
    let (before, small) = slow_start_exit_windows(VegasConfig {
        initial_cwnd_pkts: 90,
        ..every_other_round
    });
    assert_eq!((before, small), (90.0, 78.75));
}

/// Slow start of `config` through the bottleneck of
/// [`slow_start_exit_windows`] (1000 packets per second) until the exit,
/// then `rate_after_pkts_per_sec` (the queue behind the packet in service
/// too): the window the exit kept and the window after the first
/// congestion-avoidance round, in packets.
fn exit_then_first_round_windows(config: VegasConfig, rate_after_pkts_per_sec: u32) -> (f64, f64) {
    let (mut path, _, exit_pkts) = run_to_exit(config);
    path.set_rate(rate_after_pkts_per_sec);
    while path.sender.now - path.start < 60 * SECOND {
        let seen = path.events.len();
        path.step();
        for (_, event) in &path.events[seen..] {
            if let ControllerEvent::Round(d) = event {
                if d.phase == Phase::CongestionAvoidance {
                    return (exit_pkts, d.cwnd_after_bytes as f64 / MDS as f64);
                }
            }
        }
    }
    panic!("no congestion-avoidance round after the exit");
}

#[test]
fn the_round_after_the_exit_reads_the_pipe_again_and_raises_an_under_read_window() {
    let every_other_round = VegasConfig {
        slow_start_growth: SlowStartGrowth::EveryOtherRound,
        ..VegasConfig::default()
    };
    assert!(every_other_round.exit_recheck);
    // The exit reads 1000 packets/s x BaseRTT 101 ms plus one packet; the
    // link then serves 1100 packets/s (the exit under-read it by 9%), and
    // the round after the exit, acknowledged as the doubling's queue
    // drains, reads a pipe of 112.
    let (exit, after) = exit_then_first_round_windows(every_other_round, 1100);
    assert!((101.5..=102.5).contains(&exit), "{exit}");
    assert!((111.5..=112.7).contains(&after), "{after}");
    // A reading more than an eighth above the exit window is not a
    // misread pipe (here the link doubled): Vegas's own round.
    let (exit, after) = exit_then_first_round_windows(every_other_round, 2000);
    assert!((101.5..=102.5).contains(&exit), "{exit}");
    assert!(after <= exit + 1.0, "{exit} -> {after}");
    // Switched off, the round is Vegas's own: no raise.
    let (exit, after) = exit_then_first_round_windows(
        VegasConfig {
            exit_recheck: false,
            ..every_other_round
        },
        1100,
    );
    assert!(after <= exit + 1.0, "{exit} -> {after}");
    // The window slow start left, read right, is kept.
    let (exit, after) = exit_then_first_round_windows(every_other_round, 1000);
    assert!(after <= exit + 1.0, "{exit} -> {after}");
}

/// The default's growth, named where a test depends on it.
fn every_round() -> VegasConfig {
    let config = VegasConfig::default();
    assert_eq!(config.slow_start_growth, SlowStartGrowth::EveryRound);
    config
}

#[test]
fn every_round_growth_needs_a_paced_sender() {
    // Doubling every round, an ACK-clocked sender sends two packets per
    // ACK: the doubling queues half its window behind itself and Diff
    // ends slow start well below the pipe (101 packets; 64 with the
    // within-round stop at beta), the window cut to 7/8 of it; the
    // paper's pace reaches 160 on this path. quiche paces (in the
    // simulator at 100 Mbit/s x 80 ms every-round growth leaves slow start
    // at the pipe).
    let (before, after) = slow_start_exit_windows(every_round());
    assert!(before <= 64.0, "{before}");
    assert_eq!(after, before * 7.0 / 8.0);
}

#[test]
fn slow_start_doubles_every_round_by_default_and_exits_above_gamma() {
    let mut h = Harness::vegas(every_round());
    let mut windows = Vec::new();
    for _ in 0..5 {
        windows.push(h.cwnd_pkts());
        h.round(100 * MS);
    }
    // The first round measures (the paper's slow start starts held), then
    // every round doubles.
    assert_eq!(windows, [10.0, 10.0, 20.0, 40.0, 80.0]);
    let actions: Vec<_> = h
        .drain_events()
        .into_iter()
        .filter_map(|e| match e {
            ControllerEvent::Round(d) => Some(d.action),
            _ => None,
        })
        .collect();
    assert_eq!(
        actions,
        [
            Action::SlowStartHold,
            Action::SlowStartGrow,
            Action::SlowStartGrow
        ]
    );
    // Rounds whose RTT says the window queues: Diff > gamma ends slow
    // start on the growing round's decision, the window cut.
    h.round(150 * MS);
    h.round(150 * MS);
    h.round(150 * MS);
    let exit = h.drain_events().into_iter().find_map(|e| match e {
        ControllerEvent::SlowStartExit {
            cause, cwnd_bytes, ..
        } => Some((cause, cwnd_bytes)),
        _ => None,
    });
    let (cause, reached_bytes) = exit.expect("slow start ended");
    assert_eq!(cause, SlowStartExitCause::DiffAboveGamma);
    assert_eq!(h.cc.phase(), Phase::CongestionAvoidance);
    assert!(
        h.cc.cwnd_bytes() < reached_bytes,
        "{} < {reached_bytes}",
        h.cc.cwnd_bytes()
    );
    // Paper mode's pace holds every other round.
    let mut h = Harness::vegas(VegasConfig {
        slow_start_growth: SlowStartGrowth::EveryOtherRound,
        ..VegasConfig::default()
    });
    let mut windows = Vec::new();
    for _ in 0..5 {
        windows.push(h.cwnd_pkts());
        h.round(100 * MS);
    }
    assert_eq!(windows, [10.0, 10.0, 20.0, 20.0, 40.0]);
}

#[test]
fn every_round_growth_stops_within_the_round_once_its_samples_show_a_queue() {
    let mut h = Harness::vegas(every_round());
    for _ in 0..3 {
        h.round(100 * MS);
    }
    assert_eq!(h.cwnd_pkts(), 40.0);
    // The next round's first ACKs say 40 packets x 10 / 110 = 3.6 queued,
    // above beta = 3: after eight of them the window stops growing.
    h.send_window();
    let in_flight = h.pkt_nums_in_flight();
    for (i, &pkt) in in_flight.iter().enumerate() {
        h.ack(110 * MS, &[pkt], &[]);
        if i + 1 < crate::vegas::queue_watch::QUEUE_WATCH_SAMPLES {
            assert_eq!(
                h.cwnd_pkts(),
                41.0 + i as f64,
                "grows by one per ACK until then"
            );
        }
    }
    assert_eq!(
        h.cwnd_pkts(),
        47.0,
        "40 + 7: the eighth sample stops it, not 80"
    );
}

/// The signal that kept flows joining a shared link from sharing it
/// evenly (`scale-ten-flows`, seed 1): a joiner's samples read the other
/// flows' queue swings as between gamma and beta packets of its own. The
/// within-round stop lets that round grow; only the round's end, on Diff,
/// ends slow start.
#[test]
fn every_round_growth_is_not_stopped_within_the_round_by_a_queue_under_beta() {
    let mut h = Harness::vegas(every_round());
    for _ in 0..3 {
        h.round(100 * MS);
    }
    assert_eq!(h.cwnd_pkts(), 40.0);
    // 40 packets x 5 / 105 = 1.9 queued: above gamma = 1, not above
    // beta = 3.
    h.send_window();
    let in_flight = h.pkt_nums_in_flight();
    for &pkt in &in_flight {
        h.ack(105 * MS, &[pkt], &[]);
    }
    assert_eq!(
        h.cwnd_pkts(),
        80.0,
        "the round doubles (gamma as the threshold stopped it at 47)"
    );
}

/// Gallop-Vegas Table 2: Vegas slow start from W_0 = 2 while
/// Diff stays below gamma: W_i = 2, 2, 4, 4, 8, 8, ... and the increase
/// z_i = 0, 2, 0, 4, 0, 8, ...
#[test]
fn gallop_vegas_table_2_slow_start_replay() {
    let mut h = Harness::vegas(VegasConfig::paper());
    let mut windows = Vec::new();
    let mut actions = Vec::new();
    for _ in 0..=11 {
        windows.push(h.cwnd_pkts());
        h.round(BASE_RTT);
        let d = h.last_round();
        assert_eq!(d.diff_pkts, 0.0);
        assert_eq!(d.phase, Phase::SlowStart);
        actions.push(d.action);
    }
    let increases: Vec<f64> = windows.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(
        windows[..11],
        [2.0, 2.0, 4.0, 4.0, 8.0, 8.0, 16.0, 16.0, 32.0, 32.0, 64.0]
    );
    assert_eq!(
        increases[..11],
        [0.0, 2.0, 0.0, 4.0, 0.0, 8.0, 0.0, 16.0, 0.0, 32.0, 0.0]
    );
    for (i, action) in actions.iter().enumerate() {
        let expected = if i % 2 == 0 {
            Action::SlowStartHold
        } else {
            Action::SlowStartGrow
        };
        assert_eq!(*action, expected, "round {i}");
    }
}

#[test]
fn only_vegas_slow_start_doubles_every_round() {
    // Gallop-Vegas's slow start is its own (Gallop-Vegas III-B/C): asking
    // it for every-round growth must not give the pacing cap the rounds
    // it skips after an every-round slow start (`PacingCap::new`).
    let every_round = |config: VegasConfig| VegasConfig {
        slow_start_growth: SlowStartGrowth::EveryRound,
        ..config
    };
    assert!(every_round(VegasConfig::default()).doubles_every_round());
    assert!(every_round(VegasConfig::vegas_a()).doubles_every_round());
    assert!(!every_round(VegasConfig::gallop()).doubles_every_round());
    assert!(VegasConfig::default().doubles_every_round());
    assert!(!VegasConfig::gallop().doubles_every_round());
    assert!(!VegasConfig::default().paper_mode().doubles_every_round());
}

/// Slow start of `config` through a 10-packet-per-ms bottleneck behind
/// 100 ms of propagation delay (a pipe of 1000 packets, no buffer limit):
/// the sender paced at twice the window per BaseRTT in bursts of 8
/// packets sent at once, an ACK frame per 2 packets, and the frames read
/// 4 at a time, 10 us apart, when the last of them arrives (an event
/// loop's batch). Returns the window slow start left, in packets.
fn exit_window_under_clumped_acks(config: VegasConfig) -> f64 {
    const BURST_PKTS: usize = 8;
    const ACK_EVERY_PKTS: usize = 2;
    const FRAMES_PER_READ: usize = 4;
    let service = Duration::from_micros(100);
    let read_spacing = Duration::from_micros(10);
    let mut s = TestSender::new(Vegas::new(config).unwrap(), MinRtt::Tracked(None));
    let start = s.now;
    let mut link_free = start;
    let mut next_send = start;
    // Packets in flight and when their ACK would arrive, in order.
    let mut arrivals: std::collections::VecDeque<(u64, Instant)> = Default::default();
    let per_read = ACK_EVERY_PKTS * FRAMES_PER_READ;
    let mut now = start;
    while now - start < 3 * SECOND {
        if now >= next_send {
            s.now = now;
            for _ in 0..BURST_PKTS {
                if !s.can_send() {
                    break;
                }
                let pkt = s.send_one();
                link_free = link_free.max(now) + service;
                arrivals.push_back((pkt, link_free + BASE_RTT));
            }
            let rate_pkts_per_sec = 2.0 * s.cwnd_pkts() / BASE_RTT.as_secs_f64();
            next_send = now + Duration::from_secs_f64(BURST_PKTS as f64 / rate_pkts_per_sec);
        }
        loop {
            // A full read once its last frame is in; the rest 1 ms late.
            let ready = arrivals.iter().take_while(|(_, at)| *at <= now).count();
            let take = if ready >= per_read {
                per_read
            } else if ready > 0 && arrivals[0].1 + MS <= now {
                ready
            } else {
                break;
            };
            let read_at = now.min(arrivals[take - 1].1.max(arrivals[0].1 + MS));
            let read: Vec<u64> = arrivals.drain(..take).map(|(p, _)| p).collect();
            for (i, frame) in read.chunks(ACK_EVERY_PKTS).enumerate() {
                s.ack_at(read_at + read_spacing * i as u32, frame, &[]);
            }
            let exited = s.drain_events().iter().any(|e| {
                matches!(
                    e,
                    ControllerEvent::SlowStartExit {
                        cause: SlowStartExitCause::DiffAboveGamma,
                        ..
                    }
                )
            });
            if exited {
                return s.cwnd_pkts();
            }
        }
        now += service;
    }
    panic!("slow start did not end");
}

#[test]
fn every_round_exit_keeps_the_pipe_under_clumped_acks() {
    // Thresholds that let slow start overshoot the pipe by a doubling, so
    // that the exit's window is the pipe estimate, not 7/8 of the window.
    let every_round = VegasConfig {
        slow_start_growth: SlowStartGrowth::EveryRound,
        beta_pkts: 300.0,
        gamma_pkts: 300.0,
        ..VegasConfig::default()
    };
    // The doubling is sent in bursts at twice the link's rate and the
    // frames of a read come 10 us apart: the smoothed frame rate reads
    // 13x the link, its guard (no faster than the packets were sent)
    // bounding nothing. The exit keeps the pipe (1000 packets plus the
    // service time and one packet, 1030 with the fastest frame rate over
    // an eighth of the window 2% above the link's) from that rate and
    // Actual; with the smoothed rate it kept 7/8 of the 2258 packets slow
    // start reached, 1976.
    let exit = exit_window_under_clumped_acks(every_round);
    assert!((1000.0..=1060.0).contains(&exit), "{exit}");
}
