//! The demo path: Vegas and NewReno from vegas-cc drive real quiche connections
//! over the virtual-time bottleneck of the demo (the Vegas paper's Fig. 6).

use quiche_vegas::vegas_cc::events::Action;
use quiche_vegas::vegas_cc::ControllerEvent;
use quiche_vegas::vegas_cc::Phase;
use quiche_vegas::Algorithm;
use vegas_lab::sim::demo;
use vegas_lab::sim::SimResult;

#[path = "support/sim.rs"]
mod sim_support;

use sim_support::run_default;

/// 1 MB, 200 KB/s, 1200-byte datagrams: the demo scenario's numbers.
const TRANSFER_BYTES: u64 = 1_000_000;
const BOTTLENECK_BYTES_PER_SEC: f64 = 200_000.0;
const MAX_DATAGRAM_SIZE: usize = 1200;

fn run_demo(algorithm: Algorithm, seed: u64) -> SimResult {
    let scenario = demo::scenario(algorithm, seed).expect("demo scenario loads");
    run_default(&scenario)
}

fn mean_queue(r: &SimResult) -> f64 {
    r.links[0].2.mean_queue_pkts(r.sim_ns)
}

fn goodput_bytes_per_sec(r: &SimResult) -> f64 {
    let f = &r.flows[0];
    f.bytes_delivered as f64 / ((f.completed_ns.unwrap() - f.start_ns) as f64 / 1e9)
}

#[test]
fn one_megabyte_arrives_intact_with_vegas_and_newreno() {
    for algorithm in [Algorithm::Vegas, Algorithm::NewReno] {
        let r = run_demo(algorithm, 1);
        assert!(!r.timed_out, "{algorithm} hit the time limit");
        let flow = &r.flows[0];
        assert_eq!(flow.bytes_delivered, TRANSFER_BYTES, "{algorithm}");
        let goodput = goodput_bytes_per_sec(&r);
        // Cannot beat the bottleneck; must use most of it.
        let link = BOTTLENECK_BYTES_PER_SEC;
        assert!(
            goodput < link && goodput > 0.7 * link,
            "{algorithm}: {goodput}"
        );
    }
}

#[test]
fn the_controller_sees_every_ack_quiche_processes() {
    for algorithm in [Algorithm::Vegas, Algorithm::NewReno] {
        let r = run_demo(algorithm, 1);
        let flow = &r.flows[0];
        let trace = flow.trace.as_ref().expect("demo traces the sender");
        assert!(trace.congestion_events > 100, "{algorithm}");
        // quiche's own accounting of acked and lost in-flight packets equals
        // what reached the controller.
        assert_eq!(trace.acked_bytes, flow.acked_bytes, "{algorithm}");
        assert_eq!(trace.lost_packets, flow.lost_packets, "{algorithm}");
        let settled = trace.acked_packets + trace.lost_packets + trace.neutered_packets;
        assert!(settled <= trace.sent_packets, "{algorithm}");
        // At the end only the last window can still be in flight.
        assert!(trace.sent_packets - settled < 64, "{algorithm}: {trace:?}");
    }
}

#[test]
fn vegas_window_trace_obeys_vegas_rules() {
    let r = run_demo(Algorithm::Vegas, 1);
    let trace = r.flows[0].trace.as_ref().unwrap();
    let mds = MAX_DATAGRAM_SIZE;
    let mut rounds = 0;
    let mut exits = 0;
    // The window slow start reached (the exit record comes just before the
    // exiting round's decision); a growing round reaches past its start.
    let mut reached_bytes = None;
    for ev in &trace.events {
        if let ControllerEvent::SlowStartExit { cwnd_bytes, .. } = ev {
            reached_bytes = Some(*cwnd_bytes);
        }
        let ControllerEvent::Round(d) = ev else {
            continue;
        };
        rounds += 1;
        let change = d.cwnd_after_bytes as i64 - d.cwnd_before_bytes as i64;
        match d.action {
            Action::Increase => {
                assert!(d.diff_pkts < d.alpha_pkts, "{d:?}");
                assert_eq!(change, mds as i64, "{d:?}");
            }
            Action::Hold => {
                assert!(
                    d.diff_pkts >= d.alpha_pkts && d.diff_pkts <= d.beta_pkts,
                    "{d:?}"
                );
                // The default `fair_share`: half the way to the band's
                // middle (FAST TCP's update), the paper would hold.
                let middle = (d.alpha_pkts + d.beta_pkts) / 2.0;
                let toward_middle = (0.5 * (middle - d.diff_pkts) * mds as f64).round() as i64;
                assert!(
                    change == toward_middle
                        || (change > toward_middle && d.cwnd_after_bytes == 2 * mds),
                    "{d:?}"
                );
            }
            Action::Decrease => {
                assert!(d.diff_pkts > d.beta_pkts, "{d:?}");
                // At least the paper's one packet, at most half the excess
                // over the band's middle (`fair_share`).
                let middle = (d.alpha_pkts + d.beta_pkts) / 2.0;
                let most = (0.5 * (d.diff_pkts - middle) * mds as f64).round() as i64;
                assert!(
                    (change <= -(mds as i64) && change >= -most.max(mds as i64))
                        || d.cwnd_after_bytes == 2 * mds,
                    "{d:?}"
                );
            }
            Action::SlowStartExit => {
                exits += 1;
                assert!(d.diff_pkts > d.gamma_pkts, "{d:?}");
                // The pipe (the bottleneck rate, at least Actual, x
                // BaseRTT, plus a packet), never above the paper's 7/8.
                let before = reached_bytes.expect("an exit record first");
                assert!(before >= d.cwnd_before_bytes, "{d:?}");
                let seven_eighths = before - before / 8;
                let pipe_floor = (d.actual_bytes_per_sec * d.base_rtt.as_secs_f64()) as usize + mds;
                assert!(d.cwnd_after_bytes <= seven_eighths, "{d:?}");
                assert!(d.cwnd_after_bytes >= seven_eighths.min(pipe_floor), "{d:?}");
            }
            Action::PipeRecheck => {
                // The round right after the exit: raised, never above the
                // paper's 7/8 of the window slow start reached.
                assert_eq!(d.phase, Phase::CongestionAvoidance, "{d:?}");
                assert!(change > 0, "{d:?}");
                let before = reached_bytes.expect("an exit record first");
                assert!(d.cwnd_after_bytes <= before - before / 8, "{d:?}");
            }
            Action::BaseRttProbe => {
                // A drain round: the window is lowered (the Reduction record
                // says by how much) or restored, never raised above where
                // the drain started.
                assert_eq!(d.phase, Phase::CongestionAvoidance, "{d:?}");
            }
            Action::SlowStartHold | Action::SlowStartGrow => {
                assert_eq!(d.phase, Phase::SlowStart, "{d:?}");
            }
            Action::Compete | Action::ReturnTest => {
                panic!("alone, the flow never competes: {d:?}");
            }
        }
        // Diff is (Expected - Actual) * BaseRTT in packets.
        let diff = (d.expected_bytes_per_sec - d.actual_bytes_per_sec).max(0.0)
            * d.base_rtt.as_secs_f64()
            / mds as f64;
        assert!((diff - d.diff_pkts).abs() < 1e-6, "{d:?}");
    }
    assert!(rounds > 20, "only {rounds} round decisions");
    assert_eq!(exits, 1, "Vegas leaves slow start once on a loss-free path");
    // In congestion avoidance the window only moves at a round decision
    // (or a loss reduction): between two decisions it is constant.
    let decision_times: Vec<_> = trace
        .events
        .iter()
        .filter_map(|e| match e {
            ControllerEvent::Round(d) => Some(d.now),
            ControllerEvent::Reduction { now, .. } => Some(*now),
            _ => None,
        })
        .collect();
    for w in trace.cwnd.windows(2) {
        let (a, b) = (w[0], w[1]);
        if a.phase == Phase::CongestionAvoidance
            && b.phase == Phase::CongestionAvoidance
            && a.cwnd_bytes != b.cwnd_bytes
        {
            assert!(
                decision_times.contains(&b.time),
                "cwnd moved {} -> {} without a decision",
                a.cwnd_bytes,
                b.cwnd_bytes
            );
        }
    }
}

#[test]
fn vegas_retransmits_less_than_newreno_on_the_demo_path() {
    let vegas = run_demo(Algorithm::Vegas, 1);
    let newreno = run_demo(Algorithm::NewReno, 1);
    assert!(
        vegas.flows[0].retransmitted_bytes < newreno.flows[0].retransmitted_bytes,
        "vegas {} newreno {}",
        vegas.flows[0].retransmitted_bytes,
        newreno.flows[0].retransmitted_bytes
    );
    // And keeps a shorter standing queue.
    assert!(mean_queue(&vegas) < mean_queue(&newreno));
}

/// Everything a run reports except wall-clock-based instants.
fn fingerprint(r: &SimResult) -> String {
    let f = &r.flows[0];
    format!(
        "{} {:?} {} {} {} {} {:?} {} {} {:?} {:?}",
        f.bytes_delivered,
        f.completed_ns,
        f.retransmitted_bytes,
        f.lost_packets,
        f.sent_packets,
        f.acked_bytes,
        r.links,
        r.sim_ns,
        r.events,
        f.cwnd_series,
        (f.rtt.count(), f.rtt.mean_ns(), f.rtt.min_per_second()),
    )
}

#[test]
fn same_seed_same_result() {
    for algorithm in demo::ALGORITHMS {
        let a = run_demo(algorithm, 42);
        let b = run_demo(algorithm, 42);
        assert_eq!(fingerprint(&a), fingerprint(&b), "{algorithm}");
    }
}
