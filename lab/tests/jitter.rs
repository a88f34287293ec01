//! Real sockets in virtual time: a link with per-packet delay jitter of a
//! tenth of a millisecond (the order of a real sender's, receiver's and
//! link emulator's timer noise) and what it does to the Vegas family on a
//! long fast path, where that noise is worth packets of Diff.

use vegas_lab::sim::report::Report;

#[path = "support/sim.rs"]
mod sim_support;

use sim_support::from_toml;
use sim_support::run_report;

/// 100 Mbit/s x 80 ms (a pipe of 740 datagrams of 1350 bytes), a buffer
/// of 1 BDP, 50 MB of `algorithm` with `params`, and `jitter` of mean
/// delay noise on both links.
fn long_fast_path(algorithm: &str, params: &str, jitter: &str) -> Report {
    let text = format!(
        r#"
name = "jitter"
duration = "30s"
max_datagram_size = 1350
[bottleneck]
rate = "100Mbit/s"
delay = "40ms"
buffer_pkts = 740
jitter = "{jitter}"
[reverse]
jitter = "{jitter}"
[[flows]]
algorithm = "{algorithm}"
bytes = 50000000
params = {{ {params} }}
"#
    );
    run_report(&from_toml(&text, "jitter", &[]))
}

const PIPE_PKTS: f64 = 740.0;

#[test]
fn slow_start_reads_the_queue_under_jitter_not_the_noise() {
    // Measured: 1280 packets at the exit without jitter and with 100 us
    // each way; 640 with 100 us when the noise is not subtracted (the
    // mean RTT carried 0.2 ms of it, 1.9 packets of Diff at 650 packets).
    // Doubling every other round, whose held rounds judge the mean RTT
    // (with the default every-round growth the within-round queue watch
    // reads the samples, and the noise left the exit at 1162 packets).
    let growth = "slow_start_growth = \"every_other_round\"";
    let clean = long_fast_path("vegas", growth, "0");
    let jittered = long_fast_path("vegas", growth, "100us");
    let noisy = long_fast_path(
        "vegas",
        &format!("{growth}, subtract_delay_noise = false"),
        "100us",
    );
    let exit = |r: &Report| r.flows[0].slow_start_exit_cwnd_pkts.unwrap();
    assert!(exit(&clean) >= PIPE_PKTS, "{}", exit(&clean));
    assert!(exit(&jittered) >= PIPE_PKTS, "{}", exit(&jittered));
    assert!(exit(&noisy) < PIPE_PKTS, "{}", exit(&noisy));
    // And the transfer is faster for it.
    let goodput = |r: &Report| r.flows[0].goodput_bps;
    assert!(
        goodput(&jittered) > 1.05 * goodput(&noisy),
        "{} vs {}",
        goodput(&jittered),
        goodput(&noisy)
    );
}
