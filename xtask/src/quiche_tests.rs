//! `cargo xtask quiche-tests`: quiche's own unit tests after each patch of
//! the series, as upstream would run them.
//!
//! For each prefix of `patches/quiche/*.patch` (the first patch, the first
//! two, ... all of them) a fresh copy of quiche 0.30.0 at one fixed path
//! (`target/xtask/quiche-series/quiche`, so cargo reuses BoringSSL's build
//! from one step to the next) gets those patches, its own workspace and
//! the `Cargo.lock` quiche ships; it must compile with and without the
//! `qlog` feature and pass `cargo test --release --lib --features qlog`.
//! The result is a table of patches against tests passed and failed.
//! About 5 minutes per patch on 2 cores: not part of `cargo xtask test`.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::Result;

/// One step of the series: the last patch applied and what the tests said.
struct Step {
    patch: String,
    passed: u64,
    failed: u64,
}

pub fn run(root: &Path, args: &[String]) -> Result<()> {
    let patches = crate::patches()?;
    let only_last = match args {
        [] => false,
        [flag] if flag == "--last" => true,
        _ => return Err("usage: cargo xtask quiche-tests [--last]".into()),
    };
    crate::check_build_tools()?;
    let source = crate::fetch_quiche()?;
    if !source.join("Cargo.lock").is_file() {
        return Err(format!(
            "{} has no Cargo.lock: quiche's tests run with the lock it ships",
            source.display()
        ));
    }
    let work = root.join("target/xtask/quiche-series");
    let copy = work.join("quiche");
    let first = if only_last { patches.len() } else { 1 };
    let mut steps = Vec::new();
    for n in first..=patches.len() {
        let _ = fs::remove_dir_all(&copy);
        crate::copy_dir(&source, &copy)?;
        for p in &patches[..n] {
            crate::apply_patch(&copy, p)?;
        }
        // Its own workspace: our checkout's manifest is above it.
        let manifest = copy.join("Cargo.toml");
        let mut text = fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
        text.push_str("\n[workspace]\n");
        fs::write(&manifest, text).map_err(|e| e.to_string())?;
        let name = patches[n - 1]
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        eprintln!(
            "xtask: quiche's unit tests after {name} ({n} of {})",
            patches.len()
        );
        for features in [&["--features", "qlog"][..], &[][..]] {
            let mut check = quiche_cargo(&work, &copy);
            check.args(["check", "--release", "--lib", "--locked"]);
            check.args(features);
            crate::run(check).map_err(|e| format!("quiche after {name} does not build: {e}"))?;
        }
        let mut test = quiche_cargo(&work, &copy);
        test.args([
            "test",
            "--release",
            "--lib",
            "--locked",
            "--features",
            "qlog",
            "--no-fail-fast",
        ]);
        let out = test
            .output()
            .map_err(|e| format!("could not run cargo test: {e}"))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let (passed, failed) = test_counts(&stdout).ok_or_else(|| {
            format!(
                "quiche's tests after {name} gave no result:\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        })?;
        for line in stdout.lines().filter(|l| l.ends_with("FAILED")) {
            eprintln!("  {line}");
        }
        steps.push(Step {
            patch: name,
            passed,
            failed,
        });
    }
    println!("| after patch | quiche's unit tests passed | failed |\n|---|---|---|");
    for s in &steps {
        println!("| `{}` | {} | {} |", s.patch, s.passed, s.failed);
    }
    let failing: Vec<&str> = steps
        .iter()
        .filter(|s| s.failed > 0)
        .map(|s| s.patch.as_str())
        .collect();
    if failing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "quiche's own tests fail after {}",
            failing.join(", ")
        ))
    }
}

fn quiche_cargo(work: &Path, copy: &Path) -> Command {
    let mut c = crate::cargo();
    c.current_dir(copy)
        .env("CARGO_TARGET_DIR", work.join("target"));
    c
}

/// `test result: ok. 1143 passed; 0 failed; ...` summed over the lines.
fn test_counts(stdout: &str) -> Option<(u64, u64)> {
    let mut found = None;
    for line in stdout.lines().filter(|l| l.starts_with("test result:")) {
        let count = |word: &str| -> Option<u64> {
            let before = line.split(&format!(" {word}")).next()?;
            before.rsplit(' ').next()?.parse().ok()
        };
        let (p, f) = found.unwrap_or((0, 0));
        found = Some((p + count("passed")?, f + count("failed")?));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_come_from_the_result_lines() {
        let out = "running 3 tests\ntest a ... ok\n\
                   test result: FAILED. 1141 passed; 2 failed; 0 ignored; 0 measured; \
                   0 filtered out; finished in 30.1s\n";
        assert_eq!(test_counts(out), Some((1141, 2)));
        assert_eq!(test_counts("no result here"), None);
    }
}
