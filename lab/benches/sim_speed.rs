//! Simulator speed: virtual seconds per wall second, for one and for ten
//! 10 Mbit/s flows (the goal: at least 50x real time for one flow on 2
//! cores). Criterion reports the time of one run of 10 virtual seconds;
//! the speed is 10 s divided by that time (printed at the end too).

use std::time::Instant;

use criterion::criterion_group;
use criterion::criterion_main;
use criterion::Criterion;
use vegas_lab::sim::run;
use vegas_lab::sim::RunOptions;
use vegas_lab::sim::Scenario;

const VIRTUAL_SECONDS: u64 = 10;

fn scenario(flows: usize, algorithm: &str) -> Scenario {
    let mut text = format!(
        "name = \"speed-{flows}\"\nduration = \"{VIRTUAL_SECONDS}s\"\n\
         [bottleneck]\nrate = \"10Mbit/s\"\ndelay = \"20ms\"\nbuffer_pkts = 42\n"
    );
    for _ in 0..flows {
        text.push_str(&format!(
            "[[flows]]\nalgorithm = \"{algorithm}\"\nduration = \"{VIRTUAL_SECONDS}s\"\n"
        ));
    }
    Scenario::from_toml(&text, "bench", &[]).expect("valid scenario")
}

fn speed(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim_10s_at_10Mbit");
    group.sample_size(10);
    for (flows, algorithm) in [(1, "vegas"), (10, "vegas"), (1, "cubic")] {
        let s = scenario(flows, algorithm);
        group.bench_function(format!("{flows}_{algorithm}_flows"), |b| {
            b.iter(|| run(&s, RunOptions::default()).expect("runs"))
        });
        let wall = Instant::now();
        run(&s, RunOptions::default()).expect("runs");
        let secs = wall.elapsed().as_secs_f64();
        eprintln!(
            "speed: {flows} {algorithm} flow(s): {:.0}x real time ({VIRTUAL_SECONDS} s in {secs:.3} s)",
            VIRTUAL_SECONDS as f64 / secs
        );
    }
    group.finish();
}

criterion_group!(benches, speed);
criterion_main!(benches);
