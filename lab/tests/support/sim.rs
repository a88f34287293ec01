//! Helpers the simulator tests share (`simulator`, `ack_frequency`,
//! `coexistence`, `family_sim`, `demo_path`, `hostile_network`, `jitter`,
//! `qlog_tools`) and the `vegas-lab` command-line tests
//! (`scenario_bad_input`, `lab_tools_bad_input`): a scenario from TOML
//! text or a file with `--set` overrides, a run with the default options
//! and its summary, `vegas-lab` itself, a scratch directory.
//!
//! Each includer takes it as `#[path = "support/sim.rs"] mod sim_support;`.
//! The tests that also run the HTTP/3 examples take the root package's
//! `tests/support/mod.rs` as well.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;
use std::process::Output;

use vegas_lab::sim::report::report;
use vegas_lab::sim::report::Report;
use vegas_lab::sim::run;
use vegas_lab::sim::RunOptions;
use vegas_lab::sim::Scenario;
use vegas_lab::sim::SimResult;

/// A scenario from TOML `text` (`origin` names it in errors) with `sets`
/// applied as `--set` overrides.
pub fn from_toml(text: &str, origin: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_toml(text, origin, &sets).expect("a valid scenario")
}

/// A built-in scenario or a scenario file with `sets` applied as `--set`
/// overrides.
pub fn load<S: AsRef<str>>(name_or_path: &str, sets: &[S]) -> Scenario {
    let sets: Vec<String> = sets.iter().map(|s| s.as_ref().to_string()).collect();
    Scenario::load(name_or_path, &sets).expect("scenario loads")
}

/// The path of `scenarios/FILE` in this repository.
pub fn scenario_path(file: &str) -> String {
    format!("{}/../scenarios/{file}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `s` with the default options: no queue logs or qlogs, no progress.
pub fn run_default(s: &Scenario) -> SimResult {
    run(s, RunOptions::default()).expect("runs")
}

/// Runs `s` with the default options and summarises the run as
/// `vegas-lab run --json` does (no wall-clock time).
pub fn run_report(s: &Scenario) -> Report {
    run_and_report(s).0
}

/// [`run_report`]'s summary and the raw result it summarises (the
/// controllers' traces, the time series).
pub fn run_and_report(s: &Scenario) -> (Report, SimResult) {
    let r = run_default(s);
    (report(s, &r, 0.0), r)
}

/// Runs the `vegas-lab` binary with `args` to its end, output captured.
pub fn vegas_lab<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Command::new(env!("CARGO_BIN_EXE_vegas-lab"))
        .args(args)
        .output()
        .expect("vegas-lab runs")
}

/// An empty directory `NAME-<process id>` under the system's temp dir (a
/// previous run's is removed first); it is left in place afterwards.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
