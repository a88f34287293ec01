//! The simulator on hostile paths: 30% random loss, bursty loss,
//! reordering, duplication, a blackhole and delay spikes. Every flow
//! completes or the run reports it unfinished; nothing panics; the same
//! seed gives the same run.

use vegas_lab::sim::run;
use vegas_lab::sim::RunOptions;
use vegas_lab::sim::Scenario;
use vegas_lab::sim::SimResult;

#[path = "support/sim.rs"]
mod sim_support;

use sim_support::from_toml;
use sim_support::run_default;

const TRANSFER_BYTES: u64 = 300_000;

/// 10 Mbit/s, 40 ms RTT, a 100-packet buffer; `path` adds the hostility.
fn scenario(algorithm: &str, path: &str) -> Scenario {
    let text = format!(
        r#"
name = "hostile"
duration = "120s"
seed = 7
[bottleneck]
rate = "10Mbit/s"
delay = "20ms"
buffer_pkts = 100
{path}
[[flows]]
algorithm = "{algorithm}"
bytes = {TRANSFER_BYTES}
"#
    );
    from_toml(&text, "hostile", &[])
}

/// What must repeat exactly with the same seed.
fn fingerprint(r: &SimResult) -> String {
    let flows: Vec<String> = r
        .flows
        .iter()
        .map(|f| {
            format!(
                "{} {:?} {} {} {} {}",
                f.bytes_delivered,
                f.completed_ns,
                f.sent_packets,
                f.lost_packets,
                f.retransmitted_bytes,
                f.pto_count
            )
        })
        .collect();
    format!("{} {} {} {flows:?}", r.events, r.sim_ns, r.timed_out)
}

include!("support/hostile_paths.rs");

#[test]
fn every_flow_completes_or_is_reported_and_runs_repeat_by_seed() {
    for algorithm in ["vegas", "vegas-a", "gallop-vegas", "newreno", "cubic"] {
        for (name, path) in HOSTILE_PATHS {
            let s = scenario(algorithm, path);
            let first = run(&s, RunOptions::default())
                .unwrap_or_else(|e| panic!("{algorithm}, {name}: {e:#}"));
            let again = run_default(&s);
            assert_eq!(
                fingerprint(&first),
                fingerprint(&again),
                "{algorithm}, {name}: the same seed gave another run"
            );
            let flow = &first.flows[0];
            let complete = flow.bytes_delivered == TRANSFER_BYTES && flow.completed_ns.is_some();
            // A flow is either complete or the run says it was not.
            assert!(
                complete || first.timed_out,
                "{algorithm}, {name}: {} of {TRANSFER_BYTES} bytes, not reported unfinished",
                flow.bytes_delivered
            );
            // Only 30% loss may defeat a transfer in two minutes.
            if name != "30% random loss" {
                assert!(
                    complete,
                    "{algorithm}, {name}: {} of {TRANSFER_BYTES} bytes",
                    flow.bytes_delivered
                );
            }
            println!(
                "{algorithm:>12} {name:<16} complete {complete} in {:.1} s, {} lost, {} PTOs, {} loss timers",
                flow.completed_ns.map_or(f64::NAN, |t| t as f64 / 1e9),
                flow.lost_packets,
                flow.pto_count,
                flow.loss_timer_count
            );
        }
    }
}
