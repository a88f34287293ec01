//! `vegas-lab reproduce`: scenario files with a `[paper]` section are run
//! over their seeds and judged against the paper's numbers; bad sections
//! are refused naming the field.

#[path = "../../tests/support/mod.rs"]
mod support;

use support::TempDir;
use vegas_lab::sim::reproduce::draw_figures;
use vegas_lab::sim::reproduce::find_experiments;
use vegas_lab::sim::reproduce::paper_run_options;
use vegas_lab::sim::reproduce::previous_verdicts;
use vegas_lab::sim::reproduce::render_markdown;
use vegas_lab::sim::reproduce::run_experiments;
use vegas_lab::sim::reproduce::Verdict;
use vegas_lab::sim::Scenario;

/// A 2 s NewReno-vs-Vegas run on a 10 Mbit/s link, with `paper` appended.
fn experiment(name: &str, paper: &str) -> String {
    format!(
        r#"name = "{name}"
duration = "2s"
[bottleneck]
rate = "10Mbit/s"
delay = "10ms"
buffer_pkts = 50
[[flows]]
algorithm = "newreno"
duration = "2s"
[[flows]]
algorithm = "vegas"
duration = "2s"
{paper}"#
    )
}

const PAPER: &str = r#"
[paper]
source = "Test paper, Table 1"
claim = "the link is used"
seeds = [1, 2]
note = "a test"

[[paper.numbers]]
what = "utilization"
paper = 1.0
ours = "links.bottleneck.utilization"
holds = "> 0.5"
headline = "the link is used in the abstract"

[[paper.numbers]]
what = "NewReno over Vegas, an impossible claim"
paper = 0.0
ours = "flows[newreno].goodput_bps / flows[vegas].goodput_bps"
holds = "< 0"
"#;

#[test]
fn experiments_run_over_their_seeds_and_are_judged_number_by_number() {
    let dir = TempDir::new("reproduce");
    std::fs::write(dir.0.join("a.toml"), experiment("a", PAPER)).unwrap();
    // A scenario without a [paper] section is not an experiment.
    std::fs::write(dir.0.join("plain.toml"), experiment("plain", "")).unwrap();
    let experiments = find_experiments(std::slice::from_ref(&dir.0), &[]).unwrap();
    assert_eq!(experiments.len(), 1);
    let results = run_experiments(&experiments, 2, &|_, _| {}).unwrap();
    let r = &results[0];
    assert_eq!(r.seeds, [1, 2]);
    let (used, ratio) = (&r.numbers[0], &r.numbers[1]);
    assert_eq!(used.runs.len(), 2);
    assert!(
        used.runs.iter().all(|u| u.unwrap() > 0.5),
        "{:?}",
        used.runs
    );
    assert_eq!(used.held, Some(true));
    assert_eq!(ratio.held, Some(false));
    assert_eq!(r.verdict, Verdict::Partly);
    // The two seeds are two different runs, averaged.
    let mean = (ratio.runs[0].unwrap() + ratio.runs[1].unwrap()) / 2.0;
    assert!((ratio.mean.unwrap() - mean).abs() < 1e-12);
    let md = render_markdown(&results, &[], "header line", None);
    assert!(md.contains("header line"));
    assert!(md.contains("| [a](#a) | Test paper, Table 1 | **partly** | 1/2 | a test |"));
    assert!(md.contains("## Claims that did not hold"));
    // The headline's numbers in their own section.
    assert!(
        md.contains("## Headline: the link is used in the abstract"),
        "{md}"
    );
    assert!(md.contains("| [a](#a) | utilization | 1.00 |"), "{md}");
    // Its note names no cause.
    assert!(md.contains("| unclassified | 1 | 0 | [a](#a) |"), "{md}");
    // Against an earlier report: unchanged, then changed.
    let mut previous = previous_verdicts(&md);
    assert_eq!(previous.len(), 1);
    let md = render_markdown(&results, &[], "", Some(&previous));
    assert!(md.contains("0 experiments changed"), "{md}");
    previous.get_mut("a").unwrap().verdict = "not".into();
    previous.get_mut("a").unwrap().held = "0/2".into();
    let md = render_markdown(&results, &[], "", Some(&previous));
    assert!(
        md.contains("| [a](#a) | - | not 0/2 | partly 1/2 |"),
        "{md}"
    );
    // `--only` keeps the named ones and refuses unknown names.
    assert!(find_experiments(std::slice::from_ref(&dir.0), &["b".into()]).is_err());
}

#[test]
fn a_bad_paper_section_names_the_field_and_what_is_allowed() {
    let cases = [
        (
            "ours = \"links.bottleneck.utilization\"",
            "ours = \"a + b\"",
            "paper.numbers.0.ours",
        ),
        (
            "holds = \"> 0.5\"",
            "holds = \"about 1\"",
            "paper.numbers.0.holds",
        ),
        ("paper = 1.0", "paper = nan", "paper.numbers.0.paper"),
        ("claim = \"the link is used\"", "claimed = \"x\"", "claimed"),
    ];
    for (good, bad, field) in cases {
        let text = experiment("bad", &PAPER.replacen(good, bad, 1));
        let err = format!(
            "{:#}",
            Scenario::from_toml(&text, "bad.toml", &[]).unwrap_err()
        );
        assert!(err.contains(field), "{bad}: {err}");
    }
    let none = experiment("bad", "[paper]\nsource = \"x\"\nclaim = \"y\"\n");
    let err = format!(
        "{:#}",
        Scenario::from_toml(&none, "bad.toml", &[]).unwrap_err()
    );
    assert!(
        err.contains("paper.numbers") && err.contains("at least one"),
        "{err}"
    );
}

#[test]
fn the_model_cells_are_valid_experiments_with_the_models_values() {
    use vegas_cc::transient::critical_window_pkts;
    use vegas_cc::transient::SlowStartRtt;
    use vegas_lab::sim::analytic::model_experiments;
    let cells = model_experiments().unwrap();
    assert!(cells.len() >= 8);
    let eq9 = cells
        .iter()
        .find(|c| c.scenario.name == "model-critical-window-mu3000-d60")
        .unwrap();
    // mu = 3000 packets/s, d = 60 ms, gamma = 1, 4, 16.
    for (number, gamma) in eq9.paper.numbers.iter().zip([1.0, 4.0, 16.0]) {
        let w_star = critical_window_pkts(gamma, 3000.0, 0.06, SlowStartRtt::RoundAverage).unwrap();
        assert_eq!(number.paper, w_star);
    }
    // The path's base RTT is d: 60 ms over the bottleneck and access links.
    let s = &eq9.scenario;
    let one_way = s.bottleneck.delay.0 + s.flows[0].access.delay.0;
    assert_eq!(one_way.as_micros(), 30_000);
}

#[test]
fn figure_experiments_get_their_trace_graph_in_the_report() {
    let dir = TempDir::new("reproduce-figures");
    let with_figure = PAPER.replace(
        "note = \"a test\"",
        "note = \"a test\"\nfigure = \"the windows of both flows\"",
    );
    std::fs::write(dir.0.join("fig.toml"), experiment("fig", &with_figure)).unwrap();
    std::fs::write(dir.0.join("table.toml"), experiment("table", PAPER)).unwrap();
    let experiments = find_experiments(std::slice::from_ref(&dir.0), &[]).unwrap();
    let figures = dir.0.join("out");
    let drawn = draw_figures(&experiments, &figures, "out/", 2, &|_| {}).unwrap();
    let names: Vec<&str> = experiments
        .iter()
        .map(|e| e.scenario.name.as_str())
        .collect();
    assert_eq!(names, ["fig", "table"]);
    let fig = drawn[0]
        .as_ref()
        .expect("a figure-type experiment is drawn");
    assert!(drawn[1].is_none(), "a table is not");
    assert_eq!(
        (fig.link.as_str(), fig.seed, fig.shortened),
        ("out/fig.svg", 1, false)
    );
    let svg = std::fs::read_to_string(figures.join("fig.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("flow 1 (vegas)"),
        "both flows drawn"
    );
    // Only the SVG stays: the run's qlogs and queue logs are removed.
    let left: Vec<_> = std::fs::read_dir(&figures)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left, ["fig.svg"]);
    let mut results = run_experiments(&experiments, 2, &|_, _| {}).unwrap();
    for (r, f) in results.iter_mut().zip(drawn) {
        r.figure = f;
    }
    let md = render_markdown(&results, &[], "", None);
    assert!(md.contains("![fig: our trace graph](out/fig.svg)"), "{md}");
    assert!(md.contains("seed 1, the whole run"));
}

#[test]
fn paper_run_options_are_read_from_the_scenario() {
    let plain = Scenario::from_toml(&experiment("p", PAPER), "p.toml", &[]).unwrap();
    assert!(paper_run_options(&plain).is_empty());
    let sets = [
        "handshake=ahead",
        "start_phasing=one-packet",
        "flows.1.params.round_rtt=distinguished",
    ]
    .map(String::from);
    let timed = Scenario::from_toml(&experiment("t", PAPER), "t.toml", &sets).unwrap();
    assert_eq!(
        paper_run_options(&timed),
        [
            "handshake = ahead",
            "start_phasing = one-packet",
            "round_rtt = distinguished"
        ]
    );
}
