//! `vegas-lab`: run the quiche-vegas experiments.
//!
//! - `vegas-lab run SCENARIO [--set key=value]... [--seed N] [--out DIR] [--json] [--plot] [--series]`
//! - `vegas-lab list`
//! - `vegas-lab demo [--seed N]`
//! - `vegas-lab qvis IN.sqlog... -o OUT.qlog [--max-mb N] [--no-peer]`
//! - `vegas-lab plot IN.sqlog... [--queue QUEUELOG] -o FIG.svg [--flow N]... [--title T]`
//! - `vegas-lab reproduce [PATH]... [--only NAME]... [--jobs N] [-o FILE] [--header H] [--models] [--figures DIR] [--previous FILE]`

use std::io::IsTerminal;
use std::path::Path;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use anyhow::Result;
use clap::Parser;
use clap::Subcommand;
use indicatif::ProgressBar;
use indicatif::ProgressStyle;
use vegas_interop::cli::resolved_path;
use vegas_lab::sim;
use vegas_lab::sim::report::report;
use vegas_lab::sim::report::Report;
use vegas_lab::sim::RunOptions;
use vegas_lab::sim::Scenario;

#[derive(Parser)]
#[command(
    name = "vegas-lab",
    version,
    about = "Vegas-family congestion control experiments on real quiche connections, in virtual time"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario (a built-in name or a TOML file).
    Run {
        /// Built-in name (see `list`) or path to a scenario file.
        scenario: String,
        /// Override a scenario field by dotted path, e.g.
        /// `bottleneck.buffer_pkts=30` or `flows.0.algorithm=vegas`.
        #[arg(long = "set", value_name = "PATH=VALUE")]
        set: Vec<String>,
        /// Seed for every random choice (overrides the scenario's), 0 to
        /// 2^64-1.
        #[arg(long, value_parser = parse_seed, allow_hyphen_values = true)]
        seed: Option<u64>,
        /// Folder for summary.json, queue logs and qlogs (created if
        /// missing).
        #[arg(long, value_parser = parse_out_dir)]
        out: Option<PathBuf>,
        /// Print the summary as one JSON object.
        #[arg(long)]
        json: bool,
        /// Write qlogs and draw each flow's trace graph (`flow-N.svg` in
        /// `--out`, which this needs).
        #[arg(long)]
        plot: bool,
        /// Add per-100-ms series to the summary: each flow's delivered
        /// bytes, the bottleneck's queue and utilization.
        #[arg(long)]
        series: bool,
    },
    /// Convert qlogs (JSON-SEQ, as quiche writes them) into qlog 0.3 JSON
    /// that qvis loads, both endpoints on one time base.
    Qvis {
        /// qlog files; for `...-server.sqlog` / `...-client.sqlog` the other
        /// endpoint's file next to it is added unless `--no-peer`.
        #[arg(required = true)]
        input: Vec<PathBuf>,
        /// Output file (split exports get `.partNofM` before the extension);
        /// never one of the inputs.
        #[arg(short, long, value_parser = parse_output)]
        output: PathBuf,
        /// Split files larger than this many MB (10^6 bytes), 1 to 100000;
        /// an export that would need more than 1000 files is refused.
        #[arg(long, default_value_t = 50.0, value_parser = parse_max_mb, allow_hyphen_values = true)]
        max_mb: f64,
        /// Do not add the other endpoint's qlog.
        #[arg(long)]
        no_peer: bool,
    },
    /// Draw the Vegas paper's trace graph (windows, sending rate, CAM,
    /// queue, common marks) from senders' qlogs; several inputs are drawn
    /// over each other.
    Plot {
        /// Senders' qlog files (the server's, for simulated runs).
        #[arg(required = true)]
        input: Vec<PathBuf>,
        /// The bottleneck's queue log (`bottleneck.queue` of a simulated run).
        #[arg(long)]
        queue: Option<PathBuf>,
        /// Output file: `.svg` (`.png` is explained, not drawn); never one
        /// of the inputs.
        #[arg(short, long, value_parser = parse_output)]
        output: PathBuf,
        /// Each input's flow number in the queue log, 0 to 1000000
        /// (default: from the qlog title, `flow N ...`).
        #[arg(long, value_parser = parse_flow, allow_hyphen_values = true)]
        flow: Vec<usize>,
        /// Figure title (default: the input file names).
        #[arg(long)]
        title: Option<String>,
    },
    /// Re-run the papers: every scenario file with a `[paper]` section
    /// under the given files or folders, over its seeds, in parallel; writes
    /// the paper's numbers next to ours as Markdown.
    Reproduce(ReproduceArgs),
    /// List the built-in scenarios.
    List,
    /// The demo: 1 MB over the Vegas paper's Fig. 6 bottleneck (200 KB/s,
    /// 10 packets of buffer, 50 ms RTT), once per algorithm.
    Demo {
        /// Seed of every run, 0 to 2^64-1.
        #[arg(long, default_value_t = 1, value_parser = parse_seed, allow_hyphen_values = true)]
        seed: u64,
    },
}

/// `vegas-lab reproduce`'s arguments.
#[derive(clap::Args)]
struct ReproduceArgs {
    /// Scenario files or folders searched recursively for `*.toml`.
    #[arg(default_value = "scenarios")]
    paths: Vec<PathBuf>,
    /// Only the experiments (scenario names) listed; repeatable.
    #[arg(long = "only", value_name = "NAME")]
    only: Vec<String>,
    /// Runs at once, 1 to 256 (default: the number of cores).
    #[arg(long, value_parser = parse_jobs)]
    jobs: Option<usize>,
    /// The report file to write (default: print it).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Lines for the report's header (e.g. the command and the commit).
    #[arg(long, default_value = "")]
    header: String,
    /// Also hold the papers' analytic models against simulations at
    /// parameters the papers did not use (its own section).
    #[arg(long)]
    models: bool,
    /// Draw the trace graph of every figure-type experiment (a
    /// `figure` in its `[paper]` section) into this folder as NAME.svg
    /// and show it in the report (linked relative to the report).
    #[arg(long, value_name = "DIR")]
    figures: Option<PathBuf>,
    /// An earlier report: the new one lists every experiment whose
    /// verdict changed since, with the paper-run options it uses.
    #[arg(long, value_name = "FILE")]
    previous: Option<PathBuf>,
}

/// Largest `--max-mb` of `qvis`: 100 GB, far beyond what qvis loads.
const MAX_MAX_MB: f64 = 100_000.0;
/// Smallest `--max-mb`: smaller parts only multiply files.
const MIN_MAX_MB: f64 = 1.0;
/// Largest `--flow` of `plot` (flow numbers of a queue log are small).
const MAX_FLOW: usize = 1_000_000;

fn parse_seed(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a whole number from 0 to {}", u64::MAX))
}

fn parse_max_mb(text: &str) -> Result<f64, String> {
    let mb: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if !(MIN_MAX_MB..=MAX_MAX_MB).contains(&mb) {
        return Err(format!(
            "{mb:?} MB: must be from {MIN_MAX_MB} to {MAX_MAX_MB} (MB of 10^6 bytes)"
        ));
    }
    Ok(mb)
}

fn parse_flow(text: &str) -> Result<usize, String> {
    let flow: usize = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a flow number from 0 to {MAX_FLOW}"))?;
    if flow > MAX_FLOW {
        return Err(format!("flow {flow}: must be from 0 to {MAX_FLOW}"));
    }
    Ok(flow)
}

/// An output file: a name, not a folder.
fn parse_output(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    if text.is_empty() {
        return Err("an empty name: want a file name".into());
    }
    if text.ends_with('/') || path.is_dir() {
        return Err(format!("`{text}` is a folder: want a file name"));
    }
    Ok(path)
}

/// An output folder: missing (it is created) or a folder.
fn parse_out_dir(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    if text.is_empty() {
        return Err("an empty name: want a folder".into());
    }
    if path.exists() && !path.is_dir() {
        return Err(format!("`{text}` exists and is not a folder"));
    }
    Ok(path)
}

/// Refuses to write `outputs` over any of `inputs` (`vegas-lab plot x.sqlog
/// -o x.sqlog` would destroy the qlog).
fn check_not_overwriting(outputs: &[PathBuf], inputs: &[&Path]) -> Result<()> {
    for output in outputs {
        let out = resolved_path(output);
        if let Some(input) = inputs.iter().find(|i| resolved_path(i) == out) {
            anyhow::bail!(
                "--output {}: would overwrite the input {}; choose another output file",
                output.display(),
                input.display()
            );
        }
    }
    Ok(())
}

fn main() {
    let result = match Cli::parse().command {
        Command::Run {
            scenario,
            set,
            seed,
            out,
            json,
            plot,
            series,
        } => run(&scenario, set, seed, out, json, plot, series),
        Command::Qvis {
            input,
            output,
            max_mb,
            no_peer,
        } => qvis(input, &output, max_mb, no_peer),
        Command::Plot {
            input,
            queue,
            output,
            flow,
            title,
        } => plot(&input, queue.as_deref(), &output, &flow, title),
        Command::List => {
            list();
            Ok(())
        }
        Command::Reproduce(args) => reproduce(&args),
        Command::Demo { seed } => demo(seed),
    };
    if let Err(e) = result {
        eprintln!("vegas-lab: {e:#}");
        std::process::exit(2);
    }
}

/// Most `--jobs` of `reproduce`.
const MAX_JOBS: usize = 256;

fn parse_jobs(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_JOBS).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{text}` is not a whole number from 1 to {MAX_JOBS}"
        )),
    }
}

fn reproduce(args: &ReproduceArgs) -> Result<()> {
    let ReproduceArgs {
        paths,
        only,
        jobs,
        output,
        header,
        models,
        figures,
        previous,
    } = args;
    let (jobs, output, models) = (*jobs, output.as_deref(), *models);
    let (figures, previous) = (figures.as_deref(), previous.as_deref());
    use sim::reproduce;
    // Read before the run: the new report may overwrite it.
    let previous = previous
        .map(|path| {
            std::fs::read_to_string(path)
                .with_context(|| format!("--previous: cannot read {}", path.display()))
                .map(|text| reproduce::previous_verdicts(&text))
        })
        .transpose()?;
    let mut experiments = reproduce::find_experiments(paths, only)?;
    if experiments.is_empty() {
        anyhow::bail!("no scenario with a [paper] section under the paths given");
    }
    let papers = experiments.len();
    if models {
        experiments.extend(sim::analytic::model_experiments()?);
    }
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let runs: usize = experiments.iter().map(|e| reproduce::seeds(e).len()).sum();
    let bar = ProgressBar::new(runs as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs, {elapsed} {msg}")
            .expect("valid template"),
    );
    let started = std::time::Instant::now();
    let results = reproduce::run_experiments(&experiments, jobs, &|name, seed| {
        bar.set_message(format!("{name} seed {seed}"));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    let mut results = results;
    if let Some(dir) = figures {
        // Linked relative to the report's folder when the folder is in it.
        let base = output.and_then(Path::parent).unwrap_or(Path::new(""));
        let relative = dir.strip_prefix(base).unwrap_or(dir);
        let mut prefix = relative.to_string_lossy().into_owned();
        if !prefix.is_empty() && !prefix.ends_with('/') {
            prefix.push('/');
        }
        let count = experiments[..papers]
            .iter()
            .filter(|e| e.paper.figure.is_some())
            .count();
        let bar = ProgressBar::new(count as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} trace graphs, {elapsed} {msg}")
                .expect("valid template"),
        );
        let drawn = reproduce::draw_figures(&experiments[..papers], dir, &prefix, jobs, &|name| {
            bar.set_message(name.to_string());
            bar.inc(1);
        })?;
        bar.finish_and_clear();
        for (r, figure) in results.iter_mut().zip(drawn) {
            r.figure = figure;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let (papers, models) = results.split_at(papers);
    let mut header = header.trim().to_string();
    if !header.is_empty() {
        header.push_str("\n\n");
    }
    header.push_str(&format!(
        "{} experiments and {} model cells, {runs} runs on {jobs} threads: {elapsed:.0} s of \
         wall time.",
        papers.len(),
        models.len()
    ));
    let md = reproduce::render_markdown(papers, models, &header, previous.as_ref());
    match output {
        Some(path) => {
            std::fs::write(path, md).with_context(|| format!("cannot write {}", path.display()))?;
            eprintln!("vegas-lab: wrote {} ({elapsed:.0} s)", path.display());
        }
        None => print!("{md}"),
    }
    Ok(())
}

fn list() {
    for (name, text) in sim::scenario::BUILTINS {
        let description = Scenario::from_toml(text, name, &[])
            .map(|s| s.description)
            .unwrap_or_else(|e| format!("(invalid: {e})"));
        println!("{name:<16} {description}");
    }
}

fn run_one(
    scenario: &Scenario,
    out: Option<PathBuf>,
    progress: bool,
    with_series: bool,
) -> Result<Report> {
    let bar = progress.then(|| {
        let total = scenario.duration.0.as_secs_f64();
        let bar = ProgressBar::new((total * 10.0) as u64);
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} (0.1 s of virtual time)")
                .expect("valid template"),
        );
        bar.set_message(scenario.name.clone());
        bar
    });
    let options = RunOptions {
        out_dir: out.clone(),
        progress: bar.clone().map(|bar| {
            Box::new(move |t: f64| bar.set_position((t * 10.0) as u64)) as Box<dyn FnMut(f64)>
        }),
    };
    let wall = Instant::now();
    let result = sim::run(scenario, options)?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let mut report = report(scenario, &result, wall.elapsed().as_secs_f64());
    if with_series {
        report.series = Some(sim::report::series(&result));
    }
    if let Some(dir) = out {
        let path = dir.join("summary.json");
        std::fs::write(&path, serde_json::to_string_pretty(&report)? + "\n")
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(report)
}

fn run(
    name: &str,
    mut set: Vec<String>,
    seed: Option<u64>,
    out: Option<PathBuf>,
    json: bool,
    plot: bool,
    with_series: bool,
) -> Result<()> {
    if let Some(seed) = seed {
        set.push(format!("seed={seed}"));
    }
    if plot {
        anyhow::ensure!(
            out.is_some(),
            "--plot needs --out DIR for the qlogs and figures"
        );
        set.push("qlog=true".into());
    }
    let scenario = Scenario::load(name, &set)?;
    let progress = !json && std::io::stderr().is_terminal();
    let report = run_one(&scenario, out.clone(), progress, with_series)?;
    if json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print_report(&report);
    }
    if let (true, Some(dir)) = (plot, out) {
        plot_run(&report, &dir)?;
    }
    Ok(())
}

/// `run --plot`: one figure per flow that has a sender qlog.
fn plot_run(report: &Report, dir: &Path) -> Result<()> {
    let queue = dir.join("bottleneck.queue");
    let queue = queue.exists().then_some(queue);
    for f in &report.flows {
        let qlog = dir.join(format!("flow-{}-server.sqlog", f.id));
        if !qlog.exists() {
            continue;
        }
        let output = dir.join(format!("flow-{}.svg", f.id));
        let title = format!(
            "{} flow {} ({}), seed {}",
            report.scenario, f.id, f.algorithm, report.seed
        );
        plot(
            std::slice::from_ref(&qlog),
            queue.as_deref(),
            &output,
            &[f.id],
            Some(title),
        )?;
    }
    Ok(())
}

/// Reads a qlog for `plot` / `qvis`: every record that parses, with one
/// warning naming what was skipped (e.g. the end of a qlog whose writer
/// was killed mid-record).
fn read_trace(path: &Path) -> Result<vegas_lab::qlog_read::Trace> {
    let (trace, salvage) = vegas_lab::qlog_read::Trace::read_tolerant(path)?;
    if let Some(warning) = salvage.warning(&path.display().to_string()) {
        eprintln!("warning: {warning}");
    }
    if trace.unknown_count() > 0 {
        let names: Vec<String> = trace
            .unknown_events
            .iter()
            .map(|(name, n)| format!("{name} x{n}"))
            .collect();
        eprintln!(
            "{}: skipped {} unknown events ({})",
            path.display(),
            trace.unknown_count(),
            names.join(", ")
        );
    }
    Ok(trace)
}

fn qvis(mut input: Vec<PathBuf>, output: &Path, max_mb: f64, no_peer: bool) -> Result<()> {
    use vegas_lab::qvis;
    if !no_peer && input.len() == 1 {
        if let Some(peer) = qvis::peer_path(&input[0]) {
            eprintln!("adding the other endpoint: {}", peer.display());
            input.push(peer);
        }
    }
    let inputs: Vec<&Path> = input.iter().map(PathBuf::as_path).collect();
    check_not_overwriting(&[output.to_path_buf()], &inputs)?;
    let traces = input
        .iter()
        .map(|p| read_trace(p))
        .collect::<Result<Vec<_>>>()?;
    let options = qvis::ExportOptions {
        max_file_bytes: (max_mb * 1e6) as usize,
        title: input
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" + "),
    };
    let export = qvis::export(&traces, &options).map_err(|e| match e {
        qvis::ExportError::TooManyParts { .. } => {
            anyhow::anyhow!("--max-mb {max_mb}: {e}")
        }
        e => anyhow::Error::new(e),
    })?;
    check_not_overwriting(&qvis::part_paths(output, export.parts.len()), &inputs)?;
    for (a, lost) in export.alignments.iter().zip(&export.inferred_losses) {
        eprintln!(
            "{}: offset {:+.3} ms ({}); {lost} packet_lost inferred from retransmissions",
            a.source, a.offset_ms, a.method
        );
    }
    let paths = qvis::write(&export, output)
        .with_context(|| format!("--output {}: cannot write", output.display()))?;
    if paths.len() > 1 {
        eprintln!(
            "the export is larger than {max_mb} MB: split by time into {} files, each loads in qvis alone",
            paths.len()
        );
    }
    for p in paths {
        println!("{}", p.display());
    }
    Ok(())
}

fn plot(
    input: &[PathBuf],
    queue: Option<&Path>,
    output: &Path,
    flow: &[usize],
    title: Option<String>,
) -> Result<()> {
    use vegas_lab::plot;
    anyhow::ensure!(
        flow.is_empty() || flow.len() == input.len(),
        "give --flow once per input ({} inputs, {} --flow)",
        input.len(),
        flow.len()
    );
    let mut inputs: Vec<&Path> = input.iter().map(PathBuf::as_path).collect();
    inputs.extend(queue);
    check_not_overwriting(&[output.to_path_buf()], &inputs)?;
    let traces = input
        .iter()
        .map(|p| read_trace(p))
        .collect::<Result<Vec<_>>>()?;
    let queue = queue.map(plot::QueueLog::read).transpose()?;
    let flows: Vec<plot::FlowInput<'_>> = traces
        .iter()
        .zip(input)
        .enumerate()
        .map(|(i, (trace, path))| plot::FlowInput {
            trace,
            label: trace
                .title
                .clone()
                .unwrap_or_else(|| path.display().to_string()),
            flow_id: flow.get(i).copied(),
        })
        .collect();
    let title = title.unwrap_or_else(|| {
        flows
            .iter()
            .map(|f| f.label.clone())
            .collect::<Vec<_>>()
            .join(" vs ")
    });
    let figure = plot::build_figure(&title, &flows, queue.as_ref())?;
    for note in &figure.notes {
        eprintln!("{note}");
    }
    plot::render(&figure, output).map_err(|e| match plot::Format::from_path(output) {
        // Says itself which file and why.
        plot::Format::Png => anyhow::anyhow!("{e}"),
        plot::Format::Svg => anyhow::anyhow!("--output {}: cannot write: {e}", output.display()),
    })?;
    eprintln!("wrote {}", output.display());
    Ok(())
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.digits$}"))
}

fn print_report(r: &Report) {
    println!(
        "scenario {} (seed {}, quiche-vegas {}): {:.2} s simulated in {:.2} s{}",
        r.scenario,
        r.seed,
        r.version,
        r.sim_seconds,
        r.wall_seconds,
        if r.timed_out {
            ", TIME LIMIT REACHED (partial metrics)"
        } else {
            ""
        }
    );
    println!(
        "{:>3} {:<14} {:>12} {:>12} {:>10} {:>6} {:>5} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "id",
        "algorithm",
        "bytes",
        "goodput Mb/s",
        "retx B",
        "lost",
        "pto",
        "ltimer",
        "done s",
        "ss exit s",
        "C_time",
        "rtt ms",
        "p95 ms"
    );
    for f in &r.flows {
        println!(
            "{:>3} {:<14} {:>12} {:>12.3} {:>10} {:>6} {:>5} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9}",
            f.id,
            f.algorithm,
            f.bytes_delivered,
            f.goodput_bps / 1e6,
            f.retransmitted_bytes,
            f.lost_packets,
            f.pto_count,
            f.loss_timer_count,
            opt(f.completion_s, 2),
            opt(f.slow_start_exit_s, 2),
            opt(f.convergence_rtts, 1),
            opt(f.mean_rtt_ms, 1),
            opt(f.p95_rtt_ms, 1),
        );
    }
    println!(
        "{:<26} {:>11} {:>10} {:>9} {:>9} {:>7}",
        "link", "utilization", "mean queue", "p95 queue", "max queue", "drops"
    );
    for l in r.links.iter().filter(|l| l.utilization > 0.0) {
        println!(
            "{:<26} {:>11.3} {:>10.2} {:>9} {:>9} {:>7}",
            l.id, l.utilization, l.mean_queue_pkts, l.p95_queue_pkts, l.max_queue_pkts, l.drops
        );
    }
    println!(
        "jain index {}   loss-based/vegas bytes {}",
        opt(r.jain_index, 3),
        opt(r.loss_based_over_vegas, 3)
    );
    if let Some(b) = &r.background {
        println!(
            "background: {} flows, {} completed, {} bytes",
            b.flows, b.completed, b.bytes_delivered
        );
    }
}

fn demo(seed: u64) -> Result<()> {
    let base = sim::demo::scenario(quiche_vegas::Algorithm::Vegas, seed)?;
    println!("{} (seed {seed})\n", base.description);
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
        let scenario = sim::demo::scenario(algorithm, seed)?;
        let r = run_one(&scenario, None, false, false)?;
        let flow = &r.flows[0];
        let bottleneck = &r.links[0];
        println!(
            "{:<10} {:>16.1} {:>16} {:>12} {:>12.2} {:>12} {:>14}{}",
            algorithm.name(),
            flow.goodput_bps / 8.0 / 1e3,
            flow.retransmitted_bytes,
            flow.lost_packets,
            bottleneck.mean_queue_pkts,
            bottleneck.max_queue_pkts,
            opt(flow.completion_s, 2),
            if r.timed_out { "  (time limit)" } else { "" },
        );
    }
    Ok(())
}
