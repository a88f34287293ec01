//! `vegas-lab`: run the quiche-vegas experiments.

use anyhow::Result;
use clap::Parser;
use clap::Subcommand;
use quiche_vegas::sim;
use quiche_vegas::CcSpec;

#[derive(Parser)]
#[command(
    name = "vegas-lab",
    version,
    about = "Vegas-family congestion control experiments on real quiche connections"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The demo: 1 MB over the Vegas paper's Fig. 6 bottleneck (200 KB/s,
    /// 10 packets of buffer, 50 ms RTT), once per algorithm, in virtual time.
    Demo {
        /// Seed for quiche's random choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::Demo { seed } => demo(seed),
    }
}

fn demo(seed: u64) -> Result<()> {
    println!(
        "1 MB over a {} KB/s bottleneck, {}-packet drop-tail buffer, {} ms round-trip propagation (seed {seed})\n",
        sim::demo::BOTTLENECK_RATE_BPS / 8 / 1000,
        sim::demo::BOTTLENECK_BUFFER_PKTS,
        sim::demo::ONE_WAY_DELAY.as_millis() * 2,
    );
    println!(
        "{:<10} {:>16} {:>16} {:>12} {:>12} {:>12} {:>14}",
        "algorithm",
        "throughput KB/s",
        "retransmitted B",
        "lost pkts",
        "mean queue",
        "max queue",
        "completion s"
    );
    for algorithm in sim::demo::ALGORITHMS {
        let wall = std::time::Instant::now();
        let result = sim::net::run(&sim::demo::spec(CcSpec::plain(algorithm), seed))?;
        let flow = &result.flows[0];
        let fmt_opt =
            |v: Option<f64>, scale: f64| v.map_or("-".to_string(), |v| format!("{:.1}", v * scale));
        println!(
            "{:<10} {:>16} {:>16} {:>12} {:>12.2} {:>12} {:>14}{}",
            algorithm.name(),
            fmt_opt(flow.goodput_bytes_per_sec(), 1e-3),
            flow.retransmitted_bytes,
            flow.lost_packets,
            result.mean_queue_pkts(),
            result.bottleneck.max_queue_pkts,
            flow.completion
                .map_or("-".into(), |c| format!("{:.2}", c.as_secs_f64())),
            if result.timed_out {
                "  (time limit)"
            } else {
                ""
            },
        );
        eprintln!(
            "  [{}: {} events, {:.2} s wall]",
            algorithm.name(),
            result.events,
            wall.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
