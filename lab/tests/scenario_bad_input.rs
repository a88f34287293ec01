//! The bad-input catalogue for `vegas-lab run`: every `--set` value and
//! scenario file that once panicked, wrapped around, ran out of memory or
//! was silently accepted, and malformed or truncated files. Each must exit
//! non-zero (not 101, a panic) and name the problem.

#[path = "support/sim.rs"]
mod sim_support;

use sim_support::scenario_path;
use sim_support::temp_dir;
use sim_support::vegas_lab;

fn check(args: &[&str], expected: &[&str]) {
    let out = vegas_lab(args);
    let (code, stderr) = (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        code != 0 && code != 101,
        "{args:?}: exit {code}, stderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    for word in expected {
        assert!(stderr.contains(word), "{args:?}: `{word}` not in: {stderr}");
    }
}

#[test]
fn every_bad_override_is_an_error_naming_field_value_and_bound() {
    let cases: &[(&str, &[&str])] = &[
        (
            "bottleneck.delay=1e30s",
            &["bottleneck.delay", "1e30s", "1 day"],
        ),
        ("duration=1e30s", &["duration", "1e30s", "1 day"]),
        ("flows.0.start=1e20s", &["start", "1e20s", "1 day"]),
        (
            "flows.0.start=86400s",
            &["flows.0.start", "before the scenario's duration"],
        ),
        (
            "bottleneck.delay=18446744073s",
            &["bottleneck.delay", "18446744073s"],
        ),
        ("duration=18446744074s", &["duration", "18446744074s"]),
        (
            "receiver.max_ack_delay=16384ms",
            &["receiver.max_ack_delay", "16.384s"],
        ),
        (
            "bottleneck.rate=0.1bit/s",
            &["bottleneck.rate", "0.1bit/s", "1 bit/s"],
        ),
        (
            "bottleneck.rate=nanMbit/s",
            &["bottleneck.rate", "nanMbit/s"],
        ),
        ("bottleneck.buffer_pkts=1e9", &["bottleneck.buffer_pkts"]),
        (
            "bottleneck.buffer_pkts=100000000",
            &["bottleneck.buffer_pkts", "1000000"],
        ),
        ("bottleneck.loss=1", &["bottleneck.loss", "[0, 1)"]),
        (
            "bottleneck.loss_burst_pkts=0",
            &["bottleneck.loss_burst_pkts", "0"],
        ),
        ("bottleneck.reorder=2", &["bottleneck.reorder", "2"]),
        (
            "bottleneck.jitter=1s",
            &["bottleneck.jitter", "1s", "100ms"],
        ),
        ("reverse.jitter=2s", &["reverse.jitter", "2s", "100ms"]),
        (
            "receiver.ack_every_pkts=0",
            &["receiver.ack_every_pkts", "0"],
        ),
        ("max_datagram_size=70000", &["max_datagram_size", "70000"]),
        (
            "flows.0.params.initial_cwnd_pkts=1000000",
            &["initial_cwnd_pkts", "1000000", "100000"],
        ),
        (
            "flows.0.params.initial_cwnd_pkts=18446744073709551615",
            &["initial_cwnd_pkts"],
        ),
        ("flows.0.params.alpha=nan", &["alpha"]),
        ("flows.0.params.alpha=1e300", &["alpha", "1e300"]),
        (
            "flows.0.params.pacing_gain=1e-9",
            &["pacing_gain", "1e-9", "0.1"],
        ),
        ("flows.0.algorithm=vegass", &["vegass", "newreno"]),
        ("flows.7.algorithm=vegas", &["flows", "7"]),
        ("bottleneck.sped=3", &["sped", "rate"]),
        ("bottleneck", &["bottleneck", "path=value"]),
        (
            "handshake=early",
            &["handshake", "early", "in-band", "ahead"],
        ),
    ];
    for (set, expected) in cases {
        check(&["run", "demo", "--set", set], expected);
    }
    // quiche's own controllers cannot be kept from a handshake run ahead.
    check(
        &[
            "run",
            "demo",
            "--set",
            "handshake=ahead",
            "--set",
            "flows.0.algorithm=cubic",
        ],
        &[
            "handshake",
            "ahead",
            "flows.0.algorithm",
            "cubic",
            "in-band",
        ],
    );
}

#[test]
fn every_bad_flag_or_file_is_an_error() {
    let dir = temp_dir("vegas-bad-input");
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_string()
    };
    let demo = std::fs::read_to_string(scenario_path("demo.toml")).unwrap();
    let truncated = write("truncated.toml", &demo.as_bytes()[..demo.len() / 2]);
    let empty = write("empty.toml", b"");
    let garbage = write("garbage.toml", &[0xff, 0xfe, 0x00, 0x1e, 0x80]);
    let wrong_type = write(
        "wrong-type.toml",
        demo.replace("buffer_pkts = 10", "buffer_pkts = \"ten\"")
            .as_bytes(),
    );
    let mut many = demo.clone();
    for _ in 0..10_000 {
        many.push_str("\n[[flows]]\nalgorithm = \"vegas\"\nbytes = 1000\n");
    }
    let many = write("ten-thousand-flows.toml", many.as_bytes());
    let step = write(
        "variation-1ns.toml",
        format!(
            "{demo}\n[bottleneck.delay_variation]\nmin = \"10ms\"\nmax = \"30ms\"\nperiod = \"10s\"\nstep = \"1ns\"\n"
        )
        .as_bytes(),
    );
    let missing = dir.join("no-such-file.toml");
    // Trace-driven links: a malformed trace, a missing one, a rate and a
    // trace together, neither, and a rate change on a trace.
    let good_trace = write("good.down", b"1\n2\n3\n");
    let backwards = write("backwards.down", b"1\n5\n3\n");
    let with_trace = |name: &str, trace: &str, extra: &str| {
        write(
            name,
            format!(
                "{}{extra}",
                demo.replace("rate = \"200KB/s\"", &format!("trace = \"{trace}\""))
            )
            .as_bytes(),
        )
    };
    let bad_trace = with_trace("bad-trace.toml", &backwards, "");
    let no_trace = with_trace("no-trace.toml", "/no/such/trace.down", "");
    let neither = write(
        "neither.toml",
        demo.replace("rate = \"200KB/s\"", "").as_bytes(),
    );
    let trace_rate_change = with_trace(
        "trace-rate-change.toml",
        &good_trace,
        "\n[[bottleneck.changes]]\nat = \"1s\"\nrate = \"1Mbit/s\"\n",
    );
    let bad_reverse = with_trace(
        "bad-reverse.toml",
        &good_trace,
        &format!("\n[reverse]\ntrace = \"{backwards}\"\n"),
    );
    let both = format!("bottleneck.trace={good_trace}");
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["run", &bad_trace],
            vec!["bottleneck.trace", "backwards.down", "line 3", "before"],
        ),
        (
            vec!["run", &no_trace],
            vec!["bottleneck.trace", "/no/such/trace.down", "cannot open"],
        ),
        (vec!["run", &neither], vec!["bottleneck.rate", "missing"]),
        (
            vec!["run", &trace_rate_change],
            vec!["bottleneck.changes.0.rate", "trace"],
        ),
        (
            vec!["run", &bad_reverse],
            vec!["reverse.trace", "backwards.down", "line 3"],
        ),
        (
            vec!["run", "demo", "--set", &both],
            vec!["bottleneck", "not both"],
        ),
        (vec!["run", &truncated], vec!["truncated.toml"]),
        (vec!["run", &empty], vec!["empty.toml"]),
        (vec!["run", &garbage], vec!["garbage.toml"]),
        (vec!["run", &wrong_type], vec!["buffer_pkts"]),
        (vec!["run", &many], vec!["flows", "at most 1000"]),
        (vec!["run", &step], vec!["delay_variation.step", "1ns"]),
        (
            vec!["run", missing.to_str().unwrap()],
            vec!["neither a built-in"],
        ),
        (
            vec!["run", dir.to_str().unwrap()],
            vec!["neither a built-in"],
        ),
        (vec!["run", "demo", "--seed", "-1"], vec!["--seed", "-1"]),
        (
            vec!["run", "demo", "--seed", "18446744073709551616"],
            vec!["--seed"],
        ),
        (
            vec!["run", "demo", "--out", "/dev/null/x"],
            vec!["/dev/null/x"],
        ),
        (vec!["run", "demo", "--plot"], vec!["--out"]),
        (
            vec![
                "run",
                "demo",
                "--set",
                "background.arrivals_per_sec=1e6",
                "--set",
                "background.mean_bytes=10000",
            ],
            vec!["background.arrivals_per_sec", "2000"],
        ),
        (vec!["run"], vec!["SCENARIO"]),
        (vec!["frobnicate"], vec!["frobnicate"]),
    ];
    for (args, expected) in cases {
        check(&args, &expected);
    }
}
