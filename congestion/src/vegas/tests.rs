use super::*;
use crate::reno_compat::CompatApproach;
use crate::sampler::SamplerConfig;
use crate::test_sender::AckEventBuilder;
use crate::test_sender::Bottleneck;
use crate::test_sender::MinRtt;
use crate::test_sender::TestSender;
use crate::test_sender::MDS;
use crate::test_sender::MS;
use crate::transient::selection::GammaApproach;

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
            return (cwnd_before, path.cwnd_pkts());
        }
    }
    panic!("slow start did not end");
}

#[test]
fn slow_start_exit_keeps_the_pipe_by_default_and_seven_eighths_in_paper_mode() {
    // Windows 10, 20, 40, 80, 160: the round held at 160 packets sees
    // the 59 packets the doubling queued.
    let every_other_round = VegasConfig::default();
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

fn every_round() -> VegasConfig {
    VegasConfig {
        slow_start_growth: SlowStartGrowth::EveryRound,
        ..VegasConfig::default()
    }
}

#[test]
fn every_round_growth_needs_a_paced_sender() {
    // Doubling every round, an ACK-clocked sender sends two packets per
    // ACK: the doubling queues half its window behind itself and Diff
    // ends slow start at half the pipe (101 packets), the window cut to
    // 7/8 of it; the paper's pace reaches 160 on this path. quiche paces
    // (in the simulator at 100 Mbit/s x 80 ms every-round growth leaves
    // slow start at the pipe).
    let (before, after) = slow_start_exit_windows(every_round());
    assert!(before < 60.0, "{before}");
    assert_eq!(after, before * 7.0 / 8.0);
}

#[test]
fn slow_start_doubles_every_round_on_request_and_exits_above_gamma() {
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
    // The default and paper mode hold every other round.
    let mut h = Harness::vegas(VegasConfig::default());
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
    // above gamma = 1: after eight of them the window stops growing.
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

/// Gallop-Vegas Table 2: Vegas slow start from W_0 = 2 while
/// Diff stays below gamma: W_i = 2, 2, 4, 4, 8, 8, ... and the increase
/// z_i = 0, 2, 0, 4, 0, 8, ...
#[test]
fn seed002_table2_slow_start_replay() {
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
fn invalid_params_are_rejected_naming_the_field() {
    let bad = |config: VegasConfig| Vegas::new(config).unwrap_err().field;
    let ok = VegasConfig::default();
    let with = |f: fn(&mut VegasConfig)| {
        let mut config = ok;
        f(&mut config);
        config
    };
    assert_eq!(
        bad(with(|c| {
            c.alpha_pkts = 4.0;
            c.beta_pkts = 3.0;
        })),
        "alpha_pkts"
    );
    assert_eq!(bad(with(|c| c.alpha_pkts = 0.0)), "alpha_pkts");
    assert_eq!(bad(with(|c| c.beta_pkts = -1.0)), "beta_pkts");
    assert_eq!(bad(with(|c| c.beta_pkts = f64::INFINITY)), "beta_pkts");
    assert_eq!(bad(with(|c| c.gamma_pkts = f64::NAN)), "gamma_pkts");
    assert_eq!(bad(with(|c| c.initial_cwnd_pkts = 1)), "initial_cwnd_pkts");
    // Windows whose bytes would overflow are refused, not wrapped.
    assert_eq!(
        bad(with(
            |c| c.initial_cwnd_pkts = crate::types::MAX_INITIAL_WINDOW_PKTS + 1
        )),
        "initial_cwnd_pkts"
    );
    assert_eq!(
        bad(with(|c| c.initial_cwnd_pkts = usize::MAX)),
        "initial_cwnd_pkts"
    );
    assert_eq!(bad(with(|c| c.max_datagram_size = 0)), "max_datagram_size");
    assert_eq!(
        bad(with(|c| c.max_datagram_size = usize::MAX)),
        "max_datagram_size"
    );
    assert_eq!(bad(with(|c| c.max_datagram_size = 0)), "max_datagram_size");
    assert_eq!(
        bad(with(|c| c.loss_reduction_factor = 1.0)),
        "loss_reduction_factor"
    );
    assert_eq!(bad(with(|c| c.pacing_gain = Some(f64::NAN))), "pacing_gain");
    for headroom in [0.0, -1.0, f64::INFINITY] {
        let config = VegasConfig {
            pacing_headroom_pkts: Some(headroom),
            ..ok
        };
        assert_eq!(bad(config), "pacing_headroom_pkts");
    }
    assert_eq!(
        bad(with(|c| c.sampler.min_round_samples = 0)),
        "sampler.min_round_samples"
    );
    assert!(VegasConfig::paper().validate().is_ok());
    assert!(VegasConfig::default().validate().is_ok());
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

/// The robust defaults with a 2 s BaseRTT window and one sample per
/// round (the harness acknowledges a whole round with one ACK frame).
fn windowed(window: Duration) -> VegasConfig {
    let mut c = VegasConfig::default();
    c.sampler.min_round_samples = 1;
    c.sampler.min_round_bytes = 0;
    c.sampler.base_rtt = BaseRttMode::Windowed { window };
    c
}

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
    let previous = h.cc.pacing_cap_bytes_per_sec.unwrap();
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
    let capped = h.cc.pacing_cap_bytes_per_sec.unwrap();
    assert!((capped - previous).abs() <= 1.0, "{capped} vs {previous}");
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
    let before_drain = h.cc.recent_delivery;
    h.drain_events();
    h.round(BASE_RTT);
    assert_eq!(h.last_round().action, Action::Increase);
    assert_eq!(h.cc.recent_delivery, before_drain);
    h.round(BASE_RTT);
    assert_ne!(h.cc.recent_delivery, before_drain);
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
        let rtt = if h.cc.probe.is_some() {
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

#[test]
fn default_config_decides_on_the_one_sample_of_a_thinned_peer() {
    let mut h = Harness::vegas(VegasConfig::default());
    // One ACK frame per 10-packet window: a peer that acknowledges less
    // often than every second packet gives a round one sample, and the
    // round decides on it instead of waiting three RTTs for three (the
    // sampler's tests keep the every-second-packet case at three).
    h.round(BASE_RTT);
    let d = h.last_round();
    assert_eq!(d.samples, 1);
    assert_eq!(d.action, Action::SlowStartHold);
    h.round(BASE_RTT);
    assert_eq!(h.last_round().action, Action::SlowStartGrow);
}

// The Vegas family: Gallop-Vegas, Vegas-A, Reno-compatible alpha/beta,
// selected gamma, names and validation.

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

/// Gallop-Vegas Table 3 / eq. 7: Gallop-Vegas slow start from W_0 = 2 while
/// Diff stays below gamma: W_i = (i^2 - i + 4) / 2 = 2, 2, 3, 5, 8, 12,
/// ... and z_i = i; incr = i + 1 after RTT i; every RTT is a growing
/// one (no held rounds).
#[test]
fn seed002_table3_gallop_replay() {
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

#[test]
fn compat_alpha_beta_come_from_buffer_and_flow_counts() {
    // Feng & Vanichpun Fig. 5: B = 10, one flow of each, Approach 1: 3B/7 =
    // 4.28 -> beta 4, alpha 3.
    let config = VegasConfig::paper().with_compat(10.0, 1, 1, CompatApproach::One);
    assert_eq!(config.alpha_beta_pkts(), Ok((3.0, 4.0)));
    let mut h = Harness::in_congestion_avoidance_with(config, 12);
    assert_eq!(h.cc.name(), "vegas-compat");
    assert_eq!((h.cc.alpha_pkts(), h.cc.beta_pkts()), (3.0, 4.0));
    // Diff = 2 < alpha = 3: increase (Vegas's 1/3 would hold).
    h.round(120 * MS);
    assert_eq!(h.cwnd_pkts(), 13.0);
    let d = h.last_round();
    assert_eq!((d.alpha_pkts, d.beta_pkts), (3.0, 4.0));
    // Approach 2, B = 100: 0.4641 B = 46.4 -> 46 / 45 (Table 4).
    let config = VegasConfig::compat(100.0, 1, 1, CompatApproach::Two);
    let cc = Vegas::new(config).unwrap();
    assert_eq!((cc.alpha_pkts(), cc.beta_pkts()), (45.0, 46.0));
    assert_eq!(cc.name(), "vegas-compat");
    // Vegas-A starts from the compat values.
    let cc = Vegas::new(config.with_vegas_a()).unwrap();
    assert_eq!(cc.vegas_a().unwrap().alpha_pkts(), 45.0);
}

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

#[test]
fn family_names_for_every_combination() {
    let base = VegasConfig::default();
    let compat = |c: VegasConfig| c.with_compat(50.0, 1, 1, CompatApproach::One);
    let cases = [
        (base, "vegas"),
        (base.with_vegas_a(), "vegas-a"),
        (base.with_gallop(), "gallop-vegas"),
        (base.with_gallop().with_vegas_a(), "gallop-vegas-a"),
        (compat(base), "vegas-compat"),
        (compat(base.with_vegas_a()), "vegas-a-compat"),
        (compat(base.with_gallop()), "gallop-vegas-compat"),
        (
            compat(base.with_gallop().with_vegas_a()),
            "gallop-vegas-a-compat",
        ),
        (
            base.with_selected_gamma(1000.0, GammaApproach::Basic),
            "vegas",
        ),
    ];
    for (config, name) in cases {
        assert_eq!(config.family_name(), name);
        assert_eq!(Vegas::new(config).unwrap().name(), name);
    }
    assert_eq!(VegasConfig::vegas_a().family_name(), "vegas-a");
    assert_eq!(VegasConfig::gallop().family_name(), "gallop-vegas");
    assert_eq!(
        VegasConfig::compat(50.0, 2, 3, CompatApproach::Two).family_name(),
        "vegas-compat"
    );
    // Robust constructors keep the defaults; paper_mode() the papers'.
    let gallop = VegasConfig::gallop();
    assert_eq!(gallop.initial_cwnd_pkts, QUIC_INITIAL_WINDOW_PKTS);
    assert_eq!(gallop.sampler, SamplerConfig::default());
    let paper = gallop.paper_mode();
    assert_eq!(paper, VegasConfig::paper().with_gallop());
    assert_eq!(
        VegasConfig::vegas_a().paper_mode(),
        VegasConfig::paper().with_vegas_a()
    );
}

#[test]
fn invalid_family_params_are_rejected_naming_the_field() {
    let bad = |config: VegasConfig| Vegas::new(config).unwrap_err().field;
    let compat = |b: f64, r: u32, v: u32| VegasConfig::compat(b, r, v, CompatApproach::One);
    assert_eq!(bad(compat(-1.0, 1, 1)), "buffer_pkts");
    assert_eq!(bad(compat(f64::NAN, 1, 1)), "buffer_pkts");
    // B = 3: beta = floor(9/7) = 1, alpha = 0: Vegas could never grow.
    assert_eq!(bad(compat(3.0, 1, 1)), "buffer_pkts");
    assert_eq!(bad(compat(50.0, 0, 1)), "reno_flows");
    assert_eq!(bad(compat(50.0, 1, 0)), "vegas_flows");
    let gamma = |rate: f64| VegasConfig::default().with_selected_gamma(rate, GammaApproach::Basic);
    assert_eq!(bad(gamma(0.0)), "gamma_rate");
    assert_eq!(bad(gamma(f64::INFINITY)), "gamma_rate");
    assert_eq!(bad(gamma(1000.0).with_gallop()), "gamma_rate");
    assert_eq!("3".parse::<CompatApproach>().unwrap_err().field, "approach");
    assert_eq!(CompatApproach::try_from(0).unwrap_err().field, "approach");
    assert_eq!(
        "three".parse::<GammaApproach>().unwrap_err().field,
        "gamma_approach"
    );
    assert_eq!(
        GammaApproach::try_from(3).unwrap_err().field,
        "gamma_approach"
    );
    for config in [
        VegasConfig::vegas_a(),
        VegasConfig::gallop(),
        compat(50.0, 1, 1),
        gamma(1000.0),
        VegasConfig::paper().with_gallop().with_vegas_a(),
    ] {
        assert!(config.validate().is_ok(), "{config:?}");
    }
}
