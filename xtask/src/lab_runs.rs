//! Runs of `vegas-lab run SCENARIO --json --series`, one process each,
//! several at a time: the engine of the simulator benchmarks
//! (`bench --coexist`, `bench --traces`).

use std::fs;
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::Value;

use crate::Result;

/// A scenario file's text, or a built-in scenario (or file) and its
/// `--set`s.
pub enum Scenario {
    Text(String),
    Named(String, Vec<String>),
}

/// A benchmark's `--jobs N`: parallel runs, at least 1.
pub fn parse_jobs(value: Option<&String>) -> Result<usize> {
    value
        .and_then(|v| v.parse().ok())
        .filter(|n| *n >= 1)
        .ok_or_else(|| "--jobs needs a number of parallel runs >= 1, e.g. --jobs 2".into())
}

/// Runs `scenario` (written to `dir/cell-INDEX.toml` when it is text) and
/// returns its JSON summary.
pub fn run_one(lab: &Path, dir: &Path, index: usize, scenario: &Scenario) -> Result<Value> {
    let mut args = vec!["run".to_string()];
    match scenario {
        Scenario::Text(text) => {
            let path = dir.join(format!("cell-{index}.toml"));
            fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            args.push(path.display().to_string());
        }
        Scenario::Named(name, sets) => {
            args.push(name.clone());
            for s in sets {
                args.extend(["--set".to_string(), s.clone()]);
            }
        }
    }
    args.extend(["--json".to_string(), "--series".to_string()]);
    let out = Command::new(lab)
        .args(&args)
        .output()
        .map_err(|e| format!("could not run {}: {e}", lab.display()))?;
    if !out.status.success() {
        return Err(format!(
            "vegas-lab {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("vegas-lab printed no JSON: {e}"))
}

/// Runs every scenario on `jobs` threads (`what` names the batch in the
/// progress line); results in the scenarios' order.
pub fn run_all(
    lab: &Path,
    dir: &Path,
    scenarios: &[&Scenario],
    jobs: usize,
    what: &str,
) -> Result<Vec<Value>> {
    let next = Arc::new(Mutex::new(0usize));
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let (next, tx) = (next.clone(), tx.clone());
            scope.spawn(move || loop {
                let i = {
                    let mut n = next.lock().expect("no panics while holding it");
                    let i = *n;
                    *n += 1;
                    i
                };
                if i >= scenarios.len() {
                    break;
                }
                let r = run_one(lab, dir, i, scenarios[i]);
                if tx.send((i, r)).is_err() {
                    break;
                }
            });
        }
    });
    drop(tx);
    let mut results: Vec<Option<Value>> = vec![None; scenarios.len()];
    for (i, r) in rx {
        results[i] = Some(r?);
    }
    eprintln!(
        "{what}: {} runs in {:.0} s",
        scenarios.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(results
        .into_iter()
        .map(|r| r.expect("every cell ran"))
        .collect())
}
