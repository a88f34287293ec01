//! `cargo xtask fuzz [--minutes N]`: the controllers' property tests as a
//! soak. Every variant of `vegas-cc` (the eight family members in default
//! and paper mode, gamma selection, NewReno) and the sampler get random
//! hostile event sequences for N minutes (default 10); the test prints how
//! many sequences and controller calls ran, and a failure is shrunk to a
//! short sequence by proptest and printed.
//!
//! Why proptest and not cargo-fuzz: it runs on stable Rust, needs no
//! libFuzzer or sanitizer build, and shares its generators and invariants
//! with the property tests `cargo xtask test` runs
//! (`congestion/tests/properties.rs`).

use crate::cargo;
use crate::run;
use crate::Result;

/// A day: a soak longer than that is a typo.
const MAX_MINUTES: f64 = 24.0 * 60.0;
const DEFAULT_MINUTES: f64 = 10.0;

pub fn run_fuzz(args: &[String]) -> Result<()> {
    let minutes = parse_minutes(args)?;
    let seconds = (minutes * 60.0).round().max(1.0) as u64;
    println!("fuzz: {minutes} min over every vegas-cc controller variant");
    let mut c = cargo();
    c.env("VEGAS_FUZZ_SECONDS", seconds.to_string());
    c.args([
        "test",
        "--release",
        "-p",
        "vegas-cc",
        "--test",
        "properties",
        "--",
        "--ignored",
        "--exact",
        "soak",
        "--nocapture",
    ]);
    run(c)
}

fn parse_minutes(args: &[String]) -> Result<f64> {
    match args {
        [] => Ok(DEFAULT_MINUTES),
        [flag, value] if flag == "--minutes" => match value.parse::<f64>() {
            Ok(m) if m.is_finite() && m > 0.0 && m <= MAX_MINUTES => Ok(m),
            _ => Err(format!(
                "--minutes {value}: allowed: a number of minutes > 0 and at most {MAX_MINUTES}"
            )),
        },
        _ => Err(format!(
            "fuzz: unexpected arguments {args:?}; usage: cargo xtask fuzz [--minutes N]"
        )),
    }
}
