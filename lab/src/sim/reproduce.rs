//! `vegas-lab reproduce`: every scenario file with a `[paper]` section
//! ([`super::paper`]) run over its seeds, in parallel, and the report that
//! puts the paper's numbers next to ours (`docs/reproduction.md`).
//!
//! Per number: our mean over the seeds (and the range), the claim's test on
//! that mean. Per experiment: *holds* when every number's test passes,
//! *not* when none does, *partly* otherwise; *no value* when no run gave a
//! number (e.g. a flow never left slow start).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::Context;
use anyhow::Result;
use serde_json::Value;

use super::paper::Cause;
use super::paper::Expr;
use super::paper::PaperSection;
use super::paper::Test;
use super::report::report;
use super::run;
use super::scenario::Handshake;
use super::scenario::Scenario;
use super::scenario::StartPhasing;
use super::RunOptions;

/// One experiment: a scenario file with a `[paper]` section.
pub struct Experiment {
    pub file: PathBuf,
    pub scenario: Scenario,
    pub paper: PaperSection,
}

/// Every `*.toml` under `paths` (files or folders, recursively) that has a
/// `[paper]` section, sorted by path; `only` keeps those whose scenario
/// name is listed (all when empty).
pub fn find_experiments(paths: &[PathBuf], only: &[String]) -> Result<Vec<Experiment>> {
    let mut files = Vec::new();
    for path in paths {
        collect_toml(path, &mut files)?;
    }
    files.sort();
    let mut experiments = Vec::new();
    for file in files {
        let scenario = Scenario::load(&file.to_string_lossy(), &[])?;
        let Some(paper) = scenario.paper.clone() else {
            continue;
        };
        if only.is_empty() || only.contains(&scenario.name) {
            experiments.push(Experiment {
                file,
                scenario,
                paper,
            });
        }
    }
    for name in only {
        if !experiments.iter().any(|e| &e.scenario.name == name) {
            anyhow::bail!("no scenario with a [paper] section is named `{name}`");
        }
    }
    Ok(experiments)
}

fn collect_toml(path: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    if path.is_dir() {
        let entries =
            std::fs::read_dir(path).with_context(|| format!("cannot read {}", path.display()))?;
        for entry in entries {
            collect_toml(&entry?.path(), files)?;
        }
    } else if path.extension().is_some_and(|e| e == "toml") {
        files.push(path.to_path_buf());
    } else if !path.exists() {
        anyhow::bail!("{} does not exist", path.display());
    }
    Ok(())
}

/// The seeds an experiment runs.
pub fn seeds(e: &Experiment) -> Vec<u64> {
    if e.paper.seeds.is_empty() {
        vec![e.scenario.seed]
    } else {
        e.paper.seeds.clone()
    }
}

/// One published number held against ours.
pub struct NumberResult {
    pub what: String,
    pub unit: String,
    pub paper: f64,
    pub holds: String,
    /// Ours, per seed.
    pub runs: Vec<Option<f64>>,
    pub mean: Option<f64>,
    pub held: Option<bool>,
    /// The headline claim it tests ([`super::paper::PaperNumber::headline`]).
    pub headline: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    Partly,
    Not,
    NoValue,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Partly => "partly",
            Verdict::Not => "not",
            Verdict::NoValue => "no value",
        }
    }
}

pub struct ExperimentResult {
    pub name: String,
    pub file: String,
    pub description: String,
    pub paper: PaperSection,
    pub seeds: Vec<u64>,
    pub numbers: Vec<NumberResult>,
    pub verdict: Verdict,
    /// Wall time of all its runs.
    pub wall_s: f64,
    /// Our trace graph (figure-type experiments, with `--figures`): where
    /// the report links it, the seed and the seconds drawn.
    pub figure: Option<FigureDrawn>,
    /// The paper-run options it uses ([`paper_run_options`]).
    pub options: Vec<String>,
}

/// Flow parameters that make a run behave as a paper's experiment did
/// rather than as the library would (listed in the report when set).
const PAPER_RUN_PARAMS: &[&str] = &[
    "round_rtt",
    "slow_start_round_rtt",
    "gallop_growth",
    "tick_wait",
];

/// The options of `scenario` that make it run as a paper's simulator did:
/// the handshake ahead of the start, start phasing, and the flows'
/// [`PAPER_RUN_PARAMS`].
pub fn paper_run_options(scenario: &Scenario) -> Vec<String> {
    let mut options = Vec::new();
    if scenario.handshake == Handshake::Ahead {
        options.push("handshake = ahead".to_string());
    }
    if scenario.start_phasing == StartPhasing::OnePacket {
        options.push("start_phasing = one-packet".to_string());
    }
    for flow in &scenario.flows {
        for key in PAPER_RUN_PARAMS {
            if let Some(value) = flow.params.get(*key) {
                let value = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_string);
                let option = format!("{key} = {value}");
                if !options.contains(&option) {
                    options.push(option);
                }
            }
        }
    }
    options
}

/// An experiment's verdict and numbers held in an earlier report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreviousVerdict {
    pub verdict: String,
    pub held: String,
}

/// The summary table of an earlier report (`render_markdown`'s), by
/// experiment name.
pub fn previous_verdicts(report: &str) -> BTreeMap<String, PreviousVerdict> {
    report
        .lines()
        .skip_while(|line| !line.starts_with("## Summary"))
        .skip(1)
        .take_while(|line| !line.starts_with("## "))
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            // "", [name](#name), paper, **verdict**, held, why, ""
            let name = cells.get(1)?.strip_prefix('[')?.split(']').next()?;
            let verdict = cells.get(3)?.trim_matches('*');
            let held = cells.get(4)?;
            Some((
                name.to_string(),
                PreviousVerdict {
                    verdict: verdict.to_string(),
                    held: held.to_string(),
                },
            ))
        })
        .collect()
}

/// A trace graph drawn for the report.
#[derive(Clone, Debug)]
pub struct FigureDrawn {
    /// The SVG's path as the report links it.
    pub link: String,
    pub seed: u64,
    pub seconds: f64,
    /// The run was cut short to keep its qlogs small enough to draw.
    pub shortened: bool,
}

/// The packets a figure's run may carry at the bottleneck rate: its qlogs
/// (about four records per packet) are read whole to draw it, and two of
/// them at once must fit in memory.
pub const FIGURE_MAX_PACKETS: f64 = 60_000.0;

/// Draws the trace graph of `e`'s first seed into `svg`: the flows under
/// study over each other, and the bottleneck queue, as `vegas-lab run
/// --plot` draws them. The run lasts its duration, or as long as the
/// bottleneck takes for [`FIGURE_MAX_PACKETS`] full datagrams if that is
/// shorter. Its qlogs and queue logs are written next to `svg` and
/// removed after.
pub fn draw_figure(e: &Experiment, svg: &Path, link: String) -> Result<FigureDrawn> {
    use crate::plot;
    let seed = seeds(e)[0];
    let mut scenario = e.scenario.clone();
    scenario.seed = seed;
    scenario.qlog = true;
    let full = scenario.duration.0.as_secs_f64();
    let packet_bits = 8.0 * scenario.max_datagram_size as f64;
    let cap = FIGURE_MAX_PACKETS * packet_bits
        / scenario.bottleneck.rate_bps().unwrap_or(1).max(1) as f64;
    let seconds = full.min(cap);
    scenario.duration.0 = std::time::Duration::from_secs_f64(seconds);
    let tmp = svg.with_extension("runs");
    std::fs::create_dir_all(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let drawn = (|| -> Result<()> {
        let result = run(
            &scenario,
            RunOptions {
                out_dir: Some(tmp.clone()),
                progress: None,
            },
        )?;
        let summary = report(&scenario, &result, 0.0);
        let mut traces = Vec::new();
        for f in &summary.flows {
            let qlog = tmp.join(format!("flow-{}-server.sqlog", f.id));
            if qlog.exists() {
                let (trace, _) = crate::qlog_read::Trace::read_tolerant(&qlog)?;
                traces.push((f.id, f.algorithm, trace));
            }
        }
        let queue = plot::QueueLog::read(&tmp.join("bottleneck.queue")).ok();
        let inputs: Vec<plot::FlowInput<'_>> = traces
            .iter()
            .map(|(id, algorithm, trace)| plot::FlowInput {
                trace,
                label: format!("flow {id} ({algorithm})"),
                flow_id: Some(*id),
            })
            .collect();
        let title = format!("{}, seed {seed}", e.scenario.name);
        let figure = plot::build_figure(&title, &inputs, queue.as_ref())?;
        plot::render(&figure, svg).map_err(|err| anyhow::anyhow!("{}: {err}", svg.display()))?;
        Ok(())
    })();
    let removed = std::fs::remove_dir_all(&tmp);
    drawn.with_context(|| format!("the trace graph of {}", e.file.display()))?;
    removed.with_context(|| format!("cannot remove {}", tmp.display()))?;
    Ok(FigureDrawn {
        link,
        seed,
        seconds,
        shortened: seconds < full,
    })
}

/// [`draw_figure`] for every experiment with a `figure` in its `[paper]`
/// section, on `jobs` threads: `dir/NAME.svg`, linked in the report as
/// `link_prefix` + `NAME.svg`. Returns one entry per experiment.
pub fn draw_figures(
    experiments: &[Experiment],
    dir: &Path,
    link_prefix: &str,
    jobs: usize,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Vec<Option<FigureDrawn>>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let next = AtomicUsize::new(0);
    let drawn: Mutex<Vec<Option<Result<FigureDrawn>>>> =
        Mutex::new((0..experiments.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(e) = experiments.get(k) else {
                    break;
                };
                if e.paper.figure.is_none() {
                    continue;
                }
                let name = &e.scenario.name;
                let outcome = draw_figure(
                    e,
                    &dir.join(format!("{name}.svg")),
                    format!("{link_prefix}{name}.svg"),
                );
                progress(name);
                drawn.lock().expect("no panic holds it")[k] = Some(outcome);
            });
        }
    });
    drawn
        .into_inner()
        .expect("threads ended")
        .into_iter()
        .map(Option::transpose)
        .collect()
}

/// One run's JSON summary and wall time, or why it failed.
type RunOutput = Result<(Value, f64)>;

/// Runs every experiment over its seeds on `jobs` threads; `progress` is
/// told each run's name and seed as it ends.
pub fn run_experiments(
    experiments: &[Experiment],
    jobs: usize,
    progress: &(dyn Fn(&str, u64) + Sync),
) -> Result<Vec<ExperimentResult>> {
    let work: Vec<(usize, u64)> = experiments
        .iter()
        .enumerate()
        .flat_map(|(i, e)| seeds(e).into_iter().map(move |s| (i, s)))
        .collect();
    let next = AtomicUsize::new(0);
    let outputs: Mutex<Vec<Option<RunOutput>>> =
        Mutex::new((0..work.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(i, seed)) = work.get(k) else {
                    break;
                };
                let e = &experiments[i];
                let started = Instant::now();
                let outcome = (|| -> Result<(Value, f64)> {
                    let mut scenario = e.scenario.clone();
                    scenario.seed = seed;
                    let result = run(&scenario, RunOptions::default())?;
                    let summary = report(&scenario, &result, 0.0);
                    Ok((
                        serde_json::to_value(&summary)?,
                        started.elapsed().as_secs_f64(),
                    ))
                })()
                .with_context(|| format!("{} (seed {seed})", e.file.display()));
                progress(&e.scenario.name, seed);
                outputs.lock().expect("no panic holds it")[k] = Some(outcome);
            });
        }
    });
    let mut outputs = outputs.into_inner().expect("threads ended").into_iter();
    let mut results = Vec::new();
    for e in experiments {
        let mut summaries = Vec::new();
        let mut wall_s = 0.0;
        for _ in seeds(e) {
            let (summary, secs) = outputs.next().flatten().expect("every run ran")?;
            summaries.push(summary);
            wall_s += secs;
        }
        results.push(evaluate(e, &summaries, wall_s));
    }
    Ok(results)
}

fn evaluate(e: &Experiment, summaries: &[Value], wall_s: f64) -> ExperimentResult {
    let numbers: Vec<NumberResult> = e
        .paper
        .numbers
        .iter()
        .map(|n| {
            // Validated when the scenario loaded.
            let expr = Expr::parse(&n.ours).expect("validated");
            let test = Test::parse(&n.holds).expect("validated");
            let runs: Vec<Option<f64>> = summaries.iter().map(|s| expr.eval(s)).collect();
            let values: Vec<f64> = runs.iter().flatten().copied().collect();
            let mean =
                (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64);
            NumberResult {
                what: n.what.clone(),
                unit: n.unit.clone(),
                paper: n.paper,
                holds: n.holds.clone(),
                runs,
                mean,
                held: mean.map(|m| test.check(m, n.paper)),
                headline: n.headline.clone(),
            }
        })
        .collect();
    let judged: Vec<bool> = numbers.iter().filter_map(|n| n.held).collect();
    let verdict = if judged.is_empty() {
        Verdict::NoValue
    } else if judged.iter().all(|&h| h) && judged.len() == numbers.len() {
        Verdict::Holds
    } else if judged.iter().any(|&h| h) {
        Verdict::Partly
    } else {
        Verdict::Not
    };
    ExperimentResult {
        name: e.scenario.name.clone(),
        file: e.file.to_string_lossy().into_owned(),
        description: e.scenario.description.clone(),
        paper: e.paper.clone(),
        seeds: seeds(e),
        numbers,
        verdict,
        wall_s,
        figure: None,
        options: paper_run_options(&e.scenario),
    }
}

/// Three significant digits, no exponent for the usual magnitudes.
fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

/// The paper's authors (and year) of a `source`: the text before its
/// first table, figure, equation, section, venue or parenthesis.
fn paper_of(source: &str) -> &str {
    let markers = [
        ", Table",
        ", Fig",
        ", eq",
        ", section",
        ", SAINT",
        " (",
        ", IEEE",
    ];
    let end = markers
        .iter()
        .filter_map(|m| source.find(m))
        .min()
        .unwrap_or(source.len());
    source[..end].trim()
}

/// The report, as `docs/reproduction.md` holds it: the papers'
/// experiments, then `models` (the papers' analytic models at new
/// parameters, [`super::analytic`]). `header` is the lines under the title
/// (the command, the commit, the time it took).
pub fn render_markdown(
    results: &[ExperimentResult],
    models: &[ExperimentResult],
    header: &str,
    previous: Option<&BTreeMap<String, PreviousVerdict>>,
) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# The papers re-run on QUIC\n\n{header}\n");
    let count = |v: Verdict| results.iter().filter(|r| r.verdict == v).count();
    let _ = writeln!(
        md,
        "{} experiments: {} hold, {} partly, {} not, {} without a value. Each number is our \
         mean over the experiment's seeds (the range over seeds in brackets) held against the \
         claim's test; an experiment holds when every test passes.\n",
        results.len(),
        count(Verdict::Holds),
        count(Verdict::Partly),
        count(Verdict::Not),
        count(Verdict::NoValue)
    );
    by_cause_table(&mut md, results);
    if let Some(previous) = previous {
        changes_table(&mut md, results, previous);
    }
    headline_tables(&mut md, results);
    md.push_str("## Summary\n\n");
    summary_table(&mut md, results);
    if !models.is_empty() {
        let held = models
            .iter()
            .filter(|r| r.verdict == Verdict::Holds)
            .count();
        let _ = writeln!(
            md,
            "\nThe papers' analytic models at parameters the papers did not use \
             ([below](#the-papers-models-at-new-parameters)): {held} of {} hold.",
            models.len()
        );
    }
    let mut last_paper = "";
    for r in results {
        let paper = paper_of(&r.paper.source);
        if paper != last_paper {
            let _ = writeln!(md, "\n## {paper}");
            last_paper = paper;
        }
        render_experiment(&mut md, r);
    }
    if !models.is_empty() {
        md.push_str(
            "\n## The papers' models at new parameters\n\nEach expected value is computed by \
             the model in `vegas-cc` (`transient/analytic.rs`, `reno_compat.rs`) for a path no paper \
             used; the cells are built in `lab/src/sim/analytic.rs`.\n\n",
        );
        summary_table(&mut md, models);
        for r in models {
            render_experiment(&mut md, r);
        }
    }
    let failing: Vec<&ExperimentResult> = results
        .iter()
        .chain(models)
        .filter(|r| r.verdict != Verdict::Holds)
        .collect();
    if !failing.is_empty() {
        md.push_str("\n## Claims that did not hold\n\n");
        for r in failing {
            let _ = writeln!(
                md,
                "- `{}` ({}): {}. {}",
                r.name,
                r.paper.source,
                r.verdict.as_str(),
                r.paper.note.as_deref().unwrap_or("No reason written yet.")
            );
        }
    }
    md
}

/// One section per headline claim: every number that tests it, from every
/// experiment, beside the paper's.
fn headline_tables(md: &mut String, results: &[ExperimentResult]) {
    let mut headlines: Vec<&str> = Vec::new();
    for n in results.iter().flat_map(|r| &r.numbers) {
        if let Some(h) = n.headline.as_deref().filter(|h| !headlines.contains(h)) {
            headlines.push(h);
        }
    }
    for headline in headlines {
        let _ = writeln!(
            md,
            "## Headline: {headline}\n\n| experiment | number | paper | ours | test | held |\n\
             |---|---|---|---|---|---|"
        );
        for r in results {
            for n in r
                .numbers
                .iter()
                .filter(|n| n.headline.as_deref() == Some(headline))
            {
                let _ = writeln!(
                    md,
                    "| [{}](#{}) | {} | {} | {} | `{}` | {} |",
                    r.name,
                    r.name,
                    n.what.replace('|', "/"),
                    num(n.paper),
                    ours_cell(n),
                    n.holds,
                    held_cell(n)
                );
            }
        }
        md.push('\n');
    }
}

/// Our mean, with the range over seeds when there are several.
fn ours_cell(n: &NumberResult) -> String {
    let values: Vec<f64> = n.runs.iter().flatten().copied().collect();
    let ours = match n.mean {
        None => "no value".to_string(),
        Some(m) if values.len() > 1 => {
            let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            format!("{} [{}, {}]", num(m), num(lo), num(hi))
        }
        Some(m) => num(m),
    };
    let missing = n.runs.iter().filter(|v| v.is_none()).count();
    if missing > 0 && n.mean.is_some() {
        format!("{ours} ({missing} runs without)")
    } else {
        ours
    }
}

fn held_cell(n: &NumberResult) -> &'static str {
    match n.held {
        Some(true) => "yes",
        Some(false) => "**no**",
        None => "-",
    }
}

/// The experiments that do not hold, by [`Cause`].
fn by_cause_table(md: &mut String, results: &[ExperimentResult]) {
    let mut by_cause: BTreeMap<Cause, (usize, usize, Vec<&str>)> = BTreeMap::new();
    for r in results {
        let entry = by_cause.entry(Cause::of(&r.paper)).or_default();
        match r.verdict {
            Verdict::Holds => continue,
            Verdict::Not => entry.1 += 1,
            Verdict::Partly | Verdict::NoValue => entry.0 += 1,
        }
        entry.2.push(&r.name);
    }
    md.push_str(
        "## By cause\n\nThe experiments that do not hold, by the cause their note gives \
         (algorithm: ours differs from the paper's; QUIC vs TCP: QUIC does what the paper's TCP \
         did not, and no faithful option removes it; ambiguity: the paper leaves out what the \
         result depends on; cannot express: the simulator cannot set it up).\n\n\
         | cause | partly | not | experiments |\n|---|---|---|---|\n",
    );
    for cause in Cause::ALL {
        let Some((partly, not, names)) = by_cause.get(&cause).filter(|e| !e.2.is_empty()) else {
            continue;
        };
        let links: Vec<String> = names.iter().map(|n| format!("[{n}](#{n})")).collect();
        let _ = writeln!(
            md,
            "| {} | {partly} | {not} | {} |",
            cause.as_str(),
            links.join(", ")
        );
    }
    md.push('\n');
}

/// Every experiment whose verdict or numbers held differ from `previous`,
/// with the paper-run options it uses.
fn changes_table(
    md: &mut String,
    results: &[ExperimentResult],
    previous: &BTreeMap<String, PreviousVerdict>,
) {
    let mut rows = String::new();
    let mut changed = 0;
    for r in results {
        let held = r.numbers.iter().filter(|n| n.held == Some(true)).count();
        let now = format!("{} {held}/{}", r.verdict.as_str(), r.numbers.len());
        let before = previous
            .get(&r.name)
            .map_or("(new)".to_string(), |p| format!("{} {}", p.verdict, p.held));
        if before == now {
            continue;
        }
        changed += 1;
        let options = if r.options.is_empty() {
            "-".to_string()
        } else {
            r.options.join(", ")
        };
        let _ = writeln!(
            rows,
            "| [{}](#{}) | {options} | {before} | {now} |",
            r.name, r.name
        );
    }
    let _ = writeln!(
        md,
        "## Changed since the previous report\n\n{changed} experiments changed verdict or \
         numbers held, with the paper-run options each uses.\n"
    );
    if changed > 0 {
        md.push_str("| experiment | paper-run options | before | now |\n|---|---|---|---|\n");
        md.push_str(&rows);
        md.push('\n');
    }
}

fn summary_table(md: &mut String, results: &[ExperimentResult]) {
    md.push_str("| experiment | paper | verdict | numbers held | why, in one line |\n|---|---|---|---|---|\n");
    for r in results {
        let held = r.numbers.iter().filter(|n| n.held == Some(true)).count();
        let _ = writeln!(
            md,
            "| [{}](#{}) | {} | **{}** | {}/{} | {} |",
            r.name,
            r.name,
            r.paper.source,
            r.verdict.as_str(),
            held,
            r.numbers.len(),
            r.paper.note.as_deref().unwrap_or("")
        );
    }
}

fn render_experiment(md: &mut String, r: &ExperimentResult) {
    let _ = writeln!(md, "\n### {}\n", r.name);
    let _ = writeln!(md, "`{}`: {}  ", r.file, r.description);
    let _ = writeln!(md, "**{}.** Claim: {}  ", r.paper.source, r.paper.claim);
    if let Some(figure) = &r.paper.figure {
        let _ = writeln!(md, "The paper's figure: {figure}  ");
        match &r.figure {
            Some(drawn) => {
                let span = if drawn.shortened {
                    format!("its first {:.1} s", drawn.seconds)
                } else {
                    "the whole run".to_string()
                };
                let _ = writeln!(
                    md,
                    "Ours, drawn like the paper's (windows, sending rate, CAM, queue; seed {}, \
                     {span}; `vegas-lab run {} --out DIR --plot` draws each flow):\n\n\
                     ![{}: our trace graph]({})\n",
                    drawn.seed, r.file, r.name, drawn.link
                );
            }
            None if !r.file.starts_with('(') => {
                let _ = writeln!(
                    md,
                    "Our trace graph, drawn like the paper's (windows, sending rate, CAM, \
                     queue): `vegas-lab run {} --out DIR --plot`.  ",
                    r.file
                );
            }
            None => {}
        }
    }
    if !r.options.is_empty() {
        let _ = writeln!(md, "Paper-run options: `{}`.  ", r.options.join("`, `"));
    }
    let seeds: Vec<String> = r.seeds.iter().map(u64::to_string).collect();
    let _ = writeln!(
        md,
        "Seeds {}; {:.1} s of wall time.\n",
        seeds.join(", "),
        r.wall_s
    );
    md.push_str("| number | paper | ours | unit | test | held |\n|---|---|---|---|---|---|\n");
    for n in &r.numbers {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | `{}` | {} |",
            n.what.replace('|', "/"),
            num(n.paper),
            ours_cell(n),
            n.unit,
            n.holds,
            held_cell(n)
        );
    }
    let _ = writeln!(md, "\nVerdict: **{}**.", r.verdict.as_str());
    if let Some(note) = &r.paper.note {
        let _ = writeln!(md, " {note}");
    }
    if !r.paper.choices.is_empty() {
        let _ = writeln!(
            md,
            "\n<details><summary>Choices ({})</summary>\n",
            r.paper.choices.len()
        );
        for c in &r.paper.choices {
            let _ = writeln!(md, "- {}", c.replace('\n', " "));
        }
        md.push_str("\n</details>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_the_papers_authors() {
        for (source, paper) in [
            (
                "Brakmo & Peterson 1995, Table IV (1 MB)",
                "Brakmo & Peterson 1995",
            ),
            ("Ho, Chan & Chen, Table 3 with eq. (7)", "Ho, Chan & Chen"),
            (
                "Feng & Vanichpun, SAINT 2003, Table 9, row B = 50",
                "Feng & Vanichpun",
            ),
            (
                "Srijith, Jacob & Ananda 2005 (TCP Vegas-A), Table 9",
                "Srijith, Jacob & Ananda 2005",
            ),
        ] {
            assert_eq!(paper_of(source), paper);
        }
    }

    #[test]
    fn numbers_keep_three_significant_digits() {
        assert_eq!(num(1234.5), "1234");
        assert_eq!(num(12.345), "12.3");
        assert_eq!(num(0.012345), "0.0123");
        assert_eq!(num(0.0), "0");
    }
}
