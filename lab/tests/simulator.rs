//! The simulator: determinism, analytic link behaviour with real quiche
//! flows, fairness, the receiver ACK policy, background traffic, outputs
//! and the `vegas-lab` CLI contract.

use vegas_lab::sim::report::Report;
use vegas_lab::sim::run;
use vegas_lab::sim::RunOptions;
use vegas_lab::sim::Scenario;

#[path = "support/sim.rs"]
mod sim_support;

use sim_support::from_toml;
use sim_support::run_default;
use sim_support::run_report;
use sim_support::vegas_lab;

/// A 10 Mbit/s, 20 ms one-way dumbbell with one flow; `extra` in TOML.
fn scenario(extra_flows: &str, bottleneck_extra: &str, sets: &[&str]) -> Scenario {
    let text = format!(
        r#"
name = "test"
duration = "30s"
[bottleneck]
rate = "10Mbit/s"
delay = "20ms"
buffer_pkts = 100
{bottleneck_extra}
{extra_flows}
"#
    );
    from_toml(&text, "test", sets)
}

fn one_flow(algorithm: &str, what: &str) -> String {
    format!("[[flows]]\nalgorithm = \"{algorithm}\"\n{what}\n")
}

fn json_without_wall_time(r: &Report) -> String {
    let mut v = serde_json::to_value(r).unwrap();
    v["wall_seconds"] = serde_json::Value::Null;
    v["peak_rss_mb"] = serde_json::Value::Null;
    v.to_string()
}

#[test]
fn same_seed_identical_json_and_another_seed_differs_under_random_loss() {
    let s = scenario(
        &one_flow("newreno", "bytes = 2000000"),
        "loss = 0.01",
        &["seed=5"],
    );
    let a = json_without_wall_time(&run_report(&s));
    let b = json_without_wall_time(&run_report(&s));
    assert_eq!(a, b);
    let s2 = scenario(
        &one_flow("newreno", "bytes = 2000000"),
        "loss = 0.01",
        &["seed=6"],
    );
    let c = json_without_wall_time(&run_report(&s2));
    assert_ne!(a, c, "a different seed must change the random losses");
}

#[test]
fn jitter_delays_packets_in_order_and_is_seeded() {
    // 10 Mbit/s: a packet every 1.2 ms; jitter of 1 ms mean (at most 10 ms)
    // each way would reorder packets by up to 8 if it did not keep FIFO,
    // and QUIC would declare the late ones lost (packet threshold 3).
    let flow = one_flow("vegas", "bytes = 2000000");
    let jitter = "jitter = \"1ms\"\n[reverse]\njitter = \"1ms\"";
    let jittered = scenario(&flow, jitter, &["seed=5"]);
    let a = run_report(&jittered);
    assert_eq!(a.flows[0].lost_packets, 0, "{:?}", a.flows[0]);
    assert_eq!(a.flows[0].pto_count, 0, "{:?}", a.flows[0]);
    // 30 kB never queue (the pipe holds 50 kB): the RTT grows by the
    // jitter alone, 2 ms in the mean (more where FIFO holds a packet
    // behind a later draw of the one before it).
    let short = one_flow("vegas", "bytes = 30000");
    let clean_ms = run_report(&scenario(&short, "", &[])).flows[0]
        .mean_rtt_ms
        .unwrap();
    let jittered_ms = run_report(&scenario(&short, jitter, &["seed=5"])).flows[0]
        .mean_rtt_ms
        .unwrap();
    let added_ms = jittered_ms - clean_ms;
    assert!(
        (1.0..6.0).contains(&added_ms),
        "2 ms of mean jitter per round trip added {added_ms:.2} ms"
    );
    assert_eq!(
        json_without_wall_time(&a),
        json_without_wall_time(&run_report(&jittered))
    );
    let other_seed = run_report(&scenario(&flow, jitter, &["seed=6"]));
    assert_ne!(
        json_without_wall_time(&a),
        json_without_wall_time(&other_seed)
    );
}

#[test]
fn one_newreno_flow_fills_an_uncongested_path() {
    // Buffer of one BDP (10 Mbit/s * 40 ms = 50 kB = ~42 packets) and more.
    let s = scenario(&one_flow("newreno", "duration = \"20s\""), "", &[]);
    let r = run_report(&s);
    let bottleneck = &r.links[0];
    assert!(bottleneck.utilization > 0.95, "{:?}", bottleneck);
    // Goodput counts stream bytes only: QUIC/UDP headers take ~4%.
    let goodput = r.flows[0].goodput_bps;
    assert!(goodput > 0.9 * 10e6 && goodput < 10e6, "{goodput}");
    // Base RTT = 2 * 20 ms propagation + serialization.
    let base = r.flows[0].base_rtt_ms.unwrap();
    assert!((40.0..42.0).contains(&base), "{base}");
}

#[test]
fn a_trace_driven_bottleneck_delivers_what_its_trace_offers() {
    // 12 Mbit/s for 800 ms, then a 200 ms outage, repeated; written by
    // the test (the recorded traces are not part of the repository).
    let path = std::env::temp_dir().join(format!("sim-trace-{}.down", std::process::id()));
    let text: String = (1..=1000u32)
        .filter(|ms| *ms <= 800 || *ms == 1000)
        .map(|ms| format!("{ms}\n"))
        .collect();
    std::fs::write(&path, text).unwrap();
    let text = format!(
        "name = \"trace\"\nduration = \"20s\"\n[bottleneck]\ntrace = \"{}\"\n\
         delay = \"20ms\"\nbuffer_pkts = 100\n{}",
        path.display(),
        one_flow("cubic", "duration = \"20s\"")
    );
    let s = from_toml(&text, "trace", &[]);
    let r = run_report(&s);
    let link = &r.links[0];
    let used = link
        .trace_capacity_used
        .expect("a trace-driven link reports it");
    // A loss-based flow keeps the buffer from running dry through the
    // outages: nearly every opportunity carries data.
    assert!((0.9..=1.0).contains(&used), "capacity used {used}");
    // 801 opportunities of 1500 bytes per second: 9.6 Mbit/s at most.
    assert!(r.flows[0].goodput_bps < 9.62e6 && r.flows[0].goodput_bps > 8.0e6);
    // Every packet waits out part of an outage or a queue: the 95th
    // percentile is far above the 20 ms of propagation.
    let (mean, p95) = (link.mean_delay_ms.unwrap(), link.p95_delay_ms.unwrap());
    assert!(mean > 20.0 && p95 > mean, "mean {mean} p95 {p95}");
    let fixed = scenario(&one_flow("cubic", "duration = \"20s\""), "", &[]);
    assert!(run_report(&fixed).links[0].trace_capacity_used.is_none());
}

#[test]
fn two_identical_flows_share_fairly() {
    let flows = format!(
        "{}{}",
        one_flow("newreno", "duration = \"30s\""),
        one_flow("newreno", "duration = \"30s\"")
    );
    let r = run_report(&scenario(&flows, "", &[]));
    let jain = r.jain_index.unwrap();
    assert!(jain >= 0.95, "jain {jain}: {:?}", r.flows);
}

#[test]
fn time_limit_ends_the_run_with_partial_metrics() {
    let s = scenario(
        &one_flow("vegas", "bytes = 100000000"),
        "",
        &["duration=2s"],
    );
    let r = run_report(&s);
    assert!(r.timed_out);
    assert!(r.flows[0].unfinished);
    assert!(r.flows[0].bytes_delivered > 0);
    assert_eq!(r.flows[0].completion_s, None);
    assert!((r.sim_seconds - 2.0).abs() < 1e-9);
}

#[test]
fn receiver_ack_policy_thins_the_ack_stream() {
    let mut acks = Vec::new();
    for n in [1, 2, 8] {
        let s = scenario(
            &one_flow("newreno", "bytes = 2000000"),
            "",
            &[&format!("receiver.ack_every_pkts={n}")],
        );
        let r = run_default(&s);
        let reverse = &r.links[1].2;
        acks.push(reverse.queue.accepted_pkts());
        assert_eq!(r.flows[0].bytes_delivered, 2_000_000);
    }
    // ~1 ACK per data packet, ~1 per 2, ~1 per 8 (plus handshake and
    // delayed-ACK timer ACKs).
    assert!(acks[0] > acks[1] && acks[1] > acks[2], "{acks:?}");
    assert!(acks[0] as f64 > 1.6 * acks[1] as f64, "{acks:?}");
    assert!(acks[1] as f64 > 2.5 * acks[2] as f64, "{acks:?}");
}

#[test]
fn a_route_change_moves_the_rtt() {
    let flows = one_flow(
        "newreno",
        "duration = \"10s\"\naccess = { changes = [ { at = \"5s\", delay = \"40ms\" } ] }",
    );
    let s = scenario(&flows, "", &[]);
    let r = run_default(&s);
    let f = &r.flows[0];
    // RTT samples before the change start near 40 ms; after it the path is
    // 80 ms longer (40 ms each way).
    let per_second = f.rtt.min_per_second();
    let (_, first) = per_second.first().unwrap();
    let (_, last) = per_second.last().unwrap();
    assert!(*first < 45_000_000, "{first}");
    assert!(*last > 120_000_000, "{last}");
}

#[test]
fn background_flows_arrive_and_complete() {
    let text = "[background]\narrivals_per_sec = 20\nmean_bytes = 20000\n";
    let s = scenario(
        &format!("{}{text}", one_flow("vegas", "duration = \"10s\"")),
        "",
        &[],
    );
    let r = run_report(&s);
    let bg = r.background.unwrap();
    // ~200 arrivals expected in 10 s.
    assert!(bg.flows > 120 && bg.flows < 300, "{bg:?}");
    assert!(bg.completed > bg.flows / 2, "{bg:?}");
    assert_eq!(
        r.flows.len(),
        1,
        "background flows are not in the flow list"
    );
}

#[test]
fn queue_logs_and_qlogs_are_written() {
    let dir = std::env::temp_dir().join(format!("vegas-sim-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let s = scenario(&one_flow("vegas", "bytes = 300000"), "", &["qlog=true"]);
    let options = RunOptions {
        out_dir: Some(dir.clone()),
        progress: None,
    };
    let r = run(&s, options).unwrap();
    let log = std::fs::read_to_string(dir.join("bottleneck.queue")).unwrap();
    let lines: Vec<&str> = log.lines().filter(|l| !l.starts_with('#')).collect();
    // One `+` and one `-` per packet that crossed the bottleneck.
    let enq = lines
        .iter()
        .filter(|l| l.split(' ').nth(1) == Some("+"))
        .count();
    assert_eq!(enq as u64, r.links[0].2.queue.accepted_pkts());
    for l in &lines {
        let fields: Vec<&str> = l.split(' ').collect();
        assert_eq!(fields.len(), 5, "{l}");
        fields[0].parse::<f64>().unwrap();
        fields[3].parse::<usize>().unwrap();
    }
    let qlog = std::fs::read_to_string(dir.join("flow-0-server.sqlog")).unwrap();
    assert!(
        qlog.contains("vegas:round_decision"),
        "our events are in the connection's qlog"
    );
    assert!(qlog.contains("recovery:metrics_updated") || qlog.contains("quic:"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cli_json_contract() {
    let out = vegas_lab([
        "run",
        "demo",
        "--json",
        "--set",
        "flows.0.algorithm=newreno",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "scenario",
        "seed",
        "sim_seconds",
        "wall_seconds",
        "peak_rss_mb",
        "jain_index",
        "flows",
        "links",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    let flow = &v["flows"][0];
    for key in [
        "id",
        "algorithm",
        "bytes_delivered",
        "goodput_bps",
        "retransmitted_bytes",
        "lost_packets",
        "pto_count",
        "loss_timer_count",
        "coarse_timeouts",
        "completion_s",
        "slow_start_exit_s",
        "slow_start_exit_cwnd_pkts",
        "convergence_rtts",
        "convergence_rtts_10pct",
        "mean_rtt_ms",
        "p95_rtt_ms",
    ] {
        assert!(flow.get(key).is_some(), "missing flows[].{key}");
    }
    assert_eq!(flow["algorithm"], "newreno");
    let link = &v["links"][0];
    for key in [
        "id",
        "utilization",
        "mean_queue_pkts",
        "p95_queue_pkts",
        "max_queue_pkts",
        "drops",
    ] {
        assert!(link.get(key).is_some(), "missing links[].{key}");
    }
}

#[test]
fn cli_rejects_bad_input_before_running() {
    let out = vegas_lab(["run", "demo", "--set", "flows.3.algorithm=vegas"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("flows") && err.contains('3'), "{err}");
    let out = vegas_lab(["run", "demo", "--set", "bottleneck.rate=-1Mbit/s"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("bottleneck.rate"),
        "{err}"
    );
    let out = vegas_lab(["run", "no-such-scenario"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("demo"), "{err}");
    let out = vegas_lab(["list"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("demo"));
}

#[test]
fn the_receiver_ack_policy_does_not_hold_the_clients_handshake_and_request() {
    // 100 Mbit/s, 10 ms RTT, an ACK every second packet with a 25 ms ACK
    // timer. The client's Finished and request leave when written; held for
    // the ACK timer, they outlasted the server's handshake PTO (about 21 ms
    // here), and the PTO restarted Vegas's slow start at 2 packets.
    let s = scenario(
        &one_flow("vegas", "duration = \"1s\""),
        "",
        &[
            "duration=1s",
            "bottleneck.rate=100Mbit/s",
            "bottleneck.delay=5ms",
            "receiver.ack_every_pkts=2",
            "receiver.max_ack_delay=25ms",
        ],
    );
    let flow = &run_report(&s).flows[0];
    assert_eq!(flow.pto_count, 0, "{flow:?}");
    // A window of 10 packets on a 105-packet pipe keeps growing.
    assert!(flow.slow_start_exit_cwnd_pkts.unwrap() > 50.0, "{flow:?}");
}

#[test]
fn probe_timeouts_and_loss_timers_are_counted_apart() {
    // A 1 s blackhole after 1 s: nothing comes back, so only probe
    // timeouts can fire, and the controller's own count of PTOs (the
    // adapter's on_retransmission_timeout calls) must match ours.
    let blackhole = scenario(
        &one_flow("vegas", "duration = \"4s\""),
        "changes = [{ at = \"1s\", loss = 1.0 }, { at = \"2s\", loss = 0.0 }]",
        &[],
    );
    let r = run_default(&blackhole);
    let flow = &r.flows[0];
    let controller_ptos = flow.trace.as_ref().expect("vegas-cc trace").pto_events;
    assert!(flow.pto_count >= 2, "{flow:?}");
    assert_eq!(flow.pto_count, controller_ptos);
    // NewReno against a 10-packet buffer: losses at the tail of a window
    // are found by the time-threshold loss timer, which is not a PTO.
    let drops = scenario(
        &one_flow("newreno", "bytes = 3000000"),
        "",
        &["bottleneck.buffer_pkts=10"],
    );
    let r = run_default(&drops);
    let flow = &r.flows[0];
    assert!(flow.loss_timer_count > 0, "{flow:?}");
    assert_eq!(flow.pto_count, 0, "{flow:?}");
}

#[test]
fn loss_based_over_vegas_is_a_ratio_of_means_per_connection() {
    // Feng & Vanichpun's ACK_R/ACK_V with unequal flow counts: one NewReno
    // flow against two Vegas flows.
    let flows = [
        one_flow("newreno", "duration = \"10s\""),
        one_flow("vegas", "duration = \"10s\""),
        one_flow("vegas", "duration = \"10s\""),
    ]
    .concat();
    let r = run_report(&scenario(&flows, "", &["duration=10s"]));
    let bytes: Vec<f64> = r.flows.iter().map(|f| f.bytes_delivered as f64).collect();
    let expected = bytes[0] / ((bytes[1] + bytes[2]) / 2.0);
    let ratio = r.loss_based_over_vegas.expect("both groups present");
    assert!(
        (ratio - expected).abs() < 1e-9 * expected,
        "{ratio} vs {expected}"
    );
    // The ratio of group totals would be half of it.
    assert!(ratio > 1.5 * bytes[0] / (bytes[1] + bytes[2]));
}

#[test]
fn windows_are_sent_in_whole_datagrams_unless_switched_off() {
    // NewReno's halvings and Vegas's ns-2 cut to 3/4 leave windows that are
    // not whole datagrams, here unpaced into a 10-packet buffer at
    // 500 kbit/s (Srijith et al.'s Table 7 path). By default the sender
    // sends full datagrams only (a few short ones remain: the handshake,
    // the stream's last bytes); with `whole_datagrams = false` quiche fills
    // each window's fraction with a short packet, round after round.
    let run_with = |whole: &str| {
        let flows = [
            one_flow(
                "newreno",
                &format!(
                    "bytes = 1000000\nparams = {{ initial_cwnd_pkts = 2, pacing_gain = \"none\", \
                     whole_datagrams = {whole} }}"
                ),
            ),
            one_flow(
                "vegas",
                &format!(
                    "bytes = 1000000\nparams = {{ mode = \"paper\", loss_reduction_factor = 0.75, \
                     whole_datagrams = {whole} }}"
                ),
            ),
        ]
        .concat();
        let sets = [
            "bottleneck.rate=500kbit/s",
            "bottleneck.buffer_pkts=10",
            "duration=60s",
        ];
        run_report(&scenario(&flows, "", &sets))
    };
    let share = |r: &Report| -> Vec<f64> {
        r.flows
            .iter()
            .map(|f| f.short_datagram_share.expect("the flow sent"))
            .collect()
    };
    let whole = share(&run_with("true"));
    let filled = share(&run_with("false"));
    for (w, f) in whole.into_iter().zip(filled) {
        assert!(w < 0.02, "whole datagrams: {w} short");
        assert!(f > 0.1, "filled windows: {f} short");
    }
}

/// Vegas's slow-start windows (bytes) while the trace says slow start,
/// each with how long it was held.
fn slow_start_windows(s: &Scenario) -> Vec<(usize, std::time::Duration)> {
    let result = run_default(s);
    let trace = result.flows[0].trace.as_ref().expect("vegas-cc trace");
    trace
        .cwnd
        .windows(2)
        .filter(|c| c[0].phase == vegas_cc::Phase::SlowStart)
        .map(|c| (c[0].cwnd_bytes, c[1].time - c[0].time))
        .collect()
}

#[test]
fn a_handshake_ahead_of_the_start_teaches_the_controller_nothing() {
    // Gallop-Vegas's Table 2 path (100 ms RTT): paper-mode Vegas doubles
    // every other round from its initial window of 2 packets, growing by
    // one datagram per ACK in the growing rounds and holding the others.
    let flow = one_flow(
        "vegas",
        "duration = \"3s\"\nparams = { mode = \"paper\", gamma = 1 }",
    );
    let path = [
        "bottleneck.rate=60Mbit/s",
        "bottleneck.delay=49ms",
        "receiver.ack_every_pkts=1",
        "duration=3s",
    ];
    let mds = 1200;
    let in_band = slow_start_windows(&scenario(&flow, "", &path));
    let ahead = slow_start_windows(&scenario(
        &flow,
        "",
        &[&path[..], &["handshake=ahead"]].concat(),
    ));
    // Ahead: whole datagrams, and the rounds that hold the window hold
    // it at 4, 8, 16, 32 and 64 packets, as in the table.
    assert!(ahead.iter().all(|(w, _)| w % mds == 0), "{ahead:?}");
    let held: Vec<usize> = ahead
        .iter()
        .filter(|(_, held)| held.as_millis() > 50)
        .map(|(w, _)| w / mds)
        .collect();
    for k in 2..=6 {
        assert!(held.contains(&(1 << k)), "{} not in {held:?}", 1 << k);
    }
    // In the transfer, the handshake's acknowledged bytes grow the window
    // off whole datagrams.
    assert!(in_band.iter().any(|(w, _)| w % mds != 0), "{in_band:?}");
}

#[test]
fn start_phasing_offsets_each_start_within_one_packet_time_by_seed() {
    let flows = format!(
        "{}{}",
        one_flow("vegas", "duration = \"2s\""),
        one_flow("newreno", "duration = \"2s\"")
    );
    let starts = |sets: &[&str]| -> Vec<u64> {
        let s = scenario(&flows, "", &[&["duration=2s"], sets].concat());
        run_default(&s).flows.iter().map(|f| f.start_ns).collect()
    };
    assert_eq!(starts(&[]), [0, 0]);
    // 1200 bytes at 10 Mbit/s: 960 us.
    let packet_time_ns = 960_000;
    let mut seen = Vec::new();
    for seed in 1..=4 {
        let seed = format!("seed={seed}");
        let s = starts(&["start_phasing=one-packet", &seed]);
        assert!(s.iter().all(|&t| t < packet_time_ns), "{s:?}");
        assert_eq!(s, starts(&["start_phasing=one-packet", &seed]), "seeded");
        seen.push(s);
    }
    seen.dedup();
    assert_eq!(seen.len(), 4, "each seed its own phases: {seen:?}");
    assert!(seen.iter().any(|s| s[0] < s[1]) && seen.iter().any(|s| s[0] > s[1]));
}

#[test]
fn a_1995_reno_with_the_tick_waits_for_bsds_timer_after_a_coarse_timeout() {
    // NewReno made 1995's against a 10-packet buffer: windows lose more
    // than one packet, and each such loss is a coarse timeout.
    let flow = |extra: &str| {
        let params = format!("params = {{ reno_1995 = true{extra} }}\nbytes = 3000000");
        scenario(
            &one_flow("newreno", &params),
            "",
            &["bottleneck.buffer_pkts=10"],
        )
    };
    // The longest stretch (in 100 ms bins) in which nothing arrived, from
    // the first arrival to completion, and the coarse timeouts.
    let longest_idle_and_timeouts = |s: &Scenario| {
        let r = run_default(s);
        let f = &r.flows[0];
        assert!(f.completed_ns.is_some(), "{f:?}");
        let bins = &f.delivered_per_bin;
        let first = bins.iter().position(|&b| b > 0).unwrap();
        let last = bins.iter().rposition(|&b| b > 0).unwrap();
        let mut longest = 0;
        let mut run = 0;
        for &b in &bins[first..=last] {
            run = if b == 0 { run + 1 } else { 0 };
            longest = longest.max(run);
        }
        let events = &f.trace.as_ref().expect("vegas-cc trace").events;
        let holds = events
            .iter()
            .filter(|e| matches!(e, quiche_vegas::vegas_cc::ControllerEvent::SendHold { .. }))
            .count();
        let timeouts = events
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    quiche_vegas::vegas_cc::ControllerEvent::Reduction {
                        cause: quiche_vegas::vegas_cc::events::ReductionCause::CoarseTimeout,
                        ..
                    }
                )
            })
            .count();
        (longest, timeouts, holds, f.completed_ns.unwrap())
    };
    let (idle, timeouts, holds, done) = longest_idle_and_timeouts(&flow(""));
    assert!(timeouts > 0);
    assert_eq!(holds, 0);
    assert!(
        idle < 3,
        "without the tick the retransmission goes at once: {idle}"
    );
    // With it, the sender waits for BSD's timer: at least one tick
    // (t_rxtcur >= 2 ticks, restarted before the next tick).
    let (idle_tick, timeouts_tick, holds_tick, done_tick) =
        longest_idle_and_timeouts(&flow(", tick_wait = true"));
    assert!(timeouts_tick > 0);
    // Each emulated timeout is a hold, with its decision record.
    assert_eq!(holds_tick, timeouts_tick);
    assert!(idle_tick >= 5, "idle {idle_tick} bins of 100 ms");
    assert!(done_tick > done, "{done_tick} <= {done}");
    // The clock's phase moves the waits.
    let (_, _, _, done_0) =
        longest_idle_and_timeouts(&flow(", tick_wait = true, tick_phase_ms = 0"));
    let (_, _, _, done_250) =
        longest_idle_and_timeouts(&flow(", tick_wait = true, tick_phase_ms = 250"));
    assert_ne!(done_0, done_250);
}
