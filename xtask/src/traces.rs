//! `cargo xtask bench --traces DIR`: throughput against delay on recorded
//! cellular links, in the simulator, written to `docs/real-links.md` (and
//! one picture per trace in `docs/real-links/`).
//!
//! For every mahimahi trace pair `NAME.down` / `NAME.up` in DIR: one flow
//! of each scheme (the Vegas family with its defaults, quiche's `cubic`,
//! `bbr2` and `reno`, vegas-cc's `newreno`) downloads over the whole trace
//! (one repetition of `NAME.down`) with `NAME.down` serving the bottleneck
//! and `NAME.up` the reverse (ACK) link, at a minimum one-way delay of 20
//! and 50 ms, behind drop-tail buffers of 100 packets and of 4 x (the
//! trace's mean rate x the minimum RTT) in 1500-byte packets, the same on
//! both links; the receiver ACKs every second packet.
//!
//! Per run: the flow's goodput (stream bytes delivered over its lifetime),
//! the share of the trace's capacity the bottleneck delivered, the mean and
//! 95th percentile of the per-packet delay through the bottleneck (from
//! reaching its queue to reaching its far end, propagation included: the
//! one-way delay Pantheon plots), drops. Per trace, one picture in
//! Pantheon's style: throughput against p95 delay, the delay axis reversed
//! so that better is up and to the right.
//!
//! Targets (issue "Cellular links"): vegas on the frontier (no other scheme
//! both faster and with a lower p95 delay), and vegas's p95 delay at most
//! 0.25x cubic's with at least 0.8x its throughput.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::path::PathBuf;

use plotters::prelude::*;
use serde_json::Value;

use crate::interop::trace_run::TracePath;
use crate::interop::trace_run::TraceRun;
use crate::interop::trace_run::TraceRunner;
use crate::lab_runs::parse_jobs;
use crate::lab_runs::run_all;
use crate::lab_runs::run_one;
use crate::lab_runs::Scenario;
use crate::root;
use crate::Result;

const SCHEMES: [&str; 7] = [
    "vegas",
    "vegas-a",
    "gallop-vegas",
    "cubic",
    "bbr2",
    "reno",
    "newreno",
];
/// Bytes of one delivery opportunity (mahimahi's MTU-sized packet), the
/// unit of the BDP buffer.
const OPPORTUNITY_BYTES: f64 = 1500.0;
/// The goal beside cubic (issue "Cellular links").
const DELAY_GOAL_X_CUBIC: f64 = 0.25;
const THROUGHPUT_GOAL_X_CUBIC: f64 = 0.8;

/// A buffer: packets, or a multiple of the trace's BDP.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Buffer {
    Packets(u64),
    Bdp(f64),
}

impl Buffer {
    fn parse(text: &str) -> Result<Buffer> {
        let bad = || {
            format!("--buffers: `{text}` is neither a packet count (e.g. 100) nor a BDP multiple (e.g. 4bdp)")
        };
        if let Some(x) = text.strip_suffix("bdp") {
            let x: f64 = x.parse().map_err(|_| bad())?;
            if !(x > 0.0 && x <= 100.0) {
                return Err(format!("--buffers: `{text}`: a BDP multiple from 0 to 100"));
            }
            return Ok(Buffer::Bdp(x));
        }
        match text.parse::<u64>() {
            Ok(n) if (1..=1_000_000).contains(&n) => Ok(Buffer::Packets(n)),
            Ok(_) => Err(format!("--buffers: `{text}`: from 1 to 1000000 packets")),
            Err(_) => Err(bad()),
        }
    }

    fn label(&self) -> String {
        match self {
            Buffer::Packets(n) => format!("{n} pkts"),
            Buffer::Bdp(x) => format!("{x} BDP"),
        }
    }

    fn packets(&self, trace: &TraceInfo, one_way_ms: f64) -> u64 {
        match *self {
            Buffer::Packets(n) => n,
            Buffer::Bdp(x) => {
                let bdp = trace.mean_rate_mbit * 1e6 / 8.0 * (2.0 * one_way_ms / 1000.0)
                    / OPPORTUNITY_BYTES;
                ((x * bdp).round() as u64).max(2)
            }
        }
    }
}

struct Options {
    dir: PathBuf,
    delays_ms: Vec<f64>,
    buffers: Vec<Buffer>,
    schemes: Vec<String>,
    /// Run length; None: one repetition of each trace.
    seconds: Option<f64>,
    jobs: usize,
    /// Real-socket downloads (vegas, cubic) per scheme on the first trace.
    real_reps: usize,
}

fn list<T>(flag: &str, text: Option<&String>, parse: impl Fn(&str) -> Result<T>) -> Result<Vec<T>> {
    let text = text.ok_or(format!("{flag} needs a comma-separated list"))?;
    let items: Vec<T> = text
        .split(',')
        .map(|t| parse(t.trim()))
        .collect::<Result<_>>()?;
    if items.is_empty() {
        return Err(format!("{flag}: empty list"));
    }
    Ok(items)
}

impl Options {
    fn parse(args: &[String]) -> Result<Options> {
        let mut o = Options {
            dir: PathBuf::new(),
            delays_ms: vec![20.0, 50.0],
            buffers: vec![Buffer::Packets(100), Buffer::Bdp(4.0)],
            schemes: SCHEMES.map(String::from).to_vec(),
            seconds: None,
            jobs: 2,
            real_reps: 1,
        };
        let mut dir = None;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--traces" => dir = Some(it.next().ok_or("--traces needs a folder of mahimahi traces, e.g. ../shared/traces")?),
                "--delays-ms" => {
                    o.delays_ms = list(a, it.next(), |t| match t.parse::<f64>() {
                        Ok(ms) if (0.0..=10_000.0).contains(&ms) => Ok(ms),
                        _ => Err(format!("--delays-ms: `{t}` is not a one-way delay from 0 to 10000 ms")),
                    })?
                }
                "--buffers" => o.buffers = list(a, it.next(), Buffer::parse)?,
                "--schemes" => {
                    o.schemes = list(a, it.next(), |t| {
                        if SCHEMES.contains(&t) {
                            Ok(t.to_string())
                        } else {
                            Err(format!("--schemes: `{t}`; allowed: {}", SCHEMES.join(", ")))
                        }
                    })?
                }
                "--seconds" => {
                    let v = it.next().ok_or("--seconds needs a run length in seconds")?;
                    o.seconds = Some(
                        v.parse::<f64>()
                            .ok()
                            .filter(|s| *s > 0.0 && *s <= 86_400.0)
                            .ok_or(format!("--seconds: `{v}` is not a run length from 0 to 86400 s"))?,
                    );
                }
                "--real-reps" => {
                    o.real_reps = it
                        .next()
                        .and_then(|v| v.parse().ok())
                        .filter(|n| *n <= 10)
                        .ok_or("--real-reps needs a number of real-socket downloads per scheme, 0 to 10")?
                }
                "--jobs" => o.jobs = parse_jobs(it.next())?,
                other => {
                    return Err(format!(
                        "bench --traces: unknown option `{other}`; allowed: --traces DIR, \
                         --delays-ms 20,50, --buffers 100,4bdp, --schemes {}, --seconds S, --real-reps N, --jobs N",
                        SCHEMES.join(",")
                    ))
                }
            }
        }
        o.dir =
            PathBuf::from(dir.ok_or("bench --traces needs a folder: --traces ../shared/traces")?);
        Ok(o)
    }

    /// The default grid, which alone regenerates `docs/real-links.md`.
    fn is_default_grid(&self) -> bool {
        self.delays_ms == [20.0, 50.0]
            && self.buffers == [Buffer::Packets(100), Buffer::Bdp(4.0)]
            && self.schemes == SCHEMES
            && self.seconds.is_none()
            && self.real_reps == 1
    }
}

/// A trace pair and what the benchmark needs of it (the simulator checks
/// the files themselves).
pub(crate) struct TraceInfo {
    pub(crate) name: String,
    pub(crate) down: PathBuf,
    pub(crate) up: PathBuf,
    period_s: f64,
    mean_rate_mbit: f64,
    /// Gaps between opportunities of at least [`OUTAGE_MS`]: how many, and
    /// their total length in s.
    outages: (usize, f64),
}

/// A gap between delivery opportunities this long is an outage: every
/// packet in flight waits it out, whatever the sender does.
const OUTAGE_MS: u64 = 100;

/// A trace file's period (s), mean rate (Mbit/s) and outages.
fn period_rate_outages(path: &Path) -> Result<(f64, f64, (usize, f64))> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let ms: Vec<u64> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| l.parse::<u64>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|e| format!("{}: not a mahimahi trace ({e})", path.display()))?;
    let last_ms = *ms.last().filter(|ms| **ms > 0).ok_or(format!(
        "{}: not a mahimahi trace (no last timestamp)",
        path.display()
    ))?;
    let mbit = ms.len() as f64 * OPPORTUNITY_BYTES * 8.0 / (last_ms as f64 / 1000.0) / 1e6;
    let gaps: Vec<u64> = ms
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]))
        .filter(|g| *g >= OUTAGE_MS)
        .collect();
    let outages = (gaps.len(), gaps.iter().sum::<u64>() as f64 / 1000.0);
    Ok((last_ms as f64 / 1000.0, mbit, outages))
}

pub(crate) fn discover(dir: &Path) -> Result<Vec<TraceInfo>> {
    let entries = fs::read_dir(dir).map_err(|e| format!("--traces {}: {e}", dir.display()))?;
    let mut traces = Vec::new();
    for entry in entries.flatten() {
        let down = entry.path();
        if down.extension().and_then(|e| e.to_str()) != Some("down") {
            continue;
        }
        let up = down.with_extension("up");
        if !up.exists() {
            return Err(format!("{}: no {} beside it", down.display(), up.display()));
        }
        let (period_s, mean_rate_mbit, outages) = period_rate_outages(&down)?;
        let name = down
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("trace")
            .to_string();
        traces.push(TraceInfo {
            name,
            down: fs::canonicalize(&down).unwrap_or(down),
            up: fs::canonicalize(&up).unwrap_or(up),
            period_s,
            mean_rate_mbit,
            outages,
        });
    }
    traces.sort_by(|a, b| a.name.cmp(&b.name));
    if traces.is_empty() {
        return Err(format!(
            "--traces {}: no NAME.down / NAME.up pair",
            dir.display()
        ));
    }
    Ok(traces)
}

struct Cell {
    trace: usize,
    delay_ms: f64,
    buffer: Buffer,
    buffer_pkts: u64,
    scheme: String,
    seconds: f64,
}

/// The cell's scenario; `bytes`: the flow sends that many bytes (within
/// the cell's seconds) instead of sending for the cell's seconds.
fn scenario_text(t: &TraceInfo, c: &Cell, bytes: Option<u64>) -> String {
    let amount = match bytes {
        Some(b) => format!("bytes = {b}"),
        None => format!("duration = \"{}s\"", c.seconds),
    };
    format!(
        "name = \"trace-{name}-{delay}ms-{buffer}pkts-{scheme}\"\n\
         duration = \"{secs}s\"\n\
         [bottleneck]\ntrace = \"{down}\"\ndelay = \"{delay}ms\"\nbuffer_pkts = {buffer}\n\
         [reverse]\ntrace = \"{up}\"\nbuffer_pkts = {buffer}\n\
         [[flows]]\nalgorithm = \"{scheme}\"\n{amount}\n",
        name = t.name,
        delay = c.delay_ms,
        buffer = c.buffer_pkts,
        scheme = c.scheme,
        secs = c.seconds,
        down = t.down.display(),
        up = t.up.display(),
    )
}

/// Real sockets on the first trace: each download's length.
const REAL_TARGET_S: f64 = 60.0;
/// The share of the trace's mean rate the download's size assumes (about
/// cubic's in the simulator, so that its download lasts about a minute).
const REAL_FILL: f64 = 0.7;
const REAL_SCHEMES: [&str; 2] = ["vegas", "cubic"];

/// The real-socket section: the path, the bytes, each download, and the
/// simulator on the same path with the same bytes.
struct RealSection {
    trace: String,
    delay_ms: f64,
    buffer_pkts: u64,
    bytes: u64,
    runs: Vec<(String, TraceRun)>,
    sim: Vec<(String, Figures, f64)>,
}

fn real_section(o: &Options, t: &TraceInfo, lab: &Path, out: &Path) -> Result<RealSection> {
    let (delay_ms, buffer) = (o.delays_ms[0], o.buffers[0]);
    let buffer_pkts = buffer.packets(t, delay_ms);
    let bytes = (t.mean_rate_mbit * 1e6 / 8.0 * REAL_TARGET_S * REAL_FILL) as u64;
    let path = TracePath {
        down: t.down.clone(),
        up: t.up.clone(),
        delay_ms,
        buffer_pkts,
    };
    let runner = TraceRunner::new(&root(), &out.join("real"))?;
    let mut runs = Vec::new();
    for rep in 0..o.real_reps {
        for cc in REAL_SCHEMES {
            eprintln!(
                "bench --traces: real sockets, {cc} over {} ({bytes} bytes)",
                t.name
            );
            let run = runner.download(&path, cc, bytes, &format!("{cc}-{rep}"))?;
            runs.push((cc.to_string(), run));
        }
    }
    let mut sim = Vec::new();
    for (i, cc) in REAL_SCHEMES.iter().enumerate() {
        let cell = Cell {
            trace: 0,
            delay_ms,
            buffer,
            buffer_pkts,
            scheme: cc.to_string(),
            seconds: t.period_s,
        };
        let v = run_one(
            lab,
            out,
            10_000 + i,
            &Scenario::Text(scenario_text(t, &cell, Some(bytes))),
        )?;
        let transfer_s = v["flows"][0]["completion_s"].as_f64().unwrap_or(f64::NAN);
        sim.push((cc.to_string(), figures(&v), transfer_s));
    }
    Ok(RealSection {
        trace: t.name.clone(),
        delay_ms,
        buffer_pkts,
        bytes,
        runs,
        sim,
    })
}

/// One run's figures.
#[derive(Clone, Debug, Default)]
struct Figures {
    throughput_mbit: f64,
    capacity_used: f64,
    mean_delay_ms: f64,
    p95_delay_ms: f64,
    drops: u64,
}

fn figures(v: &Value) -> Figures {
    let link = &v["links"][0];
    Figures {
        throughput_mbit: v["flows"][0]["goodput_bps"].as_f64().unwrap_or(0.0) / 1e6,
        capacity_used: link["trace_capacity_used"].as_f64().unwrap_or(0.0),
        mean_delay_ms: link["mean_delay_ms"].as_f64().unwrap_or(f64::NAN),
        p95_delay_ms: link["p95_delay_ms"].as_f64().unwrap_or(f64::NAN),
        drops: link["drops"].as_u64().unwrap_or(0),
    }
}

pub fn run(args: &[String]) -> Result<()> {
    let o = Options::parse(args)?;
    let traces = discover(&o.dir)?;
    let lab = crate::build_lab()?;
    let mut cells = Vec::new();
    for (i, t) in traces.iter().enumerate() {
        for &delay_ms in &o.delays_ms {
            for &buffer in &o.buffers {
                for scheme in &o.schemes {
                    cells.push(Cell {
                        trace: i,
                        delay_ms,
                        buffer,
                        buffer_pkts: buffer.packets(t, delay_ms),
                        scheme: scheme.clone(),
                        seconds: o.seconds.unwrap_or(t.period_s),
                    });
                }
            }
        }
    }
    let out = root().join("target/bench-traces");
    fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let scenarios: Vec<Scenario> = cells
        .iter()
        .map(|c| Scenario::Text(scenario_text(&traces[c.trace], c, None)))
        .collect();
    let refs: Vec<&Scenario> = scenarios.iter().collect();
    let started = std::time::Instant::now();
    let results = run_all(&lab, &out, &refs, o.jobs, "bench --traces")?;
    let wall_s = started.elapsed().as_secs_f64();
    let figs: Vec<Figures> = results.iter().map(figures).collect();
    let (doc, pictures) = if o.is_default_grid() {
        (
            root().join("docs/real-links.md"),
            root().join("docs/real-links"),
        )
    } else {
        (out.join("REPORT.md"), out.join("pictures"))
    };
    fs::create_dir_all(&pictures).map_err(|e| format!("{}: {e}", pictures.display()))?;
    let mut picture_names = Vec::new();
    for (i, t) in traces.iter().enumerate() {
        let path = pictures.join(format!("{}.svg", t.name));
        draw(&path, t, &o, &cells, &figs, i)?;
        picture_names.push(format!(
            "{}/{}.svg",
            pictures
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("pictures"),
            t.name
        ));
    }
    let real = if o.real_reps > 0 {
        Some(real_section(&o, &traces[0], &lab, &out)?)
    } else {
        None
    };
    let mut text = report(&o, args, &traces, &cells, &figs, &picture_names, wall_s);
    if let Some(real) = &real {
        text.push_str(&real_markdown(real));
    }
    crate::write_generated_section(&doc, "bench --traces", &text)?;
    eprintln!(
        "bench --traces: wrote {} and {}",
        doc.display(),
        pictures.display()
    );
    Ok(())
}

/// The cells of one (trace, delay, buffer) panel, with their figures.
fn panel<'a>(
    cells: &'a [Cell],
    figs: &'a [Figures],
    trace: usize,
    delay_ms: f64,
    buffer: Buffer,
) -> Vec<(&'a Cell, &'a Figures)> {
    cells
        .iter()
        .zip(figs)
        .filter(|(c, _)| c.trace == trace && c.delay_ms == delay_ms && c.buffer == buffer)
        .collect()
}

/// How vegas fares in a panel: the schemes both faster and lower-delay,
/// and its delay and throughput over cubic's.
struct Verdict {
    dominated_by: Vec<String>,
    delay_x_cubic: Option<f64>,
    throughput_x_cubic: Option<f64>,
}

impl Verdict {
    fn of(panel: &[(&Cell, &Figures)]) -> Option<Verdict> {
        let find = |s: &str| panel.iter().find(|(c, _)| c.scheme == s).map(|(_, f)| *f);
        let vegas = find("vegas")?;
        let cubic = find("cubic");
        Some(Verdict {
            dominated_by: panel
                .iter()
                .filter(|(c, f)| {
                    c.scheme != "vegas"
                        && f.throughput_mbit > vegas.throughput_mbit
                        && f.p95_delay_ms < vegas.p95_delay_ms
                })
                .map(|(c, _)| c.scheme.clone())
                .collect(),
            delay_x_cubic: cubic.map(|c| vegas.p95_delay_ms / c.p95_delay_ms),
            throughput_x_cubic: cubic.map(|c| vegas.throughput_mbit / c.throughput_mbit),
        })
    }

    fn goal_met(&self) -> Option<bool> {
        Some(
            self.delay_x_cubic? <= DELAY_GOAL_X_CUBIC
                && self.throughput_x_cubic? >= THROUGHPUT_GOAL_X_CUBIC,
        )
    }
}

fn color(scheme: &str) -> RGBColor {
    match scheme {
        "vegas" => RGBColor(0, 90, 200),
        "vegas-a" => RGBColor(60, 150, 230),
        "gallop-vegas" => RGBColor(0, 160, 160),
        "cubic" => RGBColor(210, 40, 40),
        "bbr2" => RGBColor(230, 140, 0),
        "reno" => RGBColor(140, 70, 160),
        _ => RGBColor(110, 110, 110),
    }
}

/// One SVG per trace: a panel per (delay, buffer), throughput against p95
/// delay, the delay axis reversed (better is up and to the right).
fn draw(
    path: &Path,
    t: &TraceInfo,
    o: &Options,
    cells: &[Cell],
    figs: &[Figures],
    trace: usize,
) -> Result<()> {
    let e = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let rows = o.delays_ms.len();
    let cols = o.buffers.len();
    let root_area =
        SVGBackend::new(path, (520 * cols as u32, 400 * rows as u32 + 40)).into_drawing_area();
    root_area.fill(&WHITE).map_err(|x| e(&x))?;
    let root_area = root_area
        .titled(
            &format!(
                "{}: {:.2} Mbit/s mean, {:.0} s (throughput against p95 one-way delay; better is up and right)",
                t.name, t.mean_rate_mbit, t.period_s
            ),
            ("sans-serif", 18),
        )
        .map_err(|x| e(&x))?;
    let areas = root_area.split_evenly((rows, cols));
    for (k, area) in areas.iter().enumerate() {
        let (delay_ms, buffer) = (o.delays_ms[k / cols], o.buffers[k % cols]);
        let points = panel(cells, figs, trace, delay_ms, buffer);
        let Some((first, _)) = points.first() else {
            continue;
        };
        let max_delay = points
            .iter()
            .map(|(_, f)| f.p95_delay_ms)
            .fold(0.0, f64::max);
        let min_delay = points
            .iter()
            .map(|(_, f)| f.p95_delay_ms)
            .fold(f64::MAX, f64::min);
        let max_tput = points
            .iter()
            .map(|(_, f)| f.throughput_mbit)
            .fold(0.0, f64::max);
        let span = (max_delay - min_delay).max(10.0);
        let x = -(max_delay + 0.1 * span)..-(min_delay - 0.35 * span).max(0.0);
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "one-way delay {delay_ms} ms, buffer {} ({} pkts)",
                    buffer.label(),
                    first.buffer_pkts
                ),
                ("sans-serif", 15),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(x, 0.0..max_tput * 1.2 + 0.01)
            .map_err(|x| e(&x))?;
        chart
            .configure_mesh()
            .x_desc("95th percentile one-way delay (ms)")
            .y_desc("throughput (Mbit/s)")
            .x_label_formatter(&|v| format!("{:.0}", (-v).max(0.0)))
            .light_line_style(WHITE)
            .draw()
            .map_err(|x| e(&x))?;
        // The family as circles, the loss-based and BBR schemes as
        // triangles; a legend names each (labels beside close points
        // overlap).
        for (c, f) in &points {
            let at = (-f.p95_delay_ms, f.throughput_mbit);
            let style = color(&c.scheme).filled();
            let series = if c.scheme.contains("vegas") {
                chart.draw_series([EmptyElement::at(at) + Circle::new((0, 0), 6, style)])
            } else {
                chart.draw_series([EmptyElement::at(at) + TriangleMarker::new((0, 0), 7, style)])
            };
            let family = c.scheme.contains("vegas");
            series.map_err(|x| e(&x))?.label(c.scheme.clone()).legend(
                move |(x, y)| -> DynElement<'static, SVGBackend, (i32, i32)> {
                    if family {
                        Circle::new((x + 8, y), 5, style).into_dyn()
                    } else {
                        TriangleMarker::new((x + 8, y), 6, style).into_dyn()
                    }
                },
            );
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 12))
            .draw()
            .map_err(|x| e(&x))?;
    }
    root_area.present().map_err(|x| e(&x))?;
    Ok(())
}

fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "yes",
        Some(false) => "**no**",
        None => "-",
    }
}

fn ratio(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{x:.2}x"))
}

fn report(
    o: &Options,
    args: &[String],
    traces: &[TraceInfo],
    cells: &[Cell],
    figs: &[Figures],
    pictures: &[String],
    wall_s: f64,
) -> String {
    let commit = crate::interop::command_text(&root(), "git", &["rev-parse", "--short", "HEAD"])
        .unwrap_or_else(|| "unknown".into());
    let date = crate::interop::command_text(&root(), "date", &["-u", "+%Y-%m-%d %H:%M UTC"])
        .unwrap_or_default();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Generated by `cargo xtask bench {}` at {commit}, {date}, {} simulator runs in {wall_s:.0} s \
         (two at a time on this 2-core machine). Method: `xtask/src/traces.rs`; the links: \
         `link-model/src/trace.rs` (mahimahi's `mm-link` service, 1500-byte opportunities).\n",
        args.join(" "),
        cells.len()
    );
    let _ = writeln!(
        s,
        "Each run: one flow over one repetition of the trace (its `.down` file serves the \
         bottleneck, its `.up` file the ACK path), the minimum one-way delay below on both, \
         drop-tail buffers of the size below on both links (a BDP is the trace's mean rate x \
         the minimum RTT, in 1500-byte packets), the receiver ACKing every second packet, \
         default parameters. Throughput: the flow's goodput. Capacity used: bytes the \
         bottleneck delivered over the bytes its trace offered. Delay: each packet's time from \
         reaching the bottleneck queue to reaching the far end (propagation included), mean \
         and 95th percentile. The simulator's figures are deterministic: the same command gives the same ones.\n"
    );
    let _ = writeln!(s, "## Targets\n");
    let _ = writeln!(
        s,
        "Vegas on the frontier (no scheme both faster and with a lower p95 delay), and the goal \
         beside cubic: p95 delay at most {DELAY_GOAL_X_CUBIC}x with at least \
         {THROUGHPUT_GOAL_X_CUBIC}x the throughput.\n"
    );
    let _ = writeln!(
        s,
        "| trace | one-way delay | buffer | vegas on the frontier | dominated by | p95 delay / cubic | throughput / cubic | goal met |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    let (mut frontier, mut goal, mut panels) = (0, 0, 0);
    for (i, t) in traces.iter().enumerate() {
        for &d in &o.delays_ms {
            for &b in &o.buffers {
                let p = panel(cells, figs, i, d, b);
                let Some(v) = Verdict::of(&p) else { continue };
                panels += 1;
                frontier += v.dominated_by.is_empty() as usize;
                goal += (v.goal_met() == Some(true)) as usize;
                let _ = writeln!(
                    s,
                    "| {} | {d} ms | {} ({} pkts) | {} | {} | {} | {} | {} |",
                    t.name,
                    b.label(),
                    p[0].0.buffer_pkts,
                    yes_no(Some(v.dominated_by.is_empty())),
                    if v.dominated_by.is_empty() {
                        "-".into()
                    } else {
                        v.dominated_by.join(", ")
                    },
                    ratio(v.delay_x_cubic),
                    ratio(v.throughput_x_cubic),
                    yes_no(v.goal_met()),
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "\nVegas on the frontier in {frontier} of {panels} cells; the goal beside cubic met in {goal} of {panels}.\n"
    );
    for (i, t) in traces.iter().enumerate() {
        let _ = writeln!(
            s,
            "## {}\n\n{:.2} Mbit/s mean over {:.0} s (`{}`); {} outages of {OUTAGE_MS} ms or more \
             (no delivery opportunity), {:.1} s in all ({:.0}% of the trace).\n\n\
             ![{} throughput against delay]({})\n",
            t.name,
            t.mean_rate_mbit,
            t.period_s,
            t.down.file_name().and_then(|n| n.to_str()).unwrap_or(""),
            t.outages.0,
            t.outages.1,
            100.0 * t.outages.1 / t.period_s,
            t.name,
            pictures[i]
        );
        let _ = writeln!(
            s,
            "| one-way delay | buffer | scheme | throughput (Mbit/s) | capacity used | mean delay (ms) | p95 delay (ms) | drops |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
        for &d in &o.delays_ms {
            for &b in &o.buffers {
                for (c, f) in panel(cells, figs, i, d, b) {
                    let _ = writeln!(
                        s,
                        "| {d} ms | {} ({} pkts) | {} | {:.2} | {:.0}% | {:.0} | {:.0} | {} |",
                        b.label(),
                        c.buffer_pkts,
                        c.scheme,
                        f.throughput_mbit,
                        100.0 * f.capacity_used,
                        f.mean_delay_ms,
                        f.p95_delay_ms,
                        f.drops
                    );
                }
            }
        }
        s.push('\n');
    }
    s
}

fn real_markdown(r: &RealSection) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "## Real sockets on a trace\n\n\
         Our `h3-server` (`--cc vegas`, then `--cc cubic`) behind `vegas-link-emu --trace-down \
         {trace}.down --trace-up {trace}.up --delay-ms {d} --buffer-pkts {b} --up-buffer-pkts {b}`, \
         one `h3-client` download of {bytes} bytes each (about {secs:.0} s at {fill:.0}% of the \
         trace's mean rate), one after the other; beside them the simulator on the same path with \
         the same bytes. The emulator measures each packet's delay as the simulator does (from \
         reaching the link to its scheduled arrival at the far end); its own lateness is the \
         last column.\n",
        trace = r.trace,
        d = r.delay_ms,
        b = r.buffer_pkts,
        bytes = r.bytes,
        secs = REAL_TARGET_S,
        fill = 100.0 * REAL_FILL,
    );
    let _ = writeln!(
        s,
        "| run | scheme | goodput (Mbit/s) | transfer (s) | mean queue (pkts) | mean delay (ms) | p95 delay (ms) | drops | emulator lateness p99 (us) |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for (cc, f) in &r.runs {
        let _ = writeln!(
            s,
            "| real | {cc} | {:.2} | {:.1} | {:.1} | {:.0} | {:.0} | {} | {:.0} |",
            f.goodput_mbit,
            f.transfer_s,
            f.mean_queue_pkts,
            f.mean_delay_ms,
            f.p95_delay_ms,
            f.drops,
            f.lateness_p99_us
        );
    }
    for (cc, f, transfer_s) in &r.sim {
        let _ = writeln!(
            s,
            "| simulator | {cc} | {:.2} | {transfer_s:.1} | - | {:.0} | {:.0} | {} | - |",
            f.throughput_mbit, f.mean_delay_ms, f.p95_delay_ms, f.drops
        );
    }
    let mean = |cc: &str, g: &dyn Fn(&TraceRun) -> f64| {
        let v: Vec<f64> = r
            .runs
            .iter()
            .filter(|(c, _)| c == cc)
            .map(|(_, f)| g(f))
            .collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    let _ = writeln!(
        s,
        "\nReal sockets, vegas over cubic: goodput {:.2}x, p95 delay {:.2}x.\n",
        mean("vegas", &|f| f.goodput_mbit) / mean("cubic", &|f| f.goodput_mbit),
        mean("vegas", &|f| f.p95_delay_ms) / mean("cubic", &|f| f.p95_delay_ms),
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(scheme: &str) -> Cell {
        Cell {
            trace: 0,
            delay_ms: 20.0,
            buffer: Buffer::Packets(100),
            buffer_pkts: 100,
            scheme: scheme.into(),
            seconds: 1.0,
        }
    }

    fn fig(throughput_mbit: f64, p95_delay_ms: f64) -> Figures {
        Figures {
            throughput_mbit,
            p95_delay_ms,
            ..Figures::default()
        }
    }

    #[test]
    fn vegas_is_dominated_only_by_a_scheme_both_faster_and_lower_delay() {
        let cells = [cell("vegas"), cell("cubic"), cell("bbr2"), cell("reno")];
        let figs = [
            fig(2.0, 100.0),
            fig(2.4, 400.0),
            fig(1.5, 50.0),
            fig(2.1, 90.0),
        ];
        let p = panel(&cells, &figs, 0, 20.0, Buffer::Packets(100));
        let v = Verdict::of(&p).unwrap();
        assert_eq!(v.dominated_by, ["reno"]);
        assert_eq!(v.delay_x_cubic, Some(0.25));
        assert!((v.throughput_x_cubic.unwrap() - 2.0 / 2.4).abs() < 1e-12);
        assert_eq!(v.goal_met(), Some(true));
        let slower = [fig(1.8, 100.0), fig(2.4, 400.0)];
        let v = Verdict::of(&panel(&cells[..2], &slower, 0, 20.0, Buffer::Packets(100))).unwrap();
        // 0.75x cubic's throughput misses the goal at a quarter of its delay.
        assert_eq!(v.goal_met(), Some(false));
        assert!(Verdict::of(&panel(
            &cells[1..2],
            &figs[1..2],
            0,
            20.0,
            Buffer::Packets(100)
        ))
        .is_none());
    }

    #[test]
    fn buffers_are_packets_or_bdp_multiples_and_bad_ones_say_why() {
        assert_eq!(Buffer::parse("100"), Ok(Buffer::Packets(100)));
        assert_eq!(Buffer::parse("4bdp"), Ok(Buffer::Bdp(4.0)));
        for (bad, words) in [
            ("0", "from 1 to 1000000"),
            ("lots", "neither a packet count"),
            ("-2bdp", "a BDP multiple from 0 to 100"),
            ("xbdp", "neither a packet count"),
            ("0bdp", "a BDP multiple from 0 to 100"),
        ] {
            let e = Buffer::parse(bad).unwrap_err();
            assert!(e.contains(bad) && e.contains(words), "{bad}: {e}");
        }
        // 4 BDP of a 4.8 Mbit/s trace at 20 ms one way: 4 x 16 packets.
        let t = TraceInfo {
            name: "t".into(),
            down: PathBuf::new(),
            up: PathBuf::new(),
            period_s: 1.0,
            mean_rate_mbit: 4.8,
            outages: (0, 0.0),
        };
        assert_eq!(Buffer::Bdp(4.0).packets(&t, 20.0), 64);
    }

    #[test]
    fn a_traces_period_rate_and_outages_come_from_its_lines() {
        let path = std::env::temp_dir().join(format!("xtask-trace-{}.down", std::process::id()));
        // 4 opportunities in 400 ms (120 kbit/s), one gap of 250 ms.
        fs::write(&path, "50\n100\n\n350\n400\n").unwrap();
        let (period_s, mbit, outages) = period_rate_outages(&path).unwrap();
        assert_eq!(period_s, 0.4);
        assert!((mbit - 0.12).abs() < 1e-12, "{mbit}");
        assert_eq!(outages, (1, 0.25));
        fs::write(&path, "50\nfifty\n").unwrap();
        assert!(period_rate_outages(&path)
            .unwrap_err()
            .contains("not a mahimahi trace"));
        let _ = fs::remove_file(&path);
    }
}
