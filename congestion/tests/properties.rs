//! Property tests: every controller variant, driven by hostile but
//! well-formed event sequences, never panics and keeps its invariants.
//!
//! A sequence is what a QUIC stack could hand a controller on a bad day:
//! bursts of sends with any datagram size, ACK frames that acknowledge any
//! subset of the flight (so ACKs for packets sent minutes earlier), RTT
//! samples of zero, ACK delays larger than the RTT, a `min_rtt` of zero or
//! none, time that stands still or jumps by an hour, losses, PTOs,
//! app-limited periods, path changes and PMTU changes. After every call:
//!
//! - the window is at least the RFC 9002 7.2 minimum (2 datagrams) and at
//!   most the initial window plus twice every byte ever acknowledged plus
//!   a datagram per ACK frame (no controller grows faster than its ACKs;
//!   Vegas adds a whole datagram per round even when small packets were
//!   acknowledged);
//! - the pacing rate is none or a positive number of bytes per second, for
//!   any smoothed RTT the stack passes;
//! - every decision record carries finite numbers and times no earlier than
//!   the previous record's (time is monotonic inside);
//! - the sampler's rounds carry finite, positive RTTs and rates.
//!
//! `cargo xtask test` runs [`CI_CASES`] sequences per variant;
//! `cargo xtask fuzz --minutes N` runs the `soak` test below for N minutes
//! over every variant (`VEGAS_FUZZ_SECONDS`) and prints how many sequences
//! and controller calls ran. The soak uses proptest rather than cargo-fuzz:
//! it runs on stable Rust, shares these generators and invariants with CI,
//! and shrinks a failure to a short sequence.

use std::time::Duration;
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use proptest::test_runner::RngAlgorithm;
use proptest::test_runner::TestCaseError;
use proptest::test_runner::TestRng;
use proptest::test_runner::TestRunner;
use vegas_cc::AckEvent;
use vegas_cc::AckedPacket;
use vegas_cc::CompatApproach;
use vegas_cc::Controller;
use vegas_cc::ControllerEvent;
use vegas_cc::GammaApproach;
use vegas_cc::LostPacket;
use vegas_cc::NewReno;
use vegas_cc::NewRenoConfig;
use vegas_cc::RoundSampler;
use vegas_cc::RttSample;
use vegas_cc::SamplerConfig;
use vegas_cc::SentPacket;
use vegas_cc::Vegas;
use vegas_cc::VegasConfig;

/// Sequences per variant in `cargo xtask test`.
const CI_CASES: u32 = 64;

/// The largest UDP payload (RFC 768 over IPv4 less headers): the largest
/// datagram a stack can report.
const MAX_DATAGRAM_BYTES: usize = 65_527;

/// The smallest datagram QUIC allows (RFC 9000 14.1).
const MIN_DATAGRAM_BYTES: usize = 1_200;

/// Every controller variant: the eight family members in default and in
/// paper mode, gamma selection (both approaches), and NewReno.
/// A named way to make a fresh controller.
type Variant = (&'static str, fn() -> Box<dyn Controller>);

fn variants() -> Vec<Variant> {
    fn vegas(config: VegasConfig) -> Box<dyn Controller> {
        Box::new(Vegas::new(config).expect("a valid configuration"))
    }
    fn compat(c: VegasConfig) -> VegasConfig {
        c.with_compat(50.0, 1, 1, CompatApproach::Two)
    }
    vec![
        ("vegas", || vegas(VegasConfig::default())),
        ("vegas-a", || vegas(VegasConfig::vegas_a())),
        ("gallop-vegas", || vegas(VegasConfig::gallop())),
        ("gallop-vegas-a", || {
            vegas(VegasConfig::gallop().with_vegas_a())
        }),
        ("vegas-compat", || vegas(compat(VegasConfig::default()))),
        ("vegas-a-compat", || vegas(compat(VegasConfig::vegas_a()))),
        ("gallop-vegas-compat", || {
            vegas(compat(VegasConfig::gallop()))
        }),
        ("gallop-vegas-a-compat", || {
            vegas(compat(VegasConfig::gallop().with_vegas_a()))
        }),
        ("vegas paper", || vegas(VegasConfig::paper())),
        ("vegas-a paper", || {
            vegas(VegasConfig::paper().with_vegas_a())
        }),
        ("gallop-vegas paper", || {
            vegas(VegasConfig::paper().with_gallop())
        }),
        ("gallop-vegas-a paper", || {
            vegas(VegasConfig::paper().with_gallop().with_vegas_a())
        }),
        ("vegas-compat paper", || vegas(compat(VegasConfig::paper()))),
        ("vegas-compat approach 1 paper", || {
            vegas(VegasConfig::paper().with_compat(30.0, 2, 1, CompatApproach::One))
        }),
        ("vegas gamma basic", || {
            vegas(VegasConfig::default().with_selected_gamma(800.0, GammaApproach::Basic))
        }),
        ("vegas gamma enhanced paper", || {
            vegas(VegasConfig::paper().with_selected_gamma(800.0, GammaApproach::Enhanced))
        }),
        ("vegas-a gamma enhanced", || {
            vegas(VegasConfig::vegas_a().with_selected_gamma(800.0, GammaApproach::Enhanced))
        }),
        ("vegas large initial window", || {
            vegas(VegasConfig {
                initial_cwnd_pkts: 1_000,
                ..VegasConfig::default()
            })
        }),
        ("newreno", || {
            Box::new(NewReno::new(NewRenoConfig::default()).expect("valid"))
        }),
    ]
}

/// What the stack's smoothed RTT looks like to the controller.
#[derive(Clone, Copy, Debug)]
enum StackRtt {
    /// What a well-behaved stack reports.
    Honest,
    /// `min_rtt` of zero (a stack that subtracts the ACK delay blindly).
    ZeroMinRtt,
    /// No `min_rtt` and a smoothed RTT of zero.
    Missing,
    /// An RTT sample that is not `now - time_sent` (a broken stack), up to
    /// `Duration::MAX`.
    Absurd(Duration),
}

/// One thing that happens to the sender.
#[derive(Clone, Debug)]
enum Op {
    /// Send `pkts` packets of `size_bytes` (the stack may overshoot the
    /// window: the controller must cope).
    Send {
        pkts: u16,
        size_bytes: usize,
    },
    /// Time passes.
    Advance(Duration),
    /// One ACK frame acknowledges `count` in-flight packets, every
    /// `stride`-th from the oldest (so gaps and ancient packets), with
    /// this ACK delay and this view of the RTT.
    Ack {
        count: u16,
        stride: u16,
        ack_delay: Duration,
        rtt: StackRtt,
    },
    /// Loss detection declares the `count` oldest packets lost.
    Lose {
        count: u16,
        persistent: bool,
    },
    Pto,
    AppLimited,
    PathChange,
    SetMaxDatagramSize(usize),
}

fn duration() -> impl Strategy<Value = Duration> {
    prop_oneof![
        8 => (0u64..300_000).prop_map(Duration::from_micros),
        2 => Just(Duration::ZERO),
        1 => (0u64..20_000).prop_map(Duration::from_millis),
        1 => prop_oneof![
            Just(Duration::from_secs(20)),
            Just(Duration::from_secs(300)),
            Just(Duration::from_secs(3_600)),
            Just(Duration::from_nanos(1)),
        ],
    ]
}

fn datagram_size() -> impl Strategy<Value = usize> {
    prop_oneof![
        6 => Just(1_200usize),
        2 => MIN_DATAGRAM_BYTES..=1_500usize,
        1 => 1usize..MIN_DATAGRAM_BYTES,
        1 => 1_500usize..=MAX_DATAGRAM_BYTES,
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let stack_rtt = prop_oneof![
        6 => Just(StackRtt::Honest),
        1 => Just(StackRtt::ZeroMinRtt),
        1 => Just(StackRtt::Missing),
        1 => prop_oneof![
            Just(Duration::MAX),
            Just(Duration::from_secs(u64::MAX / 2)),
            (0u64..u64::MAX).prop_map(Duration::from_nanos),
        ]
        .prop_map(StackRtt::Absurd),
    ];
    prop_oneof![
        6 => (1u16..64, datagram_size()).prop_map(|(pkts, size_bytes)| Op::Send { pkts, size_bytes }),
        6 => duration().prop_map(Op::Advance),
        6 => (1u16..200, prop_oneof![4 => Just(1u16), 1 => 1u16..8], duration(), stack_rtt)
            .prop_map(|(count, stride, ack_delay, rtt)| Op::Ack { count, stride, ack_delay, rtt }),
        1 => (1u16..20, any::<bool>()).prop_map(|(count, persistent)| Op::Lose { count, persistent }),
        1 => Just(Op::Pto),
        1 => Just(Op::AppLimited),
        1 => Just(Op::PathChange),
        1 => prop_oneof![Just(MIN_DATAGRAM_BYTES), datagram_size()].prop_map(Op::SetMaxDatagramSize),
    ]
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(op(), 1..400)
}

/// A minimal QUIC sender: numbers packets, keeps the flight, turns [`Op`]s
/// into controller calls and checks the invariants after each.
struct Driver {
    cc: Box<dyn Controller>,
    start: Instant,
    now: Instant,
    next_pkt_num: u64,
    flight: Vec<SentPacket>,
    max_datagram_size: usize,
    /// The initial window in datagrams, and the largest datagram size
    /// seen: a path change or PMTU change may restart from that window.
    initial_window_pkts: usize,
    largest_datagram_bytes: usize,
    acked_bytes_total: u64,
    ack_frames: u64,
    min_rtt: Option<Duration>,
    smoothed_rtt: Duration,
    last_event_time: Option<Instant>,
    calls: u64,
}

impl Driver {
    fn new(cc: Box<dyn Controller>) -> Self {
        let now = Instant::now();
        let initial_window_pkts = cc.cwnd_bytes() / MIN_DATAGRAM_BYTES;
        Driver {
            cc,
            start: now,
            now,
            next_pkt_num: 0,
            flight: Vec::new(),
            max_datagram_size: MIN_DATAGRAM_BYTES,
            initial_window_pkts,
            largest_datagram_bytes: MIN_DATAGRAM_BYTES,
            acked_bytes_total: 0,
            ack_frames: 0,
            min_rtt: None,
            smoothed_rtt: Duration::from_millis(333),
            last_event_time: None,
            calls: 0,
        }
    }

    fn bytes_in_flight(&self) -> usize {
        self.flight.iter().map(|p| p.size_bytes).sum()
    }

    fn run(&mut self, op: &Op) -> Result<(), TestCaseError> {
        match *op {
            Op::Send { pkts, size_bytes } => {
                for _ in 0..pkts {
                    let packet = SentPacket {
                        pkt_num: self.next_pkt_num,
                        time_sent: self.now,
                        size_bytes,
                        bytes_in_flight_before: self.bytes_in_flight(),
                        in_flight: true,
                    };
                    self.next_pkt_num += 1;
                    self.cc.on_packet_sent(self.now, &packet);
                    self.flight.push(packet);
                    self.calls += 1;
                }
            }
            Op::Advance(d) => self.now += d,
            Op::Ack {
                count,
                stride,
                ack_delay,
                rtt,
            } => self.ack(count, stride, ack_delay, rtt),
            Op::Lose { count, persistent } => {
                let n = (count as usize).min(self.flight.len());
                let prior = self.bytes_in_flight();
                let lost: Vec<LostPacket> = self
                    .flight
                    .drain(..n)
                    .map(|p| LostPacket {
                        pkt_num: p.pkt_num,
                        time_sent: p.time_sent,
                        size_bytes: p.size_bytes,
                    })
                    .collect();
                let event = AckEvent {
                    now: self.now,
                    acked: &[],
                    lost: &lost,
                    rtt_sample: None,
                    min_rtt: self.min_rtt,
                    smoothed_rtt: self.smoothed_rtt,
                    max_ack_delay: Duration::from_millis(25),
                    prior_bytes_in_flight: prior,
                    bytes_in_flight: self.bytes_in_flight(),
                    persistent_congestion: persistent,
                };
                self.cc.on_ack_event(&event);
                self.calls += 1;
            }
            Op::Pto => {
                self.cc.on_pto(self.now);
                self.calls += 1;
            }
            Op::AppLimited => {
                self.cc.on_app_limited(self.now, self.bytes_in_flight());
                self.calls += 1;
            }
            Op::PathChange => {
                self.cc.on_path_change(self.now);
                self.calls += 1;
            }
            Op::SetMaxDatagramSize(size) => {
                self.max_datagram_size = size;
                self.cc.set_max_datagram_size(size);
                self.largest_datagram_bytes = self.largest_datagram_bytes.max(size);
                self.calls += 1;
            }
        }
        self.check()
    }

    fn ack(&mut self, count: u16, stride: u16, ack_delay: Duration, rtt: StackRtt) {
        let mut acked = Vec::new();
        let mut i = 0;
        while i < self.flight.len() && acked.len() < count as usize {
            let p = self.flight.remove(i);
            acked.push(AckedPacket {
                pkt_num: p.pkt_num,
                time_sent: p.time_sent,
                size_bytes: p.size_bytes,
            });
            i += stride as usize - 1;
        }
        let Some(largest) = acked.last() else {
            return;
        };
        let latest_rtt = match rtt {
            StackRtt::Absurd(rtt) => rtt,
            _ => self.now - largest.time_sent,
        };
        self.acked_bytes_total += acked.iter().map(|p| p.size_bytes as u64).sum::<u64>();
        self.ack_frames += 1;
        let honest_min = self.min_rtt.map_or(latest_rtt, |m| m.min(latest_rtt));
        if !matches!(rtt, StackRtt::Absurd(_)) {
            self.min_rtt = Some(honest_min);
            self.smoothed_rtt = (self.smoothed_rtt * 7 + latest_rtt) / 8;
        }
        let (min_rtt, smoothed_rtt) = match rtt {
            StackRtt::Honest => (Some(honest_min), self.smoothed_rtt),
            StackRtt::Absurd(rtt) => (Some(rtt), rtt),
            StackRtt::ZeroMinRtt => (Some(Duration::ZERO), self.smoothed_rtt),
            StackRtt::Missing => (None, Duration::ZERO),
        };
        let bytes_in_flight = self.bytes_in_flight();
        let prior = bytes_in_flight + acked.iter().map(|p| p.size_bytes).sum::<usize>();
        let event = AckEvent {
            now: self.now,
            acked: &acked,
            lost: &[],
            rtt_sample: Some(RttSample {
                latest_rtt,
                ack_delay,
            }),
            min_rtt,
            smoothed_rtt,
            max_ack_delay: Duration::from_millis(25),
            prior_bytes_in_flight: prior,
            bytes_in_flight,
            persistent_congestion: false,
        };
        self.cc.on_ack_event(&event);
        self.calls += 1;
    }

    fn check(&mut self) -> Result<(), TestCaseError> {
        let cwnd = self.cc.cwnd_bytes();
        let name = self.cc.name();
        let min_window = 2 * self.max_datagram_size;
        prop_assert!(
            cwnd >= min_window,
            "{name}: window {cwnd} below the minimum {min_window}"
        );
        let initial_window_bytes = self.initial_window_pkts * self.largest_datagram_bytes;
        let max_window = initial_window_bytes as u64
            + 2 * self.acked_bytes_total
            + self.ack_frames * self.largest_datagram_bytes as u64;
        prop_assert!(
            cwnd as u64 <= max_window,
            "{name}: window {cwnd} above initial + 2 x acked + a datagram per frame = {max_window}"
        );
        // Only whole datagrams of the free window may be sent (every
        // controller here runs with `whole_datagrams` on, the default).
        for in_flight in [
            0,
            1,
            self.max_datagram_size / 2,
            cwnd / 2 + 7,
            cwnd,
            cwnd + 1,
        ] {
            let available = self.cc.cwnd_available_bytes(in_flight);
            let free = cwnd.saturating_sub(in_flight);
            prop_assert!(
                available <= free && free - available < self.max_datagram_size,
                "{name}: {available} available of {free} free"
            );
            prop_assert!(
                available % self.max_datagram_size == 0,
                "{name}: {available} available is not whole datagrams of {}",
                self.max_datagram_size
            );
        }
        // RFC 9002 B.6 lets ssthresh fall below the minimum window (the
        // window itself stays at the minimum); it is never zero.
        prop_assert!(self.cc.ssthresh_bytes() != Some(0), "{name}: ssthresh 0");
        for srtt in [
            Duration::ZERO,
            Duration::from_nanos(1),
            Duration::from_millis(40),
            self.smoothed_rtt,
            Duration::from_secs(3_600),
        ] {
            let rate = self.cc.pacing_rate_bytes_per_sec(srtt);
            prop_assert!(
                rate != Some(0),
                "{name}: pacing rate 0 at smoothed RTT {srtt:?}"
            );
        }
        while let Some(event) = self.cc.poll_event() {
            let (now, numbers) = event_numbers(&event);
            for x in numbers {
                prop_assert!(x.is_finite(), "{name}: non-finite number in {event:?}");
            }
            prop_assert!(
                now >= self.start && now <= self.now,
                "{name}: record time outside the run in {event:?}"
            );
            if let Some(last) = self.last_event_time {
                prop_assert!(now >= last, "{name}: record time went back in {event:?}");
            }
            self.last_event_time = Some(now);
        }
        Ok(())
    }
}

/// A record's time and every floating-point number it carries.
fn event_numbers(event: &ControllerEvent) -> (Instant, Vec<f64>) {
    match *event {
        ControllerEvent::Round(r) => (
            r.now,
            vec![
                r.expected_bytes_per_sec,
                r.actual_bytes_per_sec,
                r.diff_pkts,
                r.alpha_pkts,
                r.beta_pkts,
                r.gamma_pkts,
            ],
        ),
        ControllerEvent::SlowStartExit { now, .. }
        | ControllerEvent::Reduction { now, .. }
        | ControllerEvent::SendHold { now, .. } => (now, vec![]),
        ControllerEvent::ParamsChanged {
            now,
            alpha_pkts,
            beta_pkts,
        } => (now, vec![alpha_pkts, beta_pkts]),
        ControllerEvent::GallopUpdate {
            now,
            incr_pkts,
            maxincr_pkts,
            ..
        } => (now, vec![incr_pkts, maxincr_pkts]),
        ControllerEvent::ModeChange {
            now,
            rtt_change_secs,
            ..
        } => (now, vec![rtt_change_secs]),
    }
}

/// The same sequences on every run, so a CI failure reproduces; the soak
/// draws new ones.
fn ci_runner() -> TestRunner {
    let config = ProptestConfig {
        cases: CI_CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
}

/// Runs `ops` on a fresh `make()`; returns the number of controller calls.
fn run_sequence(make: fn() -> Box<dyn Controller>, ops: &[Op]) -> Result<u64, TestCaseError> {
    let mut driver = Driver::new(make());
    for op in ops {
        driver.run(op)?;
    }
    Ok(driver.calls)
}

#[test]
fn every_controller_variant_keeps_its_invariants() {
    for (name, make) in variants() {
        let mut runner = ci_runner();
        let result = runner.run(&ops(), |ops| run_sequence(make, &ops).map(|_| ()));
        if let Err(e) = result {
            panic!("{name}: {e}");
        }
    }
}

/// The sampler alone: every round it closes carries finite, positive
/// numbers and a BaseRTT no larger than its samples.
#[test]
fn the_sampler_closes_only_sane_rounds() {
    for (name, config) in [
        ("default", SamplerConfig::default()),
        ("paper", SamplerConfig::paper()),
        ("naive", SamplerConfig::naive()),
    ] {
        let mut runner = ci_runner();
        let result = runner.run(&ops(), |ops| {
            let mut sampler = RoundSampler::new(config, MIN_DATAGRAM_BYTES).unwrap();
            sampler_sequence(&mut sampler, &ops)
        });
        if let Err(e) = result {
            panic!("sampler {name}: {e}");
        }
    }
}

fn sampler_sequence(sampler: &mut RoundSampler, ops: &[Op]) -> Result<(), TestCaseError> {
    // Drive a NewReno for the window and the flight, and hand the sampler
    // the same sends and ACK frames.
    let mut driver = Driver::new(Box::new(NewReno::new(NewRenoConfig::default()).unwrap()));
    for op in ops {
        let sent_before = driver.next_pkt_num;
        let flight_before: Vec<SentPacket> = driver.flight.clone();
        driver.run(op)?;
        for p in driver.flight.iter().filter(|p| p.pkt_num >= sent_before) {
            sampler.on_packet_sent(p, driver.cc.cwnd_bytes());
        }
        if let Op::Ack { ack_delay, .. } = *op {
            let acked: Vec<AckedPacket> = flight_before
                .iter()
                .filter(|p| !driver.flight.iter().any(|q| q.pkt_num == p.pkt_num))
                .map(|p| AckedPacket {
                    pkt_num: p.pkt_num,
                    time_sent: p.time_sent,
                    size_bytes: p.size_bytes,
                })
                .collect();
            let Some(largest) = acked.last() else {
                continue;
            };
            let event = AckEvent {
                now: driver.now,
                acked: &acked,
                lost: &[],
                rtt_sample: Some(RttSample {
                    latest_rtt: driver.now - largest.time_sent,
                    ack_delay,
                }),
                min_rtt: driver.min_rtt,
                smoothed_rtt: driver.smoothed_rtt,
                max_ack_delay: Duration::from_millis(25),
                prior_bytes_in_flight: driver.bytes_in_flight()
                    + acked.iter().map(|p| p.size_bytes).sum::<usize>(),
                bytes_in_flight: driver.bytes_in_flight(),
                persistent_congestion: false,
            };
            if let Some(round) = sampler.on_ack_frame(&event) {
                prop_assert!(round.actual_bytes_per_sec.is_finite(), "{round:?}");
                prop_assert!(round.actual_bytes_per_sec >= 0.0, "{round:?}");
                prop_assert!(round.max_ack_rate_bytes_per_sec.is_finite(), "{round:?}");
                prop_assert!(!round.base_rtt.is_zero(), "zero BaseRTT in {round:?}");
                // A hold-bounded round's RTT estimate may lie below every
                // sample, and so below BaseRTT; the mean never does.
                prop_assert!(
                    round.hold_bounded || round.base_rtt <= round.round_rtt,
                    "{round:?}"
                );
                prop_assert!(round.base_rtt <= round.slow_start_round_rtt, "{round:?}");
            }
        }
        if let Op::PathChange = op {
            sampler.on_path_change();
        }
    }
    Ok(())
}

/// `cargo xtask fuzz --minutes N`: every variant in turn, random
/// sequences until `VEGAS_FUZZ_SECONDS` have passed; prints the counts.
#[test]
#[ignore = "a long soak: run by `cargo xtask fuzz`"]
fn soak() {
    let seconds: u64 = std::env::var("VEGAS_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let variants = variants();
    let (mut sequences, mut calls) = (0u64, 0u64);
    let mut per_variant = vec![0u64; variants.len()];
    // Batches of sequences per variant, round robin, so every variant gets
    // its share whatever N is; a failure is shrunk by proptest.
    const BATCH: u32 = 32;
    'soak: loop {
        for (k, (name, make)) in variants.iter().enumerate() {
            if Instant::now() >= deadline {
                break 'soak;
            }
            let mut runner = TestRunner::new(ProptestConfig {
                cases: BATCH,
                failure_persistence: None,
                ..ProptestConfig::default()
            });
            let batch_calls = std::cell::Cell::new(0u64);
            let result = runner.run(&ops(), |ops| {
                batch_calls.set(batch_calls.get() + run_sequence(*make, &ops)?);
                Ok(())
            });
            if let Err(e) = result {
                panic!("{name}: {e}");
            }
            calls += batch_calls.get();
            sequences += u64::from(BATCH);
            per_variant[k] += u64::from(BATCH);
        }
    }
    println!(
        "fuzz: {sequences} sequences, {calls} controller calls over {} variants in {seconds} s; no panic, no invariant broken",
        variants.len()
    );
    for ((name, _), n) in variants.iter().zip(per_variant) {
        println!("fuzz:   {name}: {n} sequences");
    }
}
