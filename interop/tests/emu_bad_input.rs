//! `vegas-link-emu` refuses every bad flag value: a non-zero exit status
//! that is not a panic's (101), an error naming the flag and the value, and
//! no panic message. Each case would otherwise run for 0.3 s and exit 0.

use std::process::Command;
use std::process::Stdio;
use std::time::Duration;
use std::time::Instant;

const EXE: &str = env!("CARGO_BIN_EXE_vegas-link-emu");
const ROUTE: &str = "127.0.0.1:0=127.0.0.1:9";

/// Runs the emulator with a valid route, `args` and, unless `args` sets
/// one, a short duration; kills it after 10 s.
fn run(args: &[&str]) -> (Option<i32>, String) {
    let mut command = Command::new(EXE);
    command.args(["--route", ROUTE]).args(args);
    if !args.contains(&"--duration-s") {
        command.args(["--duration-s", "0.3"]);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("vegas-link-emu starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.code(), stderr)
}

/// (arguments, the flag and the value the error must name).
fn cases() -> Vec<(Vec<&'static str>, &'static str, &'static str)> {
    let mut cases = Vec::new();
    let mut each = |flag: &'static str, values: &[&'static str]| {
        for &v in values {
            cases.push((vec![flag, v], flag, v));
        }
    };
    let rates = [
        "nan", "NaN", "inf", "-inf", "-5", "0", "0.0005", "100001", "1e308", "1e999", "ten",
    ];
    each("--rate-mbit", &rates);
    each("--up-rate-mbit", &rates);
    let delays = [
        "nan", "inf", "-1", "-0.001", "60001", "1e15", "1e300", "20ms",
    ];
    each("--delay-ms", &delays);
    each("--up-delay-ms", &delays);
    let buffers = [
        "-1",
        "2.5",
        "1e3",
        "1000001",
        "99999999999999999999999",
        "nan",
        "many",
    ];
    each("--buffer-pkts", &buffers);
    each("--up-buffer-pkts", &buffers);
    let losses = ["nan", "inf", "-0.1", "1", "1.5", "1e300", "half"];
    each("--loss", &losses);
    each("--up-loss", &losses);
    each(
        "--loss-burst-pkts",
        &["0", "0.5", "-1", "nan", "inf", "10001", "1e300"],
    );
    let aggregation = ["nan", "inf", "-1", "1e-9", "0.0001", "60001", "1e15"];
    each("--ack-aggregation-ms", &aggregation);
    each("--down-aggregation-ms", &aggregation);
    each("--seed", &["-1", "1.5", "18446744073709551616", "nan"]);
    each(
        "--spin-us",
        &["-1", "50001", "99999999999999999999", "1.5", "nan"],
    );
    each(
        "--socket-buffer-kb",
        &["-1", "1048577", "99999999999999999999", "1.5", "4k"],
    );
    each(
        "--duration-s",
        &["nan", "inf", "-inf", "-1", "0", "86401", "1e300", "soon"],
    );
    each(
        "--step",
        &[
            "nan:down:loss=0.1",
            "-1:down:loss=0.1",
            "1e300:down:loss=0.1",
            "86400001:down:loss=0.1",
            "1:sideways:loss=0.1",
            "1:down:loss=1",
            "1:down:loss=nan",
            "1:down:rate_mbit=0",
            "1:down:rate_mbit=1e9",
            "1:down:delay_ms=1e15",
            "1:down:delay_ms=-1",
            "1:up:buffer_pkts=2.5",
            "1:up:buffer_pkts=1000001",
            "1:down:foo=1",
            "1:down:loss",
            "5000:down",
        ],
    );
    each(
        "--route",
        &[
            "x",
            "127.0.0.1:5000",
            "127.0.0.1:5000=127.0.0.1:0",
            "127.0.0.1:5000=127.0.0.1:5000",
            "8.8.8.8:5000=127.0.0.1:4433",
            "127.0.0.1:5000=10.0.0.1:4433",
            "127.0.0.1:5000=localhost:4433",
            "127.0.0.1:99999=127.0.0.1:4433",
        ],
    );
    // Flags that are fine alone but not together.
    cases.push((
        vec!["--loss", "0.9", "--loss-burst-pkts", "2"],
        "--loss",
        "0.9",
    ));
    cases.push((
        vec!["--loss-burst-pkts", "4", "--step", "100:both:loss=0.85"],
        "--step",
        "100:both:loss=0.85",
    ));
    cases.push((
        vec![
            "--route",
            "127.0.0.1:5000=127.0.0.1:4433",
            "--route",
            "127.0.0.1:5000=127.0.0.1:4434",
        ],
        "--route",
        "127.0.0.1:5000",
    ));
    cases.push((
        vec![
            "--route",
            "127.0.0.1:5000=127.0.0.1:4433",
            "--route",
            "127.0.0.1:5001=127.0.0.1:5000",
        ],
        "--route",
        "127.0.0.1:5000",
    ));
    let log = std::env::temp_dir().join(format!("emu-bad-input-{}.log", std::process::id()));
    let log: &'static str = Box::leak(log.display().to_string().into_boxed_str());
    cases.push((
        vec!["--queue-log", log, "--up-queue-log", log],
        "--up-queue-log",
        log,
    ));
    let trace = |name: &str, text: &str| -> &'static str {
        let path =
            std::env::temp_dir().join(format!("emu-bad-input-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        Box::leak(path.display().to_string().into_boxed_str())
    };
    let backwards = trace("backwards.down", "1\n5\n3\n");
    cases.push((vec!["--trace-down", backwards], "--trace-down", "line 3"));
    cases.push((
        vec!["--trace-up", trace("words.up", "1\nten\n")],
        "--trace-up",
        "`ten` is not a timestamp",
    ));
    cases.push((
        vec!["--trace-down", "/nonexistent/x.down"],
        "--trace-down",
        "/nonexistent/x.down",
    ));
    let good = trace("good.down", "1\n2\n");
    cases.push((
        vec!["--trace-down", good, "--rate-mbit", "5"],
        "--trace-down",
        "--rate-mbit",
    ));
    cases.push((
        vec!["--trace-up", good, "--step", "100:both:rate_mbit=5"],
        "--trace-up",
        "100:both:rate_mbit=5",
    ));
    cases.push((
        vec!["--queue-log", "/nonexistent-folder/down.log"],
        "--queue-log",
        "/nonexistent-folder/down.log",
    ));
    cases
}

#[test]
fn every_bad_value_is_refused_with_the_flag_and_the_value() {
    let mut failures = Vec::new();
    for (args, flag, value) in cases() {
        let (code, stderr) = run(&args);
        let problems: Vec<&str> = [
            (code == Some(0), "exit status 0"),
            (code.is_none(), "killed by a signal (or hung)"),
            (code == Some(101), "exit status 101 (panic)"),
            (stderr.contains("panicked"), "panicked"),
            (!stderr.contains(flag), "flag not named"),
            (!stderr.contains(value), "value not named"),
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
}

/// A valid trace file of its own for `name`.
fn good_trace(name: &str) -> &'static str {
    let path = std::env::temp_dir().join(format!("emu-good-{}-{name}", std::process::id()));
    std::fs::write(&path, "1\n1\n2\n").unwrap();
    Box::leak(path.display().to_string().into_boxed_str())
}

#[test]
fn the_bounds_themselves_are_accepted() {
    for args in [
        vec!["--rate-mbit", "0.001", "--up-rate-mbit", "100000"],
        vec!["--delay-ms", "60000", "--up-delay-ms", "0"],
        vec!["--buffer-pkts", "1000000", "--up-buffer-pkts", "0"],
        vec!["--loss", "0.999", "--loss-burst-pkts", "1"],
        vec!["--loss", "0.6", "--loss-burst-pkts", "2"],
        vec!["--loss-burst-pkts", "10000", "--spin-us", "50000"],
        vec![
            "--ack-aggregation-ms",
            "0.001",
            "--down-aggregation-ms",
            "60000",
        ],
        vec![
            "--trace-down",
            good_trace("down"),
            "--trace-up",
            good_trace("up"),
            "--step",
            "10:both:delay_ms=5",
        ],
        vec![
            "--step",
            "86400000:both:delay_ms=60000",
            "--seed",
            "18446744073709551615",
        ],
    ] {
        let (code, stderr) = run(&args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
    }
}

#[test]
fn help_documents_the_bounds() {
    let out = Command::new(EXE).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for bound in [
        "0.001 to 100000 Mbit/s",
        "0 to 60000 ms",
        "0 to 1000000",
        "[0, 1)",
        "1 to 10000",
        "B/(B+1)",
        "0 to 50000 us",
        "at most 86400 s",
        "T_MS 0 to 86400000",
    ] {
        assert!(help.contains(bound), "--help lacks `{bound}`:\n{help}");
    }
}
