//! The Vegas family's headline behaviours, on real quiche flows
//! in the simulator, with the scenario files that reproduce each paper's
//! set-up at small scale (scenarios/*.toml say how they are scaled):
//!
//! 1. Vegas-A recovers throughput after a route change that multiplies the
//!    RTT, Vegas does not (Vegas-A section 4.1).
//! 2. Gallop-Vegas reaches the available bandwidth in fewer RTTs than
//!    Vegas and loses nothing where Vegas's doubling overflows a 30-packet
//!    buffer (Gallop-Vegas section V-B).
//! 3. Reno-compatible Vegas shares a drop-tail bottleneck with NewReno,
//!    default Vegas gets a small fraction (Feng & Vanichpun Tables 2-3).
//! 4. gamma chosen by Approach 2 shortens C_time against gamma = 1 on a
//!    large-BDP path (Vanichpun & Feng Fig. 3).
//!
//! Every comparison runs both sides in mode = paper unless it says so.

use vegas_lab::sim::report::Report;

#[path = "support/sim.rs"]
mod sim_support;

use sim_support::load;
use sim_support::run_report;
use sim_support::scenario_path;

fn run_file(file: &str, sets: &[&str]) -> Report {
    run_report(&load(&scenario_path(file), sets))
}

#[test]
fn vegas_a_recovers_after_a_route_change_and_vegas_does_not() {
    // RTT 40 -> 220 ms at 20 s, 1 Mbit/s; steady = 50..100 s.
    let vegas_a = run_file("vegas-a-reroute.toml", &[]);
    let vegas = run_file("vegas-a-reroute.toml", &["flows.0.algorithm=vegas"]);
    let (a, v) = (&vegas_a.links[0], &vegas.links[0]);
    let (a_steady, v_steady) = (a.steady_utilization.unwrap(), v.steady_utilization.unwrap());
    // Measured: Vegas-A 0.995, Vegas 0.08 (goodput 0.92 vs 0.25 Mbit/s;
    // Vegas-A Table 1: 0.94 vs 0.22 Mbit/s over 200 s).
    assert!(v_steady < 0.2, "vegas steady utilization {v_steady}");
    assert!(a_steady > 0.9, "vegas-a steady utilization {a_steady}");
    let (a_goodput, v_goodput) = (vegas_a.flows[0].goodput_bps, vegas.flows[0].goodput_bps);
    assert!(a_goodput > 3.0 * v_goodput, "{a_goodput} vs {v_goodput}");
    // The paper's point is not loss: Vegas drops nothing; Vegas-A's gain
    // "comes at a small 'cost'. The average buffer occupancy at the
    // bottleneck router is larger" (section 4.1): measured 15.8 packets
    // against 0.4, and 3 drops in about 9500 packets.
    assert_eq!(v.drops, 0);
    assert!(a.mean_queue_pkts > 5.0 * v.mean_queue_pkts);
    assert!(a.drops <= 5, "vegas-a drops {}", a.drops);
}

#[test]
fn the_default_mode_recovers_from_a_route_change_without_vegas_a() {
    // The library's defaults (windowed BaseRTT, route-change drain) find the
    // new path's BaseRTT: Vegas and Vegas-A both fill the link after the
    // reroute, with a small queue and no loss. Measured: utilization 0.986
    // and 0.983, mean queue 2.4 and 3.1 packets, 0 drops.
    for algorithm in ["vegas", "vegas-a"] {
        let r = run_file(
            "vegas-a-reroute.toml",
            &[
                &format!("flows.0.algorithm={algorithm}"),
                "flows.0.params.mode=default",
            ],
        );
        let link = &r.links[0];
        let steady = link.steady_utilization.unwrap();
        assert!(steady > 0.9, "{algorithm}: steady utilization {steady}");
        assert!(link.mean_queue_pkts < 5.0, "{algorithm}: {link:?}");
        assert_eq!(link.drops, 0, "{algorithm}");
    }
}

#[test]
fn gallop_vegas_loses_nothing_where_vegas_doubling_overflows_30_packets() {
    let gallop = run_file("gallop-vegas-buffer30.toml", &[]);
    let vegas = run_file("gallop-vegas-buffer30.toml", &["flows.0.algorithm=vegas"]);
    // Measured: Gallop-Vegas 0 lost, utilization 0.38 (still in stable
    // growth until 7 s); Vegas 17 lost in its 48 -> 96 doubling,
    // utilization 0.12.
    assert_eq!(gallop.flows[0].lost_packets, 0);
    assert_eq!(gallop.links[0].drops, 0);
    assert!(vegas.flows[0].lost_packets >= 10, "{:?}", vegas.flows[0]);
    let (g, v) = (gallop.links[0].utilization, vegas.links[0].utilization);
    assert!(g > 2.0 * v, "gallop {g} vegas {v}");
}

#[test]
fn gallop_vegas_reaches_the_available_window_in_fewer_rtts() {
    // Gallop-Vegas Example 2 path: 3125 packets/s, d = 50 ms, BDP 156.
    let gallop = run_file("gallop-vegas-example2.toml", &[]);
    let vegas = run_file("gallop-vegas-example2.toml", &["flows.0.algorithm=vegas"]);
    let (g, v) = (&gallop.flows[0], &vegas.flows[0]);
    // Measured: C_time 89 vs 129 RTTs; slow start left at 93 packets
    // (1.18 s) vs 48 packets (0.58 s). The paper's analysis says 26 vs 136
    // RTTs; Gallop stops short of the BDP here (docs/paper-scenarios.md).
    let (g_rtts, v_rtts) = (g.convergence_rtts.unwrap(), v.convergence_rtts.unwrap());
    assert!(g_rtts < 0.75 * v_rtts, "gallop {g_rtts} vegas {v_rtts}");
    let (g_exit, v_exit) = (
        g.slow_start_exit_cwnd_pkts.unwrap(),
        v.slow_start_exit_cwnd_pkts.unwrap(),
    );
    assert!(g_exit > 1.5 * v_exit, "gallop {g_exit} vegas {v_exit}");
    assert_eq!(g.lost_packets, 0);
    assert!(gallop.links[0].utilization > vegas.links[0].utilization);
}

#[test]
fn reno_compatible_vegas_shares_with_newreno_and_default_vegas_does_not() {
    // One NewReno and one Vegas flow, B = 50 (Feng & Vanichpun Table 2: ratio
    // 11.3 with default Vegas; Table 3: 0.97 with Approach 1).
    let compat = run_file("vegas-compat-reno.toml", &[]);
    let vegas = run_file(
        "vegas-compat-reno.toml",
        &["flows.1.algorithm=vegas", "flows.1.params={mode=\"paper\"}"],
    );
    let compat_ratio = compat.loss_based_over_vegas.unwrap();
    let vegas_ratio = vegas.loss_based_over_vegas.unwrap();
    // Measured (every packet acknowledged): 1.20 (Approach 1) against 12.7
    // (alpha = 1, beta = 3).
    assert!(
        (0.67..=1.5).contains(&compat_ratio),
        "compat ACK_R/ACK_V {compat_ratio}"
    );
    assert!(vegas_ratio > 5.0, "default Vegas ACK_R/ACK_V {vegas_ratio}");
    // Approach 2 (beta = 0.4641 B): measured 1.01 (the paper's Table 4
    // gives 0.84 at B = 50).
    let approach2 = run_file("vegas-compat-reno.toml", &["flows.1.params.approach=2"]);
    let ratio2 = approach2.loss_based_over_vegas.unwrap();
    assert!(ratio2 < vegas_ratio / 5.0, "approach 2 {ratio2}");
}

#[test]
fn gamma_from_approach_2_shortens_c_time_against_gamma_1() {
    // 5000 packets/s, d = 40 ms (Vanichpun & Feng Table I), BDP about 200.
    let selected = run_file("gamma-selection.toml", &[]);
    let gamma_1 = run_file("gamma-selection.toml", &["flows.0.params={mode=\"paper\"}"]);
    let (s, g) = (&selected.flows[0], &gamma_1.flows[0]);
    // Measured (every packet acknowledged): C_time 51 vs 173 RTTs; slow
    // start left at 192 packets (the window the rule stops at, near the
    // 201-packet target) vs 48 packets.
    let (s_rtts, g_rtts) = (s.convergence_rtts.unwrap(), g.convergence_rtts.unwrap());
    assert!(
        s_rtts < 0.5 * g_rtts,
        "approach 2 {s_rtts} gamma 1 {g_rtts}"
    );
    assert!(s.slow_start_exit_cwnd_pkts.unwrap() > 3.0 * g.slow_start_exit_cwnd_pkts.unwrap());
    assert_eq!(s.lost_packets + g.lost_packets, 0);
}
