//! The papers' analytic models held against our simulations at parameters
//! the papers did not use (`vegas-lab reproduce --models`, the last section
//! of `docs/reproduction.md`).
//!
//! Each cell is an experiment like the ones of `scenarios/papers/`, built
//! here because its expected value is not transcribed from a paper but
//! computed by the model in `vegas-cc` ([`vegas_cc::transient`],
//! [`vegas_cc::reno_compat`]):
//!
//! - Vanichpun & Feng eq. 9: Vegas (mode = paper, every packet
//!   acknowledged) leaves slow start in the first held round whose window
//!   is at least the critical window W*(gamma), so its window W_m obeys
//!   W* <= W_m < 2 W* (W_{m-2} = W_m / 2 was below W*).
//! - Vanichpun & Feng eq. 12 and 14-15 (the claim of Fig. 3 at new BDPs):
//!   C_time with gamma from Approach 2 <= Approach 1 <= gamma = 1.
//! - Ho, Chan & Chen eq. 16: Gallop-Vegas leaves slow start when its window
//!   reaches about the pipe, mu d + beta; once as the pseudo code of III-C
//!   runs, once with the regrowth eq. 17-19 assume
//!   (`gallop_growth = equations`, docs/gallop-regrowth.md).
//! - Feng & Vanichpun eq. 10 and 14: with beta from the buffer (Approaches
//!   1 and 2), one Vegas and one Reno flow get equal throughput:
//!   ACK_R / ACK_V = 1.

use anyhow::Result;
use vegas_cc::transient::critical_window_pkts;
use vegas_cc::transient::SlowStartRtt;

use super::paper::PaperNumber;
use super::paper::PaperSection;
use super::reproduce::Experiment;
use super::scenario::Scenario;

/// QUIC's datagram: rates are set so that mu is in these packets/s.
const DATAGRAM_BYTES: f64 = 1200.0;

/// A one-bottleneck scenario: `mu` packets/s, base RTT `d_ms` (the
/// bottleneck's one-way delay is all of it; the access and reverse links
/// add a negligible 0.1 ms each way), every packet acknowledged.
fn path(name: &str, mu_pkts_per_sec: f64, d_ms: f64, buffer_pkts: usize, secs: u32) -> String {
    let rate_bps = mu_pkts_per_sec * DATAGRAM_BYTES * 8.0;
    format!(
        "name = \"{name}\"\nduration = \"{secs}s\"\n[bottleneck]\nrate = \"{rate_bps}bit/s\"\n\
         delay = \"{:.3}ms\"\nbuffer_pkts = {buffer_pkts}\n[receiver]\nack_every_pkts = 1\n",
        d_ms / 2.0 - 0.1
    )
}

/// A flow of `algorithm` from `start_s` for `secs` seconds.
fn flow(algorithm: &str, params: &str, secs: u32, start_s: f64) -> String {
    flow_with(
        algorithm,
        params,
        &format!("duration = \"{secs}s\""),
        start_s,
    )
}

/// A flow of `algorithm` from `start_s` that ends as `end` says (`bytes =
/// N` or `duration = "Ts"`).
fn flow_with(algorithm: &str, params: &str, end: &str, start_s: f64) -> String {
    format!(
        "[[flows]]\nalgorithm = \"{algorithm}\"\nparams = {{ {params} }}\n{end}\n\
         start = \"{start_s}s\"\naccess = {{ rate = \"10Gbit/s\", delay = \"0.1ms\" }}\n"
    )
}

fn number(what: String, paper: f64, unit: &str, ours: &str, holds: String) -> PaperNumber {
    PaperNumber {
        what,
        paper,
        unit: unit.into(),
        ours: ours.into(),
        holds,
        headline: None,
    }
}

/// The experiment with `note` (why it does not hold, where it does not).
fn with_note(mut e: Experiment, note: &str) -> Experiment {
    e.paper.note = Some(note.into());
    e.scenario.paper = Some(e.paper.clone());
    e
}

fn experiment(
    name: &str,
    toml: String,
    source: &str,
    claim: &str,
    numbers: Vec<PaperNumber>,
) -> Result<Experiment> {
    let mut scenario = Scenario::from_toml(&toml, name, &[])?;
    let paper = PaperSection {
        cause: None,
        source: source.into(),
        claim: claim.into(),
        figure: None,
        seeds: Vec::new(),
        choices: vec![
            "QUIC's 1200-byte datagrams; mu in those packets per second; every packet \
             acknowledged; base RTT d set on the bottleneck (access links 10 Gbit/s, 0.1 ms)"
                .into(),
        ],
        note: None,
        numbers,
    };
    paper.validate()?;
    scenario.paper = Some(paper.clone());
    Ok(Experiment {
        file: format!("(model) {name}").into(),
        scenario,
        paper,
    })
}

/// Every cell of the models section.
pub fn model_experiments() -> Result<Vec<Experiment>> {
    let mut out = Vec::new();
    // Vanichpun & Feng eq. 9, on two paths and three gammas.
    for (mu, d_ms) in [(3000.0, 60.0), (12_000.0, 25.0)] {
        let d = d_ms / 1000.0;
        let mut numbers = Vec::new();
        let mut flows = String::new();
        for (i, gamma) in [1.0, 4.0, 16.0].into_iter().enumerate() {
            let w_star = critical_window_pkts(gamma, mu, d, SlowStartRtt::RoundAverage)?;
            // One flow at a time, 20 s apart.
            flows.push_str(&flow(
                "vegas",
                &format!("mode = \"paper\", gamma = {gamma}"),
                15,
                20.0 * i as f64,
            ));
            numbers.push(number(
                format!("exit window W_m, gamma = {gamma} (model: W* <= W_m < 2 W*)"),
                w_star,
                "packets",
                &format!("flows.{i}.slow_start_exit_cwnd_pkts"),
                format!("between {:.3} {:.3}", w_star, 2.0 * w_star),
            ));
        }
        let name = format!("model-critical-window-mu{mu}-d{d_ms}");
        let toml = path(&name, mu, d_ms, 10_000, 60) + &flows;
        out.push(experiment(
            &name,
            toml,
            "Vanichpun & Feng, eq. 9 (model)",
            "Vegas leaves slow start at the critical window W*(gamma) = (gamma + sqrt(gamma^2 + 16 mu d gamma)) / 2",
            numbers,
        )?);
    }
    // Vanichpun & Feng eq. 12 and 14-15 on two new BDPs. One transfer at
    // a time, each long enough for gamma = 1's linear increase to reach the
    // pipe in its first half (C_time needs the second half's equilibrium);
    // fixed sizes, so no flow is cut short mid-transfer.
    for (mu, d_ms, transfer_s) in [(4000.0, 80.0, 50.0), (10_000.0, 30.0, 20.0)] {
        let name = format!("model-gamma-selection-mu{mu}-d{d_ms}");
        let bytes = (mu * DATAGRAM_BYTES * transfer_s) as u64;
        let gap_s = transfer_s + 10.0;
        let mut toml = path(&name, mu, d_ms, 10_000, (3.0 * gap_s) as u32);
        for (i, params) in [
            format!("mode = \"paper\", gamma_rate = {mu}, gamma_approach = 2"),
            format!("mode = \"paper\", gamma_rate = {mu}, gamma_approach = 1"),
            "mode = \"paper\"".to_string(),
        ]
        .iter()
        .enumerate()
        {
            toml.push_str(&flow_with(
                "vegas",
                params,
                &format!("bytes = {bytes}"),
                gap_s * i as f64,
            ));
        }
        let numbers = vec![
            number(
                "C_time Approach 2 / C_time gamma = 1".into(),
                1.0,
                "ratio",
                "flows.0.convergence_rtts / flows.2.convergence_rtts",
                "<= 1".into(),
            ),
            number(
                "C_time Approach 1 / C_time gamma = 1".into(),
                1.0,
                "ratio",
                "flows.1.convergence_rtts / flows.2.convergence_rtts",
                "<= 1".into(),
            ),
            number(
                "C_time Approach 2 / C_time Approach 1".into(),
                1.0,
                "ratio",
                "flows.0.convergence_rtts / flows.1.convergence_rtts",
                "<= 1".into(),
            ),
        ];
        out.push(experiment(
            &name,
            toml,
            "Vanichpun & Feng, eq. 12 and 14-15 (model)",
            "gamma from Approach 2 converges no slower than Approach 1, and both faster than gamma = 1 (Fig. 3's claim at new BDPs)",
            numbers,
        )?);
    }
    // Ho, Chan & Chen eq. 16.
    for (mu, d_ms) in [(2000.0, 80.0), (6000.0, 40.0)] {
        let bdp = mu * d_ms / 1000.0;
        let name = format!("model-gallop-exit-mu{mu}-d{d_ms}");
        let toml =
            path(&name, mu, d_ms, 10_000, 40) + &flow("gallop-vegas", "mode = \"paper\"", 40, 0.0);
        out.push(with_note(experiment(
            &name,
            toml,
            "Ho, Chan & Chen, eq. 16 (model)",
            "Gallop-Vegas leaves slow start when its window reaches about the pipe, mu d + beta",
            vec![number(
                "exit window (model: mu d + 3, within 25%)".into(),
                bdp + 3.0,
                "packets",
                "flows.0.slow_start_exit_cwnd_pkts",
                "within 25%".into(),
            )],
        )?, "Ambiguity: III-C's pseudo code halves incr whenever Delta > gamma and reaches incr = 1 (its exit) near 0.7 mu d; eq. 16-19 assume a regrowth the pseudo code does not do"));
    }
    // The same cells with the regrowth eq. 16-19 assume
    // (`gallop_growth = equations`, docs/gallop-regrowth.md).
    for (mu, d_ms) in [(2000.0, 80.0), (6000.0, 40.0)] {
        let bdp = mu * d_ms / 1000.0;
        let name = format!("model-gallop-exit-mu{mu}-d{d_ms}-equations");
        let toml = path(&name, mu, d_ms, 10_000, 40)
            + &flow(
                "gallop-vegas",
                "mode = \"paper\", gallop_growth = \"equations\"",
                40,
                0.0,
            );
        let mut cell = experiment(
            &name,
            toml,
            "Ho, Chan & Chen, eq. 16 (model), with the regrowth of eq. 17-19",
            "Gallop-Vegas leaves slow start when its window reaches about the pipe, mu d + beta",
            vec![number(
                "exit window (model: mu d + 3, within 25%)".into(),
                bdp + 3.0,
                "packets",
                "flows.0.slow_start_exit_cwnd_pkts",
                "within 25%".into(),
            )],
        )?;
        cell.paper.choices.push(
            "gallop_growth = \"equations\": after a halving incr grows back by one every \
             other RTT to the value it was halved from, and only Delta >= beta ends slow start \
             (Gallop-Vegas eq. 16-19; docs/gallop-regrowth.md)"
                .into(),
        );
        cell.scenario.paper = Some(cell.paper.clone());
        out.push(cell);
    }
    // Feng & Vanichpun eq. 10 and 14 at buffers the tables did not use, on
    // their reference network (1.55 Mbit/s, 8 ms bottleneck; 10 Mbit/s,
    // 4 ms access links), with their ns-2 Vegas's loss response (the window
    // to 3/4 on a fast retransmit, as scenarios/papers/feng says).
    for buffer in [30usize, 80] {
        for approach in [1, 2] {
            let name = format!("model-compat-b{buffer}-approach{approach}");
            let access = "access = { rate = \"10Mbit/s\", delay = \"4ms\" }";
            let toml = format!(
                "name = \"{name}\"\nduration = \"120s\"\n[bottleneck]\nrate = \"1.55Mbit/s\"\n\
                 delay = \"8ms\"\nbuffer_pkts = {buffer}\n[receiver]\nack_every_pkts = 1\n\
                 [[flows]]\nalgorithm = \"newreno\"\nduration = \"120s\"\n{access}\n\
                 [[flows]]\nalgorithm = \"vegas-compat\"\nduration = \"120s\"\n{access}\n\
                 params = {{ mode = \"paper\", loss_reduction_factor = 0.75, buffer_pkts = {buffer}, \
                 reno_flows = 1, vegas_flows = 1, approach = {approach} }}\n"
            );
            out.push(experiment(
                &name,
                toml,
                "Feng & Vanichpun, eq. 10 and 14 (model)",
                "with beta from the buffer, one Vegas and one Reno flow get equal throughput",
                vec![number(
                    "ACK_R / ACK_V (model: 1, within 50%)".into(),
                    1.0,
                    "ratio",
                    "loss_based_over_vegas",
                    "within 50%".into(),
                )],
            )?);
        }
    }
    Ok(out)
}
