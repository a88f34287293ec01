//! Tests of the round sampler in `mod.rs` (rounds, RTT samples, Actual,
//! gating), and the simulated paths the tests of `aggregation.rs`,
//! `base_rtt.rs` and `credit.rs` share.

use super::*;
use crate::test_sender::acked_packet;
use crate::test_sender::sent_packet;
use crate::test_sender::AckEventBuilder;
use crate::test_sender::MDS;
use crate::test_sender::MS;
use crate::types::AckedPacket;
use crate::types::RttSample;

/// One ACK frame at `now` with an RTT sample of `latest_rtt` (also the
/// smoothed RTT), no min RTT, no bytes in flight before and one packet
/// after.
pub(super) fn ack_event(now: Instant, acked: &[AckedPacket], latest_rtt: Duration) -> AckEvent<'_> {
    AckEventBuilder::new(now)
        .acked(acked)
        .rtt(latest_rtt)
        .bytes_in_flight(0, MDS)
        .build()
}

/// An ACK-clocked flow with a fixed window of `cwnd_pkts` through a
/// bottleneck serving one packet per `spacing`, with `prop_rtt` of
/// propagation delay; the receiver acknowledges every `ack_every`-th
/// packet (cumulatively). Returns the sampler's round measurements.
fn run_bottleneck(config: SamplerConfig, ack_every: u64, acks: usize) -> Vec<RoundSample> {
    let cwnd_pkts: u64 = 80;
    let spacing = MS;
    let prop_rtt = 50 * MS;
    let mut sampler = RoundSampler::new(config, MDS).unwrap();
    let t0 = Instant::now();
    let mut now = t0;
    let mut bottleneck_free = t0;
    let mut send_time = Vec::new();
    let mut ack_arrival = Vec::new();
    let mut next_pkt: u64 = 0;
    let mut first_unacked: u64 = 0;
    let mut rounds = Vec::new();
    let mut acked_buf = Vec::new();
    for _ in 0..acks {
        while next_pkt - first_unacked < cwnd_pkts {
            let in_flight = (next_pkt - first_unacked) as usize * MDS;
            sampler.on_packet_sent(
                &sent_packet(next_pkt, now, in_flight),
                cwnd_pkts as usize * MDS,
            );
            let departure = now.max(bottleneck_free) + spacing;
            bottleneck_free = departure;
            send_time.push(now);
            ack_arrival.push(departure + prop_rtt);
            next_pkt += 1;
        }
        let last = first_unacked + ack_every - 1;
        now = ack_arrival[last as usize];
        acked_buf.clear();
        acked_buf.extend((first_unacked..=last).map(|n| acked_packet(n, send_time[n as usize])));
        let rtt = now - send_time[last as usize];
        if let Some(round) = sampler.on_ack_frame(&ack_event(now, &acked_buf, rtt)) {
            rounds.push(round);
        }
        first_unacked = last + 1;
    }
    rounds
}

/// A paced flow with a fixed window of 80 packets, sending one packet
/// per ms into a bottleneck that serves one per ms, `prop_rtt` of
/// propagation delay, an ACK every `ack_every` packets and, with
/// `aggregation`, ACK frames held on the way back until the next
/// multiple of it. Returns the rounds and, for each, the smallest
/// hold-free RTT of its samples (the truth the sampler estimates).
pub(super) fn run_path(
    config: SamplerConfig,
    ack_every: u64,
    aggregation: Option<Duration>,
    prop_rtt: Duration,
    acks: usize,
) -> (Vec<RoundSample>, Vec<Duration>) {
    run_path_with_window(config, ack_every, |_| aggregation, prop_rtt, acks, |_| 80)
}

/// `run_path` with the aggregation period and the window (in packets)
/// functions of the ACK frames received so far.
pub(super) fn run_path_with_window(
    config: SamplerConfig,
    ack_every: u64,
    aggregation: impl Fn(usize) -> Option<Duration>,
    prop_rtt: Duration,
    acks: usize,
    window_pkts: impl Fn(usize) -> u64,
) -> (Vec<RoundSample>, Vec<Duration>) {
    let spacing = MS;
    let mut sampler = RoundSampler::new(config, MDS).unwrap();
    let t0 = Instant::now();
    let release = |arrival: Instant, acks_done: usize| match aggregation(acks_done) {
        None => arrival,
        Some(period) => {
            let periods = (arrival - t0).as_nanos().div_ceil(period.as_nanos()) as u32;
            t0 + period * periods
        }
    };
    let mut next_send = t0;
    let mut bottleneck_free = t0;
    let mut send_time = Vec::new();
    let mut ack_arrival = Vec::new();
    let mut next_pkt: u64 = 0;
    let mut first_unacked: u64 = 0;
    let (mut rounds, mut truth) = (Vec::new(), Vec::new());
    let mut true_min = Duration::MAX;
    let mut acked_buf = Vec::new();
    let mut acks_done = 0;
    while acks_done < acks {
        let cwnd_pkts = window_pkts(acks_done);
        let last = first_unacked + ack_every - 1;
        let ack_due = (last < next_pkt).then(|| release(ack_arrival[last as usize], acks_done));
        let can_send = next_pkt - first_unacked < cwnd_pkts;
        if can_send && ack_due.is_none_or(|due| next_send < due) {
            let in_flight = (next_pkt - first_unacked) as usize * MDS;
            let packet = sent_packet(next_pkt, next_send, in_flight);
            sampler.on_packet_sent(&packet, cwnd_pkts as usize * MDS);
            let departure = next_send.max(bottleneck_free) + spacing;
            bottleneck_free = departure;
            send_time.push(next_send);
            ack_arrival.push(departure + prop_rtt);
            next_pkt += 1;
            next_send += spacing;
            continue;
        }
        let now = ack_due.expect("a full window has an ACK due");
        next_send = next_send.max(now);
        true_min = true_min.min(ack_arrival[last as usize] - send_time[last as usize]);
        acked_buf.clear();
        acked_buf.extend((first_unacked..=last).map(|n| acked_packet(n, send_time[n as usize])));
        let rtt = now - send_time[last as usize];
        if let Some(round) = sampler.on_ack_frame(&ack_event(now, &acked_buf, rtt)) {
            rounds.push(round);
            truth.push(std::mem::replace(&mut true_min, Duration::MAX));
        }
        first_unacked = last + 1;
        acks_done += 1;
    }
    (rounds, truth)
}

#[test]
fn paper_actual_is_the_window_over_the_mean_rtt() {
    // Gallop-Vegas II / IV-A: Actual = W / D, D the round's mean RTT, so
    // Diff = W (1 - d / D) whatever the round's interval.
    let t0 = Instant::now();
    let mut sampler = RoundSampler::new(SamplerConfig::paper(), MDS).unwrap();
    for n in 0..4 {
        sampler.on_packet_sent(&sent_packet(n, t0, n as usize * MDS), 4 * MDS);
    }
    // RTTs 100, 102, 104, 106 ms: D = 103 ms; the round ends at the
    // first ACK (packet 0), so use a second round of four.
    let mut last = None;
    for (n, rtt_ms) in [(0u64, 100u32), (1, 102), (2, 104), (3, 106)] {
        let now = t0 + rtt_ms * MS;
        last = sampler.on_ack_frame(&ack_event(now, &[acked_packet(n, t0)], rtt_ms * MS));
        if n == 0 {
            for m in 4..8 {
                sampler.on_packet_sent(&sent_packet(m, now, 3 * MDS), 4 * MDS);
            }
        }
    }
    assert!(last.is_none());
    let t1 = t0 + 100 * MS;
    let round = sampler
        .on_ack_frame(&ack_event(t1 + 100 * MS, &[acked_packet(4, t1)], 100 * MS))
        .unwrap();
    // Acknowledged in the round: packets 1-4; samples 102, 104, 106, 100.
    assert_eq!(round.bytes_acked, 4 * MDS as u64);
    assert_eq!(round.round_rtt, 103 * MS);
    let expected = 4.0 * MDS as f64 / 0.103;
    assert!((round.actual_bytes_per_sec - expected).abs() < 1e-6 * expected);
}

/// Round 1 of a sampler whose round 0 (packets 0-3, sent at t0) ends at
/// 100 ms: its distinguished packet 4 is sent then, packets 5-7 at 102 ms;
/// packets 1-3 come back at 102, 104 and 106 ms and one frame acknowledges
/// 4 and 5 at 210 ms (the stack's sample, of packet 5: 108 ms).
fn round_with_a_late_distinguished_ack(config: SamplerConfig) -> RoundSample {
    let t0 = Instant::now();
    let mut sampler = RoundSampler::new(config, MDS).unwrap();
    for n in 0..4 {
        sampler.on_packet_sent(&sent_packet(n, t0, n as usize * MDS), 4 * MDS);
    }
    for (n, rtt_ms) in [(0u64, 100u32), (1, 102), (2, 104), (3, 106)] {
        let now = t0 + rtt_ms * MS;
        sampler.on_ack_frame(&ack_event(now, &[acked_packet(n, t0)], rtt_ms * MS));
        match n {
            0 => sampler.on_packet_sent(&sent_packet(4, now, 3 * MDS), 4 * MDS),
            1 => {
                for m in 5..8 {
                    sampler.on_packet_sent(&sent_packet(m, now, 3 * MDS), 4 * MDS);
                }
            }
            _ => {}
        }
    }
    let (t1, t5) = (t0 + 100 * MS, t0 + 102 * MS);
    let both = [acked_packet(4, t1), acked_packet(5, t5)];
    sampler
        .on_ack_frame(&ack_event(t1 + 110 * MS, &both, 108 * MS))
        .expect("the ACK of packet 4 ends round 1")
}

#[test]
fn the_distinguished_packet_times_its_round() {
    // Brakmo & Peterson III-B: one timed packet per round, its RTT from
    // its send to its ACK (110 ms), not the round's samples (102, 104,
    // 106, 108 ms: mean 105).
    let timed = SamplerConfig {
        round_rtt: RoundRttStat::Distinguished,
        slow_start_round_rtt: RoundRttStat::Distinguished,
        ..SamplerConfig::paper()
    };
    let round = round_with_a_late_distinguished_ack(timed);
    assert_eq!(round.round_rtt, 110 * MS);
    assert_eq!(round.slow_start_round_rtt, 110 * MS);
    // Paper-mode Actual = the round's acknowledged bytes (packets 1-5)
    // over its RTT.
    let expected = 5.0 * MDS as f64 / 0.110;
    assert!((round.actual_bytes_per_sec - expected).abs() < 1e-6 * expected);
    // The mean, as a control.
    let mean = round_with_a_late_distinguished_ack(SamplerConfig::paper());
    assert_eq!(mean.round_rtt, 105 * MS);
    assert_eq!(mean.slow_start_round_rtt, 105 * MS);
}

#[test]
fn thinned_acks_give_the_same_actual_rate() {
    for actual_bytes in [
        ActualBytes::Sent,
        ActualBytes::Acked,
        ActualBytes::Delivered,
    ] {
        let config = SamplerConfig {
            actual_bytes,
            ..SamplerConfig::paper()
        };
        let per_packet = run_bottleneck(config, 1, 2000);
        let thinned = run_bottleneck(config, 8, 250);
        // The bottleneck delivers one 1200-byte packet per ms.
        let bottleneck_rate = 1_200_000.0;
        for rounds in [&per_packet, &thinned] {
            assert!(rounds.len() > 10);
            for round in &rounds[3..] {
                let error = (round.actual_bytes_per_sec - bottleneck_rate).abs();
                assert!(
                    error < 1e-6 * bottleneck_rate,
                    "{actual_bytes:?}: {round:?}"
                );
            }
        }
    }
}

#[test]
fn round_boundaries_follow_packet_numbers() {
    let mut sampler = RoundSampler::new(SamplerConfig::paper(), MDS).unwrap();
    let t0 = Instant::now();
    let cwnd = 4 * MDS;
    for n in 0..4 {
        sampler.on_packet_sent(&sent_packet(n, t0, n as usize * MDS), cwnd);
    }
    // Round 0 ends with the ACK of its distinguished packet 0.
    let r0 = sampler
        .on_ack_frame(&ack_event(t0 + 100 * MS, &[acked_packet(0, t0)], 100 * MS))
        .expect("packet 0 ends round 0");
    assert_eq!(r0.bytes_sent, 4 * MDS as u64);
    assert_eq!(r0.interval, 100 * MS);
    // Round 1's distinguished packet is the next one sent: 4.
    let t1 = t0 + 100 * MS;
    sampler.on_packet_sent(&sent_packet(4, t1, 3 * MDS), cwnd);
    let acks_1_3 = [
        acked_packet(1, t0),
        acked_packet(2, t0),
        acked_packet(3, t0),
    ];
    assert!(sampler
        .on_ack_frame(&ack_event(t1 + MS, &acks_1_3, 101 * MS))
        .is_none());
    sampler.on_packet_sent(&sent_packet(5, t1 + MS, 3 * MDS), cwnd);
    // Packet 4 is lost: the ACK of the later packet 5 ends the round.
    let t2 = t1 + 101 * MS;
    let r1 = sampler
        .on_ack_frame(&ack_event(t2, &[acked_packet(5, t1 + MS)], 100 * MS))
        .expect("a later packet ends the round");
    assert_eq!(r1.bytes_sent, 2 * MDS as u64);
    assert_eq!(r1.bytes_acked, 4 * MDS as u64);
    assert_eq!(r1.samples, 2);
    assert_eq!(r1.interval, t2 - t1);
    assert_eq!(r1.round_rtt, Duration::from_micros(100_500), "mean");
}

#[test]
fn ack_delay_is_subtracted_capped_and_never_below_min_rtt() {
    let sampler = RoundSampler::new(SamplerConfig::default(), MDS).unwrap();
    let now = Instant::now();
    // The arrival on the sampler's timeline (read only with a send time).
    let at_now = Timeline::default().nanos(now);
    let mut event = ack_event(now, &[], 100 * MS);
    event.min_rtt = Some(60 * MS);
    event.max_ack_delay = 25 * MS;
    event.rtt_sample = Some(RttSample {
        latest_rtt: 100 * MS,
        ack_delay: 30 * MS,
    });
    assert_eq!(
        sampler.rtt_sample(&event, at_now, None),
        Some(75 * MS),
        "capped at 25 ms"
    );
    event.rtt_sample = Some(RttSample {
        latest_rtt: 100 * MS,
        ack_delay: 10 * MS,
    });
    assert_eq!(sampler.rtt_sample(&event, at_now, None), Some(90 * MS));
    // 70 - 20 would be below min RTT 60: the sample is min RTT (RFC
    // 9002 would keep 70 ms, 10 ms of a delayed-ACK timer read as a
    // queue).
    event.rtt_sample = Some(RttSample {
        latest_rtt: 70 * MS,
        ack_delay: 20 * MS,
    });
    assert_eq!(sampler.rtt_sample(&event, at_now, None), Some(60 * MS));
    // An ack delay longer than the sample cannot make it negative.
    event.min_rtt = None;
    event.rtt_sample = Some(RttSample {
        latest_rtt: 10 * MS,
        ack_delay: 20 * MS,
    });
    assert_eq!(sampler.rtt_sample(&event, at_now, None), Some(10 * MS));
    // Paper mode keeps the raw sample.
    let paper = RoundSampler::new(SamplerConfig::paper(), MDS).unwrap();
    event.rtt_sample = Some(RttSample {
        latest_rtt: 100 * MS,
        ack_delay: 10 * MS,
    });
    assert_eq!(paper.rtt_sample(&event, at_now, None), Some(100 * MS));
    // Zero samples are discarded.
    event.rtt_sample = Some(RttSample {
        latest_rtt: Duration::ZERO,
        ack_delay: Duration::ZERO,
    });
    assert_eq!(paper.rtt_sample(&event, at_now, None), None);
}

#[test]
fn a_frame_for_older_packets_only_gives_no_rtt_sample() {
    let mut sampler = RoundSampler::new(SamplerConfig::default(), MDS).unwrap();
    let t0 = Instant::now();
    let t1 = t0 + 50 * MS;
    sampler.on_ack_frame(&ack_event(t1, &[acked_packet(5, t0)], 50 * MS));
    assert_eq!(sampler.latest_rtt(), Some(50 * MS));
    // Packets 1-4, sent 20 s before, reported late.
    let late = t1 + Duration::from_secs(20);
    let old: Vec<AckedPacket> = (1..5).map(|n| acked_packet(n, t0)).collect();
    sampler.on_ack_frame(&ack_event(late, &old, late - t0));
    assert_eq!(sampler.latest_rtt(), Some(50 * MS));
    assert_eq!(sampler.base_rtt(), Some(50 * MS));
    // Their age moved the credit cycle by at most 1/8.
    let cycle = sampler.credit_cycle().unwrap();
    assert!(cycle <= 50 * MS * 9 / 8, "{cycle:?}");
}

#[test]
fn short_rounds_are_extended() {
    let config = SamplerConfig {
        min_round_samples: 3,
        ..SamplerConfig::paper()
    };
    let mut sampler = RoundSampler::new(config, MDS).unwrap();
    let t0 = Instant::now();
    let cwnd = 2 * MDS;
    sampler.on_packet_sent(&sent_packet(0, t0, 0), cwnd);
    sampler.on_packet_sent(&sent_packet(1, t0, MDS), cwnd);
    // One ACK for both packets: 1 sample < 3, the round goes on.
    let t1 = t0 + 100 * MS;
    let both = [acked_packet(0, t0), acked_packet(1, t0)];
    assert!(sampler
        .on_ack_frame(&ack_event(t1, &both, 100 * MS))
        .is_none());
    sampler.on_packet_sent(&sent_packet(2, t1, 0), cwnd);
    sampler.on_packet_sent(&sent_packet(3, t1, MDS), cwnd);
    // Packet 2 ends the extended round with 2 samples: extended again,
    // now to the next packet sent (4).
    let t2 = t1 + 100 * MS;
    assert!(sampler
        .on_ack_frame(&ack_event(t2, &[acked_packet(2, t1)], 100 * MS))
        .is_none());
    sampler.on_packet_sent(&sent_packet(4, t2, MDS), cwnd);
    assert!(sampler
        .on_ack_frame(&ack_event(t2, &[acked_packet(3, t1)], 100 * MS))
        .is_none());
    let t3 = t2 + 100 * MS;
    let round = sampler
        .on_ack_frame(&ack_event(t3, &[acked_packet(4, t2)], 100 * MS))
        .expect("enough samples");
    assert_eq!(round.samples, 4);
    assert_eq!(round.bytes_sent, 5 * MDS as u64);
    assert_eq!(round.interval, 300 * MS);
}

#[test]
fn rounds_not_using_the_window_are_not_usable() {
    let gated = SamplerConfig {
        require_cwnd_limited: true,
        ..SamplerConfig::paper()
    };
    let t0 = Instant::now();
    let t1 = t0 + 100 * MS;
    let cwnd = 4 * MDS;
    // Two packets in a four-packet window: not cwnd-limited.
    let mut sampler = RoundSampler::new(gated, MDS).unwrap();
    sampler.on_packet_sent(&sent_packet(0, t0, 0), cwnd);
    sampler.on_packet_sent(&sent_packet(1, t0, MDS), cwnd);
    let round = sampler
        .on_ack_frame(&ack_event(t1, &[acked_packet(0, t0)], 100 * MS))
        .unwrap();
    assert!(!round.cwnd_limited && !round.usable);
    // A full window, but the application said it ran dry.
    let mut sampler = RoundSampler::new(gated, MDS).unwrap();
    for n in 0..4 {
        sampler.on_packet_sent(&sent_packet(n, t0, n as usize * MDS), cwnd);
    }
    sampler.on_app_limited(t0);
    let round = sampler
        .on_ack_frame(&ack_event(t1, &[acked_packet(0, t0)], 100 * MS))
        .unwrap();
    // The app-limited signal is recorded; the full window sent decides.
    assert!(round.cwnd_limited && round.app_limited && round.usable);
    // A round that sent under half its window (the QUIC handshake
    // pattern) is not usable even if some send found the window full.
    let mut sampler = RoundSampler::new(gated, MDS).unwrap();
    sampler.on_packet_sent(&sent_packet(0, t0, 3 * MDS), cwnd);
    let round = sampler
        .on_ack_frame(&ack_event(t1, &[acked_packet(0, t0)], 100 * MS))
        .unwrap();
    assert!(round.cwnd_limited && !round.usable);
    // Without gating every round counts.
    let ungated = SamplerConfig {
        require_cwnd_limited: false,
        ..SamplerConfig::paper()
    };
    let mut sampler = RoundSampler::new(ungated, MDS).unwrap();
    sampler.on_packet_sent(&sent_packet(0, t0, 0), cwnd);
    let round = sampler
        .on_ack_frame(&ack_event(t1, &[acked_packet(0, t0)], 100 * MS))
        .unwrap();
    assert!(round.usable);
}

#[test]
fn the_samples_a_round_needs_follow_the_peers_ack_frequency() {
    let pkts = |n: u64| n * MDS as u64;
    // Every second packet (or unknown): the configured minimum.
    assert_eq!(min_round_samples(3, pkts(4), MDS, None), 3);
    assert_eq!(min_round_samples(3, pkts(4), MDS, Some(2.0)), 3);
    assert_eq!(min_round_samples(3, pkts(4), MDS, Some(2.5)), 3);
    // An ACK every 16 packets: what the round's packets allow.
    assert_eq!(min_round_samples(3, pkts(20), MDS, Some(16.0)), 1);
    assert_eq!(min_round_samples(3, pkts(40), MDS, Some(16.0)), 2);
    assert_eq!(min_round_samples(3, pkts(64), MDS, Some(16.0)), 3);
    // Never more than configured, never fewer than one.
    assert_eq!(min_round_samples(2, pkts(640), MDS, Some(16.0)), 2);
    assert_eq!(min_round_samples(3, pkts(2), MDS, Some(16.0)), 1);
}

#[test]
fn thinned_acks_do_not_stretch_rounds_over_several_rtts() {
    // A 20-packet window, an ACK every 16 packets: one or two frames a
    // round. Rounds still end about one RTT (50 ms + 20 packet times)
    // after they start instead of waiting for three samples.
    let (rounds, _) =
        run_path_with_window(SamplerConfig::default(), 16, |_| None, 50 * MS, 60, |_| 20);
    assert!(rounds.len() >= 40, "{} rounds", rounds.len());
    for round in &rounds[2..] {
        assert!(round.interval < 90 * MS, "{round:?}");
        assert!(round.samples < 3, "{round:?}");
    }
}

#[test]
fn every_second_packet_acks_still_need_three_samples() {
    // A 4-packet window acknowledged every second packet has two frames
    // per RTT: its rounds are extended to three samples, as before.
    let (rounds, _) =
        run_path_with_window(SamplerConfig::default(), 2, |_| None, 50 * MS, 60, |_| 4);
    assert!(rounds.len() >= 5, "{} rounds", rounds.len());
    assert!(rounds.iter().all(|r| r.samples >= 3), "{rounds:?}");
}
