//! `vegas-lab`'s own flags (those of `plot`, `qvis`, `run` and `demo` that
//! are not scenario fields) refuse bad values: a non-zero exit status that
//! is not a panic's (101), an error naming the flag and the value, no
//! panic message, and nothing written.

use std::path::PathBuf;

#[path = "support/sim.rs"]
mod sim_support;

use sim_support::temp_dir;
use sim_support::vegas_lab;

#[test]
fn every_bad_value_is_refused_with_the_flag_and_the_value() {
    let dir = temp_dir("lab-bad-input");
    let s = |p: PathBuf| p.display().to_string();
    // The checks run before any input is read: these need not be qlogs.
    let input = s(dir.join("in-server.sqlog"));
    let queue = s(dir.join("bottleneck.queue"));
    std::fs::write(&input, "not read").unwrap();
    std::fs::write(&queue, "not read").unwrap();
    let out_qlog = s(dir.join("out.qlog"));
    let out_svg = s(dir.join("out.svg"));
    let folder = s(dir.clone());
    let a_file = input.clone();
    let same_input = s(dir.join(".").join("in-server.sqlog"));

    // (arguments, flag, value) with the value as it must appear.
    let mut cases: Vec<(Vec<String>, &str, String)> = Vec::new();
    let mut case = |args: &[&str], flag: &'static str, value: &str| {
        cases.push((
            args.iter().map(|a| a.to_string()).collect(),
            flag,
            value.to_string(),
        ));
    };
    for v in [
        "0.000001", "0", "-1", "0.5", "nan", "NaN", "inf", "-inf", "1e300", "100001", "ten", "",
    ] {
        case(
            &["qvis", &input, "-o", &out_qlog, "--max-mb", v],
            "--max-mb",
            v,
        );
    }
    case(&["qvis", &input, "-o", &folder], "--output", &folder);
    case(&["qvis", &input, "-o", ""], "--output", "''");
    case(&["qvis", &input, "-o", &input], "--output", &input);
    case(
        &["qvis", &input, "-o", &same_input],
        "--output",
        &same_input,
    );
    for v in [
        "-1",
        "1.5",
        "1e3",
        "1000001",
        "99999999999999999999999",
        "nan",
        "x",
    ] {
        case(&["plot", &input, "-o", &out_svg, "--flow", v], "--flow", v);
    }
    case(&["plot", &input, "-o", &folder], "--output", &folder);
    case(&["plot", &input, "-o", &input], "--output", &input);
    case(
        &["plot", &input, "--queue", &queue, "-o", &queue],
        "--output",
        &queue,
    );
    for v in ["-1", "1.5", "nan", "18446744073709551616", "1e3"] {
        case(&["run", "demo", "--seed", v], "--seed", v);
        case(&["demo", "--seed", v], "--seed", v);
    }
    case(&["run", "demo", "--out", &a_file], "--out", &a_file);
    case(&["run", "demo", "--out", ""], "--out", "''");

    let mut failures = Vec::new();
    for (args, flag, value) in cases {
        let out = vegas_lab(&args);
        let code = out.status.code();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let problems: Vec<&str> = [
            (code == Some(0), "exit status 0"),
            (code.is_none(), "killed by a signal"),
            (code == Some(101), "exit status 101 (panic)"),
            (stderr.contains("panicked"), "panicked"),
            (!stderr.contains(flag), "flag not named"),
            (!stderr.contains(value.as_str()), "value not named"),
        ]
        .into_iter()
        .filter_map(|(bad, what)| bad.then_some(what))
        .collect();
        if !problems.is_empty() {
            failures.push(format!(
                "{args:?}: {} (exit {code:?})\n  stderr: {}",
                problems.join(", "),
                stderr.trim()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Nothing was written, and the inputs are intact.
    assert!(!dir.join("out.qlog").exists() && !dir.join("out.svg").exists());
    assert_eq!(std::fs::read_to_string(&input).unwrap(), "not read");
    assert_eq!(std::fs::read_to_string(&queue).unwrap(), "not read");
}

#[test]
fn help_documents_the_bounds() {
    let out = vegas_lab(["qvis", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("1 to 100000") && help.contains("1000 files"),
        "{help}"
    );
    let out = vegas_lab(["plot", "--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("0 to 1000000"), "{help}");
}
