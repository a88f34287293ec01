//! `cargo xtask bench --scale`: the simulator at 10 Mbit/s to 1 Gbit/s.
//!
//! One flow per cell over the `ack-frequency` scenario's dumbbell (receiver
//! ACKs every second packet, 25 ms max ACK delay), with the bottleneck's
//! rate, RTT (twice its one-way delay) and buffer (a multiple of the BDP)
//! set per cell and a 10 Gbit/s access link so that the bottleneck is the
//! bottleneck. Each cell runs `vegas-lab run ... --json` as its own process,
//! so `peak_rss_mb` is the cell's. Then ten flows sharing 100 Mbit/s
//! (`scenarios/scale-ten-flows.toml`) for the Jain index. Results:
//! `target/bench/scale.json` (every summary) and `target/bench/scale.md`
//! (the table of docs/scale.md).

use std::fmt::Write as _;
use std::fs;
use std::process::Command;
use std::time::Instant;

use crate::root;
use crate::Result;

/// Bytes per packet in the simulator (its default max datagram size).
const PACKET_BYTES: f64 = 1200.0;

/// The grid and the algorithms.
struct Options {
    rates_mbit: Vec<f64>,
    rtts_ms: Vec<f64>,
    buffers_bdp: Vec<f64>,
    algorithms: Vec<String>,
    ten_flows: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options> {
        let mut o = Options {
            rates_mbit: vec![10.0, 100.0, 1000.0],
            rtts_ms: vec![10.0, 40.0, 200.0],
            buffers_bdp: vec![0.5, 1.0, 4.0],
            algorithms: ["vegas", "vegas-a", "gallop-vegas", "cubic", "bbr2"]
                .map(String::from)
                .to_vec(),
            ten_flows: true,
        };
        let numbers = |flag: &str, v: Option<&String>| -> Result<Vec<f64>> {
            let v = v.ok_or(format!("{flag} needs a value, e.g. {flag} 10,100"))?;
            v.split(',')
                .map(|x| {
                    x.parse::<f64>()
                        .ok()
                        .filter(|n| *n > 0.0 && n.is_finite())
                        .ok_or(format!("{flag}: `{x}` is not a positive number"))
                })
                .collect()
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--scale" => {}
                "--rates-mbit" => o.rates_mbit = numbers(a, it.next())?,
                "--rtts-ms" => o.rtts_ms = numbers(a, it.next())?,
                "--buffers-bdp" => o.buffers_bdp = numbers(a, it.next())?,
                "--algorithms" => {
                    o.algorithms = it
                        .next()
                        .ok_or("--algorithms needs a value, e.g. vegas,cubic")?
                        .split(',')
                        .map(String::from)
                        .collect()
                }
                "--no-ten-flows" => o.ten_flows = false,
                "--quick" => {
                    o.rates_mbit = vec![10.0, 100.0];
                    o.rtts_ms = vec![40.0];
                    o.buffers_bdp = vec![1.0];
                    o.algorithms = vec!["vegas".into(), "cubic".into()];
                }
                other => {
                    return Err(format!(
                        "bench --scale: unknown option `{other}`; allowed: --rates-mbit, \
                         --rtts-ms, --buffers-bdp, --algorithms, --no-ten-flows, --quick"
                    ))
                }
            }
        }
        Ok(o)
    }
}

/// Simulated seconds per cell: the steady state is the second half, so at
/// least 150 RTTs, 20 s to 60 s.
fn duration_s(rtt_ms: f64) -> f64 {
    (rtt_ms * 300.0 / 1000.0).clamp(20.0, 60.0)
}

struct Row {
    label: String,
    summary: serde_json::Value,
    wall_s: f64,
}

fn run_lab(lab: &std::path::Path, args: &[String]) -> Result<(serde_json::Value, f64)> {
    let start = Instant::now();
    let out = Command::new(lab)
        .args(args)
        .output()
        .map_err(|e| format!("could not run {}: {e}", lab.display()))?;
    let wall_s = start.elapsed().as_secs_f64();
    if !out.status.success() {
        return Err(format!(
            "vegas-lab {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let v = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("vegas-lab printed no JSON summary: {e}"))?;
    Ok((v, wall_s))
}

fn f(v: &serde_json::Value) -> Option<f64> {
    v.as_f64()
}

fn cell(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

pub fn run(args: &[String]) -> Result<()> {
    let o = Options::parse(args)?;
    let lab = crate::build_lab()?;
    let dir = root().join("target/bench");
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut rows = Vec::new();
    let mut table = String::from(
        "| rate Mbit/s | RTT ms | buffer BDP | algorithm | steady utilization | steady queue pkts \
         | time to 90% s | retransmitted kB | peak RSS MB | simulated s per wall s |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for &rate in &o.rates_mbit {
        for &rtt in &o.rtts_ms {
            for &bdp in &o.buffers_bdp {
                let bdp_pkts = rate * 1e6 / 8.0 * rtt / 1000.0 / PACKET_BYTES;
                let buffer = ((bdp * bdp_pkts).round() as u64).max(2);
                let secs = duration_s(rtt);
                for algorithm in &o.algorithms {
                    let label =
                        format!("{rate} Mbit/s, {rtt} ms, {bdp} BDP ({buffer} pkts), {algorithm}");
                    eprintln!("bench --scale: {label}, {secs} s");
                    let set = |k: &str, v: String| ["--set".to_string(), format!("{k}={v}")];
                    let mut a = vec!["run".to_string(), "ack-frequency".into(), "--json".into()];
                    a.extend(set("bottleneck.rate", format!("{rate}Mbit/s")));
                    a.extend(set(
                        "bottleneck.delay",
                        format!("{}us", (rtt * 500.0).round()),
                    ));
                    a.extend(set("bottleneck.buffer_pkts", buffer.to_string()));
                    a.extend(set("flows.0.access.rate", "10Gbit/s".into()));
                    a.extend(set("flows.0.algorithm", algorithm.clone()));
                    a.extend(set("duration", format!("{secs}s")));
                    a.extend(set("flows.0.duration", format!("{secs}s")));
                    let (v, wall_s) = run_lab(&lab, &a)?;
                    let link = &v["links"][0];
                    let flow = &v["flows"][0];
                    let _ = writeln!(
                        table,
                        "| {rate} | {rtt} | {bdp} | {algorithm} | {} | {} | {} | {} | {} | {} |",
                        cell(f(&link["steady_utilization"]), 3),
                        cell(f(&link["steady_mean_queue_pkts"]), 1),
                        cell(f(&link["time_to_90pct_s"]), 1),
                        cell(f(&flow["retransmitted_bytes"]).map(|b| b / 1000.0), 0),
                        cell(f(&v["peak_rss_mb"]), 0),
                        cell(Some(secs / wall_s), 1),
                    );
                    rows.push(Row {
                        label,
                        summary: v,
                        wall_s,
                    });
                    // Written after every cell: a long grid can be stopped.
                    write_results(&dir, &rows, &table)?;
                }
            }
        }
    }
    if o.ten_flows {
        let _ = writeln!(
            table,
            "\nTen flows sharing 100 Mbit/s, 40 ms, 1 BDP \
             (`scenarios/scale-ten-flows.toml`, starts 1 s apart, 60 s):\n\n\
             | algorithm | Jain index | steady utilization | steady queue pkts |\n|---|---|---|---|"
        );
        for algorithm in &o.algorithms {
            let path = root().join("scenarios/scale-ten-flows.toml");
            let mut a = vec![
                "run".to_string(),
                path.display().to_string(),
                "--json".into(),
            ];
            for i in 0..10 {
                a.extend([
                    "--set".to_string(),
                    format!("flows.{i}.algorithm={algorithm}"),
                ]);
            }
            eprintln!("bench --scale: ten flows, {algorithm}");
            let (v, wall_s) = run_lab(&lab, &a)?;
            let link = &v["links"][0];
            let _ = writeln!(
                table,
                "| {algorithm} | {} | {} | {} |",
                cell(f(&v["jain_index"]), 3),
                cell(f(&link["steady_utilization"]), 3),
                cell(f(&link["steady_mean_queue_pkts"]), 1),
            );
            rows.push(Row {
                label: format!("ten flows, {algorithm}"),
                summary: v,
                wall_s,
            });
            write_results(&dir, &rows, &table)?;
        }
    }
    print!("{table}");
    eprintln!(
        "bench --scale: {} and {}",
        dir.join("scale.md").display(),
        dir.join("scale.json").display()
    );
    Ok(())
}

fn write_results(dir: &std::path::Path, rows: &[Row], table: &str) -> Result<()> {
    let json: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| serde_json::json!({ "cell": r.label, "wall_seconds": r.wall_s, "summary": r.summary }))
        .collect();
    let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
    fs::write(dir.join("scale.json"), text).map_err(|e| e.to_string())?;
    let md = format!(
        "Made by `cargo xtask bench --scale` (simulator, one flow per cell, the \
         receiver ACKs every 2nd packet, steady = second half of the run).\n\n{table}"
    );
    fs::write(dir.join("scale.md"), md).map_err(|e| e.to_string())
}
