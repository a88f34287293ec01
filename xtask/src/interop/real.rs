//! `cargo xtask bench --real`: the Vegas family and CUBIC on real sockets,
//! our h3-server and h3-client through `vegas-link-emu` on loopback, one
//! download at a time, every algorithm of a path in turn (the order
//! reversed every other repetition), then loopback without the emulator,
//! and beside each path the simulator's figures for the same link, bytes
//! and algorithm. `cargo xtask bench --real --help` lists the options.
//!
//! Per run: goodput from the client's own timing (request to last byte),
//! the down link's time-weighted mean and 95th-percentile queue from the
//! emulator's queue log (first to last datagram), drop-tail drops, the
//! packets the server counted lost, the emulator's timing precision, and
//! from the server's qlog the controller's decision records (`decisions`:
//! where slow start ended and the window it left; the records are kept,
//! the qlog deleted).
//! Writes `target/bench-real/REPORT.md` and `report.json`, and the
//! generated part of `docs/real-rates.md` (between its markers) unless
//! `--no-doc`.

use super::decisions;
use super::decisions::Decisions;
use super::stacks::queue_over;
use super::*;
use vegas_interop::sockets::machine_receive_buffer_drops;

const ALGORITHMS: [&str; 4] = ["vegas", "vegas-a", "gallop-vegas", "cubic"];
const RATES_MBIT: [f64; 4] = [10.0, 25.0, 50.0, 100.0];
const RTTS_MS: [f64; 4] = [20.0, 50.0, 80.0, 200.0];
const BUFFER_BDPS: [f64; 2] = [1.0, 2.0];
const SECONDS: [f64; 2] = [4.0, 30.0];
const REPS: usize = 2;
const LOOPBACK_MBYTES: u64 = 500;
const LOOPBACK_REPS: usize = 3;
/// The queue target of the issue: within [alpha, beta + 1] packets (the
/// defaults' alpha 1 and beta 3, Brakmo & Peterson III-B), or within one
/// packet of the simulator's on the same path.
const QUEUE_TARGET_PKTS: (f64, f64) = (1.0, 4.0);
/// Goodput target: at least this fraction of CUBIC's on the same path.
const GOODPUT_TARGET: f64 = 0.95;
/// A run whose emulator sent datagrams later than this at the 99th
/// percentile measured the machine, not the controller: 1 ms is 4.6 packet
/// times at 50 Mbit/s, more than the whole queue of 1-3 packets a Vegas
/// flow keeps, so the link ran dry while the sender or the emulator stood
/// still (a quiet run: 100-250 us; `docs/real-rates.md`, "The whole grid
/// at 4c49910, and the machine's stalls").
const LATE_P99_US: f64 = 1000.0;
/// Times a late run is repeated before it is kept as measured.
const LATE_REPEATS: usize = 2;
/// A slow-start exit that left the window under this fraction of the pipe
/// is listed with its decision records: congestion avoidance adds one
/// packet per round (Brakmo & Peterson III-B), so 10% of a 100 Mbit/s x
/// 200 ms pipe (185 packets) takes 185 rounds, 37 s, to make up.
const UNDER_READ_EXIT: f64 = 0.9;

const USAGE: &str = "cargo xtask bench --real [OPTIONS]

Our h3-server (--cc ALGORITHM) and h3-client through vegas-link-emu, one
transfer at a time, every path's algorithms in turn (reversed every other
repetition), then loopback downloads without the emulator, and the
simulator's figures for each path beside the real ones.

Options (lists are comma-separated):
  --rates MBIT        link rates, each in [1, 1000] (default 10,25,50,100)
  --rtts MS           round-trip times, each in [2, 1000] (default 20,50,80,200)
  --buffers BDP       buffers in BDPs of 1350-byte datagrams, each in (0, 8],
                      at least 50 packets (default 1,2)
  --seconds S         transfers of S seconds of the link's rate, each in
                      [1, 120] (default 4,30)
  --algorithms LIST   h3-server --cc names (default vegas,vegas-a,gallop-vegas,cubic;
                      cubic is the reference and is always run)
  --reps N[,N...]     repetitions, each in [1, 20]: one count for every
                      transfer length, or one per --seconds entry, in its
                      order (e.g. --seconds 4,30 --reps 2,1) (default 2)
  --late-repeats N    repeat a run whose emulator was more than 1 ms late at
                      the 99th percentile up to N times, in [0, 5], keeping
                      the last attempt (default 2; every attempt is in the
                      JSON report)
  --loopback-mb N     loopback download size in MB, 0 to skip (default 500)
  --loopback-reps N   loopback repetitions, in [1, 20] (default 3)
  --no-sim            leave out the simulator's figures
  --no-doc            write only target/bench-real/, not docs/real-rates.md
  --quick             10 and 100 Mbit/s x 20 and 80 ms, 1 BDP, 4 s, 1 repetition,
                      loopback 200 MB once, and --no-doc";

struct RealOptions {
    rates_mbit: Vec<f64>,
    rtts_ms: Vec<f64>,
    buffer_bdps: Vec<f64>,
    seconds: Vec<f64>,
    algorithms: Vec<String>,
    /// One count for every transfer length, or one per `seconds` entry.
    reps: Vec<usize>,
    late_repeats: usize,
    loopback_mbytes: u64,
    loopback_reps: usize,
    sim: bool,
    doc: bool,
}

fn list(flag: &str, text: &str, range: (f64, f64), what: &str) -> Result<Vec<f64>, String> {
    let bad = |item: &str| {
        format!(
            "bench --real: {flag} `{item}`: want {what} in [{}, {}], comma-separated",
            range.0, range.1
        )
    };
    let v: Vec<f64> = text
        .split(',')
        .map(|item| {
            item.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| (range.0..=range.1).contains(v) && *v > 0.0)
                .ok_or_else(|| bad(item))
        })
        .collect::<Result<_, _>>()?;
    if v.is_empty() {
        return Err(bad(text));
    }
    Ok(v)
}

fn count(flag: &str, text: &str, max: usize) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| format!("bench --real: {flag} `{text}`: want an integer in [1, {max}]"))
}

/// An integer in [0, max], 0 meaning none.
fn up_to(flag: &str, text: &str, max: u64) -> Result<u64, String> {
    text.parse::<u64>()
        .ok()
        .filter(|n| *n <= max)
        .ok_or_else(|| format!("bench --real: {flag} `{text}`: want an integer in [0, {max}]"))
}

fn parse(args: &[String]) -> Result<Option<RealOptions>, String> {
    let mut o = RealOptions {
        rates_mbit: RATES_MBIT.to_vec(),
        rtts_ms: RTTS_MS.to_vec(),
        buffer_bdps: BUFFER_BDPS.to_vec(),
        seconds: SECONDS.to_vec(),
        algorithms: ALGORITHMS.iter().map(|s| s.to_string()).collect(),
        reps: vec![REPS],
        late_repeats: LATE_REPEATS,
        loopback_mbytes: LOOPBACK_MBYTES,
        loopback_reps: LOOPBACK_REPS,
        sim: true,
        doc: true,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("bench --real: {flag} needs a value"))
        };
        match arg.as_str() {
            "--real" => {}
            "--help" | "-h" => return Ok(None),
            "--quick" => {
                o.rates_mbit = vec![10.0, 100.0];
                o.rtts_ms = vec![20.0, 80.0];
                o.buffer_bdps = vec![1.0];
                o.seconds = vec![4.0];
                o.reps = vec![1];
                o.loopback_mbytes = 200;
                o.loopback_reps = 1;
                // A sample, not the report: docs/real-rates.md stays.
                o.doc = false;
            }
            "--rates" => o.rates_mbit = list(arg, &value(arg)?, (1.0, 1000.0), "Mbit/s")?,
            "--rtts" => o.rtts_ms = list(arg, &value(arg)?, (2.0, 1000.0), "milliseconds")?,
            "--buffers" => o.buffer_bdps = list(arg, &value(arg)?, (0.0, 8.0), "BDPs")?,
            "--seconds" => o.seconds = list(arg, &value(arg)?, (1.0, 120.0), "seconds")?,
            "--algorithms" => {
                let text = value(arg)?;
                let mut names: Vec<String> = Vec::new();
                for name in text.split(',').map(str::trim) {
                    let known =
                        VEGAS_FAMILY.contains(&name) || ["cubic", "reno", "bbr2"].contains(&name);
                    if !known {
                        return Err(format!(
                            "bench --real: --algorithms `{name}`: want one of {}, cubic, reno, bbr2",
                            VEGAS_FAMILY.join(", ")
                        ));
                    }
                    names.push(name.to_string());
                }
                if !names.iter().any(|n| n == "cubic") {
                    names.push("cubic".into());
                }
                o.algorithms = names;
            }
            "--reps" => {
                o.reps = value(arg)?
                    .split(',')
                    .map(|n| count(arg, n.trim(), 20))
                    .collect::<Result<_, _>>()?
            }
            "--loopback-mb" => o.loopback_mbytes = up_to(arg, &value(arg)?, 4000)?,
            "--late-repeats" => o.late_repeats = up_to(arg, &value(arg)?, 5)? as usize,
            "--loopback-reps" => o.loopback_reps = count(arg, &value(arg)?, 20)?,
            "--no-sim" => o.sim = false,
            "--no-doc" => o.doc = false,
            other => {
                return Err(format!(
                    "bench --real: unknown option `{other}` (cargo xtask bench --real --help)"
                ))
            }
        }
    }
    if o.reps.len() != 1 && o.reps.len() != o.seconds.len() {
        return Err(format!(
            "bench --real: --reps has {} counts for {} --seconds entries: want one count, \
             or one per --seconds entry",
            o.reps.len(),
            o.seconds.len()
        ));
    }
    Ok(Some(o))
}

impl RealOptions {
    /// Repetitions of transfers of `seconds`.
    fn reps_for(&self, seconds: f64) -> usize {
        match self.reps.as_slice() {
            [n] => *n,
            counts => self
                .seconds
                .iter()
                .position(|s| *s == seconds)
                .map_or(1, |i| counts[i]),
        }
    }

    fn max_reps(&self) -> usize {
        self.reps.iter().copied().max().unwrap_or(1)
    }

    fn reps_text(&self) -> String {
        match self.reps.as_slice() {
            [n] => format!("{n} repetition(s)"),
            counts => self
                .seconds
                .iter()
                .zip(counts)
                .map(|(s, n)| format!("{n} repetition(s) of the {s} s transfers"))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

/// One path of the grid.
#[derive(Clone, Copy, Debug)]
struct Path_ {
    rate_mbit: f64,
    rtt_ms: f64,
    buffer_bdp: f64,
    seconds: f64,
}

impl Path_ {
    fn cell(&self) -> StackCell {
        let mut cell = StackCell::new(self.rate_mbit, self.rtt_ms, self.seconds);
        let bdp_pkts = self.rate_mbit * 1e6 / 8.0 * self.rtt_ms / 1e3 / BDP_DATAGRAM_BYTES;
        cell.buffer_pkts = ((self.buffer_bdp * bdp_pkts).ceil() as usize).max(BUFFER_PKTS);
        cell
    }

    /// The pipe: rate x round-trip time, in bytes.
    fn bdp_bytes(&self) -> f64 {
        self.rate_mbit * 1e6 / 8.0 * self.rtt_ms / 1e3
    }

    fn name(&self) -> String {
        format!(
            "{} Mbit/s x {} ms, {} BDP ({} pkts), {} s",
            self.rate_mbit,
            self.rtt_ms,
            self.buffer_bdp,
            self.cell().buffer_pkts,
            self.seconds
        )
    }
}

/// Whether a run's attempt is repeated: it was late ([`Figures::late`])
/// and has been repeated fewer than `max_repeats` times.
fn repeat_late_run(result: &Result<Figures, String>, repeats: usize, max_repeats: usize) -> bool {
    repeats < max_repeats && result.as_ref().is_ok_and(Figures::late)
}

/// What one real run measured.
#[derive(Clone, Debug)]
struct Figures {
    goodput_mbit: f64,
    queue_mean: f64,
    queue_p95: f64,
    /// Mean queue over the second half of the link's busy time: steady
    /// state, after slow start's overshoot has drained.
    steady_queue_mean: f64,
    drops: u64,
    /// Packets the server counted lost (quiche's stats).
    lost: u64,
    lateness_p99_us: Option<f64>,
    /// UDP datagrams the machine dropped at full socket receive buffers
    /// during the run (all processes), `None` where the kernel does not say.
    kernel_drops: Option<u64>,
    /// The controller's decision records (the family's runs; `None` for
    /// CUBIC, which records none).
    decisions: Option<Decisions>,
}

impl Figures {
    /// The emulator was more than [`LATE_P99_US`] late at the 99th
    /// percentile.
    fn late(&self) -> bool {
        self.lateness_p99_us.is_some_and(|us| us > LATE_P99_US)
    }
}

/// The simulator's figures for a path and algorithm.
#[derive(Clone, Copy, Debug)]
struct SimFigures {
    goodput_mbit: f64,
    queue_mean: f64,
    queue_p95: f64,
    steady_queue_mean: f64,
    drops: u64,
}

/// A loopback download's goodput Mbit/s, packets lost, and datagrams the
/// machine dropped at full receive buffers.
type LoopbackFigures = (f64, u64, Option<u64>);

/// A loopback download: (algorithm, repetition, figures or why it failed).
type LoopbackRun = (String, usize, Result<LoopbackFigures, String>);

/// The machine's receive-buffer drops while `f` runs.
fn counting_kernel_drops<T>(f: impl FnOnce() -> T) -> (T, Option<u64>) {
    let before = machine_receive_buffer_drops();
    let out = f();
    let drops = before
        .zip(machine_receive_buffer_drops())
        .map(|(a, b)| b.saturating_sub(a));
    (out, drops)
}

struct Cell {
    path: Path_,
    runs: Vec<(String, usize, Result<Figures, String>)>,
    /// Attempts set aside because the emulator was late, each repeated.
    late: Vec<(String, usize, Figures)>,
    sim: Vec<(String, Result<SimFigures, String>)>,
}

impl Cell {
    fn figures(&self, cc: &str) -> Vec<Figures> {
        self.runs
            .iter()
            .filter(|(c, _, _)| c == cc)
            .filter_map(|(_, _, r)| r.as_ref().ok().cloned())
            .collect()
    }

    fn median(&self, cc: &str, f: impl Fn(&Figures) -> f64) -> Option<f64> {
        median(self.figures(cc).iter().map(f).collect())
    }

    fn sim(&self, cc: &str) -> Option<SimFigures> {
        self.sim
            .iter()
            .find(|(c, _)| c == cc)
            .and_then(|(_, r)| r.as_ref().ok().copied())
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The time-weighted mean queue over the second half of the span from the
/// first to the last datagram the link began to serve: the steady state,
/// after slow start's overshoot. The same reading as a real run's
/// `queue_mean_late` ([`queue_over`]); NaN without a
/// datagram.
fn steady_queue_mean(events: &[Event]) -> f64 {
    let mut departures = events.iter().filter(|e| e.kind == '-').map(|e| e.t_ms);
    let Some(a) = departures.next() else {
        return f64::NAN;
    };
    let b = departures.next_back().unwrap_or(a);
    queue_over(events, (a + b) / 2.0, b).0
}

/// Time-weighted `q` quantile of the queue over [a, b] ms.
fn queue_quantile(events: &[Event], a: f64, b: f64, q: f64) -> f64 {
    let mut time_at: std::collections::BTreeMap<u64, f64> = Default::default();
    let (mut level, mut t) = (0u64, a);
    for e in events {
        if e.t_ms <= a {
            level = e.queue;
            continue;
        }
        if e.t_ms > b {
            break;
        }
        *time_at.entry(level).or_default() += e.t_ms - t;
        t = e.t_ms;
        level = e.queue;
    }
    *time_at.entry(level).or_default() += b - t;
    let total: f64 = time_at.values().sum();
    let mut acc = 0.0;
    for (level, dt) in &time_at {
        acc += dt;
        if acc >= q * total {
            return *level as f64;
        }
    }
    level as f64
}

/// `lost N` of the server's close line.
fn server_lost(log: &Path) -> u64 {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(" closed: "))
        .filter_map(|l| number_after(l, "lost ").map(|n| n as u64))
        .sum()
}

impl Ctx {
    fn real_run(&self, path: &Path_, cc: &str, run: &str) -> Result<Figures, String> {
        let cell = path.cell();
        let (f, kernel_drops) = counting_kernel_drops(|| self.stack_run(&cell, "quiche", cc, run));
        let f = f?;
        let events = read_queue_log(&self.out.join(format!("queue-{run}.log")))?;
        let departures = events.iter().filter(|e| e.kind == '-');
        let (a, b) = departures.fold((f64::MAX, 0.0f64), |(a, b), e| {
            (a.min(e.t_ms), b.max(e.t_ms))
        });
        Ok(Figures {
            goodput_mbit: f.goodput_mbit,
            queue_mean: f.queue_mean,
            queue_p95: queue_quantile(&events, a, b, 0.95),
            steady_queue_mean: f.queue_mean_late,
            drops: f.drops,
            lost: server_lost(&self.log(run, "server")),
            lateness_p99_us: f.lateness_p99_us,
            kernel_drops,
            decisions: self.decisions_of(run),
        })
    }

    /// The decision records of `run`'s server qlog, kept as
    /// `decisions/<run>.jsonl`; the qlog itself is deleted. `None` without
    /// a qlog or without `vegas:` rounds in it.
    fn decisions_of(&self, run: &str) -> Option<Decisions> {
        let dir = self.qlog_dir.as_ref()?.join(run);
        let extract = self.out.join("decisions").join(format!("{run}.jsonl"));
        let read = decisions::server_qlog(&dir)
            .ok_or_else(|| format!("no server qlog in {}", dir.display()))
            .and_then(|qlog| {
                std::fs::create_dir_all(self.out.join("decisions")).map_err(|e| e.to_string())?;
                decisions::read(&qlog, &extract)
            });
        let _ = std::fs::remove_dir_all(&dir);
        match read {
            Ok(d) if d.rounds > 0 => Some(d),
            Ok(_) => {
                let _ = std::fs::remove_file(&extract);
                None
            }
            Err(e) => {
                eprintln!("bench --real: {run}: decision records: {e}");
                None
            }
        }
    }

    /// [`Ctx::loopback_download`] and the datagrams the machine dropped at
    /// full receive buffers meanwhile.
    fn loopback_run(&self, cc: &str, bytes: u64, run: &str) -> Result<LoopbackFigures, String> {
        let (r, kernel_drops) = counting_kernel_drops(|| self.loopback_download(cc, bytes, run));
        r.map(|(goodput, lost)| (goodput, lost, kernel_drops))
    }

    /// One loopback download of `bytes` from h3-server --cc `cc`:
    /// (goodput Mbit/s, packets the server counted lost).
    fn loopback_download(&self, cc: &str, bytes: u64, run: &str) -> Result<(f64, u64), String> {
        let (server, port) = self.start_server("quiche-vegas", cc, run)?;
        let mut c = bounded(
            self.bin.join("examples/h3-client"),
            STACK_CLIENT_LIMIT_S * 2,
        );
        c.args(["--quiet", "--timeout-s", "120", "--ca"])
            .arg(self.ca())
            .arg(format!("https://localhost:{port}/bytes/{bytes}"));
        let (ok, text, err) = output(c)?;
        drop(server);
        let summary = text
            .lines()
            .find(|l| l.starts_with("summary:"))
            .unwrap_or("");
        match (ok, number_after(summary, "goodput ")) {
            (true, Some(goodput)) => Ok((goodput, server_lost(&self.log(run, "server")))),
            _ => Err(format!(
                "loopback {cc}: client failed: {}",
                last_lines(&format!("{text}\n{err}"), 3)
            )),
        }
    }
}

/// The simulator on `path` with `cc`: the same link, bytes and datagram
/// size, our h3 examples' quiche settings as the simulator's defaults.
fn sim_run(lab: &Path, dir: &Path, path: &Path_, cc: &str) -> Result<SimFigures, String> {
    let cell = path.cell();
    let name = format!(
        "real-{}m-{}ms-{}bdp-{}s-{cc}",
        path.rate_mbit, path.rtt_ms, path.buffer_bdp, path.seconds
    );
    let file = dir.join(format!("{name}.toml"));
    let scenario = format!(
        "name = \"{name}\"\ndescription = \"bench --real: {}\"\nseed = 1\n\
         duration = \"{}s\"\nmax_datagram_size = {}\n\n[bottleneck]\nrate = \"{}Mbit/s\"\n\
         delay = \"{}ms\"\nbuffer_pkts = {}\n\n[[flows]]\nalgorithm = \"{cc}\"\nbytes = {}\n",
        path.name(),
        (path.seconds * 4.0 + 20.0).ceil(),
        BDP_DATAGRAM_BYTES,
        path.rate_mbit,
        path.rtt_ms / 2.0,
        cell.buffer_pkts,
        cell.bytes
    );
    std::fs::write(&file, scenario).map_err(|e| format!("{}: {e}", file.display()))?;
    let logs = dir.join(&name);
    let out = Command::new(lab)
        .arg("run")
        .arg(&file)
        .arg("--json")
        .arg("--out")
        .arg(&logs)
        .output()
        .map_err(|e| format!("{}: {e}", lab.display()))?;
    if !out.status.success() {
        return Err(format!(
            "vegas-lab run {}: {}",
            file.display(),
            last_lines(&String::from_utf8_lossy(&out.stderr), 3)
        ));
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("vegas-lab run {}: not JSON: {e}", file.display()))?;
    let flow = &v["flows"][0];
    let link = &v["links"][0];
    if flow["unfinished"].as_bool() != Some(false) {
        return Err(format!(
            "{name}: the transfer did not finish in the simulator"
        ));
    }
    let events = read_queue_log(&logs.join("bottleneck.queue"))?;
    Ok(SimFigures {
        steady_queue_mean: steady_queue_mean(&events),
        goodput_mbit: flow["goodput_bps"].as_f64().unwrap_or(0.0) / 1e6,
        queue_mean: link["mean_queue_pkts"].as_f64().unwrap_or(f64::NAN),
        queue_p95: link["p95_queue_pkts"].as_f64().unwrap_or(f64::NAN),
        drops: link["drops"].as_u64().unwrap_or(0),
    })
}

pub fn run(root: &Path, args: &[String], lab: &Path) -> Result<(), String> {
    let Some(o) = parse(args)? else {
        println!("{USAGE}");
        return Ok(());
    };
    let started = Instant::now();
    let out = root.join("target/bench-real");
    std::fs::create_dir_all(out.join("sim")).map_err(|e| e.to_string())?;
    let mut ctx = Ctx::for_h3_runs(root, &out, "bench --real")?;
    // Each emulator run's server writes a qlog (CUBIC's too, so both pay
    // the same cost; no goodput difference at 100 Mbit/s); the loopback
    // downloads at 1 Gbit/s do not.
    ctx.qlog_dir = Some(out.join("qlog"));
    let load_start = load_average();
    let mut cells = Vec::new();
    for &seconds in &o.seconds {
        for &buffer_bdp in &o.buffer_bdps {
            for &rate_mbit in &o.rates_mbit {
                for &rtt_ms in &o.rtts_ms {
                    cells.push(Cell {
                        path: Path_ {
                            rate_mbit,
                            rtt_ms,
                            buffer_bdp,
                            seconds,
                        },
                        runs: Vec::new(),
                        late: Vec::new(),
                        sim: Vec::new(),
                    });
                }
            }
        }
    }
    let total: usize = cells
        .iter()
        .map(|c| o.reps_for(c.path.seconds) * o.algorithms.len())
        .sum();
    let mut done = 0;
    for rep in 0..o.max_reps() {
        for cell in &mut cells {
            if rep >= o.reps_for(cell.path.seconds) {
                continue;
            }
            let mut order: Vec<&String> = o.algorithms.iter().collect();
            if rep % 2 == 1 {
                order.reverse();
            }
            for cc in order {
                let p = cell.path;
                let run = format!(
                    "real-{}m-{}ms-{}bdp-{}s-{cc}-{rep}",
                    p.rate_mbit, p.rtt_ms, p.buffer_bdp, p.seconds
                );
                let mut result = ctx.real_run(&p, cc, &run);
                let mut repeats = 0;
                while repeat_late_run(&result, repeats, o.late_repeats) {
                    let Ok(late) = result else { break };
                    println!(
                        "[{}/{total}] {} {cc}: the emulator was {:.0} us late at p99, repeating",
                        done + 1,
                        p.name(),
                        late.lateness_p99_us.unwrap_or(0.0)
                    );
                    cell.late.push((cc.clone(), rep, late.clone()));
                    repeats += 1;
                    result = ctx.real_run(&p, cc, &format!("{run}-repeat{repeats}"));
                }
                done += 1;
                match &result {
                    Ok(f) => println!(
                        "[{done}/{total}] {} {cc:<13} {:>7.2} Mbit/s  queue mean {:>6.1} p95 {:>5.0}  \
                         drops {:>5}  lost {:>5}  kernel drops {}  emu p99 {} us",
                        p.name(),
                        f.goodput_mbit,
                        f.queue_mean,
                        f.queue_p95,
                        f.drops,
                        f.lost,
                        f.kernel_drops.map_or("?".into(), |v| v.to_string()),
                        f.lateness_p99_us.map_or("?".into(), |v| format!("{v:.0}"))
                    ),
                    Err(e) => eprintln!("[{done}/{total}] {} {cc}: {e}", p.name()),
                }
                cell.runs.push((cc.clone(), rep, result));
            }
        }
    }
    if o.sim {
        for cell in &mut cells {
            for cc in &o.algorithms {
                let r = sim_run(lab, &out.join("sim"), &cell.path, cc);
                if let Err(e) = &r {
                    eprintln!("bench --real: simulator: {e}");
                }
                cell.sim.push((cc.clone(), r));
            }
        }
    }
    ctx.qlog_dir = None;
    let mut loopback: Vec<LoopbackRun> = Vec::new();
    if o.loopback_mbytes > 0 {
        let bytes = o.loopback_mbytes * 1_000_000;
        for rep in 0..o.loopback_reps {
            let mut order = vec!["vegas", "cubic"];
            if rep % 2 == 1 {
                order.reverse();
            }
            for cc in order {
                let r = ctx.loopback_run(cc, bytes, &format!("loopback-{cc}-{rep}"));
                match &r {
                    Ok((g, lost, kernel)) => println!(
                        "loopback {cc:<6} rep {rep}: {g:.1} Mbit/s, lost {lost}, kernel drops {}",
                        kernel.map_or("?".into(), |v| v.to_string())
                    ),
                    Err(e) => eprintln!("loopback {cc} rep {rep}: {e}"),
                }
                loopback.push((cc.to_string(), rep, r));
            }
        }
    }
    let wall_s = started.elapsed().as_secs_f64();
    let report = markdown(&o, &cells, &loopback, args, wall_s, &load_start);
    let json = json(&o, &cells, &loopback);
    std::fs::write(out.join("REPORT.md"), &report).map_err(|e| e.to_string())?;
    std::fs::write(
        out.join("report.json"),
        serde_json::to_string_pretty(&json).unwrap_or_default(),
    )
    .map_err(|e| e.to_string())?;
    if o.doc {
        crate::write_generated_section(&root.join("docs/real-rates.md"), "bench --real", &report)?;
    }
    println!(
        "\nbench --real: {} runs in {wall_s:.0} s; {}{}",
        total,
        out.join("REPORT.md").display(),
        if o.doc { " and docs/real-rates.md" } else { "" }
    );
    Ok(())
}

fn fmt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.digits$}"))
}

fn markdown(
    o: &RealOptions,
    cells: &[Cell],
    loopback: &[LoopbackRun],
    args: &[String],
    wall_s: f64,
    load_start: &str,
) -> String {
    let commit = command_text(Path::new("."), "git", &["rev-parse", "--short", "HEAD"])
        .unwrap_or_else(|| "?".into());
    let date = command_text(Path::new("."), "date", &["-u", "+%Y-%m-%d %H:%M UTC"])
        .unwrap_or_else(|| "?".into());
    let mut s = String::new();
    s.push_str(&format!(
        "## Real sockets, side by side (generated)\n\n\
         `cargo xtask bench --real {}` at {commit}, {date}, {wall_s:.0} s on this machine \
         (load average {load_start} at the start, {} at the end).\n\n",
        args.iter()
            .filter(|a| *a != "--real")
            .cloned()
            .collect::<Vec<_>>()
            .join(" "),
        load_average()
    ));
    s.push_str(&format!(
        "Our h3-server (`--cc`) and h3-client through `vegas-link-emu` on loopback, one \
         download at a time, each path's algorithms in turn (reversed every other \
         repetition), {}. The buffer is {} BDP of 1350-byte datagrams (at \
         least {BUFFER_PKTS} packets); the transfer is S seconds of the link's rate. \
         Goodput: the client's own timing, request to last byte (handshake not \
         included), median of the repetitions with their range. Queue: the emulator's \
         down link, time-weighted from its first datagram to its last (mean and 95th \
         percentile, packets waiting); steady queue: its mean over the second half of \
         that span, after slow start's overshoot (the issue's steady state). Drops: the emulator's drop-tail drops; lost: what \
         the server counted lost. `x cubic`: median goodput over CUBIC's on the same \
         path. Sim: `vegas-lab` on the same link, bytes, datagram size and algorithm \
         (no jitter, seed 1), its bottleneck's queue read the same way. Targets (family \
         rows): steady queue in [{}, {}] packets or within 1 packet of the simulator's, \
         goodput at least {GOODPUT_TARGET}x CUBIC's.\n\n",
        o.reps_text(),
        o.buffer_bdps
            .iter()
            .map(|b| b.to_string())
            .collect::<Vec<_>>()
            .join(" or "),
        QUEUE_TARGET_PKTS.0,
        QUEUE_TARGET_PKTS.1,
    ));
    // Totals per algorithm.
    let family: Vec<&String> = o.algorithms.iter().filter(|a| *a != "cubic").collect();
    let mut totals = String::from("| algorithm | paths | queue target met | goodput target met | both |\n|---|---|---|---|---|\n");
    for cc in &family {
        let (mut n, mut q_ok, mut g_ok, mut both) = (0, 0, 0, 0);
        for cell in cells {
            let Some((q, g)) = targets(cell, cc) else {
                continue;
            };
            n += 1;
            q_ok += q as usize;
            g_ok += g as usize;
            both += (q && g) as usize;
        }
        totals.push_str(&format!("| {cc} | {n} | {q_ok} | {g_ok} | {both} |\n"));
    }
    s.push_str("### Targets met\n\n");
    s.push_str(&totals);
    // Noise: the spread of CUBIC's and Vegas's repetitions, the emulator's precision.
    let spread = |cc: &str| {
        let v: Vec<f64> = cells
            .iter()
            .filter_map(|c| {
                let g: Vec<f64> = c.figures(cc).iter().map(|f| f.goodput_mbit).collect();
                let (lo, hi) = g
                    .iter()
                    .fold((f64::MAX, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
                (g.len() >= 2 && lo > 0.0).then(|| hi / lo - 1.0)
            })
            .collect();
        (
            median(v.clone()),
            v.iter()
                .cloned()
                .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x)))),
        )
    };
    let lateness: Vec<f64> = cells
        .iter()
        .flat_map(|c| c.runs.iter())
        .filter_map(|(_, _, r)| r.as_ref().ok()?.lateness_p99_us)
        .collect();
    s.push_str("\n### How noisy these 2 cores are\n\n");
    if o.max_reps() >= 2 {
        for cc in &o.algorithms {
            let (m, x) = spread(cc);
            s.push_str(&format!(
                "- {cc}: the repetitions of a path differ by {}% in goodput (median over \
                 paths of max/min - 1), {}% at most.\n",
                fmt(m.map(|v| v * 100.0), 1),
                fmt(x.map(|v| v * 100.0), 1)
            ));
        }
    } else {
        s.push_str("- One repetition: no spread measured (`--reps 2` or more).\n");
    }
    s.push_str(&format!(
        "- The emulator's timer: a datagram left {} us late at the 99th percentile \
         (median over runs), {} us in the worst run.\n",
        fmt(median(lateness.clone()), 0),
        fmt(lateness.iter().cloned().reduce(f64::max), 0)
    ));
    let kept: Vec<&Figures> = cells
        .iter()
        .flat_map(|c| c.runs.iter())
        .filter_map(|(_, _, r)| r.as_ref().ok())
        .collect();
    s.push_str(&format!(
        "- Late runs (the emulator more than {LATE_P99_US:.0} us late at the 99th \
         percentile, which is more than a Vegas flow's whole queue at 50 Mbit/s): {} \
         attempts repeated (up to {} times each, `--late-repeats`); {} of the {} runs \
         kept are still late, and the targets column marks their rows (and CUBIC's \
         rows beside them) `late`.\n",
        cells.iter().map(|c| c.late.len()).sum::<usize>(),
        o.late_repeats,
        kept.iter().filter(|f| f.late()).count(),
        kept.len()
    ));
    let kernel: Vec<u64> = cells
        .iter()
        .flat_map(|c| c.runs.iter())
        .filter_map(|(_, _, r)| r.as_ref().ok()?.kernel_drops)
        .collect();
    if !kernel.is_empty() {
        s.push_str(&format!(
            "- The kernel: {} datagrams dropped at full socket receive buffers over the {} \
             emulator runs (all processes; `/proc/net/snmp` RcvbufErrors), {} runs with any, \
             {} at most in one. Every socket asks for 4 MiB (`--socket-buffer-kb`).\n",
            kernel.iter().sum::<u64>(),
            kernel.len(),
            kernel.iter().filter(|&&d| d > 0).count(),
            kernel.iter().max().copied().unwrap_or(0)
        ));
    }
    for &seconds in &o.seconds {
        for &bdp in &o.buffer_bdps {
            s.push_str(&format!(
                "\n### {seconds} s transfers, {bdp} BDP buffers\n\n"
            ));
            s.push_str(
                "| path | algorithm | goodput Mbit/s (range) | x cubic | mean queue | p95 queue | steady queue | drops | lost | slow-start exit: s, window x BDP | sim goodput | sim mean queue | sim p95 | sim steady queue | targets |\n\
                 |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
            );
            for cell in cells
                .iter()
                .filter(|c| c.path.seconds == seconds && c.path.buffer_bdp == bdp)
            {
                for cc in &o.algorithms {
                    let figs = cell.figures(cc);
                    let g: Vec<f64> = figs.iter().map(|f| f.goodput_mbit).collect();
                    let range = if g.len() >= 2 {
                        format!(
                            " ({:.1}-{:.1})",
                            g.iter().cloned().fold(f64::MAX, f64::min),
                            g.iter().cloned().fold(0.0, f64::max)
                        )
                    } else {
                        String::new()
                    };
                    let failed = cell
                        .runs
                        .iter()
                        .filter(|(c, _, r)| c == cc && r.is_err())
                        .count();
                    let ratio = cell
                        .median(cc, |f| f.goodput_mbit)
                        .zip(cell.median("cubic", |f| f.goodput_mbit))
                        .map(|(a, b)| a / b);
                    let sim = cell.sim(cc);
                    let target = if cc == "cubic" {
                        String::new()
                    } else {
                        let late = [cc.as_str(), "cubic"]
                            .iter()
                            .any(|a| cell.figures(a).iter().any(Figures::late));
                        match targets(cell, cc) {
                            Some((q, g)) => format!(
                                "queue {}, goodput {}{}",
                                if q { "yes" } else { "**no**" },
                                if g { "yes" } else { "**no**" },
                                if late { ", late" } else { "" }
                            ),
                            None => "-".into(),
                        }
                    };
                    s.push_str(&format!(
                        "| {} Mbit/s x {} ms | {cc} | {}{range}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {target} |\n",
                        cell.path.rate_mbit,
                        cell.path.rtt_ms,
                        fmt(median(g.clone()), 1),
                        if failed > 0 { format!(", {failed} failed") } else { String::new() },
                        fmt(ratio, 2),
                        fmt(cell.median(cc, |f| f.queue_mean), 1),
                        fmt(cell.median(cc, |f| f.queue_p95), 0),
                        fmt(cell.median(cc, |f| f.steady_queue_mean), 1),
                        fmt(cell.median(cc, |f| f.drops as f64), 0),
                        fmt(cell.median(cc, |f| f.lost as f64), 0),
                        exit_text(cell, cc),
                        fmt(sim.map(|f| f.goodput_mbit), 1),
                        fmt(sim.map(|f| f.queue_mean), 1),
                        fmt(sim.map(|f| f.queue_p95), 0),
                        fmt(sim.map(|f| f.steady_queue_mean), 1),
                    ));
                }
            }
        }
    }
    let exits = under_read_exits(cells);
    s.push_str(&format!(
        "\n### Slow-start exits under {UNDER_READ_EXIT} of the pipe\n\n\
         From each family run's decision records (the `vegas:` events of the server's \
         qlog, kept in `target/bench-real/decisions/<run>.jsonl`): when slow start ended \
         (qlog time from the connection's start), why, the window it had reached and the \
         window it left (x BDP; the pipe re-read's where the round after the exit raised \
         it), the window reductions and switches to competitive mode in the whole run.\n\n"
    ));
    if exits.is_empty() {
        s.push_str(
            "None: every family run that recorded its decisions left at least that window.\n",
        );
    } else {
        s.push_str(
            "| path | algorithm | rep | goodput Mbit/s | exit | cause | reached x BDP | left x BDP | re-read | reductions | to competitive |\n\
             |---|---|---|---|---|---|---|---|---|---|---|\n",
        );
        s.push_str(&exits);
    }
    if !loopback.is_empty() {
        s.push_str("\n### Loopback (no emulator)\n\n");
        s.push_str("| algorithm | goodput Mbit/s per repetition | median | x cubic | lost per repetition | kernel drops per repetition |\n|---|---|---|---|---|---|\n");
        let med = |cc: &str| {
            median(
                loopback
                    .iter()
                    .filter(|(c, _, _)| c == cc)
                    .filter_map(|(_, _, r)| r.as_ref().ok().map(|(g, _, _)| *g))
                    .collect(),
            )
        };
        for cc in ["vegas", "cubic"] {
            let runs: Vec<&Result<LoopbackFigures, String>> = loopback
                .iter()
                .filter(|(c, _, _)| c == cc)
                .map(|(_, _, r)| r)
                .collect();
            let show = |f: &dyn Fn(&LoopbackFigures) -> String| {
                runs.iter()
                    .map(|r| r.as_ref().map_or("failed".into(), f))
                    .collect::<Vec<_>>()
                    .join(" / ")
            };
            s.push_str(&format!(
                "| {cc} | {} | {} | {} | {} | {} |\n",
                show(&|(g, _, _)| format!("{g:.0}")),
                fmt(med(cc), 0),
                fmt(med(cc).zip(med("cubic")).map(|(a, b)| a / b), 2),
                show(&|(_, l, _)| l.to_string()),
                show(&|(_, _, k)| k.map_or("?".into(), |v| v.to_string())),
            ));
        }
    }
    s
}

/// The window slow start left over the pipe, median over the runs of
/// `cc` on `cell` that recorded it (the pipe re-read's window where the
/// round after the exit raised it).
fn exit_window_bdp(cell: &Cell, cc: &str) -> Option<f64> {
    median(
        cell.figures(cc)
            .iter()
            .filter_map(|f| f.decisions.as_ref()?.window_left_bytes())
            .map(|w| w / cell.path.bdp_bytes())
            .collect(),
    )
}

/// When slow start ended (median s from the connection's start) and the
/// window it left over the pipe ([`exit_window_bdp`]), or `-`.
fn exit_text(cell: &Cell, cc: &str) -> String {
    let exit_s = median(
        cell.figures(cc)
            .iter()
            .filter_map(|f| f.decisions.as_ref()?.exit_ms)
            .map(|ms| ms / 1e3)
            .collect(),
    );
    match (exit_s, exit_window_bdp(cell, cc)) {
        (None, None) => "-".into(),
        (t, w) => format!("{}, {}", fmt(t, 2), fmt(w, 2)),
    }
}

/// The runs whose slow start left the window under [`UNDER_READ_EXIT`] of
/// the pipe, each with what its decision records say.
fn under_read_exits(cells: &[Cell]) -> String {
    let mut s = String::new();
    for cell in cells {
        let bdp = cell.path.bdp_bytes();
        let cubic = cell.median("cubic", |f| f.goodput_mbit);
        for (cc, rep, r) in &cell.runs {
            let Ok(f) = r else { continue };
            let Some(d) = &f.decisions else { continue };
            let Some(left) = d.window_left_bytes() else {
                continue;
            };
            if left >= UNDER_READ_EXIT * bdp {
                continue;
            }
            s.push_str(&format!(
                "| {} | {cc} | {rep} | {:.1} ({} x cubic) | {} ms | {} | {} | {:.2} | {} | {} | {} |\n",
                cell.path.name(),
                f.goodput_mbit,
                fmt(cubic.map(|c| f.goodput_mbit / c), 2),
                fmt(d.exit_ms, 0),
                d.exit_cause.as_deref().unwrap_or("-"),
                fmt(d.exit_cwnd_bytes.map(|w| w / bdp), 2),
                left / bdp,
                if d.recheck_bytes.is_some() { "yes" } else { "no" },
                d.reductions,
                d.to_competitive,
            ));
        }
    }
    s
}

/// (queue target met, goodput target met) of `cc` on a cell with figures.
fn targets(cell: &Cell, cc: &str) -> Option<(bool, bool)> {
    let queue = cell.median(cc, |f| f.steady_queue_mean)?;
    let ratio = cell.median(cc, |f| f.goodput_mbit)? / cell.median("cubic", |f| f.goodput_mbit)?;
    let near_sim = cell
        .sim(cc)
        .is_some_and(|s| (queue - s.steady_queue_mean).abs() <= 1.0);
    let in_band = (QUEUE_TARGET_PKTS.0..=QUEUE_TARGET_PKTS.1).contains(&queue);
    Some((in_band || near_sim, ratio >= GOODPUT_TARGET))
}

fn json(o: &RealOptions, cells: &[Cell], loopback: &[LoopbackRun]) -> serde_json::Value {
    let cells: Vec<serde_json::Value> = cells
        .iter()
        .map(|c| {
            let runs: Vec<serde_json::Value> = c
                .runs
                .iter()
                .map(|(cc, rep, r)| match r {
                    Ok(f) => serde_json::json!({
                        "algorithm": cc, "rep": rep, "goodput_mbit": f.goodput_mbit,
                        "queue_mean_pkts": f.queue_mean, "queue_p95_pkts": f.queue_p95,
                        "steady_queue_mean_pkts": f.steady_queue_mean,
                        "drops": f.drops, "lost": f.lost, "emulator_p99_us": f.lateness_p99_us,
                        "kernel_receive_buffer_drops": f.kernel_drops,
                        "decisions": f.decisions.as_ref().map(|d| serde_json::json!({
                            "rounds": d.rounds, "exit_ms": d.exit_ms, "exit_cause": d.exit_cause,
                            "exit_cwnd_bytes": d.exit_cwnd_bytes,
                            "after_exit_bytes": d.after_exit_bytes,
                            "recheck_bytes": d.recheck_bytes,
                            "reductions": d.reductions, "to_competitive": d.to_competitive,
                        })),
                    }),
                    Err(e) => serde_json::json!({"algorithm": cc, "rep": rep, "error": e}),
                })
                .collect();
            let sim: Vec<serde_json::Value> = c
                .sim
                .iter()
                .map(|(cc, r)| match r {
                    Ok(f) => serde_json::json!({
                        "algorithm": cc, "goodput_mbit": f.goodput_mbit,
                        "queue_mean_pkts": f.queue_mean, "queue_p95_pkts": f.queue_p95,
                        "steady_queue_mean_pkts": f.steady_queue_mean,
                        "drops": f.drops,
                    }),
                    Err(e) => serde_json::json!({"algorithm": cc, "error": e}),
                })
                .collect();
            serde_json::json!({
                "rate_mbit": c.path.rate_mbit, "rtt_ms": c.path.rtt_ms,
                "buffer_bdp": c.path.buffer_bdp, "buffer_pkts": c.path.cell().buffer_pkts,
                "seconds": c.path.seconds, "bytes": c.path.cell().bytes,
                "runs": runs, "sim": sim,
                "late_attempts": c.late.iter().map(|(cc, rep, f)| serde_json::json!({
                    "algorithm": cc, "rep": rep, "goodput_mbit": f.goodput_mbit,
                    "steady_queue_mean_pkts": f.steady_queue_mean,
                    "emulator_p99_us": f.lateness_p99_us,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let loopback: Vec<serde_json::Value> = loopback
        .iter()
        .map(|(cc, rep, r)| match r {
            Ok((g, lost, kernel)) => serde_json::json!({
                "algorithm": cc, "rep": rep, "goodput_mbit": g, "lost": lost,
                "kernel_receive_buffer_drops": kernel,
            }),
            Err(e) => serde_json::json!({"algorithm": cc, "rep": rep, "error": e}),
        })
        .collect();
    serde_json::json!({
        "reps": o.reps, "algorithms": o.algorithms, "cells": cells, "loopback": loopback,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(t_ms: f64, queue: u64) -> Event {
        Event {
            t_ms,
            kind: '+',
            bytes: 1350,
            queue,
            flow: 0,
        }
    }

    #[test]
    fn the_queue_quantile_weighs_levels_by_time() {
        // 0 for 90 ms, 10 for 10 ms: p95 is 10, p50 is 0.
        let events = [ev(0.0, 0), ev(90.0, 10), ev(100.0, 0)];
        assert_eq!(queue_quantile(&events, 0.0, 100.0, 0.95), 10.0);
        assert_eq!(queue_quantile(&events, 0.0, 100.0, 0.5), 0.0);
    }

    #[test]
    fn the_steady_queue_is_the_mean_over_the_second_half_of_service() {
        // Service from 0 to 100 ms; a slow-start spike of 1000 packets
        // from 10 to 20 ms, then 3: the whole span's mean is the spike's,
        // the steady mean (50-100 ms) is 3.
        let served = |t_ms| Event {
            kind: '-',
            ..ev(t_ms, 3)
        };
        let events = [served(0.0), ev(10.0, 1000), ev(20.0, 3), served(100.0)];
        assert!((steady_queue_mean(&events) - 3.0).abs() < 1e-9);
        assert!(
            steady_queue_mean(&[ev(0.0, 3)]).is_nan(),
            "no datagram served"
        );
        let (whole, _) = queue_over(&events, 0.0, 100.0);
        let expected = (3.0 * 10.0 + 1000.0 * 10.0 + 3.0 * 80.0) / 100.0;
        assert!((whole - expected).abs() < 1e-9, "{whole}");
    }

    #[test]
    fn bad_options_name_the_flag_and_what_is_allowed() {
        let err = |a: &[&str]| {
            parse(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .err()
                .unwrap()
        };
        let e = err(&["--rates", "10,x"]);
        assert!(e.contains("--rates `x`") && e.contains("[1, 1000]"), "{e}");
        let e = err(&["--algorithms", "vegas,bogus"]);
        assert!(e.contains("`bogus`") && e.contains("gallop-vegas"), "{e}");
        let e = err(&["--reps", "0"]);
        assert!(e.contains("--reps `0`"), "{e}");
        let e = err(&["--seconds", "4,30", "--reps", "2,1,3"]);
        assert!(e.contains("3 counts for 2 --seconds entries"), "{e}");
        let e = err(&["--late-repeats", "9"]);
        assert!(
            e.contains("--late-repeats `9`") && e.contains("[0, 5]"),
            "{e}"
        );
        let e = err(&["--frobnicate"]);
        assert!(e.contains("unknown option `--frobnicate`"), "{e}");
    }

    fn figures(lateness_p99_us: Option<f64>) -> Figures {
        Figures {
            goodput_mbit: 1.0,
            queue_mean: 0.0,
            queue_p95: 0.0,
            steady_queue_mean: 0.0,
            drops: 0,
            lost: 0,
            lateness_p99_us,
            kernel_drops: None,
            decisions: None,
        }
    }

    #[test]
    fn a_slow_start_exit_under_nine_tenths_of_the_pipe_is_listed_with_its_records() {
        // 10 Mbit/s x 80 ms: a pipe of 100,000 bytes.
        let path = Path_ {
            rate_mbit: 10.0,
            rtt_ms: 80.0,
            buffer_bdp: 1.0,
            seconds: 4.0,
        };
        let run = |left: f64, recheck: Option<f64>| {
            let mut f = figures(None);
            f.decisions = Some(Decisions {
                rounds: 50,
                exit_ms: Some(640.0),
                exit_cause: Some("diff_above_gamma".into()),
                exit_cwnd_bytes: Some(150_000.0),
                after_exit_bytes: Some(left),
                recheck_bytes: recheck,
                reductions: 0,
                to_competitive: 0,
            });
            f
        };
        let cell = Cell {
            path,
            runs: vec![
                ("vegas".into(), 0, Ok(run(60_000.0, None))),
                // Under the pipe at the exit, raised by the re-read.
                ("vegas".into(), 1, Ok(run(60_000.0, Some(100_000.0)))),
                ("vegas-a".into(), 0, Ok(run(89_000.0, None))),
                ("vegas-a".into(), 1, Ok(run(90_000.0, None))),
                ("cubic".into(), 0, Ok(figures(None))),
            ],
            late: Vec::new(),
            sim: Vec::new(),
        };
        assert_eq!(exit_window_bdp(&cell, "vegas"), Some((0.6 + 1.0) / 2.0));
        assert_eq!(exit_window_bdp(&cell, "cubic"), None);
        assert_eq!(exit_text(&cell, "vegas"), "0.64, 0.80");
        assert_eq!(exit_text(&cell, "cubic"), "-");
        let rows = under_read_exits(std::slice::from_ref(&cell));
        let rows: Vec<&str> = rows.lines().collect();
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert!(rows[0].contains("| vegas | 0 |") && rows[0].contains("| 0.60 | no |"));
        assert!(rows[0].contains("| 640 ms | diff_above_gamma | 1.50 |"));
        assert!(rows[1].contains("| vegas-a | 0 |") && rows[1].contains("| 0.89 |"));
    }

    #[test]
    fn a_run_late_by_more_than_a_millisecond_is_repeated_a_bounded_number_of_times() {
        let late = Ok(figures(Some(4_000.0)));
        let on_time = Ok(figures(Some(250.0)));
        assert!(repeat_late_run(&late, 0, 2));
        assert!(repeat_late_run(&late, 1, 2));
        assert!(!repeat_late_run(&late, 2, 2), "kept after two repeats");
        assert!(
            !repeat_late_run(&late, 0, 0),
            "--late-repeats 0 keeps every run"
        );
        assert!(!repeat_late_run(&on_time, 0, 2));
        assert!(
            !repeat_late_run(&Ok(figures(None)), 0, 2),
            "no lateness measured"
        );
        assert!(!repeat_late_run(&Err("failed".into()), 0, 2));
        assert!(figures(Some(LATE_P99_US + 1.0)).late() && !figures(Some(LATE_P99_US)).late());
    }

    #[test]
    fn repetitions_can_be_counted_per_transfer_length() {
        let parsed = |a: &[&str]| {
            parse(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .unwrap()
                .unwrap()
        };
        let o = parsed(&["--seconds", "4,30", "--reps", "2,1"]);
        assert_eq!((o.reps_for(4.0), o.reps_for(30.0), o.max_reps()), (2, 1, 2));
        assert_eq!(
            o.reps_text(),
            "2 repetition(s) of the 4 s transfers, 1 repetition(s) of the 30 s transfers"
        );
        let o = parsed(&["--seconds", "4,30", "--reps", "3"]);
        assert_eq!((o.reps_for(4.0), o.reps_for(30.0)), (3, 3));
    }

    #[test]
    fn the_report_replaces_only_its_own_part_of_the_doc() {
        let dir = std::env::temp_dir().join(format!("bench-real-doc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let doc = dir.join("real-rates.md");
        std::fs::write(&doc, "# Notes\n\nhand-written\n").unwrap();
        crate::write_generated_section(&doc, "bench --real", "first").unwrap();
        crate::write_generated_section(&doc, "bench --real", "second").unwrap();
        let text = std::fs::read_to_string(&doc).unwrap();
        assert!(text.starts_with("# Notes\n\nhand-written\n"), "{text}");
        assert!(text.contains("second") && !text.contains("first"), "{text}");
        let start = "<!-- cargo xtask bench --real: generated from here -->";
        assert_eq!(text.matches(start).count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
