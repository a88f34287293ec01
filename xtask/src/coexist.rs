//! `cargo xtask bench --coexist`: the Vegas family beside loss-based
//! flows, in the simulator, written to `docs/coexistence.md`.
//!
//! Cells (each one `vegas-lab run CELL.toml --json --series` process, two at
//! a time):
//! - one family flow and one competitor (quiche `cubic`, `bbr2`, `reno`,
//!   vegas-cc `newreno`) over 10 and 100 Mbit/s x 20 and 80 ms RTT x
//!   buffers of 0.5, 1 and 4 BDP, the receiver ACKing every second packet:
//!   started together (40 s), and with the competitor from 10 s to 40 s of
//!   a 60 s run (it arrives, and leaves 20 s before the end);
//! - the same cells with the family flow replaced by quiche's CUBIC (what a
//!   loss-based flow itself gets there) and by `vegas` with `coexist=off`
//!   (before the mechanism);
//! - two family flows and one CUBIC, started together;
//! - ten family flows started 1 s apart (`scenarios/scale-ten-flows.toml`);
//! - false alarms: one family flow alone (10, 100, 1000 Mbit/s x 10, 40,
//!   200 ms x 0.5, 1, 4 BDP), the ACK-frequency sweep, the two route
//!   changes (40 -> 80 ms, and Srijith et al.'s 40 -> 220 ms on 1 Mbit/s)
//!   and the six hostile paths of `lab/tests/hostile_network.rs` for 30 s.
//!
//! `--families`, `--competitors`, `--rates`, `--rtts`, `--buffers`,
//! `--starts` and `--no-baselines` run a slice of the one-on-one cells into
//! `target/bench/coexist.md` (the docs report is always the whole grid).
//!
//! Measures, over the competitor's lifetime: the family flow's share of
//! the two flows' bytes, the bottleneck's utilization, mean and 95th
//! percentile queue (of 100 ms means), the family flow's retransmitted
//! bytes and time in competitive mode; for late competitors, when the flow
//! was back: the first second after the competitor left in which the flow
//! was in delay mode, the mean queue at most beta + 1 packets and the link
//! at least 90% busy.

use std::fmt::Write as _;
use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use crate::lab_runs::parse_jobs;
use crate::lab_runs::run_all;
use crate::lab_runs::Scenario;
use crate::root;
use crate::Result;

const PACKET_BYTES: f64 = 1200.0;

/// A false-alarm run over a recorded trace: the cellular benchmark's
/// shortest (`cargo xtask bench --traces`), one flow alone.
const TRACE_RUN_S: u32 = 120;
/// Vegas's beta (Brakmo & Peterson III-B): a flow back in delay mode keeps
/// at most beta + 1 packets queued.
const BETA_PKTS: f64 = 3.0;
const FAMILIES: [&str; 4] = ["vegas", "vegas-a", "gallop-vegas", "vegas-compat"];
const COMPETITORS: [&str; 4] = ["cubic", "bbr2", "reno", "newreno"];
/// The started-together run, and the late competitor's run and lifetime.
const TOGETHER_S: f64 = 40.0;
const LATE_RUN_S: f64 = 60.0;
const LATE_FROM_S: f64 = 10.0;
const LATE_TO_S: f64 = 40.0;

struct Options {
    rates_mbit: Vec<f64>,
    rtts_ms: Vec<f64>,
    buffers_bdp: Vec<f64>,
    families: Vec<String>,
    competitors: Vec<String>,
    jobs: usize,
    /// Started together, competitor arriving late, or both.
    starts: Vec<bool>,
    /// Also run quiche's CUBIC and `vegas` with `coexist=off` in the
    /// family flow's place.
    baselines: bool,
    /// Write `docs/coexistence.md` (the whole grid only).
    docs: bool,
    /// `--traces DIR`: a false-alarm cell per mahimahi trace pair in DIR,
    /// the pairs found there when the options were read.
    traces: Option<(PathBuf, Vec<crate::traces::TraceInfo>)>,
}

/// The options `bench --coexist` takes, for its error on an unknown one.
fn slice_help() -> String {
    format!(
        "allowed: --quick, --jobs N, and to run a slice of the grid \
         (written to target/bench/coexist.md): --families {}, --competitors {}, \
         --rates MBIT,..., --rtts MS,..., --buffers BDP,..., \
         --starts together|late|both, --no-baselines; and --traces DIR (a \
         false-alarm cell per mahimahi trace pair NAME.down / NAME.up in DIR)",
        FAMILIES.join(","),
        COMPETITORS.join(",")
    )
}

/// A comma list of names, each one of `allowed`.
fn name_list(option: &str, value: Option<&String>, allowed: &[&str]) -> Result<Vec<String>> {
    let value =
        value.ok_or_else(|| format!("{option} needs a comma list of {}", allowed.join(",")))?;
    value
        .split(',')
        .map(|v| {
            if allowed.contains(&v) {
                Ok(v.to_string())
            } else {
                Err(format!(
                    "{option}: `{v}` is not one of {}",
                    allowed.join(", ")
                ))
            }
        })
        .collect()
}

/// A comma list of positive numbers.
fn number_list(option: &str, value: Option<&String>, unit: &str) -> Result<Vec<f64>> {
    let value = value
        .ok_or_else(|| format!("{option} needs a comma list of {unit}, e.g. {option} 10,100"))?;
    value
        .split(',')
        .map(|v| match v.parse::<f64>() {
            Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
            _ => Err(format!(
                "{option}: `{v}` is not a positive number of {unit}"
            )),
        })
        .collect()
}

impl Options {
    fn parse(args: &[String]) -> Result<Options> {
        let mut o = Options {
            rates_mbit: vec![10.0, 100.0],
            rtts_ms: vec![20.0, 80.0],
            buffers_bdp: vec![0.5, 1.0, 4.0],
            families: FAMILIES.map(String::from).to_vec(),
            competitors: COMPETITORS.map(String::from).to_vec(),
            jobs: 2,
            starts: vec![false, true],
            baselines: true,
            docs: true,
            traces: None,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--coexist" => {}
                "--quick" => {
                    o.rates_mbit = vec![10.0];
                    o.rtts_ms = vec![20.0];
                    o.buffers_bdp = vec![1.0];
                    o.families = vec!["vegas".into()];
                    o.competitors = vec!["cubic".into(), "newreno".into()];
                    o.docs = false;
                }
                "--jobs" => o.jobs = parse_jobs(it.next())?,
                "--families" => {
                    o.families = name_list(a, it.next(), &FAMILIES)?;
                    o.docs = false;
                }
                "--competitors" => {
                    o.competitors = name_list(a, it.next(), &COMPETITORS)?;
                    o.docs = false;
                }
                "--rates" => {
                    o.rates_mbit = number_list(a, it.next(), "Mbit/s")?;
                    o.docs = false;
                }
                "--rtts" => {
                    o.rtts_ms = number_list(a, it.next(), "ms")?;
                    o.docs = false;
                }
                "--buffers" => {
                    o.buffers_bdp = number_list(a, it.next(), "BDPs")?;
                    o.docs = false;
                }
                "--starts" => {
                    o.starts = match it.next().map(String::as_str) {
                        Some("together") => vec![false],
                        Some("late") => vec![true],
                        Some("both") => vec![false, true],
                        other => {
                            return Err(format!(
                                "--starts: `{}` is not one of together, late, both",
                                other.unwrap_or("")
                            ))
                        }
                    };
                    o.docs = false;
                }
                "--no-baselines" => {
                    o.baselines = false;
                    o.docs = false;
                }
                "--traces" => {
                    let dir = PathBuf::from(it.next().ok_or(
                        "--traces needs a folder of mahimahi trace pairs NAME.down / NAME.up",
                    )?);
                    let pairs = crate::traces::discover(&dir)?;
                    o.traces = Some((dir, pairs));
                }
                other => {
                    return Err(format!(
                        "bench --coexist: unknown option `{other}`; {}",
                        slice_help()
                    ))
                }
            }
        }
        Ok(o)
    }
}

/// What a cell is, for its metrics and its table.
#[derive(Clone, Debug)]
enum Kind {
    Pair {
        family: String,
        competitor: String,
        rate: f64,
        rtt: f64,
        buffer_bdp: f64,
        late: bool,
    },
    TwoPlusOne {
        family: String,
        rate: f64,
        rtt: f64,
    },
    TenFlows {
        family: String,
    },
    Alone {
        family: String,
        label: String,
    },
}

struct Cell {
    kind: Kind,
    /// A scenario file's text, or a built-in scenario and its `--set`s.
    scenario: Scenario,
}

fn buffer_pkts(rate: f64, rtt: f64, bdp: f64) -> u64 {
    ((bdp * rate * 1e6 / 8.0 * rtt / 1000.0 / PACKET_BYTES).round() as u64).max(2)
}

/// `params = { ... }` for a family flow (vegas-compat gets Feng &
/// Vanichpun's inputs by hand: the real buffer, one flow of each kind).
fn params(family: &str, buffer: u64, extra: &str) -> String {
    let mut p: Vec<String> = Vec::new();
    if family == "vegas-compat" {
        p.push(format!(
            "buffer_pkts = \"{buffer}\", reno_flows = \"1\", vegas_flows = \"1\", approach = \"1\""
        ));
    }
    if !extra.is_empty() {
        p.push(extra.to_string());
    }
    if p.is_empty() {
        String::new()
    } else {
        format!("params = {{ {} }}\n", p.join(", "))
    }
}

fn header(name: &str, duration_s: f64, rate: f64, rtt: f64, buffer: u64) -> String {
    format!(
        "name = \"{name}\"\nseed = 1\nduration = \"{duration_s}s\"\n\
         [bottleneck]\nrate = \"{rate}Mbit/s\"\ndelay = \"{}us\"\nbuffer_pkts = {buffer}\n\
         [receiver]\nack_every_pkts = 2\nmax_ack_delay = \"25ms\"\n",
        (rtt * 500.0).round()
    )
}

fn flow(algorithm: &str, start_s: f64, duration_s: f64, params: &str) -> String {
    format!(
        "[[flows]]\nalgorithm = \"{algorithm}\"\nstart = \"{start_s}s\"\n\
         duration = \"{duration_s}s\"\naccess = {{ rate = \"10Gbit/s\" }}\n{params}"
    )
}

/// The flow under study as a scenario algorithm and its parameters:
/// `vegas-off` is `vegas` with `coexist=off`.
fn study(family: &str, buffer: u64) -> (String, String) {
    match family {
        "vegas-off" => ("vegas".into(), params("vegas", buffer, "coexist = \"off\"")),
        f => (f.to_string(), params(f, buffer, "")),
    }
}

/// The flows put in the family flow's place: the families, and the
/// baselines unless left out.
fn studied(o: &Options) -> Vec<String> {
    let mut studied: Vec<String> = o.families.clone();
    if o.baselines {
        studied.extend(["cubic".to_string(), "vegas-off".to_string()]);
    }
    studied
}

fn cells(o: &Options) -> Vec<Cell> {
    let mut cells = Vec::new();
    let studied = studied(o);
    for &rate in &o.rates_mbit {
        for &rtt in &o.rtts_ms {
            for &bdp in &o.buffers_bdp {
                let buffer = buffer_pkts(rate, rtt, bdp);
                for &late in &o.starts {
                    for family in &studied {
                        for competitor in &o.competitors {
                            let (algorithm, p) = study(family, buffer);
                            let run_s = if late { LATE_RUN_S } else { TOGETHER_S };
                            let (from, to) = if late {
                                (LATE_FROM_S, LATE_TO_S)
                            } else {
                                (0.0, TOGETHER_S)
                            };
                            let text = header("coexist", run_s, rate, rtt, buffer)
                                + &flow(&algorithm, 0.0, run_s, &p)
                                + &flow(competitor, from, to - from, "");
                            cells.push(Cell {
                                kind: Kind::Pair {
                                    family: family.clone(),
                                    competitor: competitor.clone(),
                                    rate,
                                    rtt,
                                    buffer_bdp: bdp,
                                    late,
                                },
                                scenario: Scenario::Text(text),
                            });
                        }
                    }
                }
            }
        }
    }
    if !o.docs {
        return cells;
    }
    for family in &o.families {
        for (rate, rtt) in [(20.0, 40.0), (100.0, 20.0)] {
            let buffer = buffer_pkts(rate, rtt, 1.0);
            let p = params(family, buffer, "");
            let text = header("two-plus-one", TOGETHER_S, rate, rtt, buffer)
                + &flow(family, 0.0, TOGETHER_S, &p)
                + &flow(family, 0.0, TOGETHER_S, &p)
                + &flow("cubic", 0.0, TOGETHER_S, "");
            cells.push(Cell {
                kind: Kind::TwoPlusOne {
                    family: family.clone(),
                    rate,
                    rtt,
                },
                scenario: Scenario::Text(text),
            });
        }
    }
    for family in o.families.iter().filter(|f| *f != "vegas-compat") {
        let path = root().join("scenarios/scale-ten-flows.toml");
        let sets = (0..10)
            .map(|i| format!("flows.{i}.algorithm={family}"))
            .collect();
        cells.push(Cell {
            kind: Kind::TenFlows {
                family: family.clone(),
            },
            scenario: Scenario::Named(path.display().to_string(), sets),
        });
        // False alarms.
        for rate in [10.0, 100.0, 1000.0] {
            for rtt in [10.0, 40.0, 200.0] {
                for bdp in [0.5, 1.0, 4.0] {
                    let buffer = buffer_pkts(rate, rtt, bdp);
                    let text =
                        header("alone", 30.0, rate, rtt, buffer) + &flow(family, 0.0, 30.0, "");
                    cells.push(Cell {
                        kind: Kind::Alone {
                            family: family.clone(),
                            label: format!("alone {rate} Mbit/s, {rtt} ms, {bdp} BDP"),
                        },
                        scenario: Scenario::Text(text),
                    });
                }
            }
        }
        for n in [1, 2, 4, 8, 16] {
            for aggregation in ["0ms", "20ms"] {
                cells.push(Cell {
                    kind: Kind::Alone {
                        family: family.clone(),
                        label: format!("ack-frequency, ACK every {n}, aggregation {aggregation}"),
                    },
                    scenario: Scenario::Named(
                        "ack-frequency".into(),
                        vec![
                            format!("flows.0.algorithm={family}"),
                            format!("receiver.ack_every_pkts={n}"),
                            format!("reverse.aggregation={aggregation}"),
                        ],
                    ),
                });
            }
        }
        cells.push(Cell {
            kind: Kind::Alone {
                family: family.clone(),
                label: "route change (40 -> 80 ms at 10 s)".into(),
            },
            scenario: Scenario::Named(
                "route-change".into(),
                vec![format!("flows.0.algorithm={family}")],
            ),
        });
        // The long reroute of Srijith et al. (RTT 40 -> 220 ms at 20 s on
        // 1 Mbit/s) in default mode: a risen BaseRTT is not a collapse.
        cells.push(Cell {
            kind: Kind::Alone {
                family: family.clone(),
                label: "route change (40 -> 220 ms at 20 s, 1 Mbit/s)".into(),
            },
            scenario: Scenario::Named(
                "vegas-a-reroute".into(),
                vec![
                    format!("flows.0.algorithm={family}"),
                    "flows.0.params.mode=default".into(),
                ],
            ),
        });
        // Recorded cellular links, read by path (GPL data, not in the
        // repository): a rate that falls and recovers is no competitor.
        for t in o.traces.iter().flat_map(|(_, pairs)| pairs) {
            let text = format!(
                "name = \"alone-trace\"\nseed = 1\nduration = \"{TRACE_RUN_S}s\"\n\
                 [bottleneck]\ntrace = \"{down}\"\ndelay = \"20ms\"\nbuffer_pkts = 100\n\
                 [reverse]\ntrace = \"{up}\"\nbuffer_pkts = 100\n\
                 [[flows]]\nalgorithm = \"{family}\"\nduration = \"{TRACE_RUN_S}s\"\n",
                down = t.down.display(),
                up = t.up.display(),
            );
            cells.push(Cell {
                kind: Kind::Alone {
                    family: family.clone(),
                    label: format!(
                        "cellular trace {} (20 ms each way, 100 packets, {TRACE_RUN_S} s)",
                        t.name
                    ),
                },
                scenario: Scenario::Text(text),
            });
        }
        for (name, path) in HOSTILE_PATHS {
            let text = "name = \"hostile\"\nseed = 7\nduration = \"30s\"\n\
                 [bottleneck]\nrate = \"10Mbit/s\"\ndelay = \"20ms\"\nbuffer_pkts = 100\n"
                .to_string()
                + path
                + "\n"
                + &format!("[[flows]]\nalgorithm = \"{family}\"\nduration = \"30s\"\n");
            cells.push(Cell {
                kind: Kind::Alone {
                    family: family.clone(),
                    label: format!("hostile: {name}"),
                },
                scenario: Scenario::Text(text),
            });
        }
    }
    cells
}

// `HOSTILE_PATHS`: `lab/tests/hostile_network.rs`'s paths, one table for both.
include!("../../lab/tests/support/hostile_paths.rs");

/// Metrics of a one-on-one cell (module documentation).
#[derive(Clone, Debug, Default)]
struct PairMetrics {
    share: f64,
    utilization: f64,
    mean_queue: f64,
    p95_queue: f64,
    retransmitted_kb: f64,
    competitive_s: f64,
    /// Late competitor: seconds after it left until the flow was back;
    /// None: not within the run.
    back_after_s: Option<f64>,
    /// Late competitor: competitive seconds before it arrived.
    false_competitive_s: f64,
}

fn series(v: &Value, key: &str) -> Vec<f64> {
    v["series"][key]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

fn delivered(v: &Value, flow: usize) -> Vec<f64> {
    v["series"]["delivered_bytes"][flow]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

/// The mode of flow `flow` at `t` seconds (its switches are from its start,
/// which is 0 for the flows studied here).
fn competitive_at(v: &Value, flow: usize, t: f64) -> bool {
    let mut competitive = false;
    if let Some(switches) = v["flows"][flow]["mode_switches"].as_array() {
        for s in switches {
            if s["at_s"].as_f64().unwrap_or(f64::MAX) <= t {
                competitive = s["mode"] == "competitive";
            }
        }
    }
    competitive
}

fn competitive_seconds(v: &Value, flow: usize, from: f64, to: f64) -> f64 {
    let step = 0.01;
    let n = ((to - from) / step) as usize;
    (0..n)
        .filter(|k| competitive_at(v, flow, from + *k as f64 * step))
        .count() as f64
        * step
}

fn pair_metrics(v: &Value, late: bool) -> PairMetrics {
    let bin = v["series"]["bin_s"].as_f64().unwrap_or(0.1);
    let (from, to) = if late {
        (LATE_FROM_S, LATE_TO_S)
    } else {
        (0.0, TOGETHER_S)
    };
    let range = (from / bin).round() as usize..(to / bin).round() as usize;
    let sum = |xs: &[f64]| xs.get(range.clone()).map_or(0.0, |s| s.iter().sum::<f64>());
    let (ours, theirs) = (sum(&delivered(v, 0)), sum(&delivered(v, 1)));
    let queue = series(v, "bottleneck_queue_pkts");
    let util = series(v, "bottleneck_utilization");
    let window = |xs: &[f64]| {
        xs.get(range.clone())
            .map(<[f64]>::to_vec)
            .unwrap_or_default()
    };
    let q = window(&queue);
    let mut sorted = q.clone();
    sorted.sort_by(f64::total_cmp);
    let mean = |xs: &[f64]| {
        if xs.is_empty() {
            0.0
        } else {
            xs.iter().sum::<f64>() / xs.len() as f64
        }
    };
    let back_after_s = late.then(|| {
        let per_s = (1.0 / bin).round() as usize;
        let start = (LATE_TO_S / bin).round() as usize;
        (start..queue.len().saturating_sub(per_s))
            .find(|&k| {
                let t = k as f64 * bin;
                !competitive_at(v, 0, t)
                    && !competitive_at(v, 0, t + 1.0)
                    && mean(&queue[k..k + per_s]) <= BETA_PKTS + 1.0
                    && mean(&util[k..k + per_s]) >= 0.9
            })
            .map(|k| k as f64 * bin - LATE_TO_S)
    });
    PairMetrics {
        share: if ours + theirs > 0.0 {
            ours / (ours + theirs)
        } else {
            0.0
        },
        utilization: mean(&window(&util)),
        mean_queue: mean(&q),
        p95_queue: sorted
            .get(((sorted.len() as f64 * 0.95) as usize).min(sorted.len().saturating_sub(1)))
            .copied()
            .unwrap_or(0.0),
        retransmitted_kb: v["flows"][0]["retransmitted_bytes"].as_f64().unwrap_or(0.0) / 1e3,
        competitive_s: v["flows"][0]["competitive_mode_s"].as_f64().unwrap_or(0.0),
        back_after_s: back_after_s.flatten(),
        false_competitive_s: if late {
            competitive_seconds(v, 0, 0.0, LATE_FROM_S)
        } else {
            0.0
        },
    }
}

pub fn run(args: &[String]) -> Result<()> {
    let o = Options::parse(args)?;
    let lab = crate::build_lab()?;
    let dir = root().join("target/bench/coexist");
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let cells = cells(&o);
    eprintln!(
        "bench --coexist: {} runs on {} threads",
        cells.len(),
        o.jobs
    );
    let scenarios: Vec<&Scenario> = cells.iter().map(|c| &c.scenario).collect();
    let results = run_all(&lab, &dir, &scenarios, o.jobs, "bench --coexist")?;
    let json: Vec<Value> = cells
        .iter()
        .zip(&results)
        .map(|(c, r)| serde_json::json!({ "cell": format!("{:?}", c.kind), "summary": r }))
        .collect();
    let json_path = root().join("target/bench/coexist.json");
    fs::write(
        &json_path,
        serde_json::to_string(&json).map_err(|e| e.to_string())?,
    )
    .map_err(|e| format!("{}: {e}", json_path.display()))?;
    let report = report(&o, &cells, &results);
    let md_path = if o.docs {
        root().join("docs/coexistence.md")
    } else {
        root().join("target/bench/coexist.md")
    };
    fs::write(&md_path, &report).map_err(|e| format!("{}: {e}", md_path.display()))?;
    print!("{}", summary_section(&o, &cells, &results));
    eprintln!(
        "bench --coexist: {} and {}",
        md_path.display(),
        json_path.display()
    );
    Ok(())
}

fn fmt_back(b: Option<f64>) -> String {
    b.map_or("not within 20 s".into(), |s| format!("{s:.1}"))
}

/// The headline table: per competitor and flow, over every path.
fn summary_section(o: &Options, cells: &[Cell], results: &[Value]) -> String {
    let mut t = String::new();
    let studied = studied(o);
    for &late in &o.starts {
        let _ = writeln!(
            t,
            "\n{}\n\n| competitor | flow | share min | share median | cells >= 0.40 | mean queue pkts (median) | competitive s (median) |{}\n|---|---|---|---|---|---|---|{}",
            if late {
                "Competitor from 10 s to 40 s of 60 s (share over its 30 s):"
            } else {
                "Started together (40 s):"
            },
            if late { " back within 5 s | back after s (worst of those) | false competitive s (max) |" } else { "" },
            if late { "---|---|---|" } else { "" },
        );
        for competitor in &o.competitors {
            for family in &studied {
                let m: Vec<PairMetrics> = cells
                    .iter()
                    .zip(results)
                    .filter_map(|(c, r)| match &c.kind {
                        Kind::Pair {
                            family: f,
                            competitor: k,
                            late: l,
                            ..
                        } if f == family && k == competitor && *l == late => {
                            Some(pair_metrics(r, late))
                        }
                        _ => None,
                    })
                    .collect();
                if m.is_empty() {
                    continue;
                }
                let median = |mut xs: Vec<f64>| {
                    xs.sort_by(f64::total_cmp);
                    xs[xs.len() / 2]
                };
                let shares: Vec<f64> = m.iter().map(|x| x.share).collect();
                let min = shares.iter().copied().fold(f64::MAX, f64::min);
                let label = match family.as_str() {
                    "cubic" => "quiche cubic (reference)".to_string(),
                    "vegas-off" => "vegas, coexist=off (before)".to_string(),
                    "vegas-compat" => "vegas-compat (hand-set B, 1+1)".to_string(),
                    f => f.to_string(),
                };
                let _ = write!(
                    t,
                    "| {competitor} | {label} | {min:.2} | {:.2} | {}/{} | {:.1} | {:.1} |",
                    median(shares.clone()),
                    shares.iter().filter(|s| **s >= 0.4).count(),
                    shares.len(),
                    median(m.iter().map(|x| x.mean_queue).collect()),
                    median(m.iter().map(|x| x.competitive_s).collect()),
                );
                if late {
                    let back: Vec<f64> = m
                        .iter()
                        .filter_map(|x| x.back_after_s.filter(|s| *s <= 5.0))
                        .collect();
                    let worst = back.iter().copied().fold(0.0, f64::max);
                    let false_max = m.iter().map(|x| x.false_competitive_s).fold(0.0, f64::max);
                    let _ = write!(
                        t,
                        " {}/{} | {worst:.1} | {false_max:.1} |",
                        back.len(),
                        m.len()
                    );
                }
                t.push('\n');
            }
        }
    }
    t
}

/// How the design was chosen: measurements made while building it, with
/// the variants that lost (not kept in the code).
const DESIGNS: &str = r#"
## Designs measured

Every variant below was run on the started-together grid above (the same
48 cells per family member, share over 40 s) with `vegas`, as the
mechanism was built; the mean share over the 12 cells of each competitor
(cells at 0.40 or more in brackets). The variants that lost are not kept in
the code. References from the same grid: quiche's CUBIC gets 0.59 / 0.62 /
0.75 / 0.80 against cubic / bbr2 / reno / newreno, vegas-cc NewReno 0.20 /
0.50 / 0.60 / 0.51, Vegas without the mechanism 0.03-0.10.

| design | vs cubic | vs bbr2 | vs reno | vs newreno | why it lost or won |
|---|---|---|---|---|---|
| Feng & Vanichpun's alpha/beta with B and the flow counts given by hand (`vegas-compat`, its best case; the in-flow estimate can only be worse) | see the summary | | | | reaches 0.40 in about 7 of 12 cells at small BDP, never against cubic at 100 Mbit/s x 80 ms; a fixed target queue cannot follow a competitor that grows until loss |
| competitive mode from the first round (an oracle detector), RFC 9438 CUBIC, no undo | 0.02-0.65 | | | | quiche's CUBIC undoes its reduction after losing fewer than a fifth of its window: a flow that backs off on every loss beside it starves (0.02-0.06 at 100 Mbit/s) |
| CUBIC whose reductions are judged by the queue: undone when the queue did not fall by 20% (the other flow did not back off), then losses not answered until it does | 0.21 (3) | 0.23 (2) | 0.41 (9) | 0.36 (5) | the queue under a pinned buffer swings by tens of ms between rounds: the judgement is a coin toss; without a bound on the losses held through, windows ran away (2.9 GB retransmitted in one cell before the bound) |
| the same with a slow start on entering competitive mode | 0.36 (6) | 0.34 (3) | 0.69 (11) | 0.52 (7) | the slow start into a full buffer overflows it: 9-59 MB retransmitted per competitor over the grid, Reno's window destroyed |
| **CUBIC as quiche runs it: RFC 9438 with the undo of a loss episode that lost fewer than max(2, 20% of cwnd) packets** (chosen) | 0.47 (8) | 0.30 (4) | 0.50 (9) | 0.49 (9) | as aggressive as the QUIC stack's own default, no more (with an oracle detector) |
| the same with a conservative slow start (cwnd += acked/4) on entering | 0.55 (8) | 0.38 (2) | 0.73 (12) | 0.66 (11) | more share, but more than CUBIC itself takes from Reno and 20-80 MB retransmitted |

The detector was then hardened against false alarms, which cost share in
the started-together cells and were chosen by these runs:
- counting a backoff as ineffective only when at least a quarter of
  BaseRTT stays queued after it (an eighth: ten `vegas` flows starting 1 s
  apart switched, all together, and stayed competitive for the rest of
  the run, Jain 0.24);
- switching only after a congestive loss in the run or with three quarters
  of BaseRTT queued (without: ten `vegas-a` flows, which raise their
  thresholds together and hold half a BDP, switched, Jain 0.64 against
  0.86);
- return tests that last three rounds, are synchronized to the end of a
  loss recovery (the buffer overflow every competing flow of the family
  sees) or joined when the queue halves (without: two family flows left
  competing after the CUBIC flow left never found the queue empty);
- judging a backoff episode two rounds after it, and only when it started
  at a queue of at least two packets (without: three false switches in the
  81 cells of one flow alone);
- a congestive loss read from the latest RTT sample, not the round's
  minimum (without: no switch at 100 Mbit/s x 80 ms with half a BDP of
  buffer, share 0.009).

### Just after a return

A return test that runs just after the other flow's reduction finds the
queue empty. The flow returned to delay mode and, while only a quarter of
BaseRTT counted as evidence, yielded until the other flow's queue had
grown back that far: beside NewReno at 100 Mbit/s x 80 ms with one BDP of
buffer, from 14 s to the end of the run (share 0.03). Measured on the
started-together grid (144 cells: `vegas`, `vegas-a` and `gallop-vegas`
beside the four competitors; cells at 0.40 or more, the mean share, the
family flows' retransmitted MB), and on two family flows beside a CUBIC
flow from 10 s to 40 s of 60 s (the mean queue over the last 15 s;
two flows' 2 x beta + 1 = 7 packets is back):

| after a return | cells >= 0.40 | mean share | retransmitted MB | two family flows, queue after CUBIC left: vegas-a / gallop-vegas at 20 Mbit/s x 40 ms, gallop-vegas at 100 x 20 |
|---|---|---|---|---|
| only a quarter of BaseRTT queued is evidence (before) | 59 | 0.372 | 139 | 8.9 / 4.6 / 4.6 |
| a backoff that leaves two of our packets queued and does not lower the queue by one is evidence, the first resumes the window left | 95 | 0.491 | 426 | 54.7 / 52.4 / 141.4 |
| the same, resuming at CUBIC's reduction of that window, a new epoch | 59 | 0.383 | 65 | |
| the same, resuming at that reduction, the window's CUBIC epoch kept | 87 | 0.475 | 426 | |
| the first, with the test interval doubled after a return undone | 96 | 0.500 | 466 | |
| the first, counted only from 4 s after the return | 77 | 0.412 | 185 | 37.8 / 23.8 / 5.0 |
| **that, and three such events in a row** (chosen) | 68 | 0.394 | 164 | 25.6 / 4.6 / 10.2 |

The variants with the most share lost the return: with the competitor
gone, a family flow just back sees the queue of another that still
competes until its next test, takes it for a loss-based flow's and
resumes; the two stayed competitive to the end of the run. Each
resumption also puts the window back into a full buffer (three times the
retransmissions). Resuming lower kept the retransmissions down and lost
the share. The chosen rule waits out one longest test interval (4 s), by
when every family flow still competing has tested, and then asks for the
whole run of three events, but not for the deep queue or the loss a
first switch needs: the competitor was just there. It still costs two
family flows some of their return (`vegas-a` at 20 Mbit/s, 25.6 packets
queued against 8.9 before; `gallop-vegas` at 100 Mbit/s, 10.2 against
4.6; `vegas` unchanged, 4.7 and 4.1; `lab/tests/coexistence.rs` checks
two `vegas` flows).

### The other flow's reduction

In a shallow buffer the family flow's window is so small that it rarely
loses a packet when the other flow overflows the buffer, and the queue
never reaches the three quarters of BaseRTT that stand in for a loss:
beside Reno at 100 Mbit/s x 20 ms with half a BDP of buffer the flow never
switched (share 0.09). What it does see is the other flow's answer to the
overflow: a queue of a quarter of BaseRTT or more that empties within two
rounds while our window held (Reno halves; BBR drains for its minimum
RTT). Vegas flows do not do that: each holds alpha..beta packets and gives
way a packet a round. (Since c2a9f0e the queue must also have stood a
quarter of BaseRTT in the two rounds before the ones it falls from: alone
on recorded cellular traces a link's dip and recovery read as a collapse;
`docs/coexistence-summary.md`, group 5.) Measured on the started-together grid (144 cells:
`vegas`, `vegas-a` and `gallop-vegas` beside the four competitors; cells at
0.40 or more, the mean share, the family flows' retransmitted MB) and on
the false-alarm cells of this benchmark:

| the other flow's reduction | cells >= 0.40 | mean share | retransmitted MB | false alarms |
|---|---|---|---|---|
| not evidence (before) | 68 | 0.394 | 164 | none |
| a queue of a quarter of BaseRTT falling to half or less within two rounds, our window not cut by more than could explain half the fall: a congestive loss | 89 | 0.449 | 187 | `vegas-a` with 20 ms of ACK aggregation (ACK every 1 and 2): 3.6 and 7.3 s competitive |
| the same with any fall of a quarter of BaseRTT (CUBIC's 0.7 in a deep buffer leaves more than half the queue) | 88 | 0.450 | 187 | |
| the first, and after it any queue of two of our packets that a backoff does not lower is evidence (as just after a return) | 90 | 0.457 | 191 | |
| the first, our cut read as the largest dip of the window over the rounds (a BaseRTT drain may be over before its RTTs show), and nothing within 300 ms of a round whose RTT came from the ACK-aggregation hold bounds | | | | `vegas-a`, ACK every 1, 20 ms aggregation |
| **the same, nothing within `AGGREGATION_MEMORY` (10 s) of such a round** (chosen) | 76 | 0.420 | 166 | none |

Where the path holds ACKs a round's RTT swings by the hold: `vegas-a`
alone, whose thresholds had risen to 15 packets (a third of BaseRTT
queued), saw its round RTT fall 63 -> 50 ms and 51 -> 41 ms with its window
held, and switched on those swings. The chosen rule trusts no collapse
while the sampler reads rounds from the hold bounds, which the receiver's
delayed ACKs (every second packet, 25 ms) also trigger on some grid
paths: it keeps 76 of the 89 cells' gains (beside BBR 9 -> 14 cells of
36, beside Reno at 100 Mbit/s x 20 ms with half a BDP 0.09 -> 0.46) and
no flow alone switches. Still missed: 100 Mbit/s x 80 ms with half a BDP
beside Reno or NewReno (the other flow overflows the buffer once in the
40 s; the flow never switches), and cells where the flow competes but its
CUBIC window, started from the small window it yielded to, never grows to
a fair share beside BBR or a CUBIC that holds four BDP.

### The competitive start and a few packets beside a deep queue

Two kinds of miss were left. The flow switched but stayed small: its
CUBIC window started from the few packets it had kept in delay mode, and
CUBIC grows from there by a handful of packets a second (beside CUBIC at
100 Mbit/s x 80 ms with four BDPs of buffer: switched at 11 s with 47
packets, 399 at 24 s, its share reached at 34 s; 0.18 of the run). Or it
never switched: beside a deep queue a flow with 3-5 packets takes a third
of the queue per packet at its own rate, so the queue was always under
the two of our packets a backoff is judged from; and Reno's halving at
10 Mbit/s x 80 ms makes the round of the fall read its RTT from the
ACK-aggregation hold bounds, which vetoed every collapse of the next 10 s
(one such round per 9 s cycle). Measured on the started-together grid
(144 cells, as above) and the late grid (144 cells: the competitor from
10 s to 40 s of 60 s; back = the queue at 4 packets or less within 5 s of
its leaving):

| variant | cells >= 0.40 | mean share | retransmitted MB | late: cells >= 0.40, mean, back within 5 s |
|---|---|---|---|---|
| before | 76 | 0.420 | 166 | 74, 0.432, 111 |
| a first switch slow-starts (cwnd += acked) until its first loss episode, CUBIC's epoch from the window that loss found | 100 | 0.498 | 217 | 95, 0.508, 120 |
| the same at half the growth (cwnd += acked / 2) | 102 | 0.491 | 232 | |
| the first, and a backoff judged from two of our packets or a quarter of BaseRTT queued, effective when the queue fell by one of our packets or half of it | 108 | 0.527 | 246 | |
| **that, and a collapse vetoed only after three rounds from the hold bounds within 10 s** (chosen) | 115 | 0.544 | 258 | 99, 0.522, 120 |
| the chosen detection without the slow start | 86 | 0.462 | 194 | |

No flow alone switched with any of them (the 81 alone cells; the chosen
one also on the ACK-frequency sweep with and without 20 ms of
aggregation, the route change and the hostile paths). The test suite's
slower route change (`vegas-a-reroute` in default mode: 1 Mbit/s, the RTT
40 -> 220 ms) did switch: the route's drains were now judged, and when the
old path's BaseRTT expired the queue read from it fell by 189 ms, which
counted as a collapse. A collapse now compares only rounds measured from
one BaseRTT (utilization 0.78 -> 0.99 there; on the started-together grid
3 cells moved, 115 at 0.40 or more either way). The slow start is
what a CUBIC flow joining the path does (RFC 9438 4.10), and the other
flow loses packets in the overflow it causes too; it costs a third more
retransmissions over the grid (166 -> 217 MB; 258 with the detection
changes, which let more flows compete),
and the mean shares beside Reno and NewReno (0.49-0.65 per family
member) stay below quiche's own CUBIC's against them (0.75 and 0.80). A
slow start on entering was tried before the detector existed (first
table: 9-59 MB retransmitted per competitor with an oracle that switched
from the first round, into a full buffer at the initial window); from the
window the evidence run left it overflows the buffer after a few rounds.
Still missed: 100 Mbit/s x 80 ms with half a BDP beside Reno or NewReno
(one overflow in 40 s, no switch); BBR at 80 ms (its drains and probes
cut the competitive window again and again); two `vegas-a` flows beside
CUBIC at 100 Mbit/s, which stay competitive after CUBIC leaves (119
packets queued, 63 before). At 10 Mbit/s x 20 ms the family takes
0.73-0.92 beside CUBIC, Reno and NewReno (0.46-0.91 before these changes):
more than its share, a question for the competitive window's own
aggressiveness at small BDPs.

### Fair shares among family flows

Ten `vegas` flows started 1 s apart (`scenarios/scale-ten-flows.toml`)
had Jain 0.77 with the paper's steps: the first flow, which filled the
link alone, gave its window back one packet per round (still 18 Mbit/s
against the others' 9 at 30 s), and flows rested anywhere in alpha..beta.
Measured on that scenario while building `fair_share` (prototypes: the cut
above beta taken from Diff - beta, not Diff - middle):

| variant | Jain (vegas) |
|---|---|
| the paper's steps | 0.773 |
| inside the band, a quarter of the distance to the middle per round | 0.827 |
| above beta, half the excess per round (at least 1) | 0.941 |
| both, a quarter inside the band | 0.961 |
| both, half inside the band | 0.963 |
| both, the whole excess above beta and half inside | 0.979 |
| **FAST TCP's update toward the band's middle with gamma 1/2, at least the paper's step outside the band** (chosen) | 0.967 |

The whole excess (gamma 1) was fairer here but cuts it twice: a cut shows
in Diff one round late. What else it took:
- a drain that leaves no more than the band's middle queued at the flow's
  rate confirms BaseRTT (without: the windowed minima of ten
  `gallop-vegas` flows slid from 40.1 to 43.3 ms in 30 s as each drain met
  the others' queue, and the queue grew from 17 to 50 packets);
- the route check counts the longer path's packets at the rate before its
  drain and gives back the window its decreases took (without: the
  halving decreases left `route-change` 0.5 Mbit/s short, 9.08 -> 8.67);
- above beta with more than a quarter of BaseRTT queued (what the
  detector reads as another kind of flow) the paper's -1 step, not half the
  excess (without, and without counting fractions: a flow held at 7
  packets beside CUBIC saw no backoff for 10 s, share 0.26 in
  `lab/tests/coexistence.rs`'s cell; on real sockets the flow still ends at a
  few packets in some runs, `docs/coexistence-summary.md`);
- rounds that lower the window by a fraction of a packet count as backoffs,
  and an episode is judged only once it cut at least a packet (counting
  fractions without that bound: `vegas-a-reroute` in default mode,
  1 Mbit/s with the RTT 40 -> 220 ms, switched to competitive mode,
  utilization 0.74; a bound of two packets instead of one cost share: the
  grid's mean against reno 0.30 against 0.35);
- an episode's drop is judged from the RTT the window before the cut
  made: the higher of its first round's RTT and the next one's, the next
  one's only as far as our own growth over the two rounds before explains
  it, at most one packet (a window raised at the end of a round shows in
  the round after the next). Judged from the first round alone, the band's
  fair-share cuts of a flow alone at 1 Mbit/s (one packet 9.6 ms, more
  than a quarter of a 50 ms BaseRTT) read as ineffective backoffs: on
  `vegas-a-reroute` in default mode with the new access delay 90, 100 or
  110 ms over seeds 1-8, gallop-vegas switched in 10 of 24 runs and vegas
  in 1 (16 with every-round slow start); none now. Without the one-packet
  bound, a flow growing by 27 packets a round beside Reno read a cut of
  663 packets that lowered the RTT by 2.5 ms as effective (late cells at
  0.40 or more 106 -> 103); with it 114 -> 113 started together, 106 ->
  105 late, 4 cells moved by 0.05 or more, all beside bbr2;
- within ten seconds of a return from competitive mode the paper's steps
  apply (without: the competitor still there after a return test took the
  window in a few halving rounds; vegas against cubic over the 12
  started-together cells, mean share 0.41 against 0.45, 5 against 7 cells
  at 0.40 or more);
- Vegas-A keeps its hold inside its band (moving toward the middle moved
  Actual every round, which Vegas-A answers by raising alpha and beta: 4
  and 6 packets in a 5-packet buffer at 10 Mbit/s x 10 ms, losses, a false
  switch; Jain 0.954 with it, 0.974 without, both before the BaseRTT
  confirmation).
"#;

fn report(o: &Options, cells: &[Cell], results: &[Value]) -> String {
    let command = match &o.traces {
        Some((dir, _)) => format!("cargo xtask bench --coexist --traces {}", dir.display()),
        None => "cargo xtask bench --coexist".to_string(),
    };
    let mut md = format!(
        "# Coexistence: the Vegas family beside loss-based flows\n\n\
         Written by `{command}` (`xtask/src/coexist.rs`; the \
         simulator, one `vegas-lab run --json --series` per cell, two at a time). \
         Every path: a drop-tail bottleneck, the receiver ACKing every second \
         packet (25 ms max ACK delay), 10 Gbit/s access links, 1200-byte \
         datagrams, seed 1. Share = the flow's bytes / both flows' bytes while \
         both ran; queues are 100 ms means at the bottleneck. The mechanism: \
         `congestion/src/vegas/coexist.rs`; why this design: the section \
         \"Designs measured\" below.\n",
    );
    md.push_str("\n## Summary\n");
    md.push_str(&summary_section(o, cells, results));
    md.push_str(DESIGNS);
    // Two family flows and one CUBIC.
    let _ = writeln!(
        md,
        "\n## Two family flows and one CUBIC (started together, 40 s, 1 BDP)\n\n\
         | family | path | family flow shares | CUBIC's share | competitive s |\n|---|---|---|---|---|"
    );
    for (c, r) in cells.iter().zip(results) {
        if let Kind::TwoPlusOne { family, rate, rtt } = &c.kind {
            let total: f64 = (0..3)
                .map(|i| r["flows"][i]["bytes_delivered"].as_f64().unwrap_or(0.0))
                .sum();
            let share = |i: usize| {
                r["flows"][i]["bytes_delivered"].as_f64().unwrap_or(0.0) / total.max(1.0)
            };
            let _ = writeln!(
                md,
                "| {family} | {rate} Mbit/s, {rtt} ms | {:.2}, {:.2} | {:.2} | {:.1}, {:.1} |",
                share(0),
                share(1),
                share(2),
                r["flows"][0]["competitive_mode_s"].as_f64().unwrap_or(0.0),
                r["flows"][1]["competitive_mode_s"].as_f64().unwrap_or(0.0),
            );
        }
    }
    let _ = writeln!(
        md,
        "\n## Ten family flows (100 Mbit/s, 40 ms, 1 BDP, started 1 s apart, `scenarios/scale-ten-flows.toml`)\n\n\
         | family | Jain index | steady queue pkts | flows that switched | competitive s (sum) |\n|---|---|---|---|---|"
    );
    for (c, r) in cells.iter().zip(results) {
        if let Kind::TenFlows { family } = &c.kind {
            let flows = r["flows"].as_array().cloned().unwrap_or_default();
            let switched = flows
                .iter()
                .filter(|f| f["competitive_mode_s"].as_f64().unwrap_or(0.0) > 0.0)
                .count();
            let total: f64 = flows
                .iter()
                .map(|f| f["competitive_mode_s"].as_f64().unwrap_or(0.0))
                .sum();
            let _ = writeln!(
                md,
                "| {family} | {:.3} | {:.1} | {switched} | {total:.1} |",
                r["jain_index"].as_f64().unwrap_or(0.0),
                r["links"][0]["steady_mean_queue_pkts"]
                    .as_f64()
                    .unwrap_or(0.0),
            );
        }
    }
    let switched = cells.iter().zip(results).any(|(c, r)| {
        matches!(c.kind, Kind::Alone { .. })
            && r["flows"][0]["competitive_mode_s"].as_f64().unwrap_or(0.0) > 0.0
    });
    let traces = match &o.traces {
        Some((dir, _)) => format!(
            "; each recorded cellular trace pair in `{}` (`--traces`: the link's \
             service from NAME.down, the ACK path's from NAME.up, 20 ms each way, \
             100-packet buffers, {TRACE_RUN_S} s)",
            dir.display()
        ),
        None => String::new(),
    };
    let _ = writeln!(
        md,
        "\n## False alarms: one family flow alone\n\n\
         Every cell in which the flow switched to competitive mode{}. \
         Alone: 10, 100, 1000 Mbit/s x 10, 40, 200 ms x 0.5, 1, 4 BDP for 30 s; the \
         `ack-frequency` sweep (ACK every 1-16 packets, with and without 20 ms ACK \
         aggregation); `route-change`; `vegas-a-reroute` in default mode (1 Mbit/s, the RTT 40 -> 220 ms at 20 s); the six hostile paths of `lab/tests/hostile_network.rs` \
         for 30 s{traces}.\n\n| family | cell | competitive s | switches |\n|---|---|---|---|",
        if switched { "" } else { " (none listed: none did)" }
    );
    let mut alone = 0;
    for (c, r) in cells.iter().zip(results) {
        if let Kind::Alone { family, label } = &c.kind {
            alone += 1;
            let s = r["flows"][0]["competitive_mode_s"].as_f64().unwrap_or(0.0);
            if s > 0.0 {
                let n = r["flows"][0]["mode_switches"]
                    .as_array()
                    .map_or(0, Vec::len);
                let _ = writeln!(md, "| {family} | {label} | {s:.1} | {n} |");
            }
        }
    }
    let _ = writeln!(md, "\n({alone} alone cells in all.)");
    // Every one-on-one cell.
    for &late in &o.starts {
        let _ = writeln!(
            md,
            "\n## Every cell, {}\n\n| competitor | rate Mbit/s | RTT ms | buffer BDP | flow | share | utilization | mean queue | p95 queue | retransmitted kB | competitive s |{}\n|---|---|---|---|---|---|---|---|---|---|---|{}",
            if late { "competitor from 10 s to 40 s of 60 s" } else { "started together" },
            if late { " back after s | false competitive s |" } else { "" },
            if late { "---|---|" } else { "" },
        );
        for (c, r) in cells.iter().zip(results) {
            if let Kind::Pair {
                family,
                competitor,
                rate,
                rtt,
                buffer_bdp,
                late: l,
            } = &c.kind
            {
                if *l != late {
                    continue;
                }
                let m = pair_metrics(r, late);
                let _ = write!(
                    md,
                    "| {competitor} | {rate} | {rtt} | {buffer_bdp} | {family} | {:.2} | {:.3} | {:.1} | {:.0} | {:.0} | {:.1} |",
                    m.share, m.utilization, m.mean_queue, m.p95_queue, m.retransmitted_kb, m.competitive_s
                );
                if late {
                    let _ = write!(
                        md,
                        " {} | {:.1} |",
                        fmt_back(m.back_after_s),
                        m.false_competitive_s
                    );
                }
                md.push('\n');
            }
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options> {
        Options::parse(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn a_slice_runs_only_what_it_names_and_never_rewrites_the_report() {
        let o = parse(&[
            "--coexist",
            "--families",
            "vegas,vegas-a",
            "--competitors",
            "reno",
            "--rates",
            "100",
            "--rtts",
            "80",
            "--buffers",
            "0.5,1",
            "--starts",
            "late",
            "--no-baselines",
        ])
        .expect("a valid slice");
        assert!(!o.docs);
        assert_eq!(o.families, ["vegas", "vegas-a"]);
        assert_eq!(studied(&o), ["vegas", "vegas-a"]);
        // 2 families x 1 competitor x 1 rate x 1 RTT x 2 buffers, late only.
        let cells = cells(&o);
        assert_eq!(cells.len(), 4);
        assert!(cells
            .iter()
            .all(|c| matches!(c.kind, Kind::Pair { late: true, .. })));
        // The whole grid writes the report, with its baselines.
        let whole = parse(&["--coexist", "--jobs", "2"]).expect("the whole grid");
        assert!(whole.docs && whole.baselines);
    }

    #[test]
    fn a_bad_slice_names_the_option_the_value_and_what_is_allowed() {
        let err = |args: &[&str]| parse(args).err().expect("an error");
        assert_eq!(
            err(&["--families", "vegas,foo"]),
            "--families: `foo` is not one of vegas, vegas-a, gallop-vegas, vegas-compat"
        );
        assert_eq!(
            err(&["--rates", "10,-5"]),
            "--rates: `-5` is not a positive number of Mbit/s"
        );
        assert_eq!(
            err(&["--starts", "soon"]),
            "--starts: `soon` is not one of together, late, both"
        );
        assert!(err(&["--buffers"]).contains("--buffers needs a comma list of BDPs"));
        assert!(err(&["--slice"]).contains("unknown option `--slice`"));
        assert!(err(&["--traces"]).contains("--traces needs a folder"));
        assert!(
            err(&["--traces", "/nonexistent/traces"]).starts_with("--traces /nonexistent/traces:")
        );
    }

    #[test]
    fn traces_add_a_false_alarm_cell_per_pair_and_family_and_keep_the_report() {
        // A generated pair (the recorded traces are not in the repository).
        let dir = std::env::temp_dir().join(format!("coexist-traces-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let trace: String = (1..=100).map(|ms| format!("{ms}\n")).collect();
        fs::write(dir.join("steady.down"), &trace).unwrap();
        fs::write(dir.join("steady.up"), &trace).unwrap();
        let arg = dir.display().to_string();
        let o = parse(&["--coexist", "--traces", &arg]).expect("a folder with one pair");
        assert!(
            o.docs,
            "the whole grid, with the trace cells, writes the report"
        );
        let trace_cells: Vec<_> = cells(&o)
            .into_iter()
            .filter_map(|c| match (c.kind, c.scenario) {
                (Kind::Alone { family, label }, Scenario::Text(text))
                    if label.starts_with("cellular trace steady") =>
                {
                    Some((family, text))
                }
                _ => None,
            })
            .collect();
        // One per family member studied alone (vegas-compat has no alone
        // cells).
        let families: Vec<&str> = trace_cells.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(families, ["vegas", "vegas-a", "gallop-vegas"]);
        for (_, text) in &trace_cells {
            assert!(text.contains(&format!(
                "trace = \"{}\"",
                dir.join("steady.down").display()
            )));
            assert!(text.contains(&format!("trace = \"{}\"", dir.join("steady.up").display())));
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
